/* SPDX-License-Identifier: ISC */
/*
 * Narrowing (syspin run --deny / --allow): system-call names and
 * systemd's group names (@system-service, @privileged, ...) to the
 * x86-64 numbers lib/bpf denies in the same filter as the pins
 * (lib/bpf/bpf.h, 2a.).  Names are libseccomp's, completed with
 * the numbers newer than its table.  Not in the runtime.
 */
#ifndef SYSPIN_SUPERVISE_NARROW_H
#define SYSPIN_SUPERVISE_NARROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/bpf.h"
#include "util/error.h"

struct sp_narrow {
	uint32_t *nrs;		/* sorted, unique */
	size_t n, cap;
	bool allow;		/* --allow: nrs are the numbers left */
	bool given;		/* a list was given */
	int errnum;		/* the denied call's errno (default EPERM) */
	bool kill;		/* --deny-action=kill */
};

/*
 * Adds LIST, names and @groups separated by commas or spaces, as a
 * --deny (allow false) or --allow list.  -1 with err: an unknown name or
 * group, a name x86-64 does not have, a name --deny can never deny
 * (exit, exit_group, rt_sigreturn, mseal), or --deny after --allow.
 */
int sp_narrow_add(struct sp_narrow *n, const char *list, bool allow,
    struct sp_error *err);

/* --deny-action=errno[:NAME|:NUMBER]|kill.  -1 with err. */
int sp_narrow_action(struct sp_narrow *n, const char *spec,
    struct sp_error *err);

/* What lib/bpf takes (pointing into n). */
struct sp_bpf_narrow sp_narrow_bpf(const struct sp_narrow *n);

/* The members of group name ("@mount"), space-separated; NULL: none. */
const char *sp_narrow_group(const char *name);
/* The i-th group's name and description, NULL past the last. */
const char *sp_narrow_group_at(size_t i, const char **help);

/* An x86-64 number by name (libseccomp's, or a newer one); -1: none. */
long sp_syscall_number(const char *name);
/* The name of an x86-64 number newer than libseccomp's table, or NULL. */
const char *sp_syscall_newer(uint32_t nr);

/*
 * SYSPIN_NARROW, for the runtime: "dE:N,N,..." (deny, errno E), "ak:..."
 * (allow, kill).  Empty when nothing is narrowed.
 */
int sp_narrow_env(const struct sp_narrow *n, char *buf, size_t size);

void sp_narrow_free(struct sp_narrow *n);

#endif
