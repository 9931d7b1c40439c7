/* SPDX-License-Identifier: ISC */
/*
 * OpenBSD's pin table, building side: the pintable the kernel or ld.so
 * installs from a table's entries (lib/elf/openbsd_section.h reads
 * them), and a table embedded into a binary (`syspin embed`).
 */
#ifndef SYSPIN_PINS_OPENBSD_H
#define SYSPIN_PINS_OPENBSD_H

#include <stddef.h>
#include <stdint.h>

#include "elf/openbsd_section.h"
#include "elf/sites.h"
#include "util/error.h"

/*
 * Builds the pintable from entries that passed sp_openbsd_check (either
 * rule set; a number 0 gets pins[0] like any other):
 * npins = max(sysno) + 1, duplicates -> SP_PIN_ANY, offsets rebased to
 * REGION->start.  Returns 0 (out->pins malloc'ed) or -1 with err set.
 */
int sp_openbsd_build(const struct sp_openbsd_entry *e, size_t n,
    const struct sp_openbsd_region *region, struct sp_openbsd_pintable *out,
    struct sp_error *err);

/* Reads ELF's table and builds its pintable. 0, or -1 (out of memory). */
int sp_openbsd_pintable(const struct sp_elf *elf,
    struct sp_openbsd_pintable *out, struct sp_error *err);

void sp_openbsd_pintable_free(struct sp_openbsd_pintable *pt);

/* Embedding a table into a binary (lib/pins/embed.c, `syspin embed`). */

/*
 * The entries for SCAN: one per (exact site, number), in address order.
 * Sites whose numbers are not exact are left out and counted in
 * *skipped.  Returns 0 (*out malloc'ed, may be NULL when *n == 0), or -1
 * with err set: a trap above 4 GiB (the format has 32-bit offsets), a
 * number OpenBSD's rules refuse, too many entries, out of memory.
 */
int sp_openbsd_entries_from_scan(const struct sp_scan *scan,
    struct sp_openbsd_entry **out, size_t *n, size_t *skipped,
    struct sp_error *err);

/*
 * Writes a copy of ELF to PATH with E as a .openbsd.syscalls section and a
 * PT_OPENBSD_SYSCALLS program header.  The program header table moves to
 * the end of the file, into a new read-only PT_LOAD (PT_PHDR follows it);
 * every original byte stays where it was.  The copy is written to a
 * temporary file next to PATH, read back and checked, then renamed over
 * PATH; no temporary file is left behind, and err's message names no
 * file (the caller names PATH).  Refuses (-1, err set, nothing written)
 * when PATH is ELF's own file, when ELF already has a table, or when its
 * layout leaves no safe way to add the header.
 */
int sp_openbsd_embed(const struct sp_elf *elf, const char *path,
    const struct sp_openbsd_entry *e, size_t n, struct sp_error *err);

#endif
