/* SPDX-License-Identifier: ISC */
/*
 * Comparing an sp_scan result with what a fixture says about itself
 * (fixtures/expect.h), and with another scan of the same code.
 * Every mismatch is appended to a problem list so that one run shows all
 * of them, not just the first.
 */
#ifndef SYSPIN_TESTS_CHECK_H
#define SYSPIN_TESTS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elf.h"
#include "analysis/scan.h"

struct exp_rec {
	uint32_t type;		/* EXP_* */
	uint64_t addr;
	int32_t how, reg, nnrs;
	uint32_t flags, kind;
	const uint32_t *nrs;
	const char *name;
};

struct expect {
	struct exp_rec *v;
	size_t n;
	void *raw;
};

struct problems {
	char *text;
	size_t len, count;
};

void problem(struct problems *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void problems_free(struct problems *p);

/* Reads .syspin.expect of PATH.  Returns 0, or -1 with a problem added. */
int expect_load(const char *path, struct expect *e, struct problems *p);
void expect_free(struct expect *e);

/* Compares SCAN of ELF with the expectations. */
void check_expect(const struct sp_elf *elf, const struct sp_scan *scan,
    const struct expect *e, struct problems *p);

/* Fixture self-check: trap byte pairs in executable segments. */
size_t count_trap_pairs(const struct sp_elf *elf);

/*
 * B (a scan of a stripped or otherwise altered copy) must equal A.
 * With `strict` false, sites outside every FDE of ELF_A may differ in
 * `function`, `how`, numbers and flags (they depended on symbols).
 */
void check_same(const char *what, const struct sp_elf *elf_a,
    const struct sp_scan *a, const struct sp_scan *b, int strict,
    struct problems *p);

const char *how_str(int how);

#endif
