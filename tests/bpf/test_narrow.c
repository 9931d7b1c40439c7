/* SPDX-License-Identifier: ISC */
/*
 * Narrowing (--deny, --allow; lib/bpf/bpf.h, 2a.) stated directly,
 * and what it costs a real process's calls.  The random tables of
 * test_generate.c narrow a third of the time against the model.
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

#define X64 AUDIT_ARCH_X86_64
#define KILL SECCOMP_RET_KILL_PROCESS
#define OK SECCOMP_RET_ALLOW
#define EPERM_ (SECCOMP_RET_ERRNO | EPERM)

static uint32_t
vcall(const struct progset *s, uint32_t nr, uint64_t ip, uint64_t a0,
    uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = X64,
	    .instruction_pointer = ip, .args = { a0, a1, a2, a3, a4, 0 } };

	return sp_bpf_run_all(s->p, s->n, &d, NULL);
}

/* The most instructions a pinned call without an argument rule runs. */
static size_t
pinned_steps(const struct table *t, const struct progset *s)
{
	static const uint32_t ruled[] = { 9, 10, 16, 25, 30, 56, 59, 101,
		135, 158, 250, 310, 311, 317, 322, 329, 435, 438 };
	struct seccomp_data d;
	size_t i, k, steps, most = 0;

	for (i = 0; i < t->npins; i++) {
		for (k = 0; k < sizeof(ruled) / sizeof(*ruled) &&
		    ruled[k] != t->pins[i].nr; k++)
			;
		if (k < sizeof(ruled) / sizeof(*ruled))
			continue;
		memset(&d, 0, sizeof(d));
		d.arch = X64;
		d.nr = (int)t->pins[i].nr;
		d.instruction_pointer = t->pins[i].ip;
		sp_bpf_run_all(s->p, s->n, &d, &steps);
		if (steps > most)
			most = steps;
	}
	return most;
}

/*
 * Narrowing (--deny, --allow) is part of the number dispatch: a real
 * process's pinned calls run no more instructions with 50 numbers denied
 * (at most the one tree level 50 more segments can add), and the
 * narrowed numbers' blocks are gone.
 */
static void
test_narrow_cost(void **state)
{
	struct progset s, d;
	struct table t;
	uint32_t deny[50];
	uint64_t r = 99;
	size_t i, steps, plain, narrowed;

	(void)state;
	for (i = 0; i < 50; i++)	/* numbers far from the hot ones */
		deny[i] = (uint32_t)(100 + 6 * i);
	table_realistic(&t, 5);
	progset_make(&s, &t.in);
	t.in.narrow = (struct sp_bpf_narrow){ deny, 50, false };
	progset_make(&d, &t.in);
	plain = pinned_steps(&t, &s);
	narrowed = pinned_steps(&t, &d);
	print_message("realistic table: %zu instructions, pinned calls run "
	    "at most %zu; with 50 numbers denied: %zu instructions, %zu\n",
	    s.p[0].len, plain, d.p[0].len, narrowed);
	assert_true(narrowed <= plain + 1);
	assert_true(d.p[0].len < s.p[0].len);
	assert_int_equal(compare_many(&t, &d, &r, 5000, &steps), 0);
	/* an allow list of a few numbers: a small program */
	progset_free(&d);
	t.in.narrow = (struct sp_bpf_narrow){ deny, 5, true };
	progset_make(&d, &t.in);
	assert_true(d.p[0].len < s.p[0].len / 4);
	assert_int_equal(compare_many(&t, &d, &r, 5000, &steps), 0);
	progset_free(&d);
	progset_free(&s);
	table_free(&t);
}

/* The policy of narrowing stated directly, without the model. */
static void
test_narrow_spot(void **state)
{
	static const struct sp_bpf_pin pins[] = {
		{ 39, 0x401002, 0, 0 }, { 157, 0x401010, 0, 0 },
		{ 317, 0x401020, 0, 0 }, { 231, 0x401030, 0, 0 },
	};
	static const struct sp_bpf_range img = { 0x400000, 0x402000 };
	static const uint32_t deny[] = { 39, 157, 317, 231, 1000 };
	struct sp_bpf_input in = { .pins = pins, .npins = 4, .ranges = &img,
	    .nranges = 1, .band = { SP_BAND_START, SP_BAND_END },
	    .narrow = { deny, 5, false }, .flags = SP_BPF_GUARD };
	uint64_t out = 0x7f1000001002;
	struct progset s;

	(void)state;
	progset_make(&s, &in);
	assert_int_equal(vcall(&s, 39, 0x401002, 0, 0, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 39, 0x401012, 0, 0, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 1000, 0x401002, 0, 0, 0, 0, 0), EPERM_);
	/* a later image's call: its own filter narrows it */
	assert_int_equal(vcall(&s, 39, out, 0, 0, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 40, 0x401002, 0, 0, 0, 0, 0), KILL);
	/* exit_group is never denied; nor is the guard's kill */
	assert_int_equal(vcall(&s, 231, 0x401030, 0, 0, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, SP_GUARD_KILL_NR, out, 0, 0, 0, 0, 0),
	    KILL);
	/* prctl: PR_SET_NO_NEW_PRIVS only, at its site */
	assert_int_equal(vcall(&s, 157, 0x401010, 38, 1, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 157, 0x401010, 4, 0, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 157, out, 38, 1, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 157, 0x401002, 38, 1, 0, 0, 0), KILL);
	/* seccomp: SET_MODE_FILTER only, without a listener */
	assert_int_equal(vcall(&s, 317, 0x401020, 1, 0, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 317, 0x401020, 1, 8, 0, 0, 0), EPERM_);
	assert_int_equal(vcall(&s, 317, 0x401020, 2, 0, 0, 0, 0), EPERM_);
	progset_free(&s);
	in.narrowed = SECCOMP_RET_KILL_PROCESS;
	in.narrow.allow = true;		/* 39, 157, 317, 231, 1000 left */
	progset_make(&s, &in);
	assert_int_equal(vcall(&s, 39, 0x401002, 0, 0, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 40, 0x401002, 0, 0, 0, 0, 0), KILL);
	assert_int_equal(vcall(&s, 40, out, 0, 0, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 60, 0x401030, 0, 0, 0, 0, 0), KILL);
	assert_int_equal(vcall(&s, 157, 0x401010, 4, 0, 0, 0, 0), OK);
	assert_int_equal(vcall(&s, 39 | SP_BPF_X32_BIT, 0x401002, 0, 0, 0,
	    0, 0), KILL);
	progset_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_narrow_spot),
		cmocka_unit_test(test_narrow_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
