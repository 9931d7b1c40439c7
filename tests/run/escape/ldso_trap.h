/* SPDX-License-Identifier: ISC */
/* ld.so's exec site, for the attacks that jump there (box.c, early_main.c). */
#ifndef ESCAPE_LDSO_TRAP_H
#define ESCAPE_LDSO_TRAP_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ld.so's `mov $59, %eax; syscall` (dl_main's execve), or NULL. */
static inline const uint8_t *
ldso_execve_trap(void)
{
	static const uint8_t pat[] = { 0xb8, 59, 0, 0, 0, 0x0f, 0x05 };
	unsigned long a, b;
	char line[512], perm[8];
	const uint8_t *hit = NULL;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f != NULL && hit == NULL && fgets(line, sizeof(line), f)) {
		if (strstr(line, "ld-linux") == NULL ||
		    sscanf(line, "%lx-%lx %7s", &a, &b, perm) != 3 ||
		    perm[2] != 'x')
			continue;
		for (const uint8_t *p = (const uint8_t *)a;
		    p + sizeof(pat) <= (const uint8_t *)b && hit == NULL; p++)
			if (memcmp(p, pat, sizeof(pat)) == 0)
				hit = p + 5;
	}
	if (f != NULL)
		fclose(f);
	return hit;
}

#endif
