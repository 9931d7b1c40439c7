/* SPDX-License-Identifier: ISC */
/*
 * Blind round 25: under the runtime alone (SYSPIN_SUPERVISE=0,
 * --exec=any), an image exec'd with an environment that drops the runtime
 * has no filter of its own (documented: it runs unpinned).  It must still
 * not do what reaches outside the tree: type into or re-discipline a
 * terminal, make a unix stream socket (to connect to a listener outside),
 * set a core-dumping signal for a descriptor's owner.  syspin run's
 * first filter holds those rules for every code of the tree.
 *
 * usage: rtless     execs itself without LD_PRELOAD; exit 0 when each
 * was refused there, 1 when one worked (as it does unpinned).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

static int worked;

static void
check(const char *what, int r)
{
	printf("%s %s: %d\n", r >= 0 ? "FAIL" : "ok  ", what, r);
	worked |= r >= 0;
}

int
main(int argc, char **argv)
{
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	int pty, ld = N_TTY, s;

	if (argc < 2) {		/* the first image: the runtime dropped */
		execve("/proc/self/exe", (char *[]){ argv[0], "child", NULL },
		    env);
		perror("execve");
		return 2;
	}
	if (getenv("LD_PRELOAD") != NULL)
		return 2;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	check("a unix stream socket", s);
	check("a unix seqpacket socket", socket(AF_UNIX, SOCK_SEQPACKET |
	    SOCK_CLOEXEC, 0));
	check("F_SETSIG SIGQUIT", fcntl(1, F_SETSIG, SIGQUIT));
	if ((pty = posix_openpt(O_RDWR | O_NOCTTY)) >= 0)
		check("TIOCSETD on a terminal", ioctl(pty, TIOCSETD, &ld));
	return worked;
}
