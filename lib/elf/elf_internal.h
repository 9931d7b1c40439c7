/* SPDX-License-Identifier: ISC */
/* Shared between the files of lib/elf; not a public interface. */
#ifndef SYSPIN_ELF_INTERNAL_H
#define SYSPIN_ELF_INTERNAL_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "elf/elf.h"

/* Larger files are not real objects. */
#define SP_ELF_MAX_SIZE (1ull << 40)

/* x86-64 user space ends at 2^47; a PT_LOAD beyond it is corrupt. */
#define SP_ELF_MAX_VADDR (1ull << 47)

/* Facts gathered while parsing, consumed by later collectors. */
struct sp_elf_build {
	bool has_interp;
	bool df1_pie;
	bool has_soname;

	bool has_eh_frame_hdr;
	uint64_t eh_frame_hdr_vaddr;
	uint64_t eh_frame_hdr_size;
	bool has_eh_frame_sec;		/* from section headers */
	uint64_t eh_frame_vaddr;
	uint64_t eh_frame_size;

	bool has_dynamic;
	uint64_t dynamic_offset;	/* file offset */
	uint64_t dynamic_size;

	/* From PT_DYNAMIC (virtual addresses). */
	uint64_t dt_symtab, dt_strtab, dt_strsz, dt_hash, dt_gnu_hash;
	uint64_t dt_jmprel, dt_pltrelsz, dt_rela, dt_relasz;
	uint64_t dt_init, dt_fini, dt_relr, dt_relrsz;
	bool dt_in_place;		/* DT_REL or DT_TEXTREL */

	/* Symbol tables from section headers (file offsets). */
	bool has_symtab;
	uint64_t symtab_off, symtab_size, symtab_str_off, symtab_str_size;
	bool has_gopclntab;		/* Go's function table */
	uint64_t gopclntab_off, gopclntab_size;
	bool has_dynsym_sec;
	uint64_t dynsym_off, dynsym_size, dynstr_off, dynstr_size;
};

/* A symbol table and its string table, in memory we may read. */
struct symtab {
	const Elf64_Sym *syms;	/* unaligned-safe: read with memcpy */
	uint64_t nsyms;
	const char *str;
	uint64_t strsz;
};

/*
 * The .symtab of elf's separate debug file, when elf has a build-id and
 * DIR/.build-id/xx/yyyy.debug (DIR: $SYSPIN_DEBUG_DIR, else /usr/lib/debug;
 * empty: none) carries the same one.  The file stays mapped in elf.
 */
bool sp_elf_debug_symtab(struct sp_elf *elf, struct symtab *t);

int sp_elf_note_phdr(struct sp_elf *elf, struct sp_elf_build *b,
    const GElf_Phdr *ph, size_t idx, struct sp_error *err);
int sp_elf_read_dynamic(struct sp_elf *elf, struct sp_elf_build *b,
    struct sp_error *err);
int sp_elf_read_sections(Elf *e, struct sp_elf *elf, struct sp_elf_build *b,
    struct sp_error *err);
int sp_elf_read_eh_frame(struct sp_elf *elf, const struct sp_elf_build *b,
    struct sp_error *err);
int sp_elf_read_symbols(struct sp_elf *elf, const struct sp_elf_build *b,
    struct sp_error *err);
int sp_elf_read_gopclntab(struct sp_elf *elf, const struct sp_elf_build *b,
    struct sp_error *err);

/* Records a non-fatal problem (first one wins). */
void sp_elf_warn(struct sp_elf *elf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Bounds-checked file range -> pointer, or NULL. */
static inline const uint8_t *
sp_elf_file_ptr(const struct sp_elf *elf, uint64_t off, uint64_t len)
{
	if (off > elf->size || len > elf->size - off)
		return NULL;
	return elf->data + off;
}

int sp_symbol_cmp(const void *a, const void *b);
/* Sorts by address (then larger first), skipping sorted input. */
void sp_symbols_sort(struct sp_symbol *v, size_t n);

#endif
