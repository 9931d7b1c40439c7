/* SPDX-License-Identifier: ISC */
/*
 * sp_needed_resolve: the objects ld.so may map at start-up, as a superset.
 *
 * ld.so (glibc 2.36, elf/dl-load.c) loads DT_NEEDED and filters breadth
 * first, each from the first directory that holds a loadable file.  We
 * take every loadable file along every path it could take:
 *
 *   - the DT_RPATHs of the loader and of its loaders, and the program's,
 *     unless the loader has DT_RUNPATH: here the union of the DT_RPATHs of
 *     every object found (a superset whatever the loading order);
 *   - LD_LIBRARY_PATH (not in secure mode);
 *   - the loader's DT_RUNPATH;
 *   - every ld.so.cache entry for the name;
 *   - the system directories, unless the loader has DF_1_NODEFLIB;
 *   - in each directory its glibc-hwcaps and legacy hwcaps subdirectories.
 *
 * A found object's state (flags, $ORIGIN directories) and the DT_RPATH
 * union only grow; an object is searched again whenever they grow, until
 * nothing changes.  Every open, stat and lookup is paid from one budget.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/dynamic.h"
#include "layout/needed.h"

#include "needed_int.h"
#include "util/file.h"

struct obj {
	struct sp_dyn dyn;
	struct sp_file_id id;
	char *path;		/* real path */
	struct sp_nd_strv origins;	/* what $ORIGIN may be */
	unsigned flags;
	bool dst;		/* a name or path uses $ORIGIN or the like */
	bool processed;
	bool queued;
	unsigned done_flags;	/* state the last search covered */
	size_t done_origins;
	uint64_t done_gen;
};

struct ctx {
	const struct sp_needed_in *in;
	struct sp_nd_search s;
	struct sp_ldcache cache;
	bool have_cache;
	struct obj *objs;	/* [0] is the program */
	size_t nobjs, capobjs;
	struct sp_nd_map ids;	/* "dev:ino" -> object index */
	size_t *queue;		/* ring of object indices */
	size_t qhead, qlen;
	struct sp_file_id interp_id;
	bool have_interp;
	struct sp_nd_strv rpath;	/* union of expanded DT_RPATHs */
	struct sp_nd_map rpath_set;
	uint64_t gen;		/* bumped when rpath grows */
	struct sp_nd_strv llp;
	struct sp_nd_map probed;	/* path -> object index, or -1 */
	struct sp_nd_strv sys_preload, env_preload;
};

#define QUEUE_CAP (SP_NEEDED_MAX_OBJS + 2)

static bool
dirty(const struct ctx *c, const struct obj *o)
{
	if (!o->processed)
		return true;
	return o->flags != o->done_flags ||
	    (o->dst && o->origins.n != o->done_origins) ||
	    (o->dyn.runpath == NULL && o->done_gen != c->gen);
}

static void
push(struct ctx *c, size_t i)
{
	struct obj *o = &c->objs[i];

	if (o->queued || !dirty(c, o))
		return;
	o->queued = true;
	c->queue[(c->qhead + c->qlen++) % QUEUE_CAP] = i;
}

/* Needs object i's search the value of $ORIGIN? */
static bool
uses_dst(const struct sp_dyn *d)
{
	return (d->rpath != NULL && strchr(d->rpath, '$') != NULL) ||
	    (d->runpath != NULL && strchr(d->runpath, '$') != NULL) ||
	    sp_nd_any_dollar(d->needed, d->nneeded) ||
	    sp_nd_any_dollar(d->filters, d->nfilters);
}

/* Adds a $ORIGIN directory (the directory of path) to object i. */
static void
add_origin(struct ctx *c, size_t i, const char *path)
{
	struct obj *o = &c->objs[i];
	char *dir;

	if (o->origins.n >= SP_ND_MAX_ORIGINS ||
	    (dir = sp_nd_dirname(sp_needed_unrooted(c->s.root_view,
	    path))) == NULL)
		return;
	if (!sp_nd_strv_has(&o->origins, dir))
		(void)sp_nd_strv_add(&o->origins, dir);
	free(dir);
}

/* Another way to reach object i: its flags, another $ORIGIN. */
static void
touch(struct ctx *c, size_t i, unsigned flags, const char *path)
{
	c->objs[i].flags |= flags;
	add_origin(c, i, path);
	push(c, i);
}

static int
grow_objs(struct ctx *c)
{
	struct obj *n;
	size_t cap;

	if (c->nobjs < c->capobjs)
		return 0;
	cap = c->capobjs == 0 ? 64 : 2 * c->capobjs;
	if ((n = realloc(c->objs, cap * sizeof(*n))) == NULL)
		return sp_nd_fail(&c->s, "out of memory");
	c->objs = n;
	c->capobjs = cap;
	return 0;
}

/* A new candidate, fd an O_PATH descriptor of it; -1 when it is no x86-64
 * shared object. */
static long
new_obj(struct ctx *c, int fd, const struct sp_file_id *id, const char *key,
    const char *path, unsigned flags)
{
	struct sp_error e;
	struct obj *o;
	size_t i;

	if (c->nobjs > SP_NEEDED_MAX_OBJS)
		return sp_nd_fail(&c->s, "more than %u objects",
		    SP_NEEDED_MAX_OBJS);
	if (grow_objs(c) == -1)
		return -1;
	i = c->nobjs;
	o = &c->objs[i];
	memset(o, 0, sizeof(*o));
	if (sp_nd_dyn_read(fd, true, id, &o->dyn, &e) == -1)
		return -1;
	if (o->dyn.type != ET_DYN || (o->path = sp_nd_fd_path(fd, path)) == NULL) {
		sp_dyn_free(&o->dyn);
		return -1;
	}
	o->id = *id;
	o->flags = flags;
	o->dst = uses_dst(&o->dyn);
	c->nobjs++;
	if (sp_nd_map_put(&c->ids, key, i) == -1)
		return sp_nd_fail(&c->s, "out of memory");
	add_origin(c, i, path);
	add_origin(c, i, o->path);
	push(c, i);
	return i;
}

/* Opens one candidate file; its object index, or -1. */
static long
open_candidate(struct ctx *c, const char *path, unsigned flags)
{
	struct sp_file_id id;
	char key[64];
	struct stat st;
	long i = -1, *known;
	int pfd;

	/* Looked at through O_PATH; opened (lib/util/file.h) only when it
	 * is a regular file read for the first time (needed_memo.c). */
	if ((pfd = sp_nd_open(&c->s, path, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(pfd, &st) == -1 || !S_ISREG(st.st_mode))
		goto out;
	sp_file_id_from_stat(&id, &st);
	/* The kernel maps these two; ld.so never loads them again. */
	if (sp_nd_same_file(&id, &c->objs[0].id) ||
	    (c->have_interp && sp_nd_same_file(&id, &c->interp_id)))
		goto out;
	sp_nd_id_key(key, sizeof(key), &id);
	if ((known = sp_nd_map_get(&c->ids, key)) != NULL)
		touch(c, i = *known, flags, path);
	else
		i = new_obj(c, pfd, &id, key, path, flags);
out:
	close(pfd);
	return i;
}

static void
probe(struct ctx *c, const char *path, unsigned flags)
{
	long *seen, i;

	if (sp_nd_spend(&c->s) == -1)
		return;
	if ((seen = sp_nd_map_get(&c->probed, path)) != NULL) {
		if (*seen >= 0)
			touch(c, *seen, flags, path);
		return;
	}
	i = open_candidate(c, path, flags);
	if (sp_nd_map_put(&c->probed, path, i) == -1)
		(void)sp_nd_fail(&c->s, "out of memory");
}

/* name in directory dir and in its hwcaps subdirectories. */
static void
in_dir(struct ctx *c, const char *dir, const char *name, unsigned flags)
{
	const struct sp_nd_strv *subs = sp_nd_subdirs(&c->s, dir);
	char path[PATH_MAX];
	size_t k;

	for (k = 0; subs != NULL && k < subs->n && !c->s.failed; k++)
		if (sp_nd_join(path, sizeof(path), subs->v[k], name) == 0)
			probe(c, path, flags);
}

static void
in_dirs(struct ctx *c, const struct sp_nd_strv *dirs, const char *name,
    unsigned flags)
{
	size_t k;

	for (k = 0; k < dirs->n && !c->s.failed; k++)
		in_dir(c, dirs->v[k], name, flags);
}

static void
in_cache(struct ctx *c, const char *name, bool nodeflib, unsigned flags)
{
	const struct sp_ldcache_entry *e;
	size_t n, k;

	if (!c->have_cache || sp_nd_spend(&c->s) == -1)
		return;
	n = sp_ldcache_lookup(&c->cache, name, &e);
	for (k = 0; k < n && !c->s.failed; k++)
		if (!nodeflib || !sp_nd_in_system_dir(e[k].path))
			probe(c, e[k].path, flags);
}

static void
in_system(struct ctx *c, const char *name, unsigned flags)
{
	size_t k;

	for (k = 0; sp_nd_system_dirs[k] != NULL; k++)
		in_dir(c, sp_nd_system_dirs[k], name, flags);
}

/* The search context of the object whose name is resolved. */
struct loader {
	const struct sp_nd_strv *origins;
	const struct sp_nd_strv *runpath;	/* expanded, or NULL */
	bool nodeflib;
};

/* One DT_NEEDED (or filter, or preload) name of a loader. */
static void
resolve(struct ctx *c, const struct loader *l, const char *name,
    unsigned flags)
{
	struct sp_nd_strv paths = { 0 };
	size_t k;

	if (name[0] == '\0')
		return;
	if (strchr(name, '/') != NULL) {
		/* A path: DSTs expanded, no search. */
		if (sp_nd_expand(&c->s, name, l->origins, &paths) == 0)
			for (k = 0; k < paths.n && !c->s.failed; k++)
				probe(c, paths.v[k], flags);
		sp_nd_strv_free(&paths);
		return;
	}
	if (l->runpath == NULL)
		in_dirs(c, &c->rpath, name, flags);
	if (!c->in->secure)
		in_dirs(c, &c->llp, name, flags);
	if (l->runpath != NULL)
		in_dirs(c, l->runpath, name, flags);
	in_cache(c, name, l->nodeflib, flags);
	if (!l->nodeflib)
		in_system(c, name, flags);
}

/* Adds object i's DT_RPATH to the union; searches again if it grew. */
static void
add_rpath(struct ctx *c, size_t i, const struct sp_nd_strv *origins)
{
	struct sp_nd_strv dirs = { 0 };
	bool grew = false;
	size_t k;

	if (c->objs[i].dyn.rpath == NULL)
		return;
	(void)sp_nd_path_list(&c->s, c->objs[i].dyn.rpath, ":", origins,
	    &dirs);
	for (k = 0; k < dirs.n; k++) {
		if (sp_nd_map_get(&c->rpath_set, dirs.v[k]) != NULL)
			continue;
		if (sp_nd_map_put(&c->rpath_set, dirs.v[k], 0) == -1 ||
		    sp_nd_strv_add(&c->rpath, dirs.v[k]) == -1) {
			(void)sp_nd_fail(&c->s, "out of memory");
			break;
		}
		grew = true;
	}
	sp_nd_strv_free(&dirs);
	if (!grew)
		return;
	c->gen++;
	for (k = 0; k < c->nobjs; k++)
		if (k != i)	/* i searches with the new union next */
			push(c, k);
}

static void
resolve_list(struct ctx *c, const struct loader *l, char **names, size_t n,
    unsigned flags)
{
	size_t k;

	for (k = 0; k < n && !c->s.failed; k++)
		resolve(c, l, names[k], flags);
}

/* The program's preloads: ld.so loads them with the program as loader. */
static void
resolve_preloads(struct ctx *c, const struct loader *l)
{
	size_t k;

	resolve_list(c, l, c->sys_preload.v, c->sys_preload.n,
	    SP_NEEDED_PROGRAM);
	for (k = 0; k < c->env_preload.n && !c->s.failed; k++) {
		/* AT_SECURE: only names, searched like the program's. */
		if (c->in->secure && strchr(c->env_preload.v[k], '/') != NULL)
			continue;
		resolve(c, l, c->env_preload.v[k], SP_NEEDED_ENV);
	}
}

static void
process(struct ctx *c, size_t i)
{
	struct sp_nd_strv origins = { 0 }, runpath = { 0 };
	struct loader l = { .origins = &origins };
	struct obj *o = &c->objs[i];
	unsigned flags = o->flags;
	struct sp_dyn *d = &o->dyn;
	char **names, **filters;
	uint64_t gen;

	o->queued = false;
	if (sp_nd_strv_copy(&origins, &o->origins) == -1) {
		(void)sp_nd_fail(&c->s, "out of memory");
		return;
	}
	add_rpath(c, i, &origins);
	gen = c->gen;
	if (d->runpath != NULL) {
		(void)sp_nd_path_list(&c->s, d->runpath, ":", &origins,
		    &runpath);
		l.runpath = &runpath;
	}
	l.nodeflib = (d->flags_1 & DF_1_NODEFLIB) != 0;
	/* c->objs moves as objects are added; the name arrays do not. */
	names = d->needed;
	filters = d->filters;
	resolve_list(c, &l, names, d->nneeded, flags);
	resolve_list(c, &l, filters, c->objs[i].dyn.nfilters, flags);
	if (i == 0)
		resolve_preloads(c, &l);
	o = &c->objs[i];
	o->processed = true;
	o->done_flags = flags;
	o->done_origins = origins.n;
	o->done_gen = gen;
	push(c, i);
	sp_nd_strv_free(&origins);
	sp_nd_strv_free(&runpath);
}

static int
load_program(struct ctx *c, struct sp_error *err)
{
	const char *exe = c->in->exe;
	char *abs, *real;
	struct sp_error e;
	struct stat st;
	struct obj *o;
	int fd = -1;

	if (grow_objs(c) == -1 || (abs = sp_nd_absolute(&c->s, exe)) == NULL)
		return sp_error_set(err, "%s: out of memory", exe);
	o = &c->objs[0];
	memset(o, 0, sizeof(*o));
	c->nobjs = 1;
	/* ld.so PROG names any file: a regular one only. */
	if ((fd = sp_nd_open_file(&c->s, abs, &st)) < 0) {
		if (fd == -2)
			sp_error_set(err, "%s: not a regular file", exe);
		else
			sp_error_sys(err, errno, "%s", exe);
		goto fail;
	}
	sp_file_id_from_stat(&o->id, &st);
	if (sp_nd_dyn_read(fd, false, &o->id, &o->dyn, &e) == -1) {
		sp_error_set(err, "%s: %s", exe, e.msg);
		goto fail;
	}
	if (!o->dyn.dynamic || (c->in->map_exe && o->dyn.type != ET_DYN)) {
		sp_error_set(err, "%s: %s", exe, !o->dyn.dynamic ? "not "
		    "dynamically linked" : "linked at a fixed address");
		goto fail;
	}
	o->flags = SP_NEEDED_PROGRAM;
	/* The kernel's path for $ORIGIN is the real one; ld.so --list's not. */
	add_origin(c, 0, abs);
	if ((real = sp_nd_fd_path(fd, abs)) != NULL)
		add_origin(c, 0, real);
	o->path = real;
	close(fd);
	free(abs);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(abs);
	return -1;
}

static void
find_interp(struct ctx *c)
{
	struct stat st;
	char *abs;

	if (c->objs[0].dyn.interp == NULL ||
	    (abs = sp_nd_absolute(&c->s, c->objs[0].dyn.interp)) == NULL)
		return;
	if (sp_nd_stat(&c->s, abs, &st) == 0) {
		sp_file_id_from_stat(&c->interp_id, &st);
		c->have_interp = true;
	}
	free(abs);
}

/* The environment and system files, read once. */
static void
load_inputs(struct ctx *c)
{
	const struct sp_needed_in *in = c->in;
	struct sp_error e;
	const char *p;

	find_interp(c);
	if (in->ldcache_file != NULL)
		c->have_cache = sp_ldcache_read(in->ldcache_file, &c->cache,
		    &e) == 0;
	if (!in->secure && in->ld_library_path != NULL &&
	    in->ld_library_path[0] != '\0')
		(void)sp_nd_path_list(&c->s, in->ld_library_path, ":;",
		    &c->objs[0].origins, &c->llp);
	if ((p = in->ld_preload) != NULL &&
	    sp_nd_split(p, strlen(p), " :", &c->env_preload) == -1)
		(void)sp_nd_fail(&c->s, "out of memory");
	if (in->preload_file != NULL &&
	    sp_nd_read_names(in->preload_file, &c->sys_preload) == -1)
		(void)sp_nd_fail(&c->s, "out of memory");
}

static int
output(struct ctx *c, struct sp_needed *out)
{
	struct sp_needed_obj *r;
	struct obj *o;
	size_t i;

	out->audit = c->objs[0].dyn.audit;
	if (c->objs[0].dyn.interp != NULL &&
	    (out->interp = strdup(c->objs[0].dyn.interp)) == NULL)
		return sp_nd_fail(&c->s, "out of memory");
	if ((out->objs = calloc(c->nobjs, sizeof(*out->objs))) == NULL)
		return sp_nd_fail(&c->s, "out of memory");
	for (i = c->in->map_exe ? 0 : 1; i < c->nobjs; i++) {
		if ((o = &c->objs[i])->path == NULL)
			return sp_nd_fail(&c->s, "out of memory");
		r = &out->objs[out->nobjs++];
		r->path = o->path;
		o->path = NULL;
		r->id = o->id;
		r->flags = o->flags;
		r->span = o->dyn.span;
		r->align = o->dyn.align;
		r->entry = o->dyn.entry - o->dyn.lo;
		out->audit |= o->dyn.audit;
	}
	return 0;
}

static void
ctx_free(struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->nobjs; i++) {
		sp_dyn_free(&c->objs[i].dyn);
		sp_nd_strv_free(&c->objs[i].origins);
		free(c->objs[i].path);
	}
	free(c->objs);
	sp_nd_map_free(&c->ids);
	free(c->queue);
	if (c->have_cache)
		sp_ldcache_free(&c->cache);
	sp_nd_strv_free(&c->rpath);
	sp_nd_map_free(&c->rpath_set);
	sp_nd_strv_free(&c->llp);
	sp_nd_map_free(&c->probed);
	sp_nd_strv_free(&c->sys_preload);
	sp_nd_strv_free(&c->env_preload);
	sp_nd_free(&c->s);
}

int
sp_needed_resolve(const struct sp_needed_in *in, struct sp_needed *out,
    struct sp_error *err)
{
	struct ctx c = { .in = in };
	size_t i;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (in->exe == NULL)
		return sp_error_set(err, "no program");
	if (sp_nd_init(&c.s, in->cwd, in->exe, err) == -1)
		goto out;
	c.s.root_view = in->root_view;
	if (in->root != NULL && (c.s.rootfd = open(in->root, O_PATH |
	    O_DIRECTORY | O_CLOEXEC)) == -1) {
		sp_error_sys(err, errno, "%s", in->root);
		goto out;
	}
	if ((c.queue = calloc(QUEUE_CAP, sizeof(*c.queue))) == NULL) {
		sp_error_set(err, "%s: out of memory", in->exe);
		goto out;
	}
	if (load_program(&c, err) == -1)
		goto out;
	load_inputs(&c);
	push(&c, 0);
	while (c.qlen > 0 && !c.s.failed) {
		i = c.queue[c.qhead];
		c.qhead = (c.qhead + 1) % QUEUE_CAP;
		c.qlen--;
		process(&c, i);
	}
	if (!c.s.failed && output(&c, out) == 0)
		rc = 0;
out:
	ctx_free(&c);
	if (rc == -1)
		sp_needed_free(out);
	return rc;
}

void
sp_needed_free(struct sp_needed *n)
{
	size_t i;

	for (i = 0; i < n->nobjs; i++)
		free(n->objs[i].path);
	free(n->objs);
	free(n->interp);
	memset(n, 0, sizeof(*n));
}
