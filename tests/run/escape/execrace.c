/* SPDX-License-Identifier: ISC */
/*
 * Blind round 7: an exec in one thread while the leader sits in a stop the
 * supervisor holds.  `escape_execrace MARK ESCAPE [ROUNDS]`: each round a
 * child whose leader maps a file executable again and again (every such
 * mmap stops at the supervisor) while its other thread execs
 * `ESCAPE wrong-site MARK` (a raw mkdir from the wrong site); another
 * child execs /bin/true meanwhile, to keep the supervisor busy.  The exec
 * kills the leader and gives its pid to the new image, stopped at its
 * exec: a supervisor that then acts on the leader's old stop (resumes
 * it, steps it, lets a call finish) runs the new image unpinned, and the
 * raw mkdir makes MARK.  Stopped: every round's image killed (or the exec
 * refused, --strict / --exec=none).  Exit 0 MARK made, 3 not.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *argv_exec[4];

static void *
exec_thread(void *arg)
{
	(void)arg;
	usleep(200);
	execv(argv_exec[0], argv_exec);
	_exit(3);	/* the exec refused: the whole child ends */
}

int
main(int argc, char **argv)
{
	int rounds = argc > 3 ? atoi(argv[3]) : 150, fd, st;
	struct stat sb;
	pthread_t t;
	pid_t c, b;

	if (argc < 3)
		return 2;
	argv_exec[0] = argv[2];
	argv_exec[1] = "wrong-site";
	argv_exec[2] = argv[1];
	if ((fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1)
		return 1;
	for (int r = 0; r < rounds && stat(argv[1], &sb) == -1; r++) {
		if ((c = fork()) == 0) {
			if (pthread_create(&t, NULL, exec_thread, NULL) != 0)
				_exit(1);
			for (long i = 0; i < 2000000; i++) {
				void *m = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
				    MAP_PRIVATE, fd, 0);
				if (m != MAP_FAILED)
					munmap(m, 4096);
			}
			_exit(3);
		}
		if ((b = fork()) == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		waitpid(c, &st, 0);
		waitpid(b, &st, 0);
	}
	if (stat(argv[1], &sb) == 0) {
		printf("MARK made\n");
		return 0;
	}
	printf("refused: no round's image ran unpinned\n");
	return 3;
}
