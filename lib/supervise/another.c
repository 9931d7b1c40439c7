/* SPDX-License-Identifier: ISC */
/*
 * Calls on another process: whom they may reach (sp_sup_of_tree: a
 * process of the tree), and a core-dumping signal the tree sends, sent by the
 * supervisor instead, from a pidfd of its own: what the kernel signals is
 * then what was judged, whatever the tree does meanwhile.  Judged by
 * number and left to the caller, the target could change under the
 * judgement: a pidfd swapped with dup2 by a thread (blind round 12) or by
 * an io_uring thread no ptrace stop holds (round 13), a thread's id freed
 * by that thread's exec and given to a process outside (round 13).
 *
 * The caller's call is skipped and answered with what the supervisor's
 * got.  Only where the caller has our ids and groups (its permission to
 * signal is ours); and a process outside only where --scope=signals is
 * not asked (Landlock would refuse the caller, not us).  A signal sent so
 * carries the supervisor's pid as its sender unless the caller gave a
 * siginfo (rt_sigqueueinfo and the like).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include "supervise_int.h"

#define KCMP_FILES_ 2		/* linux/kcmp.h */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD 0x80	/* O_EXCL: a pidfd of a thread (6.9) */
#endif
#define PIDFD_SIGNAL_THREAD_GROUP_ 2u	/* linux/pidfd.h (6.9) */

pid_t
sp_sup_pidfd_pid(pid_t tid, int fd)
{
	char path[64], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%d", (long)tid, fd);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Pid: %ld", &v) == 1)
			break;
	fclose(f);
	return v > 0 ? (pid_t)v : -1;
}

/*
 * The descriptor as the thread tid sees it: a thread may have a table of
 * its own (unshare(CLONE_FILES)), and a leader that exited has none
 * (blind round 25: the leader's descriptor of that number, or none,
 * was judged, and the thread's connect outside ran unjudged).  Before
 * 6.9 (no thread pidfd) only where tid shares its process's table.
 */
int
sp_sup_their_fd(pid_t tid, int fd)
{
	int pfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD), r, e;
	pid_t tgid;

	if (pfd == -1 && errno == EINVAL) {
		tgid = sp_sup_tgid(tid);
		if (tgid <= 0 || (tgid != tid && syscall(SYS_kcmp, tgid, tid,
		    KCMP_FILES_, 0, 0) != 0)) {
			errno = EPERM;
			return -1;
		}
		pfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	}
	if (pfd == -1)
		return -1;
	r = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	e = errno;
	close(pfd);
	errno = e;
	return r;
}

/*
 * Whether the process a `check` call acts on may be (lib/bpf/policy.c):
 * perf_event_open's pid and prlimit64's must be of the tree, and so must
 * a signal's that would dump core (a core is the process's memory,
 * written where its owner reads it; raising another's core or CPU limit
 * is the same): kill's pid (a group, 0 or -1 included, is not judged:
 * refused), tgkill's thread group and thread, a pidfd's process (its
 * group: refused).  One outside that ignored or caught the signal was
 * let be until blind round 18: a signal ignored while blocked stays
 * pending, and a child that resets it to the default before exec (bash's,
 * CPython's subprocess, posix_spawn's vfork child sharing its parent's
 * memory) dumps core on it; no look at the target can tell that window.
 */
bool
sp_sup_of_tree(struct sup *s, pid_t tid, const struct seccomp_data *d)
{
	pid_t a = (pid_t)(int32_t)d->args[0], b = 0;

	switch (d->nr) {
	case 298:			/* perf_event_open(attr, pid, ...) */
		a = (pid_t)(int32_t)d->args[1];
		break;
	case 234:			/* tgkill(tgid, tid, sig) */
	case 297:			/* rt_tgsigqueueinfo */
		b = (pid_t)(int32_t)d->args[1];
		break;
	case 424:	/* pidfd_send_signal(pidfd, sig, info, flags) */
		/* PIDFD_SIGNAL_PROCESS_GROUP (6.9) signals the group whose
		 * id is the pidfd's: syspin run's job has processes outside
		 * (blind round 6); only THREAD (1) and THREAD_GROUP (2)
		 * stay in the process judged. */
		if (d->args[3] & ~(uint64_t)3)
			return false;
		a = sp_sup_pidfd_pid(tid, (int)d->args[0]);
		break;
	default:			/* kill, tkill, rt_sigqueueinfo */
		break;
	}
	if (a <= 0 || b < 0)
		return false;
	return sp_sup_in_tree(s, a) && (b == 0 || sp_sup_in_tree(s, b));
}

bool
sp_sup_signal_call(long nr)
{
	return nr == 62 || nr == 200 || nr == 234 || nr == 129 || nr == 297 ||
	    nr == 424;
}

/* Whether tid is in our namespace of kind ns ("pid", "net"). */
bool
sp_sup_same_ns(pid_t tid, const char *ns)
{
	char path[64], theirs[64], ours[64];
	ssize_t a, b;

	snprintf(path, sizeof(path), "/proc/%ld/ns/%s", (long)tid, ns);
	a = readlink(path, theirs, sizeof(theirs) - 1);
	snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
	b = readlink(path, ours, sizeof(ours) - 1);
	return a > 0 && a == b && memcmp(theirs, ours, (size_t)a) == 0;
}

/*
 * The stopped signal call of tid made with signal 0 (the kernel's check
 * of the caller's permission, and nothing sent), run to its end, where
 * tid is left; *ret what it returned.  -1: tid is gone or was stopped
 * otherwise (handled): not to be resumed.
 */
static int
caller_may(struct sup *s, pid_t tid, const struct seccomp_data *d,
    long *ret)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) == -1)
		return -1;
	if (d->nr == 234 || d->nr == 297)	/* tgkill, rt_tgsigqueueinfo */
		r.rdx = 0;
	else
		r.rsi = 0;
	if (ptrace(PTRACE_SETREGS, tid, 0, &r) == -1 ||
	    sp_sup_call_to_exit(s, tid) == -1)
		return -1;
	if (ptrace(PTRACE_GETREGS, tid, 0, &r) == -1)
		return -1;
	*ret = (long)r.rax;
	return 0;
}

/*
 * The caller's permission to signal who (a process of our pid namespace,
 * alive: pf holds it), checked by the caller itself: kill(who, 0)
 * injected at its image's trap runs under its credentials, capabilities,
 * Landlock domains and seccomp filters, and reads no descriptor of its.
 * A pidfd's number is the tree's to change at any moment, an io_uring
 * worker's too, which no ptrace stop holds (blind round 19: closed and
 * put back by FIXED_FD_INSTALL, the same open file before and after the
 * probe, another process's during it).  tid is left at the end of its
 * call; *sig a signal that came meanwhile.  -1: gone, or not to resume.
 */
static int
caller_may_number(struct sup *s, pid_t tid, pid_t who, long *ret, int *sig)
{
	struct proc *p = sp_sup_proc(s, tid, false);
	uint64_t args[6] = { (uint64_t)who, 0, 0, 0, 0, 0 };
	struct user_regs_struct saved;
	struct sp_inject in;
	struct sp_error err;

	in = (struct sp_inject){ .pid = tid, .pass_trace = true,
	    .trap = p != NULL && p->img != NULL ? p->img->pin.trap : 0 };
	if (sp_sup_to_exit_stop(tid, &saved, &in) == -1)
		return -1;
	if (in.trap == 0)		/* nowhere to ask: not sent */
		*ret = -EPERM;
	else if (sp_inject_syscall(&in, SYS_kill, args, 6, ret, &err) == -1) {
		(void)sp_sup_kill_unjudged(tid);	/* not judged */
		return -1;
	}
	*sig = in.pending_sig;
	return sp_inject_restore(&in, &saved, &err);
}

/*
 * Whether tid had seccomp filters of its own (not ours, not syspin's
 * caller's) when the probe ran: those judge the probe too, and one that
 * answers signal 0 with 0 without running it had us send what the kernel
 * would have refused it (blind round 21: a caller that scoped its own
 * signals, or dropped CAP_KILL, had us SIGQUIT another process of the
 * tree).  Counted after the probe: a filter is never taken off, and one
 * a thread added (TSYNC) before the probe shows.  Unknown counts as yes.
 */
static bool
own_filters(struct sup *s, pid_t tid)
{
	struct proc *p = sp_sup_proc(s, tid, false);
	long n = sp_filters_pid(tid);

	return p == NULL || p->own_filters || n < 0 || n != p->filters_known;
}

static void
said_own(struct sup *s, pid_t tid, const struct seccomp_data *d, pid_t who,
    int sig)
{
	struct proc *p = sp_sup_proc(s, tid, false);
	char comm[64], line[320];

	sp_sup_comm(tid, comm, sizeof(comm));
	snprintf(line, sizeof(line), "%s[%ld]: signal %d to process %ld "
	    "refused: a process with seccomp filters of its own sends no "
	    "core-dumping signal to another (its filters answer the check "
	    "of its permission)", comm, (long)sp_sup_tgid(tid), sig,
	    (long)who);
	sp_sup_refused(s, tid, d, p != NULL ? p->img : NULL, "signal", EPERM,
	    line);
}

/* tid at the end of its call: it returns ret.  0, or -1 when gone. */
static int
at_exit_answer(pid_t tid, long ret)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) == -1)
		return -1;
	r.rax = (uint64_t)ret;
	return ptrace(PTRACE_SETREGS, tid, 0, &r) == -1 ? -1 : 0;
}

int
sp_sup_signal_for(struct sup *s, pid_t tid, const struct seccomp_data *d)
{
	siginfo_t info;
	uint64_t infop = 0;
	unsigned flags = 0;
	pid_t target = (pid_t)(int32_t)d->args[0], tgid = 0, who;
	int sig = (int)d->args[1], pf, e = 0;
	long probe = 0;
	int late = 0;
	bool thread = false;

	switch (d->nr) {
	case 200:			/* tkill(tid, sig) */
		thread = true;
		break;
	case 234:			/* tgkill(tgid, tid, sig) */
	case 297:			/* rt_tgsigqueueinfo(.., info) */
		tgid = target;
		target = (pid_t)(int32_t)d->args[1];
		sig = (int)d->args[2];
		infop = d->nr == 297 ? d->args[3] : 0;
		thread = true;
		break;
	case 129:			/* rt_sigqueueinfo(tgid, sig, info) */
	case 424:			/* pidfd_send_signal(fd, sig, info, fl) */
		infop = d->args[2];
		flags = d->nr == 424 ? (unsigned)d->args[3] : 0;
		break;
	default:			/* kill(pid, sig) */
		break;
	}
	if (infop != 0 && sp_mem_read(tid, infop, &info, sizeof(info),
	    NULL) == -1)
		return sp_sup_answer(tid, -EFAULT);
	pf = d->nr == 424 ? sp_sup_their_fd(tid, (int)d->args[0]) :
	    (int)syscall(SYS_pidfd_open, target, thread ? PIDFD_THREAD : 0);
	if (pf == -1 && (errno == EINVAL || errno == ENOENT) && !thread &&
	    d->nr != 424 &&
	    (pf = (int)syscall(SYS_pidfd_open, target, PIDFD_THREAD)) != -1)
		flags = PIDFD_SIGNAL_THREAD_GROUP_;	/* kill() of a thread's
							   id: its process */
	if (pf == -1)
		return sp_sup_answer(tid, errno == EINVAL && thread ? -EINVAL :
		    -ESRCH);
	/* judged again, on what we will signal */
	who = sp_sup_pidfd_pid(getpid(), pf);
	if (who <= 0 || (tgid > 0 && sp_sup_tgid(who) != tgid))
		e = ESRCH;
	else if (!sp_sup_same_creds(tid) || !sp_sup_in_tree(s, who) ||
	    !sp_sup_same_ns(tid, "pid"))	/* numbers as ours: the probe's too */
		e = EPERM;
	if (e != 0) {
		close(pf);
		return sp_sup_answer(tid, -(long)e) == -1 ?
		    sp_sup_doom(s, tid) : 0;
	}
	/* The caller's own permission, which ours is not (its capabilities,
	 * the Landlock domains and seccomp filters it made itself, other
	 * security modules: blind round 17, a caller that dropped CAP_KILL
	 * or scoped its own signals had us signal for it): the same call
	 * with signal 0, made by the caller, on the same process (alive
	 * still after: its number not another's meanwhile). */
	if ((d->nr == 424 ? caller_may_number(s, tid, who, &probe, &late) :
	    caller_may(s, tid, d, &probe)) == -1) {
		close(pf);
		return -1;
	}
	if (probe != 0)
		e = (int)-probe;
	else if (sp_sup_tgid(who) != sp_sup_tgid(tid) &&
	    own_filters(s, tid)) {
		said_own(s, tid, d, who, sig);
		e = EPERM;
	}
	else if (syscall(SYS_pidfd_send_signal, pf, 0, NULL, flags) == -1)
		e = ESRCH;
	else if (syscall(SYS_pidfd_send_signal, pf, sig, infop != 0 ? &info :
	    NULL, flags) == -1)
		e = errno;
	close(pf);
	if (at_exit_answer(tid, -(long)e) == -1)
		return -1;
	return late;		/* a signal that came meanwhile, or 0 */
}
