/* SPDX-License-Identifier: ISC */
/*
 * Opening a file that someone else names: only a regular file is opened.
 * Opening a device may do things (a tape rewinds, a watchdog starts) and
 * a FIFO's open blocks; the path may be swapped between a stat(2) and an
 * open(2), so the file is looked at through an O_PATH descriptor and
 * opened again through that descriptor, never by its name twice.
 */
#ifndef SYSPIN_UTIL_FILE_H
#define SYSPIN_UTIL_FILE_H

#include <sys/stat.h>

/*
 * The regular file pathfd (O_PATH) refers to, opened to read (close-on-
 * exec, non-blocking, no controlling terminal).  Returns the descriptor;
 * -2 when it is not a regular file (nothing opened; *st says what it
 * is); -1 with errno (also when pathfd is -1: open's errno stands).
 * pathfd is closed.
 */
int sp_reopen_regular(int pathfd, struct stat *st);

/* The same for a path (relative to the working directory). */
int sp_open_regular(const char *path, struct stat *st);

#endif
