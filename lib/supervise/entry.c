/* SPDX-License-Identifier: ISC */
/*
 * Start-up code is pinned only until the entry point, where the supervisor
 * stops anyway.  Two of its leaves end there:
 *
 * - ld.so's own execve site (dl_main's) runs only where ld.so, run by
 *   name, execs a static program: where ld.so is the interpreter it is
 *   not pinned at all (pin.c: the entry point can be jumped past, and a
 *   process sharing the memory made before it never meets it).  Where it
 *   is pinned it would stay callable for the program's whole life: a
 *   chain in a program that never execs could run anything through it.
 * - ld.so's mmap may put code into the start-up slots.  From the entry
 *   point nothing may: the whole slot region is sealed (startup.c).
 *
 * What no seal ends, a second filter does: it stops execve and execveat
 * from ld.so's code where those are pinned, and, where the region could
 * not be sealed whole (a kernel without mseal, memory of another kind
 * there), an executable mapping or protection in the slots, which the
 * supervisor refuses with EACCES.  The supervisor judges such a stop with
 * this filter and the image's program together, as the kernel combines
 * them (verdict.c).  Most images need none: it would be one more program
 * for every call to run, and five injected calls and a JIT per exec.
 *
 * The filter stays when the process execs another program; there a stop
 * it asks for is judged by the new image's program alone, which allows
 * what it pins and places what ld.so maps, into the same slots when the
 * program is the one it ran (reuse.c): the filter only ever stops, never
 * answers, for that.  At the new image's entry point the same filter
 * (same ld.so, same slots: sp_sup_entry_key) is not installed again.
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

#include "bpf/bpf.h"

#include "sealed.h"
#include "supervise_int.h"

#define NR_EXECVE	59
#define NR_EXECVEAT	322

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

/* The instructions, with targets by name, linked below. */
enum { L_NEXT, L_ALLOW, L_VIOL, L_REFUSE, L_EXEC, L_MEM, L_LOW, L_HIGH };

struct ins {
	uint16_t code;
	uint32_t k;
	int jt, jf;		/* L_*, or L_NEXT */
};

#define LD(off)	{ BPF_LD | BPF_W | BPF_ABS, (off), L_NEXT, L_NEXT }
#define JEQ(v, t, f) { BPF_JMP | BPF_JEQ | BPF_K, (v), (t), (f) }
#define JGT(v, t, f) { BPF_JMP | BPF_JGT | BPF_K, (v), (t), (f) }
#define JGE(v, t, f) { BPF_JMP | BPF_JGE | BPF_K, (v), (t), (f) }
#define JSET(v, t, f) { BPF_JMP | BPF_JSET | BPF_K, (v), (t), (f) }
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define IP_LO offsetof(struct seccomp_data, instruction_pointer)

/* Its blocks, which are its key: ld.so's exec sites (pinned only where it
 * runs a static program by name: pin.c), the slots' room (not sealed
 * whole). */
void
sp_sup_entry_key(const struct sp_pin_result *res, bool sealed,
    uint64_t key[4])
{
	uint64_t a = 0, b = 0;
	bool exec = res->loader_exec && loader_range(&res->lo, &a, &b),
	    mem = !sealed && res->pl.slots.end > res->pl.slots.start;

	key[0] = exec ? a : 0;
	key[1] = exec ? b : 0;
	key[2] = mem ? res->pl.slots.start : 0;
	key[3] = mem ? res->pl.slots.end : 0;
}

int
sp_sup_entry_filter(const struct sp_pin_result *res, bool sealed,
    struct sp_bpf_prog *out)
{
	uint64_t key[4], a, b, sl, sh;
	bool exec, mem;

	sp_sup_entry_key(res, sealed, key);
	/* ld.so's range; where its sites may map code (the filter's slots) */
	a = key[0];
	b = key[1];
	sl = key[2];
	sh = key[3];
	exec = b > a;
	mem = sh > sl;
	/* the blocks, in order; a block left out jumps to L_ALLOW */
	const struct ins head[] = {
		LD(offsetof(struct seccomp_data, arch)),
		JEQ(AUDIT_ARCH_X86_64, L_NEXT, L_ALLOW),
		LD(offsetof(struct seccomp_data, nr)),
		JEQ(NR_EXECVE, L_EXEC, L_NEXT),
		JEQ(NR_EXECVEAT, L_EXEC, L_NEXT),
		JEQ(9, L_MEM, L_NEXT),		/* mmap */
		JEQ(10, L_MEM, L_NEXT),		/* mprotect */
		JEQ(329, L_MEM, L_ALLOW),	/* pkey_mprotect */
	}, execb[] = {			/* from ld.so: (a, b] */
		LD(IP_LO + 4),
		JEQ((uint32_t)(a >> 32), L_NEXT, L_ALLOW),
		LD(IP_LO),
		JGT((uint32_t)a, L_NEXT, L_ALLOW),
		JGT((uint32_t)b, L_ALLOW, L_VIOL),
	}, memb[] = {		/* PROT_EXEC at an address in [sl, sh) */
		LD(ARG_LO(2)),
		JSET(0x4, L_NEXT, L_ALLOW),
		LD(ARG_LO(0) + 4),
		JGE((uint32_t)(sl >> 32), L_NEXT, L_ALLOW),
		JGT((uint32_t)(sh >> 32), L_ALLOW, L_NEXT),
		JEQ((uint32_t)(sl >> 32), L_LOW, L_NEXT),
		JEQ((uint32_t)(sh >> 32), L_HIGH, L_REFUSE),
		LD(ARG_LO(0)),				/* L_LOW */
		JGE((uint32_t)sl, L_NEXT, L_ALLOW),
		LD(ARG_LO(0) + 4),
		JEQ((uint32_t)(sh >> 32), L_HIGH, L_REFUSE),
		LD(ARG_LO(0)),				/* L_HIGH */
		JGE((uint32_t)sh, L_ALLOW, L_REFUSE),
	};
	const struct ins *blk[] = { head, execb, memb };
	size_t nblk[] = { sizeof(head) / sizeof(*head),
		exec ? sizeof(execb) / sizeof(*execb) : 0,
		mem ? sizeof(memb) / sizeof(*memb) : 0 };
	struct ins v[40];
	size_t n = 0, at[8] = { 0 };
	struct sock_filter *f;

	memset(out, 0, sizeof(*out));
	if (!exec && !mem)
		return 0;
	for (size_t i = 0; i < 3; i++) {
		if (i == 1)
			at[L_EXEC] = n;
		if (i == 2) {
			at[L_MEM] = n;
			at[L_LOW] = n + 7;
			at[L_HIGH] = n + 11;
		}
		for (size_t k = 0; k < nblk[i]; k++)
			v[n++] = blk[i][k];
	}
	at[L_ALLOW] = n;
	at[L_VIOL] = n + 1;
	at[L_REFUSE] = n + 2;
	if (!exec)
		at[L_EXEC] = at[L_ALLOW];
	if (!mem)
		at[L_MEM] = at[L_ALLOW];
	if ((f = calloc(n + 3, sizeof(*f))) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t t = v[i].jt == L_NEXT ? i + 1 : at[v[i].jt];
		size_t e = v[i].jf == L_NEXT ? i + 1 : at[v[i].jf];
		f[i].code = v[i].code;
		f[i].k = v[i].k;
		if (BPF_CLASS(v[i].code) == BPF_JMP) {
			f[i].jt = (uint8_t)(t - i - 1);
			f[i].jf = (uint8_t)(e - i - 1);
		}
	}
	f[n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n + 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_TRACE);
	f[n + 2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_TRACE | SP_BPF_REFUSE_DATA);
	out->insns = f;
	out->len = n + 3;
	return 0;
}

static void
fill_entry(void *ctx, uint64_t base, uint8_t *buf)
{
	const struct sp_bpf_prog *prog = ctx;
	size_t len = prog->len * sizeof(*prog->insns);
	struct { uint16_t len; uint16_t pad[3]; uint64_t filter; } fp;

	memset(&fp, 0, sizeof(fp));
	fp.len = (uint16_t)prog->len;
	fp.filter = base + 16;
	memcpy(buf, &fp, sizeof(fp));
	memcpy(buf + 16, prog->insns, len);
}

/* The program and its sock_fprog from a sealed memfd (sealed.c). */
int
sp_sup_entry_install(pid_t pid, uint64_t trap, const struct sp_bpf_prog *prog,
    bool fds_shared, struct sp_error *err)
{
	struct sp_inject in = { .pid = pid, .trap = trap, .pass_trace = true };
	struct user_regs_struct regs;
	uint64_t at = 0, args[6] = { 0 };
	size_t len = prog->len * sizeof(*prog->insns);
	long ret = 0;
	int r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) == -1)
		return sp_error_sys(err, errno, "ptrace getregs");
	r = sp_sealed_map(&in, regs.rsp, 16 + len, fds_shared, 0, fill_entry,
	    (void *)prog, &at, err);
	args[0] = SECCOMP_SET_MODE_FILTER;
	args[1] = SECCOMP_FILTER_FLAG_TSYNC;
	args[2] = at;
	if (r == 0)
		r = sp_inject_syscall(&in, SYS_seccomp, args, 6, &ret, err);
	if (sp_inject_restore(&in, &regs, r == 0 ? err : NULL) == -1 &&
	    r == 0)
		r = -1;
	if (r == 0 && ret != 0)
		r = ret > 0 ? sp_error_set(err, "the entry filter: a thread "
		    "could not be synchronised") : sp_error_sys(err,
		    (int)-ret, "the entry filter");
	return r;
}
