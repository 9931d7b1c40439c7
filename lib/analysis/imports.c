/* SPDX-License-Identifier: ISC */
/*
 * Calls from this object to imported functions that take a syscall number
 * (libc's syscall(2)): the numbers passed are recorded so that, at load
 * time, the defining object's SP_HOW_EXPORT site can be completed.
 */
#include <stdlib.h>
#include <string.h>

#include "sites.h"

struct import_acc {
	struct val nrs;
	bool unresolved, called;
};

static void
fold(struct analysis *a, uint64_t target, int param, struct import_acc *acc)
{
	const struct presult *p = resolve_param(a, target, param);

	if (p->no_callers && p->nrs.kind != V_TOP)
		return;		/* imported but never called directly */
	acc->called = true;
	if (p->nrs.kind == V_TOP) {
		acc->unresolved = true;
		return;
	}
	val_join(&acc->nrs, &p->nrs);
	if (acc->nrs.kind == V_TOP)
		acc->unresolved = true;
}

static int
add_import(struct sp_scan *out, const struct sp_param_hint *h,
    const struct import_acc *acc, size_t *cap)
{
	struct sp_import *v = realloc(out->imports,
	    (out->nimports + 1) * sizeof(*v));
	uint32_t first = (uint32_t)out->nnrs;
	unsigned n = acc->nrs.kind == V_SET ? acc->nrs.n : 0;

	if (v == NULL)
		return -1;
	out->imports = v;
	if (out->nnrs + n > *cap) {
		size_t ncap = out->nnrs + n + 16;
		uint32_t *w = realloc(out->nrs, ncap * sizeof(*w));
		if (w == NULL)
			return -1;
		out->nrs = w;
		*cap = ncap;
	}
	for (unsigned i = 0; i < n; i++)
		out->nrs[out->nnrs++] = (uint32_t)acc->nrs.c[i];
	v[out->nimports] = (struct sp_import){ .symbol = strdup(h->symbol),
	    .param_reg = h->param_reg, .nr_first = first, .nr_count = n,
	    .unresolved = acc->unresolved };
	if (v[out->nimports].symbol == NULL)
		return -1;
	out->nimports++;
	return 0;
}

int
imports_emit(struct analysis *a, struct sp_scan *out)
{
	const struct sp_param_hint *hints = a->opts->hints;
	size_t nhints = a->opts->nhints, cap = out->nnrs;
	const struct sp_elf *elf = a->elf;

	if (hints == NULL)
		hints = sp_scan_default_hints(&nhints);
	for (size_t h = 0; h < nhints; h++) {
		struct import_acc acc = { .nrs = { .kind = V_SET,
		    .param = PARAM_NONE } };
		for (size_t i = 0; i < elf->nplt; i++)
			if (strcmp(elf->plt[i].name, hints[h].symbol) == 0)
				fold(a, elf->plt[i].addr, hints[h].param_reg,
				    &acc);
		for (size_t i = 0; i < elf->ngot; i++)
			if (strcmp(elf->got[i].name, hints[h].symbol) == 0)
				fold(a, elf->got[i].addr, hints[h].param_reg,
				    &acc);
		if (acc.called && add_import(out, &hints[h], &acc, &cap) != 0)
			return -1;
	}
	return 0;
}

int
pin_section_apply(struct analysis *a, struct site_set *ss,
    struct sp_error *err)
{
	(void)a;
	(void)ss;
	(void)err;
	return 0;
}
