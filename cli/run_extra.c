/* SPDX-License-Identifier: ISC */
/*
 * syspin run's options for operators: -o FILE / --log-fd N (JSON records
 * of violations and refusals, docs/run-log.md) and --deny / --allow /
 * --deny-action (narrowing in the same filter, lib/supervise/narrow.c);
 * and the values of --exec and --scope.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "layout/diag.h"
#include "layout/report.h"
#include "supervise/supervise.h"
#include "layout/placement.h"

#include "cli.h"
#include "run.h"

int
run_parse_exec(const char *v, int *exec)
{
	if (strcmp(v, "any") == 0)
		*exec = SP_EXEC_ANY;
	else if (strcmp(v, "trusted") == 0)
		*exec = SP_EXEC_TRUSTED;
	else if (strcmp(v, "none") == 0)
		*exec = SP_EXEC_NONE;
	else {
		cli_error("run: --exec=%s: not any, trusted or none", v);
		return -1;
	}
	return 0;
}

int
run_parse_pids(const char *v, pid_t *pids, size_t *n, size_t max)
{
	const char *p = v;
	char *end;
	long id;

	do {
		errno = 0;
		id = strtol(p, &end, 10);
		if (errno != 0 || end == p || (*end != '\0' && *end != ',') ||
		    id <= 0 || id > 4194304) {
			cli_error("run: -p %s: not a process id, or a list of "
			    "them (PID,PID...)", v);
			return -1;
		}
		if (*n == max) {
			cli_error("run: -p: at most %zu processes", max);
			return -1;
		}
		pids[(*n)++] = (pid_t)id;
		p = end + 1;
	} while (*end == ',');
	return 0;
}

int
run_parse_scope(const char *v, unsigned *scope)
{
	char *copy, *w, *save = NULL;
	int r = 0;

	if ((copy = strdup(v)) == NULL)
		return -1;
	for (w = strtok_r(copy, ",", &save); w != NULL && r == 0;
	    w = strtok_r(NULL, ",", &save)) {
		if (strcmp(w, "signals") == 0)
			*scope |= SP_SCOPE_SIGNALS;
		else if (strcmp(w, "sockets") == 0)
			*scope |= SP_SCOPE_SOCKETS;
		else
			r = -1;
	}
	if (r == -1)
		cli_error("run: --scope=%s: a list of signals, sockets", v);
	free(copy);
	return r;
}

void
run_extra_init(struct run_extra *x)
{
	memset(x, 0, sizeof(*x));
	x->log_fd = -1;
	x->narrow.errnum = EPERM;
}

static int
log_fd(struct run_extra *x, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || errno != 0 || v < 0 ||
	    v > INT_MAX) {
		cli_error("run: --log-fd %s: not a file descriptor", arg);
		return -1;
	}
	if (fcntl((int)v, F_GETFD) == -1) {
		cli_error("run: --log-fd %s: %s", arg, strerror(errno));
		return -1;
	}
	if (v <= 2) {
		cli_error("run: --log-fd %s: the program's own standard "
		    "streams cannot be the log", arg);
		return -1;
	}
	x->log_fd = (int)v;
	return 0;
}

int
run_extra_opt(struct run_extra *x, int c, const char *arg)
{
	struct sp_error err;
	char **v;

	switch (c) {
	case 'o':
		x->log_file = arg;
		return 0;
	case 1000:
		return log_fd(x, arg);
	case 1001:
	case 1002:
		if (sp_narrow_add(&x->narrow, arg, c == 1002, &err) == 0)
			return 0;
		break;
	case 1003:
		x->action_given = true;
		if (sp_narrow_action(&x->narrow, arg, &err) == 0)
			return 0;
		break;
	case 1004:
		x->unsafe_install = true;
		return 0;
	case 1006:
		x->require_supervisor = true;
		return 0;
	case 1005:	/* a path as its listener bound it, or @name */
		if (arg[0] == '\0' || strlen(arg) > 108) {
			cli_error("run: --allow-socket %s: not a unix socket's "
			    "name (a path, or @name)", arg);
			return -1;
		}
		v = realloc(x->allow_sockets, (x->nallow_sockets + 1) *
		    sizeof(*x->allow_sockets));
		if (v == NULL)
			return -1;
		x->allow_sockets = v;
		x->allow_sockets[x->nallow_sockets++] = (char *)arg;
		return 0;
	default:
		return -1;
	}
	cli_error("run: %s", err.msg);
	return -1;
}

int
run_extra_open(struct run_extra *x)
{
	if (x->log_file != NULL && x->log_fd != -1) {
		cli_error("run: -o and --log-fd: give one or the other");
		return -1;
	}
	if (x->log_file != NULL && (x->log_fd = open(x->log_file, O_WRONLY |
	    O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) == -1) {
		cli_error("%s: %s", x->log_file, strerror(errno));
		return -1;
	}
	/* The program must not write records of its own. */
	if (x->log_fd != -1 && fcntl(x->log_fd, F_SETFD, FD_CLOEXEC) == -1) {
		cli_error("run: --log-fd %d: %s", x->log_fd, strerror(errno));
		return -1;
	}
	return 0;
}

int
run_extra_env(const struct run_extra *x)
{
	char *buf;
	size_t size = 16 + 12 * x->narrow.n;

	if (!x->narrow.given)
		return 0;
	if ((buf = malloc(size)) == NULL ||
	    sp_narrow_env(&x->narrow, buf, size) == -1) {
		free(buf);
		return -1;
	}
	setenv("SYSPIN_NARROW", buf, 1);
	free(buf);
	return 0;
}

void
run_extra_killed(const struct run_extra *x, const char *comm, long pid,
    const struct sp_violation *v, const struct sp_layout *lo,
    const struct sp_placement *pl, const char *line)
{
	struct sp_event ev;
	char name[64];

	if (x->log_fd < 0 || v == NULL)
		return;
	memset(&ev, 0, sizeof(ev));
	clock_gettime(CLOCK_REALTIME, &ev.time);
	ev.pid = ev.tid = pid;
	ev.comm = comm;
	ev.arch = v->arch;
	ev.nr = v->nr;
	ev.ip = v->ip;
	ev.name = sp_syscall_name(v->arch, v->nr, name, sizeof(name));
	ev.verdict = SP_VERDICT_KILLED;
	ev.rule = run_extra_denied(x, v) ? "deny-list" : "pin";
	ev.lo = lo;
	ev.pl = pl;
	ev.line = line;
	(void)sp_event_log(x->log_fd, &ev);
}

bool
run_extra_denied(const struct run_extra *x, const struct sp_violation *v)
{
	struct sp_bpf_narrow n = sp_narrow_bpf(&x->narrow);
	uint32_t arg0;

	return x->narrow.kill && v->arch == SP_AUDIT_ARCH_X86_64 &&
	    sp_bpf_narrow_denies(&n, v->nr) &&
	    sp_bpf_narrow_exempt(v->nr, &arg0) != SP_NARROW_NEVER;
}

void
run_extra_free(struct run_extra *x)
{
	sp_narrow_free(&x->narrow);
	free(x->allow_sockets);
	x->allow_sockets = NULL;
	if (x->log_file != NULL && x->log_fd != -1)
		close(x->log_fd);
	x->log_fd = -1;
}
