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
	struct nrset nrs;
	bool unresolved, called;
};

static void
fold(struct analysis *a, uint64_t target, int param, struct import_acc *acc)
{
	const struct presult *p = resolve_param(a, target, param);

	if (p->no_callers && !p->nrs.top)
		return;		/* imported but never called directly */
	acc->called = true;
	if (p->nrs.top) {
		acc->unresolved = true;
		return;
	}
	nrset_union(&acc->nrs, &p->nrs);
	if (acc->nrs.top)
		acc->unresolved = true;
}

static int
add_import(struct sp_scan *out, const struct sp_param_hint *h,
    const struct import_acc *acc, size_t *cap)
{
	struct sp_import *v = realloc(out->imports,
	    (out->nimports + 1) * sizeof(*v));
	struct sp_import im = { .param_reg = h->param_reg,
	    .unresolved = acc->unresolved };

	if (v == NULL)
		return -1;
	out->imports = v;
	if (emit_nrset(out, cap, &acc->nrs, &im.nr_first, &im.nr_count) != 0)
		return -1;
	im.symbol = strdup(h->symbol);
	if (im.symbol == NULL)
		return -1;
	v[out->nimports++] = im;
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
		struct import_acc acc = { .called = false };
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
