/* SPDX-License-Identifier: ISC */
/*
 * Blind round 19: a caller that scoped its own signals (Landlock) asks for
 * SIGSEGV to its parent, which its scope forbids, through a pidfd number
 * an io_uring worker keeps flipping between the parent's pidfd and its
 * own (IORING_OP_CLOSE, then IORING_OP_FIXED_FD_INSTALL of a registered
 * file: the same open file comes back, so a comparison of descriptors
 * before and after the supervisor's probe saw nothing).  No ptrace stop
 * holds an io_uring worker.  The supervisor, which sends core-dumping
 * signals itself, must ask the caller about the very process it signals.
 *
 * usage: sigflip [TRIES]    exit 0: the parent got none (or no io_uring
 * or Landlock signal scope here: said so); 1: it got one.
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef IORING_OP_FIXED_FD_INSTALL
#define IORING_OP_FIXED_FD_INSTALL 54
#endif

static volatile sig_atomic_t got;
static int ring, n;
static unsigned entries, *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail;
static struct io_uring_sqe *sqes;

static void
on_segv(int sig)
{
	(void)sig;
	got++;
}

static int
ring_setup(unsigned want)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	if ((ring = (int)syscall(SYS_io_uring_setup, want, &p)) < 0)
		return -1;
	entries = p.sq_entries;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * 4, PROT_READ |
	    PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries *
	    sizeof(struct io_uring_cqe), PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ |
	    PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return -1;
	sq_tail = (unsigned *)(sq + p.sq_off.tail);
	sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	sq_array = (unsigned *)(sq + p.sq_off.array);
	cq_head = (unsigned *)(cq + p.cq_off.head);
	cq_tail = (unsigned *)(cq + p.cq_off.tail);
	return 0;
}

/* One linked chain: close n, put fixed file 1 (our own pidfd) there,
 * close n, put fixed file 0 (the parent's) back, and again. */
static void
flip_chain(void)
{
	unsigned t = *sq_tail;

	for (unsigned i = 0; i < entries; i++) {
		struct io_uring_sqe *s = &sqes[i];
		memset(s, 0, sizeof(*s));
		if (i % 2 == 0) {
			s->opcode = IORING_OP_CLOSE;
			s->fd = n;
		} else {
			s->opcode = IORING_OP_FIXED_FD_INSTALL;
			s->fd = i % 4 == 1 ? 1 : 0;
			s->flags = IOSQE_FIXED_FILE;
			s->rw_flags = 1;	/* IORING_FIXED_FD_NO_CLOEXEC */
		}
		s->flags |= IOSQE_ASYNC | (i + 1 < entries ?
		    IOSQE_IO_HARDLINK : 0);
		sq_array[(t + i) & *sq_mask] = i;
	}
	__atomic_store_n(sq_tail, t + entries, __ATOMIC_RELEASE);
	(void)syscall(SYS_io_uring_enter, ring, entries, 0, 0, NULL, 0);
}

static int
child(pid_t parent, int tries)
{
	struct { uint64_t fs, net, scoped; } a = { 0, 0, 1u << 1 };
	int files[2], rs;

	files[0] = n = (int)syscall(SYS_pidfd_open, parent, 0);
	files[1] = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (files[0] < 0 || files[1] < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0,
	    0, 0) == -1 || (rs = (int)syscall(SYS_landlock_create_ruleset, &a,
	    sizeof(a), 0)) < 0 || syscall(SYS_landlock_restrict_self, rs, 0))
		return 77;
	if (ring_setup(4096) == -1 || syscall(SYS_io_uring_register, ring,
	    IORING_REGISTER_FILES, files, 2) < 0)
		return 77;
	signal(SIGSEGV, SIG_IGN);	/* our own pidfd: ignored here */
	for (unsigned i = 0, done = entries; i < (unsigned)tries; i++) {
		unsigned h, t;
		if (done >= entries) {	/* the last chain ran out */
			flip_chain();
			done = 0;
		}
		(void)syscall(SYS_pidfd_send_signal, n, SIGSEGV, NULL, 0);
		h = *cq_head;
		t = __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE);
		__atomic_store_n(cq_head, t, __ATOMIC_RELEASE);
		done += t - h;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int tries = argc > 1 ? atoi(argv[1]) : 3000, st;
	pid_t parent = getpid(), c;

	signal(SIGSEGV, on_segv);
	if ((c = fork()) == 0)
		_exit(child(parent, tries));
	while (waitpid(c, &st, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
		printf("skip: no io_uring or Landlock signal scope here\n");
		return 0;
	}
	printf("%s: the parent got SIGSEGV %d time(s)\n", got ? "FAIL" :
	    "ok  ", (int)got);
	return got ? 1 : 0;
}
