/* SPDX-License-Identifier: ISC */
/*
 * Roots and names an object's data gives its code (reach_facts.c has the
 * code's own edges).  Anything in data may be called through a pointer,
 * whatever code is live, so these are roots:
 * - the entry point, DT_INIT and DT_FINI;
 * - every code address a relocation stores: R_X86_64_RELATIVE addends
 *   (init, fini and preinit arrays, function tables, vtables),
 *   IRELATIVE (IFUNC resolvers; the variants they return are taken by
 *   their code), R_X86_64_64 of a local symbol;
 * - DT_RELR's words (their addends are in place);
 * - where addresses are stored in place otherwise (a program linked at a
 *   fixed address, DT_REL, text relocations): every aligned data word
 *   that points into code, and every 32-bit immediate in code equal to a
 *   function's start (`mov $handler, %esi`, taken by its function) or to
 *   a PLT stub (an imported function's address there: its name);
 * - R_X86_64_64 of a symbol from elsewhere names an import (a pointer to
 *   free() in a table), whatever code is live.
 * The dynamic loader also looks symbols up by name (`__libc_early_init`
 * in libc): every identifier among its strings names an import.
 */
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "reach_int.h"

static bool
is_code(const struct rf_build *b, uint64_t addr)
{
	return sp_rf_func(b, addr) >= 0;
}

static int
sym_reloc(struct rf_build *b, const Elf64_Rela *r)
{
	const struct sp_elf *e = b->a->elf;
	uint64_t si = ELF64_R_SYM(r->r_info);
	Elf64_Sym s;
	const char *name;

	if (si == 0)
		return sp_rf_root(b, (uint64_t)r->r_addend);
	if ((name = sp_elf_dynsym(e, si, &s)) == NULL)
		return 0;
	if (!sp_elf_may_be_code(&s))
		return 0;
	if (s.st_shndx != SHN_UNDEF && sp_rf_root(b, s.st_value +
	    (uint64_t)r->r_addend) != 0)
		return -1;
	if (name[0] == '\0')
		return 0;
	uint32_t off = sp_rf_name(b, name, strlen(name));
	return off == UINT32_MAX ? -1 : sp_rf_push(&b->calls, SP_REACH_ALWAYS,
	    off);
}

static int
relocs(struct rf_build *b, const Elf64_Rela *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		Elf64_Rela r;
		int rc = 0;
		memcpy(&r, (const uint8_t *)v + i * sizeof(r), sizeof(r));
		switch (ELF64_R_TYPE(r.r_info)) {
		case R_X86_64_RELATIVE:
		case R_X86_64_IRELATIVE:
			rc = sp_rf_root(b, (uint64_t)r.r_addend);
			break;
		case R_X86_64_64:
			rc = sym_reloc(b, &r);
			break;
		default:
			break;
		}
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* The word a relative relocation at `at` relocates in place. */
static int
relr_word(struct rf_build *b, uint64_t at)
{
	const uint8_t *p = sp_elf_vaddr_ptr(b->a->elf, at, 8);
	uint64_t v;

	if (p == NULL)
		return 0;
	memcpy(&v, p, 8);
	return sp_rf_root(b, v);
}

/* DT_RELR: an address, then bitmaps of the 63 words that follow. */
static int
relr(struct rf_build *b)
{
	const struct sp_elf *e = b->a->elf;
	uint64_t where = 0;

	for (size_t i = 0; i < e->nrelr; i++) {
		uint64_t w;
		memcpy(&w, (const uint8_t *)e->relr + 8 * i, 8);
		if ((w & 1) == 0) {
			if (relr_word(b, w) != 0)
				return -1;
			where = w + 8;
			continue;
		}
		for (unsigned k = 0; (w >>= 1) != 0; k++)
			if ((w & 1) && relr_word(b, where + 8 * k) != 0)
				return -1;
		where += 63 * 8;
	}
	return 0;
}

/* Inside .dynsym: st_value fields are not pointers anyone calls. */
static bool
in_dynsym(const struct sp_elf *e, uint64_t at)
{
	return at >= e->dynsym_vaddr && at < e->dynsym_vaddr + e->dynsym_size;
}

/* A code address in data: a root, or the import a PLT stub calls. */
static int
data_ref(struct rf_build *b, uint64_t v)
{
	int r = sp_rf_plt_ref(b, SP_REACH_ALWAYS, v);

	return r != 0 ? (r == 1 ? 0 : -1) :
	    is_code(b, v) ? sp_rf_root(b, v) : 0;
}

/* Aligned words of the non-code bytes that point into code. */
static int
data_words(struct rf_build *b, bool narrow)
{
	const struct sp_elf *e = b->a->elf;

	for (size_t i = 0; i < e->nsegs; i++) {
		const struct sp_segment *s = &e->segs[i];
		const uint8_t *p = e->data + s->offset;
		uint64_t step = narrow ? 4 : 8;
		for (uint64_t o = (step - s->vaddr % step) % step;
		    o + step <= s->filesz; o += step) {
			uint64_t at = s->vaddr + o, v = 0;
			if (is_code(b, at) || in_dynsym(e, at))
				continue;
			memcpy(&v, p + o, step);
			if (data_ref(b, v) != 0)
				return -1;
			if (narrow && o + 8 <= s->filesz && (at & 7) == 0) {
				memcpy(&v, p + o, 8);
				if (data_ref(b, v) != 0)
					return -1;
			}
		}
	}
	return 0;
}

static bool
is_start(const struct rf_build *b, uint64_t v)
{
	struct unit *u = sp_unit_at(b->a, v);

	return u != NULL && u->start == v;
}

/* 32-bit immediates in code (absolute addresses at a fixed address). */
static int
code_immediates(struct rf_build *b)
{
	struct analysis *a = b->a;

	for (size_t f = 0; f < a->nunits; f++) {
		const struct unit *u = &a->units[f];
		uint64_t avail;
		const uint8_t *p = sp_code_at(a, u->start, &avail);
		if (p == NULL)
			continue;
		for (uint64_t o = 0; o + 4 <= u->end - u->start &&
		    o + 4 <= avail; o++) {
			uint32_t v;
			memcpy(&v, p + o, 4);
			if (sp_rf_plt_ref(b, (uint32_t)f, v) == -1)
				return -1;
			if (v == u->start || !is_start(b, v))
				continue;
			long g = sp_rf_func(b, v);
			if (sp_rf_push(&b->edges, (uint32_t)f,
			    (uint32_t)g) != 0)
				return -1;
		}
	}
	return 0;
}

static bool
ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    (!first && ((c >= '0' && c <= '9') || c == '.'));
}

/* Every NUL-terminated identifier in the non-code segments. */
static int
loader_names(struct rf_build *b)
{
	const struct sp_elf *e = b->a->elf;

	for (size_t i = 0; i < e->nsegs; i++) {
		const struct sp_segment *s = &e->segs[i];
		const char *p = (const char *)e->data + s->offset;
		if (s->flags & PF_X)
			continue;
		for (uint64_t o = 0; o < s->filesz; ) {
			uint64_t k = o;
			while (k < s->filesz && ident_char(p[k], k == o))
				k++;
			if (k > o + 2 && k < s->filesz && p[k] == '\0' &&
			    (o == 0 || p[o - 1] == '\0') &&
			    (sp_rf_name(b, p + o, k - o) == UINT32_MAX ||
			    sp_rf_push(&b->calls, SP_REACH_ALWAYS,
			    sp_rf_name(b, p + o, k - o)) != 0))
				return -1;
			o = k + 1;
		}
	}
	return 0;
}

static bool
is_loader(const struct sp_elf *e)
{
	for (size_t i = 0; i < e->nexports; i++)
		if (strcmp(e->exports[i].name, "__tls_get_addr") == 0)
			return true;
	return false;
}

int
sp_rf_data(struct rf_build *b)
{
	const struct sp_elf *e = b->a->elf;
	bool fixed = !sp_elf_is_dyn(e);

	if (sp_rf_root(b, e->entry) != 0 || (e->dt_init != 0 &&
	    sp_rf_root(b, e->dt_init) != 0) || (e->dt_fini != 0 &&
	    sp_rf_root(b, e->dt_fini) != 0))
		return -1;
	if (relocs(b, e->rela, e->nrela) != 0 ||
	    relocs(b, e->jmprel, e->njmprel) != 0 || relr(b) != 0)
		return -1;
	if ((fixed || e->in_place_relocs) && data_words(b, fixed) != 0)
		return -1;
	if (fixed && code_immediates(b) != 0)
		return -1;
	if (is_loader(e) && loader_names(b) != 0)
		return -1;
	return 0;
}
