/* SPDX-License-Identifier: ISC */
/*
 * Internals of sp_needed_resolve (needed.c): strings (needed_str.c), the
 * search budget, directory probing and ld.so's dynamic string tokens
 * (needed_search.c).
 */
#ifndef SYSPIN_NEEDED_INT_H
#define SYSPIN_NEEDED_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "pins/cache.h"
#include "util/error.h"

#define SP_ND_MAX_ORIGINS 8	/* $ORIGIN values kept per object */
#define SP_ND_MAX_VARIANTS 64	/* expansions of one string */

/* A growing vector of owned strings. */
struct sp_nd_strv {
	char **v;
	size_t n, cap;
};

int sp_nd_strv_add(struct sp_nd_strv *s, const char *str);
bool sp_nd_strv_has(const struct sp_nd_strv *s, const char *str);
int sp_nd_strv_copy(struct sp_nd_strv *dst, const struct sp_nd_strv *src);
void sp_nd_strv_free(struct sp_nd_strv *s);

/* Owned string keys -> long, open addressing. */
struct sp_nd_map {
	char **keys;
	long *vals;
	size_t cap, n;
};

long *sp_nd_map_get(const struct sp_nd_map *m, const char *key);
int sp_nd_map_put(struct sp_nd_map *m, const char *key, long val);
void sp_nd_map_free(struct sp_nd_map *m);

/* Has one of v[0..n) a '$' (a dynamic string token, maybe)? */
bool sp_nd_any_dollar(char **v, size_t n);

/* Splits s[0..len) at any of seps (and NUL); empty pieces dropped. */
int sp_nd_split(const char *s, size_t len, const char *seps,
    struct sp_nd_strv *v);

/*
 * The names of /etc/ld.so.preload (its first MiB): white space or ':'
 * between names, '#' to the end of a line a comment.  A missing file has
 * none.  -1 only when out of memory.
 */
int sp_nd_read_names(const char *file, struct sp_nd_strv *v);

struct sp_nd_search {
	char *cwd;		/* for relative names, or NULL */
	const char *exe;	/* prefix of the error message */
	struct sp_error *err;
	size_t spent;		/* of SP_NEEDED_MAX_PROBES */
	bool failed;
	struct sp_nd_map dirmap;	/* directory -> index into dirs */
	struct sp_nd_strv **dirs;	/* its existing search directories */
	size_t ndirs, capdirs;
	int rootfd;		/* sp_needed_in's root, or -1 */
	const char *root_view;	/* sp_needed_in's */
};

int sp_nd_init(struct sp_nd_search *s, const char *cwd, const char *exe,
    struct sp_error *err);
void sp_nd_free(struct sp_nd_search *s);

/* Fails the whole search ("EXE: msg"), once.  Returns -1. */
int sp_nd_fail(struct sp_nd_search *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Pays for one lookup; -1 (and failed) past the budget. */
int sp_nd_spend(struct sp_nd_search *s);

/*
 * The directories to look in for dir (absolute): its glibc-hwcaps and
 * legacy hwcaps subdirectories that exist, then dir; empty when dir is
 * not a directory.  Probed once per dir; valid until sp_nd_free.
 */
const struct sp_nd_strv *sp_nd_subdirs(struct sp_nd_search *s,
    const char *dir);

/* Every expansion of $ORIGIN, $LIB, $PLATFORM in str, made absolute. */
int sp_nd_expand(struct sp_nd_search *s, const char *str,
    const struct sp_nd_strv *origins, struct sp_nd_strv *out);

/*
 * A search path (DT_RPATH, DT_RUNPATH, LD_LIBRARY_PATH) split at seps,
 * expanded, absolute, without trailing slashes, without duplicates.  An
 * empty element is the working directory.
 */
int sp_nd_path_list(struct sp_nd_search *s, const char *list,
    const char *seps, const struct sp_nd_strv *origins,
    struct sp_nd_strv *out);

/* NULL-terminated; ld.so's default directories, in its order. */
extern const char *const sp_nd_system_dirs[];

/* Is path in (or below) one of them? */
bool sp_nd_in_system_dir(const char *path);

/*
 * open(2) and stat(2) of path as the process names it: below s->rootfd
 * when there is one, its symbolic links resolved there too.
 */
int sp_nd_open(const struct sp_nd_search *s, const char *path, int flags);
int sp_nd_stat(const struct sp_nd_search *s, const char *path,
    struct stat *st);
/*
 * A regular file at path, opened to read; -2 for anything else, which is
 * never opened (a device's open may do things, a FIFO's block; the path
 * is the tree's to choose and change meanwhile); -1 with errno.  *st is
 * its stat.
 */
int sp_nd_open_file(const struct sp_nd_search *s, const char *path,
    struct stat *st);


/* Files by identity: the same one?  "dev:ino" into buf. */
bool sp_nd_same_file(const struct sp_file_id *a, const struct sp_file_id *b);
void sp_nd_id_key(char *buf, size_t size, const struct sp_file_id *id);

/* The real path of an open file (its /proc/self/fd link), else path's. */
char *sp_nd_fd_path(int fd, const char *path);
/* needed_memo.c: sp_dyn_read_fd of the file fd (an O_PATH one when
 * path_fd) whose identity is *id, or what it gave before for the same
 * identity. */
struct sp_dyn;
struct sp_file_id;
int sp_nd_dyn_read(int fd, bool path_fd, const struct sp_file_id *id,
    struct sp_dyn *out, struct sp_error *err);

char *sp_nd_absolute(const struct sp_nd_search *s, const char *path);
char *sp_nd_dirname(const char *path);

/* dir + "/" + name into buf; -1 when too long. */
int sp_nd_join(char *buf, size_t size, const char *dir, const char *name);

#endif
