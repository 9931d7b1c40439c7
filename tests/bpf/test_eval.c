/* SPDX-License-Identifier: ISC */
/* The evaluator (lib/bpf/eval.c) itself: what it accepts, what it
 * computes, and the kernel's precedence between several filters.
 * test_eval_kernel.c compares it with the kernel on random programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bpf/bpf.h"

#define N(a) (sizeof(a) / sizeof(*(a)))

static void
test_check(void **state)
{
	const struct sock_filter good[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 2),
	};
	struct sock_filter bad[4];
	char why[64];

	(void)state;
	assert_int_equal(sp_bpf_check(good, N(good), why, sizeof(why)), 0);
	memcpy(bad, good, sizeof(bad));
	bad[1].jf = 2;				/* past the end */
	assert_int_equal(sp_bpf_check(bad, 4, why, sizeof(why)), -1);
	memcpy(bad, good, sizeof(bad));
	bad[0].k = 6;				/* unaligned */
	assert_int_equal(sp_bpf_check(bad, 4, why, sizeof(why)), -1);
	bad[0].k = 64;				/* past seccomp_data */
	assert_int_equal(sp_bpf_check(bad, 4, why, sizeof(why)), -1);
	memcpy(bad, good, sizeof(bad));
	bad[0].code = BPF_LD | BPF_H | BPF_ABS;	/* not for seccomp */
	assert_int_equal(sp_bpf_check(bad, 4, why, sizeof(why)), -1);
	assert_int_equal(sp_bpf_check(good, 3, why, sizeof(why)), -1);
	memcpy(bad, good, sizeof(bad));
	bad[3] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, 0);
	assert_int_equal(sp_bpf_check(bad, 4, why, sizeof(why)), -1);
	bad[2] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0);
	assert_int_equal(sp_bpf_check(bad, 3, why, sizeof(why)), -1);
	assert_int_equal(sp_bpf_check(good, 0, why, sizeof(why)), -1);
}

/* A scratch slot read on a path where it was not written: refused. */
static void
test_check_slots(void **state)
{
	const struct sock_filter ok[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_STMT(BPF_ST, 3),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		BPF_STMT(BPF_LD | BPF_IMM, 5),
		BPF_STMT(BPF_LDX | BPF_W | BPF_MEM, 3),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	const struct sock_filter one_path[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		BPF_STMT(BPF_ST, 3),
		BPF_STMT(BPF_LD | BPF_MEM, 3),	/* not written when nr != 1 */
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	char why[64];

	(void)state;
	assert_int_equal(sp_bpf_check(ok, N(ok), why, sizeof(why)), 0);
	assert_int_equal(sp_bpf_check(one_path, N(one_path), why,
	    sizeof(why)), -1);
	assert_non_null(strstr(why, "before written"));
}

/* What classic BPF does at the edges, as the kernel does it. */
static void
test_edges(void **state)
{
	const struct sock_filter shift[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 1),
		BPF_STMT(BPF_LDX | BPF_W | BPF_IMM, 33),
		BPF_STMT(BPF_ALU | BPF_LSH | BPF_X, 0),	/* by 33 mod 32 */
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	const struct sock_filter div0[] = {
		BPF_STMT(BPF_LD | BPF_IMM, 7),
		BPF_STMT(BPF_LDX | BPF_W | BPF_IMM, 0),
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	const struct sock_filter len[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	struct seccomp_data d = { 0 };

	(void)state;
	assert_int_equal(sp_bpf_run(shift, N(shift), &d, NULL), 2);
	assert_int_equal(sp_bpf_run(div0, N(div0), &d, NULL), 0);
	assert_int_equal(sp_bpf_run(len, N(len), &d, NULL), sizeof(d));
}

static void
test_run(void **state)
{
	const struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 8),	/* ip low */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x1000, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 12),	/* ip high */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 7),
		BPF_STMT(BPF_JMP | BPF_JA, 1),
		BPF_STMT(BPF_RET | BPF_K, 8),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),	/* nr */
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_A, 0),
		BPF_STMT(BPF_RET | BPF_K, 9),
	};
	struct seccomp_data d = { 0 };
	size_t steps;

	(void)state;
	assert_int_equal(sp_bpf_check(f, N(f), NULL, 0), 0);
	d.instruction_pointer = 0x8000001000ull;
	assert_int_equal(sp_bpf_run(f, N(f), &d, &steps), 7);
	assert_int_equal(steps, 5);
	d.instruction_pointer = 0x1000ull;	/* via JA: X = high + 1 */
	d.nr = 5;
	assert_int_equal(sp_bpf_run(f, N(f), &d, &steps), 5);
	assert_int_equal(steps, 10);
	d.nr = 1;
	assert_int_equal(sp_bpf_run(f, N(f), &d, &steps), 9);
	d.instruction_pointer = 0xfff;		/* X = low + 1 */
	d.nr = 0x2000;
	assert_int_equal(sp_bpf_run(f, N(f), &d, NULL), 0x2000);
	d.nr = 0x1000;
	assert_int_equal(sp_bpf_run(f, N(f), &d, &steps), 9);
	assert_int_equal(steps, 7);
}

static void
test_precedence(void **state)
{
	const struct sock_filter kill[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS) };
	const struct sock_filter thread[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD) };
	const struct sock_filter e1[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1) };
	const struct sock_filter e2[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 2) };
	const struct sock_filter log[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_LOG) };
	const struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sp_bpf_prog p[3];
	struct seccomp_data d = { 0 };
	size_t steps;

	(void)state;
	p[0] = (struct sp_bpf_prog){ (struct sock_filter *)allow, 1 };
	p[1] = (struct sp_bpf_prog){ (struct sock_filter *)e2, 1 };
	p[2] = (struct sp_bpf_prog){ (struct sock_filter *)e1, 1 };
	/* equal actions: the first filter run wins */
	assert_int_equal(sp_bpf_run_all(p, 3, &d, &steps),
	    SECCOMP_RET_ERRNO | 2);
	assert_int_equal(steps, 3);
	p[0] = (struct sp_bpf_prog){ (struct sock_filter *)log, 1 };
	p[2] = (struct sp_bpf_prog){ (struct sock_filter *)thread, 1 };
	assert_int_equal(sp_bpf_run_all(p, 3, &d, NULL),
	    SECCOMP_RET_KILL_THREAD);
	p[1] = (struct sp_bpf_prog){ (struct sock_filter *)kill, 1 };
	assert_int_equal(sp_bpf_run_all(p, 3, &d, NULL),
	    SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(sp_bpf_run_all(p, 1, &d, NULL), SECCOMP_RET_LOG);
	assert_true(sp_bpf_cmp_action(SECCOMP_RET_LOG,
	    SECCOMP_RET_ALLOW) < 0);
	assert_true(sp_bpf_cmp_action(SECCOMP_RET_USER_NOTIF,
	    SECCOMP_RET_TRACE) < 0);
}

/* sp_bpf_everywhere: the runtime-only tree's first filter, by number and
 * argument in each ABI, wherever the call comes from. */
static uint32_t
every(uint32_t arch, uint32_t nr, uint64_t a0, uint64_t a1, uint64_t a2,
    uint64_t a4)
{
	static struct sp_bpf_prog p;
	struct seccomp_data d = { .nr = (int)nr, .arch = arch,
	    .instruction_pointer = 0x7f0000001234,
	    .args = { a0, a1, a2, 0, a4, 0 } };
	struct sp_error err;
	char why[64];

	if (p.insns == NULL) {
		assert_int_equal(sp_bpf_everywhere(&p, &err), 0);
		assert_int_equal(sp_bpf_check(p.insns, p.len, why,
		    sizeof(why)), 0);
	}
	return sp_bpf_run(p.insns, p.len, &d, NULL);
}

static void
test_everywhere(void **state)
{
	const uint32_t X64 = 0xc000003e, I386 = 0x40000003, X = 0x40000000,
	    ok = SECCOMP_RET_ALLOW, no = SECCOMP_RET_ERRNO | 1;

	(void)state;
	assert_int_equal(every(X64, 16, 0, 0x5412, 0, 0), no);	/* TIOCSTI */
	assert_int_equal(every(X64, 16, 0, 0x1005412, 0, 0), ok); /* not it */
	assert_int_equal(every(X64, 16, 0, 0x5401, 0, 0), ok);	/* TCGETS */
	assert_int_equal(every(X64, X | 514, 0, 0x5423, 0, 0), no); /* x32 */
	assert_int_equal(every(I386, 54, 0, 0x541c, 0, 0), no);	/* TIOCLINUX */
	assert_int_equal(every(X64, 16, 0, 0x540e, 1, 0), no);	/* TIOCSCTTY, */
	assert_int_equal(every(X64, 16, 0, 0x540e, 0, 0), ok);	/* by force */
	assert_int_equal(every(X64, 16, 0, 0x4b3a, 0, 0), no);	/* KDSETMODE */
	assert_int_equal(every(X64, 16, 0, 0x4b3b, 0, 0), ok);	/* KDGETMODE */
	assert_int_equal(every(X64, 153, 0, 0, 0, 0), no);	/* vhangup */
	assert_int_equal(every(X64, 41, 1, 1, 0, 0), no);	/* unix stream */
	assert_int_equal(every(X64, 41, 1, 0x80005, 0, 0), no); /* seqpacket */
	assert_int_equal(every(X64, 41, 1, 2, 0, 0), ok);	/* datagram */
	assert_int_equal(every(X64, 41, 2, 1, 0, 0), ok);	/* inet */
	assert_int_equal(every(I386, 102, 1, 0, 0, 0), no);	/* socketcall */
	assert_int_equal(every(X64, 250, 22, 0, 0, 0), no);	/* persistent */
	assert_int_equal(every(X64, X | 250, 18, 0, 0, 0), no);
	assert_int_equal(every(I386, 288, 1, 0, 0, 0), ok);	/* join */
	assert_int_equal(every(X64, 72, 1, 10, 3, 0), no);	/* F_SETSIG QUIT */
	assert_int_equal(every(X64, 72, 1, 10, 29, 0), ok);	/* SIGIO */
	assert_int_equal(every(X64, 302, 1234, 4, 0, 0), no);	/* prlimit64 */
	assert_int_equal(every(X64, 302, 0, 4, 0, 0), ok);	/* its own */
	assert_int_equal(every(X64, 249, 0, 0, 1, 0), no);	/* upcall */
	assert_int_equal(every(X64, 249, 0, 0, 1ull << 32, 0), no);
	assert_int_equal(every(X64, 321, 5, 0, 0, 0), no);	/* PROG_LOAD */
	assert_int_equal(every(X64, 298, 0, 0xffffffff, 0, 0), no);
	assert_int_equal(every(X64, 298, 0, 0, 0, 4), no);	/* a cgroup */
	assert_int_equal(every(X64, 298, 0, 0, 0, 0), ok);
	assert_int_equal(every(X64, 425, 8, 0, 0, 0), SECCOMP_RET_ERRNO | 38);
	assert_int_equal(every(I386, 427, 0, 0, 0, 0), SECCOMP_RET_ERRNO | 38);
	assert_int_equal(every(X64, 323, 0, 0, 0, 0), no);	/* userfaultfd */
	assert_int_equal(every(X64, 440, 3, 0, 0, 0), no);	/* madvise */
	assert_int_equal(every(I386, 21, 0, 0, 0, 0), no);	/* mount */
	assert_int_equal(every(X64, X | 429, 0, 0, 0, 0), no);	/* move_mount */
	assert_int_equal(every(X64, 59, 0, 0, 0, 0), ok);	/* the rest */
	assert_int_equal(every(0xc00000b7, 29, 0, 0x5412, 0, 0), ok);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_check_slots),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_everywhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
