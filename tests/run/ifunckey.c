/* SPDX-License-Identifier: ISC */
/*
 * Blind round 19: under the runtime alone (SYSPIN_SUPERVISE=0) an IFUNC
 * resolver runs before the runtime's constructor, unpinned (documented);
 * it must still not reach the cache's key: KEYCTL_GET_PERSISTENT, which
 * links the user's persistent keyring (where the key that signs the
 * tables is) into a session keyring of the process's own.  Only the
 * call's success is looked at; no key is read.
 *
 * usage: ifunckey     exit 0 when it was refused before the runtime, 1
 * when it worked.
 */
#include <stdio.h>

#define SYS_KEYCTL 250
#define JOIN_SESSION 1		/* KEYCTL_JOIN_SESSION_KEYRING */
#define GET_PERSISTENT 22	/* KEYCTL_GET_PERSISTENT */
#define SESSION (-3)		/* KEY_SPEC_SESSION_KEYRING */

/* libc is not relocated yet when the resolver runs: raw calls */
#include "escape/raw.h"

static long early = -999;

static int
impl(void)
{
	return 42;
}

static int (*resolver(void))(void)
{
	(void)raw3(SYS_KEYCTL, JOIN_SESSION, 0, 0);	/* ours alone */
	early = raw3(SYS_KEYCTL, GET_PERSISTENT, -1, SESSION);
	return impl;
}

int f(void) __attribute__((ifunc("resolver")));

int
main(void)
{
	printf("%s: KEYCTL_GET_PERSISTENT before the runtime: %ld (f() %d)\n",
	    early > 0 ? "FAIL" : "ok  ", early, f());
	return early > 0 ? 1 : 0;
}
