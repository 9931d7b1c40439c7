/* SPDX-License-Identifier: ISC */
/*
 * Jump tables.  A switch compiles to an indirect jump through a table of
 * absolute addresses (`jmp *T(,%r,8)`, non-PIC) or of 32-bit offsets from
 * the table (`lea T(%rip),%x; movslq (%x,%i,4),%z; add %x,%z; jmp *%z`).
 * Reading the table gives the indirect jump its real edges, so the cases
 * get the state of the jump instead of "unknown"; and case labels that a
 * linear sweep decoded as the tail of table bytes placed in .text get
 * decoded again from the right place.
 */
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "analysis.h"

/* More cases than this is not a table we believe. */
#define MAX_CASES 4096
/* How far back from the jump the table set-up may be. */
#define LOOKBACK 12
/* How far back a hoisted table base may be looked for. */
#define FAR_LOOKBACK 2048

/*
 * What recovery asks about again and again, hashed: which (jump, case)
 * edges exist, which addresses are cases, and which are targets of direct
 * jumps (a count per address: re-decoding removes and adds jumps).  A
 * scan of every edge per table entry, and a re-sorted target list per
 * re-decoded case, were quadratic: rustc's driver has units with tens of
 * thousands of cases.
 */
struct hkey {
	uint64_t a, b;		/* a == 0: free slot */
	uint32_t count;
};

struct hset {
	struct hkey *v;
	size_t n, cap;		/* cap: 0 or a power of two */
};

struct jtx {
	struct analysis *a;
	struct unit *u;
	struct hset edges;	/* (jump address + 1, case) */
	struct hset cases;	/* (1, case) */
	struct hset direct;	/* (1, direct jump target) with a count */
};

static size_t
hslot(const struct hset *h, uint64_t a, uint64_t b)
{
	uint64_t x = (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full);
	size_t i = (size_t)(x ^ (x >> 29)) & (h->cap - 1);

	while (h->v[i].a != 0 && (h->v[i].a != a || h->v[i].b != b))
		i = (i + 1) & (h->cap - 1);
	return i;
}

static uint32_t
hcount(const struct hset *h, uint64_t a, uint64_t b)
{
	return h->cap ? h->v[hslot(h, a, b)].count : 0;
}

/* Adds delta (+1 or -1) to the key's count.  -1: out of memory. */
static int
hadd(struct hset *h, uint64_t a, uint64_t b, int delta)
{
	if (delta < 0) {
		if (h->cap != 0 && h->v[hslot(h, a, b)].count > 0)
			h->v[hslot(h, a, b)].count--;
		return 0;
	}
	if ((h->n + 1) * 2 > h->cap) {
		struct hset g = { .cap = h->cap ? h->cap * 2 : 1024 };
		g.v = calloc(g.cap, sizeof(*g.v));
		if (g.v == NULL)
			return -1;
		for (size_t i = 0; i < h->cap; i++)
			if (h->v[i].a != 0)
				g.v[hslot(&g, h->v[i].a, h->v[i].b)] = h->v[i];
		g.n = h->n;
		free(h->v);
		*h = g;
	}
	struct hkey *k = &h->v[hslot(h, a, b)];
	if (k->a == 0) {
		*k = (struct hkey){ a, b, 0 };
		h->n++;
	}
	k->count++;
	return 0;
}

/* A direct jump's target inside the unit starts a block. */
static int
note_direct(struct jtx *x, const struct insn *in, int delta)
{
	if ((in->flow != FLOW_JMP && in->flow != FLOW_JCC) ||
	    in->target < x->u->start || in->target >= x->u->end)
		return 0;
	return hadd(&x->direct, 1, in->target, delta);
}

static void
jtx_free(struct jtx *x)
{
	free(x->edges.v);
	free(x->cases.v);
	free(x->direct.v);
}

static int
jtx_init(struct jtx *x, struct analysis *a, struct unit *u)
{
	const struct insn_list *l = &u->code;

	*x = (struct jtx){ .a = a, .u = u };
	for (size_t i = 0; i < l->n; i++)
		if (note_direct(x, &l->v[i], 1) != 0)
			goto fail;
	for (size_t e = 0; e < l->njt; e++)
		if (hadd(&x->edges, l->v[l->jt[e].from].addr + 1, l->jt[e].to,
		    1) != 0 || hadd(&x->cases, 1, l->jt[e].to, 1) != 0)
			goto fail;
	return 0;
fail:
	jtx_free(x);
	return -1;
}

static int
add_edge(struct jtx *x, size_t from, uint64_t to)
{
	struct insn_list *l = &x->u->code;
	uint64_t key = l->v[from].addr + 1;
	struct jt_edge *v;

	if (hcount(&x->edges, key, to) != 0)
		return 0;
	if (l->njt % 64 == 0) {
		v = realloc(l->jt, (l->njt + 64) * sizeof(*v));
		if (v == NULL)
			return -1;
		l->jt = v;
	}
	if (hadd(&x->edges, key, to, 1) != 0 || hadd(&x->cases, 1, to, 1) != 0)
		return -1;
	l->jt[l->njt++] = (struct jt_edge){ from, to };
	l->jt_sorted = false;
	return 0;
}

/*
 * The PIC pattern: finds the table base T feeding `jmp *%z`.  When the
 * `lea T(%rip), %x` is not near (hoisted out of a loop), *add_idx and *x
 * name the add, so that data flow can supply %x (jt_recover_flow).
 */
static bool
pic_table(const struct insn_list *l, size_t ij, uint64_t *table,
    size_t *add_idx, size_t *load_idx, int *xreg)
{
	int z = l->v[ij].pr1, x = -1;
	bool have_add = false, have_load = false;

	*xreg = -1;
	for (size_t i = ij; i-- > 0 && ij - i <= LOOKBACK;) {
		const struct insn *in = &l->v[i];
		if (!have_add && in->pat == PAT_ADD_RR && in->pr1 == z) {
			x = in->pr2;
			have_add = true;
			*add_idx = i;
		} else if (have_add && !have_load &&
		    in->pat == PAT_MOVSXD_TABLE && in->pr1 == z &&
		    in->pr2 == x) {
			have_load = true;
			*xreg = x;
			*load_idx = i;
		} else if (have_load && in->eff.op == EFF_CONST &&
		    in->eff.dst == x && in->eff.width == 8) {
			*table = (uint64_t)in->eff.imm;
			return true;
		}
		if (in->flow == FLOW_JMP || in->flow == FLOW_RET ||
		    in->flow == FLOW_IJMP)
			return false;
	}
	return false;
}

/*
 * The table base register of a PIC switch is often set once, at the top
 * of a large function.  The nearest `lea T(%rip), %x` before the add, in
 * address order, is then the candidate; read_table only accepts it when
 * every entry up to the switch's bound lands inside the function.
 */
static bool
far_base(const struct insn_list *l, size_t add_idx, int x, uint64_t *table)
{
	for (size_t i = add_idx; i-- > 0 && add_idx - i <= FAR_LOOKBACK;) {
		const struct insn *in = &l->v[i];
		if (in->eff.op == EFF_CONST && in->eff.dst == x &&
		    in->eff.width == 8) {
			*table = (uint64_t)in->eff.imm;
			return true;
		}
		if (in->eff.dst == x && in->eff.op != EFF_STORE &&
		    in->eff.op != EFF_STORE_IMM &&
		    in->eff.op != EFF_STORE_GLOBAL && in->eff.op != EFF_NONE)
			return false;	/* x set some other way */
	}
	return false;
}

/* The bound of `cmp $N, %idx; ja default` just before the table load:
 * N + 1 cases; 0 when there is none to see. */
static unsigned
switch_bound(const struct insn_list *l, size_t load_idx)
{
	for (size_t i = load_idx; i-- > 0 && load_idx - i <= 3;)
		if (l->v[i].pat == PAT_CMP_IMM && l->v[i].pimm >= 0 &&
		    l->v[i].pimm < MAX_CASES)
			return (unsigned)l->v[i].pimm + 1;
	return 0;
}

static int read_cases(struct jtx *x, size_t ij, uint64_t table, bool pic,
    unsigned exact);

/* Do all n 32-bit PIC entries at table land inside the unit? */
static bool
table_fits(struct analysis *a, const struct unit *u, uint64_t table,
    unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		const uint8_t *p = sp_elf_vaddr_ptr(a->elf, table + 4ull * k, 4);
		int32_t d;
		if (p == NULL)
			return false;
		memcpy(&d, p, 4);
		uint64_t to = table + (uint64_t)(int64_t)d;
		if (to < u->start || to >= u->end)
			return false;
	}
	return true;
}

/* Reads entries while they land inside the unit, and not on code we
 * already know is a case (a table in .text is followed by its cases). */
static int
read_table(struct jtx *x, size_t ij, uint64_t table, bool pic)
{
	return read_cases(x, ij, table, pic, 0);
}

/*
 * With `exact` > 0 the table is a guess: it is accepted only if all of
 * its `exact` entries land inside the unit, and then all are edges.
 */
static int
read_cases(struct jtx *x, size_t ij, uint64_t table, bool pic,
    unsigned exact)
{
	struct analysis *a = x->a;
	struct unit *u = x->u;
	unsigned size = pic ? 4 : 8;

	if (exact != 0 && !table_fits(a, u, table, exact))
		return 0;
	for (unsigned k = 0; k < (exact ? exact : MAX_CASES); k++) {
		uint64_t at = table + (uint64_t)k * size, to;
		const uint8_t *p = sp_elf_vaddr_ptr(a->elf, at, size);
		if (p == NULL)
			break;
		if (pic) {
			int32_t d;
			memcpy(&d, p, 4);
			to = table + (uint64_t)(int64_t)d;
		} else {
			memcpy(&to, p, 8);
		}
		if (to < u->start || to >= u->end)
			break;
		bool is_case = false;
		for (unsigned b = 0; b < size && !is_case; b++)
			is_case = hcount(&x->cases, 1, at + b) != 0;
		if (is_case)
			break;
		if (add_edge(x, ij, to) != 0)
			return -1;
	}
	return 0;
}

static bool
has_edges(const struct insn_list *l, size_t idx)
{
	JT_FOR_EACH(l, idx, e)
		return true;
	return false;
}

static bool
is_terminator(const struct insn *in)
{
	return in->flow == FLOW_JMP || in->flow == FLOW_IJMP ||
	    in->flow == FLOW_RET || in->flow == FLOW_STOP ||
	    in->flow == FLOW_INVALID;
}

/*
 * The instruction at index k overlaps a jump target.  Re-decode from the
 * target only when k lies in bytes no known path falls into (after a
 * terminator, before any branch target): there the sweep was reading data.
 * Overlapping instructions on a live path are left alone.
 */
static bool
in_dead_zone(const struct jtx *x, size_t k)
{
	const struct insn_list *l = &x->u->code;

	for (size_t i = k + 1; i-- > 0;) {
		if (i < k && is_terminator(&l->v[i]))
			return true;
		if (hcount(&x->direct, 1, l->v[i].addr) != 0 ||
		    hcount(&x->cases, 1, l->v[i].addr) != 0)
			return false;
	}
	return false;
}

/* Index of the first instruction of l ending after `to`. */
static size_t
first_after(const struct insn_list *l, uint64_t to)
{
	size_t k = SP_LOWER_BOUND(l->v, l->n, addr, to);

	if (k > 0 && l->v[k - 1].addr + l->v[k - 1].len > to)
		k--;
	return k;
}

/*
 * Decodes from `to` until the fresh instructions meet an old boundary
 * again at l->v[*join] (the n fresh ones before it are spliced in), or to
 * the end of the unit.  The window grows geometrically: a case label
 * usually resynchronises within a few instructions, and decoding to the
 * end of a large unit for each of thousands of cases was quadratic (GHC's
 * code has no unwind info: one gap of megabytes with many tables).
 */
static int
decode_until_join(struct analysis *a, struct unit *u, const uint8_t *p,
    uint64_t avail, uint64_t to, size_t first, struct insn_list *fresh,
    size_t *nfresh, size_t *join)
{
	const struct insn_list *l = &u->code;

	for (uint64_t win = 256;; win *= 4) {
		uint64_t stop = u->end - to > win ? to + win : u->end;
		size_t n, j = first;
		if (sp_decode_region(a->dec, p, avail, to, stop, true,
		    fresh) != 0)
			return -1;
		for (n = 0; n < fresh->n; n++) {
			while (j < l->n && l->v[j].addr < fresh->v[n].addr)
				j++;
			if (j < l->n && l->v[j].addr == fresh->v[n].addr)
				break;
		}
		if (n < fresh->n || stop == u->end) {
			if (n == fresh->n && n > 0) {
				/* No join: old instructions the fresh ones
				 * overlap go. */
				const struct insn *last = &fresh->v[n - 1];
				while (j < l->n &&
				    l->v[j].addr < last->addr + last->len)
					j++;
			}
			*nfresh = n;
			*join = j;
			return 0;
		}
		sp_insn_list_free(fresh);
	}
}

/* Splices a decoding that starts at `to` into the unit's list. */
static int
resync(struct jtx *x, uint64_t to)
{
	struct analysis *a = x->a;
	struct unit *u = x->u;
	struct insn_list fresh, *l = &u->code;
	uint64_t avail = 0;
	const uint8_t *p = sp_code_at(a, to, &avail);
	size_t k = first_after(l, to), join, n;

	/* k overlaps `to` (a conflict), or starts after it (a hole left by
	 * an earlier splice: nothing to overwrite). */
	bool conflict = k < l->n && l->v[k].addr < to;
	if ((k < l->n && l->v[k].addr == to) || p == NULL ||
	    (conflict && !in_dead_zone(x, k)))
		return 0;
	if (decode_until_join(a, u, p, avail, to, conflict ? k + 1 : k,
	    &fresh, &n, &join) != 0)
		return -1;
	/*
	 * Spliced in place: v[k, join) becomes fresh.  Only the tail moves
	 * (a unit of a few million instructions, GHC's, is spliced thousands
	 * of times: a new copy each time was most of its analysis).
	 */
	size_t newn = k + n + (l->n - join);
	if (newn + 1 > l->cap) {
		size_t ncap = newn + 1 + newn / 8;
		struct insn *v = realloc(l->v, ncap * sizeof(*v));
		if (v == NULL) {
			sp_insn_list_free(&fresh);
			return -1;
		}
		l->v = v;
		l->cap = ncap;
	}
	for (size_t i = k; i < join; i++)
		(void)note_direct(x, &l->v[i], -1);
	for (size_t i = 0; i < n; i++)
		if (note_direct(x, &fresh.v[i], 1) != 0) {
			sp_insn_list_free(&fresh);
			return -1;
		}
	memmove(l->v + k + n, l->v + join, (l->n - join) * sizeof(*l->v));
	memcpy(l->v + k, fresh.v, n * sizeof(*l->v));
	/* Edges name instructions by index: renumber those after k. */
	for (size_t e = 0; e < l->njt; e++)
		if (l->jt[e].from >= join)
			l->jt[e].from = l->jt[e].from - join + k + n;
	l->n = newn;
	l->jt_sorted = false;
	sp_insn_list_free(&fresh);
	free(u->targets);
	u->targets = NULL;
	u->have_targets = false;
	u->ntargets = 0;
	return 0;
}

static int
recover_rounds(struct jtx *jx)
{
	struct insn_list *l = &jx->u->code;

	for (int round = 0; round < 4; round++) {
		size_t before = l->njt;
		for (size_t i = 0; i < l->n; i++) {
			uint64_t table;
			size_t add_idx, load_idx;
			int x;
			const struct insn *in = &l->v[i];
			int rc = 0;
			if (in->pat == PAT_JMP_TABLE8) {
				rc = read_table(jx, i, in->target, false);
			} else if (in->pat == PAT_JMP_REG && pic_table(l, i,
			    &table, &add_idx, &load_idx, &x)) {
				rc = read_table(jx, i, table, true);
			} else if (in->pat == PAT_JMP_REG && x >= 0 &&
			    far_base(l, add_idx, x, &table)) {
				unsigned n = switch_bound(l, load_idx);
				if (n > 0)
					rc = read_cases(jx, i, table, true, n);
			}
			if (rc != 0)
				return -1;
		}
		if (l->njt == before)
			break;
		for (size_t e = before; e < l->njt; e++)
			if (resync(jx, l->jt[e].to) != 0)
				return -1;
	}
	return 0;
}

static int
edge_cmp(const void *x, const void *y)
{
	const struct jt_edge *a = x, *b = y;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

void
sp_jt_sort(struct insn_list *l)
{
	if (l->njt > 1)
		qsort(l->jt, l->njt, sizeof(*l->jt), edge_cmp);
	l->jt_sorted = true;
}

size_t
sp_jt_first(const struct insn_list *l, size_t from)
{
	_Static_assert(sizeof(l->jt->from) == sizeof(uint64_t),
	    "sp_lower_bound reads 64-bit keys");
	return l->jt_sorted ? SP_LOWER_BOUND(l->jt, l->njt, from, from) : 0;
}

/* After recovery: edges sorted for lookups, jump targets listed again. */
static void
recovered(struct unit *u)
{
	sp_jt_sort(&u->code);
	free(u->targets);
	u->targets = NULL;
	u->have_targets = false;
	u->ntargets = 0;
}

int
sp_jt_recover(struct analysis *a, struct unit *u)
{
	struct jtx jx;
	int rc;

	if (jtx_init(&jx, a, u) != 0)
		return -1;
	rc = recover_rounds(&jx);
	jtx_free(&jx);
	recovered(u);
	return rc;
}

/*
 * Second chance, once the unit is solved: a PIC table whose base register
 * was loaded far from the jump.  Data flow knows the register's value at
 * the add.  Returns 1 when new edges were found (the caller solves again),
 * 0 when not, -1 when out of memory.
 */
int
sp_jt_recover_flow(struct analysis *a, struct unit *u)
{
	struct insn_list *l = &u->code;
	size_t before = l->njt;
	struct state st;
	struct jtx jx = { 0 };
	int rc = 0;

	for (size_t i = 0; i < l->n && rc == 0; i++) {
		uint64_t table;
		size_t add_idx, load_idx;
		int x;
		if (l->v[i].pat != PAT_JMP_REG || has_edges(l, i) ||
		    pic_table(l, i, &table, &add_idx, &load_idx, &x) || x < 0)
			continue;
		sp_flow_state_at(&u->graph, add_idx, &st);
		const struct val *v = &st.r[x];
		if (v->kind != V_SET || v->param != PARAM_NONE || v->n != 1)
			continue;
		/* The index is built only for the few units that need it. */
		if (jx.u != u && (rc = jtx_init(&jx, a, u)) != 0)
			return -1;
		rc = read_table(&jx, i, v->c[0], true);
	}
	if (rc != 0 || l->njt == before) {
		if (jx.u == u)
			jtx_free(&jx);
		return rc != 0 ? -1 : 0;
	}
	for (size_t e = before; e < l->njt && rc == 0; e++)
		rc = resync(&jx, l->jt[e].to);
	jtx_free(&jx);
	recovered(u);
	return rc != 0 ? -1 : 1;
}
