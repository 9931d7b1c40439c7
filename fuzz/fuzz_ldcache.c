/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness: arbitrary bytes -> sp_ldcache_from_memory, then a
 * lookup of every key found and of a few fixed names
 * (lib/layout/ldcache.c).  Built with -Dfuzz=true like fuzz_elf.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "layout/needed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "libc.so.6", "", "libm.so.6" };
	const struct sp_ldcache_entry *e;
	struct sp_ldcache c;
	struct sp_error err;
	size_t i, n, sum = 0;

	if (sp_ldcache_from_memory(data, size, &c, &err) != 0)
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		sum += sp_ldcache_lookup(&c, names[i], &e);
	for (i = 0; i < c.nents && i < 64; i++) {
		n = sp_ldcache_lookup(&c, c.ents[i].key, &e);
		if (n == 0 || e == NULL)
			__builtin_trap();	/* a key must find itself */
		sum += strlen(e[0].path);
	}
	(void)sum;
	sp_ldcache_free(&c);
	return 0;
}
