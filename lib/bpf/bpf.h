/* SPDX-License-Identifier: ISC */
/*
 * Stage 5: pins placed in a process layout -> classic BPF for seccomp.
 *
 * Generation is a pure function of its input (no syscalls, no globals), so it
 * is unit-tested with the cBPF interpreter in tests/bpf and cross-checked
 * against the kernel.  Installation is separate (sp_bpf_install).
 *
 * The policy, for a system call with (arch, nr, ip, args) where ip is the
 * address after the trap instruction:
 *
 *  1. arch x86-64 with nr & 0x40000000 is the x32 ABI, arch i386 is
 *     `int 0x80`; any other arch is a violation.  With SP_BPF_GUARD,
 *     SP_GUARD_KILL_NR is killed first, wherever it comes from.
 *  2. x86-64 and ip outside the image's ranges and the late-code band: a
 *     later image's call (this image has no code there): allowed, judged
 *     by that image's own filter; a violation with SP_BPF_STRICT or
 *     SP_BPF_OUTSIDE.
 *  2a. Narrowing (syspin run --deny/--allow): an x86-64 number (below
 *     SP_BPF_X32_BIT) that sp_bpf_input.narrow denies gets `narrowed`,
 *     from wherever in the image or the band the call comes, before its
 *     sites are looked at (nothing extra runs for the other numbers: the
 *     number dispatch sends it there; a later image's calls get its own
 *     filter's narrowing).  Never denied, whatever the lists say: what
 *     only ends the process or takes away (exit, exit_group,
 *     rt_sigreturn, mseal), and the forms pinning itself needs,
 *     prctl(PR_SET_NO_NEW_PRIVS) and seccomp(SECCOMP_SET_MODE_FILTER):
 *     for prctl and seccomp the site is checked first (3., 4.), then any
 *     other form is narrowed.
 *  3. (abi, nr, ip) pinned: the call may run, subject to the image's rules
 *     (5.), those of a loader site (SP_BPF_PIN_LOADER) included.
 *  4. Not pinned: from an any-number site (any_ips), the image's rules;
 *     else a violation (i386 and x32 too, wherever they come from).
 *  The rules of every call of the image: no TIOCSTI/TIOCLINUX (typing
 *     into the terminal), no console ioctl ('K', 'V') but its
 *     queries, no userfaultfd (nor /dev/userfaultfd's
 *     USERFAULTFD_IOC_NEW: a fault the tree answers holds the kernel's
 *     reading of a call's arguments), no seccomp listener (a USER_NOTIF filter would
 *     outrank our TRACE), no KEYCTL_GET_PERSISTENT (the cache's key), no
 *     ARCH_MAP_VDSO_* (a new vDSO is new code), no request_key with a
 *     callout (its upcall runs /sbin/request-key outside the tree with
 *     the caller's words), no bpf(BPF_PROG_LOAD)
 *     (a program in the kernel reads and writes any process), no
 *     perf_event_open of every task (pid -1) or of a cgroup, and one of
 *     another process is `check` (only a process of the tree may be
 *     observed: the kernel lets CAP_PERFMON or CAP_SYS_ADMIN read any
 *     process's memory through its samples), prlimit64 of another process
 *     is `check` (a raised core or CPU limit gets its memory written to a
 *     core file), no F_SETSIG of a signal that dumps core; with
 *     SP_BPF_GUARD kill, tkill, tgkill, rt_sigqueueinfo,
 *     rt_tgsigqueueinfo and pidfd_send_signal of a signal that dumps core
 *     are `check` (only a process of the tree); with SP_BPF_NO_CLOCK no
 *     settimeofday, adjtimex, clock_settime or clock_adjtime of
 *     CLOCK_REALTIME or CLOCK_TAI; with SP_BPF_CONNECT every connect and listen
 *     is `check`, with SP_BPF_NO_PERF every one denied; with SP_BPF_NO_UNIX
 *     no socket(AF_UNIX, SOCK_STREAM or
 *     SOCK_SEQPACKET); no pidfd_getfd; no vhangup (it hangs up the
 *     caller's terminal: the run's, whose session is the user's shell); with SP_BPF_NO_PTRACE no
 *     ptrace but TRACEME, no process_vm_readv/writev, no pidfd_getfd
 *     (where no Landlock domain scopes them); with SP_BPF_GUARD clone with
 *     CLONE_UNTRACED is refused and clone3 fails with ENOSYS (its flags are
 *     in memory).  Refused: `deny`.
 *  5. The image's own rules, for calls from its sites: no executable
 *     memory outside the band.  mmap with PROT_EXEC: refused when
 *     anonymous or writable (without SP_BPF_ALLOW_JIT, or with
 *     SP_BPF_STRICT); with MAP_FIXED(_NOREPLACE) allowed only inside the
 *     band (or, from a loader site, inside `slots`, where the start-up
 *     objects go; with SP_BPF_STRICT only that; with SP_BPF_PLACE_FILES a
 *     file's mapping into the band is `place`, so that its file is
 *     checked); without, `place` (the supervisor or the runtime maps it
 *     in a slot or the band; with SP_BPF_STRICT only in a slot).  A loader site's mmap without MAP_FIXED of a file or of
 *     PROT_NONE memory (ld.so reserving room for an object): `place`.
 *     With SP_BPF_ALLOW_JIT also anyone's anonymous mmap without
 *     MAP_FIXED (a JIT's code space, reserved PROT_NONE or written
 *     read-write and made executable in place): `place`.
 *     MAP_GROWSDOWN: refused.  mprotect/pkey_mprotect with PROT_EXEC:
 *     refused without SP_BPF_ALLOW_JIT, else allowed inside the band (or
 *     from a loader site inside `slots`).  mremap: its old range
 *     [args[0], +args[1]) must end in the segment where it starts (the
 *     image's ranges, the band, or a stretch between them; addresses
 *     and lengths of 2^56 or more are refused): of the image's ranges,
 *     refused; of band memory, only within the band (in place, or with
 *     MREMAP_FIXED into it).  shmat with SHM_EXEC
 *     and personality(READ_IMPLIES_EXEC or MMAP_PAGE_ZERO): refused.  execve/execveat:
 *     refused with SP_BPF_STRICT or SP_BPF_NO_EXEC.  Refused: `refuse`.
 *     "Inside" an area means addr in [start, end) and len < 4 GiB: the
 *     caller keeps 4 GiB of room behind `end` (SP_BAND_MARGIN).
 *
 * So code that appears after pinning (a second mapping of libc, a memfd,
 * dlopen, JIT memory) lands in the band and makes no system call of its
 * own, exactly as on OpenBSD, while exec'd images keep working.
 *
 * Numbers and argument rules per ABI are in lib/bpf/policy.c.
 */
#ifndef SYSPIN_BPF_BPF_H
#define SYSPIN_BPF_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include "util/error.h"

/* ABI of a pin.  SP_ABI_X86_64 is 0 so that { nr, ip } initialisers mean a
 * plain x86-64 `syscall` site. */
#define SP_ABI_X86_64	0
#define SP_ABI_I386	1	/* `int 0x80`: arch AUDIT_ARCH_I386, i386 nr */
#define SP_ABI_X32	2	/* arch x86-64, nr | SP_BPF_X32_BIT */

#define SP_BPF_X32_BIT	0x40000000u

/* One allowed (number, instruction pointer) pair.  ip is the address AFTER
 * the trap instruction, as seccomp_data.instruction_pointer reports it.
 * An x32 nr may be given with or without SP_BPF_X32_BIT; an x86-64 nr must
 * not have it. */
struct sp_bpf_pin {
	uint32_t nr;
	uint64_t ip;
	uint8_t abi;		/* SP_ABI_* */
	uint8_t flags;		/* SP_BPF_PIN_* */
};

/*
 * The number the supervisor puts in orig_rax to kill a tracee stopped at a
 * violation: with SP_BPF_GUARD a filter answers SECCOMP_RET_KILL_PROCESS
 * for it when the kernel re-checks the call after the stop.  No real
 * system call has it.
 */
#define SP_GUARD_KILL_NR 0xdead

/* A site of the image's loader (ld.so): its mmap places new objects. */
#define SP_BPF_PIN_LOADER 0x01u

/*
 * The late-code band: address space the kernel never chooses for an
 * image at exec, nor ld.so for its objects (mmap_base is near the top,
 * PIE executables near 0x555555554000, the legacy layout starts at
 * 0x2aaaaaaab000, ASan's shadow ends at 0x10007fff8000).  Every executable
 * mapping made after an image was pinned is placed here, and no system
 * call may come from it.  It is the same in every image, so that one
 * image's filter never stops a later image's start-up code.  Mappings
 * are placed below SP_BAND_END - SP_BAND_MARGIN (see 5. above).
 */
#define SP_BAND_START	0x110000000000ull
#define SP_BAND_END	0x290000000000ull
#define SP_BAND_MARGIN	(1ull << 32)
/* The band's first bytes, reserved (PROT_NONE) when an image is pinned:
 * mappings placed for it go there, and nothing else does. */
#define SP_BAND_ARENA	(64ull << 30)
/* Just below the band, a sealed PROT_NONE page: what grows down in the
 * band (a mapping with VM_GROWSDOWN moved there) stops at it. */
#define SP_BAND_GUARD	4096ull

/* An executable range of the pinned image: [start, end). */
struct sp_bpf_range {
	uint64_t start;
	uint64_t end;
};

/* Generation flags. */
#define SP_BPF_STRICT     0x01u	/* IP outside the ranges is a violation; no
				   PROT_EXEC mmap at all; no execve */
#define SP_BPF_ALLOW_JIT  0x02u	/* lift the executable-memory rules */
#define SP_BPF_AUDIT      0x04u	/* default action SECCOMP_RET_LOG */
#define SP_BPF_OUTSIDE    0x08u	/* IP outside the ranges is a violation,
				   nothing else changes (a smaller filter
				   that must stop what it cannot judge) */
#define SP_BPF_GUARD      0x10u	/* the supervisor's guard rules (2.) */
#define SP_BPF_NO_PTRACE  0x20u	/* no ptrace & co. (2.): no Landlock */
#define SP_BPF_NO_EXEC    0x40u	/* execve/execveat refused */
#define SP_BPF_NO_CLOCK  0x100u	/* the system clock cannot be set (2.):
				   --exec=trusted's "changed before the
				   run" rests on it */
#define SP_BPF_CONNECT   0x200u	/* connect(2) is `check`: the supervisor
				   judges whom a unix socket reaches */
#define SP_BPF_NO_UNIX   0x400u	/* no unix stream or seqpacket socket
				   (the runtime alone cannot judge a
				   connect) */
#define SP_BPF_NO_PERF   0x800u	/* no perf_event_open at all: the image
				   may make uprobes (CAP_PERFMON or
				   CAP_SYS_ADMIN), and a uprobe maps the
				   kernel's executable trampoline into it */
#define SP_BPF_CHECK_EXEC 0x1000u	/* execve/execveat are `check`: the
				   supervisor looks at the file first
				   (--exec=trusted) */
#define SP_BPF_NO_URING  0x2000u	/* io_uring_setup, _enter, _register
				   answer ENOSYS: an attached process
				   (syspin run -p) may hold a ring from
				   before, registered and its descriptor
				   closed, whose requests run with the
				   credentials of before (blind round 23) */
#define SP_BPF_PLACE_FILES 0x80u	/* a file's executable MAP_FIXED mapping
				   in the band: `place` (the supervisor
				   checks the file: --exec=trusted) */

/*
 * Narrowing: the x86-64 numbers denied in every image (2a.).  With allow,
 * nrs are the numbers left and every other one below SP_BPF_X32_BIT is
 * denied.  { NULL, 0, false } denies nothing.
 */
struct sp_bpf_narrow {
	const uint32_t *nrs;	/* any order; duplicates allowed */
	size_t n;
	bool allow;
};

/* What narrowing never denies (2a.): 0 nothing, SP_NARROW_NEVER the whole
 * number, SP_NARROW_FORM all but the form of *arg0 (prctl, seccomp). */
#define SP_NARROW_NEVER	1
#define SP_NARROW_FORM	2
int sp_bpf_narrow_exempt(uint32_t nr, uint32_t *arg0);

/* nr is denied by n (2a.), exemptions not counted. */
bool sp_bpf_narrow_denies(const struct sp_bpf_narrow *n, uint32_t nr);

/* The signals whose default action dumps core (signal(7)): SIGQUIT,
 * SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGXCPU, SIGXFSZ,
 * SIGSYS.  A core is the process's memory, written where its owner may
 * read it: the tree sends none outside. */
#define SP_BPF_CORE_SIGNALS	(1u << 3 | 1u << 4 | 1u << 5 | 1u << 6 | \
				 1u << 7 | 1u << 8 | 1u << 11 | 1u << 24 | \
				 1u << 25 | 1u << 31)

static inline bool
sp_bpf_dumps_core(long sig)
{
	return sig > 0 && sig < 32 && (SP_BPF_CORE_SIGNALS >> sig & 1u);
}

struct sp_bpf_input {
	const struct sp_bpf_pin *pins;	/* any order; duplicates allowed */
	size_t npins;
	const uint64_t *any_ips;	/* x86-64 sites allowed any number */
	size_t nany_ips;
	const struct sp_bpf_range *ranges; /* pinned executable mappings */
	size_t nranges;
	struct sp_bpf_range band;	/* late code: SP_BAND_*, or {0, 0} */
	struct sp_bpf_range slots;	/* where loader sites may map code */
	unsigned flags;
	/*
	 * Action on violation: 0 means SECCOMP_RET_KILL_PROCESS (or
	 * SECCOMP_RET_LOG with SP_BPF_AUDIT).  Otherwise one of KILL_PROCESS,
	 * TRAP, ERRNO|e, USER_NOTIF, TRACE|d, LOG (KILL_THREAD, being 0,
	 * cannot be chosen; it would leave the process running anyway).
	 * USER_NOTIF works only when the filter is not split (one listener
	 * per filter chain).
	 */
	uint32_t action;
	/*
	 * What a call the memory rules refuse gets: 0 means
	 * SECCOMP_RET_ERRNO | EACCES.  The supervisor asks for
	 * SECCOMP_RET_TRACE | SP_BPF_REFUSE_DATA, to say why once and fail
	 * the call with EACCES itself.
	 */
	uint32_t refuse;
	/* What a call the rules of 2. refuse gets: 0 means ERRNO | EPERM
	 * (the supervisor: TRACE | SP_BPF_DENY_DATA, to say why once). */
	uint32_t deny;
	/* What a call the rules of 2. leave to whoever knows the tree gets
	 * (perf_event_open of another process): 0 means the denial's answer
	 * (nobody can tell); the supervisor asks for TRACE |
	 * SP_BPF_CHECK_DATA and allows it for a process of the tree. */
	uint32_t check;
	/* What a mapping that must go into the band gets: 0 means ERRNO |
	 * EACCES (nobody can place it); the supervisor asks for TRACE |
	 * SP_BPF_PLACE_DATA, the runtime alone TRAP | SP_BPF_PLACE_DATA. */
	uint32_t place;
	struct sp_bpf_narrow narrow;	/* syspin run --deny/--allow (2a.) */
	/* What a narrowed call gets: 0 means ERRNO | EPERM; else ERRNO|e,
	 * KILL_PROCESS, TRAP, LOG or (the supervisor) TRACE |
	 * SP_BPF_NARROW_DATA. */
	uint32_t narrowed;
};

/* SECCOMP_RET_DATA of our non-violation stops (violations carry 0).  The
 * supervisor never believes them: it evaluates the program itself. */
#define SP_BPF_REFUSE_DATA 0xffffu
#define SP_BPF_DENY_DATA 0xfffeu
#define SP_BPF_PLACE_DATA 0xfffdu
#define SP_BPF_NARROW_DATA 0xfffcu
#define SP_BPF_CHECK_DATA 0xfffbu

/* A program ready for seccomp: at most BPF_MAXINSNS instructions. */
struct sp_bpf_prog {
	struct sock_filter *insns;
	size_t len;
};

/* The kernel's limit on the instructions of all filters of a task, each
 * filter counting 4 more (MAX_INSNS_PER_PATH). */
#define SP_BPF_MAX_TOTAL 32768u

/*
 * Builds the filter.  When one program would exceed BPF_MAXINSNS, the
 * (arch, number) space is split across several programs: each owns one
 * interval and allows every call it does not own, so, installed together
 * (all run, the most severe action wins), they enforce exactly the policy
 * of one program.  Fails when one number's sites alone do not fit a
 * program or the total exceeds SP_BPF_MAX_TOTAL.
 * Returns 0 and *progs / *nprogs (free with sp_bpf_free), or -1.
 */
int sp_bpf_generate(const struct sp_bpf_input *in, struct sp_bpf_prog **progs,
    size_t *nprogs, struct sp_error *err);

void sp_bpf_free(struct sp_bpf_prog *progs, size_t nprogs);

/*
 * The rules of every call that keep the outside safe (2.: the terminal's
 * and the console's ioctls, vhangup, unix stream and seqpacket sockets,
 * the keyrings', F_SETSIG of a core signal, prlimit64 of another
 * process, request_key's upcall, BPF_PROG_LOAD, perf of every task,
 * userfaultfd, process_madvise, pidfd_getfd, mounts; io_uring, which
 * makes and connects sockets with no call: ENOSYS),
 * as they are where no supervisor judges, for every call wherever it
 * comes from, in each ABI; the rest allowed.  A runtime-only tree's
 * first filter: an image exec'd without the runtime has no filter of its
 * own (everywhere.c).  One program (prog->insns: free()).
 */
int sp_bpf_everywhere(struct sp_bpf_prog *prog, struct sp_error *err);

/*
 * Longest executed path of prog, in instructions including the final
 * return (programs only jump forward, so this bounds every run).  The
 * kernel runs every installed program, so a call costs the sum over progs.
 */
size_t sp_bpf_path_max(const struct sp_bpf_prog *prog);

/* ---- evaluating programs (eval.c): the one evaluator ---- */

/* 0 when the kernel would accept f as a seccomp filter; else -1 and the
 * reason in why (if not NULL). */
int sp_bpf_check(const struct sock_filter *f, size_t n, char *why,
    size_t whylen);

/* f's return value for d; *steps (if not NULL): instructions executed.
 * f should have passed sp_bpf_check (else what it cannot do kills). */
uint32_t sp_bpf_run(const struct sock_filter *f, size_t n,
    const struct seccomp_data *d, size_t *steps);

/* Negative when action a takes precedence over b: the lowest action as
 * a signed number wins (KILL_PROCESS first, ALLOW last). */
int sp_bpf_cmp_action(uint32_t a, uint32_t b);

/* progs installed by sp_bpf_install, combined as the kernel combines
 * them: progs[0] runs first, the most severe action wins, the first of
 * equals.  *steps: the sum over all programs. */
uint32_t sp_bpf_run_all(const struct sp_bpf_prog *progs, size_t n,
    const struct seccomp_data *d, size_t *steps);

/*
 * One instruction of prog at index i, as libseccomp's scmp_bpf_disasm
 * prints it (without the newline):
 *  " 0003: 0x15 0x00 0x05 0x0000003b   jeq 59   true:0004 false:0009"
 * Returns the length snprintf would write.  lib/bpf/disasm.c.
 */
int sp_bpf_disasm(const struct sock_filter *prog, size_t i, char *buf,
    size_t size);
/* The header lines scmp_bpf_disasm prints first. */
#define SP_BPF_DISASM_HEADER \
	" line  OP   JT   JF   K\n=================================\n"

/* Install flags. */
#define SP_BPF_INSTALL_NO_NNP 0x01u	/* rely on CAP_SYS_ADMIN instead */

/*
 * Installs progs (last one first, so they run in generation order) with
 * SECCOMP_FILTER_FLAG_TSYNC.  Sets no_new_privs unless SP_BPF_INSTALL_NO_NNP.
 * Filters cannot be removed: when program i fails, programs after i are
 * installed and stay (each only ever allows less).  On a TSYNC failure,
 * *tid (if not NULL) is the thread that could not be synchronised.
 */
int sp_bpf_install(const struct sp_bpf_prog *progs, size_t nprogs,
    unsigned flags, struct sp_error *err);
int sp_bpf_install_tid(const struct sp_bpf_prog *progs, size_t nprogs,
    unsigned flags, long *tid, struct sp_error *err);

#endif
