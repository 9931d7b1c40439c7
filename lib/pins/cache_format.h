/* SPDX-License-Identifier: ISC */
/* On-disk header of a pin table file; see include/syspin/cache.h. */
#ifndef SYSPIN_CACHE_FORMAT_H
#define SYSPIN_CACHE_FORMAT_H

#include <assert.h>
#include <stdint.h>

#include <syspin/cache.h>

#define SP_CACHE_MAGIC "SYSPINPT"
/* Also raised when the analysis gives different tables for the same file
 * (2: numbers read through a published pointer, debug-file symbols), so
 * that tables made by an older syspin are made again. */
#define SP_CACHE_VERSION 2u
#define SP_CACHE_ALIGN(n) (((n) + 7) & ~(size_t)7)

struct sp_cache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t flags;
	struct sp_file_id id;
	uint8_t build_id[SP_CACHE_BUILD_ID_MAX];
	uint32_t build_id_len;
	uint32_t nsites;
	uint32_t nnrs;
	uint32_t nimports;
	uint32_t nexports;
	uint32_t strtab_size;
};

static_assert(sizeof(struct sp_cache_hdr) % 8 == 0, "header alignment");
static_assert(sizeof(struct sp_pin_site) == 24, "site layout");
static_assert(sizeof(struct sp_pin_export) == 16, "export layout");

#endif
