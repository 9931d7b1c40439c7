/* SPDX-License-Identifier: ISC */
/*
 * escape_pty [-n] [-w MS] [-t SECS] [-l LINE]... -- CMD [ARG...]
 * Runs CMD as a session leader on a new pseudo-terminal (its controlling
 * terminal, stdin/stdout/stderr; with -n not its controlling terminal:
 * what a tool that runs a command on a pty without making it one's does), then types each LINE into it, waiting MS
 * milliseconds (default 1500; a -w applies to the lines after it) before
 * each one, and copies everything CMD
 * writes to our stdout.  Used for the TIOCSTI attack (an interactive shell
 * outside the pinned tree runs `syspin run ... escape tiocsti MARK`) and
 * the job-control control.  Exits with CMD's status, 124 after SECS
 * seconds (default 30; CMD's process group is then killed).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Copies CMD's output until `until` (ms) or the terminal closes. */
static int
drain(int m, long until)
{
	char buf[4096];
	struct pollfd p = { m, POLLIN, 0 };
	long left;
	ssize_t n;

	while ((left = until - now_ms()) > 0) {
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		if ((n = read(m, buf, sizeof(buf))) <= 0)
			return -1;	/* EIO: every slave fd is closed */
		(void)!write(1, buf, n);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *lines[64];
	int waits[64];
	int nlines = 0, wait_ms = 1500, secs = 30, m, c, st, noctty = 0;
	long deadline;
	pid_t pid;

	while ((c = getopt(argc, argv, "+nw:t:l:")) != -1) {
		if (c == 'n')
			noctty = 1;
		else if (c == 'w')
			wait_ms = atoi(optarg);
		else if (c == 't')
			secs = atoi(optarg);
		else if (c == 'l' && nlines < 64) {
			waits[nlines] = wait_ms;
			lines[nlines++] = optarg;
		}
		else
			return 2;
	}
	if (optind >= argc)
		return 2;
	if ((m = posix_openpt(O_RDWR | O_NOCTTY)) == -1 || grantpt(m) == -1 ||
	    unlockpt(m) == -1) {
		perror("escape_pty: posix_openpt");
		return 1;
	}
	if ((pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		int s;

		setsid();
		if ((s = open(ptsname(m), O_RDWR | (noctty ? O_NOCTTY : 0))) ==
		    -1 || (!noctty && ioctl(s, TIOCSCTTY, 0) == -1)) {
			perror("escape_pty: slave");
			_exit(1);
		}
		close(m);
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		if (s > 2)
			close(s);
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	deadline = now_ms() + secs * 1000L;
	for (int i = 0; i < nlines; i++) {
		if (drain(m, now_ms() + waits[i]) == -1)
			break;
		(void)!write(m, lines[i], strlen(lines[i]));
		(void)!write(m, "\n", 1);
	}
	for (;;) {
		int closed = drain(m, now_ms() + 100) == -1;

		if (waitpid(pid, &st, WNOHANG) == pid)
			goto done;
		if (now_ms() >= deadline)
			break;
		if (closed)
			usleep(10000);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	fprintf(stderr, "escape_pty: timeout\n");
	return 124;
done:
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
