/* SPDX-License-Identifier: ISC */
/*
 * syspin's own system calls, each from its own instruction with a
 * constant number (lib/util/raw.S): never through libc's syscall().
 * They return the kernel's value, -errno on failure.
 */
#ifndef SYSPIN_UTIL_RAW_H
#define SYSPIN_UTIL_RAW_H

/* mseal(2), Linux 6.10; Debian 12's headers predate it. */
#define SP_NR_MSEAL 462

long sp_raw_mmap(unsigned long addr, unsigned long len, unsigned long prot,
    unsigned long flags, unsigned long fd, unsigned long off);
long sp_raw_capget(void *hdr, void *data);
long sp_raw_seccomp(unsigned long op, unsigned long flags, void *args);
long sp_raw_mseal(unsigned long addr, unsigned long len,
    unsigned long flags);

#endif
