/* SPDX-License-Identifier: ISC */
/*
 * syspin run with the runtime alone (SYSPIN_SUPERVISE=0, or where ptrace
 * is not allowed): PROG runs with libsyspin-rt.so preloaded, whose
 * constructor installs the filter inside PROG before PROG's code runs
 * (its limits: runtime/rt.c, docs/run.md).  We wait, forward signals, and
 * when a pinned process dies of SIGSYS explain why in one line modelled on
 * OpenBSD's, from the kernel's audit record.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/bpf.h"
#include "layout/diag.h"
#include "layout/layout.h"
#include "layout/placement.h"
#include "layout/report.h"
#include "supervise/supervise.h"

#include "cli.h"
#include "run.h"

static volatile pid_t child;
static volatile int child_fd = -1;	/* signals go on to it (signals.c) */

/* SYSPIN_DLOPEN for the runtime (runtime/rt.c, add_later). */
static int
set_dlopen(const struct run_alone *a)
{
	char *v = NULL, *nv;
	size_t i;

	if (a->ndlopen == 0)
		return 0;
	for (i = 0; i < a->ndlopen; i++) {
		if (asprintf(&nv, "%s%s%s", v ? v : "", v ? ":" : "",
		    a->dlopen[i]) == -1) {
			free(v);
			return -1;
		}
		free(v);
		v = nv;
	}
	setenv("SYSPIN_DLOPEN", v, 1);
	free(v);
	return 0;
}

/* The line for a pinned process killed by SIGSYS; v NULL: no record. */
static const struct run_extra *extra;

static void
explain(const char *comm, pid_t pid, const struct sp_violation *v,
    const char *why, const char *reportdir)
{
	struct sp_layout lo;
	struct sp_placement pl;
	struct sp_error rerr;
	char path[PATH_MAX], line[2048], name[64];
	bool have_report;

	if (v == NULL) {
		cli_error("%s[%ld]: killed by SIGSYS: a system call was not "
		    "pinned (%s)", comm, (long)pid, why);
		return;
	}
	snprintf(path, sizeof(path), "%s/%ld.layout", reportdir, (long)pid);
	have_report = sp_report_read(path, &lo, &pl, &rerr) == 0;
	sp_syscall_name(v->arch, v->nr, name, sizeof(name));
	if (run_extra_denied(extra, v))		/* --deny-action=kill */
		snprintf(line, sizeof(line), "%s[%ld]: %s (code %u) denied by "
		    "%s: killed", comm, (long)pid, name, v->nr,
		    extra->narrow.allow ? "--allow" : "--deny");
	else
		sp_diag_format(line, sizeof(line), comm, pid, v,
		    have_report ? &lo : NULL, have_report ? &pl : NULL, name,
		    NULL);
	cli_error("%s", line);
	run_extra_killed(extra, comm, pid, v, have_report ? &lo : NULL,
	    have_report ? &pl : NULL, line);
	if (have_report) {
		sp_layout_free(&lo);
		sp_placement_free(&pl);
	}
}

/* Opened at the end of the kernel log before the child starts. */
static int kmsg_child = -1;

static void
diagnose(const char *prog, pid_t pid, const char *reportdir)
{
	const char *comm = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	struct sp_violation v;
	struct sp_error err;

	if (sp_kmsg_find(kmsg_child, pid, 500, &v, &err) == -1)
		explain(comm, pid, NULL, err.msg, reportdir);
	else
		explain(comm, pid, &v, NULL, reportdir);
}

/*
 * Pinned descendants killed since the start (root: /dev/kmsg): their
 * parents reaped them, so only the kernel's records tell.  A process of
 * ours is one that left a report.  A shell reports a killed child as 159:
 * then wait a moment for kauditd.
 */
static void
descendants(int kfd, const char *reportdir, int status)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	struct sp_violation v;
	char path[PATH_MAX];
	int waited = 0, seen = 0;

	if (kfd == -1)
		return;
	for (;;) {
		while (sp_kmsg_next(kfd, &v) == 1) {
			snprintf(path, sizeof(path), "%s/%ld.layout",
			    reportdir, v.pid);
			if (v.pid == child || access(path, F_OK) == -1)
				continue;
			explain(v.comm[0] ? v.comm : "?", v.pid, &v, NULL,
			    reportdir);
			seen++;
		}
		if (seen > 0 || status != 128 + SIGSYS || waited >= 500)
			break;
		nanosleep(&ts, NULL);
		waited += 20;
	}
}

static int
wait_child(const char *prog, const char *reportdir, int kfd)
{
	int st, rc;

	while (waitpid(child, &st, 0) == -1)
		if (errno != EINTR) {
			cli_error("run: waitpid: %s", strerror(errno));
			return EXIT_TROUBLE;
		}
	if (WIFEXITED(st))
		rc = WEXITSTATUS(st);
	else {
		if (WTERMSIG(st) == SIGSYS)
			diagnose(prog, child, reportdir);
		rc = 128 + WTERMSIG(st);
	}
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSYS)
		descendants(kfd, reportdir, rc);
	/* and the tree's orphans, ours as the subreaper: the terminal is
	 * given back once the whole tree is done, as under the supervisor
	 * (blind round 22: a daemon of the tree changed it afterwards) */
	while (waitpid(-1, &st, 0) != -1 || errno == EINTR)
		;
	return rc;
}

/* The first process of a runtime-only tree: into the Landlock domain. */
static int
confine_child(void)
{
	struct sp_error err;

	if (sp_confine_session(&err) == -1) {
		cli_error("run: %s", err.msg);
		return -1;
	}
	/* no abstract unix socket outside the tree (a datagram to a
	 * listener outside needs no connect), where the kernel can */
	if (sp_confine(SP_SCOPE_SOCKETS_IF, &err) >= 0 ||
	    (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	    sp_confine(SP_SCOPE_SOCKETS_IF, &err) >= 0))
		return 0;
	cli_error("run: %s", err.msg);
	return -1;
}

/*
 * What runs before the runtime's constructor (ld.so, IFUNC resolvers) is
 * not pinned; it must not reach the cache's key either: the key signs the
 * tables that later supervised runs believe (blind round 19: an IFUNC
 * resolver got KEYCTL_GET_PERSISTENT, which every pinned process is
 * denied), nor give its session keyring to its parent, outside the tree
 * (KEYCTL_SESSION_TO_PARENT: blind round 21).  Nor may an image exec'd
 * without the runtime, which has no filter of its own, type into the
 * terminal or connect outside (blind round 25).  One filter, before the
 * exec, holds the rules of every call that keep the outside safe for all
 * of the tree's code, in every ABI (sp_bpf_everywhere).
 */
static int
tree_filter(void)
{
	struct sp_bpf_prog p;
	struct sp_error err;
	struct sock_fprog f;
	int r;

	if (sp_bpf_everywhere(&p, &err) == -1) {
		errno = ENOMEM;
		return -1;
	}
	f = (struct sock_fprog){ (unsigned short)p.len, p.insns };
	r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &f);
	free(p.insns);
	return r;
}

int
run_alone(const struct run_alone *a)
{
	bool landlock = sp_confine_available();
	char flags[16] = "", self[PATH_MAX], *pre;
	const char *old = getenv("LD_PRELOAD");
	size_t n = 0;
	ssize_t len;
	int kfd, rc;

	extra = a->x;
	if (a->strict)
		flags[n++] = 's';
	if (a->exec_none)
		flags[n++] = 'x';
	if (!landlock)
		flags[n++] = 'p';
	if (a->allow_jit)
		flags[n++] = 'j';
	if (a->audit)
		flags[n++] = 'a';
	if ((len = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[len] = '\0';
		setenv("SYSPIN_BIN", self, 1);
	}
	if (asprintf(&pre, "%s%s%s", a->rt, old ? ":" : "", old ? old : "") ==
	    -1)
		return EXIT_TROUBLE;
	setenv("LD_PRELOAD", pre, 1);
	setenv("SYSPIN_CACHE_DIR", a->cache_dir, 1);
	setenv("SYSPIN_REPORT_DIR", a->reportdir, 1);
	setenv("SYSPIN_FLAGS", flags, 1);
	if (a->verbose)
		setenv("SYSPIN_VERBOSE", "1", 1);
	if (set_dlopen(a) == -1 || run_extra_env(a->x) == -1)
		return EXIT_TROUBLE;
	if (run_is_static(a->path)) {
		cli_error("%s: statically linked: pinning it needs ptrace",
		    a->path);
		return EXIT_TROUBLE;
	}
	/* An auditor runs before the runtime's constructor, unpinned. */
	if (run_audited(a->path) == -1)
		return EXIT_TROUBLE;
	sp_forward_signals(&child_fd);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	kfd = sp_kmsg_open_end();
	kmsg_child = sp_kmsg_open_end();
	if ((child = fork()) == -1) {
		cli_error("run: fork: %s", strerror(errno));
		return EXIT_TROUBLE;
	}
	if (child == 0) {
		if ((landlock && confine_child() == -1) ||
		    ((!landlock && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) ||
		    tree_filter() == -1)) {
			cli_error("run: the tree's first filter: %s",
			    strerror(errno));
			_exit(126);
		}
		execv(a->path, a->argv);
		cli_error("%s: %s", a->path, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_fd = (int)syscall(SYS_pidfd_open, child, 0);
	/* The tree cannot reach us anyway where it is in a Landlock domain;
	 * elsewhere this keeps same-uid processes out of our memory. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	rc = wait_child(a->argv[0], a->reportdir, kfd);
	if (kfd != -1)
		close(kfd);
	if (kmsg_child != -1)
		close(kmsg_child);
	return rc;
}
