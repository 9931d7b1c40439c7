/* SPDX-License-Identifier: ISC */
/*
 * The reports kept while the supervisor waited for one thread (reports.h).
 * One supervisor, one tree, one queue: a process supervises one tree.
 */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "layout/procfs.h"

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

	if (head == nkept) {	/* (its room kept: every report passes) */
		nkept = head = 0;
		return 0;
	}
	pid = kept[head].pid;
	*st = kept[head].st;
	if (++head == nkept)
		head = nkept = 0;
	return pid;
}

void
sp_reports_drain(void)
{
	pid_t pid;
	int st;

	while ((pid = sp_reports_poll(&st)) > 0)
		sp_reports_keep(pid, st);
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

/*
 * Whether tid can report nothing more for now: gone, dead, a leader
 * that has exited (reported only once its threads are reaped), or in a
 * ptrace stop whose report a wait has taken already.  A thread woken out
 * of our stop by SIGKILL may reach its exit's stop before our next
 * request, which then lets that stop go unseen (round 24b's hang: a
 * leader resumed from its exit stop by PTRACE_SYSCALL, a zombie since).
 */
static bool
cannot_report(pid_t tid)
{
	struct sp_proc_stat ps;

	return sp_proc_stat(tid, &ps) == -1 || ps.state == 'Z' ||
	    ps.state == 'X' || ps.state == 'x' || ps.state == 't';
}

static uint64_t
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

pid_t
sp_reports_wait(pid_t tid, int *st)
{
	struct timespec tick = { 0, 10000000 };
	uint64_t checked = 0, t;
	sigset_t chld, old;
	bool blocked = false;
	int quiet = 0;
	pid_t pid;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		if ((pid = waitpid(-1, st, __WALL | WNOHANG)) == tid)
			break;
		if (pid > 0) {
			sp_reports_keep(pid, *st);
			continue;
		}
		if (pid == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* none yet: SIGCHLD blocked, then looked again, so that
		 * one sent after this look ends the wait below */
		if (!blocked) {
			sigprocmask(SIG_BLOCK, &chld, &old);
			blocked = true;
			checked = now_ms();
			continue;
		}
		(void)sigtimedwait(&chld, NULL, &tick);
		/* twice, 10 ms apart, unable to report: none is coming */
		if ((t = now_ms()) - checked >= 10) {
			checked = t;
			quiet = cannot_report(tid) ? quiet + 1 : 0;
			if (quiet >= 2) {
				errno = ESRCH;
				pid = -1;
				break;
			}
		}
	}
	if (blocked)
		sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
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
sp_reports_at_seccomp(pid_t pid)
{
	return stop_now(pid) == (PTRACE_EVENT_SECCOMP << 8 | SIGTRAP);
}

bool
sp_reports_at_exit(pid_t pid)
{
	return stop_now(pid) == (PTRACE_EVENT_EXIT << 8 | SIGTRAP);
}
