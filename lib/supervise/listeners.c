/* SPDX-License-Identifier: ISC */
/*
 * The tree's unix listeners (connect.c judges by them): the sockets its
 * listen() calls made, and those syspin's caller handed it; and who
 * holds a socket, by the descriptors of /proc/PID/fd.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervise_int.h"

int
sp_sup_sockopt(int fd, int opt)
{
	socklen_t len = sizeof(int);
	int v = -1;

	return getsockopt(fd, SOL_SOCKET, opt, &v, &len) == 0 ? v : -1;
}

/* Whether process pid holds the socket ino (its table, as /proc shows
 * it). */
static bool
holds_socket(long pid, uint64_t ino)
{
	char path[96], link[64], want[40];
	struct dirent *e;
	bool held = false;
	DIR *d;

	snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)ino);
	snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
	if ((d = opendir(path)) == NULL)
		return false;
	while (!held && (e = readdir(d)) != NULL) {
		char fdp[384];
		ssize_t n;
		snprintf(fdp, sizeof(fdp), "%s/%s", path, e->d_name);
		if ((n = readlink(fdp, link, sizeof(link) - 1)) > 0) {
			link[n] = '\0';
			held = strcmp(link, want) == 0;
		}
	}
	closedir(d);
	return held;
}

bool
sp_sup_held_by_tree(const struct sup *s, uint64_t ino)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (sp_sup_in_tree(s, s->procs[i].pid) &&
		    holds_socket((long)s->procs[i].pid, ino))
			return true;
	return false;
}

/* Whether a process outside the tree (that we may look at) holds the
 * socket ino. */
static bool
held_outside(const struct sup *s, uint64_t ino)
{
	struct dirent *p;
	bool held = false;
	DIR *all;
	long pid;

	if ((all = opendir("/proc")) == NULL)
		return true;
	while (!held && (p = readdir(all)) != NULL)
		held = (pid = atol(p->d_name)) > 0 && pid != (long)getpid() &&
		    !sp_sup_in_tree(s, (pid_t)pid) && holds_socket(pid, ino);
	closedir(all);
	return held;
}

/* The socket of a listen() of the tree: the tree's listener.  (Another
 * thread may put another socket at the descriptor first: then that one is
 * recorded, the tree's too, and the real one refused to the tree's
 * clients: nothing outside becomes the tree's.) */
static void
record(struct sup *s, int sock)
{
	struct stat st;

	if (sock >= 0 && sp_sup_sockopt(sock, SO_DOMAIN) == AF_UNIX &&
	    fstat(sock, &st) == 0)
		sp_sup_listener_add(s, st.st_ino);
}

/*
 * A listen() makes the tree's listener of a socket that was not one, and
 * that no process outside holds: a listener shared with one outside (a
 * prefork server's, under -p) listened again is still whoever's accepts
 * on it (blind round 25: an attached worker's connects to its master's
 * socket, accepted outside, went through).
 */
int
sp_sup_listen(struct sup *s, pid_t tid, const struct seccomp_data *d)
{
	int sock = sp_sup_their_fd(tid, (int)d->args[0]);
	struct stat st;

	if (sock >= 0 && sp_sup_sockopt(sock, SO_DOMAIN) == AF_UNIX &&
	    sp_sup_sockopt(sock, SO_ACCEPTCONN) != 1 && fstat(sock, &st) == 0 &&
	    !held_outside(s, st.st_ino))
		record(s, sock);
	if (sock >= 0)
		close(sock);
	return 0;
}

/* The listening unix sockets syspin's caller handed it (a service's
 * socket activation): the first process inherits them. */
void
sp_sup_listeners_inherited(struct sup *s)
{
	struct dirent *e;
	DIR *d;
	int fd;

	/* the descriptors there are, not a thousand access(2) calls */
	if ((d = opendir("/proc/self/fd")) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if ((fd = atoi(e->d_name)) > 2 && fd != dirfd(d) &&
		    sp_sup_sockopt(fd, SO_ACCEPTCONN) == 1)
			record(s, fd);
	closedir(d);
}
