/* SPDX-License-Identifier: ISC */
/*
 * The transfer functions of the data flow: what one instruction does to
 * the abstract registers and stack slots, and how two states join.
 */
#include <stdlib.h>
#include <string.h>

#include "dataflow.h"
#include "transfer.h"

void
sp_state_entry(struct state *st, uint64_t origin)
{
	memset(st, 0, sizeof(*st));
	st->reached = true;
	st->origin = origin;
	for (int r = 0; r < SP_NREGS; r++)
		st->r[r] = val_param(r);
	st->r[SP_REG_RSP] = val_stack(0);
	for (int k = 0; k < PARAM_NSTACK; k++) {
		st->s[k].off = 8 + 8 * k;
		st->s[k].width = 8;
		st->s[k].v = val_param(PARAM_STACK0 + k);
	}
	st->nslots = PARAM_NSTACK;
}

void
sp_state_unknown(struct state *st)
{
	memset(st, 0, sizeof(*st));
	st->reached = true;
	for (int r = 0; r < SP_NREGS; r++)
		st->r[r] = val_top();
}

static struct slot *
slot_find(struct state *st, int64_t off, unsigned width)
{
	for (unsigned i = 0; i < st->nslots; i++)
		if (st->s[i].off == off && st->s[i].width >= width)
			return &st->s[i];
	return NULL;
}

static void
slot_kill_range(struct state *st, int64_t off, unsigned width)
{
	unsigned j = 0;

	for (unsigned i = 0; i < st->nslots; i++) {
		const struct slot *s = &st->s[i];
		if (s->off < off + (int64_t)width && off < s->off + s->width)
			continue;
		st->s[j++] = *s;
	}
	st->nslots = (uint8_t)j;
}

static void
slot_store(struct state *st, int64_t off, unsigned width, struct val v)
{
	slot_kill_range(st, off, width);
	if (st->nslots == STATE_NSLOTS)
		memmove(st->s, st->s + 1, (STATE_NSLOTS - 1) * sizeof(st->s[0])),
		    st->nslots--;
	sp_val_truncate(&v, width);
	st->s[st->nslots++] = (struct slot){ off, (uint8_t)width, v };
}

static struct val
slot_load(struct state *st, int64_t off, unsigned width)
{
	struct slot *s = slot_find(st, off, width);
	struct val v;

	if (s == NULL)
		return val_top();
	v = s->v;
	sp_val_truncate(&v, width);
	return v;
}

/* The stack offset a base register points at, if it is a stack address. */
static bool
stack_off(const struct state *st, int reg, int64_t *off)
{
	if (reg < 0 || st->r[reg].kind != V_STACK)
		return false;
	*off = (int64_t)st->r[reg].c[0];
	return true;
}

static void
write_reg(struct state *st, int reg, struct val v, unsigned width)
{
	if (width == 4 || width == 8) {
		sp_val_truncate(&v, width);
		st->r[reg] = v;
		return;
	}
	/* 8/16-bit writes merge into the old value: exact only for
	 * constants on both sides. */
	struct val old = st->r[reg];
	if (old.kind != V_SET || old.param != PARAM_NONE || v.kind != V_SET ||
	    v.param != PARAM_NONE || old.n != 1 || v.n != 1) {
		st->r[reg] = val_top();
		return;
	}
	uint64_t mask = (1ull << (8 * width)) - 1;
	st->r[reg] = val_const((old.c[0] & ~mask) | (v.c[0] & mask));
}

static uint64_t
alu_apply(uint8_t alu, uint64_t a, int64_t imm)
{
	switch (alu) {
	case ALU_ADD: return a + (uint64_t)imm;
	case ALU_SUB: return a - (uint64_t)imm;
	case ALU_AND: return a & (uint64_t)imm;
	case ALU_OR: return a | (uint64_t)imm;
	case ALU_XOR: return a ^ (uint64_t)imm;
	case ALU_SHL: return imm >= 64 ? 0 : a << imm;
	case ALU_SHR: return imm >= 64 ? 0 : a >> imm;
	}
	return 0;
}

static struct val
alu_val(const struct val *v, uint8_t alu, int64_t imm)
{
	struct val out = val_top();

	if (v->kind == V_STACK && (alu == ALU_ADD || alu == ALU_SUB))
		return val_stack((int64_t)alu_apply(alu, v->c[0], imm));
	if (v->kind != V_SET || v->param != PARAM_NONE)
		return out;
	out = (struct val){ .kind = V_SET, .param = PARAM_NONE };
	for (unsigned i = 0; i < v->n; i++)
		sp_val_add_const(&out, alu_apply(alu, v->c[i], imm));
	return out;
}

static struct val
offset_val(const struct val *v, int64_t imm)
{
	if (imm == 0)
		return *v;
	return alu_val(v, ALU_ADD, imm);
}

static void
kill_all_slots_if_stack(struct state *st, int base)
{
	int64_t off;

	if (base == SP_REG_RSP || base == SP_REG_RBP || stack_off(st, base, &off))
		st->nslots = 0;
}

/* A store we do not model: forget the stack bytes it may change. */
static void
kill_written(struct state *st, const struct effect *e)
{
	int64_t off;

	if (e->width != 0 && stack_off(st, e->src, &off))
		slot_kill_range(st, off + e->imm, e->width);
	else
		kill_all_slots_if_stack(st, e->src);
}

static void
do_push(struct state *st, struct val v)
{
	int64_t off;

	if (!stack_off(st, SP_REG_RSP, &off)) {
		st->nslots = 0;
		return;
	}
	st->r[SP_REG_RSP] = val_stack(off - 8);
	slot_store(st, off - 8, 8, v);
}

static struct val
do_pop(struct state *st)
{
	int64_t off;
	struct val v;

	if (!stack_off(st, SP_REG_RSP, &off))
		return val_top();
	v = slot_load(st, off, 8);
	st->r[SP_REG_RSP] = val_stack(off + 8);
	return v;
}

static bool
is_pure_param(const struct val *v)
{
	return v->kind == V_SET && v->param != PARAM_NONE && v->n == 0;
}

static void
apply_memory(struct state *st, const struct effect *e)
{
	int64_t off;

	switch (e->op) {
	case EFF_STORE:
	case EFF_STORE_IMM:
		if (stack_off(st, e->src, &off)) {
			struct val v = e->op == EFF_STORE ? st->r[e->dst] :
			    val_const((uint64_t)e->imm2);
			slot_store(st, off + e->imm, e->width ? e->width : 8, v);
		} else {
			kill_all_slots_if_stack(st, e->src);
		}
		break;
	case EFF_LOAD:
		if (stack_off(st, e->src, &off))
			write_reg(st, e->dst, slot_load(st, off + e->imm,
			    e->width), e->width);
		else if (is_pure_param(&st->r[e->src]) && e->width >= 4)
			/* *(param + disp): callers may say what is there */
			write_reg(st, e->dst, val_deref(st->r[e->src].param,
			    e->imm, e->width), e->width);
		else if (st->r[e->src].kind == V_GLOBAL &&
		    st->r[e->src].c[1] == 8 && e->width >= 4)
			/* *(global pointer + disp): what was published there
			 * may say (published.c) */
			write_reg(st, e->dst, val_gderef(st->r[e->src].c[0],
			    e->imm, e->width), e->width);
		else
			write_reg(st, e->dst, val_top(), e->width);
		break;
	default:
		break;
	}
}

/* Applies one instruction to st. */
void
sp_transfer(struct state *st, const struct insn *in)
{
	const struct effect *e = &in->eff;
	struct val v;

	switch (e->op) {
	case EFF_CONST:
		write_reg(st, e->dst, val_const((uint64_t)e->imm), e->width);
		break;
	case EFF_COPY:
		v = offset_val(&st->r[e->src], e->imm);
		write_reg(st, e->dst, v, e->width);
		break;
	case EFF_CMOV: {
		struct val old = st->r[e->dst];
		v = st->r[e->src];
		sp_val_truncate(&old, e->width);
		sp_val_truncate(&v, e->width);
		sp_val_join(&v, &old);
		write_reg(st, e->dst, v, e->width);
		break;
	}
	case EFF_ALU_IMM:
		v = alu_val(&st->r[e->dst], e->alu, e->imm);
		write_reg(st, e->dst, v, e->width);
		break;
	case EFF_STORE: case EFF_STORE_IMM: case EFF_LOAD:
		apply_memory(st, e);
		break;
	case EFF_PUSH:
		do_push(st, st->r[e->src]);
		break;
	case EFF_PUSH_IMM:
		do_push(st, e->mem_unknown ? val_top() :
		    val_const((uint64_t)e->imm));
		break;
	case EFF_LOAD_GLOBAL:
		write_reg(st, e->dst, val_global((uint64_t)e->imm, e->width),
		    e->width);
		break;
	case EFF_POP:
		v = do_pop(st);
		st->r[e->dst] = v;
		break;
	case EFF_LEAVE:
		st->r[SP_REG_RSP] = st->r[SP_REG_RBP];
		st->r[SP_REG_RBP] = do_pop(st);
		break;
	default:
		if (e->mem_unknown)
			kill_written(st, e);
		break;
	}
	for (int r = 0; r < SP_NREGS; r++)
		if (e->clobber & (1u << r))
			st->r[r] = val_top();
}

/* Before a call, pointer arguments into our frame invalidate it. */
void
sp_call_escape(struct state *st, const struct insn *in)
{
	static const int args[] = { SP_REG_RDI, SP_REG_RSI, SP_REG_RDX,
	    SP_REG_RCX, SP_REG_R8, SP_REG_R9 };

	if (in->flow != FLOW_CALL && in->flow != FLOW_ICALL)
		return;
	for (size_t i = 0; i < sizeof(args) / sizeof(*args); i++)
		if (st->r[args[i]].kind == V_STACK) {
			st->nslots = 0;
			return;
		}
}

bool
sp_state_join(struct state *a, const struct state *b)
{
	bool changed = false;

	if (!b->reached)
		return false;
	if (!a->reached) {
		*a = *b;
		return true;
	}
	if (a->origin != b->origin && a->origin != 0) {
		a->origin = 0;
		changed = true;
	}
	for (int r = 0; r < SP_NREGS; r++)
		changed |= sp_val_join(&a->r[r], &b->r[r]);
	/* Slots: keep those both sides know, joined. */
	unsigned j = 0;
	for (unsigned i = 0; i < a->nslots; i++) {
		struct slot s = a->s[i];
		const struct slot *o = NULL;
		for (unsigned k = 0; k < b->nslots && o == NULL; k++)
			if (b->s[k].off == s.off && b->s[k].width == s.width)
				o = &b->s[k];
		if (o == NULL) {
			changed = true;
			continue;
		}
		changed |= sp_val_join(&s.v, &o->v);
		a->s[j++] = s;
	}
	a->nslots = (uint8_t)j;
	return changed;
}

struct val
sp_flow_arg_value(const struct state *st, int param)
{
	int64_t off;

	if (param < PARAM_STACK0)
		return st->r[param];
	if (!stack_off(st, SP_REG_RSP, &off))
		return val_top();
	/* At the call the k-th stack argument is at rsp + 8k. */
	struct state copy = *st;
	return slot_load(&copy, off + 8 * (param - PARAM_STACK0), 8);
}

struct val
sp_state_load(const struct state *st, int64_t off, unsigned width)
{
	struct state copy = *st;

	return slot_load(&copy, off, width);
}
