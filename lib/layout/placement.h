/* SPDX-License-Identifier: ISC */
/*
 * Stage 4, second half: a layout's pins placed at run-time addresses
 * (ip = base + site addr + length), the ranges nothing else may trap in,
 * and the filter generator's input made from them.  Lean.
 */
#ifndef SYSPIN_LAYOUT_PLACEMENT_H
#define SYSPIN_LAYOUT_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/bpf.h"
#include "util/error.h"
#include "layout/layout.h"

/* ---- placed pins ---- */

struct sp_placement {
	struct sp_bpf_pin *pins;
	size_t npins;
	size_t cpins;
	uint64_t *any_ips;
	size_t nany_ips;
	struct sp_bpf_range *ranges;
	size_t nranges;
	struct sp_bpf_range slots;	/* where the loader maps start-up code */
};

/* Who answers the calls a filter neither allows nor kills outright. */
enum sp_answers {
	SP_ANSWER_KERNEL,	/* the kernel alone: EACCES, EPERM */
	SP_ANSWER_RUNTIME,	/* placements: SIGSYS to the runtime's
				   handler (runtime/rt.c) */
	SP_ANSWER_SUPERVISOR,	/* every one a TRACE stop (lib/supervise),
				   violations (data 0) included */
};

/* The filter generator's input for a placement (the band included). */
void sp_placement_bpf_input(const struct sp_placement *pl, unsigned flags,
    enum sp_answers who, struct sp_bpf_input *in);

/*
 * Places every object's pins.  SP_PIN_EXPORT sites get the union of the
 * numbers that all objects' imports pass to that symbol; an import that
 * passes a number the analysis could not tell adds nothing (never "any
 * number": such a call is refused, or judged by the supervisor).
 */
int sp_layout_place(const struct sp_layout *lo, struct sp_placement *pl,
    struct sp_error *err);

/*
 * Without the execve and execveat pins of the objects marked loader
 * (ld.so): dl_main execs a program only where ld.so runs a static one by
 * name; as a program's interpreter its exec sites would serve only a
 * chain, whatever instruction the process reached (an entry point can be
 * jumped past, a process sharing the memory made before it).
 */
void sp_placement_drop_loader_exec(struct sp_placement *pl,
    const struct sp_layout *lo);

/* One more pin (the supervisor's own calls at its injection site). */
int sp_placement_add_pin(struct sp_placement *pl, uint32_t nr, uint64_t ip);

void sp_placement_free(struct sp_placement *pl);

#endif
