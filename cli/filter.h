/* SPDX-License-Identifier: ISC */
/* syspin filter: options (filter.c) and output (filter_print.c). */
#ifndef SYSPIN_CLI_FILTER_H
#define SYSPIN_CLI_FILTER_H

#include <stdbool.h>
#include <sys/types.h>

#include "supervise/narrow.h"
#include "supervise/supervise.h"

struct filter_args {
	pid_t pid;		/* -p, or the process PROG was */
	bool json, groups, verbose, no_reach;
	const char *export;	/* --export FILE */
	unsigned flags;		/* SP_BPF_STRICT, SP_BPF_ALLOW_JIT */
	enum sp_exec_policy exec;
	char *dlopen[16];
	size_t ndlopen;
	const char *cache_dir;
	struct sp_narrow narrow;
	char **argv;		/* PROG ARG..., or groups */
	int argc;
};

/* Prints (and exports) what res holds; the exit status. */
int filter_print(const struct filter_args *a,
    const struct sp_pin_result *res);

#endif
