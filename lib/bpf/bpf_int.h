/* SPDX-License-Identifier: ISC */
/*
 * Internals of lib/bpf: a small assembler with symbolic labels (ir.c),
 * decision trees over 32- and 64-bit keys (tree.c), the per-ABI rules
 * (policy.c) and the program builder (generate.c, program.c).
 */
#ifndef SYSPIN_BPF_INT_H
#define SYSPIN_BPF_INT_H

#include "bpf/bpf.h"

/* Offsets into struct seccomp_data (x86 is little endian). */
#define OFF_NR		0
#define OFF_ARCH	4
#define OFF_IP_LO	8
#define OFF_IP_HI	12
#define OFF_ARG_LO(i)	(16 + 8 * (i))

/*
 * An instruction whose jump targets are labels.  Conditional jumps use jt
 * and jf, BPF_JA uses jt; other instructions use neither.
 */
struct ins {
	uint16_t code;
	uint32_t k;
	uint32_t jt, jf;
};

/* A run of instructions placed contiguously; the program is a list of
 * fragments in layout order. */
struct frag {
	struct ins *v;
	size_t n, cap;
};

struct label {
	uint32_t frag;
	uint32_t idx;
	bool bound;
};

struct asm_ctx {
	struct frag *frags;
	size_t nfrags, cfrags;
	struct label *labels;
	size_t nlabels, clabels;
	uint32_t *order;	/* layout: fragments placed so far */
	size_t norder, corder;
	bool oom;
};

/* ir.c */
void sp_asm_init(struct asm_ctx *);
void sp_asm_fini(struct asm_ctx *);
uint32_t sp_asm_frag(struct asm_ctx *);
uint32_t sp_asm_label(struct asm_ctx *);
void sp_asm_place(struct asm_ctx *, uint32_t frag);
void sp_asm_bind(struct asm_ctx *, uint32_t label, uint32_t frag);
void sp_asm_emit(struct asm_ctx *, uint32_t frag, uint16_t code, uint32_t k,
    uint32_t jt, uint32_t jf);
void sp_asm_ret(struct asm_ctx *, uint32_t frag, uint32_t k);
void sp_asm_ld(struct asm_ctx *, uint32_t frag, uint32_t off);
size_t sp_asm_frag_len(const struct asm_ctx *, uint32_t frag);
int sp_asm_link(struct asm_ctx *, struct sp_bpf_prog *, struct sp_error *);

/* tree.c: a partition of the key space into labelled intervals. */
struct seg {
	uint64_t start;		/* each segment runs to the next start */
	uint32_t label;
};

struct segs {
	struct seg *v;
	size_t n;
};

typedef uint32_t label_fn(void *ctx, uint64_t key);

int sp_segs_build(struct segs *, uint64_t *breaks, size_t nbreaks,
    label_fn *, void *ctx);
void sp_segs_free(struct segs *);

/* Replaces the subtree over segments [i, j) by a jump to *label. */
typedef bool cut_fn(void *ctx, size_t i, size_t j, uint32_t *label);

size_t sp_tree_nodes(const struct seg *, size_t n);
void sp_tree_emit(struct asm_ctx *, uint32_t frag, const struct seg *,
    size_t n, cut_fn *, void *ctx);
int sp_classify64(struct asm_ctx *, uint32_t frag, const struct segs *);
/* The same over the 64-bit argument whose low word is at off. */
int sp_classify64_at(struct asm_ctx *, uint32_t frag, const struct segs *,
    uint32_t off);

/* ---- the normalized input (generate.c) and one program (program.c) ----
 * Calls are keyed by (arch, nr): i386 numbers first, then x86-64 numbers
 * (x32 ones included, with SP_BPF_X32_BIT). */
#define KEY_X86		(1ull << 32)
#define KEY_END		(2ull << 32)

struct npin {
	uint64_t key;
	uint64_t ip;
	uint8_t flags;			/* SP_BPF_PIN_* */
};

struct norm {
	struct npin *pins;		/* sorted by key, then ip; unique */
	size_t npins;
	uint64_t *any;			/* sorted, unique */
	size_t nany;
	struct sp_bpf_range *ranges;	/* sorted, merged */
	size_t nranges;
	struct sp_bpf_range band, slots;
	unsigned flags;
	uint32_t action;
	uint32_t refuse;		/* the image's own rules' answer */
	uint32_t deny;			/* the rules of every call's answer */
	uint32_t place;			/* "map it in the band" */
	uint32_t check;			/* "only a process of the tree" */
	uint32_t *narrow;		/* sorted, unique (bpf.h, 2a.) */
	size_t nnarrow;
	bool narrow_allow;		/* narrow lists the numbers left */
	uint32_t narrowed;		/* a narrowed call's answer */
};

/* nr (x86-64) is denied by the narrowing, exemptions not counted. */
bool sp_norm_narrowed(const struct norm *in, uint32_t nr);

/* ip inside one of in's ranges. */
bool sp_norm_in_ranges(const struct norm *in, uint64_t ip);
/* Where the image's ranges and the band start and end, for segs_build
 * (2 * nranges + 2 points, *n of them); NULL out of memory. */
uint64_t *sp_norm_breaks(const struct norm *in, size_t *n);
/* The same for a call's ip (the address after its trap instruction, or a
 * vsyscall entry): a range's, or the band's, when in [start, end + 2). */
#define SP_TRAP_LEN 2
uint64_t *sp_norm_ip_breaks(const struct norm *in, size_t *n);
bool sp_norm_ip_inside(const struct norm *in, uint64_t ip);

/* The program for the calls keyed [klo, khi); it allows all others. */
int sp_build_program(const struct norm *, uint64_t klo, uint64_t khi,
    struct sp_bpf_prog *, struct sp_error *);

#endif
