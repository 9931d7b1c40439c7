/* SPDX-License-Identifier: ISC */
/*
 * Abstract values for number inference: a small set of constants, possibly
 * joined with "the incoming value of parameter P"; a stack address (entry
 * rsp + offset); or unknown.  Joining two paths unions the sets, so a
 * number set on two paths becomes {a, b}.
 */
#ifndef SYSPIN_ANALYSIS_VALUE_H
#define SYSPIN_ANALYSIS_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/scan.h"

/* More distinct constants than this on one value: treated as unknown. */
#define VAL_MAXC 8
/* Parameters: 0..15 registers, PARAM_STACK0 + k the k-th stack argument. */
#define PARAM_STACK0 16
#define PARAM_NSTACK 6
#define PARAM_NONE (-1)

enum val_kind {
	V_BOTTOM,	/* no path reaches here yet */
	V_SET,		/* consts c[0..n) plus optionally parameter `param` */
	V_STACK,	/* entry rsp + c[0] */
	V_GLOBAL,	/* the c[1]-byte contents of global memory at c[0] */
	V_DEREF,	/* the c[1] bytes at (parameter `param`) + c[0] */
	V_GDEREF,	/* the c[1] bytes at c[2] past the pointer held by
			   the 8-byte global at c[0] */
	V_TOP,		/* unknown: keep last, see val_join */
};

struct val {
	uint8_t kind;
	int8_t param;
	uint8_t n;
	uint64_t c[VAL_MAXC];
};

static inline struct val
val_top(void)
{
	return (struct val){ .kind = V_TOP, .param = PARAM_NONE };
}

static inline struct val
val_const(uint64_t c)
{
	return (struct val){ .kind = V_SET, .param = PARAM_NONE, .n = 1,
	    .c = { c } };
}

static inline struct val
val_param(int p)
{
	return (struct val){ .kind = V_SET, .param = (int8_t)p };
}

static inline struct val
val_stack(int64_t off)
{
	return (struct val){ .kind = V_STACK, .param = PARAM_NONE, .n = 1,
	    .c = { (uint64_t)off } };
}

static inline struct val
val_global(uint64_t addr, unsigned width)
{
	return (struct val){ .kind = V_GLOBAL, .param = PARAM_NONE, .n = 2,
	    .c = { addr, width } };
}

static inline struct val
val_deref(int param, int64_t off, unsigned width)
{
	return (struct val){ .kind = V_DEREF, .param = (int8_t)param, .n = 2,
	    .c = { (uint64_t)off, width } };
}

static inline struct val
val_gderef(uint64_t global, int64_t off, unsigned width)
{
	return (struct val){ .kind = V_GDEREF, .param = PARAM_NONE, .n = 3,
	    .c = { global, width, (uint64_t)off } };
}

/* a := a ∨ b; returns true when a changed. */
bool sp_val_join(struct val *a, const struct val *b);
bool sp_val_equal(const struct val *a, const struct val *b);
/* Adds one constant to a set value (may turn it into V_TOP). */
void sp_val_add_const(struct val *v, uint64_t c);
/* Keeps the low `width` bytes (zero-extended), as a register write does. */
void sp_val_truncate(struct val *v, unsigned width);

/*
 * A set of syscall numbers as results accumulate over many callers: a
 * bitmap for the numbers any ABI uses, a short list for the rest, or
 * "any number".  Numbers are 32-bit, as seccomp_data.nr is.
 */
#define NRSET_BITS 1024
#define NRSET_MAXBIG 8

struct nrset {
	bool top;
	uint8_t nbig;
	uint16_t count;
	uint64_t bits[NRSET_BITS / 64];
	uint32_t big[NRSET_MAXBIG];
};

void sp_nrset_clear(struct nrset *s);
void sp_nrset_set_top(struct nrset *s);
void sp_nrset_add(struct nrset *s, uint32_t nr);
void sp_nrset_union(struct nrset *a, const struct nrset *b);
/* Adds a value's constants; a value that is not a set makes s "any". */
void sp_nrset_add_val(struct nrset *s, const struct val *v);
/* Writes the numbers in ascending order; returns how many there are. */
size_t sp_nrset_list(const struct nrset *s, uint32_t *out, size_t max);

#endif
