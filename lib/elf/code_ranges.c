/* SPDX-License-Identifier: ISC */
/*
 * Code versus data inside executable segments.  Older linkers (no
 * `-z separate-code`: LLVM 15, clang, GHC and rustup binaries on Debian 12)
 * put the ELF headers, .dynsym, .rodata and .eh_frame in the same r-x
 * PT_LOAD as .text.  Those bytes are never executed on purpose; decoding
 * them as code costs minutes and gigabytes on large libraries (libLLVM's
 * 40 MB of .rodata) and turns every 0f 05 in a string table into an
 * unresolved "site" that the run-time tables would allow any number from.
 * When the section headers name the executable sections, only those are
 * code; the trap bytes elsewhere are gadgets, which get no pins (fail
 * closed).  The loader ignores section headers, so they could lie: code
 * they leave out is then killed when it issues a call, never let through.
 */
#include <stdlib.h>
#include <string.h>

#include "code_ranges.h"
#include "elf_internal.h"

static int
range_cmp(const void *x, const void *y)
{
	const struct sp_vrange *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static bool
shdr_at(const struct sp_elf *elf, uint64_t shoff, uint64_t i, Elf64_Shdr *sh)
{
	const uint8_t *p;

	if (i > (UINT64_MAX - shoff) / sizeof(*sh))
		return false;
	p = sp_elf_file_ptr(elf, shoff + i * sizeof(*sh), sizeof(*sh));
	if (p == NULL)
		return false;
	memcpy(sh, p, sizeof(*sh));
	return true;
}

long
sp_elf_code_ranges(const struct sp_elf *elf, struct sp_vrange **out)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	uint64_t nsec;
	struct sp_vrange *v;
	size_t n = 0;

	*out = NULL;
	if (elf->size < sizeof(eh))
		return 0;
	memcpy(&eh, elf->data, sizeof(eh));
	if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr))
		return 0;
	nsec = eh.e_shnum;
	/* Extended numbering: the count is in section 0's sh_size. */
	if (nsec == 0 && shdr_at(elf, eh.e_shoff, 0, &sh))
		nsec = sh.sh_size;
	if (nsec == 0 || nsec > elf->size / sizeof(Elf64_Shdr))
		return 0;
	v = malloc(nsec * sizeof(*v));
	if (v == NULL)
		return -1;
	for (uint64_t i = 0; i < nsec; i++) {
		if (!shdr_at(elf, eh.e_shoff, i, &sh))
			break;
		if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0 ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
		    (SHF_ALLOC | SHF_EXECINSTR) ||
		    sh.sh_addr > UINT64_MAX - sh.sh_size)
			continue;
		v[n++] = (struct sp_vrange){ sh.sh_addr,
		    sh.sh_addr + sh.sh_size };
	}
	if (n == 0) {
		free(v);
		return 0;
	}
	qsort(v, n, sizeof(*v), range_cmp);
	size_t k = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].start <= v[k].end) {
			if (v[i].end > v[k].end)
				v[k].end = v[i].end;
		} else {
			v[++k] = v[i];
		}
	}
	*out = v;
	return (long)(k + 1);
}
