/* SPDX-License-Identifier: ISC */
#include <string.h>

#include "value.h"

void
val_add_const(struct val *v, uint64_t c)
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
val_equal(const struct val *a, const struct val *b)
{
	if (a->kind != b->kind || a->param != b->param || a->n != b->n)
		return false;
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
val_join(struct val *a, const struct val *b)
{
	struct val old = *a;

	if (b->kind == V_BOTTOM || a->kind == V_TOP)
		return false;
	if (a->kind == V_BOTTOM || b->kind == V_TOP) {
		*a = *b;
		return !val_equal(&old, a);
	}
	if (a->kind != b->kind) {
		*a = val_top();
		return true;
	}
	if (a->kind == V_STACK) {
		if (a->c[0] != b->c[0]) {
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
		val_add_const(a, b->c[i]);
	return !val_equal(&old, a);
}

void
val_truncate(struct val *v, unsigned width)
{
	uint64_t mask;

	if (width >= 8 || v->kind == V_BOTTOM || v->kind == V_TOP)
		return;
	if (v->kind == V_STACK) {
		*v = val_top();
		return;
	}
	mask = (1ull << (8 * width)) - 1;
	struct val t = *v;
	t.n = 0;
	for (unsigned i = 0; i < v->n; i++)
		val_add_const(&t, v->c[i] & mask);
	/* A parameter stays a parameter: only its low bits are a number. */
	*v = t;
}
