/* SPDX-License-Identifier: ISC */
/*
 * The reports kept while the supervisor waited for one thread (reports.h).
 * One supervisor, one tree, one queue: a process supervises one tree.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "reports.h"

struct report {
	pid_t pid;
	int st;
};

static struct report *kept;
static size_t nkept, head, cap;

void
sp_reports_keep(pid_t pid, int st)
{
	struct report *v;
	size_t n;

	if (nkept == cap) {
		n = cap != 0 ? 2 * cap : 16;
		if ((v = realloc(kept, n * sizeof(*v))) == NULL) {
			/* out of memory: one left stopped would stay so */
			if (WIFSTOPPED(st))
				kill(pid, SIGKILL);
			return;
		}
		kept = v;
		cap = n;
	}
	kept[nkept++] = (struct report){ pid, st };
}

bool
sp_reports_kept(pid_t pid)
{
	for (size_t i = head; i < nkept; i++)
		if (kept[i].pid == pid)
			return true;
	return false;
}

pid_t
sp_reports_next(int *st)
{
	pid_t pid;

	if (head == nkept) {
		free(kept);
		kept = NULL;
		nkept = head = cap = 0;
		return 0;
	}
	pid = kept[head].pid;
	*st = kept[head].st;
	if (++head == nkept)
		head = nkept = 0;
	return pid;
}

pid_t
sp_reports_poll(int *st)
{
	pid_t pid;

	while ((pid = waitpid(-1, st, __WALL | WNOHANG)) == -1 &&
	    errno == EINTR)
		;
	return pid;
}

pid_t
sp_reports_wait(pid_t tid, int *st)
{
	pid_t pid;

	for (;;) {
		if ((pid = waitpid(-1, st, __WALL)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (pid == tid)
			return pid;
		sp_reports_keep(pid, *st);
	}
}

pid_t
sp_reports_wait_step(pid_t tid, int *st)
{
	pid_t pid = sp_reports_wait(tid, st);
	int ev;

	if (pid == -1 || !WIFSTOPPED(*st))
		return pid;
	ev = *st >> 16;
	if (ev == 0 || ev == PTRACE_EVENT_SECCOMP || ev == PTRACE_EVENT_STOP)
		return pid;
	sp_reports_keep(pid, *st);
	errno = ESTALE;
	return -1;
}

/* pid's stop as its siginfo tells it: ptrace's own stops carry
 * (event << 8 | signal) in si_code (ptrace_do_notify), a system-call stop
 * SIGTRAP | 0x80, a signal's stop its number; 0 when there is no siginfo
 * (a group-stop), -1 when pid is in no stop. */
static int
stop_now(pid_t pid)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) == -1)
		return errno == EINVAL ? 0 : -1;
	if (si.si_code == (SIGTRAP | 0x80) && si.si_signo == SIGTRAP)
		return si.si_code;
	if (si.si_code > 0xff && si.si_code <= 0xffff &&
	    (si.si_code & 0xff) == si.si_signo)
		return si.si_code;
	return si.si_signo;
}

bool
sp_reports_current(pid_t pid, int st)
{
	int now = stop_now(pid), want = (st >> 8) & 0xffff;

	if (!WIFSTOPPED(st) || now == -1)
		return false;
	if (st >> 16 == PTRACE_EVENT_STOP)	/* a group-stop, or ours */
		return now == 0 || now == want;
	return now == want;
}

bool
sp_reports_at_exec(pid_t pid)
{
	return stop_now(pid) == (PTRACE_EVENT_EXEC << 8 | SIGTRAP);
}

bool
sp_reports_at_exit(pid_t pid)
{
	return stop_now(pid) == (PTRACE_EVENT_EXIT << 8 | SIGTRAP);
}
