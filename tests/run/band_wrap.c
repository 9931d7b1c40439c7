/* SPDX-License-Identifier: ISC */
/*
 * A long-lived process under --allow-jit maps and unmaps anonymous
 * memory until the late-code band is used up: the supervisor must then
 * place new mappings in the holes it left (lib/supervise/band.c), not
 * answer ENOMEM.  Two reservations of 10 TiB fill most of the 24 TiB
 * band; the first is unmapped; a third of 6 TiB fits only in its hole.
 * Exit 0 when every mapping lands in the band, the third in the hole;
 * 1 with a message otherwise.  Unpinned, the kernel places them
 * where it likes: exit 0 as well (nothing to check).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TIB (1ull << 40)
#define BAND_START 0x110000000000ull	/* lib/bpf/bpf.h */
#define BAND_END 0x290000000000ull

static void *
reserve(uint64_t len)
{
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "band_wrap: mmap %llu TiB: %m\n",
		    (unsigned long long)(len / TIB));
		return NULL;
	}
	return p;
}

static int
in_band(const void *p)
{
	return (uintptr_t)p >= BAND_START && (uintptr_t)p < BAND_END;
}

int
main(int argc, char **argv)
{
	int pinned = argc > 1 && strcmp(argv[1], "pinned") == 0;
	void *a, *b, *c, *d;

	if ((a = reserve(10 * TIB)) == NULL || (b = reserve(10 * TIB)) == NULL)
		return 1;
	if (munmap(a, 10 * TIB) == -1)
		return 1;
	if ((c = reserve(6 * TIB)) == NULL || (d = reserve(1 << 20)) == NULL)
		return 1;
	printf("a %p b %p c %p d %p\n", a, b, c, d);
	if (!pinned)
		return 0;
	if (!in_band(a) || !in_band(b) || !in_band(c) || !in_band(d)) {
		fprintf(stderr, "band_wrap: a mapping outside the band\n");
		return 1;
	}
	/* after b there is less than 6 TiB of band: only a's hole fits */
	if ((uintptr_t)c + 6 * TIB > (uintptr_t)b) {
		fprintf(stderr, "band_wrap: the third is not in the hole\n");
		return 1;
	}
	return 0;
}
