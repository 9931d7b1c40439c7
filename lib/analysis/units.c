/* SPDX-License-Identifier: ISC */
/*
 * Tiling executable code into units that start at known instruction
 * boundaries.  FDE starts are exact function entries even in stripped
 * binaries; symbols add what has no unwind info (hand-written assembly such
 * as glibc's clone).  What neither covers is a gap: decoded linearly from
 * its start, and every site found there is flagged as uncovered.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

struct range {
	uint64_t start, end;
};

static int
range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int
add_unit(struct analysis *a, size_t *cap, uint64_t start, uint64_t end,
    bool covered)
{
	if (start >= end)
		return 0;
	if (a->nunits == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct unit *u = realloc(a->units, ncap * sizeof(*u));
		if (u == NULL)
			return -1;
		a->units = u;
		*cap = ncap;
	}
	memset(&a->units[a->nunits], 0, sizeof(struct unit));
	a->units[a->nunits].start = start;
	a->units[a->nunits].end = end;
	a->units[a->nunits].covered = covered;
	a->nunits++;
	return 0;
}

/* Collects the FDE and symbol ranges lying inside [lo, hi). */
static struct range *
ranges_in(const struct sp_elf *elf, uint64_t lo, uint64_t hi, size_t *n)
{
	struct range *r = malloc((elf->nfdes + elf->nsyms + 1) * sizeof(*r));
	size_t k = 0;

	if (r == NULL)
		return NULL;
	for (size_t i = 0; i < elf->nfdes; i++)
		if (elf->fdes[i].addr >= lo && elf->fdes[i].addr < hi)
			r[k++] = (struct range){ elf->fdes[i].addr,
			    elf->fdes[i].addr + elf->fdes[i].size };
	for (size_t i = 0; i < elf->nsyms; i++)
		if (elf->syms[i].addr >= lo && elf->syms[i].addr < hi &&
		    elf->syms[i].size > 0)
			r[k++] = (struct range){ elf->syms[i].addr,
			    elf->syms[i].addr + elf->syms[i].size };
	for (size_t i = 0; i < k; i++)
		if (r[i].end > hi || r[i].end < r[i].start)
			r[i].end = hi;
	qsort(r, k, sizeof(*r), range_cmp);
	*n = k;
	return r;
}

static int
tile_segment(struct analysis *a, const struct sp_segment *s, size_t *cap)
{
	uint64_t lo = s->vaddr, hi = s->vaddr + s->filesz, pos = lo;
	size_t n, i = 0;
	struct range *r = ranges_in(a->elf, lo, hi, &n);

	if (r == NULL)
		return -1;
	while (i < n) {
		uint64_t us = r[i].start, ue = r[i].end;
		if (us < pos) {		/* inside the previous unit */
			i++;
			continue;
		}
		for (i++; i < n && r[i].start < ue; i++)
			if (r[i].end > ue)
				ue = r[i].end;
		if (add_unit(a, cap, pos, us, false) != 0 ||
		    add_unit(a, cap, us, ue, true) != 0) {
			free(r);
			return -1;
		}
		pos = ue;
	}
	free(r);
	return add_unit(a, cap, pos, hi, false);
}

int
units_build(struct analysis *a)
{
	size_t cap = 0;

	for (size_t i = 0; i < a->elf->nsegs; i++) {
		const struct sp_segment *s = &a->elf->segs[i];
		if ((s->flags & PF_X) && s->filesz > 0 &&
		    tile_segment(a, s, &cap) != 0)
			return -1;
	}
	return 0;
}

void
units_free(struct analysis *a)
{
	for (size_t i = 0; i < a->nunits; i++) {
		flow_free(&a->units[i].graph);
		insn_list_free(&a->units[i].code);
	}
	free(a->units);
	a->units = NULL;
	a->nunits = 0;
}

struct unit *
unit_at(struct analysis *a, uint64_t addr)
{
	size_t lo = 0, hi = a->nunits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->units[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->nunits && a->units[lo].start <= addr &&
	    addr < a->units[lo].end)
		return &a->units[lo];
	return NULL;
}

int
unit_prepare(struct analysis *a, struct unit *u, bool solve)
{
	const struct sp_segment *s;
	const uint8_t *code;

	if (!u->decoded) {
		s = sp_elf_segment_at(a->elf, u->start);
		if (s == NULL)
			return -1;
		code = a->elf->data + s->offset + (u->start - s->vaddr);
		if (decode_region(a->dec, code, s->filesz - (u->start -
		    s->vaddr), u->start, u->end, true, &u->code) != 0)
			return -1;
		u->decoded = true;
	}
	if (solve && !u->solved) {
		if (flow_solve(&u->code, &u->graph) != 0)
			return -1;
		u->solved = true;
	}
	return 0;
}
