/* SPDX-License-Identifier: ISC */
/*
 * Building one program: shared by program.c (layout, number dispatch)
 * and blocks.c (the instruction-pointer blocks).
 */
#ifndef SYSPIN_BPF_PROGRAM_H
#define SYSPIN_BPF_PROGRAM_H

#include "bpf_int.h"

/* Jumps that leave a chunk go through one shared instruction per target
 * at the chunk's end (a copy of a return, or a long jump), instead of a
 * trampoline per jump. */
#define EXITS_MAX 16

struct exit {
	uint32_t target;
	uint32_t *labels;	/* bound to this exit instruction */
	size_t n, cap;
};

struct exits {
	struct exit e[EXITS_MAX];
	size_t n;
};

/* One pinned (arch, number) and its block. */
struct unit {
	uint32_t nr;
	const struct npin *p;	/* its sites, sorted by ip */
	size_t np;
	uint32_t label;
	uint32_t bf, cf;	/* block and argument-rule fragments */
	uint32_t pass_exit, pass_target;	/* if pass_far */
	uint32_t miss_exit, miss_target;
	bool pass_far;
	size_t size;
	bool placed;
};

struct notpin {
	struct cont c;
	uint32_t label;
};

struct pgen {
	const struct norm *in;
	struct asm_ctx a;
	uint64_t klo, khi;
	uint32_t viol, allow, eacces;
	struct notpin np[8];
	size_t nnp;
	uint32_t tail[16];	/* notpin fragments, placed at the end */
	size_t ntail;
	/* the dispatch being built */
	uint64_t kbase;
	struct unit *u;
	size_t nu;
	const struct seg *segs;
	size_t *usz;		/* prefix sums of block sizes per segment */
	long *seg_unit;
};

/* blocks.c */
uint32_t notpin(struct pgen *, struct cont);
int make_block(struct pgen *, struct unit *);
uint32_t exit_label(struct pgen *, struct exits *, uint32_t target);
void exit_add(struct pgen *, struct exits *, uint32_t label,
    uint32_t target);
void exits_emit(struct pgen *, struct exits *, uint32_t frag);

#endif
