/* SPDX-License-Identifier: ISC */
/*
 * Stage 5: pins placed in a process layout -> classic BPF for seccomp.
 *
 * Generation is a pure function of its input (no syscalls, no globals), so it
 * is unit-tested with the cBPF interpreter in tests/ and cross-checked
 * against the kernel.  Installation is separate (sp_bpf_install).
 */
#ifndef SYSPIN_BPF_H
#define SYSPIN_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/filter.h>

#include <syspin/error.h>

/* One allowed (number, instruction pointer) pair.  ip is the address AFTER
 * the trap instruction, as seccomp_data.instruction_pointer reports it. */
struct sp_bpf_pin {
	uint32_t nr;
	uint64_t ip;
};

/* An executable range of the pinned image: [start, end). */
struct sp_bpf_range {
	uint64_t start;
	uint64_t end;
};

/* Generation flags. */
#define SP_BPF_STRICT     0x01u	/* IP outside the ranges is a violation; no
				   new executable memory; no execve */
#define SP_BPF_ALLOW_JIT  0x02u	/* allow anonymous/writable PROT_EXEC */
#define SP_BPF_AUDIT      0x04u	/* violations -> SECCOMP_RET_LOG, not kill */
#define SP_BPF_NO_MEMEXEC 0x08u /* skip the mmap/mprotect PROT_EXEC rules */

struct sp_bpf_input {
	const struct sp_bpf_pin *pins;	/* any order; duplicates allowed */
	size_t npins;
	const uint64_t *any_ips;	/* sites allowed to issue any number */
	size_t nany_ips;
	const struct sp_bpf_range *ranges; /* pinned executable mappings */
	size_t nranges;
	unsigned flags;
};

/* A program ready for seccomp: at most BPF_MAXINSNS instructions. */
struct sp_bpf_prog {
	struct sock_filter *insns;
	size_t len;
};

/*
 * Builds the filter.  When one program would exceed BPF_MAXINSNS, the number
 * space is split across several programs, each of which allows what it does
 * not own; installed together they enforce exactly the same policy.
 * Returns 0 and *progs / *nprogs (free with sp_bpf_free), or -1.
 */
int sp_bpf_generate(const struct sp_bpf_input *in, struct sp_bpf_prog **progs,
    size_t *nprogs, struct sp_error *err);

void sp_bpf_free(struct sp_bpf_prog *progs, size_t nprogs);

/* Install flags. */
#define SP_BPF_INSTALL_NO_NNP 0x01u	/* rely on CAP_SYS_ADMIN instead */

/*
 * Installs progs (last one first, so they run in generation order) with
 * SECCOMP_FILTER_FLAG_TSYNC.  Sets no_new_privs unless SP_BPF_INSTALL_NO_NNP.
 */
int sp_bpf_install(const struct sp_bpf_prog *progs, size_t nprogs,
    unsigned flags, struct sp_error *err);

#endif
