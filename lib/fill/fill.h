/* SPDX-License-Identifier: ISC */
/*
 * The fill stage: an object's analysis into the cache.  What the
 * analysis (lib/analysis) finds becomes a pin table (lib/pins) and the
 * object's reach facts, both stored under the file's key.  The writer
 * side only: never in the runtime.
 */
#ifndef SYSPIN_FILL_FILL_H
#define SYSPIN_FILL_FILL_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/reach.h"
#include "pins/cache.h"
#include "util/error.h"

/*
 * Writer side: analyses PATH ("[vdso]": this process's vDSO, the same image
 * in every process) and stores its table, unless the cache has it already
 * and !force.  Returns 0 already there, 1 stored, 2 stored an empty table
 * because the analysis failed (err says why), -1 with err set.  On 1, err
 * says why a table on disk was not believed (its MAC), else is "".
 */
int sp_cache_fill(const struct sp_cache *c, const char *path, bool force,
    struct sp_error *err);

/* ---- the cache ("r-" + the file's key; lib/fill/reach_cache.c) ---- */

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

#endif
