/* SPDX-License-Identifier: ISC */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct subcommand {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{ "scan", cmd_scan, "find syscall sites and their numbers in ELF files" },
	{ "run", cmd_run, "run a program with its syscalls pinned" },
	{ "embed", cmd_embed, "write a copy of a binary with its pin table embedded" },
	{ "trace", cmd_trace, "run a program and check its syscalls against the tables" },
};

void
cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("syspin: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
usage(FILE *f)
{
	fputs("usage: syspin COMMAND [OPTIONS] [ARGS]\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(*subcommands); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name,
		    subcommands[i].summary);
	fputs("\n'syspin COMMAND --help' describes a command; "
	    "see also syspin(1).\n", f);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_TROUBLE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		puts("syspin " SYSPIN_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(*subcommands); i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].fn(argc - 1, argv + 1);
	cli_error("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_TROUBLE;
}
