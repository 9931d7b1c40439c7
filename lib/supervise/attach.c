/* SPDX-License-Identifier: ISC */
/*
 * syspin run -p PID: a process that already runs is pinned, then
 * supervised as `syspin run` supervises its own tree (later code placed
 * in the band, execs pinned, forks followed).  Every thread is seized
 * (PTRACE_SEIZE, with the tree's options: EXITKILL among them, so that
 * the process fails closed when the supervisor is killed) and stopped
 * (PTRACE_INTERRUPT) while its program is made from its mappings and
 * installed with TSYNC (pin_attach.c); threads made meanwhile are
 * seized by the kernel (TRACECLONE) and stopped too.  A call a thread
 * was blocked in restarts when it goes on.
 *
 * Refused, with the process left as it was: one we may not trace
 * (another user's, Yama, already traced), one with seccomp filters of
 * its own (they would judge before the pins and answer for them), a
 * 32-bit or foreign one.  Each thread enters the tree's Landlock domain
 * (where the kernel has Landlock; else its filter denies ptrace,
 * process_vm_* and pidfd_getfd: SP_BPF_NO_PTRACE).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <linux/kcmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/bpf.h"
#include "layout/procfs.h"

#include "supervise_int.h"

#include "attach_int.h"

/* Each process's program installed (pin_attach.c); -1 with err, the
 * first that failed in *failed. */
static int
pin_tree(struct attached *v, size_t n, const struct sp_pin_opts *o,
    unsigned scope, size_t *failed, struct sp_error *err)
{
	*failed = 0;
	/* A process whose parent is outside signals it when it ends (its
	 * exit signal, clone's choice): one that dumps core is refused, as
	 * F_SETSIG of one is in a tree; under --scope=signals any but
	 * SIGCHLD (blind round 24).  Before any is pinned. */
	for (size_t i = 0; i < n; i++) {
		struct sp_proc_stat st = { .exit_signal = SIGCHLD };
		if (v[i].parent == 0 && sp_proc_stat(v[i].pid, &st) == -1)
			st.exit_signal = -1;
		int es = st.exit_signal;
		if (es == -1 || sp_bpf_dumps_core(es) ||
		    ((scope & SP_SCOPE_SIGNALS) && es != SIGCHLD && es != 0))
			return sp_error_set(err, "process %ld signals %d to its "
			    "parent, outside, when it ends (its exit signal)%s",
			    (long)v[i].pid, es, es == -1 ? ": cannot be read" :
			    "");
	}
	for (size_t i = 0; i < n; i++) {
		const struct seized *z = &v[i].z;
		*failed = i;
		if ((v[i].img = calloc(1, sizeof(*v[i].img))) == NULL)
			return sp_error_set(err, "out of memory");
		v[i].img->refs = 1;
		v[i].img->exe = sp_sup_exe_of(v[i].pid);
		if (sp_pin_attach(sp_attach_has(z, v[i].pid) ? v[i].pid : z->tid[0],
		    z->tid, z->n, scope, o, &v[i].img->pin, err) == -1)
			return -1;
	}
	return 0;
}

/* What the supervisor knows of a pinned process: its threads, image,
 * space and chain.  -1 out of memory. */
static int
adopt(struct sup *s, struct attached *a)
{
	struct chain *chain;
	struct space *sp;

	if ((sp = sp_space_new(0)) == NULL)
		return -1;
	if ((chain = sp_chain_push(NULL, a->img)) == NULL) {
		sp_space_drop(sp);
		return -1;
	}
	for (size_t t = 0; t < a->z.n; t++) {
		struct proc *p = sp_sup_proc(s, a->z.tid[t], true);
		if (p == NULL)
			return -1;
		p->tgid = a->pid;
		p->inherited = true;
		p->filters_known = a->img->pin.filters;
	}
	sp_sup_pinned(s, a->pid, a->img, sp, chain, false);
	a->img = NULL;		/* the supervisor's now */
	return 0;
}

int
sp_supervise_attach(const struct sp_supervise_opts *o, const pid_t *pids,
    size_t npids, struct sp_error *err)
{
	pid_t pid = pids[0];
	struct sp_supervise_opts opts = *o;
	struct attached *v;
	struct timespec t0, t1;
	struct sup s;
	size_t n = 0, failed = 0, threads = 0;
	char why[96];
	const char *no;
	int status, r;

	if (npids == 0 || npids > MAX_PROCS)
		return sp_error_set(err, "-p: from 1 to %d processes",
		    MAX_PROCS);
	for (size_t i = 0; i < npids; i++)
		if ((no = sp_attach_refusal(pids[i], why, sizeof(why))) != NULL)
			return sp_error_set(err, "%ld: %s", (long)pids[i], no);
	if ((v = calloc(MAX_PROCS, sizeof(*v))) == NULL)
		return sp_error_set(err, "out of memory");
	memset(&s, 0, sizeof(s));
	s.o = &opts;
	s.landlock = sp_confine_available();	/* each thread enters it */
	opts.pin.flags = sp_supervise_flags(&opts.pin, s.landlock);
	/* what --exec=trusted finds older than the processes is trusted
	 * (round 23: the start was never set, and the attach's own would
	 * trust what they wrote before it) */
	sp_attach_trust_start(pids, npids, &opts.pin.start);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = sp_attach_seize(pids, npids, &opts.pin, v, &n, err);
	if (r == -1 ||
	    sp_attach_arm(v, n, err) == -1 || pin_tree(v, n, &opts.pin, opts.scope | SP_SCOPE_SOCKETS_IF,
	    &failed, err) == -1) {
		struct sp_error e = *err;
		if (failed > 0) {
			/* pinned and unsupervised, they must not run so */
			for (size_t i = 0; i < n; i++)
				kill(v[i].pid, SIGKILL);
			sp_attach_let_go(v, n);
			free(v);
			return sp_error_set(err, "%ld: %s (killed: %zu of its "
			    "processes were pinned already)", (long)pid, e.msg,
			    failed);
		}
		bool changed = n > 0 && v[0].img != NULL &&
		    v[0].img->pin.changed;
		sp_attach_let_go(v, n);
		free(v);
		return sp_error_set(err, "%ld: %s (%s)", (long)pid, e.msg,
		    changed ? "left in the tree's Landlock domain, perhaps with "
		    "the band reserved, but not pinned nor supervised" :
		    "left as it was");
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	s.main = pid;
	s.main_pinned = true;
	for (size_t i = 0; i < n; i++)
		if (adopt(&s, &v[i]) == -1) {
			for (size_t k = 0; k < n; k++)
				kill(v[k].pid, SIGKILL);
			sp_attach_let_go(v, n);
			free(v);
			sp_sup_free(&s);
			return sp_error_set(err, "%ld: out of memory (killed)",
			    (long)pid);
		}
	/* On; a process that was stopped (^Z) stopped again, now as a
	 * process of the tree is (blind round 22: it ran again once
	 * attached). */
	for (size_t i = 0; i < n; i++) {
		bool stopped = false;
		for (size_t t = 0; t < v[i].z.n; t++, threads++) {
			stopped |= v[i].z.stopped[t];
			ptrace(PTRACE_CONT, v[i].z.tid[t], 0, 0);
		}
		if (stopped)
			kill(v[i].pid, SIGSTOP);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (opts.pin.verbose)
		fprintf(stderr, "syspin: %ld: pinned, %zu processes and %zu "
		    "threads stopped for %.1f ms; supervised until they "
		    "end\n", (long)pid, n, threads,
		    (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	free(v);
	status = sp_sup_loop(&s);
	sp_sup_free(&s);
	return status < 0 ? 127 : status;
}
