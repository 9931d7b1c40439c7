/* SPDX-License-Identifier: ISC */
/*
 * A number loaded from a global variable that nothing ever writes is that
 * variable's initial value (Go's `syscall.fcntl64Syscall`, C's
 * `static int nr = SYS_x`).  "Nothing writes it" is shown, not assumed:
 * - the load names a data object of the symbol table (so we know its
 *   extent), one that is not exported (no other object can reach it);
 * - every reference to any byte of the object is a rip-relative read: no
 *   store, no `lea` (its address never escapes), no pointer to it in data
 *   or relocations, and (ET_EXEC) no absolute 32-bit address of it in code.
 * Anything else, or any doubt, leaves the value unknown.
 */
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "analysis.h"
#include "dataflow.h"

/* Objects larger than this are arrays or structs: not a lone number. */
#define MAX_OBJECT 64

static const struct sp_symbol *
object_at(const struct sp_elf *elf, uint64_t addr, unsigned width)
{
	long i = SP_FLOOR_INDEX(elf->objects, elf->nobjects, addr, addr);

	if (i < 0)
		return NULL;
	const struct sp_symbol *o = &elf->objects[i];
	if (addr - o->addr + width > o->size)
		return NULL;
	return o;
}

/*
 * Another object can write an exported variable (or own it, through a copy
 * relocation): one that a defined .dynsym entry overlaps.  A table we
 * cannot read counts as exporting everything global.
 */
static bool
exported_object(const struct sp_elf *elf, const struct sp_symbol *o)
{
	const uint8_t *p;
	size_t n = elf->dynsym_size / sizeof(Elf64_Sym);

	if (elf->dynsym_size == 0)
		return false;
	p = sp_elf_vaddr_ptr(elf, elf->dynsym_vaddr, elf->dynsym_size);
	if (p == NULL)
		return o->global;
	for (size_t i = 0; i < n; i++) {
		Elf64_Sym s;
		memcpy(&s, p + i * sizeof(s), sizeof(s));
		if (s.st_shndx != SHN_UNDEF && s.st_value < o->addr + o->size &&
		    o->addr < s.st_value + (s.st_size ? s.st_size : 1))
			return true;
	}
	return false;
}

/* The instruction whose bytes hold position `at`, in a decoded unit. */
static const struct insn *
insn_holding(struct analysis *a, uint64_t at)
{
	struct unit *u = sp_unit_at(a, at);

	if (u == NULL || sp_unit_prepare(a, u, false) != 0)
		return NULL;
	for (size_t i = 0; i < u->code.n; i++) {
		const struct insn *in = &u->code.v[i];
		if (at >= in->addr && at < in->addr + in->len)
			return in->flow == FLOW_INVALID ? NULL : in;
	}
	return NULL;
}

/* ET_EXEC code can also name the object by its absolute address. */
static bool
absolute_mention(const struct sp_elf *elf, const struct sp_symbol *o)
{
	if (sp_elf_is_dyn(elf))
		return false;
	for (size_t i = 0; i < elf->nsegs; i++) {
		const struct sp_segment *s = &elf->segs[i];
		const uint8_t *p = elf->data + s->offset;
		if (!(s->flags & PF_X))
			continue;
		for (uint64_t k = 0; k + 4 <= s->filesz; k++) {
			uint32_t v;
			memcpy(&v, p + k, 4);
			if (v >= o->addr && v < o->addr + o->size)
				return true;
		}
	}
	return false;
}

static bool
only_read(struct analysis *a, const struct sp_symbol *o)
{
	uint64_t t[MAX_OBJECT];
	struct xref *xs;
	size_t nx;
	bool ok = true;

	for (uint64_t i = 0; i < o->size; i++)
		t[i] = o->addr + i;
	if (sp_xrefs_find(a, t, o->size, true, &xs, &nx) != 0)
		return false;
	for (size_t i = 0; i < nx && ok; i++) {
		const struct insn *in;
		if (xs[i].kind != XREF_RIPREL) {
			ok = false;	/* a pointer to it, or a branch?! */
			break;
		}
		in = insn_holding(a, xs[i].from);
		if (in == NULL) {
			ok = false;	/* not code we can read: assume a write */
			break;
		}
		/* A field matched with the wrong trailing size names some
		 * other address: that instruction does not touch the object. */
		bool touches = in->riprel >= o->addr &&
		    in->riprel < o->addr + o->size;
		ok = !touches || (!in->mem_write && !in->is_lea);
	}
	free(xs);
	return ok && !absolute_mention(a->elf, o);
}

bool
sp_global_value(struct analysis *a, uint64_t addr, unsigned width,
    uint64_t *value)
{
	const struct sp_symbol *o;
	const struct sp_segment *s;
	const uint8_t *p;

	if (width != 4 && width != 8)
		return false;
	o = object_at(a->elf, addr, width);
	if (o == NULL || o->size > MAX_OBJECT || exported_object(a->elf, o))
		return false;
	s = sp_elf_segment_at(a->elf, addr);
	if (s == NULL || !only_read(a, o))
		return false;
	*value = 0;
	p = sp_elf_vaddr_ptr(a->elf, addr, width);
	if (p != NULL)
		memcpy(value, p, width);
	else if (addr - s->vaddr < s->filesz)
		return false;	/* straddles the end of the file part */
	/* else: all in .bss, zero */
	return true;
}

/*
 * A pointer published through a global (glibc: __nptl_setxid(cmdp) does
 * `xidcmd = cmdp`, and every thread's signal handler then issues
 * xidcmd->syscall_no).  The global holds, at any moment, one of the values
 * stored into it, so when every store stores a pointer parameter of the
 * function that makes it, the number at *(global + off) is what those
 * functions' callers put at *(param + off) (resolve_deref).  Shown, not
 * assumed, as for a read-only global: an 8-byte data object of the symbol
 * table, not exported, every reference a rip-relative 8-byte load or
 * store of a register, no address taken, no pointer in data or
 * relocations.  The publishing function must not itself store into that
 * field through the parameter (what it calls with the pointer is not
 * followed, as for numbers behind a parameter).
 */

/* fn stores through parameter param at [off, off + width)? */
static bool
writes_field(struct unit *u, uint64_t fn, int param, int64_t off,
    unsigned width)
{
	struct state st;

	for (size_t i = 0; i < u->code.n; i++) {
		const struct effect *e = &u->code.v[i].eff;
		unsigned w = e->width ? e->width : 8;
		if ((e->op != EFF_STORE && e->op != EFF_STORE_IMM &&
		    !e->mem_unknown) || e->src < 0)
			continue;
		sp_flow_state_at(&u->graph, i, &st);
		if (!st.reached || (st.origin ? st.origin : u->start) != fn)
			continue;
		const struct val *b = &st.r[e->src];
		if (b->kind != V_SET || b->param != param || b->n != 0)
			continue;
		if (e->op != EFF_STORE && e->op != EFF_STORE_IMM &&
		    e->width == 0)
			return true;	/* a store we cannot size */
		if (e->imm < off + (int64_t)width && off < e->imm + (int64_t)w)
			return true;
	}
	return false;
}

/* The store at `in`: its function and the parameter it stores, or false. */
static bool
store_source(struct analysis *a, const struct insn *in,
    struct published *src, int64_t off, unsigned width)
{
	struct unit *u = sp_unit_at(a, in->addr);
	struct state st;
	long idx;

	if (u == NULL || sp_unit_prepare(a, u, true) != 0 ||
	    !u->graph.converged)
		return false;
	idx = sp_insn_index(&u->code, in->addr);
	if (idx < 0)
		return false;
	sp_flow_state_at(&u->graph, (size_t)idx, &st);
	const struct val *v = &st.r[in->eff.dst];
	if (!st.reached || v->kind != V_SET || v->param == PARAM_NONE ||
	    v->n != 0)
		return false;
	src->func = st.origin ? st.origin : u->start;
	src->param = v->param;
	return !writes_field(u, src->func, src->param, off, width);
}

int
sp_published_sources(struct analysis *a, uint64_t g, int64_t off,
    unsigned width, struct published *srcs, size_t max, size_t *n,
    const char **why)
{
	const struct sp_symbol *o = object_at(a->elf, g, 8);
	uint64_t t[8];
	struct xref *xs;
	size_t nx;
	int ok = 0;

	*n = 0;
	*why = "number is read through a pointer kept in a variable we "
	    "cannot follow";
	if (o == NULL || o->addr != g || o->size != 8 ||
	    exported_object(a->elf, o) || absolute_mention(a->elf, o))
		return -1;
	for (unsigned i = 0; i < 8; i++)
		t[i] = g + i;
	if (sp_xrefs_find(a, t, 8, true, &xs, &nx) != 0)
		return -1;
	for (size_t i = 0; i < nx && ok == 0; i++) {
		const struct insn *in;
		if (xs[i].kind != XREF_RIPREL ||
		    (in = insn_holding(a, xs[i].from)) == NULL) {
			ok = -1;	/* a pointer to it, or unreadable code */
			break;
		}
		if (in->riprel < g || in->riprel >= g + 8)
			continue;	/* another address, matched by chance */
		if (in->eff.op == EFF_LOAD_GLOBAL && in->eff.width == 8 &&
		    in->riprel == g && !in->mem_write)
			continue;
		if (in->eff.op != EFF_STORE_GLOBAL || in->eff.width != 8 ||
		    (uint64_t)in->eff.imm != g || *n == max ||
		    !store_source(a, in, &srcs[*n], off, width)) {
			ok = -1;
			break;
		}
		(*n)++;
	}
	free(xs);
	if (ok == 0 && *n == 0)
		*why = "number is read through a pointer nothing stores";
	return ok == 0 && *n > 0 ? 0 : -1;
}
