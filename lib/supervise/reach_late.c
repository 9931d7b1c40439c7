/* SPDX-License-Identifier: ISC */
/*
 * A violation at a site that reachable-only pinning dropped (reach.c):
 * objects dlopen'ed since the image was pinned (in the late-code band:
 * they make no system call themselves) may call what its start-up
 * objects never do (python's _posixsubprocess calls fork and execve).
 * The call is allowed when the site was pinned for the number before
 * pruning and the closure, with every name the process's late objects
 * import as a root, reaches the site's function: as if they had been
 * there at the start.  With --exec=trusted only trusted files count (a
 * file the tree wrote imports what its writer wants).
 * Returns 1 (allowed) or 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "reach/reach.h"
#include "fill/fill.h"
#include "elf/sites.h"
#include "supervise_int.h"

struct names {
	char **v;
	size_t n, cap;
};

/* Appended as they come; names_unique sorts them once (a linear scan per
 * name was quadratic in what the late objects import: binutils' LTO
 * plugin stopped the supervisor for seconds). */
static int
names_add(struct names *nm, const char *s)
{
	if (nm->n == nm->cap) {
		size_t cap = nm->cap ? 2 * nm->cap : 64;
		void *p = realloc(nm->v, cap * sizeof(*nm->v));
		if (p == NULL)
			return -1;
		nm->v = p;
		nm->cap = cap;
	}
	if ((nm->v[nm->n] = strdup(s)) == NULL)
		return -1;
	nm->n++;
	return 0;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
names_unique(struct names *nm)
{
	size_t o = 0;

	if (nm->n == 0)
		return;
	qsort(nm->v, nm->n, sizeof(*nm->v), cmp_name);
	for (size_t i = 0; i < nm->n; i++)
		if (o > 0 && strcmp(nm->v[o - 1], nm->v[i]) == 0)
			free(nm->v[i]);
		else
			nm->v[o++] = nm->v[i];
	nm->n = o;
}

static void
names_free(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
}

/* Whether the numbers of site t allow nr (restart_syscall included). */
static bool
has_nr(const struct sp_pintab *t, const struct sp_pin_site *p, uint32_t nr)
{
	for (uint32_t k = 0; k < p->nr_count; k++) {
		uint32_t n = t->nrs[p->nr_first + k];
		if (n == nr || (nr == SP_NR_RESTART_SYSCALL &&
		    sp_nr_restarts(n)))
			return true;
	}
	return false;
}

struct wanted {
	uint32_t nr;
	bool seen;
};

static void
see(void *ctx, uint32_t nr)
{
	struct wanted *w = ctx;

	w->seen |= w->nr == nr;
}

/* Whether an object of lo passes nr to export `name`. */
static bool
imported_nr(const struct sp_layout *lo, const char *name, uint32_t nr)
{
	struct wanted w = { nr, false };

	sp_layout_importer_nrs(lo, name, see, &w);
	return w.seen;
}

/* Whether site p of t allows nr: its numbers, what importers pass an
 * export's. */
static bool
site_allows(const struct sp_layout *lo, const struct sp_pintab *t,
    const struct sp_pin_site *p, uint32_t nr)
{
	return has_nr(t, p, nr) || (p->how == SP_PIN_EXPORT &&
	    p->export < t->nexports &&
	    imported_nr(lo, t->strtab + t->exports[p->export].name, nr));
}

/* Whether t's object issues nr at a site the analysis could read: what
 * an unresolved site of it may issue (lib/layout/place.c). */
static bool
object_issues(const struct sp_layout *lo, const struct sp_pintab *t,
    uint32_t nr)
{
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].how != SP_PIN_ANY &&
		    t->sites[i].how != SP_PIN_ANY_PARAM &&
		    site_allows(lo, t, &t->sites[i], nr))
			return true;
	return false;
}

/* The site of o's whole table that ends at ip and allows nr: its address
 * (link-time), or UINT64_MAX.  An unresolved site allows what place.c
 * pins there (blind round 18: never any number). */
static uint64_t
pinned_before(const struct sup *s, const struct sp_layout *lo,
    const struct sp_object *o, uint64_t ip, uint32_t nr)
{
	uint64_t at = UINT64_MAX;
	struct sp_pintab t;
	struct sp_error err;

	if (sp_cache_load(s->o->pin.cache, o->key, &t, &err) != 1)
		return at;
	for (size_t i = 0; i < t.nsites && at == UINT64_MAX; i++) {
		const struct sp_pin_site *p = &t.sites[i];
		if (o->base + p->addr + p->length != ip)
			continue;
		if (site_allows(lo, &t, p, nr) ||
		    ((p->how == SP_PIN_ANY || p->how == SP_PIN_ANY_PARAM) &&
		    object_issues(lo, &t, nr)))
			at = p->addr;
	}
	sp_pintab_free(&t);
	return at;
}

/* What the late object of key (at path) imports, into nm: the names
 * kept for it (reach_imports.c), else made from its facts and kept. */
static int
late_imports(const struct sup *s, const char *key, const char *path,
    struct names *nm)
{
	struct sp_reach_facts f;
	struct sp_error err;
	size_t len, count;
	char *v;
	int rc = 0;

	if (sp_reach_imports_load(s->o->pin.cache, key, &v, &len, &count,
	    &err) != 1) {
		if (sp_reach_load(s->o->pin.cache, key, &f, &err) != 1 &&
		    (sp_sup_fill(s->o->pin.cache, &(struct sp_fill){ path, key,
		    SP_FILL_REACH }, 1, s->o->pin.verbose, &err) == -1 ||
		    sp_reach_load(s->o->pin.cache, key, &f, &err) != 1))
			return names_add(nm, SP_REACH_DLSYM_ANY);
		rc = sp_reach_imports_make(&f, &v, &len, &count);
		sp_reach_facts_free(&f);
		if (rc != 0)
			return -1;
		(void)sp_reach_imports_store(s->o->pin.cache, key, v, len,
		    count, &err);	/* not kept: made again next time */
	}
	for (size_t at = 0; at < len && rc == 0; at += strlen(v + at) + 1)
		rc = names_add(nm, v + at);
	free(v);
	return rc;
}

/*
 * The key of the late mapping m: from the space's memo of the mappings
 * seen at the last stop (the same range of the same file, mapped once:
 * what it was judged then), else looked up (the file opened and checked:
 * the cost, once per mapping, where every stop of a process that
 * dlopens hundreds of libraries paid it for all of them).  A file
 * changed since keeps the facts it had when mapped: nothing more.
 */
static bool
late_key(const struct sup *s, pid_t pid, const struct sp_map *m,
    const struct late_seen *old, size_t nold, size_t *hint,
    struct late_seen *now)
{
	*now = (struct late_seen){ m->start, m->end, m->offset, m->dev,
	    m->inode, false, "" };
	for (; *hint < nold && old[*hint].start < m->start; (*hint)++)
		;
	if (*hint < nold && old[*hint].start == m->start &&
	    old[*hint].end == m->end && old[*hint].offset == m->offset &&
	    old[*hint].dev == m->dev && old[*hint].inode == m->inode) {
		*now = old[*hint];
		return now->ok;
	}
	now->ok = sp_sup_late_key(s, pid, m, now->key, sizeof(now->key));
	return now->ok;
}

/* The process's late objects: their cache keys, and the paths they were
 * mapped from (for a fill), in the maps' order; -1 out of memory or maps
 * unreadable. */
static int
late_objects(const struct sup *s, pid_t pid, const struct sp_layout *lo,
    struct space *sp, struct names *keys, struct names *paths)
{
	struct late_seen *now;
	struct sp_map *m;
	struct sp_error err;
	char maps[64];
	size_t n, nnow = 0, hint = 0;
	int rc = 0;

	snprintf(maps, sizeof(maps), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(maps, &m, &n, &err) == -1)
		return -1;
	if ((now = calloc(n + 1, sizeof(*now))) == NULL) {
		sp_maps_free(m, n);
		return -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		if ((m[i].prot & PROT_EXEC) && m[i].kind == SP_MAP_FILE &&
		    sp_layout_find(lo, m[i].start) == -1 &&
		    late_key(s, pid, &m[i], sp->seen, sp->nseen, &hint,
		    &now[nnow++]))
			rc = names_add(keys, now[nnow - 1].key) == -1 ||
			    names_add(paths, m[i].path) == -1 ? -1 : 0;
	sp_maps_free(m, n);
	free(sp->seen);
	sp->seen = now;
	sp->nseen = nnow;
	return rc;
}

static bool
has_key(const struct late_memo *lm, const char *key)
{
	return lm != NULL && bsearch(&key, lm->keys, lm->nkeys,
	    sizeof(*lm->keys), cmp_name) != NULL;
}

void
sp_sup_late_memo_free(struct late_memo *lm)
{
	if (lm == NULL)
		return;
	for (size_t i = 0; i < lm->nkeys; i++)
		free(lm->keys[i]);
	free(lm->keys);
	for (size_t i = 0; i < lm->nnames; i++)
		free(lm->names[i]);
	free(lm->names);
	sp_reach_dead_free(&lm->dead);
	free(lm);
}

/*
 * The names the process's late objects import, from the memo when the
 * same late objects (by their files' keys) are mapped as when it was
 * made; with more objects, the memo's names and the new objects' (one
 * more dlopen loads one object's facts, not every one's again); else
 * made again.  The answers found with the old names are dropped.  NULL
 * out of memory, or where the maps cannot be read.
 */
static struct late_memo *
late_memo(const struct sup *s, pid_t pid, const struct sp_layout *lo,
    struct space *sp)
{
	struct names keys = { 0 }, paths = { 0 }, nm = { 0 }, sk = { 0 };
	struct late_memo *lm = sp->late, *old = NULL;
	bool same, more;
	int rc;

	rc = late_objects(s, pid, lo, sp, &keys, &paths);
	for (size_t i = 0; i < keys.n && rc == 0; i++)
		rc = names_add(&sk, keys.v[i]);
	names_unique(&sk);
	same = rc == 0 && lm != NULL && lm->nkeys == sk.n;
	for (size_t i = 0; same && i < sk.n; i++)
		same = strcmp(lm->keys[i], sk.v[i]) == 0;
	if (same) {
		names_free(&sk);
		names_free(&keys);
		names_free(&paths);
		return lm;
	}
	/* every key of the memo still mapped: only the new ones' names */
	more = rc == 0 && lm != NULL && lm->nkeys < sk.n;
	for (size_t i = 0, k = 0; more && i < lm->nkeys; i++) {
		while (k < sk.n && strcmp(sk.v[k], lm->keys[i]) < 0)
			k++;
		more = k < sk.n && strcmp(sk.v[k], lm->keys[i]) == 0;
	}
	if (more)
		old = lm;
	for (size_t i = 0; old != NULL && i < old->nnames && rc == 0; i++)
		rc = names_add(&nm, old->names[i]);
	for (size_t i = 0; i < keys.n && rc == 0; i++)
		if (!has_key(old, keys.v[i]))
			rc = late_imports(s, keys.v[i], paths.v[i], &nm);
	names_free(&keys);
	names_free(&paths);
	if (rc != 0 || (lm = calloc(1, sizeof(*lm))) == NULL) {
		names_free(&sk);
		names_free(&nm);
		return NULL;
	}
	names_unique(&nm);
	lm->keys = sk.v;
	lm->nkeys = sk.n;
	lm->names = nm.v;
	lm->nnames = nm.n;
	sp_sup_late_memo_free(sp->late);
	sp->late = lm;
	return lm;
}

/*
 * The closure is the cost (every start-up object's facts, loaded and
 * walked): it is made once for the late objects' names and answers every
 * site until the late objects change (binutils' LTO plugin made every
 * call of ar's a stop of milliseconds; then each new site one closure).
 */
int
sp_sup_reach_late(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct sp_layout *lo)
{
	struct proc *p = sp_sup_proc(s, pid, false);
	struct late_memo *lm;
	const struct sp_object *o;
	uint64_t at;
	size_t obj;
	long r;

	if (!s->o->pin.reach || s->o->pin.cache == NULL || p == NULL ||
	    p->sp == NULL || v->arch != SP_AUDIT_ARCH_X86_64 ||
	    (r = sp_layout_find(lo, v->ip - 2)) == -1)
		return 0;
	obj = lo->ranges[r].obj;
	o = &lo->objs[obj];
	if (o->kind != SP_OBJ_FILE || o->key[0] == '\0' ||
	    (at = pinned_before(s, lo, o, v->ip, v->nr)) == UINT64_MAX)
		return 0;
	if ((lm = late_memo(s, pid, lo, p->sp)) == NULL || lm->nnames == 0)
		return 0;
	if (lm->closure == 0)
		lm->closure = sp_layout_reach_dead(lo, s->o->pin.cache,
		    (const char *const *)lm->names, lm->nnames, &lm->dead) ==
		    0 ? 1 : -1;
	/* unknown: as if reached */
	return lm->closure == 1 && sp_reach_dead_at(&lm->dead, obj, at) ? 0 :
	    1;
}
