/* SPDX-License-Identifier: ISC */
/*
 * Reachable-only pins: which functions of a process image can run.
 *
 * Per object (cacheable like a pin table, lib/pins/reach_cache.c): its
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
#ifndef SYSPIN_REACH_H
#define SYSPIN_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <syspin/cache.h>
#include <syspin/elf.h>
#include <syspin/error.h>
#include <syspin/layout.h>

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
/* The format of a pruning's record ("q-", lib/layout/reach_memo.c). */
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

/* ---- the cache ("r-" + the file's key; lib/pins/reach_cache.c) ---- */

/* Serialises f into one malloc'ed buffer. */
int sp_reach_encode(const struct sp_reach_facts *f, void **buf,
    size_t *len, struct sp_error *err);
/* Validates and adopts buf (malloc'ed); frees it on failure. */
int sp_reach_decode(void *buf, size_t len, struct sp_reach_facts *f,
    struct sp_error *err);
/* The facts of the file whose table key is key: 1 loaded, 0 none, -1. */
int sp_reach_load(const struct sp_cache *c, const char *key,
    struct sp_reach_facts *f, struct sp_error *err);
/* Builds and stores the facts of path under key ("[vdso]": none). */
int sp_reach_fill(const struct sp_cache *c, const char *path,
    const char *key, struct sp_error *err);

/* ---- a process's layout (lib/layout/reach.c; not in the runtime) ---- */

struct sp_reach_report {
	size_t sites, live_sites;	/* in the tables, before and after */
	size_t pairs, live_pairs;	/* (site, number) pairs, the same */
	bool dlsym, dlopen;		/* as in sp_reach_result */
	struct sp_reach_widen dlsym_by[SP_REACH_WIDEN_MAX];
	size_t ndlsym_by;		/* as in sp_reach_result */
	size_t nwhole;			/* objects reachable whole */
};

#define SP_REACH_NR_MAX 1024

/* What a table pins: sites, (site, number) pairs (an export site with the
 * numbers importers pass it, as placed), sites taking any number. */
struct sp_reach_count {
	size_t sites, pairs, any;
	uint8_t nr[SP_REACH_NR_MAX];	/* 1: some site issues it */
};

/* Calls fn with each number an object of lo passes to export `name`
 * (the union place.c pins at its site). */
void sp_layout_importer_nrs(const struct sp_layout *lo, const char *name,
    void (*fn)(void *ctx, uint32_t nr), void *ctx);

/* Adds what object obj of lo pins to *c. */
void sp_layout_reach_count(const struct sp_layout *lo, size_t obj,
    struct sp_reach_count *c);

/*
 * Drops from each table of lo the sites no reachable function holds.
 * facts[i] is object i's (nfuncs 0 when none could be had).  The vDSO,
 * the vsyscall page and unattributed mappings are whole without facts;
 * lo's loader is whole.  -1 with err (out of memory): lo unchanged.
 */
int sp_layout_reach_with(struct sp_layout *lo,
    const struct sp_reach_facts *facts, const char *const *extra,
    size_t nextra, struct sp_reach_report *rep, struct sp_error *err);

/* The same with each object's facts from the cache (one without is
 * whole: none is made here, sp_reach_fill makes them), or the result for
 * the same objects from the cache (reach_memo.c). */
int sp_layout_reach(struct sp_layout *lo, const struct sp_cache *c,
    struct sp_reach_report *rep, struct sp_error *err);

/* reach_memo.c: "q-" + a hash of lo's objects; the kept sites (a bit per
 * site of each whole table, nsites[i] of them) and the report; load (of
 * lo with whole tables): 1 applied, 0 none. */
void sp_reach_memo_key(const struct sp_layout *lo, char *key, size_t size);
int sp_reach_memo_store(const struct sp_cache *c, const char *key,
    const struct sp_layout *lo, const size_t *nsites,
    const uint8_t *const *kept, const struct sp_reach_report *rep,
    struct sp_error *err);
int sp_reach_memo_load(const struct sp_cache *c, const char *key,
    struct sp_layout *lo, struct sp_reach_report *rep);

/*
 * Whether the code at addr (in lo's object obj) can run once code outside
 * the image calls the names extra[0..nextra) (objects dlopen'ed later):
 * 1 yes, 0 no, -1 unknown (treated as yes by callers).
 */
int sp_layout_reach_live(const struct sp_layout *lo,
    const struct sp_cache *c, size_t obj, uint64_t addr,
    const char *const *extra, size_t nextra);

#endif
