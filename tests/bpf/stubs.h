/* SPDX-License-Identifier: ISC */
/* The labelled system call stubs of stubs.S. */
#ifndef SYSPIN_TESTS_STUBS_H
#define SYSPIN_TESTS_STUBS_H

typedef long stub_fn(long, long, long, long, long, long, long);

stub_fn sp_stub_a, sp_stub_b, sp_stub_c, sp_stub_any, sp_stub_exit;
long sp_stub_i386(long nr, long a1, long a2, long a3);

extern char sp_stubs_start[], sp_stubs_end[];
extern char sp_stub_a_site[], sp_stub_b_site[], sp_stub_c_site[];
extern char sp_stub_any_site[], sp_stub_exit_site[], sp_stub_i386_site[];

/* Both trap instructions (0f 05, cd 80) are 2 bytes: seccomp reports the
 * address after them. */
#define SITE_IP(s) ((uint64_t)(uintptr_t)(s) + 2)

#endif
