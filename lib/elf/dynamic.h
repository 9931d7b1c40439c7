/* SPDX-License-Identifier: ISC */
/*
 * The dynamic facts of one ELF file: what ld.so reads to reserve an address
 * range for an object and to find the objects it needs.
 *
 * A light reader for files that may be hostile: a few preads (ELF header,
 * program headers, the dynamic section, the strings it names), every offset
 * bounds-checked, every count capped.  No libelf, no mapping of the file:
 * the start-up resolver (<syspin/needed.h>) reads dozens of candidates for
 * one exec, and sp_elf_open would parse symbols and unwind tables of each.
 *
 * Addresses are translated the way ld.so sees them: the dynamic section at
 * PT_DYNAMIC's p_vaddr, DT_STRTAB as a vaddr, both through the PT_LOADs.
 */
#ifndef SYSPIN_ELF_DYNAMIC_H
#define SYSPIN_ELF_DYNAMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define SP_DYN_PAGE		4096u
#define SP_DYN_MAX_PHDRS	4096u	/* real files have about a dozen */
#define SP_DYN_MAX_ENTRIES	65536u	/* dynamic section entries */
#define SP_DYN_MAX_NEEDED	1024u	/* DT_NEEDED, and filters apart */
#define SP_DYN_MAX_STRING	4096u	/* bytes of one string, NUL included */

struct sp_dyn {
	uint16_t type;		/* e_type: ET_EXEC or ET_DYN */
	uint64_t entry;		/* e_entry */
	bool dynamic;		/* has PT_DYNAMIC */
	char *interp;		/* PT_INTERP, or NULL */
	uint64_t lo;		/* lowest PT_LOAD vaddr, page-aligned down */
	uint64_t span;		/* page-aligned extent of the PT_LOADs */
	uint64_t align;		/* largest PT_LOAD p_align, >= SP_DYN_PAGE */
	char **needed;		/* DT_NEEDED, in order */
	size_t nneeded;
	char **filters;		/* DT_FILTER, DT_AUXILIARY: loaded at start */
	size_t nfilters;
	char *soname;		/* DT_SONAME, or NULL */
	char *rpath;		/* DT_RPATH, several joined by ':', or NULL */
	char *runpath;		/* DT_RUNPATH, likewise */
	uint64_t flags_1;	/* DT_FLAGS_1 (DF_1_NODEFLIB, ...) */
	bool audit;		/* DT_AUDIT or DT_DEPAUDIT present */
};

/*
 * Reads an x86-64 ELF file (ET_EXEC or ET_DYN).  Returns 0, or -1 with
 * one sentence in err (the caller adds the file name); *d is then empty.
 */
int sp_dyn_read(const char *path, struct sp_dyn *d, struct sp_error *err);

/* The same from an open file (read with pread; the offset is unchanged). */
int sp_dyn_read_fd(int fd, struct sp_dyn *d, struct sp_error *err);

/* A deep copy of from in *to: 0, or -1 out of memory (*to empty). */
int sp_dyn_copy(struct sp_dyn *to, const struct sp_dyn *from);

/* The same from bytes in memory (tests, fuzzing). */
int sp_dyn_from_memory(const void *data, size_t size, struct sp_dyn *d,
    struct sp_error *err);

void sp_dyn_free(struct sp_dyn *d);

#endif
