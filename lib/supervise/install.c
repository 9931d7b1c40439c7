/* SPDX-License-Identifier: ISC */
/*
 * The filter installed by the tracee (pin.c calls these at the end of an
 * execve): the programs and their sock_fprogs go into a sealed memfd the
 * tracee maps (sealed.c: nothing of the tree can change them before the
 * kernel copies them); each program's seccomp(2) is injected at the
 * tracee's own `syscall` instruction, in an order that lets the next one
 * through the ones already installed.
 *
 * Where the supervisor can read back what the kernel installed
 * (PTRACE_SECCOMP_GET_FILTER: CAP_SYS_ADMIN, no filter of its own, a
 * kernel with CONFIG_CHECKPOINT_RESTORE), the programs go below the new
 * image's stack pointer instead, and every program is compared with the
 * kernel's own copy of it: what the tree may write there before the copy
 * (through /proc/PID/mem, process_vm_writev, io_uring) is seen in the
 * copy, and the image refused before its first instruction.  That is
 * three injected calls fewer per exec (memfd_create, mmap, close).
 * Whether it can is learnt from the first image, installed from a memfd
 * and read back; an image with filters of the tree's own keeps the memfd.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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

/* The programs are read back from the kernel: -1 not known yet (the
 * first image tells), 0 they cannot be, 1 they are. */
static int readback = -1;

/* The most a new image's stack takes below its pointer: the kernel makes
 * 128 KiB of room below what the exec put there. */
#define ON_STACK_MAX (64u * 1024)

/* 1 where pid's filter index (the oldest is 0) is prog, 0 where it is
 * another or none, -1 where the kernel does not say. */
static int
kernel_holds(pid_t pid, long index, const struct sp_bpf_prog *prog)
{
	struct sock_filter *got;
	long n;
	int r;

	if ((n = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, index, NULL)) < 0)
		return errno == ENOENT ? 0 : -1;
	if ((size_t)n != prog->len)
		return 0;
	if ((got = calloc((size_t)n, sizeof(*got))) == NULL)
		return -1;
	r = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, index, got) == n &&
	    memcmp(got, prog->insns, (size_t)n * sizeof(*got)) == 0;
	free(got);
	return r;
}

/* The programs written below the tracee's red zone; -1 where the stack
 * has no room for them there (nothing forced: process_vm_writev). */
static int
on_stack(const struct job *j, const struct layout *l, uint64_t *base)
{
	size_t len = progs_len(l);
	uint64_t at = ((j->regs.rsp - 256) & ~(uint64_t)15) - len;
	struct iovec lv, rv;
	uint8_t *buf;
	ssize_t n;

	if (len > ON_STACK_MAX || (buf = calloc(1, len)) == NULL)
		return -1;
	fill_progs((void *)l, at, buf);
	lv = (struct iovec){ buf, len };
	rv = (struct iovec){ (void *)(uintptr_t)at, len };
	n = process_vm_writev(j->pid, &lv, 1, &rv, 1, 0);
	free(buf);
	if (n != (ssize_t)len)
		return -1;
	*base = at;
	return 0;
}

/* After program i's install: the kernel's copy is the program.  A copy
 * from the stack must be read back; one from the sealed memfd is, the
 * first time, to learn whether the next can go on the stack. */
static int
check_copy(struct job *j, const struct sp_bpf_prog *prog, bool stack,
    struct sp_error *err)
{
	int h;

	if (readback == 0 || j->filters < 0)
		return stack ? sp_error_set(err, "the filter cannot be read "
		    "back") : 0;
	h = kernel_holds(j->pid, j->filters + (long)j->installed, prog);
	if (h == -1 && !stack && readback == -1) {
		readback = 0;
		return 0;
	}
	if (h != 1)
		return sp_error_set(err, "the filter the kernel installed is "
		    "not the one written (changed before it was copied?)");
	readback = 1;
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
	struct layout l = { progs, nprogs };
	uint64_t fprog[64], base;
	size_t order[64], i;
	bool stack;
	long ret;

	*kret = 0;
	if (nprogs > 64)
		return sp_error_set(err, "too many filter programs");
	if (install_order(j, progs, nprogs, order, err) == -1)
		return -1;
	stack = readback == 1 && !j->own_filters && j->filters >= 0 &&
	    on_stack(j, &l, &base) == 0;
	/* after an execve the descriptor table is the process's own */
	if (!stack && sp_sealed_map(&j->in, j->regs.rsp, progs_len(&l), false,
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
		if (check_copy(j, &progs[order[i]], stack, err) == -1)
			return -1;
		j->installed++;		/* checked by its count: verify.c */
	}
	return 0;
}

/* The registers as they were. */
int
sp_pin_restore(struct job *j, struct sp_error *err)
{
	return sp_inject_restore(&j->in, &j->regs, err);
}
