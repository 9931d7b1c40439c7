/* SPDX-License-Identifier: ISC */
/*
 * Blind round 25 (outer): a listener shared with a process outside (a
 * prefork server's master) stays the outside one's when a process of
 * the tree calls listen() on it again: under syspin run -p the attached
 * worker's connects to it were taken for connects to the tree's own
 * listener, and the master outside accepted them and read their bytes.
 *
 * usage: relisten PATH    the parent (outside) listens at PATH and forks
 * the child (to be attached; its pid on the first line), which after a
 * SIGUSR1 listens again and connects 5 times, writing a line each time.
 * The parent prints "read N" for the lines it got in 8 s, and ends.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void
on_go(int sig)
{
	(void)sig;
	go = 1;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int l, got = 0;
	pid_t ch;

	if (argc != 2)
		return 2;
	strncpy(a.sun_path, argv[1], sizeof(a.sun_path) - 1);
	unlink(a.sun_path);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) == -1 ||
	    listen(l, 16) == -1)
		return 2;
	signal(SIGUSR1, on_go);
	if ((ch = fork()) == 0) {
		while (!go)
			pause();
		for (int i = 0; i < 5; i++) {
			int s = socket(AF_UNIX, SOCK_STREAM, 0);
			listen(l, 32 + i);
			if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0)
				(void)write(s, "line", 4);
			close(s);
			usleep(100000);
		}
		return 0;
	}
	printf("%d\n", (int)ch);
	fflush(stdout);
	for (int t = 0; t < 80; t++) {
		struct pollfd p = { l, POLLIN, 0 };
		char b[8];
		int s;
		if (poll(&p, 1, 100) <= 0 || (s = accept(l, NULL, NULL)) < 0)
			continue;
		usleep(20000);
		got += read(s, b, sizeof(b)) == 4;
		close(s);
	}
	kill(ch, SIGKILL);
	waitpid(ch, NULL, 0);
	printf("read %d\n", got);
	return 0;
}
