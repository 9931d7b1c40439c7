/* SPDX-License-Identifier: ISC */
/*
 * Reachable-only pins for a process's layout: the closure over its
 * objects (lib/analysis/reach.c) decides which sites can run, and the
 * others leave the tables before pins are placed.  What may then only be
 * reached by objects dlopen'ed later is judged when they call it
 * (sp_layout_reach_live: the supervisor, at the stop).  Not in the
 * runtime: the facts are made by the decoder.
 */
#include <stdlib.h>
#include <string.h>

#include "reach/reach.h"
#include "fill/fill.h"
#include "util/search.h"

/* How object o takes part in the closure. */
static uint32_t
forced(const struct sp_object *o, const struct sp_reach_facts *f)
{
	if (o->kind != SP_OBJ_FILE)
		return SP_REACH_VDSO;
	if (o->loader)
		return SP_REACH_LOADER;
	return f->nfuncs == 0 && f->buf == NULL && f->funcs == NULL ?
	    SP_REACH_NO_FACTS : SP_REACH_PARTIAL;
}

static int
closure(const struct sp_layout *lo, const struct sp_reach_facts *facts,
    const char *const *extra, size_t nextra, struct sp_reach_result *r,
    struct sp_error *err)
{
	struct sp_reach_obj *objs = calloc(lo->nobjs + 1, sizeof(*objs));
	int rc;

	if (objs == NULL)
		return sp_error_set(err, "out of memory");
	for (size_t i = 0; i < lo->nobjs; i++) {
		uint32_t w = forced(&lo->objs[i], &facts[i]);
		objs[i].whole = w;
		objs[i].facts = w == SP_REACH_VDSO || w == SP_REACH_NO_FACTS ?
		    NULL : &facts[i];
	}
	rc = sp_reach_closure(objs, lo->nobjs, extra, nextra, r, err);
	free(objs);
	return rc;
}

static void
add_nr(void *ctx, uint32_t nr)
{
	struct sp_reach_count *c = ctx;

	if (nr < SP_REACH_NR_MAX)
		c->nr[nr] = 1;
	c->pairs++;
}

void
sp_layout_importer_nrs(const struct sp_layout *lo, const char *name,
    void (*fn)(void *ctx, uint32_t nr), void *ctx)
{
	for (size_t i = 0; i < lo->nobjs; i++) {
		const struct sp_pintab *t = &lo->objs[i].tab;
		for (size_t j = 0; lo->objs[i].have_tab && j < t->nimports;
		    j++) {
			const struct sp_pin_import *im = &t->imports[j];
			if (strcmp(t->strtab + im->name, name) != 0)
				continue;
			for (uint32_t k = 0; k < im->nr_count; k++)
				fn(ctx, t->nrs[im->nr_first + k]);
		}
	}
}

void
sp_layout_reach_count(const struct sp_layout *lo, size_t obj,
    struct sp_reach_count *c)
{
	const struct sp_pintab *t = &lo->objs[obj].tab;

	if (!lo->objs[obj].have_tab || (t->flags & SP_PINTAB_FAILED))
		return;
	c->sites += t->nsites;
	for (size_t s = 0; s < t->nsites; s++) {
		const struct sp_pin_site *p = &t->sites[s];
		if (p->how == SP_PIN_ANY || p->how == SP_PIN_ANY_PARAM) {
			c->any++;
			continue;
		}
		for (uint32_t k = 0; k < p->nr_count; k++)
			add_nr(c, t->nrs[p->nr_first + k]);
		if (p->how == SP_PIN_EXPORT)
			sp_layout_importer_nrs(lo,
			    t->strtab + t->exports[p->export].name, add_nr, c);
	}
}

static size_t
pairs(const struct sp_layout *lo)
{
	struct sp_reach_count c;

	memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < lo->nobjs; i++)
		sp_layout_reach_count(lo, i, &c);
	return c.pairs;
}

/* Keeps the sites of o's table that can run; kept: a bit per site. */
static void
prune(struct sp_object *o, const struct sp_reach_result *r, size_t i,
    const struct sp_reach_facts *f, struct sp_reach_report *rep,
    uint8_t *kept)
{
	struct sp_pintab *t = &o->tab;
	size_t k = 0;

	for (size_t s = 0; s < t->nsites; s++)
		if (sp_reach_live(r, i, f, t->sites[s].addr)) {
			t->sites[k++] = t->sites[s];
			if (kept != NULL)
				kept[s / 8] |= (uint8_t)(1u << (s % 8));
		}
	rep->sites += t->nsites;
	rep->live_sites += k;
	t->nsites = k;
}

static int
reach_with(struct sp_layout *lo, const struct sp_reach_facts *facts,
    const char *const *extra, size_t nextra, struct sp_reach_report *rep,
    uint8_t **kept, struct sp_error *err)
{
	struct sp_reach_result r;

	memset(rep, 0, sizeof(*rep));
	if (closure(lo, facts, extra, nextra, &r, err) == -1)
		return -1;
	rep->pairs = pairs(lo);
	for (size_t i = 0; i < lo->nobjs; i++) {
		rep->nwhole += r.whole[i];
		if (lo->objs[i].have_tab)
			prune(&lo->objs[i], &r, i, &facts[i], rep,
			    kept != NULL ? kept[i] : NULL);
	}
	rep->live_pairs = pairs(lo);
	rep->dlsym = r.dlsym;
	memcpy(rep->dlsym_by, r.dlsym_by, sizeof(rep->dlsym_by));
	rep->ndlsym_by = r.ndlsym_by;
	rep->dlopen = r.dlopen;
	sp_reach_result_free(&r);
	return 0;
}

int
sp_layout_reach_with(struct sp_layout *lo,
    const struct sp_reach_facts *facts, const char *const *extra,
    size_t nextra, struct sp_reach_report *rep, struct sp_error *err)
{
	return reach_with(lo, facts, extra, nextra, rep, NULL, err);
}

/*
 * Every object's facts, from the cache; none made here: the supervisor,
 * which calls this, makes them beforehand in a bounded child
 * (lib/supervise/fill.c), and never parses what the tree names in its own
 * process.  An object without facts is whole (its every site kept);
 * *complete says whether every object had them.
 */
static struct sp_reach_facts *
load_all(const struct sp_layout *lo, const struct sp_cache *c,
    bool *complete)
{
	struct sp_reach_facts *v = calloc(lo->nobjs + 1, sizeof(*v));
	struct sp_error err;

	*complete = true;
	for (size_t i = 0; v != NULL && i < lo->nobjs; i++) {
		const struct sp_object *o = &lo->objs[i];
		if (o->kind != SP_OBJ_FILE || o->key[0] == '\0')
			continue;
		if (sp_reach_load(c, o->key, &v[i], &err) == 1)
			continue;
		memset(&v[i], 0, sizeof(v[i]));
		*complete = false;
	}
	return v;
}

static void
free_all(struct sp_reach_facts *v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		sp_reach_facts_free(&v[i]);
	free(v);
}

static void
free_bits(uint8_t **v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

/* A bit per site of each table, and their numbers of sites. */
static uint8_t **
alloc_bits(const struct sp_layout *lo, size_t **nsites)
{
	uint8_t **v = calloc(lo->nobjs + 1, sizeof(*v));

	*nsites = calloc(lo->nobjs + 1, sizeof(**nsites));
	for (size_t i = 0; v != NULL && *nsites != NULL && i < lo->nobjs;
	    i++) {
		(*nsites)[i] = lo->objs[i].tab.nsites;
		if ((v[i] = calloc(lo->objs[i].tab.nsites / 8 + 1, 1)) ==
		    NULL) {
			free_bits(v, i);
			return NULL;
		}
	}
	if (*nsites == NULL) {
		free_bits(v, lo->nobjs);
		return NULL;
	}
	return v;
}

int
sp_layout_reach(struct sp_layout *lo, const struct sp_cache *c,
    struct sp_reach_report *rep, struct sp_error *err)
{
	char key[SP_CACHE_KEY_MAX];
	struct sp_reach_facts *v;
	struct sp_error werr;
	size_t *nsites = NULL;
	uint8_t **kept;
	bool complete;
	int rc;

	sp_reach_memo_key(lo, key, sizeof(key));
	if (sp_reach_memo_load(c, key, lo, rep) == 1)
		return 0;
	v = load_all(lo, c, &complete);
	kept = alloc_bits(lo, &nsites);
	if (v == NULL || kept == NULL) {
		free_all(v, lo->nobjs);
		free_bits(kept, lo->nobjs);
		free(nsites);
		return sp_error_set(err, "out of memory");
	}
	rc = reach_with(lo, v, NULL, 0, rep, kept, err);
	/* a record that cannot be written is made again; one made with an
	 * object's facts missing is not the objects' result */
	if (rc == 0 && complete)
		(void)sp_reach_memo_store(c, key, lo, nsites,
		    (const uint8_t *const *)kept, rep, &werr);
	free_all(v, lo->nobjs);
	free_bits(kept, lo->nobjs);
	free(nsites);
	return rc;
}

int
sp_layout_reach_dead(const struct sp_layout *lo, const struct sp_cache *c,
    const char *const *extra, size_t nextra, struct sp_reach_dead *d)
{
	bool complete;
	struct sp_reach_facts *v = load_all(lo, c, &complete);
	struct sp_reach_result r;
	struct sp_error err;
	int rc = -1;

	memset(d, 0, sizeof(*d));
	if (v == NULL || closure(lo, v, extra, nextra, &r, &err) == -1)
		goto out;
	if ((d->objs = calloc(lo->nobjs + 1, sizeof(*d->objs))) == NULL)
		goto done;
	d->nobjs = lo->nobjs;
	rc = 0;
	for (size_t i = 0; i < lo->nobjs && rc == 0; i++) {
		const struct sp_reach_facts *f = &v[i];
		struct sp_reach_dead_obj *o = &d->objs[i];
		if (r.whole[i] || f->nfuncs == 0)
			continue;	/* all of it may run */
		if ((o->v = calloc(f->nfuncs, sizeof(*o->v))) == NULL) {
			rc = -1;
			break;
		}
		/* dead functions, those that touch merged: a gap between
		 * two is no function's, so it stays live */
		for (size_t k = 0; k < f->nfuncs; k++) {
			if (r.live[i][k])
				continue;
			if (o->n > 0 && o->v[o->n - 1].end == f->funcs[k].start)
				o->v[o->n - 1].end = f->funcs[k].end;
			else
				o->v[o->n++] = f->funcs[k];
		}
	}
done:
	sp_reach_result_free(&r);
out:
	free_all(v, lo->nobjs);
	if (rc != 0)
		sp_reach_dead_free(d);
	return rc;
}

bool
sp_reach_dead_at(const struct sp_reach_dead *d, size_t obj, uint64_t addr)
{
	const struct sp_reach_dead_obj *o;
	size_t i;

	if (obj >= d->nobjs)
		return false;
	o = &d->objs[obj];
	/* the first dead range ending after addr (ends are ascending) */
	i = SP_LOWER_BOUND(o->v, o->n, end, addr + 1);
	return i < o->n && o->v[i].start <= addr && addr < o->v[i].end;
}

void
sp_reach_dead_free(struct sp_reach_dead *d)
{
	for (size_t i = 0; d->objs != NULL && i < d->nobjs; i++)
		free(d->objs[i].v);
	free(d->objs);
	memset(d, 0, sizeof(*d));
}
