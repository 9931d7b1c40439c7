/* SPDX-License-Identifier: ISC */
/*
 * Zydis -> struct insn.  Each instruction is reduced to its control flow
 * and one effect on the tracked state; anything we do not model precisely
 * only makes the registers it writes unknown, which is always sound.
 */
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "elf/sites.h"

#include "util/search.h"
#include "decode.h"

struct decoder {
	ZydisDecoder z;
};

/* Registers a `call` may change (System V caller-saved). */
#define CALLER_SAVED ((1u << SP_REG_RAX) | (1u << SP_REG_RCX) | \
    (1u << SP_REG_RDX) | (1u << SP_REG_RSI) | (1u << SP_REG_RDI) | \
    (1u << SP_REG_R8) | (1u << SP_REG_R9) | (1u << SP_REG_R10) | \
    (1u << SP_REG_R11))

struct decoder *
sp_decoder_new(void)
{
	struct decoder *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return NULL;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&d->z, ZYDIS_MACHINE_MODE_LONG_64,
	    ZYDIS_STACK_WIDTH_64))) {
		free(d);
		return NULL;
	}
	return d;
}

void
sp_decoder_free(struct decoder *d)
{
	free(d);
}

void
sp_insn_list_free(struct insn_list *l)
{
	free(l->v);
	free(l->jt);
	memset(l, 0, sizeof(*l));
}

long
sp_insn_index(const struct insn_list *l, uint64_t addr)
{
	size_t i = SP_LOWER_BOUND(l->v, l->n, addr, addr);

	return i < l->n && l->v[i].addr == addr ? (long)i : -1;
}

/* A general-purpose register as enum sp_reg, or -1 (incl. ah..bh). */
static int
gpr(ZydisRegister r)
{
	ZydisRegister big;

	if (r == ZYDIS_REGISTER_NONE || (r >= ZYDIS_REGISTER_AH &&
	    r <= ZYDIS_REGISTER_BH))
		return -1;
	big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	if (big < ZYDIS_REGISTER_RAX || big > ZYDIS_REGISTER_R15)
		return -1;
	return (int)(big - ZYDIS_REGISTER_RAX);
}

static int
reg_width(ZydisRegister r)
{
	return ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, r) / 8;
}

/* Every register the instruction writes, as a mask. */
static uint16_t
written_regs(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op)
{
	uint16_t mask = 0;

	for (unsigned i = 0; i < in->operand_count; i++) {
		int r;
		if (op[i].type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    !(op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		if (op[i].reg.value >= ZYDIS_REGISTER_AH &&
		    op[i].reg.value <= ZYDIS_REGISTER_BH) {
			/* ah..bh: the enclosing register changes */
			r = gpr(ZydisRegisterGetLargestEnclosing(
			    ZYDIS_MACHINE_MODE_LONG_64, op[i].reg.value));
		} else {
			r = gpr(op[i].reg.value);
		}
		if (r >= 0)
			mask |= (uint16_t)(1u << r);
	}
	return mask;
}

/* True for [base + disp] with a general-purpose base and no index. */
static bool
simple_mem(const ZydisDecodedOperand *op)
{
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	    op->mem.index == ZYDIS_REGISTER_NONE &&
	    (op->mem.segment == ZYDIS_REGISTER_DS ||
	    op->mem.segment == ZYDIS_REGISTER_SS ||
	    op->mem.segment == ZYDIS_REGISTER_NONE) && gpr(op->mem.base) >= 0;
}

static bool
is_reg(const ZydisDecodedOperand *op)
{
	return op->type == ZYDIS_OPERAND_TYPE_REGISTER && gpr(op->reg.value) >= 0;
}

static void
effect_mov(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
    uint64_t addr, struct effect *e)
{
	if (is_reg(&op[0]) && op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		e->op = EFF_CONST;
		e->dst = (int8_t)gpr(op[0].reg.value);
		e->width = (uint8_t)reg_width(op[0].reg.value);
		e->imm = op[1].imm.is_signed ? op[1].imm.value.s :
		    (int64_t)op[1].imm.value.u;
	} else if (is_reg(&op[0]) && is_reg(&op[1])) {
		e->op = EFF_COPY;
		e->dst = (int8_t)gpr(op[0].reg.value);
		e->src = (int8_t)gpr(op[1].reg.value);
		e->width = (uint8_t)reg_width(op[0].reg.value);
	} else if (is_reg(&op[0]) && op[1].type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    op[1].mem.base == ZYDIS_REGISTER_RIP &&
	    op[1].mem.index == ZYDIS_REGISTER_NONE &&
	    reg_width(op[0].reg.value) >= 4) {
		e->op = EFF_LOAD_GLOBAL;
		e->dst = (int8_t)gpr(op[0].reg.value);
		e->imm = (int64_t)(addr + in->length +
		    (uint64_t)op[1].mem.disp.value);
		e->width = (uint8_t)reg_width(op[0].reg.value);
	} else if (is_reg(&op[1]) && op[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    op[0].mem.base == ZYDIS_REGISTER_RIP &&
	    op[0].mem.index == ZYDIS_REGISTER_NONE) {
		e->op = EFF_STORE_GLOBAL;
		e->dst = (int8_t)gpr(op[1].reg.value);
		e->imm = (int64_t)(addr + in->length +
		    (uint64_t)op[0].mem.disp.value);
		e->width = (uint8_t)(op[0].size / 8);
	} else if (is_reg(&op[0]) && simple_mem(&op[1])) {
		e->op = EFF_LOAD;
		e->dst = (int8_t)gpr(op[0].reg.value);
		e->src = (int8_t)gpr(op[1].mem.base);
		e->imm = op[1].mem.disp.value;
		e->width = (uint8_t)reg_width(op[0].reg.value);
	} else if (simple_mem(&op[0]) && is_reg(&op[1])) {
		e->op = EFF_STORE;
		e->dst = (int8_t)gpr(op[1].reg.value);
		e->src = (int8_t)gpr(op[0].mem.base);
		e->imm = op[0].mem.disp.value;
		e->width = (uint8_t)(op[0].size / 8);
	} else if (simple_mem(&op[0]) &&
	    op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		e->op = EFF_STORE_IMM;
		e->src = (int8_t)gpr(op[0].mem.base);
		e->imm = op[0].mem.disp.value;
		e->imm2 = op[1].imm.is_signed ? op[1].imm.value.s :
		    (int64_t)op[1].imm.value.u;
		e->width = (uint8_t)(op[0].size / 8);
	}
}

static bool
alu_of(ZydisMnemonic m, uint8_t *alu)
{
	switch (m) {
	case ZYDIS_MNEMONIC_ADD: *alu = ALU_ADD; return true;
	case ZYDIS_MNEMONIC_SUB: *alu = ALU_SUB; return true;
	case ZYDIS_MNEMONIC_AND: *alu = ALU_AND; return true;
	case ZYDIS_MNEMONIC_OR: *alu = ALU_OR; return true;
	case ZYDIS_MNEMONIC_XOR: *alu = ALU_XOR; return true;
	case ZYDIS_MNEMONIC_SHL: *alu = ALU_SHL; return true;
	case ZYDIS_MNEMONIC_SHR: *alu = ALU_SHR; return true;
	default: return false;
	}
}

static void
effect_alu(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
    struct effect *e)
{
	uint8_t alu;

	if (!alu_of(in->mnemonic, &alu) || !is_reg(&op[0]))
		return;
	if ((alu == ALU_XOR || alu == ALU_SUB) && is_reg(&op[1]) &&
	    op[0].reg.value == op[1].reg.value) {
		e->op = EFF_CONST;	/* xor eax, eax: the idiom for 0 */
		e->dst = (int8_t)gpr(op[0].reg.value);
		e->width = (uint8_t)reg_width(op[0].reg.value);
		e->imm = 0;
	} else if (op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		e->op = EFF_ALU_IMM;
		e->alu = alu;
		e->dst = (int8_t)gpr(op[0].reg.value);
		e->width = (uint8_t)reg_width(op[0].reg.value);
		e->imm = op[1].imm.is_signed ? op[1].imm.value.s :
		    (int64_t)op[1].imm.value.u;
	}
}

static void
effect_lea(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
    uint64_t addr, struct effect *e)
{
	if (!is_reg(&op[0]) || op[1].type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    op[1].mem.index != ZYDIS_REGISTER_NONE)
		return;
	e->dst = (int8_t)gpr(op[0].reg.value);
	e->width = (uint8_t)reg_width(op[0].reg.value);
	if (op[1].mem.base == ZYDIS_REGISTER_RIP) {
		e->op = EFF_CONST;
		e->imm = (int64_t)(addr + in->length +
		    (uint64_t)op[1].mem.disp.value);
	} else if (gpr(op[1].mem.base) >= 0) {
		e->op = EFF_COPY;
		e->src = (int8_t)gpr(op[1].mem.base);
		e->imm = op[1].mem.disp.value;
	} else if (op[1].mem.base == ZYDIS_REGISTER_NONE) {
		e->op = EFF_CONST;
		e->imm = op[1].mem.disp.value;
	}
}

static void
effect_stack(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
    struct effect *e)
{
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_PUSH:
		if (is_reg(&op[0]) && reg_width(op[0].reg.value) == 8) {
			e->op = EFF_PUSH;
			e->src = (int8_t)gpr(op[0].reg.value);
		} else if (op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			e->op = EFF_PUSH_IMM;
			e->imm = op[0].imm.value.s;
		} else {
			e->op = EFF_PUSH_IMM;	/* pushed value unknown */
			e->mem_unknown = true;
		}
		break;
	case ZYDIS_MNEMONIC_POP:
		if (is_reg(&op[0]) && reg_width(op[0].reg.value) == 8) {
			e->op = EFF_POP;
			e->dst = (int8_t)gpr(op[0].reg.value);
		}
		break;
	case ZYDIS_MNEMONIC_LEAVE:
		e->op = EFF_LEAVE;
		break;
	default:
		break;
	}
}

/* Memory written by an instruction we do not model: note its base. */
static void
effect_mem_write(const ZydisDecodedInstruction *in,
    const ZydisDecodedOperand *op, struct effect *e)
{
	for (unsigned i = 0; i < in->operand_count; i++) {
		if (op[i].type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    !(op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		e->mem_unknown = true;
		e->src = (int8_t)gpr(op[i].mem.base);
		/* [base + disp] of a known size: only those bytes change. */
		if (simple_mem(&op[i]) && op[i].size / 8 <= 255) {
			e->imm = op[i].mem.disp.value;
			e->width = (uint8_t)(op[i].size / 8);
		}
		return;
	}
}

static void
fill_effect(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
    uint64_t addr, struct effect *e)
{
	uint16_t written = written_regs(in, op);

	memset(e, 0, sizeof(*e));
	e->dst = e->src = -1;
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_MOV: effect_mov(in, op, addr, e); break;
	case ZYDIS_MNEMONIC_LEA: effect_lea(in, op, addr, e); break;
	case ZYDIS_MNEMONIC_CMOVB: case ZYDIS_MNEMONIC_CMOVBE:
	case ZYDIS_MNEMONIC_CMOVL: case ZYDIS_MNEMONIC_CMOVLE:
	case ZYDIS_MNEMONIC_CMOVNB: case ZYDIS_MNEMONIC_CMOVNBE:
	case ZYDIS_MNEMONIC_CMOVNL: case ZYDIS_MNEMONIC_CMOVNLE:
	case ZYDIS_MNEMONIC_CMOVNO: case ZYDIS_MNEMONIC_CMOVNP:
	case ZYDIS_MNEMONIC_CMOVNS: case ZYDIS_MNEMONIC_CMOVNZ:
	case ZYDIS_MNEMONIC_CMOVO: case ZYDIS_MNEMONIC_CMOVP:
	case ZYDIS_MNEMONIC_CMOVS: case ZYDIS_MNEMONIC_CMOVZ:
		/* either value: joined (a name or number chosen so) */
		if (is_reg(&op[0]) && is_reg(&op[1]) &&
		    reg_width(op[0].reg.value) >= 4) {
			e->op = EFF_CMOV;
			e->dst = (int8_t)gpr(op[0].reg.value);
			e->src = (int8_t)gpr(op[1].reg.value);
			e->width = (uint8_t)reg_width(op[0].reg.value);
		} else
			effect_alu(in, op, e);
		break;
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_POP:
	case ZYDIS_MNEMONIC_LEAVE: effect_stack(in, op, e); break;
	default: effect_alu(in, op, e); break;
	}
	if (e->op == EFF_NONE)
		effect_mem_write(in, op, e);
	/* rsp changes of push/pop/leave are part of the effect itself. */
	if (e->op == EFF_PUSH || e->op == EFF_PUSH_IMM || e->op == EFF_POP ||
	    e->op == EFF_LEAVE)
		written &= (uint16_t)~((1u << SP_REG_RSP) | (1u << SP_REG_RBP));
	if (e->op != EFF_NONE && e->op != EFF_STORE && e->op != EFF_STORE_IMM &&
	    e->op != EFF_STORE_GLOBAL && e->op != EFF_PUSH &&
	    e->op != EFF_PUSH_IMM && e->dst >= 0)
		written &= (uint16_t)~(1u << e->dst);
	if (e->op == EFF_LEAVE)
		written &= (uint16_t)~(1u << SP_REG_RBP);
	e->clobber = written;
}

/* GOT slot of `call/jmp *disp(%rip)`, or 0. */
static uint64_t
rip_slot(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
    uint64_t addr)
{
	if (op[0].type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    op[0].mem.base != ZYDIS_REGISTER_RIP ||
	    op[0].mem.index != ZYDIS_REGISTER_NONE)
		return 0;
	return addr + in->length + (uint64_t)op[0].mem.disp.value;
}

static void
fill_flow(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
    uint64_t addr, struct insn *out)
{
	ZyanU64 target;
	bool direct = op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, &op[0], addr, &target));

	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		out->flow = direct ? FLOW_JCC : FLOW_NEXT;
		out->target = direct ? target : 0;
		out->jcc = in->mnemonic == ZYDIS_MNEMONIC_JZ ? JCC_EQ :
		    in->mnemonic == ZYDIS_MNEMONIC_JNZ ? JCC_NE : JCC_OTHER;
		return;
	case ZYDIS_CATEGORY_UNCOND_BR:
		out->flow = direct ? FLOW_JMP : FLOW_IJMP;
		out->target = direct ? target : rip_slot(in, op, addr);
		return;
	case ZYDIS_CATEGORY_CALL:
		out->flow = direct ? FLOW_CALL : FLOW_ICALL;
		out->target = direct ? target : rip_slot(in, op, addr);
		/* rsp is back where it was when the callee returns. */
		out->eff.clobber = (uint16_t)((out->eff.clobber | CALLER_SAVED) &
		    ~(1u << SP_REG_RSP));
		return;
	case ZYDIS_CATEGORY_RET:
		out->flow = FLOW_RET;
		return;
	default:
		break;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_SYSCALL:
		out->flow = FLOW_TRAP;
		out->trap = SP_TRAP_SYSCALL;
		break;
	case ZYDIS_MNEMONIC_SYSENTER:
		out->flow = FLOW_TRAP;
		out->trap = SP_TRAP_SYSENTER;
		break;
	case ZYDIS_MNEMONIC_INT:
		if (op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    op[0].imm.value.u == 0x80) {
			out->flow = FLOW_TRAP;
			out->trap = SP_TRAP_INT80;
		}
		break;
	case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2: case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_INT3:
		out->flow = FLOW_STOP;
		break;
	case ZYDIS_MNEMONIC_SYSRET: case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
		out->flow = FLOW_RET;
		break;
	default:
		break;
	}
}

/* What an instruction does with memory: global-constant inference asks. */
static void
fill_memory(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
    uint64_t addr, struct insn *x)
{
	x->is_lea = in->mnemonic == ZYDIS_MNEMONIC_LEA;
	for (unsigned i = 0; i < in->operand_count; i++) {
		if (op[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		if (op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
			x->mem_write = true;
		if (op[i].mem.base == ZYDIS_REGISTER_RIP)
			x->riprel = addr + in->length +
			    (uint64_t)op[i].mem.disp.value;
	}
}

/*
 * How unlike compiled 64-bit user code an instruction is.  Random data
 * decodes into I/O, far transfers, `ret imm16`, debug traps and odd byte
 * registers; compilers and hand-written libc assembly do not emit them.
 */
static uint8_t
oddity(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op)
{
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_IN: case ZYDIS_MNEMONIC_OUT:
	case ZYDIS_MNEMONIC_INSB: case ZYDIS_MNEMONIC_INSW:
	case ZYDIS_MNEMONIC_INSD: case ZYDIS_MNEMONIC_OUTSB:
	case ZYDIS_MNEMONIC_OUTSW: case ZYDIS_MNEMONIC_OUTSD:
	case ZYDIS_MNEMONIC_INT1: case ZYDIS_MNEMONIC_CLI:
	case ZYDIS_MNEMONIC_STI: case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD: case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_XLAT: case ZYDIS_MNEMONIC_ENTER:
		return ODD_STRONG;
	case ZYDIS_MNEMONIC_RET:
		/* ret imm16 pops arguments: not an x86-64 convention */
		return op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE ?
		    ODD_STRONG : ODD_NONE;
	case ZYDIS_MNEMONIC_INT:
		/* int $0x80 is a trap we report; int $3 (cd 03) is how Go's
		 * runtime.abort and others break into a debugger. */
		return op[0].imm.value.u == 0x80 || op[0].imm.value.u == 3 ?
		    ODD_NONE : ODD_STRONG;
	case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE: case ZYDIS_MNEMONIC_JRCXZ:
	case ZYDIS_MNEMONIC_FWAIT: case ZYDIS_MNEMONIC_LODSB:
	case ZYDIS_MNEMONIC_SCASB: case ZYDIS_MNEMONIC_CMPSB:
	case ZYDIS_MNEMONIC_SAHF: case ZYDIS_MNEMONIC_LAHF:
	case ZYDIS_MNEMONIC_CMC: case ZYDIS_MNEMONIC_STC:
		return ODD_WEAK;
	default:
		break;
	}
	if (in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		return ODD_STRONG;
	for (unsigned i = 0; i < in->operand_count_visible; i++)
		if (op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    op[i].reg.value >= ZYDIS_REGISTER_AH &&
		    op[i].reg.value <= ZYDIS_REGISTER_BH)
			return ODD_WEAK;
	return ODD_NONE;
}

/* Records the shapes jump-table recovery matches (see jumptable.c). */
static void
fill_pattern(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
    struct insn *x)
{
	x->pr1 = x->pr2 = -1;
	if (x->flow == FLOW_IJMP && is_reg(&op[0])) {
		x->pat = PAT_JMP_REG;
		x->pr1 = (int8_t)gpr(op[0].reg.value);
	} else if (x->flow == FLOW_IJMP &&
	    op[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    op[0].mem.base == ZYDIS_REGISTER_NONE &&
	    gpr(op[0].mem.index) >= 0 && op[0].mem.scale == 8) {
		x->pat = PAT_JMP_TABLE8;
		x->pr1 = (int8_t)gpr(op[0].mem.index);
		x->target = (uint64_t)op[0].mem.disp.value;
	} else if (in->mnemonic == ZYDIS_MNEMONIC_MOVSXD && is_reg(&op[0]) &&
	    op[1].type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    gpr(op[1].mem.base) >= 0 && op[1].mem.scale == 4 &&
	    op[1].mem.disp.value == 0) {
		x->pat = PAT_MOVSXD_TABLE;
		x->pr1 = (int8_t)gpr(op[0].reg.value);
		x->pr2 = (int8_t)gpr(op[1].mem.base);
	} else if (in->mnemonic == ZYDIS_MNEMONIC_CMP && is_reg(&op[0]) &&
	    op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		x->pat = PAT_CMP_IMM;
		x->pr1 = (int8_t)gpr(op[0].reg.value);
		x->pwidth = (uint8_t)reg_width(op[0].reg.value);
		x->pimm = op[1].imm.is_signed ? op[1].imm.value.s :
		    (int64_t)op[1].imm.value.u;
	} else if (in->mnemonic == ZYDIS_MNEMONIC_TEST && is_reg(&op[0]) &&
	    is_reg(&op[1]) && op[0].reg.value == op[1].reg.value) {
		x->pat = PAT_TEST_SELF;
		x->pr1 = (int8_t)gpr(op[0].reg.value);
		x->pwidth = (uint8_t)reg_width(op[0].reg.value);
		x->pimm = 0;
	} else if (in->mnemonic == ZYDIS_MNEMONIC_ADD && is_reg(&op[0]) &&
	    is_reg(&op[1]) && reg_width(op[0].reg.value) == 8) {
		x->pat = PAT_ADD_RR;
		x->pr1 = (int8_t)gpr(op[0].reg.value);
		x->pr2 = (int8_t)gpr(op[1].reg.value);
	}
}

static int
push(struct insn_list *l, const struct insn *in)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 256;
		struct insn *v = realloc(l->v, ncap * sizeof(*v));
		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = ncap;
	}
	l->v[l->n++] = *in;
	return 0;
}

/* Mnemonics whose control flow or trap kind needs the operands. */
static bool
needs_operands(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR: case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
		return true;
	default:
		return in->mnemonic == ZYDIS_MNEMONIC_INT;
	}
}

/*
 * Zero bytes after a terminator, up to an aligned address where code
 * resumes: Free Pascal pads between functions with zeros, not nops.
 * Decoded, `00 00` is `add %al,(%rax)` and `00 55 48` swallows the next
 * function's `push %rbp`, so the function would start at the wrong
 * place and its callers would not be found.  Returns the padding's
 * length, or 0.
 */
static unsigned
zero_padding(const uint8_t *p, uint64_t avail, uint64_t addr, uint64_t end)
{
	unsigned z = 0;

	while (z < 16 && z < avail && addr + z < end && p[z] == 0)
		z++;
	if (z == 0 || z == 16 || z >= avail || addr + z >= end ||
	    (addr + z) % 4 != 0)
		return 0;
	return z;
}

static bool
terminates(const struct insn *x)
{
	return x->flow == FLOW_RET || x->flow == FLOW_JMP ||
	    x->flow == FLOW_IJMP || x->flow == FLOW_STOP;
}

int
sp_decode_region(struct decoder *d, const uint8_t *code, uint64_t avail,
    uint64_t start, uint64_t end, bool effects, struct insn_list *out)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoderContext ctx;
	uint64_t off = 0;

	memset(out, 0, sizeof(*out));
	out->start = start;
	out->end = end;
	while (start + off < end && off < avail) {
		struct insn x = { .addr = start + off, .len = 1 };
		unsigned z;
		x.eff.dst = x.eff.src = -1;
		if (out->n > 0 && terminates(&out->v[out->n - 1]) &&
		    (z = zero_padding(code + off, avail - off, start + off,
		    end)) > 0) {
			x.len = (uint8_t)z;
			x.pad = true;
		} else if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d->z, &ctx,
		    code + off, avail - off, &in))) {
			x.flow = FLOW_INVALID;
			x.odd = ODD_STRONG;
			out->ninvalid++;
		} else {
			x.len = in.length;
			x.pad = in.mnemonic == ZYDIS_MNEMONIC_NOP ||
			    in.mnemonic == ZYDIS_MNEMONIC_INT3;
			memset(op, 0, sizeof(op));
			if ((effects || needs_operands(&in)) &&
			    !ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&d->z,
			    &ctx, &in, op, in.operand_count)))
				memset(op, 0, sizeof(op));
			if (effects)
				fill_effect(&in, op, x.addr, &x.eff);
			fill_flow(&in, op, x.addr, &x);
			x.odd = oddity(&in, op);
			if (effects) {
				fill_pattern(&in, op, &x);
				fill_memory(&in, op, x.addr, &x);
			}
		}
		if (push(out, &x) != 0)
			return -1;
		off += x.len;
	}
	return 0;
}
