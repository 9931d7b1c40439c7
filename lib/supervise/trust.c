/* SPDX-License-Identifier: ISC */
/*
 * --exec=trusted: which files a pinned tree may run as code.  Pinning
 * cannot stop a process that can write a file from exec'ing it (its own
 * code, pinned to its own sites): only a policy on the file can.  A file
 * is trusted when it is a regular file still linked somewhere (not a
 * memfd, not O_TMPFILE, not deleted), owned by root, writable by nobody
 * else, and last changed before the run started: a tree running as root
 * can make root's files, but not ones older than itself (a change's time
 * cannot be set back, and the tree may not set the clock back:
 * SP_BPF_NO_CLOCK).  The checks are made on the file the kernel mapped,
 * never on a path.
 *
 * "Before the run started" is judged on the clock filesystems date
 * changes with: the kernel's coarse clock (one tick behind the fine one a
 * program reads), cut down to the filesystem's granularity (a second or
 * two on some).  So the start is the coarse clock's reading less
 * TRUST_MARGIN: a change made after the start always carries a later
 * time, whatever the filesystem; one made within the margin before it
 * is refused too.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "supervise_int.h"

#define TRUST_MARGIN 2	/* seconds: FAT dates changes to 2 s */

void
sp_sup_trust_start(struct timespec *start)
{
	clock_gettime(CLOCK_REALTIME_COARSE, start);
	start->tv_sec -= TRUST_MARGIN;
}

bool
sp_sup_trusted_fd(const struct sup *s, int fd, char *why, size_t size)
{
	struct stat st;

	if (fstat(fd, &st) == -1) {
		snprintf(why, size, "cannot be checked");
		return false;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink == 0)
		snprintf(why, size, "not a file on disk (a memfd, a deleted "
		    "or unnamed file)");
	else if (st.st_uid != 0)
		snprintf(why, size, "not owned by root");
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, size, "writable by others than root");
	else if (st.st_ctim.tv_sec > s->o->pin.start.tv_sec ||
	    (st.st_ctim.tv_sec == s->o->pin.start.tv_sec &&
	    st.st_ctim.tv_nsec >= s->o->pin.start.tv_nsec))
		snprintf(why, size, "changed since the run started (or "
		    "within %d s before)", TRUST_MARGIN);
	else
		return true;
	return false;
}
