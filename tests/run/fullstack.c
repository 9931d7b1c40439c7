/* SPDX-License-Identifier: ISC */
/*
 * fullstack PROG ARGV0 [ARG...]: fills the process's seccomp filters up to
 * the kernel's 32768-instruction total (allow-all programs, halving their
 * size until not even one instruction more fits), then execs PROG with
 * argv[0] ARGV0 and LD_PRELOAD=$FULLSTACK_PRELOAD (not ours: a runtime
 * preloaded here would pin us before we are done).  Any filter PROG then
 * installs is refused with ENOMEM: the runtime's "too many nested pinned
 * programs" path, reached without building a deep chain of pinned
 * programs.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct sock_filter insns[BPF_MAXINSNS];

static int
add_filter(unsigned short len)
{
	struct sock_fprog fp = { len, insns };

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) == 0;
}

int
main(int argc, char **argv)
{
	const char *pre = getenv("FULLSTACK_PRELOAD");
	unsigned short len = BPF_MAXINSNS;
	int i, n = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: fullstack PROG ARGV0 [ARG...]\n");
		return 2;
	}
	for (i = 0; i < BPF_MAXINSNS; i++)
		insns[i] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		    SECCOMP_RET_ALLOW);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		perror("fullstack: prctl");
		return 2;
	}
	while (len > 0) {
		if (add_filter(len))
			n++;
		else if (errno == ENOMEM)
			len /= 2;
		else {
			perror("fullstack: seccomp");
			return 2;
		}
	}
	if (n == 0) {
		fprintf(stderr, "fullstack: no filter fits\n");
		return 2;
	}
	if (pre != NULL && setenv("LD_PRELOAD", pre, 1) == -1)
		return 2;
	unsetenv("FULLSTACK_PRELOAD");
	execv(argv[1], argv + 2);
	perror(argv[1]);
	return 127;
}
