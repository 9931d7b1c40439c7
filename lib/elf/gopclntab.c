/* SPDX-License-Identifier: ISC */
/*
 * Function ranges and names of Go binaries from .gopclntab, the table the
 * Go runtime itself needs for stack traces: it survives `-ldflags=-s` and
 * strip, where .symtab is gone and Go never had .eh_frame.  Without it a
 * stripped Go binary is one big gap.  Formats (src/debug/gosym/pclntab.go):
 *
 *   magic 0xfffffffa (Go 1.16, 1.17): after the 8-byte header, nfunc,
 *     nfiles, then offsets of funcnametab ... pclntab; functab entries are
 *     {entry uintptr, funcoff uintptr}; _func starts {entry uintptr,
 *     nameoff int32}.
 *   magic 0xfffffff0 (1.18, 1.19), 0xfffffff1 (1.20 and later): textStart
 *     follows nfiles; functab entries are {entryoff uint32, funcoff
 *     uint32} relative to textStart; _func starts {entryoff uint32,
 *     nameoff int32}.
 *
 * Anything that does not check out is ignored: this only adds ranges.
 */
#include <stdlib.h>
#include <string.h>

#include "elf_internal.h"

#define GO116_MAGIC 0xfffffffau
#define GO118_MAGIC 0xfffffff0u
#define GO120_MAGIC 0xfffffff1u

struct pcln {
	const uint8_t *p;	/* the table */
	uint64_t size;
	uint32_t magic;
	uint64_t nfunc, text, nametab, functab;
};

static bool
get(const struct pcln *t, uint64_t off, void *out, size_t n)
{
	if (off > t->size || n > t->size - off)
		return false;
	memcpy(out, t->p + off, n);
	return true;
}

static bool
header(struct pcln *t)
{
	uint64_t w[8];
	bool new = t->magic != GO116_MAGIC;

	if (t->p[4] != 0 || t->p[5] != 0 || t->p[7] != 8 ||
	    !get(t, 8, w, sizeof(w)))
		return false;
	t->nfunc = w[0];
	t->text = new ? w[2] : 0;
	t->nametab = new ? w[3] : w[2];
	t->functab = new ? w[7] : w[6];
	/* Every function takes at least one functab entry. */
	return t->nfunc > 0 && t->nfunc < t->size / 8 &&
	    t->functab < t->size && t->nametab < t->size;
}

/* Entry address and _func offset of function i. */
static bool
entry(const struct pcln *t, uint64_t i, uint64_t *addr, uint64_t *funcoff)
{
	if (t->magic == GO116_MAGIC) {
		uint64_t e[2];
		if (!get(t, t->functab + 16 * i, e, sizeof(e)))
			return false;
		*addr = e[0];
		*funcoff = e[1];
	} else {
		uint32_t e[2];
		if (!get(t, t->functab + 8 * i, e, sizeof(e)))
			return false;
		*addr = t->text + e[0];
		*funcoff = e[1];
	}
	return true;
}

static const char *
name(const struct pcln *t, uint64_t funcoff)
{
	int32_t nameoff;
	uint64_t at;
	unsigned skip = t->magic == GO116_MAGIC ? 8 : 4;

	if (!get(t, t->functab + funcoff + skip, &nameoff, 4) || nameoff < 0)
		return "";
	at = t->nametab + (uint64_t)nameoff;
	if (at >= t->size || memchr(t->p + at, '\0', t->size - at) == NULL)
		return "";
	return (const char *)t->p + at;
}

static int
add(struct sp_elf *elf, const struct pcln *t)
{
	struct sp_symbol *v = realloc(elf->syms, (elf->nsyms + t->nfunc) *
	    sizeof(*v));
	uint64_t a, b, fo, fo_next;

	if (v == NULL)
		return -1;
	elf->syms = v;
	for (uint64_t i = 0; i < t->nfunc; i++) {
		if (!entry(t, i, &a, &fo) || !entry(t, i + 1, &b, &fo_next))
			break;
		const struct sp_segment *s = sp_elf_segment_at(elf, a);
		if (b <= a || s == NULL || !(s->flags & PF_X))
			continue;
		v[elf->nsyms++] = (struct sp_symbol){ a, b - a, name(t, fo),
		    false };
	}
	sp_symbols_sort(elf->syms, elf->nsyms);
	return 0;
}

/* The table by section name, else by its magic in read-only data. */
static bool
locate(const struct sp_elf *elf, const struct sp_elf_build *b,
    struct pcln *t)
{
	if (b->has_gopclntab) {
		t->p = sp_elf_file_ptr(elf, b->gopclntab_off, b->gopclntab_size);
		t->size = b->gopclntab_size;
		if (t->p == NULL || t->size < 64)
			return false;
		memcpy(&t->magic, t->p, 4);
		return true;
	}
	for (size_t i = 0; i < elf->nsegs; i++) {
		const struct sp_segment *s = &elf->segs[i];
		const uint8_t *p = elf->data + s->offset;
		if (s->flags & (PF_X | PF_W))
			continue;
		for (uint64_t o = 0; o + 64 <= s->filesz; o += 32) {
			uint32_t m;
			memcpy(&m, p + o, 4);
			if ((m == GO118_MAGIC || m == GO120_MAGIC ||
			    m == GO116_MAGIC) && p[o + 6] == 1 && p[o + 7] == 8) {
				t->p = p + o;
				t->size = s->filesz - o;
				t->magic = m;
				return true;
			}
		}
	}
	return false;
}

int
sp_elf_read_gopclntab(struct sp_elf *elf, const struct sp_elf_build *b,
    struct sp_error *err)
{
	struct pcln t = { 0 };

	if (!locate(elf, b, &t))
		return 0;	/* not Go */
	if ((t.magic != GO116_MAGIC && t.magic != GO118_MAGIC &&
	    t.magic != GO120_MAGIC) || !header(&t)) {
		sp_elf_warn(elf, "ignoring a .gopclntab we cannot read");
		return 0;
	}
	if (add(elf, &t) != 0)
		return sp_error_set(err, "out of memory");
	return 0;
}
