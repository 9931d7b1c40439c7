/* SPDX-License-Identifier: ISC */
/*
 * What each file of the cache is, and removing those that serve nothing.
 *
 * A cache directory holds pin tables ("f-DEV-INO-SIZE-MTIME" for a file,
 * "vdso-BUILDID" for a vDSO), program records ("p-HASH", run_warm.c),
 * reachability facts ("r-" + a table's key, lib/fill/reach_cache.c) and
 * prunings ("q-HASH", lib/reach/reach_memo.c) and, briefly, a writer's
 * ".KEY.PID.tmp".  A table is usable when its MAC is
 * right (with the user's key attached), it decodes, its name is the key
 * of the identity it carries, and the file it names still has that
 * identity.  Anything else is only ever made again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reach/reach.h"
#include "fill/fill.h"

#include "cache.h"
#include "cli.h"

#define RECORD_MAGIC "syspin-objects 1\n"
#define PRUNING_MAGIC SP_REACH_MEMO_FORMAT
#define RECORD_READ_MAX (1u << 20)
/* A temporary file this old is no writer's any more. */
#define TEMP_AGE_MAX 600

static bool
prefixed(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool
suffixed(const char *s, const char *x)
{
	size_t n = strlen(s), m = strlen(x);

	return n >= m && strcmp(s + n - m, x) == 0;
}

/* err's sentence without the "DIR/KEY: " the reader puts first. */
static void
reason(struct cache_entry *e, const struct sp_cache *c, const char *msg)
{
	char pre[sizeof(c->path) + sizeof(e->name) + 4];

	snprintf(pre, sizeof(pre), "%s/%s: ", c->path, e->name);
	if (prefixed(msg, pre))
		msg += strlen(pre);
	snprintf(e->why, sizeof(e->why), "%s", msg);
}

/* The table's file still is the one it was made from. */
static void
check_file(struct cache_entry *e)
{
	const struct sp_pintab *t = &e->tab;
	struct sp_file_id id;
	struct stat st;

	if (t->path == NULL || t->path[0] != '/')
		return;
	if (stat(t->path, &st) == -1) {
		if (errno == ENOENT || errno == ENOTDIR) {
			e->state = CS_STALE;
			snprintf(e->why, sizeof(e->why), "table of %s, which "
			    "no longer exists", t->path);
		}
		return;			/* EACCES: cannot tell */
	}
	sp_file_id_from_stat(&id, &st);
	if (memcmp(&id, &t->id, sizeof(id)) != 0) {
		e->state = CS_STALE;
		snprintf(e->why, sizeof(e->why), "table of %s, which has "
		    "changed since (another file there now)", t->path);
	}
}

static void
inspect_table(const struct sp_cache *c, struct cache_entry *e)
{
	char key[SP_CACHE_KEY_MAX];
	struct sp_cache plain;
	struct sp_error err;
	struct stat st;
	int r;

	err.msg[0] = '\0';
	r = sp_cache_load(c, e->name, &e->tab, &err);
	if (r == -1) {
		e->state = strstr(err.msg, "untrusted") != NULL ?
		    CS_UNTRUSTED : CS_BAD;
		reason(e, c, err.msg);
		return;
	}
	if (r == 0) {
		if (fstatat(c->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1)
			e->state = CS_GONE;
		else if (err.msg[0] != '\0') {
			e->state = CS_BAD_MAC;
			reason(e, c, err.msg);
			/* What it claims, to be shown as not believed. */
			plain = *c;
			plain.mac = NULL;
			(void)sp_cache_load(&plain, e->name, &e->tab, NULL);
		} else {
			e->state = CS_OLD;
			snprintf(e->why, sizeof(e->why), "made by another "
			    "version of syspin");
		}
		return;
	}
	key[0] = '\0';
	if (e->name[0] == 'f')
		sp_cache_key_file(&e->tab.id, key, sizeof(key));
	else if (e->tab.build_id_len > 0)
		sp_cache_key_vdso(e->tab.build_id, e->tab.build_id_len, NULL,
		    0, key, sizeof(key));
	/* A vDSO without a build-id is keyed by a hash of its image. */
	if (strcmp(key, e->name) != 0 && !(e->name[0] == 'v' &&
	    e->tab.build_id_len == 0 && prefixed(e->name, "vdso-h"))) {
		e->state = CS_BAD;
		snprintf(e->why, sizeof(e->why), "its contents are the table "
		    "of another object (%s)", key[0] ? key : "no build-id");
		return;
	}
	if (e->name[0] == 'f')
		check_file(e);
	if (e->state == CS_OK && (e->tab.flags & SP_PINTAB_FAILED)) {
		e->state = CS_FAILED;
		snprintf(e->why, sizeof(e->why), "the analysis failed: no "
		    "system call is allowed from it");
	}
}

/*
 * Reads cache file e into buf, believed (MAC, owner and mode): its size,
 * or <= 0 with e's state and why set (what names the kind of file).
 */
static ssize_t
get_believed(const struct sp_cache *c, struct cache_entry *e, void *buf,
    size_t max, const char *what)
{
	struct sp_error err;
	ssize_t n;

	err.msg[0] = '\0';
	n = sp_cache_get(c, e->name, buf, max, &err);
	if (n > 0)
		return n;
	e->state = n == -1 ? (strstr(err.msg, "untrusted") ? CS_UNTRUSTED :
	    CS_BAD) : err.msg[0] ? CS_BAD_MAC : CS_BAD;
	if (err.msg[0] != '\0')
		reason(e, c, err.msg);
	else
		snprintf(e->why, sizeof(e->why), "empty %s", what);
	return n;
}

/* A record lists a program's objects, one path a line (run_warm.c). */
static void
inspect_record(const struct sp_cache *c, struct cache_entry *e)
{
	char *buf, *p, *nl;
	struct stat st;
	ssize_t n;

	if ((buf = malloc(RECORD_READ_MAX + 1)) == NULL) {
		e->state = CS_BAD;
		snprintf(e->why, sizeof(e->why), "out of memory");
		return;
	}
	if ((n = get_believed(c, e, buf, RECORD_READ_MAX, "record")) <= 0) {
		free(buf);
		return;
	}
	buf[n] = '\0';
	if (!prefixed(buf, RECORD_MAGIC)) {
		e->state = CS_BAD;
		snprintf(e->why, sizeof(e->why), "not a program record");
	}
	for (p = buf + strlen(RECORD_MAGIC); e->state == CS_OK &&
	    (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		if (p[0] == '/' && stat(p, &st) == -1 && errno == ENOENT) {
			e->state = CS_STALE;
			snprintf(e->why, sizeof(e->why), "record of a program "
			    "that maps %s, which no longer exists", p);
		}
	}
	free(buf);
}

/*
 * A record made from an object's table ("r-" facts, "i-" imported
 * names): r as its loader answered (1 believed); then it must be of a
 * table still in the cache (the table goes when its file changes, the
 * record after it).
 */
static void
judge_of_table(const struct sp_cache *c, struct cache_entry *e, int r,
    const struct sp_error *err, const char *what)
{
	struct stat st;

	if (r == 1) {
		if (fstatat(c->dirfd, e->name + 2, &st,
		    AT_SYMLINK_NOFOLLOW) == -1) {
			e->state = CS_STALE;
			snprintf(e->why, sizeof(e->why), "%s of an object "
			    "whose table is gone (%s)", what, e->name + 2);
		}
		return;
	}
	e->state = strstr(err->msg, "untrusted") != NULL ? CS_UNTRUSTED :
	    r == 0 && err->msg[0] != '\0' ? CS_BAD_MAC : CS_BAD;
	if (err->msg[0] != '\0')
		reason(e, c, err->msg);
	else
		snprintf(e->why, sizeof(e->why), "not %s of this version",
		    what);
}

/* An object's facts: believed (MAC, decoding). */
static void
inspect_facts(const struct sp_cache *c, struct cache_entry *e)
{
	struct sp_reach_facts f;
	struct sp_error err;
	int r;

	err.msg[0] = '\0';
	if ((r = sp_reach_load(c, e->name + 2, &f, &err)) == 1)
		sp_reach_facts_free(&f);
	judge_of_table(c, e, r, &err, "reachability facts");
}

/* An object's imported names (lib/reach/reach_imports.c). */
static void
inspect_imports(const struct sp_cache *c, struct cache_entry *e)
{
	struct sp_error err;
	size_t len, count;
	char *v;
	int r;

	err.msg[0] = '\0';
	r = sp_reach_imports_load(c, e->name + 2, &v, &len, &count, &err);
	if (r == 1)
		free(v);
	judge_of_table(c, e, r, &err, "imported names");
}

/* A pruning: believed and of this format (its objects are not named). */
static void
inspect_pruning(const struct sp_cache *c, struct cache_entry *e)
{
	char head[sizeof(PRUNING_MAGIC) - 1];
	ssize_t n;
	char *buf;

	if (e->bytes < sizeof(head) || e->bytes > SP_CACHE_MAX_FILE ||
	    (buf = malloc(e->bytes)) == NULL) {
		e->state = CS_BAD;
		snprintf(e->why, sizeof(e->why), "not a pruning");
		return;
	}
	n = get_believed(c, e, buf, e->bytes, "pruning");
	if (n > 0 && (size_t)n >= sizeof(head))
		memcpy(head, buf, sizeof(head));
	free(buf);
	if (n > 0 && ((size_t)n < sizeof(head) ||
	    memcmp(head, PRUNING_MAGIC, sizeof(head)) != 0)) {
		e->state = CS_OLD;
		snprintf(e->why, sizeof(e->why), "made by another version "
		    "of syspin");
	}
}

static enum cache_kind
kind_of(const char *name)
{
	if (name[0] == '.' && suffixed(name, ".tmp"))
		return CK_TEMP;
	if (prefixed(name, "f-") || prefixed(name, "vdso-"))
		return CK_TABLE;
	if (prefixed(name, "p-"))
		return CK_RECORD;
	if (prefixed(name, "r-f-") || prefixed(name, "r-vdso-"))
		return CK_FACTS;
	if (prefixed(name, "q-"))
		return CK_PRUNING;
	if (prefixed(name, "i-f-") || prefixed(name, "i-vdso-"))
		return CK_IMPORTS;
	return CK_OTHER;
}

void
cache_inspect(const struct sp_cache *c, const char *name,
    struct cache_entry *e)
{
	struct stat st;

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->kind = CK_OTHER;
	e->state = CS_OK;
	if (fstatat(c->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		e->state = CS_GONE;
		return;
	}
	e->mtime = st.st_mtim.tv_sec;
	e->bytes = st.st_size;
	e->kind = kind_of(name);
	if (e->kind == CK_OTHER || !S_ISREG(st.st_mode)) {
		e->state = CS_UNKNOWN;
		snprintf(e->why, sizeof(e->why), "not a file syspin writes");
	} else if (e->kind == CK_TEMP) {
		if (time(NULL) - e->mtime > TEMP_AGE_MAX) {
			e->state = CS_LEFTOVER;
			snprintf(e->why, sizeof(e->why), "left by a writer "
			    "that did not finish");
		}
	} else if (e->kind == CK_TABLE)
		inspect_table(c, e);
	else if (e->kind == CK_FACTS)
		inspect_facts(c, e);
	else if (e->kind == CK_PRUNING)
		inspect_pruning(c, e);
	else if (e->kind == CK_IMPORTS)
		inspect_imports(c, e);
	else
		inspect_record(c, e);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
cache_names(const struct sp_cache *c, char ***names, size_t *n)
{
	struct dirent *d;
	char **v = NULL, **nv;
	size_t cap = 0;
	DIR *dir;
	int fd;

	*names = NULL;
	*n = 0;
	if ((fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (dir = fdopendir(fd)) == NULL) {
		cli_error("%s: %s", c->path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	while ((d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				break;
			v = nv;
		}
		if ((v[*n] = strdup(d->d_name)) == NULL)
			break;
		++*n;
	}
	closedir(dir);
	if (d != NULL) {
		cache_free_names(v, *n);
		*n = 0;
		cli_error("%s: out of memory", c->path);
		return -1;
	}
	if (*n > 0)
		qsort(v, *n, sizeof(*v), by_name);
	*names = v;
	return 0;
}

void
cache_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool
evictable(const struct cache_entry *e)
{
	switch (e->state) {
	case CS_STALE: case CS_OLD: case CS_BAD_MAC: case CS_BAD:
	case CS_LEFTOVER:
		return e->kind != CK_OTHER;
	default:
		return false;
	}
}

static long
remove_if(const struct sp_cache *c, bool all, bool verbose)
{
	struct cache_entry e;
	char **names;
	size_t n, i;
	long gone = 0;

	if (cache_names(c, &names, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (all) {
			memset(&e, 0, sizeof(e));
			e.kind = kind_of(names[i]);
			if (e.kind == CK_OTHER)
				continue;
		} else {
			cache_inspect(c, names[i], &e);
			sp_pintab_free(&e.tab);
			if (!evictable(&e))
				continue;
		}
		if (unlinkat(c->dirfd, names[i], 0) == -1) {
			if (errno != ENOENT)
				cli_error("%s/%s: %s", c->path, names[i],
				    strerror(errno));
			continue;
		}
		gone++;
		if (verbose && !all)
			fprintf(stderr, "syspin: %s/%s: removed: %s\n",
			    c->path, names[i], e.why);
	}
	cache_free_names(names, n);
	return gone;
}

long
cache_evict(const struct sp_cache *c, bool verbose)
{
	return remove_if(c, false, verbose);
}

long
cache_clear_all(const struct sp_cache *c)
{
	return remove_if(c, true, false);
}
