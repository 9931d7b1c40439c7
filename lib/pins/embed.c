/* SPDX-License-Identifier: ISC */
/*
 * Embedding an OpenBSD pin table (.openbsd.syscalls + PT_OPENBSD_SYSCALLS)
 * into a copy of a linked ELF file.
 *
 * A new program header needs room, and the table sits right after the ELF
 * header with the first section behind it.  Reusing a slot would mean
 * dropping a header someone reads (PT_NOTE, PT_GNU_STACK, PT_GNU_PROPERTY
 * all matter), so the whole table moves instead: to the end of the file,
 * into a new read-only PT_LOAD above every other segment, with PT_PHDR
 * pointing at it.  The new segment keeps vaddr - offset equal to the first
 * PT_LOAD's, so the kernel's AT_PHDR (old kernels: first load + e_phoff;
 * new ones: the load holding e_phoff), glibc's __ehdr_start + e_phoff and
 * PT_PHDR all agree.  Nothing of the original file moves: its bytes,
 * offsets and addresses stay, the new pieces are appended:
 *	[original file][entries][.shstrtab copy][section headers][hole]
 *	[program headers, in the new PT_LOAD]
 * The hole (sparse) lets the new segment's address clear .bss.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf.h"
#include "pins/openbsd.h"
#include "elf/sites.h"

#define PAGE		0x1000u
#define SECNAME		".openbsd.syscalls"
#define ALIGN(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))

int
sp_openbsd_entries_from_scan(const struct sp_scan *scan,
    struct sp_openbsd_entry **out, size_t *n, size_t *skipped,
    struct sp_error *err)
{
	struct sp_openbsd_entry *e = NULL;
	size_t count = 0, k = 0;

	*out = NULL;
	*n = *skipped = 0;
	for (size_t i = 0; i < scan->nsites; i++) {
		const struct sp_site *s = &scan->sites[i];

		if (!sp_site_is_exact(s)) {
			(*skipped)++;
			continue;
		}
		if (s->addr > UINT32_MAX)
			return sp_error_set(err, "trap at 0x%" PRIx64 " is "
			    "above 4 GiB: OpenBSD's 32-bit offsets cannot "
			    "name it", s->addr);
		for (uint32_t j = 0; j < s->nr_count; j++)
			if (sp_site_nr(scan, s, j) >= SP_SYS_MAXSYSCALL)
				return sp_error_set(err, "trap at 0x%" PRIx64
				    ": number %" PRIu32 " is not below "
				    "SYS_MAXSYSCALL (%d)", s->addr,
				    sp_site_nr(scan, s, j), SP_SYS_MAXSYSCALL);
		count += s->nr_count;
	}
	if (count > SP_OPENBSD_MAX_ENTRIES)
		return sp_error_set(err, "%zu entries, more than OpenBSD reads "
		    "(SYS_MAXSYSCALL*2 = %d)", count, SP_OPENBSD_MAX_ENTRIES);
	if (count > 0 && (e = calloc(count, sizeof(*e))) == NULL)
		return sp_error_set(err, "out of memory");
	for (size_t i = 0; i < scan->nsites; i++) {
		const struct sp_site *s = &scan->sites[i];

		if (!sp_site_is_exact(s))
			continue;
		for (uint32_t j = 0; j < s->nr_count; j++)
			e[k++] = (struct sp_openbsd_entry){ (uint32_t)s->addr,
			    sp_site_nr(scan, s, j) };
	}
	*out = e;
	*n = count;
	return 0;
}

/* The new file, as pieces to write over a copy of the original. */
struct plan {
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t phnum;
	Elf64_Shdr *sh;		/* NULL when the file has no section headers */
	size_t shnum;
	char *shstr;
	size_t shstrsz;
	size_t last_load;	/* index of the last PT_LOAD */
	uint64_t delta;		/* the first PT_LOAD's vaddr - offset */
	uint64_t pin_off, shstr_off, sh_off, ph_off, end;
};

static void
plan_free(struct plan *p)
{
	free(p->ph);
	free(p->sh);
	free(p->shstr);
}

static bool
in_file(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

static int
check_ehdr(const struct sp_elf *elf, const Elf64_Ehdr *eh,
    struct sp_error *err)
{
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return sp_error_set(err, "not a 64-bit little-endian ELF file");
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return sp_error_set(err, "not an executable or shared object");
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 ||
	    eh->e_phnum >= PN_XNUM - 2 ||
	    !in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr),
	    elf->size))
		return sp_error_set(err, "program header table unusable");
	if (eh->e_shoff != 0 && (eh->e_shnum == 0 ||
	    eh->e_shstrndx == SHN_XINDEX || eh->e_shnum >= SHN_LORESERVE - 1))
		return sp_error_set(err, "extended section numbering is not "
		    "supported");
	if (eh->e_shnum != 0 && (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shstrndx >= eh->e_shnum ||
	    !in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr),
	    elf->size)))
		return sp_error_set(err, "section header table unusable");
	if (elf->has_pin_section)
		return sp_error_set(err, "already has a pin table "
		    "(.openbsd.syscalls or PT_OPENBSD_SYSCALLS)");
	return 0;
}

/*
 * Copies the program headers with room for two more, and finds what the
 * new segment must clear: the end of the highest PT_LOAD, and the first
 * one's vaddr - offset.  PT_LOADs must be in ascending order (the kernel
 * sizes the mapping from the first and the last).
 */
static int
plan_phdrs(const struct sp_elf *elf, struct plan *p, size_t *last_load,
    uint64_t *vend, uint64_t *delta, struct sp_error *err)
{
	bool seen = false;
	uint64_t prev = 0;

	p->phnum = p->eh.e_phnum;
	p->ph = calloc(p->phnum + 2, sizeof(*p->ph));
	if (p->ph == NULL)
		return sp_error_set(err, "out of memory");
	memcpy(p->ph, elf->data + p->eh.e_phoff, p->phnum * sizeof(*p->ph));
	*vend = 0;
	for (size_t i = 0; i < p->phnum; i++) {
		const Elf64_Phdr *ph = &p->ph[i];

		if (ph->p_type == SP_PT_OPENBSD_SYSCALLS)
			return sp_error_set(err, "already has "
			    "PT_OPENBSD_SYSCALLS");
		if (ph->p_type != PT_LOAD)
			continue;
		if (seen && ph->p_vaddr < prev)
			return sp_error_set(err, "PT_LOAD segments are not in "
			    "ascending order");
		if (!seen) {
			if (ph->p_vaddr < ph->p_offset ||
			    (ph->p_vaddr - ph->p_offset) % PAGE != 0)
				return sp_error_set(err, "first PT_LOAD has "
				    "an unusual vaddr/offset relation");
			*delta = ph->p_vaddr - ph->p_offset;
		}
		seen = true;
		prev = ph->p_vaddr;
		*last_load = i;
		if (ph->p_vaddr + ph->p_memsz > *vend)
			*vend = ph->p_vaddr + ph->p_memsz;
	}
	if (!seen)
		return sp_error_set(err, "no PT_LOAD segment");
	if (*vend > UINT64_MAX / 2)
		return sp_error_set(err, "segments too high in the address "
		    "space");
	return 0;
}

/* The section headers plus one, and .shstrtab plus the new name. */
static int
plan_shdrs(const struct sp_elf *elf, struct plan *p, struct sp_error *err)
{
	const Elf64_Shdr *str;

	p->shnum = p->eh.e_shnum;
	if (p->shnum == 0)
		return 0;	/* only the program header will say it */
	p->sh = calloc(p->shnum + 1, sizeof(*p->sh));
	if (p->sh == NULL)
		return sp_error_set(err, "out of memory");
	memcpy(p->sh, elf->data + p->eh.e_shoff, p->shnum * sizeof(*p->sh));
	str = &p->sh[p->eh.e_shstrndx];
	if (str->sh_type != SHT_STRTAB ||
	    !in_file(str->sh_offset, str->sh_size, elf->size))
		return sp_error_set(err, "section name table unusable");
	p->shstrsz = str->sh_size + sizeof(SECNAME);
	p->shstr = malloc(p->shstrsz);
	if (p->shstr == NULL)
		return sp_error_set(err, "out of memory");
	memcpy(p->shstr, elf->data + str->sh_offset, str->sh_size);
	memcpy(p->shstr + str->sh_size, SECNAME, sizeof(SECNAME));
	return 0;
}

static int
plan_build(const struct sp_elf *elf, size_t n, struct plan *p,
    struct sp_error *err)
{
	uint64_t vend = 0, cur;

	memset(p, 0, sizeof(*p));
	if (elf->size < sizeof(p->eh))
		return sp_error_set(err, "truncated ELF header");
	memcpy(&p->eh, elf->data, sizeof(p->eh));
	if (check_ehdr(elf, &p->eh, err) != 0 ||
	    plan_phdrs(elf, p, &p->last_load, &vend, &p->delta, err) != 0 ||
	    plan_shdrs(elf, p, err) != 0)
		return -1;
	p->pin_off = ALIGN(elf->size, 8);
	cur = p->pin_off + n * sizeof(struct sp_openbsd_entry);
	if (p->sh != NULL) {
		p->shstr_off = cur;
		p->sh_off = ALIGN(cur + p->shstrsz, 8);
		cur = p->sh_off + (p->shnum + 1) * sizeof(Elf64_Shdr);
	}
	/* Page aligned, and its address above every segment's end. */
	p->ph_off = ALIGN(cur, PAGE);
	if (p->ph_off + p->delta < ALIGN(vend, PAGE))
		p->ph_off = ALIGN(vend, PAGE) - p->delta;
	p->phnum += 2;
	p->end = p->ph_off + p->phnum * sizeof(Elf64_Phdr);
	return 0;
}

/* Fills in the headers once the layout is known. */
static void
plan_fill(struct plan *p, size_t n)
{
	uint64_t phsize = p->phnum * sizeof(Elf64_Phdr);
	Elf64_Phdr load = {
		.p_type = PT_LOAD, .p_flags = PF_R, .p_offset = p->ph_off,
		.p_vaddr = p->ph_off + p->delta,
		.p_paddr = p->ph_off + p->delta,
		.p_filesz = phsize, .p_memsz = phsize, .p_align = PAGE,
	};
	Elf64_Phdr pin = {
		.p_type = SP_PT_OPENBSD_SYSCALLS, .p_flags = PF_R,
		.p_offset = p->pin_off,
		.p_filesz = n * sizeof(struct sp_openbsd_entry),
		.p_memsz = n * sizeof(struct sp_openbsd_entry), .p_align = 4,
	};
	size_t old = p->phnum - 2, last = p->last_load;

	/* The new PT_LOAD goes right after the last one, PT_.._SYSCALLS last. */
	memmove(&p->ph[last + 2], &p->ph[last + 1],
	    (old - last - 1) * sizeof(*p->ph));
	p->ph[last + 1] = load;
	p->ph[p->phnum - 1] = pin;
	for (size_t i = 0; i < p->phnum; i++)
		if (p->ph[i].p_type == PT_PHDR) {
			p->ph[i].p_offset = load.p_offset;
			p->ph[i].p_vaddr = p->ph[i].p_paddr = load.p_vaddr;
			p->ph[i].p_filesz = p->ph[i].p_memsz = phsize;
		}
	p->eh.e_phoff = p->ph_off;
	p->eh.e_phnum = (Elf64_Half)p->phnum;
	if (p->sh == NULL)
		return;
	p->sh[p->eh.e_shstrndx].sh_offset = p->shstr_off;
	p->sh[p->eh.e_shstrndx].sh_size = p->shstrsz;
	p->sh[p->shnum] = (Elf64_Shdr){
		.sh_name = (Elf64_Word)(p->shstrsz - sizeof(SECNAME)),
		.sh_type = SHT_PROGBITS, .sh_offset = p->pin_off,
		.sh_size = n * sizeof(struct sp_openbsd_entry),
		.sh_addralign = 4,
	};
	p->eh.e_shoff = p->sh_off;
	p->eh.e_shnum = (Elf64_Half)(p->shnum + 1);
}

static int
put(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *b = buf;

	while (len > 0) {
		ssize_t w = pwrite(fd, b, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0)
			errno = EIO;
		if (w <= 0)
			return -1;
		b += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static int
write_plan(int fd, const struct sp_elf *elf, const struct plan *p,
    const struct sp_openbsd_entry *e, size_t n)
{
	if (put(fd, elf->data, elf->size, 0) != 0 ||
	    put(fd, &p->eh, sizeof(p->eh), 0) != 0 ||
	    (n > 0 && put(fd, e, n * sizeof(*e), p->pin_off) != 0) ||
	    put(fd, p->ph, p->phnum * sizeof(*p->ph), p->ph_off) != 0)
		return -1;
	if (p->sh != NULL &&
	    (put(fd, p->shstr, p->shstrsz, p->shstr_off) != 0 ||
	    put(fd, p->sh, (p->shnum + 1) * sizeof(*p->sh), p->sh_off) != 0))
		return -1;
	return ftruncate(fd, (off_t)p->end);
}

/* Reads the written file back: its table must be exactly E, and valid. */
static int
verify(const char *tmp, const struct sp_openbsd_entry *e, size_t n,
    struct sp_error *err)
{
	struct sp_openbsd_section sec;
	struct sp_elf out;
	int rc = -1;

	if (sp_elf_open(&out, tmp, err) != 0)
		return -1;
	if (sp_openbsd_read(&out, &sec, err) == 0) {
		if (!sec.present || !sec.valid || sec.n != n ||
		    (n > 0 && memcmp(sec.entries, e, n * sizeof(*e)) != 0))
			sp_error_set(err, "internal error: the written table "
			    "does not read back (%s)", sec.reason);
		else
			rc = 0;
		sp_openbsd_section_free(&sec);
	}
	sp_elf_close(&out);
	return rc;
}

static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return 1;
	if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A temporary file next to PATH, with MODE.  Its name is ours alone:
 * messages say only what went wrong, the caller names PATH. */
static int
make_temp(const char *path, mode_t mode, char **tmp, struct sp_error *err)
{
	int fd;

	if (asprintf(tmp, "%s.XXXXXX", path) < 0) {
		*tmp = NULL;
		return sp_error_set(err, "out of memory");
	}
	fd = mkstemp(*tmp);
	if (fd == -1) {
		sp_error_sys(err, errno, NULL);
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	if (fchmod(fd, mode & 07777) != 0) {
		sp_error_sys(err, errno, NULL);
		close(fd);
		return -1;
	}
	return fd;
}

int
sp_openbsd_embed(const struct sp_elf *elf, const char *path,
    const struct sp_openbsd_entry *e, size_t n, struct sp_error *err)
{
	struct plan p;
	struct stat st;
	char *tmp = NULL;
	int fd = -1, rc = -1;

	if (same_file(elf->name, path))
		return sp_error_set(err, "refusing to overwrite the input "
		    "file");
	if (plan_build(elf, n, &p, err) != 0)
		goto out;
	plan_fill(&p, n);
	if (stat(elf->name, &st) != 0)
		st.st_mode = 0755;
	if ((fd = make_temp(path, st.st_mode, &tmp, err)) == -1)
		goto out;
	if (write_plan(fd, elf, &p, e, n) != 0 || close(fd) != 0) {
		sp_error_sys(err, errno, "cannot write");
		fd = -1;
		goto out;
	}
	fd = -1;
	if (verify(tmp, e, n, err) != 0)
		goto out;
	if (rename(tmp, path) != 0) {
		sp_error_sys(err, errno, NULL);
		goto out;
	}
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	if (rc != 0 && tmp != NULL)
		unlink(tmp);
	free(tmp);
	plan_free(&p);
	return rc;
}
