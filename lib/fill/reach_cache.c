/* SPDX-License-Identifier: ISC */
/*
 * An object's reachability facts in the cache, next to its pin table:
 * "r-" + the table's key, written and believed like any other cache file
 * (sp_cache_put / sp_cache_get: the MAC).  One buffer: a header, then the
 * arrays, each 8-byte aligned.  The reader checks every count and index,
 * and that the arrays it searches are sorted.  Not in the runtime.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fill/fill.h"

/* Bumped whenever the facts an analysis makes change meaning. */
static const char magic[8] = SP_REACH_FORMAT;

struct header {
	char magic[8];
	uint32_t whole;
	uint32_t pad;
	uint64_t nfuncs, nroots, nedges, ncalls, nexports, strtab_size;
};

static size_t
up8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Sizes of the arrays, in order; false when they overflow. */
static bool
sizes(const struct header *h, size_t sz[6], size_t *total)
{
	uint64_t max = 1u << 28;

	if (h->nfuncs > max || h->nroots > max || h->nedges > max ||
	    h->ncalls > max || h->nexports > max || h->strtab_size > max)
		return false;
	sz[0] = h->nfuncs * sizeof(struct sp_reach_func);
	sz[1] = h->nroots * sizeof(uint32_t);
	sz[2] = h->nedges * sizeof(struct sp_reach_edge);
	sz[3] = h->ncalls * sizeof(struct sp_reach_edge);
	sz[4] = h->nexports * sizeof(struct sp_reach_edge);
	sz[5] = h->strtab_size;
	*total = sizeof(*h);
	for (int i = 0; i < 6; i++)
		*total += up8(sz[i]);
	return true;
}

int
sp_reach_encode(const struct sp_reach_facts *f, void **out, size_t *len,
    struct sp_error *err)
{
	struct header h = { .whole = f->whole, .nfuncs = f->nfuncs,
	    .nroots = f->nroots, .nedges = f->nedges, .ncalls = f->ncalls,
	    .nexports = f->nexports, .strtab_size = f->strtab_size };
	const void *src[6] = { f->funcs, f->roots, f->edges, f->calls,
	    f->exports, f->strtab };
	size_t sz[6], total, at = sizeof(h);
	uint8_t *p;

	memcpy(h.magic, magic, sizeof(magic));
	if (!sizes(&h, sz, &total))
		return sp_error_set(err, "reachability facts too large");
	if ((p = calloc(1, total)) == NULL)
		return sp_error_set(err, "out of memory");
	memcpy(p, &h, sizeof(h));
	for (int i = 0; i < 6; i++) {
		if (sz[i] > 0)
			memcpy(p + at, src[i], sz[i]);
		at += up8(sz[i]);
	}
	*out = p;
	*len = total;
	return 0;
}

static bool
sorted_from(const struct sp_reach_edge *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i - 1].from > v[i].from)
			return false;
	return true;
}

static bool
valid(const struct sp_reach_facts *f)
{
	size_t n = f->nfuncs, s = f->strtab_size;

	if (s > 0 && f->strtab[s - 1] != '\0')
		return false;
	for (size_t i = 0; i < n; i++)
		if (f->funcs[i].start >= f->funcs[i].end || (i > 0 &&
		    f->funcs[i - 1].end > f->funcs[i].start))
			return false;
	for (size_t i = 0; i < f->nroots; i++)
		if (f->roots[i] >= n)
			return false;
	for (size_t i = 0; i < f->nedges; i++)
		if (f->edges[i].from >= n || f->edges[i].to >= n)
			return false;
	for (size_t i = 0; i < f->ncalls; i++)
		if ((f->calls[i].from >= n &&
		    f->calls[i].from != SP_REACH_ALWAYS) ||
		    f->calls[i].to >= s)
			return false;
	for (size_t i = 0; i < f->nexports; i++)
		if (f->exports[i].from >= s || f->exports[i].to >= n)
			return false;
	return sorted_from(f->edges, f->nedges) &&
	    sorted_from(f->calls, f->ncalls) &&
	    f->whole <= SP_REACH_NO_FACTS;
}

int
sp_reach_decode(void *buf, size_t len, struct sp_reach_facts *f,
    struct sp_error *err)
{
	struct header h;
	size_t sz[6], total, at = sizeof(h);
	uint8_t *p = buf;
	void *dst[6];

	memset(f, 0, sizeof(*f));
	if (len < sizeof(h) || (memcpy(&h, p, sizeof(h)),
	    memcmp(h.magic, magic, sizeof(magic)) != 0) ||
	    !sizes(&h, sz, &total) || total != len) {
		free(buf);
		return sp_error_set(err, "reachability facts malformed");
	}
	for (int i = 0; i < 6; i++) {
		dst[i] = p + at;
		at += up8(sz[i]);
	}
	*f = (struct sp_reach_facts){ .whole = h.whole, .funcs = dst[0],
	    .nfuncs = h.nfuncs, .roots = dst[1], .nroots = h.nroots,
	    .edges = dst[2], .nedges = h.nedges, .calls = dst[3],
	    .ncalls = h.ncalls, .exports = dst[4], .nexports = h.nexports,
	    .strtab = dst[5], .strtab_size = h.strtab_size, .buf = buf };
	if (!valid(f)) {
		sp_reach_facts_free(f);
		return sp_error_set(err, "reachability facts malformed");
	}
	return 0;
}

static void
reach_key(const char *key, char *out, size_t size)
{
	snprintf(out, size, "r-%s", key);
}

int
sp_reach_load(const struct sp_cache *c, const char *key,
    struct sp_reach_facts *f, struct sp_error *err)
{
	char rkey[SP_CACHE_KEY_MAX + 8];
	size_t len;
	void *buf;
	int r;

	memset(f, 0, sizeof(*f));
	reach_key(key, rkey, sizeof(rkey));
	/* Through the cache, which may hold it in memory (sp_cache_keep). */
	r = sp_cache_read(c, rkey, SP_CACHE_MAX_FILE, &buf, &len, err);
	if (r != 1)
		return r;
	return sp_reach_decode(buf, len, f, err) == 0 ? 1 : -1;
}

static bool
same_file(const struct sp_elf *elf, const char *key)
{
	char now[SP_CACHE_KEY_MAX];
	struct sp_file_id id;

	sp_file_id_from_stat(&id, &elf->st);
	sp_cache_key_file(&id, now, sizeof(now));
	return strcmp(now, key) == 0;
}

int
sp_reach_fill(const struct sp_cache *c, const char *path, const char *key,
    struct sp_error *err)
{
	char rkey[SP_CACHE_KEY_MAX + 8];
	struct sp_reach_facts f;
	struct sp_elf elf;
	size_t len;
	void *buf;
	int r;

	if (strcmp(path, "[vdso]") == 0)
		return 0;
	if (sp_elf_open(&elf, path, err) == -1)
		return -1;
	/* The facts must describe the file the key names: the one read. */
	if (!same_file(&elf, key)) {
		sp_elf_close(&elf);
		return sp_error_set(err, "%s: changed while being analysed",
		    path);
	}
	r = sp_reach_facts_build(&elf, &f, err);
	sp_elf_close(&elf);
	if (r == -1)
		return -1;
	r = sp_reach_encode(&f, &buf, &len, err);
	sp_reach_facts_free(&f);
	if (r == -1)
		return -1;
	reach_key(key, rkey, sizeof(rkey));
	r = sp_cache_put(c, rkey, buf, len, err);
	free(buf);
	return r;
}
