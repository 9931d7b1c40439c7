/* SPDX-License-Identifier: ISC */
/*
 * A small evaluator for the programs we install: the supervisor judges
 * every stop with the image's own program (verdict.c), and orders a split
 * program's installation (pin.c).  The guard rules that used to be a
 * filter of their own (clone with CLONE_UNTRACED, clone3, the kill number)
 * are in every image's program now (lib/bpf, SP_BPF_GUARD).
 */
#include <linux/seccomp.h>
#include <stddef.h>

#include <syspin/supervise.h>

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
