/* SPDX-License-Identifier: ISC */
/*
 * escape_answer MODE MARK (blind round 3): the supervisor's own calls
 * answered by a filter of the tree, and memory that grows out of the band.
 *
 *   fake-pin    a filter of ours answers seccomp(2), prctl(2) and mseal(2)
 *               with errno 0 (the call skipped, 0 returned: what they
 *               return when they succeed); then perl, a trusted program,
 *               is exec'd and makes mkdir(MARK) by its syscall(), a
 *               number no analysis reads.  Stopped: the exec refused, or
 *               perl killed (not pinned, or a violation).
 *   fake-seal   the same for mseal(2) only, then this program again in
 *               mode unguard: the seals the supervisor believed made are
 *               not.  Stopped: killed at the exec (the seals checked), or
 *               unguard stopped.
 *   stackmove   a page of the main stack mremap'ed to the start of the
 *               late-code band keeps VM_GROWSDOWN; made executable there
 *               (--allow-jit allows it in the band) and touched below,
 *               it grows under the band, where every filter lets calls
 *               through; mkdir(MARK) from there.  Stopped: a step refused
 *               (exit 3), or the growth stopped (SIGSEGV), or killed.
 *   unguard     stackmove, after unmapping the page below the band.
 *   rwx         mkdir(MARK) from anonymous memory mapped executable (the
 *               program attack filter-swap runs).
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BAND_START 0x110000000000ul	/* lib/bpf/bpf.h */
#define NR_MSEAL 462

static const unsigned char code[] = {
	0xb8, 83, 0, 0, 0,	/* mov $83, %eax (mkdir) */
	0x0f, 0x05,		/* syscall */
	0xc3			/* ret */
};

static int
refused(const char *what)
{
	printf("%s refused\n", what);
	return 3;
}

/* A filter answering errno 0 for seccomp, prctl(PR_SET_SECCOMP or
 * PR_SET_NO_NEW_PRIVS) and mseal, or for mseal alone. */
static int
answer_zero(int only_seal)
{
	struct sock_filter all[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_MSEAL, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_NO_NEW_PRIVS, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter seal[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_MSEAL, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = only_seal ? (struct sock_fprog){ 4, seal } :
	    (struct sock_fprog){ sizeof(all) / sizeof(*all), all };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) != 0)
		return -1;
	return 0;
}

static int
stackmove(const char *mark, int unguard)
{
	unsigned long lo = 0, hi = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	void *r;
	volatile unsigned char *below;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, "[stack]") != NULL)
			sscanf(line, "%lx-%lx", &lo, &hi);
	if (f != NULL)
		fclose(f);
	if (lo == 0)
		return refused("finding the stack");
	if (unguard)	/* sealed, it stays */
		(void)munmap((void *)(BAND_START - 4096), 4096);
	r = mremap((void *)lo, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED,
	    (void *)BAND_START);
	if (r == MAP_FAILED)
		return refused("mremap of the stack into the band");
	if (mprotect(r, 4096, PROT_READ | PROT_WRITE | PROT_EXEC) == -1)
		return refused("mprotect PROT_EXEC");
	/* a fault two pages under the band grows the mapping there */
	below = (unsigned char *)r - 3 * 4096;
	*below = 0xc3;
	memcpy((void *)below, code, sizeof(code));
	printf("calling code at %p\n", (void *)below);
	fflush(stdout);
	return ((long (*)(const char *, long))below)(mark, 0755) == 0 ? 0 : 1;
}

/* Anonymous memory made executable, where no pin is: mkdir(MARK) from
 * it.  Stopped: refused, placed in the band and killed. */
static int
rwx(const char *mark)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return refused("mmap PROT_EXEC");
	memcpy(p, code, sizeof(code));
	return ((long (*)(const char *, long))p)(mark, 0755) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	const char *m = argc > 2 ? argv[1] : "", *mark = argv[argc - 1];

	if (strcmp(m, "fake-pin") == 0) {
		if (answer_zero(0) == -1)
			return refused("seccomp");
		execl("/usr/bin/perl", "perl", "-e",
		    "exit(syscall(83, $ARGV[0], 0755) == 0 ? 0 : 1)", mark,
		    (char *)NULL);
		return refused("execl perl");
	}
	if (strcmp(m, "fake-seal") == 0) {
		if (answer_zero(1) == -1)
			return refused("seccomp");
		execl("/proc/self/exe", "escape_answer", "unguard", mark,
		    (char *)NULL);
		return refused("execl");
	}
	if (strcmp(m, "rwx") == 0)	/* the program escape_swap runs */
		return rwx(mark);
	if (strcmp(m, "stackmove") == 0)
		return stackmove(mark, 0);
	if (strcmp(m, "unguard") == 0)
		return stackmove(mark, 1);
	fprintf(stderr, "usage: escape_answer fake-pin|fake-seal|stackmove|"
	    "unguard|rwx MARK\n");
	return 2;
}
