/* SPDX-License-Identifier: ISC */
/* Synthetic x86-64 ELF files for the dynamic reader's hostile cases. */
#ifndef TESTS_NEEDED_MKELF_H
#define TESTS_NEEDED_MKELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mkelf_spec {
	uint16_t type;			/* ET_DYN when 0 */
	const char *interp;		/* PT_INTERP, or NULL */
	const char *const *needed;
	size_t nneeded;
	size_t repeat;			/* DT_NEEDED of needed[0] again */
	const char *soname, *rpath, *runpath, *filter;
	uint64_t flags_1;
	bool audit;
	bool no_null;			/* no DT_NULL at the end */
	size_t filler;			/* DT_DEBUG entries first */
};

/*
 * One PT_LOAD maps the whole file at vaddr == offset: ELF header,
 * program headers (PT_LOAD, PT_DYNAMIC, PT_INTERP), strings, dynamic
 * section.  The offsets let a test corrupt what it wants.
 */
struct mkelf {
	uint8_t *buf;
	size_t size;
	size_t phoff;		/* [0] PT_LOAD, [1] PT_DYNAMIC, [2] PT_INTERP */
	size_t strtab;
	size_t dynamic;
	size_t ndyn;		/* entries, DT_NULL included */
};

void mkelf(const struct mkelf_spec *spec, struct mkelf *out);

#endif
