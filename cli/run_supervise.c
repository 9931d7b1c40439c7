/* SPDX-License-Identifier: ISC */
/*
 * syspin run as the supervisor of the program's whole tree (lib/supervise):
 * static programs are pinned from outside, every exec'd image is pinned at
 * its entry, violations are diagnosed from the registers (or, with --audit,
 * recorded once and let through).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include "elf/dynamic.h"
#include "supervise/supervise.h"

#include "cli.h"
#include "run.h"

/* Its headers only: parsing the whole file (symbols, unwind tables) for
 * one bit cost a `perl -e 1` more than pinning it did. */
bool
run_is_static(const char *path)
{
	struct sp_error err;
	struct sp_dyn d;
	bool st;

	if (sp_dyn_read(path, &d, &err) == -1)
		return false;
	st = d.interp == NULL;
	sp_dyn_free(&d);
	return st;
}

int
run_fill_static(const struct sp_cache *c, const char *elf, bool verbose)
{
	char *objs[] = { (char *)elf, "[vdso]" };

	return run_fill_bounded(c, objs, 2, false, verbose);
}

/* SYSPIN_SUPERVISE=0 turns supervision off (the runtime alone). */
bool
run_want_supervise(void)
{
	const char *e = getenv("SYSPIN_SUPERVISE");

	return e == NULL || strcmp(e, "0") != 0;
}

/*
 * The supervisor's own handle on the directory open_cache (cli/run.c)
 * chose, "" for none.  What cannot be written is kept in memory; where
 * open_cache had memory alone so has this, and the supervisor makes again
 * what the tree needs.  Either was said once already (lib/pins).
 */
static int
open_sup_cache(const char *dir, struct sp_cache *c)
{
	struct sp_error err;

	if (dir[0] != '\0' && sp_cache_open(c, dir, geteuid(), true,
	    &err) == 0) {
		(void)sp_cache_keep(c, cli_notice, &err);
		return 0;
	}
	/* Not out of reach but untrusted (code 0): refused. */
	if ((dir[0] != '\0' && err.code == 0) ||
	    sp_cache_open_memory(c, dir, geteuid(), dir[0] != '\0' ?
	    strerror(err.code) : "no directory", cli_notice, &err) == -1) {
		cli_error("run: %s", err.msg);
		return -1;
	}
	return 0;
}

/*
 * Where the supervisor cannot run (no ptrace), the runtime alone could:
 * it reads its tables from the directory, so it needs one it can write.
 */
static bool
runtime_may(const struct sp_cache *c, const struct sp_error *why)
{
	struct sp_error err;

	if (sp_cache_writable(c, &err) == 0)
		return true;
	cli_error("run: cannot supervise (%s), and the runtime alone needs "
	    "a cache it can write: %s", why->msg, err.msg);
	return false;
}

/* The supervisor's options, as r says. */
static void
opts_of(const struct run_sup *r, struct sp_cache *c,
    struct sp_supervise_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pin.cache = c;
	o->pin.flags = r->bpf_flags;
	o->pin.exec = r->exec;
	o->pin.dlopen = r->dlopen;
	o->pin.ndlopen = r->ndlopen;
	o->pin.reportdir = r->reportdir;
	o->pin.verbose = r->verbose;
	o->quiet = cli_quiet;
	o->pin.reach = r->reach;
	o->audit = r->audit;
	o->scope = r->scope;
	o->argv = r->argv;
	o->path = r->path;
	o->log_fd = r->x->log_fd;
	o->allow_sockets = r->x->allow_sockets;
	o->nallow_sockets = r->x->nallow_sockets;
	o->pin.narrow = sp_narrow_bpf(&r->x->narrow);
	o->pin.narrow_errno = r->x->narrow.errnum;
	o->pin.narrow_kill = r->x->narrow.kill;
}

/* The cache, its MAC (tables the tree could have written are not
 * believed, lib/pins; without a kernel keyring, only this run's own),
 * and the supervisor's options.  -1 said. */
static int
open_opts(const struct run_sup *r, struct sp_cache *c,
    struct sp_supervise_opts *o)
{
	struct sp_error err;

	if (open_sup_cache(r->cache_dir, c) == -1)
		return -1;
	(void)sp_cache_use_mac(c, &err);
	opts_of(r, c, o);
	return 0;
}

#define WARM_MAX 512

/* Adds each executable file PID maps now to files[] (once). */
static void
mapped_files(pid_t pid, char **files, size_t *n)
{
	char path[64], line[PATH_MAX + 128], perms[8];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (*n < WARM_MAX && fgets(line, sizeof(line), f) != NULL) {
		char *name = NULL, *nl = strchr(line, '\n');
		int at = 0;
		if (nl == NULL)		/* longer than any path: not ours */
			break;
		*nl = '\0';
		if (sscanf(line, "%*s %7s %*s %*s %*s%n", perms, &at) != 1 ||
		    strchr(perms, 'x') == NULL)
			continue;
		name = line + at + strspn(line + at, " ");
		if (strcmp(name, "[vdso]") != 0 && (name[0] != '/' ||
		    strstr(name, " (deleted)") != NULL))
			continue;
		size_t k = 0;
		while (k < *n && strcmp(files[k], name) != 0)
			k++;
		if (k == *n && (files[*n] = strdup(name)) != NULL)
			(*n)++;
	}
	fclose(f);
}

/*
 * What the processes map now, analysed before any of them is stopped: a
 * cold cache was otherwise filled while the server waited (PostgreSQL's
 * 43 objects: 1.3 s stopped).  A hint only, by the names in maps: the
 * attach then finds each object by what is mapped, as always.
 */
static void
attach_warm(const struct sp_cache *c, const pid_t *pids, size_t n,
    bool reach, bool verbose)
{
	char *files[WARM_MAX];
	size_t nf = 0;

	for (size_t i = 0; i < n; i++)
		mapped_files(pids[i], files, &nf);
	if (nf > 0)
		(void)run_fill_bounded(c, files, nf, reach, verbose);
	for (size_t i = 0; i < nf; i++)
		free(files[i]);
}

int
run_attach(const struct run_sup *r, const pid_t *pids, size_t n)
{
	struct sp_supervise_opts o;
	struct sp_cache c;
	struct sp_error err;
	int rc;

	if (open_opts(r, &c, &o) == -1)
		return EXIT_TROUBLE;
	attach_warm(&c, pids, n, r->reach, r->verbose);
	rc = sp_supervise_attach(&o, pids, n, &err);
	sp_cache_close(&c);
	if (rc == -1) {
		cli_error("%s", err.msg);
		return EXIT_TROUBLE;
	}
	return rc;
}

int
run_supervised(const struct run_sup *r, bool *fallback)
{
	struct sp_supervise_opts o;
	struct sp_cache c;
	struct sp_error err;
	int rc;

	*fallback = false;
	if (open_opts(r, &c, &o) == -1)
		return EXIT_TROUBLE;
	if (getenv("SYSPIN_PHASES") != NULL)	/* make bench */
		sp_supervise_phases();
	rc = sp_supervise(&o, &err);
	sp_supervise_phases_print(stderr);
	if (rc == -1 && r->x->require_supervisor) {
		sp_cache_close(&c);
		cli_error("run: cannot supervise (%s): refused "
		    "(--require-supervisor)", err.msg);
		return EXIT_TROUBLE;
	}
	if (rc == -1 && !runtime_may(&c, &err)) {
		sp_cache_close(&c);
		return EXIT_TROUBLE;
	}
	sp_cache_close(&c);
	if (rc == -1) {
		/* said at any verbosity: a weaker mode, and commands that
		 * fail in it (an exec refused) say nothing of why */
		cli_notice("run: cannot supervise (%s): the runtime alone pins "
		    "the program; it does not judge other processes, "
		    "terminals or sockets, and refuses exec unless "
		    "--exec=any (docs/threat-model.md; --require-supervisor "
		    "refuses to run instead)", err.msg);
		*fallback = true;
	}
	return rc;
}
