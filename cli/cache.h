/* SPDX-License-Identifier: ISC */
/*
 * syspin cache: the pin-table cache as an administrator sees it.
 * cache.c: the command, list, verify, clear; cache_fill.c: fill;
 * cache_walk.c: finding the ELF files under directories.
 */
#ifndef SYSPIN_CLI_CACHE_H
#define SYSPIN_CLI_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pins/cache.h"

/* Every cache subcommand takes --cache-dir DIR (else the default). */
struct cache_opts {
	const char *dir;	/* --cache-dir, or NULL */
	bool verbose;
};

/*
 * Opens the cache (the default one for our euid unless dir): with create,
 * made when missing.  With mac, tables are believed only with a right MAC
 * (lib/pins/cache_mac.c); *have_mac says whether the kernel keyring gave
 * a key.  -1 after printing why; 0 ok; 1 the directory does not exist
 * (and !create): an empty cache.
 */
int cache_open(const struct cache_opts *o, struct sp_cache *c, bool create,
    bool mac, bool *have_mac);

/* What one file of the cache is. */
enum cache_state {
	CS_OK,			/* a believed table or record */
	CS_FAILED,		/* an empty table: the analysis failed */
	CS_STALE,		/* its file is gone or changed */
	CS_OLD,			/* another table version: made again on use */
	CS_BAD_MAC,		/* MAC missing or wrong */
	CS_BAD,			/* malformed, key and content disagree */
	CS_UNTRUSTED,		/* owner or mode */
	CS_LEFTOVER,		/* a writer's temporary file */
	CS_UNKNOWN,		/* not a file syspin writes */
	CS_GONE,		/* removed while we looked */
};

/*
 * CK_FACTS: an object's reachability facts ("r-" + its table's key);
 * CK_PRUNING: what reachable-only pins keep of a process image's objects
 * ("q-" + a hash of their keys); CK_IMPORTS: the names an object calls,
 * from its facts ("i-" + its table's key).  All are counted with the
 * records.
 */
enum cache_kind { CK_TABLE, CK_RECORD, CK_FACTS, CK_PRUNING, CK_IMPORTS,
	CK_TEMP, CK_OTHER };

struct cache_entry {
	char name[SP_CACHE_KEY_MAX + 32];
	enum cache_kind kind;
	enum cache_state state;
	char why[320];		/* for every state but CS_OK */
	struct sp_pintab tab;	/* CK_TABLE and loaded: tab.buf != NULL */
	int64_t mtime;		/* of the cache file */
	uint64_t bytes;
};

/* Looks at the cache file name; e->tab is to be freed by the caller. */
void cache_inspect(const struct sp_cache *c, const char *name,
    struct cache_entry *e);

/* The names of c's files, sorted; -1 after printing why. */
int cache_names(const struct sp_cache *c, char ***names, size_t *n);
void cache_free_names(char **names, size_t n);

/*
 * Removes the tables no longer usable (file gone or changed, another
 * version, MAC wrong, malformed), writers' leftovers and records of
 * programs whose objects are gone.  Returns how many files went, -1 on
 * trouble (printed).
 */
long cache_evict(const struct sp_cache *c, bool verbose);

/* Removes every file syspin writes; how many, or -1. */
long cache_clear_all(const struct sp_cache *c);

/* syspin cache fill (cache_fill.c); argv[0] is "fill". */
int cache_fill_main(int argc, char **argv);

/* ---- cache_walk.c ---- */
struct fill_file {
	char *path;
	uint64_t size;
	dev_t dev;
	ino_t ino;
	bool named;		/* given on the command line */
};

/*
 * The x86-64 programs and libraries (ELF, ET_EXEC or ET_DYN) under each
 * directory of paths (symlinks not followed, lib/debug skipped), and
 * the files of paths as given ("[vdso]": this kernel's vDSO); each file
 * once (device and inode), largest first.  0; 1 when a path was not
 * there (said; the others are walked); -1 after printing why.
 */
int cache_walk(char *const *paths, size_t npaths, struct fill_file **files,
    size_t *n);
void cache_free_files(struct fill_file *files, size_t n);

/* The system directories `cache fill --system` walks, those that exist,
 * and "[vdso]". */
size_t cache_system_dirs(const char **dirs, size_t max);

#endif
