/* SPDX-License-Identifier: ISC */
/*
 * System call stubs, each with its own trap instruction at a global label
 * (<stub>_site), so that tests can pin (number, address) pairs.
 *
 *   long stub(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
 *   long sp_stub_i386(long nr, long a1, long a2, long a3)   (int $0x80)
 *
 * sp_stubs_start / sp_stubs_end delimit them: the "image" of the tests.
 */
	.text
	.p2align 4
	.globl sp_stubs_start
sp_stubs_start:

#define STUB(name)			\
	.globl name;			\
	.type name, @function;		\
name:					\
	mov %rdi, %rax;			\
	mov %rsi, %rdi;			\
	mov %rdx, %rsi;			\
	mov %rcx, %rdx;			\
	mov %r8, %r10;			\
	mov %r9, %r8;			\
	mov 8(%rsp), %r9;		\
	.globl name##_site;		\
name##_site:				\
	syscall;			\
	ret;				\
	.size name, . - name

STUB(sp_stub_a)
STUB(sp_stub_b)
STUB(sp_stub_c)
STUB(sp_stub_any)
STUB(sp_stub_exit)

	.globl sp_stub_i386
	.type sp_stub_i386, @function
sp_stub_i386:
	push %rbx
	mov %rdi, %rax
	mov %rsi, %rbx
	mov %rdx, %r8
	mov %rcx, %rdx
	mov %r8, %rcx
	.globl sp_stub_i386_site
sp_stub_i386_site:
	int $0x80
	movslq %eax, %rax
	pop %rbx
	ret
	.size sp_stub_i386, . - sp_stub_i386

	.globl sp_stubs_end
sp_stubs_end:
	nop

	.section .note.GNU-stack, "", @progbits
