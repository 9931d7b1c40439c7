/* SPDX-License-Identifier: ISC */
/*
 * Jump tables.  A switch compiles to an indirect jump through a table of
 * absolute addresses (`jmp *T(,%r,8)`, non-PIC) or of 32-bit offsets from
 * the table (`lea T(%rip),%x; movslq (%x,%i,4),%z; add %x,%z; jmp *%z`).
 * Reading the table gives the indirect jump its real edges, so the cases
 * get the state of the jump instead of "unknown"; and case labels that a
 * linear sweep decoded as the tail of table bytes placed in .text get
 * decoded again from the right place.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* More cases than this is not a table we believe. */
#define MAX_CASES 4096
/* How far back from the jump the table set-up may be. */
#define LOOKBACK 12

static int
add_edge(struct insn_list *l, size_t from, uint64_t to)
{
	struct jt_edge *v;

	for (size_t k = 0; k < l->njt; k++)
		if (l->jt[k].from == from && l->jt[k].to == to)
			return 0;
	v = realloc(l->jt, (l->njt + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	l->jt = v;
	l->jt[l->njt++] = (struct jt_edge){ from, to };
	return 0;
}

/* The PIC pattern: finds the table base T feeding `jmp *%z`. */
static bool
pic_table(const struct insn_list *l, size_t ij, uint64_t *table)
{
	int z = l->v[ij].pr1, x = -1;
	bool have_add = false, have_load = false;

	for (size_t i = ij; i-- > 0 && ij - i <= LOOKBACK;) {
		const struct insn *in = &l->v[i];
		if (!have_add && in->pat == PAT_ADD_RR && in->pr1 == z) {
			x = in->pr2;
			have_add = true;
		} else if (have_add && !have_load &&
		    in->pat == PAT_MOVSXD_TABLE && in->pr1 == z &&
		    in->pr2 == x) {
			have_load = true;
		} else if (have_load && in->eff.op == EFF_CONST &&
		    in->eff.dst == x && in->eff.width == 8) {
			*table = (uint64_t)in->eff.imm;
			return true;
		}
		if (in->flow == FLOW_JMP || in->flow == FLOW_RET ||
		    in->flow == FLOW_IJMP)
			return false;
	}
	return false;
}

/* Reads entries while they land inside the unit, and not on code we
 * already know is a case (a table in .text is followed by its cases). */
static int
read_table(struct analysis *a, struct unit *u, size_t ij, uint64_t table,
    bool pic)
{
	unsigned size = pic ? 4 : 8;

	for (unsigned k = 0; k < MAX_CASES; k++) {
		uint64_t at = table + (uint64_t)k * size, to;
		const uint8_t *p = sp_elf_vaddr_ptr(a->elf, at, size);
		if (p == NULL)
			break;
		if (pic) {
			int32_t d;
			memcpy(&d, p, 4);
			to = table + (uint64_t)(int64_t)d;
		} else {
			memcpy(&to, p, 8);
		}
		if (to < u->start || to >= u->end)
			break;
		bool is_case = false;
		for (size_t e = 0; e < u->code.njt && !is_case; e++)
			is_case = u->code.jt[e].to >= at &&
			    u->code.jt[e].to < at + size;
		if (is_case)
			break;
		if (add_edge(&u->code, ij, to) != 0)
			return -1;
	}
	return 0;
}

static bool
is_terminator(const struct insn *in)
{
	return in->flow == FLOW_JMP || in->flow == FLOW_IJMP ||
	    in->flow == FLOW_RET || in->flow == FLOW_STOP ||
	    in->flow == FLOW_INVALID;
}

/*
 * The instruction at index k overlaps a jump target.  Re-decode from the
 * target only when k lies in bytes no known path falls into (after a
 * terminator, before any branch target): there the sweep was reading data.
 * Overlapping instructions on a live path are left alone.
 */
static bool
in_dead_zone(struct unit *u, size_t k)
{
	for (size_t i = k + 1; i-- > 0;) {
		if (i < k && is_terminator(&u->code.v[i]))
			return true;
		if (unit_is_target(u, u->code.v[i].addr))
			return false;
		for (size_t e = 0; e < u->code.njt; e++)
			if (u->code.jt[e].to == u->code.v[i].addr)
				return false;
	}
	return false;
}

/* Splices a decoding that starts at `to` into the unit's list. */
static int
resync(struct analysis *a, struct unit *u, uint64_t to)
{
	struct insn_list fresh, *l = &u->code;
	uint64_t avail = 0;
	const uint8_t *p = code_at(a, to, &avail);
	size_t k = 0, join, n;

	while (k < l->n && l->v[k].addr + l->v[k].len <= to)
		k++;
	/* k overlaps `to` (a conflict), or starts after it (a hole left by
	 * an earlier splice: nothing to overwrite). */
	bool conflict = k < l->n && l->v[k].addr < to;
	if ((k < l->n && l->v[k].addr == to) || p == NULL ||
	    (conflict && !in_dead_zone(u, k)))
		return 0;
	if (decode_region(a->dec, p, avail, to, u->end, true, &fresh) != 0)
		return -1;
	/* Stop where the fresh decoding meets an old boundary again. */
	join = conflict ? k + 1 : k;
	for (n = 0; n < fresh.n; n++) {
		while (join < l->n && l->v[join].addr < fresh.v[n].addr)
			join++;
		if (join < l->n && l->v[join].addr == fresh.v[n].addr)
			break;
	}
	struct insn *v = malloc((k + n + (l->n - join) + 1) * sizeof(*v));
	if (v == NULL) {
		insn_list_free(&fresh);
		return -1;
	}
	memcpy(v, l->v, k * sizeof(*v));
	memcpy(v + k, fresh.v, n * sizeof(*v));
	memcpy(v + k + n, l->v + join, (l->n - join) * sizeof(*v));
	/* Edges name instructions by index: renumber those after k. */
	for (size_t e = 0; e < l->njt; e++)
		if (l->jt[e].from >= join)
			l->jt[e].from = l->jt[e].from - join + k + n;
	free(l->v);
	l->v = v;
	l->n = k + n + (l->n - join);
	l->cap = l->n + 1;
	insn_list_free(&fresh);
	free(u->targets);
	u->targets = NULL;
	u->have_targets = false;
	u->ntargets = 0;
	return 0;
}

int
jt_recover(struct analysis *a, struct unit *u)
{
	struct insn_list *l = &u->code;

	for (int round = 0; round < 4; round++) {
		size_t before = l->njt;
		for (size_t i = 0; i < l->n; i++) {
			uint64_t table;
			const struct insn *in = &l->v[i];
			int rc = 0;
			if (in->pat == PAT_JMP_TABLE8)
				rc = read_table(a, u, i, in->target, false);
			else if (in->pat == PAT_JMP_REG && pic_table(l, i,
			    &table))
				rc = read_table(a, u, i, table, true);
			if (rc != 0)
				return -1;
		}
		if (l->njt == before)
			break;
		for (size_t e = before; e < l->njt; e++)
			if (resync(a, u, l->jt[e].to) != 0)
				return -1;
	}
	return 0;
}
