/* SPDX-License-Identifier: ISC */
/*
 * A terminal's settings and foreground, judged (SP_BPF_CHECK_DATA on
 * ioctl: lib/bpf/policy.c).  The kernel's line discipline sends SIGQUIT,
 * which dumps core, to a terminal's foreground when its quit character
 * comes in: a tree that sets it to a common key on one of the user's
 * terminals, or hands the run's terminal to a job outside, has the
 * user's next key write an outside process's memory to a core (blind
 * round 6).  So:
 * - the run's terminal (syspin's controlling terminal) keeps its quit
 *   character: the tree's settings apply, that character put back (or
 *   left disabled); its foreground may be given to a process group of
 *   the tree, or back to the one it had as syspin started (a shell of
 *   the tree gives it back as it ends), only;
 * - a terminal of the tree's own (one a process of the tree has as its
 *   controlling terminal, a pseudo-terminal whose master the tree holds,
 *   or a master) is the tree's to set;
 * - any other (another login's, another window's) is not: EPERM.
 * Each call is made here, on the very file the tracee's descriptor held
 * when we looked (pidfd_getfd), with the bytes we read once: nothing the
 * tree changes meanwhile (the descriptor, the memory) is what the kernel
 * then uses.  Without the supervisor (the runtime alone) nobody judges.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "layout/procfs.h"
#include "supervise/supervise.h"

#include "supervise_int.h"

#define T_TCSETS	0x5402u
#define T_TCSETSW	0x5403u
#define T_TCSETSF	0x5404u
#define T_TCSETA	0x5406u
#define T_TCSETAW	0x5407u
#define T_TCSETAF	0x5408u
#define T_TCSETS2	0x402c542bu
#define T_TCSETSW2	0x402c542cu
#define T_TCSETSF2	0x402c542du
#define T_TIOCSPGRP	0x5410u
#define T_TIOCSETD	0x5423u
#define T_TIOCSLCKTRMIOS 0x5457u
#define VQUIT_AT	1	/* c_cc[VQUIT] in termios, termios2, termio */
#define CC_TERMIOS	17	/* c_cc of the kernel's struct termios(2) */
#define CC_TERMIO	9	/* c_cc of struct termio */

/* The argument's size: the kernel's structs, not libc's. */
static size_t
arg_size(uint32_t cmd, size_t *cc)
{
	switch (cmd) {
	case T_TCSETS: case T_TCSETSW: case T_TCSETSF:
	case T_TIOCSLCKTRMIOS:
		*cc = CC_TERMIOS;
		return 36;
	case T_TCSETS2: case T_TCSETSW2: case T_TCSETSF2:
		*cc = CC_TERMIOS;
		return 44;
	case T_TCSETA: case T_TCSETAW: case T_TCSETAF:
		*cc = CC_TERMIO;
		return 18;
	default:	/* TIOCSPGRP, TIOCSETD: an int */
		*cc = 0;
		return sizeof(int);
	}
}

/* The controlling terminal of tid's process (0: none). */
static dev_t
ctty_of(pid_t tid)
{
	char path[64], buf[1024], *p;
	unsigned long long v;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || (buf[n] = '\0', p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %*c %*d %*d %*d %llu", &v) != 1 || v == 0)
		return 0;
	return makedev((v >> 8) & 0xfff, (v & 0xff) | ((v >> 12) & 0xfff00));
}

/* /dev/tty is the caller's terminal by another number (5, 0): the
 * terminal itself is /proc/self/stat's. */
void
sp_sup_tty_start(struct sup *s)
{
	unsigned char buf[36];
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);

	s->tty_rdev = 0;
	if (fd == -1)
		return;
	if (ioctl(fd, 0x5401 /* TCGETS */, buf) == 0) {
		s->tty_rdev = ctty_of(getpid());
		s->tty_quit = buf[CC_TERMIOS + VQUIT_AT];
		s->tty_fg0 = tcgetpgrp(fd);
	}
	close(fd);
}

/* Whether a process of the tree has rdev as its controlling terminal. */
static bool
tree_ctty(const struct sup *s, dev_t rdev)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].tgid == s->procs[i].pid &&
		    ctty_of(s->procs[i].pid) == rdev)
			return true;
	return false;
}

/* Whether a process of the tree holds the master of pseudo-terminal
 * index (its fdinfo says "tty-index"). */
static bool
tree_master(const struct sup *s, unsigned index)
{
	char path[96], link[64], line[128];
	struct dirent *e;
	bool found = false;
	unsigned v;
	ssize_t n;
	FILE *f;
	DIR *d;

	for (size_t i = 0; i < s->nprocs && !found; i++) {
		if (s->procs[i].tgid != s->procs[i].pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/fd",
		    (long)s->procs[i].pid);
		if ((d = opendir(path)) == NULL)
			continue;
		while (!found && (e = readdir(d)) != NULL) {
			snprintf(path, sizeof(path), "/proc/%ld/fd/%.16s",
			    (long)s->procs[i].pid, e->d_name);
			if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
				continue;
			link[n] = '\0';
			if (strcmp(link, "/dev/ptmx") != 0 &&
			    strcmp(link, "/dev/pts/ptmx") != 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%.16s",
			    (long)s->procs[i].pid, e->d_name);
			if ((f = fopen(path, "re")) == NULL)
				continue;
			while (fgets(line, sizeof(line), f) != NULL)
				if (sscanf(line, "tty-index: %u", &v) == 1 &&
				    v == index)
					found = true;
			fclose(f);
		}
		closedir(d);
	}
	return found;
}

enum whose { OUTSIDE, RUN, TREE };

static enum whose
whose(const struct sup *s, dev_t rdev)
{
	if (s->tty_rdev != 0 && rdev == s->tty_rdev)
		return RUN;
	if (major(rdev) == 5 && minor(rdev) == 2)	/* a master: new */
		return TREE;
	if (tree_ctty(s, rdev))
		return TREE;
	if (major(rdev) >= 136 && major(rdev) <= 143 &&
	    tree_master(s, (major(rdev) - 136) * 256 + minor(rdev)))
		return TREE;
	return OUTSIDE;
}

/* Whether pgrp is a process group of the tree. */
static bool
tree_pgrp(const struct sup *s, pid_t pgrp)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (getpgid(s->procs[i].pid) == pgrp)
			return true;
	return false;
}

/* Our copy of the tracee's fd (-1: none). */
static int
their_tty(pid_t tid, int fd)
{
	int pfd = (int)syscall(SYS_pidfd_open, sp_sup_tgid(tid), 0), r;

	if (pfd == -1)
		return -1;
	r = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	close(pfd);
	return r;
}

/*
 * 0: resume the call (it runs as asked: TIOCSPGRP of a process whose
 * terminal is not the run's, which the kernel keeps to its own session);
 * else made here, or *refused (the caller says so and fails it).
 */
int
sp_sup_tty(struct sup *s, pid_t tid, const struct seccomp_data *d,
    bool *refused)
{
	uint32_t cmd = (uint32_t)d->args[1];
	unsigned char arg[64];
	sigset_t ttou, old;
	struct stat st;
	size_t len, cc;
	enum whose w;
	int f, r, e = 0, pgrp;

	*refused = false;
	/* TIOCSPGRP acts on the caller's own terminal only: the run's
	 * is judged, a terminal of the tree's sessions is the tree's */
	if (cmd == T_TIOCSPGRP && (s->tty_rdev == 0 ||
	    ctty_of(tid) != s->tty_rdev))
		return 0;
	if ((f = their_tty(tid, (int)d->args[0])) == -1)
		return sp_sup_fail_call(tid, EBADF);
	if (fstat(f, &st) == -1 || !S_ISCHR(st.st_mode)) {
		close(f);
		return sp_sup_fail_call(tid, ENOTTY);
	}
	/* /dev/tty is the caller's own terminal */
	w = whose(s, st.st_rdev == makedev(5, 0) ? ctty_of(tid) :
	    st.st_rdev);
	len = arg_size(cmd, &cc);
	/* the bytes read once: what the call is made with */
	if (sp_mem_read(tid, d->args[2], arg, len, NULL) == -1) {
		close(f);
		return sp_sup_fail_call(tid, EFAULT);
	}
	if (cmd == T_TIOCSPGRP && w != RUN) {	/* not its terminal */
		close(f);
		return sp_sup_fail_call(tid, ENOTTY);
	}
	memcpy(&pgrp, arg, sizeof(pgrp));
	if (w == OUTSIDE || (cmd == T_TIOCSPGRP && pgrp != s->tty_fg0 &&
	    !tree_pgrp(s, pgrp))) {
		close(f);
		*refused = true;
		return 0;
	}
	/* the run's quit character stays (disabled is fine: no signal) */
	if (w == RUN && cc != 0 && arg[cc + VQUIT_AT] != 0)
		arg[cc + VQUIT_AT] = s->tty_quit;
	/* from a background process group: no SIGTTOU for us */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	r = ioctl(f, cmd, arg);
	if (r == -1)
		e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(f);
	return sp_sup_fail_call(tid, e);
}
