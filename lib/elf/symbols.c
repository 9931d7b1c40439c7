/* SPDX-License-Identifier: ISC */
/*
 * Symbols: function starts (.symtab, else .dynsym), exported functions
 * (.dynsym) and imported ones (PLT stubs and GOT slots, from the dynamic
 * relocations).  All of it is reachable without section headers through
 * PT_DYNAMIC, which is what the loader uses too.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "elf_internal.h"

/* No real object comes near this; it bounds work on corrupt counts. */
#define MAX_SYMS (1u << 24)


/* .eh_frame and symbol tables are usually in address order already. */
void
sp_symbols_sort(struct sp_symbol *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (sp_symbol_cmp(&v[i - 1], &v[i]) > 0) {
			/* n > 1 here, so v is not NULL */
			qsort(v, n, sizeof(*v), sp_symbol_cmp);
			return;
		}
}

int
sp_symbol_cmp(const void *a, const void *b)
{
	const struct sp_symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

static int
plt_cmp(const void *a, const void *b)
{
	const struct sp_plt_entry *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *
sym_name(const struct symtab *t, uint32_t off)
{
	if (off >= t->strsz)
		return NULL;
	if (memchr(t->str + off, '\0', t->strsz - off) == NULL)
		return NULL;
	return t->str + off;
}

static Elf64_Sym
sym_at(const struct symtab *t, uint64_t i)
{
	Elf64_Sym s;

	memcpy(&s, (const uint8_t *)t->syms + i * sizeof(s), sizeof(s));
	return s;
}

static bool
table_from_file(const struct sp_elf *elf, uint64_t off, uint64_t size,
    uint64_t stroff, uint64_t strsz, struct symtab *t)
{
	t->syms = (const Elf64_Sym *)sp_elf_file_ptr(elf, off, size);
	t->str = (const char *)sp_elf_file_ptr(elf, stroff, strsz);
	t->nsyms = size / sizeof(Elf64_Sym);
	t->strsz = strsz;
	return t->syms != NULL && t->str != NULL && t->nsyms <= MAX_SYMS;
}

/* Number of .dynsym entries from DT_GNU_HASH: one past the last chain. */
static uint64_t
gnu_hash_count(const struct sp_elf *elf, uint64_t vaddr)
{
	const uint8_t *h = sp_elf_vaddr_ptr(elf, vaddr, 16);
	uint32_t nbuckets, symoff, bloomsz, maxsym = 0, v;
	const uint8_t *buckets, *chain;

	if (h == NULL)
		return 0;
	memcpy(&nbuckets, h, 4);
	memcpy(&symoff, h + 4, 4);
	memcpy(&bloomsz, h + 8, 4);
	if (nbuckets > MAX_SYMS || bloomsz > MAX_SYMS)
		return 0;
	uint64_t boff = 16 + (uint64_t)bloomsz * 8;
	buckets = sp_elf_vaddr_ptr(elf, vaddr + boff, (uint64_t)nbuckets * 4);
	if (buckets == NULL)
		return 0;
	for (uint32_t i = 0; i < nbuckets; i++) {
		memcpy(&v, buckets + 4 * i, 4);
		if (v > maxsym)
			maxsym = v;
	}
	if (maxsym < symoff)
		return symoff;
	uint64_t cbase = vaddr + boff + (uint64_t)nbuckets * 4;
	for (uint64_t i = maxsym; i < MAX_SYMS; i++) {
		chain = sp_elf_vaddr_ptr(elf, cbase + (i - symoff) * 4, 4);
		if (chain == NULL)
			return 0;
		memcpy(&v, chain, 4);
		if (v & 1)
			return i + 1;
	}
	return 0;
}

/* One past the highest symbol index a relocation table names. */
static uint64_t
reloc_sym_count(const struct sp_elf *elf, uint64_t rel, uint64_t relsz)
{
	uint64_t n = relsz / sizeof(Elf64_Rela), max = 0;
	const uint8_t *p = rel ? sp_elf_vaddr_ptr(elf, rel,
	    n * sizeof(Elf64_Rela)) : NULL;

	for (uint64_t i = 0; p != NULL && i < n && i < MAX_SYMS; i++) {
		Elf64_Rela r;
		memcpy(&r, p + i * sizeof(r), sizeof(r));
		if (ELF64_R_SYM(r.r_info) + 1 > max)
			max = ELF64_R_SYM(r.r_info) + 1;
	}
	return max;
}

/*
 * Without section headers the symbol count comes from the hash table; a
 * GNU hash table does not cover undefined symbols, so the relocations'
 * symbol indexes are taken into account too.
 */
static bool
table_from_dynamic(const struct sp_elf *elf, const struct sp_elf_build *b,
    struct symtab *t)
{
	uint64_t n = 0, r1, r2;

	if (b->dt_symtab == 0 || b->dt_strtab == 0 || b->dt_strsz == 0)
		return false;
	if (b->dt_hash != 0) {
		const uint8_t *h = sp_elf_vaddr_ptr(elf, b->dt_hash, 8);
		uint32_t nchain;
		if (h != NULL) {
			memcpy(&nchain, h + 4, 4);
			n = nchain;
		}
	}
	if (n == 0 && b->dt_gnu_hash != 0)
		n = gnu_hash_count(elf, b->dt_gnu_hash);
	r1 = reloc_sym_count(elf, b->dt_jmprel, b->dt_pltrelsz);
	r2 = reloc_sym_count(elf, b->dt_rela, b->dt_relasz);
	n = n > r1 ? n : r1;
	n = n > r2 ? n : r2;
	if (n == 0 || n > MAX_SYMS)
		return false;
	t->syms = (const Elf64_Sym *)sp_elf_vaddr_ptr(elf, b->dt_symtab,
	    n * sizeof(Elf64_Sym));
	t->str = (const char *)sp_elf_vaddr_ptr(elf, b->dt_strtab, b->dt_strsz);
	t->nsyms = n;
	t->strsz = b->dt_strsz;
	return t->syms != NULL && t->str != NULL;
}

static bool
is_code_symbol(const struct sp_elf *elf, const Elf64_Sym *s)
{
	int type = ELF64_ST_TYPE(s->st_info);
	const struct sp_segment *seg;

	if (s->st_shndx == SHN_UNDEF || s->st_value == 0)
		return false;
	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return false;
	seg = sp_elf_segment_at(elf, s->st_value);
	return seg != NULL && (seg->flags & PF_X);
}

/* Collects code symbols; exports_only keeps global/weak ones. */
static int
collect(const struct sp_elf *elf, const struct symtab *t, bool exports_only,
    struct sp_symbol **out, size_t *nout)
{
	struct sp_symbol *v;
	size_t n = 0;

	v = calloc(t->nsyms ? t->nsyms : 1, sizeof(*v));
	if (v == NULL)
		return -1;
	for (uint64_t i = 0; i < t->nsyms; i++) {
		Elf64_Sym s = sym_at(t, i);
		int bind = ELF64_ST_BIND(s.st_info);
		const char *name;
		if (!is_code_symbol(elf, &s))
			continue;
		if (exports_only && bind != STB_GLOBAL && bind != STB_WEAK)
			continue;
		if (exports_only &&
		    ELF64_ST_VISIBILITY(s.st_other) == STV_HIDDEN)
			continue;
		name = sym_name(t, s.st_name);
		v[n++] = (struct sp_symbol){ s.st_value, s.st_size,
		    name ? name : "", bind != STB_LOCAL };
	}
	sp_symbols_sort(v, n);
	*out = v;
	*nout = n;
	return 0;
}

/* Defined data objects with a size (not TLS: those are offsets). */
static int
collect_objects(const struct sp_elf *elf, const struct symtab *t,
    struct sp_symbol **out, size_t *nout)
{
	struct sp_symbol *v = calloc(t->nsyms ? t->nsyms : 1, sizeof(*v));
	size_t n = 0;

	if (v == NULL)
		return -1;
	for (uint64_t i = 0; i < t->nsyms; i++) {
		Elf64_Sym s = sym_at(t, i);
		const char *name = sym_name(t, s.st_name);
		if (ELF64_ST_TYPE(s.st_info) != STT_OBJECT ||
		    s.st_shndx == SHN_UNDEF || s.st_size == 0 ||
		    sp_elf_segment_at(elf, s.st_value) == NULL)
			continue;
		v[n++] = (struct sp_symbol){ s.st_value, s.st_size,
		    name ? name : "", ELF64_ST_BIND(s.st_info) != STB_LOCAL &&
		    ELF64_ST_VISIBILITY(s.st_other) == STV_DEFAULT };
	}
	sp_symbols_sort(v, n);
	*out = v;
	*nout = n;
	return 0;
}

/*
 * Whether a dynamic symbol may name a function.  A defined symbol says
 * what it is; an undefined one only guesses, and the definition decides:
 * Go's internal linker types every import STT_OBJECT, pthread_create
 * included, so its type must not hide a call.  A data import taken as a
 * name matches no function export: it only costs a lookup.
 */
bool
sp_elf_may_be_code(const Elf64_Sym *s)
{
	int type = ELF64_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF)
		return type != STT_TLS;
	return type != STT_OBJECT && type != STT_TLS;
}

/* GOT slot -> symbol name, from JUMP_SLOT and GLOB_DAT relocations. */
static int
collect_got(struct sp_elf *elf, const struct symtab *dyn, uint64_t rel,
    uint64_t relsz, size_t *cap)
{
	const uint8_t *p;
	uint64_t n;

	if (rel == 0 || relsz == 0)
		return 0;
	n = relsz / sizeof(Elf64_Rela);
	p = sp_elf_vaddr_ptr(elf, rel, n * sizeof(Elf64_Rela));
	if (p == NULL || n > MAX_SYMS) {
		sp_elf_warn(elf, "dynamic relocations out of bounds");
		return 0;
	}
	for (uint64_t i = 0; i < n; i++) {
		Elf64_Rela r;
		memcpy(&r, p + i * sizeof(r), sizeof(r));
		uint32_t type = ELF64_R_TYPE(r.r_info);
		uint64_t si = ELF64_R_SYM(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		if (si == 0 || si >= dyn->nsyms)
			continue;
		Elf64_Sym s = sym_at(dyn, si);
		const char *name = sym_name(dyn, s.st_name);
		if (name == NULL || !sp_elf_may_be_code(&s))
			continue;
		if (elf->ngot == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			void *q = realloc(elf->got, *cap * sizeof(*elf->got));
			if (q == NULL)
				return -1;
			elf->got = q;
		}
		elf->got[elf->ngot++] = (struct sp_plt_entry){ r.r_offset, name };
	}
	return 0;
}

static const struct sp_plt_entry *
got_lookup(const struct sp_elf *elf, uint64_t slot)
{
	struct sp_plt_entry key = { slot, NULL };

	return bsearch(&key, elf->got, elf->ngot, sizeof(key), plt_cmp);
}

static int
add_plt(struct sp_elf *elf, size_t *cap, uint64_t addr, const char *name)
{
	if (elf->nplt == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		void *q = realloc(elf->plt, *cap * sizeof(*elf->plt));
		if (q == NULL)
			return -1;
		elf->plt = q;
	}
	elf->plt[elf->nplt++] = (struct sp_plt_entry){ addr, name };
	return 0;
}

/*
 * PLT stubs are `[endbr64] [bnd] jmp *slot(%rip)`.  Finding them by their
 * bytes works with .plt, .plt.sec and .plt.got alike, and without sections.
 */
static int
collect_plt(struct sp_elf *elf)
{
	static const uint8_t endbr[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t cap = 0;

	for (size_t i = 0; i < elf->nsegs && elf->ngot > 0; i++) {
		const struct sp_segment *s = &elf->segs[i];
		const uint8_t *base = elf->data + s->offset;
		if (!(s->flags & PF_X) || s->filesz < 6)
			continue;
		const uint8_t *q = base, *end = base + s->filesz - 5;
		while (q < end && (q = memchr(q, 0xff, (size_t)(end - q))) !=
		    NULL) {
			uint64_t o = (uint64_t)(q - base);
			q++;
			if (base[o + 1] != 0x25)
				continue;
			int32_t d;
			memcpy(&d, base + o + 2, 4);
			const struct sp_plt_entry *g = got_lookup(elf,
			    s->vaddr + o + 6 + (uint64_t)(int64_t)d);
			if (g == NULL)
				continue;
			uint64_t lo = o;
			if (lo >= 1 && base[lo - 1] == 0xf2)
				lo--;		/* bnd jmp */
			if (lo >= 4 && memcmp(base + lo - 4, endbr, 4) == 0)
				lo -= 4;
			if (add_plt(elf, &cap, s->vaddr + lo, g->name) != 0)
				return -1;
			q = base + o + 6;
		}
	}
	if (elf->nplt > 1)
		qsort(elf->plt, elf->nplt, sizeof(*elf->plt), plt_cmp);
	return 0;
}

int
sp_elf_read_symbols(struct sp_elf *elf, const struct sp_elf_build *b,
    struct sp_error *err)
{
	struct symtab stab, dyn;
	bool have_dyn;
	size_t cap = 0;

	have_dyn = b->has_dynsym_sec ?
	    table_from_file(elf, b->dynsym_off, b->dynsym_size, b->dynstr_off,
	    b->dynstr_size, &dyn) : table_from_dynamic(elf, b, &dyn);
	if (b->has_symtab && table_from_file(elf, b->symtab_off,
	    b->symtab_size, b->symtab_str_off, b->symtab_str_size, &stab)) {
		if (collect(elf, &stab, false, &elf->syms, &elf->nsyms) != 0 ||
		    collect_objects(elf, &stab, &elf->objects,
		    &elf->nobjects) != 0)
			return sp_error_set(err, "out of memory");
	} else {
		/* Stripped, with its symbols installed apart (-dbg): the
		 * data objects' extents (globals.c).  Not the functions: as
		 * starts they would cut the file into other units than
		 * without the package, and their names (runtime models) cost
		 * libc's scan half again as much for nothing it uses. */
		if (sp_elf_debug_symtab(elf, &stab) && collect_objects(elf,
		    &stab, &elf->objects, &elf->nobjects) != 0)
			return sp_error_set(err, "out of memory");
		if (have_dyn && collect(elf, &dyn, false, &elf->syms,
		    &elf->nsyms) != 0)
			return sp_error_set(err, "out of memory");
	}
	if (b->dt_rela != 0 && b->dt_relasz / sizeof(Elf64_Rela) <= MAX_SYMS) {
		size_t n = b->dt_relasz / sizeof(Elf64_Rela);
		elf->rela = (const Elf64_Rela *)sp_elf_vaddr_ptr(elf, b->dt_rela,
		    n * sizeof(Elf64_Rela));
		elf->nrela = elf->rela ? n : 0;
	}
	elf->dt_init = b->dt_init;
	elf->dt_fini = b->dt_fini;
	elf->in_place_relocs = b->dt_in_place;
	elf->go = b->has_gopclntab;
	if (b->dt_jmprel != 0 &&
	    b->dt_pltrelsz / sizeof(Elf64_Rela) <= MAX_SYMS) {
		size_t n = b->dt_pltrelsz / sizeof(Elf64_Rela);
		elf->jmprel = (const Elf64_Rela *)sp_elf_vaddr_ptr(elf,
		    b->dt_jmprel, n * sizeof(Elf64_Rela));
		elf->njmprel = elf->jmprel ? n : 0;
	}
	if (b->dt_relr != 0 && b->dt_relrsz / 8 <= MAX_SYMS) {
		elf->relr = (const uint64_t *)sp_elf_vaddr_ptr(elf,
		    b->dt_relr, b->dt_relrsz / 8 * 8);
		elf->nrelr = elf->relr ? b->dt_relrsz / 8 : 0;
	}
	if (!have_dyn)
		return 0;
	elf->dynsym = dyn.syms;
	elf->ndynsym = dyn.nsyms;
	elf->dynstr = dyn.str;
	elf->dynstr_size = dyn.strsz;
	if (b->dt_symtab != 0) {
		elf->dynsym_vaddr = b->dt_symtab;
		elf->dynsym_size = dyn.nsyms * sizeof(Elf64_Sym);
	}
	if (collect(elf, &dyn, true, &elf->exports, &elf->nexports) != 0)
		return sp_error_set(err, "out of memory");
	if (collect_got(elf, &dyn, b->dt_jmprel, b->dt_pltrelsz, &cap) != 0 ||
	    collect_got(elf, &dyn, b->dt_rela, b->dt_relasz, &cap) != 0)
		return sp_error_set(err, "out of memory");
	if (elf->ngot > 1)
		qsort(elf->got, elf->ngot, sizeof(*elf->got), plt_cmp);
	if (collect_plt(elf) != 0)
		return sp_error_set(err, "out of memory");
	return 0;
}

const struct sp_symbol *
sp_elf_symbol_at(const struct sp_elf *elf, uint64_t addr,
    bool (*fn)(const char *name))
{
	for (size_t i = SP_LOWER_BOUND(elf->syms, elf->nsyms, addr, addr);
	    i < elf->nsyms && elf->syms[i].addr == addr; i++)
		if (fn == NULL || fn(elf->syms[i].name))
			return &elf->syms[i];
	return NULL;
}

const struct sp_symbol *
sp_elf_symbol_holding(const struct sp_elf *elf, uint64_t addr)
{
	size_t lo = 0, hi = elf->nsyms, i;

	while (lo < hi) {	/* the first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (elf->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;) {	/* a named one whose bytes hold it */
		const struct sp_symbol *y = &elf->syms[i];
		if (y->name[0] != '\0' && addr < y->addr + (y->size > 0 ?
		    y->size : 1))
			return y;
		if (addr - y->addr > (1u << 20))	/* none that near */
			break;
	}
	return NULL;
}

const struct sp_symbol *
sp_elf_symbol_named(const struct sp_elf *elf, const char *name)
{
	for (size_t i = 0; i < elf->nsyms; i++)
		if (strcmp(elf->syms[i].name, name) == 0)
			return &elf->syms[i];
	return NULL;
}

const char *
sp_elf_dynsym(const struct sp_elf *elf, uint64_t i, Elf64_Sym *sym)
{
	struct symtab t = { elf->dynsym, elf->ndynsym, elf->dynstr,
	    elf->dynstr_size };

	if (elf->dynsym == NULL || i >= elf->ndynsym)
		return NULL;
	*sym = sym_at(&t, i);
	return sym_name(&t, sym->st_name);
}
