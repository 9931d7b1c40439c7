/* SPDX-License-Identifier: ISC */
/*
 * Which objects may glibc's ld.so map at program start-up?
 *
 * The supervisor pins a dynamic program at ld.so's entry, before ld.so maps
 * anything, so it must know every object ld.so may load then: the closure
 * of DT_NEEDED (and filters) of the program, LD_PRELOAD and
 * /etc/ld.so.preload.  We cannot ask ld.so (`ld.so --list` runs LD_AUDIT
 * modules and ld.so's parser on hostile files outside the sandbox), so the
 * search is done here, on untrusted files.
 *
 * The answer is a SUPERSET: every existing candidate along every search
 * path ld.so could take, whichever it would pick (an extra object costs an
 * unused address slot; a missing one fails the pinning).  Modelled on
 * glibc 2.36 (elf/dl-load.c, elf/dl-cache.c) on Debian x86-64.
 *
 * Not linked into the runtime (lib/elf's dynamic reader is not lean).
 */
#ifndef SYSPIN_LAYOUT_NEEDED_H
#define SYSPIN_LAYOUT_NEEDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pins/cache.h"
#include "util/error.h"

/* ---- /etc/ld.so.cache ---- */

#define SP_LDCACHE_MAX_FILE (16u << 20)	/* real caches: tens of KB */

struct sp_ldcache_entry {
	const char *key;	/* library name, "libc.so.6" */
	const char *path;	/* "/lib/x86_64-linux-gnu/libc.so.6" */
	size_t index;		/* position in the file */
};

struct sp_ldcache {
	char *data;		/* the file, with a NUL appended */
	size_t size;
	struct sp_ldcache_entry *ents;	/* x86-64 entries, sorted by key */
	size_t nents;
};

/*
 * Reads the new format ("glibc-ld.so.cache1.1"), alone or after an old
 * "ld.so-1.7.0" table, or the old table alone.  Only entries ld.so accepts
 * on x86-64 are kept (flags: ELF libc6 x86-64, or plain ELF); the hwcap
 * field is ignored.  Entries with offsets out of range are dropped; a bad
 * header is an error (ld.so then ignores the whole file).
 */
int sp_ldcache_read(const char *file, struct sp_ldcache *c,
    struct sp_error *err);
int sp_ldcache_from_memory(const void *data, size_t size,
    struct sp_ldcache *c, struct sp_error *err);

/* Every entry for name: returns how many, *first points at them. */
size_t sp_ldcache_lookup(const struct sp_ldcache *c, const char *name,
    const struct sp_ldcache_entry **first);

void sp_ldcache_free(struct sp_ldcache *c);

/* ---- start-up objects ---- */

#define SP_NEEDED_MAX_OBJS	4096u
#define SP_NEEDED_MAX_PROBES	(1u << 20)	/* opens and stats */

struct sp_needed_in {
	const char *exe;	/* the program as exec'd */
	const char *cwd;	/* its working directory; NULL: ours */
	const char *ld_library_path;	/* LD_LIBRARY_PATH, or NULL */
	const char *ld_preload;		/* LD_PRELOAD, or NULL */
	bool secure;		/* AT_SECURE */
	const char *preload_file;	/* "/etc/ld.so.preload", or NULL */
	const char *ldcache_file;	/* "/etc/ld.so.cache", or NULL */
	/* A chroot'ed process: its absolute paths (exe, cwd, every name
	 * searched) are opened below root ("/proc/PID/root"), and the real
	 * paths found, as we see them, lose root_view (that directory's
	 * path for us) where they are the process's $ORIGIN.  The objects'
	 * paths returned are ours.  NULL, NULL: the process shares our
	 * root. */
	const char *root;
	const char *root_view;
	/* ld.so run by name (`ld.so PROG`): it maps exe itself, so exe is
	 * one of the objects returned (the first). */
	bool map_exe;
};

/* path (ours) as a process whose root we see as root_view names it; path
 * when root_view is NULL or "/", or path is not below it. */
const char *sp_needed_unrooted(const char *root_view, const char *path);

#define SP_NEEDED_PROGRAM 0x1u	/* from the program or ld.so.preload */
#define SP_NEEDED_ENV	  0x2u	/* from LD_PRELOAD */

struct sp_needed_obj {
	char *path;		/* real path */
	struct sp_file_id id;
	unsigned flags;		/* SP_NEEDED_* */
	uint64_t span;		/* page-aligned PT_LOAD extent */
	uint64_t align;		/* largest p_align, >= 4096 */
	uint64_t entry;		/* e_entry from the first PT_LOAD's page */
};

struct sp_needed {
	struct sp_needed_obj *objs;
	size_t nobjs;
	bool audit;		/* DT_AUDIT or DT_DEPAUDIT somewhere */
	char *interp;		/* the program's PT_INTERP, or NULL */
};

/*
 * Resolves the objects ld.so may map at start-up, except the program and
 * its interpreter (the kernel maps those).  Returns -1 with "FILE: what"
 * in err when the program cannot be read or is not a dynamic x86-64 ELF
 * file, or when the search outgrows SP_NEEDED_MAX_OBJS or
 * SP_NEEDED_MAX_PROBES; candidates that cannot be read are skipped.
 */
int sp_needed_resolve(const struct sp_needed_in *in, struct sp_needed *out,
    struct sp_error *err);

void sp_needed_free(struct sp_needed *n);

#endif
