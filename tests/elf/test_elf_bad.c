/* SPDX-License-Identifier: ISC */
/*
 * Bad input for the ELF reader: each case must fail with a message that
 * names the problem, or (for damage the loader would not care about, such
 * as a broken .eh_frame) succeed with a warning.  Never a crash or hang;
 * each accepted image is also run through sp_scan when it links.
 *
 * usage: test_elf_bad SMALL_SO CRASHERS_DIR
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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

#include "elf/elf.h"

#include "image.h"
#include "mutations.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static const char *small_path, *crashers_dir;
struct image small;
static char tmpdir[] = "/tmp/syspin-elf-bad.XXXXXX";

static void
expect_open_fails(const char *path, const char *substr)
{
	struct sp_error err = { { 0 }, 0 };
	struct sp_elf elf;

	if (sp_elf_open(&elf, path, &err) == 0) {
		sp_elf_close(&elf);
		fail_msg("%s: accepted, want an error containing \"%s\"", path,
		    substr);
	}
	if (strstr(err.msg, substr) == NULL)
		fail_msg("%s: error \"%s\", want one containing \"%s\"", path,
		    err.msg, substr);
}

static char *
tmpfile_with(const char *name, const void *data, size_t size)
{
	static char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, size), (ssize_t)size);
	close(fd);
	return path;
}

static void
test_not_elf(void **state)
{
	(void)state;
	expect_open_fails(tmpfile_with("text", "hello, world\n", 13),
	    "not an ELF");
	expect_open_fails(tmpfile_with("magic3", "\x7f" "EL", 3), "not an ELF");
	expect_open_fails(tmpfile_with("magic4", "\x7f" "ELF", 4), "");
	expect_open_fails(tmpfile_with("script", "#!/bin/sh\n", 10),
	    "not an ELF");
}

static void
test_empty(void **state)
{
	char msg[SP_ERROR_MAX];

	(void)state;
	expect_open_fails(tmpfile_with("empty", "", 0), "empty");
	assert_int_equal(try_image("", 0, msg, sizeof(msg), NULL, 0), -1);
	assert_non_null(strstr(msg, "empty"));
}

static void
test_directory(void **state)
{
	(void)state;
	expect_open_fails(tmpdir, "directory");
	expect_open_fails("/", "directory");
}

static void
test_missing(void **state)
{
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/does-not-exist", tmpdir);
	expect_open_fails(path, "No such file");
}

static void
test_not_regular(void **state)
{
	(void)state;
	expect_open_fails("/dev/null", "");
	expect_open_fails("/proc/self/mem", "");
}

/* Runs fn in a child with a deadline; returns its exit status or -sig. */
static int
in_child(void (*fn)(const char *), const char *arg, unsigned secs)
{
	int st;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(secs);
		fn(arg);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

static void
open_must_fail(const char *path)
{
	struct sp_error err = { { 0 }, 0 };
	struct sp_elf elf;

	if (sp_elf_open(&elf, path, &err) == 0)
		_exit(3);
	fprintf(stderr, "  %s: %s\n", path, err.msg);
	_exit(err.msg[0] == '\0' ? 4 : 0);
}

/* A FIFO: open(O_RDONLY) blocks until a writer comes: must not hang. */
static void
test_fifo(void **state)
{
	char path[512];
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(path, 0644), 0);
	rc = in_child(open_must_fail, path, 5);
	if (rc == -SIGALRM)
		fail_msg("sp_elf_open hangs on a FIFO (%s)", path);
	assert_int_equal(rc, 0);
}

static void
unreadable_child(const char *path)
{
	if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
		_exit(5);
	open_must_fail(path);
}

/* chmod 000 (as root, tried by an unprivileged child). */
static void
test_unreadable(void **state)
{
	char *path;
	int rc;

	(void)state;
	assert_int_equal(chmod(tmpdir, 0755), 0);
	path = tmpfile_with("unreadable", small.data, small.size);
	assert_int_equal(chmod(path, 0), 0);
	rc = in_child(unreadable_child, path, 5);
	if (rc == 5)
		skip();		/* no setuid in this sandbox */
	assert_int_equal(rc, 0);
}

/* Every prefix of a small ELF. */
static void
test_prefixes_small(void **state)
{
	char msg[SP_ERROR_MAX];
	uint64_t need = loads_end(&small);

	(void)state;
	for (size_t n = 0; n <= small.size; n++) {
		int rc = try_image(small.data, n, msg, sizeof(msg), NULL, 0);
		if (n < need && rc == 0)
			fail_msg("prefix of %zu bytes (PT_LOADs need %llu) "
			    "accepted", n, (unsigned long long)need);
		if (rc != 0 && msg[0] == '\0')
			fail_msg("prefix of %zu bytes: empty error", n);
	}
	assert_int_equal(try_image(small.data, small.size, msg, sizeof(msg),
	    NULL, 0), 0);
}

/* A few dozen prefixes of libc.so.6, as files (the mmap path). */
static void
test_prefixes_libc(void **state)
{
	char msg[SP_ERROR_MAX];
	struct image libc;

	(void)state;
	if (access(LIBC, R_OK) != 0)
		skip();
	image_load(&libc, LIBC);
	uint64_t need = loads_end(&libc);
	size_t cuts[48], nc = 0;
	cuts[nc++] = 1;
	cuts[nc++] = 63;
	cuts[nc++] = 64;
	cuts[nc++] = 64 + 56 * 2 + 3;
	for (int k = 1; k <= 40; k++)
		cuts[nc++] = libc.size / 41 * (size_t)k + (size_t)k;
	cuts[nc++] = need - 1;
	cuts[nc++] = need;
	cuts[nc++] = libc.size - 1;
	for (size_t i = 0; i < nc; i++) {
		size_t n = cuts[i];
		int rc = try_image(libc.data, n, msg, sizeof(msg), NULL, 0);
		if (n < need && rc == 0)
			fail_msg("libc prefix of %zu bytes accepted", n);
		if (rc != 0 && msg[0] == '\0')
			fail_msg("libc prefix of %zu bytes: empty error", n);
		if (i % 8 == 0) {
			struct sp_error err = { { 0 }, 0 };
			struct sp_elf elf;
			char *p = tmpfile_with("libc-prefix", libc.data, n);
			if (sp_elf_open(&elf, p, &err) == 0)
				sp_elf_close(&elf);
			else if (err.msg[0] == '\0')
				fail_msg("libc file prefix %zu: empty error", n);
		}
	}
	image_free(&libc);
}

/* Regression: every file in crashers/ must be handled without a crash. */
static void
test_crashers(void **state)
{
	char msg[SP_ERROR_MAX], path[1024];
	struct dirent *de;
	DIR *d;

	(void)state;
	d = opendir(crashers_dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		struct image im;
		if (de->d_name[0] == '.' || strstr(de->d_name, ".md"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", crashers_dir, de->d_name);
		image_load(&im, path);
		print_message("  crasher %s\n", de->d_name);
		try_image(im.data, im.size, msg, sizeof(msg), NULL, 0);
		image_free(&im);
	}
	closedir(d);
}


static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	image_load(&small, small_path);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[600];

	(void)state;
	image_free(&small);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_prefixes_small),
		cmocka_unit_test(test_prefixes_libc),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_eh_frame),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_crashers),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_elf_bad SMALL_SO CRASHERS_DIR\n");
		return 2;
	}
	small_path = argv[1];
	crashers_dir = argv[2];
	return cmocka_run_group_tests(tests, setup, teardown);
}
