/* SPDX-License-Identifier: ISC */
/*
 * Pinning a process that already runs (syspin run -p): its program is
 * made from its mappings as they are (pin.c, sp_pin_build_running: every
 * object mapped so far with its table, the vDSO, anonymous code with
 * none), then one stopped thread of it is made to reserve the late-code
 * band and to install the filter with TSYNC, so that every thread has it
 * at once (no_new_privs first where it lacks CAP_SYS_ADMIN: TSYNC gives
 * it to the others).  Before, each thread enters the tree's Landlock
 * domain (confine.c): a domain is a thread's own, and without it a root
 * process keeps CAP_SYS_PTRACE's way into /proc/PID/mem of the
 * supervisor.  Its registers are put back as the kernel would
 * have left them: a call the stop interrupted is made again when it goes
 * on (the restart the kernel does on the way out of a signal stop, which
 * an injected call's stop skips).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/keyctl.h>

#include "bpf/bpf.h"
#include "pins/cache.h"
#include "pin_int.h"
#include "supervise_int.h"

#define ERESTARTSYS_		512
#define ERESTARTNOINTR_		513
#define ERESTARTNOHAND_		514
#define ERESTART_RESTARTBLOCK_	516

/* r, stopped in a call the stop interrupted, set to make it again (no
 * handler runs: each of these restarts). */
static void
restarted(struct user_regs_struct *r)
{
	if ((int64_t)r->orig_rax < 0)
		return;
	switch (-(int64_t)r->rax) {
	case ERESTARTSYS_:
	case ERESTARTNOINTR_:
	case ERESTARTNOHAND_:
		r->rax = r->orig_rax;
		r->rip -= 2;
		break;
	case ERESTART_RESTARTBLOCK_:
		r->rax = SYS_restart_syscall;
		r->rip -= 2;
		break;
	default:
		break;
	}
}

static int
install(struct job *j, struct sp_error *err)
{
	long ret;

	/* the executable stack's guard, as at an exec: below its region
	 * it would grow where the filter allows every call (blind battery,
	 * attach mode: execstack-far) */
	if (sp_pin_nnp(j, err) == -1 || sp_pin_reserve_arena(j, err) == -1 ||
	    sp_pin_guard_stack(j, err) == -1)
		return -1;
	if (sp_pin_install_progs(j, j->progs, j->nprogs, &ret, err) == -1)
		return -1;
	if (ret > 0)
		return sp_error_set(err, "its thread %ld has other seccomp "
		    "filters than the rest (TSYNC refused)", ret);
	if (ret != 0)
		return sp_error_sys(err, (int)-ret, "seccomp in the process");
	return 0;
}

/*
 * Whether a keyring a thread holds reaches the cache's key (a session
 * keyring linking the persistent keyring, as a Kerberos
 * KEYRING:persistent login does; a thread keyring that links it): a
 * tree `syspin run` starts gets a session keyring of its own, an
 * attached process keeps its own.  Asked by each thread itself
 * (KEYCTL_SEARCH of its thread, process, session, user and user session
 * keyrings: a thread's own, its session and its ids may differ from the
 * others', blind round 23).  -1 with err, 1 yes, 0 no.
 */
static int
keys_in(struct sp_inject *in, size_t n, uint64_t below, struct sp_error *err)
{
	static const long rings[] = { KEY_SPEC_THREAD_KEYRING,
		KEY_SPEC_PROCESS_KEYRING, KEY_SPEC_SESSION_KEYRING,
		KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING };
	uint64_t at = (below - 2048) & ~(uint64_t)15, a[6] = { 0 };
	long r;

	if (sp_mem_write(in[0].pid, at, "user", 5, err) == -1 ||
	    sp_mem_write(in[0].pid, at + 16, SP_CACHE_KEY_NAME,
	    sizeof(SP_CACHE_KEY_NAME), err) == -1)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(rings) / sizeof(*rings); k++) {
			a[0] = KEYCTL_SEARCH, a[1] = (uint64_t)rings[k];
			a[2] = at, a[3] = at + 16;
			if (sp_inject_syscall(&in[i], SYS_keyctl, a, 6, &r,
			    err) == -1)
				return -1;
			if (r >= 0)
				return 1;
		}
	return 0;
}

/*
 * An io_uring it made and hid before (registered, its descriptor closed,
 * its rings in memory of its own: nothing shows it) keeps requests it
 * armed then: a poll linked to an openat with a personality registered
 * then (its credentials, no Landlock domain) runs when the pipe is
 * written, no io_uring call needed (blind round 24: /proc/OUTSIDE/mem
 * opened, the supervisor's as root).  Each thread cancels every request
 * of every ring it registered and drops them (IORING_REGISTER_SYNC_CANCEL
 * and IORING_UNREGISTER_RING_FDS through the registration: 6.3), so the
 * ring dies with its requests; its io_uring calls are ENOSYS after.  A
 * thread that never used io_uring answers the first at once (no
 * context: EINVAL).  -1 with err.
 */
#define RING_SLOTS 16		/* IO_RINGFD_REG_MAX */
#define USE_REGISTERED_RING_ (1u << 31)
#define REGISTER_SYNC_CANCEL_ 24u
#define UNREGISTER_RING_FDS_ 21u

/* io_uring made impossible for all (kernel.io_uring_disabled = 2) */
static bool
uring_disabled(void)
{
	int fd = open("/proc/sys/kernel/io_uring_disabled", O_RDONLY |
	    O_CLOEXEC);
	char c = 0;

	if (fd == -1)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '2';
}

static int
uring_in(struct sp_inject *in, size_t n, uint64_t below, struct sp_error *err)
{
	struct {
		uint64_t addr;
		int32_t fd;
		uint32_t flags;
		int64_t tv_sec, tv_nsec;
		uint8_t opcode, pad[7];
		uint64_t pad2[3];
	} cancel = { .fd = -1, .flags = 1u << 0 | 1u << 2,	/* ALL, ANY */
	    .tv_sec = -1, .tv_nsec = -1 };
	struct {
		uint32_t offset, resv;
		uint64_t data;
	} drop = { 0, 0, 0 };
	uint64_t at = (below - 4096) & ~(uint64_t)63, a[6] = { 0 };
	struct utsname u;
	int major = 0, minor = 0;
	long r;

	if (uname(&u) == 0)
		(void)sscanf(u.release, "%d.%d", &major, &minor);
	if ((major < 6 || (major == 6 && minor < 3)) && !uring_disabled())
		return sp_error_set(err, "this kernel (before 6.3) cannot "
		    "drop an io_uring it may have hidden (kernel."
		    "io_uring_disabled=2 lets it be attached)");
	if (sp_mem_write(in[0].pid, at, &cancel, sizeof(cancel), err) == -1)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < RING_SLOTS; k++) {
			a[0] = k;
			a[1] = REGISTER_SYNC_CANCEL_ | USE_REGISTERED_RING_;
			a[2] = at, a[3] = 1;
			if (sp_inject_syscall(&in[i], SYS_io_uring_register, a,
			    4, &r, err) == -1)
				return -1;
			if (r == -EINVAL && k == 0)
				break;		/* no io_uring context */
			if (r == -EBADF || r == -EINVAL)
				continue;	/* nothing at k */
			if (r < 0 && r != -ENOENT)	/* >= 0: how many */
				return sp_error_set(err, "its thread %ld: the "
				    "requests of an io_uring it registered "
				    "cannot be cancelled (%ld)",
				    (long)in[i].pid, r);
			drop.offset = k;
			if (sp_mem_write(in[0].pid, at + sizeof(cancel), &drop,
			    sizeof(drop), err) == -1)
				return -1;
			a[1] = UNREGISTER_RING_FDS_ | USE_REGISTERED_RING_;
			a[2] = at + sizeof(cancel);
			if (sp_inject_syscall(&in[i], SYS_io_uring_register, a,
			    4, &r, err) == -1)
				return -1;
			if (r != 1)
				return sp_error_set(err, "its thread %ld: an "
				    "io_uring it registered cannot be dropped "
				    "(%ld)", (long)in[i].pid, r);
		}
	return 0;
}

enum in_threads { KEYS, CONFINE, URING };

/* In every thread of the process (tids), by calls injected at j's trap:
 * KEYS, whether one reaches the cache's key (keys_in); CONFINE, each
 * into the tree's Landlock domain.  Their registers put back (j->pid's
 * later, by sp_pin_restore). */
static int
in_threads(struct job *j, const pid_t *tids, size_t n, enum in_threads what,
    unsigned scope, struct sp_error *err)
{
	struct user_regs_struct *saved;
	struct sp_inject *in;
	size_t i;
	int r = -1;

	if ((in = calloc(n, sizeof(*in))) == NULL ||
	    (saved = calloc(n, sizeof(*saved))) == NULL) {
		free(in);
		return sp_error_set(err, "out of memory");
	}
	for (i = 0; i < n; i++) {
		in[i] = (struct sp_inject){ .pid = tids[i], .trap = j->in.trap,
		    .pass_trace = true };
		if (tids[i] == j->pid)
			saved[i] = j->regs;
		else if (ptrace(PTRACE_GETREGS, tids[i], 0, &saved[i]) == -1) {
			sp_error_sys(err, errno, "ptrace getregs");
			n = i;
			goto out;
		}
		restarted(&saved[i]);
	}
	if (what == KEYS)
		r = keys_in(in, n, j->regs.rsp, err);
	else if (what == URING)
		r = uring_in(in, n, j->regs.rsp, err);
	else
		r = sp_confine_threads(in, n, j->regs.rsp - 1024, scope,
		    err) == -1 ? -1 : 0;
out:
	for (i = 0; i < n; i++)
		if (tids[i] != j->pid && sp_inject_restore(&in[i], &saved[i],
		    r == 0 ? err : NULL) == -1 && r == 0)
			r = -1;
	free(in);
	free(saved);
	return r;
}

/*
 * Descriptors with an owner the kernel signals (F_SETOWN, F_SETSIG),
 * set before the attach: on I/O with O_ASYNC, which the process may set
 * later, or on a change a dnotify watch sees, a signal goes out that no
 * call of its makes (blind rounds 23b and 24: SIGQUIT to a process
 * outside, past --scope=signals, whose Landlock judges a signal by the
 * domain of who set the owner).  One whose signal dumps core is refused,
 * as F_SETSIG of one is in a tree; each owner is set again from inside
 * the domain, the same owner (nginx's channels).  Looked at through a
 * copy of each descriptor (the owner is the open file's).
 */
#define OWNED_MAX 64

/* The owned descriptors of j->pid (its threads share one table:
 * attach_kept.c), at most OWNED_MAX: their number, or -1 (err says
 * why); *fd and *sig the first whose signal dumps core (0: none). */
static long
owned_list(const struct job *j, long *fds, long *fd, int *sig,
    struct sp_error *err)
{
	char dir[64];
	struct dirent *e;
	long n = 0;
	int pidfd, r = 0, s;
	DIR *d;

	*fd = *sig = 0;
	snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)j->pid);
	if ((pidfd = (int)syscall(SYS_pidfd_open, j->pid, 0)) == -1 ||
	    (d = opendir(dir)) == NULL) {
		if (pidfd != -1)
			close(pidfd);
		sp_error_set(err, "cannot read its descriptors");
		return -1;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		long f = atol(e->d_name);
		if (e->d_name[0] == '.' || (r = sp_fd_owner(pidfd, f, &s)) ==
		    -1)
			continue;
		/* a core-dumping signal with no owner yet: the owner set
		 * later, from inside, gets it (round 24) */
		if (sp_bpf_dumps_core(s) && *sig == 0) {
			*fd = f;
			*sig = s;
		}
		if (r == 0)
			continue;
		r = 0;
		if (n == OWNED_MAX)
			r = -1;
		else
			fds[n++] = f;
	}
	closedir(d);
	close(pidfd);
	if (r == -1) {
		sp_error_set(err, "more than %d descriptors set to signal an "
		    "owner (F_SETOWN), or one that cannot be read", OWNED_MAX);
		return -1;
	}
	return n;
}

/* Each owner set again, from inside the domain: 0, -1 with err. */
static int
owned_again(struct job *j, const long *fds, long n, struct sp_error *err)
{
	uint64_t at = (j->regs.rsp - 3072) & ~(uint64_t)15;
	long r;

	for (long i = 0; i < n; i++)
		if (sp_pin_call(j, SYS_fcntl, (uint64_t)fds[i], F_GETOWN_EX, at,
		    0, &r, err) == -1 || (r == 0 && sp_pin_call(j, SYS_fcntl,
		    (uint64_t)fds[i], F_SETOWN_EX, at, 0, &r, err) == -1))
			return -1;
	return 0;
}

int
sp_pin_attach(pid_t tid, const pid_t *tids, size_t ntids, unsigned scope,
    const struct sp_pin_opts *o, struct sp_pin_result *res,
    struct sp_error *err)
{
	struct sp_error rerr;
	long owned[OWNED_MAX], nowned = 0, fd = 0;
	int sig = 0;
	bool changed = false;
	struct job j;
	int r;

	memset(&j, 0, sizeof(j));
	memset(res, 0, sizeof(*res));
	j.pid = tid;
	j.o = o;
	j.in.pass_trace = true;
	if (ptrace(PTRACE_GETREGS, tid, 0, &j.regs) == -1)
		return sp_error_sys(err, errno, "ptrace getregs");
	restarted(&j.regs);
	r = sp_pin_build_running(&j, err);
	if (r == 0 && (r = in_threads(&j, tids, ntids, KEYS, 0, err)) == 1)
		r = sp_error_set(err, "a keyring it holds reaches the key the "
		    "cache is signed with (a persistent keyring linked into "
		    "its session?): it could forge its own pins");
	if (r == 0)
		r = in_threads(&j, tids, ntids, URING, 0, err);
	if (r == 0 && (nowned = owned_list(&j, owned, &fd, &sig, err)) == -1)
		r = -1;
	if (r == 0 && sig != 0)
		r = sp_error_set(err, "its descriptor %ld signals %d, which "
		    "dumps core, to whom F_SETOWN names", fd, sig);
	if (r == 0) {
		changed = true;
		r = in_threads(&j, tids, ntids, CONFINE, scope, err);
		if (r == 0)
			r = owned_again(&j, owned, nowned, err);
	}
	if (r == 0)
		r = install(&j, err);
	res->filters = j.filters + (long)j.installed;
	if (sp_pin_restore(&j, &rerr) == -1 && r == 0)
		r = sp_error_set(err, "%s", rerr.msg);
	if (r == 0)
		sp_pin_hand_over(&j, res);
	res->changed = changed;
	res->loader_exec = false;
	res->flags = j.flags;
	res->reused = -1;
	sp_pin_job_free(&j);
	return r;
}
