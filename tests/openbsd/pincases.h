/* SPDX-License-Identifier: ISC */
/*
 * pinsyscalls() argument sets, shared by test_pinsyscalls.c (libc,
 * pinsyscalls()) and pinself.c (-nostdlib, sp_pinsyscalls_raw()), so both
 * flavours can be run through the same sequences and compared.  No libc
 * here.
 */
#ifndef PINCASES_H
#define PINCASES_H

#include <stddef.h>
#include <stdint.h>

#define PC_LEN 4096

struct pc_call {
	void *start;
	size_t len;
	unsigned int *table;
	int npins;
	int expect;		/* errno of a first call, 0 for success */
};

/* A region nothing ever runs in: pinning it changes nothing else. */
static char pc_area[PC_LEN] __attribute__((aligned(4096)));
/* 0 and -1 are never range-checked; an offset equal to len is fine. */
static unsigned int pc_ok[4] = { 0, 0xffffffffu, 16, PC_LEN };
static unsigned int pc_range[2] = { 0, PC_LEN + 1 };
static unsigned int pc_big[512];	/* zero, or pc_big[511] = len + 1 */

static int
pc_streq(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b)
		a++, b++;
	return *a == *b;
}

/* Fills C for the case NAME; returns 0, or -1 for an unknown name. */
static int
pc_make(const char *name, struct pc_call *c)
{
	static const struct {
		const char *name;
		int start;	/* 0 area, 1 wraps, 2 above user space */
		int table;	/* 0 ok, 1 range, 2 big, 3 big+range, 4 bad */
		int npins;
		int expect;
	} cases[] = {
		{ "valid",	0, 0, 4, 0 },
		{ "npinsmax",	0, 2, 512, 0 },
		{ "wrap",	1, 0, 4, 22 },		/* EINVAL */
		{ "above",	2, 0, 4, 22 },
		{ "npins0",	0, 0, 0, 7 },		/* E2BIG */
		{ "npins513",	0, 2, 513, 7 },
		{ "npinsneg",	0, 0, -1, 7 },
		{ "fault",	0, 4, 4, 14 },		/* EFAULT */
		{ "range",	0, 1, 2, 34 },		/* ERANGE */
		{ "rangelast",	0, 3, 512, 34 },
		/* Two faults at once: the earlier check wins. */
		{ "wrap+npins0", 1, 0, 0, 22 },
		{ "npins0+fault", 0, 4, 0, 7 },
		{ "above+fault", 2, 4, 4, 22 },
		{ "fault+range", 0, 4, 2, 14 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		if (!pc_streq(cases[i].name, name))
			continue;
		c->start = cases[i].start == 0 ? (void *)pc_area :
		    cases[i].start == 1 ? (void *)(UINTPTR_MAX - 4095) :
		    (void *)(uintptr_t)0x7ffffffff000ull;
		c->len = cases[i].start == 1 ? 8192 : PC_LEN;
		pc_big[511] = cases[i].table == 3 ? PC_LEN + 1 : 0;
		c->table = cases[i].table == 0 ? pc_ok :
		    cases[i].table == 1 ? pc_range :
		    cases[i].table == 4 ? (unsigned int *)16 : pc_big;
		c->npins = cases[i].npins;
		c->expect = cases[i].expect;
		return 0;
	}
	return -1;
}

#endif
