/* SPDX-License-Identifier: ISC */
/* lib/supervise internals: the supervisor's state and its event handlers. */
#ifndef SYSPIN_SUPERVISE_INT_H
#define SYSPIN_SUPERVISE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <syspin/diag.h>
#include <syspin/supervise.h>

/* What we know about one traced thread or process. */
/*
 * The whole program of an image whose kernel filter is a smaller one (see
 * sp_pin_result): shared by the threads and forks that run that image.
 */
struct checked {
	unsigned refs;
	struct sp_bpf_prog *progs;
	size_t nprogs;
	long data;		/* the smaller filter's TRACE data, or -1 */
};

struct proc {
	pid_t pid;
	uint64_t bp;		/* entry breakpoint, 0 when none */
	uint8_t bp_byte;	/* the byte the breakpoint replaced */
	long filters0;		/* Seccomp_filters when the image was exec'd */
	bool doomed;		/* killed at a violation: any stop kills it */
	bool held;		/* new child stopped before its parent's
				   fork event told us what it inherits */
	bool inherited;		/* the parent's fork event was seen */
	bool kpinned;		/* the image has its own filter in the kernel */
	long trace_all;		/* data of the all-TRACE filter, -1: none */
	struct checked *chk;	/* the image's whole program, when its filter
				   is a smaller one or the all-TRACE one;
				   NULL: none */
};

/* A violation already reported in audit mode. */
struct seen {
	char *key;		/* "EXE nr SITE" */
};

struct sup {
	const struct sp_supervise_opts *o;
	pid_t main;
	struct proc *procs;
	size_t nprocs, cap;
	struct seen *seen;
	size_t nseen, capseen;
	uint64_t last_ip;	/* audit: the last (pid, nr, ip) reported */
	uint32_t last_nr;
	pid_t last_pid;
};

struct proc *sup_proc(struct sup *s, pid_t pid, bool create);
void sup_forget(struct sup *s, pid_t pid);
/* Copies what a new thread or process inherits from its parent. */
void sup_inherit(struct proc *c, const struct proc *parent);
/* Marks every thread of pid's process as running a pinned image; res:
 * how the supervisor pinned it (NULL: the runtime did). */
void sup_pinned(struct sup *s, pid_t pid, struct sp_pin_result *res);
/* An exec: the image's own filter is now an earlier image's. */
void sup_unpinned(struct proc *p);
void sup_checked_drop(struct checked *c);

/* The thread's command name, "?" when unknown (events.c). */
void sup_comm(pid_t pid, char *buf, size_t size);

/* events.c: each returns the signal to resume the tracee with, or -1 when
 * the tracee was killed (do not resume it). */
int sup_on_exec(struct sup *s, pid_t pid);
int sup_on_trap(struct sup *s, pid_t pid);
int sup_on_violation(struct sup *s, pid_t pid);

/* later.c: 1 when v is a number that an object mapped after the image
 * was pinned passes to the exported function whose site v is at; -1: the
 * thread was killed meanwhile. */
int sup_later_import(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct sp_layout *lo);

/* report.c: the diagnostic line of a violation stop. */
void sup_report(struct sup *s, pid_t pid);

#endif
