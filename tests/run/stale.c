/* SPDX-License-Identifier: ISC */
/*
 * One raw system call, number NR, from the program's own code: built
 * twice (getpid, getuid) into two programs of the same shape, which
 * stale.sh swaps in place under one file identity but for its ctime.
 */
int
main(void)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"((long)NR)
	    : "rcx", "r11", "memory");
	return r < 0;
}
