/* SPDX-License-Identifier: ISC */
/*
 * Corrupting one field at a time.  FAIL cases are images the kernel would
 * not load (or that cannot be read safely): the reader must refuse them
 * and say why.  WARN cases are damage outside what the loader uses: the
 * reader goes on, and says what it skipped.  ANY: no crash is all we ask.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mutations.h"

enum want { FAIL, WARN, ANY };

struct mutation {
	const char *name;
	bool (*fn)(struct image *);
	enum want want;
	const char *substr;	/* in the error (FAIL) or warning (WARN) */
};

static Elf64_Phdr *
load(struct image *im, int which)
{
	Elf64_Ehdr *eh = img_ehdr(im);
	Elf64_Phdr *ph = (Elf64_Phdr *)(void *)(im->data + eh->e_phoff);

	for (size_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && which-- == 0)
			return &ph[i];
	return NULL;
}

#define EH(field, value) \
static bool m_##field##_##value(struct image *im) \
{ img_ehdr(im)->field = value; return true; }

EH(e_phnum, 0)
EH(e_phnum, 0xfffe)
EH(e_phentsize, 0)
EH(e_phentsize, 32)
EH(e_phentsize, 0xffff)
EH(e_shnum, 0xfffe)
EH(e_shstrndx, 0xfffe)
EH(e_type, ET_REL)
EH(e_type, ET_CORE)

static bool m_phnum_xnum(struct image *im)
{ img_ehdr(im)->e_phnum = PN_XNUM; return true; }
static bool m_phoff_past_end(struct image *im)
{ img_ehdr(im)->e_phoff = im->size + 8; return true; }
static bool m_phoff_wraps(struct image *im)
{ img_ehdr(im)->e_phoff = UINT64_MAX - 15; return true; }
static bool m_phoff_tail(struct image *im)
{ img_ehdr(im)->e_phoff = im->size - 60; return true; }
static bool m_shoff_past_end(struct image *im)
{ img_ehdr(im)->e_shoff = im->size + 64; return true; }
static bool m_shoff_wraps(struct image *im)
{ img_ehdr(im)->e_shoff = UINT64_MAX - 63; return true; }

static bool m_filesz_gt_memsz(struct image *im)
{ Elf64_Phdr *p = load(im, 0); p->p_memsz = p->p_filesz / 2; return true; }
static bool m_load_offset_past_end(struct image *im)
{ Elf64_Phdr *p = load(im, 1); p->p_offset = im->size + 4096; return true; }
static bool m_load_filesz_past_end(struct image *im)
{ Elf64_Phdr *p = load(im, 1); p->p_filesz = p->p_memsz = im->size;
  return true; }
static bool m_load_offset_wraps(struct image *im)
{ Elf64_Phdr *p = load(im, 0); p->p_offset = UINT64_MAX - 7; return true; }
static bool m_load_vaddr_kernel(struct image *im)
{ Elf64_Phdr *p = load(im, 1); p->p_vaddr = 0xffffffff80000000ull;
  return true; }
static bool m_load_memsz_huge(struct image *im)
{ Elf64_Phdr *p = load(im, 1); p->p_memsz = UINT64_MAX - 4096; return true; }
static bool m_no_load(struct image *im)
{
	Elf64_Phdr *p;

	while ((p = img_phdr(im, PT_LOAD)) != NULL)
		p->p_type = PT_NULL;
	return true;
}

static bool m_interp_huge(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_NOTE); if (!p) return false;
  p->p_type = PT_INTERP; p->p_filesz = UINT64_MAX / 2; return true; }
static bool m_interp_past_end(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_NOTE); if (!p) return false;
  p->p_type = PT_INTERP; p->p_offset = im->size - 2; p->p_filesz = 16;
  return true; }
static bool m_dynamic_past_end(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_DYNAMIC); if (!p) return false;
  p->p_offset = im->size - 8; return true; }
static bool m_dynamic_huge(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_DYNAMIC); if (!p) return false;
  p->p_filesz = UINT64_MAX - 4; return true; }
static bool m_note_past_end(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_NOTE); if (!p) return false;
  p->p_offset = im->size - 4; p->p_filesz = 64; return true; }
static bool m_note_namesz_huge(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_NOTE); if (!p) return false;
  uint32_t v = 0xfffffff0u; memcpy(im->data + p->p_offset, &v, 4);
  return true; }
static bool m_note_descsz_huge(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_NOTE); if (!p) return false;
  uint32_t v = 0xfffffffdu; memcpy(im->data + p->p_offset + 4, &v, 4);
  return true; }
static bool m_ehframe_hdr_garbage(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_GNU_EH_FRAME); if (!p) return false;
  p->p_vaddr = 0x7ffffffff000ull; p->p_memsz = 0x10000; return true; }
static bool m_ehframe_hdr_ptr(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_GNU_EH_FRAME); if (!p) return false;
  Elf64_Shdr *s = img_shdr(im, ".eh_frame"); if (!s) return false;
  s->sh_name = 0;	/* force the PT_GNU_EH_FRAME path */
  int32_t v = 0x7ffffff0; im->data[p->p_offset + 1] = 0x1b;
  memcpy(im->data + p->p_offset + 4, &v, 4); return true; }
static bool m_pin_past_end(struct image *im)
{ Elf64_Phdr *p = img_phdr(im, PT_NOTE); if (!p) return false;
  p->p_type = SP_PT_OPENBSD_SYSCALLS; p->p_offset = im->size;
  p->p_filesz = 8; return true; }

#define DYN(name, tag, value) \
static bool m_##name(struct image *im) \
{ Elf64_Dyn *d = img_dyn(im, tag); if (!d) return false; \
  d->d_un.d_val = value; return true; }

DYN(dt_symtab_far, DT_SYMTAB, 0x7fff00000000ull)
DYN(dt_strtab_far, DT_STRTAB, 0x7fff00000000ull)
DYN(dt_strsz_huge, DT_STRSZ, UINT64_MAX - 8)
DYN(dt_strsz_zero, DT_STRSZ, 0)

static bool m_gnu_hash_nbuckets(struct image *im)
{ Elf64_Dyn *d = img_dyn(im, DT_GNU_HASH); if (!d) return false;
  uint32_t v = 0xffffffffu; memcpy(im->data + img_off(im, d->d_un.d_ptr),
  &v, 4); return true; }
static bool m_gnu_hash_bloom(struct image *im)
{ Elf64_Dyn *d = img_dyn(im, DT_GNU_HASH); if (!d) return false;
  uint32_t v = 0x00ffffffu; memcpy(im->data + img_off(im, d->d_un.d_ptr) +
  8, &v, 4); return true; }
static bool m_gnu_hash_chain(struct image *im)
{ Elf64_Dyn *d = img_dyn(im, DT_GNU_HASH); if (!d) return false;
  uint64_t o = img_off(im, d->d_un.d_ptr); uint32_t nb, bl;
  memcpy(&nb, im->data + o, 4); memcpy(&bl, im->data + o + 8, 4);
  /* every chain word "not last": the walk must stop at the image end */
  for (uint64_t p = o + 16 + 8 * (uint64_t)bl + 4 * (uint64_t)nb;
  p + 4 <= im->size; p += 4) im->data[p] &= 0xfe;
  return true; }
static bool m_symtab_size_huge(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".symtab"); if (!s) return false;
  s->sh_size = UINT64_MAX - 23; return true; }
static bool m_symtab_count_absurd(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".symtab"); if (!s) return false;
  s->sh_offset = 0; s->sh_size = im->size / 24 * 24; return true; }
static bool m_dynsym_size_huge(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".dynsym"); if (!s) return false;
  s->sh_size = 0xffffffffff00ull; return true; }
static bool m_dynsym_link_bad(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".dynsym"); if (!s) return false;
  s->sh_link = 0xfff0; return true; }
static bool m_symtab_names_bad(struct image *im)
{
	Elf64_Shdr *s = img_shdr(im, ".symtab");

	if (s == NULL)
		return false;
	for (uint64_t o = s->sh_offset; o + 24 <= s->sh_offset + s->sh_size;
	    o += 24)
		memset(im->data + o, 0xff, 4);
	return true;
}
static bool m_symtab_values_wild(struct image *im)
{
	Elf64_Shdr *s = img_shdr(im, ".symtab");

	if (s == NULL)
		return false;
	for (uint64_t o = s->sh_offset; o + 24 <= s->sh_offset + s->sh_size;
	    o += 24) {
		memset(im->data + o + 8, 0xff, 8);
		memset(im->data + o + 16, 0x7f, 8);
	}
	return true;
}
static bool m_strtab_unterminated(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".strtab"); if (!s) return false;
  memset(im->data + s->sh_offset, 'A', s->sh_size); return true; }

static const struct mutation mutations[] = {
	{ "e_phnum 0", m_e_phnum_0, FAIL, "program header" },
	{ "e_phnum 0xfffe", m_e_phnum_0xfffe, FAIL, "program header" },
	{ "e_phnum PN_XNUM", m_phnum_xnum, FAIL, "program header" },
	{ "e_phentsize 0", m_e_phentsize_0, FAIL, "program header" },
	{ "e_phentsize 32", m_e_phentsize_32, FAIL, "program header" },
	{ "e_phentsize 0xffff", m_e_phentsize_0xffff, FAIL, "program header" },
	{ "e_phoff past end", m_phoff_past_end, FAIL, "program header" },
	{ "e_phoff wraps", m_phoff_wraps, FAIL, "program header" },
	{ "e_phoff table cut", m_phoff_tail, FAIL, "program header" },
	{ "e_type ET_REL", m_e_type_ET_REL, FAIL, "e_type" },
	{ "e_type ET_CORE", m_e_type_ET_CORE, FAIL, "e_type" },
	{ "e_shnum huge", m_e_shnum_0xfffe, ANY, NULL },
	{ "e_shstrndx bad", m_e_shstrndx_0xfffe, ANY, NULL },
	{ "e_shoff past end", m_shoff_past_end, ANY, NULL },
	{ "e_shoff wraps", m_shoff_wraps, ANY, NULL },
	{ "PT_LOAD filesz > memsz", m_filesz_gt_memsz, FAIL, "memory size" },
	{ "PT_LOAD offset past end", m_load_offset_past_end, FAIL,
	    "past the end" },
	{ "PT_LOAD filesz past end", m_load_filesz_past_end, FAIL,
	    "past the end" },
	{ "PT_LOAD offset wraps", m_load_offset_wraps, FAIL, "PT_LOAD" },
	{ "PT_LOAD kernel vaddr", m_load_vaddr_kernel, FAIL, "PT_LOAD" },
	{ "PT_LOAD memsz huge", m_load_memsz_huge, FAIL, "PT_LOAD" },
	{ "no PT_LOAD", m_no_load, FAIL, "PT_LOAD" },
	{ "PT_INTERP huge", m_interp_huge, FAIL, "PT_INTERP" },
	{ "PT_INTERP past end", m_interp_past_end, FAIL, "PT_INTERP" },
	{ "PT_OPENBSD_SYSCALLS past end", m_pin_past_end, FAIL,
	    "PT_OPENBSD_SYSCALLS" },
	{ "PT_DYNAMIC past end", m_dynamic_past_end, ANY, NULL },
	{ "PT_DYNAMIC huge", m_dynamic_huge, ANY, NULL },
	{ "PT_NOTE past end", m_note_past_end, WARN, "PT_NOTE" },
	{ "note namesz huge", m_note_namesz_huge, ANY, NULL },
	{ "note descsz huge", m_note_descsz_huge, ANY, NULL },
	{ "PT_GNU_EH_FRAME unmapped", m_ehframe_hdr_garbage, ANY, NULL },
	{ "eh_frame_hdr pointer wild", m_ehframe_hdr_ptr, ANY, NULL },
	{ "DT_SYMTAB unmapped", m_dt_symtab_far, ANY, NULL },
	{ "DT_STRTAB unmapped", m_dt_strtab_far, ANY, NULL },
	{ "DT_STRSZ huge", m_dt_strsz_huge, ANY, NULL },
	{ "DT_STRSZ 0", m_dt_strsz_zero, ANY, NULL },
	{ "GNU hash nbuckets 2^32-1", m_gnu_hash_nbuckets, ANY, NULL },
	{ "GNU hash bloom huge", m_gnu_hash_bloom, ANY, NULL },
	{ "GNU hash chain unterminated", m_gnu_hash_chain, ANY, NULL },
	{ ".symtab size huge", m_symtab_size_huge, ANY, NULL },
	{ ".symtab absurd count", m_symtab_count_absurd, ANY, NULL },
	{ ".dynsym size huge", m_dynsym_size_huge, ANY, NULL },
	{ ".dynsym sh_link bad", m_dynsym_link_bad, ANY, NULL },
	{ ".symtab names out of range", m_symtab_names_bad, ANY, NULL },
	{ ".symtab values wild", m_symtab_values_wild, ANY, NULL },
	{ ".strtab unterminated", m_strtab_unterminated, ANY, NULL },
};

static int
run_one(const struct mutation *m, struct image *base)
{
	char msg[SP_ERROR_MAX], warn[SP_ERROR_MAX];
	struct image im;
	int bad = 0, rc;

	image_copy(&im, base);
	if (!m->fn(&im)) {
		print_message("  %-32s not applicable\n", m->name);
		image_free(&im);
		return 0;
	}
	rc = try_image(im.data, im.size, msg, sizeof(msg), warn, sizeof(warn));
	print_message("  %-32s %s: %s\n", m->name, rc ? "error" : "ok",
	    rc ? msg : warn);
	if (m->want == FAIL && (rc == 0 || strstr(msg, m->substr) == NULL))
		bad = 1;
	if (m->want == WARN && (rc != 0 || strstr(warn, m->substr) == NULL))
		bad = 1;
	if (rc != 0 && msg[0] == '\0')
		bad = 1;
	if (bad)
		print_error("  MISMATCH %s: want %s \"%s\"\n", m->name,
		    m->want == FAIL ? "error" : "warning", m->substr);
	image_free(&im);
	return bad;
}

void
test_mutations(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(mutations) / sizeof(*mutations); i++)
		bad += run_one(&mutations[i], &small);
	if (bad)
		fail_msg("%d mutation(s) not handled as expected", bad);
}

/* .eh_frame damage: the reader keeps going and warns. */
static bool
eh_first_len(struct image *im, uint32_t len)
{
	Elf64_Shdr *s = img_shdr(im, ".eh_frame");

	if (s == NULL)
		return false;
	memcpy(im->data + s->sh_offset, &len, 4);
	return true;
}

/* The first FDE (record after the first CIE). */
static uint64_t
eh_first_fde(struct image *im)
{
	Elf64_Shdr *s = img_shdr(im, ".eh_frame");
	uint32_t len;

	if (s == NULL)
		return 0;
	memcpy(&len, im->data + s->sh_offset, 4);
	return s->sh_offset + 4 + len;
}

static bool m_eh_len_huge(struct image *im)
{ return eh_first_len(im, 0xfffffff0u); }
static bool m_eh_len_64(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".eh_frame"); if (!s) return false;
  uint64_t v = UINT64_MAX - 2; eh_first_len(im, 0xffffffffu);
  memcpy(im->data + s->sh_offset + 4, &v, 8); return true; }
static bool m_eh_len_short(struct image *im)
{ return eh_first_len(im, 2); }
static bool
eh_cie_ptr(struct image *im, uint32_t v)
{
	uint64_t o = eh_first_fde(im);

	if (o == 0)
		return false;
	memcpy(im->data + o + 4, &v, 4);
	return true;
}

static bool m_eh_cie_ptr_out(struct image *im)
{ return eh_cie_ptr(im, 0x7ffffff0u); }
static bool m_eh_cie_ptr_self(struct image *im)
{ return eh_cie_ptr(im, 4); }
static bool m_eh_cie_ptr_neg(struct image *im)
{ return eh_cie_ptr(im, 0xfffffff0u); }
static bool m_eh_aug_unterminated(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".eh_frame"); if (!s) return false;
  memset(im->data + s->sh_offset + 9, 'z', s->sh_size - 9); return true; }
static bool m_eh_cie_version(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".eh_frame"); if (!s) return false;
  im->data[s->sh_offset + 8] = 9; return true; }
static bool m_eh_enc_bad(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".eh_frame"); if (!s) return false;
  /* "zR": the R byte follows code/data align, RA reg, aug length */
  uint8_t *p = im->data + s->sh_offset + 9;
  if (strcmp((char *)p, "zR") != 0) return false;
  p[3 + 1 + 1 + 1 + 1] = 0x7e; return true; }
static bool m_eh_size_huge(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".eh_frame"); if (!s) return false;
  s->sh_size = UINT64_MAX - 100; return true; }
static bool m_eh_addr_wild(struct image *im)
{ Elf64_Shdr *s = img_shdr(im, ".eh_frame"); if (!s) return false;
  s->sh_addr = 0x7ffffffff000ull; return true; }

static const struct mutation eh_mutations[] = {
	{ "eh length 0xfffffff0", m_eh_len_huge, WARN, ".eh_frame" },
	{ "eh 64-bit length huge", m_eh_len_64, WARN, ".eh_frame" },
	{ "eh length 2", m_eh_len_short, WARN, ".eh_frame" },
	{ "FDE CIE pointer out of range", m_eh_cie_ptr_out, WARN,
	    ".eh_frame" },
	{ "FDE CIE pointer to itself", m_eh_cie_ptr_self, WARN, ".eh_frame" },
	{ "FDE CIE pointer negative", m_eh_cie_ptr_neg, WARN, ".eh_frame" },
	{ "CIE augmentation unterminated", m_eh_aug_unterminated, WARN,
	    ".eh_frame" },
	{ "CIE version 9", m_eh_cie_version, WARN, ".eh_frame" },
	{ "CIE pointer encoding 0x7e", m_eh_enc_bad, WARN, ".eh_frame" },
	{ ".eh_frame size huge", m_eh_size_huge, ANY, NULL },
	{ ".eh_frame address unmapped", m_eh_addr_wild, WARN, ".eh_frame" },
};

void
test_eh_frame(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(eh_mutations) / sizeof(*eh_mutations);
	    i++)
		bad += run_one(&eh_mutations[i], &small);
	if (bad)
		fail_msg("%d .eh_frame corruption(s) not handled as expected",
		    bad);
}

static bool m_class32(struct image *im)
{ im->data[EI_CLASS] = ELFCLASS32; return true; }
static bool m_class_bad(struct image *im)
{ im->data[EI_CLASS] = 7; return true; }
static bool m_big_endian(struct image *im)
{ im->data[EI_DATA] = ELFDATA2MSB; return true; }
static bool m_data_bad(struct image *im)
{ im->data[EI_DATA] = 9; return true; }
static bool m_aarch64(struct image *im)
{ img_ehdr(im)->e_machine = EM_AARCH64; return true; }
static bool m_i386(struct image *im)
{ img_ehdr(im)->e_machine = EM_386; return true; }
static bool m_version_bad(struct image *im)
{ im->data[EI_VERSION] = 0; img_ehdr(im)->e_version = 0; return true; }

/* A genuine little 32-bit i386 executable header (no class trickery). */
static bool
m_real_elf32(struct image *im)
{
	Elf32_Ehdr eh = { 0 };
	Elf32_Phdr ph = { 0 };

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_386;
	eh.e_version = EV_CURRENT;
	eh.e_entry = 0x8048000 + sizeof(eh) + sizeof(ph);
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	ph.p_type = PT_LOAD;
	ph.p_vaddr = 0x8048000;
	ph.p_filesz = ph.p_memsz = sizeof(eh) + sizeof(ph) + 4;
	ph.p_flags = PF_R | PF_X;
	memset(im->data, 0, im->size);
	memcpy(im->data, &eh, sizeof(eh));
	memcpy(im->data + sizeof(eh), &ph, sizeof(ph));
	memcpy(im->data + sizeof(eh) + sizeof(ph), "\xcd\x80\xeb\xfe", 4);
	im->size = sizeof(eh) + sizeof(ph) + 4;
	return true;
}

/* Big-endian x86-64 with every header field byte-swapped. */
static bool
m_real_big_endian(struct image *im)
{
	Elf64_Ehdr *eh = img_ehdr(im);

	eh->e_ident[EI_DATA] = ELFDATA2MSB;
	eh->e_type = (uint16_t)__builtin_bswap16(eh->e_type);
	eh->e_machine = (uint16_t)__builtin_bswap16(eh->e_machine);
	eh->e_version = __builtin_bswap32(eh->e_version);
	eh->e_phoff = __builtin_bswap64(eh->e_phoff);
	eh->e_shoff = __builtin_bswap64(eh->e_shoff);
	eh->e_ehsize = (uint16_t)__builtin_bswap16(eh->e_ehsize);
	eh->e_phentsize = (uint16_t)__builtin_bswap16(eh->e_phentsize);
	eh->e_phnum = (uint16_t)__builtin_bswap16(eh->e_phnum);
	eh->e_shentsize = (uint16_t)__builtin_bswap16(eh->e_shentsize);
	eh->e_shnum = (uint16_t)__builtin_bswap16(eh->e_shnum);
	eh->e_shstrndx = (uint16_t)__builtin_bswap16(eh->e_shstrndx);
	return true;
}

static const struct mutation foreign[] = {
	{ "EI_CLASS 32-bit", m_class32, FAIL, "32-bit" },
	{ "real ELF32 i386", m_real_elf32, FAIL, "32-bit" },
	{ "EI_CLASS 7", m_class_bad, FAIL, "ELF" },
	{ "EI_DATA big-endian", m_big_endian, FAIL, "big-endian" },
	{ "big-endian headers", m_real_big_endian, FAIL, "big-endian" },
	{ "EI_DATA 9", m_data_bad, FAIL, "" },
	{ "e_machine EM_AARCH64", m_aarch64, FAIL, "architecture" },
	{ "e_machine EM_386", m_i386, FAIL, "architecture" },
	{ "EI_VERSION 0", m_version_bad, ANY, NULL },
};

void
test_foreign(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(foreign) / sizeof(*foreign); i++)
		bad += run_one(&foreign[i], &small);
	if (bad)
		fail_msg("%d foreign image(s) not refused as expected", bad);
}
