/* SPDX-License-Identifier: ISC */
/*
 * `syspin run` stands between the user and the program: signals sent to
 * it in particular (kill PID) go on to the program.  Terminal signals
 * reach the program's process group by themselves and are not doubled.
 * They go through a pidfd of the program's first process: once it has
 * ended, its pid may be another process's (outside the tree: the tree
 * can signal syspin and wait for the pid to come round, blind round 8),
 * and a pidfd of an ended process reaches no one.
 */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervise/supervise.h"

static volatile int *target;

static void
forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (target != NULL && *target >= 0 && si->si_code <= 0)
		(void)syscall(SYS_pidfd_send_signal, *target, sig, NULL, 0);
}

void
sp_forward_signals(volatile int *to)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM,
	    SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH, SIGCONT };
	struct sigaction sa;

	target = to;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}
