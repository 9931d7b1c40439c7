/* SPDX-License-Identifier: ISC */
/*
 * syspin scan --reach [--json] PROG...
 *
 * For each program, the objects its process starts with (the program,
 * what ld.so may map at start-up, ld.so, the vDSO), their tables, and
 * the closure of what can run (lib/analysis/reach.h): per object, the
 * sites and (site, number) pairs before and after pruning, and the
 * numbers no reachable site issues any more.  The same pruning as
 * `syspin run`'s, from the same analysis.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "layout/needed.h"

#include "cli.h"
#include "scan.h"
#include "scan_reach.h"

static char *
objects_of(const char *prog, struct sp_needed *nd)
{
	struct sp_needed_in in = { .exe = prog,
	    .ld_library_path = getenv("LD_LIBRARY_PATH"),
	    .ld_preload = getenv("LD_PRELOAD"),
	    .preload_file = "/etc/ld.so.preload",
	    .ldcache_file = "/etc/ld.so.cache" };
	struct sp_error err;

	memset(nd, 0, sizeof(*nd));
	if (sp_needed_resolve(&in, nd, &err) == -1)
		memset(nd, 0, sizeof(*nd));	/* static: the program */
	return nd->interp;
}

static int
load(struct rprog *p, const char *prog)
{
	struct sp_needed nd;
	char *interp = objects_of(prog, &nd);
	struct sp_error err;

	p->v = calloc(nd.nobjs + 3, sizeof(*p->v));
	if (p->v == NULL)
		return -1;
	p->v[p->n++].path = prog;
	for (size_t i = 0; i < nd.nobjs; i++)
		p->v[p->n++].path = strdup(nd.objs[i].path);
	if (interp != NULL)
		p->v[p->n++].path = strdup(interp);
	p->v[p->n++].path = "[vdso]";
	sp_needed_free(&nd);
	for (size_t i = 0; i < p->n; i++) {
		struct scanned *s = &p->v[i];
		int rc = s->path == NULL ? -1 : i + 1 == p->n ?
		    vdso_load(&s->elf, &err) : sp_elf_open(&s->elf, s->path,
		    &err);
		s->ok = rc == 0;
		if (!s->ok)
			snprintf(s->error, sizeof(s->error), "%s",
			    s->path == NULL ? "out of memory" : err.msg);
	}
	return 0;
}

/* The layout: every object that was read, with its table. */
static int
build(struct rprog *p, const struct scan_args *a)
{
	struct sp_error err;

	scan_all(p->v, p->n, a);
	p->facts = calloc(p->n + 1, sizeof(*p->facts));
	p->obj = calloc(p->n + 1, sizeof(*p->obj));
	if (p->facts == NULL || p->obj == NULL)
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		struct scanned *s = &p->v[i];
		bool vdso = i + 1 == p->n, loader = i + 2 == p->n && i > 0 &&
		    p->v[0].ok && p->v[0].elf.interp != NULL;
		p->obj[i] = -1;
		if (!s->ok)
			continue;
		long o = sp_layout_add_object(&p->lo, s->path, vdso ?
		    SP_OBJ_VDSO : SP_OBJ_FILE, 0);
		if (o < 0)
			return -1;
		p->obj[i] = o;
		p->lo.objs[o].loader = loader;
		p->lo.objs[o].have_tab = sp_pintab_from_scan(&s->scan,
		    &p->lo.objs[o].tab, &err) == 0;
		if (!vdso && sp_reach_facts_build(&s->elf, &p->facts[o],
		    &err) != 0)
			memset(&p->facts[o], 0, sizeof(p->facts[o]));
	}
	return 0;
}

/* ld.so's execve and execveat sites, which syspin run leaves out of its
 * pins where ld.so is the interpreter: counted apart (a site of other
 * numbers too, should one be, stays). */
static void
drop_startup(struct rprog *p, struct sp_pintab *t)
{
	size_t k = 0;

	for (size_t s = 0; s < t->nsites; s++) {
		const struct sp_pin_site *site = &t->sites[s];
		bool exec = site->how != SP_PIN_ANY &&
		    site->how != SP_PIN_ANY_PARAM && site->nr_count > 0;
		for (uint32_t i = 0; exec && i < site->nr_count; i++)
			exec = t->nrs[site->nr_first + i] == 59 ||
			    t->nrs[site->nr_first + i] == 322;
		if (exec) {
			p->startup_sites++;
			p->startup_pairs += site->nr_count;
		} else
			t->sites[k++] = *site;
	}
	t->nsites = k;
}

static int
prune(struct rprog *p)
{
	struct sp_error err;
	size_t n = p->lo.nobjs;

	p->before = calloc(n + 1, sizeof(*p->before));
	p->after = calloc(n + 1, sizeof(*p->after));
	if (p->before == NULL || p->after == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		sp_layout_reach_count(&p->lo, i, &p->before[i]);
	if (sp_layout_reach_with(&p->lo, p->facts, NULL, 0, &p->rep,
	    &err) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (p->lo.objs[i].loader)
			drop_startup(p, &p->lo.objs[i].tab);
		sp_layout_reach_count(&p->lo, i, &p->after[i]);
	}
	return 0;
}

static void
rprog_free(struct rprog *p)
{
	for (size_t i = 0; i < p->n; i++) {
		sp_scan_free(&p->v[i].scan);
		if (p->v[i].ok)
			sp_elf_close(&p->v[i].elf);
		if (i > 0 && i + 1 < p->n)
			free((char *)p->v[i].path);
	}
	for (size_t i = 0; p->facts != NULL && i < p->lo.nobjs; i++)
		sp_reach_facts_free(&p->facts[i]);
	for (size_t i = 0; i < p->lo.nobjs; i++)
		if (p->lo.objs[i].have_tab)
			sp_pintab_free(&p->lo.objs[i].tab);
	sp_layout_free(&p->lo);
	free(p->v);
	free(p->facts);
	free(p->obj);
	free(p->before);
	free(p->after);
}

int
scan_reach(int n, char **progs, const struct scan_args *a)
{
	json_object *all = a->json ? json_object_new_array() : NULL;
	int rc = 0;

	if (n == 0) {
		cli_error("scan: --reach: no program");
		return EXIT_TROUBLE;
	}
	for (int i = 0; i < n; i++) {
		struct rprog p;
		memset(&p, 0, sizeof(p));
		if (load(&p, progs[i]) != 0 || !p.v[0].ok) {
			cli_error("%s: %s", progs[i], p.v != NULL ?
			    p.v[0].error : "out of memory");
			rc = EXIT_TROUBLE;
		} else if (build(&p, a) != 0 || prune(&p) != 0) {
			cli_error("%s: out of memory", progs[i]);
			rc = EXIT_TROUBLE;
		} else if (all != NULL)
			json_object_array_add(all, reach_json(&p));
		else
			reach_text(stdout, &p);
		rprog_free(&p);
	}
	if (all != NULL) {
		puts(json_object_to_json_string_ext(all,
		    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(all);
	}
	if (fflush(stdout) != 0) {
		cli_error("scan: write error on standard output");
		rc = EXIT_TROUBLE;
	}
	return rc;
}
