/* SPDX-License-Identifier: ISC */
/*
 * syspin filter's output: the layout, the pins of each object, the
 * narrowing and the program (text, or --json), and --export's raw
 * programs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/diag.h"
#include "layout/report.h"
#include "supervise/supervise.h"
#include "layout/placement.h"

#include "cli.h"
#include "filter.h"

static const char *const kinds[] = { "file", "vdso", "vsyscall",
	"unknown" };

static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s != NULL && s[1] != '\0' ? s + 1 : p;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The pins of one object: its distinct numbers and sites. */
struct objpins {
	uint32_t *nrs;
	size_t nnrs, npins;
	uint64_t *sites;
	size_t nsites, nany;
};

static size_t
uniq32(uint32_t *v, size_t n)
{
	size_t i, o = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 0; i < n; i++)
		if (o == 0 || v[o - 1] != v[i])
			v[o++] = v[i];
	return o;
}

static size_t
uniq64(uint64_t *v, size_t n)
{
	size_t i, o = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		if (o == 0 || v[o - 1] != v[i])
			v[o++] = v[i];
	return o;
}

static long
obj_of(const struct sp_layout *lo, uint64_t ip)
{
	long r = sp_layout_find(lo, ip - 2);

	return r == -1 ? -1 : (long)lo->ranges[r].obj;
}

static int
collect(const struct sp_pin_result *res, size_t oi, struct objpins *op)
{
	const struct sp_placement *pl = &res->pl;
	size_t i;

	memset(op, 0, sizeof(*op));
	op->nrs = calloc(pl->npins + 1, sizeof(*op->nrs));
	op->sites = calloc(pl->npins + 1, sizeof(*op->sites));
	if (op->nrs == NULL || op->sites == NULL)
		return -1;
	for (i = 0; i < pl->npins; i++) {
		if (obj_of(&res->lo, pl->pins[i].ip) != (long)oi)
			continue;
		op->nrs[op->nnrs++] = pl->pins[i].nr;
		op->sites[op->nsites++] = pl->pins[i].ip;
		op->npins++;
	}
	for (i = 0; i < pl->nany_ips; i++)
		if (obj_of(&res->lo, pl->any_ips[i]) == (long)oi)
			op->nany++;
	op->nnrs = uniq32(op->nrs, op->nnrs);
	op->nsites = uniq64(op->sites, op->nsites);
	return 0;
}

static void
objpins_free(struct objpins *op)
{
	free(op->nrs);
	free(op->sites);
}

static const char *
name_of(uint32_t nr, char *buf, size_t size)
{
	return sp_syscall_name(SP_AUDIT_ARCH_X86_64, nr, buf, size);
}

static void
print_narrow(const struct filter_args *a)
{
	const struct sp_narrow *n = &a->narrow;
	char name[64];
	size_t i;

	if (!n->given)
		return;
	printf("narrowing: %s, %zu numbers, answered with %s%s: ", n->allow ?
	    "--allow (every other number denied)" : "--deny", n->n,
	    n->kill ? "kill" : "errno ", n->kill ? "" :
	    strerrorname_np(n->errnum) ? strerrorname_np(n->errnum) : "?");
	for (i = 0; i < n->n; i++)
		printf("%s%s", i ? " " : "", name_of(n->nrs[i], name,
		    sizeof(name)));
	printf("\n");
}

static int
print_text(const struct filter_args *a, const struct sp_pin_result *res)
{
	const struct sp_layout *lo = &res->lo;
	struct objpins op;
	char name[64], line[160];
	size_t i, k, p;

	printf("objects:\n");
	for (i = 0; i < lo->nobjs; i++)
		printf("  %3zu  %s  base 0x%" PRIx64 "  %s%s%s\n", i,
		    lo->objs[i].name, lo->objs[i].base,
		    kinds[lo->objs[i].kind], lo->objs[i].loader ?
		    ", loader" : "", lo->objs[i].have_tab ||
		    lo->objs[i].kind == SP_OBJ_VSYSCALL ? "" : ", no table");
	printf("ranges:\n");
	for (i = 0; i < lo->nranges; i++)
		printf("  0x%012" PRIx64 "-0x%012" PRIx64 "  %zu %s\n",
		    lo->ranges[i].start, lo->ranges[i].end, lo->ranges[i].obj,
		    base_name(lo->objs[lo->ranges[i].obj].name));
	printf("pins:\n");
	for (i = 0; i < lo->nobjs; i++) {
		if (collect(res, i, &op) == -1)
			return EXIT_TROUBLE;
		printf("  %s: %zu pins at %zu sites, %zu numbers, %zu "
		    "any-number sites\n", base_name(lo->objs[i].name),
		    op.npins, op.nsites, op.nnrs, op.nany);
		for (k = 0; k < op.nnrs; k++)
			printf("%s%s", k == 0 ? "    " : k % 8 == 0 ?
			    "\n    " : " ", name_of(op.nrs[k], name,
			    sizeof(name)));
		if (op.nnrs > 0)
			printf("\n");
		objpins_free(&op);
	}
	print_narrow(a);
	for (p = 0; p < res->nprogs; p++) {
		printf("program %zu of %zu: %zu instructions, longest path "
		    "%zu\n%s", p + 1, res->nprogs, res->progs[p].len,
		    sp_bpf_path_max(&res->progs[p]), SP_BPF_DISASM_HEADER);
		for (i = 0; i < res->progs[p].len; i++) {
			sp_bpf_disasm(res->progs[p].insns, i, line,
			    sizeof(line));
			printf("%s\n", line);
		}
	}
	return 0;
}

static json_object *
hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_object_new_string(buf);
}

static int
print_json(const struct filter_args *a, const struct sp_pin_result *res)
{
	const struct sp_layout *lo = &res->lo;
	json_object *o = json_object_new_object(), *v, *e, *nv;
	struct objpins op;
	char name[64];
	size_t i, k;

	json_object_object_add(o, "pid", json_object_new_int64(a->pid));
	json_object_object_add(o, "source", json_object_new_string(
	    a->argc > 0 ? "exec" : "mappings"));
	v = json_object_new_array();
	for (i = 0; i < lo->nobjs; i++) {
		e = json_object_new_object();
		json_object_object_add(e, "name",
		    json_object_new_string(lo->objs[i].name));
		json_object_object_add(e, "kind",
		    json_object_new_string(kinds[lo->objs[i].kind]));
		json_object_object_add(e, "base", hex(lo->objs[i].base));
		json_object_object_add(e, "loader",
		    json_object_new_boolean(lo->objs[i].loader));
		json_object_object_add(e, "table",
		    json_object_new_boolean(lo->objs[i].have_tab));
		if (collect(res, i, &op) == -1)
			return EXIT_TROUBLE;
		json_object_object_add(e, "pins", json_object_new_int64(
		    (int64_t)op.npins));
		json_object_object_add(e, "sites", json_object_new_int64(
		    (int64_t)op.nsites));
		json_object_object_add(e, "any_sites", json_object_new_int64(
		    (int64_t)op.nany));
		nv = json_object_new_array();
		for (k = 0; k < op.nnrs; k++)
			json_object_array_add(nv, json_object_new_string(
			    name_of(op.nrs[k], name, sizeof(name))));
		json_object_object_add(e, "numbers", nv);
		objpins_free(&op);
		json_object_array_add(v, e);
	}
	json_object_object_add(o, "objects", v);
	v = json_object_new_array();
	for (i = 0; i < lo->nranges; i++) {
		e = json_object_new_object();
		json_object_object_add(e, "start", hex(lo->ranges[i].start));
		json_object_object_add(e, "end", hex(lo->ranges[i].end));
		json_object_object_add(e, "object",
		    json_object_new_int64((int64_t)lo->ranges[i].obj));
		json_object_array_add(v, e);
	}
	json_object_object_add(o, "ranges", v);
	v = json_object_new_array();
	for (i = 0; i < a->narrow.n; i++)
		json_object_array_add(v, json_object_new_string(name_of(
		    a->narrow.nrs[i], name, sizeof(name))));
	e = json_object_new_object();
	json_object_object_add(e, "mode", a->narrow.given ?
	    json_object_new_string(a->narrow.allow ? "allow" : "deny") :
	    NULL);
	json_object_object_add(e, "names", v);
	json_object_object_add(o, "narrowing", e);
	v = json_object_new_array();
	for (i = 0; i < res->nprogs; i++) {
		e = json_object_new_object();
		json_object_object_add(e, "instructions",
		    json_object_new_int64((int64_t)res->progs[i].len));
		json_object_object_add(e, "longest_path", json_object_new_int64(
		    (int64_t)sp_bpf_path_max(&res->progs[i])));
		json_object_array_add(v, e);
	}
	json_object_object_add(o, "programs", v);
	printf("%s\n", json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return 0;
}

/* FILE, FILE.2, ...: one raw program each, as seccomp(2) takes it. */
static int
export(const struct filter_args *a, const struct sp_pin_result *res)
{
	char path[4096];
	size_t i, n;
	int fd;

	for (i = 0; i < res->nprogs; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "%s", a->export);
		else
			snprintf(path, sizeof(path), "%s.%zu", a->export,
			    i + 1);
		n = res->progs[i].len * sizeof(*res->progs[i].insns);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644)) == -1 || write(fd, res->progs[i].insns, n) !=
		    (ssize_t)n) {
			cli_error("%s: %s", path, strerror(errno));
			if (fd != -1)
				close(fd);
			return EXIT_TROUBLE;
		}
		close(fd);
	}
	if (res->nprogs > 1)
		fprintf(stderr, "syspin: filter: %zu programs: %s, %s.2, ...\n",
		    res->nprogs, a->export, a->export);
	return 0;
}

int
filter_print(const struct filter_args *a, const struct sp_pin_result *res)
{
	char comm[64] = "?", path[64];
	FILE *f;
	int rc;

	if (a->argc > 0)
		fprintf(a->json ? stderr : stdout, "syspin filter: %s as the "
		    "supervisor pins it at the end of its execve (pid %ld, "
		    "killed before its first instruction)\n", a->argv[0],
		    (long)a->pid);
	else {
		snprintf(path, sizeof(path), "/proc/%ld/comm", (long)a->pid);
		if ((f = fopen(path, "re")) != NULL) {
			if (fgets(comm, sizeof(comm), f) != NULL)
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		fprintf(a->json ? stderr : stdout, "syspin filter: pid %ld "
		    "(%s) as the supervisor would build it for the current "
		    "mappings (the filter it installed is not exposed)\n",
		    (long)a->pid, comm);
	}
	if (a->export != NULL && (rc = export(a, res)) != 0)
		return rc;
	fflush(stderr);
	return a->json ? print_json(a, res) : print_text(a, res);
}
