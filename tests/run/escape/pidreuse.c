/* SPDX-License-Identifier: ISC */
/*
 * Blind round 11: a thread's id after the thread execs.  The kernel gives
 * the exec'ing thread its leader's id, and the thread's own id ends with
 * no report of its end.  A supervisor that still counts that id as the
 * tree's, once an outside process has it, lets the tree send it a
 * core-dumping signal or set its limits (and give it the terminal).
 *
 * usage: escape_pidreuse MARK DIR         a thread writes DIR/tid, execs
 *        escape_pidreuse MARK DIR again   the new image
 * The harness (battery.sh) waits for DIR/tid, makes an outside process
 * with that id (ns_last_pid) once it is free, and writes its pid to
 * DIR/victim.  MARK is made when prlimit or kill(SIGSEGV) on it succeeds.
 * Exit 0 MARK made, 3 not (or no victim came).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char *self[5];

static void *
exec_thread(void *arg)
{
	char path[4096], tmp[4200];
	FILE *f;

	(void)arg;
	snprintf(path, sizeof(path), "%s/tid", self[2]);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL)
		_exit(3);
	fprintf(f, "%d\n", gettid());
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		_exit(3);
	execv("/proc/self/exe", self);
	_exit(3);
}

static int
again(const char *mark, const char *dir)
{
	struct rlimit none = { 0, 0 };
	char path[4096];
	int victim = 0, made = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/victim", dir);
	for (int i = 0; i < 400 && victim <= 0; i++) {
		if ((f = fopen(path, "r")) != NULL) {
			if (fscanf(f, "%d", &victim) != 1)
				victim = 0;
			fclose(f);
		}
		if (victim <= 0)
			usleep(50000);
	}
	if (victim <= 0 || victim == getpid())
		return 3;
	if (prlimit(victim, RLIMIT_CORE, &none, NULL) == 0) {
		printf("prlimit on the outside process %d\n", victim);
		made = 1;
	}
	if (kill(victim, SIGSEGV) == 0) {
		printf("SIGSEGV to the outside process %d\n", victim);
		made = 1;
	}
	if (made && mkdir(mark, 0700) == 0)
		return 0;
	return 3;
}

int
main(int argc, char **argv)
{
	pthread_t t;

	if (argc == 4 && strcmp(argv[3], "again") == 0)
		return again(argv[1], argv[2]);
	if (argc != 3)
		return 2;
	self[0] = argv[0];
	self[1] = argv[1];
	self[2] = argv[2];
	self[3] = "again";
	if (pthread_create(&t, NULL, exec_thread, NULL) != 0)
		return 3;
	pause();
	return 3;
}
