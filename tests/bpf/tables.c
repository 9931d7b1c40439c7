/* SPDX-License-Identifier: ISC */
#include <linux/seccomp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h"

const uint64_t table_edge_ips[] = {
	0, 1, 2, 0xffffffffull, 0x100000000ull, 0x100000001ull,
	0x7fffffffffffull, 0x800000000000ull, 0x7ffffffff000ull,
	0xffffffffff600000ull, 0xffffffffff600400ull, UINT64_MAX,
	UINT64_MAX - 1, 0x555555554000ull, 0x7f0000000000ull,
};
const size_t table_nedge_ips = sizeof(table_edge_ips) /
    sizeof(table_edge_ips[0]);

uint64_t
rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

uint64_t
rng_below(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
}

static void *
xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (p == NULL)
		abort();
	return p;
}

static void
finish(struct table *t)
{
	memset(&t->in, 0, sizeof(t->in));
	t->in.pins = t->pins;
	t->in.npins = t->npins;
	t->in.any_ips = t->any;
	t->in.nany_ips = t->nany;
	t->in.ranges = t->ranges;
	t->in.nranges = t->nranges;
}

/* Ranges that straddle high-word boundaries, sit at 0 or at the top. */
static void
random_ranges(struct table *t, uint64_t *r)
{
	static const uint64_t bases[] = {
		0x7ffffffe0000ull, 0xffff0000ull, 0x555555554000ull,
		0x7f0000000000ull, 0, 0xffffffffff600000ull,
		0x7ffd00000000ull, 0x400000ull,
	};
	size_t i;

	t->nranges = 1 + rng_below(r, 4);
	t->ranges = xcalloc(t->nranges, sizeof(*t->ranges));
	for (i = 0; i < t->nranges; i++) {
		uint64_t b = bases[rng_below(r, 8)];
		uint64_t len = 0x1000 + rng_below(r, 0x400000);
		if (b == 0x7f0000000000ull)
			b += rng_below(r, 1ull << 36) & ~0xfffull;
		if (b + len < b)
			len = UINT64_MAX - b;
		t->ranges[i] = (struct sp_bpf_range){ b, b + len };
	}
}

static uint64_t
random_ip(const struct table *t, uint64_t *r)
{
	const struct sp_bpf_range *g;

	if (rng_below(r, 10) == 0)
		return rng_below(r, 2) ? rng_next(r) :
		    table_edge_ips[rng_below(r, table_nedge_ips)];
	g = &t->ranges[rng_below(r, t->nranges)];
	return g->start + rng_below(r, g->end - g->start);
}

static uint32_t
random_nr(uint64_t *r, size_t pool, int abi)
{
	static const uint32_t odd[] = { 0, 9, 10, 30, 59, 135, 322, 329,
		0x3fffffff, 0x80000000, 0xbfffffff, 11, 90, 117, 125, 192,
		16, 25, 56, 101, 158, 250, 310, 317, 435, 438, 163,
		SP_GUARD_KILL_NR };
	const size_t nodd = sizeof(odd) / sizeof(*odd);

	if (rng_below(r, 6) == 0) {
		uint32_t nr = odd[rng_below(r, nodd)];
		return abi == SP_ABI_X86_64 ? nr & ~SP_BPF_X32_BIT : nr;
	}
	if (abi == SP_ABI_X32)
		return (uint32_t)rng_below(r, 600) |
		    (rng_below(r, 2) ? SP_BPF_X32_BIT : 0);
	return (uint32_t)rng_below(r, pool);
}

/* The band most of the time (sometimes none, or a small one that leaves
 * no room), the slots after one of the ranges half of the time. */
static void
random_areas(struct table *t, uint64_t *r)
{
	const struct sp_bpf_range *g;
	uint64_t k = rng_below(r, 8);

	if (k < 6)
		t->in.band = (struct sp_bpf_range){ SP_BAND_START,
		    SP_BAND_END };
	else if (k == 6)
		t->in.band = (struct sp_bpf_range){ 0x200000000000ull,
		    0x200000000000ull + (rng_below(r, 3) << 32) };
	if (rng_below(r, 2) == 0)
		return;
	g = &t->ranges[rng_below(r, t->nranges)];
	t->in.slots.start = g->start;
	t->in.slots.end = g->start + 0x1000 * (1 + rng_below(r, 0x800));
	if (t->in.slots.end < t->in.slots.start)
		t->in.slots.end = UINT64_MAX;
}

/*
 * Narrowing a third of the time: a deny list (pinned numbers, the
 * exempt ones, numbers nobody pins) or, less often, an allow list.
 */
static void
random_narrow(struct table *t, uint64_t *r, size_t pool)
{
	static const uint32_t special[] = { 15, 60, 157, 231, 317, 462, 9,
		10, 16, 59, 0, SP_GUARD_KILL_NR, 0x3fffffff };
	static const uint32_t answers[] = { 0, SECCOMP_RET_KILL_PROCESS,
		SECCOMP_RET_ERRNO | 1, SECCOMP_RET_ERRNO | 38,
		SECCOMP_RET_TRACE | SP_BPF_NARROW_DATA, SECCOMP_RET_LOG };
	size_t i, n;

	if (rng_below(r, 3) != 0)
		return;
	n = rng_below(r, 60);
	t->narrow = xcalloc(n, sizeof(*t->narrow));
	for (i = 0; i < n; i++) {
		uint64_t k = rng_below(r, 4);
		const struct sp_bpf_pin *p = t->npins > 0 ?
		    &t->pins[rng_below(r, t->npins)] : NULL;
		if (k == 0)
			t->narrow[i] = special[rng_below(r, sizeof(special) /
			    sizeof(*special))];
		else if (k == 1 && p != NULL && p->abi == SP_ABI_X86_64 &&
		    p->nr < SP_BPF_X32_BIT)
			t->narrow[i] = p->nr;
		else
			t->narrow[i] = (uint32_t)rng_below(r, pool + 10);
	}
	t->nnarrow = n;
	t->in.narrow = (struct sp_bpf_narrow){ t->narrow, n,
	    rng_below(r, 4) == 0 };
	t->in.narrowed = answers[rng_below(r, 6)];
}

void
table_random(struct table *t, uint64_t *r, size_t npins)
{
	static const uint32_t actions[] = { 0, 0, SECCOMP_RET_KILL_PROCESS,
		SECCOMP_RET_LOG, SECCOMP_RET_ERRNO | 5, SECCOMP_RET_TRAP,
		SECCOMP_RET_TRACE | 7 };
	static const uint32_t answers[] = { 0, SECCOMP_RET_ERRNO | 13,
		SECCOMP_RET_TRACE | SP_BPF_REFUSE_DATA,
		SECCOMP_RET_TRACE | SP_BPF_DENY_DATA,
		SECCOMP_RET_TRACE | SP_BPF_PLACE_DATA,
		SECCOMP_RET_TRAP | SP_BPF_PLACE_DATA };
	size_t i, pool = npins / 3 + 2;

	memset(t, 0, sizeof(*t));
	random_ranges(t, r);
	t->npins = npins;
	t->pins = xcalloc(npins, sizeof(*t->pins));
	for (i = 0; i < npins; i++) {
		struct sp_bpf_pin *p = &t->pins[i];
		uint64_t k = rng_below(r, 100);
		p->abi = k < 85 ? SP_ABI_X86_64 : k < 93 ? SP_ABI_I386 :
		    SP_ABI_X32;
		p->nr = random_nr(r, pool, p->abi);
		p->flags = rng_below(r, 6) == 0 ? SP_BPF_PIN_LOADER : 0;
		/* reuse sites: one site, several numbers; repeats */
		p->ip = i > 0 && rng_below(r, 5) == 0 ?
		    t->pins[rng_below(r, i)].ip : random_ip(t, r);
	}
	t->nany = rng_below(r, 6);
	t->any = xcalloc(t->nany, sizeof(*t->any));
	for (i = 0; i < t->nany; i++)
		t->any[i] = npins > 0 && rng_below(r, 3) == 0 ?
		    t->pins[rng_below(r, npins)].ip : random_ip(t, r);
	finish(t);
	t->in.flags = (unsigned)rng_below(r, 16384);
	t->in.action = actions[rng_below(r, 7)];
	t->in.refuse = answers[rng_below(r, 3)];
	t->in.deny = answers[rng_below(r, 4) == 0 ? 3 : 0];
	t->in.place = answers[rng_below(r, 6)];
	t->in.check = rng_below(r, 3) == 0 ? SECCOMP_RET_TRACE |
	    SP_BPF_CHECK_DATA : 0;
	random_areas(t, r);
	random_narrow(t, r, pool);
}

struct object {
	uint64_t start, end;
	size_t share;		/* per mille of the sites */
};

static const struct object objects[] = {
	{ 0x555555556000ull, 0x555555570000ull, 10 },	/* exe */
	{ 0x7f3a8c028000ull, 0x7f3a8c1ad000ull, 880 },	/* libc */
	{ 0x7f3a8c1e1000ull, 0x7f3a8c207000ull, 100 },	/* ld.so */
	{ 0x7ffd4a3fe000ull, 0x7ffd4a400000ull, 10 },	/* vDSO */
};

static uint64_t
object_ip(uint64_t *r)
{
	uint64_t k = rng_below(r, 1000), acc = 0;
	size_t i;

	for (i = 0; i < 3; i++)
		if (k < (acc += objects[i].share))
			break;
	return objects[i].start + rng_below(r, objects[i].end -
	    objects[i].start - 2) + 2;
}

static void
add_pin(struct table *t, uint32_t nr, uint64_t ip)
{
	t->pins[t->npins++] = (struct sp_bpf_pin){ nr, ip, SP_ABI_X86_64, 0 };
}

void
table_realistic(struct table *t, uint64_t seed)
{
	static const uint32_t heavy[][2] = { { 202, 35 }, { 14, 20 },
		{ 0, 14 }, { 1, 14 }, { 3, 10 }, { 13, 8 }, { 9, 3 } };
	uint64_t r = seed ? seed : 1;
	uint32_t nrs[250];
	size_t i, j, n = 0;

	memset(t, 0, sizeof(*t));
	t->pins = xcalloc(520, sizeof(*t->pins));
	for (i = 0; i < 7; i++) {
		nrs[n++] = heavy[i][0];
		for (j = 0; j < heavy[i][1]; j++)
			add_pin(t, heavy[i][0], object_ip(&r));
	}
	add_pin(t, 202, objects[2].start + 0x1234);	/* futex in ld.so */
	add_pin(t, 202, objects[2].start + 0x2345);
	add_pin(t, 202, objects[0].start + 0x42);	/* and in the exe */
	for (i = 0; n < 250; i++)	/* numbers 0..334, 424..450 */
		if (i != 202 && i != 14 && i > 3 && i != 13 && i != 9 &&
		    (i < 335 || (i >= 424 && i < 451)) && i % 7 != 5)
			nrs[n++] = (uint32_t)i;
	for (i = 7; i < 250; i++)
		add_pin(t, nrs[i], object_ip(&r));
	while (t->npins < 495)
		add_pin(t, nrs[7 + rng_below(&r, 243)], object_ip(&r));
	for (i = 0; i < 3; i++)		/* vDSO fallbacks */
		add_pin(t, i == 0 ? 228 : i == 1 ? 96 : 318,
		    objects[3].start + 0x100 * (i + 1));
	t->nany = 12;
	t->any = xcalloc(t->nany, sizeof(*t->any));
	for (i = 0; i < t->nany; i++)
		t->any[i] = object_ip(&r);
	t->nranges = 4;
	t->ranges = xcalloc(4, sizeof(*t->ranges));
	for (i = 0; i < 4; i++)
		t->ranges[i] = (struct sp_bpf_range){ objects[i].start,
		    objects[i].end };
	finish(t);
	t->in.band = (struct sp_bpf_range){ SP_BAND_START, SP_BAND_END };
}

void
table_free(struct table *t)
{
	free(t->pins);
	free(t->any);
	free(t->ranges);
	free(t->narrow);
	memset(t, 0, sizeof(*t));
}
