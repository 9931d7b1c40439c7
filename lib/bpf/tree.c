/* SPDX-License-Identifier: ISC */
/*
 * Decision trees.  A key space is partitioned into labelled segments; a
 * balanced tree of BPF_JGE finds the segment of the key in the accumulator
 * in about log2(segments) steps, whatever the number of segments.  A lone
 * value between two segments of one label (a pinned number, a site) costs
 * a single BPF_JEQ.  64-bit keys (instruction pointers) are split: a tree
 * over the high words, then for each high word that holds a boundary a
 * tree over the low words.
 */
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "bpf_int.h"

static int
cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts breaks (which it may modify) and labels the segments they start. */
int
sp_segs_build(struct segs *s, uint64_t *breaks, size_t n, label_fn *fn,
    void *ctx)
{
	size_t i;
	uint32_t l;

	s->n = 0;
	if ((s->v = calloc(n + 1, sizeof(*s->v))) == NULL)
		return -1;
	/* often in order already (a unit's sites): qsort would still
	 * merge-sort them, a tenth of the generator's time */
	for (i = 1; i < n && breaks[i - 1] <= breaks[i]; i++)
		;
	if (i < n)
		qsort(breaks, n, sizeof(*breaks), cmp64);
	s->v[s->n++] = (struct seg){ 0, fn(ctx, 0) };
	for (i = 0; i < n; i++) {
		if (breaks[i] == s->v[s->n - 1].start)
			continue;
		l = fn(ctx, breaks[i]);
		if (l != s->v[s->n - 1].label)
			s->v[s->n++] = (struct seg){ breaks[i], l };
	}
	return 0;
}

void
sp_segs_free(struct segs *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* [d, v, d] with v a single value: one JEQ. */
static bool
is_point(const struct seg *s, size_t i, size_t j)
{
	return j - i == 3 && s[i].label == s[i + 2].label &&
	    s[i + 2].start == s[i + 1].start + 1;
}

size_t
sp_tree_nodes(const struct seg *s, size_t n)
{
	if (n <= 1)
		return 0;
	if (is_point(s, 0, n))
		return 1;
	return 1 + sp_tree_nodes(s, n / 2) +
	    sp_tree_nodes(s + n / 2, n - n / 2);
}

struct tree {
	struct asm_ctx *a;
	uint32_t frag;
	const struct seg *s;
	cut_fn *cut;
	void *ctx;
};

/* The label that starts the subtree over [i, j); *fresh when the subtree
 * must still be emitted. */
static uint32_t
sub_label(struct tree *t, size_t i, size_t j, bool *fresh)
{
	uint32_t l;

	*fresh = false;
	if (j - i == 1)
		return t->s[i].label;
	if (t->cut != NULL && t->cut(t->ctx, i, j, &l))
		return l;
	*fresh = true;
	return sp_asm_label(t->a);
}

static void
emit_sub(struct tree *t, size_t i, size_t j, uint32_t self)
{
	uint32_t lt, lf;
	bool ft, ff;
	size_t mid;

	sp_asm_bind(t->a, self, t->frag);
	if (is_point(t->s, i, j)) {
		sp_asm_emit(t->a, t->frag, BPF_JMP | BPF_JEQ | BPF_K,
		    (uint32_t)t->s[i + 1].start, t->s[i + 1].label,
		    t->s[i].label);
		return;
	}
	mid = i + (j - i) / 2;
	lf = sub_label(t, i, mid, &ff);
	lt = sub_label(t, mid, j, &ft);
	sp_asm_emit(t->a, t->frag, BPF_JMP | BPF_JGE | BPF_K,
	    (uint32_t)t->s[mid].start, lt, lf);
	/* the "less" side right behind, so that side needs no offset */
	if (ff)
		emit_sub(t, i, mid, lf);
	if (ft)
		emit_sub(t, mid, j, lt);
}

/*
 * Emits into frag a tree that jumps to the label of the segment holding the
 * accumulator.  The segments' starts must fit 32 bits.  With n == 1 it
 * emits a plain jump.
 */
void
sp_tree_emit(struct asm_ctx *a, uint32_t frag, const struct seg *s, size_t n,
    cut_fn *cut, void *ctx)
{
	struct tree t = { a, frag, s, cut, ctx };
	uint32_t l;
	bool fresh;

	l = sub_label(&t, 0, n, &fresh);
	if (fresh)
		emit_sub(&t, 0, n, l);
	else
		sp_asm_emit(a, frag, BPF_JMP | BPF_JA, 0, l, l);
}

/* ---- 64-bit keys ---- */

struct hi_ctx {
	const struct segs *s;
	const uint32_t *split;	/* high words with a boundary inside */
	const uint32_t *lo_label;
	size_t nsplit;
};

/* Index of the segment holding key. */
static size_t
seg_find(const struct segs *s, uint64_t key)
{
	long i = SP_FLOOR_INDEX(s->v, s->n, start, key);

	return i < 0 ? 0 : (size_t)i;
}

static uint32_t
hi_label(void *ctx, uint64_t h)
{
	struct hi_ctx *c = ctx;
	size_t lo = 0, hi = c->nsplit;

	while (lo < hi) {	/* split is sorted; 32-bit words */
		size_t mid = lo + (hi - lo) / 2;
		if (c->split[mid] == h)
			return c->lo_label[mid];
		if (c->split[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return c->s->v[seg_find(c->s, h << 32)].label;
}

static int
emit_lo(struct asm_ctx *a, uint32_t frag, const struct segs *s, uint32_t h,
    uint32_t label, uint32_t off)
{
	struct seg *v;
	size_t i, n = 0, first;

	first = seg_find(s, (uint64_t)h << 32);
	if ((v = calloc(s->n - first, sizeof(*v))) == NULL)
		return -1;
	v[n++] = (struct seg){ 0, s->v[first].label };
	for (i = first + 1; i < s->n && s->v[i].start >> 32 == h; i++)
		v[n++] = (struct seg){ s->v[i].start & 0xffffffff,
		    s->v[i].label };
	sp_asm_bind(a, label, frag);
	sp_asm_ld(a, frag, off);
	sp_tree_emit(a, frag, v, n, NULL, NULL);
	free(v);
	return 0;
}

/*
 * Emits into frag: load the high word of the instruction pointer, find
 * its segment.  Fails only when out of memory.
 */
int
sp_classify64(struct asm_ctx *a, uint32_t frag, const struct segs *s)
{
	return sp_classify64_at(a, frag, s, OFF_IP_LO);
}

int
sp_classify64_at(struct asm_ctx *a, uint32_t frag, const struct segs *s,
    uint32_t off)
{
	struct hi_ctx c = { s, NULL, NULL, 0 };
	uint32_t *split, *lo_label;
	uint64_t *breaks;
	struct segs hs = { NULL, 0 };
	size_t i, nb = 0;
	int rc = -1;

	if (s->n == 1) {	/* constant: no need to look */
		sp_asm_emit(a, frag, BPF_JMP | BPF_JA, 0, s->v[0].label,
		    s->v[0].label);
		return 0;
	}
	split = calloc(s->n, sizeof(*split));
	lo_label = calloc(s->n, sizeof(*lo_label));
	breaks = calloc(2 * s->n, sizeof(*breaks));
	if (split == NULL || lo_label == NULL || breaks == NULL)
		goto out;
	/* The segments are sorted, so their high words are too: each break
	 * is kept once and in order (the breaks of many segments in one
	 * high word, h, h + 1, h, h + 1..., made sp_segs_build sort every
	 * block's list: a third of the generator's time). */
	for (i = 1; i < s->n; i++) {
		uint32_t h = (uint32_t)(s->v[i].start >> 32);
		if (nb == 0 || breaks[nb - 1] < h)
			breaks[nb++] = h;
		if ((s->v[i].start & 0xffffffff) == 0)
			continue;
		if (c.nsplit == 0 || split[c.nsplit - 1] != h) {
			split[c.nsplit] = h;
			lo_label[c.nsplit++] = sp_asm_label(a);
		}
		if (h != UINT32_MAX && breaks[nb - 1] < (uint64_t)h + 1)
			breaks[nb++] = (uint64_t)h + 1;
	}
	c.split = split;
	c.lo_label = lo_label;
	if (sp_segs_build(&hs, breaks, nb, hi_label, &c) == -1)
		goto out;
	sp_asm_ld(a, frag, off + 4);
	sp_tree_emit(a, frag, hs.v, hs.n, NULL, NULL);
	for (i = 0; i < c.nsplit; i++)
		if (emit_lo(a, frag, s, split[i], lo_label[i], off) == -1)
			goto out;
	rc = 0;
out:
	sp_segs_free(&hs);
	free(split);
	free(lo_label);
	free(breaks);
	return rc;
}
