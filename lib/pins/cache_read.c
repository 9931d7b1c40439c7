/* SPDX-License-Identifier: ISC */
/*
 * Reading pin tables.  Part of the runtime: plain libc only.  A table file is
 * read in one piece and every count, index and name is checked before the
 * arrays are pointed into the buffer, so a truncated or hostile file can only
 * produce "no table", never an out-of-bounds read.  Files end with a MAC
 * trailer (cache_format.h): the runtime skips it; the writer side, which
 * holds the key, checks it through the MAC attached to the cache.  A file
 * the writer could not write is read from its memory (sp_cache_keep) the
 * same way, trailer and all.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pins/cache.h"

#include "cache_format.h"
#include "util/hash.h"

void
sp_file_id_from_stat(struct sp_file_id *id, const struct stat *st)
{
	memset(id, 0, sizeof(*id));
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime_sec = st->st_mtim.tv_sec;
	id->mtime_nsec = st->st_mtim.tv_nsec;
	id->ctime_sec = st->st_ctim.tv_sec;
	id->ctime_nsec = st->st_ctim.tv_nsec;
}

void
sp_cache_key_file(const struct sp_file_id *id, char *key, size_t size)
{
	snprintf(key, size, "f-%" PRIx64 "-%" PRIu64 "-%" PRIu64 "-%" PRId64
	    ".%09" PRId64 "-%" PRId64 ".%09" PRId64, id->dev, id->ino,
	    id->size, id->mtime_sec, id->mtime_nsec, id->ctime_sec,
	    id->ctime_nsec);
}

void
sp_cache_key_vdso(const uint8_t *build_id, size_t build_id_len,
    const void *image, size_t image_size, char *key, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = image;
	uint64_t h;
	size_t i, n;

	if (build_id_len > 0 && size > 5 + 2 * build_id_len) {
		memcpy(key, "vdso-", 5);
		for (i = 0, n = 5; i < build_id_len; i++) {
			key[n++] = hex[build_id[i] >> 4];
			key[n++] = hex[build_id[i] & 15];
		}
		key[n] = '\0';
		return;
	}
	h = sp_fnv1a(SP_FNV1A_INIT, p, image_size);
	snprintf(key, size, "vdso-h%016" PRIx64 "-%zu", h, image_size);
}

void
sp_pintab_free(struct sp_pintab *tab)
{
	free(tab->buf);
	memset(tab, 0, sizeof(*tab));
}

/* Takes n elements of size sz at *off; advances *off to the next 8 bytes. */
static void *
take(uint8_t *buf, size_t len, size_t *off, size_t n, size_t sz)
{
	void *p = buf + *off;
	size_t bytes = n * sz;

	if (n > SP_CACHE_MAX_FILE || SP_CACHE_ALIGN(bytes) > len - *off)
		return NULL;
	*off += SP_CACHE_ALIGN(bytes);
	return p;
}

static int
check_nrs(uint32_t first, uint32_t count, size_t nnrs)
{
	return first <= nnrs && count <= nnrs - first;
}

static int
check_tables(const struct sp_pintab *t, struct sp_error *err)
{
	size_t i;

	if (t->strtab_size == 0 || t->strtab[t->strtab_size - 1] != '\0')
		return sp_error_set(err, "string table not terminated");
	for (i = 0; i < t->nsites; i++) {
		const struct sp_pin_site *s = &t->sites[i];
		if (!check_nrs(s->nr_first, s->nr_count, t->nnrs) ||
		    s->how > SP_PIN_ANY_PARAM || s->length == 0 ||
		    s->length > 15 ||
		    (s->how == SP_PIN_EXPORT && s->export >= t->nexports))
			return sp_error_set(err, "bad site %zu", i);
	}
	for (i = 0; i < t->nimports; i++) {
		const struct sp_pin_import *im = &t->imports[i];
		if (!check_nrs(im->nr_first, im->nr_count, t->nnrs) ||
		    im->name >= t->strtab_size)
			return sp_error_set(err, "bad import %zu", i);
	}
	for (i = 0; i < t->nexports; i++)
		if (t->exports[i].name >= t->strtab_size)
			return sp_error_set(err, "bad export %zu", i);
	return 0;
}

/* A table of ours in another format or from another analysis version. */
static bool
stale(const void *buf, size_t len)
{
	const struct sp_cache_hdr *h = buf;

	return len >= sizeof(*h) && memcmp(h->magic, SP_CACHE_MAGIC, 8) == 0 &&
	    h->version != SP_CACHE_VERSION;
}

int
sp_pintab_decode(void *buf, size_t len, struct sp_pintab *tab,
    struct sp_error *err)
{
	struct sp_cache_hdr *h = buf;
	size_t off = sizeof(*h);

	memset(tab, 0, sizeof(*tab));
	if (len < sizeof(*h) || memcmp(h->magic, SP_CACHE_MAGIC, 8) != 0 ||
	    h->version != SP_CACHE_VERSION) {
		free(buf);
		return sp_error_set(err, "not a syspin pin table");
	}
	tab->buf = buf;
	tab->id = h->id;
	tab->flags = h->flags;
	tab->build_id_len = h->build_id_len;
	if (tab->build_id_len > SP_CACHE_BUILD_ID_MAX)
		goto bad;
	memcpy(tab->build_id, h->build_id, tab->build_id_len);
	tab->nsites = h->nsites;
	tab->nnrs = h->nnrs;
	tab->nimports = h->nimports;
	tab->nexports = h->nexports;
	tab->strtab_size = h->strtab_size;
	tab->sites = take(buf, len, &off, tab->nsites, sizeof(*tab->sites));
	tab->nrs = take(buf, len, &off, tab->nnrs, sizeof(*tab->nrs));
	tab->imports = take(buf, len, &off, tab->nimports,
	    sizeof(*tab->imports));
	tab->exports = take(buf, len, &off, tab->nexports,
	    sizeof(*tab->exports));
	tab->strtab = take(buf, len, &off, tab->strtab_size, 1);
	if (tab->sites == NULL || tab->nrs == NULL || tab->imports == NULL ||
	    tab->exports == NULL || tab->strtab == NULL || off != len)
		goto bad;
	if (h->path >= tab->strtab_size)
		goto bad;
	tab->path = h->path > 0 ? tab->strtab + h->path : NULL;
	if (check_tables(tab, err) == -1) {
		sp_pintab_free(tab);
		return -1;
	}
	return 0;
bad:
	sp_pintab_free(tab);
	return sp_error_set(err, "truncated or inconsistent pin table");
}

static int
read_all(int fd, size_t len, void **out)
{
	uint8_t *buf;
	size_t got = 0;
	ssize_t n;

	if ((buf = malloc(len ? len : 1)) == NULL)
		return -1;
	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return -1;
		}
		got += n;
	}
	*out = buf;
	return 0;
}

/* Opens key in the cache: -2 when absent, -1 untrusted, else the fd. */
static int
open_trusted(const struct sp_cache *c, const char *key, struct stat *st,
    struct sp_error *err)
{
	int fd;

	/* O_NONBLOCK: a FIFO put under the name would block the open (and
	 * every run after) until someone writes to it */
	fd = openat(c->dirfd, key, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT || errno == ELOOP || errno == ENXIO)
			return -2;
		return sp_error_sys(err, errno, "%s/%s", c->path, key);
	}
	/* what is no regular file is no table: made again, kept in memory
	 * where it cannot be written in its place */
	if (fstat(fd, st) == -1 || !S_ISREG(st->st_mode)) {
		close(fd);
		return -2;
	}
	if (!sp_cache_trusted(st, c->euid, false)) {
		close(fd);
		return sp_error_set(err, "%s/%s: untrusted cache file "
		    "(owner or mode)", c->path, key);
	}
	return fd;
}

const struct sp_cache_kept *
sp_cache_kept_find(const struct sp_cache *c, const char *key)
{
	const struct sp_cache_kept *k;

	if (c->mem == NULL)
		return NULL;
	for (k = c->mem->files; k != NULL; k = k->next)
		if (strcmp(k->name, key) == 0)
			return k;
	return NULL;
}

/* A copy of the file kept in memory, read as one of the directory's. */
static int
read_kept(const struct sp_cache *c, const struct sp_cache_kept *k,
    size_t max, void **buf, size_t *len, struct sp_error *err)
{
	if (k->len > max)
		return sp_error_set(err, "%s/%s: too large", c->path, k->name);
	if ((*buf = malloc(k->len ? k->len : 1)) == NULL)
		return sp_error_set(err, "%s/%s: out of memory", c->path,
		    k->name);
	memcpy(*buf, k->data, k->len);
	*len = k->len;
	return 1;
}

/*
 * The whole file under key, at most max bytes: 1, 0 absent, -1.  What
 * this process could not write is in memory (sp_cache_keep), newer than
 * any file of the directory under its name.
 */
static int
read_file(const struct sp_cache *c, const char *key, size_t max,
    void **buf, size_t *len, struct sp_error *err)
{
	const struct sp_cache_kept *k;
	struct stat st;
	int fd, r;

	if ((k = sp_cache_kept_find(c, key)) != NULL)
		return read_kept(c, k, max, buf, len, err);
	if (c->dirfd == -1)
		return 0;	/* memory alone */
	if ((fd = open_trusted(c, key, &st, err)) < 0)
		return fd == -2 ? 0 : -1;
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return sp_error_set(err, "%s/%s: too large", c->path, key);
	}
	r = read_all(fd, st.st_size, buf);
	close(fd);
	if (r == -1)
		return sp_error_set(err, "%s/%s: cannot read", c->path, key);
	*len = st.st_size;
	return 1;
}

/*
 * How much of a file is its body: all but the trailer sp_cache_put adds.
 * Files an older syspin wrote have none.  The MAC itself is not looked at
 * here: that is the attached MAC's business, on the writer side only.
 */
static size_t
body_len(const void *buf, size_t len)
{
	const struct sp_cache_trailer *t;

	if (len < sizeof(*t))
		return len;
	t = (const void *)((const uint8_t *)buf + len - sizeof(*t));
	return memcmp(t->magic, SP_CACHE_TRAILER_MAGIC, 8) == 0 ?
	    len - sizeof(*t) : len;
}

/*
 * With a MAC attached, a file is believed only if its MAC is right; one
 * that is not counts as absent, so that it is made again (fail closed).
 */
static bool
authentic(const struct sp_cache *c, const char *key, const void *buf,
    size_t len, struct sp_error *err)
{
	struct sp_error why;

	if (c->mac == NULL || c->mac->check(c->mac, key, buf, len, &why))
		return true;
	sp_error_set(err, "%s/%s: not believed: %s", c->path, key, why.msg);
	return false;
}

int
sp_cache_load(const struct sp_cache *c, const char *key,
    struct sp_pintab *tab, struct sp_error *err)
{
	void *buf;
	size_t len;
	int r;

	memset(tab, 0, sizeof(*tab));
	if (sp_cache_memo_get(c, key, SP_CACHE_MAX_FILE, &buf, &len) == 0) {
		r = read_file(c, key, SP_CACHE_MAX_FILE, &buf, &len, err);
		if (r != 1)
			return r;
		if (!authentic(c, key, buf, len, err) || stale(buf, len)) {
			free(buf);
			return 0;	/* analyse again */
		}
		sp_cache_memo_put(c, key, buf, len);
	}
	if (sp_pintab_decode(buf, body_len(buf, len), tab, err) == -1)
		return -1;
	return 1;
}

int
sp_cache_read(const struct sp_cache *c, const char *key, size_t max,
    void **buf, size_t *len, struct sp_error *err)
{
	void *file;
	size_t n;
	int r;

	if (max > SP_CACHE_MAX_FILE)
		max = SP_CACHE_MAX_FILE;
	if (sp_cache_memo_get(c, key, max + sizeof(struct sp_cache_trailer),
	    &file, &n) == 0) {
		r = read_file(c, key, max + sizeof(struct sp_cache_trailer),
		    &file, &n, err);
		if (r != 1)
			return r;
		if (!authentic(c, key, file, n, err)) {
			free(file);
			return 0;
		}
		sp_cache_memo_put(c, key, file, n);
	}
	if ((n = body_len(file, n)) == 0) {
		free(file);
		return 0;
	}
	if (n > max) {
		free(file);
		return sp_error_set(err, "%s/%s: too large", c->path, key);
	}
	*buf = file;
	*len = n;
	return 1;
}

ssize_t
sp_cache_get(const struct sp_cache *c, const char *key, void *buf,
    size_t max, struct sp_error *err)
{
	void *file = NULL;
	size_t len = 0;
	int r;

	if ((r = sp_cache_read(c, key, max, &file, &len, err)) != 1)
		return r;
	memcpy(buf, file, len);
	free(file);
	return len;
}

bool
sp_cache_has(const struct sp_cache *c, const char *key)
{
	struct stat st;
	void *buf;
	size_t len;
	bool ok;

	if (c->mac == NULL && sp_cache_kept_find(c, key) != NULL)
		return true;
	if (c->mac == NULL)
		return c->dirfd != -1 &&
		    fstatat(c->dirfd, key, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && sp_cache_trusted(&st, c->euid,
		    false);
	/* Only a believed file counts: the caller would use it unread. */
	if (read_file(c, key, SP_CACHE_MAX_FILE, &buf, &len, NULL) != 1)
		return false;
	ok = authentic(c, key, buf, len, NULL);
	free(buf);
	return ok;
}
