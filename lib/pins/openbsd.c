/* SPDX-License-Identifier: ISC */
/*
 * OpenBSD pin tables: the pintable OpenBSD builds from the raw
 * .openbsd.syscalls entries (lib/elf/openbsd_section.c reads them;
 * sys/kern/exec_elf.c, elf_read_pintable and elf_adjustpins; ld.so does
 * the same for libc).  Everything here is a pure function of the image,
 * so the conformance fixtures in tests/openbsd can pin down each rule.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pins/openbsd.h"

/*
 * pins[nr] == 0 means "not set yet" while filling, so a number whose first
 * entry has offset 0 takes the next entry's offset instead of becoming a
 * wildcard: OpenBSD's quirk, kept.  Rebasing leaves 0 and -1 alone, so an
 * offset equal to the region start becomes 0 ("not allowed") and one just
 * below it wraps to -1 ("anywhere"): quirks too, kept.
 */
int
sp_openbsd_build(const struct sp_openbsd_entry *e, size_t n,
    const struct sp_openbsd_region *region, struct sp_openbsd_pintable *out,
    struct sp_error *err)
{
	uint32_t npins = 0, base = (uint32_t)region->start;

	for (size_t i = 0; i < n; i++)
		if (e[i].sysno > npins)
			npins = e[i].sysno;
	npins++;
	out->pins = calloc(npins, sizeof(*out->pins));
	if (out->pins == NULL)
		return sp_error_set(err, "out of memory");
	out->npins = npins;
	out->region = *region;
	for (size_t i = 0; i < n; i++) {
		if (out->pins[e[i].sysno] != 0)
			out->pins[e[i].sysno] = SP_PIN_ANY;
		else
			out->pins[e[i].sysno] = e[i].offset;
	}
	for (uint32_t i = 0; i < npins; i++)
		if (out->pins[i] != 0 && out->pins[i] != SP_PIN_ANY)
			out->pins[i] -= base;
	return 0;
}

int
sp_openbsd_pintable(const struct sp_elf *elf, struct sp_openbsd_pintable *out,
    struct sp_error *err)
{
	struct sp_openbsd_section sec;
	struct sp_openbsd_region r;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (sp_openbsd_read(elf, &sec, err) == -1)
		return -1;
	sp_openbsd_region(elf, &out->region);
	out->present = sec.present;
	out->ignored = elf->kind == SP_ELF_EXEC || elf->kind == SP_ELF_PIE;
	if (!sec.present)
		goto done;
	out->valid = sec.valid;
	memcpy(out->reason, sec.reason, sizeof(out->reason));
	out->openbsd_valid = sec.openbsd_valid;
	memcpy(out->openbsd_reason, sec.openbsd_reason,
	    sizeof(out->openbsd_reason));
	if (sec.valid) {
		r = out->region;
		rc = sp_openbsd_build(sec.entries, sec.n, &r, out, err);
	}
done:
	sp_openbsd_section_free(&sec);
	return rc;
}

void
sp_openbsd_pintable_free(struct sp_openbsd_pintable *pt)
{
	free(pt->pins);
	memset(pt, 0, sizeof(*pt));
}
