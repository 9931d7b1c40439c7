/* SPDX-License-Identifier: ISC */
/*
 * /etc/ld.so.cache, as glibc 2.36's ld.so reads it (elf/dl-cache.c):
 *
 *   new:  "glibc-ld.so.cache" "1.1", nlibs, len_strings, flags (endianness
 *         in its low two bits), 3 pad, extension offset, 3 unused words:
 *         48 bytes; then nlibs entries of 24 bytes (flags, key, value,
 *         osversion, hwcap); key and value are offsets from the header.
 *   old:  "ld.so-1.7.0", pad, nlibs: 16 bytes; nlibs entries of 12 bytes
 *         (flags, key, value), offsets from the end of the entries.  A new
 *         table may follow, 8-aligned; ld.so then reads only that one.
 *
 * The lookup is a superset of ld.so's: every entry with the key, whatever
 * its hwcap, found by a sort of our own (ld.so bisects with its own order
 * and may miss entries of a cache that is not sorted its way).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout/needed.h"

#include "util/file.h"

#define MAGIC_NEW "glibc-ld.so.cache1.1"
#define MAGIC_OLD "ld.so-1.7.0"
#define HDR_NEW 48u
#define ENT_NEW 24u
#define HDR_OLD 16u
#define ENT_OLD 12u

/* Flags ld.so accepts on x86-64: FLAG_ELF, FLAG_ELF_LIBC6|FLAG_X8664_LIB64. */
#define FLAG_ELF 0x0001
#define FLAG_X86_64_LIBC6 0x0303

/* The low bits of the new header's flags byte. */
#define ENDIAN_MASK 3u
#define ENDIAN_INVALID 1u
#define ENDIAN_BIG 3u

static uint32_t
get32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Keeps entry i of a table whose strings start at strbase. */
static void
add_entry(struct sp_ldcache *c, const char *ent, size_t strbase, size_t i)
{
	int32_t flags = (int32_t)get32(ent);
	uint32_t key = get32(ent + 4), value = get32(ent + 8);
	size_t room = c->size - strbase;

	if (flags != FLAG_ELF && flags != FLAG_X86_64_LIBC6)
		return;
	/* Every string ends at the latest at the NUL we appended. */
	if (key >= room || value >= room)
		return;
	c->ents[c->nents].key = c->data + strbase + key;
	c->ents[c->nents].path = c->data + strbase + value;
	c->ents[c->nents].index = i;
	c->nents++;
}

static int
table(struct sp_ldcache *c, size_t first, size_t n, size_t entsize,
    size_t strbase, struct sp_error *err)
{
	size_t i;

	if (n > 0 && (c->ents = calloc(n, sizeof(*c->ents))) == NULL)
		return sp_error_set(err, "out of memory");
	for (i = 0; i < n; i++)
		add_entry(c, c->data + first + i * entsize, strbase, i);
	return 0;
}

/*
 * The new table at base.  Alone, its entries must fit (ld.so rejects the
 * file otherwise); after an old table ld.so does not check, and we keep
 * the entries that fit.
 */
static int
parse_new(struct sp_ldcache *c, size_t base, bool alone, struct sp_error *err)
{
	size_t nlibs, fit;
	unsigned endian;

	if (c->size - base < HDR_NEW || (alone && c->size == HDR_NEW))
		return sp_error_set(err, "truncated ld.so.cache header");
	endian = (unsigned char)c->data[base + 28] & ENDIAN_MASK;
	if (endian == ENDIAN_INVALID || endian == ENDIAN_BIG)
		return sp_error_set(err, "ld.so.cache of another endianness");
	nlibs = get32(c->data + base + 20);
	fit = (c->size - base - HDR_NEW) / ENT_NEW;
	if (nlibs > fit) {
		if (alone)
			return sp_error_set(err, "ld.so.cache entries extend "
			    "past the end of the file");
		nlibs = fit;
	}
	return table(c, base + HDR_NEW, nlibs, ENT_NEW, base, err);
}

static int
parse_old(struct sp_ldcache *c, struct sp_error *err)
{
	size_t nlibs, end, next;

	if (c->size <= HDR_OLD)
		return sp_error_set(err, "truncated ld.so.cache header");
	nlibs = get32(c->data + 12);
	if ((c->size - HDR_OLD) / ENT_OLD < nlibs)
		return sp_error_set(err, "ld.so.cache entries extend past "
		    "the end of the file");
	end = HDR_OLD + nlibs * ENT_OLD;
	next = (end + 7) & ~(size_t)7;
	if (next <= c->size && c->size - next >= HDR_NEW &&
	    memcmp(c->data + next, MAGIC_NEW, sizeof(MAGIC_NEW) - 1) == 0)
		return parse_new(c, next, false, err);
	return table(c, HDR_OLD, nlibs, ENT_OLD, end, err);
}

static int
by_key(const void *a, const void *b)
{
	const struct sp_ldcache_entry *x = a, *y = b;
	int d = strcmp(x->key, y->key);

	if (d != 0)
		return d;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int
parse(struct sp_ldcache *c, struct sp_error *err)
{
	int rc;

	if (c->size >= sizeof(MAGIC_NEW) - 1 &&
	    memcmp(c->data, MAGIC_NEW, sizeof(MAGIC_NEW) - 1) == 0)
		rc = parse_new(c, 0, true, err);
	else if (c->size >= sizeof(MAGIC_OLD) - 1 &&
	    memcmp(c->data, MAGIC_OLD, sizeof(MAGIC_OLD) - 1) == 0)
		rc = parse_old(c, err);
	else
		rc = sp_error_set(err, "not an ld.so.cache file");
	if (rc == 0 && c->nents > 1)
		qsort(c->ents, c->nents, sizeof(*c->ents), by_key);
	return rc;
}

int
sp_ldcache_from_memory(const void *data, size_t size, struct sp_ldcache *c,
    struct sp_error *err)
{
	memset(c, 0, sizeof(*c));
	if (size > SP_LDCACHE_MAX_FILE)
		return sp_error_set(err, "ld.so.cache too large");
	if ((c->data = malloc(size + 1)) == NULL)
		return sp_error_set(err, "out of memory");
	memcpy(c->data, data, size);
	c->data[size] = '\0';
	c->size = size;
	if (parse(c, err) == -1) {
		sp_ldcache_free(c);
		return -1;
	}
	return 0;
}

static int
read_all(int fd, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;

	while (got < size) {
		n = read(fd, buf + got, size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

/*
 * The last file parsed, by path and identity: the supervisor reads the
 * same /etc/ld.so.cache at every exec.  A stat that finds the same
 * device, inode, size, mtime and ctime finds the same bytes.
 */
static struct {
	char *path;
	struct stat st;
	struct sp_ldcache c;
} last;

/* A copy of last.c into c: its entries point into c's own data. */
static int
copy_last(struct sp_ldcache *c)
{
	if ((c->data = malloc(last.c.size + 1)) == NULL ||
	    (c->ents = malloc((last.c.nents + 1) * sizeof(*c->ents))) ==
	    NULL) {
		free(c->data);
		memset(c, 0, sizeof(*c));
		return -1;
	}
	memcpy(c->data, last.c.data, last.c.size + 1);
	c->size = last.c.size;
	c->nents = last.c.nents;
	for (size_t i = 0; i < c->nents; i++) {
		c->ents[i] = last.c.ents[i];
		c->ents[i].key = c->data + (last.c.ents[i].key - last.c.data);
		c->ents[i].path = c->data + (last.c.ents[i].path -
		    last.c.data);
	}
	return 0;
}

static void
remember(const char *file, const struct stat *st, const struct sp_ldcache *c)
{
	struct sp_ldcache keep;

	free(last.path);
	sp_ldcache_free(&last.c);
	last.path = NULL;
	if ((last.path = strdup(file)) == NULL)
		return;
	last.st = *st;
	last.c = *c;		/* copied back out of it below */
	if (copy_last(&keep) == -1) {
		memset(&last.c, 0, sizeof(last.c));
		free(last.path);
		last.path = NULL;
		return;
	}
	last.c = keep;
}

int
sp_ldcache_read(const char *file, struct sp_ldcache *c, struct sp_error *err)
{
	struct stat st;
	char *buf;
	int fd, rc;

	memset(c, 0, sizeof(*c));
	if (last.path != NULL && strcmp(last.path, file) == 0 &&
	    stat(file, &st) == 0 && sp_same_stat(&st, &last.st))
		return copy_last(c) == 0 ? 0 : sp_error_set(err,
		    "out of memory");
	/* O_NONBLOCK: a FIFO there (a chroot's) would block the open */
	if ((fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return sp_error_sys(err, errno, NULL);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > SP_LDCACHE_MAX_FILE) {
		close(fd);
		return sp_error_set(err, "not a regular file of at most %u "
		    "bytes", SP_LDCACHE_MAX_FILE);
	}
	if ((buf = malloc(st.st_size + 1)) == NULL) {
		close(fd);
		return sp_error_set(err, "out of memory");
	}
	rc = read_all(fd, buf, st.st_size);
	close(fd);
	if (rc == -1) {
		free(buf);
		return sp_error_set(err, "read error");
	}
	buf[st.st_size] = '\0';
	c->data = buf;
	c->size = st.st_size;
	if (parse(c, err) == -1) {
		sp_ldcache_free(c);
		return -1;
	}
	remember(file, &st, c);
	return 0;
}

size_t
sp_ldcache_lookup(const struct sp_ldcache *c, const char *name,
    const struct sp_ldcache_entry **first)
{
	size_t lo = 0, hi = c->nents, mid, n;

	/* The first entry whose key is not below name. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(c->ents[mid].key, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (n = 0; lo + n < c->nents && strcmp(c->ents[lo + n].key,
	    name) == 0; n++)
		;
	*first = n > 0 ? &c->ents[lo] : NULL;
	return n;
}

void
sp_ldcache_free(struct sp_ldcache *c)
{
	free(c->data);
	free(c->ents);
	memset(c, 0, sizeof(*c));
}
