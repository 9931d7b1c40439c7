/* SPDX-License-Identifier: ISC */
/* Whether this process is traced (by syspin's supervisor, when pinned):
 * escape.c and swap.c act on it. */
#ifndef ESCAPE_TRACED_H
#define ESCAPE_TRACED_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline bool
is_traced(void)
{
	char buf[4096], *p;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd == -1 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd != -1)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return (p = strstr(buf, "TracerPid:")) != NULL &&
	    strtol(p + 10, NULL, 10) != 0;
}

#endif
