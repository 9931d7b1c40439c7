/* SPDX-License-Identifier: ISC */
/*
 * The filter written into the tracee and installed by it (pin.c calls
 * these at the end of an execve): the programs go below its stack pointer
 * (what was there is saved and put back), else into a mapping we make
 * (left behind, zeroed); each program's seccomp(2) is injected at the
 * tracee's own `syscall` instruction, in an order that lets the next one
 * through the ones already installed.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include <syspin/supervise.h>

#include "pin_int.h"

#define RED_ZONE 256
#define STACK_MAX (96u << 10)	/* the initial stack has 128 KiB below */

/* Room for the programs and their sock_fprogs: the stack, else a mapping. */
int
sp_pin_make_area(struct job *j, struct sp_error *err)
{
	size_t i, len = j->nprogs * 16;
	long ret;

	for (i = 0; i < j->nprogs; i++)
		len += (j->progs[i].len * sizeof(struct sock_filter) + 15) &
		    ~(size_t)15;
	j->area_len = len;
	j->area = ((j->regs.rsp - RED_ZONE) & ~(uint64_t)15) - len;
	j->area &= ~(uint64_t)15;
	if (len <= STACK_MAX && (j->saved = malloc(len)) != NULL &&
	    sp_mem_read(j->pid, j->area, j->saved, len, err) == 0)
		return 0;
	free(j->saved);
	j->saved = NULL;
	if (sp_pin_mmap(j, 0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, &ret,
	    err) == -1)
		return -1;
	if (ret < 0 && ret > -4096)
		return sp_error_sys(err, (int)-ret, "mmap in the process");
	j->area = (uint64_t)ret;
	return 0;
}

/* Writes programs to the area; fprog[i] is where sock_fprog i went. */
static int
write_progs(struct job *j, const struct sp_bpf_prog *progs, size_t nprogs,
    uint64_t *fprog, struct sp_error *err)
{
	uint64_t at = j->area;
	size_t i, n;

	for (i = 0; i < nprogs; i++) {
		struct { uint16_t len; uint16_t pad[3]; uint64_t filter; } f;
		n = progs[i].len * sizeof(struct sock_filter);
		if (at + 16 + n > j->area + j->area_len)
			return sp_error_set(err, "no room for the filter");
		memset(&f, 0, sizeof(f));
		f.len = progs[i].len;
		f.filter = at + 16;
		if (sp_mem_write(j->pid, at, &f, sizeof(f), err) == -1 ||
		    sp_mem_write(j->pid, at + 16, progs[i].insns, n,
		    err) == -1)
			return -1;
		fprog[i] = at;
		at += 16 + ((n + 15) & ~(size_t)15);
	}
	return 0;
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

/*
 * Makes the tracee install programs (TSYNC).  0 with *kret 0, or with
 * *kret the kernel's -errno for the first program it refused (those before
 * it stay installed); -1 when the injection itself failed.
 */
int
sp_pin_install_progs(struct job *j, const struct sp_bpf_prog *progs,
    size_t nprogs, long *kret, struct sp_error *err)
{
	uint64_t fprog[64];
	size_t order[64], i;
	long ret;

	*kret = 0;
	if (nprogs > 64)
		return sp_error_set(err, "too many filter programs");
	if (write_progs(j, progs, nprogs, fprog, err) == -1 ||
	    install_order(j, progs, nprogs, order, err) == -1)
		return -1;
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

/* The stack as it was (or the mapping zeroed), the registers as they were. */
int
sp_pin_restore(struct job *j, struct sp_error *err)
{
	void *zero;
	int r = 0;

	if (j->saved != NULL)
		r = sp_mem_write(j->pid, j->area, j->saved, j->area_len, err);
	else if (j->area != 0 && (zero = calloc(1, j->area_len)) != NULL) {
		r = sp_mem_write(j->pid, j->area, zero, j->area_len, err);
		free(zero);
	}
	if (ptrace(PTRACE_SETREGS, j->pid, 0, &j->regs) == -1)
		r = sp_error_sys(err, errno, "ptrace setregs");
	return r;
}

