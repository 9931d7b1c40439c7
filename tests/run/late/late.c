/* SPDX-License-Identifier: ISC */
/*
 * dlopen'ed after the filter: passes getpriority (140) to syscall().  Not
 * as a tail call: the supervisor knows the caller by the return address
 * syscall() was called with (lib/supervise/later.c).
 */
#include <sys/syscall.h>
#include <unistd.h>

long
late_call(void)
{
	volatile long r = syscall(SYS_getpriority, 0, 0);

	return r;
}
