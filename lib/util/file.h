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
 * The file pathfd (an O_PATH descriptor the caller has fstat'ed and found
 * regular) opened to read: close-on-exec, non-blocking, no controlling
 * terminal.  pathfd stays open.  -1 with errno.
 */
int sp_open_path_fd(int pathfd);

/*
 * The regular file at path opened so.  -2 when it is not a regular file
 * (nothing opened; *st says what it is), -1 with errno.  *st is its
 * stat.  With pathfd already open (O_PATH, or -1 with errno set by its
 * open), sp_open_regular_fd does the same and closes it.
 */
int sp_open_regular(const char *path, struct stat *st);
int sp_open_regular_fd(int pathfd, struct stat *st);

/*
 * Whether a and b are the same file unchanged: device, inode, size, mtime
 * and ctime (a change to a file or a directory's entries moves its
 * mtime; one a stat has seen since moves it to a distinct value on the
 * file systems of 6.13 on).
 */
#include <stdbool.h>
bool sp_same_stat(const struct stat *a, const struct stat *b);

#endif
