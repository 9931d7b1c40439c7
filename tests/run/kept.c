/* SPDX-License-Identifier: ISC */
/*
 * What a process makes before `syspin run -p` attaches to it that its
 * pins would not see (blind round 23; tests/run/kept.sh).  Each MODE
 * sets something up, says "ready", then acts on a byte read from FIFO:
 *   growsdown  an executable MAP_GROWSDOWN page; 'g' grows it 64 KiB
 *   rie        personality(READ_IMPLIES_EXEC); 'g' maps a readable
 *              page and says whether it is executable
 *   uring      an io_uring in memory of its own (IORING_SETUP_NO_MMAP),
 *              its descriptor registered and closed; 'g' enters it
 *              through the registration and says what that returned
 *   uringarm   the same ring, with a personality registered (these
 *              credentials) and a poll of a pipe linked to an openat of
 *              ARG with it, armed; 'g' writes the pipe and says whether
 *              ARG was opened
 *   procmem    PATH (ARG) held open, e.g. another procfs mount's mem
 *   vfork      its main thread in vfork for 3 s (a child sleeping)
 *   keythread  a second thread links the persistent keyring (where the
 *              cache's key is) into its thread keyring
 *   listener   holds the seccomp listener of a process outside (an
 *              orphan it made, whose getppid the listener answers)
 *   clonevm    a process sharing its memory that is not its child
 *              (clone(CLONE_VM | CLONE_PARENT)), sleeping
 *   uffd       holds a userfaultfd
 *   inflight   a descriptor sent into a socket pair of its own and not
 *              received yet (SCM_RIGHTS)
 *   files      a second thread with a descriptor table of its own
 *   async      a pipe set to signal SIGQUIT to itself (O_ASYNC,
 *              F_SETOWN, F_SETSIG)
 *   owner      the same without O_ASYNC (set later, it signals)
 *   sigonly    a pipe set to signal SIGQUIT, no owner, no O_ASYNC (an
 *              owner set later gets it)
 *   dnotify    a directory (ARG) watched (F_NOTIFY) that signals SIGQUIT
 *              to itself on a file made in it, without O_ASYNC
 *   inflight0  a descriptor in flight in a message of no bytes, over a
 *              SOCK_DGRAM pair, and another over a SOCK_SEQPACKET one,
 *              this one behind a peek offset (SO_PEEK_OFF)
 *   ownout     a pipe whose owner is process ARG (outside), no signal
 *              set (SIGIO); 'g' sets O_ASYNC and writes: SIGIO to ARG
 *   exitsig    the process serving is a child made with exit signal
 *              SIGQUIT (it says "ready" with its own pid)
 *   'p' answers "ping", 'q' ends with status 0.
 * usage: kept MODE FIFO [ARG]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef IORING_SETUP_NO_MMAP
#define IORING_SETUP_NO_MMAP (1u << 14)
#endif
#define GROWS_AT ((void *)0x300000100000ul)

static unsigned ring_index = ~0u;
static int owned[2] = { -1, -1 };
static char sibling_stack[65536] __attribute__((aligned(16)));

static int
sibling(void *a)
{
	(void)a;
	alarm(60);	/* not left behind where no one kills it */
	for (;;)
		syscall(SYS_pause);
	return 0;
}
static long key_linked;
static pthread_t linker;

static void *
own_table(void *a)
{
	(void)a;
	if (unshare(CLONE_FILES) == 0)
		key_linked = 1;
	else
		key_linked = -1;
	for (;;)
		pause();
	return NULL;
}

static void *
link_key(void *a)
{
	(void)a;
	key_linked = syscall(SYS_keyctl, KEYCTL_GET_PERSISTENT, -1,
	    KEY_SPEC_THREAD_KEYRING);
	for (;;)
		pause();
	return NULL;
}

/* An orphan (not a descendant) whose getppid its filter's listener
 * answers; the listener sent back over a socket: our descriptor. */
static int
listener(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { 4, f };
	char c[CMSG_SPACE(sizeof(int))] = { 0 }, b = 0;
	struct iovec io = { &b, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1,
		.msg_control = c, .msg_controllen = sizeof(c) };
	int sv[2], fd;
	pid_t p;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == -1)
		return -1;
	if ((p = fork()) == 0) {
		if (fork() != 0)
			_exit(0);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		if (fd < 0)
			_exit(1);
		struct cmsghdr *h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fd, sizeof(int));
		sendmsg(sv[1], &m, 0);
		sleep(30);
		_exit(0);
	}
	waitpid(p, NULL, 0);
	if (recvmsg(sv[0], &m, 0) != 1 || CMSG_FIRSTHDR(&m) == NULL)
		return -1;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	return fd >= 0 ? 0 : -1;
}

/* A descriptor (of /dev/null) sent into a socket pair of its own, of
 * type, in a message of len bytes (0 or 1), not received; peek_off: the
 * receiving end gets a peek offset, which hides a message of no bytes
 * from a peek at its start. */
static int
in_flight(int type, size_t len, bool peek_off)
{
	char c[CMSG_SPACE(sizeof(int))] = { 0 }, b = 0;
	struct iovec io = { &b, len };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1,
		.msg_control = c, .msg_controllen = sizeof(c) };
	int sv[2], off = 1, fd = open("/dev/null", O_RDONLY);

	if (fd < 0 || socketpair(AF_UNIX, type, 0, sv) == -1)
		return -1;
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(int));
	if (sendmsg(sv[1], &m, 0) != (ssize_t)len || (peek_off &&
	    setsockopt(sv[0], SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off)) ==
	    -1))
		return -1;
	close(fd);
	return 0;
}

/*
 * An io_uring in memory of its own (IORING_SETUP_NO_MMAP), its
 * descriptor registered and closed.  With a path: a personality
 * registered (these credentials), and a poll of a pipe linked to an
 * openat of path with it, armed: a write to the pipe ('g') opens it.
 */
static int
hidden_ring(const char *path)
{
	struct io_uring_params p;
	struct io_uring_rsrc_update up = { .offset = ~0u };
	char *rings = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct io_uring_sqe *sqes = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long fd, pers;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_NO_MMAP;
	/* user_addr, the last word of each (resv2 in older headers) */
	uint64_t sq = (uintptr_t)sqes, cq = (uintptr_t)rings;
	memcpy((char *)&p.sq_off + sizeof(p.sq_off) - 8, &sq, 8);
	memcpy((char *)&p.cq_off + sizeof(p.cq_off) - 8, &cq, 8);
	if ((fd = syscall(SYS_io_uring_setup, 4, &p)) < 0)
		return 77;
	if (path != NULL) {
		unsigned *tail = (unsigned *)(rings + p.sq_off.tail);
		unsigned *array = (unsigned *)(rings + p.sq_off.array);
		if (pipe(owned) == -1 || (pers = syscall(SYS_io_uring_register,
		    fd, IORING_REGISTER_PERSONALITY, NULL, 0)) < 0)
			return 77;
		memset(sqes, 0, 2 * sizeof(*sqes));
		sqes[0].opcode = IORING_OP_POLL_ADD;
		sqes[0].fd = owned[0];
		sqes[0].poll32_events = POLLIN;
		sqes[0].flags = IOSQE_IO_LINK;
		sqes[1].opcode = IORING_OP_OPENAT;
		sqes[1].fd = AT_FDCWD;
		sqes[1].addr = (uintptr_t)path;
		sqes[1].open_flags = O_RDONLY;
		sqes[1].personality = (uint16_t)pers;
		array[0] = 0;
		array[1] = 1;
		__atomic_store_n(tail, *tail + 2, __ATOMIC_RELEASE);
		if (syscall(SYS_io_uring_enter, fd, 2, 0, 0, NULL, 0) != 2)
			return 77;
	}
	up.data = (uint64_t)fd;
	if (syscall(SYS_io_uring_register, fd, IORING_REGISTER_RING_FDS, &up,
	    1) != 1)
		return 77;
	ring_index = up.offset;
	close((int)fd);
	return 0;
}

static int
setup(const char *mode, const char *arg)
{
	if (strcmp(mode, "growsdown") == 0)
		return mmap(GROWS_AT, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN |
		    MAP_FIXED_NOREPLACE, -1, 0) == GROWS_AT ? 0 : -1;
	if (strcmp(mode, "rie") == 0)
		return personality(PER_LINUX | READ_IMPLIES_EXEC) == -1 ? -1 : 0;
	if (strcmp(mode, "procmem") == 0)
		return arg != NULL && open(arg, O_RDONLY) >= 0 ? 0 : -1;
	if (strcmp(mode, "vfork") == 0)
		return 0;
	if (strcmp(mode, "listener") == 0)
		return listener();
	if (strcmp(mode, "clonevm") == 0)
		return clone(sibling, sibling_stack + sizeof(sibling_stack),
		    CLONE_VM | CLONE_PARENT | SIGCHLD, NULL) > 0 ? 0 : -1;
	if (strcmp(mode, "inflight") == 0)
		return in_flight(SOCK_DGRAM, 1, false);
	if (strcmp(mode, "files") == 0) {
		if (pthread_create(&linker, NULL, own_table, NULL) != 0)
			return -1;
		while (key_linked == 0)
			usleep(10000);
		return key_linked > 0 ? 0 : -1;
	}
	if (strcmp(mode, "async") == 0) {
		int p[2];
		return pipe(p) == 0 && fcntl(p[0], F_SETOWN, getpid()) == 0 &&
		    fcntl(p[0], F_SETSIG, SIGQUIT) == 0 &&
		    fcntl(p[0], F_SETFL, O_ASYNC) == 0 ? 0 : -1;
	}
	if (strcmp(mode, "owner") == 0) {
		int p[2];
		return pipe(p) == 0 && fcntl(p[0], F_SETOWN, getpid()) == 0 &&
		    fcntl(p[0], F_SETSIG, SIGQUIT) == 0 ? 0 : -1;
	}
	if (strcmp(mode, "sigonly") == 0) {
		int p[2];
		return pipe(p) == 0 && fcntl(p[0], F_SETSIG, SIGQUIT) == 0 ?
		    0 : -1;
	}
	if (strcmp(mode, "ownout") == 0)
		return arg != NULL && pipe(owned) == 0 && fcntl(owned[0],
		    F_SETOWN, atoi(arg)) == 0 ? 0 : -1;
	if (strcmp(mode, "dnotify") == 0) {
		int d = arg != NULL ? open(arg, O_RDONLY | O_DIRECTORY) : -1;
		return d >= 0 && fcntl(d, F_SETOWN, getpid()) == 0 &&
		    fcntl(d, F_SETSIG, SIGQUIT) == 0 && fcntl(d, F_NOTIFY,
		    DN_CREATE | DN_MULTISHOT) == 0 ? 0 : -1;
	}
	if (strcmp(mode, "inflight0") == 0)
		return in_flight(SOCK_DGRAM, 0, false) == 0 &&
		    in_flight(SOCK_SEQPACKET, 0, true) == 0 ? 0 : -1;
	if (strcmp(mode, "exitsig") == 0) {
		pid_t c = (pid_t)syscall(SYS_clone, SIGQUIT, NULL, NULL, NULL,
		    0);
		if (c < 0)
			return -1;
		if (c > 0) {	/* the parent: outside, waits for it */
			int st;
			waitpid(c, &st, __WALL);
			_exit(WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 0);
		}
		return 0;
	}
	if (strcmp(mode, "uffd") == 0)
		return syscall(SYS_userfaultfd, O_CLOEXEC) >= 0 ? 0 : 77;
	if (strcmp(mode, "keythread") == 0) {
		if (pthread_create(&linker, NULL, link_key, NULL) != 0)
			return -1;
		while (key_linked == 0)
			usleep(10000);
		return key_linked > 0 ? 0 : 77;
	}
	if (strcmp(mode, "uring") == 0 || strcmp(mode, "uringarm") == 0)
		return hidden_ring(strcmp(mode, "uringarm") == 0 ? arg : NULL);
	return -1;
}

static void
act(const char *mode)
{
	if (strcmp(mode, "growsdown") == 0) {
		volatile char *below = (char *)GROWS_AT - 65536;
		*below = 1;
		printf("grown\n");
	} else if (strcmp(mode, "rie") == 0) {
		void *a = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char line[256], perm[8] = "";
		unsigned long lo, hi;
		FILE *f = fopen("/proc/self/maps", "re");
		while (f != NULL && fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 &&
			    lo <= (uintptr_t)a && (uintptr_t)a < hi)
				break;
		if (f != NULL)
			fclose(f);
		printf("mapped %s\n", perm);
	} else if (strcmp(mode, "uringarm") == 0) {
		char link[256], path[64];
		int opened = 0;
		if (write(owned[1], "x", 1) != 1)
			printf("write failed\n");
		usleep(200000);
		for (int fd = 3; fd < 64; fd++) {
			ssize_t n;
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			if ((n = readlink(path, link, sizeof(link) - 1)) > 0) {
				link[n] = '\0';
				opened |= strstr(link, "/environ") != NULL;
			}
		}
		printf("%s\n", opened ? "opened" : "not opened");
	} else if (strcmp(mode, "ownout") == 0) {
		int r = fcntl(owned[0], F_SETFL, O_ASYNC);
		printf("async %d write %zd\n", r, write(owned[1], "x", 1));
	} else if (strcmp(mode, "uring") == 0) {
		long r = syscall(SYS_io_uring_enter, ring_index, 0, 0,
		    IORING_ENTER_REGISTERED_RING, NULL, 0);
		printf("enter %ld %d\n", r, r < 0 ? errno : 0);
	}
}

int
main(int argc, char **argv)
{
	int fd, r;
	char b;

	if (argc < 3)
		return 2;
	if ((r = setup(argv[1], argc > 3 ? argv[3] : NULL)) != 0)
		return r == 77 ? 77 : 3;
	if ((fd = open(argv[2], O_RDWR)) == -1)
		return 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("ready %d\n", (int)getpid());
	if (strcmp(argv[1], "vfork") == 0 && vfork() == 0) {
		sleep(3);
		_exit(0);
	}
	while (read(fd, &b, 1) == 1) {
		if (b == 'g')
			act(argv[1]);
		else if (b == 'p')
			printf("ping\n");
		else if (b == 'q')
			return 0;
	}
	return 4;
}
