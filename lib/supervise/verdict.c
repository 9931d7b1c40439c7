/* SPDX-License-Identifier: ISC */
/*
 * Seccomp stops.  Whatever filter stopped the call (ours, an earlier
 * image's, or one the process installed itself), the verdict is the
 * image's own program evaluated here on the call: the data a filter
 * returns is never believed.  The program answers:
 * - allow: the call runs (a foreign filter's TRACE, or an earlier image's
 *   filter speaking for mappings that are gone, asked for nothing);
 * - SP_BPF_PLACE_DATA: a mapping to move into a slot or the band (band.c);
 * - SP_BPF_REFUSE_DATA / SP_BPF_DENY_DATA: the call fails with EACCES /
 *   EPERM, and we say why once per process;
 * - a violation (TRACE, data 0): the OpenBSD-style line, then
 *   - enforcing: rewrite the number to SP_GUARD_KILL_NR and resume.  The
 *     kernel runs the filters again, ours answer KILL_PROCESS: the
 *     process dies of SIGSYS (core, status 159) and the call never runs.
 *     If we die first, PTRACE_O_EXITKILL kills it.
 *   - --audit: report each (program, number, site) once and let it run.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include "elf/elf.h"
#include "util/hash.h"
#include "layout/diag.h"
#include "supervise/narrow.h"
#include "layout/procfs.h"
#include "layout/placement.h"

#include "reports.h"
#include "supervise_int.h"

const char *
sp_syscall_name(uint32_t arch, uint32_t nr, char *buf, size_t size)
{
	bool x32 = arch != SP_AUDIT_ARCH_I386 && (nr & SP_BPF_X32_BIT);
	char *n = seccomp_syscall_resolve_num_arch(arch ==
	    SP_AUDIT_ARCH_I386 ? SCMP_ARCH_X86 : x32 ? SCMP_ARCH_X32 :
	    SCMP_ARCH_X86_64, nr);
	const char *newer = arch == SP_AUDIT_ARCH_I386 || x32 ? NULL :
	    sp_syscall_newer(nr);

	snprintf(buf, size, "%s%s", arch == SP_AUDIT_ARCH_I386 ? "i386 " :
	    x32 ? "x32 " : "", n != NULL ? n : newer != NULL ? newer : "?");
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

/* Skips the stopped call: it returns -e. */
int
sp_sup_fail_call(pid_t pid, int e)
{
	return sp_sup_answer(pid, -(long)e);
}

/* The stopped call skipped, answered ret (0 or -errno): 0, or -1 when
 * the thread is gone. */
int
sp_sup_answer(pid_t pid, long ret)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r) == -1)
		return -1;
	r.orig_rax = (uint64_t)-1;
	r.rax = (uint64_t)ret;
	return ptrace(PTRACE_SETREGS, pid, 0, &r) == -1 ? -1 : 0;
}

bool
sp_sup_first_time(struct sup *s, const char *key)
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

int
sp_sup_kill_unjudged(pid_t tid)
{
	if (sp_reports_kept(tid) || sp_reports_at_exit(tid))
		return 0;
	kill(tid, SIGKILL);
	return 1;
}

/* The kernel re-runs the filters on the new number: they kill. */
int
sp_sup_doom(struct sup *s, pid_t pid)
{
	struct user_regs_struct r;
	struct proc *p = sp_sup_proc(s, pid, true);

	/* in its exit already (another thread's exec, its process's end):
	 * its call runs not, and its process, the exec's new image to be
	 * pinned, is not killed for it (nor marked: the image that takes
	 * its id would be) */
	if (sp_reports_at_exit(pid))
		return -1;
	if (p != NULL)
		p->doomed = true;
	/* a thread replaced by another's exec: its new image is killed
	 * outright (the number rewritten would run nothing there) */
	if (sp_reports_at_exec(pid))
		goto hard;
	/* out of the stop we hold without our word: only a fatal signal
	 * wakes a thread there (another thread's exec, its process's end),
	 * and it dies before its call runs (its exit stops: it cannot be
	 * the exec's new image yet) */
	if (ptrace(PTRACE_GETREGS, pid, 0, &r) == -1)
		goto gone;
	r.orig_rax = SP_GUARD_KILL_NR;
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) == -1)
		goto gone;
	return 0;
gone:
	if (errno == ESRCH) {
		if (p != NULL)
			p->doomed = false;
		return -1;
	}
hard:
	kill(pid, SIGKILL);
	return -1;
}

/* The record for -o / --log-fd, when the line is printed. */
static void
record(struct sup *s, pid_t tid, const struct sp_violation *v,
    const struct image *img, enum sp_verdict verdict, const char *rule,
    int errnum, const char *line)
{
	char comm[64], name[64];
	unsigned long long tgid;
	struct sp_event ev;

	if (s->o->log_fd < 0)
		return;
	if (sp_proc_status(tid, "Tgid", 10, &tgid) == -1)
		tgid = (unsigned long long)tid;
	sp_sup_comm(tid, comm, sizeof(comm));
	memset(&ev, 0, sizeof(ev));
	clock_gettime(CLOCK_REALTIME, &ev.time);
	ev.pid = (long)tgid;
	ev.tid = (long)tid;
	ev.comm = comm;
	ev.exe = img != NULL ? img->exe : NULL;
	ev.arch = v->arch;
	ev.nr = v->nr;
	ev.ip = v->ip;
	ev.name = sp_syscall_name(v->arch, v->nr, name, sizeof(name));
	ev.verdict = verdict;
	ev.rule = rule;
	ev.errnum = errnum;
	ev.lo = img != NULL ? &img->pin.lo : NULL;
	ev.pl = img != NULL ? &img->pin.pl : NULL;
	ev.audit = s->o->audit;
	ev.line = line;
	(void)sp_event_log(s->o->log_fd, &ev);
}

void
sp_sup_refused(struct sup *s, pid_t tid, const struct seccomp_data *d,
    const struct image *img, const char *rule, int errnum, const char *line)
{
	struct sp_violation v = { .have = true, .arch = d->arch, .nr =
	    (uint32_t)d->nr, .ip = d->instruction_pointer };

	if (!s->o->quiet)
		fprintf(stderr, "syspin: %s\n", line);
	record(s, tid, &v, img, SP_VERDICT_REFUSED, rule, errnum, line);
}

/* An image refused before its first instruction: its execve, killed. */
void
sp_sup_refused_image(struct sup *s, pid_t pid, const char *line)
{
	struct sp_violation v = { .have = true, .arch = AUDIT_ARCH_X86_64,
	    .nr = 59, .ip = 2 };	/* no site: address 0 */

	record(s, pid, &v, NULL, SP_VERDICT_KILLED, "image", 0, line);
}

/* Tells the observer (syspin trace) how a call was judged. */
static void
observed(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct image *img, enum sp_observed_kind kind, const char *line)
{
	struct sp_observed c;

	if (s->o->observe == NULL)
		return;
	memset(&c, 0, sizeof(c));
	c.kind = kind;
	c.tid = pid;
	c.arch = v->arch;
	c.nr = v->nr;
	c.ip = v->ip;
	c.exe = img != NULL ? img->exe : NULL;
	c.lo = img != NULL ? &img->pin.lo : NULL;
	c.line = line;
	s->o->observe(s->o->observe_ctx, &c);
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

/* The function of lo's object that holds addr, by its symbols (a debug
 * file's too), into buf ("" when none is known). */
static void
func_of(const struct sp_layout *lo, uint64_t addr, char *buf, size_t size)
{
	long r = lo != NULL ? sp_layout_find(lo, addr) : -1;
	const struct sp_symbol *sym;
	const struct sp_object *o;
	struct sp_error err;
	struct sp_elf elf;

	buf[0] = '\0';
	if (r == -1 || (o = &lo->objs[lo->ranges[r].obj])->kind !=
	    SP_OBJ_FILE || sp_elf_open(&elf, o->name, &err) == -1)
		return;
	if ((sym = sp_elf_symbol_holding(&elf, addr - o->base)) != NULL)
		snprintf(buf, size, "%s", sym->name);
	sp_elf_close(&elf);
}

static void
explain(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct image *img)
{
	char comm[64], name[64], line[2048], site[4400], key[8600], fn[128];
	const struct sp_layout *lo = img != NULL ? &img->pin.lo : NULL;
	const struct sp_placement *pl = img != NULL ? &img->pin.pl : NULL;

	sp_sup_comm(pid, comm, sizeof(comm));
	sp_syscall_name(v->arch, v->nr, name, sizeof(name));
	func_of(lo, v->ip - 2, fn, sizeof(fn));
	sp_diag_format(line, sizeof(line), comm, pid, v, lo, pl, name, fn);
	if (s->o->observe != NULL) {
		observed(s, pid, v, img, SP_OBS_VIOLATION, line);
		return;
	}
	if (img != NULL && (img->pin.smaller || img->pin.stops_all))
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
		    " [checked by the supervisor: no room for the whole filter]");
	if (!s->o->audit) {
		/* the first one says what to do next (on its line: one
		 * line a violation) */
		if (sp_sup_first_time(s, "next step"))
			snprintf(line + strlen(line), sizeof(line) -
			    strlen(line), " (syspin run --audit reports every "
			    "such call and kills none; syspin trace PROG "
			    "writes a report)");
		fprintf(stderr, "syspin: %s\n", line);
		record(s, pid, v, img, SP_VERDICT_KILLED, "pin", 0, line);
		return;
	}
	site_of(lo, v->ip - 2, site, sizeof(site));
	snprintf(key, sizeof(key), "%s %" PRIu32 " %s %s", img != NULL ?
	    img->exe : "?", v->nr, v->arch == SP_AUDIT_ARCH_I386 ? "i386" : "",
	    site);
	if (sp_sup_first_time(s, key)) {
		fprintf(stderr, "syspin: audit: %s (program %s)\n", line,
		    img != NULL ? img->exe : "?");
		record(s, pid, v, img, SP_VERDICT_AUDITED, "pin", 0, line);
	}
}

/*
 * A call the rules refuse fails with EACCES or EPERM, as it would in the
 * kernel alone; we only say why, once per process: a JIT compiler (V8, a
 * JVM, valgrind) otherwise dies far from the cause.
 */
static int
refuse(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct seccomp_data *d, uint32_t data, const struct image *img,
    const char *reason)
{
	char comm[64], name[64], key[96], line[1024], file[512];
	unsigned long long tgid;
	int e = data == SP_BPF_DENY_DATA ? EPERM : EACCES;

	if (sp_proc_status(pid, "Tgid", 10, &tgid) == -1)
		tgid = (unsigned long long)pid;
	/* once per process, rule and call: a later refusal of another
	 * call is news (a TIOCSTI said hid a perf_event_open's); an exec's
	 * once per file too */
	sp_syscall_name(v->arch, v->nr, name, sizeof(name));
	file[0] = '\0';
	if (strstr(name, "exec") != NULL)
		sp_sup_exec_path(pid, d, file, sizeof(file));
	snprintf(key, sizeof(key), "refused %llu %u %u %016llx", tgid, data,
	    v->nr, (unsigned long long)sp_fnv1a_str(SP_FNV1A_INIT, file));
	if (reason == NULL)
		reason = sp_sup_refusal_why(s->o->pin.flags, name, d, data);
	sp_sup_comm(pid, comm, sizeof(comm));
	if (file[0] != '\0')
		snprintf(line, sizeof(line), "%s[%llu]: %s of %s refused: %s",
		    comm, tgid, name, file, reason);
	else if (strcmp(name, "mmap") == 0 && (d->args[3] & MAP_GROWSDOWN))
		snprintf(line, sizeof(line), "%s[%llu]: mmap with "
		    "MAP_GROWSDOWN refused: memory that grows without a system "
		    "call may not be made in a pinned tree", comm, tgid);
	else
		snprintf(line, sizeof(line), "%s[%llu]: %s%s refused: %s",
		    comm, tgid, name, sp_sup_refusal_what(name, d, data),
		    reason);
	observed(s, pid, v, img, data == SP_BPF_DENY_DATA ? SP_OBS_DENIED :
	    SP_OBS_REFUSED, line);
	if (s->o->observe == NULL && sp_sup_first_time(s, key)) {
		if (!s->o->quiet)
			fprintf(stderr, "syspin: %s\n", line);
		record(s, pid, v, img, data == SP_BPF_DENY_DATA ?
		    SP_VERDICT_DENIED : SP_VERDICT_REFUSED,
		    data == SP_BPF_DENY_DATA ? "every-call" :
		    strstr(name, "exec") ? "exec" : "memory", e, line);
	}
	return sp_sup_fail_call(pid, e) == -1 ? sp_sup_doom(s, pid) : 0;
}

/*
 * --deny / --allow: the call fails with the chosen errno (said once per
 * process and number), or is killed like a violation (reported once
 * under --audit, and let run).
 */
static int
narrowed(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct image *img)
{
	const struct sp_pin_opts *o = &s->o->pin;
	char comm[64], name[64], key[64], line[512];
	const char *opt = o->narrow.allow ? "--allow" : "--deny";
	unsigned long long tgid;
	int e = o->narrow_errno > 0 ? o->narrow_errno : EPERM;

	if (sp_proc_status(pid, "Tgid", 10, &tgid) == -1)
		tgid = (unsigned long long)pid;
	sp_syscall_name(v->arch, v->nr, name, sizeof(name));
	sp_sup_comm(pid, comm, sizeof(comm));
	if (o->narrow_kill && !s->o->audit) {
		snprintf(line, sizeof(line), "%s[%llu]: %s (code %" PRIu32 ") "
		    "denied by %s: killed", comm, tgid, name, v->nr, opt);
		fprintf(stderr, "syspin: %s\n", line);
		record(s, pid, v, img, SP_VERDICT_KILLED, "deny-list", 0, line);
		return sp_sup_doom(s, pid);
	}
	snprintf(key, sizeof(key), "narrowed %llu %" PRIu32, tgid, v->nr);
	if (s->o->observe != NULL) {
		snprintf(line, sizeof(line), "%s[%llu]: %s (code %" PRIu32
		    ") denied by %s", comm, tgid, name, v->nr, opt);
		observed(s, pid, v, img, o->narrow_kill ? SP_OBS_VIOLATION :
		    SP_OBS_DENIED, line);
	} else if (sp_sup_first_time(s, key)) {
		if (o->narrow_kill)
			snprintf(line, sizeof(line), "%s[%llu]: %s (code %"
			    PRIu32 ") denied by %s", comm, tgid, name, v->nr,
			    opt);
		else
			snprintf(line, sizeof(line), "%s[%llu]: %s (code %"
			    PRIu32 ") denied by %s: %s", comm, tgid, name,
			    v->nr, opt, strerrorname_np(e) ?
			    strerrorname_np(e) : "?");
		if (o->narrow_kill || !s->o->quiet)
			fprintf(stderr, "syspin: %s%s\n", o->narrow_kill ?
			    "audit: " : "", line);
		record(s, pid, v, img, o->narrow_kill ? SP_VERDICT_AUDITED :
		    SP_VERDICT_DENIED, "deny-list", o->narrow_kill ? 0 : e,
		    line);
	}
	if (o->narrow_kill)	/* --audit */
		return 0;
	return sp_sup_fail_call(pid, e) == -1 ? sp_sup_doom(s, pid) : 0;
}

static int violation(struct sup *, pid_t, const struct sp_violation *,
    const struct seccomp_data *, struct proc *);

/*
 * The image's rules alone, for a call that a stop lets through although
 * its site is not pinned for it (later.c, reach_late.c): the program
 * made with no pins and one any-number site, evaluated at that site,
 * gives exactly what the image's own program gives a pinned call with
 * these arguments (lib/bpf/bpf.h, 3.-5.).  Made once per image.
 */
static uint32_t
rules_verdict(struct sup *s, struct image *img, const struct seccomp_data *d)
{
	struct seccomp_data at = *d;
	struct sp_bpf_input in;
	struct sp_error err;

	if (img->rules == NULL) {
		sp_placement_bpf_input(&img->pin.pl, img->pin.flags,
		    SP_ANSWER_SUPERVISOR, &in);
		in.narrow = s->o->pin.narrow;
		in.narrowed = SECCOMP_RET_TRACE | SP_BPF_NARROW_DATA;
		if (in.nranges == 0)
			return SECCOMP_RET_KILL_PROCESS;
		/* a trap at the range's first byte */
		img->rules_ip = in.ranges[0].start + 2;
		in.pins = NULL;
		in.npins = 0;
		in.any_ips = &img->rules_ip;
		in.nany_ips = 1;
		if (sp_bpf_generate(&in, &img->rules, &img->nrules, &err) == -1) {
			img->rules = NULL;
			return SECCOMP_RET_KILL_PROCESS;
		}
	}
	at.instruction_pointer = img->rules_ip;
	return sp_bpf_run_all(img->rules, img->nrules, &at, NULL);
}

static bool
exec_call(const struct sp_violation *v)
{
	return v->arch == SP_AUDIT_ARCH_I386 ? v->nr == 11 || v->nr == 358 :
	    v->nr == 59 || v->nr == 322 || v->nr == (SP_BPF_X32_BIT | 520) ||
	    v->nr == (SP_BPF_X32_BIT | 545);
}

/*
 * A call on another process (perf_event_open, prlimit64, a signal that
 * dumps core): one of the tree.  The kernel finds the process again when
 * the call runs, by its number or the caller's descriptor: what was
 * judged must be what it finds (blind round 12: a thread swapped the
 * pidfd judged for another with dup2, or the caller was kept off the CPU
 * while the process judged ended and its number went to one outside).
 * So the caller's threads (and what shares its descriptors) stay stopped
 * from the look until the call has returned, and meanwhile no other
 * report is taken: a process of the tree that ends stays unreaped (a
 * traced process's parent reaps it only after its tracer did), its
 * number no one else's.  A call that does not return within seconds
 * (its thread kept off the CPU) is killed, not left to run later.
 */
static int
on_another(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct seccomp_data *d, struct proc *p)
{
	bool signal = v->arch == SP_AUDIT_ARCH_X86_64 &&
	    sp_sup_signal_call(d->nr);
	/* a signal is judged again on the pidfd we send it from: no
	 * thread need wait for it */
	struct sp_frozen *f = signal ? NULL : sp_sup_freeze(s, pid), *g = NULL;
	/* prlimit64, perf_event_open: by number; the process named is
	 * held still (its threads stopped: none can exec and free a
	 * thread's id) from the look until the call has returned */
	pid_t t = signal ? 0 : (pid_t)(int32_t)(d->nr == 298 ? d->args[1] :
	    d->args[0]);
	bool other = t > 0 && sp_sup_tgid(t) != sp_sup_tgid(pid);
	int r;

	if (other && sp_sup_in_tree(s, t))
		g = sp_sup_freeze_target(s, t);
	if (!sp_sup_of_tree(s, pid, d)) {
		sp_sup_thaw(s, g);
		sp_sup_thaw(s, f);
		return refuse(s, pid, v, d, SP_BPF_DENY_DATA, p->img, NULL);
	}
	if (other && s->o->observe == NULL && !sp_sup_frozen_held(s, g, t)) {
		/* under way in an exec, or ending: as if it had ended */
		sp_sup_thaw(s, g);
		sp_sup_thaw(s, f);
		return sp_sup_fail_call(pid, ESRCH) == -1 ?
		    sp_sup_doom(s, pid) : 0;
	}
	observed(s, pid, v, p->img, SP_OBS_ALLOWED, NULL);
	if (s->o->observe != NULL)
		r = 0;
	else if (signal)
		r = sp_sup_signal_for(s, pid, d);
	else
		r = sp_sup_run_call(s, pid, (int)d->nr);
	sp_sup_thaw(s, g);
	sp_sup_thaw(s, f);
	return r;
}

/*
 * What action means for the stopped call; every path that lets a call
 * run goes through here (the filter's own stops, and the calls a stop
 * lets through, judged by the image's rules first).
 */
static int
judge(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct seccomp_data *d, struct proc *p, uint32_t action)
{
	switch (action & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
		observed(s, pid, v, p->img, SP_OBS_ALLOWED, NULL);
		return 0;
	case SECCOMP_RET_ERRNO:
		observed(s, pid, v, p->img, SP_OBS_ERRNO, NULL);
		return sp_sup_fail_call(pid,
		    (int)(action & SECCOMP_RET_DATA)) == -1 ?
		    sp_sup_doom(s, pid) : 0;
	case SECCOMP_RET_TRACE:
		break;
	default:			/* KILL_PROCESS (the guard), TRAP */
		observed(s, pid, v, p->img, SP_OBS_VIOLATION,
		    "killed by the rules of every call (the guard)");
		return sp_sup_doom(s, pid);
	}
	switch (action & SECCOMP_RET_DATA) {
	case SP_BPF_PLACE_DATA:
		observed(s, pid, v, p->img, SP_OBS_PLACED, NULL);
		return sp_sup_place(s, pid, d);
	case SP_BPF_REFUSE_DATA:
	case SP_BPF_DENY_DATA:
		return refuse(s, pid, v, d, action & SECCOMP_RET_DATA, p->img,
		    NULL);
	case SP_BPF_NARROW_DATA:
		return narrowed(s, pid, v, p->img);
	case SP_BPF_CHECK_DATA:
		if (d->nr == 42) {		/* connect: whom it reaches */
			observed(s, pid, v, p->img, SP_OBS_ALLOWED, NULL);
			return s->o->observe != NULL ? 0 :
			    sp_sup_connect(s, pid, d, p);
		}
		if (d->nr == 50) {		/* listen: the tree's listener */
			observed(s, pid, v, p->img, SP_OBS_ALLOWED, NULL);
			return sp_sup_listen(s, pid, d);
		}
		if (d->nr == 16 || d->nr == 109) {	/* ioctl, setpgid:
						   a terminal's (tty.c) */
			bool no;
			int r = d->nr == 16 ? sp_sup_tty(s, pid, d, &no) :
			    sp_sup_setpgid(s, pid, d, &no);
			if (no)
				return refuse(s, pid, v, d, SP_BPF_DENY_DATA,
				    p->img, NULL);
			observed(s, pid, v, p->img, SP_OBS_ALLOWED, NULL);
			return r == -1 ? sp_sup_doom(s, pid) : 0;
		}
		if (exec_call(v)) {	/* --exec=trusted: the file */
			char why[256], reason[320];

			if (!sp_sup_exec_untrusted(s, pid, d, why,
			    sizeof(why))) {
				observed(s, pid, v, p->img, SP_OBS_ALLOWED,
				    NULL);
				return 0;
			}
			snprintf(reason, sizeof(reason), "--exec=trusted: %s",
			    why);
			return refuse(s, pid, v, d, SP_BPF_REFUSE_DATA, p->img,
			    reason);
		}
		return on_another(s, pid, v, d, p);
	default:
		return violation(s, pid, v, d, p);
	}
}

static int
violation(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct seccomp_data *d, struct proc *p)
{
	struct user_regs_struct regs;
	uint32_t rules;
	int later;

	/* Audit: a loop of the same call stops us every time; print once. */
	if (s->o->audit && s->o->observe == NULL && v->ip == s->last_ip &&
	    v->nr == s->last_nr && pid == s->last_pid)
		return 0;
	/* Killed meanwhile (another thread's exit_group): the call will
	 * never run, and there is nothing to report. */
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) == -1 && errno == ESRCH)
		return -1;
	/* A number an object dlopen'ed later passes to syscall(), or a site
	 * pruned as unreachable that a late object reaches: the call is
	 * as good as pinned, and gets every rule a pinned call gets. */
	later = p->img != NULL ? sp_sup_later_import(s, pid, v,
	    &p->img->pin.lo) : 0;
	if (later == -1)
		return -1;
	if (later == 1 || (p->img != NULL &&
	    sp_sup_reach_late(s, pid, v, &p->img->pin.lo))) {
		rules = rules_verdict(s, p->img, d);
		if ((rules & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_TRACE &&
		    (rules & SECCOMP_RET_DATA) == 0)
			rules = SECCOMP_RET_KILL_PROCESS;	/* cannot be */
		return judge(s, pid, v, d, p, rules);
	}
	explain(s, pid, v, p->img);
	s->last_ip = v->ip;
	s->last_nr = v->nr;
	s->last_pid = pid;
	return s->o->audit ? 0 : sp_sup_doom(s, pid);
}

int
sp_sup_on_seccomp(struct sup *s, pid_t pid)
{
	struct __ptrace_syscall_info si;
	struct proc *p = sp_sup_proc(s, pid, false);
	struct sp_violation v;
	struct seccomp_data d;
	uint32_t action;

	if (p != NULL && p->doomed) {
		kill(pid, SIGKILL);
		return -1;
	}
	if (get_info(pid, &si, &v) == -1)
		return s->o->audit ? 0 : sp_sup_doom(s, pid);
	/* No image of ours: a filter of the process's own asked. */
	if (p == NULL || p->img == NULL)
		return 0;
	memset(&d, 0, sizeof(d));
	d.nr = (int)si.seccomp.nr;
	d.arch = si.arch;
	d.instruction_pointer = si.instruction_pointer;
	memcpy(d.args, si.seccomp.args, sizeof(d.args));
	action = sp_bpf_run_all(p->img->pin.progs, p->img->pin.nprogs, &d,
	    NULL);
	/* the entry filter (entry.c) with it, as the kernel combines them:
	 * the most severe, the newer on a tie */
	if (p->sp != NULL && p->sp->entry.len > 0) {
		uint32_t e = sp_bpf_run(p->sp->entry.insns, p->sp->entry.len,
		    &d, NULL);
		if (sp_bpf_cmp_action(e, action) <= 0)
			action = e;
	}
	return judge(s, pid, &v, &d, p, action);
}
