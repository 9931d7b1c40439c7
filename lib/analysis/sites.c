/* SPDX-License-Identifier: ISC */
/*
 * From trap instructions to resolved sites, and from those to the public
 * struct sp_scan.
 */
#include <stdlib.h>
#include <string.h>

#include "sites.h"

int
sp_site_set_candidate(struct site_set *ss, uint64_t addr)
{
	if (ss->ncand == ss->capcand) {
		size_t ncap = ss->capcand ? ss->capcand * 2 : 256;
		uint64_t *v = realloc(ss->cand, ncap * sizeof(*v));
		if (v == NULL)
			return -1;
		ss->cand = v;
		ss->capcand = ncap;
	}
	ss->cand[ss->ncand++] = addr;
	return 0;
}

int
sp_site_set_add(struct site_set *ss, struct unit *u, const struct insn *in)
{
	if (ss->n == ss->cap) {
		size_t ncap = ss->cap ? ss->cap * 2 : 64;
		struct raw_site *v = realloc(ss->v, ncap * sizeof(*v));
		if (v == NULL)
			return -1;
		ss->v = v;
		ss->cap = ncap;
	}
	ss->v[ss->n++] = (struct raw_site){ .addr = in->addr, .len = in->len,
	    .kind = in->trap, .unit = u, .param_reg = SP_REG_NONE };
	return 0;
}

void
sp_site_set_free(struct site_set *ss)
{
	free(ss->cand);
	free(ss->v);
	memset(ss, 0, sizeof(*ss));
}

static void
unresolved(struct raw_site *s, const char *reason)
{
	s->how = SP_HOW_UNRESOLVED;
	sp_nrset_set_top(&s->nrs);
	s->reason = reason;
}

/* A number read through a pointer a global holds (globals.c). */
static void
published(struct analysis *a, struct raw_site *s, const struct val *v)
{
	struct presult r = { 0 };

	sp_nrset_clear(&r.nrs);
	sp_resolve_published(a, v, &r, s->addr);
	if (r.nrs.top) {
		unresolved(s, r.reason);
		s->reason_addr = r.reason_addr;
		return;
	}
	s->nrs = r.nrs;
	s->how = r.nvia ? SP_HOW_EXPORT : SP_HOW_CALLERS;
	s->nvia = r.nvia;
	memcpy(s->via_addr, r.via_addr, sizeof(s->via_addr));
	memcpy(s->via_param, r.via_param, sizeof(s->via_param));
	if (r.nvia)
		s->param_reg = r.via_param[0];
}

static bool
has_open_ijmp(const struct insn_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].flow != FLOW_IJMP)
			continue;
		bool table = false;
		JT_FOR_EACH(l, i, e) {
			table = true;
			break;
		}
		if (!table)
			return true;
	}
	return false;
}

/*
 * The common case, `mov $N, %eax` (possibly through another register)
 * in the trap's own basic block, needs no fixpoint: within one block the
 * last write is the value.  Anything less plain takes the full data flow.
 */
static bool
resolve_in_block(struct unit *u, size_t idx, struct val *v)
{
	int reg = SP_REG_RAX;

	/* An indirect jump whose table we could not read may land anywhere
	 * after a terminator: leave such units to the full data flow.  Asked
	 * once per unit (once per site was quadratic in a unit of many). */
	if (u->open_ijmp == 0)
		u->open_ijmp = has_open_ijmp(&u->code) ? 1 : 2;
	if (u->open_ijmp == 1)
		return false;

	for (size_t i = idx; i-- > 0;) {
		const struct insn *in = &u->code.v[i];
		const struct effect *e = &in->eff;
		if (in->flow != FLOW_NEXT || sp_unit_is_target(u, u->code.v[i +
		    1].addr))
			return false;	/* a block boundary before the write */
		if (e->clobber & (1u << reg))
			return false;
		if (e->op == EFF_CONST && e->dst == reg && e->width >= 4) {
			*v = val_const((uint64_t)e->imm);
			sp_val_truncate(v, e->width);
			return true;
		}
		if (e->op == EFF_COPY && e->dst == reg && e->imm == 0 &&
		    e->width >= 4 && e->src != SP_REG_RSP) {
			reg = e->src;	/* follow the move */
			continue;
		}
		if (e->dst == reg && e->op != EFF_STORE &&
		    e->op != EFF_STORE_IMM && e->op != EFF_STORE_GLOBAL &&
		    e->op != EFF_PUSH && e->op != EFF_PUSH_IMM &&
		    e->op != EFF_NONE)
			return false;
		if (e->op == EFF_LEAVE || e->op == EFF_POP)
			return false;	/* writes rbp/rsp or a register */
	}
	return false;
}

/* The number in rax at the trap, followed into callers if needed. */
static void
resolve_one(struct analysis *a, struct raw_site *s)
{
	struct unit *u = s->unit;
	struct state st;
	struct val v;
	long idx;

	idx = sp_insn_index(&u->code, s->addr);
	if (idx >= 0 && resolve_in_block(u, (size_t)idx, &v)) {
		sp_nrset_clear(&s->nrs);
		sp_nrset_add_val(&s->nrs, &v);
		s->how = SP_HOW_CONSTANT;
		return;
	}
	if (idx < 0 || sp_unit_prepare(a, u, true) != 0 ||
	    !u->graph.converged) {
		unresolved(s, "data flow did not converge");
		return;
	}
	sp_flow_state_at(&u->graph, (size_t)idx, &st);
	v = st.r[SP_REG_RAX];
	sp_flow_open_ijmp_rax(&u->graph, st.origin, &v);
	sp_resolve_global(a, &v);
	struct presult modelled = { 0 };
	if (v.kind != V_SET && sp_model_numbers(a, st.origin ? st.origin :
	    u->start, &modelled)) {
		s->nrs = modelled.nrs;
		s->how = SP_HOW_CALLERS;
		if (modelled.nrs.top)
			unresolved(s, modelled.reason);
		return;
	}
	if (v.kind == V_GDEREF) {
		published(a, s, &v);
		return;
	}
	if (v.kind != V_SET && v.kind != V_DEREF) {
		unresolved(s, v.kind == V_STACK ? "number is a stack address" :
		    "number is computed or loaded from memory");
		return;
	}
	sp_nrset_clear(&s->nrs);
	s->how = SP_HOW_CONSTANT;
	if (v.kind == V_SET)
		sp_nrset_add_val(&s->nrs, &v);
	if (v.param == PARAM_NONE)
		return;
	uint64_t fn = st.origin ? st.origin : u->start;
	/* A parameter, or a number in memory a parameter points at (glibc's
	 * __nptl_setxid(&cmd)): the callers tell. */
	const struct presult *p = v.kind == V_DEREF ? sp_resolve_deref(a, fn,
	    v.param, (int64_t)v.c[0], (unsigned)v.c[1]) :
	    sp_resolve_param(a, fn, v.param);
	if (p->nrs.top || p->no_callers) {
		unresolved(s, p->nrs.top ? p->reason :
		    "number is a parameter and no caller was found");
		s->reason_addr = p->nrs.top ? p->reason_addr : 0;
		s->param_reg = (int8_t)(v.param < SP_NREGS ? v.param : -1);
		/* What the callers that can be read pass, each on its own
		 * (musl's __syscall_cp_asm: every cancellable call's number,
		 * beside the compare that takes its address): the site keeps
		 * those and its object's (lib/layout/place.c), never any. */
		if (v.kind == V_SET)
			sp_resolve_known(a, fn, v.param, &s->nrs);
		return;
	}
	sp_nrset_union(&s->nrs, &p->nrs);
	s->how = p->nvia ? SP_HOW_EXPORT : SP_HOW_CALLERS;
	s->nvia = p->nvia;
	memcpy(s->via_addr, p->via_addr, sizeof(s->via_addr));
	memcpy(s->via_param, p->via_param, sizeof(s->via_param));
	if (p->nvia)
		s->param_reg = p->via_param[0];
	if (s->nrs.top)
		unresolved(s, "too many different numbers");
}

/* Instructions before a trap that tell code from data. */
#define DATA_WINDOW 12

static bool
branches_outside(const struct sp_elf *elf, const struct insn *in)
{
	const struct sp_segment *s;

	if (in->flow != FLOW_JMP && in->flow != FLOW_JCC &&
	    in->flow != FLOW_CALL)
		return false;
	s = sp_elf_segment_at(elf, in->target);
	return s == NULL || !(s->flags & PF_X);
}

/*
 * Without unwind info or a symbol, a trap may be code (hand-written
 * assembly: musl has no CFI) or bytes of a table.  Decide by the
 * instructions just before it: data decodes into undecodable bytes, I/O,
 * far transfers, branches out of the code, odd byte registers.
 */
static bool
likely_data(const struct sp_elf *elf, const struct unit *u, uint64_t addr)
{
	long idx = sp_insn_index(&u->code, addr);
	unsigned weak = 0;

	if (idx < 0)
		return true;
	for (long i = idx - 1; i >= 0 && idx - i <= DATA_WINDOW; i--) {
		const struct insn *in = &u->code.v[i];
		if (in->odd == ODD_STRONG || branches_outside(elf, in))
			return true;
		weak += in->odd == ODD_WEAK;
	}
	return weak >= 3;
}

int
sp_sites_resolve(struct analysis *a, struct site_set *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		struct raw_site *s = &ss->v[i];
		if (sp_unit_prepare(a, s->unit, false) != 0)
			return -1;
		resolve_one(a, s);
		if (s->unit->covered && s->addr >= s->unit->covered_end)
			s->flags |= SP_SITE_UNCOVERED;	/* fell through */
		if (!s->unit->covered) {
			s->flags |= SP_SITE_UNCOVERED;
			if (likely_data(a->elf, s->unit, s->addr))
				s->flags |= SP_SITE_LIKELY_DATA;
		}
	}
	return 0;
}

/* Appends a number set to out->nrs; returns its first index and count. */
int
sp_emit_nrset(struct sp_scan *out, size_t *cap, const struct nrset *set,
    uint32_t *first, uint32_t *count)
{
	size_t n = set->top ? 0 : sp_nrset_list(set, NULL, 0);

	*first = (uint32_t)out->nnrs;
	*count = (uint32_t)n;
	if (out->nnrs + n > *cap) {
		size_t ncap = (*cap + n) * 2;
		uint32_t *v = realloc(out->nrs, ncap * sizeof(*v));
		if (v == NULL)
			return -1;
		out->nrs = v;
		*cap = ncap;
	}
	if (n > 0) {
		sp_nrset_list(set, out->nrs + out->nnrs, n);
		out->nnrs += n;
	}
	return 0;
}

static int
emit_export(struct analysis *a, struct sp_scan *out, uint64_t addr,
    int param)
{
	const char *name = NULL;

	for (size_t i = 0; i < out->nexports; i++)
		if (out->exports[i].addr == addr &&
		    out->exports[i].param_reg == param)
			return 0;
	if (!sp_is_export(a->elf, addr, &name))
		return 0;
	struct sp_export *v = realloc(out->exports,
	    (out->nexports + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	out->exports = v;
	v[out->nexports] = (struct sp_export){ strdup(name), addr,
	    (int8_t)param };
	if (v[out->nexports].symbol == NULL)
		return -1;
	out->nexports++;
	return 0;
}

static bool
is_site_opcode(const struct site_set *ss, size_t *k, uint64_t c)
{
	while (*k < ss->n && ss->v[*k].addr + ss->v[*k].len - 2 < c)
		(*k)++;
	return *k < ss->n && ss->v[*k].addr + ss->v[*k].len - 2 == c;
}

static int
emit_gadgets(const struct site_set *ss, struct sp_scan *out)
{
	size_t k = 0;

	out->gadgets = calloc(ss->ncand ? ss->ncand : 1, sizeof(uint64_t));
	if (out->gadgets == NULL)
		return -1;
	for (size_t i = 0; i < ss->ncand; i++)
		if (!is_site_opcode(ss, &k, ss->cand[i]))
			out->gadgets[out->ngadgets++] = ss->cand[i];
	return 0;
}

/* See sp_nr_restarts: the kernel's restart_syscall comes from the site. */
static void
add_restart(struct raw_site *r)
{
	if (r->kind != SP_TRAP_SYSCALL || r->nrs.top)
		return;
	for (uint32_t nr = 0; nr < 256; nr++)
		if (sp_nr_restarts(nr) &&
		    (r->nrs.bits[nr / 64] & (1ull << (nr % 64)))) {
			sp_nrset_add(&r->nrs, SP_NR_RESTART_SYSCALL);
			return;
		}
}

int
sp_sites_emit(struct analysis *a, struct site_set *ss, struct sp_scan *out)
{
	size_t cap = out->nnrs;

	out->sites = calloc(ss->n ? ss->n : 1, sizeof(*out->sites));
	if (out->sites == NULL)
		return -1;
	for (size_t i = 0; i < ss->n; i++) {
		struct raw_site *r = &ss->v[i];
		struct sp_site *s = &out->sites[out->nsites++];
		add_restart(r);
		*s = (struct sp_site){ .addr = r->addr, .length = r->len,
		    .kind = r->kind, .how = r->how, .flags = r->flags,
		    .param_reg = r->param_reg, .function = r->unit->start,
		    .reason = r->reason, .reason_addr = r->reason_addr };
		if (sp_emit_nrset(out, &cap, &r->nrs, &s->nr_first,
		    &s->nr_count) != 0)
			return -1;
		for (unsigned j = 0; j < r->nvia; j++)
			if (emit_export(a, out, r->via_addr[j],
			    r->via_param[j]) != 0)
				return -1;
	}
	return emit_gadgets(ss, out);
}
