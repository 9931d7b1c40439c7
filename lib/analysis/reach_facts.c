/* SPDX-License-Identifier: ISC */
/*
 * An object's reachability facts from its code: every unit (units.c) is
 * decoded whole, and each direct call, jump, conditional jump,
 * jump-table case and fall-through that leaves it becomes an edge to the
 * unit it lands in.  A rip-relative operand that points at code takes
 * that code's address (lea of a callback, a signal trampoline, a thread's
 * start routine): whoever takes an address may call it, so it is an edge
 * too.  A call or jump to a PLT stub, `call *slot(%rip)` and a load of a
 * GOT slot name an import.  Data and relocations are reach_data.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "reach_int.h"

int
sp_rf_push(struct rf_vec *v, uint32_t from, uint32_t to)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 256;
		void *p = realloc(v->v, cap * sizeof(*v->v));
		if (p == NULL)
			return -1;
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = (struct sp_reach_edge){ from, to };
	return 0;
}

static uint32_t
hash_of(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static int
rf_rehash(struct rf_build *b)
{
	size_t cap = b->caphash ? 2 * b->caphash : 1024;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (h == NULL)
		return -1;
	for (size_t i = 0; i < b->caphash; i++) {
		if (b->hash[i] == 0)
			continue;
		const char *s = b->str + b->hash[i] - 1;
		size_t k = hash_of(s, strlen(s)) & (cap - 1);
		while (h[k] != 0)
			k = (k + 1) & (cap - 1);
		h[k] = b->hash[i];
	}
	free(b->hash);
	b->hash = h;
	b->caphash = cap;
	return 0;
}

uint32_t
sp_rf_name(struct rf_build *b, const char *name, size_t len)
{
	size_t k;

	if (2 * (b->nhash + 1) > b->caphash && rf_rehash(b) != 0)
		return UINT32_MAX;
	k = hash_of(name, len) & (b->caphash - 1);
	for (; b->hash[k] != 0; k = (k + 1) & (b->caphash - 1)) {
		const char *s = b->str + b->hash[k] - 1;
		if (strncmp(s, name, len) == 0 && s[len] == '\0')
			return b->hash[k] - 1;
	}
	if (b->nstr + len + 1 > b->capstr) {
		size_t cap = b->capstr ? 2 * b->capstr : 4096;
		while (cap < b->nstr + len + 1)
			cap *= 2;
		char *p = realloc(b->str, cap);
		if (p == NULL)
			return UINT32_MAX;
		b->str = p;
		b->capstr = cap;
	}
	memcpy(b->str + b->nstr, name, len);
	b->str[b->nstr + len] = '\0';
	b->hash[k] = (uint32_t)b->nstr + 1;
	b->nhash++;
	b->nstr += len + 1;
	return b->hash[k] - 1;
}

long
sp_rf_func(const struct rf_build *b, uint64_t addr)
{
	struct unit *u = sp_unit_at(b->a, addr);

	return u == NULL ? -1 : (long)(u - b->a->units);
}

int
sp_rf_root(struct rf_build *b, uint64_t addr)
{
	long f = sp_rf_func(b, addr);

	if (f < 0)
		return 0;
	if (b->nroots == b->caproots) {
		size_t cap = b->caproots ? 2 * b->caproots : 256;
		void *p = realloc(b->roots, cap * sizeof(*b->roots));
		if (p == NULL)
			return -1;
		b->roots = p;
		b->caproots = cap;
	}
	b->roots[b->nroots++] = (uint32_t)f;
	return 0;
}

static const char *
plt_name(const struct sp_plt_entry *v, size_t n, uint64_t addr)
{
	size_t i = SP_LOWER_BOUND(v, n, addr, addr);

	return i < n && v[i].addr == addr ? v[i].name : NULL;
}

/* addr lies in a PLT stub: its jump is no call of the import (the
 * stub's callers are, each where it calls). */
static bool
in_plt_stub(const struct sp_elf *e, uint64_t addr)
{
	long i = SP_FLOOR_INDEX(e->plt, e->nplt, addr, addr);

	return i >= 0 && addr - e->plt[i].addr < 16;
}

static int
call_name(struct rf_build *b, uint32_t from, const char *name)
{
	uint32_t off = sp_rf_name(b, name, strlen(name));

	return off == UINT32_MAX ? -1 : sp_rf_push(&b->calls, from, off);
}

/* A dlsym call (or reference) at addr whose name we cannot bound. */
static int
dlsym_any(struct rf_build *b, uint32_t from, uint64_t addr)
{
	char name[32];

	if (addr == 0)
		return call_name(b, from, SP_REACH_DLSYM_ANY);
	snprintf(name, sizeof(name), SP_REACH_DLSYM_ANY "@%llx",
	    (unsigned long long)addr);
	return call_name(b, from, name);
}

static bool
is_dlsym(const char *name)
{
	return strcmp(name, "dlsym") == 0 || strcmp(name, "dlvsym") == 0;
}

/*
 * dlsym(handle, name) at instruction i of u: each name it can ask for is
 * called (reach_names.c), or, when they are not bounded,
 * SP_REACH_DLSYM_ANY: any export may be looked up.
 */
#define MAX_NAMES 32

static int
dlsym_call(struct rf_build *b, uint32_t f, struct unit *u, uint64_t at)
{
	const char *names[MAX_NAMES];
	size_t lens[MAX_NAMES], n;

	if (sp_rf_dlsym_names(b, u, at, names, lens, MAX_NAMES, &n) != 1)
		return dlsym_any(b, f, at);
	for (size_t k = 0; k < n; k++) {
		uint32_t off = sp_rf_name(b, names[k], lens[k]);
		if (off == UINT32_MAX || sp_rf_push(&b->calls, f, off) != 0)
			return -1;
	}
	return 0;
}

int
sp_rf_plt_ref(struct rf_build *b, uint32_t f, uint64_t addr)
{
	const struct sp_elf *e = b->a->elf;
	const char *name = plt_name(e->plt, e->nplt, addr);

	if (name == NULL)
		return 0;
	return call_name(b, f, is_dlsym(name) ? SP_REACH_DLSYM_ANY : name) ==
	    0 ? 1 : -1;
}

/* An address the instruction in function f refers to; *import: the
 * import it names. */
static int
refer(struct rf_build *b, uint32_t f, uint64_t from, uint64_t to, bool slot,
    const char **import)
{
	const struct sp_elf *e = b->a->elf;
	const char *name;
	long g;

	if ((name = plt_name(e->plt, e->nplt, to)) != NULL ||
	    (slot && (name = plt_name(e->got, e->ngot, to)) != NULL)) {
		if (import != NULL)
			*import = name;
		if (import == NULL && is_dlsym(name))
			return dlsym_any(b, f, from);
		return call_name(b, f, name);
	}
	if ((g = sp_rf_func(b, to)) < 0 || (uint32_t)g == f)
		return 0;
	return sp_rf_push(&b->edges, f, (uint32_t)g);
}

/*
 * A PIC jump table at `table` (32-bit offsets from its start) whose cases
 * may lie outside the function: gcc moves cold cases into a function of
 * their own (foo.cold).  jumptable.c keeps only the cases inside the
 * unit; here every entry that lands in code is an edge, until one does
 * not (entries past the table only add edges: the safe direction).
 */
#define MAX_TABLE 4096

static int
rel_table(struct rf_build *b, uint32_t f, uint64_t table)
{
	for (unsigned k = 0; k < MAX_TABLE; k++) {
		const uint8_t *p = sp_elf_vaddr_ptr(b->a->elf, table + 4ull * k,
		    4);
		int32_t d;
		long g;
		if (p == NULL)
			break;
		memcpy(&d, p, 4);
		if ((g = sp_rf_func(b, table + (uint64_t)(int64_t)d)) < 0)
			break;
		if ((uint32_t)g != f &&
		    sp_rf_push(&b->edges, f, (uint32_t)g) != 0)
			return -1;
	}
	return 0;
}

/* Tables of u's indirect jumps: every rip-relative operand into data. */
static int
unit_tables(struct rf_build *b, uint32_t f, const struct unit *u)
{
	bool ijmp = false;

	for (size_t i = 0; i < u->code.n && !ijmp; i++)
		ijmp = u->code.v[i].flow == FLOW_IJMP &&
		    u->code.v[i].target == 0;
	for (size_t i = 0; ijmp && i < u->code.n; i++) {
		uint64_t t = u->code.v[i].riprel;
		if (t != 0 && sp_rf_func(b, t) < 0 && rel_table(b, f, t) != 0)
			return -1;
	}
	return 0;
}

static bool
falls_off(const struct insn *in)
{
	switch (in->flow) {
	case FLOW_JMP: case FLOW_IJMP: case FLOW_RET: case FLOW_STOP:
		return false;
	case FLOW_CALL:
		return true;	/* a "noreturn" call may return after all */
	default:
		return true;
	}
}

/* dlsym calls of one function whose names are read after its edges
 * (data flow may re-decode the function); the rest are unbounded. */
#define MAX_DLSYM_CALLS 16

static int
unit_edges(struct rf_build *b, uint32_t f)
{
	struct unit *u = &b->a->units[f];
	const struct insn *last = NULL;
	uint64_t dl[MAX_DLSYM_CALLS];
	size_t ndl = 0;

	if (sp_unit_prepare(b->a, u, false) != 0)
		return -1;
	for (size_t i = 0; i < u->code.n; i++) {
		const struct insn *in = &u->code.v[i];
		const char *import = NULL;
		int rc = 0;
		last = in;
		switch (in->flow) {
		case FLOW_INVALID:
			if (u->covered && in->addr < u->covered_end)
				b->undecoded++;
			break;
		case FLOW_CALL: case FLOW_JMP: case FLOW_JCC:
			rc = refer(b, f, in->addr, in->target, false,
			    &import);
			break;
		case FLOW_ICALL: case FLOW_IJMP:
			if (in->target != 0)
				rc = refer(b, f, in->addr, in->target, true,
				    &import);
			break;
		default:
			break;
		}
		if (rc == 0 && import != NULL && is_dlsym(import) &&
		    !in_plt_stub(b->a->elf, in->addr)) {
			if (ndl < MAX_DLSYM_CALLS)
				dl[ndl++] = in->addr;
			else
				rc = dlsym_any(b, f, in->addr);
		} else if (rc == 0 && in->riprel != 0 && in->target == 0)
			rc = refer(b, f, in->addr, in->riprel, true, NULL);
		if (rc != 0)
			return -1;
	}
	for (size_t e = 0; e < u->code.njt; e++)
		if (refer(b, f, 0, u->code.jt[e].to, false, NULL) != 0)
			return -1;
	if (unit_tables(b, f, u) != 0)
		return -1;
	/* Code that runs off the end continues in the next unit. */
	if ((last == NULL || falls_off(last)) && f + 1 < b->a->nunits &&
	    b->a->units[f + 1].start == u->end &&
	    sp_rf_push(&b->edges, f, f + 1) != 0)
		return -1;
	for (size_t k = 0; k < ndl; k++)
		if (dlsym_call(b, f, u, dl[k]) != 0)
			return -1;
	sp_unit_release(u);
	return 0;
}

static int
edge_cmp(const void *x, const void *y)
{
	const struct sp_reach_edge *a = x, *b = y;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

/* Sorted by from, duplicates dropped. */
static void
rf_sort(struct rf_vec *v)
{
	size_t k = 0;

	if (v->n > 1)
		qsort(v->v, v->n, sizeof(*v->v), edge_cmp);
	for (size_t i = 0; i < v->n; i++)
		if (k == 0 || edge_cmp(&v->v[k - 1], &v->v[i]) != 0)
			v->v[k++] = v->v[i];
	v->n = k;
}

static int
exports(struct rf_build *b)
{
	const struct sp_elf *e = b->a->elf;

	for (size_t i = 0; i < e->nexports; i++) {
		long g = sp_rf_func(b, e->exports[i].addr);
		uint32_t off;
		if (g < 0)
			continue;
		off = sp_rf_name(b, e->exports[i].name,
		    strlen(e->exports[i].name));
		if (off == UINT32_MAX || sp_rf_push(&b->exports, off,
		    (uint32_t)g) != 0)
			return -1;
	}
	return 0;
}

/* Every import of e, called from data: what a whole object may call. */
static int
all_imports(struct rf_build *b)
{
	const struct sp_elf *e = b->a->elf;

	for (size_t i = 0; i < e->ngot; i++)
		if (call_name(b, SP_REACH_ALWAYS, is_dlsym(e->got[i].name) ?
		    SP_REACH_DLSYM_ANY : e->got[i].name) != 0)
			return -1;
	return 0;
}

static uint32_t
whole_kind(const struct sp_elf *e, size_t nunits, uint64_t code)
{
	if (code > SP_REACH_MAX_CODE)
		return SP_REACH_LARGE;
	if (e->kind == SP_ELF_EXEC_STATIC || e->kind == SP_ELF_STATIC_PIE)
		return SP_REACH_STATIC;
	if (e->go || sp_elf_symbol_named(e, "runtime.main") != NULL)
		return SP_REACH_GO;
	if (nunits > 0 && e->nfdes == 0 && e->nsyms == 0)
		return SP_REACH_NO_UNITS;
	return SP_REACH_PARTIAL;
}

static void
adopt(struct rf_build *b, struct sp_reach_facts *f)
{
	f->funcs = malloc((b->a->nunits + 1) * sizeof(*f->funcs));
	for (size_t i = 0; f->funcs != NULL && i < b->a->nunits; i++)
		f->funcs[i] = (struct sp_reach_func){ b->a->units[i].start,
		    b->a->units[i].end };
	f->nfuncs = f->funcs != NULL ? b->a->nunits : 0;
	rf_sort(&b->edges);
	rf_sort(&b->calls);
	f->roots = b->roots;
	f->nroots = b->nroots;
	f->edges = b->edges.v;
	f->nedges = b->edges.n;
	f->calls = b->calls.v;
	f->ncalls = b->calls.n;
	f->exports = b->exports.v;
	f->nexports = b->exports.n;
	f->strtab = b->str;
	f->strtab_size = b->nstr;
}

int
sp_reach_facts_build(const struct sp_elf *elf, struct sp_reach_facts *f,
    struct sp_error *err)
{
	struct analysis a = { .elf = elf };
	static const struct sp_scan_opts defaults = { 0 };
	struct rf_build b = { .a = &a };
	uint64_t code = 0;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	a.opts = &defaults;
	if (elf->machine != EM_X86_64)
		return sp_error_set(err, "unsupported architecture");
	if ((a.dec = sp_decoder_new()) == NULL || sp_units_build(&a) != 0)
		goto out;
	for (size_t i = 0; i < elf->nsegs; i++)
		if (elf->segs[i].flags & PF_X)
			code += elf->segs[i].filesz;
	f->whole = whole_kind(elf, a.nunits, code);
	for (size_t i = 0; i < a.nunits && f->whole != SP_REACH_LARGE; i++)
		if (unit_edges(&b, (uint32_t)i) != 0)
			goto out;
	if (f->whole == SP_REACH_LARGE && all_imports(&b) != 0)
		goto out;
	if (sp_rf_data(&b) != 0 || exports(&b) != 0)
		goto out;
	/* A few undecodable bytes are data in code (a literal pool); more
	 * mean code we do not understand, whose edges we may have missed. */
	if (f->whole == SP_REACH_PARTIAL && b.undecoded > 64)
		f->whole = SP_REACH_UNDECODED;
	adopt(&b, f);
	if (f->funcs == NULL)
		goto out;
	memset(&b.edges, 0, sizeof(b.edges));
	memset(&b.calls, 0, sizeof(b.calls));
	memset(&b.exports, 0, sizeof(b.exports));
	b.roots = NULL;
	b.str = NULL;
	rc = 0;
out:
	if (rc != 0) {
		sp_reach_facts_free(f);
		sp_error_set(err, "out of memory");
	}
	free(b.edges.v);
	free(b.calls.v);
	free(b.exports.v);
	free(b.roots);
	free(b.str);
	free(b.hash);
	sp_units_free(&a);
	free(a.memo);
	sp_decoder_free(a.dec);
	return rc;
}

void
sp_reach_facts_free(struct sp_reach_facts *f)
{
	if (f->buf == NULL) {
		free(f->funcs);
		free(f->roots);
		free(f->edges);
		free(f->calls);
		free(f->exports);
		free(f->strtab);
	}
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

long
sp_reach_func_at(const struct sp_reach_facts *f, uint64_t addr)
{
	/* The first function ending after addr (ends are ascending). */
	size_t i = SP_LOWER_BOUND(f->funcs, f->nfuncs, end, addr + 1);

	if (i < f->nfuncs && f->funcs[i].start <= addr &&
	    addr < f->funcs[i].end)
		return (long)i;
	return -1;
}
