/* SPDX-License-Identifier: ISC */
/*
 * A dynamic loader the tree wrote (escape_interp): run as a program's
 * interpreter, it makes MARK with mkdirat(argv[1], argv[2]) and exits 0.
 * No libc: static, its own system calls.
 */
#include "raw.h"

__attribute__((used)) static void
start(long *sp)
{
	char **argv = (char **)(sp + 1);
	long fd = 0;

	if (sp[0] >= 3) {
		for (const char *p = argv[1]; *p >= '0' && *p <= '9'; p++)
			fd = fd * 10 + (*p - '0');
		raw3(258, fd, (long)argv[2], 0700);	/* mkdirat */
	}
	raw3(231, 0, 0, 0);				/* exit_group */
}

__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n"
    "\tcall start\n\thlt\n");
