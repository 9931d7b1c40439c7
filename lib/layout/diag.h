/* SPDX-License-Identifier: ISC */
/*
 * Explaining a pin violation: the kernel's seccomp audit record (number,
 * address) against the layout and pins the runtime reported.  Part of
 * lib/layout; used by `syspin run` after its child died of SIGSYS.
 */
#ifndef SYSPIN_LAYOUT_DIAG_H
#define SYSPIN_LAYOUT_DIAG_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"
#include "layout/layout.h"
#include "layout/placement.h"

#define SP_AUDIT_ARCH_X86_64 0xc000003eu
#define SP_AUDIT_ARCH_I386 0x40000003u

struct sp_violation {
	bool have;
	uint32_t arch;		/* AUDIT_ARCH_* */
	uint32_t nr;
	uint64_t ip;		/* after the trap instruction */
	long pid;
	char comm[64];		/* the kernel's comm, "" when absent */
};

/*
 * Finds the last seccomp audit record (type=1326) of pid in /dev/kmsg,
 * waiting up to wait_ms for kauditd to print it.  Needs root (or
 * dmesg_restrict=0); printk rate limits and a running auditd can hide it.
 */
int sp_kmsg_find(int fd, long pid, int wait_ms, struct sp_violation *v,
    struct sp_error *err);

/*
 * For the descendants of a run: /dev/kmsg opened at its end (-1 when it
 * cannot be read), then the seccomp records that came since, one per call
 * (1; 0 when there are no more for now).
 */
int sp_kmsg_open_end(void);
int sp_kmsg_next(int fd, struct sp_violation *v);

/*
 * One line, without "syspin: " and newline.  lo/pl may be NULL when the
 * runtime left no report; name is the syscall's name ("execve"); func
 * the function the trap is in ("syscall"), or NULL when not known.
 */
void sp_diag_format(char *buf, size_t size, const char *comm, long pid,
    const struct sp_violation *v, const struct sp_layout *lo,
    const struct sp_placement *pl, const char *name, const char *func);

/* "libc.so.6+0x1234" for addr in lo, or "outside the pinned image". */
void sp_diag_where(char *buf, size_t size, const struct sp_layout *lo,
    uint64_t addr);

#endif
