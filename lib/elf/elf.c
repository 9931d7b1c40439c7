/* SPDX-License-Identifier: ISC */
/*
 * Opening and validating an ELF image.  The ELF header and the program
 * headers are checked first, read with pread before anything is mapped
 * (a huge file that is not an object costs a few reads, not its size in
 * page faults): the class, byte order, machine and type, and every PT_LOAD
 * inside the image.  Then the file is mapped (lazily: only the pages read
 * are touched), libelf checks the section header table, and the
 * collectors take notes, unwind ranges and symbols.
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

#include "elf/elf.h"

#include "util/file.h"

#include "elf_internal.h"

/* Larger than any real object; keeps arithmetic far from overflow. */
#define SP_ELF_MAX_PHDRS 4096

/*
 * Executable code (the p_filesz of the executable PT_LOADs) beyond which a
 * file is not analysed: the analysis costs memory and time with the code
 * it decodes, and `syspin run` analyses what the pinned tree execs.  The
 * largest real x86-64 code measured is ~400 MB (CUDA's libcublasLt, a
 * Go terraform provider; libLLVM ~100 MB): 1 GiB is 2.5 times that.  The
 * refusal's err->code is EFBIG, so that callers tell it from bad input.
 */
#define SP_ELF_MAX_CODE (1ull << 30)

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

/* len bytes at off: from memory, or with pread when fd is not -1. */
static int
read_at(const struct sp_elf *elf, int fd, uint64_t off, void *buf,
    size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	if (off > elf->size || len > elf->size - off)
		return -1;
	if (fd == -1) {
		memcpy(buf, elf->data + off, len);
		return 0;
	}
	while (len > 0) {
		if ((n = pread(fd, p, len, (off_t)off)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;	/* the file shrank under us */
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

static int
check_ehdr(struct sp_elf *elf, const Elf64_Ehdr *eh, struct sp_error *err)
{
	if (eh->e_ident[EI_CLASS] != ELFCLASS64) {
		if (eh->e_ident[EI_CLASS] == ELFCLASS32)
			return sp_error_set(err, "unsupported: 32-bit ELF "
			    "(only x86-64 is supported)");
		return sp_error_set(err, "invalid ELF class");
	}
	if (elf->size < sizeof(*eh))
		return sp_error_set(err, "bad ELF header: truncated");
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return sp_error_set(err, "unsupported: big-endian ELF");
	elf->machine = eh->e_machine;
	if (eh->e_machine != EM_X86_64)
		return sp_error_set(err, "unsupported architecture: e_machine %u "
		    "(only x86-64 is supported)", eh->e_machine);
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return sp_error_set(err, "not an executable or shared object "
		    "(e_type %u)", eh->e_type);
	if (eh->e_phnum == 0)
		return sp_error_set(err, "no program headers");
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return sp_error_set(err, "bad program header entry size %u "
		    "(want %zu)", eh->e_phentsize, sizeof(Elf64_Phdr));
	/* PN_XNUM (more in section 0) is far above any real count too. */
	if (eh->e_phnum > SP_ELF_MAX_PHDRS)
		return sp_error_set(err, "absurd program header count %u",
		    eh->e_phnum);
	return 0;
}

/* A loaded segment must lie inside the image and not wrap. */
static int
check_load(const struct sp_elf *elf, const Elf64_Phdr *ph, size_t idx,
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

/* The executable PT_LOADs' bytes in the file, under SP_ELF_MAX_CODE.  Each
 * is inside the file (check_load), so the sum cannot overflow. */
static int
check_code_size(const Elf64_Phdr *ph, size_t n, struct sp_error *err)
{
	uint64_t code = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X))
			code += ph[i].p_filesz;
	if (code <= SP_ELF_MAX_CODE)
		return 0;
	sp_error_set(err, "executable code of %.1f GiB: over syspin's limit "
	    "of %llu GiB", code / (double)(1u << 30),
	    SP_ELF_MAX_CODE >> 30);
	if (err != NULL)
		err->code = EFBIG;
	return -1;
}

/*
 * The ELF header and the PT_LOADs, from raw bytes (fd: before the file is
 * mapped).  Everything later stages index through program headers is
 * checked again where it is read.
 */
static int
check_headers(struct sp_elf *elf, int fd, struct sp_error *err)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t i, nload = 0;
	int r = 0;

	memset(&eh, 0, sizeof(eh));
	if (elf->size < EI_NIDENT || read_at(elf, fd, 0, &eh, elf->size <
	    sizeof(eh) ? elf->size : sizeof(eh)) == -1 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		return sp_error_set(err, "not an ELF file");
	if (elf->size > SP_ELF_MAX_SIZE)
		return sp_error_set(err, "file too large");
	if (check_ehdr(elf, &eh, err) != 0)
		return -1;
	if ((ph = calloc(eh.e_phnum, sizeof(*ph))) == NULL)
		return sp_error_set(err, "out of memory");
	if (read_at(elf, fd, eh.e_phoff, ph, eh.e_phnum * sizeof(*ph)) == -1)
		r = sp_error_set(err, "truncated or corrupt program header "
		    "table (offset 0x%llx, %u entries)",
		    (unsigned long long)eh.e_phoff, eh.e_phnum);
	for (i = 0; r == 0 && i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (r = check_load(elf, &ph[i], i,
		    err)) == 0)
			nload++;
	if (r == 0 && nload == 0)
		r = sp_error_set(err, "no PT_LOAD segment");
	if (r == 0)
		r = check_code_size(ph, eh.e_phnum, err);
	free(ph);
	return r;
}

/* The segments and what the other program headers point at. */
static int
read_phdrs(Elf *e, struct sp_elf *elf, struct sp_elf_build *b,
    struct sp_error *err)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n) != 0)
		return sp_error_set(err, "bad program header table: %s",
		    elf_errmsg(-1));
	elf->segs = calloc(n, sizeof(*elf->segs));
	if (elf->segs == NULL)
		return sp_error_set(err, "out of memory");
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(e, (int)i, &ph) == NULL)
			return sp_error_set(err, "truncated or corrupt program "
			    "header %zu: %s", i, elf_errmsg(-1));
		if (sp_elf_note_phdr(elf, b, &ph, i, err) != 0)
			return -1;
		if (ph.p_type == PT_LOAD)
			elf->segs[elf->nsegs++] = (struct sp_segment){
				.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
				.offset = ph.p_offset, .filesz = ph.p_filesz,
				.flags = ph.p_flags,
			};
	}
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

	if (elf_version(EV_CURRENT) == EV_NONE)
		return sp_error_set(err, "libelf: %s", elf_errmsg(-1));
	e = elf_memory((char *)elf->data, elf->size);
	if (e == NULL)
		return sp_error_set(err, "libelf: %s", elf_errmsg(-1));
	if (elf_kind(e) != ELF_K_ELF) {
		sp_error_set(err, "not an ELF file");
		goto out;
	}
	if (gelf_getehdr(e, &eh) == NULL) {
		sp_error_set(err, "bad ELF header: %s", elf_errmsg(-1));
		goto out;
	}
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

/* path's descriptor, when it is a non-empty regular file: its size in
 * elf->size, its headers checked.  -1 with err set. */
static int
open_file(struct sp_elf *elf, const char *path, struct sp_error *err)
{
	struct stat st;
	int fd;

	/* Only a regular file is opened (no device, no FIFO). */
	if ((fd = sp_open_regular(path, &st)) == -2)
		return sp_error_set(err, S_ISDIR(st.st_mode) ?
		    "is a directory" : "not a regular file");
	if (fd < 0)
		return sp_error_sys(err, errno, NULL);
	if (st.st_size == 0)
		sp_error_set(err, "empty file");
	else {
		elf->st = st;
		elf->size = (size_t)st.st_size;
		if (check_headers(elf, fd, err) == 0)
			return fd;
	}
	close(fd);
	return -1;
}

int
sp_elf_check_file(const char *path, struct sp_error *err)
{
	struct sp_elf elf;
	int fd;

	reset(&elf);
	if ((fd = open_file(&elf, path, err)) == -1)
		return -1;
	close(fd);
	return 0;
}

int
sp_elf_open(struct sp_elf *elf, const char *path, struct sp_error *err)
{
	void *map;
	int fd;

	reset(elf);
	elf->name = strdup(path);
	if (elf->name == NULL)
		return sp_error_set(err, "out of memory");
	if ((fd = open_file(elf, path, err)) == -1)
		goto fail;
	/* Not populated: the pages nothing reads are never touched. */
	map = mmap(NULL, elf->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		sp_error_sys(err, errno, "mmap");
		goto fail;
	}
	elf->data = map;
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
	if (check_headers(elf, -1, err) != 0 || parse(elf, err) != 0) {
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
