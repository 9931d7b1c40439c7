/* SPDX-License-Identifier: ISC */
/*
 * Blind round 25b: a connect is judged on the descriptor of the thread
 * that makes it, in its own table.  Judged on its process's table it ran
 * unjudged (outside the tree) when the leader had exited alone (a zombie
 * has no table) or the thread had a table of its own (unshare(CLONE_FILES),
 * the leader's descriptor of that number /dev/null).
 *
 * usage: threadfd z|u PATH    a second thread connects to the unix
 * listener at PATH, after the leader's exit (z) or in a table of its own
 * (u); prints "connect=R errno=E" and ends the process with 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static char mode;
static const char *path;

static void *
second(void *arg)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s, r;

	(void)arg;
	usleep(100000);
	if (mode == 'u' && (unshare(CLONE_FILES) == -1 || close(3) == -1))
		_exit(2);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	strncpy(a.sun_path, path, sizeof(a.sun_path) - 1);
	r = connect(s, (struct sockaddr *)&a, sizeof(a));
	printf("connect=%d errno=%d\n", r, r == 0 ? 0 : errno);
	if (r == 0)
		(void)write(s, "threadfd\n", 9);
	fflush(stdout);
	_exit(0);
}

int
main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 3)
		return 2;
	mode = argv[1][0];
	path = argv[2];
	if (mode == 'u' && open("/dev/null", O_RDONLY) != 3)
		return 2;
	pthread_create(&t, NULL, second, NULL);
	if (mode == 'z')
		syscall(SYS_exit, 0);	/* this thread alone */
	pthread_join(t, NULL);
	return 0;
}
