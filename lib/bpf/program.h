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
#define EXITS_MAX 40

struct exit {
	uint32_t target;
	uint32_t *labels;	/* bound to this exit instruction */
	size_t n, cap;
};

struct exits {
	struct exit e[EXITS_MAX];
	size_t n;
};

/* ---- argument rules (policy.c) ---- */

enum rule {
	R_NONE,
	/* the image's own (bpf.h, 5.) */
	R_MMAP, R_MPROTECT, R_MREMAP, R_SHMAT, R_PERSONA, R_EXEC, R_OPAQUE,
	R_MMAP32, R_MPROTECT32,
	/* every call's (bpf.h, 2.) */
	R_IOCTL, R_SECCOMP, R_KEYCTL, R_ARCH_PRCTL, R_PTRACE, R_NOPTRACE,
	R_CLONE, R_CLONE3, R_BPF, R_PERF, R_CLOCKSET, R_CLOCKID, R_REQKEY,
	R_CONNECT, R_UNIXSOCK, R_DENIED, R_URING, R_PRLIMIT, R_SIGNAL1, R_SIGNAL2,
	R_FCNTL, R_SETPGID, R_EXECCHECK,
};

/* Where a call comes from, for the rules. */
enum site_class {
	CLS_OWN,	/* a site of the image (or an any-number site) */
	CLS_LOADER,	/* a site of its loader */
};

/* The rule a call gets, R_NONE when nothing is to be checked; narrow:
 * first, any form but arg0 == keep0 is narrowed (bpf.h, 2a.). */
struct cont {
	enum rule rule;
	enum site_class cls;
	bool narrow;
	uint32_t keep0;
};

struct cont sp_policy_cont(const struct norm *in, int abi, uint32_t nr,
    enum site_class cls);
bool sp_cont_equal(struct cont a, struct cont b);
/* Numbers with a rule for abi, ending with UINT32_MAX. */
const uint32_t *sp_policy_numbers(int abi);

/* The returns every program has. */
enum ret { RET_VIOL, RET_ALLOW, RET_REFUSE, RET_DENY, RET_PLACE, RET_KILL,
	RET_ENOSYS, RET_NARROW, RET_CHECK, NRET };

/* One pinned (arch, number) and its block. */
struct unit {
	uint32_t nr;
	const struct npin *p;	/* its sites, sorted by ip */
	size_t np;
	uint32_t label;
	uint32_t bf, cf;	/* block and argument-rule fragments */
	uint32_t pass[2];	/* CLS_OWN, CLS_LOADER: continuations */
	bool pass_far[2];	/* pass[] is a return, through an exit */
	uint32_t pass_target[2];
	uint32_t miss_exit, miss_target;
	size_t size;
	bool placed;
};

/* The shared "not pinned" block of a number's rule. */
struct sp_notpin {
	struct cont c;
	uint32_t label;
};

struct pgen {
	const struct norm *in;
	struct asm_ctx a;
	uint64_t klo, khi;
	uint32_t ret[NRET];	/* labels of the returns */
	uint32_t retval[NRET];
	struct sp_notpin np[32];
	size_t nnp;
	uint32_t tail[64];	/* notpin fragments, placed at the end */
	size_t ntail;
	/* the dispatch being built */
	uint64_t kbase;
	struct unit *u;
	size_t nu;
	const struct seg *segs;
	size_t *usz;		/* prefix sums of block sizes per segment */
	long *seg_unit;
};

/* policy.c: the checks of c, then allow. */
uint32_t sp_emit_cont(struct pgen *, uint32_t frag, struct cont c,
    uint32_t allow);

/* blocks.c */
uint32_t sp_notpin(struct pgen *, int abi, uint32_t nr);
int sp_make_block(struct pgen *, struct unit *);
uint32_t sp_exit_label(struct pgen *, struct exits *, uint32_t target);
void sp_exit_add(struct pgen *, struct exits *, uint32_t label,
    uint32_t target);
void sp_exits_emit(struct pgen *, struct exits *, uint32_t frag);

#endif
