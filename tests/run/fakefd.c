/* SPDX-License-Identifier: ISC */
/*
 * fakefd FILE PROG [ARG...]: leaves an O_PATH descriptor of FILE at 319
 * (memfd_create's number), installs a filter of its own that skips
 * memfd_create with SECCOMP_RET_TRAP (rax keeps the number), and execs
 * PROG.  A supervisor that believed the injected memfd_create's return
 * would open /proc/PID/fd/319 for writing and put the filter's bytes
 * into FILE (blind round 10).  fakefd.sh checks FILE is left alone.
 */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_memfd_create, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof(f) / sizeof(*f), f };
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: fakefd FILE PROG [ARG...]\n");
		return 2;
	}
	if ((fd = open(argv[1], O_PATH | O_CLOEXEC)) == -1 ||
	    dup2(fd, SYS_memfd_create) == -1) {
		perror(argv[1]);
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) == -1) {
		perror("seccomp");
		return 2;
	}
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
