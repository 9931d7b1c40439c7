/* SPDX-License-Identifier: ISC */
/*
 * Exec and entry events: every new image is pinned before its first
 * instruction.
 *
 * At the exec stop the new image is mapped but the tracee is still inside
 * execve (the kernel has yet to write its return value), so nothing can be
 * injected there: we check what was exec'd (--exec=trusted) and resume
 * it to the end of the system call (PTRACE_SYSCALL), where it stops
 * again, back in user mode's registers but before running anything.
 * There we pin it (pin.c): a static image entirely, a dynamic one with
 * slots for the objects ld.so will map (startup.c), sealed when the image
 * reaches its entry point (a breakpoint at AT_ENTRY).  Neither ld.so's
 * audit modules nor a preload's constructor nor an IFUNC resolver runs
 * before the pins are in force.  A process we cannot pin is killed: it
 * never runs its own code unpinned.
 */
#include <errno.h>
#include <linux/filter.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "layout/procfs.h"

#include "phases.h"
#include "supervise_int.h"
#include "verify.h"

void
sp_sup_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	FILE *f;

	snprintf(buf, size, "?");
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return;
	if (fgets(buf, size, f) != NULL && (n = strcspn(buf, "\n")) >= 0)
		buf[n] = '\0';
	fclose(f);
	sp_error_printable(buf);	/* PR_SET_NAME: any bytes */
}

int
sp_sup_refuse(struct sup *s, pid_t pid, const char *why)
{
	char comm[64], line[512];

	sp_sup_comm(pid, comm, sizeof(comm));
	snprintf(line, sizeof(line), "%s[%ld]: cannot pin: %s", comm,
	    (long)pid, why);
	sp_error_printable(line);
	fprintf(stderr, "syspin: %s\n", line);
	sp_sup_refused_image(s, pid, line);
	kill(pid, SIGKILL);
	return -1;
}

/*
 * Every file the exec mapped executable: the program, and its
 * interpreter, which the kernel found by the program's PT_INTERP in the
 * caller's root (a tree that chroots into a directory of its own picks
 * its own ld.so: blind round 12).  -1 with why when one is not trusted.
 */
static int
trusted_maps(struct sup *s, pid_t pid, char *why, size_t size)
{
	char maps[64], how[200];
	struct sp_error err;
	struct sp_map *m;
	struct stat st;
	size_t n;
	int fd, rc = 0;

	snprintf(maps, sizeof(maps), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(maps, &m, &n, &err) == -1) {
		snprintf(why, size, "its mappings cannot be read");
		return -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (!(m[i].prot & PROT_EXEC) || m[i].kind != SP_MAP_FILE)
			continue;
		if ((fd = sp_sup_open_mapped(pid, &m[i], &st)) < 0) {
			snprintf(why, size, "%s cannot be checked", m[i].path);
			rc = -1;
		} else if (!sp_sup_trusted_fd(s, fd, how, sizeof(how))) {
			snprintf(why, size, "%s: %s", m[i].path, how);
			rc = -1;
		}
		if (fd >= 0)
			close(fd);
	}
	sp_maps_free(m, n);
	if (rc == -1)
		sp_error_printable(why);
	return rc;
}

/*
 * --exec=trusted: the files the kernel mapped (the program and its
 * interpreter: trusted_maps), whatever their paths say.
 * --exec=none: no exec but the run's own first; the filter refuses them,
 * and one that got past it anyway does not run (blind round 9: a call
 * past the filter made one).
 */
static int
check_exec(struct sup *s, pid_t pid)
{
	char why[256], msg[600];

	if (s->o->pin.exec == SP_EXEC_NONE && (pid != s->main ||
	    s->main_pinned))
		return sp_sup_refuse(s, pid, "--exec=none: an exec got past "
		    "the filter");
	if (s->o->pin.exec != SP_EXEC_TRUSTED)
		return 0;
	if (trusted_maps(s, pid, why, sizeof(why)) == -1) {
		snprintf(msg, sizeof(msg), "--exec=trusted: %s", why);
		return sp_sup_refuse(s, pid, msg);
	}
	return 0;
}

/*
 * A set-user-ID, set-group-ID or file-capability program runs without
 * what it would gain: every process of the tree has no_new_privs (the
 * filters need it).  `ping` then fails, `passwd -S` prints wrong data:
 * said once per file, where gaining was possible (not already root).
 */
static void
say_privileges(struct sup *s, pid_t pid)
{
	char path[64], key[96], comm[64], exe[512];
	struct stat st;
	bool caps;
	ssize_t n;

	if (geteuid() == 0 || s->o->quiet)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	if (stat(path, &st) == -1)
		return;
	caps = getxattr(path, "security.capability", NULL, 0) > 0;
	if (!caps && !(st.st_mode & (S_ISUID | S_ISGID)))
		return;
	snprintf(key, sizeof(key), "setid %llx:%llx",
	    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	if (!sp_sup_first_time(s, key))
		return;
	if ((n = readlink(path, exe, sizeof(exe) - 1)) <= 0)
		snprintf(exe, sizeof(exe), "?");
	else
		exe[n] = '\0';
	sp_sup_comm(pid, comm, sizeof(comm));
	fprintf(stderr, "syspin: %s[%ld]: %s is %s: under syspin it runs "
	    "without it (no_new_privs), and may fail\n", comm, (long)pid, exe,
	    caps ? "given file capabilities" : st.st_mode & S_ISUID ?
	    "set-user-ID" : "set-group-ID");
}

int
sp_sup_on_exec(struct sup *s, pid_t pid)
{
	struct proc *p;
	unsigned long former;

	/* A thread that execs takes its leader's id, and its own id ends
	 * with no report: it may be anyone's soon (blind round 11). */
	if (ptrace(PTRACE_GETEVENTMSG, pid, 0, &former) == 0 &&
	    (pid_t)former != pid && (pid_t)former > 0)
		sp_sup_forget(s, (pid_t)former);
	if ((p = sp_sup_proc(s, pid, true)) == NULL)
		return sp_sup_refuse(s, pid, "out of memory");
	p->inherited = true;
	p->tgid = pid;		/* an exec makes the thread the leader */
	sp_sup_vfork_done(s, pid);	/* its vfork parent runs again */
	/* The old image and its address space are gone. */
	sp_image_drop(p->img);
	sp_space_drop(p->sp);
	p->img = NULL;
	p->sp = NULL;
	p->bp = 0;
	/* its pid may be a leader's that was parked in a connect: the
	 * retry must not go to the new image, which would run on past its
	 * pinning stop (blind round 23b: one thread exec'd, the leader
	 * parked, the image ran unpinned) */
	sp_sup_park_drop(s, p);
	/* the exec killed its other threads: a fork of theirs unreported */
	sp_sup_drop_orphans(s, pid, false);
	if (check_exec(s, pid) == -1)
		return -1;
	say_privileges(s, pid);
	p->exec_pending = true;		/* pinned at the syscall's end */
	return 0;
}

char *
sp_sup_exe_of(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	if ((n = readlink(path, buf, sizeof(buf) - 1)) <= 0)
		return strdup("?");
	buf[n] = '\0';
	return strdup(buf);
}

#define DR(n) offsetof(struct user, u_debugreg[n])
#define DR7_L0 0x1ul		/* DR0 on, an instruction breakpoint */

/*
 * A dynamic image stops at its entry point: ld.so has mapped it all.  An
 * int3 there; for `ld.so PROG` (hw), whose PROG is not mapped yet, the
 * CPU's debug register 0 instead.
 */
static int
plant(pid_t pid, struct proc *p, uint64_t entry, bool hw,
    struct sp_error *err)
{
	if (hw) {
		if (!sp_sup_hw_breaks())
			return sp_error_set(err, "ld.so runs a program here, "
			    "and this machine's debug registers do not stop "
			    "(a virtual machine without them?): its start-up "
			    "could not be sealed; run the program itself");
		if (ptrace(PTRACE_POKEUSER, pid, DR(0), entry) == -1 ||
		    ptrace(PTRACE_POKEUSER, pid, DR(7), DR7_L0) == -1)
			return sp_error_sys(err, errno, "a breakpoint at "
			    "0x%llx", (unsigned long long)entry);
	} else if (sp_mem_poke_byte(pid, entry, 0xcc, &p->bp_byte, err) == -1)
		return -1;
	p->bp = entry;
	p->bp_hw = hw;
	return 0;
}

/* Ours: rip after our int3, or at our debug register's address. */
static bool
at_breakpoint(pid_t pid, const struct proc *p, struct user_regs_struct *r)
{
	if (p == NULL || p->bp == 0 ||
	    ptrace(PTRACE_GETREGS, pid, 0, r) == -1)
		return false;
	if (!p->bp_hw)
		return r->rip == p->bp + 1;
	return r->rip == p->bp &&
	    (ptrace(PTRACE_PEEKUSER, pid, DR(6), 0) & 0x1) != 0;
}

static int
unplant(pid_t pid, struct proc *p, struct user_regs_struct *r,
    struct sp_error *err)
{
	if (p->bp_hw) {
		if (ptrace(PTRACE_POKEUSER, pid, DR(7), 0) == -1 ||
		    ptrace(PTRACE_POKEUSER, pid, DR(6), 0) == -1)
			return sp_error_sys(err, errno, "debug registers");
		p->bp = 0;
		return 0;
	}
	r->rip = p->bp;
	if (sp_mem_poke_byte(pid, p->bp, p->bp_byte, NULL, err) == -1)
		return -1;
	p->bp = 0;
	if (ptrace(PTRACE_SETREGS, pid, 0, r) == -1)
		return sp_error_sys(err, errno, "ptrace setregs");
	return 0;
}

#define PRIOR_MAX 16

/* The images the process has filters for, newest first. */
static size_t
priors(const struct proc *p, struct image **imgs,
    const struct sp_pin_result **pins)
{
	size_t n = 0;

	for (const struct chain *c = p->chain; c != NULL && n < PRIOR_MAX;
	    c = c->up) {
		imgs[n] = c->img;
		pins[n++] = &c->img->pin;
	}
	return n;
}

/*
 * Pins the image: afresh (a new image, on top of the process's chain),
 * or as an earlier image of the same program (moved to its addresses,
 * judged by its filter: reuse.c).
 */
static struct image *
pin(struct sup *s, struct proc *p, struct chain **chain, struct sp_error *err)
{
	const struct sp_pin_result *pins[PRIOR_MAX];
	struct image *imgs[PRIOR_MAX], *img;
	unsigned how = 0;
	size_t n = priors(p, imgs, pins);

	if (p->stops_all)
		how |= SP_PIN_STOPS_ALL;
	else if (s->o->observe != NULL)
		how |= SP_PIN_TRACE_ALL;
	if (p->pid == s->main && !s->main_pinned)
		how |= SP_PIN_FIRST;	/* what it has is its caller's */
	if (p->own_filters)
		how |= SP_PIN_CHECK_SEALS;
	if ((img = calloc(1, sizeof(*img))) == NULL) {
		sp_error_set(err, "out of memory");
		return NULL;
	}
	img->refs = 1;
	img->exe = sp_sup_exe_of(p->pid);
	/* Nothing else runs in the new address space, and the filters go
	 * where nothing can change them (sealed.c): the tree runs on. */
	if (sp_pin_process(p->pid, &s->o->pin, how, p->filters_known, pins,
	    n, &img->pin, err) == -1) {
		sp_image_drop(img);
		return NULL;
	}
	p->own_filters |= img->pin.own_filters;
	p->filters_known = img->pin.filters;
	if (img->pin.reused >= 0) {
		struct image *same = sp_image_ref(imgs[img->pin.reused]);
		p->pending_sig = img->pin.sig;
		sp_image_drop(img);
		*chain = sp_chain_ref(p->chain);
		return same;
	}
	p->pending_sig = img->pin.sig;
	if ((*chain = sp_chain_push(p->chain, img)) == NULL) {
		sp_image_drop(img);
		sp_error_set(err, "out of memory");
		return NULL;
	}
	return img;
}

#define USER32_CS 0x23	/* the kernel's code segment for 32-bit tasks */

/*
 * A 32-bit (i386) program, which syspin cannot pin: its registers say
 * so.  It can still switch to 64-bit mode and trap from its own memory,
 * where no image's filter pins anything: it must not run pinned-as-nothing.
 */
static bool
compat_task(pid_t pid)
{
	struct user_regs_struct r;

	return ptrace(PTRACE_GETREGS, pid, 0, &r) == 0 && r.cs == USER32_CS;
}

/*
 * An execute-only program (not readable by the user) makes its process
 * not dumpable: not even its tracer may read its memory or /proc files.
 */
static bool
unreadable(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1)
		close(fd);
	return fd == -1 && errno == EACCES;
}

/*
 * Killed, with one line; under --audit it runs unpinned (its calls are
 * no image's: nothing is reported for them) and the line says so.
 */
static int
refuse_compat(struct sup *s, struct proc *p)
{
	const char *why = "a 32-bit (i386) program: syspin pins x86-64 "
	    "programs only";
	char comm[64];

	if (!s->o->audit)
		return sp_sup_refuse(s, p->pid, why);
	sp_sup_comm(p->pid, comm, sizeof(comm));
	fprintf(stderr, "syspin: audit: %s[%ld]: cannot pin: %s: it runs "
	    "unpinned (killed without --audit)\n", comm, (long)p->pid, why);
	return 0;
}

static int
exec_done(struct sup *s, pid_t pid)
{
	struct proc *p = sp_sup_proc(s, pid, false);
	struct chain *chain;
	struct image *img;
	struct space *sp;
	struct sp_error err;
	int sig;

	if (p == NULL || !p->exec_pending)
		return 0;
	p->exec_pending = false;
	if (compat_task(pid))
		return refuse_compat(s, p);
	if ((img = pin(s, p, &chain, &err)) == NULL)
		return sp_sup_refuse(s, pid, unreadable(pid) ? "the program is "
		    "not readable by this user (execute-only): pinning reads "
		    "it" : err.msg);
	sp_phase_image();
	s->main_pinned = s->main_pinned || pid == s->main;
	sig = p->pending_sig;
	if ((sp = sp_space_new(img->pin.nslots)) == NULL) {
		sp_image_drop(img);
		sp_chain_drop(chain);
		return sp_sup_refuse(s, pid, "out of memory");
	}
	sp->startup = img->pin.nslots > 0;
	if (sp->startup && plant(pid, p, img->pin.entry, img->pin.entry_hw,
	    &err) == -1) {
		sp_image_drop(img);
		sp_space_drop(sp);
		sp_chain_drop(chain);
		return sp_sup_refuse(s, pid, err.msg);
	}
	sp_sup_pinned(s, pid, img, sp, chain, img->pin.stops_all ||
	    p->stops_all);
	return sig;
}

/*
 * The others run again; pid's process, still in the stop being handled,
 * is not waited for by a stop met meanwhile (its handling may freeze the
 * tree again), and is looked up by pid: that handling may move the table
 * of processes.
 */
static void
thaw_around(struct sup *s, pid_t pid, struct sp_frozen *f)
{
	struct proc *p;

	if ((p = sp_sup_proc(s, pid, false)) != NULL)
		p->halted = true;
	sp_sup_thaw(s, f);
	if ((p = sp_sup_proc(s, pid, false)) != NULL)
		p->halted = false;
}

int
sp_sup_on_exec_done(struct sup *s, pid_t pid)
{
	return exec_done(s, pid);
}

/* Whether p's process has the entry filter p's image makes, by key (an
 * image moved to an earlier one's addresses makes the same: reuse.c). */
static bool
entry_installed(const struct proc *p, const uint64_t key[4])
{
	for (size_t i = 0; i < p->nentry_keys; i++)
		if (memcmp(p->entry_keys[i], key, 4 * sizeof(*key)) == 0)
			return true;
	return false;
}

/* It has it now: every thread of the process does (TSYNC). */
static void
entry_record(struct sup *s, const struct proc *p, const uint64_t key[4])
{
	uint64_t (*nk)[4];

	for (size_t i = 0; i < s->nprocs; i++) {
		struct proc *t = &s->procs[i];
		if (t != p && t->tgid != p->tgid)
			continue;
		if ((nk = realloc(t->entry_keys, (t->nentry_keys + 1) *
		    sizeof(*nk))) == NULL)
			continue;	/* installed again at the next exec */
		t->entry_keys = nk;
		memcpy(nk[t->nentry_keys++], key, 4 * sizeof(*key));
	}
}

/* The filters every thread of p's process has now (TSYNC made their
 * filters p's), as the supervisor knows them. */
static void
known(struct sup *s, const struct proc *p, long n)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (&s->procs[i] == p || s->procs[i].tgid == p->tgid) {
			s->procs[i].filters_known = n;
			s->procs[i].own_filters |= p->own_filters;
		}
}

/* Every thread of p's process stops at every call from now on. */
static void
stop_all(struct sup *s, const struct proc *p)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].tgid == p->tgid)
			s->procs[i].stops_all = true;
}

/*
 * ld.so's start-up is over: its exec sites with it, and the slots' room
 * where the region was not sealed whole (entry.c).  Where every call
 * stops already, judging with the filter is enough.  Where the process's
 * filters leave no room for it (deep nested images), one instruction that
 * stops every call does the same.  0, or -1 with err when the process
 * cannot run on.
 */
static int
end_startup(struct sup *s, struct proc *p, long before, bool sealed,
    struct sp_error *err)
{
	struct sock_filter one = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	struct sp_bpf_prog all = { &one, 1 };
	uint64_t key[4];
	int r;

	if (p->sp->entry.len > 0 || s->o->observe != NULL ||
	    sp_sup_entry_filter(&p->img->pin, sealed, &p->sp->entry) == -1 ||
	    p->sp->entry.len == 0 || p->img->pin.stops_all || p->stops_all)
		return 0;
	sp_sup_entry_key(&p->img->pin, sealed, key);
	if (entry_installed(p, key))
		return 0;
	if ((r = sp_sup_entry_install(p->pid, p->img->pin.trap,
	    &p->sp->entry, p->files_shared, err)) == 0)
		entry_record(s, p, key);
	else if (err->code == ENOMEM && (r = sp_sup_entry_install(p->pid,
	    p->img->pin.trap, &all, p->files_shared, err)) == 0)
		stop_all(s, p);
	/* Installed, or the image may not run on: where it stayed, ld.so's
	 * exec sites and the room of the slots would stay open to it. */
	if (r == 0 && (r = sp_verify_installed(p->pid, before + 1, false,
	    err)) == 0)
		known(s, p, before + 1);
	return r;
}

/*
 * The entry point.  What shares the address space is stopped: nothing
 * maps into the slot region between the look at it and its seal, no
 * thread installs a filter of its own between the count and ours
 * (verify.c), none unmaps the sealed filter (sealed.c) before the kernel
 * reads it.
 */
int
sp_sup_on_trap(struct sup *s, pid_t pid)
{
	struct proc *p = sp_sup_proc(s, pid, false);
	struct user_regs_struct r;
	struct sp_phase_mark m;
	struct sp_frozen *f;
	struct sp_error err;
	bool sealed;
	long before;
	int rc;

	if (!at_breakpoint(pid, p, &r))
		return SIGTRAP;		/* not ours: the program's own */
	if (unplant(pid, p, &r, &err) == -1)
		return sp_sup_refuse(s, pid, err.msg);
	if (p->img == NULL || p->sp == NULL)
		return 0;
	p->sp->startup = false;
	sp_phase_mark(&m);
	f = sp_sup_freeze_space(s, pid);	/* keeps reports, adds no proc */
	if ((before = sp_filters_pid(pid)) != p->filters_known)
		p->own_filters = true;
	rc = sp_pin_seal_slots(pid, &p->img->pin, p->sp->placed,
	    p->own_filters, &sealed, &err);
	if (rc == 0)
		rc = end_startup(s, p, before, sealed, &err);
	thaw_around(s, pid, f);
	if (rc == -1)
		return sp_sup_refuse(s, pid, err.msg);
	sp_phase_add(SP_PH_SEAL, &m);
	return 0;
}
