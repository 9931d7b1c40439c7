/* SPDX-License-Identifier: ISC */
/*
 * What the runtime installed, written for `syspin run` (its diagnostics
 * name objects and sites) and read back.  Lean.
 */
#ifndef SYSPIN_LAYOUT_REPORT_H
#define SYSPIN_LAYOUT_REPORT_H

#include <stdint.h>
#include <stddef.h>

#include "util/error.h"
#include "layout/layout.h"
#include "layout/placement.h"

/* ---- report: what the runtime installed, for `syspin run` ---- */

/*
 * Text, one record a line: "obj I BASE NAME", "range START END I",
 * "pin NR IP", "any IP".  Written before the filter is installed.
 */
int sp_report_write(int fd, const struct sp_layout *lo,
    const struct sp_placement *pl);
/* Writes DIR/PID.layout (sp_report_write); -1 with errno on failure. */
int sp_report_save(const char *dir, long pid, const struct sp_layout *lo,
    const struct sp_placement *pl);
/* DIR/PID.layout, the report of process pid. */
void sp_report_path(const char *dir, long pid, char *buf, size_t size);
/* Reads a report back into a layout (names, bases, ranges only) + pins. */
int sp_report_read(const char *path, struct sp_layout *lo,
    struct sp_placement *pl, struct sp_error *err);

/* "execve", "i386 getpid" (arch: AUDIT_ARCH_*; libseccomp's tables), or
 * "?" when the number has no name. */
const char *sp_syscall_name(uint32_t arch, uint32_t nr, char *buf,
    size_t size);

#endif
