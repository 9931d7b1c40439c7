/* SPDX-License-Identifier: ISC */
/*
 * The syspin command: one file per subcommand.  Exit status, for every
 * subcommand: 0 success, 1 the check failed or findings (documented per
 * command), 2 usage error or unreadable/invalid input.
 */
#ifndef SYSPIN_CLI_H
#define SYSPIN_CLI_H

#include <stdbool.h>
#include <stdio.h>

#define EXIT_FINDINGS 1
#define EXIT_TROUBLE 2

/* Each subcommand: argv[0] is the subcommand's name. */
int cmd_scan(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_embed(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_cache(int argc, char **argv);

/* After a usage error's one line: "try 'syspin CMD --help'" (CMD ""
 * for syspin itself), on stderr. */
void cli_try(const char *cmd);

/* "syspin: " + printf, on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same for what is said but not wrong (a weaker mode, a cache kept in
 * memory): nothing with -q. */
extern bool cli_quiet;
void cli_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * 0, or -1 after saying so when this process runs inside a pinned tree
 * (traced, and under seccomp filters: syspin run's supervisor and the
 * image's pins): what cmd would do there (supervise, read the cache's
 * key) the tree is refused, and a weaker run would say nothing of why.
 */
int cli_not_in_pinned_tree(const char *cmd);

/* A command with subcommands (syspin, syspin cache). */
struct cli_cmd {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
};

/*
 * Runs the subcommand argv[1] names, with argv[0] "PREFIX NAME" so that
 * getopt's complaints say where they come from; no argument: usage on
 * stderr, status 2; --help, -h: usage on stdout, 0.  -1 when argv[1] is
 * something else: the caller says what is wrong.
 */
int cli_dispatch(int argc, char **argv, const struct cli_cmd *cmds,
    size_t ncmds, const char *prefix, void (*usage)(FILE *));

#endif
