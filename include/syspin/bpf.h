/* SPDX-License-Identifier: ISC */
/*
 * Stage 5: pins placed in a process layout -> classic BPF for seccomp.
 *
 * Generation is a pure function of its input (no syscalls, no globals), so it
 * is unit-tested with the cBPF interpreter in tests/bpf and cross-checked
 * against the kernel.  Installation is separate (sp_bpf_install).
 *
 * The policy, for a system call with (arch, nr, ip, args) where ip is the
 * address after the trap instruction:
 *
 *  1. arch x86-64 with nr & 0x40000000 is the x32 ABI, arch i386 is
 *     `int 0x80`; any other arch is a violation.
 *  2. (abi, nr, ip) pinned: allowed, go to 5.
 *  3. x32 or i386 and not pinned: violation, wherever ip is.
 *  4. x86-64 and not pinned: ip in any_ips: allowed; ip inside a range:
 *     violation; ip outside every range: violation with SP_BPF_STRICT,
 *     else allowed (only an image exec'd later can be there).
 *  5. Allowed calls that make executable memory (unless SP_BPF_ALLOW_JIT)
 *     fail with EACCES: mmap with PROT_EXEC and (MAP_ANONYMOUS or
 *     PROT_WRITE); mprotect/pkey_mprotect with PROT_EXEC; shmat with
 *     SHM_EXEC; personality setting READ_IMPLIES_EXEC (it turns PROT_READ
 *     into PROT_EXEC).  With SP_BPF_STRICT every PROT_EXEC mmap fails, and
 *     execve/execveat fail too (even with SP_BPF_ALLOW_JIT).
 *     A file-backed, non-writable PROT_EXEC mmap stays allowed without
 *     SP_BPF_STRICT: dlopen needs it.  The filter cannot tell which file an
 *     fd names, so mapping a memfd (or any writable file) twice, once
 *     writable and once executable, still yields new code: only
 *     SP_BPF_STRICT closes that hole.  remap_file_pages cannot change
 *     protections and only works on shared mappings, so it adds nothing.
 *
 * Numbers and argument rules per ABI (i386 old mmap and ipc take their
 * arguments through memory: pinned, they fail with EACCES unless
 * SP_BPF_ALLOW_JIT) are in lib/bpf/policy.c.
 */
#ifndef SYSPIN_BPF_H
#define SYSPIN_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/filter.h>

#include <syspin/error.h>

/* ABI of a pin.  SP_ABI_X86_64 is 0 so that { nr, ip } initialisers mean a
 * plain x86-64 `syscall` site. */
#define SP_ABI_X86_64	0
#define SP_ABI_I386	1	/* `int 0x80`: arch AUDIT_ARCH_I386, i386 nr */
#define SP_ABI_X32	2	/* arch x86-64, nr | SP_BPF_X32_BIT */

#define SP_BPF_X32_BIT	0x40000000u

/* One allowed (number, instruction pointer) pair.  ip is the address AFTER
 * the trap instruction, as seccomp_data.instruction_pointer reports it.
 * An x32 nr may be given with or without SP_BPF_X32_BIT; an x86-64 nr must
 * not have it. */
struct sp_bpf_pin {
	uint32_t nr;
	uint64_t ip;
	uint8_t abi;		/* SP_ABI_* */
};

/* An executable range of the pinned image: [start, end). */
struct sp_bpf_range {
	uint64_t start;
	uint64_t end;
};

/* Generation flags. */
#define SP_BPF_STRICT     0x01u	/* IP outside the ranges is a violation; no
				   PROT_EXEC mmap at all; no execve */
#define SP_BPF_ALLOW_JIT  0x02u	/* lift the executable-memory rules */
#define SP_BPF_AUDIT      0x04u	/* default action SECCOMP_RET_LOG */
#define SP_BPF_OUTSIDE    0x08u	/* IP outside the ranges is a violation,
				   nothing else changes (a smaller filter
				   that must stop what it cannot judge) */

struct sp_bpf_input {
	const struct sp_bpf_pin *pins;	/* any order; duplicates allowed */
	size_t npins;
	const uint64_t *any_ips;	/* x86-64 sites allowed any number */
	size_t nany_ips;
	const struct sp_bpf_range *ranges; /* pinned executable mappings */
	size_t nranges;
	unsigned flags;
	/*
	 * Action on violation: 0 means SECCOMP_RET_KILL_PROCESS (or
	 * SECCOMP_RET_LOG with SP_BPF_AUDIT).  Otherwise one of KILL_PROCESS,
	 * TRAP, ERRNO|e, USER_NOTIF, TRACE|d, LOG (KILL_THREAD, being 0,
	 * cannot be chosen; it would leave the process running anyway).
	 * USER_NOTIF works only when the filter is not split (one listener
	 * per filter chain).
	 */
	uint32_t action;
	/*
	 * What a call the memory rules refuse gets: 0 means
	 * SECCOMP_RET_ERRNO | EACCES.  The supervisor asks for
	 * SECCOMP_RET_TRACE | SP_BPF_REFUSE_DATA, to say why once and fail
	 * the call with EACCES itself.
	 */
	uint32_t refuse;
};

/* TRACE data of a memory-rule refusal (filter data counts filters). */
#define SP_BPF_REFUSE_DATA 0xffffu

/* A program ready for seccomp: at most BPF_MAXINSNS instructions. */
struct sp_bpf_prog {
	struct sock_filter *insns;
	size_t len;
};

/* The kernel's limit on the instructions of all filters of a task, each
 * filter counting 4 more (MAX_INSNS_PER_PATH). */
#define SP_BPF_MAX_TOTAL 32768u

/*
 * Builds the filter.  When one program would exceed BPF_MAXINSNS, the
 * (arch, number) space is split across several programs: each owns one
 * interval and allows every call it does not own, so, installed together
 * (all run, the most severe action wins), they enforce exactly the policy
 * of one program.  Fails when one number's sites alone do not fit a
 * program or the total exceeds SP_BPF_MAX_TOTAL.
 * Returns 0 and *progs / *nprogs (free with sp_bpf_free), or -1.
 */
int sp_bpf_generate(const struct sp_bpf_input *in, struct sp_bpf_prog **progs,
    size_t *nprogs, struct sp_error *err);

void sp_bpf_free(struct sp_bpf_prog *progs, size_t nprogs);

/*
 * Longest executed path of prog, in instructions including the final
 * return (programs only jump forward, so this bounds every run).  The
 * kernel runs every installed program, so a call costs the sum over progs.
 */
size_t sp_bpf_path_max(const struct sp_bpf_prog *prog);

/* Install flags. */
#define SP_BPF_INSTALL_NO_NNP 0x01u	/* rely on CAP_SYS_ADMIN instead */

/*
 * Installs progs (last one first, so they run in generation order) with
 * SECCOMP_FILTER_FLAG_TSYNC.  Sets no_new_privs unless SP_BPF_INSTALL_NO_NNP.
 * Filters cannot be removed: when program i fails, programs after i are
 * installed and stay (each only ever allows less).  On a TSYNC failure,
 * *tid (if not NULL) is the thread that could not be synchronised.
 */
int sp_bpf_install(const struct sp_bpf_prog *progs, size_t nprogs,
    unsigned flags, struct sp_error *err);
int sp_bpf_install_tid(const struct sp_bpf_prog *progs, size_t nprogs,
    unsigned flags, long *tid, struct sp_error *err);

#endif
