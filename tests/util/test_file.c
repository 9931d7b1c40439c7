/* SPDX-License-Identifier: ISC */
/*
 * sp_open_regular: a path someone else names is opened only when it is a
 * regular file.  A FIFO with no writer would block a plain open(O_RDONLY)
 * (here it must come back at once, unopened), a device or a directory is
 * not opened at all, a missing file fails with its errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/file.h"

static char dir[] = "/tmp/syspin-test-file.XXXXXX";

static void
path_in(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void
test_regular(void **state)
{
	char p[256], b[4];
	struct stat st;
	int fd;

	(void)state;
	path_in(p, sizeof(p), "reg");
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	fd = sp_open_regular(p, &st);
	assert_true(fd >= 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 3);
	assert_int_equal(read(fd, b, sizeof(b)), 3);
	/* Read-only, close-on-exec. */
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

static void
test_not_regular(void **state)
{
	char p[256];
	struct stat st;

	(void)state;
	path_in(p, sizeof(p), "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	alarm(5);	/* an open that blocks fails the test */
	assert_int_equal(sp_open_regular(p, &st), -2);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(sp_open_regular(dir, &st), -2);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(sp_open_regular("/dev/null", &st), -2);
	assert_true(S_ISCHR(st.st_mode));
	alarm(0);
}

static void
test_missing(void **state)
{
	char p[256];
	struct stat st;

	(void)state;
	path_in(p, sizeof(p), "missing");
	errno = 0;
	assert_int_equal(sp_open_regular(p, &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void
test_link(void **state)
{
	char p[256], l[256];
	struct stat st;
	int fd;

	(void)state;
	path_in(p, sizeof(p), "reg");
	path_in(l, sizeof(l), "link");
	assert_int_equal(symlink(p, l), 0);
	fd = sp_open_regular(l, &st);	/* followed: the file it names */
	assert_true(fd >= 0);
	close(fd);
	unlink(l);
	assert_int_equal(symlink("/dev/null", l), 0);
	assert_int_equal(sp_open_regular(l, &st), -2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_link),
	};
	char cmd[128];
	int r;

	if (mkdtemp(dir) == NULL)
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		r = 1;
	return r;
}
