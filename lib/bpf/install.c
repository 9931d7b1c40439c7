/* SPDX-License-Identifier: ISC */
/*
 * Loading programs into the kernel with the raw seccomp(2) system call:
 * the runtime must not need libseccomp, and the call comes from an
 * instruction of our own (lib/util/raw.S), not libc's syscall().
 *
 * The kernel copies each program from our memory when seccomp(2) runs.
 * Until then another process of the same user could rewrite it through
 * /proc/PID/mem, io_uring's workers included (blind round 6, against the
 * supervisor's copy): the programs are copied into a sealed memfd first,
 * mapped read-only and shared, where nobody can write them (a forced
 * write is refused on a shared mapping, a write to the file by the
 * seal), and read back.  The mapping stays: it is the programs' size.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/seccomp.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/bpf.h"

#include "util/raw.h"

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

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U		/* Linux 6.3 */
#endif
#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

/* progs' instructions, one after another, where nothing can change them;
 * NULL with err. */
static struct sock_filter *
sealed_copy(const struct sp_bpf_prog *progs, size_t nprogs,
    struct sp_error *err)
{
	size_t len = 0, at = 0;
	uint8_t *buf;
	void *m = MAP_FAILED;
	bool ok = false;
	int fd;

	for (size_t i = 0; i < nprogs; i++)
		len += progs[i].len * sizeof(struct sock_filter);
	if ((buf = malloc(len)) == NULL) {
		sp_error_set(err, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < nprogs; i++) {
		memcpy(buf + at, progs[i].insns,
		    progs[i].len * sizeof(struct sock_filter));
		at += progs[i].len * sizeof(struct sock_filter);
	}
	fd = memfd_create("syspin", MFD_CLOEXEC | MFD_ALLOW_SEALING |
	    MFD_NOEXEC_SEAL);
	if (fd == -1 && errno == EINVAL)	/* before 6.3 */
		fd = memfd_create("syspin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd == -1 || write(fd, buf, len) != (ssize_t)len ||
	    fcntl(fd, F_ADD_SEALS, SEALS) == -1 ||
	    (m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED)
		sp_error_sys(err, errno, "seccomp: the programs' memfd");
	else if (memcmp(m, buf, len) != 0)
		sp_error_set(err, "seccomp: the programs' memfd was changed "
		    "before it was sealed");
	else
		ok = true;
	if (fd != -1)
		close(fd);
	free(buf);
	if (m != MAP_FAILED && !ok)
		munmap(m, len);
	return ok ? m : NULL;
}

int
sp_bpf_install_tid(const struct sp_bpf_prog *progs, size_t nprogs,
    unsigned flags, long *tid, struct sp_error *err)
{
	struct sock_filter *sealed;
	struct sock_fprog fp;
	size_t i, at;
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
	if ((sealed = sealed_copy(progs, nprogs, err)) == NULL)
		return -1;
	for (i = 0, at = 0; i < nprogs; i++)
		at += progs[i].len;
	/* the kernel runs the newest filter first */
	for (i = nprogs; i-- > 0;) {
		at -= progs[i].len;
		fp.len = (unsigned short)progs[i].len;
		fp.filter = sealed + at;
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
