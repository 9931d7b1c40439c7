/* SPDX-License-Identifier: ISC */
/*
 * Files kept in memory (sp_cache_keep, lib/pins/cache_write.c): what
 * cannot be written into the cache directory is read back through the same
 * handle, believed by the same MAC check as the file would be, and said
 * once per process, never by a forked child.  A cache of memory alone
 * (sp_cache_open_memory) reads "absent", never "untrusted".  Writes are
 * made to fail as root too: the directory removed under the open handle,
 * or the name of the file written aside taken.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pins/cache.h"

#include "pins/cache_format.h"

static int nsaid;
static char said[512];

static void
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(said, sizeof(said), fmt, ap);
	va_end(ap);
	nsaid++;
}

static uint32_t nrs[] = { 39, 0, 1, 59 };
static struct sp_pin_site sites[] = {
	{ .addr = 0x100, .nr_first = 0, .nr_count = 1, .length = 2,
	  .how = SP_PIN_EXACT, .export = SP_PIN_NO_EXPORT },
	{ .addr = 0x300, .nr_first = 1, .nr_count = 3, .length = 2,
	  .how = SP_PIN_EXACT, .export = SP_PIN_NO_EXPORT },
};
static char strtab[] = "\0syscall";

static void
sample(struct sp_pintab *t, uint64_t ino)
{
	memset(t, 0, sizeof(*t));
	t->id = (struct sp_file_id){ 0xfe00, ino, 5678, 1700000000, 42,
	    1700000001, 7 };
	t->sites = sites;
	t->nsites = 2;
	t->nrs = nrs;
	t->nnrs = 4;
	t->strtab = strtab;
	t->strtab_size = sizeof(strtab);
}

/* A fresh directory, a handle on it with the process's MAC and keep. */
static void
open_kept(struct sp_cache *c, char *dir)
{
	struct sp_error err;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(sp_cache_open(c, dir, geteuid(), false, &err), 0);
	/* The process's own key: the same check, no keyring needed. */
	(void)sp_cache_use_mac_named(c, "syspin:cache-keep-test",
	    SP_CACHE_MAC_NO_KEYRING, &err);
	assert_int_equal(sp_cache_keep(c, say, &err), 0);
}

/* The inode of the table loaded under key: which one was read. */
static uint64_t
loaded(const struct sp_cache *c, const char *key)
{
	struct sp_pintab t;
	struct sp_error err;
	uint64_t ino;

	if (sp_cache_load(c, key, &t, &err) != 1)
		return 0;
	assert_int_equal(t.nsites, 2);
	assert_int_equal(t.sites[1].nr_count, 3);
	ino = t.id.ino;
	sp_pintab_free(&t);
	return ino;
}

static int
entries(const char *dir)
{
	struct dirent *e;
	DIR *d;
	int n = 0;

	assert_non_null(d = opendir(dir));
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void
remove_dir(const char *dir, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * Only the process that asked says it: a forked child (the supervisor's
 * bounded analysis) stays silent, its parent stores the same files.
 * First, while this process has said nothing yet.
 */
static void
test_child_silent(void **state)
{
	char dir[] = "/tmp/syspin-test-keep.XXXXXX";
	struct sp_cache c;
	struct sp_pintab t;
	struct sp_error err;
	pid_t pid;
	int st;

	(void)state;
	open_kept(&c, dir);
	assert_int_equal(rmdir(dir), 0);
	if ((pid = fork()) == 0) {
		sample(&t, 7);
		if (sp_cache_store(&c, "f-child", &t, &err) != 0)
			_exit(2);
		/* Kept (its key is wiped in a child: not believed there). */
		_exit(nsaid == 0 && c.mem->files != NULL ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(nsaid, 0);
	/* The child's memory was its own. */
	assert_int_equal(loaded(&c, "f-child"), 0);
	sp_cache_close(&c);
}

/* A directory gone under the handle: every file kept, said once. */
static void
test_kept(void **state)
{
	static const char rec[] = "syspin-objects 1\n/bin/true\n";
	char dir[] = "/tmp/syspin-test-keep.XXXXXX", buf[64];
	struct sp_cache c, m;
	struct sp_pintab t;
	struct sp_error err;
	size_t len;
	void *p;

	(void)state;
	open_kept(&c, dir);
	assert_int_equal(rmdir(dir), 0);
	sample(&t, 11);
	assert_int_equal(sp_cache_store(&c, "f-a", &t, &err), 0);
	assert_int_equal(nsaid, 1);
	assert_non_null(strstr(said, dir));
	assert_non_null(strstr(said, ": cannot write (No such file or "
	    "directory): tables are made again each run"));
	assert_int_equal(loaded(&c, "f-a"), 11);
	/* Again under the same name: the newer one. */
	sample(&t, 12);
	assert_int_equal(sp_cache_store(&c, "f-a", &t, &err), 0);
	assert_int_equal(loaded(&c, "f-a"), 12);
	assert_int_equal(sp_cache_put(&c, "p-rec", rec, sizeof(rec), &err), 0);
	assert_true(sp_cache_has(&c, "p-rec"));
	assert_false(sp_cache_has(&c, "p-none"));
	assert_int_equal(sp_cache_get(&c, "p-rec", buf, sizeof(buf), &err),
	    sizeof(rec));
	assert_memory_equal(buf, rec, sizeof(rec));
	assert_int_equal(sp_cache_get(&c, "p-rec", buf, 8, &err), -1);
	assert_int_equal(sp_cache_read(&c, "p-rec", 64, &p, &len, &err), 1);
	assert_int_equal(len, sizeof(rec));
	free(p);
	assert_int_equal(sp_cache_writable(&c, &err), -1);
	assert_non_null(strstr(err.msg, "cannot write (No such file"));
	/* Once a process, whichever cache. */
	assert_int_equal(sp_cache_open_memory(&m, "/nowhere", geteuid(),
	    "Permission denied", say, &err), 0);
	assert_int_equal(sp_cache_store(&m, "f-b", &t, &err), 0);
	assert_int_equal(nsaid, 1);
	sp_cache_close(&m);
	sp_cache_close(&c);
}

/* Kept files are believed by the MAC they were kept with, no more. */
static void
test_kept_mac(void **state)
{
	char dir[] = "/tmp/syspin-test-keep.XXXXXX";
	struct sp_cache c;
	struct sp_pintab t;
	struct sp_error err;

	(void)state;
	open_kept(&c, dir);
	assert_int_equal(rmdir(dir), 0);
	sample(&t, 21);
	assert_int_equal(sp_cache_store(&c, "f-m", &t, &err), 0);
	/* A number changed in memory: not believed, made again. */
	c.mem->files->data[sizeof(struct sp_cache_hdr) + 8] ^= 1;
	assert_int_equal(sp_cache_load(&c, "f-m", &t, &err), 0);
	assert_non_null(strstr(err.msg, "not believed"));
	/* Stored again, believed once: the bytes believed are what later
	 * loads get (lib/pins/cache_memo.c), whatever the kept copy holds. */
	sample(&t, 21);
	assert_int_equal(sp_cache_store(&c, "f-m", &t, &err), 0);
	assert_int_equal(loaded(&c, "f-m"), 21);
	c.mem->files->data[sizeof(struct sp_cache_hdr) + 8] ^= 1;
	assert_int_equal(loaded(&c, "f-m"), 21);
	sp_cache_close(&c);
}

/* What is kept is newer than the directory's file of the same name. */
static void
test_kept_first(void **state)
{
	char dir[] = "/tmp/syspin-test-keep.XXXXXX", aside[512];
	struct sp_cache c, d;
	struct sp_pintab t;
	struct sp_error err;
	int fd;

	(void)state;
	open_kept(&c, dir);
	sample(&t, 31);
	assert_int_equal(sp_cache_store(&c, "f-k", &t, &err), 0);
	assert_int_equal(entries(dir), 1);
	/* The name this process writes aside is taken: the write fails. */
	assert_int_equal(sp_cache_open(&d, dir, geteuid(), false, &err), 0);
	(void)sp_cache_use_mac_named(&d, "syspin:cache-keep-test",
	    SP_CACHE_MAC_NO_KEYRING, &err);
	assert_int_equal(sp_cache_keep(&d, NULL, &err), 0);
	snprintf(aside, sizeof(aside), "%s/.f-k.%ld.tmp", dir,
	    (long)getpid());
	assert_true((fd = open(aside, O_CREAT | O_WRONLY, 0600)) != -1);
	close(fd);
	sample(&t, 32);
	assert_int_equal(sp_cache_store(&d, "f-k", &t, &err), 0);
	assert_int_equal(loaded(&d, "f-k"), 32);
	assert_int_equal(loaded(&c, "f-k"), 31);
	sp_cache_close(&d);
	sp_cache_close(&c);
	unlink(aside);
	assert_int_equal(entries(dir), 1);
	remove_dir(dir, "f-k");
}

/* No directory at all: absent, not untrusted; then what was made. */
static void
test_memory_alone(void **state)
{
	struct sp_cache c;
	struct sp_pintab t;
	struct sp_error err;
	char buf[16];

	(void)state;
	assert_int_equal(sp_cache_open_memory(&c, NULL, geteuid(),
	    "HOME is not set", say, &err), 0);
	assert_int_equal(sp_cache_load(&c, "f-x", &t, &err), 0);
	assert_int_equal(sp_cache_get(&c, "p-x", buf, sizeof(buf), &err), 0);
	assert_false(sp_cache_has(&c, "p-x"));
	assert_int_equal(sp_cache_writable(&c, &err), -1);
	assert_string_equal(err.msg, "no cache directory (HOME is not set)");
	sample(&t, 41);
	assert_int_equal(sp_cache_store(&c, "f-x", &t, &err), 0);
	assert_int_equal(loaded(&c, "f-x"), 41);
	assert_true(sp_cache_has(&c, "f-x"));
	sp_cache_close(&c);
}

/* A directory that takes files: writable, and the probe leaves none. */
static void
test_writable(void **state)
{
	char dir[] = "/tmp/syspin-test-keep.XXXXXX";
	struct sp_cache c;
	struct sp_pintab t;
	struct sp_error err;

	(void)state;
	open_kept(&c, dir);
	assert_int_equal(sp_cache_writable(&c, &err), 0);
	assert_int_equal(entries(dir), 0);
	sample(&t, 51);
	assert_int_equal(sp_cache_store(&c, "f-w", &t, &err), 0);
	assert_null(c.mem->files);	/* written, not kept */
	assert_int_equal(entries(dir), 1);
	sp_cache_close(&c);
	remove_dir(dir, "f-w");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_child_silent),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_kept_mac),
		cmocka_unit_test(test_kept_first),
		cmocka_unit_test(test_memory_alone),
		cmocka_unit_test(test_writable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
