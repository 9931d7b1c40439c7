/* SPDX-License-Identifier: ISC */
/*
 * What an allowed call may still not do: make executable memory (the
 * filter lets anything outside the pinned image through, so new code
 * would escape the pins), or exec with SP_BPF_STRICT.  Numbers per ABI
 * from arch/x86/entry/syscalls/syscall_{64,32}.tbl.
 */
#include <linux/seccomp.h>
#include <errno.h>

#include "bpf_int.h"

#define PROT_WRITE_	0x2u
#define PROT_EXEC_	0x4u
#define MAP_ANON_	0x20u
#define SHM_EXEC_	0x8000u		/* 0100000 */
#define READ_IMPLIES_EXEC_ 0x0400000u

enum rule { R_NONE, R_MMAP, R_MPROTECT, R_SHMAT, R_PERSONA, R_EXEC,
	R_OPAQUE };

struct numrule {
	uint32_t nr;
	enum rule rule;
};

static const struct numrule x86_64_rules[] = {
	{ 9, R_MMAP }, { 10, R_MPROTECT }, { 30, R_SHMAT }, { 59, R_EXEC },
	{ 135, R_PERSONA }, { 322, R_EXEC }, { 329, R_MPROTECT },
};

#define X SP_BPF_X32_BIT
static const struct numrule x32_rules[] = {
	{ X | 9, R_MMAP }, { X | 10, R_MPROTECT }, { X | 30, R_SHMAT },
	{ X | 135, R_PERSONA }, { X | 329, R_MPROTECT }, { X | 520, R_EXEC },
	{ X | 545, R_EXEC },
};
#undef X

/* old mmap (90) and ipc (117) take their arguments through memory or
 * multiplex: they cannot be inspected, so they are refused. */
static const struct numrule i386_rules[] = {
	{ 11, R_EXEC }, { 90, R_OPAQUE }, { 117, R_OPAQUE },
	{ 125, R_MPROTECT }, { 136, R_PERSONA }, { 192, R_MMAP },
	{ 358, R_EXEC }, { 380, R_MPROTECT }, { 397, R_SHMAT },
};

static const uint32_t x86_64_nrs[] = { 9, 10, 30, 59, 135, 322, 329,
	UINT32_MAX };
static const uint32_t x32_nrs[] = { SP_BPF_X32_BIT | 9, SP_BPF_X32_BIT | 10,
	SP_BPF_X32_BIT | 30, SP_BPF_X32_BIT | 135, SP_BPF_X32_BIT | 329,
	SP_BPF_X32_BIT | 520, SP_BPF_X32_BIT | 545, UINT32_MAX };
static const uint32_t i386_nrs[] = { 11, 90, 117, 125, 136, 192, 358, 380,
	397, UINT32_MAX };

const uint32_t *
policy_numbers(int abi)
{
	switch (abi) {
	case SP_ABI_I386:
		return i386_nrs;
	case SP_ABI_X32:
		return x32_nrs;
	default:
		return x86_64_nrs;
	}
}

static enum rule
rule_of(int abi, uint32_t nr)
{
	const struct numrule *r;
	size_t n, i;

	if (abi == SP_ABI_I386) {
		r = i386_rules;
		n = sizeof(i386_rules) / sizeof(*r);
	} else if (abi == SP_ABI_X32) {
		r = x32_rules;
		n = sizeof(x32_rules) / sizeof(*r);
	} else {
		r = x86_64_rules;
		n = sizeof(x86_64_rules) / sizeof(*r);
	}
	for (i = 0; i < n; i++)
		if (r[i].nr == nr)
			return r[i].rule;
	return R_NONE;
}

struct cont
policy_cont(int abi, uint32_t nr, unsigned flags)
{
	bool strict = flags & SP_BPF_STRICT, jit = flags & SP_BPF_ALLOW_JIT;
	enum rule r = rule_of(abi, nr);

	if (r == R_EXEC)
		return (struct cont){ strict ? C_DENY : C_ALLOW, 0 };
	if (r == R_NONE || jit)
		return (struct cont){ C_ALLOW, 0 };
	switch (r) {
	case R_MMAP:
		if (strict)
			return (struct cont){ C_ARG2_MASK, PROT_EXEC_ };
		return (struct cont){ C_MMAP, 0 };
	case R_MPROTECT:
		return (struct cont){ C_ARG2_MASK, PROT_EXEC_ };
	case R_SHMAT:
		return (struct cont){ C_ARG2_MASK, SHM_EXEC_ };
	case R_PERSONA:
		return (struct cont){ C_PERSONA, 0 };
	default:
		return (struct cont){ C_DENY, 0 };
	}
}

/*
 * Emits the argument checks of c into frag (nothing for a plain allow or
 * deny) and returns the label to jump to once the call's site is allowed.
 */
uint32_t
emit_cont(struct asm_ctx *a, uint32_t frag, struct cont c, uint32_t allow,
    uint32_t eacces)
{
	uint32_t start, next;

	if (c.kind == C_ALLOW)
		return allow;
	if (c.kind == C_DENY)
		return eacces;
	start = asm_label(a);
	next = asm_label(a);
	asm_bind(a, start, frag);
	switch (c.kind) {
	case C_ARG2_MASK:
		asm_ld(a, frag, OFF_ARG_LO(2));
		asm_emit(a, frag, BPF_JMP | BPF_JSET | BPF_K, c.mask, eacces,
		    allow);
		break;
	case C_MMAP:
		asm_ld(a, frag, OFF_ARG_LO(2));
		asm_emit(a, frag, BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC_, next,
		    allow);
		asm_bind(a, next, frag);
		asm_emit(a, frag, BPF_JMP | BPF_JSET | BPF_K, PROT_WRITE_,
		    eacces, next = asm_label(a));
		asm_bind(a, next, frag);
		asm_ld(a, frag, OFF_ARG_LO(3));
		asm_emit(a, frag, BPF_JMP | BPF_JSET | BPF_K, MAP_ANON_, eacces,
		    allow);
		break;
	case C_PERSONA:
		/* 0xffffffff only queries the persona */
		asm_ld(a, frag, OFF_ARG_LO(0));
		asm_emit(a, frag, BPF_JMP | BPF_JEQ | BPF_K, UINT32_MAX, allow,
		    next);
		asm_bind(a, next, frag);
		asm_emit(a, frag, BPF_JMP | BPF_JSET | BPF_K,
		    READ_IMPLIES_EXEC_, eacces, allow);
		break;
	default:
		break;
	}
	return start;
}
