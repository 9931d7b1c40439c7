/* SPDX-License-Identifier: ISC */
/*
 * syspin run -p: the processes named and their descendants, every
 * thread seized (PTRACE_SEIZE, the tree's options but EXITKILL until all
 * is judged: sp_attach_arm) and stopped (PTRACE_INTERRUPT), threads and
 * children made meanwhile seized by the kernel and stopped in turn; each
 * checked, once stopped, to be what was listed.  The refusals that need
 * nothing stopped come first (sp_attach_refusal), those that do once all
 * is (attach_kept.c).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <linux/kcmp.h>
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

#include "attach_int.h"

bool
sp_attach_has(const struct seized *z, pid_t t)
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
	struct timespec ms = { 0, 1000000 }, t0, now;
	int st, waited = 0;
	pid_t r;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	for (;;) {
		if ((r = waitpid(t, &st, __WALL | WNOHANG)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			/* by the clock: a loaded machine's millisecond naps
			 * are longer (CI: 2000 of them took over 20 s) */
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec -
			    t0.tv_nsec) / 1000000 >= STOP_WAIT_MS)
				return -2;
			waited++;
			/* asked again now and then: an interrupt an event's
			 * stop took may not come after it (CI: PostgreSQL's
			 * autovacuum launcher, forking, never stopped) */
			if (waited % 100 == 0)
				ptrace(PTRACE_INTERRUPT, t, 0, 0);
			nanosleep(&ms, NULL);
			continue;
		}
		if (!WIFSTOPPED(st))
			return -1;
		if (st >> 16 == PTRACE_EVENT_STOP)
			return WSTOPSIG(st) == SIGTRAP ? 0 : 1;
		/* a signal's stop: delivered; an event's: on, and the
		 * interrupt asked again */
		ptrace(PTRACE_CONT, t, 0, st >> 16 == 0 ? WSTOPSIG(st) : 0);
		ptrace(PTRACE_INTERRUPT, t, 0, 0);
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
			if (t <= 0 || sp_attach_has(z, t) || sp_io_worker(t))
				continue;
			if (z->n == MAX_TIDS) {
				closedir(d);
				return sp_error_set(err, "more than %d threads",
				    MAX_TIDS);
			}
			/* seized already when made by a thread we hold;
			 * EXITKILL (and TRACEEXIT: an exec meanwhile must
			 * find our exited threads reaped, not stopped) only
			 * once all is stopped and judged
			 * (arm): a refusal leaves the process as it was,
			 * a thread that never stopped included (round 23,
			 * a main thread in vfork died with syspin) */
			if (ptrace(PTRACE_SEIZE, t, 0, SP_SUP_TRACE_OPTS &
			    ~(PTRACE_O_EXITKILL | PTRACE_O_TRACEEXIT)) ==
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
			case -2: {
				struct sp_proc_stat ps = { 0 };
				closedir(d);
				(void)sp_proc_stat(t, &ps);
				return sp_error_set(err, "its thread %ld does "
				    "not stop (state %c, flags 0x%x)", (long)t,
				    ps.state ? ps.state : '?', (unsigned)ps.flags);
			}
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
bool
sp_attach_member(const struct attached *v, size_t n, pid_t t)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == t || sp_attach_has(&v[i].z, t))
			return true;
	return false;
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
const char *
sp_attach_refusal(pid_t pid, char *buf, size_t size)
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
int
sp_attach_arm(struct attached *v, size_t n, struct sp_error *err)
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

void
sp_attach_let_go(struct attached *v, size_t n)
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
 * handler reaps the seized threads that have exited, so the exec goes on
 * and the seize with it.  Each is looked at alone, WNOWAIT first: to a
 * tracer a trace stop is waitable as an exit is, and one taken here
 * never reaches stop_one (round 23b: forked children then never
 * "stopped").
 */
static const struct attached *reap_v;
static const size_t *reap_n;

static void
reap_exited(int sig)
{
	const int exits = WEXITED | WNOHANG | __WALL;
	siginfo_t si;
	int e = errno;

	(void)sig;
	for (size_t i = 0; reap_v != NULL && i < *reap_n; i++)
		for (size_t t = 0; t < reap_v[i].z.n; t++) {
			pid_t tid = reap_v[i].z.tid[t];
			si.si_pid = 0;
			if (waitid(P_PID, (id_t)tid, &si, exits | WNOWAIT) ==
			    0 && si.si_pid == tid && (si.si_code == CLD_EXITED ||
			    si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED))
				(void)waitid(P_PID, (id_t)tid, &si, exits);
		}
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
		if (i >= npids && (no = sp_attach_refusal(v[i].pid, why,
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
	if ((no = sp_attach_holds_outside(v, *n, why, sizeof(why))) != NULL ||
	    (no = sp_attach_shared_outside(v, *n, why, sizeof(why))) != NULL)
		return sp_error_set(err, "%s", no);
	return 0;
}


int
sp_attach_seize(const pid_t *pids, size_t npids, const struct sp_pin_opts *pin,
    struct attached *v, size_t *n, struct sp_error *err)
{
	struct sigaction old;
	int r;

	*n = 0;
	reap_v = v, reap_n = n;
	reaping(true, &old);
	r = seize_tree(pids, npids, pin, v, n, err);
	reaping(false, &old);
	reap_v = NULL;
	return r;
}
