/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "file.h"

int
sp_open_path_fd(int pathfd)
{
	char again[64];

	snprintf(again, sizeof(again), "/proc/self/fd/%d", pathfd);
	return open(again, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
}

int
sp_open_regular_fd(int pathfd, struct stat *st)
{
	int fd = -2, e;

	if (pathfd == -1)
		return -1;
	if (fstat(pathfd, st) == -1)
		fd = -1;
	else if (S_ISREG(st->st_mode))
		fd = sp_open_path_fd(pathfd);
	e = errno;
	close(pathfd);
	errno = e;
	return fd;
}

int
sp_open_regular(const char *path, struct stat *st)
{
	return sp_open_regular_fd(open(path, O_PATH | O_CLOEXEC), st);
}

bool
sp_same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}
