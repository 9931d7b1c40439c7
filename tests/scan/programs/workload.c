/* SPDX-License-Identifier: ISC */
/*
 * A C program exercising many libc syscall paths, built static (glibc and
 * musl) for observed.py: threads, files, time, randomness, signals, a
 * child process.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *
worker(void *arg)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
	return arg;
}

static void
on_usr1(int sig)
{
	(void)sig;
}

int
main(void)
{
	pthread_t t[4];
	char buf[64];
	struct timespec now;
	int fd;

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	fd = open("/proc/self/stat", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) < 0)
			perror("read");
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (getrandom(buf, 16, 0) < 0)
		perror("getrandom");
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	printf("tid %ld done\n", (long)syscall(SYS_gettid));
	return 0;
}
