/* SPDX-License-Identifier: ISC */
/*
 * Loaded by python3 (ctypes) in bench/run_bench.sh: the per-syscall cost
 * of the filter a real process carries.  The loop calls libc's getppid(),
 * so the trap comes from libc's pinned site, as in any program.  The other
 * functions install the baselines: a libseccomp allow-list and a minimal
 * filter that only reads the instruction pointer (which, like syspin's,
 * the kernel cannot cache).
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

double sp_loop(long n);
int sp_min_ip_filter(void);
int sp_allow_list(const int *nrs, int n);

/* ns per getppid() over n calls. */
double
sp_loop(long n)
{
	struct timespec a, b;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		getppid();
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

int
sp_min_ip_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, instruction_pointer)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof(f) / sizeof(*f), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_TSYNC, &p);
}

/* Default kill; each listed x86-64 number allowed. */
int
sp_allow_list(const int *nrs, int n)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int i, r = -1;

	if (ctx == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nrs[i], 0) != 0)
			goto out;
	r = seccomp_load(ctx);
out:
	seccomp_release(ctx);
	return r;
}
