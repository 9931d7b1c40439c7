/* SPDX-License-Identifier: ISC */
/* libescape_audit.so (attacks audit-*): an LD_AUDIT module; ld.so calls
 * la_version() first of all, before any object of the program is
 * loaded: it makes the raw mkdir of $ESC_MARK.  No libc calls (the
 * auditor's libc is not initialised): the environment is read from
 * /proc/self/environ with raw syscalls. */
#include <link.h>
#include <stddef.h>

#include "raw.h"

unsigned int
la_version(unsigned int version)
{
	static char env[65536];
	long fd = raw3(257, -100, (long)"/proc/self/environ", 0), n = 0, r;

	(void)version;
	if (fd >= 0) {
		while (n < (long)sizeof(env) - 1 &&
		    (r = raw3(0, fd, (long)(env + n), sizeof(env) - 1 - n)) > 0)
			n += r;
		raw3(3, fd, 0, 0);
	}
	env[n > 0 ? n : 0] = '\0';
	for (long i = 0; i < n; i++) {
		const char *e = env + i;

		while (i < n && env[i] != '\0')
			i++;
		if (e[0] == 'E' && e[1] == 'S' && e[2] == 'C' && e[3] == '_' &&
		    e[4] == 'M' && e[5] == 'A' && e[6] == 'R' && e[7] == 'K' &&
		    e[8] == '=')
			(void)raw_mkdir(e + 9);
	}
	return LAV_CURRENT;
}
