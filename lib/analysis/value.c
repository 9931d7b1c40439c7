/* SPDX-License-Identifier: ISC */
#include <string.h>

#include "value.h"

void
sp_val_add_const(struct val *v, uint64_t c)
{
	if (v->kind != V_SET)
		return;
	for (unsigned i = 0; i < v->n; i++)
		if (v->c[i] == c)
			return;
	if (v->n == VAL_MAXC) {
		*v = val_top();
		return;
	}
	v->c[v->n++] = c;
}

bool
sp_val_equal(const struct val *a, const struct val *b)
{
	if (a->kind != b->kind || a->param != b->param || a->n != b->n)
		return false;
	/* Addresses, offsets and widths are positional. */
	if (a->kind != V_SET)
		return memcmp(a->c, b->c, a->n * sizeof(*a->c)) == 0;
	/* Sets are built in join order; compare as sets. */
	for (unsigned i = 0; i < a->n; i++) {
		bool found = false;
		for (unsigned j = 0; j < b->n && !found; j++)
			found = a->c[i] == b->c[j];
		if (!found)
			return false;
	}
	return true;
}

bool
sp_val_join(struct val *a, const struct val *b)
{
	struct val old = *a;

	if (b->kind == V_BOTTOM || a->kind == V_TOP)
		return false;
	if (a->kind == V_BOTTOM || b->kind == V_TOP) {
		*a = *b;
		return !sp_val_equal(&old, a);
	}
	if (a->kind != b->kind) {
		*a = val_top();
		return true;
	}
	if (a->kind == V_STACK || a->kind == V_GLOBAL || a->kind == V_DEREF ||
	    a->kind == V_GDEREF) {
		if (a->c[0] != b->c[0] || a->c[1] != b->c[1] ||
		    a->c[2] != b->c[2] || a->param != b->param) {
			*a = val_top();
			return true;
		}
		return false;
	}
	if (a->param != b->param) {
		if (a->param != PARAM_NONE && b->param != PARAM_NONE) {
			*a = val_top();
			return true;
		}
		a->param = a->param != PARAM_NONE ? a->param : b->param;
	}
	for (unsigned i = 0; i < b->n && a->kind == V_SET; i++)
		sp_val_add_const(a, b->c[i]);
	return !sp_val_equal(&old, a);
}

void
sp_val_truncate(struct val *v, unsigned width)
{
	uint64_t mask;

	if (width >= 8 || v->kind == V_BOTTOM || v->kind == V_TOP)
		return;
	if (v->kind == V_STACK) {
		*v = val_top();
		return;
	}
	if (v->kind == V_GLOBAL || v->kind == V_DEREF || v->kind == V_GDEREF) {
		/* The low bytes of a little-endian global are a smaller one. */
		if (width < v->c[1])
			v->c[1] = width;
		return;
	}
	mask = (1ull << (8 * width)) - 1;
	struct val t = *v;
	t.n = 0;
	for (unsigned i = 0; i < v->n; i++)
		sp_val_add_const(&t, v->c[i] & mask);
	/* A parameter stays a parameter: only its low bits are a number. */
	*v = t;
}

void
sp_nrset_clear(struct nrset *s)
{
	memset(s, 0, sizeof(*s));
}

void
sp_nrset_set_top(struct nrset *s)
{
	sp_nrset_clear(s);
	s->top = true;
}

void
sp_nrset_add(struct nrset *s, uint32_t nr)
{
	if (s->top)
		return;
	if (nr < NRSET_BITS) {
		uint64_t bit = 1ull << (nr % 64);
		if (!(s->bits[nr / 64] & bit)) {
			s->bits[nr / 64] |= bit;
			s->count++;
		}
		return;
	}
	for (unsigned i = 0; i < s->nbig; i++)
		if (s->big[i] == nr)
			return;
	if (s->nbig == NRSET_MAXBIG) {
		sp_nrset_set_top(s);
		return;
	}
	s->big[s->nbig++] = nr;
	s->count++;
}

void
sp_nrset_union(struct nrset *a, const struct nrset *b)
{
	if (b->top) {
		sp_nrset_set_top(a);
		return;
	}
	for (unsigned w = 0; w < NRSET_BITS / 64; w++)
		for (uint64_t m = b->bits[w]; m != 0; m &= m - 1)
			sp_nrset_add(a, (uint32_t)(w * 64 +
			    (unsigned)__builtin_ctzll(m)));
	for (unsigned i = 0; i < b->nbig; i++)
		sp_nrset_add(a, b->big[i]);
}

void
sp_nrset_add_val(struct nrset *s, const struct val *v)
{
	if (v->kind != V_SET) {
		sp_nrset_set_top(s);
		return;
	}
	for (unsigned i = 0; i < v->n; i++)
		sp_nrset_add(s, (uint32_t)v->c[i]);
}

size_t
sp_nrset_list(const struct nrset *s, uint32_t *out, size_t max)
{
	size_t n = 0;

	for (unsigned w = 0; w < NRSET_BITS / 64; w++)
		for (uint64_t m = s->bits[w]; m != 0; m &= m - 1) {
			if (n < max)
				out[n] = (uint32_t)(w * 64 +
				    (unsigned)__builtin_ctzll(m));
			n++;
		}
	/* big[] holds numbers >= NRSET_BITS: sort them after the bitmap. */
	uint32_t big[NRSET_MAXBIG];
	memcpy(big, s->big, sizeof(big));
	for (unsigned i = 1; i < s->nbig; i++)
		for (unsigned j = i; j > 0 && big[j - 1] > big[j]; j--) {
			uint32_t t = big[j];
			big[j] = big[j - 1];
			big[j - 1] = t;
		}
	for (unsigned i = 0; i < s->nbig; i++, n++)
		if (n < max)
			out[n] = big[i];
	return n;
}
