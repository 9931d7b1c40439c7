/* SPDX-License-Identifier: ISC */
/*
 * Finding references to a few addresses without decoding everything: a
 * pass over the executable bytes computes, at every position, the target a
 * rel32 field there would have, and looks it up.  Branch opcodes in front
 * make it a call/jmp/jcc candidate (verified later by decoding its unit);
 * anything else is a rip-relative use of the address (lea, mov), i.e. the
 * address is taken.  Data words and RELA addends equal to a target are
 * taken addresses too (function pointers, RELR-implicit addends).
 */
#include <emmintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "analysis.h"

struct xref_buf {
	struct xref *v;
	size_t n, cap;
};

static int
xpush(struct xref_buf *b, uint64_t from, uint64_t to, uint8_t kind)
{
	if (b->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 64;
		struct xref *v = realloc(b->v, ncap * sizeof(*v));
		if (v == NULL)
			return -1;
		b->v = v;
		b->cap = ncap;
	}
	b->v[b->n++] = (struct xref){ from, to, kind };
	return 0;
}

static bool
wanted(const uint64_t *t, size_t n, uint64_t x)
{
	size_t i = sp_lower_bound(t, n, sizeof(*t), 0, x);

	return i < n && t[i] == x;
}

/*
 * The byte before a rel32 field says what it can be: a call/jmp opcode,
 * the second byte of a jcc or of `call/jmp *slot(%rip)`, or a ModRM byte
 * with mod=00 rm=101 (rip-relative).  Anything else is not a reference,
 * which is what makes this pass cheap.
 */
static int
classify(const uint8_t *p, uint64_t o, uint64_t *from, uint8_t *kind)
{
	uint8_t b1 = p[o - 1], b2 = o >= 2 ? p[o - 2] : 0;

	if (b2 == 0xff && (b1 == 0x15 || b1 == 0x25)) {
		*kind = b1 == 0x15 ? XREF_CALL : XREF_JMP;
		*from = o - 2;
	} else if (b1 == 0xe8 || b1 == 0xe9) {
		*kind = b1 == 0xe8 ? XREF_CALL : XREF_JMP;
		*from = o - 1;
	} else if (b2 == 0x0f && (b1 & 0xf0) == 0x80) {
		*kind = XREF_JCC;
		*from = o - 2;
	} else if ((b1 & 0xc7) == 0x05) {
		*kind = XREF_RIPREL;
		*from = o;
	} else {
		return 0;
	}
	return 1;
}

/* Bytes that can precede a rel32 field (see classify). */
static bool
can_precede(uint8_t b)
{
	return b == 0xe8 || b == 0xe9 || (b & 0xf0) == 0x80 ||
	    (b & 0xc7) == 0x05;
}

/*
 * A rip-relative operand is relative to the END of the instruction: when
 * an immediate follows the displacement (`movl $1, x(%rip)`), the field
 * points `imm` bytes short.  Branches have no trailing immediate.
 */
static const unsigned trailing[] = { 0, 1, 2, 4 };
#define NTRAILING (sizeof(trailing) / sizeof(*trailing))

/* Pushes the reference a field at o makes, given its trailing size j. */
static int
record(const uint8_t *p, uint64_t o, unsigned j, uint64_t vaddr, uint64_t to,
    struct xref_buf *b)
{
	uint64_t from;
	uint8_t kind;

	if (!classify(p, o, &from, &kind))
		return 0;
	if (j != 0) {
		if (kind != XREF_RIPREL)
			return 0;
	}
	return xpush(b, vaddr + from, to, kind);
}

/*
 * Any rel32 field in the 16 positions from o whose target, for some
 * trailing size j, lies in [k[j], k[j] + n) (as the field's 32-bit value
 * plus its position; a range of one is the common case): SSE2 has no
 * unsigned compare, so both sides are biased by 2^31.
 */
static bool
chunk_has_hit(const uint8_t *p, uint64_t o, uint32_t k, uint32_t n)
{
	const __m128i bias = _mm_set1_epi32(INT32_MIN);
	const __m128i lim = _mm_set1_epi32((int32_t)(n ^ 0x80000000u));
	const __m128i kk = _mm_set1_epi32((int)k);
	__m128i any = _mm_setzero_si128();

	for (int j = 0; j < 4; j++) {
		__m128i d = _mm_loadu_si128((const __m128i *)(p + o + j));
		__m128i pos = _mm_add_epi32(_mm_set1_epi32((int)(uint32_t)(o +
		    (uint64_t)j)), _mm_set_epi32(12, 8, 4, 0));
		__m128i x = _mm_sub_epi32(_mm_add_epi32(d, pos), kk);
		any = _mm_or_si128(any, _mm_cmplt_epi32(_mm_xor_si128(x, bias),
		    lim));
	}
	return _mm_movemask_epi8(any) != 0;
}

/* References to [t, t + n) (n small: one object's bytes, or one target). */
static int
scan_rel32_range(const struct sp_segment *s, const uint8_t *p, uint64_t t,
    uint32_t n, size_t nk, struct xref_buf *b)
{
	uint32_t k[NTRAILING];
	uint64_t o = 1;

	if (s->filesz < 5)
		return 0;	/* no room for an opcode and a rel32 */
	for (size_t j = 0; j < nk; j++)
		k[j] = (uint32_t)(t - s->vaddr - 4 - trailing[j]);
	for (;;) {
		/* A step reads p[o .. o+18]: stay inside the segment. */
		bool fast = o + 19 <= s->filesz;
		uint64_t lim = fast ? o + 16 : s->filesz - 3;
		if (o >= lim)
			break;
		/* k[j] = k[0] - trailing[j]: one window holds them all. */
		if (fast && !chunk_has_hit(p, o, k[0] - trailing[nk - 1],
		    n + trailing[nk - 1])) {
			o = lim;
			continue;
		}
		for (; o < lim; o++) {
			uint32_t d, x;
			memcpy(&d, p + o, 4);
			for (size_t j = 0; j < nk; j++)
				if ((x = d + (uint32_t)o - k[j]) < n &&
				    record(p, o, trailing[j], s->vaddr, t + x,
				    b) != 0)
					return -1;
		}
		if (!fast)
			break;
	}
	return 0;
}

/* rel32 fields anywhere in an executable segment. */
static int
scan_rel32(const struct sp_segment *s, const uint8_t *p, const uint64_t *t,
    size_t n, size_t nk, uint64_t tmin, uint64_t tmax, struct xref_buf *b)
{
	bool maybe[256];

	for (unsigned i = 0; i < 256; i++)
		maybe[i] = can_precede((uint8_t)i);
	for (uint64_t o = 1; o + 4 <= s->filesz; o++) {
		int32_t d;
		if (!maybe[p[o - 1]])
			continue;
		memcpy(&d, p + o, 4);
		for (size_t j = 0; j < nk; j++) {
			uint64_t to = s->vaddr + o + 4 + trailing[j] +
			    (uint64_t)(int64_t)d;
			if (to < tmin || to > tmax || !wanted(t, n, to))
				continue;
			if (record(p, o, trailing[j], s->vaddr, to, b) != 0)
				return -1;
		}
	}
	return 0;
}

/* Short jumps can only come from within 128 bytes of the target. */
static int
scan_rel8(const struct sp_elf *elf, uint64_t to, struct xref_buf *b)
{
	uint64_t lo = to > 130 ? to - 130 : 0;

	for (uint64_t at = lo; at < to + 128; at++) {
		const uint8_t *p = sp_elf_vaddr_ptr(elf, at, 2);
		if (p == NULL)
			continue;
		bool jmp = p[0] == 0xeb, jcc = (p[0] & 0xf0) == 0x70;
		if ((jmp || jcc) && at + 2 + (uint64_t)(int64_t)(int8_t)p[1] ==
		    to && xpush(b, at, to, jmp ? XREF_JMP : XREF_JCC) != 0)
			return -1;
	}
	return 0;
}

/* The ELF and program headers are loaded too, but hold no pointers. */
static bool
in_headers(const struct sp_elf *elf, uint64_t file_off)
{
	Elf64_Ehdr eh;

	memcpy(&eh, elf->data, sizeof(eh));	/* size checked at open */
	if (file_off < sizeof(eh))
		return true;
	return file_off >= eh.e_phoff && file_off - eh.e_phoff <
	    (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr);
}

/*
 * Position-independent objects keep function pointers in writable (or
 * RELRO) memory, since they need relocating; ET_EXEC may keep them in
 * read-only data too.  The symbol table and the headers are not pointer
 * tables.
 */
static int
scan_data(const struct sp_elf *elf, const uint64_t *t, size_t n,
    struct xref_buf *b)
{
	for (size_t i = 0; i < elf->nsegs; i++) {
		const struct sp_segment *s = &elf->segs[i];
		const uint8_t *p = elf->data + s->offset;
		uint64_t first = (8 - (s->vaddr & 7)) & 7;
		if (sp_elf_is_dyn(elf) && !(s->flags & PF_W))
			continue;
		for (uint64_t o = first; o + 8 <= s->filesz; o += 8) {
			uint64_t w, at = s->vaddr + o;
			if ((at >= elf->dynsym_vaddr &&
			    at - elf->dynsym_vaddr < elf->dynsym_size) ||
			    in_headers(elf, s->offset + o))
				continue;
			memcpy(&w, p + o, 8);
			if (wanted(t, n, w) &&
			    xpush(b, s->vaddr + o, w, XREF_DATA) != 0)
				return -1;
		}
	}
	for (size_t i = 0; i < elf->nrela; i++) {
		Elf64_Rela r;
		memcpy(&r, (const uint8_t *)elf->rela + i * sizeof(r),
		    sizeof(r));
		if (wanted(t, n, (uint64_t)r.r_addend) &&
		    xpush(b, r.r_offset, (uint64_t)r.r_addend, XREF_DATA) != 0)
			return -1;
	}
	return 0;
}

int
sp_xrefs_find(struct analysis *a, const uint64_t *targets, size_t n,
    bool data, struct xref **out, size_t *nout)
{
	size_t nk = data ? NTRAILING : 1;

	const struct sp_elf *elf = a->elf;
	struct xref_buf b = { 0 };

	*out = NULL;
	*nout = 0;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < elf->nsegs; i++) {
		const struct sp_segment *s = &elf->segs[i];
		if (!(s->flags & PF_X))
			continue;
		/* Consecutive targets (an object's bytes): one SIMD pass. */
		bool range = n <= 64 && targets[n - 1] - targets[0] == n - 1;
		int rc = range ? scan_rel32_range(s, elf->data + s->offset,
		    targets[0], (uint32_t)n, nk, &b) : scan_rel32(s,
		    elf->data + s->offset, targets, n, nk, targets[0],
		    targets[n - 1], &b);
		if (rc != 0)
			goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if (scan_rel8(elf, targets[i], &b) != 0)
			goto fail;
	if (scan_data(elf, targets, n, &b) != 0)
		goto fail;
	*out = b.v;
	*nout = b.n;
	return 0;
fail:
	free(b.v);
	return -1;
}
