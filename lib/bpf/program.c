/* SPDX-License-Identifier: ISC */
/*
 * One seccomp program.  Layout, in execution order:
 *
 *   head     load arch; x86-64 -> x86 dispatch, else -> not64
 *   x86      load nr; tree over numbers -> a number's block, the shared
 *            "not pinned" block of its rule, violation (x32), or allow
 *            (numbers another program owns)
 *   chunks   tree pieces and their blocks
 *   not64    i386 -> i386 dispatch, else violation
 *   i386     load nr; tree; blocks (a miss is a violation)
 *   notpin   per argument rule: any_ips -> allowed, ranges -> violation,
 *            elsewhere -> allowed (or violation with SP_BPF_STRICT)
 *   returns
 *
 * A block loads the instruction pointer (only here: calls whose number
 * decides alone never read it) and searches the number's sites; a hit
 * runs the number's argument rule, a miss goes to "not pinned".
 *
 * The tree's upper part is kept compact and cut into chunks of at most
 * CHUNK instructions, tree and blocks together, so that jumps inside a
 * chunk are short and a path crosses at most one long jump to get there.
 */
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_int.h"

#define CHUNK 200

struct unit {
	uint32_t nr;
	const struct npin *p;	/* its sites */
	size_t np;
	uint32_t label;
	uint32_t bf, cf;	/* block and argument-rule fragments */
	size_t size;
	bool placed;
};

struct notpin {
	struct cont c;
	uint32_t label;
};

struct pgen {
	const struct norm *in;
	struct asm_ctx a;
	uint64_t klo, khi;
	uint32_t viol, allow, eacces;
	struct notpin np[8];
	size_t nnp;
	uint32_t tail[16];	/* notpin fragments, placed at the end */
	size_t ntail;
	/* the dispatch being built */
	uint64_t kbase;
	struct unit *u;
	size_t nu;
	const struct seg *segs;
	size_t *usz;		/* prefix sums of block sizes per segment */
	long *seg_unit;
};

static bool
owned(const struct pgen *g, uint64_t key)
{
	return key >= g->klo && key < g->khi;
}

static bool
in_list(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] == x)
			return true;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool
in_ranges(const struct norm *in, uint64_t ip)
{
	size_t lo = 0, hi = in->nranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ip < in->ranges[mid].start)
			hi = mid;
		else if (ip >= in->ranges[mid].end)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* ---- the shared "not pinned" blocks ---- */

struct np_ctx {
	const struct pgen *g;
	uint32_t pass;
};

static uint32_t
np_label(void *ctx, uint64_t ip)
{
	struct np_ctx *c = ctx;
	const struct norm *in = c->g->in;

	if (in_list(in->any, in->nany, ip))
		return c->pass;
	if (in_ranges(in, ip))
		return c->g->viol;
	return in->flags & SP_BPF_STRICT ? c->g->viol : c->pass;
}

static uint32_t
notpin(struct pgen *g, struct cont c)
{
	const struct norm *in = g->in;
	struct np_ctx ctx = { g, 0 };
	struct segs s = { NULL, 0 };
	uint64_t *br;
	uint32_t nf, cf, l;
	size_t i, n = 0;

	for (i = 0; i < g->nnp; i++)
		if (g->np[i].c.kind == c.kind && g->np[i].c.mask == c.mask)
			return g->np[i].label;
	nf = asm_frag(&g->a);
	cf = asm_frag(&g->a);
	ctx.pass = emit_cont(&g->a, cf, c, g->allow, g->eacces);
	if ((br = calloc(2 * (in->nany + in->nranges), sizeof(*br))) == NULL)
		goto oom;
	for (i = 0; i < in->nany; i++) {
		br[n++] = in->any[i];
		if (in->any[i] != UINT64_MAX)
			br[n++] = in->any[i] + 1;
	}
	for (i = 0; i < in->nranges; i++) {
		br[n++] = in->ranges[i].start;
		br[n++] = in->ranges[i].end;
	}
	if (segs_build(&s, br, n, np_label, &ctx) == -1)
		goto oom;
	l = asm_label(&g->a);
	asm_bind(&g->a, l, nf);
	if (classify64(&g->a, nf, &s) == -1)
		goto oom;
	segs_free(&s);
	free(br);
	g->np[g->nnp++] = (struct notpin){ c, l };
	g->tail[g->ntail++] = nf;
	g->tail[g->ntail++] = cf;
	return l;
oom:
	segs_free(&s);
	free(br);
	g->a.oom = true;
	return g->viol;
}

/* ---- one number's block ---- */

struct blk_ctx {
	const struct unit *u;
	uint32_t pass, miss;
};

static uint32_t
blk_label(void *ctx, uint64_t ip)
{
	struct blk_ctx *c = ctx;
	size_t lo = 0, hi = c->u->np;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->u->p[mid].ip == ip)
			return c->pass;
		if (c->u->p[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return c->miss;
}

static int
abi_of(uint64_t key)
{
	if (key < KEY_X86)
		return SP_ABI_I386;
	return key & SP_BPF_X32_BIT ? SP_ABI_X32 : SP_ABI_X86_64;
}

static int
make_block(struct pgen *g, struct unit *u)
{
	int abi = abi_of(g->kbase + u->nr);
	struct cont c = policy_cont(abi, u->nr, g->in->flags);
	struct blk_ctx ctx = { u, 0, 0 };
	struct segs s = { NULL, 0 };
	uint64_t *br;
	size_t i, n = 0;
	int rc = -1;

	u->cf = asm_frag(&g->a);
	u->bf = asm_frag(&g->a);
	ctx.pass = emit_cont(&g->a, u->cf, c, g->allow, g->eacces);
	ctx.miss = abi == SP_ABI_X86_64 ? notpin(g, c) : g->viol;
	if ((br = calloc(2 * u->np, sizeof(*br))) == NULL)
		return -1;
	for (i = 0; i < u->np; i++) {
		br[n++] = u->p[i].ip;
		if (u->p[i].ip != UINT64_MAX)
			br[n++] = u->p[i].ip + 1;
	}
	if (segs_build(&s, br, n, blk_label, &ctx) == -1)
		goto out;
	u->label = asm_label(&g->a);
	asm_bind(&g->a, u->label, u->bf);
	rc = classify64(&g->a, u->bf, &s);
	u->size = asm_frag_len(&g->a, u->bf) + asm_frag_len(&g->a, u->cf);
out:
	segs_free(&s);
	free(br);
	return rc;
}

/* ---- dispatch on the number ---- */

static const struct unit *
find_unit(const struct pgen *g, uint64_t nr)
{
	size_t lo = 0, hi = g->nu;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->u[mid].nr == nr)
			return &g->u[mid];
		if (g->u[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static uint32_t
nr_label(void *ctx, uint64_t nr)
{
	struct pgen *g = ctx;
	const struct unit *u;

	if (!owned(g, g->kbase + nr))
		return g->allow;
	if ((u = find_unit(g, nr)) != NULL)
		return u->label;
	if (g->kbase == 0 || nr & SP_BPF_X32_BIT)
		return g->viol;		/* i386 or x32, not pinned */
	return notpin(g, policy_cont(SP_ABI_X86_64, (uint32_t)nr,
	    g->in->flags));
}

static void
place_blocks(struct pgen *g, size_t i, size_t j)
{
	struct unit *u;

	for (; i < j; i++) {
		if (g->seg_unit[i] < 0)
			continue;
		u = &g->u[g->seg_unit[i]];
		if (u->placed)
			continue;
		asm_place(&g->a, u->bf);
		asm_place(&g->a, u->cf);
		u->placed = true;
	}
}

static size_t
region_size(const struct pgen *g, size_t i, size_t j)
{
	return tree_nodes(g->segs + i, j - i) + g->usz[j] - g->usz[i];
}

/* A subtree small enough for one chunk: its own fragment, blocks after. */
static bool
cut(void *ctx, size_t i, size_t j, uint32_t *label)
{
	struct pgen *g = ctx;
	uint32_t f;

	if (region_size(g, i, j) > CHUNK)
		return false;
	f = asm_frag(&g->a);
	*label = asm_label(&g->a);
	asm_bind(&g->a, *label, f);
	tree_emit(&g->a, f, g->segs + i, j - i, NULL, NULL);
	asm_place(&g->a, f);
	place_blocks(g, i, j);
	return true;
}

static int
collect_units(struct pgen *g)
{
	const struct norm *in = g->in;
	size_t i, j;

	g->nu = 0;
	if ((g->u = calloc(in->npins + 1, sizeof(*g->u))) == NULL)
		return -1;
	for (i = 0; i < in->npins; i = j) {
		for (j = i; j < in->npins && in->pins[j].key == in->pins[i].key;
		    j++)
			;
		if (!owned(g, in->pins[i].key) || in->pins[i].key < g->kbase ||
		    in->pins[i].key >= g->kbase + KEY_X86)
			continue;
		g->u[g->nu++] = (struct unit){ .nr = (uint32_t)(in->pins[i].key -
		    g->kbase), .p = &in->pins[i], .np = j - i };
	}
	for (i = 0; i < g->nu; i++)
		if (make_block(g, &g->u[i]) == -1)
			return -1;
	return 0;
}

static void
add_break(uint64_t *br, size_t *n, uint64_t v)
{
	if (v <= UINT32_MAX)	/* 2^32 would start nothing */
		br[(*n)++] = v;
}

static size_t
nr_breaks(const struct pgen *g, uint64_t *br)
{
	const uint32_t *pol;
	size_t i, n = 0;

	for (i = 0; i < g->nu; i++) {
		add_break(br, &n, g->u[i].nr);
		add_break(br, &n, (uint64_t)g->u[i].nr + 1);
	}
	pol = policy_numbers(g->kbase ? SP_ABI_X86_64 : SP_ABI_I386);
	for (i = 0; pol[i] != UINT32_MAX; i++) {
		add_break(br, &n, pol[i]);
		add_break(br, &n, (uint64_t)pol[i] + 1);
	}
	if (g->kbase) {
		add_break(br, &n, SP_BPF_X32_BIT);
		add_break(br, &n, 0x80000000u);
		add_break(br, &n, 0xc0000000u);
	}
	if (g->klo > g->kbase)
		add_break(br, &n, g->klo - g->kbase);
	if (g->khi > g->kbase)
		add_break(br, &n, g->khi - g->kbase);
	return n;
}

static int
index_segments(struct pgen *g, const struct segs *s)
{
	const struct unit *u;
	size_t i;

	g->segs = s->v;
	g->usz = calloc(s->n + 1, sizeof(*g->usz));
	g->seg_unit = calloc(s->n, sizeof(*g->seg_unit));
	if (g->usz == NULL || g->seg_unit == NULL)
		return -1;
	for (i = 0; i < s->n; i++) {
		u = find_unit(g, s->v[i].start);
		g->seg_unit[i] = u != NULL && u->label == s->v[i].label ?
		    u - g->u : -1;
		g->usz[i + 1] = g->usz[i] + (u != NULL &&
		    g->seg_unit[i] >= 0 ? u->size : 0);
	}
	return 0;
}

static void
dispatch_free(struct pgen *g)
{
	free(g->u);
	free(g->usz);
	free(g->seg_unit);
	g->u = NULL;
	g->usz = NULL;
	g->seg_unit = NULL;
	g->nu = 0;
}

/*
 * The dispatch for one arch (kbase: 0 for i386, KEY_X86 for x86-64).
 * Returns the label to jump to with the arch checked.
 */
static uint32_t
dispatch(struct pgen *g, uint64_t kbase)
{
	struct segs s = { NULL, 0 };
	uint64_t *br = NULL;
	uint32_t entry, f;
	size_t n;

	g->kbase = kbase;
	if (g->klo >= kbase + KEY_X86 || g->khi <= kbase)
		return g->allow;	/* another program owns this arch */
	if (collect_units(g) == -1 ||
	    (br = calloc(2 * g->nu + 32, sizeof(*br))) == NULL)
		goto oom;
	n = nr_breaks(g, br);
	if (segs_build(&s, br, n, nr_label, g) == -1 ||
	    index_segments(g, &s) == -1)
		goto oom;
	if (s.n == 1) {		/* the number does not matter */
		entry = s.v[0].label;
		goto out;
	}
	f = asm_frag(&g->a);
	entry = asm_label(&g->a);
	asm_bind(&g->a, entry, f);
	asm_ld(&g->a, f, OFF_NR);
	asm_place(&g->a, f);
	if (region_size(g, 0, s.n) <= CHUNK)
		tree_emit(&g->a, f, s.v, s.n, NULL, NULL);
	else
		tree_emit(&g->a, f, s.v, s.n, cut, g);
	place_blocks(g, 0, s.n);
out:
	segs_free(&s);
	free(br);
	dispatch_free(g);
	return entry;
oom:
	segs_free(&s);
	free(br);
	dispatch_free(g);
	g->a.oom = true;
	return g->viol;
}

static uint32_t
ret_frag(struct pgen *g, uint32_t k)
{
	uint32_t f = asm_frag(&g->a), l = asm_label(&g->a);

	asm_bind(&g->a, l, f);
	asm_ret(&g->a, f, k);
	return l;
}

int
build_program(const struct norm *in, uint64_t klo, uint64_t khi,
    struct sp_bpf_prog *prog, struct sp_error *err)
{
	struct pgen g;
	uint32_t head, not64, l64, x86, i386, first_ret;
	size_t i;
	int rc;

	memset(&g, 0, sizeof(g));
	g.in = in;
	g.klo = klo;
	g.khi = khi;
	asm_init(&g.a);
	head = asm_frag(&g.a);
	not64 = asm_frag(&g.a);
	first_ret = (uint32_t)g.a.nfrags;
	g.viol = ret_frag(&g, in->action);
	g.allow = ret_frag(&g, SECCOMP_RET_ALLOW);
	g.eacces = ret_frag(&g, SECCOMP_RET_ERRNO | EACCES);

	asm_place(&g.a, head);
	asm_ld(&g.a, head, OFF_ARCH);
	x86 = dispatch(&g, KEY_X86);
	l64 = asm_label(&g.a);
	asm_emit(&g.a, head, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64,
	    x86, l64);
	asm_bind(&g.a, l64, not64);
	asm_place(&g.a, not64);
	i386 = dispatch(&g, 0);
	asm_emit(&g.a, not64, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386,
	    i386, g.viol);
	for (i = 0; i < g.ntail; i++)
		asm_place(&g.a, g.tail[i]);
	for (i = 0; i < 3; i++)
		asm_place(&g.a, first_ret + (uint32_t)i);
	rc = asm_link(&g.a, prog, err);
	asm_fini(&g.a);
	return rc;
}
