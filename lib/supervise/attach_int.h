/* SPDX-License-Identifier: ISC */
/*
 * syspin run -p: what attach.c (the attach), attach_seize.c (every
 * thread seized and stopped, refusals first) and attach_kept.c (what the
 * process made before, judged) share.
 */
#ifndef SYSPIN_SUPERVISE_ATTACH_INT_H
#define SYSPIN_SUPERVISE_ATTACH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "supervise_int.h"

#define MAX_TIDS 1024

struct seized {
	pid_t tid[MAX_TIDS];
	bool stopped[MAX_TIDS];	/* in a group-stop (SIGSTOP, ^Z) */
	size_t n;
};

#define MAX_PROCS 512

/* One process of the tree attached to: its threads, its image. */
struct attached {
	pid_t pid;
	pid_t parent;		/* a descendant's, as listed; 0 named */
	struct seized z;
	struct image *img;
};

/* attach_seize.c: why pid cannot be pinned, before anything is done to
 * it (NULL: it can be tried); pid and its descendants, each stopped
 * whole, *n of them (-1 with err); their stopped threads made to die
 * with us; all let go; whether t is a thread of them. */
const char *sp_attach_refusal(pid_t pid, char *buf, size_t size);
int sp_attach_seize(const pid_t *pids, size_t npids,
    const struct sp_pin_opts *pin, struct attached *v, size_t *n,
    struct sp_error *err);
int sp_attach_arm(struct attached *v, size_t n, struct sp_error *err);
void sp_attach_let_go(struct attached *v, size_t n);
bool sp_attach_member(const struct attached *v, size_t n, pid_t t);
/* Whether t is one of z's threads. */
bool sp_attach_has(const struct seized *z, pid_t t);

/* attach_kept.c: a way out the processes made before, which neither pins
 * nor the domain take back (a process outside traced, memory of one
 * held, an io_uring, a listener...); a process outside sharing memory,
 * descriptors or root with one of them.  NULL, or why. */
const char *sp_attach_holds_outside(const struct attached *v, size_t n,
    char *buf, size_t size);
const char *sp_attach_shared_outside(const struct attached *v, size_t n,
    char *buf, size_t size);
/* attach_fds.c: why descriptor fdpath (naming link) of process pid
 * (pidfd) is refused, or NULL; queued: the inodes of unix sockets with
 * bytes or connections queued (sock_diag), sorted. */
const char *sp_attach_fd_refusal(const struct attached *v, size_t n,
    pid_t pid, int pidfd, const char *fdpath, const char *link,
    uint64_t proc_mnt, const uint64_t *queued, size_t nq, char *buf,
    size_t size);

#endif
