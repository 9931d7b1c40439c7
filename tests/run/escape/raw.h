/* SPDX-License-Identifier: ISC */
/* System calls with the `syscall` instruction in the caller's own code:
 * no libc involved (before it is relocated, or without one). */
#ifndef ESCAPE_RAW_H
#define ESCAPE_RAW_H

static inline long
raw3(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b),
	    "d"(c) : "rcx", "r11", "memory");
	return r;
}

/* mkdir(path, 0755) (x86-64 number 83) */
static inline long
raw_mkdir(const char *path)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r)
	    : "a"(83L), "D"(path), "S"(0755L)
	    : "rcx", "r11", "memory");
	return r;
}

#endif
