/* SPDX-License-Identifier: ISC */
/* libescape_good.so (control dlopen-ok): dlopen'ed after start-up, it
 * calls libc's mkdir(): must work pinned. */
#include <sys/stat.h>

long good(const char *path);

long
good(const char *path)
{
	return mkdir(path, 0755);
}
