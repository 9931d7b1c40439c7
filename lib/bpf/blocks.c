/* SPDX-License-Identifier: ISC */
/*
 * The blocks that look at the instruction pointer: one per pinned number
 * (its sites), and the shared "not pinned" blocks (any_ips, then the
 * ranges of the image).  Their jumps out go through exits (program.h).
 */
#include <linux/seccomp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "program.h"

/* ---- exits ---- */

static struct exit *
exit_find(struct pgen *g, struct exits *x, uint32_t target)
{
	size_t i;

	for (i = 0; i < x->n; i++)
		if (x->e[i].target == target)
			return &x->e[i];
	if (x->n == EXITS_MAX) {	/* more targets than there are */
		g->a.oom = true;
		return NULL;
	}
	memset(&x->e[x->n], 0, sizeof(x->e[x->n]));
	x->e[x->n].target = target;
	return &x->e[x->n++];
}

void
sp_exit_add(struct pgen *g, struct exits *x, uint32_t label, uint32_t target)
{
	struct exit *e;
	uint32_t *nl;

	if ((e = exit_find(g, x, target)) == NULL)
		return;
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 8;
		if ((nl = reallocarray(e->labels, e->cap, sizeof(*nl))) ==
		    NULL) {
			g->a.oom = true;
			return;
		}
		e->labels = nl;
	}
	e->labels[e->n++] = label;
}

uint32_t
sp_exit_label(struct pgen *g, struct exits *x, uint32_t target)
{
	uint32_t l = sp_asm_label(&g->a);

	sp_exit_add(g, x, l, target);
	return l;
}

/* One instruction per target: a return is copied, anything else is a
 * long jump. */
void
sp_exits_emit(struct pgen *g, struct exits *x, uint32_t frag)
{
	struct exit *e;
	size_t i, j, r;

	for (i = 0; i < x->n; i++) {
		e = &x->e[i];
		for (j = 0; j < e->n; j++)
			sp_asm_bind(&g->a, e->labels[j], frag);
		for (r = 0; r < NRET && e->target != g->ret[r]; r++)
			;
		if (r < NRET)
			sp_asm_ret(&g->a, frag, g->retval[r]);
		else
			sp_asm_emit(&g->a, frag, BPF_JMP | BPF_JA, 0, e->target,
			    e->target);
		free(e->labels);
	}
	x->n = 0;
}

static bool
is_ret(const struct pgen *g, uint32_t label)
{
	for (size_t r = 0; r < NRET; r++)
		if (g->ret[r] == label)
			return true;
	return false;
}

/* A continuation that may be a return goes through the chunk's exits. */
static uint32_t
via_exit(struct pgen *g, struct exits *x, uint32_t label)
{
	return is_ret(g, label) ? sp_exit_label(g, x, label) : label;
}

static bool
in_list(const uint64_t *v, size_t n, uint64_t x)
{
	size_t i = sp_lower_bound(v, n, sizeof(*v), 0, x);

	return i < n && v[i] == x;
}

uint64_t *
sp_norm_breaks(const struct norm *in, size_t *n)
{
	uint64_t *br;
	size_t i;

	if ((br = calloc(2 * in->nranges + 2, sizeof(*br))) == NULL)
		return NULL;
	*n = 0;
	for (i = 0; i < in->nranges; i++) {
		br[(*n)++] = in->ranges[i].start;
		br[(*n)++] = in->ranges[i].end;
	}
	br[(*n)++] = in->band.start;
	br[(*n)++] = in->band.end;
	return br;
}

/*
 * A call's ip is the address after its trap instruction (two bytes:
 * syscall, sysenter, int 0x80), or, for the vsyscall page's emulated
 * entries, the entry itself: a range's calls have their ip in
 * [start, end + 2).  Judged by the range alone, a trap in a range's last
 * two bytes (ip == end) would be outside every range, and allowed as a
 * later image's (blind round 9).
 */
uint64_t *
sp_norm_ip_breaks(const struct norm *in, size_t *n)
{
	uint64_t *br = sp_norm_breaks(in, n);

	/* the ends: every other point (segs_build sorts them) */
	for (size_t i = 1; br != NULL && i < *n; i += 2)
		br[i] += SP_TRAP_LEN;
	return br;
}

static bool
in_band_or_ranges(const struct norm *in, uint64_t a)
{
	return sp_norm_in_ranges(in, a) || (a >= in->band.start &&
	    a < in->band.end);
}

bool
sp_norm_ip_inside(const struct norm *in, uint64_t ip)
{
	for (uint64_t k = 0; k <= SP_TRAP_LEN; k++)
		if (ip >= k && in_band_or_ranges(in, ip - k))
			return true;
	return false;
}

bool
sp_norm_in_ranges(const struct norm *in, uint64_t ip)
{
	long i = SP_FLOOR_INDEX(in->ranges, in->nranges, start, ip);

	return i >= 0 && ip < in->ranges[i].end;
}

/* ---- the shared "not pinned" blocks ---- */

struct np_ctx {
	const struct pgen *g;
	uint32_t own, viol;
};

static uint32_t
np_label(void *ctx, uint64_t ip)
{
	struct np_ctx *c = ctx;
	const struct norm *in = c->g->in;

	return in_list(in->any, in->nany, ip) ? c->own : c->viol;
}

/*
 * The block a call of (abi, nr) goes to when its site is not pinned for
 * it.  The call comes from the image or the band (the prefilter let
 * nothing else through): from an any-number site it gets the image's own
 * rules, from anywhere else it is a violation.  One per distinct rule.
 */
uint32_t
sp_notpin(struct pgen *g, int abi, uint32_t nr)
{
	const struct norm *in = g->in;
	struct cont own = sp_policy_cont(in, abi, nr, CLS_OWN);
	struct np_ctx ctx = { g, 0, 0 };
	struct segs s = { NULL, 0 };
	struct exits x = { .n = 0 };
	uint64_t *br;
	uint32_t nf, cf, l;
	size_t i, n = 0;

	if (in->nany == 0)
		return g->ret[RET_VIOL];
	for (i = 0; i < g->nnp; i++)
		if (sp_cont_equal(g->np[i].c, own))
			return g->np[i].label;
	if (g->nnp == sizeof(g->np) / sizeof(*g->np) ||
	    g->ntail + 2 > sizeof(g->tail) / sizeof(*g->tail)) {
		g->a.oom = true;
		return g->ret[RET_VIOL];
	}
	nf = sp_asm_frag(&g->a);
	cf = sp_asm_frag(&g->a);
	ctx.own = via_exit(g, &x, sp_emit_cont(g, cf, own, g->ret[RET_ALLOW]));
	ctx.viol = sp_exit_label(g, &x, g->ret[RET_VIOL]);
	if ((br = calloc(2 * in->nany + 1, sizeof(*br))) == NULL)
		goto oom;
	for (i = 0; i < in->nany; i++) {
		br[n++] = in->any[i];
		if (in->any[i] != UINT64_MAX)
			br[n++] = in->any[i] + 1;
	}
	if (sp_segs_build(&s, br, n, np_label, &ctx) == -1)
		goto oom;
	l = sp_asm_label(&g->a);
	sp_asm_bind(&g->a, l, nf);
	if (sp_classify64(&g->a, nf, &s) == -1)
		goto oom;
	sp_exits_emit(g, &x, nf);
	sp_segs_free(&s);
	free(br);
	g->np[g->nnp++] = (struct sp_notpin){ own, l };
	g->tail[g->ntail++] = nf;
	g->tail[g->ntail++] = cf;
	return l;
oom:
	sp_exits_emit(g, &x, nf);
	sp_segs_free(&s);
	free(br);
	g->a.oom = true;
	return g->ret[RET_VIOL];
}

/* ---- one number's block ---- */

struct blk_ctx {
	const struct unit *u;
	uint32_t pass[2], miss;
};

static uint32_t
blk_label(void *ctx, uint64_t ip)
{
	struct blk_ctx *c = ctx;
	size_t i = SP_LOWER_BOUND(c->u->p, c->u->np, ip, ip);

	if (i < c->u->np && c->u->p[i].ip == ip)
		return c->pass[c->u->p[i].flags & SP_BPF_PIN_LOADER ?
		    CLS_LOADER : CLS_OWN];
	return c->miss;
}

static int
abi_of(uint64_t key)
{
	if (key < KEY_X86)
		return SP_ABI_I386;
	return key & SP_BPF_X32_BIT ? SP_ABI_X32 : SP_ABI_X86_64;
}

/* The continuation of sites of class cls (a return: through an exit). */
static void
make_pass(struct pgen *g, struct unit *u, int abi, enum site_class cls,
    struct blk_ctx *ctx)
{
	struct cont c = sp_policy_cont(g->in, abi, u->nr, cls);
	uint32_t l;

	if (cls == CLS_LOADER && sp_cont_equal(c, sp_policy_cont(g->in, abi,
	    u->nr, CLS_OWN))) {
		u->pass[cls] = u->pass[CLS_OWN];
		u->pass_far[cls] = false;	/* shares the own exit */
		ctx->pass[cls] = ctx->pass[CLS_OWN];
		return;
	}
	l = sp_emit_cont(g, u->cf, c, g->ret[RET_ALLOW]);
	u->pass_far[cls] = is_ret(g, l);
	u->pass_target[cls] = l;
	u->pass[cls] = u->pass_far[cls] ? sp_asm_label(&g->a) : l;
	ctx->pass[cls] = u->pass[cls];
}

int
sp_make_block(struct pgen *g, struct unit *u)
{
	int abi = abi_of(g->kbase + u->nr);
	struct blk_ctx ctx = { u, { 0, 0 }, 0 };
	struct segs s = { NULL, 0 };
	uint64_t *br;
	size_t i, n = 0;
	int rc = -1;

	u->cf = sp_asm_frag(&g->a);
	u->bf = sp_asm_frag(&g->a);
	make_pass(g, u, abi, CLS_OWN, &ctx);
	make_pass(g, u, abi, CLS_LOADER, &ctx);
	u->miss_target = abi == SP_ABI_X86_64 ? sp_notpin(g, abi, u->nr) :
	    g->ret[RET_VIOL];
	ctx.miss = u->miss_exit = sp_asm_label(&g->a);
	if ((br = calloc(2 * u->np, sizeof(*br))) == NULL)
		return -1;
	for (i = 0; i < u->np; i++) {
		br[n++] = u->p[i].ip;
		if (u->p[i].ip != UINT64_MAX)
			br[n++] = u->p[i].ip + 1;
	}
	if (sp_segs_build(&s, br, n, blk_label, &ctx) == -1)
		goto out;
	u->label = sp_asm_label(&g->a);
	sp_asm_bind(&g->a, u->label, u->bf);
	rc = sp_classify64(&g->a, u->bf, &s);
	u->size = sp_asm_frag_len(&g->a, u->bf) + sp_asm_frag_len(&g->a, u->cf);
out:
	sp_segs_free(&s);
	free(br);
	return rc;
}
