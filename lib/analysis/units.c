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

#include "util/search.h"
#include "elf/code_ranges.h"
#include "analysis.h"

struct range {
	uint64_t start, end;
};

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
	a->units[a->nunits].covered_end = covered ? end : start;
	a->nunits++;
	return 0;
}

/* Appends the ranges of v[] lying inside [lo, hi), in address order. */
static size_t
take(const struct sp_symbol *v, size_t n, uint64_t lo, uint64_t hi,
    struct range *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].addr >= lo && v[i].addr < hi && v[i].size > 0) {
			uint64_t end = v[i].addr + v[i].size;
			out[k++] = (struct range){ v[i].addr,
			    end > hi || end < v[i].addr ? hi : end };
		}
	return k;
}

/*
 * The FDE and symbol ranges lying inside [lo, hi), sorted by start.  Both
 * lists are already sorted (lib/elf sorts them): merge, do not sort.
 */
static struct range *
ranges_in(const struct sp_elf *elf, uint64_t lo, uint64_t hi, size_t *n)
{
	size_t total = elf->nfdes + elf->nsyms + 1, na, nb, i = 0, j = 0, k = 0;
	struct range *a = malloc(total * sizeof(*a)), *b, *r;

	b = malloc(total * sizeof(*b));
	r = malloc(total * sizeof(*r));
	if (a == NULL || b == NULL || r == NULL) {
		free(a), free(b), free(r);
		return NULL;
	}
	na = take(elf->fdes, elf->nfdes, lo, hi, a);
	nb = take(elf->syms, elf->nsyms, lo, hi, b);
	while (i < na || j < nb)
		r[k++] = j == nb || (i < na && a[i].start <= b[j].start) ?
		    a[i++] : b[j++];
	free(a), free(b);
	*n = k;
	return r;
}

static int
tile_range(struct analysis *a, uint64_t lo, uint64_t hi, size_t *cap)
{
	uint64_t pos = lo;
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

static int
unit_cmp(const void *x, const void *y)
{
	const struct unit *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/* Does some code range overlap an executable segment's file part? */
static bool
code_in_segments(const struct sp_elf *elf, const struct sp_vrange *r,
    size_t n)
{
	for (size_t i = 0; i < elf->nsegs; i++) {
		const struct sp_segment *s = &elf->segs[i];
		for (size_t k = 0; k < n && (s->flags & PF_X); k++)
			if (r[k].start < s->vaddr + s->filesz &&
			    r[k].end > s->vaddr)
				return true;
	}
	return false;
}

/*
 * Tiles the executable segments' file parts; with section headers that
 * name the code (lib/elf/code_ranges.c), only the code sections in them:
 * headers, .rodata and .eh_frame sharing an r-x segment are not decoded,
 * and trap bytes there are gadgets.
 */
int
sp_units_build(struct analysis *a)
{
	struct sp_vrange *code;
	long nc = sp_elf_code_ranges(a->elf, &code);
	size_t cap = 0;
	int rc = 0;

	if (nc < 0)
		return -1;
	if (nc > 0 && !code_in_segments(a->elf, code, (size_t)nc))
		nc = 0;		/* the headers describe something else */
	for (size_t i = 0; i < a->elf->nsegs && rc == 0; i++) {
		const struct sp_segment *s = &a->elf->segs[i];
		uint64_t lo = s->vaddr, hi = s->vaddr + s->filesz;
		if (!(s->flags & PF_X) || s->filesz == 0)
			continue;
		if (nc == 0) {
			rc = tile_range(a, lo, hi, &cap);
			continue;
		}
		for (long k = 0; k < nc && rc == 0; k++)
			if (code[k].start < hi && code[k].end > lo)
				rc = tile_range(a,
				    code[k].start > lo ? code[k].start : lo,
				    code[k].end < hi ? code[k].end : hi, &cap);
	}
	free(code);
	if (rc != 0)
		return -1;
	/* Segments come in file order; lookups need address order.  (Only a
	 * corrupt file has executable segments that overlap; lookups there
	 * find one of them, which is all we promise.)  Mostly sorted
	 * already. */
	for (size_t i = 1; i < a->nunits; i++)
		if (unit_cmp(&a->units[i - 1], &a->units[i]) > 0) {
			qsort(a->units, a->nunits, sizeof(*a->units),
			    unit_cmp);
			break;
		}
	return 0;
}

void
sp_units_free(struct analysis *a)
{
	for (size_t i = 0; i < a->nunits; i++) {
		free(a->units[i].targets);
		sp_flow_free(&a->units[i].graph);
		sp_insn_list_free(&a->units[i].code);
	}
	free(a->units);
	a->units = NULL;
	a->nunits = 0;
}

void
sp_unit_release(struct unit *u)
{
	sp_insn_list_free(&u->code);
	sp_flow_free(&u->graph);
	free(u->targets);
	u->targets = NULL;
	u->have_targets = false;
	u->ntargets = 0;
	u->decoded = u->solved = false;
}

struct unit *
sp_unit_at(struct analysis *a, uint64_t addr)
{
	/* The first unit ending after addr (ends are ascending). */
	size_t i = SP_LOWER_BOUND(a->units, a->nunits, end, addr + 1);

	if (i < a->nunits && a->units[i].start <= addr &&
	    addr < a->units[i].end)
		return &a->units[i];
	return NULL;
}

/*
 * Functions that never return, by name: the C library's (called through
 * the PLT) and language runtimes' (called directly; their code may still
 * hold a `ret` on a path that is never taken, e.g. Go's gopanic).  A name
 * ending in '*' is a prefix.
 */
static const char *const noreturn_names[] = {
	"abort", "exit", "_exit", "_Exit", "quick_exit", "__stack_chk_fail",
	"__assert_fail", "__assert_perror_fail", "__fortify_fail",
	"__chk_fail", "__libc_fatal", "err", "errx", "verr", "verrx",
	"pthread_exit", "longjmp", "siglongjmp", "_longjmp", "__longjmp_chk",
	"__cxa_throw", "__cxa_rethrow", "_Unwind_Resume", "_ZSt9terminatev",
	"runtime.gopanic", "runtime.throw", "runtime.fatal",
	"runtime.fatalthrow", "runtime.fatalpanic", "runtime.panic*",
	"runtime.goPanic*", "runtime.goexit1", "runtime.Goexit",
};

static bool
noreturn_name(const char *name)
{
	for (size_t k = 0; k < sizeof(noreturn_names) /
	    sizeof(*noreturn_names); k++) {
		const char *n = noreturn_names[k];
		size_t len = strlen(n);
		if (n[len - 1] == '*' ? strncmp(name, n, len - 1) == 0 :
		    strcmp(name, n) == 0)
			return true;
	}
	return false;
}

/* A PLT stub or a named function at target: is it known not to return? */
static bool
named_noreturn(const struct sp_elf *elf, uint64_t target, bool *known)
{
	*known = false;
	for (size_t i = 0; i < elf->nplt; i++)
		if (elf->plt[i].addr == target) {
			*known = true;	/* a PLT stub: only its name tells */
			return noreturn_name(elf->plt[i].name);
		}
	if (sp_elf_symbol_at(elf, target, noreturn_name) != NULL) {
		*known = true;
		return true;
	}
	return false;
}

/*
 * A function never returns when its unit has no ret, no indirect jump, no
 * fall-through off its end, and every jump out of it goes to a function
 * that never returns either.
 */
static bool
noreturn_at(struct analysis *a, uint64_t target, int depth)
{
	struct unit *u = sp_unit_at(a, target);
	bool is_plt, result = true;

	bool named = named_noreturn(a->elf, target, &is_plt);

	if (is_plt)
		return named;
	if (u == NULL || u->start != target || depth > 4)
		return false;
	if (u->noreturn)
		return u->noreturn == 1;
	if (sp_unit_prepare(a, u, false) != 0 || u->code.n == 0)
		return false;
	u->noreturn = 2;	/* while we look: recursion means "returns" */
	for (size_t i = 0; i < u->code.n && result; i++) {
		const struct insn *in = &u->code.v[i];
		switch (in->flow) {
		case FLOW_RET: case FLOW_IJMP: case FLOW_INVALID:
			result = false;
			break;
		case FLOW_JMP: case FLOW_JCC:
			if (in->target < u->start || in->target >= u->end)
				result = noreturn_at(a, in->target, depth + 1);
			break;
		default:
			break;
		}
	}
	/* Running off the end of the unit continues somewhere else. */
	size_t k = u->code.n;
	while (k > 1 && u->code.v[k - 1].pad)
		k--;
	const struct insn *last = &u->code.v[k - 1];
	if (last->flow == FLOW_CALL)
		result = result && noreturn_at(a, last->target, depth + 1);
	else if (last->flow != FLOW_JMP && last->flow != FLOW_STOP)
		result = false;
	u->noreturn = result ? 1 : 2;
	return result;
}

bool
sp_unit_noreturn(void *ctx, uint64_t target)
{
	return noreturn_at(ctx, target, 0);
}

/*
 * An FDE may start inside the alignment nop before the real entry (glibc
 * starts __restore_rt's FDE one byte early so that unwinding from pc-1
 * finds it).  When a nop before `start` straddles it, decode from the end
 * of that nop: that is where the instructions really begin.
 */
static uint64_t
decode_start(struct analysis *a, const struct unit *u)
{
	struct insn_list l;

	if (!u->covered)
		return u->start;
	for (uint64_t back = 9; back >= 1; back--) {
		const uint8_t *p;
		if (u->start < back)
			continue;
		p = sp_elf_vaddr_ptr(a->elf, u->start - back, back + 8);
		if (p == NULL || sp_decode_region(a->dec, p, back + 8,
		    u->start - back, u->start - back + 1, false, &l) != 0)
			continue;
		bool straddles = l.n == 1 && l.v[0].pad && l.v[0].len > back &&
		    l.v[0].addr + l.v[0].len < u->end;
		uint64_t next = straddles ? l.v[0].addr + l.v[0].len : 0;
		sp_insn_list_free(&l);
		if (straddles)
			return next;
	}
	return u->start;
}

const uint8_t *
sp_code_at(const struct analysis *a, uint64_t addr, uint64_t *avail)
{
	/* Segments may overlap in a corrupt file: take one that really holds
	 * addr in its file part, and say how many bytes follow. */
	for (size_t i = 0; i < a->elf->nsegs; i++) {
		const struct sp_segment *s = &a->elf->segs[i];
		if ((s->flags & PF_X) && addr >= s->vaddr &&
		    addr - s->vaddr < s->filesz) {
			*avail = s->filesz - (addr - s->vaddr);
			return a->elf->data + s->offset + (addr - s->vaddr);
		}
	}
	return NULL;
}

/* Where code without unwind info or a symbol begins in u (see
 * flow_graph.entries_from): all of a gap, the merged tail of a function. */
static uint64_t
entries_from(const struct unit *u)
{
	if (!u->covered)
		return 0;
	return u->covered_end < u->end ? u->covered_end : UINT64_MAX;
}

int
sp_unit_prepare(struct analysis *a, struct unit *u, bool solve)
{
	const uint8_t *code;
	uint64_t from, avail;

	if (!u->decoded) {
		from = decode_start(a, u);
		code = sp_code_at(a, from, &avail);
		if (code == NULL)
			return -1;
		if (sp_decode_region(a->dec, code, avail, from, u->end, true,
		    &u->code) != 0)
			return -1;
		u->decoded = true;
		if (sp_jt_recover(a, u) != 0)
			return -1;
	}
	if (solve && !u->solved) {
		if (sp_flow_solve(&u->code, sp_unit_noreturn, a,
		    entries_from(u), &u->graph) != 0)
			return -1;
		int rc = sp_jt_recover_flow(a, u);
		if (rc < 0)
			return -1;
		if (rc > 0) {	/* new edges: solve again with them */
			sp_flow_free(&u->graph);
			free(u->targets);
			u->targets = NULL;
			u->have_targets = false;
			u->ntargets = 0;
			if (sp_flow_solve(&u->code, sp_unit_noreturn, a,
			    entries_from(u), &u->graph) != 0)
				return -1;
		}
		u->solved = true;
	}
	return 0;
}

static bool
falls_through(const struct insn *in)
{
	switch (in->flow) {
	case FLOW_JMP: case FLOW_IJMP: case FLOW_RET: case FLOW_STOP:
	case FLOW_INVALID:
		return false;
	default:
		return !in->pad;
	}
}

struct unit *
sp_unit_merge_fallthrough(struct analysis *a, struct unit *u)
{
	struct unit *prev;
	const struct insn *last;

	if (u->covered || u == a->units || u->start == u->end)
		return u;
	prev = u - 1;
	if (!prev->covered || prev->end != u->start ||
	    sp_unit_prepare(a, prev, false) != 0 || prev->code.n == 0)
		return u;
	last = &prev->code.v[prev->code.n - 1];
	if (last->addr + last->len != u->start || !falls_through(last))
		return u;
	/* Re-decode the whole: the gap's code continues the function. */
	free(prev->targets);
	prev->targets = NULL;
	prev->have_targets = false;
	prev->ntargets = 0;
	sp_flow_free(&prev->graph);
	sp_insn_list_free(&prev->code);
	prev->decoded = prev->solved = false;
	prev->covered_end = u->start;
	prev->end = u->end;
	u->start = u->end;
	return prev;
}

static int
target_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

bool
sp_unit_is_target(struct unit *u, uint64_t addr)
{
	size_t i;

	if (!u->have_targets) {
		/* Direct jumps and jump-table cases: both start blocks. */
		u->targets = malloc((u->code.n + u->code.njt + 1) *
		    sizeof(uint64_t));
		if (u->targets == NULL)
			return true;	/* unknown: callers take the slow path */
		for (size_t i = 0; i < u->code.n; i++) {
			const struct insn *in = &u->code.v[i];
			if ((in->flow == FLOW_JMP || in->flow == FLOW_JCC) &&
			    in->target >= u->start && in->target < u->end)
				u->targets[u->ntargets++] = in->target;
		}
		for (size_t e = 0; e < u->code.njt; e++)
			u->targets[u->ntargets++] = u->code.jt[e].to;
		qsort(u->targets, u->ntargets, sizeof(uint64_t), target_cmp);
		u->have_targets = true;
	}
	i = sp_lower_bound(u->targets, u->ntargets, sizeof(uint64_t), 0, addr);
	return i < u->ntargets && u->targets[i] == addr;
}
