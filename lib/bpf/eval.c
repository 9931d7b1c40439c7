/* SPDX-License-Identifier: ISC */
/*
 * The one evaluator of seccomp programs.  The supervisor judges a stop
 * with the image's own program (lib/supervise/verdict.c) and orders the
 * installation of a split program with it; the tests check generated
 * programs with it, and tests/bpf/test_eval_kernel.c runs random programs
 * here and in the kernel and compares.
 *
 * sp_bpf_check accepts what the kernel accepts for a seccomp filter
 * (bpf_check_classic and seccomp_check_filter): the seccomp subset of
 * opcodes, aligned loads inside struct seccomp_data, scratch slots below
 * BPF_MEMWORDS, no division by a constant 0 or shift by 32 or more, every
 * jump inside the program, a return last.  sp_bpf_run runs a checked
 * program; an unchecked one that would leave the program or read outside
 * seccomp_data kills.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bpf/bpf.h"

static int
bad(char *why, size_t len, size_t pc, const char *what)
{
	if (why != NULL)
		snprintf(why, len, "insn %zu: %s", pc, what);
	return -1;
}

static bool
alu_ok(const struct sock_filter *i)
{
	switch (BPF_OP(i->code)) {
	case BPF_ADD: case BPF_SUB: case BPF_MUL: case BPF_AND:
	case BPF_OR: case BPF_XOR:
		return true;
	case BPF_DIV:
		return BPF_SRC(i->code) == BPF_X || i->k != 0;
	case BPF_LSH: case BPF_RSH:
		return BPF_SRC(i->code) == BPF_X || i->k < 32;
	case BPF_NEG:
		return BPF_SRC(i->code) == BPF_K;
	default:
		return false;
	}
}

/* Whether the opcode is one seccomp takes, with valid operands. */
static const char *
op_problem(const struct sock_filter *i)
{
	switch (i->code) {
	case BPF_LD | BPF_W | BPF_ABS:
		if (i->k >= sizeof(struct seccomp_data) || i->k % 4 != 0)
			return "load outside seccomp_data or unaligned";
		return NULL;
	case BPF_LD | BPF_W | BPF_LEN: case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_LD | BPF_IMM: case BPF_LDX | BPF_W | BPF_IMM:
	case BPF_RET | BPF_K: case BPF_RET | BPF_A:
	case BPF_MISC | BPF_TAX: case BPF_MISC | BPF_TXA:
	case BPF_JMP | BPF_JA:
	case BPF_JMP | BPF_JEQ | BPF_K: case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K: case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K: case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K: case BPF_JMP | BPF_JSET | BPF_X:
		return NULL;
	case BPF_LD | BPF_MEM: case BPF_LDX | BPF_W | BPF_MEM:
	case BPF_ST: case BPF_STX:
		return i->k < BPF_MEMWORDS ? NULL : "scratch slot out of range";
	default:
		if (BPF_CLASS(i->code) == BPF_ALU)
			return alu_ok(i) ? NULL : "bad ALU operation";
		return "opcode not allowed in seccomp";
	}
}

/*
 * A scratch slot must be written on every path before it is read (the
 * kernel's check_load_and_stores): the slots known written flow forward,
 * intersected where jumps meet.
 */
static int
check_slots(const struct sock_filter *f, size_t n, char *why, size_t whylen)
{
	uint16_t masks[BPF_MAXINSNS], valid = 0;
	size_t pc;

	memset(masks, 0xff, n * sizeof(*masks));
	for (pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		valid &= masks[pc];
		if (i->code == BPF_ST || i->code == BPF_STX)
			valid |= (uint16_t)(1u << i->k);
		else if (i->code == (BPF_LD | BPF_MEM) ||
		    i->code == (BPF_LDX | BPF_W | BPF_MEM)) {
			if (!(valid & (1u << i->k)))
				return bad(why, whylen, pc,
				    "scratch slot read before written");
		} else if (i->code == (BPF_JMP | BPF_JA)) {
			masks[pc + 1 + i->k] &= valid;
			valid = 0xffff;
		} else if (BPF_CLASS(i->code) == BPF_JMP) {
			masks[pc + 1 + i->jt] &= valid;
			masks[pc + 1 + i->jf] &= valid;
			valid = 0xffff;
		}
	}
	return 0;
}

int
sp_bpf_check(const struct sock_filter *f, size_t n, char *why,
    size_t whylen)
{
	const char *p;
	size_t pc;

	if (n == 0 || n > BPF_MAXINSNS)
		return bad(why, whylen, 0, "bad program length");
	for (pc = 0; pc < n; pc++) {
		if ((p = op_problem(&f[pc])) != NULL)
			return bad(why, whylen, pc, p);
		if (f[pc].code == (BPF_JMP | BPF_JA)) {
			if (f[pc].k >= n - pc - 1)
				return bad(why, whylen, pc, "jump out of range");
		} else if (BPF_CLASS(f[pc].code) == BPF_JMP) {
			if (pc + 1 + f[pc].jt >= n || pc + 1 + f[pc].jf >= n)
				return bad(why, whylen, pc,
				    "conditional jump out of range");
		}
	}
	if (BPF_CLASS(f[n - 1].code) != BPF_RET)
		return bad(why, whylen, n - 1, "last instruction not a return");
	return check_slots(f, n, why, whylen);
}

static uint32_t
alu(uint16_t code, uint32_t a, uint32_t v)
{
	switch (BPF_OP(code)) {
	case BPF_ADD: return a + v;
	case BPF_SUB: return a - v;
	case BPF_MUL: return a * v;
	case BPF_DIV: return a / v;	/* v != 0: checked by the caller */
	case BPF_AND: return a & v;
	case BPF_OR: return a | v;
	case BPF_XOR: return a ^ v;
	/* the kernel takes a shift count modulo 32, as x86 does */
	case BPF_LSH: return a << (v & 31);
	case BPF_RSH: return a >> (v & 31);
	case BPF_NEG: return -a;
	default: return 0;
	}
}

static bool
cond(uint16_t code, uint32_t a, uint32_t v)
{
	switch (BPF_OP(code)) {
	case BPF_JEQ: return a == v;
	case BPF_JGT: return a > v;
	case BPF_JGE: return a >= v;
	case BPF_JSET: return (a & v) != 0;
	default: return false;
	}
}

/* The registers of one run. */
struct regs {
	uint32_t a, x, mem[BPF_MEMWORDS];
};

/* A load's value; false for an offset or slot an unchecked program
 * should not have. */
static bool
load(const struct sock_filter *i, const struct seccomp_data *d,
    const struct regs *r, uint32_t *v)
{
	switch (BPF_MODE(i->code)) {
	case BPF_ABS:
		if (i->k > sizeof(*d) - 4 || i->k % 4 != 0)
			return false;
		memcpy(v, (const char *)d + i->k, sizeof(*v));
		return true;
	case BPF_LEN:
		*v = sizeof(*d);
		return true;
	case BPF_IMM:
		*v = i->k;
		return true;
	default:
		if (i->k >= BPF_MEMWORDS)
			return false;
		*v = r->mem[i->k];
		return true;
	}
}

/*
 * One instruction that is not a return.  False when the run ends here:
 * a division by zero, or what a checked program cannot hold.
 */
static bool
step(const struct sock_filter *i, const struct seccomp_data *d,
    struct regs *r, size_t *pc)
{
	uint32_t v = BPF_SRC(i->code) == BPF_X ? r->x : i->k;

	switch (BPF_CLASS(i->code)) {
	case BPF_LD:
		return load(i, d, r, &r->a);
	case BPF_LDX:
		return load(i, d, r, &r->x);
	case BPF_ST:
	case BPF_STX:
		if (i->k >= BPF_MEMWORDS)
			return false;
		r->mem[i->k] = BPF_CLASS(i->code) == BPF_ST ? r->a : r->x;
		return true;
	case BPF_ALU:
		if (BPF_OP(i->code) == BPF_DIV && v == 0)
			return false;
		r->a = alu(i->code, r->a, v);
		return true;
	case BPF_JMP:
		*pc += BPF_OP(i->code) == BPF_JA ? i->k :
		    cond(i->code, r->a, v) ? i->jt : i->jf;
		return true;
	default:			/* BPF_MISC */
		if (BPF_MISCOP(i->code) == BPF_TAX)
			r->x = r->a;
		else
			r->a = r->x;
		return true;
	}
}

uint32_t
sp_bpf_run(const struct sock_filter *f, size_t n,
    const struct seccomp_data *d, size_t *steps)
{
	struct regs r;
	size_t pc = 0, count = 0;
	uint32_t ret = SECCOMP_RET_KILL_PROCESS;

	memset(&r, 0, sizeof(r));
	while (pc < n) {
		const struct sock_filter *i = &f[pc++];
		count++;
		if (BPF_CLASS(i->code) == BPF_RET) {
			ret = BPF_RVAL(i->code) == BPF_A ? r.a : i->k;
			break;
		}
		if (!step(i, d, &r, &pc)) {
			/* a division by zero returns 0 (KILL_THREAD) */
			ret = BPF_CLASS(i->code) == BPF_ALU ? 0 :
			    SECCOMP_RET_KILL_PROCESS;
			break;
		}
		if (pc >= n)		/* jumped out: unchecked */
			break;
	}
	if (steps != NULL)
		*steps = count;
	return ret;
}

int
sp_bpf_cmp_action(uint32_t a, uint32_t b)
{
	int32_t x = (int32_t)(a & SECCOMP_RET_ACTION_FULL);
	int32_t y = (int32_t)(b & SECCOMP_RET_ACTION_FULL);

	return x < y ? -1 : x > y;
}

uint32_t
sp_bpf_run_all(const struct sp_bpf_prog *progs, size_t n,
    const struct seccomp_data *d, size_t *steps)
{
	uint32_t best = SECCOMP_RET_ALLOW, r;
	size_t i, s, total = 0;

	/* progs[0] is installed last (sp_bpf_install): the kernel runs it
	 * first, and on a tie the first result stays */
	for (i = 0; i < n; i++) {
		r = sp_bpf_run(progs[i].insns, progs[i].len, d, &s);
		total += s;
		if (sp_bpf_cmp_action(r, best) < 0)
			best = r;
	}
	if (steps != NULL)
		*steps = total;
	return best;
}
