/* SPDX-License-Identifier: ISC */
/*
 * Blind round 18: a function that takes its number as a parameter was
 * "any number here" wherever the analysis could not read every caller:
 * one nothing calls (Free Pascal's Do_SysCall), or one whose address is
 * taken only to be compared (musl's __syscall_cp_asm, in every dynamic
 * musl program).  A chain that reaches its `syscall` with any number in
 * eax made any call.  It may issue only what its object issues at the
 * sites the analysis could read: this program issues getpid (39) of its
 * own, so its mkdir there is a violation.
 *
 * usage: escape_anyparam nocaller MARK LONE_OFF MAIN_OFF
 *          mkdir(MARK) at lone_syscall, which nothing calls, reached from
 *          its offset in the file (nm: the harness passes it, as a chain
 *          knows it) and main's
 *        escape_anyparam compared MARK
 *          mkdir(MARK) at cmp_syscall, whose one direct caller passes
 *          getpid and whose address is also compared and called through
 * Exit 0 MARK made, 3 not, 2 usage.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

long lone_syscall(long nr, const char *path, long mode);
long cmp_syscall(long nr, const char *path, long mode);
/* syscall(nr, a, b): the number a parameter */
#define NUMBER_TAKING(f) \
    ".globl " #f "\n.type " #f ", @function\n" #f ":\n" \
    "	.cfi_startproc\n	mov %rdi, %rax\n	mov %rsi, %rdi\n" \
    "	mov %rdx, %rsi\n	syscall\n	ret\n	.cfi_endproc\n" \
    ".size " #f ", .-" #f "\n"
__asm__(".text\n" NUMBER_TAKING(lone_syscall) NUMBER_TAKING(cmp_syscall));

/* a code address, compared (as musl's cancellation handler compares the
 * interrupted pc with __cp_begin) */
volatile uintptr_t some_pc;

int
main(int argc, char **argv)
{
	long (*fn)(long, const char *, long);
	struct stat st;

	if (argc == 5 && strcmp(argv[1], "nocaller") == 0)
		fn = (long (*)(long, const char *, long))(uintptr_t)
		    ((uintptr_t)main - strtoull(argv[4], NULL, 16) +
		    strtoull(argv[3], NULL, 16));
	else if (argc == 3 && strcmp(argv[1], "compared") == 0) {
		(void)cmp_syscall(39, NULL, 0);		/* getpid */
		fn = (uintptr_t)cmp_syscall == some_pc ? NULL : cmp_syscall;
	} else
		return 2;
	if (fn == NULL)
		return 3;
	fn(83, argv[2], 0755);			/* mkdir */
	return stat(argv[2], &st) == 0 ? 0 : 3;
}
