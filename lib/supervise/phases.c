/* SPDX-License-Identifier: ISC */
/*
 * The supervisor's time by phase (phases.h).  The supervisor is one
 * thread: the counters are plain globals.  Wall time is what the tree
 * waits (a stopped tracee waits for its handling, and an injected call
 * runs in the tracee within it); CPU time is the supervisor's own.
 */
#include <stdio.h>
#include <time.h>

#include "supervise/supervise.h"

#include "phases.h"

bool sp_phases_on;
uint64_t sp_phase_injected;

static struct {
	uint64_t wall, cpu, n, calls;
} acc[SP_PH_N];
static uint64_t inner, inner_calls, images, stops;
static struct sp_phase_mark run_start;

static const char *const names[SP_PH_N] = {
	[SP_PH_PREDICT] = "predict",
	[SP_PH_TABLES] = "tables",
	[SP_PH_PLACE] = "place",
	[SP_PH_GENERATE] = "generate",
	[SP_PH_INSTALL] = "install",
	[SP_PH_SEAL] = "seal",
	[SP_PH_EXEC] = "exec-stops",
	[SP_PH_STARTUP] = "start-up-stops",
	[SP_PH_SECCOMP] = "call-stops",
	[SP_PH_CHILD] = "child-stops",
	[SP_PH_OTHER] = "other-stops",
};

static uint64_t
ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void
sp_phase_mark(struct sp_phase_mark *m)
{
	if (!sp_phases_on)
		return;
	m->wall = ns(CLOCK_MONOTONIC);
	m->cpu = ns(CLOCK_THREAD_CPUTIME_ID);
	m->inner = inner;
	m->calls = sp_phase_injected;
	m->inner_calls = inner_calls;
}

void
sp_phase_add(enum sp_phase ph, struct sp_phase_mark *m)
{
	struct sp_phase_mark now;
	uint64_t w, c;

	if (!sp_phases_on)
		return;
	sp_phase_mark(&now);
	w = now.wall - m->wall;
	c = now.cpu - m->cpu;
	acc[ph].wall += w;
	acc[ph].cpu += c;
	acc[ph].n++;
	acc[ph].calls += now.calls - m->calls;
	inner += w;
	inner_calls += now.calls - m->calls;
	*m = now;
	m->inner = inner;
	m->inner_calls = inner_calls;
}

void
sp_phase_stop(enum sp_phase ph, const struct sp_phase_mark *m)
{
	struct sp_phase_mark now;
	uint64_t w, in;

	if (!sp_phases_on)
		return;
	sp_phase_mark(&now);
	in = inner - m->inner;
	w = now.wall - m->wall;
	acc[ph].wall += w > in ? w - in : 0;
	/* the phases' CPU was counted under them: the stop's own is the
	 * rest, in the same proportion as its wall time */
	acc[ph].cpu += w > in && w > 0 ?
	    (uint64_t)((double)(now.cpu - m->cpu) * (double)(w - in) /
	    (double)w) : 0;
	acc[ph].n++;
	acc[ph].calls += (now.calls - m->calls) - (inner_calls -
	    m->inner_calls);
	inner = m->inner + w;	/* the stop counted whole now */
	inner_calls = m->inner_calls + (now.calls - m->calls);
	stops++;
}

void
sp_phase_image(void)
{
	if (sp_phases_on)
		images++;
}

void
sp_supervise_phases(void)
{
	sp_phases_on = true;
	sp_phase_mark(&run_start);
}

void
sp_supervise_phases_print(FILE *f)
{
	struct sp_phase_mark end;
	uint64_t w = 0, c = 0, d;

	if (!sp_phases_on)
		return;
	sp_phase_mark(&end);
	d = images > 0 ? images : 1;
	fprintf(f, "syspin: phases: %llu images pinned, %llu stops (%.1f per "
	    "image), run %.1f ms, supervisor CPU %.1f ms\n",
	    (unsigned long long)images, (unsigned long long)stops,
	    (double)stops / (double)d,
	    (double)(end.wall - run_start.wall) / 1e6,
	    (double)(end.cpu - run_start.cpu) / 1e6);
	fprintf(f, "syspin: phases: per image, us the tree waited (us of "
	    "supervisor CPU), times met, calls injected:\n");
	for (int i = 0; i < SP_PH_N; i++) {
		fprintf(f, "syspin: phases:   %-15s %8.1f (%7.1f) %6.1f %6.1f\n",
		    names[i], (double)acc[i].wall / 1e3 / (double)d,
		    (double)acc[i].cpu / 1e3 / (double)d,
		    (double)acc[i].n / (double)d,
		    (double)acc[i].calls / (double)d);
		w += acc[i].wall;
		c += acc[i].cpu;
	}
	fprintf(f, "syspin: phases:   %-15s %8.1f (%7.1f)\n", "all",
	    (double)w / 1e3 / (double)d, (double)c / 1e3 / (double)d);
}
