/* SPDX-License-Identifier: ISC */
/*
 * The names an object's code calls, each once: all the supervisor needs
 * of a late object's facts when a site pruned from its image is called
 * (lib/supervise/reach_late.c).  Kept under "i-" + the object's key, made
 * from its facts the first time: a late libLLVM's facts are 6 MB, read,
 * checked and copied at the first such stop of every pinned nm, ar or ld
 * that loads binutils' LLVM plugin, its names 90 KB.  The record names
 * the facts' format it was made from; the cache's MAC covers it like any
 * other file (sp_cache_put / sp_cache_read).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reach/reach.h"

#define IMPORTS_MAGIC "SPIMPRT1"

struct imports_head {
	char magic[8];
	char facts[8];		/* SP_REACH_FORMAT of the facts */
	uint64_t count, bytes;
};

static void
imports_key(const char *key, char *buf, size_t size)
{
	snprintf(buf, size, "i-%s", key);
}

int
sp_reach_imports_make(const struct sp_reach_facts *f, char **names,
    size_t *len, size_t *count)
{
	uint64_t *seen = NULL;
	size_t n = 0, at = 0;
	char *v;

	*names = NULL;
	*len = *count = 0;
	if (f->ncalls > 0 && (seen = calloc(f->strtab_size / 64 + 1,
	    sizeof(*seen))) == NULL)
		return -1;
	/* each name once, by its offset (a name is kept once in strtab) */
	for (size_t i = 0; i < f->ncalls; i++) {
		uint32_t to = f->calls[i].to;
		if (seen[to / 64] & (1ull << (to % 64)))
			continue;
		seen[to / 64] |= 1ull << (to % 64);
		n += strlen(f->strtab + to) + 1;
	}
	if ((v = malloc(n + 1)) == NULL) {
		free(seen);
		return -1;
	}
	for (size_t w = 0; w < f->strtab_size / 64 + 1 && seen != NULL; w++)
		for (uint64_t b = seen[w]; b != 0; b &= b - 1) {
			const char *s = f->strtab + w * 64 +
			    (size_t)__builtin_ctzll(b);
			size_t l = strlen(s) + 1;
			memcpy(v + at, s, l);
			at += l;
			(*count)++;
		}
	free(seen);
	*names = v;
	*len = at;
	return 0;
}

int
sp_reach_imports_encode(const char *names, size_t len, size_t count,
    void **out, size_t *outlen)
{
	struct imports_head h = { .count = count, .bytes = len };
	uint8_t *buf = malloc(sizeof(h) + len);

	if (buf == NULL)
		return -1;
	memcpy(h.magic, IMPORTS_MAGIC, sizeof(h.magic));
	memcpy(h.facts, SP_REACH_FORMAT, sizeof(h.facts));
	memcpy(buf, &h, sizeof(h));
	if (len > 0)
		memcpy(buf + sizeof(h), names, len);
	*out = buf;
	*outlen = sizeof(h) + len;
	return 0;
}

int
sp_reach_imports_store(const struct sp_cache *c, const char *key,
    const char *names, size_t len, size_t count, struct sp_error *err)
{
	char ikey[SP_CACHE_KEY_MAX + 8];
	size_t blen;
	void *buf;
	int rc;

	if (sp_reach_imports_encode(names, len, count, &buf, &blen) == -1)
		return sp_error_set(err, "out of memory");
	imports_key(key, ikey, sizeof(ikey));
	rc = sp_cache_put(c, ikey, buf, blen, err);
	free(buf);
	return rc;
}

int
sp_reach_imports_decode(void *p, size_t blen, char **names, size_t *len,
    size_t *count, struct sp_error *err)
{
	struct imports_head h;
	uint8_t *buf = p;
	size_t n = 0;

	*names = NULL;
	*len = *count = 0;
	if (blen < sizeof(h))
		goto bad;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, IMPORTS_MAGIC, 8) != 0 ||
	    memcmp(h.facts, SP_REACH_FORMAT, 8) != 0 ||
	    h.bytes != blen - sizeof(h) ||
	    (h.bytes > 0 && buf[blen - 1] != '\0'))
		goto bad;
	for (size_t i = sizeof(h); i < blen; i++)
		n += buf[i] == '\0';
	if (n != h.count)
		goto bad;
	memmove(buf, buf + sizeof(h), blen - sizeof(h));
	*names = (char *)buf;
	*len = blen - sizeof(h);
	*count = n;
	return 0;
bad:
	free(buf);
	return sp_error_set(err, "not imported names of this version");
}

int
sp_reach_imports_load(const struct sp_cache *c, const char *key,
    char **names, size_t *len, size_t *count, struct sp_error *err)
{
	char ikey[SP_CACHE_KEY_MAX + 8];
	size_t blen;
	void *p;
	int r;

	*names = NULL;
	*len = *count = 0;
	imports_key(key, ikey, sizeof(ikey));
	if ((r = sp_cache_read(c, ikey, SP_CACHE_MAX_FILE, &p, &blen, err)) !=
	    1)
		return r;
	return sp_reach_imports_decode(p, blen, names, len, count, err) == 0 ?
	    1 : -1;
}
