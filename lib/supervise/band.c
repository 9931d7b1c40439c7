/* SPDX-License-Identifier: ISC */
/*
 * Where a mapping goes when the filter stops it for placement
 * (SP_BPF_PLACE_DATA): ld.so reserving room for an object, or any mmap of
 * new code that names no address.  While ld.so maps the start-up objects,
 * each goes into its slot (startup.c), found by the file (or, for an
 * object aligned above a page, whose room ld.so reserves as PROT_NONE
 * memory first, by the size it asks for).  Everything else, and
 * everything after the entry point, goes into the late-code band, where
 * no system call may come from: a dlopen'ed object's own code makes
 * none, as on OpenBSD (its calls to libc's functions are libc's).
 *
 * With --exec=trusted a file's code mapped MAP_FIXED into the band stops
 * too, only to have its file checked: it stays where it asked to be.
 *
 * The call is rewritten to MAP_FIXED at the chosen address and resumed;
 * the kernel runs the filters again on it, which now allow it.  Late
 * mappings go to random places inside the arena reserved at pinning, so
 * that dlopen'ed objects keep their address randomization.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <unistd.h>

#include "util/file.h"
#include "pin_int.h"
#include "supervise_int.h"
#include "layout/procfs.h"

#define PAGE 4096ull
#define HUGE (2ull << 20)

static uint64_t
rnd(uint64_t n)
{
	uint64_t r = 0;

	return n == 0 || getrandom(&r, sizeof(r), 0) != sizeof(r) ? 0 : r % n;
}

/*
 * The first hole of len bytes (and a page on each side) in the band at or
 * after from, in pid's mappings; 0 if none.
 */
static uint64_t
band_hole(pid_t pid, uint64_t from, uint64_t len)
{
	uint64_t at = from, end = SP_BAND_END - SP_BAND_MARGIN;
	struct sp_error err;
	struct sp_map *m;
	char path[64];
	size_t n, i;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(path, &m, &n, &err) == -1)
		return 0;
	for (i = 0; i < n && at + PAGE + len + PAGE <= end; i++) {
		if (m[i].end <= at)
			continue;
		if (m[i].start >= at + PAGE + len + PAGE)
			break;
		at = m[i].end;
	}
	sp_maps_free(m, n);
	return at + PAGE + len + PAGE <= end ? at + PAGE : 0;
}

/*
 * The next piece of the band: len bytes, after a random gap.  The band
 * is used like a stack that never pops, so that late code keeps random
 * addresses; a process that has used it all up (a long-lived server
 * mapping and unmapping under --allow-jit) then takes the holes it left,
 * from the start.
 */
static uint64_t
band_take(pid_t pid, struct space *sp, uint64_t len, bool *reserved)
{
	uint64_t a, align = len >= HUGE ? HUGE : PAGE;
	uint64_t arena_end = SP_BAND_START + SP_BAND_ARENA;

	len = (len + PAGE - 1) & ~(PAGE - 1);
	*reserved = false;
	if (sp->band_wrapped) {
		if ((a = band_hole(pid, sp->band_next, len)) == 0 &&
		    (a = band_hole(pid, SP_BAND_START, len)) == 0)
			return 0;
		sp->band_next = a + len;
		return a;
	}
	if (sp->band_next == 0)
		sp->band_next = SP_BAND_START + rnd(1u << 18) * PAGE;
	a = (sp->band_next + rnd(256) * PAGE + align - 1) & ~(align - 1);
	/* the arena reserved at pinning is replaced (MAP_FIXED) only
	 * whole: a mapping that would stick out of it goes after it */
	if (a < arena_end && a + len > arena_end)
		a = (arena_end + rnd(256) * PAGE + align - 1) & ~(align - 1);
	if (len >= SP_BAND_END - SP_BAND_MARGIN - a) {
		sp->band_wrapped = true;
		sp->band_next = SP_BAND_START;
		return band_take(pid, sp, len, reserved);
	}
	sp->band_next = a + len + PAGE;
	*reserved = a + len <= arena_end;
	return a;
}

static bool
file_of(pid_t pid, int fd, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)pid, fd);
	return fd >= 0 && stat(path, st) == 0;
}

/* The start-up slot this reservation is for, or -1. */
static long
slot_for(pid_t pid, const struct proc *p, const struct seccomp_data *d)
{
	const struct sp_pin_result *r = &p->img->pin;
	uint32_t prot = (uint32_t)d->args[2], flags = (uint32_t)d->args[3];
	struct stat st;
	size_t i;

	if (!(flags & MAP_ANONYMOUS)) {
		if (!file_of(pid, (int)d->args[4], &st))
			return -1;
		for (i = 0; i < r->nslots; i++)
			if (!p->sp->placed[i] && r->slots[i].id.dev ==
			    st.st_dev && r->slots[i].id.ino == st.st_ino)
				return (long)i;
		return -1;
	}
	if ((prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) != 0)
		return -1;
	/* ld.so asks for the object's extent to its last byte (not to a
	 * page's end, as span is) plus the alignment */
	for (i = 0; i < r->nslots; i++)
		if (!p->sp->placed[i] && r->slots[i].align > PAGE &&
		    d->args[1] <= UINT64_MAX - PAGE &&
		    sp_slot_maplen(r->slots[i].span, r->slots[i].align) ==
		    ((d->args[1] + PAGE - 1) & ~(uint64_t)(PAGE - 1)))
			return (long)i;
	return -1;
}

/* --exec=trusted: a file mapped for code must be one we could exec. */
static bool
untrusted(struct sup *s, pid_t pid, const struct seccomp_data *d,
    char *why, size_t size, struct stat *checked)
{
	char path[64];
	struct stat st;
	bool bad;
	int fd;

	if (s->o->pin.exec != SP_EXEC_TRUSTED ||
	    ((uint32_t)d->args[3] & MAP_ANONYMOUS))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)pid,
	    (int)d->args[4]);
	if ((fd = sp_open_regular(path, &st)) < 0) {
		snprintf(why, size, "fd %d %s", (int)d->args[4], fd == -2 ?
		    "is not a regular file" : "cannot be checked");
		return true;
	}
	bad = !sp_sup_trusted_fd(s, fd, why, size);
	close(fd);
	*checked = st;
	return bad;
}

static void
refused(struct sup *s, pid_t pid, const char *why)
{
	char comm[64], key[64];
	struct sp_proc_stat ps;

	/* a process on its way out (its descriptors gone): nothing to say */
	if (sp_proc_stat(sp_sup_tgid(pid), &ps) == -1 || (ps.flags & 0x4) ||
	    ps.state == 'Z')
		return;

	snprintf(key, sizeof(key), "untrusted %ld", (long)pid);
	if (s->o->quiet || !sp_sup_first_time(s, key))
		return;
	sp_sup_comm(pid, comm, sizeof(comm));
	fprintf(stderr, "syspin: %s[%ld]: mmap refused: --exec=trusted: %s\n",
	    comm, (long)pid, why);
}

static int place(struct sup *, pid_t, struct proc *,
    const struct seccomp_data *);

/*
 * With --exec=trusted the file checked must be the file mapped: the
 * process's other threads are stopped from the look at its descriptor
 * until the kernel holds it (a dup2 between would map another file), and
 * what the call mapped is looked at once it has (io_uring's threads,
 * which no one stops, can swap the descriptor meanwhile): another file
 * there kills the process.
 */
int
sp_sup_place(struct sup *s, pid_t pid, const struct seccomp_data *d)
{
	struct proc *p = sp_sup_proc(s, pid, false);
	struct sp_frozen *f = NULL;
	struct stat checked;
	char why[256];
	int r;

	if (p == NULL || p->img == NULL || p->sp == NULL)
		return sp_sup_fail_call(pid, EACCES);
	if (s->o->pin.exec == SP_EXEC_TRUSTED &&
	    !((uint32_t)d->args[3] & MAP_ANONYMOUS))
		f = sp_sup_freeze(s, pid);
	memset(&checked, 0, sizeof(checked));
	if (untrusted(s, pid, d, why, sizeof(why), &checked)) {
		refused(s, pid, why);
		r = sp_sup_fail_call(pid, EACCES);
	} else if ((r = place(s, pid, p, d)) == 0 && f != NULL &&
	    sp_sup_under_way(s, pid, 9, &checked) == 0)
		r = -1;		/* resumed: the kernel mapped the file */
	sp_sup_thaw(s, f);
	return r;
}

/* --strict: no new code.  Said once per process and recorded (-o), as
 * every refusal is: a program's own error ("failed to map segment")
 * says nothing of why. */
static int
strict_refused(struct sup *s, pid_t pid, struct proc *p,
    const struct seccomp_data *d)
{
	char comm[64], key[64], line[512], file[256] = "", link[64];
	ssize_t n;

	snprintf(key, sizeof(key), "strict-code %ld", (long)pid);
	if (sp_sup_first_time(s, key)) {
		sp_sup_comm(pid, comm, sizeof(comm));
		snprintf(link, sizeof(link), "/proc/%ld/fd/%d", (long)pid,
		    (int)d->args[4]);
		if (!((uint32_t)d->args[3] & MAP_ANONYMOUS) &&
		    (n = readlink(link, file, sizeof(file) - 1)) > 0)
			file[n] = '\0';
		snprintf(line, sizeof(line), "%s[%ld]: mmap with PROT_EXEC%s%s "
		    "refused: syspin run --strict allows no new code (a "
		    "dlopen'ed library, a JIT)", comm, (long)pid,
		    file[0] != '\0' ? " of " : "", file);
		sp_error_printable(line);
		sp_sup_refused(s, pid, d, p->img, "strict", EACCES, line);
	}
	return sp_sup_fail_call(pid, EACCES);
}

/* -v: what was mapped where, and why there. */
static void
say_placed(pid_t pid, const struct proc *p, const struct seccomp_data *d,
    long k, uint64_t at)
{
	char comm[64], fd[64], file[512];
	ssize_t n = -1;

	sp_sup_comm(pid, comm, sizeof(comm));
	if (!((uint32_t)d->args[3] & MAP_ANONYMOUS)) {
		snprintf(fd, sizeof(fd), "/proc/%ld/fd/%d", (long)pid,
		    (int)d->args[4]);
		n = readlink(fd, file, sizeof(file) - 1);
	}
	file[n > 0 ? n : 0] = '\0';
	sp_error_printable(file);
	if (k >= 0)
		fprintf(stderr, "syspin: %s[%ld]: %s mapped at 0x%llx, the "
		    "start-up slot its pins were made for\n", comm, (long)pid,
		    p->img->pin.slots[k].path, (unsigned long long)at);
	else
		fprintf(stderr, "syspin: %s[%ld]: %s%s%llu bytes mapped at "
		    "0x%llx, in the late-code band: no system call may come "
		    "from code there (its calls into libc are libc's)\n",
		    comm, (long)pid, file, n > 0 ? ": " : "",
		    (unsigned long long)d->args[1], (unsigned long long)at);
}

static int
place(struct sup *s, pid_t pid, struct proc *p, const struct seccomp_data *d)
{
	struct user_regs_struct r;
	uint64_t at = 0;
	bool reserved = true;
	long k = -1;

	/* --exec=trusted: a file's code mapped MAP_FIXED into the band (the
	 * filter allowed only that) stops only to have its file checked */
	if ((uint32_t)d->args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE))
		return 0;
	if (p->sp->startup && (k = slot_for(pid, p, d)) >= 0) {
		at = p->img->pin.slots[k].base;
		p->sp->placed[k] = true;
	} else if ((s->o->pin.flags & SP_BPF_STRICT) &&
	    !((uint32_t)d->args[2] & PROT_EXEC))
		return 0;	/* no code (ld.so.cache): where it asked */
	else if (s->o->pin.flags & SP_BPF_STRICT)
		return strict_refused(s, pid, p, d);	/* no new code */
	else if ((at = band_take(pid, p->sp, d->args[1], &reserved)) == 0)
		return sp_sup_fail_call(pid, ENOMEM);
	if (ptrace(PTRACE_GETREGS, pid, 0, &r) == -1)
		return sp_sup_doom(s, pid);
	r.rdi = at;
	r.r10 = (r.r10 & ~(uint64_t)(MAP_FIXED | MAP_FIXED_NOREPLACE)) |
	    (reserved ? MAP_FIXED : MAP_FIXED_NOREPLACE);
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) == -1)
		return sp_sup_doom(s, pid);
	if (s->o->pin.verbose)
		say_placed(pid, p, d, k, at);
	return 0;
}
