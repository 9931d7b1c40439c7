/* SPDX-License-Identifier: ISC */
/*
 * An abstract unix name the user allows (--allow-socket @NAME) is
 * connected from outside the tree.  Landlock keeps every abstract socket
 * outside the tree's domain out of its reach (its abstract-socket scope),
 * so a connect made in the tree, as connect.c makes the others, would
 * meet EPERM; lifting the scope for the tree, as we did, let its
 * datagrams reach every abstract datagram socket outside (blind round
 * 20).  So the scope stays, and the connect is made by us, as the caller
 * (its uids, gids and groups, which the listener reads with SO_PEERCRED
 * and SO_PEERGROUPS; the pid it reads is ours or a helper's), on a socket
 * of ours, which is then handed to the caller (handin.c).  Its other
 * threads are stopped meanwhile (connect.c froze them).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervise_int.h"

#define MAX_GROUPS 256

struct creds {
	uid_t uid[3];
	gid_t gid[3];
	gid_t groups[MAX_GROUPS];
	int ngroups;
};

/* The thread's real, effective and saved ids and its groups. */
static int
their_creds(pid_t tid, struct creds *c)
{
	char path[64], line[4096];
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)tid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	c->ngroups = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long a, b, d;
		if (sscanf(line, "Uid: %lu %lu %lu", &a, &b, &d) == 3) {
			c->uid[0] = (uid_t)a, c->uid[1] = (uid_t)b;
			c->uid[2] = (uid_t)d;
			got |= 1;
		} else if (sscanf(line, "Gid: %lu %lu %lu", &a, &b, &d) == 3) {
			c->gid[0] = (gid_t)a, c->gid[1] = (gid_t)b;
			c->gid[2] = (gid_t)d;
			got |= 2;
		} else if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7, *e;
			got |= 4;
			for (;;) {
				unsigned long g = strtoul(p, &e, 10);
				if (e == p)
					break;
				if (c->ngroups == MAX_GROUPS) {
					got = 0;	/* more than we carry */
					break;
				}
				c->groups[c->ngroups++] = (gid_t)g;
				p = e;
			}
		}
	}
	fclose(f);
	return got == 7 ? 0 : -1;
}

static bool
same_as_ours(const struct creds *c)
{
	uid_t u[3];
	gid_t g[3], groups[MAX_GROUPS];
	int n;

	if (getresuid(&u[0], &u[1], &u[2]) == -1 ||
	    getresgid(&g[0], &g[1], &g[2]) == -1 ||
	    (n = getgroups(MAX_GROUPS, groups)) == -1 || n != c->ngroups ||
	    memcmp(u, c->uid, sizeof(u)) != 0 ||
	    memcmp(g, c->gid, sizeof(g)) != 0)
		return false;
	/* the order the kernel keeps (sorted) on both sides */
	return memcmp(groups, c->groups, (size_t)n * sizeof(gid_t)) == 0;
}

/*
 * sock connected to addr as the caller would be: by us when we are it,
 * else (we are root) by a child of ours that becomes it.  0 or -errno.
 */
static long
connect_as(int sock, const struct creds *c, const void *addr, size_t len)
{
	pid_t child;
	int st;

	if (same_as_ours(c))
		return connect(sock, addr, (socklen_t)len) == 0 ? 0 : -errno;
	if (geteuid() != 0)
		return -EACCES;
	if ((child = fork()) == -1)
		return -errno;
	if (child == 0) {
		signal(SIGPIPE, SIG_DFL);
		if (setgroups((size_t)c->ngroups, c->groups) == -1 ||
		    setresgid(c->gid[0], c->gid[1], c->gid[2]) == -1 ||
		    setresuid(c->uid[0], c->uid[1], c->uid[2]) == -1)
			_exit(EACCES);
		_exit(connect(sock, addr, (socklen_t)len) == 0 ? 0 :
		    errno > 0 && errno < 256 ? errno : EIO);
	}
	while (waitpid(child, &st, __WALL) == -1)
		if (errno != EINTR)
			return -EIO;
	return WIFEXITED(st) ? -WEXITSTATUS(st) : -EIO;
}

long
sp_sup_connect_outside(struct sp_inject *in, pid_t tid, int mine,
    const void *addr, size_t len, uint64_t at)
{
	struct creds c;
	long r;

	if (their_creds(tid, &c) == -1)
		return -EACCES;
	if ((r = connect_as(mine, &c, addr, len)) < 0)
		return r;
	return sp_sup_hand_in(in, tid, mine, at);
}
