/* SPDX-License-Identifier: ISC */
/* lib/supervise internals: the supervisor's state and its event handlers. */
#ifndef SYSPIN_SUPERVISE_INT_H
#define SYSPIN_SUPERVISE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <linux/ptrace.h>
#include <linux/seccomp.h>

#include "layout/diag.h"
#include "reach/reach.h"
#include "supervise/supervise.h"

/*
 * A pinned image: its whole program (every stop of its processes is
 * judged by it), its layout (diagnostics), its start-up slots.  Shared by
 * the threads and forks that run it; read-only once made.
 */
struct image {
	unsigned refs;
	struct sp_pin_result pin;
	char *exe;		/* /proc/PID/exe at the exec */
	/* Its rules alone (made at the first call a stop lets through:
	 * verdict.c): the program with no pins and one any-number site. */
	struct sp_bpf_prog *rules;
	size_t nrules;
	uint64_t rules_ip;
};

/*
 * An address space: threads share it, a fork copies it, an exec makes a
 * new one.  What the supervisor placed in it.
 */
/* reach_late.c: the names the late objects import, by the keys of the
 * late objects mapped when they were read, and the closure found with
 * them (made at the first call from a pruned site that needs it). */
struct late_memo {
	char **keys;		/* the late objects', sorted */
	size_t nkeys;
	char **names;
	size_t nnames;
	int closure;		/* 0 not made, 1 dead, -1 unknown */
	struct sp_reach_dead dead;
};
void sp_sup_late_memo_free(struct late_memo *lm);

/* A late mapping as reach_late.c saw it, by its maps line. */
struct late_seen {
	uint64_t start, end, offset, dev, inode;
	bool ok;			/* a key: the file is believed */
	char key[SP_CACHE_KEY_MAX];
};

struct space {
	unsigned refs;
	uint64_t band_next;	/* where the next late mapping goes */
	bool band_wrapped;	/* the band was used up once: only holes */
	bool startup;		/* before the entry point: slots open */
	bool *placed;		/* per slot: ld.so put its object there */
	size_t nplaced;
	struct sp_bpf_prog entry;	/* installed at the entry point
					   (entry.c), or empty */
	struct late_memo *late;		/* reach_late.c, or NULL */
	struct late_seen *seen;		/* the late mappings at its last
					   stop, and their keys */
	size_t nseen;
};

/*
 * The images whose filters a process has, newest first: inherited by a
 * fork, kept across an exec (filters are), grown by an image pinned with
 * a filter of its own (one moved to an earlier image's addresses adds
 * nothing: reuse.c).
 */
struct chain {
	unsigned refs;
	struct image *img;
	struct chain *up;
};

/* What we know about one traced thread. */
struct proc {
	pid_t pid;
	pid_t tgid;		/* its process (a thread's leader) */
	struct image *img;	/* the pinned image it runs, NULL before */
	struct space *sp;	/* its address space, NULL before */
	struct chain *chain;	/* the images its filters are for */
	bool exec_pending;	/* exec seen: pin it at the syscall's end */
	int pending_sig;	/* arrived while it was being pinned */
	bool stops_all;		/* a filter stops each of its calls */
	uint64_t bp;		/* entry breakpoint, 0 when none */
	uint8_t bp_byte;	/* the byte the breakpoint replaced */
	bool bp_hw;		/* bp is debug register 0's, not an int3 */
	bool doomed;		/* killed at a violation: any stop kills it */
	bool held;		/* new child stopped before its parent's
				   fork event told us what it inherits */
	bool inherited;		/* the parent's fork event was seen */
	bool files_shared;	/* its descriptor table is another
				   process's too (CLONE_FILES) */
	bool halted;		/* in a stop we took and have not resumed
				   (connect.c must not wait for another) */
	/* A blocking connect the listener had no room for: left in its
	 * stop until then (CLOCK_MONOTONIC ns, 0: not parked), to make it
	 * again, rather than made again at once (tree.c). */
	uint64_t park_until;
	int park_sig;		/* the signal it gets when it goes on */
	unsigned park_ms;	/* the wait, doubled at each full queue */
	pid_t vfork_child;	/* it waits in vfork for this child's exec
				   or exit: it cannot stop (freeze.c) */
	/* The seccomp filters the supervisor knows its thread has: syspin's
	 * caller's and ours (a fork inherits them, an exec keeps them).  A
	 * count above it is the tree's own filters: verify.c. */
	long filters_known;
	bool own_filters;	/* it had more once: they stay (exec too) */
	/* The entry filters its process has (entry.c), by key: a fork
	 * inherits them, an exec keeps them. */
	uint64_t (*entry_keys)[4];
	size_t nentry_keys;
};

/* A violation already reported in audit mode, or a refusal explained. */
struct seen {
	char *key;
};

struct sup {
	const struct sp_supervise_opts *o;
	pid_t main;
	bool main_pinned;	/* the first image is pinned */
	bool landlock;		/* the tree is in a Landlock domain */
	struct proc *procs;
	size_t nprocs, cap;
	struct seen *seen;
	size_t nseen, capseen;
	int status;		/* the first process's, when it ended */
	/* The unix listeners of the tree, by socket inode, sorted (made
	 * by a listen() of the tree, or inherited from syspin's caller). */
	uint64_t *listeners;
	size_t nlisteners, caplisteners;
	uint64_t last_ip;	/* audit: the last (pid, nr, ip) reported */
	uint32_t last_nr;
	pid_t last_pid;
	dev_t tty_rdev;		/* the run's terminal (0: none), and */
	unsigned char tty_cc[17]; /* its special characters (tty.c), and */
	pid_t tty_fg0;		/* its foreground as syspin started */
	pid_t pgrp0;		/* syspin's own process group: the job */
	size_t nparked;		/* threads parked (tree.c) */
};

/* The tree's ptrace options: exec, fork, vfork, clone and seccomp
 * events, its processes killed when we end (fail closed), and each
 * thread's death stops before it completes (PTRACE_O_TRACEEXIT): a
 * thread whose stop we handle, killed by another thread's exec, waits
 * there, so the new image cannot take its id while we act on it (blind
 * round 24: a parked connect's retry, and any handling of a stop, could
 * resume the new image from its exec stop, its exec never handled). */
#define SP_SUP_TRACE_OPTS (PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACESECCOMP | \
	PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXIT)

struct proc *sp_sup_proc(struct sup *s, pid_t pid, bool create);
/* tree.c: the reports handled until every traced process is gone (the
 * first process's status, -1 unknown); what s holds, freed. */
int sp_sup_loop(struct sup *s);
void sp_sup_free(struct sup *s);
/* events.c: /proc/PID/exe, "?" when unreadable; NULL out of memory. */
char *sp_sup_exe_of(pid_t pid);
/* What waitpid said of pid: handled and resumed as the loop does (a
 * stop other than the one the caller waited for, met meanwhile). */
void sp_sup_event(struct sup *s, pid_t pid, int st);
void sp_sup_forget(struct sup *s, pid_t pid);
/* pid, in a stop, goes on with sig after a while (its park_ms), not now
 * (a blocking connect to a full listener: connect.c). */
void sp_sup_park(struct sup *s, pid_t pid, int sig);
/* p parked no more: it goes on now, its thread is gone, or its pid is an
 * exec's new image. */
void sp_sup_park_drop(struct sup *s, struct proc *p);
/* Children held for the fork event of a thread of tgid, which exec'd or
 * (gone) ended, killed: the event will never come (tree.c). */
void sp_sup_drop_orphans(struct sup *s, pid_t tgid, bool gone);
/* pid exec'd or ended: a vfork parent waiting for it runs again. */
void sp_sup_vfork_done(struct sup *s, pid_t pid);

/* image.c: sharing images and spaces. */
struct image *sp_image_ref(struct image *img);
void sp_image_drop(struct image *img);
struct space *sp_space_new(size_t nslots);
struct space *sp_space_ref(struct space *sp);
struct space *sp_space_copy(const struct space *sp);
void sp_space_drop(struct space *sp);
struct chain *sp_chain_ref(struct chain *c);
void sp_chain_drop(struct chain *c);
/* c with img on top (takes a reference to img); NULL out of memory. */
struct chain *sp_chain_push(struct chain *c, struct image *img);
/* Copies what a new thread (shares: vm) or process inherits. */
void sp_sup_inherit(struct proc *c, const struct proc *parent, bool vm);
/* Every thread of pid's process now runs img (TSYNC). */
void sp_sup_pinned(struct sup *s, pid_t pid, struct image *img,
    struct space *sp, struct chain *chain, bool stops_all);

/* The thread's command name, "?" when unknown (events.c). */
void sp_sup_comm(pid_t pid, char *buf, size_t size);
bool sp_sup_in_tree(const struct sup *s, pid_t pid);
/* Kills pid after saying why ("cannot pin: why") and recording it for
 * -o (verdict.c: sp_sup_refused_image); returns -1. */
int sp_sup_refuse(struct sup *s, pid_t pid, const char *why);
void sp_sup_refused_image(struct sup *s, pid_t pid, const char *line);

/* events.c: each returns the signal to resume the tracee with, or -1 when
 * the tracee was killed (do not resume it). */
int sp_sup_on_exec(struct sup *s, pid_t pid);
int sp_sup_on_exec_done(struct sup *s, pid_t pid);
int sp_sup_on_trap(struct sup *s, pid_t pid);
int sp_sup_on_seccomp(struct sup *s, pid_t pid);

/* verdict.c: true the first time key is seen (a line said once). */
bool sp_sup_first_time(struct sup *s, const char *key);
/* Fails the stopped call with -e (it does not run). */
int sp_sup_fail_call(pid_t pid, int e);
/* Kills the process at its stop, as SECCOMP_RET_KILL_PROCESS would. */
int sp_sup_doom(struct sup *s, pid_t pid);
/* A call of tid's that cannot be judged must not run: its process is
 * killed, unless tid left our stop for its death (its exit's stop, or a
 * report of it kept for the loop: another thread's exec killed it, and
 * the process is that exec's new image, to be pinned).  1 killed. */
int sp_sup_kill_unjudged(pid_t tid);

/* band.c: the placement of a mapping the filter stopped (data
 * SP_BPF_PLACE_DATA): into its start-up slot or the late-code band. */
int sp_sup_place(struct sup *s, pid_t pid, const struct seccomp_data *d);
uint64_t sp_slot_maplen(uint64_t span, uint64_t align);

/* later.c: 1 when v is a number that an object mapped after the image
 * was pinned passes to the exported function whose site v is at; -1: the
 * thread was killed meanwhile. */
int sp_sup_later_import(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct sp_layout *lo);

/* later.c: the cache key of the file of pid's late mapping m, when its
 * table may be believed (outside --exec=any, a trusted file's only). */
bool sp_sup_late_key(const struct sup *s, pid_t pid, const struct sp_map *m,
    char *key, size_t size);
/* mapped.c: the file of pid's mapping m opened (a regular file whose
 * device and inode are m's), *st its stat; -1 when it cannot be had. */
int sp_sup_open_mapped(pid_t pid, const struct sp_map *m, struct stat *st);
/* reach_late.c: a pruned site that objects dlopen'ed since reach: 1. */
int sp_sup_reach_late(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct sp_layout *lo);
/* freeze.c: the other threads of tid's process stopped (NULL: none, or
 * they could not be), and let run again; the stopped call of tid resumed
 * and waited for until the kernel holds what it names (0; -1 when it
 * could not be resumed), and for an mmap (mapped: the file checked) until
 * it returned, what it mapped looked at (another file: killed); tid's
 * thread group. */
struct sp_frozen;
struct sp_frozen *sp_sup_freeze(struct sup *s, pid_t tid);
/* ... every other thread and process sharing tid's address space (or
 * its descriptor table), or NULL. */
struct sp_frozen *sp_sup_freeze_space(struct sup *s, pid_t tid);
void sp_sup_thaw(struct sup *s, struct sp_frozen *f);
int sp_sup_under_way(struct sup *s, pid_t tid, int nr,
    const struct stat *mapped);
int sp_sup_run_call(struct sup *s, pid_t tid, int nr);
/* tid resumed into its stopped call, and left at the call's end (0);
 * -1: it ended or stopped otherwise (handled), or did not return within
 * 5 s (killed): not for the caller to resume. */
int sp_sup_call_to_exit(struct sup *s, pid_t tid);
/* ... every thread of the process of tid, tid included (a target held
 * still), or NULL. */
struct sp_frozen *sp_sup_freeze_target(struct sup *s, pid_t tid);
/* ... and whether that held it still: tid stopped, no thread of it in an
 * exec (or gone). */
bool sp_sup_frozen_held(struct sup *s, const struct sp_frozen *f,
    pid_t tid);
/* refusal.c: what a refused call asked for (" with PROT_EXEC"), and why
 * the rules (SP_BPF_* flags) refuse it, in words. */
const char *sp_sup_refusal_what(const char *name,
    const struct seccomp_data *d, uint32_t data);
const char *sp_sup_refusal_why(unsigned flags, const char *name,
    const struct seccomp_data *d, uint32_t data);
/* another.c: a core-dumping signal to another process, sent by us */
bool sp_sup_signal_call(long nr);
/* Whether tid is in our namespace of kind ns ("pid", "net"). */
bool sp_sup_same_ns(pid_t tid, const char *ns);
/* Our copy of descriptor fd of thread tid, in its own table (pidfd_getfd
 * of its thread pidfd), or -1 (EBADF: none there). */
int sp_sup_their_fd(pid_t tid, int fd);
/* The process a pidfd of tid's (fd) names now (its fdinfo's Pid), or -1. */
pid_t sp_sup_pidfd_pid(pid_t tid, int fd);
int sp_sup_signal_for(struct sup *s, pid_t tid,
    const struct seccomp_data *d);
/* connect.c: tid from the seccomp stop of its call to its syscall-exit
 * stop, the call skipped, where calls can be injected; *saved the
 * registers to put back (with the result in rax).  0, or -1. */
struct user_regs_struct;
int sp_sup_to_exit_stop(pid_t tid, struct user_regs_struct *saved,
    struct sp_inject *in);
/* connect_out.c: mine (an unconnected unix socket of ours) connected to
 * addr as thread tid would be, and given to it: its descriptor there, or
 * -errno.  at: where in its memory we may write below (its stack). */
long sp_sup_connect_outside(struct sp_inject *in, pid_t tid, int mine,
    const void *addr, size_t len, uint64_t at);
/* handin.c: our descriptor fd given to thread tid, stopped where calls
 * can be injected (in); its memory below `below` (its stack) is ours to
 * write.  The descriptor it got there, in its own table (close on exec),
 * or -errno. */
long sp_sup_hand_in(struct sp_inject *in, pid_t tid, int fd,
    uint64_t below);
bool sp_sup_of_tree(struct sup *s, pid_t tid, const struct seccomp_data *d);
bool sp_sup_same_creds(pid_t pid);
int sp_sup_answer(pid_t pid, long ret);
pid_t sp_sup_tgid(pid_t tid);
/* verdict.c: a call the supervisor refused, said (line, without
 * "syspin: ") and recorded for -o with rule and errnum. */
void sp_sup_refused(struct sup *s, pid_t tid, const struct seccomp_data *d,
    const struct image *img, const char *rule, int errnum, const char *line);
/* connect.c: a connect the filter stopped (SP_BPF_CONNECT); returns the
 * signal to resume with, or -1 (resumed already, or killed). */
int sp_sup_connect(struct sup *s, pid_t tid, const struct seccomp_data *d,
    struct proc *p);
/* entry.c: the filter that ends ld.so's exec sites at the entry point,
 * and its leave to map code into the slots where they are not sealed
 * whole (sealed: they are); empty when neither is needed; its
 * installation in the stopped tracee.  What an image's entry filter is
 * made of: the same key, the same filter. */
void sp_sup_entry_key(const struct sp_pin_result *res, bool sealed,
    uint64_t key[4]);
int sp_sup_entry_filter(const struct sp_pin_result *res, bool sealed,
    struct sp_bpf_prog *out);
int sp_sup_entry_install(pid_t pid, uint64_t trap,
    const struct sp_bpf_prog *prog, bool fds_shared, struct sp_error *err);
/* connect.c: a listen() of the tree (SP_BPF_CONNECT): its socket is the
 * tree's listener; the caller's listeners, at the start. */
int sp_sup_listen(struct sup *s, pid_t tid, const struct seccomp_data *d);
/* tty.c: the run's terminal and syspin's process group, as syspin
 * starts; an ioctl that changes a terminal (SP_BPF_CHECK_DATA), made here
 * or *refused; setpgid into another group, resumed or *refused. */
void sp_sup_tty_start(struct sup *s);
void sp_sup_pgrp_start(struct sup *s);
int sp_sup_tty(struct sup *s, pid_t tid, const struct seccomp_data *d,
    bool *refused);
int sp_sup_setpgid(struct sup *s, pid_t tid, const struct seccomp_data *d,
    bool *refused);
void sp_sup_listeners_inherited(struct sup *s);
/* unixdiag.c: the unix sockets (inodes, sorted) with something in their
 * receive queue, or a listener with connections waiting; at most max,
 * -1 when more or when the diag fails. */
ssize_t sp_unix_queued(uint64_t *inos, size_t max);
/* unixdiag.c: the listener (socket inode) whose accept queue holds the
 * connected unix socket client, 0 when none (then *accepted: the socket
 * that accepted it, when one has); the tree's listeners. */
uint64_t sp_sup_unix_listener(uint64_t client, uint64_t *accepted);
/* listeners.c: a socket's SOL_SOCKET option opt (an int), or -1. */
int sp_sup_sockopt(int fd, int opt);
/* listeners.c: whether a process of the tree holds the socket ino (the
 * server's end of a connection accepted before we looked). */
bool sp_sup_held_by_tree(const struct sup *s, uint64_t ino);
/* unixdiag.c: whether the unix socket sock (a listener, or a connection
 * it accepted) is bound to the file st describes (blind round 25: a
 * listener outside bound as "/run/nscd/socket" in a mount namespace of
 * its own passed for nscd's). */
struct stat;
bool sp_sup_unix_bound_at(uint64_t sock, const struct stat *st);
void sp_sup_listener_add(struct sup *s, uint64_t ino);
bool sp_sup_listener_ours(const struct sup *s, uint64_t ino);
/* hwbreak.c: debug register 0 stops a tracee on this machine. */
bool sp_sup_hw_breaks(void);
/* trust.c: a file the tree may run (SP_EXEC_TRUSTED): owned by root,
 * writable by nobody else, linked, changed before the run started. */
bool sp_sup_trusted_fd(const struct sup *s, int fd, char *why, size_t size);
/* The same against a start of the caller's (syspin run -p, before the
 * supervisor is made). */
bool sp_trusted_fd(const struct timespec *start, int fd, char *why,
    size_t size);
/* attach_kept.c: whether t is one of io_uring's threads (PF_IO_WORKER:
 * iou-sqp, iou-wrk), which make no call of their own nor stop. */
bool sp_io_worker(pid_t t);
/* attach_fds.c: what a descriptor naming link gives a process that
 * neither pins nor a Landlock domain take back, or NULL. */
const char *sp_held_way_out(const char *link);
/* attach_fds.c: whether descriptor fd of the process of pidfd has an
 * owner the kernel signals (F_SETOWN): 1 yes, 0 no (or closed), -1
 * cannot tell; its signal (F_SETSIG, 0 SIGIO), owner or not, in *sig. */
int sp_fd_owner(int pidfd, long fd, int *sig);
/* attach_fds.c: whose file of /proc the descriptor fdpath
 * (/proc/PID/fd/N, naming link) may be: 0 none, -1 unknown, else the
 * pid; proc_mnt is our /proc's mount id. */
pid_t sp_proc_held(const char *fdpath, const char *link, uint64_t proc_mnt);
/* attach_kept.c: what process pid (its threads tids, stopped) made before
 * the attach that its pins would not see: NULL, or why it is refused. */
const char *sp_attach_kept(const struct sp_pin_opts *pin, pid_t pid,
    const pid_t *tids, size_t ntids, char *buf, size_t size);
/* The start --exec=trusted judges an attached tree's files by: when the
 * oldest of pids started (less the margin), 0 when one is unknown. */
void sp_attach_trust_start(const pid_t *pids, size_t n,
    struct timespec *start);
bool sp_sup_exec_untrusted(const struct sup *s, pid_t pid,
    const struct seccomp_data *d, char *why, size_t size);
void sp_sup_exec_path(pid_t pid, const struct seccomp_data *d, char *path,
    size_t size);
/* The start trusted files must be older than, on the filesystems' clock. */
void sp_sup_trust_start(struct timespec *start);

/*
 * fill.c: the analyses of files the tree names, made in one child of ours
 * bounded in memory and time: for each of f[0..n), what sp_cache_fill
 * (SP_FILL_TABLE) and sp_reach_fill (SP_FILL_REACH) make of path, whose
 * table key is key ("[vdso]": our vDSO).  0 when each was made within
 * the limits (one that failed is said with verbose, as sp_cache_fill's
 * callers say it); -1 over a limit, or when no child could be made: err
 * names the file and the limit, and the image must not run.
 */
#define SP_FILL_TABLE 0x1u
#define SP_FILL_REACH 0x2u
struct sp_fill {
	const char *path;
	const char *key;
	unsigned what;
};
int sp_sup_fill(const struct sp_cache *c, const struct sp_fill *f, size_t n,
    bool verbose, struct sp_error *err);
/* So, what lo's objects lack: the tables of missing[0..nmissing) (object
 * indices), with reach the facts of those and of every object whose facts
 * are not cached (none when lo's result is: reach_memo.c), so that
 * sp_layout_reach makes none in our process. */
int sp_sup_fill_image(const struct sp_cache *c, const struct sp_layout *lo,
    const size_t *missing, size_t nmissing, bool reach, bool verbose,
    struct sp_error *err);

#endif
