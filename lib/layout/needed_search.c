/* SPDX-License-Identifier: ISC */
/*
 * The directories ld.so looks in, and the names it builds (needed.c).
 *
 * Dynamic string tokens (elf/dl-load.c is_dst, _dl_dst_substitute):
 * "$NAME" not followed by [A-Za-z0-9_], or "${NAME}".  We cannot know the
 * value ld.so picks, so each token takes all of them: $ORIGIN every
 * directory the object was found in (and its real directory), $LIB
 * Debian's multiarch directory and upstream's, $PLATFORM the AT_PLATFORM
 * strings of x86-64 (glibc overrides it with haswell or xeon_phi).
 *
 * hwcaps subdirectories of each search directory, glibc 2.36:
 * glibc-hwcaps/x86-64-v{4,3,2}, and the legacy ones, paths made of the
 * hwcap names (x86_64, avx512_1), then AT_PLATFORM, then "tls", any
 * of them left out.  Only existing directories are descended into, so
 * the legacy tree costs a handful of stats per directory.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "layout/needed.h"

#include "needed_int.h"
#include "util/file.h"

/* Debian's ld.so (ld.so --help: "system search path"). */
const char *const sp_nd_system_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib",
	NULL,
};

static const char *const hwcaps[] = { "x86-64-v4", "x86-64-v3", "x86-64-v2" };
static const char *const legacy[] = {
	"x86_64", "avx512_1",			/* hwcap bits */
	"x86_64", "haswell", "xeon_phi",	/* AT_PLATFORM */
	"tls",
};
#define NLEGACY (sizeof(legacy) / sizeof(legacy[0]))
static const char *const lib_values[] = { "lib/x86_64-linux-gnu", "lib64",
	"lib" };
static const char *const platform_values[] = { "x86_64", "haswell",
	"xeon_phi" };

/* ---- the search state ---- */

int
sp_nd_init(struct sp_nd_search *s, const char *cwd, const char *exe,
    struct sp_error *err)
{
	memset(s, 0, sizeof(*s));
	s->rootfd = -1;
	s->exe = exe;
	s->err = err;
	s->cwd = cwd != NULL ? strdup(cwd) : getcwd(NULL, 0);
	if (cwd != NULL && s->cwd == NULL)
		return sp_nd_fail(s, "out of memory");
	return 0;
}

void
sp_nd_free(struct sp_nd_search *s)
{
	size_t i;

	for (i = 0; i < s->ndirs; i++) {
		sp_nd_strv_free(s->dirs[i]);
		free(s->dirs[i]);
	}
	free(s->dirs);
	sp_nd_map_free(&s->dirmap);
	free(s->cwd);
	if (s->rootfd >= 0)
		close(s->rootfd);
	memset(s, 0, sizeof(*s));
	s->rootfd = -1;
}

int
sp_nd_fail(struct sp_nd_search *s, const char *fmt, ...)
{
	char msg[SP_ERROR_MAX];
	va_list ap;

	if (s->failed)
		return -1;
	s->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sp_error_set(s->err, "%s: %s", s->exe, msg);
}

int
sp_nd_spend(struct sp_nd_search *s)
{
	if (s->failed)
		return -1;
	if (++s->spent > SP_NEEDED_MAX_PROBES)
		return sp_nd_fail(s, "library search exceeds %u lookups",
		    SP_NEEDED_MAX_PROBES);
	return 0;
}

/* ---- directories ---- */

int
sp_nd_join(char *buf, size_t size, const char *dir, const char *name)
{
	size_t l = strlen(dir);
	int n;

	n = snprintf(buf, size, "%s%s%s", dir,
	    l > 0 && dir[l - 1] == '/' ? "" : "/", name);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int
sp_nd_open(const struct sp_nd_search *s, const char *path, int flags)
{
	struct open_how how = { .flags = (uint64_t)flags,
	    .resolve = RESOLVE_IN_ROOT };

	if (s->rootfd < 0)
		return open(path, flags);
	return (int)syscall(SYS_openat2, s->rootfd, path, &how, sizeof(how));
}

int
sp_nd_stat(const struct sp_nd_search *s, const char *path, struct stat *st)
{
	int fd, r;

	if (s->rootfd < 0)
		return stat(path, st);
	if ((fd = sp_nd_open(s, path, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	r = fstat(fd, st);
	close(fd);
	return r;
}

int
sp_nd_open_file(const struct sp_nd_search *s, const char *path,
    struct stat *st)
{
	return sp_open_regular_fd(sp_nd_open(s, path, O_PATH | O_CLOEXEC),
	    st);
}

const char *
sp_needed_unrooted(const char *root_view, const char *path)
{
	size_t l;

	if (root_view == NULL || path == NULL ||
	    (l = strlen(root_view)) <= 1 ||
	    strncmp(path, root_view, l) != 0 || path[l] != '/')
		return path;
	return path + l;
}

static bool
is_dir(struct sp_nd_search *s, const char *path)
{
	struct stat st;

	if (sp_nd_spend(s) == -1)
		return false;
	return sp_nd_stat(s, path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Was legacy[i] tried already at this level ("x86_64" is there twice)? */
static bool
earlier(size_t first, size_t i)
{
	size_t j;

	for (j = first; j < i; j++)
		if (strcmp(legacy[j], legacy[i]) == 0)
			return true;
	return false;
}

/* Legacy hwcaps below base, from legacy[first] on. */
static void
legacy_dirs(struct sp_nd_search *s, const char *base, size_t first,
    struct sp_nd_strv *out)
{
	char path[PATH_MAX];
	size_t i;

	for (i = first; i < NLEGACY && !s->failed; i++) {
		if (earlier(first, i) ||
		    sp_nd_join(path, sizeof(path), base, legacy[i]) == -1 ||
		    sp_nd_strv_has(out, path) || !is_dir(s, path))
			continue;
		if (sp_nd_strv_add(out, path) == -1) {
			(void)sp_nd_fail(s, "out of memory");
			return;
		}
		legacy_dirs(s, path, i + 1, out);
	}
}

/*
 * What probe_dir found under an absolute directory, kept for the process's
 * life (the supervisor asks it at every exec, for the same few
 * directories): the directories that existed, by identity.  Every
 * directory it looked for is in one of them, so while none of them
 * changed (a subdirectory made or removed changes its parent's mtime and
 * ctime, which a stat since makes distinct on the file systems of 6.13
 * on), the answer is the same.  The parent a search starts from is
 * stat'ed each time too.
 */
#define MEMO_DIRS 64
#define MEMO_SEEN 16

struct seen_dir {
	char *path;
	struct stat st;
};

struct dir_memo {
	char *dir;
	struct seen_dir seen[MEMO_SEEN];	/* [0]: dir itself */
	size_t nseen;
	struct sp_nd_strv out;
};

static struct dir_memo memo[MEMO_DIRS];
static size_t memo_next;

static void
memo_clear(struct dir_memo *m)
{
	free(m->dir);
	for (size_t i = 0; i < m->nseen; i++)
		free(m->seen[i].path);
	sp_nd_strv_free(&m->out);
	memset(m, 0, sizeof(*m));
}

/* The remembered answer for dir, copied into out: true when still true. */
static bool
memo_get(struct sp_nd_search *s, const char *dir, struct sp_nd_strv *out)
{
	struct stat st;

	for (size_t i = 0; i < MEMO_DIRS; i++) {
		struct dir_memo *m = &memo[i];
		bool same = m->dir != NULL && strcmp(m->dir, dir) == 0;
		for (size_t k = 0; same && k < m->nseen; k++)
			same = sp_nd_spend(s) == 0 &&
			    stat(m->seen[k].path, &st) == 0 &&
			    S_ISDIR(st.st_mode) && sp_same_stat(&st, &m->seen[k].st);
		if (m->dir == NULL || strcmp(m->dir, dir) != 0)
			continue;
		if (!same) {
			memo_clear(m);
			return false;
		}
		for (size_t k = 0; k < m->out.n; k++)
			if (sp_nd_strv_add(out, m->out.v[k]) == -1) {
				(void)sp_nd_fail(s, "out of memory");
				return true;
			}
		return true;
	}
	return false;
}

static void
memo_put(const char *dir, const struct seen_dir *seen, size_t nseen,
    const struct sp_nd_strv *out)
{
	struct dir_memo *m = &memo[memo_next++ % MEMO_DIRS];

	memo_clear(m);
	if ((m->dir = strdup(dir)) == NULL)
		return;
	for (size_t k = 0; k < nseen; k++) {
		if ((m->seen[k].path = strdup(seen[k].path)) == NULL)
			goto fail;
		m->seen[k].st = seen[k].st;
		m->nseen++;
	}
	for (size_t k = 0; k < out->n; k++)
		if (sp_nd_strv_add(&m->out, out->v[k]) == -1)
			goto fail;
	return;
fail:
	memo_clear(m);
}

/* The directories of out (and glibc-hwcaps) that exist, with dir first. */
static size_t
seen_dirs(const char *dir, const struct sp_nd_strv *out,
    struct seen_dir *seen)
{
	char top[PATH_MAX];
	size_t n = 0;

	if (sp_nd_join(top, sizeof(top), dir, "glibc-hwcaps") == -1)
		return MEMO_SEEN + 1;
	seen[n++].path = (char *)dir;
	seen[n++].path = top;
	for (size_t k = 0; k < out->n && n <= MEMO_SEEN; k++)
		if (strcmp(out->v[k], dir) != 0)
			seen[n++].path = out->v[k];
	if (n > MEMO_SEEN)
		return n;
	for (size_t k = 0; k < n; k++)
		if (stat(seen[k].path, &seen[k].st) == -1) {
			if (k == 1) {	/* no glibc-hwcaps: its parent says */
				memmove(&seen[1], &seen[2], (n - 2) *
				    sizeof(*seen));
				n--;
				k--;
				continue;
			}
			return MEMO_SEEN + 1;
		}
	return n;
}

static void
probe_dir_once(struct sp_nd_search *s, const char *dir,
    struct sp_nd_strv *out);

static bool
same_strv(const struct sp_nd_strv *a, const struct sp_nd_strv *b)
{
	if (a->n != b->n)
		return false;
	for (size_t k = 0; k < a->n; k++)
		if (strcmp(a->v[k], b->v[k]) != 0)
			return false;
	return true;
}

static void
probe_dir(struct sp_nd_search *s, const char *dir, struct sp_nd_strv *out)
{
	struct seen_dir seen[MEMO_SEEN + 2];
	struct sp_nd_strv again = { 0 };
	struct stat st;
	size_t n, k;

	/* in the process's own root, by absolute path alone */
	if (s->rootfd >= 0 || dir[0] != '/') {
		probe_dir_once(s, dir, out);
		return;
	}
	if (memo_get(s, dir, out))
		return;
	probe_dir_once(s, dir, out);
	/* Remembered when a second look, between two stats of the
	 * directories that exist, finds the same: nothing changed during
	 * it (a change shows in those stats). */
	if (s->failed || (n = seen_dirs(dir, out, seen)) > MEMO_SEEN)
		return;
	probe_dir_once(s, dir, &again);
	for (k = 0; k < n && !s->failed && same_strv(out, &again); k++)
		if (stat(seen[k].path, &st) == -1 || !sp_same_stat(&st,
		    &seen[k].st))
			break;
	if (k == n && !s->failed && same_strv(out, &again))
		memo_put(dir, seen, n, out);
	sp_nd_strv_free(&again);
}

static void
probe_dir_once(struct sp_nd_search *s, const char *dir,
    struct sp_nd_strv *out)
{
	char top[PATH_MAX], path[PATH_MAX];
	size_t i;

	if (!is_dir(s, dir))
		return;
	if (sp_nd_join(top, sizeof(top), dir, "glibc-hwcaps") == 0 &&
	    is_dir(s, top))
		for (i = 0; i < sizeof(hwcaps) / sizeof(hwcaps[0]); i++)
			if (sp_nd_join(path, sizeof(path), top, hwcaps[i]) ==
			    0 && is_dir(s, path) &&
			    sp_nd_strv_add(out, path) == -1)
				(void)sp_nd_fail(s, "out of memory");
	legacy_dirs(s, dir, 0, out);
	if (sp_nd_strv_add(out, dir) == -1)
		(void)sp_nd_fail(s, "out of memory");
}

const struct sp_nd_strv *
sp_nd_subdirs(struct sp_nd_search *s, const char *dir)
{
	struct sp_nd_strv **v, *out;
	long *idx;
	size_t cap;

	if (sp_nd_spend(s) == -1)
		return NULL;
	if ((idx = sp_nd_map_get(&s->dirmap, dir)) != NULL)
		return s->dirs[*idx];
	if (s->ndirs == s->capdirs) {
		cap = s->capdirs == 0 ? 32 : 2 * s->capdirs;
		if ((v = realloc(s->dirs, cap * sizeof(*v))) == NULL)
			goto nomem;
		s->dirs = v;
		s->capdirs = cap;
	}
	if ((out = calloc(1, sizeof(*out))) == NULL)
		goto nomem;
	s->dirs[s->ndirs] = out;
	if (sp_nd_map_put(&s->dirmap, dir, s->ndirs++) == -1)
		goto nomem;
	probe_dir(s, dir, out);
	return out;
nomem:
	(void)sp_nd_fail(s, "out of memory");
	return NULL;
}

/* ld.so ignores cache entries in system directories under NODEFLIB. */
bool
sp_nd_in_system_dir(const char *path)
{
	size_t k, l;

	for (k = 0; sp_nd_system_dirs[k] != NULL; k++) {
		l = strlen(sp_nd_system_dirs[k]);
		if (strncmp(path, sp_nd_system_dirs[k], l) == 0 &&
		    path[l] == '/')
			return true;
	}
	return false;
}

bool
sp_nd_same_file(const struct sp_file_id *a, const struct sp_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

void
sp_nd_id_key(char *buf, size_t size, const struct sp_file_id *id)
{
	snprintf(buf, size, "%llx:%llx", (unsigned long long)id->dev,
	    (unsigned long long)id->ino);
}

/* The real path of an open file; path itself when /proc is missing. */
char *
sp_nd_fd_path(int fd, const char *path)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;
	char *r;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n > 0 && buf[0] == '/') {
		buf[n] = '\0';
		return strdup(buf);
	}
	if ((r = realpath(path, NULL)) != NULL)
		return r;
	return strdup(path);
}

/* ---- names ---- */

char *
sp_nd_absolute(const struct sp_nd_search *s, const char *path)
{
	char buf[PATH_MAX];

	if (path[0] == '/' || s->cwd == NULL)
		return strdup(path);
	if (sp_nd_join(buf, sizeof(buf), s->cwd, path) == -1)
		return NULL;
	return strdup(buf);
}

char *
sp_nd_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, slash - path);
}

/* Length of the token name at s (after '$'), 0 when it is not ref. */
static size_t
is_dst(const char *s, const char *ref)
{
	size_t len = strlen(ref);
	bool curly = s[0] == '{';

	if (curly)
		s++;
	if (strncmp(s, ref, len) != 0)
		return 0;
	if (curly)
		return s[len] == '}' ? len + 2 : 0;
	if ((s[len] >= 'a' && s[len] <= 'z') ||
	    (s[len] >= 'A' && s[len] <= 'Z') ||
	    (s[len] >= '0' && s[len] <= '9') || s[len] == '_')
		return 0;
	return len;
}

struct expansion {
	struct sp_nd_search *s;
	const struct sp_nd_strv *origins;
	struct sp_nd_strv *out;
	char buf[PATH_MAX];
	size_t left;		/* variants still allowed */
	size_t steps;		/* calls still allowed: "$LIB$LIB..." */
};

static void
expand_at(struct expansion *x, const char *p, size_t len)
{
	const char *const *vals = NULL;
	size_t nvals = 0, skip = 0, k, l;

	if (x->steps == 0)
		return;
	x->steps--;
	for (; *p != '\0' && x->left > 0; p++) {
		if (*p == '$') {
			if ((skip = is_dst(p + 1, "ORIGIN")) > 0) {
				vals = (const char *const *)x->origins->v;
				nvals = x->origins->n;
			} else if ((skip = is_dst(p + 1, "LIB")) > 0) {
				vals = lib_values;
				nvals = 3;
			} else if ((skip = is_dst(p + 1, "PLATFORM")) > 0) {
				vals = platform_values;
				nvals = 3;
			}
		}
		if (skip > 0)
			break;
		if (len + 1 >= sizeof(x->buf))
			return;
		x->buf[len++] = *p;
	}
	if (skip == 0) {
		if (x->left == 0)
			return;
		x->left--;
		x->buf[len] = '\0';
		if (sp_nd_strv_add(x->out, x->buf) == -1)
			(void)sp_nd_fail(x->s, "out of memory");
		return;
	}
	for (k = 0; k < nvals && x->left > 0; k++) {
		l = strlen(vals[k]);
		if (len + l >= sizeof(x->buf))
			continue;
		memcpy(x->buf + len, vals[k], l);
		expand_at(x, p + 1 + skip, len + l);
	}
}

int
sp_nd_expand(struct sp_nd_search *s, const char *str,
    const struct sp_nd_strv *origins, struct sp_nd_strv *out)
{
	struct sp_nd_strv raw = { 0 };
	struct expansion *x;
	size_t i;
	char *abs;

	if ((x = calloc(1, sizeof(*x))) == NULL)
		return sp_nd_fail(s, "out of memory");
	x->s = s;
	x->origins = origins;
	x->out = &raw;
	x->left = SP_ND_MAX_VARIANTS;
	x->steps = 16 * SP_ND_MAX_VARIANTS;
	expand_at(x, str, 0);
	free(x);
	for (i = 0; i < raw.n; i++) {
		if ((abs = sp_nd_absolute(s, raw.v[i])) == NULL)
			continue;
		if (!sp_nd_strv_has(out, abs) && sp_nd_strv_add(out, abs) == -1)
			(void)sp_nd_fail(s, "out of memory");
		free(abs);
	}
	sp_nd_strv_free(&raw);
	return s->failed ? -1 : 0;
}

/* Drops trailing slashes in place, keeping "/". */
static void
strip_slashes(char *p)
{
	size_t l = strlen(p);

	while (l > 1 && p[l - 1] == '/')
		p[--l] = '\0';
}

int
sp_nd_path_list(struct sp_nd_search *s, const char *list, const char *seps,
    const struct sp_nd_strv *origins, struct sp_nd_strv *out)
{
	struct sp_nd_strv dirs = { 0 };
	struct sp_nd_map seen = { 0 };
	char elem[PATH_MAX];
	size_t len, i;

	for (i = 0; i < out->n; i++)
		if (sp_nd_map_put(&seen, out->v[i], 0) == -1)
			(void)sp_nd_fail(s, "out of memory");
	while (sp_nd_spend(s) == 0) {
		len = strcspn(list, seps);
		if (len == 0)
			(void)sp_nd_expand(s, ".", origins, &dirs);
		else if (len < sizeof(elem)) {
			memcpy(elem, list, len);
			elem[len] = '\0';
			(void)sp_nd_expand(s, elem, origins, &dirs);
		}
		for (i = 0; i < dirs.n; i++) {
			strip_slashes(dirs.v[i]);
			if (sp_nd_map_get(&seen, dirs.v[i]) != NULL)
				continue;
			if (sp_nd_map_put(&seen, dirs.v[i], 0) == -1 ||
			    sp_nd_strv_add(out, dirs.v[i]) == -1)
				(void)sp_nd_fail(s, "out of memory");
		}
		sp_nd_strv_free(&dirs);
		if (list[len] == '\0' || s->failed)
			break;
		list += len + 1;
	}
	sp_nd_map_free(&seen);
	return s->failed ? -1 : 0;
}
