/* SPDX-License-Identifier: ISC */
/*
 * The vDSO is not a file: its image is the [vdso] mapping of every
 * process (AT_SYSINFO_EHDR).  /proc/self/maps gives its exact size.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "scan.h"

static size_t
vdso_size(uintptr_t base)
{
	char line[512];
	size_t size = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		uintptr_t lo, hi;
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2 &&
		    lo == base && strstr(line, "[vdso]") != NULL) {
			size = hi - lo;
			break;
		}
	}
	fclose(f);
	return size;
}

int
vdso_load(struct sp_elf *elf, struct sp_error *err)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	size_t size;

	if (base == 0)
		return sp_error_set(err, "this process has no vDSO");
	size = vdso_size(base);
	if (size == 0)
		return sp_error_set(err, "cannot find the [vdso] mapping in "
		    "/proc/self/maps");
	return sp_elf_from_memory(elf, (const void *)base, size, "[vdso]",
	    err);
}
