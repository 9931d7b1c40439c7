/* SPDX-License-Identifier: ISC */
/* Where the code of an image lies (lib/elf/code_ranges.c), for the
 * analysis; not a public interface. */
#ifndef SYSPIN_ELF_CODE_RANGES_H
#define SYSPIN_ELF_CODE_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elf.h"

struct sp_vrange {
	uint64_t start, end;
};

/*
 * The allocated SHF_EXECINSTR sections of elf, sorted and merged, as
 * virtual address ranges.  Returns their number (*out malloc'ed), 0 when
 * the section headers name no such section (stripped of its headers, or
 * odd: then every executable segment is code), -1 when out of memory.
 */
long sp_elf_code_ranges(const struct sp_elf *elf, struct sp_vrange **out);

#endif
