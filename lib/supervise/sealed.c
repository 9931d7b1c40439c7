/* SPDX-License-Identifier: ISC */
/*
 * What the kernel reads from a tracee for a call the supervisor makes
 * there (a filter program and its sock_fprog, for seccomp(2)) is put
 * where nothing can change it between our write and the kernel's copy.
 * The tracee's stack or a private mapping would not do: any process of
 * the tree may write there through /proc/PID/mem, and io_uring's workers
 * write even while every thread of the tree is stopped (blind round 6:
 * a program of `ret ALLOW` replaced the child's filter).
 *
 * So: the tracee makes a memfd; we open it through /proc/PID/fd, write
 * the bytes and seal it (F_SEAL_WRITE: no write, no writable mapping and
 * no hole punched, by anyone, through any descriptor or /proc/PID/
 * map_files), then read it back, and the tracee maps it read-only and
 * shared (a forced write through /proc/PID/mem is refused there: it is
 * not a copy-on-write mapping) at an address it reserved first, so that
 * the bytes can point into themselves (a new image's filter goes at an
 * address known to be free instead, just below the late-code band: one
 * call fewer per exec).  Where the descriptor table may be another
 * process's too, the mapping is checked to be that file.  The mapping
 * stays (the filters, once installed, may not allow munmap at the trap);
 * it is a page or two of read-only memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "layout/procfs.h"
#include "supervise/supervise.h"

#include "sealed.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U		/* Linux 6.3 */
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020		/* Linux 6.3 */
#endif
#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

static int
call(struct sp_inject *in, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
    uint64_t a3, uint64_t a4, long *ret, struct sp_error *err)
{
	uint64_t args[6] = { a0, a1, a2, a3, a4, 0 };

	return sp_inject_syscall(in, nr, args, 6, ret, err);
}

/* The tracee's memfd, by a name written below its red zone. */
static int
make_memfd(struct sp_inject *in, uint64_t sp, long *fd, struct sp_error *err)
{
	static const char name[8] = "syspin";
	uint64_t at = ((sp - 256) & ~(uint64_t)15) - 16;

	if (sp_mem_write(in->pid, at, name, sizeof(name), err) == -1 ||
	    call(in, SYS_memfd_create, at, MFD_CLOEXEC | MFD_ALLOW_SEALING |
	    MFD_NOEXEC_SEAL, 0, 0, 0, fd, err) == -1)
		return -1;
	if (*fd == -EINVAL &&	/* before 6.3 */
	    call(in, SYS_memfd_create, at, MFD_CLOEXEC | MFD_ALLOW_SEALING,
	    0, 0, 0, fd, err) == -1)
		return -1;
	if (*fd < 0)
		return sp_error_sys(err, (int)-*fd, "memfd_create in the "
		    "process");
	return 0;
}

/*
 * What the injected memfd_create returned is the tree's word: a filter
 * of its own can skip the call (SECCOMP_RET_TRAP leaves rax as it was)
 * so that the number names a descriptor it left there, of any file
 * (blind round 10: the supervisor wrote the filter into a root-owned
 * file through it).  So the descriptor is first looked at by name
 * (never opened unless it reads as our memfd), then, opened, must be
 * an empty memfd that still takes seals and has none: one the kernel
 * made for this call, or one of the tree's own that our seal and read
 * back then judge.
 */
static int
open_ours(pid_t pid, long fd, char *path, size_t size, struct sp_error *err)
{
	static const char want[] = "/memfd:syspin";
	char link[64];
	struct stat st;
	ssize_t n;
	int f, seals;

	snprintf(path, size, "/proc/%ld/fd/%ld", (long)pid, fd);
	if ((n = readlink(path, link, sizeof(link) - 1)) < 0)
		return sp_error_sys(err, errno, "%s", path);
	link[n] = '\0';
	if (strncmp(link, want, sizeof(want) - 1) != 0)
		return sp_error_set(err, "the filter's memfd is not one: %s "
		    "(a filter of the process answered memfd_create?)", path);
	if ((f = open(path, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) == -1)
		return sp_error_sys(err, errno, "%s", path);
	/* MFD_NOEXEC_SEAL's own seal only */
	if (fstat(f, &st) == -1 || !S_ISREG(st.st_mode) || st.st_nlink != 0 ||
	    st.st_size != 0 || (seals = fcntl(f, F_GET_SEALS)) == -1 ||
	    (seals & ~F_SEAL_EXEC) != 0) {
		close(f);
		return sp_error_set(err, "the filter's memfd is not a new "
		    "one: %s", path);
	}
	return f;
}

/* Our own descriptor of the tracee's fd, filled and sealed: its bytes
 * are buf's, and stay so. */
static int
fill_sealed(pid_t pid, long fd, const uint8_t *buf, size_t len,
    struct stat *st, struct sp_error *err)
{
	char path[64];
	uint8_t *back;
	int f, r = -1;

	if ((f = open_ours(pid, fd, path, sizeof(path), err)) == -1)
		return -1;
	if ((back = malloc(len)) == NULL) {
		sp_error_set(err, "out of memory");
		goto out;
	}
	if (pwrite(f, buf, len, 0) != (ssize_t)len ||
	    fcntl(f, F_ADD_SEALS, SEALS) == -1) {
		sp_error_sys(err, errno, "the filter's memfd");
		goto out;
	}
	if (fstat(f, st) == -1 || st->st_size != (off_t)len ||
	    (fcntl(f, F_GET_SEALS) & SEALS) != SEALS ||
	    pread(f, back, len, 0) != (ssize_t)len ||
	    memcmp(back, buf, len) != 0) {
		sp_error_set(err, "the filter's memfd was changed before it "
		    "was sealed");
		goto out;
	}
	r = 0;
out:
	free(back);
	close(f);
	return r;
}

/* The mapping at addr is a shared one of the file st describes. */
static int
mapped_is(pid_t pid, uint64_t addr, const struct stat *st,
    struct sp_error *err)
{
	struct sp_map *m;
	size_t n, i;
	char path[64];
	int ok = 0;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(path, &m, &n, err) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (m[i].start == addr)
			ok = m[i].shared && m[i].inode == st->st_ino &&
			    m[i].dev == st->st_dev && m[i].prot == PROT_READ;
	sp_maps_free(m, n);
	return ok ? 0 : sp_error_set(err, "the filter's memfd was replaced "
	    "before it was mapped");
}

/*
 * One memfd of len bytes for base, mapped there (reserved: MAP_FIXED over
 * the reservation; else MAP_FIXED_NOREPLACE).  *mapped false where the
 * address was taken meanwhile (not reserved): nothing else is wrong.
 */
static int
map_at(struct sp_inject *in, uint64_t sp, size_t len, bool fds_shared,
    uint64_t base, bool reserved,
    void (*fill)(void *ctx, uint64_t base, uint8_t *buf), void *ctx,
    bool *mapped, struct sp_error *err)
{
	struct stat st;
	uint8_t *buf;
	long fd = -1, ret;
	int r = -1;

	*mapped = false;
	if ((buf = calloc(1, len)) == NULL)
		return sp_error_set(err, "out of memory");
	if (make_memfd(in, sp, &fd, err) == -1)
		goto out;
	fill(ctx, base, buf);
	if (fill_sealed(in->pid, fd, buf, len, &st, err) == -1)
		goto out;
	if (call(in, SYS_mmap, base, len, PROT_READ, MAP_SHARED | (reserved ?
	    MAP_FIXED : MAP_FIXED_NOREPLACE), (uint64_t)fd, &ret, err) == -1)
		goto out;
	if ((uint64_t)ret != base && !reserved) {
		r = 0;		/* taken: not mapped */
		goto out;
	}
	if ((uint64_t)ret != base) {
		sp_error_sys(err, ret < 0 && ret > -4096 ? (int)-ret : EFAULT,
		    "mmap of the filter's memfd");
		goto out;
	}
	if (fds_shared && mapped_is(in->pid, base, &st, err) == -1)
		goto out;
	*mapped = true;
	r = 0;
out:
	/* best effort on failure: the image is refused anyway */
	if (fd >= 0 && call(in, SYS_close, (uint64_t)fd, 0, 0, 0, 0, &ret,
	    r == 0 ? err : &(struct sp_error){ 0 }) == -1)
		r = -1;
	free(buf);
	return r;
}

int
sp_sealed_map(struct sp_inject *in, uint64_t sp, size_t len, bool fds_shared,
    uint64_t hint, void (*fill)(void *ctx, uint64_t base, uint8_t *buf),
    void *ctx, uint64_t *base, struct sp_error *err)
{
	bool mapped = false;
	long at;

	if (len == 0)
		return sp_error_set(err, "out of memory");
	if (hint != 0 && map_at(in, sp, len, fds_shared, hint, false, fill,
	    ctx, &mapped, err) == -1)
		return -1;
	if (mapped) {
		*base = hint;
		return 0;
	}
	/* the address first: the bytes point into themselves */
	if (call(in, SYS_mmap, 0, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
	    (uint64_t)-1, &at, err) == -1)
		return -1;
	if (at < 0 && at > -4096)
		return sp_error_sys(err, (int)-at, "mmap in the process");
	if (map_at(in, sp, len, fds_shared, (uint64_t)at, true, fill, ctx,
	    &mapped, err) == -1)
		return -1;
	*base = (uint64_t)at;
	return 0;
}
