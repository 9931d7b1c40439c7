/* SPDX-License-Identifier: ISC */
/*
 * Uses every syspin_syscallN of <syspin/pinsyscall.h> once and checks the
 * results, so the test suite can check both that the calls work and that
 * each `syscall` carries its pin entry (test_openbsd.c reads this binary,
 * built as PIE, non-PIE, static and static PIE).
 */
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <syspin/pinsyscall.h>

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "helpers: failed: %s\n", #cond);	\
		return 1;						\
	}								\
} while (0)

int
main(void)
{
	sigset_t old;
	long p;

	CHECK(syspin_syscall0(SYS_getpid) == getpid());
	CHECK(syspin_syscall1(SYS_close, -1) == -9);		/* EBADF */
	CHECK(syspin_syscall2(SYS_kill, getpid(), 0) == 0);
	CHECK(syspin_syscall3(SYS_write, -1, "", 0) == -9);
	CHECK(syspin_syscall3(SYS_read, -1, NULL, 0) == -9);	/* nr 0 */
	CHECK(syspin_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &old,
	    8) == 0);
	CHECK(syspin_syscall5(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0,
	    0) == 0);
	p = syspin_syscall6(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p > 0 && p % 4096 == 0);
	*(volatile char *)p = 1;
	CHECK(syspin_syscall2(SYS_munmap, p, 4096) == 0);
	return 0;
}
