/* SPDX-License-Identifier: ISC */
/* Bytes the kernel reads from a tracee, where nothing can change them
 * (sealed.c). */
#ifndef SYSPIN_SUPERVISE_SEALED_H
#define SYSPIN_SUPERVISE_SEALED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "supervise/supervise.h"

/*
 * Maps len bytes into the stopped tracee in (sp: its stack pointer, for a
 * name written below the red zone), read-only, from a sealed memfd:
 * fill(ctx, base, buf) writes them for the address they will have.
 * fds_shared: the tracee's descriptor table may be another process's
 * too (the mapping is then checked to be the file sealed).  hint: an
 * address where nothing is mapped (a new image's, below the band), so
 * that no call reserves one first; 0, or taken, one is.  0 and *base, or
 * -1 with err: the bytes could not be made safe, and must not be used.
 */
int sp_sealed_map(struct sp_inject *in, uint64_t sp, size_t len,
    bool fds_shared, uint64_t hint,
    void (*fill)(void *ctx, uint64_t base, uint8_t *buf), void *ctx,
    uint64_t *base, struct sp_error *err);

#endif
