/* SPDX-License-Identifier: ISC */
/*
 * --exec=trusted's "changed before the run started" (lib/supervise/
 * trust.c), and the file a mapping is of (mapped.c).
 *
 * The race: a file written right after the run started carries the
 * filesystem's time of the change, the kernel's coarse clock (a tick
 * behind the fine clock a program reads).  A start read from the fine
 * clock let such a file pass as older than the run.  Written here many
 * times right after the start is taken, it must never pass.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervise/supervise_int.h"

static char dir[] = "/tmp/syspin-trust.XXXXXX";

/* A root-owned 0755 file (the test runs as root; else skipped). */
static int
fresh_file(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	assert_int_equal(fchmod(fd, 0755), 0);
	return fd;
}

static void
test_written_after_start(void **state)
{
	struct sp_supervise_opts o;
	struct sup s;
	struct timespec fine;
	char why[256];
	int i, fd, fooled = 0, trusted = 0;

	(void)state;
	if (geteuid() != 0)
		skip();
	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	s.o = &o;
	for (i = 0; i < 200; i++) {
		/* the old start, for comparison: the fine clock */
		clock_gettime(CLOCK_REALTIME, &fine);
		sp_sup_trust_start(&o.pin.start);
		fd = fresh_file("after");
		struct stat st;
		assert_int_equal(fstat(fd, &st), 0);
		if (st.st_ctim.tv_sec < fine.tv_sec ||
		    (st.st_ctim.tv_sec == fine.tv_sec &&
		    st.st_ctim.tv_nsec < fine.tv_nsec))
			fooled++;	/* the old check would trust it */
		trusted += sp_sup_trusted_fd(&s, fd, why, sizeof(why));
		close(fd);
	}
	print_message("written after the start: %d of 200 dated before the "
	    "fine clock's start; %d trusted now\n", fooled, trusted);
	assert_int_equal(trusted, 0);
	/* an older file passes: made, then the start taken 3 s later */
	fd = fresh_file("old");
	sleep(3);
	sp_sup_trust_start(&o.pin.start);
	assert_true(sp_sup_trusted_fd(&s, fd, why, sizeof(why)));
	close(fd);
}

/* The file of a mapping: by device and inode, never by name alone; a
 * "\012" in the maps line is a newline in the name. */
static void
test_open_mapped(void **state)
{
	char nl[128], lit[128], f1[160], f2[160], other[160];
	struct sp_map m;
	struct stat st, got;
	int fd, fd2;

	(void)state;
	snprintf(nl, sizeof(nl), "%s/a\nb", dir);
	snprintf(lit, sizeof(lit), "%s/a\\012b", dir);
	snprintf(f1, sizeof(f1), "%s/f", nl);
	snprintf(f2, sizeof(f2), "%s/f", lit);
	snprintf(other, sizeof(other), "%s/other", dir);
	assert_int_equal(mkdir(nl, 0755), 0);
	assert_int_equal(mkdir(lit, 0755), 0);
	fd = open(f1, O_RDWR | O_CREAT, 0644);
	fd2 = open(other, O_RDWR | O_CREAT, 0644);
	assert_true(fd >= 0 && fd2 >= 0);
	assert_int_equal(symlink(other, f2), 0);
	assert_int_equal(fstat(fd, &st), 0);
	memset(&m, 0, sizeof(m));
	m.kind = SP_MAP_FILE;
	m.dev = st.st_dev;
	m.inode = st.st_ino;
	m.path = f2;		/* as maps writes f1: the other file is there */
	m.start = 0x1000;	/* no such mapping: map_files finds nothing */
	m.end = 0x2000;
	int o = sp_sup_open_mapped(getpid(), &m, &got);
	assert_true(o >= 0);
	assert_int_equal(got.st_ino, st.st_ino);	/* f1, not other */
	close(o);
	/* a name that holds another file: nothing */
	m.path = other;
	assert_int_equal(sp_sup_open_mapped(getpid(), &m, &got), -1);
	close(fd);
	close(fd2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written_after_start),
		cmocka_unit_test(test_open_mapped),
	};
	char cmd[64];
	int r;

	if (mkdtemp(dir) == NULL)
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		r = r ? r : 1;
	return r;
}
