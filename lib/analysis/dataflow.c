/* SPDX-License-Identifier: ISC */
/*
 * Basic blocks, edges and a worklist fixpoint.  Blocks that no direct edge
 * reaches (jump-table cases, code after a noreturn call) receive the join
 * of every indirect jump's state, or "unknown" when there is none: never
 * nothing, which would let a site look unreachable and resolve to a set
 * that is too small.
 */
#include <stdlib.h>
#include <string.h>

#include "dataflow.h"

/* Fixpoint passes before we give up on a function (sets are bounded, so
 * this is only hit by pathological inputs). */
#define MAX_PASSES 64

static void
state_entry(struct state *st, uint64_t origin)
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

static void
state_unknown(struct state *st)
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
	val_truncate(&v, width);
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
	val_truncate(&v, width);
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
		val_truncate(&v, width);
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
		val_add_const(&out, alu_apply(alu, v->c[i], imm));
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
		else
			write_reg(st, e->dst, val_top(), e->width);
		break;
	default:
		break;
	}
}

/* Applies one instruction to st. */
static void
transfer(struct state *st, const struct insn *in)
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
static void
call_escape(struct state *st, const struct insn *in)
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

static bool
state_join(struct state *a, const struct state *b)
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
		changed |= val_join(&a->r[r], &b->r[r]);
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
		changed |= val_join(&s.v, &o->v);
		a->s[j++] = s;
	}
	a->nslots = (uint8_t)j;
	return changed;
}

void
flow_free(struct flow_graph *g)
{
	free(g->b);
	memset(g, 0, sizeof(*g));
}

static bool
ends_block(const struct insn *in)
{
	return in->flow == FLOW_JMP || in->flow == FLOW_JCC ||
	    in->flow == FLOW_IJMP || in->flow == FLOW_RET ||
	    in->flow == FLOW_STOP || in->flow == FLOW_INVALID || in->noreturn;
}

/*
 * A call whose fall-through lands (past padding) on a jump target would
 * join the call's clobbered state into that path.  If the callee never
 * returns, there is no such edge: ask, only for these calls.
 */
static void
mark_noreturn_calls(struct insn_list *l, const bool *leader,
    flow_noreturn_fn noreturn, void *ctx)
{
	for (size_t i = 0; i < l->n && noreturn != NULL; i++) {
		struct insn *in = &l->v[i];
		size_t j = i + 1;
		if (in->flow != FLOW_CALL || in->noreturn)
			continue;
		while (j < l->n && l->v[j].pad)
			j++;
		if (j < l->n && leader[j] && noreturn(ctx, in->target))
			in->noreturn = true;
	}
}

/* Splits the list into blocks at branch targets and after terminators. */
static int
build_blocks(const struct insn_list *l, flow_noreturn_fn noreturn, void *ctx,
    struct flow_graph *g)
{
	bool *leader = calloc(l->n + 1, sizeof(bool));
	size_t nb = 0;

	if (leader == NULL)
		return -1;
	leader[0] = true;
	for (size_t i = 0; i < l->n; i++) {
		const struct insn *in = &l->v[i];
		if (in->flow == FLOW_JMP || in->flow == FLOW_JCC) {
			long t = insn_index(l, in->target);
			if (t >= 0)
				leader[t] = true;
		}
	}
	for (size_t k = 0; k < l->njt; k++) {
		long t = insn_index(l, l->jt[k].to);
		if (t >= 0)
			leader[t] = true;
	}
	mark_noreturn_calls((struct insn_list *)l, leader, noreturn, ctx);
	for (size_t i = 0; i < l->n; i++)
		if (ends_block(&l->v[i]))
			leader[i + 1] = true;
	for (size_t i = 0; i < l->n; i++)
		nb += leader[i];
	g->b = calloc(nb ? nb : 1, sizeof(*g->b));
	if (g->b == NULL) {
		free(leader);
		return -1;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (leader[i])
			g->b[g->nb++].first = i;
		g->b[g->nb - 1].last = i;
	}
	free(leader);
	return 0;
}

static long
block_of(const struct flow_graph *g, size_t idx)
{
	size_t lo = 0, hi = g->nb;

	while (lo + 1 < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->b[mid].first <= idx)
			lo = mid;
		else
			hi = mid;
	}
	return g->nb ? (long)lo : -1;
}

static void
run_block(const struct flow_graph *g, size_t bi, struct state *st)
{
	const struct block *b = &g->b[bi];

	*st = b->in;
	for (size_t i = b->first; i <= b->last; i++) {
		call_escape(st, &g->code->v[i]);
		transfer(st, &g->code->v[i]);
	}
}

static long
target_block(const struct flow_graph *g, uint64_t addr)
{
	long t = insn_index(g->code, addr);

	return t < 0 ? -1 : block_of(g, (size_t)t);
}

/* Calls fn(g, bi, target block) for every static edge out of block bi;
 * returns true when the block ends in an indirect jump without a table. */
static bool
for_each_edge(struct flow_graph *g, size_t bi,
    bool (*fn)(struct flow_graph *, long, const void *), const void *arg,
    bool *changed)
{
	const struct insn_list *l = g->code;
	size_t li = g->b[bi].last;
	const struct insn *last = &l->v[li];
	bool open_ijmp = false;

	if (last->flow == FLOW_JMP || last->flow == FLOW_JCC) {
		long tb = target_block(g, last->target);
		if (tb >= 0)
			*changed |= fn(g, tb, arg);
	}
	if (last->flow == FLOW_IJMP) {
		size_t n = 0;
		for (size_t k = 0; k < l->njt; k++)
			if (l->jt[k].from == li) {
				long tb = target_block(g, l->jt[k].to);
				if (tb >= 0)
					*changed |= fn(g, tb, arg);
				n++;
			}
		open_ijmp = n == 0;
	}
	if ((!ends_block(last) || last->flow == FLOW_JCC) && bi + 1 < g->nb)
		*changed |= fn(g, (long)bi + 1, arg);
	return open_ijmp;
}

static bool
mark_pred(struct flow_graph *g, long tb, const void *arg)
{
	bool *has_pred = (bool *)arg;

	(void)g;
	has_pred[tb] = true;
	return false;
}

static bool
join_into(struct flow_graph *g, long tb, const void *arg)
{
	return state_join(&g->b[tb].in, arg);
}

/* Alignment padding between a jump and the next block is never run. */
static bool
is_padding(const struct flow_graph *g, size_t bi)
{
	for (size_t i = g->b[bi].first; i <= g->b[bi].last; i++)
		if (!g->code->v[i].pad)
			return false;
	return true;
}

/* Does block bi set rsp other than by push/pop/add/sub (leave, a reload
 * as in longjmp)?  Then its indirect jump leaves the function. */
static bool
rsp_reloaded(const struct flow_graph *g, size_t bi)
{
	for (size_t i = g->b[bi].first; i <= g->b[bi].last; i++) {
		const struct effect *e = &g->code->v[i].eff;
		if (e->op == EFF_LEAVE || (e->clobber & (1u << SP_REG_RSP)) ||
		    ((e->op == EFF_COPY || e->op == EFF_LOAD ||
		    e->op == EFF_POP) && e->dst == SP_REG_RSP))
			return true;
	}
	return false;
}

static bool
has_table(const struct insn_list *l, size_t idx)
{
	for (size_t e = 0; e < l->njt; e++)
		if (l->jt[e].from == idx)
			return true;
	return false;
}

/* Does the indirect jump ending block bi leave the function (a tail call
 * with the frame torn down, or after rsp was reloaded)? */
static bool
ijmp_leaves(const struct flow_graph *g, size_t bi, const struct state *out)
{
	const struct val *sp = &out->r[SP_REG_RSP];

	return rsp_reloaded(g, bi) || (sp->kind == V_STACK && sp->c[0] == 0);
}

/*
 * An unreadable indirect jump that does not leave the function (a switch
 * whose table we could not read) may land on any instruction, the trap
 * itself included.  It leaves when the frame is torn down (rsp back at
 * the entry value: a tail call) or rsp was reloaded.  Unknown rsp, e.g.
 * after alloca, counts as staying: the safe side.
 */
static void
find_open_ijmps(struct flow_graph *g)
{
	struct state *st = malloc(sizeof(*st));

	if (st == NULL) {
		g->converged = false;
		return;
	}
	for (size_t bi = 0; bi < g->nb; bi++) {
		size_t li = g->b[bi].last;
		if (g->code->v[li].flow != FLOW_IJMP || has_table(g->code, li) ||
		    !g->b[bi].in.reached)
			continue;
		run_block(g, bi, st);
		if (ijmp_leaves(g, bi, st))
			continue;
		/* `jmp *%rax`: rax holds the destination, a code address,
		 * so a case must set the number itself before its trap. */
		if (g->code->v[li].pat == PAT_JMP_REG &&
		    g->code->v[li].pr1 == SP_REG_RAX)
			continue;
		if (!g->open_ijmp) {
			g->open_ijmp = true;
			g->open_ijmp_rax = st->r[SP_REG_RAX];
		} else {
			val_join(&g->open_ijmp_rax, &st->r[SP_REG_RAX]);
		}
	}
	free(st);
}

/* A block that the previous instruction does not fall into. */
static bool
after_terminator(const struct flow_graph *g, size_t bi)
{
	const struct insn *prev;

	if (bi == 0)
		return false;
	prev = &g->code->v[g->b[bi].first - 1];
	return ends_block(prev) && prev->flow != FLOW_JCC;
}

/*
 * Blocks that no edge reaches (cases of a jump table we could not read,
 * code after a call that does not return) are seeded once the rest is
 * stable: with the join of every unresolved indirect jump, or unknown.
 * A case label may also be reached by a direct jump or fall-through from
 * the case before it; so, when an indirect jump stays unresolved, every
 * block after a terminator receives that jump's state as well.
 */
static int
solve(struct flow_graph *g)
{
	bool *has_pred = calloc(g->nb, sizeof(bool));
	struct state *out = malloc(sizeof(*out)), *ijmp = calloc(1,
	    sizeof(*ijmp)), *unk = malloc(sizeof(*unk)), *stay = calloc(1,
	    sizeof(*stay));
	bool changed = true, dummy = false, open_ijmps = false;
	int pass;

	if (has_pred == NULL || out == NULL || ijmp == NULL || unk == NULL ||
	    stay == NULL) {
		free(has_pred), free(out), free(ijmp), free(unk), free(stay);
		return -1;
	}
	for (size_t bi = 0; bi < g->nb; bi++)
		open_ijmps |= for_each_edge(g, bi, mark_pred, has_pred, &dummy);
	state_unknown(unk);
	state_entry(&g->b[0].in, g->code->v[0].addr);
	has_pred[0] = true;
	for (pass = 0; changed && pass < MAX_PASSES; pass++) {
		changed = false;
		for (size_t bi = 0; bi < g->nb; bi++) {
			if (!g->b[bi].in.reached)
				continue;
			run_block(g, bi, out);
			if (!for_each_edge(g, bi, join_into, out, &changed))
				continue;
			changed |= state_join(ijmp, out);
			if (!ijmp_leaves(g, bi, out))
				changed |= state_join(stay, out);
		}
		if (changed)
			continue;
		for (size_t bi = 1; bi < g->nb; bi++) {
			if (has_pred[bi] && stay->reached &&
			    after_terminator(g, bi) && !is_padding(g, bi))
				changed |= state_join(&g->b[bi].in, stay);
			if (has_pred[bi] || is_padding(g, bi))
				continue;
			if (g->code->v[g->b[bi].first].addr >=
			    g->entries_from) {
				state_entry(out, g->code->v[g->b[bi].first].addr);
				changed |= state_join(&g->b[bi].in, out);
			} else if (ijmp->reached) {
				changed |= state_join(&g->b[bi].in, ijmp);
			} else if (!open_ijmps) {
				/* Nothing we know reaches it. */
				changed |= state_join(&g->b[bi].in, unk);
			}
			/* else: an indirect jump not reached yet will bring
			 * its state; unknown now would drown it. */
		}
	}
	g->converged = !changed;
	free(has_pred), free(out), free(ijmp), free(unk), free(stay);
	return 0;
}

int
flow_solve(const struct insn_list *code, flow_noreturn_fn noreturn, void *ctx,
    uint64_t entries_from, struct flow_graph *g)
{
	memset(g, 0, sizeof(*g));
	g->code = code;
	g->entries_from = entries_from;
	if (code->n == 0) {
		g->converged = true;
		return 0;
	}
	if (build_blocks(code, noreturn, ctx, g) != 0 || solve(g) != 0) {
		flow_free(g);
		return -1;
	}
	if (g->converged)
		find_open_ijmps(g);
	return 0;
}

void
flow_state_at(const struct flow_graph *g, size_t idx, struct state *st)
{
	long bi = block_of(g, idx);

	if (bi < 0 || !g->converged || !g->b[bi].in.reached) {
		state_unknown(st);
		if (bi >= 0 && g->converged && !g->b[bi].in.reached)
			st->reached = false;
		return;
	}
	*st = g->b[bi].in;
	for (size_t i = g->b[bi].first; i < idx; i++) {
		call_escape(st, &g->code->v[i]);
		transfer(st, &g->code->v[i]);
	}
}

struct val
flow_arg_value(const struct state *st, int param)
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
