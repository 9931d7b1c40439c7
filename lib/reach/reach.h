/* SPDX-License-Identifier: ISC */
/*
 * Reachable-only pins of a process's layout (the reach stage): which
 * sites of the layout's tables a function that can run holds, from each
 * object's facts (lib/analysis/reach.h, cached by lib/fill) and the
 * closure over the objects; the result of a pruning kept per object set
 * (reach_memo.c).  Not in the runtime.
 */
#ifndef SYSPIN_REACH_REACH_H
#define SYSPIN_REACH_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/reach.h"
#include "layout/layout.h"
#include "pins/cache.h"
#include "util/error.h"


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

/* reach_imports.c: the names f calls, each once, NUL-separated (*names,
 * malloc'ed, *len bytes, *count names); kept under "i-" + an object's
 * key.  make: 0 or -1 (out of memory); load: 1 found and whole, 0 absent
 * or not believed, -1 malformed (err says why). */
int sp_reach_imports_make(const struct sp_reach_facts *f, char **names,
    size_t *len, size_t *count);
int sp_reach_imports_store(const struct sp_cache *c, const char *key,
    const char *names, size_t len, size_t count, struct sp_error *err);
int sp_reach_imports_load(const struct sp_cache *c, const char *key,
    char **names, size_t *len, size_t *count, struct sp_error *err);
/* The record: encode into *out (malloc'ed), 0 or -1 (out of memory);
 * decode buf (malloc'ed, adopted: freed on failure) as load gives it: 0,
 * or -1 with err. */
int sp_reach_imports_encode(const char *names, size_t len, size_t count,
    void **out, size_t *outlen);
int sp_reach_imports_decode(void *buf, size_t len, char **names,
    size_t *nlen, size_t *count, struct sp_error *err);

/*
 * The code of lo that cannot run once code outside the image calls the
 * names extra[0..nextra) (objects dlopen'ed later): per object, the
 * link-time ranges of functions the closure does not reach, merged; code
 * outside every function, and objects reachable whole, are never dead.
 * One closure answers every site (the supervisor asks at each call from
 * a pruned site).  0, or -1 unknown (callers treat all as live).
 */
struct sp_reach_dead_obj {
	struct sp_reach_func *v;	/* sorted, disjoint */
	size_t n;
};
struct sp_reach_dead {
	struct sp_reach_dead_obj *objs;
	size_t nobjs;
};
int sp_layout_reach_dead(const struct sp_layout *lo,
    const struct sp_cache *c, const char *const *extra, size_t nextra,
    struct sp_reach_dead *d);
bool sp_reach_dead_at(const struct sp_reach_dead *d, size_t obj,
    uint64_t addr);
void sp_reach_dead_free(struct sp_reach_dead *d);

#endif
