/* SPDX-License-Identifier: ISC */
/*
 * The policy of lib/bpf/bpf.h written as plainly as possible, to
 * check generated programs against: linear scans, one rule per line.
 */
#ifndef SYSPIN_TESTS_MODEL_H
#define SYSPIN_TESTS_MODEL_H

#include <linux/seccomp.h>

#include "bpf/bpf.h"

/* What the filter for in must return for d. */
uint32_t model_verdict(const struct sp_bpf_input *in,
    const struct seccomp_data *d);

#endif
