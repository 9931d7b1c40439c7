/* SPDX-License-Identifier: ISC */
/*
 * sp_scan on the hand-written fixtures (the fixtures/ folder): every site, gadget,
 * import and export each fixture declares about itself, nothing more;
 * the same result with full_sweep; the same result after `strip` and after
 * removing the section header table (noshdr).
 *
 * usage: test_fixtures FIXTURE...   (FIXTURE.strip and FIXTURE.noshdr
 * must exist beside each one)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "elf/elf.h"
#include "analysis/scan.h"

#include "check.h"

struct scanned {
	struct sp_elf elf;
	struct sp_scan scan;
	int ok;
};

static void
scan_file(const char *path, bool full, struct scanned *r, struct problems *p)
{
	struct sp_scan_opts opts = { .full_sweep = full };
	struct sp_error err = { { 0 }, 0 };

	memset(r, 0, sizeof(*r));
	if (sp_elf_open(&r->elf, path, &err) != 0) {
		problem(p, "%s: sp_elf_open: %s", path, err.msg);
		return;
	}
	if (sp_scan(&r->elf, &opts, &r->scan, &err) != 0) {
		problem(p, "%s: sp_scan: %s", path, err.msg);
		sp_elf_close(&r->elf);
		return;
	}
	r->ok = 1;
}

static void
scanned_free(struct scanned *r)
{
	if (!r->ok)
		return;
	sp_scan_free(&r->scan);
	sp_elf_close(&r->elf);
	r->ok = 0;
}

static void
report(const char *what, const char *path, struct problems *p)
{
	if (p->count == 0)
		return;
	print_error("%s %s: %zu problem(s):\n%s", what, path, p->count,
	    p->text);
	problems_free(p);
	fail();
}

/* The fixture's own declarations. */
static void
test_expect(void **state)
{
	const char *path = *state;
	struct problems p = { 0 };
	struct expect e;
	struct scanned r;

	if (expect_load(path, &e, &p) != 0)
		report("expectations of", path, &p);
	scan_file(path, false, &r, &p);
	if (r.ok)
		check_expect(&r.elf, &r.scan, &e, &p);
	scanned_free(&r);
	expect_free(&e);
	report("scan of", path, &p);
}

/* --full-sweep finds exactly the same. */
static void
test_full_sweep(void **state)
{
	const char *path = *state;
	struct problems p = { 0 };
	struct scanned a, b;

	scan_file(path, false, &a, &p);
	scan_file(path, true, &b, &p);
	if (a.ok && b.ok)
		check_same("full sweep", &a.elf, &a.scan, &b.scan, 1, &p);
	scanned_free(&a);
	scanned_free(&b);
	report("full sweep of", path, &p);
}

static void
compare_variant(const char *path, const char *suffix)
{
	struct problems p = { 0 };
	struct scanned a, b;
	char alt[4096];

	snprintf(alt, sizeof(alt), "%s.%s", path, suffix);
	scan_file(path, false, &a, &p);
	scan_file(alt, false, &b, &p);
	if (a.ok && b.ok) {
		check_same(suffix, &a.elf, &a.scan, &b.scan, 0, &p);
		if (b.elf.nfdes != a.elf.nfdes)
			problem(&p, "%s: %zu FDEs vs %zu", suffix, b.elf.nfdes,
			    a.elf.nfdes);
	}
	scanned_free(&a);
	scanned_free(&b);
	report(suffix, path, &p);
}

static void
test_stripped(void **state)
{
	compare_variant(*state, "strip");
}

static void
test_noshdr(void **state)
{
	compare_variant(*state, "noshdr");
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
	} kinds[] = {
		{ "expect", test_expect },
		{ "full-sweep", test_full_sweep },
		{ "strip", test_stripped },
		{ "noshdr", test_noshdr },
	};
	const size_t nk = sizeof(kinds) / sizeof(kinds[0]);
	struct CMUnitTest *tests;
	size_t n = 0;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: test_fixtures FIXTURE... "
		    "[--symbols FIXTURE...]\n");
		return 2;
	}
	tests = calloc((size_t)(argc - 1) * nk, sizeof(*tests));
	if (tests == NULL)
		return 2;
	/* After --symbols: fixtures whose inference needs the symbol table
	 * have no stripped variants; only their own declarations and the
	 * full sweep are checked. */
	size_t kinds_now = nk;
	for (int i = 1; i < argc; i++) {
		const char *base = strrchr(argv[i], '/');
		if (strcmp(argv[i], "--symbols") == 0) {
			kinds_now = 2;
			continue;
		}
		base = base ? base + 1 : argv[i];
		for (size_t k = 0; k < kinds_now; k++) {
			char *name;
			if (asprintf(&name, "%s/%s", base, kinds[k].name) < 0)
				return 2;
			tests[n++] = (struct CMUnitTest){
				.name = name,
				.test_func = kinds[k].fn,
				.initial_state = argv[i],
			};
		}
	}
	rc = _cmocka_run_group_tests("scan-fixtures", tests, n, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		free((void *)tests[i].name);
	free(tests);
	return rc;
}
