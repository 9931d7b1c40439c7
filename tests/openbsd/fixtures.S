/* SPDX-License-Identifier: ISC */
/*
 * Conformance fixtures for OpenBSD's pin-table rules: one source, one
 * -DFX_<name> per fixture (tests/openbsd/meson.build).  Every fixture has
 * the same 0x40-byte text: three `syscall` instructions at text+0x10,
 * +0x20 and +0x30, so the expected pintables can be written down.
 */
#include <syspin/pinsyscall.h>

/* An entry as is, without PINSYSCALL's range check (for the bad ones). */
#define RAW(off, nr)							\
	.pushsection .openbsd.syscalls,"",@progbits;			\
	.p2align 2;							\
	.long off;							\
	.long nr;							\
	.popsection

/*
 * A stub the way OpenBSD's libc writes one (lib/libc/arch/amd64/SYS.h):
 * number into %eax, the trap on local label 97, the entry naming 97b.
 * AT is where the trap lands.
 */
#define STUB(at, nr)							\
	.org	(at) - 5, 0xcc;						\
	movl	$(nr), %eax;						\
97:	syscall;							\
	PINSYSCALL(nr, 97b)

#define SITE(at, label)							\
	.org	(at), 0xcc;						\
label:	syscall

	/* Something in each segment, so the linker lays all of them out. */
	.section .rodata
	.byte	1
	.data
	.quad	0

	.text
	.globl	_start
_start:
#if defined(FX_VALID) || defined(FX_SPIE)
	STUB(0x10, 39)
	STUB(0x20, 1)
	STUB(0x30, 231)
#else
	SITE(0x10, site_a)
	SITE(0x20, site_b)
	SITE(0x30, site_c)
#endif
	.org	0x40, 0xcc

#if defined(FX_DUP)		/* 39 at two places -> -1 */
	RAW(site_a, 39)
	RAW(site_b, 39)
	RAW(site_c, 1)
#elif defined(FX_SAMEOFF)	/* 39 twice at one place -> -1 too */
	RAW(site_a, 39)
	RAW(site_a, 39)
	RAW(site_b, 60)
#elif defined(FX_SYSNO0)
	RAW(site_a, 39)
	RAW(site_b, 0)
#elif defined(FX_SYSNOMAX)
	RAW(site_a, 39)
	RAW(site_b, SP_PIN_MAXSYSCALL)
#elif defined(FX_SYSNOLAST)	/* the highest number allowed */
	RAW(site_a, SP_PIN_MAXSYSCALL - 1)
#elif defined(FX_PAST)		/* one byte past the region */
	RAW(site_a, 39)
	RAW(_start + 0x41, 60)
#elif defined(FX_ATEND)		/* offset == region end: accepted */
	RAW(_start + 0x40, 39)
#elif defined(FX_ATSTART)	/* rebased to 0: "not allowed" */
	RAW(_start, 39)
	RAW(site_a, 60)
#elif defined(FX_QUIRKS)
	RAW(_start - 1, 39)		/* rebased to -1: anywhere */
	RAW(0, 60)			/* 0 reads as "unset"... */
	RAW(site_b, 60)			/* ...so this is not a duplicate */
	RAW(site_c, 1)
#elif defined(FX_ODD)		/* 12 bytes */
	RAW(site_a, 39)
	.pushsection .openbsd.syscalls,"",@progbits
	.long	1
	.popsection
#elif defined(FX_MAXSIZE)	/* exactly SYS_MAXSYSCALL*2 entries */
	.rept	SP_PIN_MAXSYSCALL * 2
	RAW(site_a, 39)
	.endr
#elif defined(FX_TOOLARGE)	/* one more */
	.rept	SP_PIN_MAXSYSCALL * 2 + 1
	RAW(site_a, 39)
	.endr
#elif defined(FX_EMPTY)
	.pushsection .openbsd.syscalls,"",@progbits
	.popsection
#elif defined(FX_UNALIGNED)	/* text PT_LOAD not page aligned */
	RAW(site_a, 39)
	RAW(site_c, 1)
#elif defined(FX_NONE)
#elif !defined(FX_VALID) && !defined(FX_SPIE)
#error "which fixture?"
#endif
