/* SPDX-License-Identifier: ISC */
/*
 * Stage 1: ELF image -> the facts analysis needs.
 *
 * An sp_elf is a validated, read-only view of one x86-64 ELF object, from a
 * file or from memory (the vDSO).  Every offset and count in it has been
 * bounds-checked against the image, so later stages can index without
 * re-checking.  Section headers are optional: everything analysis needs is
 * reachable from program headers (PT_LOAD, PT_DYNAMIC, PT_NOTE,
 * PT_GNU_EH_FRAME, PT_OPENBSD_SYSCALLS).
 */
#ifndef SYSPIN_ELF_ELF_H
#define SYSPIN_ELF_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <elf.h>

#include "util/error.h"

#define SP_PT_OPENBSD_SYSCALLS 0x65a3dbe9u
#define SP_BUILD_ID_MAX 64

enum sp_elf_kind {
	SP_ELF_EXEC,		/* ET_EXEC with an interpreter */
	SP_ELF_EXEC_STATIC,	/* ET_EXEC without one */
	SP_ELF_PIE,		/* ET_DYN with PT_INTERP */
	SP_ELF_STATIC_PIE,	/* ET_DYN, DF_1_PIE, no PT_INTERP */
	SP_ELF_SHARED,		/* ET_DYN shared object (incl. ld.so, vDSO) */
};

/* One PT_LOAD segment. */
struct sp_segment {
	uint64_t vaddr;
	uint64_t memsz;
	uint64_t offset;
	uint64_t filesz;
	uint32_t flags;		/* PF_R | PF_W | PF_X */
};

/* A named code address: a function symbol or an FDE range. */
struct sp_symbol {
	uint64_t addr;
	uint64_t size;
	const char *name;	/* points into the image; "" for FDEs */
	bool global;		/* global or weak binding, default visibility */
};

/* A PLT slot: calling `addr` calls the imported function `name`. */
struct sp_plt_entry {
	uint64_t addr;
	const char *name;
};

struct sp_elf {
	char *name;		/* for messages: path or "[vdso]" */
	const uint8_t *data;	/* the whole image */
	size_t size;
	bool mapped;		/* data is an mmap we own */
	bool owned;		/* data is malloc'ed and we own it */
	/* sp_elf_open: the file read (fstat of the descriptor mapped), so
	 * that what is made of it is keyed by what was read, never by a
	 * path looked at again; zero from memory. */
	struct stat st;

	enum sp_elf_kind kind;
	uint16_t machine;	/* e_machine */
	uint64_t entry;
	uint64_t base_vaddr;	/* lowest PT_LOAD vaddr, page aligned */
	char *interp;		/* PT_INTERP or NULL */

	uint8_t build_id[SP_BUILD_ID_MAX];
	size_t build_id_len;

	struct sp_segment *segs;	/* PT_LOAD, in file order */
	size_t nsegs;

	/* .eh_frame / PT_GNU_EH_FRAME function ranges, sorted by addr. */
	struct sp_symbol *fdes;
	size_t nfdes;
	/* Function symbols (.symtab, else .dynsym), sorted by addr. */
	struct sp_symbol *syms;
	size_t nsyms;
	/* Data objects (STT_OBJECT with a size), sorted by addr. */
	struct sp_symbol *objects;
	size_t nobjects;
	/* Exported (defined, global/weak) functions from .dynsym. */
	struct sp_symbol *exports;
	size_t nexports;
	/* PLT stubs of imported functions, sorted by addr. */
	struct sp_plt_entry *plt;
	size_t nplt;
	/* GOT slots of imported functions (for `call *slot(%rip)`), sorted. */
	struct sp_plt_entry *got;
	size_t ngot;

	/* Where .dynsym lies (vaddr range), so that its st_value fields are
	 * not mistaken for function pointers. */
	uint64_t dynsym_vaddr, dynsym_size;

	/* Dynamic RELA relocations (DT_RELA), for address-taken checks. */
	const Elf64_Rela *rela;	/* unaligned-safe: read with memcpy */
	size_t nrela;
	/* The PLT's (DT_JMPREL): JUMP_SLOT, and IRELATIVE for IFUNCs. */
	const Elf64_Rela *jmprel;
	size_t njmprel;
	/* .dynsym and its strings, for the symbols relocations name. */
	const Elf64_Sym *dynsym;	/* unaligned-safe */
	size_t ndynsym;
	const char *dynstr;
	size_t dynstr_size;
	/* What ld.so runs that no relocation shows (lib/analysis/reach). */
	uint64_t dt_init, dt_fini;	/* 0 when none */
	/* DT_RELR: relative relocations whose addends are in place. */
	const uint64_t *relr;	/* unaligned-safe */
	size_t nrelr;
	/* Other addresses stored in place, not in RELA addends: DT_REL,
	 * DT_TEXTREL (the data has to be read for code pointers). */
	bool in_place_relocs;
	bool go;		/* Go's function table (.gopclntab) */

	/* .openbsd.syscalls (by section or PT_OPENBSD_SYSCALLS), if any. */
	bool has_pin_section;
	uint64_t pin_offset;	/* file offset */
	uint64_t pin_size;

	/* The separate debug file whose .symtab gave syms and objects (a
	 * stripped file's, found by build-id), mapped; NULL when none. */
	const uint8_t *debug_data;
	size_t debug_size;
	char *debug_path;

	/* Warnings that did not stop parsing (bad FDE, odd symbol table). */
	char warning[SP_ERROR_MAX];
};

/* The first function symbol at addr for which fn (if not NULL) is true,
 * or NULL. */
const struct sp_symbol *sp_elf_symbol_at(const struct sp_elf *elf,
    uint64_t addr, bool (*fn)(const char *name));
/* A named function symbol whose bytes hold addr, or NULL. */
const struct sp_symbol *sp_elf_symbol_holding(const struct sp_elf *elf,
    uint64_t addr);
/* The first function symbol named name, or NULL. */
const struct sp_symbol *sp_elf_symbol_named(const struct sp_elf *elf,
    const char *name);

/* .dynsym entry i into *sym and its name, or NULL (out of range, bad
 * name). */
const char *sp_elf_dynsym(const struct sp_elf *elf, uint64_t i,
    Elf64_Sym *sym);
/* Whether a dynamic symbol may name a function: any import but a TLS
 * one (an importer's type is a guess), a definition that is not data. */
bool sp_elf_may_be_code(const Elf64_Sym *sym);

/*
 * Whether the file open at fd is a dynamic loader run as a program
 * (`ld.so PROG`): a shared object without an interpreter (ET_DYN, a
 * PT_DYNAMIC, no PT_INTERP, no DF_1_PIE).  It maps the objects it loads
 * as the interpreter of a program would.  1 yes, 0 no, -1 with err.
 */
int sp_elf_fd_is_loader(int fd, struct sp_error *err);

/* Opens and validates PATH.  Returns 0, or -1 with err set. */
int sp_elf_open(struct sp_elf *elf, const char *path, struct sp_error *err);

/*
 * Only the checks sp_elf_open makes before it maps the file: a regular
 * file, an x86-64 executable or shared object with sound PT_LOADs (a few
 * reads).  For a program about to be run.  0, or -1 with err set.
 */
int sp_elf_check_file(const char *path, struct sp_error *err);

/*
 * Validates an image already in memory (copied: the caller's buffer may go
 * away).  NAME is used in messages.
 */
int sp_elf_from_memory(struct sp_elf *elf, const void *data, size_t size,
    const char *name, struct sp_error *err);

void sp_elf_close(struct sp_elf *elf);

/*
 * Translates a virtual address range to a pointer into the image, or NULL
 * when [vaddr, vaddr+len) is not entirely file-backed by one PT_LOAD.
 */
const uint8_t *sp_elf_vaddr_ptr(const struct sp_elf *elf, uint64_t vaddr,
    uint64_t len);

/* The PT_LOAD holding vaddr, or NULL. */
const struct sp_segment *sp_elf_segment_at(const struct sp_elf *elf,
    uint64_t vaddr);

/* OpenBSD convention: offsets are from 0 for ET_DYN, absolute for ET_EXEC. */
static inline bool
sp_elf_is_dyn(const struct sp_elf *elf)
{
	return elf->kind == SP_ELF_PIE || elf->kind == SP_ELF_STATIC_PIE ||
	    elf->kind == SP_ELF_SHARED;
}

const char *sp_elf_kind_name(enum sp_elf_kind kind);

/* Hex build-id into buf (2*len+1 bytes), "" when none. */
void sp_build_id_hex(const uint8_t *id, size_t len, char *buf);

/* ---- an image already in memory (mem_image.c; the runtime links it) ---- */

/* Build-id of an image in memory, from its program headers. */
size_t sp_mem_build_id(const void *ehdr, uint64_t bias, uint8_t *out,
    size_t max);

/* Bytes spanned by the PT_LOADs of an image in memory (the vDSO). */
size_t sp_mem_image_size(const void *ehdr);

#endif
