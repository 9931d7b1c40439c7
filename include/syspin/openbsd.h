/* SPDX-License-Identifier: ISC */
/*
 * OpenBSD's pin table (.openbsd.syscalls / PT_OPENBSD_SYSCALLS), reading
 * side.
 *
 * sp_openbsd_read() returns the raw entries exactly as the file holds them,
 * plus two verdicts on the table as a whole: syspin's (Linux) and
 * OpenBSD's.  They differ in one rule only: number 0 is OpenBSD's
 * SYS_syscall, which it refuses to pin, but read(2) on Linux x86-64, so
 * syspin accepts it (otherwise read() could never be pinned).  Every other
 * rule is OpenBSD's, unchanged.
 * sp_openbsd_pintable() builds the table the kernel (static binaries,
 * ld.so) or ld.so (libc) installs: one u_int per number, 0 = not allowed,
 * SP_PIN_ANY = anywhere in the region, else the offset of the trap
 * instruction from the start of the text region.
 */
#ifndef SYSPIN_OPENBSD_H
#define SYSPIN_OPENBSD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <syspin/elf.h>
#include <syspin/error.h>

/*
 * OpenBSD rejects a table with a number >= SYS_MAXSYSCALL (the size of its
 * sysent).  Linux x86-64 has no such constant that stays put: the highest
 * number was 462 (mseal, 6.10) and is 469 (file_setattr) on 6.17/6.18, and
 * libseccomp lags behind the kernel.  We use the next power of two: every
 * real number fits, a few years of new calls fit, and anything above is
 * certainly not a syscall (x32 numbers, with bit 30 set, are far above).
 * The same bound is right for aarch64, which uses the generic numbers.
 * Numbers between the highest real one and this bound get ENOSYS from the
 * kernel, as OpenBSD's unused sysent slots do.
 */
#define SP_SYS_MAXSYSCALL 512

/* Largest table OpenBSD reads: SYS_MAXSYSCALL * 2 entries. */
#define SP_OPENBSD_MAX_ENTRIES (SP_SYS_MAXSYSCALL * 2)

/* pins[nr] value: "several places, allowed anywhere in the region". */
#define SP_PIN_ANY 0xffffffffu

/* One entry of .openbsd.syscalls, native endian, as in the file. */
struct sp_openbsd_entry {
	uint32_t offset;	/* link-time address of the trap instruction */
	uint32_t sysno;
};

struct sp_openbsd_section {
	bool present;		/* the object has a section or header */
	bool valid;		/* syspin (Linux rules) installs a table */
	char reason[SP_ERROR_MAX];	/* why not, when !valid */
	bool openbsd_valid;	/* OpenBSD would install it too */
	char openbsd_reason[SP_ERROR_MAX]; /* why not, when !openbsd_valid */
	struct sp_openbsd_entry *entries;
	size_t n;
};

/* The text region pins are relative to, in link-time addresses. */
struct sp_openbsd_region {
	uint64_t start;		/* first executable PT_LOAD, p_align-truncated */
	uint64_t end;		/* end of the last one (vaddr + memsz) */
};

struct sp_openbsd_pintable {
	bool present;
	bool valid;		/* Linux rules, as sp_openbsd_section */
	char reason[SP_ERROR_MAX];
	bool openbsd_valid;
	char openbsd_reason[SP_ERROR_MAX];
	/*
	 * A dynamic executable's own table is never read on OpenBSD (only
	 * libc's and ld.so's are); set so callers can say so.
	 */
	bool ignored;
	struct sp_openbsd_region region;
	uint32_t *pins;		/* npins entries, NULL when !valid */
	uint32_t npins;
};

/*
 * Reads the table of ELF.  Returns 0 with out->present == false when there
 * is none; 0 with the raw entries and out->valid / out->reason otherwise
 * (a table OpenBSD rejects is still returned entry by entry; of a size that
 * is not a multiple of 8, the whole entries at its start).  -1 with err set only for lack of memory.
 */
int sp_openbsd_read(const struct sp_elf *elf, struct sp_openbsd_section *out,
    struct sp_error *err);

void sp_openbsd_section_free(struct sp_openbsd_section *sec);

/* The text region OpenBSD would compute for ELF. */
void sp_openbsd_region(const struct sp_elf *elf, struct sp_openbsd_region *r);

/* sp_openbsd_check flags */
#define SP_OPENBSD_STRICT 0x1u	/* OpenBSD's rules: number 0 is rejected */

/*
 * Checks raw entries (SIZE bytes of them, so a size that is not a multiple
 * of 8 can be judged) against the rules for the region ending at TEXT_END:
 * syspin's, or OpenBSD's with SP_OPENBSD_STRICT.  Returns true, or false
 * with a sentence in reason.
 */
bool sp_openbsd_check(const struct sp_openbsd_entry *e, size_t n,
    uint64_t size, uint64_t text_end, unsigned flags,
    char reason[SP_ERROR_MAX]);

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
struct sp_scan;

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
