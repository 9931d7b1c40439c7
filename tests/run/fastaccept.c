/* SPDX-License-Identifier: ISC */
/*
 * A listener of the tree whose acceptor closes each connection at once
 * (blind round 25, mech): the connect the supervisor judges finds the
 * connection accepted and closed already, no listener queue holding it
 * and no process holding its other end; it was refused as "outside the
 * tree" 195 times in 200.  A connection that is dead and empty carries
 * nothing: 200 connects, every one must succeed.
 *
 * usage: fastaccept     exit 0 when all 200 connected.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(void)
{
	struct sockaddr_un u = { .sun_family = AF_UNIX };
	int ls, ok = 0;
	pid_t acc;

	snprintf(u.sun_path, sizeof(u.sun_path), "/tmp/syspin-fastaccept-%d",
	    (int)getpid());
	unlink(u.sun_path);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(ls, (struct sockaddr *)&u, sizeof(u)) == -1 ||
	    listen(ls, 64) == -1)
		return 2;
	if ((acc = fork()) == 0)
		for (;;) {
			int c = accept(ls, NULL, NULL);
			if (c >= 0)
				close(c);
		}
	for (int i = 0; i < 200; i++) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		ok += connect(s, (struct sockaddr *)&u, sizeof(u)) == 0;
		close(s);
	}
	kill(acc, SIGKILL);
	waitpid(acc, NULL, 0);
	unlink(u.sun_path);
	printf("%s %d of 200 connects to the tree's own listener\n",
	    ok == 200 ? "ok  " : "FAIL", ok);
	return ok == 200 ? 0 : 1;
}
