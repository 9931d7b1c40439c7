/* SPDX-License-Identifier: ISC */
/*
 * The supervisor: `syspin run` traces its child and, by the fork, vfork and
 * clone events, every descendant from the moment it exists.  Stops are
 * few: exec and the end of the execve (pinning), the entry breakpoint of
 * a dynamic image, fork/clone, ld.so's reservations and other mappings of
 * new code (placement), violations, and signals (passed on unchanged).  Like `strace -f`, it returns once every traced process
 * has gone (leaving earlier would kill them: PTRACE_O_EXITKILL), with the
 * first program's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "phases.h"
#include "reports.h"
#include "supervise_int.h"


static volatile pid_t main_pid;
static volatile int main_pidfd = -1;	/* where signals go on to */

struct proc *
sp_sup_proc(struct sup *s, pid_t pid, bool create)
{
	struct proc *nv;
	size_t i;

	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	if (!create)
		return NULL;
	if (s->nprocs == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		if ((nv = realloc(s->procs, s->cap * sizeof(*nv))) == NULL)
			return NULL;
		s->procs = nv;
	}
	memset(&s->procs[s->nprocs], 0, sizeof(*nv));
	s->procs[s->nprocs].pid = pid;
	s->procs[s->nprocs].tgid = pid;	/* a thread's: on_child */
	return &s->procs[s->nprocs++];
}

void
sp_sup_vfork_done(struct sup *s, pid_t pid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].vfork_child == pid)
			s->procs[i].vfork_child = 0;
}

void
sp_sup_forget(struct sup *s, pid_t pid)
{
	size_t i;

	sp_sup_vfork_done(s, pid);
	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid) {
			sp_image_drop(s->procs[i].img);
			sp_space_drop(s->procs[i].sp);
			sp_chain_drop(s->procs[i].chain);
			free(s->procs[i].entry_keys);
			sp_sup_park_drop(s, &s->procs[i]);
			s->procs[i] = s->procs[--s->nprocs];
			return;
		}
}

/*
 * Whether pid is a process of the tree now: known, and traced by us (a
 * pid whose process ended unseen, as a thread's id does when the thread
 * execs (blind round 11), may be anyone's since).  What a call does to
 * another process is judged by this, never by the table alone.
 */
bool
sp_sup_in_tree(const struct sup *s, pid_t pid)
{
	unsigned long long tracer;

	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return sp_proc_status(pid, "TracerPid", 10,
			    &tracer) == 0 && (pid_t)tracer == getpid();
	return false;
}

/*
 * Abstract unix sockets outside the tree are out of its reach, where the
 * kernel can (Landlock ABI 6); an abstract name the user allows
 * (--allow-socket @NAME) is connected by the supervisor (connect_out.c).
 */
static unsigned
scope(const struct sp_supervise_opts *o)
{
	return o->scope | SP_SCOPE_SOCKETS_IF;
}

/*
 * The first process of the tree: into the Landlock domain (every
 * descendant stays in it), then the program.  Its filter comes at the end
 * of the execve, before the program's first instruction (events.c).
 * With CAP_SYS_ADMIN no no_new_privs: setuid programs in the tree keep
 * working (docs/run.md).  Without it, Landlock and seccomp need it.
 */
static void
child(const struct sp_supervise_opts *o, int fd, bool landlock)
{
	struct sp_error err;
	char go = 0;

	if (read(fd, &go, 1) != 1 || go != 'y')
		_exit(126);
	close(fd);
	if (sp_confine_session(&err) == -1) {
		fprintf(stderr, "syspin: run: %s\n", err.msg);
		_exit(126);
	}
	if (landlock && sp_confine(scope(o), &err) < 0 &&
	    (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    sp_confine(scope(o), &err) < 0)) {
		fprintf(stderr, "syspin: run: %s\n", err.msg);
		_exit(126);
	}
	execv(o->path, o->argv);
	fprintf(stderr, "syspin: %s: %s\n", o->path, strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static int
start(const struct sp_supervise_opts *o, bool landlock, struct sp_error *err)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return sp_error_sys(err, errno, "pipe");
	if ((pid = fork()) == -1)
		return sp_error_sys(err, errno, "fork");
	if (pid == 0) {
		close(p[1]);
		child(o, p[0], landlock);
	}
	close(p[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0, SP_SUP_TRACE_OPTS) == -1) {
		sp_error_sys(err, errno, "ptrace");
		close(p[1]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	main_pid = pid;
	main_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (write(p[1], "y", 1) != 1) {
		kill(pid, SIGKILL);
		close(p[1]);
		return sp_error_set(err, "cannot start the program");
	}
	close(p[1]);
	return 0;
}

/*
 * A new thread or process shares (or copies) its parent's memory, entry
 * breakpoint included.  Its first stop and its parent's fork event come
 * in either order: a child seen first is held until we know what it
 * inherited, so that it cannot run into a breakpoint we do not know of.
 */
static void
on_child(struct sup *s, pid_t parent, int event)
{
	struct user_regs_struct r = { 0 };
	unsigned long msg, flags = 0;
	struct proc *pp, *c;
	bool vm;
	pid_t pid;

	if (ptrace(PTRACE_GETEVENTMSG, parent, 0, &msg) == -1)
		return;
	pid = (pid_t)msg;
	if ((c = sp_sup_proc(s, pid, true)) == NULL)
		return;
	/* clone's flags, whatever event it reports (clone with SIGCHLD is a
	 * "fork"); fork and vfork have none (clone3 fails in the tree) */
	if (ptrace(PTRACE_GETREGS, parent, 0, &r) == 0 && r.orig_rax == 56)
		flags = r.rdi;
	/* A thread (clone with CLONE_VM) shares the address space. */
	vm = event == PTRACE_EVENT_VFORK || (flags & CLONE_VM);
	pp = sp_sup_proc(s, parent, false);
	if (pp != NULL && !c->inherited)
		sp_sup_inherit(c, pp, vm);
	if (pp != NULL && event == PTRACE_EVENT_VFORK)
		pp->vfork_child = pid;
	c->tgid = (flags & CLONE_THREAD) && pp != NULL ? pp->tgid : pid;
	/* Another process with the same descriptor table (freeze.c). */
	if ((flags & CLONE_FILES) && !(flags & CLONE_THREAD)) {
		c->files_shared = true;
		if (pp != NULL)
			pp->files_shared = true;
	}
	if (s->o->observe != NULL && !c->inherited)
		s->o->observe(s->o->observe_ctx, &(struct sp_observed){
		    .kind = event == PTRACE_EVENT_CLONE ? SP_OBS_THREAD :
		    SP_OBS_PROCESS, .tid = pid });
	c->inherited = true;
	if (c->held) {
		c->held = false;
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
}

/*
 * Children held for a fork event that will never come: the thread that
 * made one was killed between making it and reporting it, by another
 * thread's exec or by its process's end (blind round 6: three threads
 * forking while a fourth exec'd left children stopped, and the tree
 * waited for ever).  What they inherited is not known, and the thread
 * that made them is gone: they are killed before they run.  tgid exec'd
 * (its children keep it as parent), or ended (gone: they were given to
 * a reaper outside the tree, or to us for CLONE_PARENT children of the
 * first process, whose event may still come).
 */
void
sp_sup_drop_orphans(struct sup *s, pid_t tgid, bool gone)
{
	unsigned long long pp;
	struct proc *q;

	for (size_t i = 0; i < s->nprocs; i++) {
		q = &s->procs[i];
		if (!q->held || q->doomed ||
		    sp_proc_status(q->pid, "PPid", 10, &pp) != 0)
			continue;
		if ((pid_t)pp == tgid || (gone && (pid_t)pp != getpid() &&
		    sp_sup_proc(s, (pid_t)pp, false) == NULL)) {
			q->doomed = true;
			kill(q->pid, SIGKILL);
		}
	}
}

/* The first stop of an automatically attached child. */
static int
on_new(struct sup *s, pid_t pid)
{
	struct proc *p = sp_sup_proc(s, pid, true);

	if (p == NULL || p->inherited)
		return 0;
	p->held = true;
	return -1;
}

/* One stop: returns the signal to resume with, or -1 (do not resume). */
static int
on_stop(struct sup *s, pid_t pid, int st)
{
	int sig = WSTOPSIG(st);
	struct proc *p;

	switch (st >> 16) {
	case PTRACE_EVENT_EXEC:
		return sp_sup_on_exec(s, pid);
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_child(s, pid, st >> 16);
		return 0;
	case PTRACE_EVENT_SECCOMP:
		return sp_sup_on_seccomp(s, pid);
	case PTRACE_EVENT_EXIT:		/* a thread dies (SP_SUP_TRACE_OPTS) */
		if ((p = sp_sup_proc(s, pid, false)) != NULL)
			sp_sup_park_drop(s, p);
		return 0;
	case PTRACE_EVENT_STOP:
		if (sp_sup_proc(s, pid, false) == NULL ||
		    !sp_sup_proc(s, pid, false)->inherited)
			return on_new(s, pid);
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU) {
			ptrace(PTRACE_LISTEN, pid, 0, 0);
			return -1;
		}
		return 0;
	case 0:
		if ((p = sp_sup_proc(s, pid, false)) != NULL && p->doomed) {
			kill(pid, SIGKILL);
			return -1;
		}
		if (sig == (SIGTRAP | 0x80))	/* the end of an execve */
			return sp_sup_on_exec_done(s, pid);
		return sig == SIGTRAP ? sp_sup_on_trap(s, pid) : sig;
	default:
		return 0;
	}
}

/* What a stop is, for SYSPIN_PHASES. */
static enum sp_phase
stop_kind(const struct proc *p, int st)
{
	switch (st >> 16) {
	case PTRACE_EVENT_EXEC:
		return SP_PH_EXEC;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		return SP_PH_CHILD;
	case PTRACE_EVENT_SECCOMP:
		return p != NULL && p->sp != NULL && p->sp->startup ?
		    SP_PH_STARTUP : SP_PH_SECCOMP;
	case PTRACE_EVENT_STOP:
		return p == NULL || !p->inherited ? SP_PH_CHILD : SP_PH_OTHER;
	case 0:
		return WSTOPSIG(st) == (SIGTRAP | 0x80) ? SP_PH_EXEC :
		    SP_PH_OTHER;
	default:
		return SP_PH_OTHER;
	}
}

void
sp_sup_event(struct sup *s, pid_t pid, int st)
{
	struct sp_phase_mark m;
	enum sp_phase kind;
	struct proc *p;
	int sig;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		bool leader = (p = sp_sup_proc(s, pid, false)) != NULL &&
		    p->tgid == pid;
		sp_sup_forget(s, pid);
		if (leader)	/* the process has ended */
			sp_sup_drop_orphans(s, pid, true);
		if (pid == s->main)
			s->status = WIFEXITED(st) ? WEXITSTATUS(st) :
			    128 + WTERMSIG(st);
		if (pid == s->main && s->o->observe != NULL)
			s->o->observe(s->o->observe_ctx,
			    &(struct sp_observed){ .kind = SP_OBS_EXIT,
			    .tid = pid, .status = st });
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	/* A report kept while another thread was waited for may tell of a
	 * stop that is over: another thread's exec killed the thread, and
	 * the new image has its pid, stopped at its exec, whose own report
	 * comes.  Acted on, it would run that image unpinned. */
	if (!sp_reports_current(pid, st))
		return;
	if ((p = sp_sup_proc(s, pid, false)) != NULL)
		p->halted = true;
	sp_phase_mark(&m);
	kind = stop_kind(p, st);
	sig = on_stop(s, pid, st);
	sp_phase_stop(kind, &m);
	if ((p = sp_sup_proc(s, pid, false)) != NULL)
		p->halted = p->park_until != 0;	/* parked: still ours */
	if (sig < 0)
		return;
	/* The same while this stop was handled: the thread that stopped is
	 * gone, an exec's new image stopped under its pid. */
	if (st >> 16 != PTRACE_EVENT_EXEC && sp_reports_at_exec(pid))
		return;
	/* after an exec: on to the end of the execve */
	ptrace(p != NULL && p->exec_pending ? PTRACE_SYSCALL : PTRACE_CONT,
	    pid, 0, sig);
}

/*
 * A parked thread's wait doubles from PARK_FIRST_MS (and an eighth of a
 * millisecond more for each thread parked) up to PARK_MAX_MS, and
 * PARK_EACH_MS more for every thread parked: each retry costs us a
 * millisecond or so (its call made again, judged again), so the tree's
 * retries stay near 1000 / PARK_EACH_MS a second however many threads
 * it parks (blind round 23: 1000 parked connects took both CPUs, and
 * every other stop of the tree waited behind them).
 */
#define PARK_FIRST_MS 1
#define PARK_MAX_MS 32
#define PARK_EACH_MS 8

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void
sp_sup_park(struct sup *s, pid_t pid, int sig)
{
	struct proc *p = sp_sup_proc(s, pid, false);

	if (p == NULL) {
		ptrace(PTRACE_CONT, pid, 0, sig);
		return;
	}
	if (p->park_until == 0)
		s->nparked++;
	uint64_t most = PARK_MAX_MS + (uint64_t)s->nparked * PARK_EACH_MS;
	if (most > 60000)
		most = 60000;
	/* the first wait longer too where many wait */
	p->park_ms = p->park_ms == 0 ? PARK_FIRST_MS + (unsigned)(s->nparked /
	    8) : p->park_ms * 2ull > most ? (unsigned)most : p->park_ms * 2;
	p->park_until = now_ns() + (uint64_t)p->park_ms * 1000000u;
	p->park_sig = sig;
	p->halted = true;	/* no freeze waits for a stop of it */
}

void
sp_sup_park_drop(struct sup *s, struct proc *p)
{
	if (p->park_until == 0)
		return;
	p->park_until = 0;
	p->halted = false;
	s->nparked--;
}

/* The parked threads whose time has come go on; the nearest time of the
 * others (0: none). */
static uint64_t
unpark(struct sup *s)
{
	uint64_t now, next = 0;

	if (s->nparked == 0)
		return 0;
	now = now_ns();
	for (size_t i = 0; i < s->nprocs; i++) {
		struct proc *p = &s->procs[i];
		if (p->park_until == 0)
			continue;
		if (p->park_until <= now) {
			sp_sup_park_drop(s, p);
			ptrace(PTRACE_CONT, p->pid, 0, p->park_sig);
		} else if (next == 0 || p->park_until < next)
			next = p->park_until;
	}
	return next;
}

/*
 * The next report: waited for as long as it takes, or while threads are
 * parked, until the first of them is due (SIGCHLD, blocked meanwhile so
 * that one sent after our look is kept, ends the wait).  0: none came.
 */
static pid_t
next_report(struct sup *s, int *st)
{
	uint64_t next = unpark(s), now;
	sigset_t chld, old;
	struct timespec t;
	pid_t pid;

	if (next == 0)
		return waitpid(-1, st, __WALL);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	if ((pid = waitpid(-1, st, __WALL | WNOHANG)) == 0 &&
	    (now = now_ns()) < next) {
		t.tv_sec = (time_t)((next - now) / 1000000000u);
		t.tv_nsec = (long)((next - now) % 1000000000u);
		(void)sigtimedwait(&chld, NULL, &t);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

int
sp_sup_loop(struct sup *s)
{
	int st;
	pid_t pid;

	s->status = -1;
	for (;;) {
		/* first those met while one thread was waited for */
		if ((pid = sp_reports_next(&st)) > 0) {
			sp_sup_event(s, pid, st);
			continue;
		}
		if ((pid = next_report(s, &st)) == -1) {
			if (errno == EINTR)
				continue;
			break;	/* ECHILD: every traced process is gone */
		}
		/* Every report waiting now is taken with it, and each is
		 * answered in turn: waitpid(-1) answers in the kernel's order
		 * of tracees, and threads that stop again at once would keep
		 * the others waiting (blind round 25: an exec and a fork
		 * waited seconds behind three threads' judged signals). */
		if (pid > 0) {
			sp_reports_keep(pid, st);
			sp_reports_drain();
		}
	}
	return s->status;
}

/*
 * Every image carries the guard; without Landlock the filter keeps the
 * tree from ptrace & co. (only the supervisor is out of reach: it is not
 * dumpable).
 */
unsigned
sp_supervise_flags(const struct sp_pin_opts *pin, bool landlock)
{
	unsigned f = pin->flags | SP_BPF_GUARD;

	if (!landlock)
		f |= SP_BPF_NO_PTRACE;
	if (pin->exec == SP_EXEC_NONE)
		f |= SP_BPF_NO_EXEC;
	f |= SP_BPF_CONNECT;			/* whom unix sockets reach */
	if (pin->exec == SP_EXEC_TRUSTED)	/* every file of code checked */
		f |= SP_BPF_PLACE_FILES | SP_BPF_CHECK_EXEC;
	/* Outside --exec=any a file's age decides whether its table is
	 * believed (later.c) or it may run: the clock that dates it stays. */
	if (pin->exec != SP_EXEC_ANY)
		f |= SP_BPF_NO_CLOCK;
	return f;
}

int
sp_supervise(const struct sp_supervise_opts *o, struct sp_error *err)
{
	struct sp_supervise_opts opts = *o;
	struct sup s;
	sigset_t ttou;
	int status;

	memset(&s, 0, sizeof(s));
	s.o = &opts;
	if (!(s.landlock = sp_confine_available()) && !opts.quiet)
		fprintf(stderr, "syspin: run: this kernel has no Landlock: the "
		    "tree is kept from ptrace, process_vm_* and pidfd_getfd "
		    "by its filter, and from the supervisor's memory by its "
		    "not being dumpable (root in the tree can still reach "
		    "other processes)\n");
	opts.pin.flags = sp_supervise_flags(&opts.pin, s.landlock);
	if (opts.observe != NULL)	/* syspin trace: violations run */
		opts.audit = true;
	sp_sup_trust_start(&opts.pin.start);
	sp_sup_tty_start(&s);
	sp_sup_pgrp_start(&s);
	sp_forward_signals(&main_pidfd);
	sp_sup_listeners_inherited(&s);
	if (start(&opts, s.landlock, err) == -1)
		return -1;
	/* Out of the tree's reach where there is no Landlock: same-uid
	 * processes cannot ptrace or open the memory of a process that is
	 * not dumpable (root still can).  After the child is traced: it
	 * would have inherited it, and been out of our reach too. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Our lines go out when the tree has taken the terminal's
	 * foreground and set TOSTOP: the kernel let a write through with
	 * SIGTTOU blocked, and stopped syspin run, the tree with it, without
	 * (blind round 18).  After the child is made: it keeps its mask. */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, NULL);
	s.main = main_pid;
	if (sp_sup_proc(&s, s.main, true) != NULL)
		sp_sup_proc(&s, s.main, false)->inherited = true;
	status = sp_sup_loop(&s);
	sp_sup_free(&s);
	return status < 0 ? 127 : status;
}

void
sp_sup_free(struct sup *s)
{
	for (size_t i = 0; i < s->nseen; i++)
		free(s->seen[i].key);
	for (size_t i = 0; i < s->nprocs; i++) {
		sp_image_drop(s->procs[i].img);
		sp_space_drop(s->procs[i].sp);
		sp_chain_drop(s->procs[i].chain);
		free(s->procs[i].entry_keys);
	}
	free(s->seen);
	free(s->procs);
	free(s->listeners);
}
