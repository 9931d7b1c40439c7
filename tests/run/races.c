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
 *
 * races clone-map THREADS: two threads map libc executable again and
 * again (under --exec=trusted each such mapping stops the process's other
 * threads) while the main thread makes and joins THREADS threads, one at
 * a time (blind round 8: a new thread already stopped, its stop's report
 * taken, was waited for, and the whole tree with it).  clone-connect
 * THREADS: the same with unix connects, which stop the other threads in
 * every mode.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
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

static void *
mapper(void *arg)
{
	const char *libc = arg;

	for (;;) {
		int fd = open(libc, O_RDONLY | O_CLOEXEC);
		void *p = mmap(NULL, 16384, PROT_READ | PROT_EXEC, MAP_PRIVATE,
		    fd, 0);
		if (p != MAP_FAILED)
			munmap(p, 16384);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static void *
connecter(void *arg)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	(void)arg;
	snprintf(a.sun_path, sizeof(a.sun_path), "/nonexistent/races.sock");
	for (;;) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		(void)connect(fd, (struct sockaddr *)&a, sizeof(a));
		close(fd);
	}
	return NULL;
}

static void *
nothing(void *arg)
{
	return arg;
}

static int
clone_map(int n, bool connects)
{
	Dl_info info;
	pthread_t t;

	/* the libc this program runs: one syspin trusts */
	if (dladdr((void *)printf, &info) == 0 || info.dli_fname == NULL)
		return 1;
	for (int k = 0; k < 2; k++)
		if (pthread_create(&t, NULL, connects ? connecter : mapper,
		    (void *)info.dli_fname) != 0)
			return 1;
	for (int i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, nothing, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	printf("made %d threads\n", n);
	fflush(stdout);
	_exit(0);
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "forkexec") == 0)
		return forkexec(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 3 && strcmp(argv[1], "leader-exit") == 0)
		return leader_exit(atoi(argv[2]));
	if (argc >= 3 && strcmp(argv[1], "clone-map") == 0)
		return clone_map(atoi(argv[2]), false);
	if (argc >= 3 && strcmp(argv[1], "clone-connect") == 0)
		return clone_map(atoi(argv[2]), true);
	fprintf(stderr, "usage: races forkexec ROUNDS THREADS | "
	    "leader-exit ROUNDS | clone-map THREADS | clone-connect "
	    "THREADS\n");
	return 2;
}
