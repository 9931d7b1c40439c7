/* SPDX-License-Identifier: ISC */
/*
 * Programs that race the supervisor's bookkeeping of the tree; each must
 * end pinned as it ends unpinned (races.sh).
 *
 * races forkexec ROUNDS THREADS: a child runs THREADS threads that fork
 * in a loop while its main thread execs /bin/true: the exec kills them,
 * some between making a child and reporting it (blind round 6: those
 * children stayed stopped, and the tree waited for ever).
 *
 * races leader-exit ROUNDS: the main thread ends alone (SYS_exit) while
 * another thread maps code (dlopen: a stop that stops the process's
 * other threads, the leader a zombie among them) and runs children (a
 * go build hung so: a leader's end is reported only once its threads
 * have been reaped).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *
forker(void *arg)
{
	(void)arg;
	for (;;) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid(p, NULL, 0);
	}
	return NULL;
}

static int
forkexec(int rounds, int threads)
{
	for (int i = 0; i < rounds; i++) {
		pid_t c = fork();
		if (c == 0) {
			pthread_t t;
			for (int k = 0; k < threads; k++)
				pthread_create(&t, NULL, forker, NULL);
			usleep(500 + (unsigned)(i * 397 % 2500));
			execl("/bin/true", "true", (char *)NULL);
			_exit(99);
		}
		int st;
		if (c == -1 || waitpid(c, &st, 0) != c || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			return 1;
	}
	printf("forkexec: %d rounds\n", rounds);
	return 0;
}

static void *
survivor(void *arg)
{
	int rounds = *(int *)arg;

	for (int i = 0; i < rounds; i++) {
		void *h = dlopen(i % 2 ? "libm.so.6" : "libz.so.1", RTLD_NOW);
		pid_t c = fork();
		if (c == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(99);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
		if (h != NULL)
			dlclose(h);
	}
	printf("leader-exit: %d rounds\n", rounds);
	fflush(stdout);
	exit(0);
}

static int
leader_exit(int rounds)
{
	static int n;
	pthread_t t;

	n = rounds;
	if (pthread_create(&t, NULL, survivor, &n) != 0)
		return 1;
	syscall(SYS_exit, 0);	/* this thread only */
	return 1;
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "forkexec") == 0)
		return forkexec(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 3 && strcmp(argv[1], "leader-exit") == 0)
		return leader_exit(atoi(argv[2]));
	fprintf(stderr, "usage: races forkexec ROUNDS THREADS | "
	    "leader-exit ROUNDS\n");
	return 2;
}
