/* SPDX-License-Identifier: ISC */
#include <linux/audit.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "model.h"

void
progset_make(struct progset *s, const struct sp_bpf_input *in)
{
	struct sp_error err = { "", 0 };
	char why[128];
	size_t i;

	if (sp_bpf_generate(in, &s->p, &s->n, &err) == -1)
		fail_msg("sp_bpf_generate: %s", err.msg);
	assert_true(s->n >= 1 && s->n <= 64);
	for (i = 0; i < s->n; i++) {
		if (sp_bpf_check(s->p[i].insns, s->p[i].len, why,
		    sizeof(why)) == -1)
			fail_msg("program %zu of %zu: %s", i, s->n, why);
	}
}

void
progset_free(struct progset *s)
{
	sp_bpf_free(s->p, s->n);
	memset(s, 0, sizeof(*s));
}

static uint32_t
query_arch(uint64_t *r, const struct sp_bpf_pin *p)
{
	uint64_t k = rng_below(r, 20);

	if (k == 0)
		return AUDIT_ARCH_AARCH64;
	if (k == 1)
		return (uint32_t)rng_next(r);
	if (k < 4)
		return AUDIT_ARCH_I386;
	if (p != NULL && p->abi == SP_ABI_I386 && k < 12)
		return AUDIT_ARCH_I386;
	return AUDIT_ARCH_X86_64;
}

static uint32_t
query_nr(uint64_t *r, const struct sp_bpf_pin *p)
{
	static const uint32_t odd[] = { 0, 9, 10, 30, 59, 135, 322, 329,
		520 | SP_BPF_X32_BIT, 9 | SP_BPF_X32_BIT, 11, 90, 117, 125,
		136, 192, 358, 380, 397, UINT32_MAX, 0x3fffffff, 0x40000000,
		0x80000000, 0xbfffffff, 0xc0000000, 16, 25, 56, 101, 158, 250,
		310, 311, 317, 435, 438, 163, 25 | SP_BPF_X32_BIT,
		SP_GUARD_KILL_NR, 9, 9, 10, 25, 15, 60, 157, 231, 462, 157,
		317, 159, 164, 227, 298, 298, 305, 321, 249, 41, 42, 438, 50,
		440 };
	uint64_t k = rng_below(r, 10);
	uint32_t nr;

	if (p == NULL || k >= 7)
		return k == 9 ? (uint32_t)rng_next(r) :
		    odd[rng_below(r, sizeof(odd) / sizeof(*odd))];
	nr = p->abi == SP_ABI_X32 ? p->nr | SP_BPF_X32_BIT : p->nr;
	if (k == 5)
		return nr + 1;
	if (k == 6)
		return nr - 1;
	return nr;
}

/* An address at the edges of the band, the slots or a range. */
static uint64_t
query_addr(const struct table *t, uint64_t *r)
{
	const struct sp_bpf_range *g = NULL;
	uint64_t a;

	switch (rng_below(r, 4)) {
	case 0:
		g = &t->in.band;
		break;
	case 1:
		g = &t->in.slots;
		break;
	case 2:
		if (t->nranges > 0)
			g = &t->ranges[rng_below(r, t->nranges)];
		break;
	default:
		break;
	}
	if (g == NULL)
		return SP_BAND_END - SP_BAND_MARGIN + rng_below(r, 3) - 1;
	switch (rng_below(r, 6)) {
	case 0: a = g->start; break;
	case 1: a = g->start - 1; break;
	case 2: a = g->end; break;
	case 3: a = g->end - 1; break;
	case 4: a = g->end - SP_BAND_MARGIN; break;
	default: a = g->start + rng_below(r, g->end - g->start + 1); break;
	}
	return a;
}

static uint64_t
query_ip(uint64_t *r, const struct table *t, const struct sp_bpf_pin *p)
{
	const struct sp_bpf_range *g;
	uint64_t k = rng_below(r, 16);

	if (p != NULL && k < 6)
		return p->ip;
	if (p != NULL && k < 8)
		return p->ip + (k == 6 ? 1 : -1);
	if (p != NULL && k == 8)	/* same low word, other high word */
		return p->ip ^ (1ull << (32 + rng_below(r, 32)));
	if (k == 9 && t->nany > 0)
		return t->any[rng_below(r, t->nany)] + rng_below(r, 3) - 1;
	if (k == 10 && t->npins > 0)
		return t->pins[rng_below(r, t->npins)].ip;
	if (k < 13 && t->nranges > 0) {
		g = &t->ranges[rng_below(r, t->nranges)];
		switch (rng_below(r, 5)) {
		case 0: return g->start;
		case 1: return g->start - 1;
		case 2: return g->end;
		case 3: return g->end - 1;
		default: return g->start + rng_below(r, g->end - g->start);
		}
	}
	if (k == 13)
		return rng_next(r);
	if (k == 14)
		return query_addr(t, r);
	return table_edge_ips[rng_below(r, table_nedge_ips)];
}

static uint64_t
query_arg(const struct table *t, uint64_t *r)
{
	static const uint32_t lo[] = { 0, 1, 2, 3, 4, 5, 6, 7, 0x20, 0x22,
		0x21, 0x8000, 0x400000, 0xffffffff, 0x400004, 0x8004, 0x10,
		0x12, 0x32, 0x100, 0x100002, 0x5412, 0x541c, 0x800000,
		0x800011, 8, 9, 22, 0x2001, 0x2003, 0x2004, 0x2000, 0x3,
		38, 37, 1, 5, 11, 4, 0xffffffff, 0x0100000, 0x0100008,
		0x5401, 0x5414, 0x540c, 0x540e, 0x5421, 0x5410, 0x400454ca,
		0x802c542a, 0x5437, 0x541d, 0x5441, 0x5400, 0x54ff, 0xff54,
		0x5457, 18, 0x5423 };
	uint64_t hi = rng_below(r, 4) == 0 ? rng_next(r) << 32 : 0;

	switch (rng_below(r, 8)) {
	case 0:
		return rng_next(r);
	case 1:
	case 2:
		return query_addr(t, r);
	case 3:
		return 0x1000 * rng_below(r, 64);	/* a length */
	default:
		return hi | lo[rng_below(r, sizeof(lo) / sizeof(*lo))];
	}
}

void
query_random(const struct table *t, uint64_t *r, struct seccomp_data *d)
{
	const struct sp_bpf_pin *p = NULL;
	size_t i;

	if (t->npins > 0 && rng_below(r, 5) != 0)
		p = &t->pins[rng_below(r, t->npins)];
	memset(d, 0, sizeof(*d));
	d->arch = query_arch(r, p);
	d->nr = (int)query_nr(r, p);
	d->instruction_pointer = query_ip(r, t, p);
	for (i = 0; i < 6; i++)
		d->args[i] = query_arg(t, r);
}

static void
show(const struct seccomp_data *d, uint32_t want, uint32_t got)
{
	print_message("arch %#x nr %#x ip %#llx args %#llx %#llx %#llx "
	    "%#llx %#llx: model %#x filter %#x\n", d->arch, (unsigned)d->nr,
	    (unsigned long long)d->instruction_pointer,
	    (unsigned long long)d->args[0], (unsigned long long)d->args[1],
	    (unsigned long long)d->args[2], (unsigned long long)d->args[3],
	    (unsigned long long)d->args[4], want, got);
}

size_t
compare_many(const struct table *t, const struct progset *s, uint64_t *r,
    size_t nq, size_t *max_steps)
{
	struct seccomp_data d;
	size_t i, bad = 0, steps;
	uint32_t want, got;

	*max_steps = 0;
	for (i = 0; i < nq; i++) {
		query_random(t, r, &d);
		want = model_verdict(&t->in, &d);
		got = sp_bpf_run_all(s->p, s->n, &d, &steps);
		if (steps > *max_steps)
			*max_steps = steps;
		if (want != got && bad++ < 5)
			show(&d, want, got);
	}
	return bad;
}
