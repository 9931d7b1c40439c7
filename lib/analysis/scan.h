/* SPDX-License-Identifier: ISC */
/*
 * Stage 2: ELF -> syscall sites.
 *
 * sp_scan() finds every syscall trap instruction in the executable PT_LOADs
 * of an ELF object and infers the number(s) each can issue.  Addresses are
 * link-time virtual addresses: for ET_DYN that is the offset from the load
 * base, for ET_EXEC the absolute address (OpenBSD's convention).
 */
#ifndef SYSPIN_ANALYSIS_SCAN_H
#define SYSPIN_ANALYSIS_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf.h"
#include "elf/sites.h"
#include "util/error.h"

/*
 * An imported function known to take a syscall number in a register, such
 * as libc's syscall(2) (rdi).  Calls to it through the PLT or GOT become
 * sp_import records.  sp_scan_default_hints() lists the built-in ones; the
 * exports of objects scanned earlier can be added (see cli/scan.c).
 */
struct sp_param_hint {
	const char *symbol;
	int8_t param_reg;
};

struct sp_scan_opts {
	bool full_sweep;	/* decode every executable byte */
	bool ignore_pin_section;
	const struct sp_param_hint *hints;	/* NULL: the built-in ones */
	size_t nhints;
};

const struct sp_param_hint *sp_scan_default_hints(size_t *n);

/* Returns 0, or -1 with err set (unsupported machine, out of memory). */
int sp_scan(const struct sp_elf *elf, const struct sp_scan_opts *opts,
    struct sp_scan *out, struct sp_error *err);

void sp_scan_free(struct sp_scan *scan);

const char *sp_trap_kind_name(enum sp_trap_kind kind);
const char *sp_how_name(enum sp_how how);
const char *sp_reg_name(int reg);

#endif
