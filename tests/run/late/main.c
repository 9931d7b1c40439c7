/* SPDX-License-Identifier: ISC */
/*
 * An object dlopen'ed after the filter calls libc's syscall() with a number
 * no start-up object passes to it (lib/supervise/later.c): allowed, as if
 * it had been there at the start.  The same number from our own code
 * through a syscall() found by dlsym (no import of ours says so): killed.
 * usage: late_main LIB (late | dlsym)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

int
main(int argc, char **argv)
{
	void *h;
	long (*call)(void), (*sc)(long, ...);

	if (argc != 3 || (h = dlopen(argv[1], RTLD_NOW)) == NULL)
		return 2;
	if (strcmp(argv[2], "late") == 0) {
		call = (long (*)(void))dlsym(h, "late_call");
		printf("late: %ld\n", call != NULL ? call() : -99);
		return 0;
	}
	sc = (long (*)(long, ...))dlsym(RTLD_DEFAULT, "syscall");
	printf("dlsym: %ld\n", sc(SYS_getpriority, 0, 0));
	return 0;
}
