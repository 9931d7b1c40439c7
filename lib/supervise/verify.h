/* SPDX-License-Identifier: ISC */
/*
 * verify.c: what the supervisor made a tracee do, checked in the kernel's
 * account of the process, not by the injected call's return value.
 */
#ifndef SYSPIN_SUPERVISE_VERIFY_H
#define SYSPIN_SUPERVISE_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

/* Ranges sealed by injected mseal(2) calls, to be checked. */
struct sp_seals {
	uint64_t (*r)[2];	/* [start, end) */
	size_t n, cap;
};

int sp_seals_add(struct sp_seals *s, uint64_t start, uint64_t len);
void sp_seals_free(struct sp_seals *s);

/* 0 when the process has exactly want filters (counted before the
 * installs, plus one per program the kernel accepted) and, with nnp,
 * no_new_privs set; else -1 with err: a filter of the process answered
 * our seccomp(2) or prctl(2) without running it. */
int sp_verify_installed(pid_t pid, long want, bool nnp, struct sp_error *err);

/* 0 when every page of every range in s lies in a sealed mapping
 * (/proc/PID/smaps VmFlags "sl"), else -1 with err. */
int sp_verify_sealed(pid_t pid, const struct sp_seals *s, struct sp_error *err);

#endif
