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
 *   notpin   per argument rule: any_ips -> the image's own rules, else
 *            violation (pre saw that ip is the image's or the band's)
 *   returns
 *
 * A block loads the instruction pointer (only here: calls whose number
 * decides alone never read it) and searches the number's sites; a hit
 * runs the number's argument rule (a loader site's may differ), a miss
 * goes to "not pinned".
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

#include "program.h"

#define CHUNK 200

static bool
owned(const struct pgen *g, uint64_t key)
{
	return key >= g->klo && key < g->khi;
}

/* ---- dispatch on the number ---- */

/* An x86-64 number narrowing denies in every form (bpf.h, 2a.). */
static bool
narrowed_whole(const struct pgen *g, uint64_t nr)
{
	uint32_t keep0;

	return nr < SP_BPF_X32_BIT && sp_norm_narrowed(g->in, (uint32_t)nr) &&
	    sp_bpf_narrow_exempt((uint32_t)nr, &keep0) == 0;
}

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
		return g->ret[RET_ALLOW];
	/* The supervisor's kill (SP_GUARD_KILL_NR) beats everything. */
	if (nr == SP_GUARD_KILL_NR && g->in->flags & SP_BPF_GUARD)
		return g->ret[RET_KILL];
	/* Narrowed: its sites are never looked at. */
	if (g->kbase != 0 && narrowed_whole(g, nr))
		return g->ret[RET_NARROW];
	if ((u = find_unit(g, nr)) != NULL)
		return u->label;
	if (g->kbase == 0 || nr & SP_BPF_X32_BIT)
		return g->ret[RET_VIOL];	/* i386 or x32, not pinned */
	return sp_notpin(g, SP_ABI_X86_64, (uint32_t)nr);
}

/* Places the blocks of segments [i, j) not placed yet, adding their jumps
 * out to x. */
static void
place_blocks(struct pgen *g, size_t i, size_t j, struct exits *x)
{
	struct unit *u;

	for (; i < j; i++) {
		if (g->seg_unit[i] < 0)
			continue;
		u = &g->u[g->seg_unit[i]];
		if (u->placed)
			continue;
		sp_asm_place(&g->a, u->bf);
		sp_asm_place(&g->a, u->cf);
		for (int c = CLS_OWN; c <= CLS_LOADER; c++)
			if (u->pass_far[c])
				sp_exit_add(g, x, u->pass[c],
				    u->pass_target[c]);
		sp_exit_add(g, x, u->miss_exit, u->miss_target);
		u->placed = true;
	}
}

static size_t
region_size(const struct pgen *g, size_t i, size_t j)
{
	return sp_tree_nodes(g->segs + i, j - i) + g->usz[j] - g->usz[i];
}

/*
 * Segments [i, j) as one chunk: the tree into frag (placed already), the
 * blocks, then one exit per target outside the chunk.
 */
static void
emit_chunk(struct pgen *g, uint32_t frag, size_t i, size_t j)
{
	struct exits x = { .n = 0 };
	struct seg *v;
	uint32_t ef;
	size_t k;

	if ((v = calloc(j - i, sizeof(*v))) == NULL) {
		g->a.oom = true;
		return;
	}
	for (k = i; k < j; k++) {
		v[k - i] = g->segs[k];
		if (g->seg_unit[k] < 0)
			v[k - i].label = sp_exit_label(g, &x, g->segs[k].label);
	}
	sp_tree_emit(&g->a, frag, v, j - i, NULL, NULL);
	free(v);
	place_blocks(g, i, j, &x);
	ef = sp_asm_frag(&g->a);
	sp_exits_emit(g, &x, ef);
	sp_asm_place(&g->a, ef);
}

/* A subtree small enough for one chunk. */
static bool
cut(void *ctx, size_t i, size_t j, uint32_t *label)
{
	struct pgen *g = ctx;
	uint32_t f;

	if (region_size(g, i, j) > CHUNK)
		return false;
	f = sp_asm_frag(&g->a);
	*label = sp_asm_label(&g->a);
	sp_asm_bind(&g->a, *label, f);
	sp_asm_place(&g->a, f);
	emit_chunk(g, f, i, j);
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
		    in->pins[i].key >= g->kbase + KEY_X86 ||
		    (g->kbase != 0 && narrowed_whole(g, in->pins[i].key -
		    g->kbase)))
			continue;
		g->u[g->nu++] = (struct unit){ .nr = (uint32_t)(in->pins[i].key -
		    g->kbase), .p = &in->pins[i], .np = j - i };
	}
	for (i = 0; i < g->nu; i++)
		if (sp_make_block(g, &g->u[i]) == -1)
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
npolicy(const struct pgen *g)
{
	const uint32_t *pol = sp_policy_numbers(g->kbase ? SP_ABI_X86_64 :
	    SP_ABI_I386);
	size_t n = 0;

	while (pol[n] != UINT32_MAX)
		n++;
	return n;
}

/* Numbers narrowing never denies whole (bpf.h, 2a.). */
static const uint32_t exempt[] = { 15, 60, 157, 231, 317, 462 };

static size_t
nr_breaks(const struct pgen *g, uint64_t *br)
{
	const uint32_t *pol;
	size_t i, n = 0;

	for (i = 0; i < g->nu; i++) {
		add_break(br, &n, g->u[i].nr);
		add_break(br, &n, (uint64_t)g->u[i].nr + 1);
	}
	pol = sp_policy_numbers(g->kbase ? SP_ABI_X86_64 : SP_ABI_I386);
	for (i = 0; pol[i] != UINT32_MAX; i++) {
		add_break(br, &n, pol[i]);
		add_break(br, &n, (uint64_t)pol[i] + 1);
	}
	add_break(br, &n, SP_GUARD_KILL_NR);
	add_break(br, &n, SP_GUARD_KILL_NR + 1);
	for (i = 0; g->kbase && i < g->in->nnarrow; i++) {
		add_break(br, &n, g->in->narrow[i]);
		add_break(br, &n, (uint64_t)g->in->narrow[i] + 1);
	}
	for (i = 0; g->kbase && (g->in->nnarrow > 0 || g->in->narrow_allow) &&
	    i < sizeof(exempt) / sizeof(*exempt); i++) {
		add_break(br, &n, exempt[i]);
		add_break(br, &n, (uint64_t)exempt[i] + 1);
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
	size_t n, i;

	g->kbase = kbase;
	if (g->klo >= kbase + KEY_X86 || g->khi <= kbase)
		return g->ret[RET_ALLOW];	/* another program owns it */
	if (collect_units(g) == -1 ||
	    (br = calloc(2 * g->nu + 2 * npolicy(g) + 2 * g->in->nnarrow +
	    2 * sizeof(exempt) / sizeof(*exempt) + 8, sizeof(*br))) ==
	    NULL)
		goto oom;
	n = nr_breaks(g, br);
	if (sp_segs_build(&s, br, n, nr_label, g) == -1 ||
	    index_segments(g, &s) == -1)
		goto oom;
	if (s.n == 1) {		/* the number does not matter */
		entry = s.v[0].label;
		goto out;
	}
	f = sp_asm_frag(&g->a);
	entry = sp_asm_label(&g->a);
	sp_asm_bind(&g->a, entry, f);
	sp_asm_ld(&g->a, f, OFF_NR);
	sp_asm_place(&g->a, f);
	if (region_size(g, 0, s.n) <= CHUNK)
		emit_chunk(g, f, 0, s.n);
	else {
		sp_tree_emit(&g->a, f, s.v, s.n, cut, g);
		/* blocks too big for a chunk, each with its exits */
		for (i = 0; i < s.n; i++)
			if (g->seg_unit[i] >= 0 && !g->u[g->seg_unit[i]].placed)
				emit_chunk(g, sp_asm_frag(&g->a), i, i + 1);
	}
out:
	sp_segs_free(&s);
	free(br);
	dispatch_free(g);
	return entry;
oom:
	sp_segs_free(&s);
	free(br);
	dispatch_free(g);
	g->a.oom = true;
	return g->ret[RET_VIOL];
}

/* A new label bound to the current end of frag. */
static uint32_t
here(struct pgen *g, uint32_t frag)
{
	uint32_t l = sp_asm_label(&g->a);

	sp_asm_bind(&g->a, l, frag);
	return l;
}

struct pre_ctx {
	const struct norm *in;
	uint32_t inside, outside;
};

static uint32_t
pre_label(void *ctx, uint64_t ip)
{
	const struct pre_ctx *c = ctx;

	if (sp_norm_ip_inside(c->in, ip))
		return c->inside;
	return c->outside;
}

/*
 * Before the number: a call from outside the image and the band (its ip
 * outside [start, end + 2) of each: sp_norm_ip_breaks) is a later image's
 * (this image has no code there), judged by that image's
 * own filter: allowed at once, so that every filter a process inherited
 * costs a few instructions per call.  The supervisor's kill number comes
 * first, wherever the call is.  With SP_BPF_STRICT or SP_BPF_OUTSIDE an
 * outside call is a violation.
 */
static void
prefilter(struct pgen *g, uint32_t frag, uint32_t dispatch_entry)
{
	const struct norm *in = g->in;
	struct pre_ctx c = { in, dispatch_entry, in->flags & (SP_BPF_STRICT |
	    SP_BPF_OUTSIDE) ? g->ret[RET_VIOL] : g->ret[RET_ALLOW] };
	struct segs s = { NULL, 0 };
	uint64_t *br;
	size_t n = 0;
	uint32_t next;

	if (in->flags & SP_BPF_GUARD && owned(g, KEY_X86 + SP_GUARD_KILL_NR)) {
		next = sp_asm_label(&g->a);
		sp_asm_ld(&g->a, frag, OFF_NR);
		sp_asm_emit(&g->a, frag, BPF_JMP | BPF_JEQ | BPF_K,
		    SP_GUARD_KILL_NR, g->ret[RET_KILL], next);
		sp_asm_bind(&g->a, next, frag);
	}
	if ((br = sp_norm_ip_breaks(in, &n)) == NULL) {
		g->a.oom = true;
		return;
	}
	if (sp_segs_build(&s, br, n, pre_label, &c) == -1 ||
	    sp_classify64(&g->a, frag, &s) == -1)
		g->a.oom = true;
	sp_segs_free(&s);
	free(br);
}

static uint32_t
ret_frag(struct pgen *g, uint32_t k)
{
	uint32_t f = sp_asm_frag(&g->a), l = sp_asm_label(&g->a);

	sp_asm_bind(&g->a, l, f);
	sp_asm_ret(&g->a, f, k);
	return l;
}

int
sp_build_program(const struct norm *in, uint64_t klo, uint64_t khi,
    struct sp_bpf_prog *prog, struct sp_error *err)
{
	struct pgen g;
	uint32_t head, pre, not64, l64, x86, i386, first_ret;
	size_t i;
	int rc;
	const uint32_t vals[NRET] = { in->action, SECCOMP_RET_ALLOW,
	    in->refuse, in->deny, in->place, SECCOMP_RET_KILL_PROCESS,
	    SECCOMP_RET_ERRNO | ENOSYS, in->narrowed, in->check };

	memset(&g, 0, sizeof(g));
	g.in = in;
	g.klo = klo;
	g.khi = khi;
	sp_asm_init(&g.a);
	head = sp_asm_frag(&g.a);
	not64 = sp_asm_frag(&g.a);
	first_ret = (uint32_t)g.a.nfrags;
	for (i = 0; i < NRET; i++) {
		g.retval[i] = vals[i];
		g.ret[i] = ret_frag(&g, vals[i]);
	}

	sp_asm_place(&g.a, head);
	sp_asm_ld(&g.a, head, OFF_ARCH);
	pre = sp_asm_frag(&g.a);
	sp_asm_place(&g.a, pre);
	x86 = dispatch(&g, KEY_X86);
	l64 = sp_asm_label(&g.a);
	sp_asm_emit(&g.a, head, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64,
	    here(&g, pre), l64);
	prefilter(&g, pre, x86);
	sp_asm_bind(&g.a, l64, not64);
	sp_asm_place(&g.a, not64);
	i386 = dispatch(&g, 0);
	sp_asm_emit(&g.a, not64, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386,
	    i386, g.ret[RET_VIOL]);
	for (i = 0; i < g.ntail; i++)
		sp_asm_place(&g.a, g.tail[i]);
	for (i = 0; i < NRET; i++)
		sp_asm_place(&g.a, first_ret + (uint32_t)i);
	rc = sp_asm_link(&g.a, prog, err);
	sp_asm_fini(&g.a);
	return rc;
}
