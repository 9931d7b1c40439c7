/* SPDX-License-Identifier: ISC */
/*
 * "The number is parameter P of function F": resolved at every direct call
 * (or tail jump) to F, transitively through wrappers of wrappers.  The set
 * is exact only if every way into F is known: an address-taken F (a
 * function pointer, a rip-relative lea) may be called from anywhere, so it
 * stays unresolved.  An exported F is completed at load time by the
 * objects that import it (see sp_import).
 */
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "analysis.h"
#include "transfer.h"

/* Deeper wrapper chains than this are not real code. */
#define MAX_DEPTH 24

bool
sp_is_export(const struct sp_elf *elf, uint64_t addr, const char **name)
{
	size_t i = SP_LOWER_BOUND(elf->exports, elf->nexports, addr, addr);

	if (i < elf->nexports && elf->exports[i].addr == addr) {
		if (name != NULL)
			*name = elf->exports[i].name;
		return true;
	}
	return false;
}

static void
set_top(struct presult *r, const char *reason, uint64_t at)
{
	if (r->nrs.top)
		return;
	sp_nrset_set_top(&r->nrs);
	r->reason = reason;
	r->reason_addr = at;
}

static void
add_via(struct presult *r, uint64_t addr, int param)
{
	for (unsigned i = 0; i < r->nvia; i++)
		if (r->via_addr[i] == addr && r->via_param[i] == param)
			return;
	if (r->nvia == MAX_EXPORT_VIA) {
		set_top(r, "number passes through too many exported functions",
		    addr);
		return;
	}
	r->via_addr[r->nvia] = addr;
	r->via_param[r->nvia++] = (int8_t)param;
}

/* Folds a sub-result (a caller's own parameter) into r. */
static void
merge(struct presult *r, const struct presult *sub)
{
	if (sub->nrs.top) {
		set_top(r, sub->reason, sub->reason_addr);
		return;
	}
	sp_nrset_union(&r->nrs, &sub->nrs);
	if (r->nrs.top)
		set_top(r, "too many different numbers", r->func);
	for (unsigned i = 0; i < sub->nvia; i++)
		add_via(r, sub->via_addr[i], sub->via_param[i]);
}

/* Value of the parameter at a verified call or tail jump. */
static struct val
arg_at(const struct state *st, const struct insn *in, int param)
{
	struct state copy;

	if (in->flow == FLOW_CALL || in->flow == FLOW_ICALL ||
	    param < PARAM_STACK0)
		return sp_flow_arg_value(st, param);
	/* A tail jump: the return address is already on the stack, so
	 * stack argument k sits one slot higher than at a call. */
	copy = *st;
	if (copy.r[SP_REG_RSP].kind == V_STACK)
		copy.r[SP_REG_RSP].c[0] += 8;
	return sp_flow_arg_value(&copy, param);
}

static bool
branches_to(const struct insn *in, uint64_t func)
{
	switch (in->flow) {
	case FLOW_CALL: case FLOW_JMP: case FLOW_JCC:
	case FLOW_ICALL: case FLOW_IJMP:
		return in->target == func;
	default:
		return false;
	}
}

static void resolve_into(struct analysis *a, struct presult *r);
static bool deref_at(const struct state *st, struct val *v, int64_t off,
    unsigned width);

void
sp_resolve_global(struct analysis *a, struct val *v)
{
	uint64_t c;

	if (v->kind == V_GLOBAL && sp_global_value(a, v->c[0],
	    (unsigned)v->c[1], &c))
		*v = val_const(c);
}

/* The jump of a PLT stub through a GOT slot: the stub's own callers are
 * found through the stub's address, so this reference adds nothing. */
static bool
in_plt_stub(const struct sp_elf *elf, uint64_t from)
{
	long i = SP_FLOOR_INDEX(elf->plt, elf->nplt, addr, from);

	return i >= 0 && from - elf->plt[i].addr < 16;
}

/* One candidate reference to r->func: verify it, then fold its value. */
static void
one_caller(struct analysis *a, struct presult *r, const struct xref *x)
{
	struct unit *u;
	struct state st;
	struct val v;
	long idx;

	if (x->kind == XREF_JMP && in_plt_stub(a->elf, x->from))
		return;
	if (x->kind == XREF_DATA || x->kind == XREF_RIPREL) {
		set_top(r, "function address is taken (may be called "
		    "indirectly)", x->from);
		return;
	}
	u = sp_unit_at(a, x->from);
	if (u == NULL || sp_unit_prepare(a, u, true) != 0)
		return;		/* not code, or bytes of another instruction */
	idx = sp_insn_index(&u->code, x->from);
	if (idx < 0 || !branches_to(&u->code.v[idx], r->func))
		return;
	sp_flow_state_at(&u->graph, (size_t)idx, &st);
	if (!st.reached)
		return;
	uint64_t fn = st.origin ? st.origin : u->start;
	v = arg_at(&st, &u->code.v[idx], r->param);
	if (r->deref && !deref_at(&st, &v, r->doff, r->dwidth)) {
		set_top(r, "a caller passes a pointer to the number that we "
		    "cannot follow", x->from);
		return;
	}
	/* A jump back to its own entry with the number unchanged (Go's
	 * stack-growth retry, a loop) passes what came in: nothing new. */
	if (fn == r->func && v.kind == V_SET && v.param == r->param &&
	    !r->deref)
		v.param = PARAM_NONE;
	sp_resolve_value(a, fn, v, r, x->from);
}

/*
 * The number a caller keeps at *(ptr + off): ptr is the caller's stack
 * (a struct it filled) or its own pointer parameter (passed along).
 */
static bool
deref_at(const struct state *st, struct val *v, int64_t off, unsigned width)
{
	if (v->kind == V_STACK) {
		*v = sp_state_load(st, (int64_t)v->c[0] + off, width);
		return true;
	}
	if (v->kind == V_SET && v->param != PARAM_NONE && v->n == 0) {
		*v = val_deref(v->param, off, width);
		return true;
	}
	return false;
}

void
sp_resolve_published(struct analysis *a, const struct val *v,
    struct presult *r, uint64_t at)
{
	struct published srcs[8];
	const struct presult *p;
	const char *why;
	size_t n;

	if (sp_published_sources(a, v->c[0], (int64_t)v->c[2],
	    (unsigned)v->c[1], srcs, 8, &n, &why) == -1) {
		set_top(r, why, at);
		return;
	}
	for (size_t i = 0; i < n && !r->nrs.top; i++) {
		p = sp_resolve_deref(a, srcs[i].func, srcs[i].param,
		    (int64_t)v->c[2], (unsigned)v->c[1]);
		if (p->no_callers && !p->nrs.top) {
			set_top(r, "a function that publishes the pointer "
			    "has no callers we can see", srcs[i].func);
			return;
		}
		merge(r, p);
	}
}

void
sp_resolve_value(struct analysis *a, uint64_t func, struct val v,
    struct presult *r, uint64_t at)
{
	struct presult sub = { 0 }, modelled = { 0 };
	const struct presult *p = NULL;

	sp_resolve_global(a, &v);
	/* A runtime's replay of a number kept in memory: its contract wins
	 * over what data flow can follow (models.c). */
	if (v.kind != V_SET && sp_model_numbers(a, func, &modelled)) {
		merge(r, &modelled);
		return;
	}
	if (v.kind == V_GDEREF) {
		sp_resolve_published(a, &v, r, at);
		return;
	}
	if (v.kind == V_DEREF) {
		p = sp_resolve_deref(a, func, v.param, (int64_t)v.c[0],
		    (unsigned)v.c[1]);
	} else if (v.kind != V_SET) {
		set_top(r, "a caller passes a number that is not a constant",
		    at);
		return;
	} else {
		sp_nrset_add_val(&sub.nrs, &v);
		if (v.param != PARAM_NONE)
			p = sp_resolve_param(a, func, v.param);
	}
	if (p != NULL) {
		if (p->no_callers && !p->nrs.top) {
			set_top(r, "a caller takes the number as a parameter "
			    "and has no callers itself", at);
			return;
		}
		merge(&sub, p);
	}
	merge(r, &sub);
}

static void
resolve_into(struct analysis *a, struct presult *r)
{
	struct xref *xs;
	size_t nx;
	uint64_t t = r->func;

	sp_nrset_clear(&r->nrs);
	if (r->param == SP_REG_RSP || r->param < 0) {
		set_top(r, "number comes from the stack pointer", r->func);
		return;
	}
	if (sp_is_export(a->elf, r->func, NULL)) {
		/* Importers record the numbers they pass, not what the
		 * pointers they pass point at. */
		if (r->deref) {
			set_top(r, "number is read through a pointer an "
			    "exported function receives", r->func);
			return;
		}
		add_via(r, r->func, r->param);
	}
	if (sp_xrefs_find(a, &t, 1, false, &xs, &nx) != 0) {
		set_top(r, "out of memory", r->func);
		return;
	}
	for (size_t i = 0; i < nx && !r->nrs.top; i++)
		one_caller(a, r, &xs[i]);
	free(xs);
	/* Nothing calls it: dead code, or called in a way we cannot see.
	 * The caller decides what that means (see resolve_param). */
	r->no_callers = !r->nrs.top && r->nrs.count == 0 && r->nvia == 0;
}

/*
 * Each caller of func on its own: the union of the numbers those that can
 * be read pass (*known), and whether any cannot (*unresolved).  For an
 * import, whose unreadable calls add nothing at load time: one such call
 * must not take the others' numbers with it (rustup: a hundred calls of
 * syscall(SYS_futex, ...) and one passing a variable).  Returns whether
 * anything calls func.
 */
bool
sp_resolve_each_caller(struct analysis *a, uint64_t func, int param,
    struct nrset *known, bool *unresolved)
{
	struct xref *xs;
	size_t nx;
	uint64_t t = func;
	bool called = false;

	sp_nrset_clear(known);
	*unresolved = false;
	if (sp_xrefs_find(a, &t, 1, false, &xs, &nx) != 0) {
		*unresolved = true;
		return true;
	}
	for (size_t i = 0; i < nx; i++) {
		struct presult r = { .func = func, .param = param };
		one_caller(a, &r, &xs[i]);
		if (r.nrs.top)
			*unresolved = true;
		else
			sp_nrset_union(known, &r.nrs);
		called |= r.nrs.top || r.nrs.count > 0;
	}
	free(xs);
	if (known->top) {	/* too many numbers to keep */
		sp_nrset_clear(known);
		*unresolved = true;
	}
	return called;
}

/*
 * Each verified direct call (or tail jump) to func: fn gets the calling
 * function's entry and the value of parameter param there.  -1 when func
 * may be called in ways we cannot see (its address is taken) or memory
 * ran out, or what fn returned when it stops early (non-zero); else the
 * number of calls.
 */
static long
each_call(struct analysis *a, uint64_t func, int param,
    int (*fn)(void *ctx, uint64_t caller, struct val v), void *ctx,
    bool past_taken)
{
	struct xref *xs;
	size_t nx;
	uint64_t t = func;
	long n = 0;
	int rc = 0;

	if (sp_xrefs_find(a, &t, 1, false, &xs, &nx) != 0)
		return -1;
	for (size_t i = 0; i < nx && rc == 0; i++) {
		const struct xref *x = &xs[i];
		struct unit *u;
		struct state st;
		long idx;

		if (x->kind == XREF_JMP && in_plt_stub(a->elf, x->from))
			continue;
		if ((x->kind == XREF_DATA || x->kind == XREF_RIPREL) &&
		    past_taken)
			continue;
		if (x->kind == XREF_DATA || x->kind == XREF_RIPREL) {
			rc = -1;
			break;
		}
		u = sp_unit_at(a, x->from);
		if (u == NULL || sp_unit_prepare(a, u, true) != 0)
			continue;
		idx = sp_insn_index(&u->code, x->from);
		if (idx < 0 || !branches_to(&u->code.v[idx], func))
			continue;
		sp_flow_state_at(&u->graph, (size_t)idx, &st);
		if (!st.reached)
			continue;
		n++;
		rc = fn(ctx, st.origin ? st.origin : u->start,
		    arg_at(&st, &u->code.v[idx], param));
	}
	free(xs);
	return rc != 0 ? rc : n;
}

long
sp_resolve_callers(struct analysis *a, uint64_t func, int param,
    int (*fn)(void *ctx, uint64_t caller, struct val v), void *ctx)
{
	return each_call(a, func, param, fn, ctx, false);
}

/*
 * The numbers the callers that can be read pass in param to func, through
 * wrappers that pass their own parameter along, whatever the others do:
 * a call of unknown value, an address taken or a wrapper out of reach
 * adds nothing (it does not take the readable calls' numbers with it, as
 * it does for sp_resolve_param).  For a site that is unresolved anyway
 * (musl's __syscall_cp_asm behind __syscall_cp_c and __syscall_cp, whose
 * address the cancellation handler compares): what it keeps besides its
 * object's numbers.
 */
#define KNOWN_MAX_FUNCS 64

struct known {
	struct analysis *a;
	struct nrset *out;
	uint64_t seen[KNOWN_MAX_FUNCS];
	int seen_param[KNOWN_MAX_FUNCS];
	size_t nseen;
};

static void known_into(struct known *k, uint64_t func, int param);

static int
known_call(void *ctx, uint64_t caller, struct val v)
{
	struct known *k = ctx;
	struct presult m = { 0 };

	sp_resolve_global(k->a, &v);
	if (v.kind != V_SET) {
		if (sp_model_numbers(k->a, caller, &m) && !m.nrs.top)
			sp_nrset_union(k->out, &m.nrs);
		return 0;
	}
	sp_nrset_add_val(k->out, &v);
	if (v.param != PARAM_NONE && v.param >= 0)
		known_into(k, caller, v.param);
	return 0;
}

static void
known_into(struct known *k, uint64_t func, int param)
{
	for (size_t i = 0; i < k->nseen; i++)
		if (k->seen[i] == func && k->seen_param[i] == param)
			return;
	if (k->nseen == KNOWN_MAX_FUNCS || k->out->top)
		return;
	k->seen[k->nseen] = func;
	k->seen_param[k->nseen++] = param;
	(void)each_call(k->a, func, param, known_call, k, true);
}

void
sp_resolve_known(struct analysis *a, uint64_t func, int param,
    struct nrset *out)
{
	struct known k = { .a = a, .out = out };

	sp_nrset_clear(out);
	known_into(&k, func, param);
	if (out->top)			/* too many to keep: none */
		sp_nrset_clear(out);
}

static long
memo_find(const struct analysis *a, const struct presult *q)
{
	for (size_t i = 0; i < a->nmemo; i++) {
		const struct presult *m = &a->memo[i];
		if (m->func == q->func && m->param == q->param &&
		    m->deref == q->deref && m->doff == q->doff &&
		    m->dwidth == q->dwidth)
			return (long)i;
	}
	return -1;
}

static const struct presult *resolve_query(struct analysis *a,
    struct presult r);

const struct presult *
sp_resolve_param(struct analysis *a, uint64_t func, int param)
{
	return resolve_query(a, (struct presult){ .func = func,
	    .param = param });
}

const struct presult *
sp_resolve_deref(struct analysis *a, uint64_t func, int param, int64_t off,
    unsigned width)
{
	return resolve_query(a, (struct presult){ .func = func,
	    .param = param, .deref = true, .doff = off,
	    .dwidth = (uint8_t)width });
}

static const struct presult *
resolve_query(struct analysis *a, struct presult r)
{
	static const struct presult cycle = { .nrs = { .top = true },
	    .reason = "number passes through recursive wrappers" };
	static const struct presult deep = { .nrs = { .top = true },
	    .reason = "wrapper chain too deep" };
	long i = memo_find(a, &r);

	if (i >= 0)
		return a->memo[i].done ? &a->memo[i] : &cycle;
	if (a->depth >= MAX_DEPTH)
		return &deep;
	if (a->nmemo == a->capmemo) {
		size_t ncap = a->capmemo ? a->capmemo * 2 : 32;
		struct presult *m = realloc(a->memo, ncap * sizeof(*m));
		if (m == NULL)
			return &deep;
		a->memo = m;
		a->capmemo = ncap;
	}
	i = (long)a->nmemo++;
	a->memo[i] = r;		/* in progress: done == false */
	a->depth++;
	resolve_into(a, &r);
	a->depth--;
	r.done = true;
	a->memo[i] = r;
	return &a->memo[i];
}
