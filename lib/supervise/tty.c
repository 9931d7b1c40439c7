/* SPDX-License-Identifier: ISC */
/*
 * A terminal's ioctls and the tree's process groups, judged
 * (SP_BPF_CHECK_DATA on ioctl of type 'T' and setpgid: lib/bpf/policy.c).
 * The kernel's line discipline sends SIGQUIT, which dumps core, to a
 * terminal's foreground when its quit character comes in, and gives that
 * foreground what the user types: a tree that sets it to a common key on
 * one of the user's terminals, or hands the run's terminal to a job
 * outside, has the user's next key write an outside process's memory to
 * a core (blind round 6); one that steals, hangs up, locks (TIOCEXCL) or
 * resizes another login's terminal changes what is not its own (round
 * 7).  So every ioctl that changes a terminal stops here:
 * - the run's terminal (syspin's controlling terminal) keeps its quit
 *   character: the tree's settings apply, that character put back (or
 *   left disabled); its foreground may be given only to a process group
 *   every member of which is the tree's (or syspin's), or back to the one
 *   it had as syspin started; it is not hung up, locked or made the
 *   console;
 * - a terminal of the tree's own (a pseudo-terminal whose master the
 *   tree holds, or a master) is the tree's to change, but for the
 *   console; one a process of the tree has made its controlling terminal
 *   is not the tree's for that (a terminal no session has is anyone's to
 *   take: blind round 16);
 * - any other (another login's, another window's) is not: EPERM;
 * - no terminal is stolen from its session (TIOCSCTTY's force flag is
 *   dropped: the kernel then gives a process only a terminal that has no
 *   session).
 * And a process of the tree joins a process group only if it is the
 * job's own (syspin's) or every member is the tree's: joining a job
 * outside would make that job's terminal foreground "a group of the
 * tree".  Each change is made here, on the very file the tracee's
 * descriptor held when we looked (pidfd_getfd), with the bytes we read
 * once: nothing the tree changes meanwhile (the descriptor, the memory)
 * is what the kernel then uses.  Without the supervisor (the runtime
 * alone) nobody judges.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/user.h>
#include <termios.h>
#include <unistd.h>

#include "layout/procfs.h"
#include "supervise/supervise.h"

#include "supervise_int.h"

#define T_TIOCSPGRP	0x5410u
#define T_TIOCSCTTY	0x540eu
#define T_TIOCCONS	0x541du
#define T_TIOCSETD	0x5423u
#define CC_TERMIOS	17	/* c_cc of the kernel's struct termios(2) */
#define CC_TERMIO	9	/* c_cc of struct termio */

/* Who may make a change: the run's terminal, the tree's own. */
#define ON_RUN	0x1u
#define ON_TREE	0x2u
#define BY_VALUE 0xffu	/* size: the argument is the value itself */

/* The changes made here: the argument's size (the kernel's structs, not
 * libc's; 0: none), where its c_cc starts (the quit character kept). */
static const struct tty_change {
	uint32_t cmd;
	uint8_t size;
	uint8_t cc;
	uint8_t on;
} changes[] = {
	{ 0x5402, 36, CC_TERMIOS, ON_RUN | ON_TREE },	/* TCSETS */
	{ 0x5403, 36, CC_TERMIOS, ON_RUN | ON_TREE },	/* TCSETSW */
	{ 0x5404, 36, CC_TERMIOS, ON_RUN | ON_TREE },	/* TCSETSF */
	{ 0x5457, 36, CC_TERMIOS, ON_TREE },	/* TIOCSLCKTRMIOS: outlives */
	{ 0x402c542b, 44, CC_TERMIOS, ON_RUN | ON_TREE },	/* TCSETS2 */
	{ 0x402c542c, 44, CC_TERMIOS, ON_RUN | ON_TREE },	/* TCSETSW2 */
	{ 0x402c542d, 44, CC_TERMIOS, ON_RUN | ON_TREE },	/* TCSETSF2 */
	{ 0x5406, 18, CC_TERMIO, ON_RUN | ON_TREE },	/* TCSETA */
	{ 0x5407, 18, CC_TERMIO, ON_RUN | ON_TREE },	/* TCSETAW */
	{ 0x5408, 18, CC_TERMIO, ON_RUN | ON_TREE },	/* TCSETAF */
	{ T_TIOCSPGRP, 4, 0, ON_RUN },		/* judged by its group */
	{ T_TIOCSETD, 4, 0, ON_RUN | ON_TREE },	/* TIOCSETD: N_TTY */
	{ 0x5414, 8, 0, ON_RUN | ON_TREE },	/* TIOCSWINSZ */
	{ 0x5416, 4, 0, ON_RUN | ON_TREE },	/* TIOCMBIS */
	{ 0x5417, 4, 0, ON_RUN | ON_TREE },	/* TIOCMBIC */
	{ 0x5418, 4, 0, ON_RUN | ON_TREE },	/* TIOCMSET */
	{ 0x541a, 4, 0, ON_RUN | ON_TREE },	/* TIOCSSOFTCAR */
	{ 0x5420, 4, 0, ON_RUN | ON_TREE },	/* TIOCPKT (a master) */
	{ 0x40045431, 4, 0, ON_RUN | ON_TREE },	/* TIOCSPTLCK (a master) */
	{ 0x540a, BY_VALUE, 0, ON_RUN | ON_TREE },	/* TCXONC */
	{ 0x540b, BY_VALUE, 0, ON_RUN | ON_TREE },	/* TCFLSH */
	{ 0x40045436, BY_VALUE, 0, ON_TREE },	/* TIOCSIG (a master) */
	{ 0x540d, 0, 0, ON_RUN | ON_TREE },	/* TIOCNXCL */
	{ 0x5427, 0, 0, ON_RUN | ON_TREE },	/* TIOCSBRK */
	{ 0x5428, 0, 0, ON_RUN | ON_TREE },	/* TIOCCBRK */
	{ 0x540c, 0, 0, ON_TREE },		/* TIOCEXCL: outlives the run */
	{ 0x5437, 0, 0, ON_TREE },		/* TIOCVHANGUP */
	{ T_TIOCCONS, 0, 0, 0 },		/* the system's console output */
};

static const struct tty_change *
change_of(uint32_t cmd)
{
	for (size_t i = 0; i < sizeof(changes) / sizeof(*changes); i++)
		if (changes[i].cmd == cmd)
			return &changes[i];
	return NULL;
}

/* The controlling terminal of tid's process (0: none). */
static dev_t
ctty_of(pid_t tid)
{
	struct sp_proc_stat st;
	unsigned long long v;

	if (sp_proc_stat(tid, &st) == -1 || (v = st.tty_nr) == 0)
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
	struct stat st;

	s->tty_rdev = 0;
	if (fd != -1 && ioctl(fd, 0x5401 /* TCGETS */, buf) == 0) {
		s->tty_rdev = ctty_of(getpid());
		memcpy(s->tty_cc, buf + CC_TERMIOS, sizeof(s->tty_cc));
		s->tty_fg0 = tcgetpgrp(fd);
	}
	if (fd != -1)
		close(fd);
	if (s->tty_rdev != 0)
		return;
	/* No controlling terminal (a tool that ran us on a pty without
	 * making it ours): the terminal on our standard streams is the
	 * run's all the same, the one a tree would make its own
	 * (setsid, TIOCSCTTY) and leave locked or dumb (blind round 8). */
	for (fd = 0; fd < 3; fd++)
		if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
		    ioctl(fd, 0x5401 /* TCGETS */, buf) == 0) {
			s->tty_rdev = st.st_rdev;
			memcpy(s->tty_cc, buf + CC_TERMIOS, sizeof(s->tty_cc));
			s->tty_fg0 = -1;
			return;
		}
}

/* syspin's own process group: the job the tree starts in. */
void
sp_sup_pgrp_start(struct sup *s)
{
	s->pgrp0 = getpgrp();
}

/* Whether the master fd (ours: a copy) is that of the slave that lives
 * on the devpts instance inst (0: any instance).  Indexes repeat across
 * instances (blind round 16: another instance's pts/N counted as the
 * tree's, whose own pts/N was N too). */
static bool
master_of(int fd, dev_t inst)
{
	struct stat st;
	int peer;
	bool ok;

	if (inst == 0)
		return true;
	if ((peer = ioctl(fd, 0x5441 /* TIOCGPTPEER */,
	    O_PATH | O_NOCTTY | O_CLOEXEC)) == -1)
		return false;
	ok = fstat(peer, &st) == 0 && st.st_dev == inst;
	close(peer);
	return ok;
}

/* Whether a process of the tree holds the master of pseudo-terminal
 * index (its fdinfo says "tty-index") on devpts instance inst. */
static bool
tree_master(const struct sup *s, unsigned index, dev_t inst)
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
			if (found) {
				int m = sp_sup_their_fd(s->procs[i].pid,
				    atoi(e->d_name));

				found = m != -1 && master_of(m, inst);
				if (m != -1)
					close(m);
			}
		}
		closedir(d);
	}
	return found;
}

enum whose { OUTSIDE, RUN, TREE };

/* The terminal (inst: its devpts instance, 0 when unknown) rdev. */
static enum whose
whose(const struct sup *s, dev_t rdev, dev_t inst)
{
	if (s->tty_rdev != 0 && rdev == s->tty_rdev)
		return RUN;
	if (major(rdev) == 5 && minor(rdev) == 2)	/* a master: new */
		return TREE;
	/* Not "the controlling terminal of a process of the tree": a
	 * terminal no session has (another window's pty whose holder made
	 * no session of it, a virtual console no getty runs on) becomes
	 * one's by setsid and an open without O_NOCTTY, TIOCSCTTY asking
	 * no force (blind round 16). */
	if (major(rdev) >= 136 && major(rdev) <= 143 &&
	    tree_master(s, (major(rdev) - 136) * 256 + minor(rdev), inst))
		return TREE;
	return OUTSIDE;
}

/*
 * Whether process group pgrp has members, every one a process of the
 * tree or syspin itself (a zombie is no one's: it takes no key nor
 * signal), and the process whose pid names it, if it is alive, is one
 * of them too: a group with no members yet is only a pid, and the
 * process outside that has it may make the group later (setpgid(0, 0)),
 * the terminal's foreground then (blind round 8).  Every process of the
 * system is looked at: only job control asks.
 */
static bool
pgrp_ours(struct sup *s, pid_t pgrp)
{
	struct sp_proc_stat ps;
	struct dirent *e;
	bool ours = true, leader = false, exists = false;
	size_t members = 0;
	pid_t pid;
	char *end;
	DIR *d;

	if (pgrp <= 0 || (d = opendir("/proc")) == NULL)
		return false;
	while (ours && (e = readdir(d)) != NULL) {
		pid = (pid_t)strtol(e->d_name, &end, 10);
		if (pid <= 0 || *end != '\0' || sp_proc_stat(pid, &ps) == -1)
			continue;
		if (pid == pgrp) {	/* whatever its group now */
			exists = true;
			leader = pid == getpid() || sp_sup_in_tree(s, pid);
		}
		if (ps.pgrp != pgrp || ps.state == 'Z' || pid == getpid())
			continue;
		members++;
		ours = sp_sup_in_tree(s, pid);
	}
	closedir(d);
	/* a leader gone: its pid stays the group's while the group lives */
	return ours && members > 0 && (leader || !exists);
}

/*
 * The run's terminal keeps its special characters, each as syspin found
 * it, or turned off (0): the line discipline acts on them for whatever
 * reads the terminal, outside the tree too once the tree is gone (a
 * letter made the interrupt, end-of-file, erase-word or stop character
 * signals, ends or rewrites what the user types next).  VTIME and VMIN
 * are no characters.
 */
static void
keep_special(const struct sup *s, unsigned char *cc, size_t n)
{
	for (size_t i = 0; i < n && i < sizeof(s->tty_cc); i++)
		if (i != 5 && i != 6 && cc[i] != 0)	/* VTIME, VMIN */
			cc[i] = s->tty_cc[i];
}

/*
 * The changes the kernel allows only with a capability: locking a
 * terminal's settings (CAP_SYS_ADMIN), hanging it up
 * (CAP_SYS_TTY_CONFIG), a line discipline other than N_TTY (modules,
 * CAP_NET_ADMIN for the network ones).
 */
/* The int an ioctl's argument points to (TIOCSPGRP, TIOCSETD), as read. */
static int
int_arg(const unsigned char *arg)
{
	int v;

	memcpy(&v, arg, sizeof(v));
	return v;
}

static bool
needs_caps(uint32_t cmd, const unsigned char *arg)
{
	if (cmd == T_TIOCSETD)
		return int_arg(arg) != 0;	/* not N_TTY */
	return cmd == 0x5457 || cmd == 0x5437;	/* TIOCSLCKTRMIOS, VHANGUP */
}

/* Whether tid's effective capabilities are all of syspin's: then what
 * syspin does for it, it could do itself. */
static bool
as_able(pid_t tid)
{
	unsigned long long theirs, ours;

	if (sp_proc_status(tid, "CapEff", 16, &theirs) == -1 ||
	    sp_proc_status(getpid(), "CapEff", 16, &ours) == -1)
		return false;
	return (ours & ~theirs) == 0;
}

/* Resumes tid's TIOCSCTTY without its force flag (arg 0). */
static int
no_steal(pid_t tid)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) == -1)
		return -1;
	if (r.rdx == 0)
		return 0;
	r.rdx = 0;
	return ptrace(PTRACE_SETREGS, tid, 0, &r) == -1 ? -1 : 0;
}

/*
 * The terminal a descriptor is bound to.  /dev/tty (5, 0) and
 * /dev/console (5, 1) name the caller's terminal, or the console, when
 * opened, and stay bound to it: a process that opened /dev/tty, then
 * made a session and a pty of its own, still reaches the run's terminal
 * through it (blind round 17: its special characters, lock and line
 * discipline changed as the tree's own pty's).  TIOCGDEV says which.
 */
static dev_t
real_rdev(int fd, const struct stat *st, pid_t tid)
{
	unsigned int d;

	if (ioctl(fd, 0x80045432 /* TIOCGDEV */, &d) == 0)
		return makedev((d & 0xfff00) >> 8,
		    (d & 0xff) | ((d >> 12) & 0xfff00));
	return st->st_rdev == makedev(5, 0) ? ctty_of(tid) : st->st_rdev;
}

/*
 * 0: resume the call (it runs as asked: TIOCSPGRP of a process whose
 * terminal is not the run's, which the kernel keeps to its own session;
 * an ioctl of type 'T' that is no terminal's on a file that is no
 * terminal, a tun device's); else made here, or *refused (the caller
 * says so and fails it).
 */
int
sp_sup_tty(struct sup *s, pid_t tid, const struct seccomp_data *d,
    bool *refused)
{
	uint32_t cmd = (uint32_t)d->args[1];
	const struct tty_change *c = change_of(cmd);
	unsigned char arg[64], probe[64];
	sigset_t ttou, old;
	struct stat st;
	enum whose w;
	int f, r, e = 0;

	*refused = false;
	if (cmd == T_TIOCSCTTY)		/* the kernel's session rules */
		return no_steal(tid);
	/* TIOCSPGRP acts on the caller's own terminal only: the run's
	 * is judged, a terminal of the tree's sessions is the tree's */
	if (cmd == T_TIOCSPGRP && (s->tty_rdev == 0 ||
	    ctty_of(tid) != s->tty_rdev))
		return 0;
	if ((f = sp_sup_their_fd(tid, (int)d->args[0])) == -1)
		return sp_sup_fail_call(tid, EBADF);
	/* a terminal answers TCGETS; a master too */
	if (fstat(f, &st) == -1 || !S_ISCHR(st.st_mode) ||
	    ioctl(f, 0x5401 /* TCGETS */, probe) == -1) {
		close(f);
		/* what is no terminal's: as asked, on what is no terminal */
		return c == NULL ? 0 : sp_sup_fail_call(tid, ENOTTY);
	}
	w = whose(s, real_rdev(f, &st, tid), S_ISCHR(st.st_mode) &&
	    major(st.st_rdev) >= 136 && major(st.st_rdev) <= 143 ?
	    st.st_dev : 0);
	if (c == NULL) {	/* no terminal's change we know: the tree's */
		close(f);
		if (w == TREE)
			return 0;
		*refused = true;
		return 0;
	}
	if (cmd == T_TIOCSPGRP && w != RUN) {	/* not its terminal */
		close(f);
		return sp_sup_fail_call(tid, ENOTTY);
	}
	if (!(c->on & (w == RUN ? ON_RUN : w == TREE ? ON_TREE : 0))) {
		close(f);
		*refused = true;
		return 0;
	}
	/* the bytes read once: what the call is made with */
	if (c->size != 0 && c->size != BY_VALUE &&
	    sp_mem_read(tid, d->args[2], arg, c->size, NULL) == -1) {
		close(f);
		return sp_sup_fail_call(tid, EFAULT);
	}
	/* made here with syspin's privileges: what the kernel grants only
	 * to a capability, only for a caller that has it (blind round 8) */
	if (needs_caps(cmd, arg) && !as_able(tid)) {
		close(f);
		return sp_sup_fail_call(tid, EPERM);
	}
	if (cmd == T_TIOCSPGRP && int_arg(arg) != s->tty_fg0 &&
	    !pgrp_ours(s, int_arg(arg))) {
		close(f);
		*refused = true;
		return 0;
	}
	/* the run's special characters stay (disabled is fine) */
	if (w == RUN && c->cc != 0)
		keep_special(s, arg + c->cc, c->cc == CC_TERMIO ? 8 : 17);
	/* the run's line discipline stays the terminal's (N_TTY) */
	if (w == RUN && cmd == T_TIOCSETD && int_arg(arg) != 0) {
		close(f);
		*refused = true;
		return 0;
	}
	/* from a background process group: no SIGTTOU for us */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	if (c->size == BY_VALUE)
		r = ioctl(f, cmd, (unsigned long)d->args[2]);
	else if (c->size == 0)
		r = ioctl(f, cmd, 0);
	else
		r = ioctl(f, cmd, arg);
	if (r == -1)
		e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(f);
	return sp_sup_fail_call(tid, e);
}

/*
 * setpgid(pid, pgid) of a process of the tree, pgid not 0: a group of
 * its own, the job's (syspin's), or one whose every member is the tree's
 * resumes; joining any other (a job outside, the user's shell) is
 * *refused.  0, or -1 (tid is gone).
 */
int
sp_sup_setpgid(struct sup *s, pid_t tid, const struct seccomp_data *d,
    bool *refused)
{
	pid_t pid = (pid_t)d->args[0], pgid = (pid_t)d->args[1];

	*refused = false;
	if (pid == 0)
		pid = sp_sup_tgid(tid);
	if (pgid == 0 || pgid == pid || pgid == s->pgrp0 || pgid < 0)
		return 0;	/* a negative one: EINVAL, the kernel's */
	*refused = !pgrp_ours(s, pgid);
	return 0;
}
