/* SPDX-License-Identifier: ISC */
/*
 * Pinning a tracee from outside, before its first instruction (the end of
 * its execve): the layout the kernel made (the program, its interpreter,
 * the vDSO, the stack), for a dynamic program the slots its start-up
 * objects will get (startup.c), their tables and pins (lib/layout), the
 * filter (lib/bpf); then the tracee installs it itself (install.c,
 * inject.c).
 *
 * The calls are made at a `syscall` instruction of the tracee's vDSO: its
 * address is random in every process, so the filters inherited from pinned
 * ancestors (which allow everything outside their own images and the band)
 * let them through.  The filter pins mseal there too: the seals of what
 * ld.so maps are injected at the entry point, after the filter.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include "supervise/supervise.h"
#include "layout/procfs.h"
#include "layout/placement.h"

#include "phases.h"
#include "pin_int.h"
#include "supervise_int.h"


/* In a bounded child (fill.c), with the facts reach will want; over a
 * limit the image is refused. */
static int
fill_missing(struct job *j, const size_t *missing, size_t n,
    struct sp_error *err)
{
	return sp_sup_fill_image(j->o->cache, &j->lo, missing, n,
	    j->o->reach, j->o->verbose, err);
}

static int
tables(struct job *j, struct sp_error *err)
{
	struct sp_error warn;
	size_t *missing, nmissing;
	int r;

	warn.msg[0] = '\0';
	if (sp_layout_load(&j->lo, j->o->cache, &missing, &nmissing,
	    &warn) == -1)
		return sp_error_set(err, "%s", warn.msg);
	r = fill_missing(j, missing, nmissing, err);
	if (r == 0 && nmissing > 0) {
		free(missing);
		if (sp_layout_load(&j->lo, j->o->cache, &missing, &nmissing,
		    &warn) == -1)
			return sp_error_set(err, "%s", warn.msg);
	}
	free(missing);
	if (r == -1)
		return -1;
	if (j->o->verbose && warn.msg[0] != '\0')
		fprintf(stderr, "syspin: %s\n", warn.msg);
	return j->o->reach ? sp_pin_reach(j, err) : 0;
}

/* A `syscall` instruction (0f 05) in the range, or 0. */
static uint64_t
trap_in(pid_t pid, const struct sp_layout_range *r)
{
	size_t len = r->end - r->start, i;
	struct sp_error err;
	uint8_t *buf;
	uint64_t at = 0;

	if (len > (16u << 20) || (buf = malloc(len)) == NULL)
		return 0;
	if (sp_mem_read(pid, r->start, buf, len, &err) == 0)
		for (i = 0; i + 1 < len && at == 0; i++)
			if (buf[i] == 0x0f && buf[i + 1] == 0x05)
				at = r->start + i;
	free(buf);
	return at;
}

/* The vDSO's first, else any executable mapping's. */
static int
find_trap(struct job *j, struct sp_error *err)
{
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < j->lo.nranges; i++) {
			const struct sp_layout_range *r = &j->lo.ranges[i];
			const struct sp_object *o = &j->lo.objs[r->obj];
			enum sp_obj_kind k = o->kind;
			if ((pass == 0) != (k == SP_OBJ_VDSO) ||
			    k == SP_OBJ_VSYSCALL || k == SP_OBJ_UNKNOWN)
				continue;
			/* the vDSO's, found as the layout read it (the image
			 * is stopped: it has not changed since) */
			if (k == SP_OBJ_VDSO && o->trap >= r->start &&
			    o->trap + 1 < r->end) {
				j->in.trap = o->trap;
				return 0;
			}
			if ((j->in.trap = trap_in(j->pid, r)) != 0)
				return 0;
		}
	return sp_error_set(err, "no syscall instruction to inject at");
}

int
sp_pin_call(struct job *j, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
    uint64_t a3, long *ret, struct sp_error *err)
{
	uint64_t args[6] = { a0, a1, a2, a3, 0, 0 };

	return sp_inject_syscall(&j->in, nr, args, 6, ret, err);
}

/* Anonymous memory (fd -1) in the tracee. */
int
sp_pin_mmap(struct job *j, uint64_t addr, uint64_t len, uint64_t prot,
    uint64_t flags, long *ret, struct sp_error *err)
{
	uint64_t args[6] = { addr, len, prot, flags | MAP_ANONYMOUS,
	    (uint64_t)-1, 0 };

	return sp_inject_syscall(&j->in, SYS_mmap, args, 6, ret, err);
}

/*
 * The flags of this image: the run's, and SP_BPF_NO_PERF where the
 * process may make uprobes (CAP_PERFMON or CAP_SYS_ADMIN, permitted):
 * a uprobe that fires maps the kernel's executable trampoline, with a
 * `syscall` in it, outside every range the filters know.
 */
static unsigned
image_flags(const struct sp_proc_state *st, unsigned flags)
{
	if (((st->cap_prm >> CAP_SYS_ADMIN) & 1) || ((st->cap_prm >> 38) & 1))
		flags |= SP_BPF_NO_PERF;
	return flags;
}

int
sp_pin_seal(struct job *j, uint64_t a, uint64_t len, struct sp_error *err)
{
	long ret;

	if (sp_seals_add(&j->seals, a, len) == -1)
		return sp_error_set(err, "out of memory");
	return sp_pin_call(j, SP_NR_MSEAL, a, len, 0, 0, &ret, err);
}

/*
 * The late-code arena at the start of the band: mappings the supervisor
 * places go there (band.c), and nothing else lands in it.  Where the
 * reservation fails (RLIMIT_AS), placements still go there, with
 * MAP_FIXED_NOREPLACE.
 *
 * Below the band, a sealed PROT_NONE page: memory that grows down (a
 * piece of the stack mremap'ed into the band keeps VM_GROWSDOWN, blind
 * round 3, F2), made executable in the band under --allow-jit, would
 * otherwise grow out of it, where every filter lets calls through.  A
 * mapping grows into a gap only: never over another.
 */
int
sp_pin_reserve_arena(struct job *j, struct sp_error *err)
{
	uint64_t guard = SP_BAND_START - SP_BAND_GUARD;
	long ret;

	/* one mapping, the guard's page sealed alone: one call fewer */
	if (sp_pin_mmap(j, guard, SP_BAND_GUARD + SP_BAND_ARENA, PROT_NONE,
	    MAP_PRIVATE | MAP_NORESERVE | MAP_FIXED_NOREPLACE, &ret,
	    err) == -1)
		return -1;
	if ((uint64_t)ret != guard && sp_pin_mmap(j, guard, SP_BAND_GUARD,
	    PROT_NONE, MAP_PRIVATE | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
	    &ret, err) == -1)
		return -1;
	if ((uint64_t)ret != guard)
		return sp_error_set(err, "no room for the guard below the "
		    "late-code band at 0x%llx", (unsigned long long)guard);
	return sp_pin_seal(j, guard, SP_BAND_GUARD, err);
}

/* Whether pid's main stack is executable (-z execstack). */
static bool
stack_exec(pid_t pid)
{
	struct sp_error err;
	struct sp_map *m;
	char path[64];
	bool x = false;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(path, &m, &n, &err) == -1)
		return true;		/* assume the worst */
	for (size_t i = 0; i < n; i++)
		if (m[i].kind == SP_MAP_SPECIAL &&
		    strcmp(m[i].path, "[stack]") == 0)
			x = (m[i].prot & PROT_EXEC) != 0;
	sp_maps_free(m, n);
	return x;
}

/*
 * An executable stack grows without a system call: a sealed PROT_NONE
 * page at the bottom of its growth region (lib/layout/self.c) keeps it
 * there, whatever RLIMIT_STACK the program sets.
 */
int
sp_pin_guard_stack(struct job *j, struct sp_error *err)
{
	uint64_t bottom = 0;
	long ret;

	for (size_t i = 0; i < j->lo.nranges; i++)
		if (strcmp(j->lo.objs[j->lo.ranges[i].obj].name, "[stack]") == 0)
			bottom = j->lo.ranges[i].start;
	if (bottom == 0 || !stack_exec(j->pid))
		return 0;
	if (sp_pin_mmap(j, bottom, 4096, PROT_NONE, MAP_PRIVATE |
	    MAP_NORESERVE | MAP_FIXED_NOREPLACE, &ret, err) == -1)
		return -1;
	if (ret != (long)bottom)
		return sp_error_set(err, "no room for a guard below the "
		    "executable stack");
	return sp_pin_seal(j, bottom, 4096, err);
}

static int
by_start(const void *a, const void *b)
{
	const struct sp_layout_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * One mseal for two ranges where the gap between them is the second's
 * own object below its code (ld.so's ELF headers, right above the vDSO
 * the kernel put below it): one injected call fewer.  Nothing changes
 * the protection of an object's headers.  Where the gap is not all
 * mapped after all (mseal: ENOMEM), each is sealed alone.
 */
static int
seal_pair(struct job *j, const struct sp_layout_range *a,
    const struct sp_layout_range *b, bool *both, struct sp_error *err)
{
	uint64_t base = j->lo.objs[b->obj].base;
	long ret;

	*both = false;
	if (a->end != base || b->start <= base || b->start - base > (1u << 20))
		return 0;
	if (sp_pin_call(j, SP_NR_MSEAL, a->start, b->end - a->start, 0, 0,
	    &ret, err) == -1)
		return -1;
	if (ret != 0)
		return 0;
	if (sp_seals_add(&j->seals, a->start, b->end - a->start) == -1)
		return sp_error_set(err, "out of memory");
	*both = true;
	return 0;
}

/* What the kernel mapped is sealed now; what ld.so maps, at the entry. */
static int
seal_mapped(struct job *j, struct sp_error *err)
{
	struct sp_layout_range *v;
	size_t i, n = 0;
	bool both;
	int r = -1;

	if ((v = calloc(j->lo.nranges + 1, sizeof(*v))) == NULL)
		return sp_error_set(err, "out of memory");
	for (i = 0; i < j->lo.nranges; i++) {
		const struct sp_layout_range *g = &j->lo.ranges[i];
		const struct sp_object *o = &j->lo.objs[g->obj];
		if (o->kind == SP_OBJ_VSYSCALL || o->kind == SP_OBJ_UNKNOWN ||
		    (o->kind == SP_OBJ_FILE && g->start >= j->slot_lo &&
		    g->start < j->slot_hi))
			continue;
		v[n++] = *g;
	}
	qsort(v, n, sizeof(*v), by_start);
	for (i = 0; i < n; i++) {
		if (i + 1 < n && seal_pair(j, &v[i], &v[i + 1], &both,
		    err) == -1)
			goto out;
		if (i + 1 < n && both) {
			i++;
			continue;
		}
		if (sp_pin_seal(j, v[i].start, v[i].end - v[i].start,
		    err) == -1)
			goto out;
	}
	r = 0;
out:
	free(v);
	return r;
}

/* no_new_privs, unless it has CAP_SYS_ADMIN (setuid programs then keep
 * working): unknown capabilities (all bits) are no reason to skip it;
 * set, it stays (an exec keeps it, nothing clears it). */
int
sp_pin_nnp(struct job *j, struct sp_error *err)
{
	long ret;

	if (j->st.no_new_privs == 1) {
		j->nnp = true;
		return 0;
	}
	if (j->st.cap_eff != ~0ull && ((j->st.cap_eff >> CAP_SYS_ADMIN) & 1))
		return 0;
	if (sp_pin_call(j, SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, &ret,
	    err) == -1)
		return -1;
	if (ret != 0)
		return sp_error_sys(err, (int)-ret, "no_new_privs");
	j->nnp = true;
	return 0;
}

static int
install(struct job *j, unsigned how, struct sp_pin_result *res,
    struct sp_error *err)
{
	long ret;

	if (sp_pin_reserve_arena(j, err) == -1 ||
	    sp_pin_guard_stack(j, err) == -1)
		return -1;
	if (j->nslots > 0 && sp_startup_reserve(j, err) == -1)
		return -1;
	if (sp_pin_nnp(j, err) == -1 || seal_mapped(j, err) == -1)
		return -1;
	if (how & SP_PIN_STOPS_ALL) {	/* every call stops already */
		res->stops_all = true;
		return 0;
	}
	if (how & SP_PIN_TRACE_ALL) {	/* syspin trace: every call stops */
		res->stops_all = true;
		return sp_pin_trace_all(j, err);
	}
	if (sp_pin_install_progs(j, j->progs, j->nprogs, &ret, err) == -1)
		return -1;
	/* Programs installed before the refusal pin a part of the same
	 * pins exactly: harmless under what the fallback installs. */
	if (ret == -ENOMEM)
		return sp_pin_fallback(j, res, err);
	if (ret != 0)
		return sp_error_sys(err, (int)-ret, "seccomp in the process");
	return 0;
}

/*
 * What install did, checked where the kernel keeps it (verify.c): the
 * filters by their count, the seals where the process has filters the
 * supervisor did not install.
 */
static int
installed(struct job *j, unsigned how, struct sp_error *err)
{
	if (j->filters < 0)
		return sp_error_set(err, "cannot read the process's seccomp "
		    "filter count");
	if (sp_verify_installed(j->pid, j->filters + (long)j->installed,
	    j->nnp, err) == -1)
		return -1;
	return how & SP_PIN_CHECK_SEALS ? sp_verify_sealed(j->pid, &j->seals,
	    err) : 0;
}

/* --deny / --allow: the supervisor answers (verdict.c). */
void
sp_pin_narrow(const struct job *j, struct sp_bpf_input *in)
{
	in->narrow = j->o->narrow;
	in->narrowed = SECCOMP_RET_TRACE | SP_BPF_NARROW_DATA;
}

static int
generate(struct job *j, struct sp_error *err)
{
	struct sp_bpf_input in;

	/* the seals injected at the entry point, after the filter */
	if (sp_placement_add_pin(&j->pl, SP_NR_MSEAL, j->in.trap + 2) == -1)
		return sp_error_set(err, "out of memory");
	j->pl.slots = (struct sp_bpf_range){ j->slot_lo,
	    j->slot_lo + j->slot_used };
	sp_placement_bpf_input(&j->pl, j->flags, SP_ANSWER_SUPERVISOR,
	    &in);
	sp_pin_narrow(j, &in);
	return sp_bpf_generate(&in, &j->progs, &j->nprogs, err);
}

/* --dlopen: what those objects pass to libc's syscall() is pinned at
 * its export site now, instead of judged at a stop (later.c). */
static int
add_later(struct job *j, struct sp_error *err)
{
	struct sp_error why;

	for (size_t i = 0; i < j->o->ndlopen; i++)
		if (sp_layout_add_later(&j->lo, j->o->dlopen[i], &why) == -1 &&
		    j->o->verbose)
			fprintf(stderr, "syspin: --dlopen %s\n", why.msg);
	(void)err;
	return 0;
}

/* The stack is among the executable mappings the layout was read from
 * (the stopped image changes none of them): else its growth region needs
 * no second read of the maps. */
static bool
stack_in_layout(const struct sp_layout *lo)
{
	for (size_t i = 0; i < lo->nranges; i++)
		if (strcmp(lo->objs[lo->ranges[i].obj].name, "[stack]") == 0)
			return true;
	return false;
}

/*
 * The layout, and the start-up objects predicted; then either an earlier
 * image of the same program whose filter will judge this one (reuse.c:
 * *reused is its index), or the slots, tables, pins and a filter of its
 * own.
 */
static int
prepare(struct job *j, const struct sp_pin_result *const *prior,
    size_t nprior, long *reused, struct sp_error *err)
{
	struct sp_phase_mark m;
	int r;

	*reused = -1;
	sp_phase_mark(&m);
	if (ptrace(PTRACE_GETREGS, j->pid, 0, &j->regs) == -1)
		return sp_error_sys(err, errno, "ptrace getregs");
	if (sp_auxv_pid(j->pid, &j->aux, err) == -1 ||
	    sp_layout_pid(j->pid, &j->lo, err) == -1)
		return -1;
	sp_startup_mark_loader(j);
	if (sp_startup_predict(j, err) == -1 || find_trap(j, err) == -1)
		return -1;
	for (size_t i = 0; i < nprior; i++)
		if ((r = sp_pin_reuse(j, prior[i], err)) != 0) {
			*reused = (long)i;
			sp_phase_add(SP_PH_PREDICT, &m);
			r = r == -1 ? -1 : sp_startup_slots(j) ?
			    sp_startup_place_at(j, prior[i]->slot_lo, err) : 0;
			sp_phase_add(SP_PH_PLACE, &m);
			return r;
		}
	sp_phase_add(SP_PH_PREDICT, &m);
	if (sp_startup_slots(j) && sp_startup_place(j, err) == -1)
		return -1;
	sp_phase_add(SP_PH_PLACE, &m);
	if ((stack_in_layout(&j->lo) &&
	    sp_layout_add_stack(&j->lo, j->pid, err) == -1) ||
	    add_later(j, err) == -1 || tables(j, err) == -1)
		return -1;
	sp_phase_add(SP_PH_TABLES, &m);
	if (sp_layout_place(&j->lo, &j->pl, err) == -1)
		return -1;
	sp_phase_add(SP_PH_PLACE, &m);
	/* ld.so execs only a static program it runs by name (a dynamic one
	 * it runs is slots[0]): else its exec sites go now, not at the entry
	 * point, which a chain can jump past (blind round 4) */
	if (!j->ldso_exe || j->ldso_runs)
		sp_placement_drop_loader_exec(&j->pl, &j->lo);
	r = generate(j, err);
	sp_phase_add(SP_PH_GENERATE, &m);
	return r;
}

/* Reused: the reservations and the seals of the moved image, no filter
 * (the earlier image's judges it). */
static int
install_reused(struct job *j, const struct sp_pin_result *a,
    struct sp_error *err)
{
	size_t i;

	if (sp_pin_reserve_arena(j, err) == -1 ||
	    (j->nslots > 0 && sp_startup_reserve(j, err) == -1))
		return -1;
	for (i = 0; i < a->lo.nranges; i++) {
		const struct sp_layout_range *r = &a->lo.ranges[i];
		enum sp_obj_kind k = a->lo.objs[r->obj].kind;
		if ((k != SP_OBJ_FILE && k != SP_OBJ_VDSO) ||
		    (r->start >= a->slot_lo && r->start < a->slot_hi))
			continue;
		if (sp_pin_seal(j, r->start, r->end - r->start, err) == -1)
			return -1;
	}
	return 0;
}

/* The result keeps the program, the layout and the slots. */
void
sp_pin_hand_over(struct job *j, struct sp_pin_result *res)
{
	res->progs = j->progs;
	res->nprogs = j->nprogs;
	res->lo = j->lo;
	res->pl = j->pl;
	res->slots = j->slots;
	res->nslots = j->nslots;
	res->slot_lo = j->slot_lo;
	res->slot_hi = j->slot_hi;
	res->entry = sp_startup_entry(j);
	res->entry_hw = j->ldso_runs;
	res->loader_exec = j->ldso_exe && !j->ldso_runs;
	res->trap = j->in.trap;
	j->progs = NULL;
	j->nprogs = 0;
	memset(&j->lo, 0, sizeof(j->lo));
	memset(&j->pl, 0, sizeof(j->pl));
	j->slots = NULL;
	j->nslots = 0;
}


/* What a job still holds (hand_over took what the result keeps). */
void
sp_pin_job_free(struct job *j)
{
	sp_bpf_free(j->progs, j->nprogs);
	sp_placement_free(&j->pl);
	sp_layout_free(&j->lo);
	sp_startup_free(j->slots, j->nslots);
	sp_seals_free(&j->seals);
}

int
sp_pin_process(pid_t pid, const struct sp_pin_opts *o, unsigned how,
    long known_filters, const struct sp_pin_result *const *prior,
    size_t nprior,
    struct sp_pin_result *res, struct sp_error *err)
{
	struct sp_phase_mark m;
	struct sp_error rerr;
	struct job j;
	long reused;
	int r = -1;

	memset(&j, 0, sizeof(j));
	memset(res, 0, sizeof(*res));
	j.pid = pid;
	j.o = o;
	(void)sp_proc_state(pid, &j.st);
	if (!(how & SP_PIN_FIRST) && j.st.filters != known_filters) {
		how |= SP_PIN_CHECK_SEALS;
		res->own_filters = true;
	}
	j.flags = image_flags(&j.st, o->flags);
	j.filters = j.st.filters;
	j.first = how & SP_PIN_FIRST;
	j.own_filters = how & SP_PIN_CHECK_SEALS;
	j.in.pid = pid;
	j.in.pass_trace = true;
	r = prepare(&j, prior, nprior, &reused, err);
	sp_phase_mark(&m);	/* prepare counts its own phases */
	if (r == 0)
		r = how & SP_PIN_DRY ? 0 : reused >= 0 ?
		    install_reused(&j, prior[reused], err) :
		    install(&j, how, res, err);
	if (r == 0 && !(how & SP_PIN_DRY))
		r = installed(&j, how, err);
	res->filters = j.filters + (long)j.installed;
	if (sp_pin_restore(&j, &rerr) == -1 && r == 0)
		r = sp_error_set(err, "%s", rerr.msg);
	sp_phase_add(SP_PH_INSTALL, &m);
	res->reused = reused;
	if (r == 0 && o->verbose && reused >= 0)
		fprintf(stderr, "syspin: [%ld]: moved to the addresses of an "
		    "earlier image of the same program, whose filter judges "
		    "it\n", (long)pid);
	else if (r == 0 && o->verbose)
		sp_pin_say(&j, res);
	res->sig = j.in.pending_sig;
	res->flags = j.flags;
	res->entry = sp_startup_entry(&j);
	res->entry_hw = j.ldso_runs;
	if (r == 0 && reused < 0)
		sp_pin_hand_over(&j, res);
	sp_pin_job_free(&j);
	return r;
}

/* The late-code band holds no pinned range: what is there came later. */
static void
drop_band(struct sp_layout *lo)
{
	size_t i, o = 0;

	for (i = 0; i < lo->nranges; i++)
		if (lo->ranges[i].start < SP_BAND_START ||
		    lo->ranges[i].start >= SP_BAND_END)
			lo->ranges[o++] = lo->ranges[i];
	lo->nranges = o;
}

/* The program for the running process j->pid, as it is mapped now:
 * layout, tables, placement (nothing in the band), trap, filter. */
int
sp_pin_build_running(struct job *j, struct sp_error *err)
{
	(void)sp_proc_state(j->pid, &j->st);
	/* No io_uring for the image that ran before its pins: a ring it
	 * made then, registered and its descriptor closed, shows nowhere
	 * (no descriptor, no mapping with IORING_SETUP_NO_MMAP) and runs
	 * requests with a personality of before, outside the domain
	 * (blind round 23).  What it execs gets its own filter, and an
	 * exec drops a task's registered rings. */
	j->flags = image_flags(&j->st, j->o->flags) | SP_BPF_NO_URING;
	j->filters = j->st.filters;
	j->in.pid = j->pid;
	if (sp_auxv_pid(j->pid, &j->aux, err) == -1 ||
	    sp_layout_pid(j->pid, &j->lo, err) == -1)
		return -1;
	drop_band(&j->lo);
	sp_startup_mark_loader(j);
	if (sp_layout_add_stack(&j->lo, j->pid, err) == -1 ||
	    add_later(j, err) == -1 || tables(j, err) == -1 ||
	    sp_layout_place(&j->lo, &j->pl, err) == -1 ||
	    find_trap(j, err) == -1)
		return -1;
	sp_placement_drop_loader_exec(&j->pl, &j->lo);
	return generate(j, err);
}

int
sp_pin_rebuild(pid_t pid, const struct sp_pin_opts *o,
    struct sp_pin_result *res, struct sp_error *err)
{
	struct job j;
	int r;

	memset(&j, 0, sizeof(j));
	memset(res, 0, sizeof(*res));
	j.pid = pid;
	j.o = o;
	r = sp_pin_build_running(&j, err);
	if (r == 0)
		sp_pin_hand_over(&j, res);
	res->loader_exec = false;	/* dropped above */
	res->flags = j.flags;
	sp_pin_job_free(&j);
	return r;
}

void
sp_pin_result_free(struct sp_pin_result *res)
{
	sp_bpf_free(res->progs, res->nprogs);
	sp_layout_free(&res->lo);
	sp_placement_free(&res->pl);
	sp_startup_free(res->slots, res->nslots);
	memset(res, 0, sizeof(*res));
}
