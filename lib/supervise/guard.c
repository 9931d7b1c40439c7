/* SPDX-License-Identifier: ISC */
/*
 * The guard filter of a supervised tree, and a small evaluator for the
 * programs we install.
 *
 * Violations are SECCOMP_RET_TRACE: the tracee stops before the call runs.
 * Two things would let it slip away from that stop:
 * - a process nobody traces gets ENOSYS from SECCOMP_RET_TRACE and runs on.
 *   Every process of the tree is traced from birth (fork, vfork and clone
 *   events attach the child before it runs; PTRACE_O_EXITKILL kills all of
 *   them when the supervisor dies), except a child made with
 *   CLONE_UNTRACED: the guard kills that clone.  clone3 passes its flags
 *   in memory the filter cannot read: it fails with ENOSYS, and the C
 *   libraries fall back to clone.
 * - the supervisor must kill the process exactly like SECCOMP_RET_KILL_
 *   PROCESS would (SIGSYS that cannot be caught, core, no syscall run),
 *   even when the process blocks or ignores SIGSYS.  After a TRACE stop
 *   the kernel runs the filters again on the (possibly rewritten) call and
 *   honours a kill: the supervisor rewrites the number to SP_GUARD_KILL_NR,
 *   which the guard kills.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>

#include <syspin/supervise.h>

#define NR_OFF offsetof(struct seccomp_data, nr)
#define ARCH_OFF offsetof(struct seccomp_data, arch)
#define ARG0_LO offsetof(struct seccomp_data, args[0])	/* little endian */

#define X86_64_CLONE 56
#define I386_CLONE 120
#define CLONE3 435	/* the same number on both */

static struct sock_filter guard[] = {
	/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR_OFF),
	/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SP_GUARD_KILL_NR, 14, 0),
	/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARCH_OFF),
	/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 5),
	/* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR_OFF),
	/* 5 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~SP_BPF_X32_BIT),
	/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, X86_64_CLONE, 6, 0),
	/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLONE3, 9, 0),
	/* 8 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 5),
	/* 10 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR_OFF),
	/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, I386_CLONE, 1, 0),
	/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLONE3, 4, 2),
	/* 13 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
	/* 14 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_UNTRACED, 1, 0),
	/* 15 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	/* 16 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	/* 17 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
};

void
sp_guard_program(struct sock_fprog *prog)
{
	prog->filter = guard;
	prog->len = sizeof(guard) / sizeof(*guard);
}

static uint32_t
load(const struct seccomp_data *d, uint32_t k)
{
	uint32_t v;

	if (k + 4 > sizeof(*d) || k % 4 != 0)
		return 0;
	__builtin_memcpy(&v, (const char *)d + k, 4);
	return v;
}

/* Only what lib/bpf and the guard emit; anything else counts as a kill. */
uint32_t
sp_bpf_eval(const struct sock_filter *insns, size_t len, uint32_t nr,
    uint32_t arch, uint64_t ip, const uint64_t *args)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = arch,
	    .instruction_pointer = ip };
	uint32_t a = 0;
	size_t pc;

	for (int i = 0; args != NULL && i < 6; i++)
		d.args[i] = args[i];
	for (pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &insns[pc];
		bool t;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			a = load(&d, f->k);
			continue;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= f->k;
			continue;
		case BPF_RET | BPF_K:
			return f->k;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			continue;
		case BPF_JMP | BPF_JEQ | BPF_K:
			t = a == f->k;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			t = a >= f->k;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			t = a > f->k;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			t = (a & f->k) != 0;
			break;
		default:
			return SECCOMP_RET_KILL_PROCESS;
		}
		pc += t ? f->jt : f->jf;
	}
	return SECCOMP_RET_KILL_PROCESS;
}

/* The kernel's order: KILL_PROCESS (negative as s32) < ... < ALLOW. */
uint32_t
sp_bpf_eval_all(const struct sp_bpf_prog *progs, size_t nprogs, uint32_t nr,
    uint32_t arch, uint64_t ip, const uint64_t *args)
{
	uint32_t ret = SECCOMP_RET_ALLOW, r;
	size_t i;

	for (i = nprogs; i-- > 0;) {
		r = sp_bpf_eval(progs[i].insns, progs[i].len, nr, arch, ip,
		    args);
		if ((int32_t)(r & SECCOMP_RET_ACTION_FULL) <
		    (int32_t)(ret & SECCOMP_RET_ACTION_FULL))
			ret = r;
	}
	return ret;
}
