/* SPDX-License-Identifier: ISC */
/*
 * Pin tables for the bpf tests: random ones with awkward addresses and
 * numbers, and one shaped like a real dynamically linked process.
 */
#ifndef SYSPIN_TESTS_TABLES_H
#define SYSPIN_TESTS_TABLES_H

#include "bpf/bpf.h"

struct table {
	struct sp_bpf_pin *pins;
	size_t npins;
	uint64_t *any;
	size_t nany;
	struct sp_bpf_range *ranges;
	size_t nranges;
	uint32_t *narrow;		/* --deny / --allow numbers */
	size_t nnarrow;
	struct sp_bpf_input in;		/* points at the arrays above */
};

/* xorshift64*: fixed seeds give the same tables everywhere. */
uint64_t rng_next(uint64_t *state);
uint64_t rng_below(uint64_t *state, uint64_t n);

/* About npins pins over about npins / 3 numbers; random flags/action. */
void table_random(struct table *, uint64_t *rng, size_t npins);

/* ~500 sites over ~250 numbers in an exe, libc, ld.so and the vDSO;
 * futex has 38 sites. */
void table_realistic(struct table *, uint64_t seed);

void table_free(struct table *);

/* Addresses where a 64-bit compare split in halves could go wrong. */
extern const uint64_t table_edge_ips[];
extern const size_t table_nedge_ips;

#endif
