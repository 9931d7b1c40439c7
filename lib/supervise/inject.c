/* SPDX-License-Identifier: ISC */
/*
 * System calls made by a stopped tracee on our behalf.  We point its
 * instruction pointer at a `syscall` instruction it already has, load the
 * registers and single-step: the call runs in the tracee, under its own
 * credentials and filters, exactly as if its code had made it.  The tracee
 * must be in a signal-delivery stop (not inside a system call: at an
 * exec stop the kernel would still overwrite rax with execve's result).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervise/supervise.h"

#include "phases.h"
#include "reports.h"

static int
mem_fd(pid_t pid, int mode, struct sp_error *err)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
	if ((fd = open(path, mode | O_CLOEXEC)) == -1)
		sp_error_sys(err, errno, "%s", path);
	return fd;
}

/*
 * One system call where it can: process_vm_readv/writev.  They do not
 * force their way (a read-only page, the int3 put into code, or one
 * unreadable): /proc/PID/mem does, at three calls.
 */
int
sp_mem_read(pid_t pid, uint64_t addr, void *buf, size_t len,
    struct sp_error *err)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n;
	int fd;

	if (process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len)
		return 0;
	if ((fd = mem_fd(pid, O_RDONLY, err)) == -1)
		return -1;
	n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	if (n != (ssize_t)len)
		return sp_error_set(err, "cannot read %zu bytes at 0x%llx of "
		    "process %ld", len, (unsigned long long)addr, (long)pid);
	return 0;
}

/*
 * A NUL-terminated string at addr, read a page at a time (it may end
 * just before an unmapped one); -1 when unreadable or not ended within
 * size bytes.
 */
int
sp_mem_read_string(pid_t pid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0, n;
	struct sp_error err;

	while (got + 1 < size) {
		n = 4096 - (size_t)((addr + got) & 4095);
		if (n > size - 1 - got)
			n = size - 1 - got;
		if (sp_mem_read(pid, addr + got, buf + got, n, &err) == -1)
			return -1;
		if (memchr(buf + got, '\0', n) != NULL)
			return 0;
		got += n;
	}
	return -1;
}

int
sp_mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len,
    struct sp_error *err)
{
	struct iovec l = { (void *)(uintptr_t)buf, len },
	    r = { (void *)(uintptr_t)addr, len };
	ssize_t n;
	int fd;

	if (process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)len)
		return 0;
	if ((fd = mem_fd(pid, O_WRONLY, err)) == -1)
		return -1;
	n = pwrite(fd, buf, len, (off_t)addr);
	close(fd);
	if (n != (ssize_t)len)
		return sp_error_set(err, "cannot write %zu bytes at 0x%llx of "
		    "process %ld", len, (unsigned long long)addr, (long)pid);
	return 0;
}

int
sp_mem_poke_byte(pid_t pid, uint64_t addr, uint8_t v, uint8_t *old,
    struct sp_error *err)
{
	uint64_t at = addr & ~(uint64_t)7;	/* one page holds the word */
	unsigned shift = (unsigned)(addr - at) * 8;
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKTEXT, pid, at, 0);
	if (w == -1 && errno != 0)
		return sp_error_sys(err, errno, "cannot read 0x%llx of process "
		    "%ld", (unsigned long long)addr, (long)pid);
	if (old != NULL)
		*old = (uint8_t)((unsigned long)w >> shift);
	w = (long)(((unsigned long)w & ~(0xfful << shift)) |
	    ((unsigned long)v << shift));
	if (ptrace(PTRACE_POKETEXT, pid, at, w) == -1)
		return sp_error_sys(err, errno, "cannot write 0x%llx of "
		    "process %ld", (unsigned long long)addr, (long)pid);
	return 0;
}

static void
load_args(struct user_regs_struct *r, const uint64_t *a, size_t n)
{
	uint64_t v[6] = { 0 };

	memcpy(v, a, (n < 6 ? n : 6) * sizeof(*v));
	r->rdi = v[0];
	r->rsi = v[1];
	r->rdx = v[2];
	r->r10 = v[3];
	r->r8 = v[4];
	r->r9 = v[5];
}

/*
 * Waits for the step to end.  Another signal may be reported first (it is
 * kept for later, the step repeated).  A seccomp stop is a filter asking
 * us about our own call: stepping on runs it, unless in->pass_trace is
 * false (the caller must know: the call may not be allowed there).
 */
static int
step(struct sp_inject *in, struct sp_error *err)
{
	int st, sig, tries;

	for (tries = 0; tries < 16; tries++) {
		if (ptrace(PTRACE_SINGLESTEP, in->pid, 0, 0) == -1)
			return sp_error_sys(err, errno, "ptrace step");
		if (sp_reports_wait_step(in->pid, &st) == -1) {
			in->gone = true;
			return sp_error_sys(err, errno, errno == ESTALE ?
			    "the process changed while it stepped (an exec)" :
			    "waitpid");
		}
		if (!WIFSTOPPED(st)) {
			in->gone = true;
			return sp_error_set(err, "the process died");
		}
		sig = WSTOPSIG(st);
		if (st >> 16 == PTRACE_EVENT_SECCOMP && in->pass_trace)
			continue;	/* stepping on runs the call */
		if (st >> 16 == PTRACE_EVENT_SECCOMP) {
			in->seccomp_stop = true;
			return sp_error_set(err, "an inherited filter refused "
			    "a system call at 0x%llx",
			    (unsigned long long)in->trap);
		}
		if (sig == SIGTRAP && st >> 16 == 0)
			return 0;
		if (st >> 16 == 0 && sig != SIGTRAP && sig != SIGSTOP)
			in->pending_sig = sig;
	}
	return sp_error_set(err, "the process does not single-step");
}

int
sp_inject_syscall(struct sp_inject *in, long nr, const uint64_t *args,
    size_t nargs, long *ret, struct sp_error *err)
{
	struct user_regs_struct r;

	if (in->gone)
		return sp_error_set(err, "process %ld is not the one stopped "
		    "any more", (long)in->pid);
	if (!in->have_regs &&
	    ptrace(PTRACE_GETREGS, in->pid, 0, &in->regs) == -1)
		return sp_error_sys(err, errno, "ptrace getregs");
	in->have_regs = false;
	sp_phase_injected++;
	r = in->regs;
	r.rip = in->trap;
	r.rax = nr;
	r.orig_rax = -1;	/* no system call to restart */
	load_args(&r, args, nargs);
	if (ptrace(PTRACE_SETREGS, in->pid, 0, &r) == -1)
		return sp_error_sys(err, errno, "ptrace setregs");
	if (step(in, err) == -1)
		return -1;
	if (ptrace(PTRACE_GETREGS, in->pid, 0, &r) == -1)
		return sp_error_sys(err, errno, "ptrace getregs");
	/* The kernel kept the number it ran in orig_rax: another
	 * instruction of two bytes written over the trap (/proc/PID/mem)
	 * would have left our -1 there. */
	if (r.rip != in->trap + 2 || r.orig_rax != (unsigned long long)nr)
		return sp_error_set(err, "the injected system call did not "
		    "return where expected");
	*ret = (long)r.rax;
	in->regs = r;
	in->have_regs = true;
	return 0;
}

int
sp_inject_restore(const struct sp_inject *in,
    const struct user_regs_struct *regs, struct sp_error *err)
{
	if (in->gone || sp_reports_kept(in->pid))
		return sp_error_set(err, "process %ld is not the one stopped "
		    "any more", (long)in->pid);
	if (ptrace(PTRACE_SETREGS, in->pid, 0, regs) == -1)
		return sp_error_sys(err, errno, "ptrace setregs");
	return 0;
}
