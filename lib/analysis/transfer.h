/* SPDX-License-Identifier: ISC */
/* Transfer functions of the data flow (transfer.c), used by dataflow.c. */
#ifndef SYSPIN_ANALYSIS_TRANSFER_H
#define SYSPIN_ANALYSIS_TRANSFER_H

#include "dataflow.h"

/* Every register holds its parameter; rsp is the entry stack pointer. */
void sp_state_entry(struct state *st, uint64_t origin);
/* Every register unknown. */
void sp_state_unknown(struct state *st);
/* Applies one instruction. */
void sp_transfer(struct state *st, const struct insn *in);
/* Before a call: a pointer into our frame passed along invalidates it. */
void sp_call_escape(struct state *st, const struct insn *in);
/* The stack slot at entry rsp + off, as read with `width` bytes. */
struct val sp_state_load(const struct state *st, int64_t off, unsigned width);
/* a := a joined with b; true when a changed. */
bool sp_state_join(struct state *a, const struct state *b);

#endif
