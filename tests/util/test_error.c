/* SPDX-License-Identifier: ISC */
/*
 * struct sp_error: the message, and the errno value of the system call
 * that failed (0 when none did), set where the failure happened: callers
 * decide on err.code, never on errno, which later calls may have changed.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpf/bpf.h"
#include "pins/cache.h"
#include "elf/elf.h"
#include "util/error.h"

static void
test_set(void **state)
{
	struct sp_error err;

	(void)state;
	err.code = 12345;
	assert_int_equal(sp_error_set(&err, "bad %s %d", "header", 3), -1);
	assert_string_equal(err.msg, "bad header 3");
	assert_int_equal(err.code, 0);
	assert_int_equal(sp_error_set(NULL, "x"), -1);
}

static void
test_sys(void **state)
{
	struct sp_error err;
	char want[SP_ERROR_MAX];

	(void)state;
	assert_int_equal(sp_error_sys(&err, ENOENT, "%s/%s", "/a", "b"), -1);
	snprintf(want, sizeof(want), "/a/b: %s", strerror(ENOENT));
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, ENOENT);
	sp_error_sys(&err, EACCES, NULL);
	assert_string_equal(err.msg, strerror(EACCES));
	assert_int_equal(err.code, EACCES);
	assert_int_equal(sp_error_sys(NULL, EIO, "x"), -1);
}

/* A message longer than the buffer is cut, terminated, code kept. */
static void
test_sys_long(void **state)
{
	struct sp_error err;
	char path[2 * SP_ERROR_MAX];

	(void)state;
	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	sp_error_sys(&err, ENOSPC, "%s", path);
	assert_int_equal(strlen(err.msg), SP_ERROR_MAX - 1);
	assert_int_equal(err.code, ENOSPC);
}

/* The library's own failures carry the code of the call that failed. */
static void
test_library(void **state)
{
	struct sp_error err;
	struct sp_elf elf;
	struct sp_cache c;

	(void)state;
	errno = 0;
	assert_int_equal(sp_elf_open(&elf, "/nonexistent/syspin-x", &err), -1);
	assert_int_equal(err.code, ENOENT);
	assert_int_equal(sp_elf_open(&elf, "/", &err), -1);
	assert_int_equal(err.code, 0);	/* no system call failed */
	assert_int_equal(sp_cache_open(&c, "/nonexistent/syspin-x", geteuid(),
	    false, &err), -1);
	assert_int_equal(err.code, ENOENT);
}

/*
 * Filters until the kernel refuses one: ENOMEM (past seccomp's
 * 32768-instruction total) in err.code, whatever errno holds afterwards.
 * In a child, which keeps its filters.
 */
static void
test_install_enomem(void **state)
{
	struct sock_filter insns[BPF_MAXINSNS];
	struct sp_bpf_prog prog = { insns, BPF_MAXINSNS };
	struct sp_error err;
	pid_t pid;
	int i, st;

	(void)state;
	for (i = 0; i < BPF_MAXINSNS; i++)
		insns[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		    SECCOMP_RET_ALLOW);
	if ((pid = fork()) == 0) {
		for (i = 0; i < 16; i++)
			if (sp_bpf_install(&prog, 1, 0, &err) == -1)
				break;
		errno = 0;
		_exit(i > 0 && i < 16 && err.code == ENOMEM &&
		    strstr(err.msg, strerror(ENOMEM)) != NULL ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_sys),
		cmocka_unit_test(test_sys_long),
		cmocka_unit_test(test_library),
		cmocka_unit_test(test_install_enomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
