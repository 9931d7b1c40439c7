/* SPDX-License-Identifier: ISC */
/*
 * lib/bpf/disasm.c: each kind of instruction as scmp_bpf_disasm prints
 * it, and a generated program whose every jump target printed is the one
 * its fields give.
 */
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"

static void
expect(const struct sock_filter *p, size_t i, const char *want)
{
	char buf[160];

	sp_bpf_disasm(p, i, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("%zu: got \"%s\", want \"%s\"", i, buf, want);
}

static void
test_kinds(void **state)
{
	static const struct sock_filter p[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 5),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 4, 2, 3),
		BPF_JUMP(BPF_JMP | BPF_JA, 2, 0, 0),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 7),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 13),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 0xfffc),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_LOG),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP | 3),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 12, 0, 0),
	};

	(void)state;
	expect(p, 0, " 0000: 0x20 0x00 0x00 0x00000004   ld  $data[4]");
	expect(p, 1, " 0001: 0x15 0x00 0x05 0xc000003e   jeq 3221225534 "
	    "true:0002 false:0007");
	expect(p, 2, " 0002: 0x35 0x01 0x00 0x40000000   jge 1073741824 "
	    "true:0004 false:0003");
	expect(p, 3, " 0003: 0x45 0x02 0x03 0x00000004   jset 4    "
	    "true:0006 false:0007");
	expect(p, 4, " 0004: 0x05 0x00 0x00 0x00000002   jmp 0007");
	expect(p, 5, " 0005: 0x54 0x00 0x00 0x00000007   and 0x00000007");
	expect(p, 6, " 0006: 0x06 0x00 0x00 0x7fff0000   ret ALLOW");
	expect(p, 7, " 0007: 0x06 0x00 0x00 0x80000000   ret KILL_PROCESS");
	expect(p, 8, " 0008: 0x06 0x00 0x00 0x0005000d   ret ERRNO(13)");
	expect(p, 9, " 0009: 0x06 0x00 0x00 0x7ff0fffc   ret TRACE(65532)");
	expect(p, 10, " 0010: 0x06 0x00 0x00 0x7ffc0000   ret LOG");
	expect(p, 11, " 0011: 0x06 0x00 0x00 0x00030003   ret TRAP");
	expect(p, 12, " 0012: 0x25 0x00 0x00 0x0000000c   jgt 12   "
	    "true:0013 false:0013");
}

/* Every line of a generated program: its targets are its fields'. */
static void
test_generated(void **state)
{
	struct progset s;
	struct table t;
	char buf[160], want[64];
	unsigned idx, jt, jf;
	size_t i;

	(void)state;
	table_realistic(&t, 2);
	progset_make(&s, &t.in);
	for (i = 0; i < s.p[0].len; i++) {
		const struct sock_filter *f = &s.p[0].insns[i];
		sp_bpf_disasm(s.p[0].insns, i, buf, sizeof(buf));
		assert_int_equal(sscanf(buf, " %u:", &idx), 1);
		assert_int_equal(idx, i);
		if (BPF_CLASS(f->code) != BPF_JMP || BPF_OP(f->code) == BPF_JA)
			continue;
		jt = (unsigned)i + 1 + f->jt;
		jf = (unsigned)i + 1 + f->jf;
		snprintf(want, sizeof(want), "true:%.4u false:%.4u", jt, jf);
		if (strstr(buf, want) == NULL)
			fail_msg("%s: no \"%s\"", buf, want);
	}
	progset_free(&s);
	table_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_generated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
