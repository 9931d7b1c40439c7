/* SPDX-License-Identifier: ISC */
/*
 * Shared by the bpf tests: generate a table's programs, make queries, and
 * compare the evaluator with the model.
 */
#ifndef SYSPIN_TESTS_CHECK_H
#define SYSPIN_TESTS_CHECK_H

#include <linux/seccomp.h>
#include <stdbool.h>

#include "tables.h"

struct progset {
	struct sp_bpf_prog *p;
	size_t n;
};

/* Generates and checks every program with sp_bpf_check; aborts the
 * test (cmocka fail) on any error. */
void progset_make(struct progset *, const struct sp_bpf_input *);
void progset_free(struct progset *);

/* A query aimed at t's pins, sites, ranges and edges. */
void query_random(const struct table *, uint64_t *rng,
    struct seccomp_data *);

/* Runs nq random queries; returns the number of disagreements (printing
 * the first few) and the most steps seen. */
size_t compare_many(const struct table *, const struct progset *,
    uint64_t *rng, size_t nq, size_t *max_steps);

#endif
