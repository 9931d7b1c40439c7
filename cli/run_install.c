/* SPDX-License-Identifier: ISC */
/*
 * What judges the tree must not be writable by it.  `syspin run` is the
 * supervisor (its binary and every library it maps) and, without ptrace,
 * the runtime it preloads: a tree that could rewrite one of them would
 * run the attacker's judge at the next `syspin run`.  So, as sshd's
 * StrictModes does for its files, each of them, and every directory
 * above it, must be owned by root and writable by nobody else (a sticky
 * directory, like /tmp, keeps others from replacing what is in it);
 * otherwise the run is refused with one line.  --unsafe-install runs
 * anyway (a build in one's own directory), and says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pins/cache.h"
#include "layout/procfs.h"

#include "cli.h"
#include "run.h"

/* Why st may not judge the tree, or NULL. */
static const char *
unsafe(const struct stat *st, bool dir)
{
	if (st->st_uid != 0)
		return "not owned by root";
	if (!sp_cache_trusted(st, 0, dir))
		return "writable by others than root";
	return NULL;
}

/*
 * path (an object syspin runs with) and every directory above its real
 * path; dev/ino: the mapped file's, or 0 (a path we are about to use).
 */
static int
check_path(const char *what, const char *path, dev_t dev, ino_t ino)
{
	char real[PATH_MAX], *slash;
	const char *why = NULL;
	struct stat st;

	if (realpath(path, real) == NULL || stat(real, &st) == -1) {
		cli_error("%s: %s: %s", what, path, strerror(errno));
		return -1;
	}
	if (ino != 0 && (st.st_dev != dev || st.st_ino != ino)) {
		cli_error("%s: %s: replaced since syspin started: a file that "
		    "judges pinned programs may not change", what, real);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (why = unsafe(&st, false)) != NULL)
		goto bad;
	while ((slash = strrchr(real, '/')) != NULL) {
		slash[slash == real ? 1 : 0] = '\0';
		if (stat(real, &st) == -1) {
			cli_error("%s: %s: %s", what, real, strerror(errno));
			return -1;
		}
		if ((why = unsafe(&st, true)) != NULL)
			goto bad;
		if (slash == real)
			break;
	}
	return 0;
bad:
	cli_error("%s: %s: %s (owner %ld, mode %04o): a pinned tree could "
	    "replace what judges it; install syspin as root (or run with "
	    "--unsafe-install)", what, real, why != NULL ? why :
	    "not a regular file", (long)st.st_uid,
	    (unsigned)(st.st_mode & 07777));
	return -1;
}

int
run_check_install(const char *rt)
{
	struct sp_error err;
	struct sp_map *m;
	size_t n, i, j;
	int r = 0;

	if (sp_maps_read("/proc/self/maps", &m, &n, &err) == -1) {
		cli_error("run: %s", err.msg);
		return -1;
	}
	for (i = 0; i < n && r == 0; i++) {
		if (!(m[i].prot & PROT_EXEC) || m[i].kind != SP_MAP_FILE)
			continue;
		for (j = 0; j < i; j++)		/* each file once */
			if ((m[j].prot & PROT_EXEC) && m[j].dev == m[i].dev &&
			    m[j].inode == m[i].inode)
				break;
		if (j == i)
			r = check_path("run", m[i].path, (dev_t)m[i].dev,
			    (ino_t)m[i].inode);
	}
	sp_maps_free(m, n);
	if (r == 0 && rt != NULL)
		r = check_path("run: the runtime", rt, 0, 0);
	return r;
}
