/* SPDX-License-Identifier: ISC */
/*
 * Which objects a program maps at start-up, to analyse before it starts:
 * the search ld.so makes (DT_NEEDED, search paths, $ORIGIN, ld.so.cache,
 * LD_LIBRARY_PATH, LD_PRELOAD), made by lib/layout on the files alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf.h"
#include "layout/needed.h"

#include "cli.h"
#include "run.h"

/*
 * Where the runtime is, relative to the syspin binary's directory: a
 * build tree (BUILD/cli/syspin), then where this build installs it
 * (cli/meson.build: BINDIR/../LIBDIR/syspin), so that a DESTDIR copy or a
 * moved prefix finds its own, then the usual layouts.  Last, the
 * configured absolute path (SYSPIN_RT_INSTALLED).
 */
#ifndef SYSPIN_RT_RELATIVE
#define SYSPIN_RT_RELATIVE ""
#endif
static const char *const rt_places[] = {
	"../runtime/libsyspin-rt.so",
	SYSPIN_RT_RELATIVE,
	"../lib/x86_64-linux-gnu/syspin/libsyspin-rt.so",
	"../lib/syspin/libsyspin-rt.so",
	"../lib64/syspin/libsyspin-rt.so",
};

/* NULL when p is a file we may execute, else why not. */
static const char *
not_executable(const char *p)
{
	struct stat st;

	if (stat(p, &st) == -1)
		return strerror(errno);
	if (S_ISDIR(st.st_mode))
		return errno = EISDIR, "is a directory";
	if (!S_ISREG(st.st_mode))
		return errno = EACCES, "not a regular file";
	if (access(p, X_OK) == -1)
		return strerror(errno);
	return NULL;
}

int
run_find_prog(const char *prog, char *path, size_t size)
{
	const char *env = getenv("PATH"), *p, *e, *why;
	int n, e0 = 0;

	if (strchr(prog, '/') != NULL) {
		snprintf(path, size, "%s", prog);
		if ((why = not_executable(path)) == NULL)
			return 0;
		cli_error("%s: %s", prog, why);
		return errno == ENOENT || errno == ENOTDIR ? RUN_NOT_FOUND :
		    RUN_CANNOT_RUN;
	}
	for (p = env ? env : "/usr/local/bin:/usr/bin:/bin"; ; p = e + 1) {
		e = strchr(p, ':');
		n = e ? e - p : (int)strlen(p);
		snprintf(path, size, "%.*s%s%s", n, n ? p : ".", "/", prog);
		if ((why = not_executable(path)) == NULL)
			return 0;
		if (errno != ENOENT && errno != ENOTDIR && e0 == 0)
			e0 = errno;	/* there, but not runnable: execvp's */
		if (e == NULL)
			break;
	}
	if (e0 != 0) {
		cli_error("%s: %s", prog, strerror(e0));
		return RUN_CANNOT_RUN;
	}
	cli_error("%s: command not found", prog);
	return RUN_NOT_FOUND;
}

int
run_find_runtime(char *path, size_t size)
{
	const char *env = getenv("SYSPIN_RT");
	char self[PATH_MAX], real[PATH_MAX], *slash;
	ssize_t n;
	size_t i;

	if (env != NULL) {
		snprintf(path, size, "%s", env);
		if (realpath(env, real) != NULL && access(real, R_OK) == 0) {
			snprintf(path, size, "%s", real);
			return 0;
		}
		cli_error("SYSPIN_RT=%s: %s", env, strerror(errno));
		return -1;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0 ||
	    (self[n] = '\0', slash = strrchr(self, '/')) == NULL) {
		cli_error("run: /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	*slash = '\0';
	for (i = 0; i < sizeof(rt_places) / sizeof(*rt_places); i++) {
		if (rt_places[i][0] == '\0')
			continue;
		snprintf(path, size, "%s/%s", self, rt_places[i]);
		if (realpath(path, real) != NULL && access(real, R_OK) == 0) {
			snprintf(path, size, "%s", real);
			return 0;
		}
	}
#ifdef SYSPIN_RT_INSTALLED
	if (realpath(SYSPIN_RT_INSTALLED, real) != NULL &&
	    access(real, R_OK) == 0) {
		snprintf(path, size, "%s", real);
		return 0;
	}
#endif
	cli_error("run: cannot find libsyspin-rt.so (set SYSPIN_RT)");
	return -1;
}

static int
add(char ***v, size_t *n, const char *s)
{
	char **nv;

	if ((nv = realloc(*v, (*n + 1) * sizeof(*nv))) == NULL)
		return -1;
	*v = nv;
	return ((*v)[*n] = strdup(s)) == NULL ? -1 : (int)++*n;
}

/*
 * The objects ld.so may map at PROG's start, found as the supervisor finds
 * them (lib/layout/needed.c), never by asking ld.so: `ld.so --list` runs
 * PROG's DT_AUDIT modules and ld.so's parser on PROG's files, in syspin's
 * process, unpinned and unconfined, before any pin.  A superset: every
 * candidate ld.so could pick.  LD_PRELOAD's objects are the tree's too.
 */
/* The objects of PROG at path, resolved as its start in this
 * environment would; -1 after saying why. */
static int
resolve_here(const char *path, struct sp_needed *nd)
{
	char real[PATH_MAX];
	/* $ORIGIN is the real file's directory, as the kernel's exec makes
	 * it (/usr/bin/java -> /etc/alternatives/java -> .../bin/java) */
	struct sp_needed_in in = { .exe = realpath(path, real) != NULL ?
	    real : path,
	    .ld_library_path = getenv("LD_LIBRARY_PATH"),
	    .ld_preload = getenv("LD_PRELOAD"),
	    .preload_file = "/etc/ld.so.preload",
	    .ldcache_file = "/etc/ld.so.cache" };
	struct sp_error err;

	if (sp_needed_resolve(&in, nd, &err) == -1) {
		cli_error("%s", err.msg);
		return -1;
	}
	return 0;
}

static int
needed(const char *path, char ***v, size_t *n)
{
	struct sp_needed nd;
	int r = 0;

	if (resolve_here(path, &nd) == -1)
		return -1;
	for (size_t i = 0; i < nd.nobjs && r == 0; i++)
		if (add(v, n, nd.objs[i].path) == -1)
			r = -1;
	sp_needed_free(&nd);
	return r;
}

/*
 * The runtime alone: an LD_AUDIT or DT_AUDIT module runs as ld.so starts,
 * before the runtime's constructor pins anything (the supervisor refuses
 * it the same way, lib/supervise/startup.c).  -1, said, when one would.
 */
int
run_audited(const char *path)
{
	const char *env = getenv("LD_AUDIT");
	struct sp_needed nd;
	bool audit;

	if (env != NULL && env[0] != '\0') {
		cli_error("%s: LD_AUDIT is set: its modules would run while "
		    "ld.so loads, before any pin", path);
		return -1;
	}
	if (resolve_here(path, &nd) == -1)
		return -1;
	audit = nd.audit;
	sp_needed_free(&nd);
	if (audit)
		cli_error("%s: DT_AUDIT: its modules would run before any pin",
		    path);
	return audit ? -1 : 0;
}

/* A "#!" script runs its interpreter: the ELF to analyse is that one. */
static int
script_interp(const char *path, char *interp, size_t size)
{
	char line[PATH_MAX + 3], *p, *end;
	FILE *f;
	int r = -1;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(line, sizeof(line), f) != NULL && line[0] == '#' &&
	    line[1] == '!') {
		p = line + 2 + strspn(line + 2, " \t");
		end = p + strcspn(p, " \t\n");
		*end = '\0';
		if (*p == '/' && (size_t)(end - p) < size) {
			snprintf(interp, size, "%s", p);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/*
 * What execvp(3) does with a file the kernel will not run (ENOEXEC):
 * neither ELF nor "#!": run it with /bin/sh.  1 when prog is such a file,
 * 0 when not, -1 (after saying why) when it cannot be read: syspin must
 * read what it pins, an execute-only file too.
 */
int
run_shell_script(const char *prog)
{
	unsigned char head[4] = { 0 };
	ssize_t n;
	int fd;

	if ((fd = open(prog, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == EACCES)
			cli_error("%s: cannot be read (execute-only?): syspin "
			    "reads a program to pin it", prog);
		else
			cli_error("%s: %s", prog, strerror(errno));
		return -1;
	}
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n >= 2 && head[0] == '#' && head[1] == '!')
		return 0;
	if (n == 4 && memcmp(head, "\177ELF", 4) == 0)
		return 0;
	return 1;
}

int
run_elf(const char *prog, char *path, size_t size)
{
	struct sp_error err;
	char next[PATH_MAX];
	int depth;

	/* The kernel follows up to 4 levels of interpreters. */
	snprintf(path, size, "%s", prog);
	for (depth = 0; depth < 5 && script_interp(path, next,
	    sizeof(next)) == 0; depth++)
		snprintf(path, size, "%s", next);
	/* Ours to pin, or refused here: never handed to /bin/sh. */
	if (sp_elf_check_file(path, &err) == -1) {
		cli_error("%s: %s", path, err.msg);
		return -1;
	}
	return 0;
}

int
run_objects(const char *path, const char *rt, char ***objs, size_t *n)
{
	struct sp_error err;
	struct sp_elf elf;
	int r = 0;

	*objs = NULL;
	*n = 0;
	if (sp_elf_open(&elf, path, &err) == -1) {
		cli_error("%s: %s", path, err.msg);
		return -1;
	}
	if (elf.interp == NULL) {
		cli_error("%s: statically linked: run pins dynamically linked "
		    "programs only", path);
		sp_elf_close(&elf);
		return -1;
	}
	if (add(objs, n, path) == -1 || add(objs, n, elf.interp) == -1 ||
	    add(objs, n, rt) == -1 || add(objs, n, "[vdso]") == -1)
		r = -1;
	/* A failure here is not fatal: the supervisor says what it
	 * cannot pin, and fills what is missing. */
	if (r == 0 && needed(path, objs, n) == -1)
		cli_error("%s: its libraries are not all known; they will be "
		    "analysed as the program starts", path);
	sp_elf_close(&elf);
	return r;
}

void
run_free_objects(char **objs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(objs[i]);
	free(objs);
}

void
run_remove_dir(const char *dir)
{
	struct dirent *d;
	DIR *dp;
	int fd;

	if ((dp = opendir(dir)) == NULL)
		return;
	fd = dirfd(dp);
	while ((d = readdir(dp)) != NULL)
		if (d->d_name[0] != '.')
			unlinkat(fd, d->d_name, 0);
	closedir(dp);
	rmdir(dir);
}
