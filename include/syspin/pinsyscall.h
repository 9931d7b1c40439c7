/* SPDX-License-Identifier: ISC */
/*
 * Emitting OpenBSD pin-table entries (.openbsd.syscalls) from assembly and
 * from C, for x86-64 and aarch64.
 *
 * Each entry is { .long <address of the trap instruction>, .long <number> }
 * in a non-allocated progbits section, exactly what OpenBSD's libc emits
 * (lib/libc/arch/<arch>/DEFS.h).  The address is resolved by the static
 * linker: the assembler leaves an R_X86_64_32 / R_AARCH64_ABS32 against the
 * label, and since the section is not SHF_ALLOC, ld resolves it to the
 * link-time address and emits no dynamic relocation, in PIE, non-PIE and
 * static links alike.  That is OpenBSD's convention: base 0 for ET_DYN,
 * absolute for ET_EXEC.  (Checked with GNU ld 2.40 and lld 14; see
 * tests/openbsd.)  A non-PIE ET_EXEC above 4 GiB cannot be described.
 *
 * One bad entry makes OpenBSD (and syspin) reject the whole table, so both
 * macros refuse, at assembly time, a number that is negative or not below
 * SP_SYS_MAXSYSCALL.  Number 0 is accepted: it is read(2) on Linux x86-64
 * and syspin pins it.  OpenBSD (where 0 is SYS_syscall) would reject a
 * table holding it; `syspin scan --openbsd` notes that difference.
 *
 * Assembly (GNU as, through cpp):
 *
 *	movl	$39, %eax
 * 97:	syscall
 *	PINSYSCALL(39, 97b)
 *
 * or SP_SYSTRAP(39), which is the three lines above.
 *
 * C: syspin_syscall0(nr) .. syspin_syscall6(nr, a1, .., a6) issue the call
 * from an inline `syscall` / `svc #0` that carries its own entry, and
 * return the raw kernel result (-errno on failure; errno is not touched).
 * NR MUST BE AN INTEGER CONSTANT EXPRESSION: it is passed with the "i"
 * constraint so that the entry can name it; anything else fails to compile
 * ("impossible constraint" / "invalid operand"), which is the point: a site
 * whose number comes from a register cannot be pinned exactly.  They are
 * macros, not functions, so this holds at -O0 too.
 */
#ifndef SYSPIN_PINSYSCALL_H
#define SYSPIN_PINSYSCALL_H

/* Must match SP_SYS_MAXSYSCALL in <syspin/openbsd.h> (not included here:
 * this header has to stay usable from assembly). */
#define SP_PIN_MAXSYSCALL 512

#ifdef __ASSEMBLER__

#define PINSYSCALL(sysno, label)					\
	.if (sysno) < 0 || (sysno) >= SP_PIN_MAXSYSCALL;		\
	.error "PINSYSCALL: number < 0 or >= SYS_MAXSYSCALL would void the table"; \
	.endif;								\
	.pushsection .openbsd.syscalls,"",@progbits;			\
	.p2align 2;							\
	.long label;							\
	.long sysno;							\
	.popsection

#if defined(__x86_64__)
#define SP_SYSTRAP(sysno)						\
	movl	$(sysno), %eax;						\
97:	syscall;							\
	PINSYSCALL(sysno, 97b)
#elif defined(__aarch64__)
#define SP_SYSTRAP(sysno)						\
	mov	x8, #(sysno);						\
97:	svc	#0;							\
	PINSYSCALL(sysno, 97b)
#endif

#else /* C */

#define SP_PIN_STR2_(x) #x
#define SP_PIN_STR_(x) SP_PIN_STR2_(x)

/* The entry for the trap instruction at local label 97, number operand n. */
#define SP_PIN_ASM_(trap)						\
	".if %c[n] < 0 || %c[n] >= "					\
	    SP_PIN_STR_(SP_PIN_MAXSYSCALL) "\n\t"			\
	".error \"syspin_syscall: number < 0 or >= SYS_MAXSYSCALL\"\n\t"	\
	".endif\n"							\
	"97:\t" trap "\n\t"						\
	".pushsection .openbsd.syscalls,\"\",@progbits\n\t"		\
	".p2align 2\n\t"						\
	".long 97b\n\t"							\
	".long %c[n]\n\t"						\
	".popsection"

/*
 * Arguments are evaluated into plain locals first: a register variable
 * holds its register only at the asm, and an argument that calls a
 * function (strlen(s)) would otherwise clobber one set before it.
 */
#define SP_ARGS_(r0, r1, r2, r3, r4, r5)				\
	long sp_t0_ = (long)(r0), sp_t1_ = (long)(r1),			\
	    sp_t2_ = (long)(r2), sp_t3_ = (long)(r3),			\
	    sp_t4_ = (long)(r4), sp_t5_ = (long)(r5)

#if defined(__x86_64__)

/* Unused argument registers are passed as 0; the kernel ignores them. */
#define SP_SYSCALL_(nr, r0, r1, r2, r3, r4, r5) __extension__ ({	\
	SP_ARGS_(r0, r1, r2, r3, r4, r5);				\
	register long sp_a0_ __asm__("rdi") = sp_t0_;			\
	register long sp_a1_ __asm__("rsi") = sp_t1_;			\
	register long sp_a2_ __asm__("rdx") = sp_t2_;			\
	register long sp_a3_ __asm__("r10") = sp_t3_;			\
	register long sp_a4_ __asm__("r8") = sp_t4_;			\
	register long sp_a5_ __asm__("r9") = sp_t5_;			\
	long sp_ret_;							\
	__asm__ volatile (SP_PIN_ASM_("syscall")			\
	    : "=a" (sp_ret_)						\
	    : [n] "i" (nr), "0" ((long)(nr)), "r" (sp_a0_),		\
	      "r" (sp_a1_), "r" (sp_a2_), "r" (sp_a3_), "r" (sp_a4_),	\
	      "r" (sp_a5_)						\
	    : "rcx", "r11", "memory");					\
	sp_ret_;							\
})

#elif defined(__aarch64__)

#define SP_SYSCALL_(nr, r0, r1, r2, r3, r4, r5) __extension__ ({	\
	SP_ARGS_(r0, r1, r2, r3, r4, r5);				\
	register long sp_x8_ __asm__("x8") = (long)(nr);		\
	register long sp_a0_ __asm__("x0") = sp_t0_;			\
	register long sp_a1_ __asm__("x1") = sp_t1_;			\
	register long sp_a2_ __asm__("x2") = sp_t2_;			\
	register long sp_a3_ __asm__("x3") = sp_t3_;			\
	register long sp_a4_ __asm__("x4") = sp_t4_;			\
	register long sp_a5_ __asm__("x5") = sp_t5_;			\
	__asm__ volatile (SP_PIN_ASM_("svc #0")				\
	    : "+r" (sp_a0_)						\
	    : [n] "i" (nr), "r" (sp_x8_), "r" (sp_a1_), "r" (sp_a2_),	\
	      "r" (sp_a3_), "r" (sp_a4_), "r" (sp_a5_)			\
	    : "memory");						\
	sp_a0_;								\
})

#else
#error "syspin/pinsyscall.h: x86-64 and aarch64 only"
#endif

#define syspin_syscall0(nr)						\
	SP_SYSCALL_(nr, 0, 0, 0, 0, 0, 0)
#define syspin_syscall1(nr, a)						\
	SP_SYSCALL_(nr, a, 0, 0, 0, 0, 0)
#define syspin_syscall2(nr, a, b)					\
	SP_SYSCALL_(nr, a, b, 0, 0, 0, 0)
#define syspin_syscall3(nr, a, b, c)					\
	SP_SYSCALL_(nr, a, b, c, 0, 0, 0)
#define syspin_syscall4(nr, a, b, c, d)					\
	SP_SYSCALL_(nr, a, b, c, d, 0, 0)
#define syspin_syscall5(nr, a, b, c, d, e)				\
	SP_SYSCALL_(nr, a, b, c, d, e, 0)
#define syspin_syscall6(nr, a, b, c, d, e, f)				\
	SP_SYSCALL_(nr, a, b, c, d, e, f)

#endif /* __ASSEMBLER__ */
#endif
