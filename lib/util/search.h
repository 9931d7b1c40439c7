/* SPDX-License-Identifier: ISC */
/*
 * Binary search over arrays sorted by a uint64_t key at a fixed offset in
 * each element (an address, mostly).  One implementation instead of a
 * hand-written loop per table.
 */
#ifndef SYSPIN_UTIL_SEARCH_H
#define SYSPIN_UTIL_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* qsort's comparison of uint64_t values. */
static inline int
sp_cmp_u64(const void *a, const void *b)
{
	uint64_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return x < y ? -1 : x > y;
}

/* qsort's comparison of uint32_t values. */
static inline int
sp_cmp_u32(const void *a, const void *b)
{
	uint32_t x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	return x < y ? -1 : x > y;
}

/* Index of the first element whose key is >= key (n when none). */
static inline size_t
sp_lower_bound(const void *base, size_t n, size_t stride, size_t key_offset,
    uint64_t key)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		memcpy(&k, p + mid * stride + key_offset, sizeof(k));
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the last element whose key is <= key, or -1. */
static inline long
sp_floor_index(const void *base, size_t n, size_t stride, size_t key_offset,
    uint64_t key)
{
	size_t i = sp_lower_bound(base, n, stride, key_offset, key);
	uint64_t k;

	if (i < n) {
		memcpy(&k, (const unsigned char *)base + i * stride + key_offset,
		    sizeof(k));
		if (k == key)
			return (long)i;
	}
	return (long)i - 1;
}

#define SP_LOWER_BOUND(arr, n, field, key) \
	sp_lower_bound((arr), (n), sizeof(*(arr)), \
	    offsetof(__typeof__(*(arr)), field), (key))
#define SP_FLOOR_INDEX(arr, n, field, key) \
	sp_floor_index((arr), (n), sizeof(*(arr)), \
	    offsetof(__typeof__(*(arr)), field), (key))

#endif
