/* SPDX-License-Identifier: ISC */
/*
 * Stage 4: a process's executable mappings, attributed to objects.
 *
 * The runtime builds an sp_layout of its own process (every executable
 * mapping, attributed to a loaded object, the vDSO, the vsyscall page, or
 * nothing) and attaches each object's pin table; placement.h turns it
 * into pins at run-time addresses.  procfs.h reads /proc, report.h writes
 * what the runtime installed.
 *
 * Lean code only (libc): this is linked into the runtime.
 */
#ifndef SYSPIN_LAYOUT_LAYOUT_H
#define SYSPIN_LAYOUT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pins/cache.h"
#include "util/error.h"

/* ---- process layout ---- */

enum sp_obj_kind {
	SP_OBJ_FILE,		/* ELF object loaded by ld.so */
	SP_OBJ_VDSO,
	SP_OBJ_VSYSCALL,	/* fixed kernel ABI: three entry points */
	SP_OBJ_UNKNOWN,		/* executable, but nothing we can analyse */
};

struct sp_object {
	char *name;		/* path, "[vdso]", "[vsyscall]", "[anon]" */
	enum sp_obj_kind kind;
	uint64_t base;		/* load bias: ip = base + site addr + len */
	uint64_t image;		/* SP_OBJ_VDSO: address of the ELF header */
	uint64_t image_size;	/* SP_OBJ_VDSO: bytes of the image */
	uint64_t trap;		/* SP_OBJ_VDSO: its first `syscall`, or 0 */
	bool have_id;
	struct sp_file_id id;	/* SP_OBJ_FILE, checked against maps */
	uint8_t build_id[SP_CACHE_BUILD_ID_MAX];
	size_t build_id_len;
	char key[SP_CACHE_KEY_MAX]; /* "" when no table can exist */
	bool have_tab;		/* else: empty table */
	bool loader;		/* the image's ld.so: SP_BPF_PIN_LOADER */
	struct sp_pintab tab;
};

struct sp_layout_range {
	uint64_t start;
	uint64_t end;
	size_t obj;
};

struct sp_layout {
	struct sp_object *objs;
	size_t nobjs;
	struct sp_layout_range *ranges;	/* every executable mapping */
	size_t nranges;
};

/*
 * The calling process's layout: dl_iterate_phdr for the objects ld.so
 * loaded, /proc/self/maps for every executable mapping.  No tables yet.
 */
int sp_layout_self(struct sp_layout *lo, struct sp_error *err);

/*
 * Attaches tables from the cache.  Objects whose table is missing are listed
 * in *missing (indices, malloc'ed) so the caller can fill the cache and call
 * again; a table that is untrusted, malformed, or whose build-id disagrees
 * with the mapped image is dropped (empty table) and reported in warn.
 */
int sp_layout_load(struct sp_layout *lo, const struct sp_cache *cache,
    size_t **missing, size_t *nmissing, struct sp_error *warn);

void sp_layout_free(struct sp_layout *lo);

/* The region pid's main stack may grow into: a range with no pins. */
int sp_layout_add_stack(struct sp_layout *lo, pid_t pid,
    struct sp_error *err);

/* Index of the range holding addr, or -1. */
long sp_layout_find(const struct sp_layout *lo, uint64_t addr);

/* Building a layout (self.c, and the supervisor's for another process):
 * append an object (name "" = "[anon]") or a range; -1 out of memory. */
long sp_layout_add_object(struct sp_layout *lo, const char *name,
    enum sp_obj_kind kind, uint64_t base);
int sp_layout_add_range(struct sp_layout *lo, uint64_t start, uint64_t end,
    size_t obj);

/*
 * An object the program dlopens after the filter is installed (run
 * --dlopen): added with its identity and build-id but no ranges, so that
 * its imports (the numbers it passes to libc's syscall()) join the union
 * at the export site.  Already mapped: nothing to do.  -1 with err.
 */
int sp_layout_add_later(struct sp_layout *lo, const char *path,
    struct sp_error *err);

#endif
