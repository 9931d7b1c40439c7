/* SPDX-License-Identifier: ISC */
/*
 * syspin trace [--json] [-o FILE] [--cache-dir DIR] [--allow-jit]
 *     [--no-reach] [--allow-list FILE] [--systemd FILE] [--program-status]
 *     [--] PROG [ARG...]
 *
 * Runs PROG pinned as `syspin run` pins it, every image of the tree, but
 * with every call stopped and judged by the image's own program (the
 * supervisor's observe mode): a call run would kill runs anyway and is
 * reported, with run's own line.  A development tool: a call reported
 * from an object is a false positive of the analysis.
 *
 * What the tree used can be kept as a narrowing: the numbers seen, as a
 * `syspin run --allow` list or a systemd SystemCallFilter= line.
 *
 * Exit status: 0 run would let every observed call through; 1 some call
 * would have been killed or refused; 2 usage error, or the program could
 * not be run.  --program-status: the program's own, as strace's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/bpf.h"
#include "pins/cache.h"

#include "cli.h"
#include "run.h"
#include "trace.h"

struct trace_args {
	bool json, allow_jit, no_reach, program_status;
	const char *output;
	const char *cache_dir;
	const char *allow_list, *systemd;	/* written at the end */
};

static void
usage(FILE *f)
{
	fputs("usage: syspin trace [-j] [-o FILE] [-c DIR] "
	    "[--allow-jit]\n                    [--no-reach] [--allow-list "
	    "FILE] [--systemd FILE]\n                    [--program-status] "
	    "[--] PROG [ARG...]\n\n"
	    "Runs PROG pinned as syspin run pins it, but stops every system "
	    "call of its\nprocesses and threads and judges it with the "
	    "image's program: prints the\ncoverage and each call run would "
	    "kill or refuse (those run anyway).\n\n"
	    "  -j, --json          machine-readable output (see "
	    "docs/trace.md)\n"
	    "  -o, --output FILE   write the report to FILE, not standard "
	    "output\n"
	    "  -c, --cache-dir DIR the tables' cache (as syspin run)\n"
	    "      --allow-jit     judge as syspin run --allow-jit\n"
	    "      --no-reach      judge as syspin run --no-reach (every "
	    "site pinned)\n"
	    "      --allow-list FILE  write the numbers the tree used as a "
	    "list for\n"
	    "                      syspin run --allow \"$(cat FILE)\"\n"
	    "      --systemd FILE  write them as a systemd SystemCallFilter= "
	    "line\n"
	    "      --program-status  exit as PROG did (as strace does)\n"
	    "  -h, --help          this text\n\n"
	    "Exit status: 0 every call covered, 1 some call would have been "
	    "killed or\nrefused, 2 usage error or PROG could not be run; "
	    "with --program-status,\nPROG's own (128 + the signal that "
	    "ended it), 2 when trace failed.\n",
	    f);
}

static int
parse_args(int argc, char **argv, struct trace_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "cache-dir", required_argument, NULL, 'c' },
		{ "allow-jit", no_argument, NULL, 'J' },
		{ "no-reach", no_argument, NULL, 'R' },
		{ "allow-list", required_argument, NULL, 'A' },
		{ "systemd", required_argument, NULL, 'S' },
		{ "program-status", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/* '+': options end at PROG, whose own options are its business. */
	while ((c = getopt_long(argc, argv, "+jo:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': a->json = true; break;
		case 'o': a->output = optarg; break;
		case 'c': a->cache_dir = optarg; break;
		case 'J': a->allow_jit = true; break;
		case 'R': a->no_reach = true; break;
		case 'A': a->allow_list = optarg; break;
		case 'S': a->systemd = optarg; break;
		case 'P': a->program_status = true; break;
		case 'h': usage(stdout); exit(0);
		default: cli_try("trace"); return -1;
		}
	}
	if (optind == argc) {
		cli_error("trace: no program to run");
		cli_try("trace");
		return -1;
	}
	return 0;
}

/* What went into f, flushed and f closed (not stdout): a write error
 * (ENOSPC, EIO...) shows when the buffer goes out; -1 after a message. */
static int
finish(FILE *f, const char *name, const char *what)
{
	int e = 0;

	if (fflush(f) == EOF || ferror(f))
		e = errno != 0 ? errno : EIO;
	if (f != stdout && fclose(f) == EOF && e == 0)
		e = errno;
	if (e != 0)
		cli_error("%s: cannot write %s: %s", name, what, strerror(e));
	return e != 0 ? -1 : 0;
}

/* The report goes to f (-o FILE, opened before PROG runs, or stdout). */
static int
report(const struct trace *t, const struct trace_args *a, FILE *f,
    char **prog)
{
	int r = 0;

	if (a->json)
		r = trace_print_json(f, t, prog);
	else
		trace_print_text(f, t, prog);
	if (finish(f, a->output ? a->output : "standard output",
	    "the report") == -1)
		return -1;
	if (r != 0)
		cli_error("trace: out of memory");
	return r != 0 ? -1 : 0;
}

/* --allow-list, --systemd: the numbers seen, into f (opened before PROG
 * ran); -1 after a message. */
static int
export(const struct trace *t, FILE *f, const char *name, bool systemd)
{
	if (f == NULL)
		return 0;
	trace_print_allow(f, t, systemd);
	return finish(f, name, systemd ? "the SystemCallFilter= line" :
	    "the --allow list");
}

/* PROG's exit status as a shell reports it. */
static int
program_status(const struct trace *t)
{
	if (!t->have_status)
		return EXIT_TROUBLE;
	return WIFEXITED(t->status) ? WEXITSTATUS(t->status) :
	    WIFSIGNALED(t->status) ? 128 + WTERMSIG(t->status) : EXIT_TROUBLE;
}

/* Runs PROG under the supervisor in observe mode; -1 after a message. */
static int
observe(struct trace *t, const struct trace_args *a, const char *path,
    char **argv)
{
	struct sp_supervise_opts o;
	struct sp_cache c;
	struct sp_error err;
	char dir[PATH_MAX];
	int rc;

	if (a->cache_dir != NULL)
		snprintf(dir, sizeof(dir), "%s", a->cache_dir);
	else if (sp_cache_default_dir(geteuid(), false, dir,
	    sizeof(dir)) == -1) {
		cli_error("trace: no cache directory: set HOME or --cache-dir");
		return -1;
	}
	if (sp_cache_open(&c, dir, geteuid(), true, &err) == -1) {
		cli_error("trace: %s", err.msg);
		return -1;
	}
	(void)sp_cache_use_mac(&c, &err);
	memset(&o, 0, sizeof(o));
	o.pin.cache = &c;
	o.pin.flags = a->allow_jit ? SP_BPF_ALLOW_JIT : 0;
	o.pin.exec = SP_EXEC_ANY;
	o.pin.reach = !a->no_reach;	/* as run: reachable-only pins */
	o.observe = trace_observe;
	o.observe_ctx = t;
	o.argv = argv;
	o.path = path;
	o.log_fd = -1;
	rc = sp_supervise(&o, &err);
	sp_cache_close(&c);
	if (rc == -1) {
		cli_error("trace: %s: %s", path, err.msg);
		return -1;
	}
	return 0;
}

/* Opens an output file before PROG runs; -1 after a message. */
static int
open_out(const char *name, FILE **f)
{
	*f = NULL;
	if (name == NULL)
		return 0;
	if ((*f = fopen(name, "we")) == NULL) {
		cli_error("%s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

int
cmd_trace(int argc, char **argv)
{
	struct trace_args a = { false, false, false, false, NULL, NULL, NULL,
	    NULL };
	struct trace t;
	char path[PATH_MAX], elf[PATH_MAX];
	FILE *f = stdout, *fa = NULL, *fs = NULL;
	int rc = 0;

	if (parse_args(argc, argv, &a) != 0)
		return EXIT_TROUBLE;
	if (cli_not_in_pinned_tree("trace") == -1)
		return EXIT_TROUBLE;
	/* What `syspin run` would run, or the same refusal. */
	if (run_find_prog(argv[optind], path, sizeof(path)) < 0 ||
	    run_elf(path, elf, sizeof(elf)) == -1)
		return EXIT_TROUBLE;
	if (a.output != NULL && (f = fopen(a.output, "we")) == NULL) {
		cli_error("%s: %s", a.output, strerror(errno));
		return EXIT_TROUBLE;
	}
	if (open_out(a.allow_list, &fa) == -1 || open_out(a.systemd,
	    &fs) == -1) {
		if (f != stdout)
			fclose(f);
		if (fa != NULL)
			fclose(fa);
		return EXIT_TROUBLE;
	}
	memset(&t, 0, sizeof(t));
	t.processes = 1;
	/* The report must not mix with the program's own output. */
	fflush(stdout);
	if (observe(&t, &a, path, argv + optind) == -1) {
		rc = EXIT_TROUBLE;
		if (f != stdout)
			fclose(f);
		if (fa != NULL)
			fclose(fa);
		if (fs != NULL)
			fclose(fs);
	} else if ((report(&t, &a, f, argv + optind) == -1) |
	    (export(&t, fa, a.allow_list, false) == -1) |
	    (export(&t, fs, a.systemd, true) == -1))	/* each closed */
		rc = EXIT_TROUBLE;
	else if (t.calls == 0) {
		cli_error("trace: no system call was seen: tracing failed");
		rc = EXIT_TROUBLE;
	} else if (t.oom) {
		cli_error("trace: out of memory: the report is incomplete");
		rc = EXIT_TROUBLE;
	} else if (a.program_status)
		rc = program_status(&t);
	else if (t.killed > 0 || t.refused > 0)
		rc = EXIT_FINDINGS;
	trace_free(&t);
	return rc;
}
