/* SPDX-License-Identifier: ISC */
/*
 * FNV-1a, 64 bits: cache keys and the resolver's string maps.  Not a
 * defence against anyone choosing the input: the cache's tables are
 * authenticated apart (lib/pins/cache_mac.c).
 */
#ifndef SYSPIN_UTIL_HASH_H
#define SYSPIN_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SP_FNV1A_INIT 0xcbf29ce484222325ull

static inline uint64_t
sp_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static inline uint64_t
sp_fnv1a_str(uint64_t h, const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

#endif
