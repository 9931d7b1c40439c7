/* SPDX-License-Identifier: ISC */
/*
 * OpenBSD pin-table conformance: each fixture (fixtures.S, built by
 * meson.build) is read with sp_elf_open + sp_openbsd_read /
 * sp_openbsd_pintable and compared with the table OpenBSD's
 * elf_read_pintable + elf_adjustpins would install.  Then the binaries
 * built from helpers.c: every syspin_syscallN must have left an entry that
 * points at a `syscall` instruction (0f 05) with its number.
 *
 * usage: test_openbsd BUILDDIR
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "elf/elf.h"
#include "pins/openbsd.h"

#define T	0x401000u	/* text start of exec.ld fixtures */
#define ANY	SP_PIN_ANY

static const char *dir;

struct pin {
	uint32_t nr;
	uint32_t value;
};

struct expect {
	const char *file;
	bool present;
	bool valid;
	const char *reason;	/* exact, when !valid */
	size_t n;		/* raw entries */
	struct sp_openbsd_entry first[3];	/* first raw entries, if n */
	uint32_t npins;
	struct pin pins[4];	/* every non-zero pin */
	size_t npinset;
	uint64_t start, end;	/* text region */
};

static const struct expect fixtures[] = {
	/* Cases 1-4: a table built the way libc does it. */
	{ "fx_valid", true, true, NULL, 3,
	  { { T + 0x10, 39 }, { T + 0x20, 1 }, { T + 0x30, 231 } },
	  232, { { 39, 0x10 }, { 1, 0x20 }, { 231, 0x30 } }, 3,
	  T, T + 0x40 },
	/* The same, found through the section name only... */
	{ "fx_seconly", true, true, NULL, 3,
	  { { T + 0x10, 39 }, { T + 0x20, 1 }, { T + 0x30, 231 } },
	  232, { { 39, 0x10 }, { 1, 0x20 }, { 231, 0x30 } }, 3,
	  T, T + 0x40 },
	/* ...and through PT_OPENBSD_SYSCALLS only (no section headers). */
	{ "fx_stripped", true, true, NULL, 3,
	  { { T + 0x10, 39 }, { T + 0x20, 1 }, { T + 0x30, 231 } },
	  232, { { 39, 0x10 }, { 1, 0x20 }, { 231, 0x30 } }, 3,
	  T, T + 0x40 },
	/* Case 14: static PIE, offsets from base 0. */
	{ "fx_spie", true, true, NULL, 3,
	  { { 0x1010, 39 }, { 0x1020, 1 }, { 0x1030, 231 } },
	  232, { { 39, 0x10 }, { 1, 0x20 }, { 231, 0x30 } }, 3,
	  0x1000, 0x1040 },
	/* Case 5: two places -> -1. */
	{ "fx_dup", true, true, NULL, 3,
	  { { T + 0x10, 39 }, { T + 0x20, 39 }, { T + 0x30, 1 } },
	  40, { { 39, ANY }, { 1, 0x30 } }, 2, T, T + 0x40 },
	/* Case 6: the same place twice -> -1 as well. */
	{ "fx_sameoff", true, true, NULL, 3,
	  { { T + 0x10, 39 }, { T + 0x10, 39 }, { T + 0x20, 60 } },
	  61, { { 39, ANY }, { 60, 0x20 } }, 2, T, T + 0x40 },
	/*
	 * Case 7, number 0: read(2) on Linux, accepted by syspin; OpenBSD's
	 * verdict (rejected) is checked by test_sysno0_openbsd.
	 */
	{ "fx_sysno0", true, true, NULL, 2,
	  { { T + 0x10, 39 }, { T + 0x20, 0 } },
	  40, { { 39, 0x10 }, { 0, 0x20 } }, 2, T, T + 0x40 },
	{ "fx_sysnomax", true, false,
	  "entry 1: number 512 is not below SYS_MAXSYSCALL (512)", 2,
	  { { T + 0x10, 39 }, { T + 0x20, 512 } }, 0, { { 0, 0 } }, 0,
	  T, T + 0x40 },
	{ "fx_sysnolast", true, true, NULL, 1, { { T + 0x10, 511 } },
	  512, { { 511, 0x10 } }, 1, T, T + 0x40 },
	/* Case 8. */
	{ "fx_past", true, false,
	  "entry 1: offset 0x401041 is past the end of the text region "
	  "(0x401040)", 2, { { T + 0x10, 39 }, { T + 0x41, 60 } },
	  0, { { 0, 0 } }, 0, T, T + 0x40 },
	/* Case 12: offset == region length, accepted. */
	{ "fx_atend", true, true, NULL, 1, { { T + 0x40, 39 } },
	  40, { { 39, 0x40 } }, 1, T, T + 0x40 },
	/* Case 13: offset == text start rebases to 0, "not allowed". */
	{ "fx_atstart", true, true, NULL, 2, { { T, 39 }, { T + 0x10, 60 } },
	  61, { { 60, 0x10 } }, 1, T, T + 0x40 },
	/* Offset start-1 wraps to -1; a first offset 0 reads as unset. */
	{ "fx_quirks", true, true, NULL, 4,
	  { { T - 1, 39 }, { 0, 60 }, { T + 0x20, 60 } },
	  61, { { 39, ANY }, { 60, 0x20 }, { 1, 0x30 } }, 3, T, T + 0x40 },
	/* Case 9. */
	{ "fx_odd", true, false, "table size 12 is not a multiple of 8", 1,
	  { { T + 0x10, 39 } }, 0, { { 0, 0 } }, 0, T, T + 0x40 },
	{ "fx_maxsize", true, true, NULL, 1024, { { T + 0x10, 39 } },
	  40, { { 39, ANY } }, 1, T, T + 0x40 },
	{ "fx_toolarge", true, false,
	  "table has 1025 entries, more than SYS_MAXSYSCALL*2 (1024)", 1025,
	  { { T + 0x10, 39 } }, 0, { { 0, 0 } }, 0, T, T + 0x40 },
	/* Case 10: empty table, npins 1, everything killed. */
	{ "fx_empty", true, true, NULL, 0, { { 0, 0 } }, 1, { { 0, 0 } }, 0,
	  T, T + 0x40 },
	/* Case 11: no table at all. */
	{ "fx_none", false, false, NULL, 0, { { 0, 0 } }, 0, { { 0, 0 } }, 0,
	  T, T + 0x40 },
	/* Text PT_LOAD at 0x401010, p_align 0x1000: region from 0x401000. */
	{ "fx_unaligned", true, true, NULL, 2,
	  { { T + 0x20, 39 }, { T + 0x40, 1 } },
	  40, { { 39, 0x20 }, { 1, 0x40 } }, 2, T, T + 0x50 },
};

static void
open_fixture(struct sp_elf *elf, const char *name)
{
	struct sp_error err = { "", 0 };
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (sp_elf_open(elf, path, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
}

static void
check_raw(const struct expect *x, const struct sp_openbsd_section *sec)
{
	assert_int_equal(sec->present, x->present);
	assert_int_equal(sec->valid, x->valid);
	/* Only number 0 separates the two verdicts. */
	if (strcmp(x->file, "fx_sysno0") != 0)
		assert_int_equal(sec->openbsd_valid, x->valid);
	assert_int_equal(sec->n, x->n);
	if (!x->valid && x->reason != NULL)
		assert_string_equal(sec->reason, x->reason);
	for (size_t i = 0; i < x->n && i < 3; i++) {
		if (x->first[i].offset == 0 && x->first[i].sysno == 0)
			break;
		assert_int_equal(sec->entries[i].offset, x->first[i].offset);
		assert_int_equal(sec->entries[i].sysno, x->first[i].sysno);
	}
}

static void
check_pintable(const struct expect *x, const struct sp_openbsd_pintable *pt)
{
	size_t nonzero = 0;

	assert_int_equal(pt->present, x->present);
	assert_int_equal(pt->valid, x->valid);
	assert_int_equal(pt->region.start, x->start);
	assert_int_equal(pt->region.end, x->end);
	assert_int_equal(pt->npins, x->npins);
	if (!x->valid) {
		assert_null(pt->pins);
		if (x->reason != NULL)
			assert_string_equal(pt->reason, x->reason);
		return;
	}
	assert_non_null(pt->pins);
	for (size_t i = 0; i < x->npinset; i++)
		assert_int_equal(pt->pins[x->pins[i].nr], x->pins[i].value);
	for (uint32_t nr = 0; nr < pt->npins; nr++)
		if (pt->pins[nr] != 0)
			nonzero++;
	assert_int_equal(nonzero, x->npinset);
}

static void
test_fixture(void **state)
{
	const struct expect *x = *state;
	struct sp_openbsd_section sec;
	struct sp_openbsd_pintable pt;
	struct sp_error err = { "", 0 };
	struct sp_elf elf;

	open_fixture(&elf, x->file);
	assert_int_equal(sp_openbsd_read(&elf, &sec, &err), 0);
	check_raw(x, &sec);
	assert_int_equal(sp_openbsd_pintable(&elf, &pt, &err), 0);
	check_pintable(x, &pt);
	assert_false(pt.ignored);	/* static: the kernel reads it */
	sp_openbsd_pintable_free(&pt);
	sp_openbsd_section_free(&sec);
	sp_elf_close(&elf);
}

static unsigned
shnum(const struct sp_elf *elf)
{
	Elf64_Ehdr eh;

	memcpy(&eh, elf->data, sizeof(eh));
	return eh.e_shnum;
}

/* The fixtures really are what their names say. */
static void
test_fixture_shapes(void **state)
{
	struct sp_elf elf;

	(void)state;
	open_fixture(&elf, "fx_stripped");
	assert_true(elf.has_pin_section);
	assert_int_equal(shnum(&elf), 0);
	sp_elf_close(&elf);
	open_fixture(&elf, "fx_valid");
	assert_int_not_equal(shnum(&elf), 0);
	assert_int_equal(elf.kind, SP_ELF_EXEC_STATIC);
	sp_elf_close(&elf);
	open_fixture(&elf, "fx_spie");
	assert_int_equal(elf.kind, SP_ELF_STATIC_PIE);
	sp_elf_close(&elf);
	open_fixture(&elf, "fx_empty");
	assert_true(elf.has_pin_section);
	assert_int_equal(elf.pin_size, 0);
	sp_elf_close(&elf);
}

/*
 * Number 0: syspin's verdict accepts it and pins it, OpenBSD's rejects the
 * table, and both are reported.
 */
static void
test_sysno0_openbsd(void **state)
{
	struct sp_openbsd_pintable pt;
	struct sp_error err = { "", 0 };
	struct sp_elf elf;

	(void)state;
	open_fixture(&elf, "fx_sysno0");
	assert_int_equal(sp_openbsd_pintable(&elf, &pt, &err), 0);
	assert_true(pt.valid);
	assert_string_equal(pt.reason, "");
	assert_false(pt.openbsd_valid);
	assert_string_equal(pt.openbsd_reason,
	    "entry 1: number 0 is not a system call");
	assert_int_equal(pt.pins[0], 0x20);
	sp_openbsd_pintable_free(&pt);
	sp_elf_close(&elf);
}

/* sp_openbsd_check on its own: the boundaries of each rule. */
static void
test_check_rules(void **state)
{
	struct sp_openbsd_entry e[2] = { { 0x100, 1 }, { 0x200, 511 } };
	char why[SP_ERROR_MAX];

	(void)state;
	for (unsigned f = 0; f <= SP_OPENBSD_STRICT; f++) {
		e[0].sysno = 1;
		e[1].sysno = 511;
		assert_true(sp_openbsd_check(e, 2, 16, 0x200, f, why));
		assert_string_equal(why, "");
		assert_false(sp_openbsd_check(e, 2, 16, 0x1ff, f, why));
		assert_string_equal(why, "entry 1: offset 0x200 is past the "
		    "end of the text region (0x1ff)");
		e[1].sysno = 512;
		assert_false(sp_openbsd_check(e, 2, 16, 0x200, f, why));
		e[1].sysno = 0xffffffff;	/* -1 as a number: >= max */
		assert_false(sp_openbsd_check(e, 2, 16, 0x200, f, why));
		assert_true(sp_openbsd_check(NULL, 0, 0, 0, f, why));
		assert_false(sp_openbsd_check(NULL, 0, 4, 0, f, why));
		assert_true(sp_openbsd_check(NULL, 0, 1024 * 8, 0, f, why));
		assert_false(sp_openbsd_check(NULL, 0, 1025 * 8, 0, f, why));
		/* Number 0 is the one rule that depends on the flag. */
		e[1].sysno = 0;
		assert_int_equal(sp_openbsd_check(e, 2, 16, 0x200, f, why),
		    f != SP_OPENBSD_STRICT);
	}
}

/* Wrong order in the file must not matter; a third copy stays -1. */
static void
test_build_dups(void **state)
{
	struct sp_openbsd_entry e[] = {
		{ 0x1050, 7 }, { 0x1010, 3 }, { 0x1020, 7 }, { 0x1030, 7 },
	};
	struct sp_openbsd_region r = { 0x1000, 0x2000 };
	struct sp_openbsd_pintable pt = { 0 };
	struct sp_error err;

	(void)state;
	assert_int_equal(sp_openbsd_build(e, 4, &r, &pt, &err), 0);
	assert_int_equal(pt.npins, 8);
	assert_int_equal(pt.pins[7], ANY);
	assert_int_equal(pt.pins[3], 0x10);
	assert_int_equal(pt.pins[0], 0);
	sp_openbsd_pintable_free(&pt);
}

/* The binaries built from helpers.c, and whether OpenBSD reads them. */
struct helper {
	const char *file;
	bool ignored;		/* dynamic executable */
};

static const struct helper helpers[] = {
	{ "pin_helpers_pie", true },
	{ "pin_helpers_nopie", true },
	{ "pin_helpers_static", false },
	{ "pin_helpers_static_pie", false },
};

/* The numbers helpers.c issues through syspin_syscall0..6. */
static const uint32_t helper_nrs[] = { 39, 3, 62, 1, 14, 157, 9, 11, 0 };
#define NHELPER_NRS (sizeof(helper_nrs) / sizeof(*helper_nrs))

static size_t
helper_index(uint32_t nr)
{
	for (size_t i = 0; i < NHELPER_NRS; i++)
		if (helper_nrs[i] == nr)
			return i;
	fail_msg("entry for unexpected number %u", nr);
	return 0;
}

/*
 * Every entry names a `syscall` instruction (0f 05 at the offset, which is
 * a link-time address: base 0 for PIE, absolute otherwise) and one of the
 * numbers used; every number used has an entry.  The compiler may
 * duplicate an asm statement; each copy then carries its own entry.
 */
static void
test_helper(void **state)
{
	const struct helper *h = *state;
	struct sp_openbsd_section sec;
	struct sp_openbsd_pintable pt;
	struct sp_error err = { "", 0 };
	bool seen[NHELPER_NRS] = { false };
	const uint8_t *p;
	struct sp_elf elf;

	open_fixture(&elf, h->file);
	assert_int_equal(sp_openbsd_read(&elf, &sec, &err), 0);
	assert_true(sec.present);
	assert_true(sec.valid);
	assert_true(sec.n >= NHELPER_NRS);
	for (size_t i = 0; i < sec.n; i++) {
		p = sp_elf_vaddr_ptr(&elf, sec.entries[i].offset, 2);
		assert_non_null(p);
		assert_int_equal(p[0], 0x0f);
		assert_int_equal(p[1], 0x05);
		seen[helper_index(sec.entries[i].sysno)] = true;
	}
	for (size_t i = 0; i < NHELPER_NRS; i++)
		assert_true(seen[i]);
	assert_int_equal(sp_openbsd_pintable(&elf, &pt, &err), 0);
	assert_true(pt.valid);
	assert_int_equal(pt.ignored, h->ignored);
	for (size_t i = 0; i < NHELPER_NRS; i++) {
		uint32_t v = pt.pins[helper_nrs[i]];

		assert_int_not_equal(v, 0);
		if (v != ANY) {
			p = sp_elf_vaddr_ptr(&elf, pt.region.start + v, 2);
			assert_non_null(p);
			assert_memory_equal(p, "\x0f\x05", 2);
		}
	}
	sp_openbsd_pintable_free(&pt);
	sp_openbsd_section_free(&sec);
	sp_elf_close(&elf);
}

int
main(int argc, char **argv)
{
	struct CMUnitTest tests[64];
	size_t n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: test_openbsd BUILDDIR\n");
		return 2;
	}
	dir = argv[1];
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++)
		tests[n++] = (struct CMUnitTest){ fixtures[i].file,
		    test_fixture, NULL, NULL, (void *)&fixtures[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_fixture_shapes);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_check_rules);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_sysno0_openbsd);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_build_dups);
	for (size_t i = 0; i < sizeof(helpers) / sizeof(*helpers); i++)
		tests[n++] = (struct CMUnitTest){ helpers[i].file,
		    test_helper, NULL, NULL, (void *)&helpers[i] };
	return _cmocka_run_group_tests("openbsd", tests, n, NULL, NULL);
}
