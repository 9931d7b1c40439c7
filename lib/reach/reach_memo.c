/* SPDX-License-Identifier: ISC */
/*
 * The result of reachable-only pruning per process image, reused: the
 * closure depends only on the set of objects, so like the start-up record
 * ("p-"), it is kept under "q-" + a hash of every object's cache key,
 * kind and role, in order.  The record holds, per object, one bit per
 * site of its whole table (1: kept) and the report; a warm exec of the
 * same program loads no facts and computes no closure.  A record that
 * does not match the tables (their site counts) is ignored.  The cache's
 * MAC covers it like any other file (sp_cache_put / sp_cache_get).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reach/reach.h"

#define MEMO_MAGIC SP_REACH_MEMO_FORMAT

struct memo_head {
	char magic[8];
	uint64_t sites, live_sites, pairs, live_pairs, nwhole;
	uint32_t dlsym, dlopen;
	uint32_t nobjs, pad;
	uint64_t ndlsym_by;	/* the calls that widened (report.dlsym_by) */
	int64_t by_obj[SP_REACH_WIDEN_MAX];
	uint64_t by_at[SP_REACH_WIDEN_MAX];
};

static void
fnv(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 1099511628211ull;
}

void
sp_reach_memo_key(const struct sp_layout *lo, char *key, size_t size)
{
	uint64_t h1 = 14695981039346656037ull, h2 = 0x9e3779b97f4a7c15ull;

	fnv(&h1, SP_REACH_FORMAT, 8);
	fnv(&h2, SP_REACH_FORMAT, 8);
	for (size_t i = 0; i < lo->nobjs; i++) {
		const struct sp_object *o = &lo->objs[i];
		uint8_t role[2] = { (uint8_t)o->kind, o->loader };
		for (int k = 0; k < 2; k++) {
			uint64_t *h = k ? &h2 : &h1;
			fnv(h, role, sizeof(role));
			fnv(h, o->key, strlen(o->key) + 1);
		}
	}
	snprintf(key, size, "q-%016llx%016llx", (unsigned long long)h1,
	    (unsigned long long)h2);
}

static size_t
memo_size(const struct sp_layout *lo, const size_t *nsites)
{
	size_t n = sizeof(struct memo_head);

	for (size_t i = 0; i < lo->nobjs; i++)
		n += 4 + ((nsites ? nsites[i] : lo->objs[i].tab.nsites) + 7) /
		    8;
	return n;
}

int
sp_reach_memo_store(const struct sp_cache *c, const char *key,
    const struct sp_layout *lo, const size_t *nsites,
    const uint8_t *const *kept, const struct sp_reach_report *rep,
    struct sp_error *err)
{
	struct memo_head h = { .sites = rep->sites,
	    .live_sites = rep->live_sites, .pairs = rep->pairs,
	    .live_pairs = rep->live_pairs, .nwhole = rep->nwhole,
	    .dlsym = rep->dlsym, .dlopen = rep->dlopen,
	    .nobjs = (uint32_t)lo->nobjs, .ndlsym_by = rep->ndlsym_by };
	size_t len = memo_size(lo, nsites), at = sizeof(h);

	for (size_t i = 0; i < SP_REACH_WIDEN_MAX; i++) {
		h.by_obj[i] = rep->dlsym_by[i].obj;
		h.by_at[i] = rep->dlsym_by[i].at;
	}
	uint8_t *buf = calloc(1, len);
	int rc;

	if (buf == NULL)
		return sp_error_set(err, "out of memory");
	memcpy(h.magic, MEMO_MAGIC, sizeof(h.magic));
	memcpy(buf, &h, sizeof(h));
	for (size_t i = 0; i < lo->nobjs; i++) {
		uint32_t n = (uint32_t)nsites[i];
		memcpy(buf + at, &n, 4);
		if (n > 0)
			memcpy(buf + at + 4, kept[i], (n + 7) / 8);
		at += 4 + (n + 7) / 8;
	}
	rc = sp_cache_put(c, key, buf, len, err);
	free(buf);
	return rc;
}

/* Keeps the sites of t whose bit is set. */
static void
apply(struct sp_pintab *t, const uint8_t *bits)
{
	size_t k = 0;

	for (size_t s = 0; s < t->nsites; s++)
		if (bits[s / 8] & (1u << (s % 8)))
			t->sites[k++] = t->sites[s];
	t->nsites = k;
}

/* The record's bits fit lo: one per site of every whole table. */
static bool
fits(const uint8_t *buf, size_t len, const struct sp_layout *lo)
{
	struct memo_head h;
	size_t at = sizeof(h);

	memcpy(&h, buf, sizeof(h));
	if (len != memo_size(lo, NULL) || memcmp(h.magic, MEMO_MAGIC, 8) != 0 ||
	    h.nobjs != lo->nobjs)
		return false;
	for (size_t i = 0; i < lo->nobjs; i++) {
		uint32_t ns;
		memcpy(&ns, buf + at, 4);
		if (ns != lo->objs[i].tab.nsites)
			return false;
		at += 4 + (ns + 7) / 8;
	}
	return true;
}

int
sp_reach_memo_load(const struct sp_cache *c, const char *key,
    struct sp_layout *lo, struct sp_reach_report *rep)
{
	size_t len = memo_size(lo, NULL), at = sizeof(struct memo_head);
	struct memo_head h;
	struct sp_error err;
	uint8_t *buf = malloc(len);
	ssize_t n;

	if (buf == NULL)
		return 0;
	n = sp_cache_get(c, key, buf, len, &err);
	if (n != (ssize_t)len || !fits(buf, len, lo)) {
		free(buf);
		return 0;
	}
	memcpy(&h, buf, sizeof(h));
	for (size_t i = 0; i < lo->nobjs; i++) {
		uint32_t ns;
		memcpy(&ns, buf + at, 4);
		apply(&lo->objs[i].tab, buf + at + 4);
		at += 4 + (ns + 7) / 8;
	}
	*rep = (struct sp_reach_report){ .sites = h.sites,
	    .live_sites = h.live_sites, .pairs = h.pairs,
	    .live_pairs = h.live_pairs, .dlsym = h.dlsym != 0,
	    .dlopen = h.dlopen != 0, .nwhole = h.nwhole,
	    .ndlsym_by = (size_t)h.ndlsym_by };
	for (size_t i = 0; i < SP_REACH_WIDEN_MAX; i++)
		rep->dlsym_by[i] = (struct sp_reach_widen){
		    h.by_obj[i] >= 0 && (uint64_t)h.by_obj[i] < lo->nobjs ?
		    (long)h.by_obj[i] : -1, h.by_at[i] };
	free(buf);
	return 1;
}
