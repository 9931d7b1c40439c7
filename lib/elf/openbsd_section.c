/* SPDX-License-Identifier: ISC */
/*
 * The .openbsd.syscalls section of an ELF file (PT_OPENBSD_SYSCALLS): its
 * raw entries as the file holds them, whether Linux's and OpenBSD's rules
 * accept them, and the text region OpenBSD rebases offsets by.  Read by
 * the analysis (an object's own pins are authoritative) and by the
 * OpenBSD view of the tables (lib/pins/openbsd.c).
 */
#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/openbsd_section.h"

#define ENTRY_SIZE sizeof(struct sp_openbsd_entry)

static void
set_reason(char reason[SP_ERROR_MAX], const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
set_reason(char reason[SP_ERROR_MAX], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, SP_ERROR_MAX, fmt, ap);
	va_end(ap);
}

/*
 * The kernel maps each PT_LOAD from ELF_TRUNC(p_vaddr, p_align) and counts
 * it as text when it is executable and not writable (W|X segments are
 * mapped without X and counted as data).  The text region is grown segment
 * by segment in file order the way exec_elf_makecmds grows ep_taddr and
 * ep_tsize: a lower segment moves the start, any other one sets the end.
 */
static void
region_add(struct sp_openbsd_region *r, bool *seen, uint64_t vaddr,
    uint64_t memsz, uint64_t align)
{
	uint64_t start = vaddr, end = vaddr + memsz;

	if (align > 1 && (align & (align - 1)) == 0)
		start = vaddr & ~(align - 1);
	if (!*seen) {
		r->start = start;
		r->end = end;
		*seen = true;
	} else if (start < r->start)
		r->start = start;
	else
		r->end = end;
}

static bool
is_text(uint32_t flags)
{
	return (flags & PF_X) != 0 && (flags & PF_W) == 0;
}

/* Raw program headers, for p_align (struct sp_segment does not keep it). */
static bool
region_from_phdrs(const struct sp_elf *elf, struct sp_openbsd_region *r)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	bool seen = false;

	if (elf->size < sizeof(eh))
		return false;
	memcpy(&eh, elf->data, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum == PN_XNUM ||
	    eh.e_phoff > elf->size ||
	    (uint64_t)eh.e_phnum * sizeof(ph) > elf->size - eh.e_phoff)
		return false;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, elf->data + eh.e_phoff + i * sizeof(ph),
		    sizeof(ph));
		if (ph.p_type == PT_LOAD && is_text(ph.p_flags))
			region_add(r, &seen, ph.p_vaddr, ph.p_memsz,
			    ph.p_align);
	}
	return true;
}

void
sp_openbsd_region(const struct sp_elf *elf, struct sp_openbsd_region *r)
{
	bool seen = false;

	memset(r, 0, sizeof(*r));
	if (region_from_phdrs(elf, r))
		return;
	/* No usable raw headers: page alignment is what every linker uses. */
	for (size_t i = 0; i < elf->nsegs; i++)
		if (is_text(elf->segs[i].flags))
			region_add(r, &seen, elf->segs[i].vaddr,
			    elf->segs[i].memsz, 4096);
}

bool
sp_openbsd_check(const struct sp_openbsd_entry *e, size_t n, uint64_t size,
    uint64_t text_end, unsigned flags, char reason[SP_ERROR_MAX])
{
	if (size % ENTRY_SIZE != 0) {
		set_reason(reason, "table size %" PRIu64 " is not a multiple "
		    "of %zu", size, ENTRY_SIZE);
		return false;
	}
	if (size > (uint64_t)SP_OPENBSD_MAX_ENTRIES * ENTRY_SIZE) {
		set_reason(reason, "table has %" PRIu64 " entries, more than "
		    "SYS_MAXSYSCALL*2 (%d)", size / ENTRY_SIZE,
		    SP_OPENBSD_MAX_ENTRIES);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		/* OpenBSD's SYS_syscall; read(2) on Linux. */
		if (e[i].sysno == 0 && (flags & SP_OPENBSD_STRICT)) {
			set_reason(reason, "entry %zu: number 0 is not a "
			    "system call", i);
			return false;
		}
		if (e[i].sysno >= SP_SYS_MAXSYSCALL) {
			set_reason(reason, "entry %zu: number %" PRIu32
			    " is not below SYS_MAXSYSCALL (%d)", i, e[i].sysno,
			    SP_SYS_MAXSYSCALL);
			return false;
		}
		if (e[i].offset > text_end) {
			set_reason(reason, "entry %zu: offset 0x%" PRIx32
			    " is past the end of the text region (0x%" PRIx64
			    ")", i, e[i].offset, text_end);
			return false;
		}
	}
	reason[0] = '\0';
	return true;
}

int
sp_openbsd_read(const struct sp_elf *elf, struct sp_openbsd_section *out,
    struct sp_error *err)
{
	struct sp_openbsd_region r;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!elf->has_pin_section)
		return 0;
	/* sp_elf_open checked that pin_offset + pin_size lies in the file. */
	if (elf->pin_offset > elf->size ||
	    elf->pin_size > elf->size - elf->pin_offset)
		return sp_error_set(err, "pin table extends past the end of "
		    "the file");
	out->present = true;
	n = elf->pin_size / ENTRY_SIZE;
	if (n > 0) {
		out->entries = calloc(n, ENTRY_SIZE);
		if (out->entries == NULL)
			return sp_error_set(err, "out of memory");
		/* The file is x86-64 (little endian), like the host. */
		memcpy(out->entries, elf->data + elf->pin_offset,
		    n * ENTRY_SIZE);
	}
	out->n = n;
	sp_openbsd_region(elf, &r);
	out->valid = sp_openbsd_check(out->entries, n, elf->pin_size, r.end,
	    0, out->reason);
	out->openbsd_valid = sp_openbsd_check(out->entries, n, elf->pin_size,
	    r.end, SP_OPENBSD_STRICT, out->openbsd_reason);
	return 0;
}

void
sp_openbsd_section_free(struct sp_openbsd_section *sec)
{
	free(sec->entries);
	memset(sec, 0, sizeof(*sec));
}
