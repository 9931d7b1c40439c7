/* SPDX-License-Identifier: ISC */
/*
 * usage: late_many DIR N: dlopens DIR/0.so .. DIR/N-1.so, in order.
 * Exit 0 when every one loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	char path[4096];
	int n;

	if (argc != 3 || (n = atoi(argv[2])) <= 0)
		return 2;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%d.so", argv[1], i);
		if (dlopen(path, RTLD_NOW) == NULL) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
	}
	return 0;
}
