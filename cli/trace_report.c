/* SPDX-License-Identifier: ISC */
/* `syspin trace` output: text for people, JSON (docs/trace.md) for tests. */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "supervise/narrow.h"

#include "names.h"
#include "trace.h"

static const char *
call_name(const struct trace_miss *m, char *buf, unsigned size)
{
	return syscall_name(m->i386 ? SP_TRAP_INT80 : SP_TRAP_SYSCALL, m->nr,
	    buf, size);
}

static double
pct(const struct trace *t)
{
	return t->calls == 0 ? 100.0 : 100.0 * (double)t->covered /
	    (double)t->calls;
}

static void
print_status(FILE *f, const struct trace *t)
{
	if (!t->have_status)
		fputs("status unknown", f);
	else if (WIFEXITED(t->status))
		fprintf(f, "exited %d", WEXITSTATUS(t->status));
	else
		fprintf(f, "killed by signal %d", WTERMSIG(t->status));
}

static const char *
kind_name(enum sp_observed_kind k)
{
	return k == SP_OBS_REFUSED ? "refused" : k == SP_OBS_DENIED ?
	    "denied" : "killed";
}

static void
print_misses(FILE *f, const struct trace *t, bool in_objects)
{
	char name[64];

	for (size_t i = 0; i < t->nmisses; i++) {
		const struct trace_miss *m = &t->misses[i];
		if ((m->obj != -1) != in_objects)
			continue;
		if (in_objects)
			fprintf(f, "  %s+0x%" PRIx64, t->objs[m->obj].name,
			    m->addr);
		else
			fprintf(f, "  %s 0x%" PRIx64, m->mapping[0] ?
			    m->mapping : "(unmapped)", m->addr);
		fprintf(f, "  %s%s (%u)  %" PRIu64 " time%s, %s: %s\n",
		    m->i386 ? "i386 " : "", call_name(m, name, sizeof(name)),
		    m->nr, m->count, m->count == 1 ? "" : "s",
		    kind_name(m->kind), m->why);
	}
}

void
trace_print_text(FILE *f, const struct trace *t, char **argv)
{
	size_t in_objs = 0;

	fputs("syspin trace:", f);
	for (char **a = argv; *a != NULL; a++)
		fprintf(f, " %s", *a);
	fputs(": ", f);
	print_status(f, t);
	fprintf(f, "\n%" PRIu64 " system calls from %" PRIu64 " process%s "
	    "and %" PRIu64 " more thread%s; %" PRIu64 " covered (%.1f%%)\n",
	    t->calls, t->processes, t->processes == 1 ? "" : "es", t->threads,
	    t->threads == 1 ? "" : "s", t->covered, pct(t));
	fprintf(f, "%zu distinct (site, number) pairs covered\n", t->npairs);
	fprintf(f, "%10s %10s  object\n", "calls", "covered");
	for (size_t i = 0; i < t->nobjs; i++)
		fprintf(f, "%10" PRIu64 " %10" PRIu64 "  %s\n",
		    t->objs[i].calls, t->objs[i].covered, t->objs[i].name);
	for (size_t i = 0; i < t->nmisses; i++)
		in_objs += t->misses[i].obj != -1;
	if (in_objs > 0) {
		fputs("not covered (what syspin run would do):\n", f);
		print_misses(f, t, true);
	}
	if (in_objs < t->nmisses) {
		fprintf(f, "from no object (%" PRIu64 " call%s, late code "
		    "included):\n", t->anon_calls, t->anon_calls == 1 ?
		    "" : "s");
		print_misses(f, t, false);
	}
}

static int
add(json_object *o, const char *key, json_object *v)
{
	if (v == NULL)
		return -1;
	if (json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int
push(json_object *a, json_object *v)
{
	if (v == NULL)
		return -1;
	if (json_object_array_add(a, v) != 0) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int
add_hex(json_object *o, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return add(o, key, json_object_new_string(buf));
}

static json_object *
miss_json(const struct trace *t, const struct trace_miss *m)
{
	json_object *o = json_object_new_object();
	char name[64];
	int r = 0;

	if (o == NULL)
		return NULL;
	if (m->obj != -1)
		r |= add(o, "object", json_object_new_string(
		    t->objs[m->obj].name)) | add_hex(o, "addr", m->addr);
	else
		r |= add(o, "mapping", json_object_new_string(m->mapping)) |
		    add_hex(o, "addr", m->addr);
	r |= add(o, "number", json_object_new_int64(m->nr));
	r |= add(o, "name", json_object_new_string(call_name(m, name,
	    sizeof(name))));
	r |= add(o, "abi", json_object_new_string(m->i386 ? "i386" :
	    "x86_64"));
	r |= add(o, "count", json_object_new_int64((int64_t)m->count));
	r |= add(o, "verdict", json_object_new_string(kind_name(m->kind)));
	r |= add(o, "reason", json_object_new_string(m->why));
	if (r != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *
obj_json(const struct trace_obj *ob)
{
	json_object *o = json_object_new_object();
	int r = 0;

	if (o == NULL)
		return NULL;
	r |= add(o, "path", json_object_new_string(ob->name));
	r |= add(o, "calls", json_object_new_int64((int64_t)ob->calls));
	r |= add(o, "covered", json_object_new_int64((int64_t)ob->covered));
	if (r != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int
lists_json(json_object *root, const struct trace *t)
{
	json_object *objs = json_object_new_array();
	json_object *miss = json_object_new_array();
	json_object *anon = json_object_new_array();
	int r = add(root, "objects", objs) | add(root, "not_covered", miss) |
	    add(root, "no_object", anon);

	for (size_t i = 0; r == 0 && i < t->nobjs; i++)
		r = push(objs, obj_json(&t->objs[i]));
	for (size_t i = 0; r == 0 && i < t->nmisses; i++)
		r = push(t->misses[i].obj != -1 ? miss : anon,
		    miss_json(t, &t->misses[i]));
	return r;
}

int
trace_print_json(FILE *f, const struct trace *t, char **argv)
{
	json_object *root = json_object_new_object();
	json_object *cmd = json_object_new_array();
	int r = add(root, "command", cmd);

	for (char **a = argv; r == 0 && *a != NULL; a++)
		r = push(cmd, json_object_new_string(*a));
	if (t->have_status && WIFEXITED(t->status))
		r |= add(root, "exit_status", json_object_new_int(
		    WEXITSTATUS(t->status)));
	else if (t->have_status)
		r |= add(root, "signal", json_object_new_int(
		    WTERMSIG(t->status)));
	r |= add(root, "processes", json_object_new_int64(
	    (int64_t)t->processes));
	r |= add(root, "threads", json_object_new_int64((int64_t)t->threads));
	r |= add(root, "calls", json_object_new_int64((int64_t)t->calls));
	r |= add(root, "covered", json_object_new_int64((int64_t)t->covered));
	r |= add(root, "pairs", json_object_new_int64((int64_t)t->npairs));
	r |= add(root, "no_object_calls", json_object_new_int64(
	    (int64_t)t->anon_calls));
	r |= add(root, "killed", json_object_new_int64((int64_t)t->killed));
	r |= add(root, "refused", json_object_new_int64((int64_t)t->refused));
	r |= add(root, "denied", json_object_new_int64((int64_t)t->denied));
	r |= add(root, "coverage_pct", json_object_new_double(pct(t)));
	if (r == 0)
		r = lists_json(root, t);
	if (r == 0)
		fprintf(f, "%s\n", json_object_to_json_string_ext(root,
		    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return r == 0 ? 0 : -1;
}

void
trace_print_allow(FILE *f, const struct trace *t, bool systemd)
{
	char buf[64];
	bool first = true;

	fputs(systemd ? "SystemCallFilter=" : "", f);
	for (uint32_t nr = 0; nr < 512; nr++) {
		if (!(t->nrs[nr / 64] >> (nr % 64) & 1))
			continue;
		const char *name = syscall_name(SP_TRAP_SYSCALL, nr, buf,
		    sizeof(buf));
		/* newer than libseccomp's tables: run's own names */
		if (name[0] == '#' && sp_syscall_newer(nr) != NULL)
			name = sp_syscall_newer(nr);
		fprintf(f, "%s%s", first ? "" : systemd ? " " : ",", name);
		first = false;
	}
	fputc('\n', f);
}
