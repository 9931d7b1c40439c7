/* SPDX-License-Identifier: ISC */
/*
 * Judging a call by what another thread can change before the kernel
 * acts: the descriptor an mmap or a connect names, which a thread sharing
 * the table may replace with dup2 between our look and the kernel's.
 * The other threads of the process (every process of the tree when one
 * shares its descriptor table without being a thread: CLONE_FILES) are
 * stopped while the call is judged, and until the kernel holds what the
 * call names: the call has returned, or its thread sleeps in it.
 *
 * A thread stopped already is left as it is: a new child held until its
 * parent's fork event, or one whose stop is being handled further up (a
 * connect judged while another thread's was).  A stop that comes instead
 * of ours (a filter's, a signal) is handled as the loop would, when the
 * others run again (tree.c, sp_sup_event).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "layout/procfs.h"

#include "reports.h"
#include "supervise_int.h"

#define MAX_THREADS 4096

struct sp_frozen {
	pid_t tid[MAX_THREADS];
	int st[MAX_THREADS];
	/* EXITING: in its exit or a zombie (it runs nothing more); STOPPED:
	 * in a ptrace stop whose report was taken before; LOST: gone from
	 * /proc (its id freed: an exec by another thread) or not stopped
	 * within the second waited (asleep in the kernel, an exec under
	 * way perhaps) */
	/* VFORK: waiting for its vfork child, interrupted: the child's exec
	 * or exit lets it go without a stop of ours, and it stops at our
	 * interrupt before it runs a user instruction; its report is the
	 * loop's */
	enum { WAITING, REPORTED, EXITING, STOPPED, LOST, VFORK }
	    state[MAX_THREADS];
	size_t n;
};

pid_t
sp_sup_tgid(pid_t tid)
{
	unsigned long long v;

	return sp_proc_status(tid, "Tgid", 10, &v) == 0 ? (pid_t)v : tid;
}

/* tid's process, and whether it has other threads (unknown counts as
 * yes): one look at its status (any thread's says how many there are). */
static pid_t
tgid_threaded(pid_t tid, bool *threaded)
{
	unsigned long long v[2];
	const char *const names[] = { "Tgid", "Threads" };

	if (sp_proc_status_fields(tid, names, 2, 10, v) != 2) {
		*threaded = true;
		return sp_sup_tgid(tid);
	}
	*threaded = v[1] > 1;
	return (pid_t)v[0];
}

static void
stop_one(struct sup *s, pid_t t, struct sp_frozen *f)
{
	struct proc *q = sp_sup_proc(s, t, false);

	if (q != NULL && (q->held || q->halted))
		return;
	if (sp_reports_kept(t))	/* stopped, its stop not yet handled */
		return;
	/*
	 * One waiting in vfork stops only when its child execs or ends,
	 * and the kernel lets it go then with no stop the supervisor must
	 * answer first (the child's exec stop comes after): interrupted
	 * too, it stops before its next user instruction, whenever that
	 * is.  Counted as held and not waited for (blind round 16: a thread
	 * let go by its vfork child's _exit took the probe socket a
	 * judged connect had connected outside).
	 */
	if (f->n < MAX_THREADS && ptrace(PTRACE_INTERRUPT, t, 0, 0) == 0) {
		f->state[f->n] = q != NULL && q->vfork_child != 0 ? VFORK :
		    WAITING;
		f->tid[f->n++] = t;
		if (q != NULL)
			q->halted = true;
	}
}

/*
 * Why the thread will report no stop, or WAITING: gone (LOST), in its
 * exit (PF_EXITING) or a zombie (EXITING), or in a ptrace stop already
 * ("t": it runs nothing until the supervisor resumes it; STOPPED).  A
 * thread-group leader that has exited reports only when its last thread
 * has been reaped; one of them may be the thread whose stop we are
 * handling.
 */
static int
no_report(pid_t tid)
{
	struct sp_proc_stat st;

	if (sp_proc_stat(tid, &st) == -1)
		return LOST;
	if (st.state == 'Z' || st.state == 'X' || st.state == 'x' ||
	    (st.flags & 0x4) != 0)
		return EXITING;
	return st.state == 't' ? STOPPED : WAITING;
}

/*
 * Every interrupted thread's report, whatever order they come in:
 * waiting for one alone could wait for ever on a leader whose exit is
 * reported only once another thread's has been reaped.  What the rest
 * of the tree reports meanwhile (a new child, a thread's exit) is the
 * loop's, once the stop at hand is done with.  SIGCHLD (the kernel's
 * word that a tracee changed) is blocked and waited for, with a timeout
 * for a thread that was entering its exit when it was interrupted: its
 * report, when it comes, is the loop's too.
 */
static void
collect(struct sp_frozen *f)
{
	struct timespec tick = { 0, 2000000 };
	sigset_t chld, old;
	size_t left = f->n, i;
	pid_t pid;
	int st, waits = 0, k;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	for (i = 0; i < f->n; i++)
		left -= f->state[i] == VFORK;
	while (left > 0) {
		pid = sp_reports_poll(&st);
		if (pid > 0) {
			for (i = 0; i < f->n; i++)
				if (f->tid[i] == pid && f->state[i] == WAITING)
					break;
			if (i < f->n) {
				f->st[i] = st;
				f->state[i] = REPORTED;
				left--;
			} else
				sp_reports_keep(pid, st);
			continue;
		}
		if (pid == -1)
			break;	/* none left to wait for */
		for (i = 0; i < f->n; i++)
			if (f->state[i] == WAITING &&
			    (k = no_report(f->tid[i])) != WAITING) {
				/* gone; or stopped already, its stop's report
				 * taken before (a clone's new thread, a stop
				 * handled further up): it runs nothing, and
				 * its report, when it comes, is the loop's */
				f->state[i] = k;
				left--;
			}
		if (left > 0 && pid == 0)
			sigtimedwait(&chld, NULL, &tick);
		/* A thread that does not stop within a second (its stop
		 * taken by a handling further up, a clone half made: blind
		 * round 8) is not waited for: the whole tree would wait with
		 * it.  What the freeze guards is checked after the fact too
		 * (the mapping an mmap made, the filter count). */
		if (left > 0 && pid == 0 && ++waits >= 500) {
			for (i = 0; i < f->n; i++)
				if (f->state[i] == WAITING)
					f->state[i] = LOST;
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Which processes to stop besides tid: tid's threads, those sharing its
 * address space, or (all) the whole tree; or tid's threads and tid. */
enum reach { THREADS, SPACE, TREE, TARGET };

static bool
stopped_with(const struct proc *q, const struct proc *p, enum reach how)
{
	return how == TREE || (p != NULL && q->sp != NULL && q->sp == p->sp);
}

static struct sp_frozen *
freeze(struct sup *s, pid_t tid, enum reach how)
{
	struct proc *p = sp_sup_proc(s, tid, false);
	struct sp_frozen *f;
	struct dirent *e;
	char path[64];
	bool any = false, threaded = true;
	pid_t tgid = 0, t;
	DIR *d;

	/* the process's tasks only where its threads are what is stopped */
	if (how == THREADS || how == TARGET)
		tgid = tgid_threaded(tid, &threaded);
	if (how == THREADS && !threaded)
		return NULL;
	for (size_t i = 0; how != THREADS && how != TARGET && !any &&
	    i < s->nprocs; i++)
		any = s->procs[i].pid != tid && !s->procs[i].held &&
		    !s->procs[i].halted &&
		    stopped_with(&s->procs[i], p, how);
	if (how != THREADS && how != TARGET && !any)
		return NULL;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	if (how != THREADS && how != TARGET) {
		for (size_t i = 0; i < s->nprocs; i++)
			if (s->procs[i].pid != tid &&
			    stopped_with(&s->procs[i], p, how))
				stop_one(s, s->procs[i].pid, f);
	} else {
		snprintf(path, sizeof(path), "/proc/%ld/task", (long)tgid);
		if ((d = opendir(path)) != NULL) {
			while ((e = readdir(d)) != NULL)
				if ((t = (pid_t)atol(e->d_name)) > 0 &&
				    (t != tid || how == TARGET))
					stop_one(s, t, f);
			closedir(d);
		}
	}
	collect(f);
	return f;
}

struct sp_frozen *
sp_sup_freeze_target(struct sup *s, pid_t tid)
{
	return freeze(s, tid, TARGET);
}

/*
 * Whether the freeze holds tid's process still: tid in a stop of ours,
 * and no thread of it that could be under way in an exec (one gone from
 * /proc, one that did not stop, one that stopped at its exec's end).  An
 * exec frees the id of the thread that made it, and kills the others,
 * without a stop the supervisor must answer first (blind round 15: a
 * call judged on a thread's id, and an exec of that thread held in the
 * kernel until the id had gone to a process outside).  A thread in a
 * stop cannot exec; one killed meanwhile stays a zombie, its id taken,
 * until the supervisor, which takes no report until the call has
 * returned, reaps it.  A thread stopped by none of this freeze (a new
 * child held, one frozen further up) is still; one waiting in vfork,
 * interrupted, runs nothing of its own before it stops.
 */
bool
sp_sup_frozen_held(struct sup *s, const struct sp_frozen *f, pid_t tid)
{
	bool seen = false;

	(void)s;
	if (f == NULL)
		return false;
	for (size_t i = 0; i < f->n; i++) {
		if (f->state[i] == LOST || (f->state[i] == REPORTED &&
		    f->st[i] >> 16 == PTRACE_EVENT_EXEC))
			return false;
		/* a report of its end was a reap: its id is free */
		if (f->tid[i] == tid)
			seen = (f->state[i] == REPORTED &&
			    WIFSTOPPED(f->st[i])) || f->state[i] == STOPPED ||
			    f->state[i] == VFORK;
		if (f->tid[i] == tid && !seen)
			return false;
	}
	return seen || no_report(tid) == STOPPED;
}

struct sp_frozen *
sp_sup_freeze(struct sup *s, pid_t tid)
{
	struct proc *p = sp_sup_proc(s, tid, false);

	return freeze(s, tid, p != NULL && p->files_shared ? TREE : THREADS);
}

/*
 * What runs in tid's address space, besides tid: its threads and the
 * processes made with CLONE_VM (the same space, as the supervisor tracks
 * it); the whole tree where tid shares its descriptor table.  Any of them
 * could unmap what the supervisor mapped for the kernel to read, or
 * install a filter between the count and ours.
 */
struct sp_frozen *
sp_sup_freeze_space(struct sup *s, pid_t tid)
{
	struct proc *p = sp_sup_proc(s, tid, false);

	return freeze(s, tid, p != NULL && p->files_shared ? TREE : SPACE);
}

void
sp_sup_thaw(struct sup *s, struct sp_frozen *f)
{
	struct proc *q;

	if (f == NULL)
		return;
	for (size_t i = 0; i < f->n; i++) {
		if ((q = sp_sup_proc(s, f->tid[i], false)) != NULL)
			q->halted = false;
		if (f->state[i] == REPORTED)
			sp_sup_event(s, f->tid[i], f->st[i]);
	}
	free(f);
}

/* Whether tid's mmap that returned at mapped the file of *want there. */
static bool
maps_file(pid_t tid, uint64_t at, const struct stat *want)
{
	struct sp_map *m;
	char path[64];
	size_t n;
	bool ok = false;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)tid);
	if (sp_maps_read(path, &m, &n, NULL) == -1)
		return false;
	for (size_t i = 0; i < n && !ok; i++)
		ok = m[i].start == at && m[i].dev == (uint64_t)want->st_dev &&
		    m[i].inode == (uint64_t)want->st_ino;
	sp_maps_free(m, n);
	return ok;
}

/* tid at the end of its call nr: on it goes.  At the end of an execve
 * (the thread was replaced by another's exec meanwhile), or of an mmap
 * that mapped another file than the one checked, killed. */
static void
exit_of(pid_t tid, int nr, const struct stat *mapped)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) == 0 && (r.orig_rax == 59 ||
	    r.orig_rax == 322 || (mapped != NULL && r.orig_rax ==
	    (unsigned long long)nr && r.rax < (unsigned long long)-4095 &&
	    !maps_file(tid, r.rax, mapped))))
		kill(tid, SIGKILL);
	else
		ptrace(PTRACE_CONT, tid, 0, 0);
}

/*
 * tid resumed into its call nr, which sleeps in nothing (a signal, a
 * limit set): waited for, its thread alone, until it has returned; one
 * kept off the CPU for 5 s is killed (what it names may be another's by
 * then).  -1: resumed or killed, not for the caller to resume.
 */
/* A deadline ms from now, and whether it has passed (the monotonic
 * clock: counting sleeps would stretch with a loaded machine). */
static struct timespec
deadline(long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static bool
past(const struct timespec *end)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec > end->tv_sec || (t.tv_sec == end->tv_sec &&
	    t.tv_nsec >= end->tv_nsec);
}

int
sp_sup_call_to_exit(struct sup *s, pid_t tid)
{
	struct timespec tick = { 0, 2000000 }, end = deadline(5000);
	sigset_t chld, old;
	int st;
	pid_t w;

	/* out of the call's stop (in its exit: another thread's exec or
	 * its process's end): the call will not run, and that stop is the
	 * loop's to let go */
	if (!sp_reports_at_seccomp(tid) ||
	    ptrace(PTRACE_SYSCALL, tid, 0, 0) == -1)
		return -1;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	while ((w = waitpid(tid, &st, __WALL | WNOHANG)) == 0 && !past(&end))
		sigtimedwait(&chld, NULL, &tick);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (w != tid) {
		kill(tid, SIGKILL);
		return -1;
	}
	if (WIFSTOPPED(st) && WSTOPSIG(st) == (SIGTRAP | 0x80))
		return 0;
	sp_sup_event(s, tid, st);
	return -1;
}

int
sp_sup_run_call(struct sup *s, pid_t tid, int nr)
{
	if (sp_sup_call_to_exit(s, tid) == 0)
		exit_of(tid, nr, NULL);		/* done */
	return -1;
}

int
sp_sup_under_way(struct sup *s, pid_t tid, int nr, const struct stat *mapped)
{
	char path[64], buf[32], want[16];
	struct timespec us = { 0, 50000 }, end = deadline(2000);
	int st, fd;
	size_t wl;
	ssize_t n;

	/* the thread handled may be gone, its pid an exec's new image
	 * (reports.h): that one is its exec's to resume; or in its exit's
	 * stop: the loop's to let go.  Only the call's own stop goes on. */
	if (!sp_reports_at_seccomp(tid) ||
	    ptrace(PTRACE_SYSCALL, tid, 0, 0) == -1)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/syscall", (long)tid);
	wl = (size_t)snprintf(want, sizeof(want), "%d ", nr);
	while (!past(&end)) {
		if (waitpid(tid, &st, __WALL | WNOHANG) == tid) {
			if (WIFSTOPPED(st) && WSTOPSIG(st) == (SIGTRAP | 0x80))
				exit_of(tid, nr, mapped);	/* done */
			else
				sp_sup_event(s, tid, st);
			return 0;
		}
		/* a mapping is looked at once made: waited for */
		if (mapped == NULL &&
		    (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > (ssize_t)wl && strncmp(buf, want, wl) == 0)
				return 0;	/* asleep in it */
		}
		nanosleep(&us, NULL);
	}
	if (mapped != NULL)	/* an mmap two seconds long: not looked at */
		kill(tid, SIGKILL);
	return 0;
}
