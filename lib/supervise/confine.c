/* SPDX-License-Identifier: ISC */
/*
 * The pinned tree in a Landlock domain.  Any domain scopes ptrace: a
 * process in it cannot ptrace, open /proc/PID/mem (or environ, fd, ...),
 * use process_vm_readv/writev, pidfd_getfd or perf on a process outside
 * it, the supervisor first, root included (Landlock's check does not give
 * way to CAP_SYS_PTRACE).  The tree still traces its own members.
 *
 * A domain needs a handled access right: we handle one (making block
 * devices) and grant it everywhere, so no file access changes.  From ABI
 * 2 a domain that handles any file right also denies linking or renaming
 * a file into another directory (EXDEV: `ln a dir/b`, apt's partial/ to
 * archives/, mv's rename, which falls back to a copy) unless a rule
 * grants LANDLOCK_ACCESS_FS_REFER: we handle it and grant it everywhere
 * too.  Mounts stay refused in any such domain.  With ABI
 * 6 the caller may also scope signals and abstract unix sockets to the
 * tree (syspin run --scope): off by default, since `kill PID` of a
 * process outside the tree is a legitimate thing for a pinned shell to
 * do, and X11 clients talk through abstract sockets.
 *
 * Filesystem rights are not used to guard the pin cache: Landlock only
 * grants, so it cannot deny one directory while allowing writes around
 * it.  The cache is authenticated instead (lib/pins).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "layout/procfs.h"
#include "pins/cache.h"
#include "supervise/supervise.h"

/* The kernel's struct as of ABI 6; older kernels take a prefix of it. */
struct ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#define LL_MAKE_BLOCK		(1ull << 11)
#define LL_REFER		(1ull << 13)	/* ABI 2 */
#define LL_SCOPE_SOCKETS	(1ull << 0)
#define LL_SCOPE_SIGNALS	(1ull << 1)
#define LL_RULE_PATH_BENEATH	1

struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* The tree's ruleset for this kernel: *size bytes of attr, the rule on
 * "/" in *root.  The ABI (0: no Landlock), or -1 with err. */
static long
ruleset(unsigned scope, struct ll_attr *attr, size_t *size,
    struct ll_path_beneath *root, struct sp_error *err)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);

	*attr = (struct ll_attr){ LL_MAKE_BLOCK, 0, 0 };
	*root = (struct ll_path_beneath){ LL_MAKE_BLOCK, -1 };
	*size = 8;
	if (abi <= 0)
		return 0;
	if (abi >= 2) {
		attr->handled_access_fs |= LL_REFER;
		root->allowed_access |= LL_REFER;
	}
	if (scope & SP_SCOPE_SOCKETS_IF) {
		scope &= ~SP_SCOPE_SOCKETS_IF;
		if (abi >= 6)
			scope |= SP_SCOPE_SOCKETS;
	}
	if (scope != 0) {
		if (abi < 6)
			return sp_error_set(err, "--scope needs Landlock ABI 6 "
			    "(this kernel has %ld)", abi);
		attr->scoped = (scope & SP_SCOPE_SIGNALS ? LL_SCOPE_SIGNALS :
		    0) | (scope & SP_SCOPE_SOCKETS ? LL_SCOPE_SOCKETS : 0);
		*size = sizeof(*attr);
	}
	return abi;
}

int
sp_confine(unsigned scope, struct sp_error *err)
{
	struct ll_attr attr;
	struct ll_path_beneath root;
	size_t size;
	long abi;
	int fd, r;

	if ((abi = ruleset(scope, &attr, &size, &root, err)) <= 0)
		return (int)abi;
	if ((fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size,
	    0)) == -1)
		return sp_error_sys(err, errno, "landlock");
	if ((root.parent_fd = open("/", O_PATH | O_CLOEXEC)) == -1 ||
	    syscall(SYS_landlock_add_rule, fd, LL_RULE_PATH_BENEATH, &root,
	    0) == -1 || syscall(SYS_landlock_restrict_self, fd, 0) == -1)
		r = sp_error_sys(err, errno, "landlock");
	else
		r = (int)abi;
	if (root.parent_fd != -1)
		close(root.parent_fd);
	close(fd);
	return r;
}

/*
 * The same domain entered by each thread of a running process (syspin
 * run -p), by calls injected in them (stopped, in[i] set up for each):
 * the ruleset made by the first (its memory below `below` ours to
 * write), restricted to by every one, closed.  A domain is a thread's:
 * each must enter it.  0, 1 with no Landlock here, -1 with err.
 */
int
sp_confine_threads(struct sp_inject *in, size_t n, uint64_t below,
    unsigned scope, struct sp_error *err)
{
	struct ll_attr attr;
	struct ll_path_beneath root;
	uint64_t at = (below - 256) & ~(uint64_t)15, a[6] = { 0 };
	size_t size;
	long abi, fd, rfd, r;

	if ((abi = ruleset(scope, &attr, &size, &root, err)) <= 0)
		return abi == 0 ? 1 : -1;
	/* "/", the attributes, the rule: at, at + 16, at + 48 */
	if (sp_mem_write(in[0].pid, at, "/", 2, err) == -1 ||
	    sp_mem_write(in[0].pid, at + 16, &attr, size, err) == -1)
		return -1;
	a[0] = at, a[1] = O_PATH | O_CLOEXEC;
	if (sp_inject_syscall(&in[0], SYS_open, a, 6, &rfd, err) == -1)
		return -1;
	if (rfd < 0)
		return sp_error_sys(err, (int)-rfd, "landlock: open /");
	root.parent_fd = (int32_t)rfd;
	a[0] = at + 16, a[1] = size, a[2] = 0;
	if (sp_mem_write(in[0].pid, at + 48, &root, sizeof(root), err) == -1 ||
	    sp_inject_syscall(&in[0], SYS_landlock_create_ruleset, a, 6, &fd,
	    err) == -1)
		return -1;
	if (fd < 0)
		return sp_error_sys(err, (int)-fd, "landlock ruleset");
	a[0] = (uint64_t)fd, a[1] = LL_RULE_PATH_BENEATH, a[2] = at + 48;
	if (sp_inject_syscall(&in[0], SYS_landlock_add_rule, a, 6, &r,
	    err) == -1)
		return -1;
	if (r < 0)
		return sp_error_sys(err, (int)-r, "landlock rule");
	for (size_t i = 0; i < n; i++) {
		unsigned long long cap = ~0ull;
		/* a domain needs it where CAP_SYS_ADMIN lacks (with it,
		 * setuid programs keep working, as in syspin run's tree) */
		(void)sp_proc_status(in[i].pid, "CapEff", 16, &cap);
		a[0] = PR_SET_NO_NEW_PRIVS, a[1] = 1, a[2] = 0;
		if (!((cap >> 21) & 1) && sp_inject_syscall(&in[i], SYS_prctl,
		    a, 6, &r, err) == -1)
			return -1;
		a[0] = (uint64_t)fd, a[1] = 0;
		if (sp_inject_syscall(&in[i], SYS_landlock_restrict_self, a,
		    6, &r, err) == -1)
			return -1;
		if (r < 0)
			return sp_error_sys(err, (int)-r, "landlock in thread "
			    "%ld", (long)in[i].pid);
	}
	a[0] = (uint64_t)fd;
	(void)sp_inject_syscall(&in[0], SYS_close, a, 6, &r, err);
	a[0] = (uint64_t)rfd;
	(void)sp_inject_syscall(&in[0], SYS_close, a, 6, &r, err);
	return 0;
}

/*
 * What the tree's first process leaves behind before it execs (with the
 * domain above):
 * - the user's session keyring: the tree gets one of its own, empty, so
 *   that a persistent keyring linked into the session (Kerberos'
 *   KEYRING:persistent) does not take the cache's key with it (what the
 *   user keyring links, lib/pins/cache_mac.c refuses to use);
 * - as root, the capabilities that reach another process's memory past
 *   the domain: CAP_SYS_PTRACE, CAP_PERFMON (perf samples of any task;
 *   the kernel also lets it read /proc/PID/environ, maps, auxv of any
 *   process whatever Landlock says) and CAP_BPF (programs that read and
 *   write any process), from the bounding set: no program of the tree
 *   gets them, setuid ones included; and CAP_SYS_TTY_CONFIG, with which
 *   a tree hangs up the run's terminal (vhangup, TIOCVHANGUP): the user's
 *   shell's session.  CAP_SYS_ADMIN implies the same
 *   reads and cannot go (docs/threat-model.md); the filters deny the
 *   perf and bpf calls that would use it.
 */
int
sp_confine_session(struct sp_error *err)
{
	static const int caps[] = { 19 /* SYS_PTRACE */, 38 /* PERFMON */,
		39 /* BPF */, 26 /* SYS_TTY_CONFIG: vhangup, a console's keys */ };

	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) == -1 &&
	    errno != ENOSYS)
		return sp_error_sys(err, errno, "a session keyring of its own");
	/* What it holds now, the tree holds: never the cache's key. */
	if (sp_cache_key_readable())
		return sp_error_set(err, "the cache's key is readable without "
		    "KEYCTL_GET_PERSISTENT (the persistent keyring is linked "
		    "into a keyring every process of this user holds): "
		    "refusing to run a tree that could forge its own pins");
	for (size_t i = 0; i < sizeof(caps) / sizeof(*caps); i++)
		if (prctl(PR_CAPBSET_DROP, caps[i], 0, 0, 0) == -1 &&
		    errno != EINVAL && errno != EPERM)
			return sp_error_sys(err, errno, "dropping capability "
			    "%d", caps[i]);
	return 0;
}

bool
sp_confine_available(void)
{
	return syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION) > 0;
}
