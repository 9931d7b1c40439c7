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
#ifndef SYSPIN_ELF_OPENBSD_SECTION_H
#define SYSPIN_ELF_OPENBSD_SECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf.h"
#include "util/error.h"

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

#endif
