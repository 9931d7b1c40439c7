/* SPDX-License-Identifier: ISC */
/*
 * The rules of every call that keep the outside safe, for every code of a
 * runtime-only tree (bpf.h: sp_bpf_everywhere).  A pinned image's filter
 * applies them to its own calls; an image that runs without the runtime
 * (exec'd with an environment that drops it) has no filter of its own,
 * and its ancestors' filters allow what comes from outside their images.
 * Installed before the tree's first exec, this filter holds them for it
 * too (blind round 25: such a child typed into the run's terminal with
 * TIOCSTI and connected to a listener outside).  They are the rules
 * policy.c applies where no supervisor judges (`check` is `deny`), by
 * number in each ABI; nothing here depends on where the call comes from.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <linux/audit.h>

#include "bpf.h"
#include "tty_ioctls.h"

enum { L_ALLOW, L_DENY, L_ENOSYS, L_IOCTL, L_SCTTY, L_CONSOLE, L_SOCK, L_KEYCTL,
    L_FCNTL, L_PRLIMIT, L_REQKEY, L_BPF, L_PERF, L_I386, NLABELS };

#define MAXI 256

/* A tiny assembler: jumps name labels, resolved once all is emitted. */
struct as {
	struct sock_filter v[MAXI];
	int jt[MAXI], jf[MAXI];		/* label, or -1: the next one */
	size_t n;
	size_t at[NLABELS];
	bool over;
};

static void
op(struct as *a, uint16_t code, uint32_t k, int jt, int jf)
{
	if (a->n == MAXI) {
		a->over = true;
		return;
	}
	a->v[a->n] = (struct sock_filter){ code, 0, 0, k };
	a->jt[a->n] = jt;
	a->jf[a->n] = jf;
	a->n++;
}

static void
label(struct as *a, int l)
{
	a->at[l] = a->n;
}

static void
ld(struct as *a, uint32_t off)
{
	op(a, BPF_LD | BPF_W | BPF_ABS, off, -1, -1);
}

/* The low word of argument i (the kernel takes an int there). */
static void
ld_arg(struct as *a, unsigned i)
{
	ld(a, (uint32_t)offsetof(struct seccomp_data, args[i]));
}

static void
jeq(struct as *a, uint32_t k, int jt, int jf)
{
	op(a, BPF_JMP | BPF_JEQ | BPF_K, k, jt, jf);
}

static void
ret(struct as *a, uint32_t k)
{
	op(a, BPF_RET | BPF_K, k, -1, -1);
}

/* A number and the label of its rule. */
struct numto {
	uint32_t nr;
	int to;
};

/* On the number: to its rule, or allowed. */
static void
dispatch(struct as *a, const struct numto *t, size_t n)
{
	ld(a, (uint32_t)offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < n; i++)
		jeq(a, t[i].nr, t[i].to, -1);
	ret(a, SECCOMP_RET_ALLOW);
}

/* x86-64 and x32 numbers (x32 with SP_BPF_X32_BIT) of what is judged. */
static void
numbers_x86_64(struct as *a)
{
	static const struct numto t[] = {
		{ 16, L_IOCTL }, { SP_BPF_X32_BIT | 514, L_IOCTL },
		{ 41, L_SOCK }, { SP_BPF_X32_BIT | 41, L_SOCK },
		{ 153, L_DENY }, { SP_BPF_X32_BIT | 153, L_DENY },  /* vhangup */
		{ 250, L_KEYCTL }, { SP_BPF_X32_BIT | 250, L_KEYCTL },
		{ 72, L_FCNTL }, { SP_BPF_X32_BIT | 72, L_FCNTL },
		{ 302, L_PRLIMIT }, { SP_BPF_X32_BIT | 302, L_PRLIMIT },
		{ 249, L_REQKEY }, { SP_BPF_X32_BIT | 249, L_REQKEY },
		{ 321, L_BPF }, { SP_BPF_X32_BIT | 321, L_BPF },
		{ 298, L_PERF }, { SP_BPF_X32_BIT | 298, L_PERF },
		/* io_uring makes and connects sockets without a call */
		{ 425, L_ENOSYS }, { SP_BPF_X32_BIT | 425, L_ENOSYS },
		{ 426, L_ENOSYS }, { SP_BPF_X32_BIT | 426, L_ENOSYS },
		{ 427, L_ENOSYS }, { SP_BPF_X32_BIT | 427, L_ENOSYS },
		/* denied to every image (policy.c's R_DENIED): userfaultfd,
		 * process_madvise, pidfd_getfd, mounts old and new */
		{ 323, L_DENY }, { SP_BPF_X32_BIT | 323, L_DENY },
		{ 440, L_DENY }, { SP_BPF_X32_BIT | 440, L_DENY },
		{ 438, L_DENY }, { SP_BPF_X32_BIT | 438, L_DENY },
		{ 165, L_DENY }, { SP_BPF_X32_BIT | 165, L_DENY },
		{ 166, L_DENY }, { SP_BPF_X32_BIT | 166, L_DENY },
		{ 155, L_DENY }, { SP_BPF_X32_BIT | 155, L_DENY },
		{ 428, L_DENY }, { SP_BPF_X32_BIT | 428, L_DENY },
		{ 429, L_DENY }, { SP_BPF_X32_BIT | 429, L_DENY },
		{ 430, L_DENY }, { SP_BPF_X32_BIT | 430, L_DENY },
		{ 431, L_DENY }, { SP_BPF_X32_BIT | 431, L_DENY },
		{ 432, L_DENY }, { SP_BPF_X32_BIT | 432, L_DENY },
		{ 433, L_DENY }, { SP_BPF_X32_BIT | 433, L_DENY },
		{ 442, L_DENY }, { SP_BPF_X32_BIT | 442, L_DENY },
		{ 467, L_DENY }, { SP_BPF_X32_BIT | 467, L_DENY },
	};

	dispatch(a, t, sizeof(t) / sizeof(*t));
}

/* int 0x80: socketcall's arguments are in memory, refused whole. */
static void
numbers_i386(struct as *a)
{
	static const struct numto t[] = {
		{ 54, L_IOCTL }, { 359, L_SOCK }, { 102, L_DENY },
		{ 111, L_DENY }, { 288, L_KEYCTL }, { 55, L_FCNTL },
		{ 221, L_FCNTL }, { 340, L_PRLIMIT }, { 287, L_REQKEY },
		{ 357, L_BPF }, { 336, L_PERF }, { 425, L_ENOSYS },
		{ 426, L_ENOSYS }, { 427, L_ENOSYS }, { 374, L_DENY },
		{ 440, L_DENY }, { 438, L_DENY }, { 21, L_DENY },
		{ 52, L_DENY }, { 217, L_DENY }, { 428, L_DENY },
		{ 429, L_DENY }, { 430, L_DENY }, { 431, L_DENY },
		{ 432, L_DENY }, { 433, L_DENY }, { 442, L_DENY },
		{ 467, L_DENY },
	};

	label(a, L_I386);
	jeq(a, AUDIT_ARCH_I386, -1, L_ALLOW);	/* no other: its own filter */
	dispatch(a, t, sizeof(t) / sizeof(*t));
}

static void
rules(struct as *a)
{
	static const uint32_t denied[] = { TIOCSTI_, TIOCLINUX_,
	    USERFAULTFD_IOC_NEW_, TIOCSLCKTRMIOS_, TIOCCONS_, TIOCEXCL_,
	    TIOCVHANGUP_, TIOCSETD_ };

	label(a, L_IOCTL);
	ld_arg(a, 1);
	for (size_t i = 0; i < sizeof(denied) / sizeof(*denied); i++)
		jeq(a, denied[i], L_DENY, -1);
	jeq(a, TIOCSCTTY_, L_SCTTY, -1);
	op(a, BPF_ALU | BPF_AND | BPF_K, CONSOLE_MASK_, -1, -1);
	jeq(a, CONSOLE_KD_, L_CONSOLE, -1);
	jeq(a, CONSOLE_VT_, L_CONSOLE, L_ALLOW);
	label(a, L_SCTTY);		/* taken by force: refused */
	ld_arg(a, 2);
	jeq(a, 0, L_ALLOW, L_DENY);
	label(a, L_CONSOLE);
	ld_arg(a, 1);
	for (size_t i = 0; i < N_CONSOLE_QUERIES; i++)
		jeq(a, console_queries_[i], L_ALLOW, -1);
	ret(a, SECCOMP_RET_ERRNO | EPERM);
	label(a, L_SOCK);		/* no unix stream or seqpacket */
	ld_arg(a, 0);
	jeq(a, 1, -1, L_ALLOW);
	ld_arg(a, 1);
	op(a, BPF_ALU | BPF_AND | BPF_K, 0xf, -1, -1);
	jeq(a, 1, L_DENY, -1);
	jeq(a, 5, L_DENY, L_ALLOW);
	label(a, L_KEYCTL);
	ld_arg(a, 0);
	jeq(a, 22, L_DENY, -1);		/* KEYCTL_GET_PERSISTENT */
	jeq(a, 18, L_DENY, L_ALLOW);	/* KEYCTL_SESSION_TO_PARENT */
	label(a, L_FCNTL);		/* F_SETSIG of a core signal */
	ld_arg(a, 1);
	jeq(a, 10, -1, L_ALLOW);
	ld_arg(a, 2);
	for (uint32_t sig = 1; sig < 32; sig++)
		if (SP_BPF_CORE_SIGNALS & (1u << sig))
			jeq(a, sig, L_DENY, -1);
	ret(a, SECCOMP_RET_ALLOW);
	label(a, L_PRLIMIT);		/* of another process */
	ld_arg(a, 0);
	jeq(a, 0, L_ALLOW, L_DENY);
	label(a, L_REQKEY);		/* no upcall outside the tree */
	ld_arg(a, 2);
	jeq(a, 0, -1, L_DENY);
	ld(a, (uint32_t)offsetof(struct seccomp_data, args[2]) + 4);
	jeq(a, 0, L_ALLOW, L_DENY);
	label(a, L_BPF);
	ld_arg(a, 0);
	jeq(a, 5, L_DENY, L_ALLOW);	/* BPF_PROG_LOAD */
	label(a, L_PERF);		/* every task, or a cgroup */
	ld_arg(a, 4);
	op(a, BPF_JMP | BPF_JSET | BPF_K, 0x4, L_DENY, -1);
	ld_arg(a, 1);
	jeq(a, UINT32_MAX, L_DENY, L_ALLOW);
	label(a, L_ALLOW);
	ret(a, SECCOMP_RET_ALLOW);
	label(a, L_DENY);
	ret(a, SECCOMP_RET_ERRNO | EPERM);
	label(a, L_ENOSYS);
	ret(a, SECCOMP_RET_ERRNO | ENOSYS);
}

static int
link_jump(const struct as *a, size_t i, int l, uint8_t *out)
{
	size_t to = l < 0 ? i + 1 : a->at[l];

	if (to <= i || to - i - 1 > 255)
		return -1;
	*out = (uint8_t)(to - i - 1);
	return 0;
}

int
sp_bpf_everywhere(struct sp_bpf_prog *prog, struct sp_error *err)
{
	struct as *a = calloc(1, sizeof(*a));
	size_t i;

	if (a == NULL)
		return sp_error_sys(err, ENOMEM, "the tree's filter");
	ld(a, (uint32_t)offsetof(struct seccomp_data, arch));
	jeq(a, AUDIT_ARCH_X86_64, -1, L_I386);
	numbers_x86_64(a);
	numbers_i386(a);
	rules(a);
	for (i = 0; i < a->n && !a->over; i++) {
		if (BPF_CLASS(a->v[i].code) != BPF_JMP)
			continue;
		if (link_jump(a, i, a->jt[i], &a->v[i].jt) == -1 ||
		    (BPF_OP(a->v[i].code) != BPF_JA &&
		    link_jump(a, i, a->jf[i], &a->v[i].jf) == -1))
			a->over = true;
	}
	if (a->over || (prog->insns = malloc(a->n * sizeof(*prog->insns))) ==
	    NULL) {
		free(a);
		return sp_error_set(err, "the tree's filter cannot be built");
	}
	memcpy(prog->insns, a->v, a->n * sizeof(*prog->insns));
	prog->len = a->n;
	free(a);
	return 0;
}
