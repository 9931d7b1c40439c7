/* SPDX-License-Identifier: ISC */
/*
 * sealed: what the start-up region looks like from inside a pinned
 * process after its entry point (lib/supervise/startup.c).  It is linked
 * with libsealed_align.so, whose segments are aligned to 2 MiB: ld.so
 * unmaps the slack of its room, holes the supervisor fills before it
 * seals the region whole.  Prints one line per fact:
 *
 *   region SPAN MAPS SEALED    the run of adjacent mappings around libc:
 *                              its span in bytes, how many, how many sealed
 *   align in-region|outside    where the aligned library is
 *   mprotect-data ERRNO        mprotect of libc's writable data (0: done)
 *   map-room ERRNO             MAP_FIXED over the region's unused room
 *   filters N                  Seccomp_filters
 *
 * Unpinned nothing is sealed; pinned everything is, the calls fail with
 * EPERM, and no entry filter is added (sealed.sh compares the count with
 * this program's static build's, SEALED_STATIC, which prints the count
 * alone: it has no start-up objects and no entry point stop).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef SEALED_STATIC
int sealed_align_mark(void);
#else
static int sealed_align_mark(void) { return 0; }
#endif

#define MAXMAPS 8192

struct map {
	uintptr_t lo, hi;
	char perm[5];
	char path[256];
	int sealed;
};

static struct map maps[MAXMAPS];
static size_t nmaps;

static void
read_smaps(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/smaps", "re");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		struct map m;
		memset(&m, 0, sizeof(m));
		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %255s", &m.lo, &m.hi,
		    m.perm, m.path) >= 3 && nmaps < MAXMAPS) {
			maps[nmaps++] = m;
			continue;
		}
		if (strncmp(line, "VmFlags:", 8) == 0 && nmaps > 0)
			maps[nmaps - 1].sealed = strstr(line, " sl") != NULL;
	}
	if (f != NULL)
		fclose(f);
}

static long
filters(void)
{
	char line[256];
	long n = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Seccomp_filters:", 16) == 0)
			n = atol(line + 16);
	if (f != NULL)
		fclose(f);
	return n;
}

int
main(void)
{
	size_t i, lo, hi, sealed = 0, libc = MAXMAPS, room = MAXMAPS,
	    data = MAXMAPS;
	int in_region = 0, e;
	void *r;

#ifdef SEALED_STATIC
	/* the static build: no start-up objects, no entry point stop */
	printf("filters %ld\n", filters());
	return 0;
#endif
	(void)sealed_align_mark();
	read_smaps();
	for (i = 0; i < nmaps && libc == MAXMAPS; i++)
		if (strstr(maps[i].path, "/libc.so") != NULL)
			libc = i;
	if (libc == MAXMAPS) {
		printf("no libc\n");
		return 2;
	}
	for (lo = libc; lo > 0 && maps[lo - 1].hi == maps[lo].lo; lo--)
		;
	for (hi = libc; hi + 1 < nmaps && maps[hi].hi == maps[hi + 1].lo;
	    hi++)
		;
	for (i = lo; i <= hi; i++) {
		sealed += maps[i].sealed;
		if (strstr(maps[i].path, "libsealed_align") != NULL)
			in_region = 1;
		if (maps[i].path[0] == '\0' && strcmp(maps[i].perm, "---p") ==
		    0 && room == MAXMAPS)
			room = i;
		if (strstr(maps[i].path, "/libc.so") != NULL &&
		    maps[i].perm[1] == 'w')
			data = i;
	}
	printf("region %lu %zu %zu\n", (unsigned long)(maps[hi].hi -
	    maps[lo].lo), hi - lo + 1, sealed);
	printf("align %s\n", in_region ? "in-region" : "outside");
	e = data == MAXMAPS ? -1 : mprotect((void *)maps[data].lo, 4096,
	    PROT_READ) == 0 ? 0 : errno;
	if (e == 0)	/* libc writes there as it exits */
		(void)mprotect((void *)maps[data].lo, 4096, PROT_READ |
		    PROT_WRITE);
	printf("mprotect-data %d\n", e);
	if (room == MAXMAPS)
		e = -1;
	else {
		r = mmap((void *)maps[room].lo, 4096, PROT_READ, MAP_PRIVATE |
		    MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		e = r == MAP_FAILED ? errno : 0;
	}
	printf("map-room %d\n", e);
	printf("filters %ld\n", filters());
	return 0;
}
