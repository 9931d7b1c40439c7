/* SPDX-License-Identifier: ISC */
/* `syspin scan`: shared between the driver and its two printers. */
#ifndef SYSPIN_CLI_SCAN_H
#define SYSPIN_CLI_SCAN_H

#include <stdbool.h>
#include <stdio.h>

#include "elf/elf.h"
#include "analysis/scan.h"

struct scan_args {
	bool json, full_sweep, openbsd, vdso, verbose, no_pin_section, reach;
};

struct scanned {
	const char *path;
	bool ok;
	struct sp_elf elf;
	struct sp_scan scan;
	char error[SP_ERROR_MAX];
};

/* Summary numbers, as printed and as in JSON. */
struct scan_summary {
	size_t sites, exact, distinct, unresolved, uncovered, likely_data;
	double exact_pct;
};

void scan_summarize(const struct scanned *s, struct scan_summary *sum);
void scan_print_text(FILE *f, const struct scanned *s, bool verbose);
int scan_print_json(FILE *f, const struct scanned *v, size_t n);

/* Scans v[0..n), each object's imports of the others' number-taking
 * exports (libc's syscall()) included. */
void scan_all(struct scanned *v, size_t n, const struct scan_args *a);

/* scan --reach PROG...: reachable sites per process (scan_reach.c). */
int scan_reach(int n, char **progs, const struct scan_args *a);

/* Reads the running kernel's vDSO from this process's memory. */
int vdso_load(struct sp_elf *elf, struct sp_error *err);

#endif
