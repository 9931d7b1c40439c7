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
#include "transfer.h"

/* Fixpoint passes before we give up on a function (sets are bounded, so
 * this is only hit by pathological inputs). */
#define MAX_PASSES 64

void
sp_flow_free(struct flow_graph *g)
{
	free(g->b);
	free(g->open);
	free(g->memo);
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
 * join the call's clobbered state into that path; one followed by
 * padding, into the function after it (musl's __syscall_cp_c, right
 * after pthread_exit's call, lost its parameters so: the number it
 * passes on).  If the callee never returns, there is no such edge: ask,
 * only for these calls.
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
		if (j < l->n && (leader[j] || j > i + 1) &&
		    noreturn(ctx, in->target))
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
			long t = sp_insn_index(l, in->target);
			if (t >= 0)
				leader[t] = true;
		}
	}
	for (size_t k = 0; k < l->njt; k++) {
		long t = sp_insn_index(l, l->jt[k].to);
		if (t >= 0)
			leader[t] = true;
	}
	mark_noreturn_calls((struct insn_list *)l, leader, noreturn, ctx);
	for (size_t i = 0; i < l->n; i++)
		if (ends_block(&l->v[i]) || (l->v[i].pad && i + 1 < l->n &&
		    !l->v[i + 1].pad))
			leader[i + 1] = true;	/* padding is a block apart */
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
		sp_call_escape(st, &g->code->v[i]);
		sp_transfer(st, &g->code->v[i]);
	}
}

static long
target_block(const struct flow_graph *g, uint64_t addr)
{
	long t = sp_insn_index(g->code, addr);

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
		JT_FOR_EACH(l, li, k) {
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

/* A block's out state, and what its last instructions tell its edges. */
struct edge_arg {
	const struct state *out;
	long eq_block;		/* the successor where reg == imm, or -1 */
	int reg;
	int64_t imm;
	struct state *tmp;
};

static bool
join_into(struct flow_graph *g, long tb, const void *arg)
{
	const struct edge_arg *ea = arg;

	if (tb != ea->eq_block)
		return sp_state_join(&g->b[tb].in, ea->out);
	*ea->tmp = *ea->out;
	ea->tmp->r[ea->reg] = val_const((uint64_t)ea->imm);
	return sp_state_join(&g->b[tb].in, ea->tmp);
}

/*
 * `test %r,%r; je L` or `cmp $N,%r; je L` (64-bit %r): at L, r is 0 or N.
 * gcc reuses such a register as a number (musl's __stdio_read issues
 * read as `test %rax,%rax; je 1f; ... 1: syscall`).  Sets ea->eq_block to
 * the successor where equality holds, or -1.
 */
static void
equality_edge(const struct flow_graph *g, size_t bi, struct edge_arg *ea)
{
	const struct insn_list *l = g->code;
	size_t li = g->b[bi].last;
	const struct insn *j = &l->v[li], *c;
	long taken, next;

	ea->eq_block = -1;
	if (j->flow != FLOW_JCC || j->jcc == JCC_OTHER || li == 0 ||
	    li == g->b[bi].first)
		return;
	c = &l->v[li - 1];
	if ((c->pat != PAT_CMP_IMM && c->pat != PAT_TEST_SELF) ||
	    c->pwidth != 8 || c->pr1 < 0)
		return;
	taken = target_block(g, j->target);
	next = bi + 1 < g->nb ? (long)bi + 1 : -1;
	if (taken < 0 || next < 0 || taken == next)
		return;
	ea->eq_block = j->jcc == JCC_EQ ? taken : next;
	ea->reg = c->pr1;
	ea->imm = c->pimm;
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
		    ((e->op == EFF_COPY || e->op == EFF_CMOV ||
		    e->op == EFF_LOAD ||
		    e->op == EFF_POP) && e->dst == SP_REG_RSP))
			return true;
	}
	return false;
}

static bool
has_table(const struct insn_list *l, size_t idx)
{
	JT_FOR_EACH(l, idx, e)
		return true;
	return false;
}

/* Does the indirect jump ending block bi leave the function (a tail call
 * with the frame torn down, or after rsp was reloaded)? */
static bool
ijmp_leaves(const struct flow_graph *g, size_t bi, const struct state *out)
{
	const struct val *sp = &out->r[SP_REG_RSP];
	const struct insn *last = &g->code->v[g->b[bi].last];

	/* `jmp *slot(%rip)` goes where a pointer variable points (a GOT
	 * slot: the PLT, whose first stub pushes before it jumps), never to
	 * a switch case, which needs an index. */
	if (last->flow == FLOW_IJMP && last->target != 0 &&
	    last->pat != PAT_JMP_TABLE8)
		return true;
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
			sp_val_join(&g->open_ijmp_rax, &st->r[SP_REG_RAX]);
		}
		size_t k = 0;
		if (g->nopen > MAX_OPEN_FNS)
			continue;	/* too many: every query joins all */
		if (g->open == NULL && (g->open = calloc(MAX_OPEN_FNS,
		    sizeof(*g->open))) == NULL) {
			g->nopen = MAX_OPEN_FNS + 1;
			continue;
		}
		while (k < g->nopen && k < MAX_OPEN_FNS &&
		    g->open[k].origin != st->origin)
			k++;
		if (k < g->nopen && k < MAX_OPEN_FNS) {
			sp_val_join(&g->open[k].rax, &st->r[SP_REG_RAX]);
		} else if (g->nopen++ < MAX_OPEN_FNS) {
			g->open[k].origin = st->origin;
			g->open[k].rax = st->r[SP_REG_RAX];
		}
	}
	free(st);
}

void
sp_flow_open_ijmp_rax(const struct flow_graph *g, uint64_t origin,
    struct val *v)
{
	if (!g->open_ijmp)
		return;
	if (origin == 0 || g->nopen > MAX_OPEN_FNS) {
		sp_val_join(v, &g->open_ijmp_rax);
		return;
	}
	for (size_t k = 0; k < g->nopen; k++)
		if (g->open[k].origin == origin || g->open[k].origin == 0)
			sp_val_join(v, &g->open[k].rax);
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
	    sizeof(*stay)), *tmp = malloc(sizeof(*tmp));
	bool changed = true, dummy = false, open_ijmps = false;
	struct edge_arg ea = { .out = out, .tmp = tmp };
	int pass;

	if (has_pred == NULL || out == NULL || ijmp == NULL || unk == NULL ||
	    stay == NULL || tmp == NULL) {
		free(has_pred), free(out), free(ijmp), free(unk), free(stay);
		free(tmp);
		return -1;
	}
	/* Padding passes control on only when something reaches it: code
	 * after the padding that follows a terminator has no predecessor
	 * (in a gap it starts a function; see the loop below). */
	for (size_t bi = 0; bi < g->nb; bi++)
		if (!is_padding(g, bi))
			open_ijmps |= for_each_edge(g, bi, mark_pred, has_pred,
			    &dummy);
	for (size_t bi = 0; bi < g->nb; bi++)
		if (is_padding(g, bi) && has_pred[bi])
			(void)for_each_edge(g, bi, mark_pred, has_pred, &dummy);
	sp_state_unknown(unk);
	sp_state_entry(&g->b[0].in, g->code->v[0].addr);
	has_pred[0] = true;
	for (pass = 0; changed && pass < MAX_PASSES; pass++) {
		changed = false;
		for (size_t bi = 0; bi < g->nb; bi++) {
			if (!g->b[bi].in.reached)
				continue;
			run_block(g, bi, out);
			equality_edge(g, bi, &ea);
			if (!for_each_edge(g, bi, join_into, &ea, &changed))
				continue;
			changed |= sp_state_join(ijmp, out);
			if (!ijmp_leaves(g, bi, out))
				changed |= sp_state_join(stay, out);
		}
		if (changed)
			continue;
		for (size_t bi = 1; bi < g->nb; bi++) {
			if (has_pred[bi] && stay->reached &&
			    after_terminator(g, bi) && !is_padding(g, bi))
				changed |= sp_state_join(&g->b[bi].in, stay);
			if (has_pred[bi] || is_padding(g, bi))
				continue;
			if (g->code->v[g->b[bi].first].addr >=
			    g->entries_from) {
				sp_state_entry(out,
				    g->code->v[g->b[bi].first].addr);
				changed |= sp_state_join(&g->b[bi].in, out);
			} else if (ijmp->reached) {
				changed |= sp_state_join(&g->b[bi].in, ijmp);
			} else if (!open_ijmps) {
				/* Nothing we know reaches it. */
				changed |= sp_state_join(&g->b[bi].in, unk);
			}
			/* else: an indirect jump not reached yet will bring
			 * its state; unknown now would drown it. */
		}
	}
	g->converged = !changed;
	free(has_pred), free(out), free(ijmp), free(unk), free(stay);
	free(tmp);
	return 0;
}

int
sp_flow_solve(const struct insn_list *code, flow_noreturn_fn noreturn,
    void *ctx, uint64_t entries_from, struct flow_graph *g)
{
	memset(g, 0, sizeof(*g));
	g->code = code;
	g->entries_from = entries_from;
	if (code->n == 0) {
		g->converged = true;
		return 0;
	}
	if (build_blocks(code, noreturn, ctx, g) != 0 || solve(g) != 0) {
		sp_flow_free(g);
		return -1;
	}
	if (g->converged)
		find_open_ijmps(g);
	return 0;
}

void
sp_flow_state_at(const struct flow_graph *g, size_t idx, struct state *st)
{
	long bi = block_of(g, idx);

	if (bi < 0 || !g->converged || !g->b[bi].in.reached) {
		sp_state_unknown(st);
		if (bi >= 0 && g->converged && !g->b[bi].in.reached)
			st->reached = false;
		return;
	}
	struct flow_graph *m = (struct flow_graph *)g;	/* the memo only */
	size_t i = g->b[bi].first;

	if (m->memo != NULL && m->memo_block == bi && m->memo_idx <= idx) {
		*st = *m->memo;
		i = m->memo_idx;
	} else
		*st = g->b[bi].in;
	for (; i < idx; i++) {
		sp_call_escape(st, &g->code->v[i]);
		sp_transfer(st, &g->code->v[i]);
	}
	if (m->memo == NULL)
		m->memo = malloc(sizeof(*m->memo));
	if (m->memo != NULL) {
		*m->memo = *st;
		m->memo_block = bi;
		m->memo_idx = idx;
	}
}

