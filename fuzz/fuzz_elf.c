/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness: arbitrary bytes -> sp_elf_from_memory -> sp_scan
 * (default, and full sweep for small inputs).  Built by fuzz/run.sh with
 * clang -fsanitize=fuzzer,address,undefined.  Crashes found here go to
 * tests/elf/crashers/, which tests/elf replays.
 */
#include <stddef.h>
#include <stdint.h>

#include "elf/elf.h"
#include "analysis/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_error err;
	struct sp_elf elf;

	if (sp_elf_from_memory(&elf, data, size, "fuzz", &err) != 0)
		return 0;
	(void)sp_elf_vaddr_ptr(&elf, elf.entry, 16);
	struct sp_scan scan;
	struct sp_scan_opts opts = { 0 };
	if (sp_scan(&elf, &opts, &scan, &err) == 0)
		sp_scan_free(&scan);
	if (size <= 16384) {
		opts.full_sweep = true;
		if (sp_scan(&elf, &opts, &scan, &err) == 0)
			sp_scan_free(&scan);
	}
	sp_elf_close(&elf);
	return 0;
}
