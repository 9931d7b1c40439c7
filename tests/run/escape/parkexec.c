/* SPDX-License-Identifier: ISC */
/*
 * escape_parkexec MARK [TRIES] (attack park-exec, blind round 23b): in a
 * child per try, the leader blocks in connect() to a full listener of
 * its own (the supervisor parks it and retries it later) while another
 * thread execs this program; the new image takes the leader's pid.  A
 * retry sent to that pid let the image run past its pinning stop.  The
 * new image ("probe") looks for the late-code band's guard page, which
 * every pinned image has: without it, it makes MARK.  Stopped: no try's
 * image runs unpinned (exit 0 with no MARK).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static char self[4096], *mark;

static int
band_guard(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL)
		found = strncmp(line, "10fffffff000-", 13) == 0;
	if (f != NULL)
		fclose(f);
	return found;
}

static void *
exec_soon(void *a)
{
	char *argv[] = { self, mark, "probe", NULL };

	usleep((useconds_t)(uintptr_t)a);
	execv(self, argv);
	_exit(5);
}

static void
one_try(useconds_t delay)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int l, c;
	pthread_t t;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.sock", mark);
	unlink(sa.sun_path);
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(l, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(l, 0) == -1)
		_exit(2);
	/* the queue full: the next connect blocks */
	for (int i = 0; i < 2; i++) {
		c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		(void)connect(c, (struct sockaddr *)&sa, sizeof(sa));
	}
	pthread_create(&t, NULL, exec_soon, (void *)(uintptr_t)delay);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	(void)connect(c, (struct sockaddr *)&sa, sizeof(sa));
	_exit(6);
}

int
main(int argc, char **argv)
{
	int tries = argc > 2 ? atoi(argv[2]) : 60, st;
	ssize_t n;

	if (argc < 2)
		return 2;
	mark = argv[1];
	if (argc > 2 && strcmp(argv[2], "probe") == 0)
		return band_guard() ? 0 : (mkdir(mark, 0755) == 0 ? 0 : 1);
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return 2;
	self[n] = '\0';
	for (int i = 0; i < tries; i++) {
		pid_t p = fork();
		if (p == 0)
			one_try((useconds_t)(1000 + (i % 5) * 1000));
		waitpid(p, &st, 0);
		struct stat s;
		if (stat(mark, &s) == 0) {
			printf("an image ran unpinned at try %d\n", i + 1);
			return 0;
		}
	}
	printf("every image pinned (%d tries)\n", tries);
	return 3;
}
