/* SPDX-License-Identifier: ISC */
/*
 * spawn_bench N CMD1 [-- CMD2 ...]: start-up cost of whole commands.
 *
 * Each command is "[VAR=VALUE ...] PATH [ARG ...]"; it is spawned and
 * waited for N times, the commands interleaved round by round so that
 * drift (frequency, caches, other load) hits all of them alike.  Prints,
 * per command, the median wall time in microseconds.  Output goes to
 * /dev/null; a command that fails is an error (the numbers would lie).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct cmd {
	char **argv;
	char **envp;
	double *t;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Splits argv at "--" into commands; leading VAR=VALUE go to envp. */
static size_t
split(char **argv, int argc, struct cmd *cmds, int n)
{
	size_t nc = 0, ne;
	int i = 0, j;

	while (i < argc) {
		struct cmd *c = &cmds[nc++];
		for (ne = 0; environ[ne] != NULL; ne++)
			;
		c->envp = calloc(ne + argc + 1, sizeof(*c->envp));
		c->t = calloc(n, sizeof(*c->t));
		if (c->envp == NULL || c->t == NULL)
			exit(2);
		for (j = 0; i < argc && strchr(argv[i], '=') != NULL &&
		    argv[i][0] != '/'; i++)
			c->envp[j++] = argv[i];
		memcpy(c->envp + j, environ, ne * sizeof(*environ));
		c->argv = argv + i;
		for (; i < argc && strcmp(argv[i], "--") != 0; i++)
			;
		if (i < argc)
			argv[i++] = NULL;
	}
	return nc;
}

static double
once(const struct cmd *c)
{
	posix_spawn_file_actions_t fa;
	double t0;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	t0 = now();
	if (posix_spawn(&pid, c->argv[0], &fa, NULL, c->argv, c->envp) != 0) {
		fprintf(stderr, "spawn_bench: %s: %s\n", c->argv[0],
		    strerror(errno));
		exit(2);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			exit(2);
	t0 = now() - t0;
	posix_spawn_file_actions_destroy(&fa);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "spawn_bench: %s failed (status %#x)\n",
		    c->argv[0], st);
		exit(2);
	}
	return t0;
}

int
main(int argc, char **argv)
{
	struct cmd *cmds;
	size_t nc, i;
	int n, r;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: spawn_bench N CMD [-- CMD ...]\n");
		return 2;
	}
	if ((cmds = calloc(argc, sizeof(*cmds))) == NULL)
		return 2;
	nc = split(argv + 2, argc - 2, cmds, n);
	for (i = 0; i < nc; i++)	/* warm up: caches, page cache */
		once(&cmds[i]);
	for (r = 0; r < n; r++)
		for (i = 0; i < nc; i++)
			cmds[i].t[r] = once(&cmds[i]);
	for (i = 0; i < nc; i++) {
		qsort(cmds[i].t, n, sizeof(double), cmp);
		printf("%.1f\n", cmds[i].t[n / 2]);
	}
	return 0;
}
