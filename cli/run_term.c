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

static bool
save_tty(struct term_state *q, int fd, bool opened)
{
	struct term_tty *y = &q->ttys[q->nttys];

	if (q->nttys == 2 || tcgetattr(fd, &y->t) == -1)
		return false;
	y->fd = fd;
	y->opened = opened;
	if (ioctl(fd, TIOCGETD, &y->ldisc) == -1)
		y->ldisc = -1;
	y->fg = tcgetpgrp(fd);		/* -1: not ours */
	q->nttys++;
	return true;
}

void
run_term_save(struct term_state *q)
{
	unsigned int a, b;	/* the terminals' devices (/dev/tty's is
				   the one it stands for) */
	int fd;

	save_fds(q);
	q->nttys = 0;
	for (fd = 0; fd < 3; fd++)
		if (isatty(fd) && save_tty(q, fd, false))
			break;
	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return;
	if ((q->nttys == 1 && ioctl(q->ttys[0].fd, TIOCGDEV, &a) == 0 &&
	    ioctl(fd, TIOCGDEV, &b) == 0 && a == b) ||
	    !save_tty(q, fd, true))
		close(fd);
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

static void
restore_tty(struct term_tty *y)
{
	struct termios t;
	pid_t fg, ours = getpgrp();
	int ld;

	if (tcgetattr(y->fd, &t) == 0) {
		if (y->ldisc >= 0 && ioctl(y->fd, TIOCGETD, &ld) == 0 &&
		    ld != y->ldisc)
			(void)ioctl(y->fd, TIOCSETD, &y->ldisc);
		if (memcmp(&t, &y->t, sizeof(t)) != 0)
			(void)tcsetattr(y->fd, TCSANOW, &y->t);
		(void)tcflow(y->fd, TCOON);
		/* The foreground, when the tree's group holds it and is
		 * gone (blind round 21: a script run on a terminal was left
		 * in the background of its own terminal), or is ours, which
		 * did not hold it before and goes with us (round 25: syspin
		 * run in the background, the tree gave our group the
		 * foreground); never taken from another group that lives
		 * (the user's shell, having put us in the background). */
		if (y->fg > 0 && (fg = tcgetpgrp(y->fd)) > 0 && fg != y->fg &&
		    ((kill(-fg, 0) == -1 && errno == ESRCH) ||
		    (fg == ours && y->fg != ours && kill(-y->fg, 0) == 0)))
			(void)tcsetpgrp(y->fd, y->fg);
	}
	if (y->opened)
		close(y->fd);
}

void
run_term_restore(struct term_state *q)
{
	sigset_t ttou, old;

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
	/* from a background job too: not stopped by SIGTTOU for it */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	for (size_t i = 0; i < q->nttys; i++)
		restore_tty(&q->ttys[i]);
	q->nttys = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
}
