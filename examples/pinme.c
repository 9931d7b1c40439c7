/* SPDX-License-Identifier: ISC */
/*
 * The bundled example for `make demo`: a small program whose syscalls come
 * from libc's stubs, from libc's syscall(2) (the number is an argument,
 * resolved at this call site) and from a raw `syscall` instruction of its
 * own.  `syspin scan` shows where each one comes from.
 */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A raw site in the program itself: the number is a constant here. */
static long
raw_getppid(void)
{
	long ret;

	__asm__ volatile ("syscall" : "=a"(ret) : "0"((long)SYS_getppid)
	    : "rcx", "r11", "memory");
	return ret;
}

int
main(void)
{
	long tid = syscall(SYS_gettid);

	printf("pid %d tid %ld ppid %ld\n", (int)getpid(), tid, raw_getppid());
	return 0;
}
