/* SPDX-License-Identifier: ISC */
/*
 * syspin trace [--json] [-o FILE] [--] PROG [ARG...]
 *
 * Runs PROG under ptrace, follows every process and thread it creates, and
 * checks each system call they issue against the scanned tables of the
 * object it comes from: a call the tables do not cover is one `syspin run`
 * would kill, a false positive of the analysis.  A development tool.
 *
 * Exit status: 0 every observed call is covered; 1 some call would have
 * been killed (from an object, or from memory no object backs); 2 usage
 * error, or the program could not be run.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run.h"
#include "trace.h"

struct trace_args {
	bool json;
	const char *output;
};

static void
usage(FILE *f)
{
	fputs("usage: syspin trace [--json] [-o FILE] [--] PROG [ARG...]\n\n"
	    "Runs PROG under ptrace and checks every system call of its "
	    "processes and\nthreads against the scanned tables: prints the "
	    "coverage and each call\npinning would have killed.\n\n"
	    "  -j, --json         machine-readable output (see docs/trace.md)\n"
	    "  -o, --output FILE  write the report to FILE, not standard "
	    "output\n"
	    "  -h, --help         this text\n\n"
	    "Exit status: 0 every call covered, 1 some call would have been "
	    "killed,\n2 usage error or PROG could not be run.\n", f);
}

static int
parse_args(int argc, char **argv, struct trace_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/* '+': options end at PROG, whose own options are its business. */
	while ((c = getopt_long(argc, argv, "+jo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': a->json = true; break;
		case 'o': a->output = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind == argc) {
		cli_error("trace: no program to run");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* The report goes to f (-o FILE, opened before PROG runs, or stdout). */
static int
report(const struct trace *t, const struct trace_args *a, FILE *f,
    char **prog)
{
	const char *name = a->output ? a->output : "standard output";
	int r = 0, e = 0;

	if (a->json)
		r = trace_print_json(f, t, prog);
	else
		trace_print_text(f, t, prog);
	/* A write error (ENOSPC, EIO...) shows when the buffer goes out. */
	if (fflush(f) == EOF || ferror(f))
		e = errno != 0 ? errno : EIO;
	if (f != stdout && fclose(f) == EOF && e == 0)
		e = errno;
	if (e != 0)
		cli_error("%s: cannot write the report: %s", name, strerror(e));
	else if (r != 0)
		cli_error("trace: out of memory");
	return e != 0 || r != 0 ? -1 : 0;
}

int
cmd_trace(int argc, char **argv)
{
	struct trace_args a = { false, NULL };
	struct trace t;
	char path[PATH_MAX], elf[PATH_MAX];
	FILE *f = stdout;
	int rc = 0;

	if (parse_args(argc, argv, &a) != 0)
		return EXIT_TROUBLE;
	/* What `syspin run` would run, or the same refusal. */
	if (run_find_prog(argv[optind], path, sizeof(path)) == -1 ||
	    run_elf(path, elf, sizeof(elf)) == -1)
		return EXIT_TROUBLE;
	if (a.output != NULL && (f = fopen(a.output, "we")) == NULL) {
		cli_error("%s: %s", a.output, strerror(errno));
		return EXIT_TROUBLE;
	}
	memset(&t, 0, sizeof(t));
	/* The report must not mix with the program's own output. */
	fflush(stdout);
	if (trace_run(&t, path, argv + optind) == -1) {
		rc = EXIT_TROUBLE;
		if (f != stdout)
			fclose(f);
	} else if (report(&t, &a, f, argv + optind) == -1)
		rc = EXIT_TROUBLE;
	else if (t.calls == 0) {
		cli_error("trace: no system call was seen: tracing failed");
		rc = EXIT_TROUBLE;
	} else if (t.nmisses > 0)
		rc = EXIT_FINDINGS;
	trace_free(&t);
	return rc;
}
