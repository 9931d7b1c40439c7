/* SPDX-License-Identifier: ISC */
/*
 * glibc's setxid broadcast: in a process with threads, setuid() and its
 * family make every thread issue the same call from its SIGSETXID handler,
 * with the number read through a global pointer (xidcmd).  Pinned, each of
 * those calls must be allowed at the handler's site: were its table wrong,
 * the process would die of SIGSYS here.  Changes nothing (the ids it sets
 * are the ones it has), so it runs as any user.
 */
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_barrier_t start, stop;

static void *
idle(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&stop);
	return NULL;
}

int
main(void)
{
	pthread_t t[3];
	int i, bad = 0;

	pthread_barrier_init(&start, NULL, 4);
	pthread_barrier_init(&stop, NULL, 4);
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, idle, NULL);
	pthread_barrier_wait(&start);
	bad |= setgid(getgid()) != 0;
	bad |= setuid(getuid()) != 0;
	bad |= setresgid((gid_t)-1, (gid_t)-1, (gid_t)-1) != 0;
	bad |= setreuid((uid_t)-1, (uid_t)-1) != 0;
	pthread_barrier_wait(&stop);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	puts(bad ? "failed" : "ok");
	return bad;
}
