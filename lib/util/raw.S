/* SPDX-License-Identifier: ISC */
/*
 * System calls syspin's own code makes where a process is pinned, each
 * from an instruction of its own with its number in front of it: the
 * analysis pins each to exactly that number.  Through libc's syscall()
 * they would join the numbers libc's export site takes in every pinned
 * process (seccomp, mseal and capget for anyone's ROP chain).  Each
 * returns the kernel's value: -errno on failure.
 */
	.text

#define STUB(name, nr)			\
	.globl name;			\
	.hidden name;			\
	.type name, @function;		\
name:					\
	mov %rcx, %r10;			\
	mov $nr, %eax;			\
	syscall;			\
	ret;				\
	.size name, . - name

STUB(sp_raw_mmap, 9)
STUB(sp_raw_capget, 125)
STUB(sp_raw_seccomp, 317)
STUB(sp_raw_mseal, 462)

	.section .note.GNU-stack, "", @progbits
