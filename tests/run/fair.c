/* SPDX-License-Identifier: ISC */
/*
 * Blind round 25 (mech): every stopped thread of the tree is answered in
 * turn.  waitpid(-1) reports tracees in the kernel's order (the newest
 * first); three threads that stop again at once, each call of theirs a
 * judged signal (kill of a core-dumping one to a process of the tree),
 * kept another thread's exec, and a fork of another process, waiting for
 * seconds (45 s seen).  Here a process's fourth thread execs /bin/true
 * beside three such threads, 8 times; each must be done well within a
 * second (unpinned: some milliseconds).
 *
 * usage: fair     exit 0 when the longest took less than 1 s.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t helper;

static void *
spam(void *arg)
{
	(void)arg;
	for (;;)
		kill(helper, SIGQUIT);
	return NULL;
}

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *
execer(void *arg)
{
	(void)arg;
	usleep((useconds_t)(rand() % 20000));
	execl("/bin/true", "true", (char *)NULL);
	_exit(99);
}

int
main(void)
{
	double worst = 0, t;
	pthread_t th;
	pid_t c;

	if ((helper = fork()) == 0) {
		signal(SIGQUIT, SIG_IGN);
		for (;;)
			pause();
	}
	usleep(100000);		/* its SIGQUIT ignored by then */
	srand((unsigned)getpid());
	for (int i = 0; i < 8; i++) {
		t = now();
		if ((c = fork()) == 0) {
			for (int k = 0; k < 3; k++)
				pthread_create(&th, NULL, spam, NULL);
			pthread_create(&th, NULL, execer, NULL);
			for (;;)
				pause();
		}
		waitpid(c, NULL, 0);
		if (now() - t > worst)
			worst = now() - t;
	}
	kill(helper, SIGKILL);
	printf("%s longest exec beside three threads' judged signals: %.3f s\n",
	    worst < 1 ? "ok  " : "FAIL", worst);
	return worst < 1 ? 0 : 1;
}
