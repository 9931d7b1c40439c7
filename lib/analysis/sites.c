/* SPDX-License-Identifier: ISC */
/*
 * From trap instructions to resolved sites, and from those to the public
 * struct sp_scan.
 */
#include <stdlib.h>
#include <string.h>

#include "sites.h"

int
site_set_candidate(struct site_set *ss, uint64_t addr)
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
site_set_add(struct site_set *ss, struct unit *u, const struct insn *in)
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
site_set_free(struct site_set *ss)
{
	free(ss->cand);
	free(ss->v);
	memset(ss, 0, sizeof(*ss));
}

static void
unresolved(struct raw_site *s, const char *reason)
{
	s->how = SP_HOW_UNRESOLVED;
	s->nrs = val_top();
	s->reason = reason;
}

/* The number in rax at the trap, followed into callers if needed. */
static void
resolve_one(struct analysis *a, struct raw_site *s)
{
	struct unit *u = s->unit;
	struct state st;
	struct val v;
	long idx;

	idx = insn_index(&u->code, s->addr);
	if (idx < 0 || !u->graph.converged) {
		unresolved(s, "data flow did not converge");
		return;
	}
	flow_state_at(&u->graph, (size_t)idx, &st);
	v = st.r[SP_REG_RAX];
	if (v.kind != V_SET) {
		unresolved(s, v.kind == V_STACK ? "number is a stack address" :
		    "number is computed or loaded from memory");
		return;
	}
	s->nrs = v;
	s->nrs.param = PARAM_NONE;
	s->how = SP_HOW_CONSTANT;
	if (v.param == PARAM_NONE)
		return;
	const struct presult *p = resolve_param(a, u->start, v.param);
	if (p->nrs.kind == V_TOP || p->no_callers) {
		unresolved(s, p->nrs.kind == V_TOP ? p->reason :
		    "number is a parameter and no caller was found");
		s->param_reg = (int8_t)(v.param < SP_NREGS ? v.param : -1);
		return;
	}
	val_join(&s->nrs, &p->nrs);
	s->how = p->nvia ? SP_HOW_EXPORT : SP_HOW_CALLERS;
	s->nvia = p->nvia;
	memcpy(s->via_addr, p->via_addr, sizeof(s->via_addr));
	memcpy(s->via_param, p->via_param, sizeof(s->via_param));
	if (p->nvia)
		s->param_reg = p->via_param[0];
	if (s->nrs.kind == V_TOP)
		unresolved(s, "too many different numbers");
}

int
sites_resolve(struct analysis *a, struct site_set *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		struct raw_site *s = &ss->v[i];
		if (unit_prepare(a, s->unit, true) != 0)
			return -1;
		resolve_one(a, s);
		if (s->unit->covered && s->addr >= s->unit->covered_end)
			s->flags |= SP_SITE_UNCOVERED;	/* fell through */
		if (!s->unit->covered) {
			s->flags |= SP_SITE_UNCOVERED;
			if (s->unit->code.ninvalid > 0 ||
			    s->how == SP_HOW_UNRESOLVED)
				s->flags |= SP_SITE_LIKELY_DATA;
		}
	}
	return 0;
}

static int
u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Appends a site's numbers (low 32 bits, as the kernel reads them). */
static int
emit_nrs(struct sp_scan *out, size_t *cap, const struct raw_site *r,
    struct sp_site *s)
{
	uint32_t tmp[VAL_MAXC];
	unsigned n = 0;

	s->nr_first = (uint32_t)out->nnrs;
	s->nr_count = 0;
	if (r->nrs.kind != V_SET)
		return 0;
	for (unsigned i = 0; i < r->nrs.n; i++) {
		uint32_t nr = (uint32_t)r->nrs.c[i];
		bool dup = false;
		for (unsigned j = 0; j < n && !dup; j++)
			dup = tmp[j] == nr;
		if (!dup)
			tmp[n++] = nr;
	}
	qsort(tmp, n, sizeof(*tmp), u32_cmp);
	if (out->nnrs + n > *cap) {
		size_t ncap = (*cap + n) * 2;
		uint32_t *v = realloc(out->nrs, ncap * sizeof(*v));
		if (v == NULL)
			return -1;
		out->nrs = v;
		*cap = ncap;
	}
	memcpy(out->nrs + out->nnrs, tmp, n * sizeof(*tmp));
	out->nnrs += n;
	s->nr_count = n;
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
	if (!is_export(a->elf, addr, &name))
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

int
sites_emit(struct analysis *a, struct site_set *ss, struct sp_scan *out)
{
	size_t cap = 0;

	out->sites = calloc(ss->n ? ss->n : 1, sizeof(*out->sites));
	if (out->sites == NULL)
		return -1;
	for (size_t i = 0; i < ss->n; i++) {
		const struct raw_site *r = &ss->v[i];
		struct sp_site *s = &out->sites[out->nsites++];
		*s = (struct sp_site){ .addr = r->addr, .length = r->len,
		    .kind = r->kind, .how = r->how, .flags = r->flags,
		    .param_reg = r->param_reg, .function = r->unit->start,
		    .reason = r->reason };
		if (emit_nrs(out, &cap, r, s) != 0)
			return -1;
		for (unsigned j = 0; j < r->nvia; j++)
			if (emit_export(a, out, r->via_addr[j],
			    r->via_param[j]) != 0)
				return -1;
	}
	return emit_gadgets(ss, out);
}
