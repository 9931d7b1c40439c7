/* SPDX-License-Identifier: ISC */
/*
 * The calling process's executable mappings, attributed to objects.
 *
 * /proc/self/maps is the authority on what is executable; dl_iterate_phdr
 * tells which object ld.so put there and at what load bias.  A mapping that
 * no loaded object claims (vsyscall, code mapped behind ld.so's back) still
 * becomes a range, of an object with no table: nothing may trap from it.
 */
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "elf/elf.h"
#include "layout/layout.h"
#include "layout/procfs.h"

#define PAGE_DOWN(a) ((a) & ~(uint64_t)4095)
#define PAGE_UP(a) (((a) + 4095) & ~(uint64_t)4095)

struct dlobj {
	uint64_t base;
	const ElfW(Phdr) *phdr;
	size_t phnum;
};

struct dlset {
	struct dlobj *v;
	size_t n, cap;
};

static int
collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct dlset *s = arg;
	struct dlobj *nv;

	(void)size;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		if ((nv = realloc(s->v, s->cap * sizeof(*nv))) == NULL)
			return 1;
		s->v = nv;
	}
	s->v[s->n].base = info->dlpi_addr;
	s->v[s->n].phdr = info->dlpi_phdr;
	s->v[s->n].phnum = info->dlpi_phnum;
	s->n++;
	return 0;
}

/* The loaded object with an executable PT_LOAD overlapping [start, end). */
static const struct dlobj *
owner(const struct dlset *s, uint64_t start, uint64_t end)
{
	size_t i, j;

	for (i = 0; i < s->n; i++) {
		const struct dlobj *o = &s->v[i];
		for (j = 0; j < o->phnum; j++) {
			const ElfW(Phdr) *ph = &o->phdr[j];
			uint64_t a, b;
			if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
				continue;
			a = PAGE_DOWN(o->base + ph->p_vaddr);
			b = PAGE_UP(o->base + ph->p_vaddr + ph->p_memsz);
			if (start < b && a < end)
				return o;
		}
	}
	return NULL;
}

/* The object a mapping belongs to: an existing one, or a new one. */
static long
object_for(struct sp_layout *lo, const struct sp_map *m,
    const struct dlobj *d)
{
	size_t i;

	for (i = 0; d != NULL && i < lo->nobjs; i++)
		if (lo->objs[i].kind != SP_OBJ_UNKNOWN &&
		    lo->objs[i].kind != SP_OBJ_VSYSCALL &&
		    lo->objs[i].base == d->base)
			return i;
	enum sp_obj_kind kind = SP_OBJ_UNKNOWN;

	if (m->kind == SP_MAP_VSYSCALL)
		kind = SP_OBJ_VSYSCALL;
	else if (d != NULL && m->kind == SP_MAP_VDSO)
		kind = SP_OBJ_VDSO;
	else if (d != NULL && m->kind == SP_MAP_FILE && !m->deleted)
		kind = SP_OBJ_FILE;
	return sp_layout_add_object(lo, m->path, kind, d != NULL ? d->base :
	    0);
}

long
sp_layout_add_object(struct sp_layout *lo, const char *name,
    enum sp_obj_kind kind, uint64_t base)
{
	struct sp_object *nv, *o;

	if ((nv = realloc(lo->objs, (lo->nobjs + 1) * sizeof(*nv))) == NULL)
		return -1;
	lo->objs = nv;
	o = &lo->objs[lo->nobjs];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->base = base;
	if ((o->name = strdup(name[0] ? name : "[anon]")) == NULL)
		return -1;
	return (long)lo->nobjs++;
}

/* File identity, trusted only when it is the file that is mapped. */
static void
identify(struct sp_object *o, const struct sp_map *m, const struct dlset *s,
    const struct dlobj *d)
{
	struct stat st;
	const void *eh;

	(void)s;
	if (o->kind == SP_OBJ_VDSO) {
		eh = (const void *)getauxval(AT_SYSINFO_EHDR);
		if (eh == NULL || (uint64_t)eh != d->base) {
			o->kind = SP_OBJ_UNKNOWN;
			return;
		}
		o->image = (uint64_t)eh;
		o->image_size = sp_mem_image_size(eh);
		o->build_id_len = sp_mem_build_id(eh, d->base, o->build_id,
		    sizeof(o->build_id));
		sp_cache_key_vdso(o->build_id, o->build_id_len, eh,
		    o->image_size, o->key, sizeof(o->key));
		return;
	}
	if (o->kind != SP_OBJ_FILE || o->have_id)
		return;
	if (stat(m->path, &st) == -1 || st.st_dev != m->dev ||
	    st.st_ino != m->inode) {
		o->kind = SP_OBJ_UNKNOWN;	/* replaced since it was mapped */
		return;
	}
	sp_file_id_from_stat(&o->id, &st);
	o->have_id = true;
	sp_cache_key_file(&o->id, o->key, sizeof(o->key));
	/* The ELF header is mapped at the base for every ld.so object
	 * we handle (ET_DYN at bias, ET_EXEC at its first PT_LOAD). */
	for (size_t j = 0; j < d->phnum; j++)
		if (d->phdr[j].p_type == PT_LOAD) {
			eh = (const void *)(d->base +
			    PAGE_DOWN(d->phdr[j].p_vaddr));
			if (d->phdr[j].p_offset == 0)
				o->build_id_len = sp_mem_build_id(eh, d->base,
				    o->build_id, sizeof(o->build_id));
			break;
		}
}

int
sp_layout_add_range(struct sp_layout *lo, uint64_t start, uint64_t end,
    size_t obj)
{
	struct sp_layout_range *nv;

	nv = realloc(lo->ranges, (lo->nranges + 1) * sizeof(*nv));
	if (nv == NULL)
		return -1;
	lo->ranges = nv;
	lo->ranges[lo->nranges++] = (struct sp_layout_range){ start, end,
	    obj };
	return 0;
}

int
sp_layout_self(struct sp_layout *lo, struct sp_error *err)
{
	struct dlset s = { NULL, 0, 0 };
	struct sp_map *maps;
	size_t nmaps, i;
	long oi;
	int ret = 0;

	memset(lo, 0, sizeof(*lo));
	if (sp_maps_read("/proc/self/maps", &maps, &nmaps, err) == -1)
		return -1;
	dl_iterate_phdr(collect, &s);
	for (i = 0; i < nmaps && ret == 0; i++) {
		const struct sp_map *m = &maps[i];
		const struct dlobj *d;
		if (!(m->prot & PROT_EXEC))
			continue;
		d = m->kind == SP_MAP_VSYSCALL ? NULL :
		    owner(&s, m->start, m->end);
		if ((oi = object_for(lo, m, d)) == -1 ||
		    sp_layout_add_range(lo, m->start, m->end, (size_t)oi) == -1) {
			ret = sp_error_set(err, "out of memory");
			break;
		}
		if (d != NULL)
			identify(&lo->objs[oi], m, &s, d);
	}
	free(s.v);
	sp_maps_free(maps, nmaps);
	if (ret == -1)
		sp_layout_free(lo);
	return ret;
}

long
sp_layout_find(const struct sp_layout *lo, uint64_t addr)
{
	size_t i;

	for (i = 0; i < lo->nranges; i++)
		if (addr >= lo->ranges[i].start && addr < lo->ranges[i].end)
			return i;
	return -1;
}

void
sp_layout_free(struct sp_layout *lo)
{
	size_t i;

	for (i = 0; i < lo->nobjs; i++) {
		free(lo->objs[i].name);
		if (lo->objs[i].have_tab)
			sp_pintab_free(&lo->objs[i].tab);
	}
	free(lo->objs);
	free(lo->ranges);
	memset(lo, 0, sizeof(*lo));
}

/*
 * The region an executable main stack (-z execstack) may grow into, as a
 * range with no pins: it grows below its start-up extent without a system
 * call, and no call may come from what it grows into.  RLIMIT_STACK deep
 * as the image starts (4 GiB when unlimited), or down to the mapping below
 * when that is nearer.  The pinner keeps the stack inside it, whatever
 * limit the program sets later: a sealed guard page at its bottom
 * (lib/supervise/pin.c, runtime/rt.c).  No region for a stack that is not
 * executable (nothing can make it so: PROT_EXEC outside the band is
 * refused), nor a deeper one: its filter outlives the image, and a region
 * reaching down to the mappings below would hold where the kernel puts
 * the objects of the next program the process execs.
 */
#define STACK_UNLIMITED (4ull << 30)

int
sp_layout_add_stack(struct sp_layout *lo, pid_t pid, struct sp_error *err)
{
	struct sp_map *maps;
	struct rlimit rl;
	char path[64];
	size_t n, i;
	uint64_t top = 0, below = 0, bottom, depth = STACK_UNLIMITED;
	bool exec = false;
	long oi;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(path, &maps, &n, err) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (maps[i].kind == SP_MAP_SPECIAL &&
		    strcmp(maps[i].path, "[stack]") == 0) {
			top = maps[i].end;
			exec = (maps[i].prot & PROT_EXEC) != 0;
		}
	for (i = 0; i < n; i++)
		if (maps[i].end <= top && maps[i].end > below &&
		    strcmp(maps[i].path, "[stack]") != 0)
			below = maps[i].end;
	sp_maps_free(maps, n);
	if (top == 0 || !exec)
		return 0;
	if (prlimit(pid, RLIMIT_STACK, NULL, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < depth)
		depth = rl.rlim_cur;
	bottom = top > depth ? (top - depth) & ~(uint64_t)4095 : 0;
	if (bottom < below)
		bottom = below;
	if ((oi = sp_layout_add_object(lo, "[stack]", SP_OBJ_UNKNOWN, 0)) < 0 ||
	    sp_layout_add_range(lo, bottom, top, (size_t)oi) == -1)
		return sp_error_set(err, "out of memory");
	return 0;
}
