/* SPDX-License-Identifier: ISC */
/*
 * Reachable-only pins: which functions of a process image can run.
 *
 * Per object (cacheable like a pin table, lib/fill/reach_cache.c): its
 * functions (the analysis's units), the direct edges between them (calls,
 * jumps, tail jumps, jump-table cases, fall-through, and a code address a
 * function takes: whatever takes it may call it), the imports each
 * function calls or takes the address of (by name), its roots (entry,
 * DT_INIT/DT_FINI, every code address in its data or relocations: init and
 * fini arrays, IFUNC resolvers, function tables) and its exports.
 *
 * Per process (sp_reach_closure): the closure over the loaded objects,
 * an import reaching every export of that name in any object (symbol
 * versions and load order ignored: an over-approximation).  An object that
 * cannot be modelled (static, Go, no symbols nor unwind information, ld.so,
 * the vDSO, one without facts) is reachable whole.  A call of dlsym or
 * dlvsym with a constant name calls that name; one with any other name
 * (or dlsym's address taken) may name any function: if it is reachable,
 * every export of every object is a root.  Every doubt widens; a site
 * is pruned only when nothing reaches its function.
 */
#ifndef SYSPIN_ANALYSIS_REACH_H
#define SYSPIN_ANALYSIS_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf.h"
#include "util/error.h"


/* Why an object counts as reachable whole (sp_reach_facts.whole). */
enum sp_reach_whole {
	SP_REACH_PARTIAL,	/* modelled: its functions are judged */
	SP_REACH_STATIC,	/* a static program */
	SP_REACH_GO,		/* Go's runtime calls through its tables */
	SP_REACH_NO_UNITS,	/* no symbols nor unwind information */
	SP_REACH_UNDECODED,	/* code the decoder could not read */
	SP_REACH_LARGE,		/* over SP_REACH_MAX_CODE: not decoded */
	SP_REACH_LOADER,	/* ld.so (decided per process) */
	SP_REACH_VDSO,		/* the kernel's (decided per process) */
	SP_REACH_NO_FACTS,	/* none could be had (decided per process) */
};

/* A function: [start, end), link-time addresses as in sp_scan. */
struct sp_reach_func {
	uint64_t start;
	uint64_t end;
};

/* from -> to.  Edges: function to function; calls: function to a name
 * (strtab offset); exports: name to function. */
struct sp_reach_edge {
	uint32_t from;
	uint32_t to;
};

/* The facts' format, in their files and in the keys of what derives
 * from them: changed whenever an analysis makes other facts. */
#define SP_REACH_FORMAT "SPREACH5"
/* The format of a pruning's record ("q-", lib/reach/reach_memo.c). */
#define SP_REACH_MEMO_FORMAT "SPRQ2\0\0\0"

/* Objects with more executable bytes are not decoded (libLLVM's 60 MB
 * would cost seconds at an exec): reachable whole, their imports all
 * called. */
#define SP_REACH_MAX_CODE (32u << 20)

/* calls: from data, not from a function */
#define SP_REACH_ALWAYS 0xffffffffu
/* The name of a call to dlsym or dlvsym whose name is not a constant (or
 * of taking their address): any export may be looked up.  Followed by
 * "@" and the call's address in hexadecimal where it is known (so that
 * a report can say which call widened). */
#define SP_REACH_DLSYM_ANY "dlsym?"


struct sp_reach_facts {
	uint32_t whole;			/* enum sp_reach_whole */
	struct sp_reach_func *funcs;	/* sorted by start */
	size_t nfuncs;
	uint32_t *roots;
	size_t nroots;
	struct sp_reach_edge *edges;	/* sorted by from */
	size_t nedges;
	struct sp_reach_edge *calls;	/* sorted by from */
	size_t ncalls;
	struct sp_reach_edge *exports;
	size_t nexports;
	char *strtab;
	size_t strtab_size;
	void *buf;			/* decoded: the one allocation */
};

/* Builds an object's facts (decodes all of its code).  -1 with err. */
int sp_reach_facts_build(const struct sp_elf *elf,
    struct sp_reach_facts *f, struct sp_error *err);
void sp_reach_facts_free(struct sp_reach_facts *f);

/* Index of the function holding addr, or -1. */
long sp_reach_func_at(const struct sp_reach_facts *f, uint64_t addr);

/* ---- the closure over a process's objects ---- */

struct sp_reach_obj {
	const struct sp_reach_facts *facts;	/* NULL: none */
	uint32_t whole;		/* enum sp_reach_whole: forced, or 0 */
};

/* A live call of dlsym whose name is not bounded: the object (-1: code
 * outside the image, or an object without facts) and the call's address
 * in it (0: its address is taken, or not known). */
#define SP_REACH_WIDEN_MAX 8
struct sp_reach_widen {
	long obj;
	uint64_t at;
};

struct sp_reach_result {
	uint8_t **live;		/* per object, per function: 1 live */
	size_t nobjs;
	bool *whole;		/* per object: reachable whole */
	bool dlsym;		/* widened: dlsym or dlvsym reachable with a
				   name that is not a constant */
	struct sp_reach_widen dlsym_by[SP_REACH_WIDEN_MAX];
	size_t ndlsym_by;	/* how many calls widened (may be more than
				   the ones kept) */
	bool dlopen;		/* dlopen reachable: late objects are judged
				   by their own imports when they call */
	bool unknown_imports;	/* an object without facts: every export */
};

/*
 * The functions of objs[0..n) that can run, given extra[0..nextra)
 * (names that code outside the image calls: objects dlopen'ed later).
 * -1 with err (out of memory).
 */
int sp_reach_closure(const struct sp_reach_obj *objs, size_t n,
    const char *const *extra, size_t nextra, struct sp_reach_result *r,
    struct sp_error *err);
void sp_reach_result_free(struct sp_reach_result *r);

/* Whether the code at addr of object i can run (true when unknown). */
bool sp_reach_live(const struct sp_reach_result *r, size_t i,
    const struct sp_reach_facts *f, uint64_t addr);

#endif
