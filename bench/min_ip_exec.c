/* SPDX-License-Identifier: ISC */
/*
 * min_ip_exec -- CMD [ARG...]: CMD under the smallest filter that reads
 * the instruction pointer (load it, allow), the floor any filter keyed on
 * the instruction pointer costs per call.  bench/servers_bench.sh runs
 * the servers under it in place of syspin run with PINNED=minip.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, instruction_pointer)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof(f) / sizeof(*f), f };

	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: min_ip_exec -- CMD [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) == -1) {
		perror("min_ip_exec: seccomp");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
