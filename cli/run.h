/* SPDX-License-Identifier: ISC */
/* syspin run: finding the program, its objects and the runtime. */
#ifndef SYSPIN_CLI_RUN_H
#define SYSPIN_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* PROG as execvp would find it, into path: 0, or after printing why
 * RUN_NOT_FOUND (no such file anywhere) or RUN_CANNOT_RUN (there, but not
 * a file we may execute): env's, nice's and timeout's 127 and 126. */
#define RUN_NOT_FOUND	(-127)
#define RUN_CANNOT_RUN	(-126)
int run_find_prog(const char *prog, char *path, size_t size);

/* 1: prog is neither ELF nor "#!", run by /bin/sh as execvp(3) does; 0:
 * the kernel runs it; -1 after saying why it cannot be read. */
int run_shell_script(const char *prog);

/* libsyspin-rt.so: $SYSPIN_RT, next to a build tree's syspin, installed. */
int run_find_runtime(char *path, size_t size);

/* The ELF that runs for prog: prog, or its #! interpreter(s); -1 after
 * saying why when that is not an x86-64 program (run and trace alike). */
int run_elf(const char *prog, char *path, size_t size);

/*
 * Every object the dynamic program at path will map at start-up: itself,
 * its interpreter, the DT_NEEDED closure (asking the interpreter, which
 * does not run the program), the runtime rt and "[vdso]".  -1 for a static
 * program, which run cannot pin.
 */
int run_objects(const char *path, const char *rt, char ***objs, size_t *n);
/* -1, said, when ld.so would run an auditor for PROG (path). */
int run_audited(const char *path);
void run_free_objects(char **objs, size_t n);

/*
 * The warm path.  run_warm: the cache holds a trusted table for every
 * object recorded for this program, runtime and environment (a few stats,
 * no analysis, no `ld.so --list`).  run_remember records objs after a
 * fill.  The record is only a hint: the runtime checks every table it
 * loads and fills what is missing itself.
 */
struct sp_cache;
bool run_warm(const struct sp_cache *c, const char *elf, const char *rt);
/*
 * The runtime alone: the tables of the objects recorded for the program,
 * read and believed by their MAC now, in a sealed memfd the first image's
 * runtime takes them from (runtime/rt.c: SYSPIN_TABLES_FD), not from the
 * directory, which another process of the user's may change meanwhile
 * (blind round 18).  Its descriptor (inherited), or -1 (the runtime then
 * reads the directory), or -2 when a table is there that was not made by
 * our key (forged[SP_ERROR_MAX] says which): another process writes the
 * cache, and the program does not run.
 */
int run_hand_tables(const struct sp_cache *c, const char *elf,
    const char *rt, char *forged);
void run_remember(const struct sp_cache *c, const char *elf, const char *rt,
    char **objs, size_t n);

/* Removes the report directory and the files in it. */
void run_remove_dir(const char *dir);

/* ---- run_extra.c: -o / --log-fd, --deny / --allow ---- */

#include "supervise/narrow.h"
#include "layout/placement.h"

struct run_extra {
	struct sp_narrow narrow;	/* --deny, --allow, --deny-action */
	const char *log_file;		/* -o FILE */
	int log_fd;			/* --log-fd N, or -o's; -1 none */
	bool unsafe_install;		/* --unsafe-install */
	bool require_supervisor;	/* --require-supervisor */
	bool action_given;		/* --deny-action */
	char **allow_sockets;		/* --allow-socket NAME... */
	size_t nallow_sockets;
};

/* The long options run_extra_opt takes (getopt_long codes 1000+). */
#define RUN_EXTRA_OPTIONS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "log-fd", required_argument, NULL, 1000 }, \
	{ "deny", required_argument, NULL, 1001 }, \
	{ "allow", required_argument, NULL, 1002 }, \
	{ "deny-action", required_argument, NULL, 1003 }, \
	{ "unsafe-install", no_argument, NULL, 1004 }, \
	{ "allow-socket", required_argument, NULL, 1005 }, \
	{ "require-supervisor", no_argument, NULL, 1006 }

/* run_install.c: 0 when syspin's binary, the libraries it maps and the
 * runtime rt (NULL: none), and every directory above them, are root's
 * and writable by nobody else; else -1 after saying which is not. */
int run_check_install(const char *rt);

/* --exec=POLICY (enum sp_exec_policy), --scope=WHAT (SP_SCOPE_*): 0, or
 * -1 after printing why. */
int run_parse_exec(const char *v, int *exec);
int run_parse_scope(const char *v, unsigned *scope);
/* -p's PID[,PID...] added to pids (max of them): 0, or -1 said. */
int run_parse_pids(const char *v, pid_t *pids, size_t *n, size_t max);

void run_extra_init(struct run_extra *x);
/* One of RUN_EXTRA_OPTIONS: 0, or -1 after printing why. */
int run_extra_opt(struct run_extra *x, int c, const char *arg);
/* Opens -o's file; the log is never inherited by the program. */
int run_extra_open(struct run_extra *x);
/* SYSPIN_NARROW for the runtime alone. */
int run_extra_env(const struct run_extra *x);
/* The runtime alone: the record of a process the kernel killed. */
struct sp_violation;
struct sp_layout;
struct sp_placement;
void run_extra_killed(const struct run_extra *x, const char *comm,
    long pid, const struct sp_violation *v, const struct sp_layout *lo,
    const struct sp_placement *pl, const char *line);
/* v's number is one --deny-action=kill killed (the runtime alone). */
bool run_extra_denied(const struct run_extra *x,
    const struct sp_violation *v);
void run_extra_free(struct run_extra *x);

/* ---- run_supervise.c: syspin run as the supervisor of the tree ---- */

/* PT_INTERP-less ELF: no LD_PRELOAD, pinned from outside. */
bool run_is_static(const char *path);

/* Analyses files into the cache, bounded (run.c), with their facts for
 * reach pruning if reach; a static program and the vDSO. */
int run_fill_bounded(const struct sp_cache *c, char **files, size_t n,
    bool reach, bool verbose);
int run_fill_static(const struct sp_cache *c, const char *elf, bool verbose);

/* Supervision is on unless SYSPIN_SUPERVISE=0. */
bool run_want_supervise(void);

struct run_sup {
	char **argv;		/* PROG ARG... */
	const char *path;	/* PROG as found */
	const char *cache_dir;
	const char *reportdir;
	unsigned bpf_flags;	/* SP_BPF_STRICT, SP_BPF_ALLOW_JIT */
	int exec;		/* enum sp_exec_policy */
	unsigned scope;		/* SP_SCOPE_* */
	bool audit, verbose;
	char *const *dlopen;	/* --dlopen FILE... */
	size_t ndlopen;
	const struct run_extra *x;	/* -o, --deny, ... */
	bool reach;		/* reachable-only pins (not --no-reach) */
};

/*
 * Runs PROG supervised (lib/supervise) and returns its status.  *fallback:
 * ptrace is not permitted here and PROG has not run; the caller may run it
 * with the runtime alone.
 */
int run_supervised(const struct run_sup *r, bool *fallback);

/* -p PID: that running process pinned and supervised as PROG would be
 * (lib/supervise/attach.c); its status, or 2 when it cannot be. */
int run_attach(const struct run_sup *r, const pid_t *pids, size_t n);

/* ---- run_term.c: the run's terminal and descriptors given back ---- */

#include <fcntl.h>
#include <termios.h>

/* A descriptor the tree inherits (a terminal, a pipe, a socket): its
 * open file description is the shell's too.  O_NONBLOCK left set, the
 * shell's next read fails; O_ASYNC with an owner (blind round 18: on fd
 * 3, `3<>/dev/tty`, or a socket as stdin), every line the user types
 * after the run signals the process the tree chose. */
struct term_fd {
	int fd, fl, sig;
	struct f_owner_ex own;
};

/* A terminal the tree may change: its settings, line discipline and
 * foreground as found. */
struct term_tty {
	int fd;
	bool opened;		/* ours (/dev/tty): closed after */
	struct termios t;
	int ldisc;
	pid_t fg;		/* its foreground process group, or -1 */
};

struct term_state {
	/* the standard streams' terminal, and the controlling one where
	 * it is another or they have none (blind round 25: `</dev/null
	 * >log 2>&1`, and the tree changed /dev/tty for good) */
	struct term_tty ttys[2];
	size_t nttys;
	struct term_fd *fds;	/* every one open (blind round 25: the
				   first 64 only, and fd 70 signalled out) */
	size_t nfds;
};

void run_term_save(struct term_state *q);
/* Puts back, and frees what run_term_save kept. */
void run_term_restore(struct term_state *q);
/* For the run: inherited descriptors signal no core, nor, with
 * scope_signals, an owner outside. */
void run_term_quiet(const struct term_state *q, bool scope_signals);

/* ---- run_alone.c: the runtime alone (SYSPIN_SUPERVISE=0) ---- */

struct run_alone {
	char **argv;		/* PROG ARG... */
	const char *path;	/* PROG as found */
	const char *cache_dir;
	const char *rt;		/* libsyspin-rt.so */
	const char *reportdir;
	bool strict, allow_jit, audit, verbose;
	bool exec_none;		/* the tree execs nothing */
	char *const *dlopen;	/* --dlopen FILE... */
	size_t ndlopen;
	const struct run_extra *x;	/* -o, --deny, ... */
};

/* Runs PROG with the runtime preloaded and returns its status. */
int run_alone(const struct run_alone *r);

#endif
