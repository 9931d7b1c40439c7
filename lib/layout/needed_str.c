/* SPDX-License-Identifier: ISC */
/*
 * Strings of sp_needed_resolve: vectors, a map, name lists.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "needed_int.h"
#include "util/hash.h"

#define PRELOAD_MAX (1u << 20)	/* bytes of /etc/ld.so.preload read */

int
sp_nd_strv_add(struct sp_nd_strv *s, const char *str)
{
	char **v;
	size_t cap;

	if (s->n == s->cap) {
		cap = s->cap == 0 ? 8 : 2 * s->cap;
		if ((v = realloc(s->v, cap * sizeof(*v))) == NULL)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	if ((s->v[s->n] = strdup(str)) == NULL)
		return -1;
	s->n++;
	return 0;
}

bool
sp_nd_strv_has(const struct sp_nd_strv *s, const char *str)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

int
sp_nd_strv_copy(struct sp_nd_strv *dst, const struct sp_nd_strv *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		if (sp_nd_strv_add(dst, src->v[i]) == -1)
			return -1;
	return 0;
}

void
sp_nd_strv_free(struct sp_nd_strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static size_t
str_hash(const char *s)
{
	return (size_t)sp_fnv1a_str(SP_FNV1A_INIT, s);
}

long *
sp_nd_map_get(const struct sp_nd_map *m, const char *key)
{
	size_t h;

	if (m->cap == 0)
		return NULL;
	for (h = str_hash(key) & (m->cap - 1); m->keys[h] != NULL;
	    h = (h + 1) & (m->cap - 1))
		if (strcmp(m->keys[h], key) == 0)
			return &m->vals[h];
	return NULL;
}

/* Moves an owned key into a table with room. */
static void
map_place(char **keys, long *vals, size_t cap, char *key, long val)
{
	size_t h = str_hash(key) & (cap - 1);

	while (keys[h] != NULL)
		h = (h + 1) & (cap - 1);
	keys[h] = key;
	vals[h] = val;
}

static int
map_grow(struct sp_nd_map *m)
{
	size_t cap = m->cap == 0 ? 64 : 2 * m->cap, i;
	char **keys;
	long *vals;

	keys = calloc(cap, sizeof(*keys));
	vals = calloc(cap, sizeof(*vals));
	if (keys == NULL || vals == NULL) {
		free(keys);
		free(vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->keys[i] != NULL)
			map_place(keys, vals, cap, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int
sp_nd_map_put(struct sp_nd_map *m, const char *key, long val)
{
	long *v;
	char *k;

	if ((v = sp_nd_map_get(m, key)) != NULL) {
		*v = val;
		return 0;
	}
	if (2 * (m->n + 1) > m->cap && map_grow(m) == -1)
		return -1;
	if ((k = strdup(key)) == NULL)
		return -1;
	map_place(m->keys, m->vals, m->cap, k, val);
	m->n++;
	return 0;
}

void
sp_nd_map_free(struct sp_nd_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

bool
sp_nd_any_dollar(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr(v[i], '$') != NULL)
			return true;
	return false;
}

/* Splits s at any of seps into v (empty pieces dropped). */
int
sp_nd_split(const char *s, size_t len, const char *seps, struct sp_nd_strv *v)
{
	char piece[PATH_MAX];
	size_t i = 0, j;

	while (i < len) {
		for (j = i; j < len && s[j] != '\0' && !strchr(seps, s[j]); j++)
			;
		/* Longer names could not be opened anyway. */
		if (j > i && j - i < sizeof(piece)) {
			memcpy(piece, s + i, j - i);
			piece[j - i] = '\0';
			if (sp_nd_strv_add(v, piece) == -1)
				return -1;
		}
		i = j + 1;
	}
	return 0;
}

/* A NUL ends a name too: ld.so would stop there, we look at more. */
int
sp_nd_read_names(const char *file, struct sp_nd_strv *v)
{
	size_t n = 0;
	char *buf, *p;
	ssize_t got;
	int fd, rc;

	if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return 0;
	if ((buf = malloc(PRELOAD_MAX)) == NULL) {
		close(fd);
		return -1;
	}
	while (n < PRELOAD_MAX) {
		got = read(fd, buf + n, PRELOAD_MAX - n);
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += got;
	}
	close(fd);
	for (p = buf; (p = memchr(p, '#', buf + n - p)) != NULL; )
		while (p < buf + n && *p != '\n')
			*p++ = ' ';
	rc = sp_nd_split(buf, n, " \t\n:", v);
	free(buf);
	return rc;
}
