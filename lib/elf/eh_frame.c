/* SPDX-License-Identifier: ISC */
/*
 * Function ranges from .eh_frame.  Every FDE gives [pc_begin, pc_begin +
 * pc_range): a real instruction boundary at its start, which is what lets
 * analysis decode stripped binaries from the right place.  We walk the
 * CIE/FDE records linearly (the .eh_frame_hdr only tells us where they
 * start when there are no section headers).  A malformed record ends the
 * walk with a warning; what was read before it stays usable.
 */
#include <stdlib.h>
#include <string.h>

#include "elf_internal.h"

#define DW_EH_PE_omit    0xff
#define DW_EH_PE_absptr  0x00
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2  0x02
#define DW_EH_PE_udata4  0x03
#define DW_EH_PE_udata8  0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2  0x0a
#define DW_EH_PE_sdata4  0x0b
#define DW_EH_PE_sdata8  0x0c
#define DW_EH_PE_pcrel   0x10
#define DW_EH_PE_datarel 0x30

/* Absurd counts are cut here: real objects have < 100k FDEs. */
#define MAX_FDES (1u << 22)

/* A cursor over [p, end) with the virtual address of p. */
struct cursor {
	const uint8_t *p, *end;
	uint64_t vaddr;
	bool bad;
};

static void
skip(struct cursor *c, uint64_t n)
{
	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return;
	}
	c->p += n;
	c->vaddr += n;
}

static uint64_t
fixed(struct cursor *c, unsigned n)
{
	uint64_t v = 0;

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, n);	/* little-endian only (checked at open) */
	skip(c, n);
	return v;
}

static uint64_t
leb(struct cursor *c, bool sign)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t byte;

	do {
		if (c->bad || c->p >= c->end) {
			c->bad = true;
			return 0;
		}
		byte = *c->p;
		skip(c, 1);
		if (shift < 64)
			v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	if (sign && shift < 64 && (byte & 0x40))
		v |= ~0ull << shift;
	return v;
}

static uint64_t
encoded(struct cursor *c, uint8_t enc)
{
	uint64_t here = c->vaddr, v;

	if (enc == DW_EH_PE_omit)
		return 0;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8: v = fixed(c, 8); break;
	case DW_EH_PE_uleb128: v = leb(c, false); break;
	case DW_EH_PE_sleb128: v = leb(c, true); break;
	case DW_EH_PE_udata2: v = fixed(c, 2); break;
	case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
	case DW_EH_PE_udata4: v = fixed(c, 4); break;
	case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
	default: c->bad = true; return 0;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += here;
	else if ((enc & 0x70) != 0)
		c->bad = true;	/* datarel etc. never appear in .eh_frame */
	return v;
}

/* Reads the FDE pointer encoding ('R') of the CIE at c. */
static int
cie_encoding(struct cursor c, uint8_t *enc)
{
	uint8_t version = (uint8_t)fixed(&c, 1);
	const char *aug = (const char *)c.p;
	size_t auglen = strnlen(aug, (size_t)(c.end - c.p));

	*enc = DW_EH_PE_absptr;
	if (c.bad || (version != 1 && version != 3) ||
	    auglen == (size_t)(c.end - c.p))
		return -1;
	skip(&c, auglen + 1);
	if (strstr(aug, "eh") != NULL)
		skip(&c, 8);
	leb(&c, false);			/* code alignment */
	leb(&c, true);			/* data alignment */
	if (version == 1)
		skip(&c, 1);
	else
		leb(&c, false);		/* return address register */
	if (aug[0] != 'z')
		return c.bad ? -1 : 0;
	leb(&c, false);			/* augmentation data length */
	for (size_t i = 1; i < auglen && !c.bad; i++) {
		switch (aug[i]) {
		case 'R': *enc = (uint8_t)fixed(&c, 1); return c.bad ? -1 : 0;
		case 'L': skip(&c, 1); break;
		case 'P': encoded(&c, (uint8_t)fixed(&c, 1)); break;
		case 'S': case 'B': break;
		default: return 0;	/* unknown: keep the default */
		}
	}
	return c.bad ? -1 : 0;
}

static int
add_fde(struct sp_elf *elf, size_t *cap, uint64_t begin, uint64_t range)
{
	if (range == 0 || begin + range < begin)
		return 0;
	if (elf->nfdes == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct sp_symbol *n;
		if (ncap > MAX_FDES)
			return -1;
		n = realloc(elf->fdes, ncap * sizeof(*n));
		if (n == NULL)
			return -1;
		elf->fdes = n;
		*cap = ncap;
	}
	elf->fdes[elf->nfdes++] = (struct sp_symbol){ begin, range, "", false };
	return 0;
}

/* One record at c; returns 1 at the terminator, -1 when malformed. */
static int
record(struct sp_elf *elf, struct cursor *c, const struct cursor *all,
    size_t *cap)
{
	struct cursor rec;
	uint64_t len = fixed(c, 4), id_vaddr;
	uint32_t id;

	if (c->bad)
		return -1;
	if (len == 0)
		return 1;
	if (len == 0xffffffffu)
		len = fixed(c, 8);
	if (c->bad || len > (uint64_t)(c->end - c->p) || len < 4)
		return -1;
	rec = (struct cursor){ c->p, c->p + len, c->vaddr, false };
	skip(c, len);
	id_vaddr = rec.vaddr;
	id = (uint32_t)fixed(&rec, 4);
	if (id == 0)
		return 0;		/* a CIE: read when an FDE needs it */
	uint64_t cie_vaddr = id_vaddr - id;
	if (cie_vaddr < all->vaddr || cie_vaddr - all->vaddr + 4 >
	    (uint64_t)(all->end - all->p))
		return -1;
	struct cursor cie = *all;
	skip(&cie, cie_vaddr - all->vaddr);
	uint64_t cielen = fixed(&cie, 4);
	if (cielen == 0xffffffffu)
		cielen = fixed(&cie, 8);
	if (cie.bad || cielen < 4 || cielen > (uint64_t)(cie.end - cie.p))
		return -1;
	cie.end = cie.p + cielen;
	skip(&cie, 4);
	uint8_t enc;
	if (cie_encoding(cie, &enc) != 0)
		return -1;
	uint64_t begin = encoded(&rec, enc);
	uint64_t range = encoded(&rec, enc & 0x0f);
	if (rec.bad)
		return -1;
	return add_fde(elf, cap, begin, range);
}

static int
walk(struct sp_elf *elf, uint64_t vaddr, uint64_t size)
{
	const struct sp_segment *seg = sp_elf_segment_at(elf, vaddr);
	struct cursor all, c;
	size_t cap = 0;
	int rc;

	if (seg == NULL || vaddr - seg->vaddr >= seg->filesz) {
		sp_elf_warn(elf, ".eh_frame at 0x%llx is not file-backed",
		    (unsigned long long)vaddr);
		return 0;
	}
	uint64_t avail = seg->filesz - (vaddr - seg->vaddr);
	if (size == 0 || size > avail)
		size = avail;
	all.p = elf->data + seg->offset + (vaddr - seg->vaddr);
	all.end = all.p + size;
	all.vaddr = vaddr;
	all.bad = false;
	c = all;
	while (c.p < c.end) {
		rc = record(elf, &c, &all, &cap);
		if (rc == 1)
			break;
		if (rc < 0) {
			sp_elf_warn(elf, "malformed .eh_frame record at 0x%llx; "
			    "%zu function ranges read before it",
			    (unsigned long long)c.vaddr, elf->nfdes);
			break;
		}
	}
	return 0;
}

/* .eh_frame_hdr: version 1, then the encoded address of .eh_frame. */
static bool
eh_frame_from_hdr(struct sp_elf *elf, const struct sp_elf_build *b,
    uint64_t *vaddr)
{
	/* version, two encodings, pad, then at most 8 bytes of pointer */
	uint64_t len = b->eh_frame_hdr_size < 12 ? b->eh_frame_hdr_size : 12;
	const uint8_t *p = len >= 8 ? sp_elf_vaddr_ptr(elf,
	    b->eh_frame_hdr_vaddr, len) : NULL;
	struct cursor c;

	if (p == NULL || p[0] != 1)
		return false;
	c = (struct cursor){ p + 4, p + len, b->eh_frame_hdr_vaddr + 4, false };
	*vaddr = encoded(&c, p[1]);
	return !c.bad;
}

int
sp_elf_read_eh_frame(struct sp_elf *elf, const struct sp_elf_build *b,
    struct sp_error *err)
{
	uint64_t vaddr, size = 0;

	if (b->has_eh_frame_sec) {
		vaddr = b->eh_frame_vaddr;
		size = b->eh_frame_size;
	} else if (!b->has_eh_frame_hdr || !eh_frame_from_hdr(elf, b, &vaddr)) {
		return 0;
	}
	if (walk(elf, vaddr, size) != 0)
		return sp_error_set(err, "out of memory");
	if (elf->nfdes > 1)
		sp_symbols_sort(elf->fdes, elf->nfdes);
	return 0;
}
