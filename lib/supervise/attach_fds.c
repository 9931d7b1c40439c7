/* SPDX-License-Identifier: ISC */
/*
 * syspin run -p: what an attached process's descriptors hold that
 * neither its pins nor the Landlock domain it enters take back, each
 * looked at through a copy of our own (pidfd_getfd: the same open file)
 * or by its name in /proc, with every thread stopped:
 *  - a file of another process's in /proc (mem, environ, maps...: the
 *    kernel checks who may read them when they are opened, not at each
 *    read: blind rounds 22 and 24);
 *  - a seccomp listener, a userfaultfd, a perf event, an io_uring;
 *  - a namespace it is not in (setns joins it: round 24);
 *  - a unix socket with something queued: descriptors in flight
 *    (SCM_RIGHTS) show nowhere else.  sock_diag and FIONREAD count bytes,
 *    and a datagram of no bytes carries descriptors too (round 24): a
 *    datagram or seqpacket socket is peeked;
 *  - a descriptor with an owner (F_SETOWN): the kernel signals the owner
 *    on I/O, or on a change a dnotify watch sees, by the domain of who
 *    set it (round 24: O_ASYNC set after the attach, or a dnotify watch
 *    with no O_ASYNC at all, sent SIGQUIT outside): pin_attach.c judges
 *    their signals and sets their owners again from inside the domain.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/magic.h>

#include "util/search.h"
#include "attach_int.h"

/* A file "/proc/N/..." (N a number): N, else 0. */
static pid_t
proc_of(const char *path)
{
	long n;
	int used = 0;

	if (sscanf(path, "/proc/%ld/%n", &n, &used) != 1 || used == 0 ||
	    n <= 0)
		return 0;
	return (pid_t)n;
}

/*
 * Whose file of /proc a descriptor of a process may be (fdpath its
 * /proc/PID/fd/N, link what that names): 0 none, -1 unknown, else the
 * pid.  Only a regular file of procfs can be; through our /proc its
 * name says whose; through another mount of procfs (or one file of it
 * bound elsewhere) names tell nothing: one that only its owner may read,
 * as mem, environ, auxv and pagemap are, is taken for another's (blind
 * round 23: a second procfs mount hid /proc/PID/mem of a process
 * outside).
 */
pid_t
sp_proc_held(const char *fdpath, const char *link, uint64_t proc_mnt)
{
	struct statfs fs;
	struct statx sx;

	if (statfs(fdpath, &fs) == -1 || fs.f_type != PROC_SUPER_MAGIC)
		return 0;
	if (statx(AT_FDCWD, fdpath, 0, STATX_TYPE | STATX_MODE |
	    STATX_MNT_ID, &sx) == -1 || !(sx.stx_mask & STATX_MNT_ID))
		return -1;
	if (!S_ISREG(sx.stx_mode))
		return 0;
	if (sx.stx_mnt_id == proc_mnt)
		return proc_of(link);
	return (sx.stx_mode & 0077) == 0 ? -1 : 0;
}

const char *
sp_held_way_out(const char *link)
{
	if (strcmp(link, "anon_inode:seccomp notify") == 0)
		return "a seccomp listener (it answers the calls of a process "
		    "outside)";
	if (strcmp(link, "anon_inode:[userfaultfd]") == 0)
		return "a userfaultfd (a fault it answers holds whoever reads "
		    "its memory, the supervisor too)";
	if (strcmp(link, "anon_inode:[perf_event]") == 0)
		return "a perf event (it may sample a process outside)";
	if (strcmp(link, "anon_inode:[io_uring]") == 0)
		return "an io_uring (its requests would run with what the "
		    "process had before, outside the domain)";
	return NULL;
}

/* A namespace's descriptor ("net:[N]") of one pid is not in. */
static bool
other_ns(pid_t pid, const char *link)
{
	static const char *const types[] = { "cgroup", "ipc", "mnt", "net",
		"pid", "time", "user", "uts" };
	char path[96], own[64];
	ssize_t n;

	for (size_t i = 0; i < sizeof(types) / sizeof(*types); i++) {
		size_t l = strlen(types[i]);
		if (strncmp(link, types[i], l) != 0 || strncmp(link + l, ":[",
		    2) != 0)
			continue;
		for (int kids = 0; kids < 2; kids++) {
			snprintf(path, sizeof(path), "/proc/%ld/ns/%s%s",
			    (long)pid, types[i], kids ? "_for_children" : "");
			if ((n = readlink(path, own, sizeof(own) - 1)) > 0) {
				own[n] = '\0';
				if (strcmp(own, link) == 0)
					return false;
			}
		}
		return true;
	}
	return false;
}

/*
 * Whether the unix datagram or seqpacket socket s has a message queued,
 * of any length.  A peek offset (SO_PEEK_OFF) would skip a message of no
 * bytes: none while we look.  A pending error is what a first peek
 * returns (and clears): the second sees the queue.
 */
static bool
dgram_queued(int s)
{
	int type = 0, off = -1, none = -1;
	socklen_t len = sizeof(type);
	struct msghdr m;
	bool queued = false;

	if (getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &len) == -1 ||
	    (type != SOCK_DGRAM && type != SOCK_SEQPACKET))
		return false;
	len = sizeof(off);
	if (getsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &off, &len) == -1)
		off = -1;
	if (off != -1 && setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &none,
	    sizeof(none)) == -1)
		return true;	/* cannot look: as if queued */
	for (int i = 0; i < 2 && !queued; i++) {
		memset(&m, 0, sizeof(m));
		if (recvmsg(s, &m, MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC) >= 0)
			queued = true;
		else if (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == ENOTCONN || errno == EINVAL)
			break;
	}
	if (off != -1)
		(void)setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &off,
		    sizeof(off));
	return queued;
}

const char *
sp_attach_fd_refusal(const struct attached *v, size_t n, pid_t pid,
    int pidfd, const char *fdpath, const char *link, uint64_t proc_mnt,
    const uint64_t *queued, size_t nq, char *buf, size_t size)
{
	const char *what = sp_held_way_out(link);
	unsigned long ino;
	long fd;
	int s;
	pid_t q;

	if ((q = sp_proc_held(fdpath, link, proc_mnt)) == -1 ||
	    (q > 0 && !sp_attach_member(v, n, q))) {
		snprintf(buf, size, "process %ld holds %.190s open (a file "
		    "of a process outside in /proc, or of one it cannot be "
		    "told from: what it reads was judged when it was opened)",
		    (long)pid, link);
		return buf;
	}
	if (what == NULL && other_ns(pid, link)) {
		snprintf(buf, size, "process %ld holds %.60s, a namespace it is "
		    "not in (it could join it)", (long)pid, link);
		return buf;
	}
	if (what == NULL && sscanf(link, "socket:[%lu]", &ino) == 1) {
		size_t at = sp_lower_bound(queued, nq, sizeof(*queued), 0, ino);
		const char *slash = strrchr(fdpath, '/');
		if (at < nq && queued[at] == ino)
			what = "a unix socket with something queued";
		else if (slash != NULL && (fd = atol(slash + 1)) >= 0 &&
		    (s = (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0)) !=
		    -1) {
			int dom = 0;
			socklen_t len = sizeof(dom);
			if (getsockopt(s, SOL_SOCKET, SO_DOMAIN, &dom, &len) ==
			    0 && dom == AF_UNIX && dgram_queued(s))
				what = "a unix socket with a message queued";
			close(s);
		}
		if (what != NULL) {
			snprintf(buf, size, "process %ld holds %s "
			    "(descriptors may be in flight in it: try again)",
			    (long)pid, what);
			return buf;
		}
	}
	if (what != NULL) {
		snprintf(buf, size, "process %ld holds %s", (long)pid, what);
		return buf;
	}
	return NULL;
}

/* ---- descriptors with an owner ---- */

int
sp_fd_owner(int pidfd, long fd, int *sig)
{
	struct f_owner_ex o = { 0, 0 };
	int s = (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0), r;

	*sig = 0;
	if (s == -1)
		return errno == EBADF ? 0 : -1;	/* closed meanwhile */
	/* the signal whatever the owner: one set later, from inside,
	 * gets the signal chosen before (round 24) */
	r = fcntl(s, F_GETOWN_EX, &o) == -1 ? -1 : o.pid != 0;
	if (r != -1 && (*sig = fcntl(s, F_GETSIG)) == -1)
		r = -1;
	close(s);
	return r;
}
