/* SPDX-License-Identifier: ISC */
/*
 * Calls from this object to imported functions that take a syscall number
 * (libc's syscall(2)): the numbers passed are recorded so that, at load
 * time, the defining object's SP_HOW_EXPORT site can be completed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/openbsd_section.h"

#include "sites.h"

struct import_acc {
	struct nrset nrs;
	bool unresolved, called;
};

/*
 * The numbers the calls through target (a PLT stub or a GOT slot) pass,
 * caller by caller: the loader adds nothing for an unresolved call, so
 * the others' numbers must survive it.
 */
static void
fold(struct analysis *a, uint64_t target, int param, struct import_acc *acc)
{
	struct nrset known;
	bool unresolved;

	if (!sp_resolve_each_caller(a, target, param, &known, &unresolved))
		return;		/* imported but never called directly */
	acc->called = true;
	acc->unresolved |= unresolved;
	sp_nrset_union(&acc->nrs, &known);
	if (acc->nrs.top) {
		sp_nrset_clear(&acc->nrs);
		acc->unresolved = true;
	}
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
	if (sp_emit_nrset(out, cap, &acc->nrs, &im.nr_first, &im.nr_count) != 0)
		return -1;
	im.symbol = strdup(h->symbol);
	if (im.symbol == NULL)
		return -1;
	v[out->nimports++] = im;
	return 0;
}

int
sp_imports_emit(struct analysis *a, struct sp_scan *out)
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

/*
 * A valid OpenBSD pin table is authoritative: the numbers it lists for a
 * trap instruction replace what analysis inferred.  Analysis still runs,
 * so a trap the table does not list is reported (SP_SITE_NOT_PINNED) and
 * entries that name no trap instruction are counted.
 */
int
sp_pin_section_apply(struct analysis *a, struct site_set *ss,
    struct sp_scan *out, struct sp_error *err)
{
	struct sp_openbsd_section sec;

	if (a->opts->ignore_pin_section || !a->elf->has_pin_section)
		return 0;
	if (sp_openbsd_read(a->elf, &sec, err) != 0)
		return -1;
	out->pin_section_present = sec.present;
	if (!sec.valid) {
		snprintf(out->pin_section_reason,
		    sizeof(out->pin_section_reason), "%s", sec.reason);
		sp_openbsd_section_free(&sec);
		return 0;
	}
	out->used_pin_section = true;
	for (size_t i = 0; i < ss->n; i++) {
		struct raw_site *s = &ss->v[i];
		bool listed = false;
		for (size_t k = 0; k < sec.n; k++) {
			if (sec.entries[k].offset != s->addr)
				continue;
			if (!listed)
				sp_nrset_clear(&s->nrs);
			listed = true;
			sp_nrset_add(&s->nrs, sec.entries[k].sysno);
		}
		if (listed) {
			s->how = SP_HOW_PIN_SECTION;
			s->flags &= (uint8_t)~SP_SITE_LIKELY_DATA;
			s->reason = NULL;
			s->nvia = 0;
		} else {
			s->flags |= SP_SITE_NOT_PINNED;
		}
	}
	for (size_t k = 0; k < sec.n; k++) {
		bool found = false;
		for (size_t i = 0; i < ss->n && !found; i++)
			found = ss->v[i].addr == sec.entries[k].offset;
		out->pin_unmatched += !found;
	}
	sp_openbsd_section_free(&sec);
	return 0;
}
