/* SPDX-License-Identifier: ISC */
/*
 * Where the supervisor's time goes (SYSPIN_PHASES: make bench prints it
 * per exec of a cached image).  Each phase adds the wall time and the
 * supervisor's CPU time spent in it; a stop's handling is counted under
 * its kind, less what its phases counted.  Off, a mark costs a branch.
 */
#ifndef SP_SUPERVISE_PHASES_H
#define SP_SUPERVISE_PHASES_H

#include <stdbool.h>
#include <stdint.h>

enum sp_phase {
	SP_PH_PREDICT,		/* layout, auxv, start-up objects, trap */
	SP_PH_TABLES,		/* tables and reach from the cache */
	SP_PH_PLACE,		/* slots and placement of the pins */
	SP_PH_GENERATE,		/* the filter's program */
	SP_PH_INSTALL,		/* injected reservations, seals, filter */
	SP_PH_SEAL,		/* the entry point: slots sealed, its filter */
	/* stops, by kind (their phases' time not counted again) */
	SP_PH_EXEC,		/* the exec stop, the end of the execve */
	SP_PH_STARTUP,		/* seccomp stops before the entry point */
	SP_PH_SECCOMP,		/* seccomp stops after it */
	SP_PH_CHILD,		/* fork, vfork, clone and new children */
	SP_PH_OTHER,		/* signals, group stops */
	SP_PH_N
};

struct sp_phase_mark {
	uint64_t wall, cpu, inner, calls, inner_calls;
};

extern bool sp_phases_on;
/* System calls injected into tracees so far (inject.c counts them). */
extern uint64_t sp_phase_injected;

void sp_phase_mark(struct sp_phase_mark *m);
/* Counts the time since m under ph, and marks again. */
void sp_phase_add(enum sp_phase ph, struct sp_phase_mark *m);
/* A stop handled since m: its time less its phases' under ph. */
void sp_phase_stop(enum sp_phase ph, const struct sp_phase_mark *m);
void sp_phase_image(void);

#endif
