/* SPDX-License-Identifier: ISC */
/*
 * An ELF image already in memory (the vDSO, an object ld.so mapped): its
 * build-id and the bytes its PT_LOADs span, read from its program
 * headers.  Lean: the runtime links it too (no libelf).
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "elf/elf.h"

#define PAGE_DOWN(a) ((a) & ~(uint64_t)4095)

size_t
sp_mem_build_id(const void *ehdr, uint64_t bias, uint8_t *out, size_t max)
{
	const ElfW(Ehdr) *eh = ehdr;
	const ElfW(Phdr) *ph = (const void *)((const char *)ehdr + eh->e_phoff);
	size_t i, off;

	for (i = 0; i < eh->e_phnum; i++) {
		const uint8_t *p = (const void *)(bias + ph[i].p_vaddr);
		if (ph[i].p_type != PT_NOTE)
			continue;
		for (off = 0; off + 12 <= ph[i].p_filesz;) {
			const ElfW(Nhdr) *nh = (const void *)(p + off);
			size_t nsz = (nh->n_namesz + 3) & ~3u;
			size_t dsz = (nh->n_descsz + 3) & ~3u;
			if (nsz + dsz > ph[i].p_filesz - off - 12)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID &&
			    nh->n_namesz == 4 && nh->n_descsz <= max &&
			    memcmp(p + off + 12, "GNU", 4) == 0) {
				memcpy(out, p + off + 12 + nsz, nh->n_descsz);
				return nh->n_descsz;
			}
			off += 12 + nsz + dsz;
		}
	}
	return 0;
}

size_t
sp_mem_image_size(const void *ehdr)
{
	const ElfW(Ehdr) *eh = ehdr;
	const ElfW(Phdr) *ph = (const void *)((const char *)ehdr + eh->e_phoff);
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (PAGE_DOWN(ph[i].p_vaddr) < lo)
			lo = PAGE_DOWN(ph[i].p_vaddr);
		if (ph[i].p_vaddr + ph[i].p_filesz > hi)
			hi = ph[i].p_vaddr + ph[i].p_filesz;
	}
	return hi > lo ? hi - lo : 0;
}
