/* SPDX-License-Identifier: ISC */
/*
 * Traps of runpin.c, a dynamically linked program whose own table
 * (.openbsd.syscalls, from PINSYSCALL) is authoritative under `syspin run`.
 * Numbers come from a register, so the tests can issue any number from a
 * trap whose pin says otherwise.
 */
#include <syspin/pinsyscall.h>

	.text
/* long rp_getpid_at(long nr): a trap pinned for getpid (39) only. */
	.globl	rp_getpid_at
	.type	rp_getpid_at, @function
rp_getpid_at:
	movl	%edi, %eax
97:	syscall
	PINSYSCALL(39, 97b)
	ret
	.size	rp_getpid_at, . - rp_getpid_at

/* long rp_bare(long nr): a trap the table does not list. */
	.globl	rp_bare
	.type	rp_bare, @function
rp_bare:
	movl	%edi, %eax
	syscall
	ret
	.size	rp_bare, . - rp_bare

/*
 * A signal handler that returns by issuing rt_sigreturn (15) itself, from
 * the getpid trap, instead of returning to libc's __restore_rt.  On entry
 * %rsp points at the return address (the restorer) that tops the kernel's
 * rt_sigframe; rt_sigreturn wants it popped, as __restore_rt finds it.
 */
	.globl	rp_sigret_handler
	.type	rp_sigret_handler, @function
rp_sigret_handler:
	addq	$8, %rsp
	movl	$15, %edi
	jmp	rp_getpid_at
	.size	rp_sigret_handler, . - rp_sigret_handler

/*
 * void rp_jump(void *target, long nr, long a0): jumps to TARGET with NR in
 * %eax and A0 in %rdi, as if the code before TARGET had set them up.
 */
	.globl	rp_jump
	.type	rp_jump, @function
rp_jump:
	movq	%rdi, %rcx
	movl	%esi, %eax
	movq	%rdx, %rdi
	jmp	*%rcx
	.size	rp_jump, . - rp_jump

	.section .note.GNU-stack,"",@progbits
