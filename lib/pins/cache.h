/* SPDX-License-Identifier: ISC */
/*
 * Stage 3: per-object pin tables, cached on disk.
 *
 * `syspin run` analyses every object a program will map and stores one pin
 * table per object; the preloaded runtime only reads them.  A table is keyed
 * by the file's identity (device, inode, size, mtime, ctime) and carries the build-id
 * so that the reader can cross-check it against the mapped image.
 *
 * The file format is the in-memory format: a fixed header followed by the
 * arrays, each 8-byte aligned, native endian.  The reader loads the file in
 * one read and validates every count and index before pointing into it.
 *
 * Trust: a process reads tables only from a directory, and files, owned by
 * root or by its own euid and writable by nobody else.  Otherwise a user
 * could plant a permissive table for a root process (or another user's).
 *
 * That cannot stop the same uid: the pinned tree runs as the cache's owner
 * and could loosen a table for its later children and later runs.  So the
 * writer side (`syspin run`, its supervisor) attaches a MAC to the cache
 * (sp_cache_use_mac): every file it writes then carries an HMAC-SHA256
 * made with a per-user key kept in the kernel's persistent keyring, which
 * the pinned tree cannot read, and it believes only files whose MAC is
 * right.  The runtime, inside the tree, reads without checking.
 * Reader: cache_read.c, cache_trust.c (lean, linked into the runtime).
 * Writer: cache_write.c (needs the analysis; not in the runtime),
 * cache_mac.c (the key and the MAC; libcrypto).
 */
#ifndef SYSPIN_PINS_CACHE_H
#define SYSPIN_PINS_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util/error.h"

#define SP_CACHE_BUILD_ID_MAX 64
#define SP_CACHE_KEY_MAX 128
#define SP_CACHE_MAX_FILE (64u << 20)	/* far above any real table */

/* How a site's numbers are used when placing pins. */
enum sp_pin_how {
	SP_PIN_EXACT,		/* exactly nrs[] */
	SP_PIN_ANY,		/* unresolved: the numbers its object
				   issues at its other sites (place.c) */
	SP_PIN_EXPORT,		/* nrs[] + what importers pass to `export` */
	SP_PIN_ANY_PARAM,	/* any number: a function taking it as a
				   parameter, called where the analysis
				   cannot read it (Go's Syscall6, valgrind) */
};

#define SP_PIN_NO_EXPORT 0xffffffffu

struct sp_pin_site {
	uint64_t addr;		/* trap instruction, OpenBSD convention */
	uint32_t nr_first;	/* nrs[nr_first .. +nr_count) */
	uint32_t nr_count;
	uint32_t export;	/* SP_PIN_EXPORT: index into exports */
	uint8_t length;		/* bytes of the trap instruction */
	uint8_t how;		/* enum sp_pin_how */
	uint8_t pad[2];
};

/* This object passes these numbers to the imported function `name`. */
struct sp_pin_import {
	uint32_t name;		/* offset into strtab */
	uint32_t nr_first;
	uint32_t nr_count;
	uint32_t unresolved;	/* some call passes an unknown number */
};

/* An exported function whose syscall number is a parameter. */
struct sp_pin_export {
	uint32_t name;		/* offset into strtab */
	uint32_t pad;
	uint64_t addr;
};

/* The cache's key: a "user" key of this description in the user's
 * persistent keyring (cache_mac.c). */
#define SP_CACHE_KEY_NAME "syspin:cache-mac:v1"

/* The identity of a file as stat(2) sees it.  ctime too: its owner can
 * set mtime back after rewriting the file in place (same inode and size),
 * never ctime, which any write, chmod or link moves: a table is believed
 * only of the very bytes it was made from. */
struct sp_file_id {
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_sec;
	int64_t mtime_nsec;
	int64_t ctime_sec;
	int64_t ctime_nsec;
};

/* Table flags. */
#define SP_PINTAB_FAILED 0x01u	/* analysis failed: no syscall allowed */

struct sp_pintab {
	struct sp_file_id id;
	uint8_t build_id[SP_CACHE_BUILD_ID_MAX];
	uint32_t build_id_len;
	uint32_t flags;
	struct sp_pin_site *sites;
	size_t nsites;
	uint32_t *nrs;
	size_t nnrs;
	struct sp_pin_import *imports;
	size_t nimports;
	struct sp_pin_export *exports;
	size_t nexports;
	char *strtab;		/* NUL-terminated names */
	size_t strtab_size;
	/*
	 * The file the table was made from, as it was named then (absolute;
	 * "[vdso]"), or NULL.  The encoder appends it to strtab; the decoder
	 * points into strtab.  Only `syspin cache` reads it (list, verify,
	 * stale tables): the key, never the path, says which file a table
	 * is for.
	 */
	const char *path;
	void *buf;		/* reader: the one allocation behind it all */
};

/* How an open cache's files are believed (sp_cache_use_mac). */
enum sp_cache_auth {
	SP_CACHE_AUTH_NONE,	/* as read: the runtime's way */
	SP_CACHE_AUTH_USER,	/* MAC by the user's key in the kernel */
	SP_CACHE_AUTH_PROCESS,	/* no keyring: only what this process wrote */
};

struct sp_cache_mac;		/* lib/pins/cache_format.h */
struct sp_cache_mem;

/* An open cache directory. */
struct sp_cache {
	int dirfd;		/* -1: memory alone (sp_cache_open_memory) */
	uid_t euid;
	char path[4096];
	struct sp_cache_mac *mac;	/* NULL: SP_CACHE_AUTH_NONE */
	/* Files kept in memory (sp_cache_keep), NULL: none.  A pointer, so
	 * that writers holding a const handle can add to it. */
	struct sp_cache_mem *mem;
};

void sp_file_id_from_stat(struct sp_file_id *id, const struct stat *st);

/* "f-<dev>-<ino>-<size>-<mtime>-<ctime>" for a file. */
void sp_cache_key_file(const struct sp_file_id *id, char *key, size_t size);

/* "vdso-<build-id>", or "vdso-<hash of the image>" without a build-id. */
void sp_cache_key_vdso(const uint8_t *build_id, size_t build_id_len,
    const void *image, size_t image_size, char *key, size_t size);

/*
 * The default directory for a process with euid: /var/cache/syspin for root
 * and for secure-mode (setuid) processes, whose environment is not theirs;
 * else $XDG_CACHE_HOME/syspin or $HOME/.cache/syspin.  -1 when none.
 */
int sp_cache_default_dir(uid_t euid, bool secure, char *buf, size_t size);

/*
 * Trust rule for one file or directory seen by a process with euid: owned by
 * root or euid, not writable by group or others.  Ancestor directories may
 * instead be sticky (like /tmp), which stops others renaming our entries.
 */
bool sp_cache_trusted(const struct stat *st, uid_t euid, bool ancestor);

/*
 * Opens DIR after checking it and every ancestor with sp_cache_trusted.
 * With create, missing components are made (0700, 0755 for /var/cache).
 */
int sp_cache_open(struct sp_cache *c, const char *dir, uid_t euid,
    bool create, struct sp_error *err);
void sp_cache_close(struct sp_cache *c);

/*
 * Loads the table stored under key.  Returns 1 and *tab, 0 when there is
 * none (or only one an older or newer syspin made: it is made again), -1
 * with err set when it exists but is untrusted or malformed (the caller
 * treats that as "no table": nothing allowed).  With a MAC attached, a
 * table whose MAC is missing or wrong counts as none: 0, and err says why
 * (for -v), so that the caller analyses the object again and overwrites it.
 */
int sp_cache_load(const struct sp_cache *c, const char *key,
    struct sp_pintab *tab, struct sp_error *err);

/*
 * Small auxiliary files under the same trust rules (`syspin run` keeps the
 * list of a program's objects there).  sp_cache_get returns the length, 0
 * when absent or empty, -1 when untrusted, unreadable or over max bytes.
 * sp_cache_has: a trusted regular file is stored under key (stat only),
 * or one is kept in memory (sp_cache_keep).
 * With a MAC attached both read the whole file and, like sp_cache_load,
 * count one without a right MAC as absent (sp_cache_get: err says why).
 */
ssize_t sp_cache_get(const struct sp_cache *c, const char *key, void *buf,
    size_t max, struct sp_error *err);
/* As sp_cache_get, into one malloc'ed buffer *buf of *len bytes (the
 * caller frees it): 1, 0 when absent, empty or not believed, -1. */
int sp_cache_read(const struct sp_cache *c, const char *key, size_t max,
    void **buf, size_t *len, struct sp_error *err);
bool sp_cache_has(const struct sp_cache *c, const char *key);
/* The whole file key as this process believed it (read and its MAC
 * checked, or written by it; only in a handle that keeps files): 1 with
 * *buf (malloc'ed) and *len, 0 when it is not. */
int sp_cache_believed(const struct sp_cache *c, const char *key, void **buf,
    size_t *len);
/* The runtime's first image: buf believed as the file key (a table
 * `syspin run` checked, handed over sealed), before the directory's,
 * which the tree may have changed since.  0, or -1 (out of memory). */
int sp_cache_believe(struct sp_cache *c, const char *key, const void *buf,
    size_t len);

/* Validates and adopts buf (malloc'ed, len bytes); frees it on failure. */
int sp_pintab_decode(void *buf, size_t len, struct sp_pintab *tab,
    struct sp_error *err);

void sp_pintab_free(struct sp_pintab *tab);

/*
 * Writer side (not in the runtime): serialises and renames into place.
 * Like sp_cache_put, with the attached MAC's trailer.
 */
int sp_cache_store(const struct sp_cache *c, const char *key,
    const struct sp_pintab *tab, struct sp_error *err);

/* Writer side: stores len bytes under key (write aside, rename), followed
 * by a MAC trailer (without a MAC attached, one that says "none").  With
 * sp_cache_keep, what cannot be written is kept in memory instead. */
int sp_cache_put(const struct sp_cache *c, const char *key, const void *buf,
    size_t len, struct sp_error *err);

/*
 * Writer side (`syspin run`, its supervisor): from now on a file that
 * sp_cache_put cannot write into c's directory (not writable by us, a full
 * or read-only file system) is kept in c's memory instead, and no more
 * writes are tried.  It is kept as it would have been written, trailer and
 * MAC included, and every reader of c (sp_cache_load, sp_cache_get,
 * sp_cache_has) takes it before the directory's file, and believes it by
 * the same check: the MAC made by c's key.  So nothing kept is believed
 * that the directory's copy would not be; and it never left this process.
 * A run pins from the tables it made; the next run makes them again.
 *
 * say (cli_error, NULL: silent) is called once per process, whichever of
 * its caches it is, the first time a file is kept: "DIR: cannot write
 * (REASON): tables are made again each run".  Only in this process: a
 * forked child (lib/supervise/fill.c) stays silent, its parent stores the
 * same files again.  Not thread-safe, like the rest of the handle.
 * Returns 0, or -1 with err set (out of memory: c stays as it was).
 */
typedef void sp_cache_say(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
int sp_cache_keep(struct sp_cache *c, sp_cache_say *say,
    struct sp_error *err);

/*
 * Writer side: c as a cache of memory alone, for dir (NULL or "": no
 * directory at all), which cannot be made or opened for why ("Permission
 * denied", "HOME is not set").  As sp_cache_keep after a failed write:
 * every file is kept, say is told at the first.  0, or -1 with err set.
 */
int sp_cache_open_memory(struct sp_cache *c, const char *dir, uid_t euid,
    const char *why, sp_cache_say *say, struct sp_error *err);

/*
 * Writer side: 0 when a new file can be written into c's directory now (a
 * page of it is written and removed), else -1 and err says "DIR: cannot
 * write (REASON)".  The runtime alone reads its tables from the directory:
 * it cannot run without one it can fill.
 */
int sp_cache_writable(const struct sp_cache *c, struct sp_error *err);

/* Encodes tab into one malloc'ed buffer in the file format. */
int sp_pintab_encode(const struct sp_pintab *tab, void **buf, size_t *len,
    struct sp_error *err);

struct sp_scan;

/*
 * Writer side: the table of an analysed object.  Sites inside an exported
 * number-taking function refer to that export by index; unresolved sites
 * become SP_PIN_ANY.  id and build_id are left for the caller to fill.
 */
int sp_pintab_from_scan(const struct sp_scan *scan, struct sp_pintab *tab,
    struct sp_error *err);

/*
 * Writer side (cache_mac.c): from now on c's files are written with, and
 * believed only with, a MAC made by the user's key: a 256-bit "user" key
 * "syspin:cache-mac:v1" in the user's persistent keyring, made from
 * getrandom(2) on first use, possessor permissions only.  The key is
 * reached through KEYCTL_GET_PERSISTENT, which links that keyring into
 * this process's keyring only (neither fork nor execve passes it on); the
 * pinned tree cannot read the key as long as its filter refuses that
 * keyctl operation (lib/bpf).  The key lives in memory that is left out of
 * core dumps and zeroed in forked children, is zeroed at sp_cache_close,
 * and is never written, logged or put in the environment.
 *
 * Returns 0, or -1 with err set when no key can be had (no keyrings, a
 * container's seccomp profile, quota): then only what this process itself
 * writes is believed (SP_CACHE_AUTH_PROCESS: a key of the process's own,
 * shared by all its caches and gone with it), so every object is analysed
 * again once per run: slow, never weaker.
 */
int sp_cache_use_mac(struct sp_cache *c, struct sp_error *err);
/* This process can read the key through a keyring it holds (without
 * KEYCTL_GET_PERSISTENT): the tree's first process must not. */
bool sp_cache_key_readable(void);

/* Tests: the key called name; SP_CACHE_MAC_NO_KEYRING acts as if the
 * keyring failed (the fallback). */
#define SP_CACHE_MAC_NO_KEYRING 0x1u
int sp_cache_use_mac_named(struct sp_cache *c, const char *name,
    unsigned flags, struct sp_error *err);

/* Detaches c's MAC (zeroing the key): c's files are then read as the
 * runtime reads them, MACs unchecked (`syspin cache list` without a key). */
void sp_cache_drop_mac(struct sp_cache *c);

/* What c believes: `syspin run -v` says when tables are made each run. */
enum sp_cache_auth sp_cache_auth(const struct sp_cache *c);

#endif
