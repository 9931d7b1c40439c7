/* SPDX-License-Identifier: ISC */
/*
 * Generated programs against the reference model (model.c), run by the
 * evaluator (lib/bpf/eval.c): random tables of every size, including tables
 * whose filter must be split, random and edge-case calls.  Fixed seeds.
 */
#include <linux/audit.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "model.h"

static void
run_random(uint64_t seed, size_t npins, size_t ntables, size_t nq,
    size_t *most_progs)
{
	struct progset s;
	struct table t;
	uint64_t r = seed;
	size_t i, j, steps, bad;

	*most_progs = 0;
	for (i = 0; i < ntables; i++) {
		table_random(&t, &r, npins);
		progset_make(&s, &t.in);
		for (j = 0; j < s.n; j++)
			assert_true(s.p[j].len <= BPF_MAXINSNS);
		if (s.n > *most_progs)
			*most_progs = s.n;
		bad = compare_many(&t, &s, &r, nq, &steps);
		if (bad != 0)
			fail_msg("seed %#llx table %zu (%zu pins, flags %#x, "
			    "action %#x, %zu programs): %zu of %zu calls "
			    "disagree", (unsigned long long)seed, i, npins,
			    t.in.flags, t.in.action, s.n, bad, nq);
		progset_free(&s);
		table_free(&t);
	}
}

static void
test_random_small(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 5, 8, 20, 60 };
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		run_random(0x5eed0000 + i, sizes[i], 40, 1500, &n);
}

static void
test_random_medium(void **state)
{
	size_t n;

	(void)state;
	run_random(0xfeed1, 300, 12, 4000, &n);
	run_random(0xfeed2, 900, 6, 4000, &n);
}

/* Tables far over BPF_MAXINSNS: split, and still the same policy. */
static void
test_random_split(void **state)
{
	size_t n;

	(void)state;
	run_random(0x5b117, 3000, 3, 6000, &n);
	assert_true(n >= 2);
	run_random(0x5b118, 7000, 2, 6000, &n);
	assert_true(n >= 4);
}

static bool
memchr_u32(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* The most instructions a pinned call without argument rule runs: the
 * common case, every read, write or futex of a process. */
static size_t
pinned_steps(const struct table *t, const struct progset *s)
{
	struct seccomp_data d;
	size_t i, steps, most = 0;

	static const uint32_t ruled[] = { 9, 10, 16, 25, 30, 56, 59, 101,
		135, 158, 250, 310, 311, 317, 322, 329, 435, 438 };

	for (i = 0; i < t->npins; i++) {
		if (memchr_u32(ruled, sizeof(ruled) / sizeof(*ruled),
		    t->pins[i].nr))
			continue;
		memset(&d, 0, sizeof(d));
		d.arch = AUDIT_ARCH_X86_64;
		d.nr = (int)t->pins[i].nr;
		d.instruction_pointer = t->pins[i].ip;
		sp_bpf_run_all(s->p, s->n, &d, &steps);
		if (steps > most)
			most = steps;
	}
	return most;
}

/* A real process: one program, few executed instructions. */
static void
test_realistic_path(void **state)
{
	static const unsigned flags[] = { 0, SP_BPF_STRICT, SP_BPF_ALLOW_JIT,
		SP_BPF_STRICT | SP_BPF_ALLOW_JIT, SP_BPF_AUDIT };
	struct progset s;
	struct table t;
	uint64_t r = 42;
	size_t i, seed, path, steps;

	(void)state;
	for (seed = 1; seed <= 8; seed++)
		for (i = 0; i < sizeof(flags) / sizeof(*flags); i++) {
			table_realistic(&t, seed);
			t.in.flags = flags[i];
			progset_make(&s, &t.in);
			assert_int_equal(s.n, 1);
			path = sp_bpf_path_max(&s.p[0]);
			if (seed == 1)
				print_message("realistic table (%zu pins), "
				    "flags %#x: %zu instructions, worst "
				    "path %zu\n", t.npins, flags[i],
				    s.p[0].len, path);
			/* the rare paths: an mmap of a loader site checked
			 * against the band and the slots, an mremap's old
			 * range (its end computed, its segment found) */
			assert_true(path < 80);
			/* 25 before the prefilter (+7: ip inside the image?) */
			if (pinned_steps(&t, &s) > 33)
				fail_msg("a pinned call runs %zu instructions",
				    pinned_steps(&t, &s));
			assert_int_equal(compare_many(&t, &s, &r, 5000,
			    &steps), 0);
			assert_true(steps <= path);
			progset_free(&s);
			table_free(&t);
		}
}

/* Hand-picked calls around 32-bit boundaries of the instruction pointer. */
static void
test_edges(void **state)
{
	static const struct sp_bpf_pin pins[] = {
		{ 1, 0xffffffffull, SP_ABI_X86_64, 0 },
		{ 1, 0x100000000ull, SP_ABI_X86_64, 0 },
		{ 1, 0x7fffffffffffull, SP_ABI_X86_64, 0 },
		{ 0, 0x800000000000ull, SP_ABI_X86_64, 0 },
		{ 0x3fffffff, UINT64_MAX, SP_ABI_X86_64, 0 },
		{ 39, 0x100000002ull, SP_ABI_X32, 0 },
		{ 20, 0x100000002ull, SP_ABI_I386, 0 },
		{ 9, 0x100000010ull, SP_ABI_X86_64, 0 },
	};
	static const struct sp_bpf_range ranges[] = {
		{ 0xfffff000ull, 0x100001000ull },
		{ 0x7ffffffff000ull, 0x800000001000ull },
	};
	static const uint64_t any[] = { 0x100000004ull };
	static const uint64_t ips[] = { 0, 0xfffff000ull, 0xffffefffull,
		0xfffffffeull, 0xffffffffull, 0x100000000ull, 0x100000001ull,
		0x100000002ull, 0x100000004ull, 0x100000010ull,
		0x100000fffull, 0x100001000ull, 0x1ffffffffull,
		0x7fffffffffffull, 0x800000000000ull, 0x7ffeffffffffull,
		0x800000000fffull, 0x800000001000ull, UINT64_MAX,
		UINT64_MAX - 1, 0x7fff00000000ull, 0x8000ffffffffull };
	static const uint32_t nrs[] = { 0, 1, 2, 9, 10, 20, 39,
		39 | SP_BPF_X32_BIT, 0x3fffffff, 0x40000000, UINT32_MAX };
	static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386,
		AUDIT_ARCH_AARCH64 };
	struct sp_bpf_input in = { .pins = pins,
	    .npins = sizeof(pins) / sizeof(*pins), .any_ips = any,
	    .nany_ips = 1, .ranges = ranges, .nranges = 2,
	    .band = { SP_BAND_START, SP_BAND_END } };
	struct seccomp_data d;
	struct progset s;
	size_t f, a, n, i, bad = 0;
	uint32_t want, got;

	(void)state;
	for (f = 0; f < 128; f++) {
		in.flags = (unsigned)f;
		progset_make(&s, &in);
		for (a = 0; a < 3; a++)
			for (n = 0; n < sizeof(nrs) / sizeof(*nrs); n++)
				for (i = 0; i < sizeof(ips) / sizeof(*ips);
				    i++) {
					memset(&d, 0, sizeof(d));
					d.arch = arches[a];
					d.nr = (int)nrs[n];
					d.instruction_pointer = ips[i];
					d.args[2] = 7;
					want = model_verdict(&in, &d);
					got = sp_bpf_run_all(s.p, s.n, &d,
					    NULL);
					if (want != got && bad++ < 5)
						print_message("flags %zu arch "
						    "%#x nr %#x ip %#llx: %#x "
						    "!= %#x\n", f, d.arch,
						    (unsigned)d.nr,
						    (unsigned long long)ips[i],
						    want, got);
				}
		progset_free(&s);
	}
	assert_int_equal(bad, 0);
}

static uint32_t
verdict(const struct progset *s, uint32_t arch, uint32_t nr, uint64_t ip,
    uint64_t a0, uint64_t a2, uint64_t a3)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = arch,
	    .instruction_pointer = ip, .args = { a0, 0, a2, a3, 0, 0 } };

	return sp_bpf_run_all(s->p, s->n, &d, NULL);
}

#define X64 AUDIT_ARCH_X86_64
#define KILL SECCOMP_RET_KILL_PROCESS
#define OK SECCOMP_RET_ALLOW
#define NOPE (SECCOMP_RET_ERRNO | EACCES)

#define EPERM_ (SECCOMP_RET_ERRNO | EPERM)
#define BAND SP_BAND_START

static uint32_t
vcall(const struct progset *s, uint32_t nr, uint64_t ip, uint64_t a0,
    uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = X64,
	    .instruction_pointer = ip, .args = { a0, a1, a2, a3, a4, 0 } };

	return sp_bpf_run_all(s->p, s->n, &d, NULL);
}

/* The policy stated directly, without the model. */
static void
test_spot_checks(void **state)
{
	static const struct sp_bpf_pin pins[] = {
		{ 39, 0x401002, 0, 0 }, { 9, 0x401010, 0, 0 },
		{ 10, 0x401020, 0, 0 }, { 59, 0x401030, 0, 0 },
		{ 135, 0x401040, 0, 0 }, { 9, 0x401050, 0, SP_BPF_PIN_LOADER },
		{ 16, 0x401060, 0, 0 }, { 25, 0x401070, 0, 0 },
		{ 317, 0x401080, 0, 0 },
	};
	static const struct sp_bpf_range img = { 0x400000, 0x402000 };
	static const uint64_t any = 0x401100;
	struct sp_bpf_input in = { .pins = pins, .npins = 9, .any_ips = &any,
	    .nany_ips = 1, .ranges = &img, .nranges = 1,
	    .band = { SP_BAND_START, SP_BAND_END },
	    .slots = { 0x7f0000000000, 0x7f0000100000 } };
	uint64_t out = 0x7f1000001002, slot = 0x7f0000010000;
	struct progset s;

	(void)state;
	progset_make(&s, &in);
	assert_int_equal(verdict(&s, X64, 39, 0x401002, 0, 0, 0), OK);
	assert_int_equal(verdict(&s, X64, 39, 0x401000, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 39, 0x401003, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 40, 0x401002, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 39, 0x100401002, 0, 0, 0), OK);
	assert_int_equal(verdict(&s, X64, 39, out, 0, 0, 0), OK);
	assert_int_equal(verdict(&s, X64, 500, 0x401100, 0, 0, 0), OK);
	/* late code, in the band: no calls at all */
	assert_int_equal(verdict(&s, X64, 39, BAND + 0x1002, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 39, SP_BAND_END - 1, 0, 0, 0),
	    KILL);
	/* a trap in the band's, or a range's, last two bytes is theirs (ip
	 * is the address after it: blind round 9); one that starts after
	 * them is not */
	assert_int_equal(verdict(&s, X64, 39, SP_BAND_END, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 39, SP_BAND_END + 1, 0, 0, 0),
	    KILL);
	assert_int_equal(verdict(&s, X64, 39, SP_BAND_END + 2, 0, 0, 0), OK);
	assert_int_equal(verdict(&s, X64, 39, 0x402000, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 59, 0x402001, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 59, 0x402002, 0, 0, 0), OK);
	/* a vsyscall entry reports itself: a range's start is the range's */
	assert_int_equal(verdict(&s, X64, 59, 0x3fffff, 0, 0, 0), OK);
	assert_int_equal(verdict(&s, X64, 59, 0x400000, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 59, 0x400001, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 39 | SP_BPF_X32_BIT, 0x401002, 0,
	    0, 0), KILL);
	/* outside the image and the band: a later image's call, allowed */
	assert_int_equal(verdict(&s, X64, 39 | SP_BPF_X32_BIT, out, 0, 0, 0),
	    OK);
	assert_int_equal(verdict(&s, X64, 59, out, 0, 0, 0), OK);
	assert_int_equal(verdict(&s, AUDIT_ARCH_I386, 20, out, 0, 0, 0),
	    KILL);
	assert_int_equal(verdict(&s, AUDIT_ARCH_AARCH64, 39, 0x401002, 0, 0,
	    0), KILL);
	/* mmap: anonymous or writable executable memory is refused */
	assert_int_equal(verdict(&s, X64, 9, 0x401010, 0, 5, 0x22), NOPE);
	assert_int_equal(verdict(&s, X64, 9, 0x401010, 0, 7, 0x02), NOPE);
	assert_int_equal(verdict(&s, X64, 9, 0x401010, 0, 3, 0x22), OK);
	/* a file mapped executable: only in the band; placed there when
	 * no address is asked for (nobody places here: EACCES) */
	assert_int_equal(verdict(&s, X64, 9, 0x401010, 0, 5, 0x02), NOPE);
	assert_int_equal(vcall(&s, 9, 0x401010, BAND, 0x1000, 5, 0x12, 0),
	    OK);
	assert_int_equal(vcall(&s, 9, 0x401010, BAND - 0x1000, 0x1000, 5,
	    0x12, 0), NOPE);
	assert_int_equal(vcall(&s, 9, 0x401010, SP_BAND_END - SP_BAND_MARGIN,
	    0x1000, 5, 0x12, 0), NOPE);
	assert_int_equal(vcall(&s, 9, 0x401010, BAND, 1ull << 32, 5, 0x12,
	    0), NOPE);
	assert_int_equal(vcall(&s, 9, 0x401010, slot, 0x1000, 5, 0x12, 0),
	    NOPE);
	assert_int_equal(vcall(&s, 9, 0x401010, BAND, 0x1000, 5, 0x112, 0),
	    NOPE);		/* MAP_GROWSDOWN */
	/* the loader: its reservations are placed, its code may go into
	 * the slots */
	assert_int_equal(vcall(&s, 9, 0x401050, 0, 0x9000, 1, 0x02, 3),
	    NOPE);
	assert_int_equal(vcall(&s, 9, 0x401050, 0, 0x9000, 0, 0x22, 3),
	    NOPE);
	assert_int_equal(vcall(&s, 9, 0x401050, 0, 0x9000, 3, 0x22, 3), OK);
	assert_int_equal(vcall(&s, 9, 0x401050, slot, 0x1000, 5, 0x12, 3),
	    OK);
	assert_int_equal(vcall(&s, 9, 0x401050, slot, 0x1000, 1, 0x12, 3),
	    OK);
	assert_int_equal(vcall(&s, 9, 0x401050, out, 0x1000, 5, 0x12, 3),
	    NOPE);
	assert_int_equal(verdict(&s, X64, 9, out, 0, 5, 0x22), OK);
	assert_int_equal(verdict(&s, X64, 9, 0x401012, 0, 3, 0x22), KILL);
	assert_int_equal(verdict(&s, X64, 9, 0x401100, 0, 5, 0x22), NOPE);
	assert_int_equal(verdict(&s, X64, 10, 0x401020, 0, 4, 0), NOPE);
	assert_int_equal(verdict(&s, X64, 10, 0x401020, 0, 3, 0), OK);
	assert_int_equal(verdict(&s, X64, 329, 0x401100, 0, 4, 0), NOPE);
	assert_int_equal(verdict(&s, X64, 329, out, 0, 4, 0), OK);
	assert_int_equal(verdict(&s, X64, 30, 0x401100, 0, 0x8000, 0), NOPE);
	assert_int_equal(verdict(&s, X64, 135, 0x401040, 0x400000, 0, 0),
	    NOPE);
	assert_int_equal(verdict(&s, X64, 135, 0x401040, UINT32_MAX, 0, 0),
	    OK);
	assert_int_equal(verdict(&s, X64, 59, 0x401030, 0, 0, 0), OK);
	/* mremap: the image's code stays, band memory stays in the band */
	assert_int_equal(vcall(&s, 25, 0x401070, 0x401000, 0x1000, 0x1000,
	    3, 0x9000000), NOPE);
	assert_int_equal(vcall(&s, 25, 0x401070, 0x9000000, 0x1000, 0x2000,
	    3, 0x401000), OK);
	assert_int_equal(vcall(&s, 25, 0x401070, BAND, 0x1000, 0x2000, 3,
	    0x9000000), NOPE);
	assert_int_equal(vcall(&s, 25, 0x401070, BAND, 0x1000, 0x2000, 1,
	    0), NOPE);
	assert_int_equal(vcall(&s, 25, 0x401070, BAND, 0x1000, 0x2000, 0,
	    0), OK);
	assert_int_equal(vcall(&s, 25, 0x401070, BAND, 0x1000, 0x2000, 3,
	    BAND + 0x100000), OK);
	/* the old range whole (Linux 6.17 moves every mapping in it): from
	 * below the band into it, or from the band past its end, or over
	 * the image, or wrapping, is refused; within its segment, allowed */
	assert_int_equal(vcall(&s, 25, 0x401070, BAND - 0x1000, 0x2000,
	    0x2000, 3, 0x9000000), NOPE);
	assert_int_equal(vcall(&s, 25, 0x401070, BAND - 0x2000, 0x2000,
	    0x2000, 3, 0x9000000), OK);
	assert_int_equal(vcall(&s, 25, 0x401070, 0x400000, 0x2000, 0x2000,
	    3, 0x9000000), NOPE);
	assert_int_equal(vcall(&s, 25, 0x401070, 0x3ff000, 0x1000, 0x1000,
	    3, 0x9000000), OK);
	assert_int_equal(vcall(&s, 25, 0x401070, SP_BAND_END - 0x1000, 0x2000,
	    0x2000, 3, BAND + 0x100000), NOPE);
	assert_int_equal(vcall(&s, 25, 0x401070, 0x9000000,
	    UINT64_MAX - 0x1000, 0x1000, 3, 0xa000000), NOPE);
	assert_int_equal(vcall(&s, 25, 0x401070, 0x9000000, BAND,
	    0x1000, 3, 0xa000000), NOPE);
	assert_int_equal(vcall(&s, 25, 0x401070, 0x9000000, 1ull << 56,
	    0x1000, 3, 0xa000000), NOPE);
	/* the rules of every call, at the image's sites */
	assert_int_equal(vcall(&s, 16, 0x401060, 0, 0x5412, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 16, 0x401100, 0, 0x541c, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 16, 0x401060, 0, 0x5413, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 317, 0x401080, 1, 8, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 317, 0x401100, 1, 9, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 317, 0x401080, 1, 1, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 250, 0x401100, 22, 0, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 158, 0x401100, 0x2003, 0, 0, 0, 0),
	    EPERM_);
	assert_int_equal(vcall(&s, 158, 0x401100, 0x1002, 0, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 101, 0x401100, 16, 0, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 16, out, 0, 0x5412, 0, 0, 0), OK);
	progset_free(&s);

	in.flags = SP_BPF_STRICT;
	progset_make(&s, &in);
	assert_int_equal(verdict(&s, X64, 39, out, 0, 0, 0), KILL);
	assert_int_equal(verdict(&s, X64, 39, 0x401002, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 9, 0x401010, BAND, 0x1000, 5, 0x12, 0),
	    NOPE);
	assert_int_equal(vcall(&s, 9, 0x401050, slot, 0x1000, 5, 0x12, 3),
	    OK);		/* ld.so mapping a start-up object */
	assert_int_equal(vcall(&s, 9, 0x401050, BAND, 0x1000, 5, 0x12, 3),
	    NOPE);
	assert_int_equal(verdict(&s, X64, 59, 0x401030, 0, 0, 0), NOPE);
	progset_free(&s);

	in.flags = SP_BPF_ALLOW_JIT | SP_BPF_NO_PTRACE | SP_BPF_GUARD;
	in.action = SECCOMP_RET_LOG;
	in.place = SECCOMP_RET_TRACE | SP_BPF_PLACE_DATA;
	progset_make(&s, &in);
	assert_int_equal(verdict(&s, X64, 9, 0x401010, 0, 7, 0x22),
	    SECCOMP_RET_TRACE | SP_BPF_PLACE_DATA);
	assert_int_equal(vcall(&s, 9, 0x401010, BAND, 0x1000, 7, 0x32, 0),
	    OK);
	assert_int_equal(vcall(&s, 10, 0x401020, BAND, 0x1000, 4, 0, 0), OK);
	assert_int_equal(vcall(&s, 10, 0x401020, 0x9000000, 0x1000, 4, 0, 0),
	    NOPE);
	assert_int_equal(verdict(&s, X64, 39, 0x401000, 0, 0, 0),
	    SECCOMP_RET_LOG);
	assert_int_equal(vcall(&s, 101, 0x401100, 16, 0, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 101, 0x401100, 0, 0, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 311, 0x401100, 0, 0, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 56, 0x401100, 0x800011, 0, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 435, 0x401100, 0, 0, 0, 0, 0),
	    SECCOMP_RET_ERRNO | ENOSYS);
	assert_int_equal(vcall(&s, SP_GUARD_KILL_NR, out, 0, 0, 0, 0, 0),
	    KILL);
	assert_int_equal(vcall(&s, SP_GUARD_KILL_NR, 0x401002, 0, 0, 0, 0,
	    0), KILL);
	progset_free(&s);
}

/* The comparison can fail: a filter missing one pin is caught. */
static void
test_detects_wrong_filter(void **state)
{
	struct progset s;
	struct table t;
	struct sp_bpf_input cut;
	uint64_t r = 7;
	size_t steps;

	(void)state;
	table_realistic(&t, 3);
	cut = t.in;
	cut.npins--;		/* the filter lacks the last pin */
	progset_make(&s, &cut);
	t.pins[0] = t.pins[t.npins - 1];	/* and queries aim at it */
	assert_true(compare_many(&t, &s, &r, 20000, &steps) > 0);
	progset_free(&s);
	table_free(&t);
}

static void
test_bad_input(void **state)
{
	struct sp_bpf_pin pin = { 1, 0x1000, SP_ABI_X86_64, 0 };
	struct sp_bpf_range rg = { 0x2000, 0x1000 };
	struct sp_bpf_input in = { .pins = &pin, .npins = 1 };
	struct sp_bpf_prog *p;
	struct sp_error err;
	struct sp_bpf_pin *many;
	size_t n, i;

	(void)state;
	pin.nr = 1 | SP_BPF_X32_BIT;
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
	pin.nr = 1;
	pin.abi = 3;
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
	pin.abi = 0;
	in.action = SECCOMP_RET_ALLOW;
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
	in.action = 0;
	in.flags = 0x4000;	/* no such flag */
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
	in.flags = 0;
	pin.flags = 2;
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
	pin.flags = 0;
	in.band = rg;
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
	in.band = (struct sp_bpf_range){ 0, 0 };
	in.place = SECCOMP_RET_ALLOW;
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
	in.place = 0;
	{
		static const uint32_t bad = SP_BPF_X32_BIT | 39;
		in.narrow = (struct sp_bpf_narrow){ &bad, 1, false };
		assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
		in.narrow = (struct sp_bpf_narrow){ NULL, 1, false };
		assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
		in.narrow = (struct sp_bpf_narrow){ NULL, 0, false };
		in.narrowed = SECCOMP_RET_ALLOW;
		assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
		in.narrowed = 0;
	}
	in.ranges = &rg;
	in.nranges = 1;
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
	in.nranges = 0;
	/* one number with more sites than a program holds: an error, not
	 * a truncated program */
	assert_non_null(many = calloc(5000, sizeof(*many)));
	for (i = 0; i < 5000; i++)
		many[i] = (struct sp_bpf_pin){ 202, 0x10000 + 16 * i,
		    SP_ABI_X86_64, 0 };
	in.pins = many;
	in.npins = 5000;
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), -1);
	assert_non_null(strstr(err.msg, "alone"));
	in.npins = 1000;
	assert_int_equal(sp_bpf_generate(&in, &p, &n, &err), 0);
	assert_int_equal(n, 1);
	sp_bpf_free(p, n);
	free(many);
}

/* Evaluates a set of programs as the kernel does: the lowest action. */
static uint32_t
run_set(const struct progset *s, const struct seccomp_data *d)
{
	uint32_t ret = SECCOMP_RET_ALLOW, r;
	size_t i, steps;

	for (i = 0; i < s->n; i++) {
		r = sp_bpf_run(s->p[i].insns, s->p[i].len, d, &steps);
		if (sp_bpf_cmp_action(r, ret) < 0)
			ret = r;
	}
	return ret;
}

/*
 * The supervisor's smaller filter (lib/supervise/fallback.c): the same
 * table with only some numbers' pins.  Whatever it does not answer with
 * its own stop, it must answer exactly as the whole program; above all it
 * must never allow what the whole program refuses.
 */
static void
test_subset(void **state)
{
	static const size_t sizes[] = { 3, 20, 150, 900 };
	struct progset whole, part;
	struct seccomp_data d;
	struct table t;
	struct sp_bpf_pin *kept;
	uint64_t r = 0x50b5e7;
	size_t i, k, q, n, stops;
	uint32_t vw, vp;

	(void)state;
	for (i = 0; i < 4 * 8; i++) {
		table_random(&t, &r, sizes[i % 4]);
		t.in.action = SECCOMP_RET_TRACE | 1;
		t.in.flags &= ~SP_BPF_AUDIT;
		progset_make(&whole, &t.in);
		assert_non_null(kept = calloc(t.npins + 1, sizeof(*kept)));
		/* keep the pins of about half the numbers, or none */
		for (k = n = 0; k < t.npins; k++)
			if (i % 8 != 0 && (t.pins[k].nr * 2654435761u >> 7) & 1)
				kept[n++] = t.pins[k];
		struct sp_bpf_input in = t.in;
		in.pins = kept;
		in.npins = n;
		in.action = SECCOMP_RET_TRACE | 2;
		in.flags |= SP_BPF_OUTSIDE;	/* as fallback.c makes it */
		progset_make(&part, &in);
		for (q = stops = 0; q < 3000; q++) {
			query_random(&t, &r, &d);
			vw = run_set(&whole, &d);
			vp = run_set(&part, &d);
			if (vp == (SECCOMP_RET_TRACE | 2)) {
				stops++;
				continue;
			}
			if (vp != vw)
				fail_msg("table %zu (%zu of %zu pins kept, flags "
				    "%#x): nr %#x ip %#llx: the smaller filter "
				    "says %#x, the whole %#x", i, n, t.npins,
				    t.in.flags, d.nr,
				    (unsigned long long)d.instruction_pointer,
				    vp, vw);
		}
		assert_true(stops > 0);
		free(kept);
		progset_free(&part);
		progset_free(&whole);
		table_free(&t);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spot_checks),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_realistic_path),
		cmocka_unit_test(test_detects_wrong_filter),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_random_small),
		cmocka_unit_test(test_random_medium),
		cmocka_unit_test(test_random_split),
		cmocka_unit_test(test_subset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
