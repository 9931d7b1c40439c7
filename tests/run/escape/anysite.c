/* SPDX-License-Identifier: ISC */
/*
 * Blind round 15: a site whose number the analysis cannot read (here
 * one loaded from writable data; in the wild glibc's setxid handler in a
 * static program, Go's and musl's calls of a number read from memory)
 * was "any number here": a chain that reaches it with any number in eax
 * made any call.  Such a site may issue only what its object issues at
 * the sites the analysis could read: this program issues nothing else
 * of its own, so its mkdir there is a violation.
 *
 * usage: escape_anysite MARK     mkdir(MARK) from the unreadable site
 * Exit 0 MARK made, 3 not.
 */
#include <sys/stat.h>

/* written before the call: the analysis cannot know it */
volatile long any_nr;

long any_site(const char *path, long mode);
__asm__(".text\n"
    ".globl any_site\n"
    ".type any_site, @function\n"
    "any_site:\n"
    "	.cfi_startproc\n"
    "	mov any_nr(%rip), %rax\n"
    "	syscall\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size any_site, .-any_site\n");

int
main(int argc, char **argv)
{
	struct stat st;

	if (argc != 2)
		return 2;
	any_nr = 83;		/* mkdir */
	any_site(argv[1], 0755);
	return stat(argv[1], &st) == 0 ? 0 : 3;
}
