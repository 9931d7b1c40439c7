/* SPDX-License-Identifier: ISC */
/*
 * A shared object runpin.c loads with dlopen after start-up (case 36):
 * one raw syscall of its own (no pin table: an ordinary library) and one
 * call through libc.
 */
#include <sys/syscall.h>
#include <unistd.h>

long dlraw_getpid(void);
long dlraw_libc_getpid(void);

long
dlraw_getpid(void)
{
	long r;

	__asm__ volatile ("syscall" : "=a" (r) : "0" ((long)SYS_getpid)
	    : "rcx", "r11", "memory");
	return r;
}

long
dlraw_libc_getpid(void)
{
	return getpid();
}
