/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "file.h"

int
sp_reopen_regular(int pathfd, struct stat *st)
{
	char again[64];

	if (fstat(pathfd, st) == -1)
		return -1;
	if (!S_ISREG(st->st_mode))
		return -2;
	snprintf(again, sizeof(again), "/proc/self/fd/%d", pathfd);
	return open(again, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
}

int
sp_open_regular(const char *path, struct stat *st)
{
	int f, fd, e;

	if ((f = open(path, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	fd = sp_reopen_regular(f, st);
	e = errno;
	close(f);
	errno = e;
	return fd;
}
