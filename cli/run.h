/* SPDX-License-Identifier: ISC */
/* syspin run: finding the program, its objects and the runtime. */
#ifndef SYSPIN_CLI_RUN_H
#define SYSPIN_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* PROG as execvp would find it, into path.  -1 after printing why. */
int run_find_prog(const char *prog, char *path, size_t size);

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
void run_remember(const struct sp_cache *c, const char *elf, const char *rt,
    char **objs, size_t n);

/* Removes the report directory and the files in it. */
void run_remove_dir(const char *dir);

/* ---- run_supervise.c: syspin run as the supervisor of the tree ---- */

/* PT_INTERP-less ELF: no LD_PRELOAD, pinned from outside. */
bool run_is_static(const char *path);

/* Analyses a static program and the vDSO into the cache. */
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
};

/*
 * Runs PROG supervised (lib/supervise) and returns its status.  *fallback:
 * ptrace is not permitted here and PROG has not run; the caller may run it
 * with the runtime alone.
 */
int run_supervised(const struct run_sup *r, bool *fallback);

#endif
