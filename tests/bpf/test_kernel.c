/* SPDX-License-Identifier: ISC */
/*
 * Generated filters in the kernel.  Each case runs in a forked child that
 * installs a filter pinning (number, stub) pairs at their real addresses
 * (stubs.S), issues one call, and exits through a pinned exit_group.  The
 * evaluator's verdict for the same seccomp_data must be the intended
 * one, and the kernel must agree: SIGSYS exactly for a kill, EACCES for
 * the memory rules.  Odd cases drop to nobody and rely on no_new_privs;
 * even ones stay root and use SP_BPF_INSTALL_NO_NNP.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpf/bpf.h"

#include "stubs.h"

#define X32 SP_BPF_X32_BIT
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RX (PROT_READ | PROT_EXEC)
#define RWX (PROT_READ | PROT_WRITE | PROT_EXEC)
#define OK SECCOMP_RET_ALLOW
#define NOPE (SECCOMP_RET_ERRNO | EACCES)
#define KILL SECCOMP_RET_KILL_PROCESS
#define EPERM_RET (SECCOMP_RET_ERRNO | EPERM)

enum via { V_A, V_B, V_C, V_ANY, V_I386, V_LIBC };
enum prep { P_NONE, P_FILE, P_PAGE, P_BAND, P_BANDFILE };

struct kcase {
	const char *what;
	enum via via;
	long nr;
	long a[6];
	enum prep prep;		/* file: a[4] = fd; page: a[0] = page;
				   band: a[0] = a page in the band;
				   bandfile: both, a[0] unmapped */
	uint32_t want;
};

static bool have_i386 = true;
static const char nonexistent[] = "/nonexistent/syspin";

static uint64_t
via_ip(enum via v)
{
	switch (v) {
	case V_A: return SITE_IP(sp_stub_a_site);
	case V_B: return SITE_IP(sp_stub_b_site);
	case V_C: return SITE_IP(sp_stub_c_site);
	case V_ANY: return SITE_IP(sp_stub_any_site);
	case V_I386: return SITE_IP(sp_stub_i386_site);
	default: return (uint64_t)(uintptr_t)&syscall;	/* libc */
	}
}

static long
issue(const struct kcase *c, const long *a)
{
	switch (c->via) {
	case V_A: return sp_stub_a(c->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	case V_B: return sp_stub_b(c->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	case V_C: return sp_stub_c(c->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	case V_ANY:
		return sp_stub_any(c->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	case V_I386: return sp_stub_i386(c->nr, a[0], a[1], a[2]);
	default: {
		long r = syscall(c->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		return r == -1 ? -errno : r;
	}
	}
}

/* ---- the filters ---- */

struct kcfg {
	unsigned flags;
	uint32_t action;
	size_t extra;		/* bogus pins to force a split */
	struct sp_bpf_narrow narrow;	/* --deny / --allow */
	uint32_t narrowed;
};

static struct sp_bpf_pin *
base_pins(size_t extra, size_t *n)
{
	struct sp_bpf_pin *p;
	size_t i = 0, k;

	assert_non_null(p = calloc(16 + extra, sizeof(*p)));
	p[i++] = (struct sp_bpf_pin){ 39, SITE_IP(sp_stub_a_site), 0, 0 };
	p[i++] = (struct sp_bpf_pin){ 110, SITE_IP(sp_stub_b_site), 0, 0 };
	p[i++] = (struct sp_bpf_pin){ 9, SITE_IP(sp_stub_a_site), 0, 0 };
	p[i++] = (struct sp_bpf_pin){ 10, SITE_IP(sp_stub_a_site), 0, 0 };
	p[i++] = (struct sp_bpf_pin){ 135, SITE_IP(sp_stub_c_site), 0, 0 };
	p[i++] = (struct sp_bpf_pin){ 59, SITE_IP(sp_stub_b_site), 0, 0 };
	p[i++] = (struct sp_bpf_pin){ 231, SITE_IP(sp_stub_exit_site), 0, 0 };
	p[i++] = (struct sp_bpf_pin){ 20, SITE_IP(sp_stub_i386_site),
	    SP_ABI_I386, 0 };
	p[i++] = (struct sp_bpf_pin){ 39, SITE_IP(sp_stub_c_site),
	    SP_ABI_X32, 0 };
	for (k = 0; k < extra; k++)	/* numbers 400.., far from the stubs */
		p[i++] = (struct sp_bpf_pin){ (uint32_t)(400 + k / 2),
		    0x10000000 + 0x40 * k, 0, 0 };
	*n = i;
	return p;
}

static void
generate(const struct kcfg *cfg, struct sp_bpf_pin **pins,
    struct sp_bpf_input *in, struct sp_bpf_prog **p, size_t *np)
{
	static uint64_t any;
	static struct sp_bpf_range img;
	struct sp_error err;

	any = SITE_IP(sp_stub_any_site);
	img = (struct sp_bpf_range){ (uintptr_t)sp_stubs_start,
	    (uintptr_t)sp_stubs_end };
	memset(in, 0, sizeof(*in));
	*pins = base_pins(cfg->extra, &in->npins);
	in->pins = *pins;
	in->any_ips = &any;
	in->nany_ips = 1;
	in->ranges = &img;
	in->nranges = 1;
	in->band = (struct sp_bpf_range){ SP_BAND_START, SP_BAND_END };
	in->flags = cfg->flags;
	in->action = cfg->action;
	in->narrow = cfg->narrow;
	in->narrowed = cfg->narrowed;
	if (sp_bpf_generate(in, p, np, &err) == -1)
		fail_msg("sp_bpf_generate: %s", err.msg);
}

/* ---- one case ---- */

static void
drop_privileges(void)
{
	if (geteuid() != 0)
		return;
	if (setgroups(0, NULL) == -1 || setgid(65534) == -1 ||
	    setuid(65534) == -1)
		_exit(101);
}

static int
exit_code(long r)
{
	return r == -EACCES ? 13 : r == -EPERM ? 1 : 0;
}

static void
child(const struct kcase *c, const struct sp_bpf_prog *p, size_t np,
    bool unpriv, long *a)
{
	struct rlimit nocore = { 0, 0 };
	struct sp_error err;
	unsigned iflags = 0;
	long r;

	setrlimit(RLIMIT_CORE, &nocore);
	prctl(PR_SET_DUMPABLE, 0);
	if (unpriv)
		drop_privileges();
	else
		iflags = SP_BPF_INSTALL_NO_NNP;
	if (sp_bpf_install(p, np, iflags, &err) == -1) {
		fprintf(stderr, "%s\n", err.msg);
		_exit(100);
	}
	r = issue(c, a);
	sp_stub_exit(SYS_exit_group, exit_code(r), 0, 0, 0, 0, 0);
	_exit(102);
}

static void
prepare(const struct kcase *c, long *a)
{
	int fd;
	void *pg;

	memcpy(a, c->a, sizeof(c->a));
	if (c->prep == P_FILE || c->prep == P_BANDFILE) {
		assert_true((fd = open("/proc/self/exe", O_RDONLY)) >= 0);
		a[4] = fd;
	}
	if (c->prep == P_BANDFILE) {
		a[0] = (long)(SP_BAND_START + 0x200000);
	} else if (c->prep == P_BAND) {
		munmap((void *)(SP_BAND_START + 0x100000), 4096);
		pg = mmap((void *)(SP_BAND_START + 0x100000), 4096,
		    PROT_READ | PROT_WRITE, ANON | MAP_FIXED_NOREPLACE, -1, 0);
		assert_true(pg != MAP_FAILED);
		a[0] = (long)pg;
	} else if (c->prep == P_PAGE) {
		pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(pg != MAP_FAILED);
		a[0] = (long)pg;
	}
}

static uint32_t
eval_verdict(const struct kcase *c, const long *a,
    const struct sp_bpf_prog *p, size_t np)
{
	struct seccomp_data d;
	size_t i;

	memset(&d, 0, sizeof(d));
	d.nr = (int)c->nr;
	d.arch = c->via == V_I386 ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
	d.instruction_pointer = via_ip(c->via);
	for (i = 0; i < 6; i++)
		d.args[i] = c->via == V_I386 ? (uint32_t)a[i] : (uint64_t)a[i];
	return sp_bpf_run_all(p, np, &d, NULL);
}

/* What the kernel did, in the filter's terms. */
static uint32_t
outcome(int status)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		return KILL;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 13)
		return NOPE;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
		return EPERM_RET;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return OK;
	return 0xdead;
}

static size_t
run_cases(const struct kcfg *cfg, const struct kcase *cs, size_t n)
{
	struct sp_bpf_input in;
	struct sp_bpf_pin *pins;
	struct sp_bpf_prog *p;
	size_t np, i, bad = 0;
	uint32_t model, kernel;
	long a[6];
	int status;
	pid_t pid;

	generate(cfg, &pins, &in, &p, &np);
	if (cfg->extra > 0)
		assert_true(np >= 2);
	for (i = 0; i < n; i++) {
		if (cs[i].via == V_I386 && !have_i386)
			continue;
		prepare(&cs[i], a);
		model = eval_verdict(&cs[i], a, p, np);
		if ((pid = fork()) == 0)
			child(&cs[i], p, np, i % 2 == 1, a);
		assert_true(pid > 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		kernel = outcome(status);
		if (cs[i].prep == P_FILE || cs[i].prep == P_BANDFILE)
			close((int)a[4]);
		if (model != cs[i].want || kernel != model) {
			print_message("%s: intended %#x, evaluator %#x, "
			    "kernel %#x (status %#x)\n", cs[i].what,
			    cs[i].want, model, kernel, status);
			bad++;
		}
	}
	sp_bpf_free(p, np);
	free(pins);
	return bad;
}

/* ---- the cases ----
 * "from libc" is a call from outside the image: where a later image's
 * code runs, that image's own filter's business: allowed here. */

static void
test_default(void **state)
{
	long path = (long)nonexistent;
	const struct kcase cs[] = {
		{ "getpid at its pin", V_A, 39, { 0 }, P_NONE, OK },
		{ "getpid at another pinned stub", V_B, 39, { 0 }, P_NONE,
		    KILL },
		{ "getppid at its pin", V_B, 110, { 0 }, P_NONE, OK },
		{ "getppid at a stub pinned for others", V_C, 110, { 0 },
		    P_NONE, KILL },
		{ "unpinned getuid in the image", V_A, 102, { 0 }, P_NONE,
		    KILL },
		{ "unpinned read in the image", V_A, 0, { -1 }, P_NONE, KILL },
		{ "number 1000 in the image", V_A, 1000, { 0 }, P_NONE, KILL },
		{ "getpid from libc (outside)", V_LIBC, 39, { 0 }, P_NONE,
		    OK },
		{ "any-number site: getuid", V_ANY, 102, { 0 }, P_NONE, OK },
		{ "any-number site: x32 getpid", V_ANY, X32 | 39, { 0 },
		    P_NONE, KILL },
		{ "x32 getpid at its pin", V_C, X32 | 39, { 0 }, P_NONE, OK },
		{ "x32 getpid elsewhere", V_A, X32 | 39, { 0 }, P_NONE, KILL },
		{ "x32 getpid from libc (a later image's)", V_LIBC, X32 | 39,
		    { 0 }, P_NONE, OK },
		{ "int 0x80 getpid at its pin", V_I386, 20, { 0 }, P_NONE,
		    OK },
		{ "int 0x80 getuid", V_I386, 24, { 0 }, P_NONE, KILL },
		{ "mmap anonymous RX at its pin", V_A, 9,
		    { 0, 4096, RX, ANON, -1, 0 }, P_NONE, NOPE },
		{ "mmap anonymous RW at its pin", V_A, 9,
		    { 0, 4096, PROT_READ | PROT_WRITE, ANON, -1, 0 }, P_NONE,
		    OK },
		{ "mmap file RX at its pin: to be placed", V_A, 9,
		    { 0, 4096, RX, MAP_PRIVATE, 0, 0 }, P_FILE, NOPE },
		{ "mmap file RX at its pin, fixed in the band", V_A, 9,
		    { 0, 4096, RX, MAP_PRIVATE | MAP_FIXED_NOREPLACE, 0, 0 },
		    P_BANDFILE, OK },
		{ "mmap file RX at its pin, fixed elsewhere", V_A, 9,
		    { 0x50000000, 4096, RX, MAP_PRIVATE | MAP_FIXED_NOREPLACE,
		    0, 0 }, P_FILE, NOPE },
		{ "mmap file RWX at its pin, fixed in the band", V_A, 9,
		    { 0, 4096, RWX, MAP_PRIVATE | MAP_FIXED_NOREPLACE, 0, 0 },
		    P_BANDFILE, NOPE },
		{ "mmap anonymous RX from libc (outside)", V_LIBC, 9,
		    { 0, 4096, RX, ANON, -1, 0 }, P_NONE, OK },
		{ "mprotect RX at its pin", V_A, 10, { 0, 4096, RX }, P_PAGE,
		    NOPE },
		{ "mprotect R at its pin", V_A, 10, { 0, 4096, PROT_READ },
		    P_PAGE, OK },
		{ "mprotect RX from libc (outside)", V_LIBC, 10,
		    { 0, 4096, RX }, P_PAGE, OK },
		{ "personality READ_IMPLIES_EXEC", V_C, 135, { 0x0400000 },
		    P_NONE, NOPE },
		{ "personality query", V_C, 135, { 0xffffffff }, P_NONE, OK },
		{ "ioctl TIOCSTI, any-number site", V_ANY, 16,
		    { 0, 0x5412, 0 }, P_NONE, EPERM_RET },
		{ "seccomp listener, any-number site", V_ANY, 317, { 1, 8, 0 },
		    P_NONE, EPERM_RET },
		{ "keyctl GET_PERSISTENT, any-number site", V_ANY, 250,
		    { 22, -1, -1 }, P_NONE, EPERM_RET },
		{ "arch_prctl MAP_VDSO_64, any-number site", V_ANY, 158,
		    { 0x2003, 0x100000000 }, P_NONE, EPERM_RET },
		{ "execve at its pin", V_B, 59, { path, 0, 0 }, P_NONE, OK },
		{ "execve elsewhere in the image", V_A, 59, { path, 0, 0 },
		    P_NONE, KILL },
	};

	(void)state;
	assert_int_equal(run_cases(&(struct kcfg){ .flags = 0 }, cs,
	    sizeof(cs) / sizeof(*cs)), 0);
}

static void
test_jit_strict_action(void **state)
{
	long path = (long)nonexistent;
	const struct kcase jit[] = {
		{ "jit: mmap anonymous RWX fixed in the band", V_A, 9,
		    { SP_BAND_START + 0x300000, 4096, RWX,
		    ANON | MAP_FIXED_NOREPLACE, -1, 0 }, P_NONE, OK },
		{ "jit: mprotect RX of a page in the band", V_A, 10,
		    { 0, 4096, RX }, P_BAND, OK },
		{ "jit: mprotect RX outside the band", V_A, 10,
		    { 0, 4096, RX }, P_PAGE, NOPE },
		{ "jit: getpid at another stub", V_B, 39, { 0 }, P_NONE, KILL },
	};
	const struct kcase strict[] = {
		{ "strict: getpid at its pin", V_A, 39, { 0 }, P_NONE, OK },
		{ "strict: getpid from libc", V_LIBC, 39, { 0 }, P_NONE, KILL },
		{ "strict: any-number site", V_ANY, 102, { 0 }, P_NONE, OK },
		{ "strict: mmap file RX at its pin", V_A, 9,
		    { 0, 4096, RX, MAP_PRIVATE, 0, 0 }, P_FILE, NOPE },
		{ "strict: execve at its pin", V_B, 59, { path, 0, 0 }, P_NONE,
		    NOPE },
	};
	const struct kcase eperm[] = {
		{ "errno action: getuid unpinned", V_A, 102, { 0 }, P_NONE,
		    EPERM_RET },
		{ "errno action: getpid at its pin", V_A, 39, { 0 }, P_NONE,
		    OK },
	};

	(void)state;
	assert_int_equal(run_cases(&(struct kcfg){ .flags = SP_BPF_ALLOW_JIT },
	    jit, 4), 0);
	assert_int_equal(run_cases(&(struct kcfg){ .flags = SP_BPF_STRICT },
	    strict, 5), 0);
	assert_int_equal(run_cases(&(struct kcfg){ .action = EPERM_RET },
	    eperm, 2), 0);
}

/* Several programs in the kernel enforce the policy of one. */
static void
test_split(void **state)
{
	const struct kcase cs[] = {
		{ "split: getpid at its pin", V_A, 39, { 0 }, P_NONE, OK },
		{ "split: getpid elsewhere", V_B, 39, { 0 }, P_NONE, KILL },
		{ "split: number pinned elsewhere", V_A, 700, { 0 }, P_NONE,
		    KILL },
		{ "split: getppid at its pin", V_B, 110, { 0 }, P_NONE, OK },
		{ "split: int 0x80 getpid at its pin", V_I386, 20, { 0 },
		    P_NONE, OK },
		{ "split: mmap anonymous RX at its pin", V_A, 9,
		    { 0, 4096, RX, ANON, -1, 0 }, P_NONE, NOPE },
		{ "split: TIOCSTI, any-number site", V_ANY, 16,
		    { 0, 0x5412, 0 }, P_NONE, EPERM_RET },
	};

	(void)state;
	assert_int_equal(run_cases(&(struct kcfg){ .extra = 3000 }, cs,
	    sizeof(cs) / sizeof(*cs)), 0);
}

/* Narrowing (--deny, --allow) in the same program, errno or kill. */
static void
test_narrow(void **state)
{
	static const uint32_t deny[] = { 39, 110, 231, 102 };
	static const uint32_t allow[] = { 39 };
	const struct kcase errno_cases[] = {
		{ "deny: getpid at its pin", V_A, 39, { 0 }, P_NONE,
		    EPERM_RET },
		{ "deny: getppid at a wrong stub (before its sites)", V_C, 110,
		    { 0 }, P_NONE, EPERM_RET },
		{ "deny: getppid from libc (a later image's)", V_LIBC, 110,
		    { 0 }, P_NONE, OK },
		{ "deny: getuid unpinned in the image", V_A, 102, { 0 },
		    P_NONE, EPERM_RET },
		{ "deny: gettid, not listed, from libc", V_LIBC, 186, { 0 },
		    P_NONE, OK },
		{ "deny: gettid, not listed, in the image", V_A, 186, { 0 },
		    P_NONE, KILL },
		{ "deny: mmap at its pin, not listed", V_A, 9,
		    { 0, 4096, PROT_READ | PROT_WRITE, ANON, -1, 0 }, P_NONE,
		    OK },
	};
	const struct kcase kill_cases[] = {
		{ "deny=kill: getpid at its pin", V_A, 39, { 0 }, P_NONE,
		    KILL },
		{ "deny=kill: getppid at the any-number site", V_ANY, 110,
		    { 0 }, P_NONE, KILL },
		{ "deny=kill: getpid is not listed", V_B, 110, { 0 }, P_NONE,
		    KILL },
	};
	const struct kcase allow_cases[] = {
		{ "allow: getpid at its pin", V_A, 39, { 0 }, P_NONE, OK },
		{ "allow: getppid at its pin", V_B, 110, { 0 }, P_NONE,
		    EPERM_RET },
		{ "allow: prctl(PR_SET_NO_NEW_PRIVS) at the any-number site",
		    V_ANY, 157, { 38, 1, 0, 0, 0 }, P_NONE, OK },
		{ "allow: prctl(PR_GET_DUMPABLE) at the any-number site",
		    V_ANY, 157, { 3, 0, 0, 0, 0 }, P_NONE, EPERM_RET },
		{ "allow: prctl(PR_GET_DUMPABLE) in the image", V_A, 157,
		    { 3, 0, 0, 0, 0 }, P_NONE, KILL },
		{ "allow: number 1000 at the any-number site", V_ANY, 1000,
		    { 0 }, P_NONE, EPERM_RET },
		{ "allow: uname from libc (a later image's)", V_LIBC, 63,
		    { 0 }, P_NONE, OK },
	};
	struct kcfg cfg = { 0, 0, 0, { deny, 4, false }, 0 };

	(void)state;
	assert_int_equal(run_cases(&cfg, errno_cases, sizeof(errno_cases) /
	    sizeof(*errno_cases)), 0);
	cfg.narrowed = SECCOMP_RET_KILL_PROCESS;
	assert_int_equal(run_cases(&cfg, kill_cases, sizeof(kill_cases) /
	    sizeof(*kill_cases)), 0);
	cfg = (struct kcfg){ 0, 0, 0, { allow, 1, true }, 0 };
	assert_int_equal(run_cases(&cfg, allow_cases, sizeof(allow_cases) /
	    sizeof(*allow_cases)), 0);
	/* split programs narrow alike */
	cfg = (struct kcfg){ 0, 0, 3000, { deny, 4, false }, 0 };
	assert_int_equal(run_cases(&cfg, errno_cases, 4), 0);
}

static int tsync_pipe[2];

static void *
late_thread(void *arg)
{
	char c;

	(void)arg;
	if (read(tsync_pipe[0], &c, 1) != 1)
		return NULL;
	sp_stub_b(39, 0, 0, 0, 0, 0, 0);	/* getpid at the wrong stub */
	return NULL;
}

/* TSYNC: a thread that existed before the install is filtered too. */
static void
test_tsync(void **state)
{
	struct sp_bpf_input in;
	struct sp_bpf_pin *pins;
	struct sp_bpf_prog *p;
	struct sp_error err;
	pthread_t t;
	size_t np;
	int status;
	pid_t pid;

	(void)state;
	generate(&(struct kcfg){ .flags = 0 }, &pins, &in, &p, &np);
	if ((pid = fork()) == 0) {
		prctl(PR_SET_DUMPABLE, 0);
		if (pipe(tsync_pipe) == -1 ||
		    pthread_create(&t, NULL, late_thread, NULL) != 0)
			_exit(100);
		if (sp_bpf_install(p, np, 0, &err) == -1)
			_exit(101);
		if (write(tsync_pipe[1], "x", 1) != 1)
			_exit(102);
		pthread_join(t, NULL);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS);
	sp_bpf_free(p, np);
	free(pins);
}

/* Whether int 0x80 works here at all (ia32 emulation may be off). */
static void
probe_i386(void)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == 0)
		_exit(sp_stub_i386(20, 0, 0, 0) == getpid() ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		have_i386 = false;
		print_message("no ia32 emulation: int 0x80 cases skipped\n");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_jit_strict_action),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_tsync),
	};

	probe_i386();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
