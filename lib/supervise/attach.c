/* SPDX-License-Identifier: ISC */
/*
 * syspin run -p PID: a process that already runs is pinned, then
 * supervised as `syspin run` supervises its own tree (later code placed
 * in the band, execs pinned, forks followed).  Every thread is seized
 * (PTRACE_SEIZE, with the tree's options: EXITKILL among them, so that
 * the process fails closed when the supervisor is killed) and stopped
 * (PTRACE_INTERRUPT) while its program is made from its mappings and
 * installed with TSYNC (pin_attach.c); threads made meanwhile are
 * seized by the kernel (TRACECLONE) and stopped too.  A call a thread
 * was blocked in restarts when it goes on.
 *
 * Refused, with the process left as it was: one we may not trace
 * (another user's, Yama, already traced), one with seccomp filters of
 * its own (they would judge before the pins and answer for them), a
 * 32-bit or foreign one.  Each thread enters the tree's Landlock domain
 * (where the kernel has Landlock; else its filter denies ptrace,
 * process_vm_* and pidfd_getfd: SP_BPF_NO_PTRACE).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "layout/procfs.h"

#include "supervise_int.h"

#define MAX_TIDS 1024

struct seized {
	pid_t tid[MAX_TIDS];
	bool stopped[MAX_TIDS];	/* in a group-stop (SIGSTOP, ^Z) */
	size_t n;
};

#define MAX_PROCS 512

/* One process of the tree attached to: its threads, its image. */
struct attached {
	pid_t pid;
	pid_t parent;		/* a descendant's, as listed; 0 named */
	struct seized z;
	struct image *img;
};

static bool
has(const struct seized *z, pid_t t)
{
	for (size_t i = 0; i < z->n; i++)
		if (z->tid[i] == t)
			return true;
	return false;
}

/* t stopped by us: its interrupt's stop, other stops let go on (a signal
 * delivered, an event) until it comes.  0; 1 when it is a group-stop
 * (the process was stopped: it stays so); -1 when t is gone; -2 when it
 * does not stop within STOP_WAIT_MS (a kernel thread of the process). */
#define STOP_WAIT_MS 2000

static int
stop_one(pid_t t)
{
	struct timespec ms = { 0, 1000000 };
	int st, waited = 0;
	pid_t r;

	for (;;) {
		if ((r = waitpid(t, &st, __WALL | WNOHANG)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			if (waited++ >= STOP_WAIT_MS)
				return -2;
			nanosleep(&ms, NULL);
			continue;
		}
		if (!WIFSTOPPED(st))
			return -1;
		if (st >> 16 == PTRACE_EVENT_STOP)
			return WSTOPSIG(st) == SIGTRAP ? 0 : 1;
		/* a signal's stop: delivered; an event's: on */
		ptrace(PTRACE_CONT, t, 0, st >> 16 == 0 ? WSTOPSIG(st) : 0);
	}
}

/* Whether t, stopped, is a thread of process pid. */
static bool
thread_of(pid_t t, pid_t pid)
{
	unsigned long long tg = 0;

	return sp_proc_status(t, "Tgid", 10, &tg) == 0 && (pid_t)tg == pid;
}

/* Every thread of pid seized and stopped (and the ones they made
 * meanwhile).  -1 with err. */
static int
seize_all(pid_t pid, struct seized *z, struct sp_error *err)
{
	char path[64];
	bool more = true;
	int r;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	while (more) {
		struct dirent *e;
		DIR *d = opendir(path);
		if (d == NULL)
			return sp_error_sys(err, errno, "%s", path);
		more = false;
		while ((e = readdir(d)) != NULL) {
			pid_t t = (pid_t)atol(e->d_name);
			if (t <= 0 || has(z, t) || sp_io_worker(t))
				continue;
			if (z->n == MAX_TIDS) {
				closedir(d);
				return sp_error_set(err, "more than %d threads",
				    MAX_TIDS);
			}
			/* seized already when made by a thread we hold;
			 * EXITKILL only once all is stopped and judged
			 * (arm): a refusal leaves the process as it was,
			 * a thread that never stopped included (round 23,
			 * a main thread in vfork died with syspin) */
			if (ptrace(PTRACE_SEIZE, t, 0, SP_SUP_TRACE_OPTS &
			    ~PTRACE_O_EXITKILL) ==
			    -1 && errno != EPERM) {
				if (errno == ESRCH)
					continue;	/* gone */
				closedir(d);
				return sp_error_sys(err, errno, "cannot trace "
				    "thread %ld", (long)t);
			}
			if (ptrace(PTRACE_INTERRUPT, t, 0, 0) == -1) {
				if (errno == ESRCH)
					continue;
				closedir(d);
				return sp_error_sys(err, errno, "cannot trace "
				    "thread %ld", (long)t);
			}
			switch ((r = stop_one(t))) {
			case -1:
				continue;	/* gone */
			case -2:
				closedir(d);
				return sp_error_set(err, "its thread %ld does "
				    "not stop", (long)t);
			default:
				break;
			}
			/* stopped, it is what it is: a thread listed that
			 * ended and whose id another process took is let go
			 * untouched (blind round 23) */
			if (!thread_of(t, pid)) {
				ptrace(PTRACE_DETACH, t, 0, 0);
				continue;
			}
			z->stopped[z->n] = r == 1;
			z->tid[z->n++] = t;
			more = true;
		}
		closedir(d);
	}
	return z->n > 0 ? 0 : sp_error_set(err, "no thread left to trace");
}

/* Whether t is a thread of the processes seized. */
static bool
member(const struct attached *v, size_t n, pid_t t)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == t || has(&v[i].z, t))
			return true;
	return false;
}

/*
 * A way out the process made before the attach, which neither its pins
 * nor the Landlock domain it enters take back (blind round 22): a
 * process outside that one of its threads traces, a /proc/PID/mem of one
 * open, an io_uring (its requests run with the credentials the ring was
 * made with, outside the Landlock domain), a seccomp listener of another
 * process's filter (round 23).  Seen with every thread
 * stopped, so no more are made.  NULL, or why (in buf).
 */
static const char *
holds_outside(const struct attached *v, size_t n, char *buf, size_t size)
{
	struct statx procfs;
	struct dirent *e, *f;
	DIR *d, *fd;

	if ((d = opendir("/proc")) == NULL)
		return "cannot read /proc";
	while ((e = readdir(d)) != NULL) {	/* tracees of ours */
		char path[96];
		pid_t p = (pid_t)atol(e->d_name);
		if (p <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task", (long)p);
		if ((fd = opendir(path)) == NULL)
			continue;
		while ((f = readdir(fd)) != NULL) {
			unsigned long long tr = 0;
			pid_t t = (pid_t)atol(f->d_name);
			if (t > 0 && sp_proc_status(t, "TracerPid", 10,
			    &tr) == 0 && tr != 0 && member(v, n, (pid_t)tr) &&
			    !member(v, n, t)) {
				closedir(fd);
				closedir(d);
				snprintf(buf, size, "its thread %llu traces "
				    "process %ld, outside", tr, (long)p);
				return buf;
			}
		}
		closedir(fd);
	}
	closedir(d);
	if (statx(AT_FDCWD, "/proc", 0, STATX_MNT_ID, &procfs) == -1 ||
	    !(procfs.stx_mask & STATX_MNT_ID))
		return "cannot tell which mount /proc is";
	for (size_t i = 0; i < n; i++) {	/* memory of others, open */
		char dir[64];
		snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)v[i].pid);
		if ((d = opendir(dir)) == NULL)
			return "cannot read its descriptors";
		while ((e = readdir(d)) != NULL) {
			char path[384], link[200];
			ssize_t len;
			pid_t q;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if ((len = readlink(path, link, sizeof(link) - 1)) <= 0)
				continue;
			link[len] = '\0';
			if ((q = sp_mem_held(path, link, procfs.stx_mnt_id)) ==
			    -1 || (q > 0 && !member(v, n, q)))
				goto mem;
			/* its requests run with the credentials the ring was
			 * made with: no Landlock domain (blind round 22) */
			/* it answers another's calls, puts descriptors in
			 * it (no filter of its own: refused before) */
			if (strcmp(link, "anon_inode:seccomp notify") == 0) {
				closedir(d);
				snprintf(buf, size, "process %ld holds a seccomp "
				    "listener (it answers the calls of a process "
				    "outside)", (long)v[i].pid);
				return buf;
			}
			if (strcmp(link, "anon_inode:[io_uring]") == 0) {
				closedir(d);
				snprintf(buf, size, "process %ld has an io_uring "
				    "(its requests would run with what the "
				    "process had before, outside the domain)",
				    (long)v[i].pid);
				return buf;
			}
			continue;
mem:
			closedir(d);
			snprintf(buf, size, "process %ld holds %.190s open (the "
			    "memory of a process outside, or of one it cannot "
			    "be told from)", (long)v[i].pid, link);
			return buf;
		}
		closedir(d);
	}
	return NULL;
}

/* Whether pid is us or one of our ancestors. */
static bool
ancestor(pid_t pid)
{
	unsigned long long pp;
	pid_t p = getpid();

	for (int depth = 0; p > 1 && depth < 4096; depth++) {
		if (p == pid)
			return true;
		if (sp_proc_status(p, "PPid", 10, &pp) == -1)
			return false;
		p = (pid_t)pp;
	}
	return p == pid;
}

/* Why pid cannot be pinned, before anything is done to it: NULL when it
 * can be tried. */
static const char *
refusal(pid_t pid, char *buf, size_t size)
{
	unsigned long long tracer = 0, filters = 0;
	unsigned char id[sizeof(Elf64_Ehdr)];
	char path[64];
	int fd;
	ssize_t n;

	if (ancestor(pid))
		return "syspin itself, or one of its callers (it would wait for "
		    "syspin, which waits for it)";
	if (kill(pid, 0) == -1 && errno == ESRCH)
		return "no such process";
	if (sp_proc_status(pid, "TracerPid", 10, &tracer) == -1)
		return "cannot read its status (another user's?)";
	if (tracer != 0) {
		snprintf(buf, size, "already traced (by process %llu)",
		    tracer);
		return buf;
	}
	if (sp_proc_status(pid, "Seccomp_filters", 10, &filters) == 0 &&
	    filters > 0)
		return "it has seccomp filters of its own, which would judge "
		    "its calls before the pins (and could answer for them)";
	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno == EACCES ? "its program is not readable (another "
		    "user's, or execute-only)" : "cannot open its program";
	n = read(fd, id, sizeof(id));
	close(fd);
	if (n < (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG) != 0 ||
	    id[EI_CLASS] != ELFCLASS64 ||
	    ((const Elf64_Ehdr *)id)->e_machine != EM_X86_64)
		return "not an x86-64 process (32-bit or foreign)";
	return NULL;
}


/* The children of the stopped processes v[from..n), appended (the
 * stopped make no more); -1 past MAX_PROCS. */
static int
children(struct attached *v, size_t *n, size_t from)
{
	struct dirent *e;
	size_t k, was = *n;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		unsigned long long pp;
		pid_t c = (pid_t)atol(e->d_name);
		bool known = false;
		if (c <= 0 || sp_proc_status(c, "PPid", 10, &pp) == -1)
			continue;
		for (k = 0; k < *n && !known; k++)
			known = v[k].pid == c;
		for (k = from; k < was && !known; k++)
			if ((pid_t)pp == v[k].pid) {
				if (*n == MAX_PROCS) {
					closedir(d);
					return -1;
				}
				memset(&v[*n], 0, sizeof(v[*n]));
				v[*n].parent = (pid_t)pp;
				v[(*n)++].pid = c;
				break;
			}
	}
	closedir(d);
	return 0;
}

/* The stopped threads made to die with us (PTRACE_O_EXITKILL) now
 * that they are to be pinned: unsupervised, they must not run on. */
static int
arm(struct attached *v, size_t n, struct sp_error *err)
{
	for (size_t i = 0; i < n; i++)
		for (size_t t = 0; t < v[i].z.n; t++)
			if (ptrace(PTRACE_SETOPTIONS, v[i].z.tid[t], 0,
			    SP_SUP_TRACE_OPTS) == -1 && errno != ESRCH)
				return sp_error_sys(err, errno, "ptrace "
				    "options of thread %ld",
				    (long)v[i].z.tid[t]);
	return 0;
}

static void
let_go(struct attached *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t t = 0; t < v[i].z.n; t++)
			ptrace(PTRACE_DETACH, v[i].z.tid[t], 0, 0);
		sp_image_drop(v[i].img);
	}
}

/* Whether p, stopped, is a child of parent. */
static bool
child_of(pid_t p, pid_t parent)
{
	unsigned long long pp = 0;

	return sp_proc_status(p, "PPid", 10, &pp) == 0 && (pid_t)pp == parent;
}

/* Whether p has ended or is ending (PF_EXITING, a zombie). */
static bool
gone(pid_t p)
{
	struct sp_proc_stat st;

	return sp_proc_stat(p, &st) == -1 || st.state == 'Z' ||
	    st.state == 'X' || (st.flags & 0x4u) != 0;
}

/*
 * While threads are seized: a thread that execs waits for the others to
 * be reaped (de_thread), those we trace by us, while PTRACE_SEIZE of a
 * thread waits for the exec's lock, and the kernel makes the seize again
 * after a signal: the attach hung for good (blind round 23).  A timer's
 * handler reaps what of ours has exited (exits only: the stops stay for
 * stop_one), so the exec goes on and the seize with it.
 */
static void
reap_exited(int sig)
{
	siginfo_t si;
	int e = errno;

	(void)sig;
	do
		si.si_pid = 0;
	while (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | __WALL) == 0 &&
	    si.si_pid != 0);
	errno = e;
}

static void
reaping(bool on, struct sigaction *old)
{
	struct itimerval t = { { 0, 50000 }, { 0, 50000 } };
	struct sigaction sa;

	if (on) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = reap_exited;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, old);
	} else
		memset(&t, 0, sizeof(t));
	setitimer(ITIMER_REAL, &t, NULL);
	if (!on)
		sigaction(SIGALRM, old, NULL);
}

/* pid and its descendants, each stopped whole: *n of them. */
static int
seize_tree(const pid_t *pids, size_t npids, const struct sp_pin_opts *pin,
    struct attached *v, size_t *n, struct sp_error *err)
{
	char why[320];
	const char *no;
	size_t i;

	for (*n = 0; *n < npids; (*n)++)
		v[*n].pid = pids[*n];
	for (i = 0; i < *n; i++) {
		/* a descendant gone meanwhile, or ending, is no reason to
		 * refuse (one that forks short-lived children: round 22) */
		if (i >= npids && gone(v[i].pid)) {
			v[i--] = v[--*n];
			continue;
		}
		if (i >= npids && (no = refusal(v[i].pid, why,
		    sizeof(why))) != NULL) {
			if (gone(v[i].pid)) {	/* it ended as we looked */
				v[i--] = v[--*n];
				continue;
			}
			return sp_error_set(err, "its descendant %ld: %s",
			    (long)v[i].pid, no);
		}
		if (seize_all(v[i].pid, &v[i].z, err) == -1) {
			if (i >= npids && v[i].z.n == 0 && gone(v[i].pid)) {
				v[i--] = v[--*n];
				continue;
			}
			return -1;
		}
		/* a descendant listed is still the child of its parent
		 * (stopped: it forks nothing), not a process that took
		 * the id of one the kernel reaped meanwhile (a parent
		 * ignoring SIGCHLD): else let go untouched (round 23) */
		if (i >= npids && !child_of(v[i].pid, v[i].parent)) {
			for (size_t t = 0; t < v[i].z.n; t++)
				ptrace(PTRACE_DETACH, v[i].z.tid[t], 0, 0);
			v[i--] = v[--*n];
			continue;
		}
		if (children(v, n, i) == -1)
			return sp_error_set(err, "more than %d processes",
			    MAX_PROCS);
	}
	for (i = 0; i < *n; i++)
		if ((no = sp_attach_kept(pin, v[i].pid, v[i].z.tid,
		    v[i].z.n, why, sizeof(why))) != NULL)
			return sp_error_set(err, "%s", no);
	if ((no = holds_outside(v, *n, why, sizeof(why))) != NULL)
		return sp_error_set(err, "%s", no);
	return 0;
}

/* Each process's program installed (pin_attach.c); -1 with err, the
 * first that failed in *failed. */
static int
pin_tree(struct attached *v, size_t n, const struct sp_pin_opts *o,
    unsigned scope, size_t *failed, struct sp_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const struct seized *z = &v[i].z;
		*failed = i;
		if ((v[i].img = calloc(1, sizeof(*v[i].img))) == NULL)
			return sp_error_set(err, "out of memory");
		v[i].img->refs = 1;
		v[i].img->exe = sp_sup_exe_of(v[i].pid);
		if (sp_pin_attach(has(z, v[i].pid) ? v[i].pid : z->tid[0],
		    z->tid, z->n, scope, o, &v[i].img->pin, err) == -1)
			return -1;
	}
	return 0;
}

/* What the supervisor knows of a pinned process: its threads, image,
 * space and chain.  -1 out of memory. */
static int
adopt(struct sup *s, struct attached *a)
{
	struct chain *chain;
	struct space *sp;

	if ((sp = sp_space_new(0)) == NULL)
		return -1;
	if ((chain = sp_chain_push(NULL, a->img)) == NULL) {
		sp_space_drop(sp);
		return -1;
	}
	for (size_t t = 0; t < a->z.n; t++) {
		struct proc *p = sp_sup_proc(s, a->z.tid[t], true);
		if (p == NULL)
			return -1;
		p->tgid = a->pid;
		p->inherited = true;
		p->filters_known = a->img->pin.filters;
	}
	sp_sup_pinned(s, a->pid, a->img, sp, chain, false);
	a->img = NULL;		/* the supervisor's now */
	return 0;
}

int
sp_supervise_attach(const struct sp_supervise_opts *o, const pid_t *pids,
    size_t npids, struct sp_error *err)
{
	pid_t pid = pids[0];
	struct sp_supervise_opts opts = *o;
	struct attached *v;
	struct timespec t0, t1;
	struct sup s;
	size_t n = 0, failed = 0, threads = 0;
	char why[96];
	const char *no;
	int status, r;

	if (npids == 0 || npids > MAX_PROCS)
		return sp_error_set(err, "-p: from 1 to %d processes",
		    MAX_PROCS);
	for (size_t i = 0; i < npids; i++)
		if ((no = refusal(pids[i], why, sizeof(why))) != NULL)
			return sp_error_set(err, "%ld: %s", (long)pids[i], no);
	if ((v = calloc(MAX_PROCS, sizeof(*v))) == NULL)
		return sp_error_set(err, "out of memory");
	memset(&s, 0, sizeof(s));
	s.o = &opts;
	s.landlock = sp_confine_available();	/* each thread enters it */
	opts.pin.flags = sp_supervise_flags(&opts.pin, s.landlock);
	/* what --exec=trusted finds older than the processes is trusted
	 * (round 23: the start was never set, and the attach's own would
	 * trust what they wrote before it) */
	sp_attach_trust_start(pids, npids, &opts.pin.start);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct sigaction old_alrm;
	reaping(true, &old_alrm);
	r = seize_tree(pids, npids, &opts.pin, v, &n, err);
	reaping(false, &old_alrm);
	if (r == -1 ||
	    arm(v, n, err) == -1 || pin_tree(v, n, &opts.pin, opts.scope | SP_SCOPE_SOCKETS_IF,
	    &failed, err) == -1) {
		struct sp_error e = *err;
		if (failed > 0) {
			/* pinned and unsupervised, they must not run so */
			for (size_t i = 0; i < n; i++)
				kill(v[i].pid, SIGKILL);
			let_go(v, n);
			free(v);
			return sp_error_set(err, "%ld: %s (killed: %zu of its "
			    "processes were pinned already)", (long)pid, e.msg,
			    failed);
		}
		bool changed = n > 0 && v[0].img != NULL &&
		    v[0].img->pin.changed;
		let_go(v, n);
		free(v);
		return sp_error_set(err, "%ld: %s (%s)", (long)pid, e.msg,
		    changed ? "left in the tree's Landlock domain, perhaps with "
		    "the band reserved, but not pinned nor supervised" :
		    "left as it was");
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	s.main = pid;
	s.main_pinned = true;
	for (size_t i = 0; i < n; i++)
		if (adopt(&s, &v[i]) == -1) {
			for (size_t k = 0; k < n; k++)
				kill(v[k].pid, SIGKILL);
			let_go(v, n);
			free(v);
			sp_sup_free(&s);
			return sp_error_set(err, "%ld: out of memory (killed)",
			    (long)pid);
		}
	/* On; a process that was stopped (^Z) stopped again, now as a
	 * process of the tree is (blind round 22: it ran again once
	 * attached). */
	for (size_t i = 0; i < n; i++) {
		bool stopped = false;
		for (size_t t = 0; t < v[i].z.n; t++, threads++) {
			stopped |= v[i].z.stopped[t];
			ptrace(PTRACE_CONT, v[i].z.tid[t], 0, 0);
		}
		if (stopped)
			kill(v[i].pid, SIGSTOP);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (opts.pin.verbose)
		fprintf(stderr, "syspin: %ld: pinned, %zu processes and %zu "
		    "threads stopped for %.1f ms; supervised until they "
		    "end\n", (long)pid, n, threads,
		    (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	free(v);
	status = sp_sup_loop(&s);
	sp_sup_free(&s);
	return status < 0 ? 127 : status;
}
