/* SPDX-License-Identifier: ISC */
/*
 * syspin filter [OPTIONS] (-p PID | [--] PROG [ARG...])
 * syspin filter --groups [@GROUP...]
 *
 * What is enforced: the layout (objects, bases, ranges), the pins per
 * object and the seccomp program, disassembled as libseccomp's
 * scmp_bpf_disasm does.  For PROG, the supervisor's own path builds it
 * at the end of PROG's execve and PROG is killed before its first
 * instruction; for PID, it is built again from the process's mappings
 * now, as the supervisor would build it (the one installed is not
 * exposed).  --export writes the raw program, --json the layout and pins.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pins/cache.h"
#include "supervise/narrow.h"
#include "supervise/supervise.h"

#include "cli.h"
#include "filter.h"
#include "run.h"

static void
usage(FILE *f)
{
	fputs("usage: syspin filter [--strict] [--allow-jit] [--exec=POLICY] "
	    "[--dlopen FILE]...\n"
	    "                     [--deny LIST | --allow LIST] "
	    "[--deny-action=ACTION]\n"
	    "                     [-c DIR] [-j] [--export FILE] [-v] "
	    "[--no-reach]\n"
	    "                     (-p PID | [--] PROG [ARG...])\n"
	    "       syspin filter --groups [@GROUP...]\n\n"
	    "Shows what is enforced on PROG, or on the process PID: the "
	    "layout, the pins\nof each object and the seccomp program, "
	    "disassembled as scmp_bpf_disasm\ndoes.  PROG is started as "
	    "syspin run starts it and killed before its first\n"
	    "instruction.\n\n"
	    "  -p, --pid PID       the program the supervisor would build for "
	    "PID's\n"
	    "                      mappings now\n"
	    "  -j, --json          the layout and pins as JSON\n"
	    "      --export FILE   write the raw program (struct sock_filter "
	    "[]) to FILE\n"
	    "      --groups        list systemd's groups --deny and --allow "
	    "take\n"
	    "  other options as for syspin run\n\n"
	    "Exit status: 0 printed; 2 usage error, or the program could not "
	    "be built.\n", f);
}

static int
parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v <= 0 ||
	    v > INT_MAX) {
		cli_error("filter: -p %s: not a process id", s);
		return -1;
	}
	*pid = (pid_t)v;
	return 0;
}

static int
parse_exec(const char *v, enum sp_exec_policy *e)
{
	if (strcmp(v, "any") == 0)
		*e = SP_EXEC_ANY;
	else if (strcmp(v, "trusted") == 0)
		*e = SP_EXEC_TRUSTED;
	else if (strcmp(v, "none") == 0)
		*e = SP_EXEC_NONE;
	else {
		cli_error("filter: --exec=%s: not any, trusted or none", v);
		return -1;
	}
	return 0;
}

static int
parse(int argc, char **argv, struct filter_args *a)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "export", required_argument, NULL, 'E' },
		{ "groups", no_argument, NULL, 'G' },
		{ "strict", no_argument, NULL, 's' },
		{ "allow-jit", no_argument, NULL, 'J' },
		{ "exec", required_argument, NULL, 'e' },
		{ "dlopen", required_argument, NULL, 'd' },
		{ "cache-dir", required_argument, NULL, 'c' },
		{ "deny", required_argument, NULL, 'D' },
		{ "allow", required_argument, NULL, 'A' },
		{ "deny-action", required_argument, NULL, 'X' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-reach", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sp_error err;
	int c;

	memset(a, 0, sizeof(*a));
	a->narrow.errnum = EPERM;
	while ((c = getopt_long(argc, argv, "+p:jvhc:", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pid(optarg, &a->pid) == -1)
				return -1;
			break;
		case 'j': a->json = true; break;
		case 'E': a->export = optarg; break;
		case 'G': a->groups = true; break;
		case 's': a->flags |= SP_BPF_STRICT; break;
		case 'J': a->flags |= SP_BPF_ALLOW_JIT; break;
		case 'e':
			if (parse_exec(optarg, &a->exec) == -1)
				return -1;
			break;
		case 'd':
			if (a->ndlopen == 16 ||
			    (a->dlopen[a->ndlopen] = realpath(optarg, NULL)) ==
			    NULL) {
				cli_error("filter: --dlopen %s: %s", optarg,
				    a->ndlopen == 16 ? "too many" :
				    strerror(errno));
				return -1;
			}
			a->ndlopen++;
			break;
		case 'c': a->cache_dir = optarg; break;
		case 'D':
		case 'A':
			if (sp_narrow_add(&a->narrow, optarg, c == 'A',
			    &err) == -1) {
				cli_error("filter: %s", err.msg);
				return -1;
			}
			break;
		case 'X':
			if (sp_narrow_action(&a->narrow, optarg, &err) == -1) {
				cli_error("filter: %s", err.msg);
				return -1;
			}
			break;
		case 'v': a->verbose = true; break;
		case 'R': a->no_reach = true; break;
		case 'h': usage(stdout); exit(0);
		default: cli_try("filter"); return -1;
		}
	}
	if (a->flags & SP_BPF_STRICT)
		a->exec = SP_EXEC_NONE;
	a->argc = argc - optind;
	a->argv = argv + optind;
	if (!a->groups && (a->pid != 0) == (a->argc > 0)) {
		cli_error("filter: %s", a->pid != 0 ? "-p PID or PROG, not "
		    "both" : "no PROG (or -p PID)");
		cli_try("filter");
		return -1;
	}
	return 0;
}

/* --groups: every group, or the ones named, with their members. */
static int
groups(const struct filter_args *a)
{
	const char *name, *help, *m;
	size_t i;
	int k, rc = 0;

	if (a->argc == 0) {
		for (i = 0; (name = sp_narrow_group_at(i, &help)) != NULL;
		    i++)
			printf("%s\n    # %s\n    %s\n\n", name, help,
			    sp_narrow_group(name));
		return 0;
	}
	for (k = 0; k < a->argc; k++) {
		if ((m = sp_narrow_group(a->argv[k])) == NULL) {
			cli_error("filter: %s: no such group", a->argv[k]);
			rc = EXIT_TROUBLE;
			continue;
		}
		printf("%s\n", m);
	}
	return rc;
}

static int
open_cache(const struct filter_args *a, struct sp_cache *c)
{
	struct sp_error err;
	char dir[PATH_MAX];

	if (a->cache_dir != NULL)
		snprintf(dir, sizeof(dir), "%s", a->cache_dir);
	else if (sp_cache_default_dir(geteuid(), false, dir,
	    sizeof(dir)) == -1) {
		cli_error("filter: no cache directory: set HOME or "
		    "--cache-dir");
		return -1;
	}
	if (sp_cache_open(c, dir, geteuid(), true, &err) == -1) {
		cli_error("filter: %s", err.msg);
		return -1;
	}
	(void)sp_cache_use_mac(c, &err);
	return 0;
}

int
cmd_filter(int argc, char **argv)
{
	struct filter_args a;
	struct sp_pin_opts o;
	struct sp_pin_result res;
	struct sp_cache c;
	struct sp_error err;
	char path[PATH_MAX];
	int rc = EXIT_TROUBLE, r;

	if (parse(argc, argv, &a) == -1)
		goto out;
	if (a.groups) {
		rc = groups(&a);
		goto out;
	}
	if (a.pid == 0 && run_find_prog(a.argv[0], path, sizeof(path)) < 0)
		goto out;
	if (open_cache(&a, &c) == -1)
		goto out;
	memset(&o, 0, sizeof(o));
	o.cache = &c;
	o.flags = a.flags;
	o.exec = a.exec;
	o.dlopen = a.dlopen;
	o.ndlopen = a.ndlopen;
	o.verbose = a.verbose;
	o.reach = !a.no_reach;	/* as syspin run */
	o.narrow = sp_narrow_bpf(&a.narrow);
	o.narrow_errno = a.narrow.errnum;
	o.narrow_kill = a.narrow.kill;
	o.flags = sp_supervise_flags(&o, sp_confine_available());
	if (a.pid != 0)
		r = sp_pin_rebuild(a.pid, &o, &res, &err);
	else
		r = sp_pin_preview(path, a.argv, &o, &res, &a.pid, &err);
	sp_cache_close(&c);
	if (r == -1) {
		if (a.argc > 0)
			cli_error("%s: %s", a.argv[0], err.msg);
		else
			cli_error("filter: %ld: %s", (long)a.pid, err.msg);
		goto out;
	}
	rc = filter_print(&a, &res);
	sp_pin_result_free(&res);
out:
	for (size_t i = 0; i < a.ndlopen; i++)
		free(a.dlopen[i]);
	sp_narrow_free(&a.narrow);
	return rc;
}
