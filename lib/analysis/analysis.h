/* SPDX-License-Identifier: ISC */
/* Internal state of one sp_scan() run, shared by lib/analysis/ files. */
#ifndef SYSPIN_ANALYSIS_H
#define SYSPIN_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf.h"
#include "analysis/scan.h"

#include "dataflow.h"
#include "decode.h"
#include "value.h"

/*
 * A unit is what we decode from one known instruction boundary: the union
 * of overlapping FDE/symbol ranges ("covered"), or a gap between them.
 * Units tile the file-backed part of every executable PT_LOAD.
 */
struct unit {
	uint64_t start, end;
	bool covered;
	uint64_t covered_end;	/* covered units: end of the FDE/symbol part */
	/* Filled on first use: */
	bool decoded, solved;
	int8_t noreturn;	/* 0 not asked, 1 never returns, 2 may return */
	int8_t open_ijmp;	/* 0 not asked, 1 an indirect jump with no
				   table read, 2 none (sites.c) */
	struct insn_list code;
	struct flow_graph graph;
	uint64_t *targets;	/* sorted jump targets inside the unit */
	size_t ntargets;
	bool have_targets;
};

/* A reference to an address found by its rel32/rel8 encoding. */
struct xref {
	uint64_t from;		/* address of the referencing instruction */
	uint64_t to;
	uint8_t kind;		/* XREF_* */
};

enum { XREF_CALL, XREF_JMP, XREF_JCC, XREF_RIPREL, XREF_DATA };

/* Outcome of resolving "number = parameter P of function F". */
#define MAX_EXPORT_VIA 4
struct presult {
	uint64_t func;
	int param;
	/* A query about *(param + doff) (dwidth bytes) rather than param:
	 * the number sits in memory the caller points at. */
	bool deref;
	int64_t doff;
	uint8_t dwidth;
	bool done;
	bool no_callers;	/* nothing calls it and it is not exported */
	struct nrset nrs;
	const char *reason;	/* why V_TOP */
	uint64_t reason_addr;
	uint8_t nvia;		/* exported functions the number comes through */
	uint64_t via_addr[MAX_EXPORT_VIA];
	int8_t via_param[MAX_EXPORT_VIA];
};

struct analysis {
	const struct sp_elf *elf;
	const struct sp_scan_opts *opts;
	struct decoder *dec;
	struct unit *units;
	size_t nunits;
	struct presult *memo;
	size_t nmemo, capmemo;
	int depth;
	struct sp_scan_stats stats;
};

int sp_units_build(struct analysis *a);
void sp_units_free(struct analysis *a);
/* The unit holding addr, or NULL (not in executable file-backed code). */
struct unit *sp_unit_at(struct analysis *a, uint64_t addr);
/* Frees what sp_unit_prepare made (decoded again when next asked). */
void sp_unit_release(struct unit *u);
/* Decodes (and with `solve`, runs data flow on) a unit. -1: no memory. */
int sp_unit_prepare(struct analysis *a, struct unit *u, bool solve);
/* Reads jump tables of u's indirect jumps into u->code.jt, re-decoding
 * cases a linear sweep got wrong.  -1: out of memory. */
int sp_jt_recover(struct analysis *a, struct unit *u);
/* Tables whose base only data flow knows; 1: new edges (solve again). */
int sp_jt_recover_flow(struct analysis *a, struct unit *u);
/* True when some jump inside u lands on addr (a block boundary). */
bool sp_unit_is_target(struct unit *u, uint64_t addr);
/* The file bytes of executable code at addr and how many follow, or NULL. */
const uint8_t *sp_code_at(const struct analysis *a, uint64_t addr,
    uint64_t *avail);
/* flow_noreturn_fn for the analysis (ctx: struct analysis *). */
bool sp_unit_noreturn(void *ctx, uint64_t target);
/*
 * Code that falls through from a function into a gap (glibc's clone3 ends
 * its FDE just before `syscall`) belongs to that function: merges gap u
 * into its predecessor when so.  Returns the unit that now holds u's code.
 */
struct unit *sp_unit_merge_fallthrough(struct analysis *a, struct unit *u);

/*
 * All rel32/rel8 branches and rip-relative references to any address in
 * targets[0..n) (sorted), plus aligned 64-bit data words and RELA addends
 * equal to one.  Unverified: callers check instruction boundaries.
 * `data`: the targets are data, so rip-relative operands followed by an
 * immediate (`movl $1, x(%rip)`) count too; code is never accessed so.
 */
int sp_xrefs_find(struct analysis *a, const uint64_t *targets, size_t n,
    bool data, struct xref **out, size_t *nout);

/* Resolves the numbers passed in parameter `param` to function `func`. */
const struct presult *sp_resolve_param(struct analysis *a, uint64_t func,
    int param);
/* Each caller of func apart: the numbers of those that can be read, and
 * whether one cannot.  Whether anything calls func. */
bool sp_resolve_each_caller(struct analysis *a, uint64_t func, int param,
    struct nrset *known, bool *unresolved);
/* The numbers the callers that can be read pass in param to func (through
 * wrappers), whatever the others pass: resolve.c. */
void sp_resolve_known(struct analysis *a, uint64_t func, int param,
    struct nrset *out);
/* Each verified call of func with the value of its parameter param
 * (see resolve.c). */
long sp_resolve_callers(struct analysis *a, uint64_t func, int param,
    int (*fn)(void *ctx, uint64_t caller, struct val v), void *ctx);
/* Resolves the numbers callers store at *(param + off) (width bytes). */
const struct presult *sp_resolve_deref(struct analysis *a, uint64_t func,
    int param, int64_t off, unsigned width);
/* The numbers a value at a site or call can stand for (callers followed
 * for parameters and pointed-to numbers), into r. */
void sp_resolve_value(struct analysis *a, uint64_t func, struct val v,
    struct presult *r, uint64_t at);

bool sp_is_export(const struct sp_elf *elf, uint64_t addr, const char **name);

/* The value of a global nothing writes (globals.c); false: unknown. */
bool sp_global_value(struct analysis *a, uint64_t addr, unsigned width,
    uint64_t *value);

/* Who publishes the pointer an 8-byte global holds: each store's function
 * and the pointer parameter it stores (globals.c).  -1 and *why when the
 * global may be written in any other way. */
struct published {
	uint64_t func;
	int param;
};
int sp_published_sources(struct analysis *a, uint64_t g, int64_t off,
    unsigned width, struct published *srcs, size_t max, size_t *n,
    const char **why);

/* The numbers at *(*g + off), through published_sources (resolve.c). */
void sp_resolve_published(struct analysis *a, const struct val *v,
    struct presult *r, uint64_t at);

/* A V_GLOBAL value whose global nothing writes becomes its constant. */
void sp_resolve_global(struct analysis *a, struct val *v);

/* Runtime models (models.c): when `func` replays a number stored in memory
 * by a known runtime contract, fills out->nrs (or top, with a reason). */
bool sp_model_numbers(struct analysis *a, uint64_t func, struct presult *out);

#endif
