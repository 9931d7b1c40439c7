/* SPDX-License-Identifier: ISC */
/* `syspin scan`: shared between the driver and its two printers. */
#ifndef SYSPIN_CLI_SCAN_H
#define SYSPIN_CLI_SCAN_H

#include <stdbool.h>
#include <stdio.h>

#include <syspin/elf.h>
#include <syspin/scan.h>

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

/* Reads the running kernel's vDSO from this process's memory. */
int vdso_load(struct sp_elf *elf, struct sp_error *err);

#endif
