/* SPDX-License-Identifier: ISC */
/* `syspin scan --reach` output: text and JSON (docs/scan-json.md). */
#include <string.h>

#include "names.h"
#include "scan_reach.h"

static size_t
distinct(const struct sp_reach_count *c)
{
	size_t n = 0;

	for (size_t i = 0; i < SP_REACH_NR_MAX; i++)
		n += c->nr[i];
	return n;
}

/* Totals over the image. */
static void
total(const struct rprog *p, const struct sp_reach_count *v,
    struct sp_reach_count *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < p->lo.nobjs; i++) {
		t->sites += v[i].sites;
		t->pairs += v[i].pairs;
		t->any += v[i].any;
		for (size_t k = 0; k < SP_REACH_NR_MAX; k++)
			t->nr[k] |= v[i].nr[k];
	}
}

/* Why object o is reachable whole, or NULL. */
static const char *
whole_why(const struct rprog *p, size_t o)
{
	static const char *const why[] = {
		[SP_REACH_STATIC] = "a static program",
		[SP_REACH_GO] = "Go",
		[SP_REACH_NO_UNITS] = "no symbols nor unwind information",
		[SP_REACH_UNDECODED] = "code the decoder cannot read",
		[SP_REACH_LARGE] = "too large to decode at an exec",
	};
	const struct sp_reach_facts *f = &p->facts[o];

	if (p->lo.objs[o].kind == SP_OBJ_VDSO)
		return "the vDSO";
	if (p->lo.objs[o].loader)
		return "the dynamic loader";
	if (f->funcs == NULL && f->buf == NULL)
		return "no facts";
	if (f->whole != SP_REACH_PARTIAL && f->whole < sizeof(why) /
	    sizeof(*why))
		return why[f->whole];
	return NULL;
}

static void
text_numbers(FILE *f, const struct sp_reach_count *before,
    const struct sp_reach_count *after)
{
	char name[64];
	size_t n = 0;

	for (size_t k = 0; k < SP_REACH_NR_MAX; k++)
		n += before->nr[k] && !after->nr[k];
	fprintf(f, "  numbers pruned (%zu):", n);
	for (size_t k = 0; k < SP_REACH_NR_MAX; k++)
		if (before->nr[k] && !after->nr[k])
			fprintf(f, " %s", syscall_name(SP_TRAP_SYSCALL,
			    (uint32_t)k, name, sizeof(name)));
	fputc('\n', f);
}

/* Which object a widening call is in (NULL: code outside the image). */
static const char *
widen_obj(const struct rprog *p, const struct sp_reach_widen *w)
{
	return w->obj >= 0 && (size_t)w->obj < p->lo.nobjs ?
	    p->lo.objs[w->obj].name : NULL;
}

/* The calls of dlsym whose names are not bounded, so a user sees why. */
static void
widened_text(FILE *f, const struct rprog *p)
{
	size_t n = p->rep.ndlsym_by;

	fprintf(f, "  widened: dlsym is reachable with a name chosen at run "
	    "time, so every export is a root:\n");
	for (size_t i = 0; i < n && i < SP_REACH_WIDEN_MAX; i++) {
		const struct sp_reach_widen *w = &p->rep.dlsym_by[i];
		const char *o = widen_obj(p, w);
		if (o == NULL)
			fprintf(f, "    by code with no facts (an object that "
			    "cannot be analysed, or loaded later)\n");
		else if (w->at == 0)
			fprintf(f, "    %s takes dlsym's address\n", o);
		else
			fprintf(f, "    %s: the call at 0x%llx\n", o,
			    (unsigned long long)w->at);
	}
	if (n > SP_REACH_WIDEN_MAX)
		fprintf(f, "    and %zu more\n", n - SP_REACH_WIDEN_MAX);
}

void
reach_text(FILE *f, const struct rprog *p)
{
	struct sp_reach_count b, a;

	total(p, p->before, &b);
	total(p, p->after, &a);
	fprintf(f, "%s: %zu objects: reachable sites %zu of %zu, (site, "
	    "number) pairs %zu of %zu, distinct numbers %zu of %zu\n",
	    p->v[0].path, p->lo.nobjs, a.sites, b.sites, a.pairs, b.pairs,
	    distinct(&a), distinct(&b));
	for (size_t o = 0; o < p->lo.nobjs; o++) {
		const char *why = whole_why(p, o);
		fprintf(f, "  %s: sites %zu/%zu, pairs %zu/%zu, numbers "
		    "%zu/%zu%s%s%s\n", p->lo.objs[o].name, p->after[o].sites,
		    p->before[o].sites, p->after[o].pairs, p->before[o].pairs,
		    distinct(&p->after[o]), distinct(&p->before[o]),
		    why ? " (whole: " : "", why ? why : "", why ? ")" : "");
	}
	if (p->startup_pairs > 0)
		fprintf(f, "  start-up only, not pinned: ld.so's exec sites "
		    "(%zu sites, %zu pairs: dl_main runs a program by name; "
		    "syspin run pins none where ld.so is the interpreter)\n",
		    p->startup_sites, p->startup_pairs);
	text_numbers(f, &b, &a);
	if (p->rep.dlsym)
		widened_text(f, p);
	if (p->rep.dlopen)
		fprintf(f, "  dlopen is reachable: under syspin run, what an "
		    "object loaded later imports becomes reachable when it "
		    "calls it\n");
}

static json_object *
json_numbers(const struct sp_reach_count *c, const struct sp_reach_count *minus)
{
	json_object *v = json_object_new_array();
	char name[64];

	for (size_t k = 0; k < SP_REACH_NR_MAX; k++)
		if (c->nr[k] && (minus == NULL || !minus->nr[k]))
			json_object_array_add(v, json_object_new_string(
			    syscall_name(SP_TRAP_SYSCALL, (uint32_t)k, name,
			    sizeof(name))));
	return v;
}

static json_object *
json_count(const struct sp_reach_count *b, const struct sp_reach_count *a)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "sites", json_object_new_int64(
	    (int64_t)b->sites));
	json_object_object_add(o, "reachable_sites", json_object_new_int64(
	    (int64_t)a->sites));
	json_object_object_add(o, "pairs", json_object_new_int64(
	    (int64_t)b->pairs));
	json_object_object_add(o, "reachable_pairs", json_object_new_int64(
	    (int64_t)a->pairs));
	json_object_object_add(o, "any_number_sites", json_object_new_int64(
	    (int64_t)a->any));
	json_object_object_add(o, "numbers", json_object_new_int64(
	    (int64_t)distinct(b)));
	json_object_object_add(o, "reachable_numbers", json_object_new_int64(
	    (int64_t)distinct(a)));
	json_object_object_add(o, "remaining", json_numbers(a, NULL));
	json_object_object_add(o, "pruned", json_numbers(b, a));
	return o;
}

json_object *
reach_json(const struct rprog *p)
{
	json_object *o = json_object_new_object(), *objs;
	struct sp_reach_count b, a;

	total(p, p->before, &b);
	total(p, p->after, &a);
	json_object_object_add(o, "program", json_object_new_string(
	    p->v[0].path));
	json_object_object_add(o, "total", json_count(&b, &a));
	json_object_object_add(o, "dlsym_widened", json_object_new_boolean(
	    p->rep.dlsym));
	if (p->rep.dlsym) {
		json_object *by = json_object_new_array();
		for (size_t i = 0; i < p->rep.ndlsym_by &&
		    i < SP_REACH_WIDEN_MAX; i++) {
			const struct sp_reach_widen *w = &p->rep.dlsym_by[i];
			json_object *e = json_object_new_object();
			const char *obj = widen_obj(p, w);
			json_object_object_add(e, "object", obj != NULL ?
			    json_object_new_string(obj) : NULL);
			json_object_object_add(e, "address", w->at != 0 ?
			    json_object_new_int64((int64_t)w->at) : NULL);
			json_object_array_add(by, e);
		}
		json_object_object_add(o, "dlsym_widened_by", by);
		json_object_object_add(o, "dlsym_widened_count",
		    json_object_new_int64((int64_t)p->rep.ndlsym_by));
	}
	json_object_object_add(o, "dlopen_reachable",
	    json_object_new_boolean(p->rep.dlopen));
	json_object_object_add(o, "startup_only_pairs",
	    json_object_new_int64((int64_t)p->startup_pairs));
	objs = json_object_new_array();
	for (size_t i = 0; i < p->lo.nobjs; i++) {
		json_object *e = json_count(&p->before[i], &p->after[i]);
		const char *why = whole_why(p, i);
		json_object_object_add(e, "path", json_object_new_string(
		    p->lo.objs[i].name));
		json_object_object_add(e, "whole", why != NULL ?
		    json_object_new_string(why) : NULL);
		json_object_array_add(objs, e);
	}
	json_object_object_add(o, "objects", objs);
	return o;
}
