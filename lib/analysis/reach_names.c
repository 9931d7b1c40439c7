/* SPDX-License-Identifier: ISC */
/*
 * The names a call of dlsym or dlvsym can ask for, analysed as a system
 * call's number is: the value of %rsi at the call, from data flow.  A
 * constant is the address of a string in the object's data; a parameter
 * of the function that calls dlsym is followed to that function's own
 * callers (nginx's module loader, a library's wrapper of dlsym), through
 * a few levels.  Anything else, an exported function (other objects may
 * call it with any name) or one whose address is taken (called from where
 * we cannot see), leaves the call unbounded: every export becomes a root,
 * as before.  The work per object is bounded: a file of many such calls
 * gets the unbounded answer for the rest.
 */
#include <string.h>

#include "reach_int.h"

/* Wrappers of wrappers deeper than this are not followed. */
#define MAX_DEPTH 4
/* Caller searches (each one a pass over the object's code) per object. */
#define MAX_SEARCHES 64

struct names_ctx {
	struct rf_build *b;
	int depth;
	const char **names;
	size_t *lens, max, n;
};

static int value_names(struct names_ctx *c, uint64_t func, struct val v);

/* A NUL-terminated identifier at addr, or NULL. */
const char *
sp_rf_string_at(const struct sp_elf *e, uint64_t addr, size_t *len)
{
	const struct sp_segment *s = sp_elf_segment_at(e, addr);
	const char *p;
	size_t n;

	if (s == NULL || addr - s->vaddr >= s->filesz)
		return NULL;
	p = (const char *)e->data + s->offset + (addr - s->vaddr);
	n = s->filesz - (addr - s->vaddr);
	for (*len = 0; *len < n && *len < 256 && p[*len] != '\0'; (*len)++)
		if (p[*len] <= ' ' || p[*len] > '~')
			return NULL;
	return *len > 0 && *len < n && p[*len] == '\0' ? p : NULL;
}

static int
add_name(struct names_ctx *c, uint64_t addr)
{
	const char *s;
	size_t len;

	if ((s = sp_rf_string_at(c->b->a->elf, addr, &len)) == NULL)
		return -1;
	for (size_t i = 0; i < c->n; i++)
		if (c->lens[i] == len && memcmp(c->names[i], s, len) == 0)
			return 0;
	if (c->n == c->max)
		return -1;
	c->names[c->n] = s;
	c->lens[c->n++] = len;
	return 0;
}

static int
caller_names(void *ctx, uint64_t caller, struct val v)
{
	return value_names(ctx, caller, v);
}

static int
param_names(struct names_ctx *c, uint64_t func, int param)
{
	long n;

	if (c->depth >= MAX_DEPTH || c->b->name_searches >= MAX_SEARCHES ||
	    param >= PARAM_STACK0 || sp_is_export(c->b->a->elf, func, NULL))
		return -1;
	c->b->name_searches++;
	c->depth++;
	n = sp_resolve_callers(c->b->a, func, param, caller_names, c);
	c->depth--;
	return n > 0 ? 0 : -1;	/* no caller we can see: not bounded */
}

static int
value_names(struct names_ctx *c, uint64_t func, struct val v)
{
	sp_resolve_global(c->b->a, &v);
	if (v.kind != V_SET || (v.n == 0 && v.param == PARAM_NONE))
		return -1;
	for (unsigned i = 0; i < v.n; i++)
		if (add_name(c, v.c[i]) != 0)
			return -1;
	return v.param == PARAM_NONE ? 0 : param_names(c, func, v.param);
}

int
sp_rf_dlsym_names(struct rf_build *b, struct unit *u, uint64_t addr,
    const char **names, size_t *lens, size_t max, size_t *n)
{
	struct names_ctx c = { b, 0, names, lens, max, 0 };
	struct state st;
	long idx;

	*n = 0;
	if (sp_unit_prepare(b->a, u, true) != 0 ||
	    (idx = sp_insn_index(&u->code, addr)) < 0)
		return 0;
	sp_flow_state_at(&u->graph, (size_t)idx, &st);
	if (!st.reached || value_names(&c, st.origin ? st.origin : u->start,
	    st.r[SP_REG_RSI]) != 0)
		return 0;
	*n = c.n;
	return 1;
}
