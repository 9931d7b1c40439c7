/* SPDX-License-Identifier: ISC */
/*
 * Writing pin tables: from an analysis to the cache file format.  Not part
 * of the runtime (it needs scan.h's results, which only `syspin` computes).
 * What cannot be written is kept in memory when the writer asked for it
 * (sp_cache_keep): an unwritable cache costs time, never the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pins/cache.h"
#include "elf/sites.h"

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

/* Body and trailer under key: written aside, then renamed into place. */
static int
write_file(const struct sp_cache *c, const char *key, const void *buf,
    size_t len, const struct sp_cache_trailer *t, struct sp_error *err)
{
	char tmp[SP_CACHE_KEY_MAX + 32];
	int fd, r;

	/* Readers never see half a file. */
	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", key, (long)getpid());
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd == -1)
		return sp_error_sys(err, errno, "%s/%s", c->path, tmp);
	r = write_all(fd, buf, len);
	if (r == 0)
		r = write_all(fd, (const uint8_t *)t, sizeof(*t));
	if (close(fd) == -1 || r == -1 ||
	    renameat(c->dirfd, tmp, c->dirfd, key) == -1) {
		sp_error_sys(err, errno, "%s/%s", c->path, key);
		unlinkat(c->dirfd, tmp, 0);
		return -1;
	}
	return 0;
}

/* Drops the file kept under key. */
static void
forget(struct sp_cache_mem *m, const char *key)
{
	struct sp_cache_kept **p, *k;

	for (p = &m->files; (k = *p) != NULL; p = &k->next)
		if (strcmp(k->name, key) == 0) {
			*p = k->next;
			m->bytes -= k->len;
			free(k);
			return;
		}
}

/* Past SP_CACHE_KEPT_MAX bytes, the oldest files go (not the newest). */
static void
trim(struct sp_cache_mem *m)
{
	struct sp_cache_kept **p;

	while (m->bytes > SP_CACHE_KEPT_MAX && m->files->next != NULL) {
		for (p = &m->files; (*p)->next != NULL; p = &(*p)->next)
			;
		m->bytes -= (*p)->len;
		free(*p);
		*p = NULL;
	}
}

/* Keeps body and trailer under key in c's memory, as the file would be. */
static int
keep(const struct sp_cache *c, const char *key, const void *buf,
    size_t len, const struct sp_cache_trailer *t, struct sp_error *err)
{
	struct sp_cache_mem *m = c->mem;
	struct sp_cache_kept *k;
	size_t n = strlen(key) + 1, total;

	if (len > SP_CACHE_MAX_FILE)
		return sp_error_set(err, "%s/%s: too large", c->path, key);
	total = len + sizeof(*t);
	forget(m, key);
	if ((k = malloc(sizeof(*k) + total + n)) == NULL)
		return sp_error_set(err, "%s/%s: out of memory", c->path, key);
	memcpy(k->data, buf, len);
	memcpy(k->data + len, t, sizeof(*t));
	memcpy(k->data + total, key, n);
	k->name = (const char *)k->data + total;
	k->len = total;
	k->next = m->files;
	m->files = k;
	m->bytes += total;
	trim(m);
	return 0;
}

/*
 * Once a process, whichever of its caches, and only by the process that
 * asked (a forked child's parent stores the same files and says it).
 */
static void
tell(const struct sp_cache *c)
{
	static bool said;
	const struct sp_cache_mem *m = c->mem;

	if (said || m->say == NULL || getpid() != m->owner)
		return;
	said = true;
	if (c->path[0] != '\0')
		m->say("%s: cannot write (%s): tables are made again each run",
		    c->path, m->why);
	else
		m->say("no cache directory (%s): tables are made again each "
		    "run", m->why);
}

int
sp_cache_put(const struct sp_cache *c, const char *key, const void *buf,
    size_t len, struct sp_error *err)
{
	struct sp_cache_mem *m = c->mem;
	struct sp_cache_trailer t;
	struct sp_error why;

	/* Once: the trailer may be what carries the file (lib/supervise). */
	trailer(c, key, buf, len, &t);
	sp_cache_memo_drop(c, key);	/* believed anew when read */
	if (m == NULL)
		return write_file(c, key, buf, len, &t, err);
	if (!m->failed) {
		if (write_file(c, key, buf, len, &t, &why) == 0)
			return 0;
		/* Not an attack, and no reason to run unpinned: the run
		 * pins from memory, and says so once. */
		m->failed = true;
		snprintf(m->why, sizeof(m->why), "%s", why.code != 0 ?
		    strerror(why.code) : why.msg);
	}
	tell(c);
	return keep(c, key, buf, len, &t, err);
}

int
sp_cache_keep(struct sp_cache *c, sp_cache_say *say, struct sp_error *err)
{
	if (c->mem == NULL && (c->mem = calloc(1, sizeof(*c->mem))) == NULL)
		return sp_error_set(err, "out of memory");
	c->mem->say = say;
	c->mem->owner = getpid();
	return 0;
}

int
sp_cache_open_memory(struct sp_cache *c, const char *dir, uid_t euid,
    const char *why, sp_cache_say *say, struct sp_error *err)
{
	memset(c, 0, sizeof(*c));
	c->dirfd = -1;
	c->euid = euid;
	snprintf(c->path, sizeof(c->path), "%s", dir != NULL ? dir : "");
	if (sp_cache_keep(c, say, err) == -1)
		return -1;
	c->mem->failed = true;
	snprintf(c->mem->why, sizeof(c->mem->why), "%s", why);
	return 0;
}

/* A page: what a full file system refuses even when a name still fits. */
static int
probe(const struct sp_cache *c)
{
	static const uint8_t page[4096];
	char tmp[64];
	int fd, r, e;

	snprintf(tmp, sizeof(tmp), ".probe.%ld.tmp", (long)getpid());
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1)
		return errno;
	r = write_all(fd, page, sizeof(page));
	e = errno;
	if (close(fd) == -1 && r == 0) {
		r = -1;
		e = errno;
	}
	unlinkat(c->dirfd, tmp, 0);
	return r == 0 ? 0 : e;
}

int
sp_cache_writable(const struct sp_cache *c, struct sp_error *err)
{
	int e;

	if (c->mem != NULL && c->mem->failed) {
		if (c->path[0] == '\0')
			return sp_error_set(err, "no cache directory (%s)",
			    c->mem->why);
		return sp_error_set(err, "%s: cannot write (%s)", c->path,
		    c->mem->why);
	}
	if (c->dirfd == -1)
		return sp_error_set(err, "no cache directory");
	if ((e = probe(c)) == 0)
		return 0;
	sp_error_set(err, "%s: cannot write (%s)", c->path, strerror(e));
	err->code = e;
	return -1;
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
		p->nr_count = 0;
	} else if (s->how == SP_HOW_UNRESOLVED) {
		/* a number loaded from memory (glibc's setxid handler) is
		 * one its object issues; a number-taking function with a
		 * caller we cannot read (or none) keeps too what the
		 * callers that can be read pass (its nrs): place.c */
		p->how = s->param_reg != SP_REG_NONE ? SP_PIN_ANY_PARAM :
		    SP_PIN_ANY;
		if (p->how == SP_PIN_ANY)
			p->nr_count = 0;
	} else if (s->how == SP_HOW_EXPORT) {
		/* An export we cannot name: its object's numbers and what
		 * its readable callers pass, as above (place.c). */
		p->export = export_index(scan, s);
		p->how = p->export == SP_PIN_NO_EXPORT ? SP_PIN_ANY_PARAM :
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
