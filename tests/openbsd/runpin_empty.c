/* SPDX-License-Identifier: ISC */
/*
 * Case 10 under `syspin run`: a dynamically linked program whose
 * .openbsd.syscalls is present, valid and empty (keep_empty.ld keeps the
 * empty section).  Its table is authoritative, so none of its own traps
 * may issue anything, while libc (pinned by analysis) keeps working.
 *
 *	libc	getpid and write through libc: exit 0
 *	own	getpid from its own trap, a constant number: exit 0 if it ran
 */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__asm__(".pushsection .openbsd.syscalls,\"\",@progbits\n\t"
    ".p2align 2\n\t"
    ".popsection");

int
main(int argc, char **argv)
{
	long r;

	if (argc == 2 && strcmp(argv[1], "libc") == 0)
		return getpid() > 0 && write(1, "", 0) == 0 ? 0 : 1;
	if (argc == 2 && strcmp(argv[1], "own") == 0) {
		__asm__ volatile ("syscall" : "=a" (r)
		    : "0" ((long)SYS_getpid) : "rcx", "r11", "memory");
		return r == getpid() ? 0 : 1;
	}
	return 2;
}
