/* SPDX-License-Identifier: ISC */
/*
 * The system calls of pinself.c, written with PINSYSCALL the way OpenBSD's
 * libc writes its stubs; each trap has a global label so the program can
 * put its offset in the table it passes to pinsyscalls().
 */
#include <syspin/pinsyscall.h>

#define TRAP(name, nr)							\
	.globl	name, name##_trap;					\
name:									\
	movl	$(nr), %eax;						\
name##_trap:								\
	syscall;							\
	PINSYSCALL(nr, name##_trap);					\
	ret

	.text
/*
 * long pt_write(long nr, long fd, const void *buf, long n): the number
 * comes from a register, so a test can issue another number from the
 * pinned write site.
 */
	.globl	pt_write, pt_write_trap
pt_write:
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
pt_write_trap:
	syscall
	PINSYSCALL(1, pt_write_trap)
	ret

TRAP(pt_getpid, 39)
TRAP(pt_execve, 59)
TRAP(pt_wait4, 61)
TRAP(pt_fork, 57)
TRAP(pt_exit, 231)		/* exit_group */
TRAP(pt_munmap, 11)

/* A trap in the pinned text that carries no pin. */
	.globl	pt_getpid_unpinned
pt_getpid_unpinned:
	movl	$39, %eax
	syscall
	ret

	.section .note.GNU-stack,"",@progbits
