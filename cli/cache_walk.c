/* SPDX-License-Identifier: ISC */
/*
 * The files `syspin cache fill` analyses: every x86-64 program and shared
 * object (ELF, ET_EXEC or ET_DYN) under the directories it is given, by
 * the ELF header of every regular file, symlinks not followed (a symlink
 * into the tree is found at its target; one out of it is not wanted).
 * Separate debug files (lib/debug directories: ELF objects whose code is
 * not there) are skipped.  Each file once: hard links, and /lib next to
 * /usr/lib on a merged /usr, are one file.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "cli.h"

/* nftw(3) passes no context: the walk in progress. */
static struct {
	struct fill_file *v;
	size_t n, cap;
	bool nomem;
	size_t missing;		/* paths that were not there */
} walk;

static bool
want_elf(const char *path, const struct stat *st)
{
	unsigned char h[EI_NIDENT + 4];
	Elf64_Half type, machine;
	ssize_t n;
	int fd;

	if (st->st_size < (off_t)sizeof(Elf64_Ehdr))
		return false;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC)) == -1)
		return false;
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG) != 0 ||
	    h[EI_CLASS] != ELFCLASS64 || h[EI_DATA] != ELFDATA2LSB)
		return false;
	memcpy(&type, h + EI_NIDENT, 2);
	memcpy(&machine, h + EI_NIDENT + 2, 2);
	return machine == EM_X86_64 && (type == ET_EXEC || type == ET_DYN);
}

static int
add(const char *path, const struct stat *st, bool named)
{
	struct fill_file *nv, *f;

	if (walk.n == walk.cap) {
		walk.cap = walk.cap ? 2 * walk.cap : 1024;
		if ((nv = realloc(walk.v, walk.cap * sizeof(*nv))) == NULL)
			goto nomem;
		walk.v = nv;
	}
	f = &walk.v[walk.n];
	if ((f->path = strdup(path)) == NULL)
		goto nomem;
	f->size = st->st_size;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->named = named;
	walk.n++;
	return 0;
nomem:
	walk.nomem = true;
	return -1;
}

static int
visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path);

	(void)ftw;
	if (type == FTW_D && n >= 10 && strcmp(path + n - 10, "/lib/debug") ==
	    0)
		return FTW_SKIP_SUBTREE;
	if (type == FTW_F && S_ISREG(st->st_mode) && want_elf(path, st) &&
	    add(path, st, false) == -1)
		return FTW_STOP;
	return FTW_CONTINUE;
}

/* Hard links and overlapping directories once; a named file wins. */
static int
by_file(const void *a, const void *b)
{
	const struct fill_file *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (int)y->named - (int)x->named;
}

/* Largest first: the workers end together. */
static int
by_size(const void *a, const void *b)
{
	const struct fill_file *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void
unique(void)
{
	size_t i, k = 0;

	qsort(walk.v, walk.n, sizeof(*walk.v), by_file);
	for (i = 0; i < walk.n; i++) {
		if (k > 0 && walk.v[k - 1].dev == walk.v[i].dev &&
		    walk.v[k - 1].ino == walk.v[i].ino) {
			free(walk.v[i].path);
			continue;
		}
		walk.v[k++] = walk.v[i];
	}
	walk.n = k;
	qsort(walk.v, walk.n, sizeof(*walk.v), by_size);
}

/* real is, or is under, one of the n directories before it. */
static bool
walked(char (*done)[PATH_MAX], size_t n, const char *real)
{
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(done[i]);
		if (strncmp(done[i], real, len) == 0 && (real[len] == '\0' ||
		    real[len] == '/' || len == 1))
			return true;
	}
	return false;
}

int
cache_walk(char *const *paths, size_t npaths, struct fill_file **files,
    size_t *n)
{
	char (*done)[PATH_MAX], *real;
	struct stat st;
	size_t i, ndone = 0;

	memset(&walk, 0, sizeof(walk));
	if ((done = calloc(npaths + 1, sizeof(*done))) == NULL) {
		cli_error("cache fill: out of memory");
		return -1;
	}
	for (i = 0; i < npaths && !walk.nomem; i++) {
		/* This kernel's vDSO (sp_cache_fill knows the name). */
		if (strcmp(paths[i], "[vdso]") == 0) {
			memset(&st, 0, sizeof(st));
			st.st_ino = (ino_t)-1;
			(void)add(paths[i], &st, true);
			continue;
		}
		/* a path that is not there: said, and the others go on
		 * (exit 1 at the end, as for a file that fails) */
		if (stat(paths[i], &st) == -1) {
			cli_error("%s: %s", paths[i], strerror(errno));
			walk.missing++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			(void)add(paths[i], &st, true);
			continue;
		}
		/* A symlink to a directory (/lib) is walked where it leads,
		 * once. */
		real = done[ndone];
		if (realpath(paths[i], real) == NULL) {
			cli_error("%s: %s", paths[i], strerror(errno));
			goto fail;
		}
		if (walked(done, ndone, real))
			continue;
		ndone++;
		if (nftw(real, visit, 32, FTW_PHYS | FTW_ACTIONRETVAL) == -1 &&
		    !walk.nomem) {
			cli_error("%s: %s", paths[i], strerror(errno));
			goto fail;
		}
	}
	if (walk.nomem) {
		cli_error("cache fill: out of memory");
		goto fail;
	}
	free(done);
	unique();
	*files = walk.v;
	*n = walk.n;
	return walk.missing > 0 ? 1 : 0;
fail:
	free(done);
	cache_free_files(walk.v, walk.n);
	return -1;
}

void
cache_free_files(struct fill_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i].path);
	free(files);
}

/*
 * Where a Debian system keeps its programs and libraries; /bin, /sbin and
 * /lib* are the same directories on a merged /usr and found once.  And
 * the running kernel's vDSO, mapped into every process.
 */
size_t
cache_system_dirs(const char **dirs, size_t max)
{
	static const char *const sys[] = {
		"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64",
		"/usr/libexec", "/usr/games", "/usr/local/bin",
		"/usr/local/sbin", "/usr/local/lib", "/usr/local/libexec",
		"/bin", "/sbin", "/lib", "/lib64",
	};
	struct stat st;
	size_t i, n = 0;

	for (i = 0; i < sizeof(sys) / sizeof(*sys) && n < max; i++)
		if (stat(sys[i], &st) == 0 && S_ISDIR(st.st_mode))
			dirs[n++] = sys[i];
	if (n < max)
		dirs[n++] = "[vdso]";
	return n;
}
