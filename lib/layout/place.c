/* SPDX-License-Identifier: ISC */
/*
 * Attaching pin tables to a layout and placing the pins at run-time
 * addresses.  What the filter allows is decided here, so every doubt
 * resolves towards "no pin": a site outside its object's executable
 * mappings, a table whose build-id disagrees with the image, a table that
 * cannot be read.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/seccomp.h>

#include "layout/layout.h"
#include "layout/placement.h"
#include "elf/sites.h"

/* The legacy vsyscall page: the kernel emulates three calls at fixed
 * entry points and reports the entry itself as the instruction pointer. */
#define VSYSCALL_BASE 0xffffffffff600000ull
static const struct sp_bpf_pin vsyscall_pins[] = {
	{ .nr = 96, .ip = VSYSCALL_BASE + 0x000 },	/* gettimeofday */
	{ .nr = 201, .ip = VSYSCALL_BASE + 0x400 },	/* time */
	{ .nr = 309, .ip = VSYSCALL_BASE + 0x800 },	/* getcpu */
};

static int
push(void **v, size_t *n, size_t *cap, size_t sz, const void *e)
{
	void *nv;

	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		if ((nv = realloc(*v, *cap * sz)) == NULL)
			return -1;
		*v = nv;
	}
	memcpy((char *)*v + *n * sz, e, sz);
	(*n)++;
	return 0;
}

/* Numbers below this are x86-64's (and leave room to grow). */
#define OWN_NRS 1024

struct acc {
	struct sp_placement *pl;
	size_t cany, cranges;
	uint8_t flags;		/* SP_BPF_PIN_* of the object being placed */
	/* the numbers the object being placed issues at its resolved
	 * sites: what its unresolved ones may issue */
	uint8_t own[OWN_NRS / 8];
	bool own_done;		/* own is the object's (own_numbers) */
};

static int
pin_flags(struct sp_placement *pl, uint32_t nr, uint64_t ip, uint8_t flags)
{
	struct sp_bpf_pin p = { .nr = nr, .ip = ip, .flags = flags };

	/* A number with the x32 bit: every filter kills the x32 ABI's
	 * calls, so there is nothing to pin (a crafted program's constant
	 * made the whole image fail with a message about the filter) */
	if (nr & SP_BPF_X32_BIT)
		return 0;
	if (push((void **)&pl->pins, &pl->npins, &pl->cpins, sizeof(p),
	    &p) != 0)
		return -1;
	/* The kernel may restart this call as restart_syscall from the
	 * same instruction (numbers completed at load time included). */
	if (!sp_nr_restarts(nr))
		return 0;
	p.nr = SP_NR_RESTART_SYSCALL;
	return push((void **)&pl->pins, &pl->npins, &pl->cpins, sizeof(p),
	    &p);
}

static int
pin(struct acc *a, uint32_t nr, uint64_t ip)
{
	return pin_flags(a->pl, nr, ip, a->flags);
}

int
sp_placement_add_pin(struct sp_placement *pl, uint32_t nr, uint64_t ip)
{
	return pin_flags(pl, nr, ip, 0);
}

void
sp_placement_drop_loader_exec(struct sp_placement *pl,
    const struct sp_layout *lo)
{
	size_t i, k, o = 0;

	for (i = 0; i < pl->npins; i++) {
		const struct sp_bpf_pin *p = &pl->pins[i];
		bool drop = false;
		if (p->abi == SP_ABI_X86_64 && (p->nr == 59 || p->nr == 322))
			for (k = 0; k < lo->nranges && !drop; k++) {
				const struct sp_layout_range *r = &lo->ranges[k];
				drop = lo->objs[r->obj].loader &&
				    p->ip > r->start && p->ip <= r->end;
			}
		if (!drop)
			pl->pins[o++] = *p;
	}
	pl->npins = o;
}

static int
own_add(struct acc *a, uint32_t nr, uint64_t ip)
{
	(void)ip;
	if (nr < OWN_NRS)
		a->own[nr / 8] |= (uint8_t)(1u << (nr % 8));
	return 0;
}

/*
 * A site whose number the analysis could not read because it is loaded
 * from memory (glibc's setxid handler without libc's symbols, code
 * without unwind information) may issue what its object issues at the
 * sites it could read, those reach pruning kept and the numbers
 * importers pass to its exports included; nothing else.  "Any number
 * here" was a gadget for every call (blind round 15: a chain in a trusted
 * static busybox made symlinkat, which busybox issues nowhere).  A number
 * it really issues beyond those is a violation, named as one.  The same
 * holds for a function that takes its number as a parameter where the
 * analysis cannot read what some caller passes, or finds no caller
 * (SP_PIN_ANY_PARAM): blind round 18 made every dynamic musl program
 * (__syscall_cp_asm, whose address musl's cancellation handler compares)
 * and Free Pascal's Do_SysCall (no caller at all) issue any number.  Go's
 * number kept in a variable (fcntl64Syscall) is read by a model
 * (lib/analysis/models.c); valgrind's dispatcher cannot run pinned.
 */
static int
unresolved(struct acc *a, uint64_t ip)
{
	for (uint32_t nr = 0; nr < OWN_NRS; nr++)
		if ((a->own[nr / 8] >> (nr % 8) & 1) && pin(a, nr, ip) == -1)
			return -1;
	return 0;
}

static bool
good_table(const struct sp_object *o)
{
	return o->have_tab && !(o->tab.flags & SP_PINTAB_FAILED);
}

/*
 * Numbers importers pass to `name`, each given to fn (which may fail: -1).
 * One that passes a number nobody could tell adds nothing: "any number
 * here" for one unreadable caller would be a gadget for every call
 * (python3's ctypes.CDLL(None).syscall).
 */
static int
each_imported_nr(const struct sp_layout *lo, const char *name,
    int (*fn)(struct acc *a, uint32_t nr, uint64_t ip), struct acc *a,
    uint64_t ip)
{
	size_t i, j, k;

	for (i = 0; i < lo->nobjs; i++) {
		const struct sp_pintab *t = &lo->objs[i].tab;
		if (!good_table(&lo->objs[i]))
			continue;
		for (j = 0; j < t->nimports; j++) {
			const struct sp_pin_import *im = &t->imports[j];
			if (strcmp(t->strtab + im->name, name) != 0)
				continue;
			for (k = 0; k < im->nr_count; k++)
				if (fn(a, t->nrs[im->nr_first + k], ip) == -1)
					return -1;
		}
	}
	return 0;
}

/* a->own: what o issues at its resolved sites.  Made once per object,
 * and only for one that has an unresolved site (a start-up places every
 * object: most have none). */
static void
own_numbers(struct acc *a, const struct sp_layout *lo,
    const struct sp_object *o)
{
	memset(a->own, 0, sizeof(a->own));
	for (size_t i = 0; i < o->tab.nsites; i++) {
		const struct sp_pin_site *s = &o->tab.sites[i];

		if (s->how == SP_PIN_ANY || s->how == SP_PIN_ANY_PARAM)
			continue;
		for (size_t k = 0; k < s->nr_count; k++)
			own_add(a, o->tab.nrs[s->nr_first + k], 0);
		if (s->how == SP_PIN_EXPORT)
			(void)each_imported_nr(lo, o->tab.strtab +
			    o->tab.exports[s->export].name, own_add, a, 0);
	}
	a->own_done = true;
}

static int
place_site(struct acc *a, const struct sp_layout *lo, size_t oi,
    const struct sp_pin_site *s)
{
	const struct sp_object *o = &lo->objs[oi];
	const struct sp_pintab *t = &o->tab;
	uint64_t addr = o->base + s->addr, ip = addr + s->length;
	long r;
	size_t k;

	/* Only sites that really are in this object's executable text. */
	r = sp_layout_find(lo, addr);
	if (r == -1 || lo->ranges[r].obj != oi || ip > lo->ranges[r].end)
		return 0;
	if ((s->how == SP_PIN_ANY || s->how == SP_PIN_ANY_PARAM) &&
	    !a->own_done)
		own_numbers(a, lo, o);
	if ((s->how == SP_PIN_ANY || s->how == SP_PIN_ANY_PARAM) &&
	    unresolved(a, ip) == -1)
		return -1;
	if (s->how == SP_PIN_ANY)
		return 0;
	/* ANY_PARAM: and what its readable callers pass (its nrs) */
	for (k = 0; k < s->nr_count; k++)
		if (pin(a, t->nrs[s->nr_first + k], ip) == -1)
			return -1;
	if (s->how != SP_PIN_EXPORT)
		return 0;
	return each_imported_nr(lo, t->strtab + t->exports[s->export].name,
	    pin, a, ip);
}

static int
place_object(struct acc *a, const struct sp_layout *lo, size_t oi)
{
	const struct sp_object *o = &lo->objs[oi];
	size_t i;

	if (o->kind == SP_OBJ_VSYSCALL) {
		for (i = 0; i < sizeof(vsyscall_pins) / sizeof(*vsyscall_pins);
		    i++) {
			long r = sp_layout_find(lo, vsyscall_pins[i].ip);
			if (r != -1 && lo->ranges[r].obj == oi &&
			    pin(a, vsyscall_pins[i].nr,
			    vsyscall_pins[i].ip) == -1)
				return -1;
		}
		return 0;
	}
	if (!good_table(o))
		return 0;
	a->flags = o->loader ? SP_BPF_PIN_LOADER : 0;
	a->own_done = false;
	for (i = 0; i < o->tab.nsites; i++)
		if (place_site(a, lo, oi, &o->tab.sites[i]) == -1)
			return -1;
	return 0;
}

int
sp_layout_place(const struct sp_layout *lo, struct sp_placement *pl,
    struct sp_error *err)
{
	struct acc a = { .pl = pl };
	size_t i;

	memset(pl, 0, sizeof(*pl));
	for (i = 0; i < lo->nranges; i++) {
		struct sp_bpf_range r = { lo->ranges[i].start,
		    lo->ranges[i].end };
		if (push((void **)&pl->ranges, &pl->nranges, &a.cranges,
		    sizeof(r), &r) == -1)
			goto oom;
	}
	for (i = 0; i < lo->nobjs; i++)
		if (place_object(&a, lo, i) == -1)
			goto oom;
	return 0;
oom:
	sp_placement_free(pl);
	return sp_error_set(err, "out of memory");
}

void
sp_placement_free(struct sp_placement *pl)
{
	free(pl->pins);
	free(pl->any_ips);
	free(pl->ranges);
	memset(pl, 0, sizeof(*pl));
}

/* A table is believed only for the image it was made from. */
static int
check_table(struct sp_object *o, struct sp_error *warn)
{
	const struct sp_pintab *t = &o->tab;

	if (o->kind == SP_OBJ_FILE && memcmp(&t->id, &o->id,
	    sizeof(t->id)) != 0)
		return sp_error_set(warn, "%s: pin table is for another file",
		    o->name);
	if (t->build_id_len != o->build_id_len || memcmp(t->build_id,
	    o->build_id, t->build_id_len) != 0)
		return sp_error_set(warn, "%s: build-id differs from the pin "
		    "table's", o->name);
	return 0;
}

int
sp_layout_load(struct sp_layout *lo, const struct sp_cache *cache,
    size_t **missing, size_t *nmissing, struct sp_error *warn)
{
	size_t i, cap = 0;
	int r;

	*missing = NULL;
	*nmissing = 0;
	for (i = 0; i < lo->nobjs; i++) {
		struct sp_object *o = &lo->objs[i];
		if (o->have_tab || o->key[0] == '\0' ||
		    (o->kind != SP_OBJ_FILE && o->kind != SP_OBJ_VDSO))
			continue;
		r = sp_cache_load(cache, o->key, &o->tab, warn);
		if (r == 1 && check_table(o, warn) == -1) {
			sp_pintab_free(&o->tab);
			r = -1;
		}
		if (r == 1)
			o->have_tab = true;
		else if (r == 0 && push((void **)missing, nmissing, &cap,
		    sizeof(i), &i) == -1)
			return sp_error_set(warn, "out of memory");
	}
	return 0;
}

void
sp_placement_bpf_input(const struct sp_placement *pl, unsigned flags,
    enum sp_answers who, struct sp_bpf_input *in)
{
	memset(in, 0, sizeof(*in));
	in->pins = pl->pins;
	in->npins = pl->npins;
	in->any_ips = pl->any_ips;
	in->nany_ips = pl->nany_ips;
	in->ranges = pl->ranges;
	in->nranges = pl->nranges;
	in->band = (struct sp_bpf_range){ SP_BAND_START, SP_BAND_END };
	in->slots = pl->slots;
	in->flags = flags;
	switch (who) {
	case SP_ANSWER_SUPERVISOR:
		/* It says why once, and places new code in the band. */
		in->action = SECCOMP_RET_TRACE;
		in->refuse = SECCOMP_RET_TRACE | SP_BPF_REFUSE_DATA;
		in->deny = SECCOMP_RET_TRACE | SP_BPF_DENY_DATA;
		in->place = SECCOMP_RET_TRACE | SP_BPF_PLACE_DATA;
		in->check = SECCOMP_RET_TRACE | SP_BPF_CHECK_DATA;
		break;
	case SP_ANSWER_RUNTIME:
		in->place = SECCOMP_RET_TRAP | SP_BPF_PLACE_DATA;
		break;
	default:
		break;
	}
}
