/* SPDX-License-Identifier: ISC */
/*
 * Per-function control-flow graph and forward constant propagation over
 * the general-purpose registers and the function's own stack slots.
 * Entry state: every register holds "its parameter"; so a number that
 * reaches a trap unchanged from an argument is recognised as such and can
 * be resolved at the call sites.
 */
#ifndef SYSPIN_ANALYSIS_DATAFLOW_H
#define SYSPIN_ANALYSIS_DATAFLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "decode.h"
#include "value.h"

#define STATE_NSLOTS 24

struct slot {
	int64_t off;		/* from entry rsp */
	uint8_t width;
	struct val v;
};

struct state {
	bool reached;
	/* The entry this state's parameters belong to: the function start,
	 * or in a gap each block after a terminator (0: several). */
	uint64_t origin;
	uint8_t nslots;
	struct val r[SP_NREGS];
	struct slot s[STATE_NSLOTS];
};

struct block {
	size_t first, last;	/* instruction indexes, inclusive */
	struct state in;
};

#define MAX_OPEN_FNS 16

struct flow_graph {
	const struct insn_list *code;
	/* In a gap (no unwind info, no symbol), code after a terminator that
	 * nothing jumps to starts a function of its own (musl's assembly):
	 * so are orphan blocks at or above this address. */
	uint64_t entries_from;
	struct block *b;
	size_t nb;
	bool converged;		/* false: gave up, every query is unknown */
	/*
	 * rax at indirect jumps whose table we could not read and that are
	 * not tail calls (the frame is still set up): such a jump may land
	 * on any instruction, the trap itself included.
	 */
	bool open_ijmp;
	struct val open_ijmp_rax;
	/* The same per function of a gap (state origin): such a jump stays
	 * in its own function, whose start is where the gap's code after a
	 * terminator begins.  nopen > MAX_OPEN_FNS: too many, use the join. */
	size_t nopen;
	struct open_fn {
		uint64_t origin;
		struct val rax;
	} *open;		/* MAX_OPEN_FNS, allocated at the first: a
				   graph lives in every unit, most never
				   solved */
	/* The last state asked for (sp_flow_state_at): the next question in
	 * the same block, further on, goes on from it.  A block of n call
	 * sites asked about in order costs n steps, not n^2/2 (a written
	 * program of 0f 05 bytes: 32 KB took 3.5 s, blind round 4). */
	struct state *memo;
	long memo_block;
	size_t memo_idx;
};

/* Asked about calls whose fall-through would join another path: true when
 * the callee never returns (abort(), __stack_chk_fail(), ...). */
typedef bool (*flow_noreturn_fn)(void *ctx, uint64_t target);

/* Builds the CFG of `code` (entry = its first instruction) and solves it. */
int sp_flow_solve(const struct insn_list *code, flow_noreturn_fn noreturn,
    void *ctx, uint64_t entries_from, struct flow_graph *g);
void sp_flow_free(struct flow_graph *g);

/* The state just before instruction `idx` executes. */
void sp_flow_state_at(const struct flow_graph *g, size_t idx, struct state *st);

/*
 * Joins into *v the rax of the unresolved indirect jumps that may land on
 * an instruction whose state has `origin`: all of them in a function,
 * only those of the same function in a gap.
 */
void sp_flow_open_ijmp_rax(const struct flow_graph *g, uint64_t origin,
    struct val *v);

/* Value of parameter P (register or stack argument) in state st, as a
 * caller passes it to a function it calls from this state. */
struct val sp_flow_arg_value(const struct state *st, int param);

#endif
