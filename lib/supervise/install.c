/* SPDX-License-Identifier: ISC */
/*
 * The filter installed by the tracee (pin.c calls these at the end of an
 * execve): the programs and their sock_fprogs go into a sealed memfd the
 * tracee maps (sealed.c: nothing of the tree can change them before the
 * kernel copies them); each program's seccomp(2) is injected at the
 * tracee's own `syscall` instruction, in an order that lets the next one
 * through the ones already installed.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "supervise/supervise.h"

#include "pin_int.h"
#include "sealed.h"

struct layout {
	const struct sp_bpf_prog *progs;
	size_t nprogs;
};

/* The bytes for progs: each sock_fprog (16 bytes), then its program. */
static size_t
progs_len(const struct layout *l)
{
	size_t len = 0;

	for (size_t i = 0; i < l->nprogs; i++)
		len += 16 + ((l->progs[i].len * sizeof(struct sock_filter) +
		    15) & ~(size_t)15);
	return len;
}

static void
fill_progs(void *ctx, uint64_t base, uint8_t *buf)
{
	const struct layout *l = ctx;
	size_t at = 0, n;

	for (size_t i = 0; i < l->nprogs; i++) {
		struct { uint16_t len; uint16_t pad[3]; uint64_t filter; } f;
		n = l->progs[i].len * sizeof(struct sock_filter);
		memset(&f, 0, sizeof(f));
		f.len = l->progs[i].len;
		f.filter = base + at + 16;
		memcpy(buf + at, &f, sizeof(f));
		memcpy(buf + at + 16, l->progs[i].insns, n);
		at += 16 + ((n + 15) & ~(size_t)15);
	}
}

/* Where sock_fprog i is, from base. */
static void
fprogs_at(const struct layout *l, uint64_t base, uint64_t *fprog)
{
	uint64_t at = base;

	for (size_t i = 0; i < l->nprogs; i++) {
		fprog[i] = at;
		at += 16 + ((l->progs[i].len * sizeof(struct sock_filter) +
		    15) & ~(size_t)15);
	}
}

/*
 * Each seccomp(2) call after the first runs under the programs already
 * installed.  Split programs allow every number they do not own, so all of
 * them but the owner of seccomp's own number let the next call through:
 * that one goes last.  The others go in reverse, as sp_bpf_install does.
 */
static int
install_order(struct job *j, const struct sp_bpf_prog *progs, size_t nprogs,
    size_t *order, struct sp_error *err)
{
	size_t i, n = 0, last = nprogs;
	struct seccomp_data d = { .nr = SYS_seccomp,
	    .arch = AUDIT_ARCH_X86_64, .instruction_pointer = j->in.trap + 2,
	    .args = { SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC } };
	uint32_t r;

	for (i = nprogs; i-- > 0;) {
		r = sp_bpf_run(progs[i].insns, progs[i].len, &d, NULL);
		if (r == SECCOMP_RET_ALLOW) {
			order[n++] = i;
			continue;
		}
		if (last != nprogs)
			return sp_error_set(err, "the filter cannot be "
			    "installed in parts from one place");
		last = i;
	}
	if (last != nprogs)
		order[n++] = last;
	return 0;
}

/* Below the band's guard page: nothing of a new image is there (a
 * program linked there is not one the kernel maps with room for it). */
static uint64_t
below_band(size_t len)
{
	return SP_BAND_START - SP_BAND_GUARD -
	    (((uint64_t)len + 4095) & ~(uint64_t)4095);
}

/*
 * Makes the tracee install programs (TSYNC).  0 with *kret 0, or with
 * *kret the kernel's -errno for the first program it refused (those before
 * it stay installed); -1 when the injection itself failed.
 */
int
sp_pin_install_progs(struct job *j, const struct sp_bpf_prog *progs,
    size_t nprogs, long *kret, struct sp_error *err)
{
	struct layout l = { progs, nprogs };
	uint64_t fprog[64], base;
	size_t order[64], i;
	long ret;

	*kret = 0;
	if (nprogs > 64)
		return sp_error_set(err, "too many filter programs");
	/* after an execve the descriptor table is the process's own */
	if (install_order(j, progs, nprogs, order, err) == -1 ||
	    sp_sealed_map(&j->in, j->regs.rsp, progs_len(&l), false,
	    below_band(progs_len(&l)), fill_progs, &l, &base, err) == -1)
		return -1;
	fprogs_at(&l, base, fprog);
	for (i = 0; i < nprogs; i++) {
		if (sp_pin_call(j, SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_TSYNC, fprog[order[i]], 0, &ret,
		    err) == -1)
			return -1;
		if (ret > 0)
			return sp_error_set(err, "seccomp in the process: a "
			    "thread could not be synchronised");
		if (ret < 0) {
			*kret = ret;
			return 0;
		}
		j->installed++;		/* checked by its count: verify.c */
	}
	return 0;
}

/* The registers as they were. */
int
sp_pin_restore(struct job *j, struct sp_error *err)
{
	if (ptrace(PTRACE_SETREGS, j->pid, 0, &j->regs) == -1)
		return sp_error_sys(err, errno, "ptrace setregs");
	return 0;
}
