/* SPDX-License-Identifier: ISC */
/*
 * A program built against an installed libsyspin (tests/install), as a
 * user would: cc pinned.c $(pkg-config --cflags --libs syspin).
 *
 * It pins its own little region with pinsyscalls(): getpid (39) only at
 * site_getpid.  The pinned site works, a second pinsyscalls() is refused
 * (EPERM, once per address space), libc's calls (outside the region) run
 * on; with an argument, getpid from site_any, where it is not pinned,
 * must kill it (SIGSYS) before "survived" is printed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <syspin/pinsyscall.h>
#include <syspin/pinsyscalls.h>

extern char region_start[], region_end[], site_getpid[];
long stub_getpid(void);
long stub_raw(long nr);

__asm__(
	".text\n"
	".p2align 4\n"
	"region_start:\n"
	".type stub_getpid, @function\n"
	"stub_getpid:\n"
	"	movl	$39, %eax\n"
	"site_getpid:\n"
	"	syscall\n"
	"	ret\n"
	".type stub_raw, @function\n"
	"stub_raw:\n"
	"	movq	%rdi, %rax\n"
	"	syscall\n"
	"	ret\n"
	"region_end:\n");

int
main(int argc, char **argv)
{
	static unsigned int pins[SP_PINSYSCALLS_MAX];
	size_t len = region_end - region_start;

	(void)argv;
	pins[SYS_getpid] = site_getpid - region_start;
	/* <syspin/pinsyscall.h>: a pinned call of our own, outside. */
	if (syspin_syscall0(SYS_getpid) != getpid()) {
		fprintf(stderr, "pinned: syspin_syscall0(getpid) is wrong\n");
		return 1;
	}
	if (pinsyscalls(region_start, len, pins, SP_PINSYSCALLS_MAX) == -1) {
		fprintf(stderr, "pinned: pinsyscalls: %s\n", strerror(errno));
		return 1;
	}
	if (stub_getpid() != getpid()) {
		fprintf(stderr, "pinned: getpid at its pin is wrong\n");
		return 1;
	}
	if (pinsyscalls(region_start, len, pins, SP_PINSYSCALLS_MAX) != -1 ||
	    errno != EPERM) {
		fprintf(stderr, "pinned: a second pinsyscalls() was not "
		    "refused with EPERM\n");
		return 1;
	}
	printf("pinned\n");
	fflush(stdout);
	if (argc > 1) {
		stub_raw(SYS_getpid);
		printf("survived\n");
		return 1;
	}
	return 0;
}
