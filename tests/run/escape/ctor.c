/* SPDX-License-Identifier: ISC */
/* libescape_ctor.so (attacks preload-*): put in a child's LD_PRELOAD by
 * the attacker; its constructor, run by ld.so before the child's entry
 * point, makes the raw mkdir of $ESC_MARK. */
#include <stdlib.h>

#include "raw.h"

__attribute__((constructor)) static void
ctor(void)
{
	const char *m = getenv("ESC_MARK");

	if (m != NULL)
		(void)raw_mkdir(m);
}
