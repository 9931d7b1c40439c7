/* SPDX-License-Identifier: ISC */
/*
 * Start-up code is pinned only until the entry point.  ld.so's own
 * execve site (dl_main's, which runs only while ld.so starts the program)
 * stays in the image's pins for ld.so's start-up, and would stay callable
 * for the program's whole life: a chain in a program that never execs
 * could run anything through it.  At the entry point (the supervisor
 * stops there anyway, to seal the slots) a second filter is installed
 * that stops execve and execveat from ld.so's code; the supervisor judges
 * such a stop with this filter and the image's program together, as the
 * kernel combines them (verdict.c), so the call is a violation from then
 * on.  A dozen instructions, of which five run for every call.
 *
 * The filter stays when the process execs another program; there a stop
 * it asks for is judged by the new image's program alone, which allows
 * what it pins.
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

#include "supervise_int.h"

#define NR_EXECVE	59
#define NR_EXECVEAT	322
#define INSNS		12

/* ld.so's executable range, when it is one range within 4 GiB. */
static bool
loader_range(const struct sp_layout *lo, uint64_t *start, uint64_t *end)
{
	bool found = false;

	for (size_t i = 0; i < lo->nranges; i++) {
		const struct sp_layout_range *r = &lo->ranges[i];
		if (!lo->objs[r->obj].loader)
			continue;
		if (found)
			return false;		/* two: not the layout we know */
		*start = r->start;
		*end = r->end;
		found = true;
	}
	return found && *end > *start && (*start >> 32) == (*end >> 32);
}

int
sp_sup_entry_filter(const struct sp_layout *lo, struct sp_bpf_prog *out)
{
	uint64_t a = 0, b = 0;
	struct sock_filter *f;

	memset(out, 0, sizeof(*out));
	if (!loader_range(lo, &a, &b))
		return 0;
	if ((f = calloc(INSNS, sizeof(*f))) == NULL)
		return -1;
	/* 10: allow, 11: the supervisor judges (a violation: data 0).  The
	 * address is the one after the `syscall`: in (start, end]. */
	f[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	f[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    AUDIT_ARCH_X86_64, 0, 8);
	f[2] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	f[3] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    NR_EXECVE, 1, 0);
	f[4] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    NR_EXECVEAT, 0, 5);
	f[5] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, instruction_pointer) + 4);
	f[6] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    (uint32_t)(a >> 32), 0, 3);
	f[7] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, instruction_pointer));
	f[8] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K,
	    (uint32_t)a, 0, 1);
	f[9] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K,
	    (uint32_t)b, 0, 1);
	f[10] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	f[11] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_TRACE);
	out->insns = f;
	out->len = INSNS;
	return 0;
}

int
sp_sup_entry_install(pid_t pid, uint64_t trap, const struct sp_bpf_prog *prog,
    struct sp_error *err)
{
	struct sp_inject in = { .pid = pid, .trap = trap, .pass_trace = true };
	struct user_regs_struct regs;
	struct sock_fprog fp;
	uint64_t at, args[6] = { 0 };
	size_t len = prog->len * sizeof(*prog->insns);
	long ret;
	int r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) == -1)
		return sp_error_sys(err, errno, "ptrace getregs");
	/* below the red zone: the program, then its sock_fprog */
	at = (regs.rsp - 256 - len - sizeof(fp) - 64) & ~(uint64_t)15;
	fp.len = (unsigned short)prog->len;
	fp.filter = (struct sock_filter *)(uintptr_t)at;
	if (sp_mem_write(pid, at, prog->insns, len, err) == -1 ||
	    sp_mem_write(pid, at + len, &fp, sizeof(fp), err) == -1)
		return -1;
	args[0] = SECCOMP_SET_MODE_FILTER;
	args[1] = SECCOMP_FILTER_FLAG_TSYNC;
	args[2] = at + len;
	r = sp_inject_syscall(&in, SYS_seccomp, args, 6, &ret, err);
	if (ptrace(PTRACE_SETREGS, pid, 0, &regs) == -1 && r == 0)
		r = sp_error_sys(err, errno, "ptrace setregs");
	if (r == 0 && ret != 0)
		r = ret > 0 ? sp_error_set(err, "the entry filter: a thread "
		    "could not be synchronised") : sp_error_sys(err,
		    (int)-ret, "the entry filter");
	return r;
}
