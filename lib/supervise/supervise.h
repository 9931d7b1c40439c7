/* SPDX-License-Identifier: ISC */
/*
 * Pinning processes from outside, and supervising a whole process tree.
 *
 * `syspin run` stays the ptrace(2) tracer of every process it starts and of
 * all their descendants (PTRACE_O_TRACEEXEC, TRACEFORK, TRACEVFORK,
 * TRACECLONE, TRACESECCOMP, EXITKILL).  Only exec, fork, entry and the
 * filters' stops stop a process; ordinary system calls never do.
 *
 * - Every new image is pinned before its first instruction runs: at the
 *   end of its execve (a syscall-exit stop).  For a dynamic program that
 *   is before ld.so maps anything: the objects ld.so may load are
 *   predicted (lib/layout/needed.c), each gets an address slot, and the
 *   filter pins them there; ld.so's reservations stop (SP_BPF_PLACE_DATA)
 *   and are moved into their slots.  Nothing the environment names
 *   (LD_PRELOAD in a descendant, LD_AUDIT) runs with pins of its own.
 * - Code mapped later (dlopen, a second libc, a memfd, JIT memory) is
 *   placed in the late-code band, where no system call may come from.
 * - Every stop is judged by evaluating the image's own program: the data
 *   a filter returns is never believed (a process can install filters).
 *   Violations are printed and killed (or, --audit, recorded).
 * - Landlock (where the kernel has it) keeps the tree from reaching any
 *   process outside it.
 *
 * Not in the runtime: ptrace and the analysis are the supervisor's.
 */
#ifndef SYSPIN_SUPERVISE_SUPERVISE_H
#define SYSPIN_SUPERVISE_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/user.h>
#include <time.h>

#include <linux/filter.h>

#include "bpf/bpf.h"
#include "pins/cache.h"
#include "util/error.h"
#include "layout/layout.h"
#include "layout/procfs.h"
#include "layout/placement.h"

/* ---- remote system calls in a ptrace-stopped tracee (inject.c) ---- */

/* A stopped tracee and the `syscall` instruction its calls are made at. */
struct sp_inject {
	pid_t pid;
	uint64_t trap;		/* address of a `syscall` instruction */
	int pending_sig;	/* arrived meanwhile: deliver it on resume */
	bool seccomp_stop;	/* a filter answered SECCOMP_RET_TRACE */
	bool pass_trace;	/* our own filters stop our calls too (the
				   process stops every call): let them run */
	/* the registers after the last call (each call sets the ones it
	 * uses: no need to read them again) */
	struct user_regs_struct regs;
	bool have_regs;
	/* the step's report told of another thread or of none (an exec's
	 * new image took the pid, the thread died): nothing more is made
	 * or written there */
	bool gone;
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
/*
 * The registers saved before the calls, put back in in->pid; not when
 * the pid is not the thread the calls were made in any more (in->gone,
 * or a report of it kept: an exec's new image, whose registers are its
 * own): -1 then.
 */
int sp_inject_restore(const struct sp_inject *in,
    const struct user_regs_struct *regs, struct sp_error *err);

/* The tracee's memory through /proc/PID/mem (writes ignore protections). */
int sp_mem_read(pid_t pid, uint64_t addr, void *buf, size_t len,
    struct sp_error *err);
int sp_mem_read_string(pid_t pid, uint64_t addr, char *buf, size_t size);
int sp_mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len,
    struct sp_error *err);
/* One byte of the tracee's code set to v (*old: what it was), through
 * ptrace's word access: two calls, where a write to read-only code costs
 * the above four. */
int sp_mem_poke_byte(pid_t pid, uint64_t addr, uint8_t v, uint8_t *old,
    struct sp_error *err);

/* ---- the layout of another process (layout_pid.c) ---- */

/*
 * Like sp_layout_self, for a stopped tracee: every executable mapping of
 * /proc/PID/maps, a file mapping attributed to its ELF file (load bias from
 * its program headers, identity checked against the mapping), the vDSO (its
 * build-id read from the tracee) and the vsyscall page.  No tables yet.
 */
int sp_layout_pid(pid_t pid, struct sp_layout *lo, struct sp_error *err);

/* What the kernel told the new image (/proc/PID/auxv). */
struct sp_auxv {
	uint64_t entry;		/* AT_ENTRY */
	uint64_t base;		/* AT_BASE: the interpreter, 0 when none */
	bool secure;		/* AT_SECURE */
};

int sp_auxv_pid(pid_t pid, struct sp_auxv *a, struct sp_error *err);

/* A start-up object whose first PT_LOAD ld.so will map at base (its
 * slot); its executable PT_LOADs become its ranges.  Returns its index,
 * or -1 with err. */
long sp_layout_add_file(struct sp_layout *lo, const char *path,
    const struct sp_file_id *id, uint64_t base, struct sp_error *err);

/* Seccomp_filters of /proc/PID/status; -1 when unknown. */
/* sp_filters_pid() is in "layout/layout.h". */

/* ---- pinning a stopped tracee (pin.c) ---- */

/* What a pinned tree may exec (syspin run --exec). */
enum sp_exec_policy {
	SP_EXEC_ANY,		/* anything: its own pins judge it */
	SP_EXEC_TRUSTED,	/* root's files nobody else can write, made
				   before the run: no memfd, no tmpfile */
	SP_EXEC_NONE,		/* nothing: execve fails with EACCES */
};

struct sp_pin_opts {
	const struct sp_cache *cache;	/* writable: missing tables are filled */
	unsigned flags;			/* SP_BPF_* */
	enum sp_exec_policy exec;
	struct timespec start;		/* the run's start (SP_EXEC_TRUSTED) */
	char *const *dlopen;		/* --dlopen FILE: objects dlopen'ed
					   later whose numbers they pass to
					   libc's syscall() are pinned now */
	size_t ndlopen;
	const char *reportdir;		/* PID.layout is written there, or NULL */
	bool verbose;
	/* --deny / --allow (bpf.h, 2a.): a narrowed call stops (TRACE |
	 * SP_BPF_NARROW_DATA) and fails with narrow_errno, or is killed */
	struct sp_bpf_narrow narrow;
	int narrow_errno;
	bool narrow_kill;
	bool reach;			/* pin only the sites the image's
					   code can reach (lib/reach/reach.c;
					   run --no-reach: all) */
};

/*
 * An image's start-up objects: where ld.so will map each of them (see
 * needed.h).  Filled by sp_pin_process for a dynamic image.
 */
struct sp_slot {
	char *path;
	struct sp_file_id id;
	uint64_t base;		/* aligned; ld.so's reservation goes here */
	uint64_t room;		/* bytes reserved for it */
	uint64_t span, align;	/* what ld.so will ask for */
};

/*
 * How an image was pinned.  progs is always its whole program: every stop
 * is judged by it.  In the kernel it has that program, or, when that did
 * not fit under the filters inherited from pinned ancestors (seccomp
 * allows 32768 instructions in all of a task's filters, and filters
 * cannot be removed), the same program for a subset of the numbers, with
 * SP_BPF_OUTSIDE: it stops what it cannot judge, every call of later
 * images included (stops_all); when not even that fits, one instruction
 * that stops every call.  From then on the supervisor judges every stop
 * of the process and its descendants, which install nothing more.
 */
struct sp_pin_result {
	int sig;		/* arrived meanwhile: deliver on resume, or 0 */
	unsigned flags;		/* SP_BPF_* its programs were made with */
	struct sp_bpf_prog *progs;	/* the whole program */
	size_t nprogs;
	struct sp_layout lo;	/* what it pins, for diagnostics */
	struct sp_placement pl;
	size_t nkept;		/* numbers the smaller filter judges itself */
	bool smaller;		/* the kernel has a smaller filter */
	bool stops_all;		/* the process stops every later image's call */
	struct sp_slot *slots;	/* dynamic: the start-up objects' slots */
	size_t nslots;
	uint64_t slot_lo, slot_hi;	/* the reserved region */
	uint64_t entry;		/* AT_ENTRY; with entry_hw, PROG's entry
				   (ld.so PROG): not mapped yet, a hardware
				   breakpoint stops it there */
	bool entry_hw;
	bool loader_exec;	/* ld.so's exec sites are pinned (it runs a
				   static program by name) until the entry
				   point, where the entry filter ends them */
	uint64_t trap;		/* where our calls are made (the vDSO's) */
	long reused;		/* >= 0: moved to prior[reused]'s addresses,
				   judged by its filter; nothing else here
				   is set but sig, entry and filters */
	long filters;		/* the process's seccomp filters after */
	bool own_filters;	/* it had more than known_filters */
	bool changed;		/* sp_pin_attach: the process was changed
				   (its domain, its band), pinned or not */
};

void sp_pin_result_free(struct sp_pin_result *res);

/* sp_pin_process's how. */
#define SP_PIN_STOPS_ALL 0x1u	/* the process stops every call already:
				   nothing is installed */
#define SP_PIN_FIRST	 0x2u	/* the tree's first image: its environment
				   (LD_PRELOAD) is the user's, not an
				   attacker's */
#define SP_PIN_DRY	 0x4u	/* build everything, inject nothing
				   (syspin filter) */
#define SP_PIN_TRACE_ALL 0x8u	/* install one instruction that stops
				   every call (syspin trace) */
#define SP_PIN_CHECK_SEALS 0x10u /* the process has filters the supervisor
				   did not install, which may answer its
				   mseal(2) calls: check each seal (smaps) */

/*
 * Pins the tracee pid, stopped at the end of its execve: layout (with
 * the start-up objects' slots for a dynamic image), tables, placement,
 * filter, then injects the reservations (late-code arena, slots),
 * no_new_privs (unless it has CAP_SYS_ADMIN), mseal of what is mapped and
 * the filter (TSYNC).  Its registers are restored (what is written below
 * its stack pointer, unused at an exec, is left).  prior: the images whose filters the process has, newest
 * first: an image of the same program is moved to one's addresses and
 * judged by its filter instead (reuse.c).  known_filters: the filters
 * the supervisor knows it has (but with SP_PIN_FIRST): more, read from
 * the same look at its status as the rest, are the tree's own
 * (res->own_filters, and SP_PIN_CHECK_SEALS).  -1 with err: the tracee
 * must not run.
 */
int sp_pin_process(pid_t pid, const struct sp_pin_opts *o, unsigned how,
    long known_filters, const struct sp_pin_result *const *prior,
    size_t nprior,
    struct sp_pin_result *res, struct sp_error *err);

/*
 * Seals the slot region once the image reaches its entry point: whole
 * (*whole: nothing can be mapped or made executable there any more), or
 * where it cannot be, what ld.so mapped in the slots and the unused
 * slots.  The region must hold only the objects that were placed there.
 * With check, each seal is checked in the kernel's account (the process
 * has filters of its own, which may answer mseal(2)).  -1 with err: kill
 * it.
 */
int sp_pin_seal_slots(pid_t pid, const struct sp_pin_result *res,
    const bool *placed, bool check, bool *whole, struct sp_error *err);

/*
 * syspin filter -p PID: the program the supervisor would build for pid's
 * mappings now (it does not expose the one it installed): the layout of
 * /proc/PID/maps less the late-code band, the tables, the placement.
 * Nothing is injected; pid need not be stopped.  -1 with err.
 */
int sp_pin_rebuild(pid_t pid, const struct sp_pin_opts *o,
    struct sp_pin_result *res, struct sp_error *err);

/*
 * syspin filter -- PROG: starts argv (path) traced, stopped at the end
 * of its execve, and builds what the supervisor would pin it with there
 * (sp_pin_process, SP_PIN_DRY); then kills it before its first
 * instruction.  *pid is the process it was.  -1 with err.
 */
int sp_pin_preview(const char *path, char *const *argv,
    const struct sp_pin_opts *o, struct sp_pin_result *res, pid_t *pid,
    struct sp_error *err);

/* The SP_BPF_* flags the supervisor adds to the run's (the guard; no
 * ptrace & co. without Landlock; no exec for SP_EXEC_NONE). */
unsigned sp_supervise_flags(const struct sp_pin_opts *pin, bool landlock);

/* ---- what tools read: one JSON object a line (eventlog.c) ---- */

enum sp_verdict {
	SP_VERDICT_KILLED,	/* a violation (or --deny-action=kill) */
	SP_VERDICT_AUDITED,	/* the same under --audit: it ran */
	SP_VERDICT_REFUSED,	/* the memory or exec rules: EACCES */
	SP_VERDICT_DENIED,	/* the rules of every call, --deny: errno */
};

/*
 * One record (docs/run-log.md): a violation, a refusal or an audit
 * report, when syspin run prints its line.
 */
struct sp_event {
	struct timespec time;		/* CLOCK_REALTIME */
	long pid, tid;
	const char *comm, *exe;		/* exe NULL when unknown */
	uint32_t arch, nr;		/* AUDIT_ARCH_*, as the kernel saw */
	uint64_t ip;			/* after the trap instruction */
	const char *name;		/* "execve" */
	enum sp_verdict verdict;
	const char *rule;		/* "pin", "memory", "exec", "every-call",
					   "deny-list" */
	int errnum;			/* refused, denied: the call's errno */
	const struct sp_layout *lo;	/* the image's, or NULL */
	const struct sp_placement *pl;
	bool audit;			/* the run's mode */
	const char *line;		/* the line printed, without "syspin: " */
};

/* Writes ev as one line of JSON to fd, in one write(2).  -1 with errno. */
int sp_event_log(int fd, const struct sp_event *ev);

/* ---- the supervisor (tree.c) ---- */

/* Landlock scopes the tree may be put in (syspin run --scope). */
#define SP_SCOPE_SIGNALS	0x1u	/* no signals to outside processes */
#define SP_SCOPE_SOCKETS	0x2u	/* no abstract unix sockets outside */
#define SP_SCOPE_SOCKETS_IF	0x4u	/* the same where the kernel can
					   (ABI 6), else nothing */

/*
 * syspin trace: the supervisor pins every image exactly as `run` does,
 * but the kernel stops every call (SP_PIN_TRACE_ALL) and each one is
 * judged by the image's program and told to the observer; a violation
 * runs (as with --audit) and nothing is printed.
 */
enum sp_observed_kind {
	SP_OBS_ALLOWED,		/* the program allows it */
	SP_OBS_PLACED,		/* allowed, moved into a slot or the band */
	SP_OBS_ERRNO,		/* the program answers an errno (clone3) */
	SP_OBS_REFUSED,		/* the memory or exec rules: EACCES */
	SP_OBS_DENIED,		/* the rules of every call, --deny: errno */
	SP_OBS_VIOLATION,	/* `run` kills it */
	SP_OBS_PROCESS,		/* a new process (tid) */
	SP_OBS_THREAD,		/* a new thread (tid) */
	SP_OBS_EXIT,		/* the program ended: status */
};

struct sp_observed {
	enum sp_observed_kind kind;
	pid_t tid;
	uint32_t arch, nr;		/* AUDIT_ARCH_*, as the kernel saw */
	uint64_t ip;			/* after the trap instruction */
	const char *exe;		/* the image's program, or NULL */
	const struct sp_layout *lo;	/* the image's layout, or NULL */
	const char *line;		/* refused, denied, violation: what
					   `run` prints, without "syspin: " */
	int status;			/* SP_OBS_EXIT: the wait status */
};

typedef void sp_observe_fn(void *ctx, const struct sp_observed *c);

struct sp_supervise_opts {
	struct sp_pin_opts pin;
	bool audit;			/* record violations, let them run */
	bool quiet;			/* -q: say violations only (what
					   is refused is still recorded) */
	sp_observe_fn *observe;		/* syspin trace, or NULL */
	void *observe_ctx;
	unsigned scope;			/* SP_SCOPE_* */
	char *const *argv;		/* PROG ARG... */
	const char *path;		/* PROG as found */
	int log_fd;			/* -o, --log-fd: sp_event_log; -1 none */
	/* --allow-socket NAME: unix listeners outside the tree its sockets
	 * may reach, by the name they bound ("@name": abstract) */
	char *const *allow_sockets;
	size_t nallow_sockets;
};

/*
 * Forks, attaches to the child, installs the guard in it, execs PROG and
 * supervises the tree until PROG exits.  Returns PROG's exit status (or
 * 128+signal), -1 with err when supervision could not start (ptrace not
 * permitted: the caller may run PROG the old way), before PROG ran.
 */
int sp_supervise(const struct sp_supervise_opts *o, struct sp_error *err);

/*
 * syspin run -p: the running processes pids[] and their descendants
 * pinned (every thread, TSYNC) and supervised until they end (attach.c);
 * the first's status, as sp_supervise's.  -1 with err ("PID: why") when
 * they cannot be, the processes left as they were.
 */
int sp_supervise_attach(const struct sp_supervise_opts *o, const pid_t *pids,
    size_t npids, struct sp_error *err);

/* The program of the running thread tid's process, installed by tid
 * (stopped) with TSYNC, the band reserved; first its threads tids[],
 * stopped, into the tree's Landlock domain (scope: SP_SCOPE_*) where the
 * kernel has one (pin_attach.c). */
int sp_pin_attach(pid_t tid, const pid_t *tids, size_t ntids, unsigned scope,
    const struct sp_pin_opts *o, struct sp_pin_result *res,
    struct sp_error *err);

/*
 * SYSPIN_PHASES: the supervisor counts where its time goes, by phase of
 * pinning an image and by kind of stop (lib/supervise/phases.c); printed
 * per image pinned.  Called before sp_supervise.
 */
void sp_supervise_phases(void);
void sp_supervise_phases_print(FILE *f);

/*
 * Analyses paths[0..n) into c in a child of ours under limits of memory
 * and time (lib/supervise/fill.c), as the supervisor does what a tree
 * execs.  -1 with err naming the file over a limit; files that fail
 * otherwise just get no table (said with verbose).
 */
int sp_fill_files(const struct sp_cache *c, char *const *paths, size_t n,
    bool reach, bool verbose, struct sp_error *err);

/*
 * Puts the calling process (and its descendants) into a Landlock domain:
 * no ptrace, /proc/PID/mem, process_vm_* or pidfd_getfd on processes
 * outside it, and what scope asks.  Needs no_new_privs or CAP_SYS_ADMIN.
 * Returns the Landlock ABI version, 0 when the kernel has none, -1 with
 * err when it has one and refused.
 */
int sp_confine(unsigned scope, struct sp_error *err);
/* The kernel has Landlock. */
bool sp_confine_available(void);
/* confine.c: the same domain entered by n stopped threads of a running
 * process, by calls injected in them (in[i]); its memory below `below`
 * ours to write.  0, 1 when there is no Landlock, -1 with err. */
struct sp_inject;
int sp_confine_threads(struct sp_inject *in, size_t n, uint64_t below,
    unsigned scope, struct sp_error *err);
/* The tree's first process before its exec: a session keyring of its
 * own, and (as root) no CAP_SYS_PTRACE, CAP_PERFMON, CAP_BPF for any
 * program of the tree (confine.c).  0, or -1 with err. */
int sp_confine_session(struct sp_error *err);

/* Forwards the signals sent to this process in particular to the
 * process of pidfd *to (-1: none yet). */
void sp_forward_signals(volatile int *to);


#endif
