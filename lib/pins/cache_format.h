/* SPDX-License-Identifier: ISC */
/* On-disk header of a pin table file, the MAC trailer of every file, and
 * the files kept in memory; see lib/pins/cache.h. */
#ifndef SYSPIN_CACHE_FORMAT_H
#define SYSPIN_CACHE_FORMAT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "pins/cache.h"

#define SP_CACHE_MAGIC "SYSPINPT"
/* Also raised when the analysis gives different tables for the same file
 * (2: numbers read through a published pointer, debug-file symbols; 3: the
 * MAC trailer; 4: the path of the file, for `syspin cache`; 5: an
 * import keeps the numbers of its readable calls beside unreadable ones;
 * 6: a conditional move's two values; 8: an unresolved site that takes
 * its number as a parameter, apart from one that loads it from memory;
 * 9: Go's fcntl number kept in a variable, read by a model), so that
 * tables made by an older syspin are made again. */
#define SP_CACHE_VERSION 9u
#define SP_CACHE_ALIGN(n) (((n) + 7) & ~(size_t)7)

struct sp_cache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t flags;
	struct sp_file_id id;
	uint8_t build_id[SP_CACHE_BUILD_ID_MAX];
	uint32_t build_id_len;
	uint32_t nsites;
	uint32_t nnrs;
	uint32_t nimports;
	uint32_t nexports;
	uint32_t strtab_size;
	uint32_t path;		/* offset into strtab, 0: unknown */
	uint32_t pad;
};

static_assert(sizeof(struct sp_cache_hdr) % 8 == 0, "header alignment");
static_assert(sizeof(struct sp_pin_site) == 24, "site layout");
static_assert(sizeof(struct sp_pin_export) == 16, "export layout");

/*
 * Every file sp_cache_put writes (tables and the small auxiliary files)
 * ends with this trailer.  Without a key attached it says SP_CACHE_MAC_NONE;
 * with one, mac is HMAC-SHA256 over SP_CACHE_MAC_DOMAIN, the file's name
 * (its cache key, NUL-terminated: a table cannot be passed off under
 * another object's name), the body and the trailer up to mac.  key_id names
 * the key that made it, so that "another key" and "changed" read apart.
 */
#define SP_CACHE_TRAILER_MAGIC "SPMAC\0v1"
#define SP_CACHE_MAC_DOMAIN "syspin cache mac v1"
#define SP_CACHE_MAC_NONE 0u
#define SP_CACHE_MAC_HMAC_SHA256 1u
#define SP_CACHE_MAC_LEN 32

struct sp_cache_trailer {
	char magic[8];
	uint32_t alg;
	uint32_t pad;
	uint8_t key_id[8];
	uint8_t mac[SP_CACHE_MAC_LEN];
};

static_assert(sizeof(struct sp_cache_trailer) == 56, "trailer layout");

/*
 * A MAC attached to an open cache (cache_mac.c, writer side only).  The
 * lean reader and sp_cache_close call only through these pointers, so the
 * runtime, which never attaches one, links no cryptography.
 */
struct sp_cache_mac {
	/* 1: buf, a whole file, carries a right MAC for name; else 0 and
	 * why says what is wrong. */
	int (*check)(const struct sp_cache_mac *m, const char *name,
	    const void *buf, size_t len, struct sp_error *why);
	/* Sets t's alg, key_id and mac for body buf stored under name. */
	void (*seal)(const struct sp_cache_mac *m, const char *name,
	    const void *buf, size_t len, struct sp_cache_trailer *t);
	/* Zeroes and frees the key (sp_cache_close). */
	void (*destroy)(struct sp_cache_mac *m);
	enum sp_cache_auth auth;
};

/*
 * Files kept in memory (sp_cache_keep): each as sp_cache_put would have
 * written it, body and trailer, so that it is read, and believed, exactly
 * as the file would be.  Newest first.  Past SP_CACHE_KEPT_MAX bytes the
 * oldest are dropped: made again when wanted, never missing when just put.
 */
#define SP_CACHE_KEPT_MAX (256u << 20)

struct sp_cache_kept {
	struct sp_cache_kept *next;
	const char *name;	/* in the same allocation, after data */
	size_t len;
	uint8_t data[];
};

struct sp_cache_memo;

struct sp_cache_mem {
	struct sp_cache_memo *memo;	/* files believed (cache_memo.c) */
	struct sp_cache_kept *files;
	size_t bytes;
	bool failed;		/* a write failed: no more are tried */
	char why[SP_ERROR_MAX];	/* its reason */
	sp_cache_say *say;
	pid_t owner;		/* the process that may say it */
};

/* cache_memo.c: the file believed under key, a copy into *buf (1), or 0;
 * put when believed, dropped when written again. */
int sp_cache_memo_get(const struct sp_cache *c, const char *key, size_t max,
    void **buf, size_t *len);
void sp_cache_memo_put(const struct sp_cache *c, const char *key,
    const void *buf, size_t len);
void sp_cache_memo_drop(const struct sp_cache *c, const char *key);
void sp_cache_memo_free(struct sp_cache_memo *m);

/* The file kept under key, or NULL (cache_read.c). */
const struct sp_cache_kept *sp_cache_kept_find(const struct sp_cache *c,
    const char *key);

#endif
