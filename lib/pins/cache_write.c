/* SPDX-License-Identifier: ISC */
/*
 * Writing pin tables: from an analysis to the cache file format.  Not part
 * of the runtime (it needs scan.h's results, which only `syspin` computes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <syspin/cache.h>
#include <syspin/scan.h>

#include "cache_format.h"

static void
put(uint8_t *buf, size_t *off, const void *src, size_t bytes)
{
	if (bytes > 0)
		memcpy(buf + *off, src, bytes);
	memset(buf + *off + bytes, 0, SP_CACHE_ALIGN(bytes) - bytes);
	*off += SP_CACHE_ALIGN(bytes);
}

/*
 * The string table as written: t's, then the path (cache.h).  An empty
 * table gets its leading "" so that offset 0 keeps meaning "no path".
 */
static size_t
strtab_len(const struct sp_pintab *t, size_t *path_off)
{
	size_t base = t->strtab_size > 0 ? t->strtab_size : 1;

	*path_off = 0;
	if (t->path == NULL)
		return t->strtab_size;
	*path_off = base;
	return base + strlen(t->path) + 1;
}

static void
put_strtab(uint8_t *buf, size_t *off, const struct sp_pintab *t,
    size_t len, size_t path_off)
{
	uint8_t *p = buf + *off;

	memset(p, 0, SP_CACHE_ALIGN(len));
	if (t->strtab_size > 0)
		memcpy(p, t->strtab, t->strtab_size);
	if (path_off > 0)
		memcpy(p + path_off, t->path, len - path_off);
	*off += SP_CACHE_ALIGN(len);
}

int
sp_pintab_encode(const struct sp_pintab *t, void **out, size_t *outlen,
    struct sp_error *err)
{
	struct sp_cache_hdr h;
	size_t len, off = 0, slen, path_off;
	uint8_t *buf;

	if (t->path != NULL && strlen(t->path) > 4096)
		return sp_error_set(err, "%.64s...: path too long", t->path);
	slen = strtab_len(t, &path_off);
	if (t->nsites > UINT32_MAX / 2 || t->nnrs > UINT32_MAX / 2 ||
	    t->nimports > UINT32_MAX / 2 || t->nexports > UINT32_MAX / 2 ||
	    slen > UINT32_MAX / 2)
		return sp_error_set(err, "pin table too large");
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SP_CACHE_MAGIC, 8);
	h.version = SP_CACHE_VERSION;
	h.flags = t->flags;
	h.id = t->id;
	h.build_id_len = t->build_id_len;
	memcpy(h.build_id, t->build_id, sizeof(h.build_id));
	h.nsites = t->nsites;
	h.nnrs = t->nnrs;
	h.nimports = t->nimports;
	h.nexports = t->nexports;
	h.strtab_size = slen;
	h.path = path_off;
	len = sizeof(h) + SP_CACHE_ALIGN(t->nsites * sizeof(*t->sites)) +
	    SP_CACHE_ALIGN(t->nnrs * sizeof(*t->nrs)) +
	    SP_CACHE_ALIGN(t->nimports * sizeof(*t->imports)) +
	    SP_CACHE_ALIGN(t->nexports * sizeof(*t->exports)) +
	    SP_CACHE_ALIGN(slen);
	if (len > SP_CACHE_MAX_FILE)
		return sp_error_set(err, "pin table too large");
	if ((buf = malloc(len)) == NULL)
		return sp_error_set(err, "out of memory");
	put(buf, &off, &h, sizeof(h));
	put(buf, &off, t->sites, t->nsites * sizeof(*t->sites));
	put(buf, &off, t->nrs, t->nnrs * sizeof(*t->nrs));
	put(buf, &off, t->imports, t->nimports * sizeof(*t->imports));
	put(buf, &off, t->exports, t->nexports * sizeof(*t->exports));
	put_strtab(buf, &off, t, slen, path_off);
	*out = buf;
	*outlen = len;
	return 0;
}

static int
write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* The trailer of body buf under key: the attached MAC's, or "none". */
static void
trailer(const struct sp_cache *c, const char *key, const void *buf,
    size_t len, struct sp_cache_trailer *t)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->magic, SP_CACHE_TRAILER_MAGIC, sizeof(t->magic));
	t->alg = SP_CACHE_MAC_NONE;
	if (c->mac != NULL)
		c->mac->seal(c->mac, key, buf, len, t);
}

int
sp_cache_put(const struct sp_cache *c, const char *key, const void *buf,
    size_t len, struct sp_error *err)
{
	char tmp[SP_CACHE_KEY_MAX + 32];
	struct sp_cache_trailer t;
	int fd, r;

	trailer(c, key, buf, len, &t);
	/* Write aside, then rename: readers never see half a file. */
	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", key, (long)getpid());
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd == -1)
		return sp_error_sys(err, errno, "%s/%s", c->path, tmp);
	r = write_all(fd, buf, len);
	if (r == 0)
		r = write_all(fd, (const uint8_t *)&t, sizeof(t));
	if (close(fd) == -1 || r == -1 ||
	    renameat(c->dirfd, tmp, c->dirfd, key) == -1) {
		sp_error_sys(err, errno, "%s/%s", c->path, key);
		unlinkat(c->dirfd, tmp, 0);
		return -1;
	}
	return 0;
}

int
sp_cache_store(const struct sp_cache *c, const char *key,
    const struct sp_pintab *tab, struct sp_error *err)
{
	void *buf;
	size_t len;
	int r;

	if (sp_pintab_encode(tab, &buf, &len, err) == -1)
		return -1;
	r = sp_cache_put(c, key, buf, len, err);
	free(buf);
	return r;
}

/* Strings are appended to a growing table; offsets index it. */
struct strtab {
	char *s;
	size_t len;
};

static uint32_t
str_add(struct strtab *st, const char *name, int *fail)
{
	size_t n = strlen(name) + 1;
	char *p;

	if ((p = realloc(st->s, st->len + n)) == NULL) {
		*fail = 1;
		return 0;
	}
	st->s = p;
	memcpy(st->s + st->len, name, n);
	st->len += n;
	return st->len - n;
}

static uint32_t
export_index(const struct sp_scan *scan, const struct sp_site *s)
{
	size_t i;

	for (i = 0; i < scan->nexports; i++)
		if (scan->exports[i].addr == s->function)
			return i;
	return SP_PIN_NO_EXPORT;
}

static void
fill_site(const struct sp_scan *scan, const struct sp_site *s,
    struct sp_pin_site *p)
{
	memset(p, 0, sizeof(*p));
	p->addr = s->addr;
	p->length = s->length;
	p->nr_first = s->nr_first;
	p->nr_count = s->nr_count;
	p->export = SP_PIN_NO_EXPORT;
	if (s->flags & SP_SITE_NOT_PINNED) {
		/* The binary's own pin table is authoritative (OpenBSD's
		 * rule): a trap it does not list may issue nothing. */
		p->how = SP_PIN_EXACT;
		p->nr_count = 0;
	} else if (s->how == SP_HOW_UNRESOLVED &&
	    (s->flags & SP_SITE_LIKELY_DATA)) {
		/*
		 * Bytes in a data table that decode as a trap: allowing any
		 * number there would hand ROP a gadget.  Fail closed: no
		 * number (nr_count is 0 for unresolved sites).
		 */
		p->how = SP_PIN_EXACT;
	} else if (s->how == SP_HOW_UNRESOLVED) {
		p->how = SP_PIN_ANY;
	} else if (s->how == SP_HOW_EXPORT) {
		/* An export we cannot name could take any number. */
		p->export = export_index(scan, s);
		p->how = p->export == SP_PIN_NO_EXPORT ? SP_PIN_ANY :
		    SP_PIN_EXPORT;
	} else {
		p->how = SP_PIN_EXACT;
	}
}

int
sp_pintab_from_scan(const struct sp_scan *scan, struct sp_pintab *tab,
    struct sp_error *err)
{
	struct sp_pintab t;
	struct strtab st = { NULL, 0 };
	void *buf = NULL;
	size_t i, len;
	int fail = 0, r = -1;

	memset(&t, 0, sizeof(t));
	t.nsites = scan->nsites;
	t.nnrs = scan->nnrs;
	t.nrs = scan->nrs;
	t.nimports = scan->nimports;
	t.nexports = scan->nexports;
	t.sites = calloc(t.nsites + 1, sizeof(*t.sites));
	t.imports = calloc(t.nimports + 1, sizeof(*t.imports));
	t.exports = calloc(t.nexports + 1, sizeof(*t.exports));
	str_add(&st, "", &fail);
	if (t.sites == NULL || t.imports == NULL || t.exports == NULL)
		fail = 1;
	/* int 0x80 and sysenter enter as i386 calls, which the filter
	 * refuses outright: their sites get no x86-64 pins. */
	for (i = 0, t.nsites = 0; !fail && i < scan->nsites; i++)
		if (scan->sites[i].kind == SP_TRAP_SYSCALL)
			fill_site(scan, &scan->sites[i], &t.sites[t.nsites++]);
	for (i = 0; !fail && i < t.nimports; i++) {
		const struct sp_import *im = &scan->imports[i];
		t.imports[i].name = str_add(&st, im->symbol, &fail);
		t.imports[i].nr_first = im->nr_first;
		t.imports[i].nr_count = im->nr_count;
		t.imports[i].unresolved = im->unresolved;
	}
	for (i = 0; !fail && i < t.nexports; i++) {
		t.exports[i].name = str_add(&st, scan->exports[i].symbol,
		    &fail);
		t.exports[i].addr = scan->exports[i].addr;
	}
	t.strtab = st.s;
	t.strtab_size = st.len;
	if (fail)
		sp_error_set(err, "out of memory");
	else if (sp_pintab_encode(&t, &buf, &len, err) == 0)
		r = sp_pintab_decode(buf, len, tab, err);
	free(t.sites);
	free(t.imports);
	free(t.exports);
	free(st.s);
	return r;
}
