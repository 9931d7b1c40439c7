/* SPDX-License-Identifier: ISC */
/*
 * Preloaded by observed.py: writes the process's /proc/self/maps to
 * $DUMP_MAPS_DIR/PID once every object is mapped, so that instruction
 * pointers strace reports can be attributed to an object and offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void
dump(void)
{
	const char *dir = getenv("DUMP_MAPS_DIR");
	char path[512], buf[4096];
	FILE *in, *out;
	size_t n;

	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%d", dir, (int)getpid());
	in = fopen("/proc/self/maps", "r");
	out = fopen(path, "w");
	while (in != NULL && out != NULL &&
	    (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (in != NULL)
		fclose(in);
	if (out != NULL)
		fclose(out);
}
