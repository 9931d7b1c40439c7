/* SPDX-License-Identifier: ISC */
/*
 * Separate debug files.  Distributions strip .symtab from what they ship
 * and package it apart (Debian's libc6-dbg, *-dbgsym), as
 * /usr/lib/debug/.build-id/xx/yyyy.debug, the path gdb looks up too.  Its
 * symbol table names the local functions and, with their sizes, the data
 * objects, which the analysis needs to show that nothing else writes a
 * variable (lib/analysis/globals.c).  The file is a copy of the original's
 * headers with most contents left out; we only read its section headers,
 * its build-id note and its .symtab, and only use it when the build-id is
 * the one of the file we analyse.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_internal.h"

#define NT_GNU_BUILD_ID_ 3

static const uint8_t *
map_file(const char *path, size_t *size)
{
	struct stat st;
	void *p;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(Elf64_Ehdr) ||
	    (uint64_t)st.st_size > SP_ELF_MAX_SIZE) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*size = (size_t)st.st_size;
	return p;
}

/* [off, off + len) lies inside the file. */
static bool
inside(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

/* True when a SHT_NOTE section holds GNU build-id `id`. */
static bool
note_has_id(const uint8_t *p, uint64_t len, const uint8_t *id, size_t idlen)
{
	uint64_t pos = 0;

	while (pos + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + pos, 4);
		memcpy(&descsz, p + pos + 4, 4);
		memcpy(&type, p + pos + 8, 4);
		pos += 12;
		uint64_t name_end = pos + ((namesz + 3ull) & ~3ull);
		uint64_t desc_end = name_end + ((descsz + 3ull) & ~3ull);
		if (name_end > len || desc_end > len)
			return false;
		if (type == NT_GNU_BUILD_ID_ && namesz == 4 &&
		    memcmp(p + pos, "GNU", 4) == 0 && descsz == idlen &&
		    memcmp(p + name_end, id, idlen) == 0)
			return true;
		pos = desc_end;
	}
	return false;
}

static bool
shdr_at(const uint8_t *d, size_t size, const Elf64_Ehdr *eh, uint64_t i,
    Elf64_Shdr *sh)
{
	uint64_t off = eh->e_shoff + i * sizeof(*sh);

	if (!inside(size, off, sizeof(*sh)))
		return false;
	memcpy(sh, d + off, sizeof(*sh));
	return true;
}

/* The build-id matches and a .symtab with its strings is there. */
static bool
read_debug(const struct sp_elf *elf, const uint8_t *d, size_t size,
    struct symtab *t)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, str;
	bool id = false, tab = false;

	memcpy(&eh, d, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > 65000)
		return false;
	for (uint64_t i = 0; i < eh.e_shnum; i++) {
		if (!shdr_at(d, size, &eh, i, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_type == SHT_NOTE && inside(size, sh.sh_offset,
		    sh.sh_size) && note_has_id(d + sh.sh_offset, sh.sh_size,
		    elf->build_id, elf->build_id_len))
			id = true;
		if (sh.sh_type != SHT_SYMTAB || tab ||
		    sh.sh_entsize != sizeof(Elf64_Sym) ||
		    !inside(size, sh.sh_offset, sh.sh_size) ||
		    !shdr_at(d, size, &eh, sh.sh_link, &str) ||
		    str.sh_type != SHT_STRTAB ||
		    !inside(size, str.sh_offset, str.sh_size))
			continue;
		t->syms = (const Elf64_Sym *)(d + sh.sh_offset);
		t->nsyms = sh.sh_size / sizeof(Elf64_Sym);
		t->str = (const char *)(d + str.sh_offset);
		t->strsz = str.sh_size;
		tab = true;
	}
	return id && tab;
}

bool
sp_elf_debug_symtab(struct sp_elf *elf, struct symtab *t)
{
	const char *dir = getenv("SYSPIN_DEBUG_DIR");
	char path[4096], hex[2 * SP_BUILD_ID_MAX + 1];
	const uint8_t *d;
	size_t size;

	if (dir == NULL)
		dir = "/usr/lib/debug";
	if (dir[0] == '\0' || elf->build_id_len < 2)
		return false;
	sp_build_id_hex(elf->build_id, elf->build_id_len, hex);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, hex,
	    hex + 2);
	if ((d = map_file(path, &size)) == NULL)
		return false;
	if (!read_debug(elf, d, size, t) || (elf->debug_path =
	    strdup(path)) == NULL) {
		munmap((void *)d, size);
		return false;
	}
	elf->debug_data = d;
	elf->debug_size = size;
	return true;
}
