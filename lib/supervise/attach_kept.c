/* SPDX-License-Identifier: ISC */
/*
 * What a process made before `syspin run -p` attached to it that its
 * pins would not see, judged with every thread stopped (blind round 23).
 * The filter lets through a call from outside every range it knows (a
 * later image's: bpf.h, 2.), so an attached process must have no way to
 * make executable memory there, nor code whose table its writer chose:
 *  - a thread whose personality has READ_IMPLIES_EXEC: every readable
 *    mapping it makes later is executable (the filter sees PROT_READ);
 *  - an executable mapping that grows down (MAP_GROWSDOWN) with room
 *    below it: what it grows into is outside every range (the main
 *    stack gets a sealed guard instead, as at an exec: pin.c);
 *  - outside --exec=any, a file of code it maps that is not trusted
 *    (trust.c), its program aside under --exec=none: its table would
 *    be believed, where a late object's would not be (later.c).
 * Besides: what its descriptors hold (attach_fds.c),
 * io_uring's threads (their requests run with what the process
 * had before, outside the domain), seccomp filters of its own in any
 * thread (they judge its calls first: TSYNC would fail once the rest is
 * done), its own memory where the late-code band goes.
 * Refused rather than changed: the process goes on as it was.
 *
 * "Trusted" needs a start the files must be older than: for an attached
 * tree it is when its oldest process started, not the attach (a file it
 * wrote before the attach is not older than itself: round 23).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>
#include <linux/kcmp.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "bpf/bpf.h"
#include "layout/procfs.h"
#include "attach_int.h"
#include "util/search.h"

static int reads_exec(pid_t pid, pid_t tid);

bool
sp_io_worker(pid_t t)
{
	struct sp_proc_stat st;

	return sp_proc_stat(t, &st) == 0 && (st.flags & 0x10u) != 0;
}

/* The threads: io_uring's, or one with filters of its own (NULL). */
static const char *
threads(pid_t pid, const pid_t *tids, size_t ntids, char *buf, size_t size)
{
	char path[64];
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) != NULL) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL)
			if (atol(e->d_name) > 0 &&
			    sp_io_worker((pid_t)atol(e->d_name))) {
				closedir(d);
				return "it has io_uring threads (their requests "
				    "run with what the process had before, "
				    "outside the domain)";
			}
		closedir(d);
	}
	for (size_t t = 0; t < ntids; t++) {
		unsigned long long f = 0;
		/* one descriptor table: what the attach sees in it is all
		 * the process holds, and the domain is entered by a
		 * descriptor's number in it (round 23b: a thread's own
		 * table hid /proc/PID/mem, and made the number its own
		 * ruleset) */
		long same = t > 0 ? syscall(SYS_kcmp, tids[0], tids[t],
		    KCMP_FILES, 0, 0) : 0;
		if (same == -1) {
			snprintf(buf, size, "its thread %ld or %ld is gone (an "
			    "exec during the attach?)", (long)tids[0],
			    (long)tids[t]);
			return buf;
		}
		if (same != 0) {
			snprintf(buf, size, "its thread %ld has a descriptor "
			    "table of its own (unshare(CLONE_FILES))",
			    (long)tids[t]);
			return buf;
		}
		if (sp_proc_status(tids[t], "Seccomp_filters", 10, &f) == 0 &&
		    f > 0) {
			snprintf(buf, size, "its thread %ld has seccomp "
			    "filters of its own", (long)tids[t]);
			return buf;
		}
		switch (reads_exec(pid, tids[t])) {
		case 0:
			break;
		case 1:
			snprintf(buf, size, "its thread %ld has the personality "
			    "READ_IMPLIES_EXEC (each readable mapping it made "
			    "would be executable)", (long)tids[t]);
			return buf;
		default:
			snprintf(buf, size, "its thread %ld is gone (an exec "
			    "during the attach?)", (long)tids[t]);
			return buf;
		}
	}
	return NULL;
}

/* Whether a thread's personality makes reading imply executing: 1, 0,
 * -1 when it cannot be read (the thread is gone: an exec in another
 * thread ends it, stopped or not). */
static int
reads_exec(pid_t pid, pid_t tid)
{
	char path[64];
	unsigned long p = 0;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/personality",
	    (long)pid, (long)tid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	n = fscanf(f, "%lx", &p);
	fclose(f);
	return n != 1 ? -1 : (p & READ_IMPLIES_EXEC) != 0;
}

/* Whether the mapping that starts at start has VmFlags "gd" (smaps).
 * Unreadable: assumed to. */
static bool
grows_down(pid_t pid, uint64_t start)
{
	char path[64], line[512];
	unsigned long long a, b;
	bool here = false, gd = true;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/smaps", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return true;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* a mapping's line: no field's name reads as "HEX-HEX" */
		if (sscanf(line, "%llx-%llx ", &a, &b) == 2) {
			here = a == start;
			continue;
		}
		if (here && strncmp(line, "VmFlags:", 8) == 0) {
			gd = strstr(line, " gd") != NULL;
			break;
		}
	}
	fclose(f);
	return gd;
}

/* An untrusted file of code among m[0..n), outside --exec=any: its path
 * and why in buf. */
static bool
untrusted(const struct sp_pin_opts *pin, pid_t pid, const struct sp_map *m,
    size_t n, char *buf, size_t size)
{
	char why[160], exe[64];
	struct stat st, prog = { 0 };

	/* --exec=none judges no program, only what it loads (later.c);
	 * --exec=trusted the program too */
	snprintf(exe, sizeof(exe), "/proc/%ld/exe", (long)pid);
	if (pin->exec != SP_EXEC_NONE || stat(exe, &prog) == -1)
		prog.st_ino = 0;
	for (size_t i = 0; i < n; i++) {
		if (m[i].kind != SP_MAP_FILE || !(m[i].prot & PROT_EXEC) ||
		    (prog.st_ino != 0 && m[i].inode == prog.st_ino &&
		    m[i].dev == (uint64_t)prog.st_dev))
			continue;
		int fd = sp_sup_open_mapped(pid, &m[i], &st);
		bool ok = fd >= 0 && sp_trusted_fd(&pin->start, fd, why,
		    sizeof(why));
		if (fd < 0)
			snprintf(why, sizeof(why), "cannot be opened");
		if (fd >= 0)
			close(fd);
		if (!ok) {
			snprintf(buf, size, "it maps %s, not a trusted file "
			    "(%s): --exec=%s would believe its table", m[i].path,
			    why, pin->exec == SP_EXEC_NONE ? "none" :
			    "trusted");
			return true;
		}
	}
	return false;
}

const char *
sp_attach_kept(const struct sp_pin_opts *pin, pid_t pid, const pid_t *tids,
    size_t ntids, char *buf, size_t size)
{
	const char *no = NULL;
	struct sp_error err;
	struct sp_map *m;
	char path[64];
	size_t n;

	if ((no = threads(pid, tids, ntids, buf, size)) != NULL)
		return no;
	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(path, &m, &n, &err) == -1)
		return "cannot read its mappings";
	for (size_t i = 0; i < n && no == NULL; i++) {
		if (m[i].end > SP_BAND_START - SP_BAND_GUARD &&
		    m[i].start < SP_BAND_START + SP_BAND_ARENA) {
			snprintf(buf, size, "memory of its own where the "
			    "late-code band goes (0x%llx)",
			    (unsigned long long)m[i].start);
			no = buf;
			break;
		}
		bool room = i == 0 ? m[i].start > 0 : m[i - 1].end < m[i].start;
		if (!(m[i].prot & PROT_EXEC) || !room ||
		    m[i].kind == SP_MAP_VDSO || m[i].kind == SP_MAP_VSYSCALL ||
		    (m[i].kind == SP_MAP_SPECIAL &&
		    strcmp(m[i].path, "[stack]") == 0))
			continue;
		if (grows_down(pid, m[i].start)) {
			snprintf(buf, size, "an executable mapping of its own "
			    "grows down (0x%llx): what it would grow into is "
			    "in no pinned range",
			    (unsigned long long)m[i].start);
			no = buf;
		}
	}
	if (no == NULL && pin->exec != SP_EXEC_ANY &&
	    untrusted(pin, pid, m, n, buf, size))
		no = buf;
	sp_maps_free(m, n);
	return no;
}

/* When pid started, on the realtime clock; -1 unknown. */
static int
started(pid_t pid, struct timespec *at)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks = 0;
	struct timespec now, boot;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after the name's ")": state is field 3, starttime field 22 */
	if ((p = strrchr(buf, ')')) == NULL || hz <= 0 ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
	    "%*u %*d %*d %*d %*d %*d %*d %llu", &ticks) != 1)
		return -1;
	clock_gettime(CLOCK_REALTIME, &now);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	/* now - (boot - start), in whole ticks down: never later */
	double ago = (double)boot.tv_sec + (double)boot.tv_nsec / 1e9 -
	    (double)ticks / (double)hz;
	at->tv_sec = now.tv_sec - (time_t)ago - 1;
	at->tv_nsec = now.tv_nsec;
	return 0;
}

void
sp_attach_trust_start(const pid_t *pids, size_t n, struct timespec *start)
{
	struct timespec at;

	sp_sup_trust_start(start);	/* the attach, less the margin */
	for (size_t i = 0; i < n; i++) {
		if (started(pids[i], &at) == -1) {
			start->tv_sec = 0;	/* unknown: nothing is older */
			return;
		}
		if (at.tv_sec < start->tv_sec || (at.tv_sec == start->tv_sec &&
		    at.tv_nsec < start->tv_nsec))
			*start = at;
	}
	/* the margin trust.c leaves for coarse file times */
	start->tv_sec -= start->tv_sec > 2 ? 2 : 0;
}

/*
 * A way out the process made before the attach, which neither its pins
 * nor the Landlock domain it enters take back (blind round 22): a
 * process outside that one of its threads traces, a /proc/PID/mem of one
 * open, an io_uring (its requests run with the credentials the ring was
 * made with, outside the Landlock domain), a seccomp listener of another
 * process's filter (round 23).  Seen with every thread
 * stopped, so no more are made.  NULL, or why (in buf).
 */
#define QUEUED_MAX 65536

const char *
sp_attach_holds_outside(const struct attached *v, size_t n, char *buf, size_t size)
{
	struct statx procfs;
	struct dirent *e, *f;
	DIR *d, *fd;

	if ((d = opendir("/proc")) == NULL)
		return "cannot read /proc";
	while ((e = readdir(d)) != NULL) {	/* tracees of ours */
		char path[96];
		pid_t p = (pid_t)atol(e->d_name);
		if (p <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task", (long)p);
		if ((fd = opendir(path)) == NULL)
			continue;
		while ((f = readdir(fd)) != NULL) {
			unsigned long long tr = 0;
			pid_t t = (pid_t)atol(f->d_name);
			if (t > 0 && sp_proc_status(t, "TracerPid", 10,
			    &tr) == 0 && tr != 0 && sp_attach_member(v, n, (pid_t)tr) &&
			    !sp_attach_member(v, n, t)) {
				closedir(fd);
				closedir(d);
				snprintf(buf, size, "its thread %llu traces "
				    "process %ld, outside", tr, (long)p);
				return buf;
			}
		}
		closedir(fd);
	}
	closedir(d);
	if (statx(AT_FDCWD, "/proc", 0, STATX_MNT_ID, &procfs) == -1 ||
	    !(procfs.stx_mask & STATX_MNT_ID))
		return "cannot tell which mount /proc is";
	/* descriptors in flight (SCM_RIGHTS) show nowhere but as a queue
	 * not empty: a unix socket it holds with anything queued (or a
	 * listener of its with connections waiting, whose queues may hold
	 * them) is refused, try again */
	static uint64_t queued[QUEUED_MAX];
	ssize_t nq = sp_unix_queued(queued, QUEUED_MAX);
	if (nq == -1)
		return "cannot read the queues of unix sockets (sock_diag)";
	for (size_t i = 0; i < n; i++) {	/* descriptors (attach_fds.c) */
		char dir[64];
		const char *why = NULL;
		int pidfd = (int)syscall(SYS_pidfd_open, v[i].pid, 0);
		snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)v[i].pid);
		if (pidfd == -1 || (d = opendir(dir)) == NULL) {
			if (pidfd != -1)
				close(pidfd);
			return "cannot read its descriptors";
		}
		while (why == NULL && (e = readdir(d)) != NULL) {
			char path[384], link[200];
			ssize_t len;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if ((len = readlink(path, link, sizeof(link) - 1)) <= 0)
				continue;
			link[len] = '\0';
			why = sp_attach_fd_refusal(v, n, v[i].pid, pidfd, path,
			    link, procfs.stx_mnt_id, queued, (size_t)nq, buf,
			    size);
		}
		closedir(d);
		close(pidfd);
		if (why != NULL)
			return why;
	}
	return NULL;
}

/*
 * A process outside what is attached that shares memory, descriptors or
 * root and working directory with one inside (clone(CLONE_VM) without
 * CLONE_THREAD, made before): unpinned, it maps code into the pinned
 * address space or descriptors into its table (blind round 23).  kcmp
 * answers where we may look at both (another user's process that shares
 * a process of ours is that user's already).  NULL, or why.
 */
const char *
sp_attach_shared_outside(const struct attached *v, size_t n, char *buf, size_t size)
{
	static const int what[] = { KCMP_VM, KCMP_FILES, KCMP_FS };
	static const char *const name[] = { "memory", "descriptors",
		"root and working directory" };
	struct dirent *e;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return "cannot read /proc";
	while ((e = readdir(d)) != NULL) {
		pid_t p = (pid_t)atol(e->d_name);
		if (p <= 0 || sp_attach_member(v, n, p))
			continue;
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < 3; k++)
				if (syscall(SYS_kcmp, v[i].pid, p, what[k], 0,
				    0) == 0) {
					closedir(d);
					snprintf(buf, size, "process %ld, not "
					    "attached, shares the %s of %ld",
					    (long)p, name[k], (long)v[i].pid);
					return buf;
				}
	}
	closedir(d);
	return NULL;
}
