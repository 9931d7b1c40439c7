/* SPDX-License-Identifier: ISC */
/* syspin scan --openbsd: the pintable OpenBSD would build for a file. */
#ifndef SYSPIN_CLI_OPENBSD_VIEW_H
#define SYSPIN_CLI_OPENBSD_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "elf/elf.h"

/*
 * Prints ELF's pintable as OpenBSD's kernel / ld.so would build it from
 * .openbsd.syscalls (npins, each allowed number with its offset or -1, the
 * text region), or why there is none.  A missing or rejected table is a
 * result, not an error.  Returns 0, or -1 when out of memory or the output
 * could not be written.
 */
int cli_print_openbsd(const struct sp_elf *elf, bool json, FILE *out);

#endif
