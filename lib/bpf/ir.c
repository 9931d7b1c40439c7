/* SPDX-License-Identifier: ISC */
/*
 * A small cBPF assembler.  Code is emitted into fragments with symbolic
 * jump targets; asm_link lays the fragments out in order and resolves the
 * labels.  Conditional jumps reach at most 255 instructions ahead, so a
 * jump that goes further gets a trampoline right after it: a copy of the
 * target when that is a return, else a BPF_JA (32-bit offset).  Inserting
 * trampolines moves code, so this repeats until every jump fits; each jump
 * gets at most one trampoline per side, so it terminates.
 */
#include <stdlib.h>
#include <string.h>

#include "bpf_int.h"

#define JMAX 255

static void *
grow(void *v, size_t *cap, size_t need, size_t sz, bool *oom)
{
	size_t nc;
	void *nv;

	if (need <= *cap)
		return v;
	nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	if ((nv = reallocarray(v, nc, sz)) == NULL) {
		*oom = true;
		return NULL;
	}
	*cap = nc;
	return nv;
}

void
sp_asm_init(struct asm_ctx *a)
{
	memset(a, 0, sizeof(*a));
}

void
sp_asm_fini(struct asm_ctx *a)
{
	size_t i;

	for (i = 0; i < a->nfrags; i++)
		free(a->frags[i].v);
	free(a->frags);
	free(a->labels);
	free(a->order);
	memset(a, 0, sizeof(*a));
}

uint32_t
sp_asm_frag(struct asm_ctx *a)
{
	struct frag *nf;

	nf = grow(a->frags, &a->cfrags, a->nfrags + 1, sizeof(*nf), &a->oom);
	if (nf == NULL)
		return 0;
	a->frags = nf;
	memset(&a->frags[a->nfrags], 0, sizeof(*nf));
	return (uint32_t)a->nfrags++;
}

uint32_t
sp_asm_label(struct asm_ctx *a)
{
	struct label *nl;

	nl = grow(a->labels, &a->clabels, a->nlabels + 1, sizeof(*nl),
	    &a->oom);
	if (nl == NULL)
		return 0;
	a->labels = nl;
	memset(&a->labels[a->nlabels], 0, sizeof(*nl));
	return (uint32_t)a->nlabels++;
}

/* Appends frag to the layout; fragments not placed are not linked. */
void
sp_asm_place(struct asm_ctx *a, uint32_t frag)
{
	uint32_t *no;

	no = grow(a->order, &a->corder, a->norder + 1, sizeof(*no), &a->oom);
	if (no == NULL)
		return;
	a->order = no;
	a->order[a->norder++] = frag;
}

/* Binds label to the next instruction emitted into frag. */
void
sp_asm_bind(struct asm_ctx *a, uint32_t label, uint32_t frag)
{
	if (a->oom)
		return;
	a->labels[label].frag = frag;
	a->labels[label].idx = (uint32_t)a->frags[frag].n;
	a->labels[label].bound = true;
}

void
sp_asm_emit(struct asm_ctx *a, uint32_t frag, uint16_t code, uint32_t k,
    uint32_t jt, uint32_t jf)
{
	struct frag *f;
	struct ins *nv;

	if (a->oom)
		return;
	f = &a->frags[frag];
	if ((nv = grow(f->v, &f->cap, f->n + 1, sizeof(*nv), &a->oom)) == NULL)
		return;
	f->v = nv;
	f->v[f->n++] = (struct ins){ code, k, jt, jf };
}

void
sp_asm_ret(struct asm_ctx *a, uint32_t frag, uint32_t k)
{
	sp_asm_emit(a, frag, BPF_RET | BPF_K, k, 0, 0);
}

void
sp_asm_ld(struct asm_ctx *a, uint32_t frag, uint32_t off)
{
	sp_asm_emit(a, frag, BPF_LD | BPF_W | BPF_ABS, off, 0, 0);
}

size_t
sp_asm_frag_len(const struct asm_ctx *a, uint32_t frag)
{
	return a->oom ? 0 : a->frags[frag].n;
}

/* An instruction with absolute targets. */
struct flat {
	uint16_t code;
	uint32_t k;
	size_t t, f;
};

static bool
is_cond(uint16_t code)
{
	return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA;
}

static bool
is_ja(uint16_t code)
{
	return BPF_CLASS(code) == BPF_JMP && BPF_OP(code) == BPF_JA;
}

static struct flat *
flatten(struct asm_ctx *a, size_t *np, struct sp_error *err)
{
	size_t *base, n = 0, i, j, o;
	struct flat *v;
	struct label *l;

	*np = 0;	/* out of memory, unless set otherwise */
	if ((base = calloc(a->nfrags + 1, sizeof(*base))) == NULL)
		return NULL;
	for (i = 0; i < a->nfrags; i++)
		base[i] = SIZE_MAX / 2;	/* not placed: any jump there fails */
	for (i = 0; i < a->norder; i++) {
		base[a->order[i]] = n;
		n += a->frags[a->order[i]].n;
	}
	if ((v = calloc(n ? n : 1, sizeof(*v))) == NULL) {
		free(base);
		return NULL;
	}
	for (i = 0, o = 0; i < a->norder; i++) {
		const struct frag *fr = &a->frags[a->order[i]];
		for (j = 0; j < fr->n; j++, o++) {
			const struct ins *in = &fr->v[j];
			v[o].code = in->code;
			v[o].k = in->k;
			if (BPF_CLASS(in->code) != BPF_JMP)
				continue;
			l = &a->labels[in->jt];
			v[o].t = l->bound ? base[l->frag] + l->idx : SIZE_MAX;
			l = &a->labels[in->jf];
			v[o].f = !is_cond(in->code) ? v[o].t :
			    l->bound ? base[l->frag] + l->idx : SIZE_MAX;
			if (v[o].t <= o || v[o].t >= n || v[o].f <= o ||
			    v[o].f >= n) {
				free(base);
				free(v);
				sp_error_set(err, "bpf: internal error: jump at "
				    "%zu goes backwards or nowhere", o);
				*np = SIZE_MAX;
				return NULL;
			}
		}
	}
	free(base);
	*np = n;
	return v;
}

#define TAG (SIZE_MAX / 2)

/* A copy of a return, or a long jump to anything else. */
static struct flat
trampoline(const struct flat *v, size_t target)
{
	if (v[target].code == (BPF_RET | BPF_K))
		return v[target];
	return (struct flat){ BPF_JMP | BPF_JA, 0, target, target };
}

/* One pass of trampoline insertion; returns the number inserted or -1. */
static long
relax(struct flat **vp, size_t *np)
{
	struct flat *v = *vp, *nv;
	size_t n = *np, i, o, extra = 0, *map;

	for (i = 0; i < n; i++)
		if (is_cond(v[i].code))
			extra += (v[i].t - i - 1 > JMAX) + (v[i].f - i - 1 > JMAX);
	if (extra == 0)
		return 0;
	map = calloc(n, sizeof(*map));
	nv = calloc(n + extra, sizeof(*nv));
	if (map == NULL || nv == NULL) {
		free(map);
		free(nv);
		return -1;
	}
	/* targets stay old indices until every instruction has its new
	 * place; trampolines are tagged with TAG + new index */
	for (i = 0, o = 0; i < n; i++) {
		map[i] = o;
		nv[o++] = v[i];
		if (!is_cond(v[i].code))
			continue;
		if (v[i].t - i - 1 > JMAX) {
			nv[o] = trampoline(v, v[i].t);
			nv[map[i]].t = TAG + o++;
		}
		if (v[i].f - i - 1 > JMAX) {
			nv[o] = trampoline(v, v[i].f);
			nv[map[i]].f = TAG + o++;
		}
	}
	for (o = 0; o < n + extra; o++) {
		if (BPF_CLASS(nv[o].code) != BPF_JMP)
			continue;
		nv[o].t = nv[o].t >= TAG ? nv[o].t - TAG : map[nv[o].t];
		nv[o].f = nv[o].f >= TAG ? nv[o].f - TAG : map[nv[o].f];
	}
	free(map);
	free(v);
	*vp = nv;
	*np = n + extra;
	return (long)extra;
}

int
sp_asm_link(struct asm_ctx *a, struct sp_bpf_prog *p, struct sp_error *err)
{
	struct flat *v;
	size_t n, i;
	long r;

	if (a->oom)
		return sp_error_set(err, "out of memory");
	if ((v = flatten(a, &n, err)) == NULL)
		return n == SIZE_MAX ? -1 : sp_error_set(err, "out of memory");
	/* Too long for the kernel before a trampoline is added: its length
	 * (at least) is all a caller can use.  Relaxing it would cost more
	 * than linear time in what a written program holds. */
	if (n > BPF_MAXINSNS) {
		free(v);
		p->insns = NULL;
		p->len = n;
		return 0;
	}
	while ((r = relax(&v, &n)) > 0)
		;
	if (r == -1 || (p->insns = calloc(n, sizeof(*p->insns))) == NULL) {
		free(v);
		return sp_error_set(err, "out of memory");
	}
	for (i = 0; i < n; i++) {
		/* a jump to a return is the return itself, one step shorter */
		if (is_ja(v[i].code) && v[v[i].t].code == (BPF_RET | BPF_K))
			v[i] = v[v[i].t];
		p->insns[i].code = v[i].code;
		p->insns[i].k = v[i].k;
		if (is_ja(v[i].code))
			p->insns[i].k = (uint32_t)(v[i].t - i - 1);
		else if (is_cond(v[i].code)) {
			p->insns[i].jt = (uint8_t)(v[i].t - i - 1);
			p->insns[i].jf = (uint8_t)(v[i].f - i - 1);
		}
	}
	p->len = n;
	free(v);
	return 0;
}

size_t
sp_bpf_path_max(const struct sp_bpf_prog *p)
{
	size_t *d, i, best = 0, a, b;
	const struct sock_filter *f;

	if (p->len == 0 || (d = calloc(p->len, sizeof(*d))) == NULL)
		return 0;
	for (i = p->len; i-- > 0;) {
		f = &p->insns[i];
		if (BPF_CLASS(f->code) == BPF_RET)
			d[i] = 1;
		else if (BPF_CLASS(f->code) == BPF_JMP &&
		    i + 1 + (is_ja(f->code) ? f->k :
		    (f->jt > f->jf ? f->jt : f->jf)) >= p->len) {
			free(d);
			return 0;
		}
		else if (is_ja(f->code))
			d[i] = 1 + d[i + 1 + f->k];
		else if (is_cond(f->code)) {
			a = d[i + 1 + f->jt];
			b = d[i + 1 + f->jf];
			d[i] = 1 + (a > b ? a : b);
		} else
			d[i] = i + 1 < p->len ? 1 + d[i + 1] : 1;
	}
	best = d[0];
	free(d);
	return best;
}

void
sp_bpf_free(struct sp_bpf_prog *progs, size_t nprogs)
{
	size_t i;

	if (progs == NULL)
		return;
	for (i = 0; i < nprogs; i++)
		free(progs[i].insns);
	free(progs);
}
