/* SPDX-License-Identifier: ISC */
/*
 * An image of a program that already has a filter in the process (a
 * server re-exec'ing itself on reload, `exec "$0"` wrappers, a chain of
 * shells) is moved, before its first instruction, to the addresses that
 * filter pins, and judged by it: nothing is installed.  So the cost of a
 * call does not grow with the execs of one program, and the kernel's
 * 32768-instruction total is spent once per program, not once per exec.
 *
 * "The same program" means: the same executable file, interpreter and
 * vDSO, and the same start-up objects predicted (the same environment's
 * worth of LD_LIBRARY_PATH and LD_PRELOAD).  The kernel has just mapped
 * the executable, ld.so and the vDSO (with its data pages) at random
 * addresses; each is moved with mremap(2) to where the earlier image had
 * it, when all of that room is free, and the auxiliary vector on the new
 * stack (AT_PHDR, AT_ENTRY, AT_BASE, AT_SYSINFO_EHDR) and the entry
 * register follow.  ld.so then maps the start-up objects into the earlier
 * image's slots.  /proc/PID/auxv keeps the kernel's first values.  An
 * executable stack is not moved and its growth would not be covered by
 * the earlier filter: such an image is pinned afresh, as one with any
 * other executable mapping.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pin_int.h"
#include "layout/procfs.h"

#define AUXV_SCAN (64u << 10)	/* argv, envp and auxv live below this */

/* One mapping to move, by the delta of the object it belongs to. */
struct move {
	uint64_t start, end;
	int64_t delta;
};

struct plan {
	int64_t d_exe, d_interp, d_vdso;
	struct move *m;
	size_t n;
};

/* The object of kind with this file identity (or the loader, the vDSO). */
static const struct sp_object *
find(const struct sp_layout *lo, enum sp_obj_kind kind, bool loader,
    const struct sp_file_id *id)
{
	for (size_t i = 0; i < lo->nobjs; i++) {
		const struct sp_object *o = &lo->objs[i];
		if (o->kind != kind || o->loader != loader)
			continue;
		if (id == NULL || (o->have_id && o->id.dev == id->dev &&
		    o->id.ino == id->ino && o->id.size == id->size &&
		    o->id.mtime_sec == id->mtime_sec &&
		    o->id.mtime_nsec == id->mtime_nsec &&
		    o->id.ctime_sec == id->ctime_sec &&
		    o->id.ctime_nsec == id->ctime_nsec))
			return o;
	}
	return NULL;
}

static bool
same_vdso(const struct sp_object *a, const struct sp_object *b)
{
	return a->build_id_len == b->build_id_len && a->image_size ==
	    b->image_size && memcmp(a->build_id, b->build_id,
	    a->build_id_len) == 0;
}

static bool
same_slots(const struct job *j, const struct sp_pin_result *a)
{
	if (j->nslots != a->nslots)
		return false;
	for (size_t i = 0; i < j->nslots; i++)
		if (j->slots[i].id.dev != a->slots[i].id.dev ||
		    j->slots[i].id.ino != a->slots[i].id.ino ||
		    j->slots[i].base != a->slots[i].base - a->slot_lo)
			return false;
	return true;
}

/* The executable's identity, from the file the kernel mapped. */
static int
exe_id(pid_t pid, struct sp_file_id *id)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	if (stat(path, &st) == -1)
		return -1;
	sp_file_id_from_stat(id, &st);
	return 0;
}

/* The deltas, when a is the same program as the image being pinned. */
static bool
deltas(const struct job *j, const struct sp_pin_result *a, struct plan *p)
{
	const struct sp_object *be, *ae, *bi, *ai = NULL, *bv, *av;
	struct sp_file_id id;

	if (exe_id(j->pid, &id) == -1 || !same_slots(j, a) ||
	    (be = find(&j->lo, SP_OBJ_FILE, false, &id)) == NULL ||
	    (ae = find(&a->lo, SP_OBJ_FILE, false, &id)) == NULL ||
	    (bv = find(&j->lo, SP_OBJ_VDSO, false, NULL)) == NULL ||
	    (av = find(&a->lo, SP_OBJ_VDSO, false, NULL)) == NULL ||
	    !same_vdso(av, bv))
		return false;
	bi = find(&j->lo, SP_OBJ_FILE, true, NULL);
	if (bi != NULL && (ai = find(&a->lo, SP_OBJ_FILE, true, &bi->id)) ==
	    NULL)
		return false;
	if ((bi == NULL) != (find(&a->lo, SP_OBJ_FILE, true, NULL) == NULL))
		return false;
	p->d_exe = (int64_t)(ae->base - be->base);
	p->d_interp = bi != NULL ? (int64_t)(ai->base - bi->base) : 0;
	p->d_vdso = (int64_t)(av->image - bv->image);
	return true;
}

static bool
is_file(const struct sp_map *m, const struct sp_object *o)
{
	return o != NULL && m->kind == SP_MAP_FILE && !m->deleted &&
	    m->dev == o->id.dev && m->inode == o->id.ino;
}

static bool
is_vdso(const struct sp_map *m)
{
	return m->kind == SP_MAP_VDSO || (m->kind == SP_MAP_SPECIAL &&
	    strncmp(m->path, "[vvar", 5) == 0);
}

/*
 * What moves: the executable's and ld.so's mappings (with the anonymous
 * bss that follows each), the vDSO and its data pages.  Nothing else may
 * be where they go, and the stack must not be executable.
 */
/* Whether [start, end) is code the earlier image had there: its filter
 * judges calls from it.  Anything else (a segment the file now maps
 * executable that was not, however the file came to differ) would be
 * judged by no one. */
static bool
covered(const struct sp_pin_result *a, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < a->lo.nranges; i++)
		if (a->lo.ranges[i].start <= start && end <= a->lo.ranges[i].end)
			return true;
	return false;
}

static int
make_plan(const struct job *j, const struct sp_pin_result *a,
    struct plan *p, struct sp_map *m, size_t n)
{
	const struct sp_object *exe = NULL, *interp;
	struct sp_file_id id;
	int64_t last = 0;
	bool follow = false;
	size_t i, k;

	if (exe_id(j->pid, &id) == -1 ||
	    (exe = find(&j->lo, SP_OBJ_FILE, false, &id)) == NULL)
		return -1;
	interp = find(&j->lo, SP_OBJ_FILE, true, NULL);
	if ((p->m = calloc(n + 1, sizeof(*p->m))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		int64_t d = is_file(&m[i], exe) ? p->d_exe :
		    is_file(&m[i], interp) ? p->d_interp :
		    is_vdso(&m[i]) ? p->d_vdso : 0;
		bool bss = follow && m[i].kind == SP_MAP_ANON &&
		    m[i].start == m[i - 1].end;
		if (m[i].kind == SP_MAP_SPECIAL && (m[i].prot & PROT_EXEC) &&
		    strcmp(m[i].path, "[stack]") == 0)
			return -1;
		if (d == 0 && bss)
			d = last;
		/* code the earlier filter knows nothing of (the kernel maps
		 * page 0 r-x for MMAP_PAGE_ZERO): pinned afresh, it is a
		 * range with no pins */
		if (d == 0 && (m[i].prot & PROT_EXEC) &&
		    m[i].kind != SP_MAP_VSYSCALL)
			return -1;
		if (d != 0 && (m[i].prot & PROT_EXEC) &&
		    !covered(a, m[i].start + (uint64_t)d, m[i].end + (uint64_t)d))
			return -1;
		follow = d != 0 && !is_vdso(&m[i]);
		last = d;
		if (d != 0)
			p->m[p->n++] = (struct move){ m[i].start, m[i].end, d };
	}
	/* every target is free now */
	for (k = 0; k < p->n; k++)
		for (i = 0; i < n; i++)
			if (p->m[k].start + p->m[k].delta < m[i].end &&
			    m[i].start < p->m[k].end + p->m[k].delta)
				return -1;
	return 0;
}

static int
move_all(struct job *j, const struct plan *p, struct sp_error *err)
{
	uint64_t args[6];
	long ret;

	for (size_t k = 0; k < p->n; k++) {
		uint64_t len = p->m[k].end - p->m[k].start;
		uint64_t to = p->m[k].start + p->m[k].delta;
		args[0] = p->m[k].start;
		args[1] = len;
		args[2] = len;
		args[3] = MREMAP_MAYMOVE | MREMAP_FIXED;
		args[4] = to;
		args[5] = 0;
		if (sp_inject_syscall(&j->in, SYS_mremap, args, 6, &ret,
		    err) == -1)
			return -1;
		if ((uint64_t)ret != to)
			return sp_error_set(err, "moving 0x%llx to 0x%llx: %s",
			    (unsigned long long)p->m[k].start,
			    (unsigned long long)to, ret < 0 && ret > -4096 ?
			    strerror((int)-ret) : "moved elsewhere");
		/* our calls' instruction may have moved with it */
		if (j->in.trap >= p->m[k].start && j->in.trap < p->m[k].end)
			j->in.trap += (uint64_t)p->m[k].delta;
	}
	return 0;
}

/*
 * The auxiliary vector on the new stack: argc, argv, 0, envp, 0, auxv,
 * all between the stack pointer and the end of the stack's mapping.
 */
static int
patch_auxv(struct job *j, const struct plan *p, uint64_t end,
    struct sp_error *err)
{
	uint64_t *w, sp = j->regs.rsp;
	size_t n, i;
	int r = -1;

	if (end <= sp || end - sp < 64)
		return sp_error_set(err, "no stack above 0x%llx",
		    (unsigned long long)sp);
	n = (size_t)((end - sp < AUXV_SCAN ? end - sp : AUXV_SCAN) / 8);
	if ((w = calloc(n, 8)) == NULL)
		return sp_error_set(err, "out of memory");
	if (sp_mem_read(j->pid, sp, w, n * 8, err) == -1)
		goto out;
	i = w[0] < n ? 1 + w[0] + 1 : n;	/* past argc, argv, NULL */
	while (i < n && w[i] != 0)		/* envp */
		i++;
	for (i++; i + 1 < n && w[i] != AT_NULL; i += 2) {
		if (w[i] == AT_PHDR || w[i] == AT_ENTRY)
			w[i + 1] += p->d_exe;
		else if (w[i] == AT_BASE && w[i + 1] != 0)
			w[i + 1] += p->d_interp;
		else if (w[i] == AT_SYSINFO_EHDR)
			w[i + 1] += p->d_vdso;
	}
	if (i + 1 >= n)
		sp_error_set(err, "no end of the auxiliary vector");
	else
		r = sp_mem_write(j->pid, sp, w, (i + 2) * 8, err);
out:
	free(w);
	return r;
}

/* The end of the mapping holding addr (0: none). */
static uint64_t
map_end(const struct sp_map *m, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].start <= addr && addr < m[i].end)
			return m[i].end;
	return 0;
}

int
sp_pin_reuse(struct job *j, const struct sp_pin_result *a, struct sp_error *err)
{
	struct plan p;
	struct sp_map *m;
	char path[64];
	uint64_t end;
	size_t n;
	int r;

	memset(&p, 0, sizeof(p));
	if (!deltas(j, a, &p))
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)j->pid);
	if (sp_maps_read(path, &m, &n, err) == -1)
		return -1;
	r = make_plan(j, a, &p, m, n) == -1 ? 0 : 1;
	end = map_end(m, n, j->regs.rsp);
	sp_maps_free(m, n);
	if (r == 1 && (move_all(j, &p, err) == -1 ||
	    patch_auxv(j, &p, end, err) == -1))
		r = -1;
	if (r == 1) {
		j->regs.rip += j->aux.base != 0 ? p.d_interp : p.d_exe;
		j->aux.entry += p.d_exe;
	}
	free(p.m);
	return r;
}
