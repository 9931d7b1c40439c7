/* SPDX-License-Identifier: ISC */
/*
 * The argument rules of lib/bpf/bpf.h: which numbers have one,
 * and the code that checks it.  A number has at most one rule, applied to
 * calls from the image's sites (those of the "rules of every call", 2.,
 * too: a later image's calls are its own filter's business).  Numbers per ABI from
 * arch/x86/entry/syscalls/syscall_{64,32}.tbl.
 */
#include <linux/seccomp.h>
#include <errno.h>
#include <stdlib.h>

#include "program.h"

#define PROT_READ_	0x1u
#define PROT_WRITE_	0x2u
#define PROT_EXEC_	0x4u
#define PROT_ALL_	0x7u
#define MAP_FIXED_	0x10u
#define MAP_ANON_	0x20u
#define MAP_SHARED_	0x01u	/* MAP_SHARED and MAP_SHARED_VALIDATE */
#define MAP_GROWSDOWN_	0x100u
#define MAP_NOREPLACE_	0x100000u
#define MREMAP_MAYMOVE_	0x1u
#define MREMAP_FIXED_	0x2u
#define SHM_EXEC_	0x8000u		/* 0100000 */
#define READ_IMPLIES_EXEC_ 0x0400000u
#define MMAP_PAGE_ZERO_	0x0100000u	/* the next exec maps page 0 r-x */
#include "tty_ioctls.h"
/*
 * A terminal's ioctls (type 'T'): every one that changes a terminal, its
 * settings, line discipline, foreground, size, lines, exclusivity,
 * controlling session or console, is judged where someone can (tty.c):
 * the kernel's line discipline signals the terminal's foreground on its
 * special characters, and another login's terminal is not the tree's.
 * These, the queries and what any file takes (FIONBIO, FIOCLEX, ...),
 * need no judge.  TCSBRK (tcdrain) and TIOCNOTTY act on the caller's own
 * output or terminal alone.  Most frequent first.
 */
static const uint32_t tty_free_[] = {
	0x5401, 0x5421, 0x541b, 0x5413,	/* TCGETS, FIONBIO, FIONREAD, TIOCGWINSZ */
	0x540f, 0x5451, 0x5450, 0x5452,	/* TIOCGPGRP, FIOCLEX, FIONCLEX, FIOASYNC */
	0x5460, 0x5409, 0x5425, 0x5422,	/* FIOQSIZE, TCSBRK, TCSBRKP, TIOCNOTTY */
	0x5405, 0x802c542a, 0x5411,	/* TCGETA, TCGETS2, TIOCOUTQ */
	0x5415, 0x5419, 0x541e, 0x5424,	/* TIOCMGET, TIOCGSOFTCAR, TIOCGSERIAL, TIOCGETD */
	0x5429, 0x8020542e, 0x80045430,	/* TIOCGSID, TIOCGRS485, TIOCGPTN */
	0x80045432, 0x5432, 0x80045438,	/* TIOCGDEV, TCGETX, TIOCGPKT */
	0x80045439, 0x80045440, 0x5441,	/* TIOCGPTLCK, TIOCGEXCL, TIOCGPTPEER */
	0x80285442, 0x5456, 0x5459,	/* TIOCGISO7816, TIOCGLCKTRMIOS, TIOCSERGETLSR */
	0x545a, 0x545d, 0x545c,		/* TIOCSERGETMULTI, TIOCGICOUNT, TIOCMIWAIT */
};
#define SECCOMP_SET_MODE_FILTER_ 1u
#define SECCOMP_NEW_LISTENER_ 0x8u
#define KEYCTL_GET_PERSISTENT_ 22u
#define KEYCTL_SESSION_TO_PARENT_ 18u
#define ARCH_MAP_VDSO_X32_ 0x2001u
#define ARCH_MAP_VDSO_64_ 0x2003u
#define CLONE_UNTRACED_	0x00800000u
#define PR_SET_NO_NEW_PRIVS_ 38u
#define BPF_PROG_LOAD_	5u
#define PERF_FLAG_PID_CGROUP_ 0x4u
#define CLOCK_REALTIME_	0u
#define CLOCK_TAI_	11u
#define F_SETSIG_	10u
#define CORE_SIGNALS_	SP_BPF_CORE_SIGNALS	/* bpf.h */

struct numrule {
	uint32_t nr;
	enum rule rule;
};

static const struct numrule x86_64_rules[] = {
	{ 9, R_MMAP }, { 10, R_MPROTECT }, { 16, R_IOCTL },
	{ 25, R_MREMAP }, { 30, R_SHMAT }, { 56, R_CLONE }, { 59, R_EXEC },
	{ 101, R_PTRACE }, { 135, R_PERSONA }, { 158, R_ARCH_PRCTL },
	{ 250, R_KEYCTL }, { 310, R_NOPTRACE }, { 311, R_NOPTRACE },
	{ 317, R_SECCOMP }, { 322, R_EXEC }, { 329, R_MPROTECT },
	{ 435, R_CLONE3 }, { 438, R_DENIED }, { 42, R_CONNECT },
	{ 153, R_DENIED },	/* vhangup: the run's terminal, as TIOCVHANGUP */
	/* userfaultfd: a fault of the tree's memory, the kernel's reading
	 * of a call's arguments (or the supervisor's) included, held until
	 * the tree answers it: every window between a judgement and the
	 * kernel's use as long as the tree likes (blind round 15: an exec
	 * held past its stop until a judged thread id had gone outside).
	 * /dev/userfaultfd's USERFAULTFD_IOC_NEW too (R_IOCTL). */
	{ 323, R_DENIED },
	/* No mount, attached or not: mount, umount2, pivot_root, and the new
	 * API (open_tree, move_mount, fsopen, fsconfig, fsmount, fspick,
	 * mount_setattr, open_tree_attr).  Landlock forbids changes to the
	 * mount tree, not a file system mounted detached from it: a tracefs
	 * of a root tree's own, where it defines uprobes (blind round 9). */
	{ 165, R_DENIED }, { 166, R_DENIED }, { 155, R_DENIED },
	{ 428, R_DENIED }, { 429, R_DENIED }, { 430, R_DENIED },
	{ 431, R_DENIED }, { 432, R_DENIED }, { 433, R_DENIED },
	{ 442, R_DENIED }, { 467, R_DENIED },
	/* process_madvise: another process's memory paged out, made cold
	 * or collapsed; as root its check (PTRACE_MODE_READ_FSCREDS) passes
	 * whatever Landlock says, the supervisor's memory included (blind
	 * round 21) */
	{ 440, R_DENIED },
	{ 425, R_URING }, { 426, R_URING }, { 427, R_URING },
	{ 50, R_CONNECT },
	{ 41, R_UNIXSOCK },
	{ 159, R_CLOCKSET }, { 164, R_CLOCKSET }, { 227, R_CLOCKID },
	{ 249, R_REQKEY },
	{ 298, R_PERF }, { 305, R_CLOCKID }, { 321, R_BPF },
	{ 302, R_PRLIMIT }, { 72, R_FCNTL }, { 109, R_SETPGID },
	{ 62, R_SIGNAL1 }, { 200, R_SIGNAL1 }, { 129, R_SIGNAL1 },
	{ 424, R_SIGNAL1 }, { 234, R_SIGNAL2 }, { 297, R_SIGNAL2 },
};

/* 32-bit calls run only from pinned 32-bit sites, which the analysis
 * never makes: their memory rules refuse any new executable memory (the
 * band is out of their reach), old mmap (90) and ipc (117) take their
 * arguments through memory and are refused. */
#define X SP_BPF_X32_BIT
static const struct numrule x32_rules[] = {
	{ X | 9, R_MMAP32 }, { X | 10, R_MPROTECT32 }, { X | 25, R_OPAQUE },
	{ X | 30, R_SHMAT }, { X | 135, R_PERSONA }, { X | 329, R_MPROTECT32 },
	{ X | 520, R_EXEC }, { X | 545, R_EXEC },
};
#undef X

static const struct numrule i386_rules[] = {
	{ 11, R_EXEC }, { 90, R_OPAQUE }, { 117, R_OPAQUE },
	{ 125, R_MPROTECT32 }, { 136, R_PERSONA }, { 163, R_OPAQUE },
	{ 192, R_MMAP32 }, { 358, R_EXEC }, { 380, R_MPROTECT32 },
	{ 397, R_SHMAT },
};

#define N(a) (sizeof(a) / sizeof(*(a)))

static uint32_t nrs_x86_64[N(x86_64_rules) + 1];
static uint32_t nrs_x32[N(x32_rules) + 1];
static uint32_t nrs_i386[N(i386_rules) + 1];

static const uint32_t *
numbers_of(const struct numrule *r, size_t n, uint32_t *out)
{
	size_t i;

	if (out[0] == 0 && out[n] == 0) {	/* first call: fill */
		for (i = 0; i < n; i++)
			out[i] = r[i].nr;
		out[n] = UINT32_MAX;
	}
	return out;
}

const uint32_t *
sp_policy_numbers(int abi)
{
	switch (abi) {
	case SP_ABI_I386:
		return numbers_of(i386_rules, N(i386_rules), nrs_i386);
	case SP_ABI_X32:
		return numbers_of(x32_rules, N(x32_rules), nrs_x32);
	default:
		return numbers_of(x86_64_rules, N(x86_64_rules), nrs_x86_64);
	}
}

static enum rule
rule_of(int abi, uint32_t nr)
{
	const struct numrule *r;
	size_t n, i;

	if (abi == SP_ABI_I386) {
		r = i386_rules;
		n = N(i386_rules);
	} else if (abi == SP_ABI_X32) {
		r = x32_rules;
		n = N(x32_rules);
	} else {
		r = x86_64_rules;
		n = N(x86_64_rules);
	}
	for (i = 0; i < n; i++)
		if (r[i].nr == nr)
			return r[i].rule;
	return R_NONE;
}

/* bpf.h, 2a.: what only ends the process or takes away. */
int
sp_bpf_narrow_exempt(uint32_t nr, uint32_t *arg0)
{
	switch (nr) {
	case 15:	/* rt_sigreturn */
	case 60:	/* exit */
	case 231:	/* exit_group */
	case 462:	/* mseal */
		return SP_NARROW_NEVER;
	case 157:	/* prctl */
		*arg0 = PR_SET_NO_NEW_PRIVS_;
		return SP_NARROW_FORM;
	case 317:	/* seccomp */
		*arg0 = SECCOMP_SET_MODE_FILTER_;
		return SP_NARROW_FORM;
	default:
		return 0;
	}
}

bool
sp_bpf_narrow_denies(const struct sp_bpf_narrow *n, uint32_t nr)
{
	bool listed = false;

	if (nr >= SP_BPF_X32_BIT)
		return false;
	for (size_t i = 0; i < n->n && !listed; i++)
		listed = n->nrs[i] == nr;
	return listed != n->allow;
}

struct cont
sp_policy_cont(const struct norm *in, int abi, uint32_t nr,
    enum site_class cls)
{
	enum rule r = rule_of(abi, nr);
	unsigned flags = in->flags;
	uint32_t keep0 = 0;
	bool narrow = abi == SP_ABI_X86_64 && sp_norm_narrowed(in, nr) &&
	    sp_bpf_narrow_exempt(nr, &keep0) == SP_NARROW_FORM;

	switch (r) {
	case R_EXEC:
		if (!(flags & (SP_BPF_STRICT | SP_BPF_NO_EXEC)))
			r = flags & SP_BPF_CHECK_EXEC ? R_EXECCHECK : R_NONE;
		break;
	case R_PTRACE:
	case R_NOPTRACE:
		if (!(flags & SP_BPF_NO_PTRACE))
			r = R_NONE;
		break;
	case R_CLONE:
	case R_CLONE3:
		if (!(flags & SP_BPF_GUARD))
			r = R_NONE;
		break;
	case R_CLOCKSET:
	case R_CLOCKID:
		if (!(flags & SP_BPF_NO_CLOCK))
			r = R_NONE;
		break;
	case R_CONNECT:
		if (!(flags & SP_BPF_CONNECT))
			r = R_NONE;
		break;
	case R_UNIXSOCK:
		if (!(flags & SP_BPF_NO_UNIX))
			r = R_NONE;
		break;
	case R_URING:
		if (!(flags & SP_BPF_NO_URING))
			r = R_NONE;
		break;
	case R_SIGNAL1:
	case R_SIGNAL2:		/* only a supervisor can tell the tree */
		if (!(flags & SP_BPF_GUARD))
			r = R_NONE;
		break;
	default:
		break;
	}
	/* Only the rules of mmap and mprotect tell a loader site apart. */
	if (cls == CLS_LOADER && r != R_MMAP && r != R_MPROTECT)
		cls = CLS_OWN;
	return (struct cont){ r, r == R_NONE ? CLS_OWN : cls, narrow,
	    narrow ? keep0 : 0 };
}

bool
sp_cont_equal(struct cont a, struct cont b)
{
	return a.rule == b.rule && a.cls == b.cls && a.narrow == b.narrow &&
	    a.keep0 == b.keep0;
}

/* ---- emitting the checks ---- */

static void
ld(struct pgen *g, uint32_t f, unsigned arg)
{
	sp_asm_ld(&g->a, f, OFF_ARG_LO(arg));
}

/* A conditional jump; NEXT as a target falls through to what follows. */
#define NEXT UINT32_MAX

static void
jump(struct pgen *g, uint32_t f, uint16_t op, uint32_t k, uint32_t t,
    uint32_t e)
{
	uint32_t next = t == NEXT || e == NEXT ? sp_asm_label(&g->a) : 0;

	sp_asm_emit(&g->a, f, BPF_JMP | op | BPF_K, k, t == NEXT ? next : t,
	    e == NEXT ? next : e);
	if (t == NEXT || e == NEXT)
		sp_asm_bind(&g->a, next, f);
}

static void
jset(struct pgen *g, uint32_t f, uint32_t mask, uint32_t t, uint32_t e)
{
	jump(g, f, BPF_JSET, mask, t, e);
}

static void
jeq(struct pgen *g, uint32_t f, uint32_t k, uint32_t t, uint32_t e)
{
	jump(g, f, BPF_JEQ, k, t, e);
}

static void
ja(struct pgen *g, uint32_t f, uint32_t to)
{
	sp_asm_emit(&g->a, f, BPF_JMP | BPF_JA, 0, to, to);
}

/* A new label bound to the current end of f. */
static uint32_t
here(struct pgen *g, uint32_t f)
{
	uint32_t l = sp_asm_label(&g->a);

	sp_asm_bind(&g->a, l, f);
	return l;
}

struct area_ctx {
	struct sp_bpf_range r;
	uint32_t yes, no;
};

static uint32_t
area_label(void *ctx, uint64_t key)
{
	const struct area_ctx *c = ctx;

	return key >= c->r.start && key < c->r.end ? c->yes : c->no;
}

/*
 * Jumps to yes when [args[a], +args[l]) lies inside area (see bpf.h:
 * args[l] < 4 GiB, args[a] in [start, end)), else to no.  An empty area
 * holds nothing.
 */
static void
emit_area(struct pgen *g, uint32_t f, unsigned a, unsigned l,
    struct sp_bpf_range area, uint32_t yes, uint32_t no)
{
	uint64_t br[2] = { area.start, area.end };
	struct segs s = { NULL, 0 };
	struct area_ctx c = { area, yes, no };

	if (area.end <= area.start) {
		ja(g, f, no);
		return;
	}
	sp_asm_ld(&g->a, f, OFF_ARG_LO(l) + 4);
	jeq(g, f, 0, NEXT, no);
	if (sp_segs_build(&s, br, 2, area_label, &c) == -1 ||
	    sp_classify64_at(&g->a, f, &s, OFF_ARG_LO(a)) == -1)
		g->a.oom = true;
	sp_segs_free(&s);
}

/* The band, less the room a mapping placed at its end may take. */
static struct sp_bpf_range
band_room(const struct pgen *g)
{
	struct sp_bpf_range b = g->in->band;

	if (b.end - b.start <= SP_BAND_MARGIN)
		return (struct sp_bpf_range){ 0, 0 };
	b.end -= SP_BAND_MARGIN;
	return b;
}

/* PROT_EXEC inside the band (to in_band: allow, or with
 * SP_BPF_PLACE_FILES a file's mapping there stops to be checked), or from
 * a loader site inside the slots. */
static void
emit_exec_area(struct pgen *g, uint32_t f, enum site_class cls,
    uint32_t allow, uint32_t in_band)
{
	uint32_t next = cls == CLS_LOADER ? sp_asm_label(&g->a) :
	    g->ret[RET_REFUSE];

	emit_area(g, f, 0, 1, band_room(g), in_band, next);
	if (cls != CLS_LOADER)
		return;
	sp_asm_bind(&g->a, next, f);
	emit_area(g, f, 0, 1, g->in->slots, allow, g->ret[RET_REFUSE]);
}

/* An executable mmap with MAP_FIXED(_NOREPLACE), A = its flags. */
static void
emit_fixed_code(struct pgen *g, uint32_t f, enum site_class cls,
    uint32_t allow)
{
	uint32_t anon;

	if (g->in->flags & SP_BPF_STRICT) {	/* only the start-up objects */
		if (cls == CLS_LOADER)
			emit_area(g, f, 0, 1, g->in->slots, allow,
			    g->ret[RET_REFUSE]);
		else
			ja(g, f, g->ret[RET_REFUSE]);
		return;
	}
	if (!(g->in->flags & SP_BPF_PLACE_FILES)) {
		emit_exec_area(g, f, cls, allow, allow);
		return;
	}
	anon = sp_asm_label(&g->a);
	jset(g, f, MAP_ANON_, anon, NEXT);
	emit_exec_area(g, f, cls, allow, g->ret[RET_PLACE]);
	sp_asm_bind(&g->a, anon, f);
	emit_exec_area(g, f, cls, allow, allow);
}

static void
emit_mmap(struct pgen *g, uint32_t f, enum site_class cls, uint32_t allow)
{
	unsigned flags = g->in->flags;
	uint32_t x = sp_asm_label(&g->a), nx = sp_asm_label(&g->a);
	uint32_t refuse = g->ret[RET_REFUSE], place = g->ret[RET_PLACE];
	uint32_t fixed = sp_asm_label(&g->a), anon;

	ld(g, f, 3);
	jset(g, f, MAP_GROWSDOWN_, refuse, NEXT);
	ld(g, f, 2);
	jset(g, f, PROT_EXEC_, x, nx);
	sp_asm_bind(&g->a, x, f);
	if (!(flags & SP_BPF_ALLOW_JIT) || (flags & SP_BPF_STRICT)) {
		jset(g, f, PROT_WRITE_, refuse, NEXT);
		ld(g, f, 3);
		jset(g, f, MAP_ANON_, refuse, NEXT);
	}
	ld(g, f, 3);
	jset(g, f, MAP_FIXED_ | MAP_NOREPLACE_, fixed, place);
	sp_asm_bind(&g->a, fixed, f);
	emit_fixed_code(g, f, cls, allow);
	sp_asm_bind(&g->a, nx, f);
	if (cls != CLS_LOADER && !(flags & SP_BPF_ALLOW_JIT)) {
		ja(g, f, allow);
		return;
	}
	/*
	 * ld.so reserving room for an object: a file, or PROT_NONE.  With
	 * SP_BPF_ALLOW_JIT, anyone's anonymous memory: a JIT's code space,
	 * reserved PROT_NONE (V8, a JVM) or written read-write and made
	 * executable in place (LLVM's section memory manager), must be in
	 * the band before it can be executable.
	 */
	anon = sp_asm_label(&g->a);
	ld(g, f, 3);
	jset(g, f, MAP_FIXED_ | MAP_NOREPLACE_, allow, NEXT);
	if (cls == CLS_LOADER) {
		/* A loader maps objects private: a shared file mapping at
		 * its site is data (musl's libc.so is its loader too: every
		 * mmap of a musl program is; blind round 18, an io_uring
		 * ring moved into the band failed) */
		jset(g, f, MAP_ANON_, anon, NEXT);
		jset(g, f, MAP_SHARED_, allow, place);
	} else
		jset(g, f, MAP_ANON_, anon, allow);
	sp_asm_bind(&g->a, anon, f);
	if (flags & SP_BPF_ALLOW_JIT) {
		ja(g, f, place);
		return;
	}
	ld(g, f, 2);
	jset(g, f, PROT_ALL_, allow, place);
}

static void
emit_mprotect(struct pgen *g, uint32_t f, enum site_class cls,
    uint32_t allow)
{
	uint32_t refuse = g->ret[RET_REFUSE];

	ld(g, f, 2);
	jset(g, f, PROT_EXEC_, NEXT, allow);
	if (g->in->flags & SP_BPF_STRICT || !(g->in->flags & SP_BPF_ALLOW_JIT))
		ja(g, f, refuse);
	else
		emit_exec_area(g, f, cls, allow, allow);
}

struct mremap_ctx {
	const struct norm *in;
	uint32_t refuse, band, allow;
};

static uint32_t
mremap_label(void *ctx, uint64_t old)
{
	const struct mremap_ctx *c = ctx;

	if (sp_norm_in_ranges(c->in, old))
		return c->refuse;
	if (old >= c->in->band.start && old < c->in->band.end)
		return c->band;
	return c->allow;
}

/* Scratch words of the end of mremap's old range (old + old_len). */
#define M_END_LO 0
#define M_END_HI 1
/* Above every user address (57-bit paging included): refused at once, so
 * that old + old_len never carries out of 64 bits. */
#define HI_LIMIT 0x01000000u

/*
 * M_END = args[0] + args[1], refusing either above HI_LIMIT's word.  The
 * low words are added first; their carry goes into the high word.
 */
static void
emit_old_end(struct pgen *g, uint32_t f, uint32_t refuse)
{
	uint32_t carry = sp_asm_label(&g->a), join = sp_asm_label(&g->a);
	uint32_t nc = sp_asm_label(&g->a);

	sp_asm_ld(&g->a, f, OFF_ARG_LO(0) + 4);
	jump(g, f, BPF_JGE, HI_LIMIT, refuse, NEXT);
	sp_asm_ld(&g->a, f, OFF_ARG_LO(1) + 4);
	jump(g, f, BPF_JGE, HI_LIMIT, refuse, NEXT);
	ld(g, f, 1);
	sp_asm_emit(&g->a, f, BPF_MISC | BPF_TAX, 0, 0, 0);
	ld(g, f, 0);
	sp_asm_emit(&g->a, f, BPF_ALU | BPF_ADD | BPF_X, 0, 0, 0);
	sp_asm_emit(&g->a, f, BPF_ST, M_END_LO, 0, 0);
	/* the sum is below an addend exactly when it wrapped */
	sp_asm_emit(&g->a, f, BPF_JMP | BPF_JGE | BPF_X, 0, nc, carry);
	sp_asm_bind(&g->a, nc, f);
	sp_asm_ld(&g->a, f, OFF_ARG_LO(1) + 4);
	ja(g, f, join);
	sp_asm_bind(&g->a, carry, f);
	sp_asm_ld(&g->a, f, OFF_ARG_LO(1) + 4);
	sp_asm_emit(&g->a, f, BPF_ALU | BPF_ADD | BPF_K, 1, 0, 0);
	sp_asm_bind(&g->a, join, f);
	sp_asm_emit(&g->a, f, BPF_MISC | BPF_TAX, 0, 0, 0);
	sp_asm_ld(&g->a, f, OFF_ARG_LO(0) + 4);
	sp_asm_emit(&g->a, f, BPF_ALU | BPF_ADD | BPF_X, 0, 0, 0);
	sp_asm_emit(&g->a, f, BPF_ST, M_END_HI, 0, 0);
}

/* Jumps to yes when M_END <= hi (hi 0: 2^64, always), else to no. */
static void
emit_end_within(struct pgen *g, uint32_t f, uint64_t hi, uint32_t yes,
    uint32_t no)
{
	if (hi == 0) {
		ja(g, f, yes);
		return;
	}
	sp_asm_emit(&g->a, f, BPF_LD | BPF_MEM, M_END_HI, 0, 0);
	jump(g, f, BPF_JGT, (uint32_t)(hi >> 32), no, NEXT);
	jeq(g, f, (uint32_t)(hi >> 32), NEXT, yes);
	sp_asm_emit(&g->a, f, BPF_LD | BPF_MEM, M_END_LO, 0, 0);
	jump(g, f, BPF_JGT, (uint32_t)hi, no, yes);
}

/*
 * mremap: the image's code stays where it is (mseal says so too where
 * the kernel has it), band memory stays in the band.  The old range is
 * judged whole, not by its start: since Linux 6.17 one mremap moves
 * every mapping of its range (and the gaps), so a range that starts in
 * ordinary memory and reaches into the band or the image is refused.
 * Its start's segment (image, band or neither) must hold its end too.
 */
static void
emit_mremap(struct pgen *g, uint32_t f, uint32_t allow)
{
	const struct norm *in = g->in;
	struct mremap_ctx c = { in, g->ret[RET_REFUSE], sp_asm_label(&g->a),
	    allow };
	struct segs s = { NULL, 0 };
	uint64_t *br, *hi = NULL;
	uint32_t *to = NULL, mv = sp_asm_label(&g->a);
	size_t n = 0, i;

	if ((br = sp_norm_breaks(in, &n)) == NULL) {
		g->a.oom = true;
		return;
	}
	emit_old_end(g, f, c.refuse);
	if (sp_segs_build(&s, br, n, mremap_label, &c) == -1 ||
	    (hi = calloc(s.n, sizeof(*hi))) == NULL ||
	    (to = calloc(s.n, sizeof(*to))) == NULL) {
		g->a.oom = true;
		goto out;
	}
	/* each segment that may be moved checks its own end first */
	for (i = 0; i < s.n; i++) {
		to[i] = s.v[i].label;
		if (to[i] == c.refuse)
			continue;
		hi[i] = i + 1 < s.n ? s.v[i + 1].start : 0;
		s.v[i].label = sp_asm_label(&g->a);
	}
	if (sp_classify64_at(&g->a, f, &s, OFF_ARG_LO(0)) == -1)
		g->a.oom = true;
	for (i = 0; i < s.n; i++) {
		if (to[i] == c.refuse)
			continue;
		sp_asm_bind(&g->a, s.v[i].label, f);
		emit_end_within(g, f, hi[i], to[i], c.refuse);
	}
	sp_asm_bind(&g->a, c.band, f);
	ld(g, f, 3);
	jset(g, f, MREMAP_MAYMOVE_, mv, NEXT);
	emit_area(g, f, 0, 2, band_room(g), allow, c.refuse);
	sp_asm_bind(&g->a, mv, f);
	jset(g, f, MREMAP_FIXED_, NEXT, c.refuse);
	emit_area(g, f, 4, 2, band_room(g), allow, c.refuse);
out:
	sp_segs_free(&s);
	free(hi);
	free(to);
	free(br);
}

/* Jumps to core when args[arg] is a signal that dumps core, else to
 * other. */
static void
emit_core_signal(struct pgen *g, uint32_t f, unsigned arg, uint32_t core,
    uint32_t other)
{
	ld(g, f, arg);
	jump(g, f, BPF_JGE, 32, other, NEXT);
	for (uint32_t sig = 1; sig < 32; sig++)
		if (CORE_SIGNALS_ & (1u << sig))
			jeq(g, f, sig, core, NEXT);
	ja(g, f, other);
}

/* Rules of every call (2.). */
static void
emit_global(struct pgen *g, uint32_t f, enum rule r, uint32_t allow)
{
	uint32_t deny = g->ret[RET_DENY];

	switch (r) {
	case R_IOCTL: {
		uint32_t console = sp_asm_label(&g->a);

		ld(g, f, 1);
		jeq(g, f, TIOCSTI_, deny, NEXT);
		jeq(g, f, TIOCLINUX_, deny, NEXT);
		jeq(g, f, USERFAULTFD_IOC_NEW_, deny, NEXT);
		sp_asm_emit(&g->a, f, BPF_ALU | BPF_AND | BPF_K,
		    CONSOLE_MASK_, 0, 0);
		jeq(g, f, CONSOLE_KD_, console, NEXT);
		jeq(g, f, CONSOLE_VT_, console, NEXT);
		/* No one to judge (check is deny's answer): allowed, but
		 * what outlives the run and undoes `syspin run`'s giving the
		 * terminal back (root's: a locked termios, a console
		 * redirected, an exclusive terminal: blind round 21). */
		if (g->in->check == g->in->deny) {
			uint32_t sctty = sp_asm_label(&g->a);
			ld(g, f, 1);
			jeq(g, f, TIOCSLCKTRMIOS_, deny, NEXT);
			jeq(g, f, TIOCCONS_, deny, NEXT);
			jeq(g, f, TIOCEXCL_, deny, NEXT);
			/* and what takes the user's terminal from the shell:
			 * a hangup, or making it ours by force (blind round
			 * 22) */
			jeq(g, f, TIOCVHANGUP_, deny, NEXT);
			jeq(g, f, TIOCSETD_, deny, NEXT);	/* N_NULL */
			jeq(g, f, TIOCSCTTY_, sctty, allow);
			sp_asm_bind(&g->a, sctty, f);
			ld(g, f, 2);
			jeq(g, f, 0, allow, deny);
		}
		else {
			ld(g, f, 1);
			sp_asm_emit(&g->a, f, BPF_ALU | BPF_AND | BPF_K,
			    TTY_TYPE_MASK_, 0, 0);
			jeq(g, f, TTY_TYPE_, NEXT, allow);
			ld(g, f, 1);
			for (size_t i = 0; i < sizeof(tty_free_) /
			    sizeof(*tty_free_); i++)
				jeq(g, f, tty_free_[i], allow, NEXT);
			ja(g, f, g->ret[RET_CHECK]);
		}
		sp_asm_bind(&g->a, console, f);
		ld(g, f, 1);
		for (size_t i = 0; i < N_CONSOLE_QUERIES; i++)
			jeq(g, f, console_queries_[i], allow, NEXT);
		ja(g, f, deny);
		break;
	}
	case R_SETPGID:		/* (pid, pgid): 0 is a group of its own */
		if (g->in->check == g->in->deny) {
			ja(g, f, allow);
			break;
		}
		ld(g, f, 1);
		jeq(g, f, 0, allow, g->ret[RET_CHECK]);
		break;
	case R_SECCOMP:
		ld(g, f, 0);
		jeq(g, f, SECCOMP_SET_MODE_FILTER_, NEXT, allow);
		ld(g, f, 1);
		jset(g, f, SECCOMP_NEW_LISTENER_, deny, allow);
		break;
	case R_KEYCTL:
		ld(g, f, 0);
		jeq(g, f, KEYCTL_GET_PERSISTENT_, deny, NEXT);
		/* the caller's session keyring made its parent's: a process
		 * outside (syspin run, or a subreaper that adopted an orphan
		 * of the tree), whose later keys the tree then reads (blind
		 * round 21) */
		jeq(g, f, KEYCTL_SESSION_TO_PARENT_, deny, allow);
		break;
	case R_ARCH_PRCTL:
		ld(g, f, 0);
		jump(g, f, BPF_JGE, ARCH_MAP_VDSO_X32_, NEXT, allow);
		jump(g, f, BPF_JGT, ARCH_MAP_VDSO_64_, allow, deny);
		break;
	case R_PTRACE:
		ld(g, f, 0);
		jeq(g, f, 0, allow, deny);	/* PTRACE_TRACEME */
		break;
	case R_CLONE:
		ld(g, f, 0);
		jset(g, f, CLONE_UNTRACED_, deny, allow);
		break;
	case R_BPF:
		ld(g, f, 0);
		jeq(g, f, BPF_PROG_LOAD_, deny, allow);
		break;
	case R_PERF:	/* (attr, pid, cpu, group_fd, flags) */
		if (g->in->flags & SP_BPF_NO_PERF) {
			ja(g, f, deny);
			break;
		}
		ld(g, f, 4);
		jset(g, f, PERF_FLAG_PID_CGROUP_, deny, NEXT);
		ld(g, f, 1);
		jeq(g, f, UINT32_MAX, deny, NEXT);	/* every task */
		jeq(g, f, 0, allow, g->ret[RET_CHECK]);	/* itself, or? */
		break;
	case R_UNIXSOCK:	/* (domain, type, protocol) */
		ld(g, f, 0);
		jeq(g, f, 1 /* AF_UNIX */, NEXT, allow);
		ld(g, f, 1);
		sp_asm_emit(&g->a, f, BPF_ALU | BPF_AND | BPF_K, 0xf, 0, 0);
		jeq(g, f, 1 /* SOCK_STREAM */, deny, NEXT);
		jeq(g, f, 5 /* SOCK_SEQPACKET */, deny, allow);
		break;
	case R_REQKEY:	/* (type, desc, callout_info, ring): no upcall */
		ld(g, f, 2);
		jeq(g, f, 0, NEXT, deny);
		sp_asm_ld(&g->a, f, OFF_ARG_LO(2) + 4);
		jeq(g, f, 0, allow, deny);
		break;
	case R_CLOCKID:
		ld(g, f, 0);
		jeq(g, f, CLOCK_REALTIME_, deny, NEXT);
		jeq(g, f, CLOCK_TAI_, deny, allow);
		break;
	case R_PRLIMIT:		/* (pid, resource, new, old): 0 is itself */
		ld(g, f, 0);
		jeq(g, f, 0, allow, g->ret[RET_CHECK]);
		break;
	case R_SIGNAL1:		/* kill, tkill, rt_sigqueueinfo, pidfd_send_signal */
		emit_core_signal(g, f, 1, g->ret[RET_CHECK], allow);
		break;
	case R_SIGNAL2:		/* tgkill, rt_tgsigqueueinfo */
		emit_core_signal(g, f, 2, g->ret[RET_CHECK], allow);
		break;
	case R_FCNTL:		/* F_SETSIG: the signal SIGIO's owner gets */
		ld(g, f, 1);
		jeq(g, f, F_SETSIG_, NEXT, allow);
		emit_core_signal(g, f, 2, deny, allow);
		break;
	default:
		break;
	}
}

/*
 * Emits the checks of c into frag and returns the label to jump to once
 * the call's site allows it (allow itself when there is nothing to
 * check, a return label when the rule decides alone).
 */
uint32_t
sp_emit_cont(struct pgen *g, uint32_t frag, struct cont c, uint32_t allow)
{
	uint32_t start, l;
	size_t mark;

	if (c.narrow) {		/* only the form pinning needs is left */
		start = here(g, frag);
		c.narrow = false;
		ld(g, frag, 0);
		jeq(g, frag, c.keep0, NEXT, g->ret[RET_NARROW]);
		mark = sp_asm_frag_len(&g->a, frag);
		l = sp_emit_cont(g, frag, c, allow);
		if (sp_asm_frag_len(&g->a, frag) == mark)
			ja(g, frag, l);
		return start;
	}
	switch (c.rule) {
	case R_NONE:
		return allow;
	case R_EXEC:
	case R_OPAQUE:
		return g->ret[RET_REFUSE];
	case R_NOPTRACE:
	case R_CLOCKSET:
	case R_DENIED:
		return g->ret[RET_DENY];
	case R_CONNECT:
	case R_EXECCHECK:
		return g->ret[RET_CHECK];
	case R_CLONE3:
	case R_URING:
		return g->ret[RET_ENOSYS];
	default:
		break;
	}
	start = here(g, frag);
	switch (c.rule) {
	case R_MMAP:
		emit_mmap(g, frag, c.cls, allow);
		break;
	case R_MPROTECT:
		emit_mprotect(g, frag, c.cls, allow);
		break;
	case R_MREMAP:
		emit_mremap(g, frag, allow);
		break;
	case R_MMAP32:
	case R_MPROTECT32:
		ld(g, frag, 2);
		jset(g, frag, PROT_EXEC_, g->ret[RET_REFUSE], allow);
		break;
	case R_SHMAT:
		ld(g, frag, 2);
		jset(g, frag, SHM_EXEC_, g->ret[RET_REFUSE], allow);
		break;
	case R_PERSONA:
		/* 0xffffffff only queries the persona */
		ld(g, frag, 0);
		jeq(g, frag, UINT32_MAX, allow, NEXT);
		jset(g, frag, READ_IMPLIES_EXEC_ | MMAP_PAGE_ZERO_,
		    g->ret[RET_REFUSE], allow);
		break;
	default:
		emit_global(g, frag, c.rule, allow);
		break;
	}
	return start;
}
