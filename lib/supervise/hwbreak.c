/* SPDX-License-Identifier: ISC */
/*
 * Whether this machine's debug registers stop a tracee.  `ld.so PROG`'s
 * entry is stopped by debug register 0 (PROG is not mapped when the
 * image is pinned, so no int3 can be planted); some virtual machines
 * accept the registers and never trap, and an entry that never stops
 * would leave the start-up slots open and unsealed.  Probed once, on a
 * child of ours that runs into the breakpoint; where it does not stop,
 * `ld.so PROG` is refused (events.c).
 */
#include <signal.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervise_int.h"

#define DR(n) offsetof(struct user, u_debugreg[n])

__attribute__((noinline)) static void
probe_target(void)
{
	__asm__ volatile("nop");
}

static bool
probe(void)
{
	struct user_regs_struct r;
	bool stopped = false;
	pid_t c;
	int st;

	if ((c = fork()) == -1)
		return false;
	if (c == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) == 0 && raise(SIGSTOP) == 0)
			probe_target();
		_exit(0);
	}
	if (waitpid(c, &st, __WALL) == c && WIFSTOPPED(st) &&
	    ptrace(PTRACE_POKEUSER, c, DR(0), (void *)probe_target) == 0 &&
	    ptrace(PTRACE_POKEUSER, c, DR(7), (void *)1) == 0 &&
	    ptrace(PTRACE_CONT, c, 0, 0) == 0 &&
	    waitpid(c, &st, __WALL) == c && WIFSTOPPED(st) &&
	    WSTOPSIG(st) == SIGTRAP &&
	    ptrace(PTRACE_GETREGS, c, 0, &r) == 0)
		stopped = r.rip == (uint64_t)(uintptr_t)probe_target;
	kill(c, SIGKILL);
	while (waitpid(c, &st, __WALL) == c && !WIFEXITED(st) &&
	    !WIFSIGNALED(st))
		;
	return stopped;
}

bool
sp_sup_hw_breaks(void)
{
	static int works = -1;

	if (works == -1)
		works = probe();
	return works;
}
