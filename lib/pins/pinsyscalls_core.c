/* SPDX-License-Identifier: ISC */
/*
 * pinsyscalls(2), freestanding: no libc, only kernel UAPI headers and the
 * pinned syscall helpers of <syspin/pinsyscall.h>.  libsyspin links it
 * (pinsyscalls.c adds errno), and a -nostdlib static program can compile
 * it in as is (tests/openbsd/pinself.c).
 *
 * The checks follow sys_pinsyscalls in OpenBSD's sys/uvm/uvm_mmap.c, in its
 * order; the pin check itself (sys/sys/syscall_mi.h, pin_check) becomes a
 * seccomp filter.
 */
#include <stddef.h>
#include <stdint.h>

#include <asm/unistd.h>
#include <linux/audit.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/filter.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <linux/uio.h>

#include <syspin/pinsyscall.h>
#include <syspin/pinsyscalls.h>

#if defined(__x86_64__)
#define TRAP_LEN	2		/* syscall: 0f 05 */
#define NATIVE_ARCH	AUDIT_ARCH_X86_64
/*
 * OpenBSD refuses a range outside its map (vm_map min/max_offset).  Linux
 * gives a process addresses above 47 bits only when it asks for them with
 * a hint on 5-level hardware; we take the 4-level limit (TASK_SIZE_MAX).
 */
#define USER_END	0x00007ffffffff000ull
#elif defined(__aarch64__)
#define TRAP_LEN	4		/* svc #0 */
#define NATIVE_ARCH	AUDIT_ARCH_AARCH64
#define USER_END	0x0001000000000000ull	/* 48-bit VA */
#else
#error "pinsyscalls: x86-64 and aarch64 only"
#endif

#define PIN_ANY		0xffffffffu

#ifndef __NR_mseal
#define __NR_mseal	462		/* Linux 6.10, every architecture */
#endif
/*
 * Sealing works on whole pages.  x86-64 pages are 4 KiB; aarch64 ones
 * are 4, 16 or 64 KiB, so rounding outwards to 64 KiB is aligned for all
 * of them (at most 64 KiB more of the same executable mapping is sealed).
 */
#if defined(__x86_64__)
#define SEAL_ALIGN	0x1000ull
#else
#define SEAL_ALIGN	0x10000ull
#endif

/* seccomp_data offsets; the 64-bit IP is read as two little-endian words. */
#define OFF_NR		offsetof(struct seccomp_data, nr)
#define OFF_ARCH	offsetof(struct seccomp_data, arch)
#define OFF_IP_LO	offsetof(struct seccomp_data, instruction_pointer)
#define OFF_IP_HI	(OFF_IP_LO + 4)

/*
 * Per address space, like OpenBSD's VM_MAP_PINSYSCALL_ONCE: fork copies it,
 * execve starts afresh.  It sits in writable memory, but resetting it buys
 * nothing: a second filter only adds to the first, never loosens it.
 */
static int pin_once;

struct linux_dirent64_ {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * Number of threads: the entries of /proc/self/task.  Returns the count
 * or -errno.  Without /proc there is no way to know, and a wrong "one"
 * would break OpenBSD's rule, so the caller refuses then.
 */
static long
count_threads(void)
{
	char buf[1024] __attribute__((aligned(8)));
	long fd, n, count = 0;

	fd = syspin_syscall4(__NR_openat, AT_FDCWD, "/proc/self/task",
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	while ((n = syspin_syscall3(__NR_getdents64, fd, buf,
	    sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64_ *d = (void *)(buf + off);

			if (d->d_name[0] != '.')
				count++;
			off += d->d_reclen;
		}
	}
	syspin_syscall1(__NR_close, fd);
	return n < 0 ? n : count;
}

/*
 * copyin: the kernel reads the user's table for us and answers EFAULT
 * instead of a SIGSEGV.  process_vm_readv on ourselves needs no ptrace
 * permission; where a policy forbids it, a pipe does the same job (the
 * table, at most 2 KiB, fits in one atomic pipe write).
 */
static long
copyin_pipe(void *dst, const void *src, size_t n)
{
	int fds[2];
	long r, w;

	r = syspin_syscall2(__NR_pipe2, fds, O_CLOEXEC);
	if (r < 0)
		return r;
	w = syspin_syscall3(__NR_write, fds[1], src, n);
	if (w == (long)n)
		r = syspin_syscall3(__NR_read, fds[0], dst, n);
	syspin_syscall1(__NR_close, fds[0]);
	syspin_syscall1(__NR_close, fds[1]);
	if (w != (long)n)
		return w < 0 ? w : -EFAULT;
	return r == (long)n ? 0 : -EFAULT;
}

static long
copyin(void *dst, const void *src, size_t n)
{
	struct iovec local = { dst, n }, remote = { (void *)src, n };
	long pid, r;

	pid = syspin_syscall0(__NR_getpid);
	r = syspin_syscall6(__NR_process_vm_readv, pid, &local, 1, &remote,
	    1, 0);
	if (r == (long)n)
		return 0;
	if (r == -ENOSYS || r == -EPERM)
		return copyin_pipe(dst, src, n);
	return -EFAULT;		/* a fault, or part of the table unreadable */
}

/*
 * OpenBSD's pinned text is immutable (mimmutable): munmap, mprotect and
 * MAP_FIXED over it fail with EPERM.  mseal(2) is Linux's counterpart.
 * Only the executable mappings in [lo, hi) are sealed: a region may span
 * holes (mseal would refuse the whole range) or data, and sealing a heap
 * or a stack would break its owner (no mprotect, no shrinking).
 *
 * The mappings come from /proc/self/maps, read as a stream (the lines
 * can be longer than any buffer; only "lo-hi perms" matter).  Sealing
 * while reading is safe: mseal splits only the mapping just read, and
 * the kernel resumes the listing after the last address it returned
 * (maple-tree walk; every kernel with mseal has it).  Best effort, like
 * the rest of the hardening: a kernel without mseal (ENOSYS) or any
 * failure leaves the region unsealed but pinned.
 */
struct maps_scan {
	uint64_t lo, hi;	/* the mapping being read */
	int state;		/* 0 lo, 1 hi, 2 perms, 3 rest of the line */
	int col, exec;
};

/* Field by field: a struct initialiser can become a memset call (clang
 * -O0), which a -nostdlib caller does not have. */
static void
maps_reset(struct maps_scan *m)
{
	m->lo = m->hi = 0;
	m->state = m->col = m->exec = 0;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void
seal_one(uint64_t lo, uint64_t hi, uint64_t rlo, uint64_t rhi)
{
	rlo &= ~(SEAL_ALIGN - 1);
	rhi = (rhi + SEAL_ALIGN - 1) & ~(SEAL_ALIGN - 1);
	if (rlo > lo)
		lo = rlo;
	if (rhi < hi)
		hi = rhi;
	if (lo < hi)
		syspin_syscall3(__NR_mseal, lo, hi - lo, 0);
}

/* Feeds one character of /proc/self/maps; seals at the end of perms. */
static void
maps_char(struct maps_scan *m, char c, uint64_t rlo, uint64_t rhi)
{
	int v;

	if (c == '\n') {
		maps_reset(m);
		return;
	}
	switch (m->state) {
	case 0:
	case 1:
		if ((v = hexval(c)) >= 0) {
			if (m->state == 0)
				m->lo = m->lo << 4 | (uint64_t)v;
			else
				m->hi = m->hi << 4 | (uint64_t)v;
		} else
			m->state++;	/* '-', then ' ' */
		break;
	case 2:
		if (c == ' ') {
			if (m->exec)
				seal_one(m->lo, m->hi, rlo, rhi);
			m->state = 3;
		} else if (m->col++ == 2)
			m->exec = c == 'x';
		break;
	default:
		break;
	}
}

static void
seal(uint64_t lo, uint64_t hi)
{
	struct maps_scan m;
	char buf[1024];
	long fd, n;

	if (lo == hi)
		return;		/* an empty region holds no text */
	if (syspin_syscall3(__NR_mseal, 0, 0, 0) == -ENOSYS)
		return;
	fd = syspin_syscall4(__NR_openat, AT_FDCWD, "/proc/self/maps",
	    O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	maps_reset(&m);
	while ((n = syspin_syscall3(__NR_read, fd, buf, sizeof(buf))) > 0)
		for (long i = 0; i < n; i++)
			maps_char(&m, buf[i], lo, hi);
	syspin_syscall1(__NR_close, fd);
}

/*
 * seccomp without no_new_privs works only with CAP_SYS_ADMIN; try that
 * first so a privileged caller keeps its exec semantics, then set it.
 * The seccomp call is the last syscall pinsyscalls issues.
 */
static long
install(struct sock_filter *f, size_t n)
{
	struct sock_fprog prog = { (unsigned short)n, f };
	long r;

	r = syspin_syscall3(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (r != -EACCES)
		return r > 0 ? -EPERM : r;	/* >0: a thread it cannot sync */
	r = syspin_syscall5(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (r < 0)
		return r;
	r = syspin_syscall3(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_TSYNC, &prog);
	return r > 0 ? -EPERM : r;
}

long
sp_pinsyscalls_raw(void *start, size_t len, unsigned int *pintable,
    int npins)
{
	static struct sock_filter f[SP_PINSYSCALLS_MAXINSNS];
	unsigned int pins[SP_PINSYSCALLS_MAX];
	uintptr_t base = (uintptr_t)start;
	long r;

	r = count_threads();
	if (r != 1)
		return -EPERM;		/* not used up */
	if (pin_once)
		return -EPERM;
	pin_once = 1;
	if (base > UINTPTR_MAX - len)
		return -EINVAL;
	if (base + len > USER_END)
		return -EINVAL;
	if (npins < 1 || npins > SP_PINSYSCALLS_MAX)
		return -E2BIG;
	if (copyin(pins, pintable, (size_t)npins * sizeof(*pins)) != 0)
		return -EFAULT;
	for (int i = 0; i < npins; i++)
		if (pins[i] != 0 && pins[i] != PIN_ANY && pins[i] > len)
			return -ERANGE;
	/* Before the filter: nothing may trap after it (see above). */
	seal(base, base + len);
	return install(f, sp_pinsyscalls_filter(base, len, pins,
	    (unsigned int)npins, f));
}

#define STMT(code, k)	((struct sock_filter)BPF_STMT((code), (k)))
#define JUMP(code, k, t, f) \
	((struct sock_filter)BPF_JUMP((code), (k), (t), (f)))
#define LD(off)		STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define RET(v)		STMT(BPF_RET | BPF_K, (v))

#define KILL		SECCOMP_RET_KILL_PROCESS
#define ALLOW		SECCOMP_RET_ALLOW
#define ENOSYS_RET	(SECCOMP_RET_ERRNO | ENOSYS)

/*
 * The filter, top to bottom:
 *	IP (the address after the trap) outside [start, start+len) + TRAP_LEN
 *	    -> allow;
 *	foreign arch (int 0x80 from the region) -> kill;
 *	nr >= SYS_MAXSYSCALL -> ENOSYS; nr >= npins -> kill;
 *	one block per pinned number: -1 -> allow, else IP == start + pin +
 *	    TRAP_LEN -> allow, else kill;
 *	any other number -> kill.
 * The per-number blocks sit inline after their compare, so every jump
 * stays short (cBPF jump offsets are 8 bits).  The executed path is at
 * most ~20 + 7 * (position of nr) instructions.
 *
 * Not sp_bpf_generate (lib/bpf): its policy has no "number N anywhere in
 * the region" (-1) and no ENOSYS for numbers past SYS_MAXSYSCALL, it adds
 * syspin run's executable-memory rules, which pinsyscalls(2) does not
 * have, and it allocates, which a -nostdlib caller cannot.  This one is
 * bounded (SP_PINSYSCALLS_MAXINSNS, always one program) and pure.
 */
size_t
sp_pinsyscalls_filter(uint64_t start, uint64_t len, const unsigned int *pins,
    unsigned int npins, struct sock_filter *out)
{
	uint64_t lo = start + TRAP_LEN, hi = start + len + TRAP_LEN;
	size_t n = 0;

	/* ip >= lo, else allow (index 17); kill is 16, ENOSYS 18 */
	out[n++] = LD(OFF_IP_HI);					/* 0 */
	out[n++] = JUMP(BPF_JMP | BPF_JGT | BPF_K, lo >> 32, 3, 0);
	out[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, lo >> 32, 0, 14);
	out[n++] = LD(OFF_IP_LO);
	out[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)lo, 0, 12);
	/* ip < hi, else allow */
	out[n++] = LD(OFF_IP_HI);					/* 5 */
	out[n++] = JUMP(BPF_JMP | BPF_JGT | BPF_K, hi >> 32, 10, 0);
	out[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, hi >> 32, 0, 2);
	out[n++] = LD(OFF_IP_LO);
	out[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)hi, 7, 0);
	/* inside the region */
	out[n++] = LD(OFF_ARCH);					/* 10 */
	out[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 0, 4);
	out[n++] = LD(OFF_NR);
	out[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, SP_PINSYSCALLS_MAX, 4, 0);
	out[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, npins, 1, 0);
	out[n++] = JUMP(BPF_JMP | BPF_JA, 3, 0, 0);			/* 15 */
	out[n++] = RET(KILL);						/* 16 */
	out[n++] = RET(ALLOW);						/* 17 */
	out[n++] = RET(ENOSYS_RET);					/* 18 */
	for (unsigned int nr = 0; nr < npins; nr++) {
		uint64_t ip = start + pins[nr] + TRAP_LEN;

		if (pins[nr] == 0)
			continue;
		if (pins[nr] == PIN_ANY) {
			out[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1);
			out[n++] = RET(ALLOW);
			continue;
		}
		out[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 6);
		out[n++] = LD(OFF_IP_HI);
		out[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, ip >> 32, 0, 3);
		out[n++] = LD(OFF_IP_LO);
		out[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ip, 0, 1);
		out[n++] = RET(ALLOW);
		out[n++] = RET(KILL);
	}
	out[n++] = RET(KILL);
	return n;
}
