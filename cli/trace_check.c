/* SPDX-License-Identifier: ISC */
/*
 * Is an observed system call covered by the scanned tables?  The rules are
 * those `syspin run` places pins by (sp_pintab_from_scan, sp_layout_place):
 * a trap the scan does not list, a number its site does not list, a
 * likely-data or pin-section-omitted trap, an i386 entry, or a call from
 * memory no object backs would all be killed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cli.h"
#include "scan.h"
#include "trace.h"

/* The legacy vsyscall page: three fixed entry points, reported as the ip. */
#define VSYSCALL_BASE 0xffffffffff600000ull
static const struct {
	uint64_t ip;
	uint32_t nr;
} vsyscalls[] = {
	{ VSYSCALL_BASE + 0x000, 96 },	/* gettimeofday */
	{ VSYSCALL_BASE + 0x400, 201 },	/* time */
	{ VSYSCALL_BASE + 0x800, 309 },	/* getcpu */
};

struct trace_task *
trace_task_get(struct trace *t, pid_t tid, bool add)
{
	struct trace_task *v;

	for (size_t i = 0; i < t->ntasks; i++)
		if (t->tasks[i].tid == tid)
			return &t->tasks[i];
	if (!add)
		return NULL;
	if ((v = realloc(t->tasks, (t->ntasks + 1) * sizeof(*v))) == NULL)
		return NULL;
	t->tasks = v;
	v = &t->tasks[t->ntasks++];
	memset(v, 0, sizeof(*v));
	v->tid = tid;
	v->started = true;	/* every task but the first, before its exec */
	v->entry_nr = -1;
	return v;
}

void
trace_task_drop(struct trace *t, pid_t tid)
{
	struct trace_task *task = trace_task_get(t, tid, false);

	if (task == NULL)
		return;
	sp_maps_free(task->maps, task->nmaps);
	*task = t->tasks[--t->ntasks];
}

static int
read_maps(struct trace *t, struct trace_task *task)
{
	char path[64];
	struct sp_error err;

	sp_maps_free(task->maps, task->nmaps);
	task->maps = NULL;
	task->nmaps = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)task->tid);
	if (sp_maps_read(path, &task->maps, &task->nmaps, &err) == -1)
		return -1;
	task->maps_gen = t->gen;
	return 0;
}

static const struct sp_map *
find_map(const struct trace_task *task, uint64_t addr)
{
	size_t lo = 0, hi = task->nmaps;

	/* The kernel lists mappings in address order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < task->maps[mid].start)
			hi = mid;
		else if (addr >= task->maps[mid].end)
			lo = mid + 1;
		else
			return &task->maps[mid];
	}
	return NULL;
}

/*
 * The mapping holding addr.  Maps are read again when some address space
 * may have changed since, and once more when addr falls outside every
 * known executable mapping.  -1: the maps cannot be read.
 */
static int
locate(struct trace *t, struct trace_task *task, uint64_t addr,
    const struct sp_map **out)
{
	bool fresh = false;

	if (task->maps == NULL || task->maps_gen != t->gen) {
		if (read_maps(t, task) == -1)
			return -1;
		fresh = true;
	}
	*out = find_map(task, addr);
	if (!fresh && (*out == NULL || !((*out)->prot & PROT_EXEC))) {
		if (read_maps(t, task) == -1)
			return -1;
		*out = find_map(task, addr);
	}
	return 0;
}

static void
obj_scan(struct trace_obj *o, const char *path)
{
	struct sp_scan_opts opts;
	struct sp_error err = { "", 0 };
	int r;

	memset(&opts, 0, sizeof(opts));	/* as `syspin run` fills its cache */
	r = path == NULL ? vdso_load(&o->elf, &err) :
	    sp_elf_open(&o->elf, path, &err);
	if (r == -1) {
		snprintf(o->error, sizeof(o->error), "%s", err.msg);
		return;
	}
	if (sp_scan(&o->elf, &opts, &o->scan, &err) == -1) {
		snprintf(o->error, sizeof(o->error), "%s", err.msg);
		sp_scan_free(&o->scan);
		sp_elf_close(&o->elf);
		return;
	}
	o->ok = true;
}

/*
 * The file behind a mapping: its path when that still names the same
 * inode, else the kernel's link to the mapped file itself (replaced or
 * deleted files; needs privilege).
 */
static void
obj_open_file(struct trace_obj *o, const struct trace_task *task,
    const struct sp_map *m)
{
	char path[96];
	struct stat st;

	if (stat(m->path, &st) == 0 && st.st_dev == m->dev &&
	    st.st_ino == m->inode) {
		obj_scan(o, m->path);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%"
	    PRIx64, (int)task->tid, m->start, m->end);
	obj_scan(o, path);
	if (!o->ok)
		snprintf(o->error, sizeof(o->error), "the mapped file is no "
		    "longer at its path and %s cannot be read", path);
}

/* The object a file or [vdso] mapping belongs to, analysed on first use. */
static long
obj_get(struct trace *t, const struct trace_task *task, const struct sp_map *m)
{
	bool vdso = m->kind == SP_MAP_VDSO;
	struct trace_obj *o;

	for (size_t i = 0; i < t->nobjs; i++) {
		o = &t->objs[i];
		if (vdso ? strcmp(o->name, "[vdso]") == 0 :
		    o->dev == m->dev && o->ino == m->inode && o->dev + o->ino)
			return (long)i;
	}
	if ((o = realloc(t->objs, (t->nobjs + 1) * sizeof(*o))) == NULL)
		return -1;
	t->objs = o;
	o = &t->objs[t->nobjs];
	memset(o, 0, sizeof(*o));
	if ((o->name = strdup(vdso ? "[vdso]" : m->path)) == NULL)
		return -1;
	o->dev = vdso ? 0 : m->dev;
	o->ino = vdso ? 0 : m->inode;
	if (vdso)
		obj_scan(o, NULL);
	else
		obj_open_file(o, task, m);
	return (long)t->nobjs++;
}

/* Link-time address of a run-time one, through the executable PT_LOAD
 * holding the same file offset (ET_EXEC: absolute; ET_DYN: from 0). */
static int
link_addr(const struct trace_obj *o, const struct sp_map *m, uint64_t addr,
    uint64_t *out)
{
	uint64_t off = addr - m->start + m->offset;

	for (size_t i = 0; i < o->elf.nsegs; i++) {
		const struct sp_segment *s = &o->elf.segs[i];
		if ((s->flags & PF_X) && off >= s->offset &&
		    off - s->offset < s->filesz) {
			*out = s->vaddr + (off - s->offset);
			return 0;
		}
	}
	return -1;
}

static const struct sp_site *
find_site(const struct sp_scan *scan, uint64_t addr)
{
	size_t lo = 0, hi = scan->nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (scan->sites[mid].addr < addr)
			lo = mid + 1;
		else if (scan->sites[mid].addr > addr)
			hi = mid;
		else
			return &scan->sites[mid];
	}
	return NULL;
}

static bool
nrs_have(const struct sp_scan *scan, uint32_t first, uint32_t count,
    uint32_t nr)
{
	for (uint32_t i = 0; i < count; i++)
		if (scan->nrs[first + i] == nr)
			return true;
	return false;
}

/*
 * An export's site also takes what the loaded objects' imports of it pass
 * (sp_layout_place): covered when one passes nr or an unknown number.
 * The objects are those with an executable mapping in this process.
 */
static bool
importers_cover(struct trace *t, const struct trace_task *task,
    const char *symbol, uint32_t nr)
{
	for (size_t i = 0; i < task->nmaps; i++) {
		const struct sp_map *m = &task->maps[i];
		long oi;
		if (m->kind != SP_MAP_FILE || !(m->prot & PROT_EXEC) ||
		    (oi = obj_get(t, task, m)) == -1 || !t->objs[oi].ok)
			continue;
		const struct sp_scan *sc = &t->objs[oi].scan;
		for (size_t j = 0; j < sc->nimports; j++) {
			const struct sp_import *im = &sc->imports[j];
			if (strcmp(im->symbol, symbol) != 0)
				continue;
			if (im->unresolved || nrs_have(sc, im->nr_first,
			    im->nr_count, nr))
				return true;
		}
	}
	return false;
}

/* NULL when the site would allow nr, else why not. */
static const char *
site_verdict(struct trace *t, const struct trace_task *task, long oi,
    const struct sp_site *s, uint32_t nr)
{
	const struct sp_scan *sc = &t->objs[oi].scan;

	if (s->flags & SP_SITE_NOT_PINNED)
		return "the binary's pin section omits this trap";
	if (s->how == SP_HOW_UNRESOLVED)
		return (s->flags & SP_SITE_LIKELY_DATA) ?
		    "likely data: the trap gets no numbers" : NULL;
	if (nrs_have(sc, s->nr_first, s->nr_count, nr))
		return NULL;
	if (s->how != SP_HOW_EXPORT)
		return "the site does not list this number";
	for (size_t i = 0; i < sc->nexports; i++)
		if (sc->exports[i].addr == s->function)
			return importers_cover(t, task, sc->exports[i].symbol,
			    nr) ? NULL : "export: no loaded object passes this "
			    "number";
	return NULL;	/* an export nobody can name: any number */
}

static void
miss(struct trace *t, long oi, const char *mapping, uint64_t addr,
    uint32_t nr, bool i386, const char *why)
{
	struct trace_miss *m;

	for (size_t i = 0; i < t->nmisses; i++) {
		m = &t->misses[i];
		if (m->obj == oi && m->addr == addr && m->nr == nr &&
		    m->i386 == i386 && m->why == why &&
		    strcmp(m->mapping, mapping) == 0) {
			m->count++;
			return;
		}
	}
	if ((m = realloc(t->misses, (t->nmisses + 1) * sizeof(*m))) == NULL)
		return;
	t->misses = m;
	m = &t->misses[t->nmisses];
	*m = (struct trace_miss){ oi, strdup(mapping), addr, nr, i386, why,
	    1 };
	if (m->mapping != NULL)
		t->nmisses++;
}

static bool
vsyscall_ok(uint64_t ip, uint32_t nr)
{
	for (size_t i = 0; i < sizeof(vsyscalls) / sizeof(*vsyscalls); i++)
		if (vsyscalls[i].ip == ip && vsyscalls[i].nr == nr)
			return true;
	return false;
}

/* A call from an object: covered, or a miss recorded against it. */
static void
check_in_object(struct trace *t, struct trace_task *task,
    const struct sp_map *m, uint32_t nr, bool i386, uint64_t trap)
{
	const struct sp_site *s;
	const char *why = NULL;
	uint64_t addr = trap;
	long oi = obj_get(t, task, m);

	if (oi == -1) {
		miss(t, -1, m->path, trap, nr, i386, "out of memory");
		return;
	}
	t->objs[oi].calls++;
	if (!t->objs[oi].ok)
		why = "the object could not be analysed";
	else if (link_addr(&t->objs[oi], m, trap, &addr) == -1)
		why = "not in an executable segment of the file";
	else if (i386)
		why = "i386 entry (int 0x80/sysenter): the filter refuses all";
	else if ((s = find_site(&t->objs[oi].scan, addr)) == NULL)
		why = "the scan found no trap instruction here";
	else
		why = site_verdict(t, task, oi, s, nr);
	if (why != NULL) {
		miss(t, oi, "", addr, nr, i386, why);
		return;
	}
	t->objs[oi].covered++;
	t->covered++;
}

void
trace_check_call(struct trace *t, struct trace_task *task, uint32_t nr,
    bool i386, uint64_t ip)
{
	const struct sp_map *m;
	uint64_t trap = ip - 2;	/* every trap is two bytes */

	t->calls++;
	if (ip >= VSYSCALL_BASE) {
		/* Emulated: ip is the entry point itself. */
		if (vsyscall_ok(ip, nr))
			t->covered++;
		else
			miss(t, -1, "[vsyscall]", ip, nr, i386,
			    "not a vsyscall entry point");
		return;
	}
	if (locate(t, task, trap, &m) == -1) {
		miss(t, -1, "", trap, nr, i386, "the maps cannot be read");
		return;
	}
	if (m != NULL && (m->prot & PROT_EXEC) && (m->kind == SP_MAP_FILE ||
	    m->kind == SP_MAP_VDSO)) {
		check_in_object(t, task, m, nr, i386, trap);
		return;
	}
	t->anon_calls++;
	miss(t, -1, m == NULL ? "" : m->path[0] ? m->path : "[anon]", trap, nr,
	    i386, m == NULL ? "in no mapping" : !(m->prot & PROT_EXEC) ?
	    "in a mapping that is not executable" : "in no object (anonymous "
	    "or JIT memory)");
}

void
trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->nobjs; i++) {
		free(t->objs[i].name);
		if (t->objs[i].ok) {
			sp_scan_free(&t->objs[i].scan);
			sp_elf_close(&t->objs[i].elf);
		}
	}
	for (size_t i = 0; i < t->nmisses; i++)
		free(t->misses[i].mapping);
	while (t->ntasks > 0)
		trace_task_drop(t, t->tasks[0].tid);
	free(t->objs);
	free(t->misses);
	free(t->tasks);
}
