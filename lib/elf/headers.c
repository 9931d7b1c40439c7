/* SPDX-License-Identifier: ISC */
/*
 * Program headers other than PT_LOAD, the dynamic section and (optional)
 * section headers.  Section headers are a bonus: a corrupt or missing
 * table only produces a warning, since the kernel never reads it either.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_internal.h"

#define NOTE_ALIGN(x) (((x) + 3u) & ~(uint64_t)3u)

void
sp_elf_warn(struct sp_elf *elf, const char *fmt, ...)
{
	va_list ap;

	if (elf->warning[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(elf->warning, sizeof(elf->warning), fmt, ap);
	va_end(ap);
}

/* Walks the notes of one PT_NOTE for NT_GNU_BUILD_ID. */
static void
read_build_id(struct sp_elf *elf, uint64_t off, uint64_t size)
{
	const uint8_t *p = sp_elf_file_ptr(elf, off, size);
	uint64_t pos = 0;

	if (p == NULL) {
		sp_elf_warn(elf, "PT_NOTE extends past the end of the file");
		return;
	}
	while (size - pos >= 12) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + pos, 4);
		memcpy(&descsz, p + pos + 4, 4);
		memcpy(&type, p + pos + 8, 4);
		pos += 12;
		if (NOTE_ALIGN(namesz) > size - pos)
			return;
		const uint8_t *name = p + pos;
		pos += NOTE_ALIGN(namesz);
		if (NOTE_ALIGN(descsz) > size - pos && descsz > size - pos)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && descsz > 0 &&
		    descsz <= SP_BUILD_ID_MAX && elf->build_id_len == 0) {
			memcpy(elf->build_id, p + pos, descsz);
			elf->build_id_len = descsz;
		}
		if (NOTE_ALIGN(descsz) > size - pos)
			return;
		pos += NOTE_ALIGN(descsz);
	}
}

static int
read_interp(struct sp_elf *elf, struct sp_elf_build *b, const GElf_Phdr *ph,
    struct sp_error *err)
{
	const uint8_t *p = sp_elf_file_ptr(elf, ph->p_offset, ph->p_filesz);

	if (p == NULL || ph->p_filesz == 0 || ph->p_filesz > 4096)
		return sp_error_set(err, "truncated or invalid PT_INTERP");
	if (b->has_interp)
		return sp_error_set(err, "more than one PT_INTERP");
	b->has_interp = true;
	elf->interp = strndup((const char *)p, ph->p_filesz);
	if (elf->interp == NULL)
		return sp_error_set(err, "out of memory");
	return 0;
}

int
sp_elf_note_phdr(struct sp_elf *elf, struct sp_elf_build *b,
    const GElf_Phdr *ph, size_t idx, struct sp_error *err)
{
	(void)idx;
	switch (ph->p_type) {
	case PT_INTERP:
		return read_interp(elf, b, ph, err);
	case PT_NOTE:
		read_build_id(elf, ph->p_offset, ph->p_filesz);
		break;
	case PT_GNU_EH_FRAME:
		b->has_eh_frame_hdr = true;
		b->eh_frame_hdr_vaddr = ph->p_vaddr;
		b->eh_frame_hdr_size = ph->p_memsz;
		break;
	case PT_DYNAMIC:
		if (sp_elf_file_ptr(elf, ph->p_offset, ph->p_filesz) == NULL) {
			sp_elf_warn(elf, "PT_DYNAMIC extends past the end of "
			    "the file");
			break;
		}
		b->has_dynamic = true;
		b->dynamic_offset = ph->p_offset;
		b->dynamic_size = ph->p_filesz;
		break;
	default:
		if (ph->p_type == SP_PT_OPENBSD_SYSCALLS &&
		    !elf->has_pin_section) {
			if (sp_elf_file_ptr(elf, ph->p_offset, ph->p_filesz) ==
			    NULL)
				return sp_error_set(err, "PT_OPENBSD_SYSCALLS "
				    "extends past the end of the file");
			elf->has_pin_section = true;
			elf->pin_offset = ph->p_offset;
			elf->pin_size = ph->p_filesz;
		}
		break;
	}
	return 0;
}

int
sp_elf_read_dynamic(struct sp_elf *elf, struct sp_elf_build *b,
    struct sp_error *err)
{
	const uint8_t *p;
	uint64_t i, n;

	(void)err;
	if (!b->has_dynamic)
		return 0;
	p = elf->data + b->dynamic_offset;
	n = b->dynamic_size / sizeof(Elf64_Dyn);
	for (i = 0; i < n; i++) {
		Elf64_Dyn d;
		memcpy(&d, p + i * sizeof(d), sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		switch (d.d_tag) {
		case DT_FLAGS_1:
			b->df1_pie = (d.d_un.d_val & DF_1_PIE) != 0;
			break;
		case DT_SONAME: b->has_soname = true; break;
		case DT_SYMTAB: b->dt_symtab = d.d_un.d_ptr; break;
		case DT_STRTAB: b->dt_strtab = d.d_un.d_ptr; break;
		case DT_STRSZ: b->dt_strsz = d.d_un.d_val; break;
		case DT_HASH: b->dt_hash = d.d_un.d_ptr; break;
		case DT_GNU_HASH: b->dt_gnu_hash = d.d_un.d_ptr; break;
		case DT_JMPREL: b->dt_jmprel = d.d_un.d_ptr; break;
		case DT_PLTRELSZ: b->dt_pltrelsz = d.d_un.d_val; break;
		case DT_RELA: b->dt_rela = d.d_un.d_ptr; break;
		case DT_RELASZ: b->dt_relasz = d.d_un.d_val; break;
		case DT_INIT: b->dt_init = d.d_un.d_ptr; break;
		case DT_FINI: b->dt_fini = d.d_un.d_ptr; break;
		case DT_RELR: b->dt_relr = d.d_un.d_ptr; break;
		case DT_RELRSZ: b->dt_relrsz = d.d_un.d_val; break;
		case DT_REL: case DT_TEXTREL:
			b->dt_in_place = true;
			break;
		case DT_FLAGS:
			if (d.d_un.d_val & DF_TEXTREL)
				b->dt_in_place = true;
			break;
		default: break;
		}
	}
	return 0;
}

/* Remembers the file range of a section's contents if it is in bounds. */
static bool
section_range(struct sp_elf *elf, const GElf_Shdr *sh, uint64_t *off,
    uint64_t *size)
{
	if (sh->sh_type == SHT_NOBITS)
		return false;
	if (sp_elf_file_ptr(elf, sh->sh_offset, sh->sh_size) == NULL) {
		sp_elf_warn(elf, "section extends past the end of the file");
		return false;
	}
	*off = sh->sh_offset;
	*size = sh->sh_size;
	return true;
}

static void
note_symtab(Elf *e, struct sp_elf *elf, struct sp_elf_build *b,
    const GElf_Shdr *sh)
{
	GElf_Shdr strsh;
	Elf_Scn *strscn = elf_getscn(e, sh->sh_link);
	uint64_t off, size, soff, ssize;

	if (strscn == NULL || gelf_getshdr(strscn, &strsh) == NULL ||
	    !section_range(elf, sh, &off, &size) ||
	    !section_range(elf, &strsh, &soff, &ssize))
		return;
	if (sh->sh_type == SHT_SYMTAB) {
		b->has_symtab = true;
		b->symtab_off = off;
		b->symtab_size = size;
		b->symtab_str_off = soff;
		b->symtab_str_size = ssize;
	} else {
		b->has_dynsym_sec = true;
		b->dynsym_off = off;
		b->dynsym_size = size;
		b->dynstr_off = soff;
		b->dynstr_size = ssize;
	}
}

static void
note_section(Elf *e, struct sp_elf *elf, struct sp_elf_build *b,
    const GElf_Shdr *sh, const char *name)
{
	uint64_t off, size;

	if (sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM) {
		note_symtab(e, elf, b, sh);
	} else if (strcmp(name, ".eh_frame") == 0 &&
	    (sh->sh_flags & SHF_ALLOC) != 0) {
		b->has_eh_frame_sec = true;
		b->eh_frame_vaddr = sh->sh_addr;
		b->eh_frame_size = sh->sh_size;
	} else if (strcmp(name, ".gopclntab") == 0 &&
	    section_range(elf, sh, &off, &size)) {
		b->has_gopclntab = true;
		b->gopclntab_off = off;
		b->gopclntab_size = size;
	} else if (strcmp(name, ".openbsd.syscalls") == 0 &&
	    !elf->has_pin_section && section_range(elf, sh, &off, &size)) {
		elf->has_pin_section = true;
		elf->pin_offset = off;
		elf->pin_size = size;
	}
}

int
sp_elf_read_sections(Elf *e, struct sp_elf *elf, struct sp_elf_build *b,
    struct sp_error *err)
{
	size_t shstrndx, nsec;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	(void)err;
	if (elf_getshdrnum(e, &nsec) != 0) {
		sp_elf_warn(elf, "ignoring corrupt section header table");
		return 0;
	}
	if (nsec == 0)
		return 0;
	if (elf_getshdrstrndx(e, &shstrndx) != 0) {
		sp_elf_warn(elf, "ignoring section headers: no name table");
		return 0;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *name;
		if (gelf_getshdr(scn, &sh) == NULL) {
			sp_elf_warn(elf, "ignoring corrupt section header");
			return 0;
		}
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name == NULL)
			continue;
		note_section(e, elf, b, &sh, name);
	}
	return 0;
}
