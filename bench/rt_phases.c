/* SPDX-License-Identifier: ISC */
/*
 * rt_phases CACHE_DIR N: where the runtime's constructor spends its time.
 *
 * Forks N children; each does what libsyspin-rt.so does in a process (its
 * own layout, tables from CACHE_DIR, placement, generation, install, seal)
 * and reports the time of each phase.  Prints the median of each phase in
 * microseconds, and the filter's size.  The cache must be warm (run
 * `syspin run --cache-dir CACHE_DIR THIS_PROGRAM` first, or the tables are
 * missing and the numbers are meaningless: then it fails).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/bpf.h"
#include "pins/cache.h"
#include "layout/layout.h"
#include "layout/placement.h"

#define NPHASES 6
static const char *const names[NPHASES] = {
	"layout", "tables", "place", "generate", "install", "seal",
};

struct sample {
	double t[NPHASES];
	size_t insns, pins;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
run_once(const char *dir, struct sample *s)
{
	struct sp_layout lo;
	struct sp_placement pl;
	struct sp_bpf_input in;
	struct sp_bpf_prog *progs;
	struct sp_cache c;
	struct sp_error err;
	size_t *missing, nmissing, nprogs, i;
	double t = now(), t1;

	if (sp_layout_self(&lo, &err) == -1)
		return -1;
	s->t[0] = (t1 = now()) - t;
	if (sp_cache_open(&c, dir, geteuid(), false, &err) == -1 ||
	    sp_layout_load(&lo, &c, &missing, &nmissing, &err) == -1 ||
	    nmissing > 0)
		return -1;
	s->t[1] = (t = now()) - t1;
	if (sp_layout_place(&lo, &pl, &err) == -1)
		return -1;
	s->t[2] = (t1 = now()) - t;
	memset(&in, 0, sizeof(in));
	in.pins = pl.pins;
	in.npins = pl.npins;
	in.any_ips = pl.any_ips;
	in.nany_ips = pl.nany_ips;
	in.ranges = pl.ranges;
	in.nranges = pl.nranges;
	if (sp_bpf_generate(&in, &progs, &nprogs, &err) == -1)
		return -1;
	s->t[3] = (t = now()) - t1;
	if (sp_bpf_install(progs, nprogs, 0, &err) == -1)
		return -1;
	s->t[4] = (t1 = now()) - t;
	for (i = 0; i < lo.nranges; i++)
		if (lo.ranges[i].start < 0xffffffffff600000ull)
			syscall(462, lo.ranges[i].start,
			    lo.ranges[i].end - lo.ranges[i].start, 0);
	s->t[5] = now() - t1;
	for (i = 0, s->insns = 0; i < nprogs; i++)
		s->insns += progs[i].len;
	s->pins = pl.npins;
	return 0;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct sample *s;
	double v[1024];
	int n, i, p[2], st;
	size_t k;
	pid_t pid;

	if (argc != 3 || (n = atoi(argv[2])) < 1 || n > 1024) {
		fprintf(stderr, "usage: rt_phases CACHE_DIR N\n");
		return 2;
	}
	if ((s = calloc(n, sizeof(*s))) == NULL || pipe(p) == -1)
		return 2;
	for (i = 0; i < n; i++) {
		if ((pid = fork()) == 0)
			_exit(run_once(argv[1], &s[i]) == -1 ? 1 :
			    write(p[1], &s[i], sizeof(s[i])) != sizeof(s[i]));
		if (waitpid(pid, &st, 0) == -1 || st != 0 ||
		    read(p[0], &s[i], sizeof(s[i])) != sizeof(s[i])) {
			fprintf(stderr, "rt_phases: a run failed (is the cache "
			    "warm for this program?)\n");
			return 1;
		}
	}
	printf("filter %zu instructions, %zu pins;", s[0].insns, s[0].pins);
	for (k = 0; k < NPHASES; k++) {
		for (i = 0; i < n; i++)
			v[i] = s[i].t[k];
		qsort(v, n, sizeof(*v), cmp);
		printf(" %s %.0f", names[k], v[n / 2]);
	}
	printf(" (us, median of %d)\n", n);
	return 0;
}
