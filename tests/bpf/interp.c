/* SPDX-License-Identifier: ISC */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "interp.h"

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

int
sp_interp_check(const struct sock_filter *f, size_t n, char *why,
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
	return 0;
}

static uint32_t
alu(uint16_t code, uint32_t a, uint32_t v, bool *zero)
{
	switch (BPF_OP(code)) {
	case BPF_ADD: return a + v;
	case BPF_SUB: return a - v;
	case BPF_MUL: return a * v;
	case BPF_DIV:
		if (v == 0)
			*zero = true;
		return v ? a / v : 0;
	case BPF_AND: return a & v;
	case BPF_OR: return a | v;
	case BPF_XOR: return a ^ v;
	case BPF_LSH: return v < 32 ? a << v : 0;
	case BPF_RSH: return v < 32 ? a >> v : 0;
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

uint32_t
sp_interp_run(const struct sock_filter *f, size_t n,
    const struct seccomp_data *d, size_t *steps)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 }, w;
	size_t pc = 0, count = 0;
	bool zero = false;

	while (pc < n) {
		const struct sock_filter *i = &f[pc++];
		uint32_t v = BPF_SRC(i->code) == BPF_X ? x : i->k;
		count++;
		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (BPF_MODE(i->code) == BPF_ABS) {
				memcpy(&w, (const char *)d + i->k, sizeof(w));
				a = w;
			} else if (BPF_MODE(i->code) == BPF_LEN)
				a = sizeof(*d);
			else if (BPF_MODE(i->code) == BPF_IMM)
				a = i->k;
			else
				a = mem[i->k];
			break;
		case BPF_LDX:
			x = BPF_MODE(i->code) == BPF_LEN ? sizeof(*d) :
			    BPF_MODE(i->code) == BPF_IMM ? i->k : mem[i->k];
			break;
		case BPF_ST:
			mem[i->k] = a;
			break;
		case BPF_STX:
			mem[i->k] = x;
			break;
		case BPF_ALU:
			a = alu(i->code, a, v, &zero);
			if (zero)	/* classic BPF: division by 0 returns 0 */
				goto out_zero;
			break;
		case BPF_JMP:
			if (BPF_OP(i->code) == BPF_JA)
				pc += i->k;
			else
				pc += cond(i->code, a, v) ? i->jt : i->jf;
			break;
		case BPF_RET:
			if (steps != NULL)
				*steps = count;
			return BPF_RVAL(i->code) == BPF_A ? a : i->k;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		}
	}
out_zero:
	if (steps != NULL)
		*steps = count;
	return 0;
}

int
sp_interp_cmp_action(uint32_t a, uint32_t b)
{
	int32_t x = (int32_t)(a & SECCOMP_RET_ACTION_FULL);
	int32_t y = (int32_t)(b & SECCOMP_RET_ACTION_FULL);

	return x < y ? -1 : x > y;
}

uint32_t
sp_interp_run_set(const struct sock_fprog *progs, size_t n,
    const struct seccomp_data *d, size_t *steps)
{
	uint32_t best = SECCOMP_RET_ALLOW, r;
	size_t i, s, total = 0;

	for (i = 0; i < n; i++) {
		r = sp_interp_run(progs[i].filter, progs[i].len, d, &s);
		total += s;
		if (sp_interp_cmp_action(r, best) < 0)
			best = r;
	}
	if (steps != NULL)
		*steps = total;
	return best;
}
