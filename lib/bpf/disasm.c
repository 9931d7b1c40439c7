/* SPDX-License-Identifier: ISC */
/*
 * A disassembler for classic BPF seccomp programs, in the format of
 * libseccomp's scmp_bpf_disasm (syspin filter): index, the raw fields,
 * then the operation with its operand, jump targets as indices and
 * return values as actions.
 */
#include <linux/seccomp.h>
#include <stdio.h>

#include "bpf/bpf.h"

static const char *
op_name(uint16_t code)
{
	switch (BPF_CLASS(code)) {
	case BPF_LD:
		return BPF_SIZE(code) == BPF_H ? "ldh" : BPF_SIZE(code) ==
		    BPF_B ? "ldb" : "ld";
	case BPF_LDX:
		return "ldx";
	case BPF_ST:
		return "st";
	case BPF_STX:
		return "stx";
	case BPF_RET:
		return "ret";
	case BPF_MISC:
		return BPF_MISCOP(code) == BPF_TAX ? "tax" : "txa";
	case BPF_ALU:
		switch (BPF_OP(code)) {
		case BPF_ADD: return "add";
		case BPF_SUB: return "sub";
		case BPF_MUL: return "mul";
		case BPF_DIV: return "div";
		case BPF_OR: return "or";
		case BPF_AND: return "and";
		case BPF_LSH: return "lsh";
		case BPF_RSH: return "rsh";
		case BPF_NEG: return "neg";
		case BPF_MOD: return "mod";
		case BPF_XOR: return "xor";
		default: return "???";
		}
	case BPF_JMP:
		switch (BPF_OP(code)) {
		case BPF_JA: return "jmp";
		case BPF_JEQ: return "jeq";
		case BPF_JGT: return "jgt";
		case BPF_JGE: return "jge";
		case BPF_JSET: return "jset";
		default: return "???";
		}
	default:
		return "???";
	}
}

static int
action(char *buf, size_t size, uint32_t k)
{
	uint32_t data = k & SECCOMP_RET_DATA;

	switch (k & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
		return snprintf(buf, size, "KILL_PROCESS");
	case SECCOMP_RET_KILL_THREAD:
		return snprintf(buf, size, "KILL");
	case SECCOMP_RET_TRAP:
		return snprintf(buf, size, "TRAP");
	case SECCOMP_RET_ERRNO:
		return snprintf(buf, size, "ERRNO(%u)", data);
	case SECCOMP_RET_TRACE:
		return snprintf(buf, size, "TRACE(%u)", data);
	case SECCOMP_RET_LOG:
		return snprintf(buf, size, "LOG");
	case SECCOMP_RET_ALLOW:
		return snprintf(buf, size, "ALLOW");
	default:
		return snprintf(buf, size, "0x%.8x", k);
	}
}

static int
operand(char *buf, size_t size, const struct sock_filter *f, size_t i)
{
	unsigned next = (unsigned)i + 1;

	switch (BPF_CLASS(f->code)) {
	case BPF_LD:
	case BPF_LDX:
		switch (BPF_MODE(f->code)) {
		case BPF_ABS: return snprintf(buf, size, "$data[%u]", f->k);
		case BPF_MEM: return snprintf(buf, size, "$temp[%u]", f->k);
		case BPF_IMM: return snprintf(buf, size, "%u", f->k);
		case BPF_IND:
			return snprintf(buf, size, "$data[X + %u]", f->k);
		case BPF_LEN: return snprintf(buf, size, "len($data)");
		default:
			return snprintf(buf, size, "4 * $data[%u] & 0x0f",
			    f->k);
		}
	case BPF_ST:
	case BPF_STX:
		return snprintf(buf, size, "$temp[%u]", f->k);
	case BPF_ALU:
		if (BPF_SRC(f->code) == BPF_K && (BPF_OP(f->code) == BPF_OR ||
		    BPF_OP(f->code) == BPF_AND))
			return snprintf(buf, size, "0x%.8x", f->k);
		return snprintf(buf, size, "%u", f->k);
	case BPF_JMP:
		if (BPF_OP(f->code) == BPF_JA)
			return snprintf(buf, size, "%.4u", next + f->k);
		return snprintf(buf, size, "%-4u true:%.4u false:%.4u", f->k,
		    next + f->jt, next + f->jf);
	case BPF_RET:
		if (BPF_RVAL(f->code) == BPF_A)
			return snprintf(buf, size, "$acc");
		if (BPF_SRC(f->code) == BPF_K)
			return action(buf, size, f->k);
		return snprintf(buf, size, "???");
	case BPF_MISC:
		if (size > 0)
			buf[0] = '\0';
		return 0;
	default:
		return snprintf(buf, size, "???");
	}
}

int
sp_bpf_disasm(const struct sock_filter *prog, size_t i, char *buf,
    size_t size)
{
	const struct sock_filter *f = &prog[i];
	char arg[64];

	operand(arg, sizeof(arg), f, i);
	return snprintf(buf, size, " %.4u: 0x%.2x 0x%.2x 0x%.2x 0x%.8x   "
	    "%-3s %s", (unsigned)i, f->code, f->jt, f->jf, f->k,
	    op_name(f->code), arg);
}
