/* SPDX-License-Identifier: ISC */
/*
 * `syspin trace`: shared between the ptrace loop (trace_loop.c), the
 * coverage check (trace_check.c) and the printers (trace_report.c).
 *
 * Every system call the traced tree issues is attributed to an object and
 * the link-time address of its trap, and checked against that object's
 * scanned sites with the rules `syspin run` places pins by (lib/pins,
 * lib/layout): a call the check does not cover is one pinning would kill.
 */
#ifndef SYSPIN_CLI_TRACE_H
#define SYSPIN_CLI_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <syspin/elf.h>
#include <syspin/error.h>
#include <syspin/layout.h>
#include <syspin/scan.h>

/* One object, analysed once (keyed by device and inode; the vDSO by name). */
struct trace_obj {
	char *name;		/* path in maps, or "[vdso]" */
	uint64_t dev, ino;
	bool ok;		/* elf and scan are valid */
	char error[SP_ERROR_MAX];
	struct sp_elf elf;
	struct sp_scan scan;
	uint64_t calls, covered;
};

/* A distinct uncovered call: where, which number, why, how often. */
struct trace_miss {
	long obj;		/* index into objs, -1: no object */
	char *mapping;		/* obj == -1: the mapping's name, or "" */
	uint64_t addr;		/* obj: link-time trap address; else ip - 2 */
	uint32_t nr;
	bool i386;		/* entered through the i386 ABI */
	const char *why;	/* static text */
	uint64_t count;
};

/* A traced thread: the number it entered with, its view of memory. */
struct trace_task {
	pid_t tid;
	bool started;		/* the program is running (after its exec) */
	long entry_nr;		/* at a syscall-exit stop: its number; else -1 */
	struct sp_map *maps;
	size_t nmaps;
	uint64_t maps_gen;	/* trace.gen when maps were read */
};

struct trace {
	struct trace_obj *objs;
	size_t nobjs;
	struct trace_miss *misses;
	size_t nmisses;
	struct trace_task *tasks;
	size_t ntasks;
	uint64_t gen;		/* bumped when any address space may change */
	uint64_t calls, covered, anon_calls;
	uint64_t processes, threads;
	pid_t child;
	int status;		/* the program's wait status */
	bool have_status;
};

/* trace_loop.c: runs path (found as `syspin run` finds a program, see
 * run.h) with argv under ptrace; 0, or -1 after a message. */
int trace_run(struct trace *t, const char *path, char **argv);

/* trace_check.c */
struct trace_task *trace_task_get(struct trace *t, pid_t tid, bool add);
void trace_task_drop(struct trace *t, pid_t tid);
/* A system-call entry: nr through the i386 ABI or not, ip after the trap. */
void trace_check_call(struct trace *t, struct trace_task *task, uint32_t nr,
    bool i386, uint64_t ip);
void trace_free(struct trace *t);

/* trace_report.c */
void trace_print_text(FILE *f, const struct trace *t, char **argv);
int trace_print_json(FILE *f, const struct trace *t, char **argv);

#endif
