/* SPDX-License-Identifier: ISC */
/*
 * Case 37: pinned text is immutable.  pinsyscalls(2) seals the executable
 * mappings of its region with mseal(2): munmap, mprotect, mremap and
 * MAP_FIXED over them fail with EPERM; data in the region, code outside
 * it, and a failed call's region stay as they were.  Each check runs in
 * a forked child (neither a filter nor a seal can be undone).  Skipped
 * where the kernel has no mseal (before 6.10).
 *
 * usage: test_pinseal PINSELF
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <syspin/pinsyscalls.h>

#define PG	4096
#define TRAP	0x102	/* mov %edi,%eax; syscall; ret at 0x100 */

static const char *pinself;
static char *area;	/* page 0 r-x (the stub), page 1 rw- */
static char *other;	/* r-x, outside the region */
static unsigned int table[40];

typedef long (*stub_fn)(long nr);

static char *
code_page(void)
{
	static const uint8_t stub[] = { 0x89, 0xf8, 0x0f, 0x05, 0xc3 };
	char *p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	memset(p, 0xcc, PG);
	memcpy(p + 0x100, stub, sizeof(stub));
	assert_int_equal(mprotect(p, PG, PROT_READ | PROT_EXEC), 0);
	return p;
}

static void
setup_area(void)
{
	area = code_page();
	other = code_page();
	memset(table, 0, sizeof(table));
	table[SYS_getpid] = TRAP;
}

/* Runs FN in a child; returns its exit status, or 100 + signal. */
static int
in_child(int (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	    100 + WTERMSIG(status);
}

#define EPERM_OR(call, code) do {					\
	errno = 0;							\
	if ((call) != -1 || errno != EPERM)				\
		return (code);						\
} while (0)

/* The region: the code page and the first 100 bytes of the data page. */
static int
sealed(void)
{
	if (pinsyscalls(area, PG + 100, table, 40) != 0)
		return 50;
	EPERM_OR(munmap(area, PG), 1);
	EPERM_OR(mprotect(area, PG, PROT_READ | PROT_WRITE), 2);
	EPERM_OR(mprotect(area, PG, PROT_READ | PROT_EXEC), 3);
	if (mmap(area, PG, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0) != MAP_FAILED || errno != EPERM)
		return 4;
	if (mremap(area, PG, 2 * PG, MREMAP_MAYMOVE) != MAP_FAILED ||
	    errno != EPERM)
		return 5;
	if (((stub_fn)(void *)(area + 0x100))(SYS_getpid) != getpid())
		return 6;		/* still there, still pinned */
	/* Data in the region and code outside it are not sealed. */
	if (mprotect(area + PG, PG, PROT_READ) != 0 ||
	    munmap(area + PG, PG) != 0)
		return 7;
	return munmap(other, PG) == 0 ? 0 : 8;
}

/* Without pinsyscalls the same calls work: the attack is real. */
static int
unsealed(void)
{
	if (mprotect(area, PG, PROT_READ | PROT_WRITE) != 0)
		return 1;
	return munmap(area, PG) == 0 ? 0 : 2;
}

/* A call that fails its checks seals nothing. */
static int
failed_call(void)
{
	unsigned int bad[2] = { 0, 3 * PG };

	if (pinsyscalls(area, PG, bad, 2) != -1 || errno != ERANGE)
		return 50;
	return munmap(area, PG) == 0 ? 0 : 1;
}

static void
test_sealed(void **state)
{
	(void)state;
	setup_area();
	assert_int_equal(in_child(sealed), 0);
	assert_int_equal(in_child(unsealed), 0);
	assert_int_equal(in_child(failed_call), 0);
}

/* The freestanding flavour, on a static program's own text. */
static void
test_pinself_sealed(void **state)
{
	char cmd[512];
	int status;

	(void)state;
	snprintf(cmd, sizeof(cmd), "exec %s sealed", pinself);
	status = system(cmd);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("pinself sealed: status 0x%x", status);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sealed),
		cmocka_unit_test(test_pinself_sealed),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_pinseal PINSELF\n");
		return 2;
	}
	pinself = argv[1];
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	if (syscall(462, 0, 0, 0) != 0) {	/* mseal(2) */
		printf("1..0 # SKIP no mseal(2) here (Linux 6.10+)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
