/* SPDX-License-Identifier: ISC */
/* mkdir(path, 0755) with the `syscall` instruction in the caller's own
 * code (x86-64 number 83): no libc involved. */
#ifndef ESCAPE_RAW_H
#define ESCAPE_RAW_H

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
