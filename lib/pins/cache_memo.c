/* SPDX-License-Identifier: ISC */
/*
 * Files of the cache already believed by this process (their MAC checked,
 * or written by it), by name: the supervisor loads the same few tables at
 * every exec, and each load was an open, a stat, a read, a close and an
 * HMAC.  Only in a handle that keeps files (sp_cache_keep: the
 * supervisor's, syspin run's), and in the first image's runtime the
 * tables `syspin run` believed and handed over (sp_cache_believe).  A
 * name stands for
 * one object's identity, so its file does not change but when this
 * process writes it again (sp_cache_put drops it here first).  What the
 * tree does to the directory meanwhile changes nothing we believed.
 * Bounded: past MEMO_BYTES, everything is dropped and loaded again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pins/cache.h"

#include "cache_format.h"

#define MEMO_BYTES (64u << 20)
#define MEMO_SLOTS_MAX (1u << 16)

struct memo_entry {
	char *name;		/* NULL: free; the data follows in one block */
	size_t len;
	uint8_t *data;
};

struct sp_cache_memo {
	struct memo_entry *v;
	size_t cap, used, bytes;
};

static uint64_t
hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

static void
clear(struct sp_cache_memo *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->v[i].name);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

void
sp_cache_memo_free(struct sp_cache_memo *m)
{
	if (m != NULL)
		clear(m);
	free(m);
}

static struct memo_entry *
slot(const struct sp_cache_memo *m, const char *key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = hash(key) & (m->cap - 1); m->v[i].name != NULL;
	    i = (i + 1) & (m->cap - 1))
		if (strcmp(m->v[i].name, key) == 0)
			break;
	return &m->v[i];
}

int
sp_cache_memo_get(const struct sp_cache *c, const char *key, size_t max,
    void **buf, size_t *len)
{
	const struct memo_entry *e;

	if (c->mem == NULL || c->mem->memo == NULL ||
	    (e = slot(c->mem->memo, key)) == NULL || e->name == NULL ||
	    e->len > max || (*buf = malloc(e->len ? e->len : 1)) == NULL)
		return 0;
	memcpy(*buf, e->data, e->len);
	*len = e->len;
	return 1;
}

/* Twice the slots, entries moved; false when there is no memory. */
static bool
grow(struct sp_cache_memo *m)
{
	struct sp_cache_memo n = { NULL, m->cap ? 2 * m->cap : 256, 0,
		m->bytes };

	if (n.cap > MEMO_SLOTS_MAX ||
	    (n.v = calloc(n.cap, sizeof(*n.v))) == NULL)
		return false;
	for (size_t i = 0; i < m->cap; i++)
		if (m->v[i].name != NULL) {
			*slot(&n, m->v[i].name) = m->v[i];
			n.used++;
		}
	free(m->v);
	*m = n;
	return true;
}

void
sp_cache_memo_put(const struct sp_cache *c, const char *key,
    const void *buf, size_t len)
{
	struct sp_cache_memo *m;
	struct memo_entry *e;
	size_t klen = strlen(key) + 1;

	if (c->mem == NULL || len > MEMO_BYTES)
		return;
	if ((m = c->mem->memo) == NULL &&
	    (m = c->mem->memo = calloc(1, sizeof(*m))) == NULL)
		return;
	sp_cache_memo_drop(c, key);
	if (m->bytes + len > MEMO_BYTES)
		clear(m);
	if ((m->used + 1) * 2 > m->cap && !grow(m)) {
		clear(m);
		if (!grow(m))
			return;
	}
	e = slot(m, key);
	if ((e->name = malloc(klen + len)) == NULL)
		return;
	memcpy(e->name, key, klen);
	e->data = (uint8_t *)e->name + klen;
	memcpy(e->data, buf, len);
	e->len = len;
	m->used++;
	m->bytes += len;
}

void
sp_cache_memo_drop(const struct sp_cache *c, const char *key)
{
	struct sp_cache_memo *m;
	struct memo_entry *e;
	size_t i, j;

	if (c->mem == NULL || (m = c->mem->memo) == NULL ||
	    (e = slot(m, key)) == NULL || e->name == NULL)
		return;
	m->bytes -= e->len;
	free(e->name);
	e->name = NULL;
	m->used--;
	/* linear probing: the entries after the hole move up into it */
	i = (size_t)(e - m->v);
	for (j = (i + 1) & (m->cap - 1); m->v[j].name != NULL;
	    j = (j + 1) & (m->cap - 1)) {
		struct memo_entry moved = m->v[j];
		m->v[j].name = NULL;
		*slot(m, moved.name) = moved;
	}
}

int
sp_cache_believed(const struct sp_cache *c, const char *key, void **buf,
    size_t *len)
{
	return sp_cache_memo_get(c, key, SP_CACHE_MAX_FILE, buf, len);
}

int
sp_cache_believe(struct sp_cache *c, const char *key, const void *buf,
    size_t len)
{
	void *got;
	size_t n;

	if (c->mem == NULL && (c->mem = calloc(1, sizeof(*c->mem))) == NULL)
		return -1;
	sp_cache_memo_put(c, key, buf, len);
	if (sp_cache_memo_get(c, key, SP_CACHE_MAX_FILE, &got, &n) != 1)
		return -1;
	free(got);
	return 0;
}
