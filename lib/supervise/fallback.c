/* SPDX-License-Identifier: ISC */
/*
 * When an image's filter does not fit under the filters it inherited
 * (seccomp's 32768-instruction total; wrapper scripts, pyenv shims and
 * build trees exec more than ten images deep), the image is still pinned,
 * exactly: we install the same program for fewer numbers and check the
 * rest ourselves.
 *
 * The smaller program is generated from the same placement with only the
 * pins of the kept numbers, SECCOMP_RET_TRACE as its violation, and
 * SP_BPF_OUTSIDE.  For a kept number at its sites it decides exactly as
 * the whole program; any other call stops, but at any-number sites
 * (allowed, as by the whole program), and the argument rules (no
 * executable memory) are checked for every number that has one, kept or
 * not.  So whatever it allows, the whole program allows, and its stops are
 * where the whole program must be asked (sp_bpf_run_all, verdict.c).
 * Stopping every call outside the image also makes it, once an exec has
 * replaced the image, a filter that stops every call of the new one: the
 * descendants need no room of their own, the supervisor checks them.
 *
 * Kept first: the numbers most programs call most often, so that a deep
 * image pays a ptrace stop only for its rarer calls.  As many as fit:
 * halved after each refusal, down to none (a program of the argument rules
 * and the ranges only, a few dozen instructions).  When not even that
 * fits: one instruction, SECCOMP_RET_TRACE for every call, and the process
 * and its descendants are checked call by call from then on.  The
 * supervisor judges every stop with the whole program (verdict.c).
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf.h"
#include "layout/layout.h"
#include "layout/placement.h"

#include "pin_int.h"

/* x86-64 numbers, the most frequent first (strace -c of shells, coreutils,
 * compilers, python, git). */
static const uint32_t hot[] = {
	0, 1, 3, 257, 262, 5, 9, 11, 10, 12, 202, 13, 14, 8, 16, 17, 72,
	39, 61, 56, 217, 89, 79, 21, 20, 19, 7, 232, 281, 228, 230, 35, 24,
	44, 45, 46, 47, 318, 332, 4, 6, 28, 302, 15, 231, 33, 292, 293,
};

#define NHOT (sizeof(hot) / sizeof(*hot))

static bool
kept(uint32_t nr, size_t nkeep)
{
	for (size_t i = 0; i < nkeep; i++)
		if (hot[i] == nr)
			return true;
	return false;
}

/* The program for the first nkeep hot numbers. */
static int
generate_kept(struct job *j, size_t nkeep, struct sp_bpf_prog **progs,
    size_t *nprogs, struct sp_error *err)
{
	struct sp_bpf_input in;
	struct sp_bpf_pin *pins;
	size_t i, n = 0;
	int r;

	sp_placement_bpf_input(&j->pl, j->flags | SP_BPF_OUTSIDE,
	    SP_ANSWER_SUPERVISOR, &in);
	sp_pin_narrow(j, &in);
	if ((pins = calloc(in.npins + 1, sizeof(*pins))) == NULL)
		return sp_error_set(err, "out of memory");
	for (i = 0; i < in.npins; i++)
		if (in.pins[i].abi == SP_ABI_X86_64 &&
		    kept(in.pins[i].nr, nkeep))
			pins[n++] = in.pins[i];
	in.pins = pins;
	in.npins = n;
	r = sp_bpf_generate(&in, progs, nprogs, err);
	free(pins);
	return r;
}

/* One instruction: every call stops. */
int
sp_pin_trace_all(struct job *j, struct sp_error *err)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	struct sp_bpf_prog all = { &insn, 1 };
	long kret;

	if (sp_pin_install_progs(j, &all, 1, &kret, err) == -1)
		return -1;
	if (kret != 0)
		return sp_error_sys(err, (int)-kret, "too many nested pinned "
		    "programs: no room left for even one instruction "
		    "(seccomp allows 32768 in all of a process's filters)");
	return 0;
}

int
sp_pin_fallback(struct job *j, struct sp_pin_result *res, struct sp_error *err)
{
	struct sp_bpf_prog *progs;
	size_t nprogs, nkeep = NHOT;
	long kret;

	for (;;) {
		if (generate_kept(j, nkeep, &progs, &nprogs, err) == -1)
			return -1;
		if (sp_pin_install_progs(j, progs, nprogs, &kret, err) == -1) {
			sp_bpf_free(progs, nprogs);
			return -1;
		}
		sp_bpf_free(progs, nprogs);
		/* It stops every call outside the image: once the image
		 * is gone, every call of the next ones. */
		if (kret == 0) {
			res->smaller = true;
			res->nkept = nkeep;
			res->stops_all = true;
			return 0;
		}
		if (kret != -ENOMEM)
			return sp_error_sys(err, (int)-kret,
			    "seccomp in the process");
		if (nkeep == 0)
			break;
		nkeep /= 2;
	}
	if (sp_pin_trace_all(j, err) == -1)
		return -1;
	res->stops_all = true;
	return 0;
}
