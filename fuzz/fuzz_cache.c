/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness: arbitrary bytes -> the decoders of cache files, a
 * pin table (sp_pintab_decode, also in the runtime) and an object's
 * reachability facts (sp_reach_decode) and its imported names
 * (sp_reach_imports_decode).  The MAC stands in front of all,
 * but without a kernel keyring a table is believed on its owner alone, so
 * each must refuse, never crash on, what a writer of the cache forged.
 * The first byte picks the decoder (modulo 3).  Built with -Dfuzz=true like fuzz_elf.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pins/cache.h"
#include "fill/fill.h"
#include "reach/reach.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_reach_facts f;
	struct sp_pintab t;
	struct sp_error err;
	size_t len, count;
	char *names;
	void *buf;

	if (size < 1)
		return 0;
	/* Each decoder adopts a malloc'ed buffer (freed on failure). */
	if ((buf = malloc(size - 1 ? size - 1 : 1)) == NULL)
		return 0;
	memcpy(buf, data + 1, size - 1);
	switch (data[0] % 3) {
	case 1:
		if (sp_reach_decode(buf, size - 1, &f, &err) == 0)
			sp_reach_facts_free(&f);
		break;
	case 2:
		if (sp_reach_imports_decode(buf, size - 1, &names, &len,
		    &count, &err) == 0) {
			for (size_t at = 0; at < len; at += strlen(names + at) +
			    1)
				;
			free(names);
		}
		break;
	default:
		if (sp_pintab_decode(buf, size - 1, &t, &err) == 0)
			sp_pintab_free(&t);
	}
	return 0;
}
