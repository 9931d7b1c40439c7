/* SPDX-License-Identifier: ISC */
/*
 * Pinning processes from outside, and supervising a whole process tree.
 *
 * `syspin run` stays the ptrace(2) tracer of every process it starts and of
 * all their descendants (PTRACE_O_TRACEEXEC, TRACEFORK, TRACEVFORK,
 * TRACECLONE, TRACESECCOMP, EXITKILL).  Only exec, fork, entry and
 * violation events stop a process; ordinary system calls never do.
 *
 * - Every new image is pinned at its entry point.  A static image stops at
 *   its entry at the exec event itself; a dynamic one gets a breakpoint at
 *   AT_ENTRY.  If the preloaded runtime did not pin it by then (static, the
 *   environment was cleared, secure mode), the supervisor does: it reads
 *   the layout from /proc/PID/maps, takes the tables from the cache (filling
 *   what is missing), places the pins and generates the filter exactly like
 *   the runtime (lib/layout, lib/bpf), then makes the tracee itself execute
 *   prctl(PR_SET_NO_NEW_PRIVS), mseal and seccomp at an existing `syscall`
 *   instruction (inject.c), and restores its registers and stack.
 * - The violation action is SECCOMP_RET_TRACE: the tracee stops before the
 *   call runs, the supervisor prints the diagnostic from the registers and
 *   kills it (enforcing) or records it once and lets it run (--audit).
 * - A guard filter, installed in the first process and inherited by all,
 *   makes the kill exact and the tracing unescapable (guard.c).
 *
 * Not in the runtime: ptrace and the analysis are the supervisor's.
 */
#ifndef SYSPIN_SUPERVISE_H
#define SYSPIN_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/filter.h>

#include <syspin/bpf.h>
#include <syspin/cache.h>
#include <syspin/error.h>
#include <syspin/layout.h>

/* ---- remote system calls in a ptrace-stopped tracee (inject.c) ---- */

/* A stopped tracee and the `syscall` instruction its calls are made at. */
struct sp_inject {
	pid_t pid;
	uint64_t trap;		/* address of a `syscall` instruction */
	int pending_sig;	/* arrived meanwhile: deliver it on resume */
	bool seccomp_stop;	/* a filter answered SECCOMP_RET_TRACE */
	long pass_trace;	/* a TRACE stop with this data is let through
				   (the all-TRACE filter); -1: none */
};

/*
 * Runs nr(args) in the stopped tracee by pointing its instruction pointer at
 * in->trap (any `syscall` instruction will do: the registers are ours) and
 * single-stepping it.  The caller saves and restores the registers.
 * Returns 0 and *ret (the kernel's result, -errno on failure), or -1 with
 * err set when the tracee did not come back from the step as expected: it
 * died, or an inherited filter stopped the call (in->seccomp_stop).
 */
int sp_inject_syscall(struct sp_inject *in, long nr, const uint64_t *args,
    size_t nargs, long *ret, struct sp_error *err);

/* The tracee's memory through /proc/PID/mem (writes ignore protections). */
int sp_mem_read(pid_t pid, uint64_t addr, void *buf, size_t len,
    struct sp_error *err);
int sp_mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len,
    struct sp_error *err);

/* ---- the layout of another process (layout_pid.c) ---- */

/*
 * Like sp_layout_self, for a stopped tracee: every executable mapping of
 * /proc/PID/maps, a file mapping attributed to its ELF file (load bias from
 * its program headers, identity checked against the mapping), the vDSO (its
 * build-id read from the tracee) and the vsyscall page.  No tables yet.
 */
int sp_layout_pid(pid_t pid, struct sp_layout *lo, struct sp_error *err);

/* AT_ENTRY and AT_SECURE of pid from /proc/PID/auxv. */
int sp_auxv_pid(pid_t pid, uint64_t *entry, bool *secure,
    struct sp_error *err);

/* Seccomp_filters of /proc/PID/status; -1 when unknown. */
/* sp_filters_pid() is in <syspin/layout.h>. */

/* ---- pinning a stopped tracee (pin.c) ---- */

struct sp_pin_opts {
	const struct sp_cache *cache;	/* writable: missing tables are filled */
	unsigned flags;			/* SP_BPF_* */
	uint32_t action;		/* violation action, 0: default */
	const char *reportdir;		/* PID.layout is written there, or NULL */
	bool verbose;
};

/*
 * How an image was pinned: by its filter in the kernel, or, when that does
 * not fit under the filters inherited from pinned ancestors (seccomp allows
 * 32768 instructions in all of a task's filters, and filters cannot be
 * removed), by a smaller filter plus the supervisor.  The smaller filter is
 * the same program for a subset of the numbers (the calls most programs
 * make most often, as many as fit, possibly none): it allows exactly what
 * the whole program allows for those numbers, and answers
 * SECCOMP_RET_TRACE, with data check_data, where the whole program might
 * decide otherwise.  At such a stop the supervisor evaluates the whole
 * program (sp_bpf_eval_all): the same verdicts, at the cost of a stop.
 * When not even a program without pins fits, one instruction does:
 * SECCOMP_RET_TRACE for every call, data trace_all.  From then on every
 * call of the process and its descendants stops, and no image of theirs
 * installs anything more: the supervisor checks each call.
 */
struct sp_pin_result {
	int sig;		/* arrived meanwhile: deliver on resume, or 0 */
	struct sp_bpf_prog *checked;	/* the whole program, or NULL */
	size_t nchecked;
	long check_data;	/* the smaller filter's TRACE data, or -1 */
	size_t nkept;		/* numbers it pins in the kernel */
	long trace_all;		/* the all-TRACE filter's data, or -1 */
};

void sp_pin_result_free(struct sp_pin_result *res);

/*
 * Pins the tracee pid, stopped at its entry point (no thread of it may be
 * inside a system call that the filter must see): layout, tables, placement,
 * filter, then injects no_new_privs (unless it has CAP_SYS_ADMIN), mseal of
 * its executable mappings and the filter (TSYNC).  Its registers and the
 * stack bytes used are restored.  trace_all: the data of the all-TRACE
 * filter the process has, or -1; with one, nothing more is installed.
 * -1 with err: the tracee must not run.
 */
int sp_pin_process(pid_t pid, const struct sp_pin_opts *o, long trace_all,
    struct sp_pin_result *res, struct sp_error *err);


/* ---- the guard filter (guard.c) ---- */

/*
 * The number the supervisor puts in orig_rax to kill a tracee stopped at a
 * violation: the guard answers SECCOMP_RET_KILL_PROCESS for it when the
 * kernel re-checks the call after the stop.  No real system call has it.
 */


/*
 * A small filter for the whole tree: SP_GUARD_KILL_NR is killed (with
 * SIGSYS, core, audit record, like any violation); clone with CLONE_UNTRACED
 * is killed (a child out of the supervisor's reach would turn
 * SECCOMP_RET_TRACE into a mere ENOSYS); clone3, whose flags the filter
 * cannot read, fails with ENOSYS (glibc falls back to clone).
 */
void sp_guard_program(struct sock_fprog *prog);

/* Evaluates a classic BPF program on seccomp data (tests, install order). */
uint32_t sp_bpf_eval(const struct sock_filter *insns, size_t len,
    uint32_t nr, uint32_t arch, uint64_t ip, const uint64_t *args);

/* All of them, combined as the kernel does: the most restrictive action. */
uint32_t sp_bpf_eval_all(const struct sp_bpf_prog *progs, size_t nprogs,
    uint32_t nr, uint32_t arch, uint64_t ip, const uint64_t *args);

/* ---- the supervisor (tree.c) ---- */

struct sp_supervise_opts {
	struct sp_pin_opts pin;
	bool audit;			/* record violations, let them run */
	char *const *argv;		/* PROG ARG... */
	const char *path;		/* PROG as found */
};

/*
 * Forks, attaches to the child, installs the guard in it, execs PROG and
 * supervises the tree until PROG exits.  Returns PROG's exit status (or
 * 128+signal), -1 with err when supervision could not start (ptrace not
 * permitted: the caller may run PROG the old way), before PROG ran.
 */
int sp_supervise(const struct sp_supervise_opts *o, struct sp_error *err);

/* Forwards the signals sent to this process in particular to *to. */
void sp_forward_signals(volatile pid_t *to);

/* "execve", "i386 getpid" (arch: AUDIT_ARCH_*; libseccomp's tables), or
 * "?" when the number has no name. */
const char *sp_syscall_name(uint32_t arch, uint32_t nr, char *buf,
    size_t size);

#endif
