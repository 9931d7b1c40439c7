/* SPDX-License-Identifier: ISC */
/*
 * pinsyscalls(2): errno values and their order, the once-flag, threads,
 * and enforcement, each in a forked child (a filter cannot be removed).
 * The -nostdlib flavour (pinself, sharing pinsyscalls_core.c) is run
 * through the same sequences and must answer alike.
 *
 * usage: test_pinsyscalls PINSELF
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
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

#include "pincases.h"

static const char *pinself;

/* Runs FN in a child; returns its wait status. */
static int
in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(arg));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void
assert_exit(int status, int code)
{
	if (!WIFEXITED(status))
		fail_msg("child killed by signal %d, expected exit %d",
		    WTERMSIG(status), code);
	assert_int_equal(WEXITSTATUS(status), code);
}

static int
call(const char *name)
{
	struct pc_call c;

	if (pc_make(name, &c) != 0)
		return -2;
	errno = 0;
	if (pinsyscalls(c.start, c.len, c.table, c.npins) == 0)
		return 0;
	return errno;
}

static int
expected(const char *name)
{
	struct pc_call c;

	assert_int_equal(pc_make(name, &c), 0);
	return c.expect;
}

/* Sequences of calls in one process, as "CASE=errno ..." like pinself. */
static const char *const seqs[][4] = {
	{ "valid", "valid" },			/* 27, 28 */
	{ "npinsmax", "valid" },
	{ "wrap", "valid" },			/* 30 */
	{ "above", "valid" },
	{ "npins0", "valid" },			/* 31 */
	{ "npins513", "npinsneg", "valid" },
	{ "fault", "valid" },
	{ "range", "valid" },
	{ "rangelast", "valid" },
	{ "wrap+npins0", "npins0+fault" },	/* order */
	{ "above+fault", "valid" },
	{ "npins0+fault", "valid" },
	{ "fault+range", "valid" },
};
#define NSEQS (sizeof(seqs) / sizeof(*seqs))

static int
run_seq(void *arg)
{
	const char *const *s = arg;

	for (int i = 0; i < 4 && s[i] != NULL; i++)
		printf("%s=%d%s", s[i], call(s[i]),
		    i + 1 < 4 && s[i + 1] != NULL ? " " : "\n");
	return fflush(stdout) == 0 ? 0 : 1;	/* the child _exits */
}

/* The first call answers what OpenBSD answers; every later one EPERM. */
static void
test_sequences(void **state)
{
	char want[256], got[256];
	int status, pfd[2];
	size_t len;

	(void)state;
	for (size_t i = 0; i < NSEQS; i++) {
		len = 0;
		for (int k = 0; k < 4 && seqs[i][k] != NULL; k++)
			len += (size_t)snprintf(want + len, sizeof(want) - len,
			    "%s=%d%s", seqs[i][k], k == 0 ?
			    expected(seqs[i][k]) : EPERM,
			    k + 1 < 4 && seqs[i][k + 1] != NULL ? " " : "\n");
		assert_int_equal(pipe(pfd), 0);
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			dup2(pfd[1], 1);
			_exit(run_seq((void *)seqs[i]));
		}
		close(pfd[1]);
		memset(got, 0, sizeof(got));
		assert_true(read(pfd[0], got, sizeof(got) - 1) > 0);
		close(pfd[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_exit(status, 0);
		assert_string_equal(got, want);
	}
}

/* pinself (freestanding, sp_pinsyscalls_raw) answers the same. */
static void
test_freestanding_agrees(void **state)
{
	char cmd[512], want[256], got[256];
	FILE *p;
	size_t len;

	(void)state;
	for (size_t i = 0; i < NSEQS; i++) {
		len = (size_t)snprintf(cmd, sizeof(cmd), "%s seq", pinself);
		for (int k = 0; k < 4 && seqs[i][k] != NULL; k++)
			len += (size_t)snprintf(cmd + len, sizeof(cmd) - len,
			    " %s", seqs[i][k]);
		len = 0;
		for (int k = 0; k < 4 && seqs[i][k] != NULL; k++)
			len += (size_t)snprintf(want + len, sizeof(want) - len,
			    "%s=%d%s", seqs[i][k], k == 0 ?
			    expected(seqs[i][k]) : EPERM,
			    k + 1 < 4 && seqs[i][k + 1] != NULL ? " " : "\n");
		p = popen(cmd, "r");
		assert_non_null(p);
		memset(got, 0, sizeof(got));
		assert_non_null(fgets(got, sizeof(got), p));
		assert_int_equal(pclose(p), 0);
		assert_string_equal(got, want);
	}
}

/* A table that runs into an unmapped page: EFAULT, not SIGSEGV. */
static int
partial_fault(void *arg)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (p == MAP_FAILED || munmap(p + 4096, 4096) != 0)
		return 100;
	memset(p, 0, 4096);
	/* 4 entries readable, the 5th is not. */
	if (pinsyscalls(pc_area, PC_LEN, (unsigned int *)(p + 4096 - 16),
	    5) != -1 || errno != EFAULT)
		return 1;
	return pinsyscalls(pc_area, PC_LEN, pc_ok, 4) == -1 &&
	    errno == EPERM ? 0 : 2;
}

static void
test_partial_fault(void **state)
{
	(void)state;
	assert_exit(in_child(partial_fault, NULL), 0);
}

/* Threads ------------------------------------------------------------ */

static int gate[2];

static void *
thread_main(void *arg)
{
	char c;

	(void)arg;
	return read(gate[0], &c, 1) == 1 ? NULL : (void *)1;
}

static int
ntasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * Case 29: EPERM while a second thread exists, before any other check
 * (a wrapping range still says EPERM), and the call is not used up.
 */
static int
threads(void *arg)
{
	pthread_t t;

	(void)arg;
	if (pipe(gate) != 0 || pthread_create(&t, NULL, thread_main,
	    NULL) != 0)
		return 100;
	if (call("valid") != EPERM || call("wrap") != EPERM ||
	    call("npins0") != EPERM)
		return 1;
	if (write(gate[1], "x", 1) != 1 || pthread_join(t, NULL) != 0)
		return 101;
	/* The joined thread may linger in /proc for a moment. */
	for (int i = 0; i < 1000 && ntasks() != 1; i++)
		usleep(1000);
	return call("valid") == 0 ? 0 : 2;
}

static void
test_threads(void **state)
{
	(void)state;
	assert_exit(in_child(threads, NULL), 0);
}

/* Enforcement ---------------------------------------------------------- */

/*
 * A page of code made at run time, so the region holds exactly the traps
 * the test wants: each stub takes the number in %edi.
 *	0x100	mov %edi,%eax; syscall; ret		(trap A at 0x102)
 *	0x200	the same				(trap B at 0x202)
 *	0x300	mov %edi,%eax; int $0x80; ret
 *	0x400	mov %edi,%eax; jmp 1f; .byte 0xb8; 1: syscall; ret
 *		(the trap at 0x405 hides inside "mov $imm,%eax" at 0x404)
 */
#define TRAP_A	0x102
#define TRAP_B	0x202
#define TRAP_M	0x405
#define WILD	110		/* getppid: -1 */

typedef long (*stub_fn)(long nr);

static char *code;
static unsigned int table[111];

static stub_fn
stub(unsigned off)
{
	return (stub_fn)(void *)(code + off);
}

static void
make_code(void)
{
	static const uint8_t trap[] = { 0x89, 0xf8, 0x0f, 0x05, 0xc3 };
	static const uint8_t int80[] = { 0x89, 0xf8, 0xcd, 0x80, 0xc3 };
	static const uint8_t hidden[] = { 0x89, 0xf8, 0xeb, 0x01, 0xb8, 0x0f,
	    0x05, 0xc3 };

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(code != MAP_FAILED);
	memset(code, 0xcc, 4096);
	memcpy(code + 0x100, trap, sizeof(trap));
	memcpy(code + 0x200, trap, sizeof(trap));
	memcpy(code + 0x300, int80, sizeof(int80));
	memcpy(code + 0x400, hidden, sizeof(hidden));
	assert_int_equal(mprotect(code, 4096, PROT_READ | PROT_EXEC), 0);
	memset(table, 0, sizeof(table));
	table[SYS_getpid] = TRAP_A;
	table[WILD] = 0xffffffffu;
	table[SYS_getuid] = TRAP_M;
}

static int
pin_code(void)
{
	return pinsyscalls(code, 4096, table, 111);
}

/* What runs fine once pinned (cases 1, 5, 20, 27). */
static int
allowed(void *arg)
{
	(void)arg;
	if (pin_code() != 0)
		return 100;
	if (stub(0x100)(SYS_getpid) != getpid())		/* pinned */
		return 1;
	if (stub(0x100)(WILD) != getppid() ||			/* -1 */
	    stub(0x200)(WILD) != getppid() ||
	    stub(0x400)(WILD) != getppid())
		return 2;
	if (stub(0x400)(SYS_getuid) != getuid())	/* hidden, pinned */
		return 3;
	if (stub(0x100)(600) != -ENOSYS ||		/* >= SYS_MAXSYSCALL */
	    stub(0x100)(-1) != -ENOSYS)
		return 4;
	/* Outside the region: not looked at (libc's own traps). */
	return getpid() > 0 && write(1, "", 0) == 0 ? 0 : 5;
}

static void
test_allowed(void **state)
{
	(void)state;
	make_code();
	assert_exit(in_child(allowed, NULL), 0);
}

struct attack {
	const char *what;
	unsigned off;
	long nr;
	bool shield;		/* SIGSYS ignored and blocked first */
};

static int
attack(void *arg)
{
	const struct attack *a = arg;
	sigset_t set;

	if (pin_code() != 0)
		return 100;
	if (a->shield) {
		sigemptyset(&set);
		sigaddset(&set, SIGSYS);
		if (signal(SIGSYS, SIG_IGN) == SIG_ERR ||
		    sigprocmask(SIG_BLOCK, &set, NULL) != 0)
			return 101;
	}
	stub(a->off)(a->nr);
	return 0;			/* survived */
}

static const struct attack attacks[] = {
	{ "pinned number at another trap (case 2)", 0x200, SYS_getpid, false },
	{ "unpinned number at a pinned trap (case 3)",
	  0x100, SYS_getuid, false },
	{ "number >= npins (case 4)", 0x100, 200, false },
	{ "number 0 (read) not pinned", 0x100, 0, false },
	{ "misaligned trap, not pinned there (case 19)",
	  0x400, SYS_getpid, false },
	{ "int $0x80 from the region (i386 getpid)", 0x300, 20, false },
	{ "int $0x80 with the wildcard's number", 0x300, WILD, false },
	/* Case 24: the death cannot be caught, ignored or blocked. */
	{ "case 2 with SIGSYS ignored and blocked", 0x200, SYS_getpid,
	  true },
};

/* int $0x80 from an unpinned process: some kernels (IA-32 emulation
 * off, some hypervisors) fault on it before any filter runs. */
static int
int80_probe(void *arg)
{
	(void)arg;
	signal(SIGSEGV, SIG_DFL);	/* cmocka's handler would go on */
	return stub(0x300)(20) > 0 ? 0 : 1;
}

static void
test_attacks(void **state)
{
	bool int80;

	(void)state;
	make_code();
	int80 = WIFEXITED(in_child(int80_probe, NULL));
	if (!int80)
		print_message("skipping the int $0x80 cases: it faults here\n");
	for (size_t i = 0; i < sizeof(attacks) / sizeof(*attacks); i++) {
		if (!int80 && attacks[i].off == 0x300)
			continue;
		int status = in_child(attack, (void *)&attacks[i]);

		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS)
			fail_msg("%s: not killed by SIGSYS (status 0x%x)",
			    attacks[i].what, status);
	}
}

static void *
thread_violates(void *arg)
{
	(void)arg;
	stub(0x200)(SYS_getpid);	/* case 2, from a second thread */
	return NULL;
}

/* Case 23: a violation in one thread takes the whole process. */
static int
thread_kill(void *arg)
{
	pthread_t t;

	(void)arg;
	if (pin_code() != 0 ||
	    pthread_create(&t, NULL, thread_violates, NULL) != 0)
		return 100;
	pthread_join(t, NULL);
	for (;;)
		pause();	/* only a process-wide kill ends this */
}

static void
test_thread_kill(void **state)
{
	int status;

	(void)state;
	make_code();
	status = in_child(thread_kill, NULL);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSYS);
}

/* Case 33: fork keeps the filter and the once-flag. */
static int
forked(void *arg)
{
	int status;
	pid_t pid;

	(void)arg;
	if (pin_code() != 0)
		return 100;
	pid = fork();
	if (pid == 0) {
		if (pinsyscalls(pc_area, PC_LEN, pc_ok, 4) != -1 ||
		    errno != EPERM)
			_exit(1);
		stub(0x200)(SYS_getpid);
		_exit(2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 101;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS)
		return 3;
	return stub(0x100)(SYS_getpid) == getpid() ? 0 : 4;
}

static void
test_fork(void **state)
{
	(void)state;
	make_code();
	assert_exit(in_child(forked, NULL), 0);
}

/* The exec'd image runs outside the old region: not pinned (case 35). */
static int
execs(void *arg)
{
	(void)arg;
	if (pin_code() != 0)
		return 100;
	execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
	return 101;
}

static void
test_exec(void **state)
{
	(void)state;
	make_code();
	assert_exit(in_child(execs, NULL), 7);
}

/* The static -nostdlib program pinning its own text. */
static void
test_pinself(void **state)
{
	static const struct {
		const char *args;
		int code;	/* exit status, or -1 for SIGSYS */
	} runs[] = {
		{ "pinned", 0 }, { "enosys", 0 }, { "fork", 0 },
		{ "othersite", -1 }, { "wrongnr", -1 }, { "big", -1 },
		{ "exec /bin/sh -c 'exit 7'", 7 },
	};
	char cmd[512];
	int status;

	(void)state;
	for (size_t i = 0; i < sizeof(runs) / sizeof(*runs); i++) {
		snprintf(cmd, sizeof(cmd), "exec %s %s >/dev/null", pinself,
		    runs[i].args);
		status = system(cmd);
		if (runs[i].code < 0) {
			/* exec: no shell in between to turn it into 159. */
			if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS)
				fail_msg("pinself %s: status 0x%x, expected "
				    "SIGSYS", runs[i].args, status);
		} else if (!WIFEXITED(status) ||
		    WEXITSTATUS(status) != runs[i].code)
			fail_msg("pinself %s: status 0x%x, expected %d",
			    runs[i].args, status, runs[i].code);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequences),
		cmocka_unit_test(test_freestanding_agrees),
		cmocka_unit_test(test_partial_fault),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_attacks),
		cmocka_unit_test(test_thread_kill),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_pinself),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_pinsyscalls PINSELF\n");
		return 2;
	}
	pinself = argv[1];
	/* Every SIGSYS here is expected: no core files. */
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	return cmocka_run_group_tests(tests, NULL, NULL);
}
