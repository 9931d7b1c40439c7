/* SPDX-License-Identifier: ISC */
/*
 * pinsyscalls(2), the libc flavour: the freestanding implementation
 * (pinsyscalls_core.c) with its -errno turned into errno, as the system
 * call's libc stub would.
 */
#include <errno.h>

#include <syspin/pinsyscalls.h>

int
pinsyscalls(void *start, size_t len, unsigned int *pintable, int npins)
{
	long r = sp_pinsyscalls_raw(start, len, pintable, npins);

	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}
