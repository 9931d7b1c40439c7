/* SPDX-License-Identifier: ISC */
/*
 * The filter installed at the entry point (lib/supervise/entry.c): execve
 * and execveat from ld.so's code are violations (TRACE, data 0) where
 * ld.so's exec sites were pinned, and an executable mapping or protection
 * starting in the start-up slots stops to be refused (EACCES, by the
 * supervisor: after an exec the filter stays and the new image may put
 * its objects there) where the slots were not sealed whole; everything
 * else is allowed; with neither, there is no filter.  Images alike make
 * the same filter, and the same key.  Checked with the one evaluator
 * (lib/bpf/eval.c) at every edge, the slots straddling a 4 GiB boundary
 * or not.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpf/bpf.h"

#include "supervise/supervise_int.h"

#define ALLOW SECCOMP_RET_ALLOW
#define VIOL SECCOMP_RET_TRACE
#define EACCES_ (SECCOMP_RET_TRACE | SP_BPF_REFUSE_DATA)	/* refused */

static struct sp_bpf_prog prog;

static uint32_t
call(uint32_t nr, uint64_t ip, uint64_t a0, uint64_t a2)
{
	struct seccomp_data d;

	memset(&d, 0, sizeof(d));
	d.arch = AUDIT_ARCH_X86_64;
	d.nr = (int)nr;
	d.instruction_pointer = ip;
	d.args[0] = a0;
	d.args[2] = a2;
	return sp_bpf_run(prog.insns, prog.len, &d, NULL);
}

static void
make_as(uint64_t ld_start, uint64_t ld_end, uint64_t sl, uint64_t sh,
    bool loader_exec, bool sealed)
{
	struct sp_pin_result res;
	char why[128];

	memset(&res, 0, sizeof(res));
	assert_true(sp_layout_add_object(&res.lo, "ld.so", SP_OBJ_FILE,
	    ld_start) >= 0);
	res.lo.objs[0].loader = true;
	res.loader_exec = loader_exec;
	assert_int_equal(sp_layout_add_range(&res.lo, ld_start, ld_end, 0),
	    0);
	res.pl.slots = (struct sp_bpf_range){ sl, sh };
	free(prog.insns);
	memset(&prog, 0, sizeof(prog));
	assert_int_equal(sp_sup_entry_filter(&res, sealed, &prog), 0);
	if (loader_exec || !sealed) {
		assert_true(prog.len > 0);
		assert_int_equal(sp_bpf_check(prog.insns, prog.len, why,
		    sizeof(why)), 0);
	} else
		assert_int_equal(prog.len, 0);
	sp_layout_free(&res.lo);
}

static void
make(uint64_t ld_start, uint64_t ld_end, uint64_t sl, uint64_t sh)
{
	make_as(ld_start, ld_end, sl, sh, true, false);
}

/* Each block alone, and none: the slots sealed whole, ld.so's exec
 * sites not pinned (the usual image) make no filter. */
static void
test_parts(void **state)
{
	uint64_t sl = 0x7e0000000000, sh = 0x7e0000100000;

	(void)state;
	make_as(0x7f0000001000, 0x7f0000027000, sl, sh, false, false);
	assert_int_equal(call(59, 0x7f0000010002, 0, 0), ALLOW);
	assert_int_equal(call(9, 0x7f0000010002, sl, 5), EACCES_);
	make_as(0x7f0000001000, 0x7f0000027000, sl, sh, true, true);
	assert_int_equal(call(59, 0x7f0000010002, 0, 0), VIOL);
	assert_int_equal(call(9, 0x7f0000010002, sl, 5), ALLOW);
	make_as(0x7f0000001000, 0x7f0000027000, sl, sh, false, true);
}

static void
test_exec(void **state)
{
	(void)state;
	make(0x7f0000001000, 0x7f0000027000, 0x7e0000000000, 0x7e0000100000);
	assert_int_equal(call(59, 0x7f0000010002, 0, 0), VIOL);
	assert_int_equal(call(322, 0x7f0000027000, 0, 0), VIOL);
	assert_int_equal(call(59, 0x7f0000027001, 0, 0), ALLOW);
	assert_int_equal(call(59, 0x7f0000001000, 0, 0), ALLOW);
	assert_int_equal(call(59, 0x7e0000010002, 0, 0), ALLOW);	/* libc */
	assert_int_equal(call(39, 0x7f0000010002, 0, 0), ALLOW);
}

static void
check_slots(uint64_t sl, uint64_t sh)
{
	make(0x7f0000001000, 0x7f0000027000, sl, sh);
	assert_int_equal(call(9, 0x7f0000010002, sl, 5), EACCES_);
	assert_int_equal(call(9, 0x7f0000010002, sh - 0x1000, 5), EACCES_);
	assert_int_equal(call(10, 0x7e0000010002, sl + 0x2000, 4), EACCES_);
	assert_int_equal(call(329, 0x7e0000010002, sl, 7), EACCES_);
	assert_int_equal(call(9, 0x7f0000010002, sh, 5), ALLOW);
	assert_int_equal(call(9, 0x7f0000010002, sl - 0x1000, 5), ALLOW);
	assert_int_equal(call(9, 0x7f0000010002, sl, 3), ALLOW);	/* rw */
	assert_int_equal(call(9, 0x7f0000010002, (sh & ~0xffffffffull) +
	    (1ull << 32), 5), ALLOW);
	assert_int_equal(call(9, 0x7f0000010002, sl & ~0xffffffffull, 5),
	    sl & 0xffffffff ? ALLOW : EACCES_);
}

static void
test_slots(void **state)
{
	(void)state;
	check_slots(0x7e0000000000, 0x7e0000100000);	/* one high word */
	check_slots(0x7e00fff00000, 0x7e0100100000);	/* two */
	check_slots(0x7e00fff00000, 0x7e0300100000);	/* three */
}

static void
test_key(void **state)
{
	struct sp_pin_result a, b;
	uint64_t ka[4], kb[4];

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_true(sp_layout_add_object(&a.lo, "ld.so", SP_OBJ_FILE,
	    0x7f0000001000) >= 0);
	a.lo.objs[0].loader = true;
	assert_int_equal(sp_layout_add_range(&a.lo, 0x7f0000001000,
	    0x7f0000027000, 0), 0);
	a.pl.slots = (struct sp_bpf_range){ 0x7e0000000000, 0x7e0000100000 };
	a.loader_exec = true;
	b = a;
	sp_sup_entry_key(&a, false, ka);
	sp_sup_entry_key(&b, false, kb);
	assert_memory_equal(ka, kb, sizeof(ka));
	b.pl.slots.end += 0x1000;
	sp_sup_entry_key(&b, false, kb);
	assert_memory_not_equal(ka, kb, sizeof(ka));
	/* sealed: the slots are no part of it, nor of its key */
	sp_sup_entry_key(&a, true, ka);
	sp_sup_entry_key(&b, true, kb);
	assert_memory_equal(ka, kb, sizeof(ka));
	assert_int_equal(ka[2] | ka[3], 0);
	b.pl.slots = a.pl.slots;
	b.lo.ranges[0].end += 0x1000;	/* the same storage: a's too */
	sp_sup_entry_key(&a, false, ka);
	assert_int_equal(ka[1], 0x7f0000028000);
	sp_layout_free(&a.lo);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_key),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);

	free(prog.insns);
	return r;
}
