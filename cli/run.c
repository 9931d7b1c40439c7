/* SPDX-License-Identifier: ISC */
/*
 * syspin run [--strict] [--allow-jit] [--audit] [--cache-dir DIR]
 *     [--dlopen FILE]... [-v] [--no-reach] PROG [ARG...]
 * syspin run --fill-cache [--cache-dir DIR] FILE...
 *
 * Analyses PROG's objects (interpreter, DT_NEEDED closure, the runtime, the
 * vDSO) into the pin cache, then runs PROG under the supervisor
 * (run_supervise.c, lib/supervise), which pins every image of the tree
 * before its first instruction; where ptrace is not allowed, or with
 * SYSPIN_SUPERVISE=0, with the runtime alone (run_alone.c).  Exit status:
 * PROG's, or 128+signal; 127 PROG not found, 126 not runnable (env's).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <termios.h>
#include <unistd.h>

#include "pins/cache.h"
#include "fill/fill.h"
#include "layout/diag.h"
#include "elf/elf.h"
#include "layout/layout.h"
#include "layout/placement.h"
#include "layout/report.h"
#include "supervise/supervise.h"

#include "cli.h"
#include "run.h"

struct run_args {
	bool strict, allow_jit, audit, verbose, fill, no_reach;
	int exec;		/* enum sp_exec_policy */
	bool exec_given;	/* --exec was asked for */
	unsigned scope;		/* SP_SCOPE_* */
	const char *cache_dir;
	char *dlopen[16];	/* --dlopen FILE, real paths */
	size_t ndlopen;
	char **argv;		/* PROG ARG... or FILE... */
	int argc;
	pid_t attach[64];	/* -p PID[,PID...]: running processes */
	size_t nattach;
	struct run_extra x;	/* -o, --log-fd, --deny, --allow */
};


static void
usage(FILE *f)
{
	fputs("usage: syspin run [--strict] [--allow-jit] [--audit] "
	    "[--exec=POLICY]\n"
	    "                  [--scope=WHAT] [-c DIR] "
	    "[--dlopen FILE]... [-v | -q]\n"
	    "                  [-o FILE | --log-fd N] [--deny LIST | --allow "
	    "LIST]\n"
	    "                  [--deny-action=errno[:NAME]|kill] [--no-reach]\n"
	    "                  [--allow-socket NAME]... [--unsafe-install] "
	    "PROG [ARG...]\n"
	    "       syspin run [mode options] -p PID[,PID...]\n"
	    "       syspin run --fill-cache [-c DIR] FILE...\n\n"
	    "Runs PROG, and every program it runs, with its system calls "
	    "pinned: a call\nfrom anywhere but the instruction where its "
	    "number is expected kills the\nprocess before it runs, with one "
	    "line saying where (docs/run.md).\n\n"
	    "      --strict        no syscalls from outside the pinned image, "
	    "no execve\n"
	    "      --allow-jit     allow anonymous or writable executable "
	    "memory\n"
	    "      --audit         log violations instead of killing\n"
	    "      --exec=POLICY   what the tree may exec: any (default), "
	    "trusted (root's\n"
	    "                      files nobody else can write, older than "
	    "the run), none\n"
	    "      --scope=WHAT    keep signals, sockets (abstract unix) or "
	    "both\n"
	    "                      inside the tree (Landlock ABI 6)\n"
	    "      --dlopen FILE   FILE will be dlopen'ed: allow the numbers "
	    "it passes to\n"
	    "                      libc's syscall() (repeatable)\n"
	    "  -c, --cache-dir DIR pin table cache, made if missing (not its "
	    "parent;\n"
	    "                      default: /var/cache/syspin for root, else\n"
	    "                      $XDG_CACHE_HOME/syspin, made with its "
	    "parents)\n"
	    "      --no-reach      pin every site of every object, not only "
	    "those the\n"
	    "                      program's code can reach\n"
	    "      --fill-cache    only analyse each FILE into the cache\n"
	    "  -o, --output FILE   write a JSON record of each violation and "
	    "refusal\n"
	    "                      (docs/run-log.md)\n"
	    "      --log-fd N      the same, to file descriptor N\n"
	    "      --deny LIST     deny these system calls and @groups "
	    "(systemd's names)\n"
	    "                      in every program of the tree\n"
	    "      --allow LIST    deny every system call but these\n"
	    "      --deny-action=A what a denied call gets: errno (EPERM), "
	    "errno:NAME,\n"
	    "                      or kill\n"
	    "      --allow-socket NAME  a unix socket outside the tree its "
	    "programs may\n"
	    "                      connect to: the path its listener bound "
	    "(or @name);\n"
	    "                      by default only the tree's own, journald's "
	    "and nscd's\n"
	    "      --unsafe-install  run although syspin, a library it maps or "
	    "its\n"
	    "                      runtime is writable by someone but root "
	    "(the tree\n"
	    "                      could replace them for the next run)\n"
	    "      --require-supervisor  refuse to run (status 2) where the "
	    "supervisor\n"
	    "                      cannot (no ptrace), rather than with the "
	    "runtime alone\n"
	    "  -v, --verbose       say what is analysed and installed\n"
	    "  -q, --quiet         say only what was killed: not what was "
	    "refused, denied\n"
	    "                      or kept in memory, nor a weaker mode (-o "
	    "still records)\n"
	    "  -p, --pid PID[,PID...]  pin the processes, which run already, "
	    "and supervise them\n"
	    "                      until it ends (each thread; what it loads "
	    "later, its\n"
	    "                      children and execs, as PROG's)\n"
	    "  -h, --help          this text\n\n"
	    "Exit status: PROG's, or 128+signal when it was killed (159: a "
	    "call that was\nnot pinned); 127 PROG not found, 126 found but not "
	    "runnable; 2 usage error,\nor PROG could not be analysed or "
	    "started.\n", f);
}

/* The runtime runs elsewhere and ld.so loads the real file: a real path. */
static int
add_dlopen(struct run_args *a, const char *file)
{
	char *real;

	if (a->ndlopen == sizeof(a->dlopen) / sizeof(*a->dlopen)) {
		cli_error("run: --dlopen: at most %zu files", a->ndlopen);
		return -1;
	}
	if ((real = realpath(file, NULL)) == NULL) {
		cli_error("run: --dlopen %s: %s", file, strerror(errno));
		return -1;
	}
	if (strchr(real, ':') != NULL) {
		cli_error("run: --dlopen %s: ':' in the path", real);
		free(real);
		return -1;
	}
	a->dlopen[a->ndlopen++] = real;
	return 0;
}

static int
parse(int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{ "strict", no_argument, NULL, 's' },
		{ "allow-jit", no_argument, NULL, 'j' },
		{ "audit", no_argument, NULL, 'a' },
		{ "cache-dir", required_argument, NULL, 'c' },
		{ "dlopen", required_argument, NULL, 'd' },
		{ "fill-cache", no_argument, NULL, 'F' },
		{ "exec", required_argument, NULL, 'e' },
		{ "scope", required_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-reach", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "pid", required_argument, NULL, 'p' },
		RUN_EXTRA_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	run_extra_init(&a->x);
	/* "+": options stop at PROG; PROG's own options are its own. */
	while ((c = getopt_long(argc, argv, "+vqho:c:p:", opts, NULL)) != -1) {
		switch (c) {
		case 's': a->strict = true; break;
		case 'j': a->allow_jit = true; break;
		case 'a': a->audit = true; break;
		case 'c': a->cache_dir = optarg; break;
		case 'd':
			if (add_dlopen(a, optarg) == -1)
				return -1;
			break;
		case 'F': a->fill = true; break;
		case 'e':
			if (run_parse_exec(optarg, &a->exec) == -1)
				return -1;
			a->exec_given = true;
			break;
		case 'S':
			if (run_parse_scope(optarg, &a->scope) == -1)
				return -1;
			break;
		case 'v': a->verbose = true; break;
		case 'q': cli_quiet = true; break;
		case 'R': a->no_reach = true; break;
		case 'h': usage(stdout); exit(0);
		case 'p':
			if (run_parse_pids(optarg, a->attach, &a->nattach,
			    sizeof(a->attach) / sizeof(*a->attach)) == -1)
				return -1;
			break;
		case 'o':
		case 1000:
		case 1001:
		case 1002:
		case 1003:
		case 1004:
		case 1005:
		case 1006:
			if (run_extra_opt(&a->x, c, optarg) == -1)
				return -1;
			break;
		default: cli_try("run"); return -1;
		}
	}
	if (a->verbose && cli_quiet) {
		cli_error("run: -v and -q: say more, or less");
		return -1;
	}
	if (a->strict && a->allow_jit) {
		cli_error("run: --strict and --allow-jit: --strict allows no "
		    "new code, a JIT compiler makes it");
		return -1;
	}
	/* what contradicts or means nothing: refused, not ignored */
	if (a->strict && a->exec_given && a->exec != SP_EXEC_NONE) {
		cli_error("run: --strict and --exec: --strict allows no exec "
		    "(it is --exec=none, and more)");
		return -1;
	}
	if (a->x.action_given && !a->x.narrow.given) {
		cli_error("run: --deny-action without --deny or --allow: there "
		    "is nothing it would act on");
		return -1;
	}
	if (a->strict)		/* today's --strict: no exec at all */
		a->exec = SP_EXEC_NONE;
	a->argc = argc - optind;
	a->argv = argv + optind;
	if (a->nattach != 0 && (a->argc != 0 || a->fill || a->ndlopen > 0)) {
		cli_error("run: -p PID pins a process that runs: no PROG, "
		    "--fill-cache or --dlopen with it");
		return -1;
	}
	if (a->nattach != 0)
		return 0;
	if (a->argc == 0) {
		cli_error("run: no program to run");
		cli_try("run");
		return -1;
	}
	return 0;
}

/*
 * --cache-dir DIR is made when missing, its parent is not: a mistyped path
 * must not grow a tree of directories (as root, anywhere).  The default
 * directory is made with its parents (~/.cache).
 */
static int
parent_exists(const char *dir)
{
	char parent[PATH_MAX], *slash;
	struct stat st;
	size_t n;
	int e;

	snprintf(parent, sizeof(parent), "%s", dir);
	for (n = strlen(parent); n > 1 && parent[n - 1] == '/'; n--)
		parent[n - 1] = '\0';
	if ((slash = strrchr(parent, '/')) == NULL)
		return 0;
	slash[slash == parent ? 1 : 0] = '\0';
	if (stat(parent, &st) == -1)
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	else
		return 0;
	cli_error("%s: %s: %s (--cache-dir makes only its last directory)",
	    dir, parent, strerror(e));
	return -1;
}

/*
 * The cache the run fills and its supervisor reads.  One that cannot be
 * written costs time, never the run: tables are kept in memory and made
 * again each run, said once (lib/pins/cache_write.c).  A default
 * directory out of reach (a system user's HOME is /nonexistent, or none)
 * leaves memory alone, said the same way.  One that is unsafe, or an
 * explicit --cache-dir that cannot be made (mistyped), is refused.
 * --fill-cache, and the runtime alone (SYSPIN_SUPERVISE=0), which reads
 * its tables from the directory, need one they can write.
 */
static int
open_cache(const struct run_args *a, struct sp_cache *c, char *dir,
    size_t size)
{
	const char *home = getenv("HOME"), *why;
	struct sp_error err;
	char *real;
	bool mem;

	if (a->cache_dir != NULL) {
		/* The runtime runs elsewhere: give it an absolute path. */
		if (a->cache_dir[0] != '/' && (real = realpath(".", NULL))) {
			snprintf(dir, size, "%s/%s", real, a->cache_dir);
			free(real);
		} else
			snprintf(dir, size, "%s", a->cache_dir);
		if (parent_exists(dir) == -1)
			return -1;
	} else if (sp_cache_default_dir(geteuid(), false, dir, size) == -1)
		dir[0] = '\0';
	if (dir[0] == '\0')
		sp_error_set(&err, "no cache directory: set HOME or --cache-dir");
	else if (sp_cache_open(c, dir, geteuid(), true, &err) == 0)
		err.msg[0] = '\0';
	/* Out of reach, not unsafe (code 0: untrusted): memory alone. */
	mem = err.msg[0] != '\0' && a->cache_dir == NULL && !a->fill &&
	    (dir[0] == '\0' || err.code != 0);
	if (mem) {
		why = dir[0] != '\0' ? strerror(err.code) : home == NULL ?
		    "HOME is not set" : "HOME is not an absolute path";
		if (sp_cache_open_memory(c, dir, geteuid(), why, cli_notice,
		    &err) == 0)
			err.msg[0] = '\0';
	}
	if (err.msg[0] != '\0') {
		cli_error("run: %s", err.msg);
		return -1;
	}
	if ((a->fill || !run_want_supervise()) &&
	    sp_cache_writable(c, &err) == -1) {
		cli_error("run: %s%s", err.msg, a->fill ? "" : ": the runtime "
		    "alone (SYSPIN_SUPERVISE=0) needs a cache it can write");
		sp_cache_close(c);
		return -1;
	}
	if (!a->fill)
		(void)sp_cache_keep(c, cli_notice, &err);
	/* Believe only tables our key vouches for (lib/pins/cache_mac.c). */
	if (sp_cache_use_mac(c, &err) == -1 && a->verbose)
		fprintf(stderr, "syspin: no kernel keyring (%s): tables are "
		    "made again each run\n", err.msg);
	return 0;
}

/*
 * The program's files analysed as the supervisor analyses what a tree
 * execs: in a child of ours, under limits of memory and time (the program
 * may be a file made to be expensive); the vDSO here.  Over a limit: an
 * error naming the file.  Other failures are not fatal: the object gets
 * no pins, and the supervisor says so.
 */
int
run_fill_bounded(const struct sp_cache *c, char **files, size_t n,
    bool reach, bool verbose)
{
	struct sp_error err;
	char *vdso = "[vdso]";

	for (size_t i = 0; i < n; i++)
		if (strcmp(files[i], "[vdso]") == 0)
			(void)sp_cache_fill(c, vdso, false, &err);
	if (sp_fill_files(c, files, n, reach, verbose, &err) == -1) {
		cli_error("%s", err.msg);
		return EXIT_FAILURE;
	}
	return 0;
}

/* Analyses each file into the cache (--fill-cache).  Failures are
 * reported, not fatal: the object simply gets no pins. */
static int
fill(const struct sp_cache *c, char **files, size_t n, bool verbose)
{
	struct sp_error err;
	size_t i;
	int r, rc = 0;

	for (i = 0; i < n; i++) {
		r = sp_cache_fill(c, files[i], false, &err);
		if (r == -1 || r == 2) {
			cli_error("%s", err.msg);
			rc = EXIT_TROUBLE;
		} else if (verbose)
			fprintf(stderr, "syspin: %s: %s\n", files[i],
			    r == 1 ? "analysed" : "cached");
	}
	return rc;
}



/* The supervisor pins every image itself: no runtime, no environment. */
static int
supervised(const struct run_args *a, const char *path, const char *dir,
    const char *reportdir, bool *fallback)
{
	struct run_sup r = { a->argv, path, dir, reportdir, 0, a->exec,
	    a->scope, a->audit, a->verbose, a->dlopen, a->ndlopen, &a->x,
	    !a->no_reach };

	if (a->strict)
		r.bpf_flags |= SP_BPF_STRICT;
	if (a->allow_jit)
		r.bpf_flags |= SP_BPF_ALLOW_JIT;
	return run_supervised(&r, fallback);
}

static int
exec_child(struct run_args *a, const char *path, const char *dir,
    const char *rt, const char *reportdir)
{
	struct run_alone r = { a->argv, path, dir, rt, reportdir, a->strict,
	    a->allow_jit, a->audit, a->verbose, false, a->dlopen, a->ndlopen,
	    &a->x };
	int rc;

	if (run_want_supervise()) {
		bool fallback;
		rc = supervised(a, path, dir, reportdir, &fallback);
		if (!fallback)
			return rc;
	}
	/*
	 * The runtime alone (run_alone.c).  It cannot follow an exec whose
	 * environment drops it, so by default the tree execs nothing;
	 * --exec=any asks for exec'd programs that are not pinned unless
	 * they load the runtime themselves.
	 */
	if (a->exec == SP_EXEC_TRUSTED || a->scope != 0) {
		cli_error("run: --exec=trusted and --scope need the supervisor "
		    "(ptrace)");
		return EXIT_TROUBLE;
	}
	if (!a->exec_given && a->verbose)
		fprintf(stderr, "syspin: run: without the supervisor the tree "
		    "may exec nothing (--exec=any allows it, and what it "
		    "execs may run unpinned)\n");
	r.exec_none = !a->exec_given || a->exec == SP_EXEC_NONE;
	return run_alone(&r);
}


/* -p PID: the running process pinned and supervised (run_supervise.c). */
static int
attach(struct run_args *a)
{
	char dir[PATH_MAX], rt[PATH_MAX];
	char reportdir[] = "/tmp/syspin-run.XXXXXX";
	struct sp_cache c;
	struct run_sup r = { NULL, NULL, NULL, reportdir, 0, a->exec,
	    a->scope, a->audit, a->verbose, NULL, 0, &a->x, !a->no_reach };
	int rc;

	if (run_find_runtime(rt, sizeof(rt)) == -1 ||
	    (!a->x.unsafe_install && run_check_install(rt) == -1) ||
	    open_cache(a, &c, dir, sizeof(dir)) == -1)
		return EXIT_TROUBLE;
	sp_cache_close(&c);
	if (a->strict)
		r.bpf_flags |= SP_BPF_STRICT;
	if (a->allow_jit)
		r.bpf_flags |= SP_BPF_ALLOW_JIT;
	r.cache_dir = dir;
	if (mkdtemp(reportdir) == NULL) {
		cli_error("run: mkdtemp: %s", strerror(errno));
		return EXIT_TROUBLE;
	}
	rc = run_attach(&r, a->attach, a->nattach);
	run_remove_dir(reportdir);
	run_extra_free(&a->x);
	return rc;
}

int
cmd_run(int argc, char **argv)
{
	struct run_args a;
	struct sp_cache c;
	char dir[PATH_MAX], path[PATH_MAX], rt[PATH_MAX], elf[PATH_MAX];
	char reportdir[] = "/tmp/syspin-run.XXXXXX";
	struct term_state term;
	char **objs = NULL;
	size_t nobjs = 0;
	char **shargv = NULL;
	int rc = 0, tables = -1;
	char forged[SP_ERROR_MAX];

	if (parse(argc, argv, &a) == -1 || run_extra_open(&a.x) == -1)
		return EXIT_TROUBLE;
	if (cli_not_in_pinned_tree("run") == -1)
		return EXIT_TROUBLE;
	if (a.nattach != 0)
		return attach(&a);
	/* not dumpable since main (the attach's case): the tree's first
	 * process, a fork of ours, must be, to be traced without
	 * CAP_SYS_PTRACE; the supervisor is not again once it is traced */
	(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	/* A program that cannot run makes no cache directory; not found is
	 * 127, found but not runnable 126, as env(1) and timeout(1) say. */
	if (!a.fill && (rc = run_find_prog(a.argv[0], path, sizeof(path))) < 0)
		return -rc;
	/* neither ELF nor "#!": /bin/sh runs it, as execvp(3) would */
	if (!a.fill && (rc = run_shell_script(path)) != 0) {
		if (rc == -1 || (shargv = calloc((size_t)a.argc + 2,
		    sizeof(*shargv))) == NULL)
			return -RUN_CANNOT_RUN;
		shargv[0] = "/bin/sh";
		if ((shargv[1] = strdup(path)) == NULL)
			return EXIT_TROUBLE;
		for (int i = 1; i < a.argc; i++)
			shargv[i + 1] = a.argv[i];
		a.argv = shargv;
		a.argc++;
		snprintf(path, sizeof(path), "/bin/sh");
		rc = 0;
	}
	if (!a.fill && (run_find_runtime(rt, sizeof(rt)) == -1 ||
	    run_elf(path, elf, sizeof(elf)) == -1))
		return EXIT_TROUBLE;
	/* Nothing that judges the tree may be the tree's to rewrite. */
	if (!a.fill && !a.x.unsafe_install && run_check_install(rt) == -1)
		return EXIT_TROUBLE;
	if (open_cache(&a, &c, dir, sizeof(dir)) == -1)
		return EXIT_TROUBLE;
	if (a.fill) {
		rc = fill(&c, a.argv, a.argc, a.verbose);
		sp_cache_close(&c);
		return rc;
	}
	if (run_is_static(elf))
		rc = run_fill_static(&c, elf, a.verbose);
	else if (!run_warm(&c, elf, rt)) {
		if (run_objects(elf, rt, &objs, &nobjs) == -1) {
			sp_cache_close(&c);
			return EXIT_TROUBLE;
		}
		rc = run_fill_bounded(&c, objs, nobjs, false, a.verbose);
		if (rc == 0)
			run_remember(&c, elf, rt, objs, nobjs);
		run_free_objects(objs, nobjs);
	} else if (a.verbose)
		fprintf(stderr, "syspin: %s: every object is cached\n", elf);
	if (rc != 0) {		/* over a limit: it would be refused */
		sp_cache_close(&c);
		return rc;
	}
	/* The runtime would fill them too, at each start without a table. */
	if (a.ndlopen > 0)
		(void)fill(&c, a.dlopen, a.ndlopen, a.verbose);
	/* the runtime alone: the tables it starts with, as believed now */
	unsetenv("SYSPIN_TABLES_FD");
	/* out of same-user processes' reach (/proc/PID/fd) while it is
	 * written (blind round 20); the runtime alone keeps it so */
	if (!run_want_supervise())
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (!run_want_supervise() && !run_is_static(elf) &&
	    (tables = run_hand_tables(&c, elf, rt, forged)) == -2) {
		cli_error("run: %s", forged);
		sp_cache_close(&c);
		return EXIT_FAILURE;
	}
	if (tables >= 0) {
		char v[16];
		snprintf(v, sizeof(v), "%d", tables);
		setenv("SYSPIN_TABLES_FD", v, 1);
	}
	sp_cache_close(&c);
	if (mkdtemp(reportdir) == NULL) {
		cli_error("run: mkdtemp: %s", strerror(errno));
		return EXIT_TROUBLE;
	}
	run_term_save(&term);
	run_term_quiet(&term, (a.scope & SP_SCOPE_SIGNALS) != 0);
	rc = exec_child(&a, path, dir, rt, reportdir);
	run_term_restore(&term);
	if (tables >= 0)
		close(tables);
	run_remove_dir(reportdir);
	run_extra_free(&a.x);
	for (size_t i = 0; i < a.ndlopen; i++)
		free(a.dlopen[i]);
	if (shargv != NULL)
		free(shargv[1]);
	free(shargv);
	return rc;
}
