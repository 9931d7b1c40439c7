/* SPDX-License-Identifier: ISC */
/* Syscall names from libseccomp's tables (never a hand-written list). */
#ifndef SYSPIN_CLI_NAMES_H
#define SYSPIN_CLI_NAMES_H

#include <stdint.h>

#include "analysis/scan.h"

/* Name of nr for the ABI a trap kind uses (int 0x80: i386), into buf. */
const char *syscall_name(enum sp_trap_kind kind, uint32_t nr, char *buf,
    unsigned size);

#endif
