/* SPDX-License-Identifier: ISC */
/*
 * A dynamic image is pinned before ld.so runs, so its start-up objects
 * are pinned before they exist.  The objects ld.so may map (a superset:
 * lib/layout/needed.c) each get a slot in one region reserved below ld.so;
 * the filter pins their sites there, and lets ld.so's mmap put code in
 * the region.  When ld.so reserves room for an object (its first mmap of
 * the file, or of PROT_NONE memory for an object aligned above a page),
 * the filter stops the call and the supervisor moves it into the object's
 * slot (band.c).  At the entry point the slots are checked and sealed.
 *
 * What the environment names is not the program's: in a descendant, an
 * object only LD_PRELOAD brings gets no slot (it is late code, in the
 * band, with no system call of its own), and LD_AUDIT (whose modules run
 * while ld.so loads, before anything else) is refused.  The first image's
 * environment is the user's: its preloads get slots.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include "elf/elf.h"
#include "layout/needed.h"
#include "layout/procfs.h"

#include "pin_int.h"

#define PAGE 4096ull
#define MARGIN (1ull << 32)	/* the filter's "len < 4 GiB" room */
#define ENV_MAX (4 << 20)
#define ENV_FIRST (16 << 10)

static uint64_t
align_up(uint64_t a, uint64_t to)
{
	return (a + to - 1) & ~(to - 1);
}

static uint64_t
random_pages(uint64_t max)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		return 0;
	return (r % max) * PAGE;
}

/* What ld.so reserves for an object of span bytes aligned to align. */
uint64_t
sp_slot_maplen(uint64_t span, uint64_t align)
{
	if (align <= PAGE)
		return span;
	return span >= align ? span + align : 2 * align;
}

static char *
proc_link(pid_t pid, const char *what)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, what);
	if ((n = readlink(path, buf, sizeof(buf) - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* The LD_* variables ld.so obeys, from the new image's environment. */
struct env {
	char *library_path;	/* every LD_LIBRARY_PATH, joined */
	char *preload;		/* every LD_PRELOAD, joined */
	bool audit;		/* LD_AUDIT, not empty */
	bool trace;		/* LD_TRACE_LOADED_OBJECTS: ldd's listing */
};

static int
append(char **to, const char *v)
{
	char *n;

	if (asprintf(&n, "%s%s%s", *to ? *to : "", *to ? ":" : "", v) == -1)
		return -1;
	free(*to);
	*to = n;
	return 0;
}

static int
read_env(pid_t pid, struct env *e, struct sp_error *err)
{
	char path[64], *buf, *grown;
	ssize_t n, got = 0, cap = ENV_FIRST;
	int fd, r = 0;

	memset(e, 0, sizeof(*e));
	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return sp_error_sys(err, errno, "%s", path);
	/* grown as needed: a buffer of ENV_MAX at every exec was a huge
	 * page cleared by the kernel, a fifth of the supervisor's time */
	if ((buf = malloc(cap + 1)) == NULL) {
		close(fd);
		return sp_error_set(err, "out of memory");
	}
	while (got < ENV_MAX && (n = read(fd, buf + got, cap - got)) > 0)
		if ((got += n) == cap && cap < ENV_MAX) {
			cap = 2 * cap < ENV_MAX ? 2 * cap : ENV_MAX;
			if ((grown = realloc(buf, cap + 1)) == NULL) {
				close(fd);
				free(buf);
				return sp_error_set(err, "out of memory");
			}
			buf = grown;
		}
	/* what lies past the bound would be ld.so's and not ours (LD_AUDIT
	 * after 4 MiB of padding: blind round 4): no image of that */
	if (got == ENV_MAX && read(fd, path, 1) > 0) {
		close(fd);
		free(buf);
		return sp_error_set(err, "an environment of more than %d "
		    "bytes", ENV_MAX);
	}
	close(fd);
	buf[got] = '\0';
	for (char *p = buf; p < buf + got && r == 0; p += strlen(p) + 1) {
		if (strncmp(p, "LD_LIBRARY_PATH=", 16) == 0)
			r = append(&e->library_path, p + 16);
		else if (strncmp(p, "LD_PRELOAD=", 11) == 0)
			r = append(&e->preload, p + 11);
		else if (strncmp(p, "LD_AUDIT=", 9) == 0 && p[9] != '\0')
			e->audit = true;
		else if (strncmp(p, "LD_TRACE_LOADED_OBJECTS=", 24) == 0)
			e->trace = true;
	}
	free(buf);
	return r == 0 ? 0 : sp_error_set(err, "out of memory");
}

static void
env_free(struct env *e)
{
	free(e->library_path);
	free(e->preload);
}

/*
 * Will ld.so get as far as running prog?  Not when it is missing or no
 * x86-64 ELF file: then ld.so says so itself (status 127), as unpinned.
 * (In a chroot, where prog is not our path, it is left to the search.)
 */
static bool
runnable(const struct sp_needed_in *in, const char *prog)
{
	char path[PATH_MAX];
	struct sp_error e;

	if (in->root != NULL)
		return true;
	if (prog[0] != '/' && in->cwd != NULL) {
		if (snprintf(path, sizeof(path), "%s/%s", in->cwd, prog) >=
		    (int)sizeof(path))
			return false;
		prog = path;
	}
	/* Opened only when it is a regular file (lib/util/file.h). */
	return sp_elf_check_file(prog, &e) == 0;
}

/*
 * ld.so run by name to run PROG: PROG and what it needs, as ld.so will
 * look for them (its --library-path, --preload, --inhibit-cache).  1 when
 * it runs one (in is set), 0 when not: PROG, if any, is then late code
 * (ld.so --list, ldd).
 */
static int
ldso_runs(struct job *j, const struct env *e, struct sp_ldso_run *run,
    struct sp_needed_in *in, struct sp_error *err)
{
	if (!j->ldso_exe || e->trace)
		return 0;
	if (sp_ldso_run_read(j->pid, run) == -1)
		return sp_error_set(err, "out of memory");
	if (run->audit)
		return sp_error_set(err, "ld.so --audit: its modules would "
		    "run while ld.so loads, before any pin (not supported)");
	if (run->prog == NULL || !runnable(in, run->prog))
		return 0;
	in->exe = run->prog;
	in->map_exe = true;
	if (run->library_path != NULL)
		in->ld_library_path = run->library_path;
	if (run->inhibit_cache)
		in->ldcache_file = NULL;
	return 1;
}

static int
predict(struct job *j, struct sp_needed *n, struct sp_error *err)
{
	char rootdir[64], preload[96], ldcache[96], *exe, *cwd, *root;
	struct sp_ldso_run run;
	struct sp_needed_in in;
	struct env e;
	int r = -1, runs = 0;

	memset(n, 0, sizeof(*n));
	memset(&run, 0, sizeof(run));
	if (read_env(j->pid, &e, err) == -1)
		return -1;
	exe = proc_link(j->pid, "exe");
	cwd = proc_link(j->pid, "cwd");
	root = proc_link(j->pid, "root");
	memset(&in, 0, sizeof(in));
	in.preload_file = "/etc/ld.so.preload";
	in.ldcache_file = "/etc/ld.so.cache";
	/* chroot: its files, found below its root, as it names them. */
	if (root != NULL && strcmp(root, "/") != 0) {
		snprintf(rootdir, sizeof(rootdir), "/proc/%ld/root",
		    (long)j->pid);
		snprintf(preload, sizeof(preload), "%s%s", rootdir,
		    in.preload_file);
		snprintf(ldcache, sizeof(ldcache), "%s%s", rootdir,
		    in.ldcache_file);
		in.root = rootdir;
		in.root_view = root;
		in.preload_file = preload;
		in.ldcache_file = ldcache;
	}
	in.exe = sp_needed_unrooted(in.root_view, exe);
	in.cwd = sp_needed_unrooted(in.root_view, cwd);
	in.ld_library_path = e.library_path;
	in.secure = j->aux.secure;
	if (e.audit)
		sp_error_set(err, "LD_AUDIT is set: its modules would run "
		    "while ld.so loads, before any pin (not supported)");
	else if (exe == NULL)
		sp_error_set(err, "cannot read /proc/%ld/exe", (long)j->pid);
	else if ((runs = ldso_runs(j, &e, &run, &in, err)) == -1)
		;
	else if (j->ldso_exe && runs == 0)
		r = 0;		/* no start-up objects of its own */
	else {
		if (run.preload != NULL &&
		    append(&e.preload, run.preload) == -1) {
			sp_error_set(err, "out of memory");
			goto out;
		}
		in.ld_preload = e.preload;
		r = sp_needed_resolve(&in, n, err);
		if (r == 0 && n->audit) {
			sp_needed_free(n);
			r = sp_error_set(err, "%s: DT_AUDIT: its modules would "
			    "run before any pin (not supported)", in.exe);
		}
		/* Late code, PROG could not make one call: say why now
		 * (a fixed-address PROG cannot go into a slot). */
		if (r == -1 && runs == 1) {
			struct sp_error why = *err;
			sp_error_set(err, "ld.so runs %s", why.msg);
		}
		j->ldso_runs = r == 0 && runs == 1;
		if (j->ldso_runs)
			j->prog_entry_off = n->objs[0].entry;
	}
out:
	free(exe);
	free(cwd);
	free(root);
	sp_ldso_run_free(&run);
	env_free(&e);
	return r;
}

/* ld.so and the vDSO, mapped by the kernel: the slots go below them. */
static uint64_t
lowest_kernel_mapping(const struct job *j)
{
	uint64_t lo = UINT64_MAX;
	size_t i;

	for (i = 0; i < j->lo.nranges; i++) {
		const struct sp_object *o = &j->lo.objs[j->lo.ranges[i].obj];
		if ((o->loader || o->kind == SP_OBJ_VDSO) &&
		    j->lo.ranges[i].start < lo)
			lo = j->lo.ranges[i].start;
	}
	return lo;
}

/*
 * The loader places the objects it maps (band.c): the interpreter
 * (AT_BASE); without one, the program itself when it is a dynamic loader
 * run by name (`ld.so PROG`, ldd): it then maps PROG, whose reservation,
 * placed in the late-code band, is where PROG's code may go.  Without the
 * mark, PROG's code (mapped MAP_FIXED over a reservation ld.so made where
 * it liked) is refused, and ldd fails ("not a dynamic executable").
 */
void
sp_startup_mark_loader(struct job *j)
{
	struct sp_error err;
	char path[64];
	int fd, r;

	for (size_t i = 0; j->aux.base != 0 && i < j->lo.nobjs; i++)
		if (j->lo.objs[i].kind == SP_OBJ_FILE &&
		    j->lo.objs[i].base == j->aux.base)
			j->lo.objs[i].loader = true;
	if (j->aux.base != 0)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)j->pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	r = sp_elf_fd_is_loader(fd, &err);
	close(fd);
	j->ldso_exe = r == 1;
	for (size_t i = 0; r == 1 && i < j->lo.nranges; i++) {
		struct sp_object *o = &j->lo.objs[j->lo.ranges[i].obj];
		if (o->kind == SP_OBJ_FILE && j->aux.entry >=
		    j->lo.ranges[i].start && j->aux.entry < j->lo.ranges[i].end)
			o->loader = true;
	}
}

static bool
wanted(const struct job *j, const struct sp_needed_obj *o)
{
	return (o->flags & SP_NEEDED_PROGRAM) ||
	    (j->first && (o->flags & SP_NEEDED_ENV));
}

/* Slots, one after the other, each on its own alignment, a page apart,
 * from 0: the same objects always get the same relative layout. */
static int
lay_out(struct job *j, const struct sp_needed *n, struct sp_error *err)
{
	uint64_t used = 0;
	size_t i, k = 0;

	if ((j->slots = calloc(n->nobjs + 1, sizeof(*j->slots))) == NULL)
		return sp_error_set(err, "out of memory");
	for (i = 0; i < n->nobjs; i++) {
		const struct sp_needed_obj *o = &n->objs[i];
		struct sp_slot *s = &j->slots[k];
		if (!wanted(j, o))
			continue;
		s->align = o->align > PAGE ? o->align : PAGE;
		s->span = o->span;
		s->room = align_up(sp_slot_maplen(o->span, s->align), PAGE);
		s->base = align_up(used, s->align);
		s->id = o->id;
		if ((s->path = strdup(o->path)) == NULL)
			return sp_error_set(err, "out of memory");
		used = s->base + s->room + PAGE;
		k++;
	}
	j->nslots = k;
	j->slot_used = used;
	return 0;
}

/* Each slot's object in the layout, with its ranges there; the whole
 * region a range of its own (no call may come from its gaps). */
static int
add_to_layout(struct job *j, struct sp_error *err)
{
	struct sp_error why;
	size_t i;
	long oi;

	for (i = 0; i < j->nslots; i++)
		if (sp_layout_add_file(&j->lo, j->slots[i].path,
		    &j->slots[i].id, j->slots[i].base, &why) < 0 &&
		    j->o->verbose)
			fprintf(stderr, "syspin: [%ld]: %s: no pins\n",
			    (long)j->pid, why.msg);
	if ((oi = sp_layout_add_object(&j->lo, "[start-up region]",
	    SP_OBJ_UNKNOWN, 0)) < 0 || sp_layout_add_range(&j->lo, j->slot_lo,
	    j->slot_hi, (size_t)oi) == -1)
		return sp_error_set(err, "out of memory");
	return 0;
}

int
sp_startup_predict(struct job *j, struct sp_error *err)
{
	struct sp_needed n;
	int r;

	if (j->aux.base == 0 && !j->ldso_exe)
		return 0;	/* static: ld.so maps nothing */
	if (predict(j, &n, err) == -1)
		return -1;
	r = lay_out(j, &n, err);
	sp_needed_free(&n);
	return r;
}

bool
sp_startup_slots(const struct job *j)
{
	return j->aux.base != 0 || j->ldso_runs;
}

uint64_t
sp_startup_entry(const struct job *j)
{
	/* ld.so PROG: PROG's reservation went into slots[0] */
	return j->ldso_runs && j->nslots > 0 ? j->slots[0].base +
	    j->prog_entry_off : j->aux.entry;
}

int
sp_startup_place_at(struct job *j, uint64_t x, struct sp_error *err)
{
	for (size_t i = 0; i < j->nslots; i++)
		j->slots[i].base += x;
	j->slot_lo = x;
	j->slot_hi = x + j->slot_used + MARGIN;
	return add_to_layout(j, err);
}

/* Below ld.so, at a random distance, aligned for the largest object. */
int
sp_startup_place(struct job *j, struct sp_error *err)
{
	uint64_t top = lowest_kernel_mapping(j), used = j->slot_used, x;

	x = top - used - MARGIN - random_pages(1u << 16);
	x &= ~(uint64_t)((1u << 21) - 1);
	/* The kernel maps below TASK_SIZE minus the stack's limit: an
	 * unlimited one (or one of tens of TiB) puts ld.so at a sixth of
	 * the address space, where the late-code band is. */
	if (top != UINT64_MAX && top < SP_BAND_END + used + MARGIN)
		return sp_error_set(err, "the kernel mapped ld.so at 0x%llx, "
		    "inside the late-code band: the stack limit is unlimited "
		    "or too large (ulimit -s); run it with a finite one",
		    (unsigned long long)top);
	if (top == UINT64_MAX || top < used + MARGIN + (2ull << 30) ||
	    x < SP_BAND_END)
		return sp_error_set(err, "no room for the start-up objects "
		    "below ld.so");
	return sp_startup_place_at(j, x, err);
}

int
sp_startup_reserve(struct job *j, struct sp_error *err)
{
	long ret;

	if (sp_pin_mmap(j, j->slot_lo, j->slot_hi - j->slot_lo, PROT_NONE,
	    MAP_PRIVATE | MAP_NORESERVE | MAP_FIXED_NOREPLACE, &ret,
	    err) == -1)
		return -1;
	if (ret < 0 && ret > -4096)
		return sp_error_sys(err, (int)-ret, "cannot reserve the "
		    "start-up region at 0x%llx",
		    (unsigned long long)j->slot_lo);
	if ((uint64_t)ret != j->slot_lo)
		return sp_error_set(err, "cannot reserve the start-up region "
		    "at 0x%llx: moved", (unsigned long long)j->slot_lo);
	return 0;
}

void
sp_startup_free(struct sp_slot *slots, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(slots[i].path);
	free(slots);
}

/* The slot whose room holds addr, or -1. */
static long
slot_at(const struct sp_pin_result *res, uint64_t addr)
{
	for (size_t i = 0; i < res->nslots; i++)
		if (addr >= res->slots[i].base &&
		    addr < res->slots[i].base + res->slots[i].room)
			return (long)i;
	return -1;
}

/* Whether m lies in placed slot k's room and is its object's file or
 * memory it made (its bss). */
static bool
in_room(const struct sp_pin_result *res, const bool *placed,
    const struct sp_map *m)
{
	long k = slot_at(res, m->start);

	return k >= 0 && placed[k] && m->end <= res->slots[k].base +
	    res->slots[k].room && ((m->dev == res->slots[k].id.dev &&
	    m->inode == res->slots[k].id.ino) || m->inode == 0);
}

/*
 * Every executable mapping in the region is a placed slot's object.
 * *plain: the region holds nothing else either but the reservation's
 * PROT_NONE memory, so that all of it may be sealed.
 */
static int
check_region(const struct sp_pin_result *res, const bool *placed,
    const struct sp_map *m, size_t n, bool *plain, struct sp_error *err)
{
	*plain = true;
	for (size_t i = 0; i < n; i++) {
		if (m[i].end <= res->slot_lo || m[i].start >= res->slot_hi)
			continue;
		if (m[i].start < res->slot_lo || m[i].end > res->slot_hi ||
		    (m[i].prot != PROT_NONE && !in_room(res, placed, &m[i])) ||
		    (m[i].prot == PROT_NONE && m[i].inode != 0 &&
		    !in_room(res, placed, &m[i])))
			*plain = false;
		if (!(m[i].prot & PROT_EXEC))
			continue;
		if (!in_room(res, placed, &m[i]) || m[i].inode == 0)
			return sp_error_set(err, "unexpected code at 0x%llx in "
			    "the start-up region (%s)",
			    (unsigned long long)m[i].start, m[i].path);
	}
	return 0;
}

static int
seal(struct sp_inject *in, struct sp_seals *done, uint64_t a, uint64_t len,
    long *ret, struct sp_error *err)
{
	uint64_t args[6] = { a, len, 0, 0, 0, 0 };

	if (sp_seals_add(done, a, len) == -1)
		return sp_error_set(err, "out of memory");
	return sp_inject_syscall(in, SP_NR_MSEAL, args, 6, ret, err);
}

#define HOLES_MAX 16

/*
 * The whole region sealed: its holes (what ld.so unmapped of an over-
 * aligned object's room) filled with PROT_NONE first, as mseal(2) wants
 * every page of its range mapped.  *whole false where that could not be
 * done (a kernel without mseal, a hole taken meanwhile, too many).
 */
static int
seal_whole(struct sp_inject *in, const struct sp_pin_result *res,
    const struct sp_map *m, size_t n, struct sp_seals *done, bool *whole,
    struct sp_error *err)
{
	uint64_t at = res->slot_lo, lo, args[6];
	size_t holes = 0;
	long ret;

	*whole = false;
	for (size_t i = 0; i <= n && at < res->slot_hi; i++) {
		lo = i < n ? m[i].start : res->slot_hi;
		if (i < n && m[i].end <= at)
			continue;
		if (lo > at) {
			lo = lo < res->slot_hi ? lo : res->slot_hi;
			if (++holes > HOLES_MAX)
				return 0;
			args[0] = at;
			args[1] = lo - at;
			args[2] = PROT_NONE;
			args[3] = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			    MAP_FIXED_NOREPLACE;
			args[4] = (uint64_t)-1;
			args[5] = 0;
			if (sp_inject_syscall(in, SYS_mmap, args, 6, &ret,
			    err) == -1)
				return -1;
			if ((uint64_t)ret != at)
				return 0;
		}
		if (i < n)
			at = m[i].end;
	}
	args[0] = res->slot_lo;
	args[1] = res->slot_hi - res->slot_lo;
	args[2] = args[3] = args[4] = args[5] = 0;
	if (sp_inject_syscall(in, SP_NR_MSEAL, args, 6, &ret, err) == -1)
		return -1;
	if (ret == 0 && sp_seals_add(done, args[0], args[1]) == -1)
		return sp_error_set(err, "out of memory");
	*whole = ret == 0;
	return 0;
}

/*
 * At the entry point ld.so has mapped the start-up objects: what lies in
 * the region must be theirs, each in its own slot.  Then the whole region
 * is sealed: nothing is mapped, unmapped or made executable there from
 * now on, which ends ld.so's leave to map code into it.  Where the region
 * holds memory of another kind, or cannot be sealed whole (*whole false:
 * the entry filter keeps code out instead, entry.c), each object's code
 * and the unused slots are (their pins no code may ever reach).
 */
int
sp_pin_seal_slots(pid_t pid, const struct sp_pin_result *res,
    const bool *placed, bool check, bool *whole, struct sp_error *err)
{
	struct sp_inject in = { .pid = pid, .trap = res->trap,
	    .pass_trace = true };
	struct sp_seals done = { NULL, 0, 0 };
	struct user_regs_struct regs;
	struct sp_map *m;
	char path[64];
	size_t i, n;
	bool plain;
	long k, ret;
	int r = 0;

	*whole = false;
	if (res->nslots == 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(path, &m, &n, err) == -1)
		return -1;
	if (check_region(res, placed, m, n, &plain, err) == -1) {
		sp_maps_free(m, n);
		return -1;
	}
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) == -1) {
		sp_maps_free(m, n);
		return sp_error_sys(err, errno, "ptrace getregs");
	}
	if (plain)
		r = seal_whole(&in, res, m, n, &done, whole, err);
	sp_maps_free(m, n);
	for (i = 0; i < res->lo.nranges && r == 0 && !*whole; i++) {
		const struct sp_layout_range *g = &res->lo.ranges[i];
		if (res->lo.objs[g->obj].kind != SP_OBJ_FILE ||
		    (k = slot_at(res, g->start)) < 0 || !placed[k])
			continue;
		r = seal(&in, &done, g->start, g->end - g->start, &ret, err);
	}
	for (i = 0; i < res->nslots && r == 0 && !*whole; i++)
		if (!placed[i])
			r = seal(&in, &done, res->slots[i].base,
			    res->slots[i].room, &ret, err);
	if (sp_inject_restore(&in, &regs, r == 0 ? err : NULL) == -1 &&
	    r == 0)
		r = -1;
	if (r == 0 && check)
		r = sp_verify_sealed(pid, &done, err);
	sp_seals_free(&done);
	return r;
}
