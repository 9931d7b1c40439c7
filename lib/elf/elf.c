/* SPDX-License-Identifier: ISC */
/*
 * Opening and validating an ELF image.  libelf checks the header tables;
 * we check that every PT_LOAD we will index lies inside the image, then
 * hand off to the collectors for notes, unwind ranges and symbols.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <syspin/elf.h>

#include "elf_internal.h"

/* Larger than any real object; keeps arithmetic far from overflow. */

#define SP_ELF_MAX_PHDRS 4096

const char *
sp_elf_kind_name(enum sp_elf_kind kind)
{
	switch (kind) {
	case SP_ELF_EXEC: return "exec";
	case SP_ELF_EXEC_STATIC: return "static";
	case SP_ELF_PIE: return "pie";
	case SP_ELF_STATIC_PIE: return "static-pie";
	case SP_ELF_SHARED: return "shared";
	}
	return "?";
}

void
sp_build_id_hex(const uint8_t *id, size_t len, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * len] = '\0';
}

const struct sp_segment *
sp_elf_segment_at(const struct sp_elf *elf, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < elf->nsegs; i++) {
		const struct sp_segment *s = &elf->segs[i];
		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->memsz)
			return s;
	}
	return NULL;
}

const uint8_t *
sp_elf_vaddr_ptr(const struct sp_elf *elf, uint64_t vaddr, uint64_t len)
{
	size_t i;

	for (i = 0; i < elf->nsegs; i++) {
		const struct sp_segment *s = &elf->segs[i];
		if (vaddr < s->vaddr)
			continue;
		uint64_t off = vaddr - s->vaddr;
		if (off > s->filesz || len > s->filesz - off)
			continue;
		return elf->data + s->offset + off;
	}
	return NULL;
}

/* A loaded segment must lie inside the image and not wrap. */
static int
check_load(const struct sp_elf *elf, const GElf_Phdr *ph, size_t idx,
    struct sp_error *err)
{
	if (ph->p_filesz > ph->p_memsz)
		return sp_error_set(err, "PT_LOAD %zu: file size 0x%llx exceeds "
		    "memory size 0x%llx", idx, (unsigned long long)ph->p_filesz,
		    (unsigned long long)ph->p_memsz);
	if (ph->p_offset > elf->size || ph->p_filesz > elf->size - ph->p_offset)
		return sp_error_set(err, "truncated: PT_LOAD %zu (offset 0x%llx, "
		    "size 0x%llx) extends past the end of the file (0x%zx)", idx,
		    (unsigned long long)ph->p_offset,
		    (unsigned long long)ph->p_filesz, elf->size);
	if (ph->p_vaddr > SP_ELF_MAX_VADDR || ph->p_memsz > SP_ELF_MAX_VADDR ||
	    ph->p_vaddr + ph->p_memsz > SP_ELF_MAX_VADDR)
		return sp_error_set(err, "PT_LOAD %zu: address range 0x%llx+0x%llx "
		    "is not a user-space range", idx,
		    (unsigned long long)ph->p_vaddr,
		    (unsigned long long)ph->p_memsz);
	return 0;
}

static int
check_ident(Elf *e, struct sp_elf *elf, GElf_Ehdr *eh, struct sp_error *err)
{
	if (elf_kind(e) != ELF_K_ELF)
		return sp_error_set(err, "not an ELF file");
	if (gelf_getclass(e) != ELFCLASS64) {
		if (gelf_getclass(e) == ELFCLASS32)
			return sp_error_set(err, "unsupported: 32-bit ELF "
			    "(only x86-64 is supported)");
		return sp_error_set(err, "invalid ELF class");
	}
	if (gelf_getehdr(e, eh) == NULL)
		return sp_error_set(err, "bad ELF header: %s", elf_errmsg(-1));
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return sp_error_set(err, "unsupported: big-endian ELF");
	elf->machine = eh->e_machine;
	if (eh->e_machine != EM_X86_64)
		return sp_error_set(err, "unsupported architecture: e_machine %u "
		    "(only x86-64 is supported)", eh->e_machine);
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return sp_error_set(err, "not an executable or shared object "
		    "(e_type %u)", eh->e_type);
	if (eh->e_phnum != 0 && eh->e_phentsize != sizeof(Elf64_Phdr))
		return sp_error_set(err, "bad program header entry size %u "
		    "(want %zu)", eh->e_phentsize, sizeof(Elf64_Phdr));
	return 0;
}

static int
read_phdrs(Elf *e, struct sp_elf *elf, struct sp_elf_build *b,
    struct sp_error *err)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n) != 0)
		return sp_error_set(err, "bad program header table: %s",
		    elf_errmsg(-1));
	if (n == 0)
		return sp_error_set(err, "no program headers");
	if (n > SP_ELF_MAX_PHDRS)
		return sp_error_set(err, "absurd program header count %zu", n);
	elf->segs = calloc(n, sizeof(*elf->segs));
	if (elf->segs == NULL)
		return sp_error_set(err, "out of memory");
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(e, (int)i, &ph) == NULL)
			return sp_error_set(err, "truncated or corrupt program "
			    "header %zu: %s", i, elf_errmsg(-1));
		if (sp_elf_note_phdr(elf, b, &ph, i, err) != 0)
			return -1;
		if (ph.p_type != PT_LOAD)
			continue;
		if (check_load(elf, &ph, i, err) != 0)
			return -1;
		elf->segs[elf->nsegs++] = (struct sp_segment){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
			.offset = ph.p_offset, .filesz = ph.p_filesz,
			.flags = ph.p_flags,
		};
	}
	if (elf->nsegs == 0)
		return sp_error_set(err, "no PT_LOAD segment");
	return 0;
}

static void
classify(struct sp_elf *elf, const GElf_Ehdr *eh, const struct sp_elf_build *b)
{
	uint64_t lo = UINT64_MAX;
	size_t i;

	for (i = 0; i < elf->nsegs; i++)
		if (elf->segs[i].vaddr < lo)
			lo = elf->segs[i].vaddr;
	elf->base_vaddr = lo & ~0xfffull;
	elf->entry = eh->e_entry;
	if (eh->e_type == ET_EXEC)
		elf->kind = b->has_interp ? SP_ELF_EXEC : SP_ELF_EXEC_STATIC;
	/*
	 * DF_1_PIE marks a PIE.  Without it (older linkers), an ET_DYN with
	 * an interpreter and no soname is a PIE too; libc.so.6 has both an
	 * interpreter (it runs) and a soname: it is a shared object.
	 */
	else if (b->df1_pie || (b->has_interp && !b->has_soname))
		elf->kind = b->has_interp ? SP_ELF_PIE : SP_ELF_STATIC_PIE;
	else
		elf->kind = SP_ELF_SHARED;
}

static int
parse(struct sp_elf *elf, struct sp_error *err)
{
	struct sp_elf_build b = { 0 };
	GElf_Ehdr eh;
	Elf *e;
	int rc = -1;

	if (elf->size < EI_NIDENT || memcmp(elf->data, ELFMAG, SELFMAG) != 0)
		return sp_error_set(err, "not an ELF file");
	if (elf->size > SP_ELF_MAX_SIZE)
		return sp_error_set(err, "file too large");
	if (elf_version(EV_CURRENT) == EV_NONE)
		return sp_error_set(err, "libelf: %s", elf_errmsg(-1));
	e = elf_memory((char *)elf->data, elf->size);
	if (e == NULL)
		return sp_error_set(err, "libelf: %s", elf_errmsg(-1));
	if (check_ident(e, elf, &eh, err) != 0)
		goto out;
	if (read_phdrs(e, elf, &b, err) != 0)
		goto out;
	if (sp_elf_read_dynamic(elf, &b, err) != 0)
		goto out;
	classify(elf, &eh, &b);
	if (sp_elf_read_sections(e, elf, &b, err) != 0)
		goto out;
	if (sp_elf_read_eh_frame(elf, &b, err) != 0)
		goto out;
	if (sp_elf_read_symbols(elf, &b, err) != 0)
		goto out;
	if (sp_elf_read_gopclntab(elf, &b, err) != 0)
		goto out;
	rc = 0;
out:
	elf_end(e);
	return rc;
}

static void
reset(struct sp_elf *elf)
{
	memset(elf, 0, sizeof(*elf));
}

int
sp_elf_open(struct sp_elf *elf, const char *path, struct sp_error *err)
{
	struct stat st;
	void *map;
	int fd;

	reset(elf);
	elf->name = strdup(path);
	if (elf->name == NULL)
		return sp_error_set(err, "out of memory");
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		sp_error_sys(err, errno, NULL);
		goto fail;
	}
	if (fstat(fd, &st) != 0) {
		sp_error_sys(err, errno, NULL);
		close(fd);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		sp_error_set(err, "is a directory");
		close(fd);
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		sp_error_set(err, st.st_size == 0 && S_ISREG(st.st_mode) ?
		    "empty file" : "not a regular file");
		close(fd);
		goto fail;
	}
	/* Analysis reads most pages; faulting them in at once is cheaper. */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE |
	    MAP_POPULATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		sp_error_sys(err, errno, "mmap");
		goto fail;
	}
	elf->data = map;
	elf->size = (size_t)st.st_size;
	elf->mapped = true;
	if (parse(elf, err) != 0)
		goto fail;
	return 0;
fail:
	sp_elf_close(elf);
	return -1;
}

int
sp_elf_from_memory(struct sp_elf *elf, const void *data, size_t size,
    const char *name, struct sp_error *err)
{
	uint8_t *copy;

	reset(elf);
	elf->name = strdup(name);
	copy = size ? malloc(size) : NULL;
	if (elf->name == NULL || (size && copy == NULL)) {
		free(copy);
		sp_elf_close(elf);
		return sp_error_set(err, "out of memory");
	}
	if (size == 0) {
		sp_elf_close(elf);
		return sp_error_set(err, "empty image");
	}
	memcpy(copy, data, size);
	elf->data = copy;
	elf->size = size;
	elf->owned = true;
	if (parse(elf, err) != 0) {
		sp_elf_close(elf);
		return -1;
	}
	return 0;
}

void
sp_elf_close(struct sp_elf *elf)
{
	if (elf->mapped)
		munmap((void *)elf->data, elf->size);
	else if (elf->owned)
		free((void *)elf->data);
	if (elf->debug_data != NULL)
		munmap((void *)elf->debug_data, elf->debug_size);
	free(elf->debug_path);
	free(elf->name);
	free(elf->interp);
	free(elf->segs);
	free(elf->fdes);
	free(elf->syms);
	free(elf->objects);
	free(elf->exports);
	free(elf->plt);
	free(elf->got);
	reset(elf);
}
