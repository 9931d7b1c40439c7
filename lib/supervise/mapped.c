/* SPDX-License-Identifier: ISC */
/*
 * The file a tracee's mapping is of.  /proc/PID/maps names it by a path
 * the tree may rename, replace or link elsewhere, and writes a newline in
 * a name as "\012" (a name may hold those four characters too): the path
 * only says where to look.  The file is opened (a regular file only) and
 * taken only when its device and inode are the mapping's.  With
 * CAP_SYS_ADMIN, /proc/PID/map_files/START-END is the mapped file itself,
 * whatever its name now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "supervise_int.h"

/* The mapping's file at path, when path still holds it; else -1. */
static int
open_if_mapped(const char *path, const struct sp_map *m, struct stat *st)
{
	int fd = sp_open_regular(path, st);

	if (fd < 0)
		return -1;
	if (st->st_dev == m->dev && st->st_ino == m->inode)
		return fd;
	close(fd);
	return -1;
}

/* path with every "\012" made a newline again, into out. */
static void
unescape(const char *path, char *out, size_t size)
{
	size_t o = 0;

	while (*path != '\0' && o + 1 < size) {
		if (strncmp(path, "\\012", 4) == 0) {
			out[o++] = '\n';
			path += 4;
		} else
			out[o++] = *path++;
	}
	out[o] = '\0';
}

int
sp_sup_open_mapped(pid_t pid, const struct sp_map *m, struct stat *st)
{
	char buf[4200];
	int fd;

	if (m->kind != SP_MAP_FILE)
		return -1;
	snprintf(buf, sizeof(buf), "/proc/%ld/map_files/%llx-%llx", (long)pid,
	    (unsigned long long)m->start, (unsigned long long)m->end);
	if ((fd = open_if_mapped(buf, m, st)) >= 0)
		return fd;
	if (m->deleted)		/* its name is gone */
		return -1;
	if ((fd = open_if_mapped(m->path, m, st)) >= 0)
		return fd;
	if (strstr(m->path, "\\012") == NULL)
		return -1;
	unescape(m->path, buf, sizeof(buf));
	return open_if_mapped(buf, m, st);
}
