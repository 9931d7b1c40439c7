/* SPDX-License-Identifier: ISC */
/*
 * Loading programs into the kernel with the raw seccomp(2) system call:
 * the runtime must not need libseccomp, and the call comes from an
 * instruction of our own (lib/util/raw.S), not libc's syscall().
 */
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/seccomp.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <syspin/bpf.h>

#include "../util/raw.h"

static const char *
hint(int e)
{
	switch (e) {
	case EACCES:
		return "; neither no_new_privs nor CAP_SYS_ADMIN";
	case ENOMEM:
		return "; the task's filters exceed 32768 instructions";
	case EINVAL:
		return "; program rejected, or seccomp filters unsupported";
	default:
		return "";
	}
}

int
sp_bpf_install_tid(const struct sp_bpf_prog *progs, size_t nprogs,
    unsigned flags, long *tid, struct sp_error *err)
{
	struct sock_fprog fp;
	size_t i;
	long r;

	if (tid != NULL)
		*tid = 0;
	for (i = 0; i < nprogs; i++)
		if (progs[i].len == 0 || progs[i].len > BPF_MAXINSNS)
			return sp_error_set(err, "seccomp: program %zu has %zu "
			    "instructions", i, progs[i].len);
	if (!(flags & SP_BPF_INSTALL_NO_NNP) &&
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return sp_error_sys(err, errno, "prctl(PR_SET_NO_NEW_PRIVS)");
	/* the kernel runs the newest filter first */
	for (i = nprogs; i-- > 0;) {
		fp.len = (unsigned short)progs[i].len;
		fp.filter = progs[i].insns;
		r = sp_raw_seccomp(SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_TSYNC, &fp);
		if (r < 0)
			return sp_error_sys(err, (int)-r, "seccomp: program "
			    "%zu of %zu (%zu instructions%s)", i + 1, nprogs,
			    progs[i].len, hint((int)-r));
		if (r > 0) {
			if (tid != NULL)
				*tid = r;
			return sp_error_set(err, "seccomp: thread %ld cannot "
			    "take the filter (TSYNC: its filters differ)", r);
		}
	}
	return 0;
}

int
sp_bpf_install(const struct sp_bpf_prog *progs, size_t nprogs,
    unsigned flags, struct sp_error *err)
{
	return sp_bpf_install_tid(progs, nprogs, flags, NULL, err);
}
