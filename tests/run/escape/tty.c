/* SPDX-License-Identifier: ISC */
/*
 * The escape battery's terminal attacks (blind round 7), beyond
 * escape.c's: `escape_tty MODE MARK [ARG]`.  A terminal that is not the
 * tree's, changed in a way that outlives or reaches past the tree; the
 * effect is checked here (MARK made) or by a victim outside (battery.sh).
 * - join PGRP: our process joins the process group of a job outside, so
 *   that it counts as "a group of the tree", then our terminal's
 *   foreground is given to it: the victim reads what the user types.
 * - steal TTY: another login's terminal made our controlling terminal by
 *   force (TIOCSCTTY 1, root): its shell loses it.
 * - hangup TTY: another login's terminal hung up (TIOCVHANGUP, root).
 * - cons TTY: the system's console output sent to another login's
 *   terminal (TIOCCONS, root; put back).
 * - excl TTY: another login's terminal locked (TIOCEXCL): its programs
 *   can no longer open /dev/tty (put back).
 * - excl-own: the run's terminal locked, which outlives the run.
 * - winsz TTY: another login's terminal resized (SIGWINCH to its
 *   foreground; put back).
 * - intr-own: the run's terminal's interrupt character made 'q', and
 *   syspin run killed (no one to put it back): the user's next 'q'
 *   interrupts a program outside.
 * - setd-own: the run's terminal given the null line discipline (N_NULL:
 *   what the user types goes nowhere, after the run too).
 * - noctty-own: `syspin run` started on a pty that is no one's
 *   controlling terminal (a tool's: an IDE, a CI runner): we make it ours
 *   (setsid, TIOCSCTTY) and lock it, which outlives the run.
 * - vhangup: the run's terminal hung up by the system call (root): the
 *   user's shell, its session leader, gets SIGHUP.
 * - fg-pid PID: our terminal's foreground given to the pid of a process
 *   outside that leads no group yet (an "empty" group); the victim,
 *   `pgleader`, then makes its group (setpgid(0, 0)) and reads what the
 *   user types.
 * - other TTY: all of steal, hangup, cons, excl and winsz, the first that
 *   takes making MARK; own: excl-own, setd-own and vhangup the same way
 *   (the battery's runs, one a mode each).
 * Exit: 0 done, 3 a step refused (the reason on stdout), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static const char *mark;

static int
refused(const char *what)
{
	printf("refused: %s: %s\n", what, strerror(errno));
	return 3;
}

static int
done(void)
{
	return mkdir(mark, 0755) == -1 ? refused("mkdir MARK") : 0;
}

static int
open_tty(const char *path)
{
	return open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
}

static int
join(const char *pgrp)
{
	pid_t g = (pid_t)atoi(pgrp);

	signal(SIGTTOU, SIG_IGN);
	if (setpgid(0, g) == -1)
		return refused("setpgid into a group outside");
	if (tcsetpgrp(0, g) == -1)
		return refused("tcsetpgrp to it");
	sleep(3);
	return 0;
}

static int
steal(const char *path)
{
	int fd;

	if (setsid() == -1 && getsid(0) != getpid())
		return refused("setsid");
	if ((fd = open_tty(path)) == -1)
		return refused("open the terminal");
	if (ioctl(fd, TIOCSCTTY, 1) == -1)
		return refused("TIOCSCTTY 1");
	if (tcgetsid(fd) != getsid(0))
		return refused("TIOCSCTTY (not ours after all)");
	return done();
}

static int
simple(const char *path, unsigned long cmd, const char *what)
{
	int fd = path != NULL ? open_tty(path) : 0, on = 0;
	struct winsize ws, ws2;

	if (fd == -1)
		return refused("open the terminal");
	if (cmd == TIOCSWINSZ) {
		if (ioctl(fd, TIOCGWINSZ, &ws) == -1)
			return refused("TIOCGWINSZ");
		ws2 = ws;
		ws2.ws_col = ws.ws_col == 77 ? 78 : 77;
		if (ioctl(fd, TIOCSWINSZ, &ws2) == -1)
			return refused(what);
		ioctl(fd, TIOCSWINSZ, &ws);
		return done();
	}
	if (ioctl(fd, cmd) == -1)
		return refused(what);
	if (cmd == TIOCEXCL) {
		if (ioctl(fd, TIOCGEXCL, &on) == -1 || !on)
			return refused("TIOCEXCL (not locked after all)");
		ioctl(fd, TIOCNXCL);
	}
	if (cmd == TIOCCONS) {	/* put the console back */
		int c = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (c != -1)
			ioctl(c, TIOCCONS);
	}
	return done();
}

static int
intr_own(void)
{
	struct termios t;

	signal(SIGTTOU, SIG_IGN);
	if (tcgetattr(0, &t) == -1)
		return refused("tcgetattr");
	t.c_cc[VINTR] = 'q';
	t.c_lflag |= ISIG;
	if (tcsetattr(0, TCSANOW, &t) == -1)
		return refused("tcsetattr");
	if (tcgetattr(0, &t) == -1 || t.c_cc[VINTR] != 'q')
		return refused("tcsetattr (the interrupt character stayed)");
	if (getenv("ESC_KEEP_PARENT") == NULL)
		kill(getppid(), SIGKILL);	/* syspin run, when pinned */
	return 0;
}

static int
fg_pid(const char *pid)
{
	signal(SIGTTOU, SIG_IGN);
	if (tcsetpgrp(0, (pid_t)atoi(pid)) == -1)
		return refused("tcsetpgrp to a pid outside");
	sleep(4);
	return 0;
}

/* The victim (outside): a job's member that later leads a group. */
static int
pgleader(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char c;

	signal(SIGTTIN, SIG_IGN);
	if (fd == -1)
		return refused("open /dev/tty");
	sleep(1);
	if (setpgid(0, 0) == -1)
		return refused("setpgid");
	for (int i = 0; i < 40; i++) {	/* the pipe is its stdin */
		if (read(fd, &c, 1) == 1)
			return done();
		usleep(200000);
	}
	return 3;
}

static int
setd_own(void)
{
	int ld = 27, now = -1;	/* N_NULL */

	signal(SIGTTOU, SIG_IGN);
	if (ioctl(0, TIOCSETD, &ld) == -1)
		return refused("TIOCSETD N_NULL");
	if (ioctl(0, TIOCGETD, &now) == -1 || now != ld)
		return refused("TIOCSETD (not set after all)");
	ld = 0;
	ioctl(0, TIOCSETD, &ld);	/* the battery's shell goes on */
	return done();
}

/* Every change a tree might make to another login's terminal, the first
 * that takes making MARK (the hang-up last: it ends that login). */
static int
other(const char *path)
{
	int st;
	pid_t c;

	if (simple(path, TIOCEXCL, "TIOCEXCL") == 0 ||
	    simple(path, TIOCSWINSZ, "TIOCSWINSZ") == 0)
		return 0;
	if ((c = fork()) == 0)		/* a session of its own */
		_exit(steal(path));
	if (c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0)
		return 0;
	if (simple(path, TIOCCONS, "TIOCCONS") == 0)
		return 0;
	return simple(path, TIOCVHANGUP, "TIOCVHANGUP");
}

/* The terminal fd's interrupt character made 'x' (then put back):
 * MARK when that took. */
static int
intr_x(int fd)
{
	struct termios t, was;

	if (tcgetattr(fd, &was) == -1)
		return refused("tcgetattr");
	t = was;
	t.c_cc[VINTR] = 'x';
	if (tcsetattr(fd, TCSANOW, &t) == -1)
		return refused("tcsetattr");
	if (tcgetattr(fd, &t) == -1 || t.c_cc[VINTR] != 'x')
		return refused("tcsetattr (not set after all)");
	tcsetattr(fd, TCSANOW, &was);
	return done();
}

/* fn(arg) in a child of ours that makes a session of its own. */
static int
in_session(int (*fn)(const char *), const char *arg)
{
	int st;
	pid_t c = fork();

	if (c == 0)
		_exit(fn(arg));
	return c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) ?
	    WEXITSTATUS(st) : 3;
}

/*
 * Blind round 16: a terminal no session has (another window's pty whose
 * holder made no session of it) taken as our controlling terminal, by a
 * session of our own and an open without O_NOCTTY, then changed: its
 * interrupt character made 'x' (put back after).  A terminal was the
 * tree's for being one's controlling terminal.
 */
static int
ctty_other(const char *path)
{
	int fd;

	if (setsid() == -1 && getsid(0) != getpid())
		return refused("setsid");
	if ((fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)) == -1)
		return refused("open the terminal");
	if (tcgetsid(fd) != getsid(0))
		return refused("open (the terminal is not ours)");
	return intr_x(fd);
}

/*
 * Blind round 17: /dev/tty opened while the run's terminal is ours, then
 * a session and a pty of our own made our controlling terminal: the old
 * descriptor still reaches the run's terminal, which was judged as our
 * controlling terminal now (the pty: ours).  Its interrupt character
 * made 'x' through it (put back after).
 */
static int
devtty_own(const char *unused)
{
	int old, m, sl;
	char *name;

	(void)unused;
	if ((old = open("/dev/tty", O_RDWR | O_CLOEXEC)) == -1)
		return refused("open /dev/tty");
	if (setsid() == -1)
		return refused("setsid");
	if ((m = posix_openpt(O_RDWR | O_NOCTTY)) == -1 || grantpt(m) == -1 ||
	    unlockpt(m) == -1 || (name = ptsname(m)) == NULL ||
	    (sl = open(name, O_RDWR)) == -1)	/* our terminal now */
		return refused("a pty of our own");
	(void)sl;
	return intr_x(old);
}

/* The same on the run's own terminal: locked, the null line discipline,
 * hung up (last). */
static int
own(void)
{
	if (simple(NULL, TIOCEXCL, "TIOCEXCL of ours") == 0 || setd_own() == 0)
		return 0;
	signal(SIGHUP, SIG_IGN);	/* we are in its foreground */
	return vhangup() == -1 ? refused("vhangup") : done();
}

int
main(int argc, char **argv)
{
	const char *m, *arg;

	if (argc < 3)
		return 2;
	m = argv[1];
	mark = argv[2];
	arg = argc > 3 ? argv[3] : NULL;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(m, "join") == 0 && arg) return join(arg);
	if (strcmp(m, "steal") == 0 && arg) return steal(arg);
	if (strcmp(m, "hangup") == 0 && arg)
		return simple(arg, TIOCVHANGUP, "TIOCVHANGUP");
	if (strcmp(m, "cons") == 0 && arg)
		return simple(arg, TIOCCONS, "TIOCCONS");
	if (strcmp(m, "excl") == 0 && arg)
		return simple(arg, TIOCEXCL, "TIOCEXCL");
	if (strcmp(m, "excl-own") == 0)
		return simple(NULL, TIOCEXCL, "TIOCEXCL of ours");
	if (strcmp(m, "intr-own") == 0) return intr_own();
	if (strcmp(m, "other") == 0 && arg) return other(arg);
	if (strcmp(m, "devtty-own") == 0)
		return in_session(devtty_own, NULL);
	if (strcmp(m, "ctty-other") == 0 && arg)
		return in_session(ctty_other, arg);
	if (strcmp(m, "own") == 0) return own();
	if (strcmp(m, "vhangup") == 0) {	/* we are in its foreground */
		signal(SIGHUP, SIG_IGN);
		return vhangup() == -1 ? refused("vhangup") : done();
	}
	if (strcmp(m, "fg-pid") == 0 && arg) return fg_pid(arg);
	if (strcmp(m, "noctty-own") == 0) {
		if (setsid() == -1)
			return refused("setsid");
		if (ioctl(0, TIOCSCTTY, 0) == -1)
			return refused("TIOCSCTTY");
		return simple(NULL, TIOCEXCL, "TIOCEXCL of the run's");
	}
	if (strcmp(m, "pgleader") == 0) return pgleader();
	if (strcmp(m, "setd-own") == 0) return setd_own();
	if (strcmp(m, "winsz") == 0 && arg)
		return simple(arg, TIOCSWINSZ, "TIOCSWINSZ");
	fprintf(stderr, "escape_tty: unknown mode %s\n", m);
	return 2;
}
