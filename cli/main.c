/* SPDX-License-Identifier: ISC */
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "util/error.h"

#include "layout/procfs.h"

#include "cli.h"

static const struct cli_cmd subcommands[] = {
	{ "scan", cmd_scan, "find syscall sites and their numbers in ELF files" },
	{ "run", cmd_run, "run a program with its syscalls pinned" },
	{ "embed", cmd_embed, "write a copy of a binary with its pin table embedded" },
	{ "trace", cmd_trace, "run a program and check its syscalls against the tables" },
	{ "filter", cmd_filter, "show the layout, pins and seccomp program enforced" },
	{ "cache", cmd_cache, "fill, list, verify or clear the pin-table cache" },
};

static void
say(const char *fmt, va_list ap)
{
	char line[4096];

	vsnprintf(line, sizeof(line), fmt, ap);
	sp_error_printable(line);	/* names are anyone's bytes */
	fprintf(stderr, "syspin: %s\n", line);
}

void
cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

bool cli_quiet;

void
cli_notice(const char *fmt, ...)
{
	va_list ap;

	if (cli_quiet)
		return;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void
cli_try(const char *cmd)
{
	fprintf(stderr, "try 'syspin %s%s--help'\n", cmd, cmd[0] != '\0' ?
	    " " : "");
}

int
cli_not_in_pinned_tree(const char *cmd)
{
	unsigned long long tracer = 0, mode = 0;

	if (sp_proc_status(getpid(), "TracerPid", 10, &tracer) == -1 ||
	    sp_proc_status(getpid(), "Seccomp", 10, &mode) == -1 ||
	    tracer == 0 || mode != 2)
		return 0;
	cli_error("%s: inside a pinned tree (traced by process %llu, under "
	    "seccomp filters): a tree may not supervise, trace or read the "
	    "cache's key; run the program directly, the tree's supervisor "
	    "pins it", cmd, tracer);
	return -1;
}

static void
usage(FILE *f)
{
	fputs("usage: syspin COMMAND [OPTIONS] [ARGS]\n"
	    "       syspin -V | --version\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(*subcommands); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name,
		    subcommands[i].summary);
	fputs("\n'syspin help COMMAND' (or 'syspin COMMAND --help') describes a "
	    "command; "
	    "see also syspin(1).\n", f);
}

/*
 * The analysis of a libc-sized object touches some 20 MB of fresh heap
 * (data-flow states): in 4 KiB pages, 5,800 page faults, a third of the
 * scan's CPU time on the development VM.  So the heap grows in large steps,
 * keeps big blocks (no mmap per block), and its first 64 MiB may use
 * transparent huge pages (THP "madvise" mode): about 300 faults.
 */
static void
heap_setup(void)
{
	const uintptr_t huge = 2u << 20, span = 64u << 20;
	uintptr_t lo, hi;
	void *p;

	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_TOP_PAD, (int)span);
	lo = (uintptr_t)sbrk(0);
	if ((p = malloc(1)) == NULL)
		return;
	hi = (uintptr_t)sbrk(0);
	free(p);
	lo = (lo + huge - 1) & ~(huge - 1);
	if (hi > lo)
		(void)madvise((void *)lo, (hi - lo) & ~(huge - 1),
		    MADV_HUGEPAGE);
}

int
cli_dispatch(int argc, char **argv, const struct cli_cmd *cmds,
    size_t ncmds, const char *prefix, void (*usage)(FILE *))
{
	const char *sub = strncmp(prefix, "syspin: ", 8) == 0 ? prefix + 8 :
	    "";
	char name[48], list[256] = "";

	if (argc < 2) {
		for (size_t i = 0; i < ncmds; i++)
			snprintf(list + strlen(list), sizeof(list) -
			    strlen(list), "%s%s", i > 0 ? ", " : "",
			    cmds[i].name);
		cli_error("%s%sno command (%s)", sub, sub[0] ? ": " : "",
		    list);
		cli_try(sub);
		return EXIT_TROUBLE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	/* `syspin help [COMMAND]`: what `syspin COMMAND --help` says */
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3) {
			usage(stdout);
			return 0;
		}
		for (size_t i = 0; i < ncmds; i++)
			if (strcmp(argv[2], cmds[i].name) == 0) {
				char *hv[] = { argv[0], argv[2], "--help",
					NULL };
				return cli_dispatch(3, hv, cmds, ncmds, prefix,
				    usage);
			}
		cli_error("%s%shelp: unknown command '%s'", sub,
		    sub[0] ? " " : "", argv[2]);
		cli_try(sub);
		return EXIT_TROUBLE;
	}
	for (size_t i = 0; i < ncmds; i++)
		if (strcmp(argv[1], cmds[i].name) == 0) {
			/* getopt names argv[0] in its complaints: "syspin:
			 * run: unrecognized option '--bogus'". */
			snprintf(name, sizeof(name), "%s %s", prefix,
			    cmds[i].name);
			argv[1] = name;
			return cmds[i].fn(argc - 1, argv + 1);
		}
	return -1;
}

int
main(int argc, char **argv)
{
	int rc;

	/* syspin run -p: the process it attaches to is there already and
	 * may be of our user: not dumpable from our first instruction of
	 * our own, so that it cannot open our memory while we start (blind
	 * round 24: it wrote into syspin run -p before the attach).  A run
	 * that starts its tree makes itself dumpable again (its child must
	 * be, to be traced) until the child is traced (cmd_run, tree.c). */
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	heap_setup();
	if (argc >= 2 && (strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "--version") == 0)) {
		puts("syspin " SYSPIN_VERSION);
		return 0;
	}
	if ((rc = cli_dispatch(argc, argv, subcommands, sizeof(subcommands) /
	    sizeof(*subcommands), "syspin:", usage)) != -1)
		return rc;
	cli_error("unknown command '%s'", argv[1]);
	cli_try("");
	return EXIT_TROUBLE;
}
