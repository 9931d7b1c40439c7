/* SPDX-License-Identifier: ISC */
/*
 * Whose listener a unix socket reached, from the kernel's socket diag
 * (NETLINK_SOCK_DIAG, linux/unix_diag.h), by socket inode: a pid
 * (SO_PEERCRED) names the process that called listen(), which may have
 * ended, its number taken since by anyone (a daemon listens, forks, and
 * its parent exits: gpg-agent, ssh-agent, dbus-daemon --fork).  Until
 * accepted, a connection waits in its listener's queue, which the diag
 * lists by client: the listener whose queue holds ours is the one
 * reached.  Accepted meanwhile, the server's end is a socket of its own,
 * held by whoever accepted it.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "supervise_int.h"
#include "util/search.h"

#define TCP_LISTEN_ 10
#define BUF 32768

static int
ask(int fd, uint32_t ino, uint32_t states, uint32_t show, bool dump)
{
	struct {
		struct nlmsghdr nh;
		struct unix_diag_req r;
	} q;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	memset(&q, 0, sizeof(q));
	q.nh.nlmsg_len = sizeof(q);
	q.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nh.nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : 0);
	q.r.sdiag_family = AF_UNIX;
	q.r.udiag_states = states;
	q.r.udiag_ino = ino;
	q.r.udiag_show = show;
	q.r.udiag_cookie[0] = q.r.udiag_cookie[1] = (uint32_t)-1;
	return sendto(fd, &q, sizeof(q), 0, (struct sockaddr *)&nl,
	    sizeof(nl)) == (ssize_t)sizeof(q) ? 0 : -1;
}

/*
 * Reads the answers; for each socket, fn(ctx, its inode, attribute type,
 * data, length) per attribute.  Stops at NLMSG_DONE, or at the first
 * message when not a dump.  fn returning true ends it early (the rest is
 * drained by closing the socket).
 */
typedef bool attr_fn(void *ctx, uint32_t ino, int type, const void *data,
    size_t len);

static int
answers(int fd, bool dump, attr_fn *fn, void *ctx)
{
	static __thread uint8_t buf[BUF];
	ssize_t n;

	for (;;) {
		if ((n = recv(fd, buf, sizeof(buf), 0)) <= 0)
			return -1;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		    NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			struct unix_diag_msg *m = NLMSG_DATA(h);
			struct rtattr *a = (struct rtattr *)(m + 1);
			int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
				if (fn(ctx, m->udiag_ino, a->rta_type,
				    RTA_DATA(a), RTA_PAYLOAD(a)))
					return 0;
			if (!dump)
				return 0;
		}
	}
}

struct peer_ctx {
	uint32_t peer;
};

static bool
peer_of(void *ctx, uint32_t ino, int type, const void *data, size_t len)
{
	struct peer_ctx *c = ctx;

	(void)ino;
	if (type == UNIX_DIAG_PEER && len >= sizeof(uint32_t)) {
		memcpy(&c->peer, data, sizeof(uint32_t));
		return true;
	}
	return false;
}

struct icons_ctx {
	uint32_t client, listener;
};

static bool
icon_of(void *ctx, uint32_t ino, int type, const void *data, size_t len)
{
	struct icons_ctx *c = ctx;
	uint32_t v;

	if (type != UNIX_DIAG_ICONS)
		return false;
	for (size_t i = 0; i + sizeof(v) <= len; i += sizeof(v)) {
		memcpy(&v, (const uint8_t *)data + i, sizeof(v));
		if (v == c->client) {
			c->listener = ino;
			return true;
		}
	}
	return false;
}

uint64_t
sp_sup_unix_listener(uint64_t client, uint64_t *accepted)
{
	struct peer_ctx p = { 0 };
	struct icons_ctx c = { (uint32_t)client, 0 };
	int fd;

	*accepted = 0;
	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return 0;
	/* a listener's pending connections are listed by their clients */
	if (ask(fd, 0, 1u << TCP_LISTEN_, UDIAG_SHOW_ICONS, true) == 0)
		(void)answers(fd, true, icon_of, &c);
	close(fd);
	if (c.listener != 0)
		return c.listener;
	/* accepted meanwhile: the server end has a socket of its own */
	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return 0;
	if (ask(fd, (uint32_t)client, ~0u, UDIAG_SHOW_PEER, false) == 0 &&
	    answers(fd, false, peer_of, &p) == 0)
		*accepted = p.peer;
	close(fd);
	return 0;
}

struct vfs_ctx {
	struct unix_diag_vfs v;
	bool got;
};

static bool
vfs_of(void *ctx, uint32_t ino, int type, const void *data, size_t len)
{
	struct vfs_ctx *c = ctx;

	(void)ino;
	if (type == UNIX_DIAG_VFS && len >= sizeof(c->v)) {
		memcpy(&c->v, data, sizeof(c->v));
		c->got = true;
		return true;
	}
	return false;
}

bool
sp_sup_unix_bound_at(uint64_t sock, const struct stat *st)
{
	struct vfs_ctx c = { { 0, 0 }, false };
	int fd;

	if (sock == 0 || (fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return false;
	if (ask(fd, (uint32_t)sock, ~0u, UDIAG_SHOW_VFS, false) == 0)
		(void)answers(fd, false, vfs_of, &c);
	close(fd);
	/* the kernel's dev_t (major << 20 | minor), 32 bits of the inode */
	return c.got && c.v.udiag_vfs_ino == (uint32_t)st->st_ino &&
	    c.v.udiag_vfs_dev >> 20 == major(st->st_dev) &&
	    (c.v.udiag_vfs_dev & 0xfffff) == minor(st->st_dev);
}

/* ---- unix sockets with something queued ---- */

struct queued_ctx {
	uint64_t *inos;
	size_t n, max;
	bool full;
};

static bool
queued_one(void *ctx, uint32_t ino, int type, const void *data, size_t len)
{
	struct queued_ctx *c = ctx;
	struct unix_diag_rqlen q;

	if (type != UNIX_DIAG_RQLEN || len < sizeof(q))
		return false;
	memcpy(&q, data, sizeof(q));
	if (q.udiag_rqueue == 0)
		return false;
	if (c->n == c->max) {
		c->full = true;
		return true;
	}
	c->inos[c->n++] = ino;
	return false;
}

ssize_t
sp_unix_queued(uint64_t *inos, size_t max)
{
	struct queued_ctx c = { inos, 0, max, false };
	int fd, r = -1;

	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_SOCK_DIAG)) == -1)
		return -1;
	if (ask(fd, 0, ~0u, UDIAG_SHOW_RQLEN, true) == 0)
		r = answers(fd, true, queued_one, &c);
	close(fd);
	if (r == -1 || c.full)
		return -1;
	qsort(inos, c.n, sizeof(*inos), sp_cmp_u64);
	return (ssize_t)c.n;
}

/* ---- the listeners of the tree, by socket inode ---- */

static bool
find(const struct sup *s, uint64_t ino, size_t *at)
{
	size_t lo = 0, hi = s->nlisteners;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->listeners[mid] == ino) {
			*at = mid;
			return true;
		}
		if (s->listeners[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return false;
}

#define MAX_LISTENERS (1u << 20)

void
sp_sup_listener_add(struct sup *s, uint64_t ino)
{
	uint64_t *v;
	size_t at;

	if (ino == 0 || find(s, ino, &at) || s->nlisteners >= MAX_LISTENERS)
		return;
	if (s->nlisteners == s->caplisteners) {
		size_t cap = s->caplisteners ? 2 * s->caplisteners : 64;
		if ((v = realloc(s->listeners, cap * sizeof(*v))) == NULL)
			return;
		s->listeners = v;
		s->caplisteners = cap;
	}
	memmove(s->listeners + at + 1, s->listeners + at,
	    (s->nlisteners - at) * sizeof(*s->listeners));
	s->listeners[at] = ino;
	s->nlisteners++;
}

bool
sp_sup_listener_ours(const struct sup *s, uint64_t ino)
{
	size_t at;

	return ino != 0 && find(s, ino, &at);
}
