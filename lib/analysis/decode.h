/* SPDX-License-Identifier: ISC */
/*
 * Decoding a code region into a compact instruction list: control flow and
 * the one data-flow effect per instruction that number inference needs.
 * Zydis does the decoding; nothing else in the analysis touches it.
 */
#ifndef SYSPIN_ANALYSIS_DECODE_H
#define SYSPIN_ANALYSIS_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum flow {
	FLOW_NEXT,	/* falls through */
	FLOW_JMP,	/* direct jump to target */
	FLOW_JCC,	/* conditional: target or next */
	FLOW_CALL,	/* direct call, returns to next */
	FLOW_ICALL,	/* indirect call (target may be a GOT slot) */
	FLOW_IJMP,	/* indirect jump: jump table or tail call */
	FLOW_RET,	/* ends the path */
	FLOW_STOP,	/* ud2, hlt, int3: the path does not continue */
	FLOW_TRAP,	/* syscall / int 0x80 / sysenter; falls through */
	FLOW_INVALID,	/* undecodable byte: region is not code here */
};

/* Effect operations on the tracked state (registers and stack slots). */
enum eff_op {
	EFF_NONE,
	EFF_CONST,	/* dst = imm (already extended to 64 bits) */
	EFF_COPY,	/* dst = src (+ imm), width-truncated */
	EFF_CMOV,	/* dst = src or dst (a conditional move) */
	EFF_ALU_IMM,	/* dst = dst <alu> imm */
	EFF_STORE,	/* stack[src-pointer + imm] = reg dst (width) */
	EFF_STORE_IMM,	/* stack[src-pointer + imm] = imm2 */
	EFF_LOAD,	/* dst = stack[src-pointer + imm] */
	EFF_PUSH,	/* rsp -= 8; stack[rsp] = reg src */
	EFF_PUSH_IMM,	/* rsp -= 8; stack[rsp] = imm */
	EFF_POP,	/* dst = stack[rsp]; rsp += 8 */
	EFF_LEAVE,	/* rsp = rbp; rbp = pop */
	EFF_LOAD_GLOBAL,	/* dst = global memory at imm (rip-relative) */
	EFF_STORE_GLOBAL,	/* global memory at imm = reg dst (width);
				   not tracked, read by published.c */
};

enum alu { ALU_ADD, ALU_SUB, ALU_AND, ALU_OR, ALU_XOR, ALU_SHL, ALU_SHR };

struct effect {
	uint8_t op;		/* enum eff_op */
	uint8_t alu;		/* enum alu */
	uint8_t width;		/* bytes written: 1, 2, 4, 8 */
	int8_t dst;		/* enum sp_reg or -1 */
	int8_t src;		/* enum sp_reg or -1 */
	bool mem_unknown;	/* stores to memory we do not track */
	uint16_t clobber;	/* other registers written: made unknown */
	int64_t imm;
	int64_t imm2;
};

/* Instruction shapes that jump-table recovery looks for. */
enum pat {
	PAT_NONE,
	PAT_JMP_REG,		/* jmp *%r1 */
	PAT_JMP_TABLE8,		/* jmp *T(,%r1,8): T in `target` */
	PAT_MOVSXD_TABLE,	/* movslq (%r2,%idx,4), %r1 */
	PAT_ADD_RR,		/* add %r2, %r1 */
	PAT_CMP_IMM,		/* cmp $pimm, %r1 (a switch's bound) */
	PAT_TEST_SELF,		/* test %r1, %r1 (pimm 0) */
};

/* Conditional jumps that test equality (after PAT_CMP_IMM/TEST_SELF). */
enum { JCC_OTHER, JCC_EQ, JCC_NE };

/* Evidence that bytes are data, not code (see likely_data in sites.c). */
#define ODD_NONE	0
#define ODD_WEAK	1	/* legal, but rare in compiled code */
#define ODD_STRONG	2	/* (almost) never in 64-bit user code */

struct insn {
	uint64_t addr;
	uint64_t target;	/* JMP/JCC/CALL target; ICALL/IJMP GOT slot */
	uint8_t len;
	uint8_t flow;		/* enum flow */
	uint8_t trap;		/* enum sp_trap_kind, with FLOW_TRAP */
	bool pad;		/* nop or int3: alignment padding */
	uint8_t odd;		/* ODD_*: how unlike compiled code it is */
	bool noreturn;		/* FLOW_CALL to a function that never returns */
	uint8_t pat;		/* enum pat */
	int64_t pimm;		/* PAT_CMP_IMM's immediate */
	uint8_t pwidth;		/* bytes compared by PAT_CMP_IMM/TEST_SELF */
	uint8_t jcc;		/* JCC_*, with FLOW_JCC */
	bool mem_write;		/* writes memory */
	bool is_lea;		/* computes an address (takes it) */
	uint64_t riprel;	/* address of a rip-relative operand, or 0 */
	int8_t pr1, pr2;	/* its registers */
	struct effect eff;
};

/* An edge out of an indirect jump, from a recovered jump table. */
struct jt_edge {
	size_t from;		/* index of the FLOW_IJMP instruction */
	uint64_t to;
};

struct insn_list {
	struct insn *v;
	size_t n, cap;
	struct jt_edge *jt;
	size_t njt;
	bool jt_sorted;		/* jt ordered by (from, to): jt_first works */
	uint64_t start, end;	/* the region decoded */
	size_t ninvalid;	/* undecodable positions skipped */
};

struct decoder;

struct decoder *sp_decoder_new(void);
void sp_decoder_free(struct decoder *d);

/*
 * Decodes [start, end) linearly.  `code` points at the bytes of start and
 * `avail` bytes are readable from there (may exceed end-start: an
 * instruction straddling `end` is decoded whole).  With `effects` false
 * only lengths and control flow are filled in (faster).  An undecodable
 * byte is recorded as a 1-byte FLOW_INVALID instruction.
 * Returns 0 or -1 (out of memory).
 */
int sp_decode_region(struct decoder *d, const uint8_t *code, uint64_t avail,
    uint64_t start, uint64_t end, bool effects, struct insn_list *out);

void sp_insn_list_free(struct insn_list *l);

/*
 * The edges out of instruction `from`:
 *	JT_FOR_EACH(l, from, e) { ... l->jt[e] ... }
 * Binary search for the first once jt_sort ran (large functions have tens
 * of thousands of cases: a scan of every edge per jump, or per fixpoint
 * step, was quadratic); a scan of all edges otherwise.
 */
size_t sp_jt_first(const struct insn_list *l, size_t from);
#define JT_FOR_EACH(l, f, e) \
	for (size_t e = sp_jt_first((l), (f)); e < (l)->njt && \
	    ((l)->jt[e].from == (f) || !(l)->jt_sorted); e++) \
		if ((l)->jt[e].from == (f))
/* Orders l->jt by (from, to); edges added later clear jt_sorted.
 * (Both in jumptable.c, which adds the edges.) */
void sp_jt_sort(struct insn_list *l);

/* Index of the instruction starting at addr, or -1. */
long sp_insn_index(const struct insn_list *l, uint64_t addr);

#endif
