/* SPDX-License-Identifier: ISC */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <termios.h>
#include <unistd.h>

#include "bpf/bpf.h"
#include "run.h"

/*
 * The run's terminal as the tree found it: its settings, line discipline,
 * output flow and, for every descriptor the tree inherits (a terminal's,
 * a pipe's, a socket's), its status flags (O_NONBLOCK, O_ASYNC), owner
 * and signal are put back
 * when the tree is done, as a shell puts a
 * job's terminal back.  Left changed (echo off, output stopped, another
 * line discipline), the user's terminal would stay so for whatever runs
 * next outside the tree.  (The supervisor keeps its special characters
 * and its line discipline while the tree runs, tty.c, so that a tree that
 * kills syspin leaves no key that signals or feeds a process outside.)
 */
static void
save_fd(struct term_state *q, size_t *cap, int fd)
{
	struct term_fd f, *v;

	if ((f.fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_GETOWN_EX, &f.own) == -1 ||
	    (f.sig = fcntl(fd, F_GETSIG)) == -1)
		return;
	f.fd = fd;
	if (q->nfds == *cap) {
		*cap = *cap != 0 ? 2 * *cap : 16;
		if ((v = realloc(q->fds, *cap * sizeof(*v))) == NULL) {
			*cap = q->nfds;
			return;
		}
		q->fds = v;
	}
	q->fds[q->nfds++] = f;
}

/* Every open descriptor, as many as the process holds (/proc/self/fd;
 * without /proc, each number below the limit on them). */
static void
save_fds(struct term_state *q)
{
	struct rlimit rl;
	struct dirent *e;
	size_t cap = 0;
	DIR *d;
	char *end;
	long n;

	q->fds = NULL;
	q->nfds = 0;
	if ((d = opendir("/proc/self/fd")) != NULL) {
		while ((e = readdir(d)) != NULL) {
			n = strtol(e->d_name, &end, 10);
			if (*end == '\0' && end != e->d_name && n >= 0 &&
			    n != dirfd(d))
				save_fd(q, &cap, (int)n);
		}
		closedir(d);
		return;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur > 1 << 20)
		rl.rlim_cur = 1 << 20;
	for (rlim_t i = 0; i < rl.rlim_cur; i++)
		save_fd(q, &cap, (int)i);
}

void
run_term_save(struct term_state *q)
{
	save_fds(q);
	for (q->fd = 0; q->fd < 3; q->fd++)
		if (isatty(q->fd) && tcgetattr(q->fd, &q->t) == 0) {
			if (ioctl(q->fd, TIOCGETD, &q->ldisc) == -1)
				q->ldisc = -1;
			q->fg = tcgetpgrp(q->fd);	/* -1: not ours */
			return;
		}
	q->fd = -1;
}

/*
 * What an inherited descriptor would signal outside while the tree runs,
 * its owner and signal set by the caller (blind round 24: the tree set
 * only O_ASYNC and wrote): a signal that dumps core becomes SIGIO, and
 * under --scope=signals the owner is cleared (the kernel judges a signal
 * by the domain of who set the owner: outside, none).  Put back by
 * run_term_restore.
 */
void
run_term_quiet(const struct term_state *q, bool scope_signals)
{
	for (size_t i = 0; i < q->nfds; i++) {
		const struct term_fd *f = &q->fds[i];
		struct f_owner_ex none = { F_OWNER_PID, 0 };
		if (sp_bpf_dumps_core(f->sig))
			(void)fcntl(f->fd, F_SETSIG, 0);
		if (scope_signals && f->own.pid != 0)
			(void)fcntl(f->fd, F_SETOWN_EX, &none);
	}
}

void
run_term_restore(struct term_state *q)
{
	struct termios t;
	sigset_t ttou, old;
	pid_t fg;
	int ld;

	for (size_t i = 0; i < q->nfds; i++) {
		const struct term_fd *f = &q->fds[i];
		struct f_owner_ex own;
		if (fcntl(f->fd, F_GETFL) != f->fl)
			(void)fcntl(f->fd, F_SETFL, f->fl);
		if (fcntl(f->fd, F_GETSIG) != f->sig)
			(void)fcntl(f->fd, F_SETSIG, f->sig);
		if (fcntl(f->fd, F_GETOWN_EX, &own) == 0 &&
		    (own.type != f->own.type || own.pid != f->own.pid))
			(void)fcntl(f->fd, F_SETOWN_EX, &f->own);
	}
	free(q->fds);
	q->fds = NULL;
	q->nfds = 0;
	if (q->fd < 0 || tcgetattr(q->fd, &t) == -1)
		return;
	/* from a background job too: not stopped by SIGTTOU for it */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	if (q->ldisc >= 0 && ioctl(q->fd, TIOCGETD, &ld) == 0 &&
	    ld != q->ldisc)
		(void)ioctl(q->fd, TIOCSETD, &q->ldisc);
	if (memcmp(&t, &q->t, sizeof(t)) != 0)
		(void)tcsetattr(q->fd, TCSANOW, &q->t);
	(void)tcflow(q->fd, TCOON);
	/* The foreground, when the tree's group holds it and is gone
	 * (blind round 21: a script run on a terminal was left in the
	 * background of its own terminal); never taken from a group that
	 * lives (the user's shell, having put us in the background). */
	if (q->fg > 0 && (fg = tcgetpgrp(q->fd)) > 0 && fg != q->fg &&
	    kill(-fg, 0) == -1 && errno == ESRCH)
		(void)tcsetpgrp(q->fd, q->fg);
	sigprocmask(SIG_SETMASK, &old, NULL);
}
