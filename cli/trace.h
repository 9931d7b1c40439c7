/* SPDX-License-Identifier: ISC */
/*
 * `syspin trace`: the supervisor of `syspin run` in its observe mode
 * (lib/supervise, sp_supervise_opts.observe) pins every image as run
 * does, stops every call and judges it with the image's own program;
 * trace_observe.c tallies the verdicts per object, trace_report.c prints
 * them.  What trace calls a miss is what run would kill or refuse, by
 * construction: the same programs, the same evaluator.
 */
#ifndef SYSPIN_CLI_TRACE_H
#define SYSPIN_CLI_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "supervise/supervise.h"

/* An object calls came from (by path, "[vdso]", "[vsyscall]"). */
struct trace_obj {
	char *name;
	uint64_t calls, covered;
};

/* A distinct call run would not let through: where, which, why, how
 * often. */
struct trace_miss {
	long obj;		/* index into objs, -1: no object */
	char *mapping;		/* obj == -1: the mapping's name, or "" */
	uint64_t addr;		/* obj: the trap's offset from the load base
				   (the scan's address); else ip - 2 */
	uint32_t nr;
	bool i386;		/* entered through the i386 ABI */
	enum sp_observed_kind kind;	/* VIOLATION, REFUSED, DENIED */
	char *why;		/* the line run prints */
	uint64_t count;
};

struct trace {
	struct trace_obj *objs;
	size_t nobjs;
	struct trace_miss *misses;
	size_t nmisses;
	uint64_t calls, covered, anon_calls;
	uint64_t killed, refused, denied;	/* calls, by kind of miss */
	uint64_t *pairs;	/* distinct covered (object, site, number) + 1,
				   open addressing; npairs of cappairs */
	size_t npairs, cappairs;
	uint64_t processes, threads;
	uint64_t nrs[8];	/* x86-64 numbers seen, a bit each */
	int status;		/* the program's wait status */
	bool have_status;
	bool oom;		/* a record could not be kept */
};

/* trace_observe.c: the observer (sp_observe_fn) for a struct trace. */
void trace_observe(void *ctx, const struct sp_observed *c);
void trace_free(struct trace *t);

/* trace_report.c */
void trace_print_text(FILE *f, const struct trace *t, char **argv);
int trace_print_json(FILE *f, const struct trace *t, char **argv);
/* The numbers seen, by name: a `syspin run --allow` list (commas), or
 * systemd's SystemCallFilter= line (spaces); one line. */
void trace_print_allow(FILE *f, const struct trace *t, bool systemd);

#endif
