/* SPDX-License-Identifier: ISC */
/*
 * --exec=trusted: which files a pinned tree may run as code.  Pinning
 * cannot stop a process that can write a file from exec'ing it (its own
 * code, pinned to its own sites): only a policy on the file can.  A file
 * is trusted when it is a regular file still linked somewhere (not a
 * memfd, not O_TMPFILE, not deleted), owned by root, writable by nobody
 * else, and last changed before the run started: a tree running as root
 * can make root's files, but not ones older than itself (a change's time
 * cannot be set back, and the tree may not set the clock back:
 * SP_BPF_NO_CLOCK).  The checks are made on the file the kernel mapped,
 * never on a path.
 *
 * "Before the run started" is judged on the clock filesystems date
 * changes with: the kernel's coarse clock (one tick behind the fine one a
 * program reads), cut down to the filesystem's granularity (a second or
 * two on some).  So the start is the coarse clock's reading less
 * TRUST_MARGIN: a change made after the start always carries a later
 * time, whatever the filesystem; one made within the margin before it
 * is refused too.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "supervise_int.h"

#define TRUST_MARGIN 2	/* seconds: FAT dates changes to 2 s */

void
sp_sup_trust_start(struct timespec *start)
{
	clock_gettime(CLOCK_REALTIME_COARSE, start);
	start->tv_sec -= TRUST_MARGIN;
}

bool
sp_sup_trusted_fd(const struct sup *s, int fd, char *why, size_t size)
{
	return sp_trusted_fd(&s->o->pin.start, fd, why, size);
}

bool
sp_trusted_fd(const struct timespec *start, int fd, char *why, size_t size)
{
	struct stat st;

	if (fstat(fd, &st) == -1) {
		snprintf(why, size, "cannot be checked");
		return false;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink == 0)
		snprintf(why, size, "not a file on disk (a memfd, a deleted "
		    "or unnamed file)");
	else if (st.st_uid != 0)
		snprintf(why, size, "not owned by root");
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, size, "writable by others than root");
	else if (st.st_ctim.tv_sec > start->tv_sec ||
	    (st.st_ctim.tv_sec == start->tv_sec &&
	    st.st_ctim.tv_nsec >= start->tv_nsec))
		snprintf(why, size, "changed since the run started (or "
		    "within %d s before)", TRUST_MARGIN);
	else
		return true;
	return false;
}

/*
 * The file an execve or execveat stopped at names, as the caller would
 * find it: its path read from the caller's memory, resolved from its
 * working directory or descriptor.  O_PATH opens nothing (a FIFO, a
 * device) on the tree's behalf.  -1 where the caller's view cannot be
 * taken for ours (another root) or the path cannot be read: the kernel
 * then answers the exec itself.
 */
static bool
exec_at(const struct seccomp_data *d)
{
	return d->arch == SP_AUDIT_ARCH_I386 ? d->nr == 358 :
	    d->nr == 322 || d->nr == (SP_BPF_X32_BIT | 545);
}

static uint64_t
exec_path_addr(const struct seccomp_data *d)
{
	uint64_t a = exec_at(d) ? d->args[1] : d->args[0];

	return d->arch == SP_AUDIT_ARCH_I386 ? a & 0xffffffffu : a;
}

/* For the one line that says an exec was refused: the path it named. */
void
sp_sup_exec_path(pid_t pid, const struct seccomp_data *d, char *path,
    size_t size)
{
	if (sp_mem_read_string(pid, exec_path_addr(d), path, size) == -1)
		snprintf(path, size, "?");
	else if (path[0] == '\0' && exec_at(d))
		snprintf(path, size, "descriptor %d", (int)d->args[0]);
	sp_error_printable(path);
}

static int
exec_file(pid_t pid, const struct seccomp_data *d, char *path, size_t size)
{
	bool at = exec_at(d);
	uint64_t addr = exec_path_addr(d);
	int dirfd = at ? (int)d->args[0] : AT_FDCWD;
	int flags = at ? (int)d->args[4] : 0;
	struct open_how how = { 0 };
	char proc[64];
	struct stat ours, theirs;
	struct statfs fs;
	int dir, fd;

	snprintf(proc, sizeof(proc), "/proc/%ld/root", (long)pid);
	if (stat("/", &ours) == -1 || stat(proc, &theirs) == -1 ||
	    ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino)
		return -1;
	if (sp_mem_read_string(pid, addr, path, size) == -1)
		return -1;
	if (path[0] != '/' && dirfd == AT_FDCWD)
		snprintf(proc, sizeof(proc), "/proc/%ld/cwd", (long)pid);
	else if (path[0] != '/')
		snprintf(proc, sizeof(proc), "/proc/%ld/fd/%d", (long)pid,
		    dirfd);
	if (path[0] == '\0') {			/* fexecve */
		if (!(flags & AT_EMPTY_PATH) || dirfd == AT_FDCWD)
			return -1;
		snprintf(path, size, "%s", proc);
		return open(proc, O_PATH | O_CLOEXEC);
	}
	if ((dir = open(path[0] == '/' ? "/" : proc, O_PATH | O_CLOEXEC |
	    O_DIRECTORY)) == -1)
		return -1;
	/* never through /proc: /proc/self and /dev/fd/N would name
	 * ours, not the caller's (blind round 12) */
	how.flags = O_PATH | O_CLOEXEC |
	    (flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0);
	how.resolve = RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
	close(dir);
	if (fd >= 0 && (fstatfs(fd, &fs) == -1 ||
	    fs.f_type == PROC_SUPER_MAGIC)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* What of /proc/PID/status decides what a path lookup may see: its
 * ids and groups, and whether it may pass permission checks (the DAC
 * capabilities; the tree has fewer of the others than we do), joined;
 * "" when unreadable. */
static void
creds(const char *status, char *out, size_t size)
{
	static const char *const keep[] = { "Uid:", "Gid:", "Groups:" };
	unsigned long long cap;
	char line[512];
	size_t at = 0;
	FILE *f;

	out[0] = '\0';
	if ((f = fopen(status, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL && at < size) {
		for (size_t i = 0; i < sizeof(keep) / sizeof(*keep); i++)
			if (strncmp(line, keep[i], strlen(keep[i])) == 0)
				at += (size_t)snprintf(out + at, size - at,
				    "%s", line);
		/* CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH */
		if (sscanf(line, "CapEff: %llx", &cap) == 1)
			at += (size_t)snprintf(out + at, size - at, "dac %llx\n",
			    cap & 0x6);
	}
	fclose(f);
}

/* Whether pid looks files up as we do: else what we find by its path
 * could tell it of files it may not see (a tree that dropped to nobody
 * under a root supervisor). */
bool
sp_sup_same_creds(pid_t pid)
{
	char path[64], theirs[2048], ours[2048];

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	creds(path, theirs, sizeof(theirs));
	creds("/proc/self/status", ours, sizeof(ours));
	return theirs[0] != '\0' && strcmp(theirs, ours) == 0;
}

/*
 * --exec=trusted, at the exec's own stop: a program that may not run
 * gets EACCES, as --exec=none refuses, where the check at the exec
 * event (after the point of no return) can only kill.  Only an ELF file
 * is judged here: a script's `#!` interpreter is what runs, judged at
 * the event.  The event's check stays the authority: the file can
 * change between this look and the exec; and where the caller's
 * credentials are not ours, only it judges.  True when refused, with
 * why.
 */
bool
sp_sup_exec_untrusted(const struct sup *s, pid_t pid,
    const struct seccomp_data *d, char *why, size_t size)
{
	char path[PATH_MAX], self[64], magic[4];
	struct stat st;
	bool refused;
	int fd, rd;

	if (!sp_sup_same_creds(pid) || (fd = exec_file(pid, d, path,
	    sizeof(path))) == -1)
		return false;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	rd = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? open(self,
	    O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) : -1;
	refused = rd != -1 && pread(rd, magic, 4, 0) == 4 &&
	    memcmp(magic, "\177ELF", 4) == 0 &&
	    !sp_sup_trusted_fd(s, rd, why, size);
	if (rd != -1)
		close(rd);
	close(fd);
	return refused;
}
