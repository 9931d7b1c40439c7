/* SPDX-License-Identifier: ISC */
/*
 * The closure over a process's objects (lib/analysis/reach.h).  A
 * worklist of (object, function): a live function makes its edges' ends
 * live, and each name it calls makes every export of that name live, in
 * every object (the one ld.so binds it to is among them).  Objects that
 * cannot be modelled are live whole, and so is everything they call.
 * When a live function calls dlsym or dlvsym with a name that is not a
 * constant (SP_REACH_DLSYM_ANY), every export is a root and the closure
 * goes on.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/reach.h"


struct byname {
	const char *name;
	uint32_t obj, func;
};

struct work {
	const struct sp_reach_obj *objs;
	size_t n;
	struct sp_reach_result *r;
	struct byname *names;
	size_t nnames;
	struct sp_reach_edge *stack;	/* (object, function) */
	size_t nstack, capstack;
	bool oom;
};

static int
byname_cmp(const void *x, const void *y)
{
	return strcmp(((const struct byname *)x)->name,
	    ((const struct byname *)y)->name);
}

static int
index_exports(struct work *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->n; i++)
		if (w->objs[i].facts != NULL)
			n += w->objs[i].facts->nexports;
	if ((w->names = malloc((n + 1) * sizeof(*w->names))) == NULL)
		return -1;
	for (size_t i = 0; i < w->n; i++) {
		const struct sp_reach_facts *f = w->objs[i].facts;
		for (size_t k = 0; f != NULL && k < f->nexports; k++)
			w->names[w->nnames++] = (struct byname){
			    f->strtab + f->exports[k].from, (uint32_t)i,
			    f->exports[k].to };
	}
	qsort(w->names, w->nnames, sizeof(*w->names), byname_cmp);
	return 0;
}

static void
mark(struct work *w, uint32_t obj, uint32_t func)
{
	uint8_t *live = w->r->live[obj];

	if (live[func])
		return;
	live[func] = 1;
	if (w->nstack == w->capstack) {
		size_t cap = w->capstack ? 2 * w->capstack : 1024;
		void *p = realloc(w->stack, cap * sizeof(*w->stack));
		if (p == NULL) {
			w->oom = true;
			return;
		}
		w->stack = p;
		w->capstack = cap;
	}
	w->stack[w->nstack++] = (struct sp_reach_edge){ obj, func };
}

static void
widened(struct sp_reach_result *r, long obj, uint64_t at)
{
	for (size_t i = 0; i < r->ndlsym_by && i < SP_REACH_WIDEN_MAX; i++)
		if (r->dlsym_by[i].obj == obj && r->dlsym_by[i].at == at)
			return;
	if (r->ndlsym_by < SP_REACH_WIDEN_MAX)
		r->dlsym_by[r->ndlsym_by] = (struct sp_reach_widen){ obj, at };
	r->ndlsym_by++;
	r->dlsym = true;
}

/* Every export called name, in any object; obj calls it (-1: code
 * outside the image). */
static void
reach_name(struct work *w, const char *name, long obj)
{
	const size_t nany = strlen(SP_REACH_DLSYM_ANY);
	struct byname key = { name, 0, 0 };
	size_t lo = 0, hi = w->nnames;

	if (strncmp(name, SP_REACH_DLSYM_ANY, nany) == 0) {
		widened(w->r, obj, name[nany] == '@' ?
		    strtoull(name + nany + 1, NULL, 16) : 0);
		return;
	}

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(w->names[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->nnames && byname_cmp(&w->names[lo], &key) == 0; lo++)
		mark(w, w->names[lo].obj, w->names[lo].func);
}

/* The first of v[0..n) (sorted by from) whose from is func. */
static size_t
first_from(const struct sp_reach_edge *v, size_t n, uint32_t func)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].from < func)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The names called from func (SP_REACH_ALWAYS: from data). */
static void
calls_from(struct work *w, uint32_t obj, uint32_t func)
{
	const struct sp_reach_facts *f = w->objs[obj].facts;
	size_t i = first_from(f->calls, f->ncalls, func);

	for (; i < f->ncalls && f->calls[i].from == func; i++)
		reach_name(w, f->strtab + f->calls[i].to, (long)obj);
}

static void
edges_from(struct work *w, uint32_t obj, const struct sp_reach_facts *f,
    uint32_t func)
{
	size_t i = first_from(f->edges, f->nedges, func);

	for (; i < f->nedges && f->edges[i].from == func; i++)
		mark(w, obj, f->edges[i].to);
}

static void
drain(struct work *w)
{
	while (w->nstack > 0 && !w->oom) {
		struct sp_reach_edge e = w->stack[--w->nstack];
		const struct sp_reach_facts *f = w->objs[e.from].facts;
		edges_from(w, e.from, f, e.to);
		calls_from(w, e.from, e.to);
	}
}

static void
seed(struct work *w, size_t i)
{
	const struct sp_reach_facts *f = w->objs[i].facts;

	if (f == NULL)
		return;
	if (w->r->whole[i])
		for (size_t k = 0; k < f->nfuncs; k++)
			mark(w, (uint32_t)i, (uint32_t)k);
	for (size_t k = 0; k < f->nroots; k++)
		mark(w, (uint32_t)i, f->roots[k]);
	calls_from(w, (uint32_t)i, SP_REACH_ALWAYS);
}

/* Whether an export called name is live somewhere. */
static bool
live_export(const struct work *w, const char *name)
{
	for (size_t k = 0; k < w->nnames; k++)
		if (strcmp(w->names[k].name, name) == 0 &&
		    w->r->live[w->names[k].obj][w->names[k].func])
			return true;
	return false;
}

static int
alloc_result(struct work *w)
{
	struct sp_reach_result *r = w->r;

	memset(r, 0, sizeof(*r));
	r->nobjs = w->n;
	if ((r->live = calloc(w->n + 1, sizeof(*r->live))) == NULL ||
	    (r->whole = calloc(w->n + 1, sizeof(*r->whole))) == NULL)
		return -1;
	for (size_t i = 0; i < w->n; i++) {
		const struct sp_reach_facts *f = w->objs[i].facts;
		if ((r->live[i] = calloc((f ? f->nfuncs : 0) + 1, 1)) == NULL)
			return -1;
		r->whole[i] = f == NULL || f->whole != SP_REACH_PARTIAL ||
		    w->objs[i].whole != SP_REACH_PARTIAL;
		/* Without facts nothing says what it calls: anything. */
		if (f == NULL && w->objs[i].whole != SP_REACH_VDSO)
			r->unknown_imports = true;
	}
	return 0;
}

int
sp_reach_closure(const struct sp_reach_obj *objs, size_t n,
    const char *const *extra, size_t nextra, struct sp_reach_result *r,
    struct sp_error *err)
{
	struct work w = { .objs = objs, .n = n, .r = r };

	if (alloc_result(&w) != 0 || index_exports(&w) != 0)
		goto oom;
	for (size_t i = 0; i < n; i++)
		seed(&w, i);
	/* Code outside the image calls these; what it passes to dlsym is
	 * not known. */
	for (size_t i = 0; i < nextra; i++)
		reach_name(&w, strcmp(extra[i], "dlsym") == 0 ||
		    strcmp(extra[i], "dlvsym") == 0 ? SP_REACH_DLSYM_ANY :
		    extra[i], -1);
	drain(&w);
	if (r->unknown_imports)
		widened(r, -1, 0);
	r->dlopen = live_export(&w, "dlopen") || live_export(&w, "dlmopen");
	if (r->dlsym) {
		for (size_t k = 0; k < w.nnames; k++)
			mark(&w, w.names[k].obj, w.names[k].func);
		drain(&w);
	}
	if (w.oom)
		goto oom;
	free(w.names);
	free(w.stack);
	return 0;
oom:
	free(w.names);
	free(w.stack);
	sp_reach_result_free(r);
	return sp_error_set(err, "out of memory");
}

void
sp_reach_result_free(struct sp_reach_result *r)
{
	for (size_t i = 0; r->live != NULL && i < r->nobjs; i++)
		free(r->live[i]);
	free(r->live);
	free(r->whole);
	memset(r, 0, sizeof(*r));
}

bool
sp_reach_live(const struct sp_reach_result *r, size_t i,
    const struct sp_reach_facts *f, uint64_t addr)
{
	long k;

	if (i >= r->nobjs || r->whole[i] || f == NULL)
		return true;
	if ((k = sp_reach_func_at(f, addr)) < 0)
		return true;
	return r->live[i][k] != 0;
}
