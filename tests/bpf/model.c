/* SPDX-License-Identifier: ISC */
#include <linux/audit.h>
#include <errno.h>
#include <stdbool.h>

#include "model.h"

#define DENIED (SECCOMP_RET_ERRNO | EACCES)

enum kind { NONE, MMAP, MPROTECT, SHMAT, PERSONALITY, EXEC, OPAQUE };

/* From arch/x86/entry/syscalls/syscall_{64,32}.tbl. */
static enum kind
kind_of(int abi, uint32_t nr)
{
	if (abi == SP_ABI_X32) {
		if ((nr & SP_BPF_X32_BIT) == 0)
			return NONE;
		nr &= ~SP_BPF_X32_BIT;
		if (nr == 520 || nr == 545)	/* x32 execve, execveat */
			return EXEC;
		if (nr == 59 || nr == 322)	/* 64-bit only */
			return NONE;
	}
	if (abi == SP_ABI_I386) {
		switch (nr) {
		case 192: return MMAP;		/* mmap2 */
		case 125: case 380: return MPROTECT;
		case 397: return SHMAT;
		case 136: return PERSONALITY;
		case 11: case 358: return EXEC;
		case 90: case 117: return OPAQUE; /* old mmap, ipc */
		default: return NONE;
		}
	}
	switch (nr) {
	case 9: return MMAP;
	case 10: case 329: return MPROTECT;
	case 30: return SHMAT;
	case 135: return PERSONALITY;
	case 59: case 322: return EXEC;
	default: return NONE;
	}
}

static uint32_t
memory_rule(int abi, const struct seccomp_data *d, unsigned flags)
{
	bool strict = flags & SP_BPF_STRICT, jit = flags & SP_BPF_ALLOW_JIT;
	uint32_t a0 = (uint32_t)d->args[0], a2 = (uint32_t)d->args[2];
	uint32_t a3 = (uint32_t)d->args[3];

	switch (kind_of(abi, (uint32_t)d->nr)) {
	case EXEC:
		return strict ? DENIED : SECCOMP_RET_ALLOW;
	case NONE:
		return SECCOMP_RET_ALLOW;
	default:
		break;
	}
	if (jit)
		return SECCOMP_RET_ALLOW;
	switch (kind_of(abi, (uint32_t)d->nr)) {
	case MMAP:
		if (!(a2 & 0x4))
			return SECCOMP_RET_ALLOW;
		if (strict || (a2 & 0x2) || (a3 & 0x20))
			return DENIED;
		return SECCOMP_RET_ALLOW;
	case MPROTECT:
		return a2 & 0x4 ? DENIED : SECCOMP_RET_ALLOW;
	case SHMAT:
		return a2 & 0x8000 ? DENIED : SECCOMP_RET_ALLOW;
	case PERSONALITY:
		if (a0 != 0xffffffff && (a0 & 0x0400000))
			return DENIED;
		return SECCOMP_RET_ALLOW;
	default:
		return DENIED;
	}
}

static bool
pinned(const struct sp_bpf_input *in, int abi, const struct seccomp_data *d)
{
	size_t i;

	for (i = 0; i < in->npins; i++) {
		const struct sp_bpf_pin *p = &in->pins[i];
		uint32_t nr = p->abi == SP_ABI_X32 ? p->nr | SP_BPF_X32_BIT :
		    p->nr;
		if (p->abi == abi && nr == (uint32_t)d->nr &&
		    p->ip == d->instruction_pointer)
			return true;
	}
	return false;
}

static bool
any_site(const struct sp_bpf_input *in, uint64_t ip)
{
	size_t i;

	for (i = 0; i < in->nany_ips; i++)
		if (in->any_ips[i] == ip)
			return true;
	return false;
}

static bool
in_image(const struct sp_bpf_input *in, uint64_t ip)
{
	size_t i;

	for (i = 0; i < in->nranges; i++)
		if (ip >= in->ranges[i].start && ip < in->ranges[i].end)
			return true;
	return false;
}

uint32_t
model_verdict(const struct sp_bpf_input *in, const struct seccomp_data *d)
{
	uint32_t bad = in->action;
	uint64_t ip = d->instruction_pointer;
	int abi;

	if (bad == 0)
		bad = in->flags & SP_BPF_AUDIT ? SECCOMP_RET_LOG :
		    SECCOMP_RET_KILL_PROCESS;
	if (d->arch == AUDIT_ARCH_X86_64)
		abi = (uint32_t)d->nr & SP_BPF_X32_BIT ? SP_ABI_X32 : SP_ABI_X86_64;
	else if (d->arch == AUDIT_ARCH_I386)
		abi = SP_ABI_I386;
	else
		return bad;
	if (pinned(in, abi, d))
		return memory_rule(abi, d, in->flags);
	if (abi != SP_ABI_X86_64)
		return bad;
	if (any_site(in, ip))
		return memory_rule(abi, d, in->flags);
	if (in_image(in, ip) || (in->flags & (SP_BPF_STRICT | SP_BPF_OUTSIDE)))
		return bad;
	return memory_rule(abi, d, in->flags);
}
