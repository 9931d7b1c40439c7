/* SPDX-License-Identifier: ISC */
/*
 * The observer of `syspin trace`: each call the supervisor judged is
 * counted against the object of its trap, found in the image's own
 * layout (what run pinned); a call run would kill, refuse or deny is kept
 * once per (where, number, kind) with run's own line as the reason.
 */
#include <inttypes.h>
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "layout/procfs.h"

#include "trace.h"

/* The object named name, added on first sight; -1 out of memory. */
static long
obj_index(struct trace *t, const char *name)
{
	struct trace_obj *v;
	size_t i;

	for (i = 0; i < t->nobjs; i++)
		if (strcmp(t->objs[i].name, name) == 0)
			return (long)i;
	if ((v = realloc(t->objs, (t->nobjs + 1) * sizeof(*v))) == NULL)
		return -1;
	t->objs = v;
	memset(&v[t->nobjs], 0, sizeof(*v));
	if ((v[t->nobjs].name = strdup(name)) == NULL)
		return -1;
	return (long)t->nobjs++;
}

/* The name of the mapping holding addr in tid's memory, "" if none. */
static char *
mapping_name(pid_t tid, uint64_t addr)
{
	char path[64], *name = NULL;
	struct sp_error err;
	struct sp_map *m;
	size_t n, i;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)tid);
	if (sp_maps_read(path, &m, &n, &err) == -1)
		return strdup("");
	for (i = 0; i < n && name == NULL; i++)
		if (m[i].start <= addr && addr < m[i].end)
			name = strdup(m[i].path[0] != '\0' ? m[i].path :
			    "[anon]");
	sp_maps_free(m, n);
	return name != NULL ? name : strdup("");
}

static bool
same_miss(const struct trace_miss *m, long obj, const char *mapping,
    uint64_t addr, const struct sp_observed *c)
{
	return m->obj == obj && m->addr == addr && m->nr == c->nr &&
	    m->i386 == (c->arch != AUDIT_ARCH_X86_64) && m->kind == c->kind &&
	    (obj != -1 || strcmp(m->mapping, mapping) == 0);
}

static void
add_miss(struct trace *t, long obj, const char *mapping, uint64_t addr,
    const struct sp_observed *c)
{
	struct trace_miss *v, *m;
	size_t i;

	for (i = 0; i < t->nmisses; i++)
		if (same_miss(&t->misses[i], obj, mapping, addr, c)) {
			t->misses[i].count++;
			return;
		}
	if ((v = realloc(t->misses, (t->nmisses + 1) * sizeof(*v))) == NULL) {
		t->oom = true;
		return;
	}
	t->misses = v;
	m = &v[t->nmisses++];
	memset(m, 0, sizeof(*m));
	m->obj = obj;
	m->mapping = strdup(mapping);
	m->addr = addr;
	m->nr = c->nr;
	m->i386 = c->arch != AUDIT_ARCH_X86_64;
	m->kind = c->kind;
	m->why = strdup(c->line != NULL ? c->line : "");
	m->count = 1;
	if (m->mapping == NULL || m->why == NULL)
		t->oom = true;
}

static bool
pair_put(uint64_t *v, size_t cap, uint64_t key)
{
	size_t k = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);

	for (; v[k] != 0; k = (k + 1) & (cap - 1))
		if (v[k] == key)
			return false;
	v[k] = key;
	return true;
}

/* Counts a covered call's (object, site, number) once: the pairs the
 * program really used, against the pairs pinned (docs/trace.md). */
static void
add_pair(struct trace *t, long obj, uint64_t off, const struct sp_observed *c)
{
	uint64_t key = ((uint64_t)obj << 48 | (off & 0xfffffffffull) << 11 |
	    (uint64_t)(c->arch != AUDIT_ARCH_X86_64) << 10 | (c->nr & 0x3ff)) +
	    1;

	if (2 * (t->npairs + 1) > t->cappairs) {
		size_t cap = t->cappairs ? 2 * t->cappairs : 1024;
		uint64_t *v = calloc(cap, sizeof(*v));
		if (v == NULL) {
			t->oom = true;
			return;
		}
		for (size_t i = 0; i < t->cappairs; i++)
			if (t->pairs[i] != 0)
				pair_put(v, cap, t->pairs[i]);
		free(t->pairs);
		t->pairs = v;
		t->cappairs = cap;
	}
	t->npairs += pair_put(t->pairs, t->cappairs, key);
}

static void
on_call(struct trace *t, const struct sp_observed *c)
{
	uint64_t trap = c->ip - 2;
	long r = c->lo != NULL ? sp_layout_find(c->lo, trap) : -1, obj = -1;
	const struct sp_object *o = NULL;
	bool ok = c->kind == SP_OBS_ALLOWED || c->kind == SP_OBS_PLACED ||
	    c->kind == SP_OBS_ERRNO;
	char *mapping;

	t->calls++;
	t->covered += ok;
	if (c->arch == AUDIT_ARCH_X86_64 && c->nr < 512)
		t->nrs[c->nr / 64] |= 1ull << (c->nr % 64);
	if (r != -1) {
		o = &c->lo->objs[c->lo->ranges[r].obj];
		if ((obj = obj_index(t, o->name)) == -1) {
			t->oom = true;
			return;
		}
		t->objs[obj].calls++;
		t->objs[obj].covered += ok;
	} else
		t->anon_calls++;
	if (ok && o != NULL)
		add_pair(t, obj, trap - o->base, c);
	if (ok)
		return;
	t->killed += c->kind == SP_OBS_VIOLATION;
	t->refused += c->kind == SP_OBS_REFUSED;
	t->denied += c->kind == SP_OBS_DENIED;
	if (o != NULL) {
		add_miss(t, obj, "", trap - o->base, c);
		return;
	}
	mapping = mapping_name(c->tid, trap);
	add_miss(t, -1, mapping != NULL ? mapping : "", trap, c);
	free(mapping);
}

void
trace_observe(void *ctx, const struct sp_observed *c)
{
	struct trace *t = ctx;

	switch (c->kind) {
	case SP_OBS_PROCESS:
		t->processes++;
		return;
	case SP_OBS_THREAD:
		t->threads++;
		return;
	case SP_OBS_EXIT:
		t->status = c->status;
		t->have_status = true;
		return;
	default:
		on_call(t, c);
	}
}

void
trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->nobjs; i++)
		free(t->objs[i].name);
	for (size_t i = 0; i < t->nmisses; i++) {
		free(t->misses[i].mapping);
		free(t->misses[i].why);
	}
	free(t->objs);
	free(t->misses);
	free(t->pairs);
	memset(t, 0, sizeof(*t));
}
