/* SPDX-License-Identifier: ISC */
/*
 * pinsyscalls(2) for Linux: OpenBSD's system call (sys/uvm/uvm_mmap.c),
 * enforced in the calling process with a seccomp filter.
 *
 *	int pinsyscalls(void *start, size_t len, u_int *pintable, int npins);
 *
 * pintable[nr] is the offset from START of the trap instruction that may
 * issue nr (0 = nr may not be issued from the region, 0xffffffff = from
 * anywhere in it).  Checks, in OpenBSD's order:
 *	more than one thread		EPERM (the call is not used up)
 *	already called			EPERM (from here on, every failure
 *					also uses up the single call)
 *	START+LEN wraps or leaves the
 *	user address space		EINVAL
 *	npins < 1 or > SYS_MAXSYSCALL	E2BIG
 *	pintable unreadable		EFAULT
 *	an entry other than 0 and -1
 *	greater than LEN		ERANGE
 * then the executable mappings in the region are sealed with mseal(2)
 * where the kernel has it (Linux 6.10+), as OpenBSD's pinned text is
 * immutable: munmap, mprotect, mremap and MAP_FIXED over them fail with
 * EPERM from then on (best effort: without mseal they stay unsealed).
 * Then the filter goes in: a syscall issued from [START, START+LEN) runs
 * only if its number is pinned at that very instruction (or is -1);
 * anything else from the region kills the process (SIGSYS, core).  Numbers
 * at or above SYS_MAXSYSCALL get ENOSYS, as on OpenBSD.  Syscalls issued
 * from outside the region are not looked at: the filter outlives execve on
 * Linux, and the next image must be able to run (see
 * docs/openbsd-conformance.md for this and the other differences).
 *
 * Everything here is freestanding: sp_pinsyscalls_raw() needs no libc (its
 * own syscalls go through <syspin/pinsyscall.h>, so they carry pin
 * entries), which lets a -nostdlib static program pin itself.  It issues
 * no syscall after the filter is installed.  pinsyscalls() is the libc
 * flavour, which sets errno.
 */
#ifndef SYSPIN_PINSYSCALLS_H
#define SYSPIN_PINSYSCALLS_H

#include <stddef.h>
#include <stdint.h>

#include <linux/filter.h>

/* Same bound as SP_SYS_MAXSYSCALL (<syspin/openbsd.h>). */
#define SP_PINSYSCALLS_MAX 512

/* Instructions the filter can need: header, 7 per number, final kill. */
#define SP_PINSYSCALLS_MAXINSNS (24 + 7 * SP_PINSYSCALLS_MAX)

/* 0 or -1 with errno set. */
int pinsyscalls(void *start, size_t len, unsigned int *pintable, int npins);

/* 0 or -errno; errno is not touched.  Shares the once-flag. */
long sp_pinsyscalls_raw(void *start, size_t len, unsigned int *pintable,
    int npins);

/*
 * The filter for a checked table: writes at most SP_PINSYSCALLS_MAXINSNS
 * instructions to OUT and returns how many.  Pure (no syscalls), so it can
 * be tested on its own.
 */
size_t sp_pinsyscalls_filter(uint64_t start, uint64_t len,
    const unsigned int *pins, unsigned int npins, struct sock_filter *out);

#endif
