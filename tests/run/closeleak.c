/* SPDX-License-Identifier: ISC */
/*
 * Blind round 25 (inner): the supervisor makes a unix stream connect
 * again on a fresh socket in the stopped thread, and closes that socket
 * there when the listener reached is outside the tree.  This program's
 * own filter answers close(FRESH), FRESH the lowest free descriptor (the
 * fresh socket's), with a 0 that never runs: the socket, connected
 * outside, stayed the tree's.  It must not (the process is killed).
 *
 * usage: closeleak PATH    connects to the listener at PATH; prints
 * "LEAKED" when FRESH is a socket connected to it afterwards.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct ucred cr;
	socklen_t l = sizeof(cr);
	int s, fresh, r;

	if (argc != 2)
		return 2;
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	strncpy(a.sun_path, argv[1], sizeof(a.sun_path) - 1);
	fresh = dup(0);
	close(fresh);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3 /* close */, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)fresh, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof(f) / sizeof(*f), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p) == -1)
		return 2;
	r = connect(s, (struct sockaddr *)&a, sizeof(a));
	printf("connect: %d (%s)\n", r, r == 0 ? "ok" : strerror(errno));
	if (fresh != s && getsockopt(fresh, SOL_SOCKET, SO_PEERCRED, &cr,
	    &l) == 0 && cr.pid != 0)
		printf("LEAKED fd %d: connected to pid %d\n", fresh, cr.pid);
	return 0;
}
