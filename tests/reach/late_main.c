/* SPDX-License-Identifier: ISC */
/*
 * dlopen()s argv[1] and calls its late_entry(): the library calls
 * getppid(), which nothing in this program reaches, so reachable-only
 * pins drop libc's getppid site at start-up.  The supervisor must allow
 * the call once the library is loaded (lib/supervise/reach_late.c).
 */
#include <dlfcn.h>
#include <stdio.h>

int
main(int argc, char **argv)
{
	void *h;
	long (*entry)(void);

	if (argc != 2 || (h = dlopen(argv[1], RTLD_NOW)) == NULL ||
	    (entry = (long (*)(void))dlsym(h, "late_entry")) == NULL)
		return 2;
	return entry() > 0 ? 0 : 1;
}
