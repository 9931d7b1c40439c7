/* SPDX-License-Identifier: ISC */
/*
 * What an object's system-call sites are: the record the analysis
 * (lib/analysis, sp_scan) fills and the pins stage (lib/pins) stores.
 * Addresses are link-time virtual addresses: for ET_DYN that is the
 * offset from the load base, for ET_EXEC the absolute address
 * (OpenBSD's convention).  Kept in the lowest stage both use.
 */
#ifndef SYSPIN_ELF_SITES_H
#define SYSPIN_ELF_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

enum sp_trap_kind {
	SP_TRAP_SYSCALL,	/* 0f 05 */
	SP_TRAP_INT80,		/* cd 80 */
	SP_TRAP_SYSENTER,	/* 0f 34 */
};

/* How a site's number set was obtained. */
enum sp_how {
	SP_HOW_CONSTANT,	/* data flow inside the function */
	SP_HOW_CALLERS,		/* number is a parameter; every caller resolved */
	SP_HOW_PIN_SECTION,	/* .openbsd.syscalls entry (authoritative) */
	SP_HOW_EXPORT,		/* parameter of an exported function: callers in
				   other objects complete the set at load time */
	SP_HOW_UNRESOLVED,	/* any number; see reason */
};

/* Site flags. */
#define SP_SITE_UNCOVERED   0x01u /* outside every FDE and function symbol */
#define SP_SITE_LIKELY_DATA 0x02u /* in an uncovered gap that decodes badly */
#define SP_SITE_NOT_PINNED  0x04u /* binary has a pin section without it */

/* Register numbers used for "nr = parameter R" (System V order + rax). */
enum sp_reg {
	SP_REG_RAX, SP_REG_RCX, SP_REG_RDX, SP_REG_RBX,
	SP_REG_RSP, SP_REG_RBP, SP_REG_RSI, SP_REG_RDI,
	SP_REG_R8, SP_REG_R9, SP_REG_R10, SP_REG_R11,
	SP_REG_R12, SP_REG_R13, SP_REG_R14, SP_REG_R15,
	SP_NREGS,
	SP_REG_NONE = -1,
};

struct sp_site {
	uint64_t addr;		/* trap instruction (OpenBSD "offset") */
	uint8_t length;		/* bytes of the trap instruction */
	uint8_t kind;		/* enum sp_trap_kind */
	uint8_t how;		/* enum sp_how */
	uint8_t flags;		/* SP_SITE_* */
	int8_t param_reg;	/* SP_HOW_EXPORT/UNRESOLVED: incoming register */
	uint32_t nr_first;	/* numbers: scan->nrs[nr_first .. +nr_count) */
	uint32_t nr_count;	/* sorted, unique; 0 with SP_HOW_UNRESOLVED */
	uint64_t function;	/* start of the enclosing function or gap */
	const char *reason;	/* static text: why unresolved, or NULL */
	uint64_t reason_addr;	/* where the reason applies (a caller), or 0 */
};

/*
 * This object calls the imported function `symbol` (through its PLT) and
 * passes these numbers in its number-carrying argument.  The defining object
 * has an SP_HOW_EXPORT site for it; the loader-time union completes it.
 */
struct sp_import {
	char *symbol;
	int8_t param_reg;	/* register the callee reads the number from */
	uint32_t nr_first;
	uint32_t nr_count;
	bool unresolved;	/* some call passes an unknown number */
};

/* An exported function whose syscall number is its parameter. */
struct sp_export {
	char *symbol;
	uint64_t addr;		/* function entry */
	int8_t param_reg;
};

struct sp_scan_stats {
	uint64_t exec_bytes;	/* bytes in executable PT_LOADs */
	uint64_t decoded_bytes;	/* bytes run through the decoder */
	uint64_t functions;	/* functions decoded */
	uint64_t candidates;	/* opcode byte pairs seen */
};

struct sp_scan {
	struct sp_site *sites;	/* sorted by addr */
	size_t nsites;
	uint32_t *nrs;
	size_t nnrs;
	uint64_t *gadgets;	/* opcode bytes not at an instruction boundary */
	size_t ngadgets;
	struct sp_import *imports;
	size_t nimports;
	struct sp_export *exports;
	size_t nexports;
	struct sp_scan_stats stats;
	/* .openbsd.syscalls: used when present and valid (authoritative). */
	bool used_pin_section;
	bool pin_section_present;
	char pin_section_reason[SP_ERROR_MAX];	/* why it was not used */
	size_t pin_unmatched;	/* entries naming no trap instruction */
};

/* Convenience: number i of site s. */
static inline uint32_t
sp_site_nr(const struct sp_scan *scan, const struct sp_site *s, uint32_t i)
{
	return scan->nrs[s->nr_first + i];
}

/*
 * The kernel re-issues some calls itself: when a signal interrupts
 * nanosleep, clock_nanosleep, poll or a timed futex wait, it may restart
 * it as restart_syscall (219) from the same `syscall` instruction.  A
 * site that can issue one of those can issue 219 too.
 */
#define SP_NR_RESTART_SYSCALL 219u

static inline bool
sp_nr_restarts(uint32_t nr)
{
	return nr == 7 || nr == 35 || nr == 202 || nr == 230;
}

/* Exact: a number set that enforcement can use as it stands. */
static inline bool
sp_site_is_exact(const struct sp_site *s)
{
	return s->how == SP_HOW_CONSTANT || s->how == SP_HOW_CALLERS ||
	    s->how == SP_HOW_PIN_SECTION;
}

#endif
