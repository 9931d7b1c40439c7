/* SPDX-License-Identifier: ISC */
/*
 * A classic BPF interpreter for seccomp programs, for tests.
 *
 * sp_interp_check accepts what the kernel accepts for a seccomp filter
 * (bpf_check_classic + seccomp_check_filter): 1..BPF_MAXINSNS
 * instructions, the seccomp subset of opcodes, aligned 32-bit loads inside
 * struct seccomp_data, scratch slots below BPF_MEMWORDS, no division by a
 * constant 0 or shift by 32 or more, every jump landing inside the
 * program, a return as the last instruction.  (It does not check that a
 * scratch slot is written before it is read.)
 *
 * sp_interp_run executes a checked program and counts the instructions
 * it executes.  sp_interp_run_set runs several programs as the kernel does
 * and keeps the most severe action.
 */
#ifndef SYSPIN_TESTS_INTERP_H
#define SYSPIN_TESTS_INTERP_H

#include <stddef.h>
#include <stdint.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

/* 0, or -1 with a reason in why (if not NULL). */
int sp_interp_check(const struct sock_filter *f, size_t n, char *why,
    size_t whylen);

/* The filter's return value; *steps (if not NULL) counts executed
 * instructions.  f must have passed sp_interp_check. */
uint32_t sp_interp_run(const struct sock_filter *f, size_t n,
    const struct seccomp_data *d, size_t *steps);

/* Negative when action a takes precedence over b (seccomp: the lowest
 * ACTION_ONLY value as a signed number wins; on a tie, the first). */
int sp_interp_cmp_action(uint32_t a, uint32_t b);

/*
 * Runs progs in the order the kernel does (newest filter first; for
 * sp_bpf_install that is generation order) and returns the result that
 * wins.  *steps (if not NULL) is the sum over all programs.
 */
uint32_t sp_interp_run_set(const struct sock_fprog *progs, size_t n,
    const struct seccomp_data *d, size_t *steps);

#endif
