/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness: arbitrary bytes -> sp_dyn_from_memory, the light
 * ELF reader of the start-up resolver (lib/elf/dynamic.c).  Built with
 * -Dfuzz=true like fuzz_elf.
 */
#include <stddef.h>
#include <stdint.h>

#include "elf/dynamic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_error err;
	struct sp_dyn d;

	if (sp_dyn_from_memory(data, size, &d, &err) == 0)
		sp_dyn_free(&d);
	return 0;
}
