/* SPDX-License-Identifier: ISC */
/*
 * Which cache directories a process may believe.  Part of the runtime.
 *
 * A pin table decides which syscalls a process may make, so it is as
 * sensitive as the binary itself: whoever can write it can loosen the
 * process.  The rule is the one ssh applies to its configuration: the
 * directory, every ancestor and the file must be owned by root or by the
 * reading euid and writable by nobody else.  Ancestors may be sticky
 * (like /tmp), since a sticky directory stops others renaming our entries.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pins/cache.h"

#include "cache_format.h"

bool
sp_cache_trusted(const struct stat *st, uid_t euid, bool ancestor)
{
	if (st->st_uid != 0 && st->st_uid != euid)
		return false;
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) == 0)
		return true;
	return ancestor && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);
}

int
sp_cache_default_dir(uid_t euid, bool secure, char *buf, size_t size)
{
	const char *xdg, *home;
	int n;

	if (euid == 0 || secure)
		n = snprintf(buf, size, "/var/cache/syspin");
	else if ((xdg = getenv("XDG_CACHE_HOME")) != NULL && xdg[0] == '/')
		n = snprintf(buf, size, "%s/syspin", xdg);
	else if ((home = getenv("HOME")) != NULL && home[0] == '/')
		n = snprintf(buf, size, "%s/.cache/syspin", home);
	else
		return -1;
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* Opens component name under fd, creating it when asked. */
static int
open_component(int fd, const char *name, bool create, mode_t mode)
{
	int sub;

	sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (sub == -1 && errno == ENOENT && create) {
		if (mkdirat(fd, name, mode) == -1 && errno != EEXIST)
			return -1;
		sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	}
	return sub;
}

/* Walks an absolute, symlink-free path, checking each directory. */
static int
walk(struct sp_cache *c, char *path, bool create, struct sp_error *err)
{
	struct stat st;
	char *p, *next;
	mode_t mode;
	int fd, sub;

	if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return sp_error_sys(err, errno, "/");
	for (p = path + 1; p != NULL && *p != '\0'; p = next) {
		if ((next = strchr(p, '/')) != NULL)
			*next++ = '\0';
		if (*p == '\0')
			continue;
		if (fstat(fd, &st) == -1 || !sp_cache_trusted(&st, c->euid,
		    true)) {
			close(fd);
			return sp_error_set(err, "%s: an ancestor directory "
			    "is writable by others", c->path);
		}
		/* Shared parents (/var/cache) stay world-readable. */
		mode = c->euid == 0 ? 0755 : 0700;
		sub = open_component(fd, p, create, mode);
		close(fd);
		if (sub == -1)
			return sp_error_sys(err, errno, "%s", c->path);
		fd = sub;
	}
	if (fstat(fd, &st) == -1 || !sp_cache_trusted(&st, c->euid, false)) {
		close(fd);
		return sp_error_set(err, "%s: not owned by root or uid %u, or "
		    "writable by others", c->path, (unsigned)c->euid);
	}
	c->dirfd = fd;
	return 0;
}

int
sp_cache_open(struct sp_cache *c, const char *dir, uid_t euid, bool create,
    struct sp_error *err)
{
	char buf[sizeof(c->path)], *real;
	int r;

	memset(c, 0, sizeof(*c));
	c->dirfd = -1;
	c->euid = euid;
	if (strlen(dir) >= sizeof(c->path))
		return sp_error_set(err, "%s: path too long", dir);
	snprintf(c->path, sizeof(c->path), "%s", dir);
	if (create) {
		/* Create first so that realpath() can resolve it. */
		if (dir[0] != '/')
			return sp_error_set(err, "%s: not absolute", dir);
		snprintf(buf, sizeof(buf), "%s", dir);
		if (walk(c, buf, true, err) == -1)
			return -1;
		close(c->dirfd);
		c->dirfd = -1;
	}
	/* Symlinks are resolved once; each real component is then checked. */
	if ((real = realpath(dir, NULL)) == NULL)
		return sp_error_sys(err, errno, "%s", dir);
	snprintf(buf, sizeof(buf), "%s", real);
	free(real);
	r = walk(c, buf, false, err);
	return r;
}

void
sp_cache_drop_mac(struct sp_cache *c)
{
	/* The key goes with it (cache_mac.c zeroes it). */
	if (c->mac != NULL)
		c->mac->destroy(c->mac);
	c->mac = NULL;
}

/* The files kept in memory (sp_cache_keep) go with the handle. */
static void
free_kept(struct sp_cache_mem *m)
{
	struct sp_cache_kept *k, *next;

	if (m == NULL)
		return;
	sp_cache_memo_free(m->memo);
	for (k = m->files; k != NULL; k = next) {
		next = k->next;
		free(k);
	}
	free(m);
}

void
sp_cache_close(struct sp_cache *c)
{
	if (c->dirfd != -1)
		close(c->dirfd);
	c->dirfd = -1;
	sp_cache_drop_mac(c);
	free_kept(c->mem);
	c->mem = NULL;
}
