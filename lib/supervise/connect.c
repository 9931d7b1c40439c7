/* SPDX-License-Identifier: ISC */
/*
 * connect(2) from the tree: no unix stream socket of the tree is
 * connected to a listener outside it (a tmux or screen server, the
 * session bus, systemd: processes that run commands or type input for
 * whoever talks to them), but to those the user allows (--allow-socket)
 * and a few that only log or look names up (journald, nscd).  Every
 * connect stops (the filter's `check`, SP_BPF_CONNECT).
 *
 * A ptrace stop sees the call's arguments, not what the kernel will make
 * of them: another thread may change the address in memory or put
 * another socket at the descriptor, the tree may turn a path into a link
 * to another socket, between our look and the kernel's.  So nothing is
 * judged beforehand.  A unix stream or seqpacket connect is made again
 * by us in the stopped thread on a fresh socket, which nobody else holds
 * (pidfd_getfd is denied in the tree; the process's other threads are
 * stopped meanwhile), and judged by whom it reached: the listener's
 * process (SO_PEERCRED) is in the tree, or its bound name is allowed.
 * Only then does the fresh socket take the descriptor's place; else it is
 * shut down unused and the call fails with EACCES.  Any other connect
 * runs as asked: the socket at the descriptor must not be a unix stream
 * one, which holds until the kernel has taken it from the descriptor
 * table (other threads are stopped until the call is under way).
 * Datagrams to outside unix sockets (syslog, journald) are not judged.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "layout/procfs.h"

#include "reports.h"
#include "supervise_int.h"


/* Listeners that only log or look names up: allowed from every tree. */
static const char *const always[] = {
	"/run/systemd/journal/stdout", "/run/systemd/journal/socket",
	"/run/systemd/journal/dev-log", "/run/nscd/socket",
	"/var/run/nscd/socket",
};

/* ---- the socket at a descriptor of the tracee ---- */

/* FD_CLOEXEC of the thread's fd, from /proc/TID/fdinfo (its own table). */
static bool
cloexec(pid_t tid, int fd)
{
	char path[64], line[128];
	unsigned long flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%d", (long)tid, fd);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "flags: %lo", &flags) == 1)
			break;
	fclose(f);
	return (flags & O_CLOEXEC) != 0;
}

/* Whether fd of thread tid (its own table) is the socket ino. */
static bool
holds(pid_t tid, int fd, ino_t ino)
{
	char path[64], link[64], want[40];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)tid, fd);
	snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)ino);
	if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
		return false;
	link[n] = '\0';
	return strcmp(link, want) == 0;
}

/* ---- calls made in the stopped thread ---- */

/*
 * From the seccomp stop of its connect to its syscall-exit stop, the
 * call skipped: there our calls can be made (inject.c).  *saved: the
 * registers to put back, with the result.
 */
int
sp_sup_to_exit_stop(pid_t tid, struct user_regs_struct *saved,
    struct sp_inject *in)
{
	struct user_regs_struct r;
	int st;

	if (!sp_reports_at_seccomp(tid) ||	/* dying: nothing of it runs */
	    ptrace(PTRACE_GETREGS, tid, 0, saved) == -1)
		return -1;
	r = *saved;
	r.orig_rax = (uint64_t)-1;
	r.rax = (uint64_t)-ENOSYS;
	if (ptrace(PTRACE_SETREGS, tid, 0, &r) == -1 ||
	    ptrace(PTRACE_SYSCALL, tid, 0, 0) == -1)
		return -1;
	for (;;) {
		if (sp_reports_wait_step(tid, &st) == -1)
			return -1;
		if (!WIFSTOPPED(st))
			return -1;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			/* the call we skipped, not another's exec */
			if (ptrace(PTRACE_GETREGS, tid, 0, &r) == -1 ||
			    r.orig_rax == 59 || r.orig_rax == 322) {
				kill(tid, SIGKILL);
				return -1;
			}
			return 0;
		}
		/* a signal first: kept, delivered when it resumes */
		if (st >> 16 == 0 && WSTOPSIG(st) != SIGTRAP)
			in->pending_sig = WSTOPSIG(st);
		if (ptrace(PTRACE_SYSCALL, tid, 0, 0) == -1)
			return -1;
	}
}

static long
call(struct sp_inject *in, long nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	uint64_t args[6] = { a0, a1, a2, 0, 0, 0 };
	struct sp_error err;
	long ret;

	if (sp_inject_syscall(in, nr, args, 6, &ret, &err) == -1)
		return -EIO;
	return ret;
}

/* ---- who was reached ---- */

static bool
allowed_name(const struct sup *s, const char *name)
{
	for (size_t i = 0; i < sizeof(always) / sizeof(*always); i++)
		if (strcmp(name, always[i]) == 0)
			return true;
	for (size_t i = 0; i < s->o->nallow_sockets; i++)
		if (strcmp(name, s->o->allow_sockets[i]) == 0)
			return true;
	return false;
}

/*
 * A unix address of len bytes as --allow-socket names it: "path", "@name"
 * when abstract, "" when unnamed.  An abstract name is all its bytes: a
 * NUL in it is written "\\0", so that "@name" (allowed) is not
 * "@name\\0more" (blind round 18: --allow-socket @foo let "\\0foo\\0evil"
 * through).  The peer's name and the asked one are written alike.
 */
static void
sun_name(const struct sockaddr_un *a, size_t len, char *out, size_t size)
{
	size_t n, o = 0;

	out[0] = '\0';
	if (len <= offsetof(struct sockaddr_un, sun_path) || size < 4)
		return;
	n = len - offsetof(struct sockaddr_un, sun_path);
	if (n > sizeof(a->sun_path))
		n = sizeof(a->sun_path);
	if (a->sun_path[0] != '\0') {
		snprintf(out, size, "%.*s", (int)strnlen(a->sun_path, n),
		    a->sun_path);
		return;
	}
	out[o++] = '@';
	for (size_t i = 1; i < n && o + 3 < size; i++) {
		if (a->sun_path[i] == '\0') {
			out[o++] = '\\';
			out[o++] = '0';
		} else
			out[o++] = a->sun_path[i];
	}
	out[o] = '\0';
}

/* The peer's bound name (sun_name). */
static void
peer_name(int fd, char *out, size_t size)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);

	out[0] = '\0';
	memset(&a, 0, sizeof(a));
	if (getpeername(fd, (struct sockaddr *)&a, &len) == 0)
		sun_name(&a, len, out, size);
}

/*
 * A stream connection whose other end was accepted and closed already
 * (a listener's acceptor that closes at once: blind round 25, a tree's
 * own listener was judged outside 195 times in 200): nothing can be sent
 * on it, and nothing was (end of file, no byte queued; a stream carries
 * no descriptor without a byte).
 */
static bool
dead_and_empty(int fd)
{
	char c;

	return sp_sup_sockopt(fd, SO_TYPE) == SOCK_STREAM &&
	    recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/*
 * Whether what fd reached may be talked to; why: what it is.  The
 * listener is known by its socket, never by a pid (SO_PEERCRED's is the
 * process that called listen(), which may have ended and its number be
 * anyone's since: a tree that forks until it holds it).
 */
static bool
reached_ok(struct sup *s, int fd, char *why, size_t size)
{
	struct ucred c;
	socklen_t len = sizeof(c);
	char name[sizeof(((struct sockaddr_un *)0)->sun_path) * 2 + 2];
	struct stat st;

	peer_name(fd, name, sizeof(name));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) == -1)
		c.pid = 0;
	snprintf(why, size, "%s (pid %ld)", name[0] ? name : "unnamed",
	    (long)c.pid);
	if (fstat(fd, &st) == -1)
		return false;
	uint64_t acc, l = sp_sup_unix_listener(st.st_ino, &acc);
	if (sp_sup_listener_ours(s, l) || (l == 0 && acc != 0 &&
	    sp_sup_held_by_tree(s, acc)))
		return true;	/* a listener of the tree */
	/* nothing to say, nothing said: its end of file first, then no
	 * end to it left (one that only shut down its writing still reads) */
	if (dead_and_empty(fd) && sp_sup_unix_listener(st.st_ino, &acc) == 0 &&
	    acc == 0)
		return true;
	if (name[0] == '\0' || !allowed_name(s, name))
		return false;
	/* A path names the file there as syspin sees it, not any listener
	 * that bound that string (in a mount namespace or a root of its
	 * own): the listener's bound file must be that one. */
	return name[0] != '/' || (stat(name, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    sp_sup_unix_bound_at(l != 0 ? l : acc, &st));
}

static void
said(struct sup *s, pid_t tid, const struct seccomp_data *d,
    const struct image *img, char *why)
{
	char comm[64], key[96], line[512];
	pid_t tgid = sp_sup_tgid(tid);

	snprintf(key, sizeof(key), "connect %ld %s", (long)tgid, why);
	if (!sp_sup_first_time(s, key))
		return;
	sp_sup_comm(tid, comm, sizeof(comm));
	/* a name is any bytes: one line, whatever it holds */
	for (char *c = (char *)why; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	snprintf(line, sizeof(line), "%s[%ld]: connect to %s refused: a unix "
	    "socket outside the pinned tree (syspin run --allow-socket NAME "
	    "allows it)", comm, (long)tgid, why);
	sp_sup_refused(s, tid, d, img, "connect", EACCES, line);
}

/* "path", "@name" or "unnamed": the address the caller asked for. */
static void
asked_name(const uint8_t *addr, size_t len, char *out, size_t size)
{
	sun_name((const struct sockaddr_un *)addr, len, out, size);
	if (out[0] == '\0')
		snprintf(out, size, "unnamed");
}

/* The caller's fd made blocking again (the fresh socket was made
 * without blocking): 0, or -1. */
static int
fcntl_clear_nonblock(struct sp_inject *in, int fd)
{
	long fl = call(in, SYS_fcntl, (uint64_t)fd, F_GETFL, 0);

	if (fl < 0 || call(in, SYS_fcntl, (uint64_t)fd, F_SETFL,
	    (uint64_t)fl & ~(uint64_t)O_NONBLOCK) < 0)
		return -1;
	return 0;
}

/* An abstract name the user allows: connected from outside the tree
 * (connect_out.c), where Landlock's scope lets it through. */
static bool
outside_allowed(const struct sup *s, const uint8_t *addr, size_t len)
{
	char name[sizeof(((struct sockaddr_un *)0)->sun_path) * 2 + 2];
	const struct sockaddr_un *a = (const struct sockaddr_un *)addr;

	if (len > sizeof(struct sockaddr_un) ||
	    len <= offsetof(struct sockaddr_un, sun_path) + 1 ||
	    a->sun_family != AF_UNIX || a->sun_path[0] != '\0')
		return false;
	sun_name(a, len, name, sizeof(name));
	for (size_t i = 0; i < s->o->nallow_sockets; i++)
		if (strcmp(name, s->o->allow_sockets[i]) == 0)
			return true;
	return false;
}

/*
 * The connect of an allowed abstract name, made by us: *mine (our copy of
 * the fresh socket) is dropped for a socket of ours, which the caller
 * gets at a new descriptor, *fresh (its own fresh one closed).  0 or
 * -errno, as connect's.
 */
static long
connect_outside(struct sp_inject *in, pid_t tid, long *fresh, int *mine,
    int type, int sock, const uint8_t *addr, size_t len, uint64_t at)
{
	int o[] = { SO_PASSCRED, SO_SNDBUF, SO_RCVBUF }, ours;
	long got;

	if ((ours = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		return -errno;
	for (size_t i = 0; i < sizeof(o) / sizeof(*o); i++) {
		int v = sp_sup_sockopt(sock, o[i]);
		if (v >= 0)
			setsockopt(ours, SOL_SOCKET, o[i], &v, sizeof(v));
	}
	got = sp_sup_connect_outside(in, tid, ours, addr, len, at);
	if (got < 0) {
		close(ours);
		return got;
	}
	(void)call(in, SYS_close, (uint64_t)*fresh, 0, 0);
	*fresh = got;
	if (*mine >= 0)
		close(*mine);
	*mine = ours;
	return 0;
}

/*
 * The connect made again on a fresh socket (see above); the result for
 * the caller in *res.
 */
static int
connect_fresh(struct sup *s, pid_t tid, pid_t tgid, const struct proc *p,
    const struct seccomp_data *d, int sock, bool *again)
{
	struct user_regs_struct saved;
	struct sp_inject in = { .pid = tid, .trap = p->img->pin.trap,
	    .pass_trace = true };
	uint8_t addr[sizeof(struct sockaddr_un)];
	size_t len = (size_t)d->args[2];
	int fd = (int)d->args[0], mine, type = sp_sup_sockopt(sock, SO_TYPE);
	int nb = fcntl(sock, F_GETFL) & O_NONBLOCK;
	struct sp_error err;
	ino_t fresh_ino = 0;
	struct stat st;
	uint64_t at;
	char why[256];
	long fresh, r;

	if (len > sizeof(addr) || len < sizeof(sa_family_t))
		len = sizeof(addr) + 1;		/* EINVAL, from the kernel */
	else if (sp_mem_read(tid, d->args[1], addr, len, &err) == -1)
		len = sizeof(addr) + 2;		/* EFAULT */
	if (sp_sup_to_exit_stop(tid, &saved, &in) == -1)
		return -1;
	saved.orig_rax = (uint64_t)-1;
	at = (saved.rsp - 1024 - sizeof(addr)) & ~(uint64_t)15;
	/* Never one that blocks: a connect to a listener whose queue is
	 * full held us, and every stop of the tree with us (blind round 18;
	 * interrupted, the thread got ERESTARTSYS).  A blocking caller's
	 * connect is made again instead, while the queue is full. */
	fresh = call(&in, SYS_socket, AF_UNIX, (uint64_t)(type | SOCK_CLOEXEC |
	    SOCK_NONBLOCK), 0);
	if (fresh < 0)
		r = fresh;
	else if (len > sizeof(addr))
		r = len == sizeof(addr) + 1 ? -EINVAL : -EFAULT;
	else if (sp_mem_write(tid, at, addr, len, &err) == -1)
		r = -EFAULT;
	else {
		/* what the caller set on its socket that a connect uses */
		if ((mine = sp_sup_their_fd(tid, (int)fresh)) >= 0) {
			int o[] = { SO_PASSCRED, SO_SNDBUF, SO_RCVBUF };
			for (size_t i = 0; i < sizeof(o) / sizeof(*o); i++) {
				int v = sp_sup_sockopt(sock, o[i]);
				if (v >= 0)
					setsockopt(mine, SOL_SOCKET, o[i], &v,
					    sizeof(v));
			}
		}
		/* in our network namespace only: an abstract name is its
		 * namespace's, and one the caller left (an empty one of its
		 * own) must not be reached for it (blind round 22) */
		r = outside_allowed(s, addr, len) && sp_sup_same_ns(tid, "net") ?
		    connect_outside(&in, tid, &fresh, &mine, type, sock, addr,
		    len, at) :
		    call(&in, SYS_connect, (uint64_t)fresh, at, len);
		if (r > 0)	/* its own filter's SECCOMP_RET_TRAP: rax is
				 * the number, rolled back */
			r = -EIO;
		if (r == 0 && (mine < 0 || !reached_ok(s, mine, why,
		    sizeof(why)))) {
			if (mine >= 0)
				shutdown(mine, SHUT_RDWR);
			if (mine < 0)
				asked_name(addr, len, why, sizeof(why));
			said(s, tid, d, p->img, why);
			r = -EACCES;
		} else if (r == 0)
			r = call(&in, SYS_dup3, (uint64_t)fresh, (uint64_t)fd,
			    cloexec(tid, fd) ? O_CLOEXEC : 0) < 0 ? -EIO : 0;
		if (mine >= 0 && fstat(mine, &st) == 0)
			fresh_ino = st.st_ino;
		if (mine >= 0)
			close(mine);
	}
	if (fresh >= 0)
		(void)call(&in, SYS_close, (uint64_t)fresh, 0, 0);
	/* Gone, by the kernel's account: the tree's own filter may answer
	 * our close with a 0 that never ran (blind round 25: the refused
	 * socket, connected outside, stayed the tree's).  (A thread that
	 * died meanwhile, or whose process exec'd, closes it itself: made
	 * close-on-exec.) */
	if (fresh >= 0 && fresh_ino != 0 && !in.gone && holds(tid,
	    (int)fresh, fresh_ino)) {
		char comm[64];
		sp_sup_comm(tid, comm, sizeof(comm));
		fprintf(stderr, "syspin: %s[%ld]: killed: a filter of its own "
		    "answered the supervisor's close of the socket its "
		    "connect was made on again\n", comm, (long)tgid);
		kill(tgid, SIGKILL);
		return -1;
	}
	/* A blocking socket would wait: its `syscall` again, judged again,
	 * once the listener may have room (a wait, not a spin of ours:
	 * blind round 21, a connect to a full listener held a CPU). */
	if (!nb && r == -EAGAIN) {
		saved.rip -= 2;
		r = d->nr;
		*again = true;
	} else if (r == 0 && !nb && fcntl_clear_nonblock(&in, fd) != 0)
		r = -EIO;
	saved.rax = (uint64_t)r;
	if (sp_inject_restore(&in, &saved, &err) == -1)
		return -1;
	return in.pending_sig;
}

/*
 * An unconnected, unbound unix stream socket is connected afresh; a
 * listening or connected one gets the kernel's error as it is; a bound
 * one cannot be remade (its name would be lost): refused.
 */
static int
fresh_or_not(int sock)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);

	if (sp_sup_sockopt(sock, SO_ACCEPTCONN) == 1 ||
	    getpeername(sock, (struct sockaddr *)&a, &len) == 0)
		return 0;	/* NATIVE: EINVAL, EISCONN */
	len = sizeof(a);
	if (getsockname(sock, (struct sockaddr *)&a, &len) == 0 &&
	    len > offsetof(struct sockaddr_un, sun_path))
		return 2;	/* REFUSE */
	return 1;		/* FRESH */
}

int
sp_sup_connect(struct sup *s, pid_t tid, const struct seccomp_data *d,
    struct proc *p)
{
	struct sp_frozen *f;
	pid_t tgid = sp_sup_tgid(tid);
	int sock, sig = 0;
	bool again = false;
	enum { NATIVE, FRESH, REFUSE, UNSEEN } how = NATIVE;

	if (p->img == NULL)
		return 0;
	f = sp_sup_freeze(s, tid);
	/* not a socket (the kernel says so), or not a unix stream one */
	if ((sock = sp_sup_their_fd(tid, (int)d->args[0])) != -1 &&
	    sp_sup_sockopt(sock, SO_DOMAIN) == AF_UNIX &&
	    (sp_sup_sockopt(sock, SO_TYPE) == SOCK_STREAM ||
	    sp_sup_sockopt(sock, SO_TYPE) == SOCK_SEQPACKET))
		how = fresh_or_not(sock);
	else if (sock == -1 && errno != EBADF)
		how = UNSEEN;	/* not "not a socket": not known */
	if (how == FRESH && p->img->pin.trap == 0)
		how = REFUSE;		/* nowhere to make it again */
	if (how == FRESH && (sig = connect_fresh(s, tid, tgid, p, d,
	    sock, &again)) == -1) {
		(void)sp_sup_kill_unjudged(tid);	/* cannot judge it */
		sig = -1;
	} else if (how == REFUSE || how == UNSEEN) {
		char why[64];
		snprintf(why, sizeof(why), "%s", how == REFUSE ? "a socket that "
		    "cannot be judged (bound first)" : "a descriptor that "
		    "cannot be looked at");
		said(s, tid, d, p->img, why);
		sig = sp_sup_fail_call(tid, EACCES) == -1 ? -1 : 0;
	} else if (how == NATIVE && f != NULL &&
	    sp_sup_under_way(s, tid, 42, NULL) == 0)
		sig = -1;	/* resumed: the kernel holds the socket */
	if (sock != -1)
		close(sock);
	sp_sup_thaw(s, f);
	/* p may have moved (the thaw handled stops met meanwhile) */
	if (sig >= 0 && how == FRESH) {
		if (!again) {
			if ((p = sp_sup_proc(s, tid, false)) != NULL)
				p->park_ms = 0;
		} else {
			sp_sup_park(s, tid, sig);
			sig = -1;	/* it goes on later */
		}
	}
	return sig;
}
