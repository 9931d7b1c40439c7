/* SPDX-License-Identifier: ISC */
/*
 * Violation stops.  The filter's action is SECCOMP_RET_TRACE, so a call
 * that is not pinned stops its thread before it runs, and we see the
 * number, the arch and the address from the kernel itself (no kernel log,
 * no root, no rate limit).  We print the OpenBSD-style line with the
 * layout the process was pinned with (its report), then:
 * - enforcing: rewrite the number to SP_GUARD_KILL_NR and resume.  The
 *   kernel runs the filters again, the guard answers KILL_PROCESS: the
 *   process dies of SIGSYS (core, status 159) and the call never runs.
 *   If we die first, PTRACE_O_EXITKILL kills it.
 * - --audit: report each (program, number, site) once and let it run.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include <syspin/diag.h>

#include "supervise_int.h"

const char *
sp_syscall_name(uint32_t arch, uint32_t nr, char *buf, size_t size)
{
	char *n = seccomp_syscall_resolve_num_arch(arch ==
	    SP_AUDIT_ARCH_I386 ? SCMP_ARCH_X86 : SCMP_ARCH_X86_64, nr);

	snprintf(buf, size, "%s%s", arch == SP_AUDIT_ARCH_I386 ? "i386 " : "",
	    n != NULL ? n : "?");
	free(n);
	return buf;
}

static int
get_info(pid_t pid, struct __ptrace_syscall_info *si, struct sp_violation *v)
{
	memset(v, 0, sizeof(*v));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(*si), si) <= 0 ||
	    si->op != PTRACE_SYSCALL_INFO_SECCOMP)
		return -1;
	v->have = true;
	v->arch = si->arch;
	v->nr = (uint32_t)si->seccomp.nr;
	v->ip = si->instruction_pointer;
	v->pid = pid;
	return 0;
}

/*
 * Whose stop this is, by its filter's data (the number of filters below
 * it; on a tie the kernel reports the newest filter's):
 * - the image's own smaller filter (fallback.c): its whole program
 *   decides, evaluated here;
 * - the process's filter that stops every call of later images (a smaller
 *   filter of an earlier image, or the one-instruction all-TRACE filter),
 *   every newer filter having allowed the call: the image's own filter in
 *   the kernel if it has one (it passed), else its whole program (or,
 *   until it is pinned, its predecessor's), evaluated here;
 * - an earlier image's filter, while this image has its own in the kernel
 *   (which passed the call, being newer): that filter speaks for mappings
 *   that are gone, e.g. a non-PIE image exec'd where another was;
 * - otherwise the image's own filter: a violation.
 * Returns the action the call gets;
 * *checked: the whole program was evaluated here.
 */
static uint32_t
verdict(struct sup *s, pid_t pid, const struct __ptrace_syscall_info *si,
    bool *checked)
{
	struct proc *p = sup_proc(s, pid, false);
	long data = (long)si->seccomp.ret_data;

	*checked = false;
	if (p == NULL)
		return SECCOMP_RET_TRACE;
	*checked = p->chk != NULL && data == p->chk->data;
	if (!*checked && p->trace_all >= 0 && data == p->trace_all) {
		if (p->kpinned)
			return SECCOMP_RET_ALLOW;
		*checked = p->chk != NULL;
	}
	if (*checked)
		return sp_bpf_eval_all(p->chk->progs, p->chk->nprogs,
		    (uint32_t)si->seccomp.nr, si->arch,
		    si->instruction_pointer, si->seccomp.args);
	if (p->kpinned && p->filters0 > 0 && data < p->filters0)
		return SECCOMP_RET_ALLOW;
	return SECCOMP_RET_TRACE;
}

/* A checked program's SECCOMP_RET_ERRNO: skip the call, return -errno. */
static int
fail_call(pid_t pid, uint32_t action)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r) == -1)
		return -1;
	r.orig_rax = (uint64_t)-1;
	r.rax = (uint64_t)-(long)(action & SECCOMP_RET_DATA);
	return ptrace(PTRACE_SETREGS, pid, 0, &r) == -1 ? -1 : 0;
}

static void
read_link(pid_t pid, const char *what, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, what);
	if ((n = readlink(path, buf, size - 1)) < 0)
		n = snprintf(buf, size, "?");
	buf[n] = '\0';
}

/* "object+0xoff" of addr in lo, or the raw address. */
static void
site_of(const struct sp_layout *lo, uint64_t addr, char *buf, size_t size)
{
	long r = lo != NULL ? sp_layout_find(lo, addr) : -1;
	const struct sp_object *o;

	if (r == -1) {
		snprintf(buf, size, "0x%" PRIx64, addr);
		return;
	}
	o = &lo->objs[lo->ranges[r].obj];
	snprintf(buf, size, "%s+0x%" PRIx64, o->name, addr - o->base);
}

/* Audit: true the first time (program, number, site) is seen. */
static bool
first_time(struct sup *s, const char *key)
{
	struct seen *nv;
	size_t i;

	for (i = 0; i < s->nseen; i++)
		if (strcmp(s->seen[i].key, key) == 0)
			return false;
	if (s->nseen == s->capseen) {
		s->capseen = s->capseen ? 2 * s->capseen : 32;
		if ((nv = realloc(s->seen, s->capseen * sizeof(*nv))) == NULL)
			return true;
		s->seen = nv;
	}
	if ((s->seen[s->nseen].key = strdup(key)) != NULL)
		s->nseen++;
	return true;
}

/*
 * Our TRACE data is the number of filters below the one that stopped the
 * call: below those of the current image (counted at its exec), it is an
 * ancestor's (the runtime and pin.c both put it there).
 */
static bool
inherited_filter(struct sup *s, pid_t pid, long data)
{
	struct proc *p = sup_proc(s, pid, false);

	return p != NULL && p->filters0 > 0 && data < p->filters0;
}

/* The process of thread tid: reports are per process. */
static long
tgid_of(pid_t tid)
{
	unsigned long long tgid;

	return sp_proc_status(tid, "Tgid", 10, &tgid) == 0 ? (long)tgid :
	    (long)tid;
}

/* The report of pid's process, read once per violation. */
struct report {
	bool have;
	struct sp_layout lo;
	struct sp_placement pl;
};

static void
report_read(const struct sup *s, pid_t pid, struct report *r)
{
	struct sp_error err;
	char path[4200];

	r->have = false;
	if (s->o->pin.reportdir == NULL)
		return;
	sp_report_path(s->o->pin.reportdir, tgid_of(pid), path, sizeof(path));
	r->have = sp_report_read(path, &r->lo, &r->pl, &err) == 0;
}

static void
report_free(struct report *r)
{
	if (r->have) {
		sp_layout_free(&r->lo);
		sp_placement_free(&r->pl);
	}
}

static void
explain(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct report *r, long data, bool checked)
{
	char comm[64], exe[4096], name[64], line[2048];
	char site[4400], key[8600];
	struct user_regs_struct regs;

	sup_comm(pid, comm, sizeof(comm));
	sp_syscall_name(v->arch, v->nr, name, sizeof(name));
	sp_diag_format(line, sizeof(line), comm, pid, v,
	    r->have ? &r->lo : NULL, r->have ? &r->pl : NULL, name);
	if (checked)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
		    " [checked by the supervisor: no room for the whole filter]");
	else if (inherited_filter(s, pid, data))
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
		    " [refused by a filter of an earlier image of this "
		    "process or an ancestor: a non-PIE image where that one "
		    "was?]");
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) == -1 && errno == ESRCH)
		;	/* killed meanwhile: the call never runs */
	else if (!s->o->audit)
		fprintf(stderr, "syspin: %s\n", line);
	else {
		read_link(pid, "exe", exe, sizeof(exe));
		site_of(r->have ? &r->lo : NULL, v->ip - 2, site, sizeof(site));
		snprintf(key, sizeof(key), "%s %" PRIu32 " %s %s", exe,
		    v->nr, v->arch == SP_AUDIT_ARCH_I386 ? "i386" : "", site);
		if (first_time(s, key))
			fprintf(stderr, "syspin: audit: %s (program %s)\n",
			    line, exe);
	}
}

/* The kernel re-runs the filters on the new number: the guard kills. */
static int
doom(struct sup *s, pid_t pid)
{
	struct user_regs_struct r;
	struct proc *p = sup_proc(s, pid, true);

	if (p != NULL)
		p->doomed = true;
	if (ptrace(PTRACE_GETREGS, pid, 0, &r) == -1)
		goto hard;
	r.orig_rax = SP_GUARD_KILL_NR;
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) == -1)
		goto hard;
	return 0;
hard:
	kill(pid, SIGKILL);
	return -1;
}

/*
 * A call the memory rules refuse (lib/bpf/policy.c: new executable
 * memory without --allow-jit, exec with --strict) fails with EACCES, as it
 * would without us; we only say why, once per process: a JIT compiler
 * (V8, a JVM, valgrind) otherwise dies far from the cause.
 */
static int
refuse_memory(struct sup *s, pid_t pid, const struct sp_violation *v)
{
	char comm[64], name[64], key[64];
	long tgid = tgid_of(pid);
	bool exec;

	snprintf(key, sizeof(key), "refused %ld", tgid);
	if (first_time(s, key)) {
		sup_comm(pid, comm, sizeof(comm));
		sp_syscall_name(v->arch, v->nr, name, sizeof(name));
		exec = strstr(name, "exec") != NULL;
		fprintf(stderr, "syspin: %s[%ld]: %s%s refused: %s\n",
		    comm, tgid, name, exec ? "" :
		    strstr(name, "shmat") ? " with SHM_EXEC" :
		    strstr(name, "personality") ? " with READ_IMPLIES_EXEC" :
		    " with PROT_EXEC", exec ? "syspin run --strict allows no "
		    "exec" : "the program makes executable memory at run time "
		    "(a JIT compiler?); syspin run --allow-jit allows it");
	}
	return fail_call(pid, SECCOMP_RET_ERRNO | EACCES) == -1 ?
	    doom(s, pid) : 0;
}

int
sup_on_violation(struct sup *s, pid_t pid)
{
	struct __ptrace_syscall_info si;
	struct user_regs_struct regs;
	struct report rep;
	struct sp_violation v;
	bool checked = false;
	int later;
	struct proc *p = sup_proc(s, pid, false);
	uint32_t action;

	if (p != NULL && p->doomed) {
		kill(pid, SIGKILL);
		return -1;
	}
	if (get_info(pid, &si, &v) == -1) {
		if (!s->o->audit)
			return doom(s, pid);
		return 0;
	}
	action = si.seccomp.ret_data == SP_BPF_REFUSE_DATA ?
	    SECCOMP_RET_TRACE | SP_BPF_REFUSE_DATA :
	    verdict(s, pid, &si, &checked);
	if (action == (SECCOMP_RET_TRACE | SP_BPF_REFUSE_DATA))
		return refuse_memory(s, pid, &v);
	switch (action & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
		return 0;
	case SECCOMP_RET_ERRNO:
		return fail_call(pid, action) == -1 ? doom(s, pid) : 0;
	default:
		break;
	}
	/* Audit: a loop of the same call stops us every time; print once. */
	if (s->o->audit && v.ip == s->last_ip && v.nr == s->last_nr &&
	    pid == s->last_pid)
		return 0;
	/* Killed meanwhile (another thread's exit_group): the call will
	 * never run, and there is nothing to report. */
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) == -1 && errno == ESRCH)
		return -1;
	report_read(s, pid, &rep);
	/* A number an object dlopen'ed later passes to syscall(). */
	later = rep.have ? sup_later_import(s, pid, &v, &rep.lo) : 0;
	if (later == 0)
		explain(s, pid, &v, &rep, (long)si.seccomp.ret_data, checked);
	report_free(&rep);
	if (later != 0)
		return later == 1 ? 0 : -1;
	s->last_ip = v.ip;
	s->last_nr = v.nr;
	s->last_pid = pid;
	return s->o->audit ? 0 : doom(s, pid);
}
