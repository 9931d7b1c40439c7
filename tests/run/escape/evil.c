/* SPDX-License-Identifier: ISC */
/* libescape_evil.so (attack dlopen-raw): dlopen'ed after start-up, it
 * makes the raw mkdir from its own code.  Stopped: the dlopen refused,
 * or the call killed. */
#include "raw.h"

long evil(const char *path);

long
evil(const char *path)
{
	return raw_mkdir(path);
}
