/* SPDX-License-Identifier: ISC */
/*
 * Core-dumping signals and limits between processes of the tree, the
 * ways programs send them: the supervisor sends a core-dumping signal to
 * another process itself (lib/supervise/another.c), and each must still
 * arrive, with what its caller asked (sigqueue's value, kill of a
 * thread's id reaching its process, tgkill's thread, a pidfd), and
 * prlimit64 of a child must still set its limit.  And what the kernel
 * would refuse the caller stays refused (blind round 17: the supervisor
 * sent with its own permission): a caller that scoped its own signals
 * (Landlock), or dropped CAP_KILL before signalling another user's
 * process; and one that scoped its signals and sends on a pidfd number a
 * thread flips (round 18).  Exit 0 when every one did, 1 otherwise (what went wrong on
 * stdout).
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t second;
static int fails;

static void *
thread(void *arg)
{
	(void)arg;
	second = gettid();
	for (;;)
		pause();
	return NULL;
}

/* A child with a second thread; its id in *tid. */
static pid_t
child(pid_t *tid)
{
	int p[2];
	pid_t c;

	if (pipe(p) == -1 || (c = fork()) == -1)
		return -1;
	if (c == 0) {
		struct rlimit none = { 0, 0 };
		pthread_t t;
		setrlimit(RLIMIT_CORE, &none);	/* no core files left */
		pthread_create(&t, NULL, thread, NULL);
		while (second == 0)
			;
		if (write(p[1], (const void *)&second, sizeof(second)) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	if (read(p[0], tid, sizeof(*tid)) != sizeof(*tid))
		*tid = -1;
	close(p[0]);
	close(p[1]);
	return c;
}

static void
expect(const char *what, long r, pid_t c, int sig)
{
	int st;

	if (r != 0)
		printf("FAIL %s: %s\n", what, strerror(errno));
	for (int i = 0; i < 200 && waitpid(c, &st, WNOHANG) == 0; i++)
		usleep(10000);
	if (kill(c, SIGKILL) == 0)	/* not core-dumping: judged by none */
		waitpid(c, &st, 0);
	if (r == 0 && (!WIFSIGNALED(st) || WTERMSIG(st) != sig)) {
		printf("FAIL %s: the child ended with status %#x\n", what, st);
		r = -1;
	}
	if (r != 0)
		fails++;
	else
		printf("ok   %s\n", what);
}

/* A child that waits as uid u (-1: as we are). */
static pid_t
waiter(uid_t u)
{
	pid_t c = fork();

	if (c == 0) {
		if (u != (uid_t)-1 && setresuid(u, u, u) == -1)
			_exit(1);
		for (;;)
			pause();
	}
	usleep(50000);
	return c;
}

/* In a child, how: "scope" (a Landlock domain that keeps signals in) or
 * "nokill" (CAP_KILL dropped), then SIGSEGV to c: must be EPERM, as
 * without syspin; c must live.  77: the kernel cannot say. */
static void
refused_for_caller(const char *what, const char *how, pid_t c)
{
	int st;
	pid_t p = fork();

	if (p == 0) {
		if (strcmp(how, "scope") == 0) {
			/* ABI 6's attribute (Debian 12's headers are 6.1's) */
			struct { uint64_t fs, net, scoped; } a = {
				0, 0, 1u << 1 /* LANDLOCK_SCOPE_SIGNAL */ };
			long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			    LANDLOCK_CREATE_RULESET_VERSION);
			int fd;

			if (abi < 6)
				_exit(77);
			fd = (int)syscall(SYS_landlock_create_ruleset, &a,
			    sizeof(a), 0);
			if (fd == -1 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0,
			    0) == -1 || syscall(SYS_landlock_restrict_self, fd,
			    0) == -1)
				_exit(2);
		} else {
			struct __user_cap_header_struct h = {
				_LINUX_CAPABILITY_VERSION_3, 0 };
			struct __user_cap_data_struct d[2];

			if (syscall(SYS_capget, &h, d) == -1)
				_exit(2);
			d[0].effective &= ~(1u << CAP_KILL);
			d[0].permitted &= ~(1u << CAP_KILL);
			if (syscall(SYS_capset, &h, d) == -1)
				_exit(2);
		}
		_exit(kill(c, SIGSEGV) == -1 && errno == EPERM ? 0 : 1);
	}
	waitpid(p, &st, 0);
	usleep(100000);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		printf("skip %s: the kernel cannot (Landlock ABI < 6)\n", what);
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    waitpid(c, &st, WNOHANG) != 0) {
		printf("FAIL %s: the signal was sent\n", what);
		fails++;
	} else
		printf("ok   %s\n", what);
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
}

/*
 * Blind round 18: the same caller (signals scoped) sends SIGQUIT 2000
 * times on a pidfd number a thread flips between a child made after the
 * scope (which it may signal; it ignores SIGQUIT) and one made before
 * (which it may not): the probe judged the one, the supervisor sent to
 * the other.  None may reach the one made before.
 */
static volatile int flip_stop;
static int flip_a, flip_b;

static void *
flipper(void *arg)
{
	(void)arg;
	while (!flip_stop) {
		dup2(flip_a, 100);
		dup2(flip_b, 100);
	}
	return NULL;
}

static void
scope_flipped(pid_t before)
{
	int st;
	pid_t p = fork();

	if (p == 0) {
		struct { uint64_t fs, net, scoped; } a = { 0, 0, 1u << 1 };
		pthread_t t;
		pid_t after;
		int fd;

		if (syscall(SYS_landlock_create_ruleset, NULL, 0,
		    LANDLOCK_CREATE_RULESET_VERSION) < 6)
			_exit(77);
		if ((fd = (int)syscall(SYS_landlock_create_ruleset, &a,
		    sizeof(a), 0)) == -1 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0,
		    0) == -1 || syscall(SYS_landlock_restrict_self, fd, 0) == -1)
			_exit(2);
		if ((after = fork()) == 0) {
			signal(SIGQUIT, SIG_IGN);
			for (;;)
				pause();
		}
		flip_a = (int)syscall(SYS_pidfd_open, before, 0);
		flip_b = (int)syscall(SYS_pidfd_open, after, 0);
		dup2(flip_b, 100);
		pthread_create(&t, NULL, flipper, NULL);
		for (int i = 0; i < 2000; i++)
			syscall(SYS_pidfd_send_signal, 100, SIGQUIT, NULL, 0);
		flip_stop = 1;
		pthread_join(t, NULL);
		kill(after, SIGKILL);
		_exit(0);
	}
	waitpid(p, &st, 0);
	usleep(100000);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		printf("skip the same, on a pidfd flipped by a thread: the "
		    "kernel cannot (Landlock ABI < 6)\n");
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    waitpid(before, &st, WNOHANG) != 0) {
		printf("FAIL the same, on a pidfd flipped by a thread: a "
		    "signal reached the process outside its scope\n");
		fails++;
	} else
		printf("ok   the same, on a pidfd flipped by a thread\n");
	kill(before, SIGKILL);
	waitpid(before, &st, 0);
}

/* Whether a tracer holds us (syspin run's supervisor). */
static bool
traced(void)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/self/status", "re");
	size_t n = f != NULL ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f != NULL)
		fclose(f);
	buf[n] = '\0';
	return (p = strstr(buf, "TracerPid:")) != NULL &&
	    strtol(p + 10, NULL, 10) != 0;
}

/*
 * Blind round 18: a core signal reaches no process outside the tree,
 * not even one that catches or ignores it (ignored while blocked, it
 * stays pending for a child that resets it before exec).  Our parent,
 * `syspin run`, catches SIGQUIT (it would pass it on to us: a core of
 * ours).  Pinned only: bare, the parent is a shell.
 */
static void
outside_refused(void)
{
	if (!traced())
		return;
	errno = 0;
	if (kill(getppid(), SIGQUIT) == -1 && errno == EPERM)
		printf("ok   SIGQUIT to syspin run, outside the tree: "
		    "refused\n");
	else {
		printf("FAIL SIGQUIT to syspin run, outside the tree: %s\n",
		    errno ? strerror(errno) : "sent");
		fails++;
	}
}

int
main(void)
{
	union sigval v = { .sival_int = 7 };
	struct rlimit lim, got;
	pid_t c, t;
	int pf;

	c = child(&t);
	expect("sigqueue(SIGQUIT)", sigqueue(c, SIGQUIT, v), c, SIGQUIT);
	c = child(&t);
	expect("kill(a thread's id, SIGQUIT)", kill(t, SIGQUIT), c, SIGQUIT);
	c = child(&t);
	expect("tgkill(SIGABRT)", syscall(SYS_tgkill, c, t, SIGABRT), c,
	    SIGABRT);
	c = child(&t);
	pf = (int)syscall(SYS_pidfd_open, c, 0);
	expect("pidfd_send_signal(SIGSEGV)", syscall(SYS_pidfd_send_signal,
	    pf, SIGSEGV, NULL, 0), c, SIGSEGV);
	close(pf);
	c = child(&t);
	if (prlimit(c, RLIMIT_NOFILE, NULL, &got) != 0 ||
	    (lim.rlim_max = got.rlim_max, lim.rlim_cur = 777,
	    prlimit(c, RLIMIT_NOFILE, &lim, NULL)) != 0 ||
	    prlimit(c, RLIMIT_NOFILE, NULL, &got) != 0 ||
	    got.rlim_cur != 777) {
		printf("FAIL prlimit of a child: %s\n", strerror(errno));
		fails++;
	} else
		printf("ok   prlimit of a child\n");
	expect("kill(SIGKILL)", 0, c, SIGKILL);
	refused_for_caller("a caller that scoped its signals (Landlock)",
	    "scope", waiter((uid_t)-1));
	scope_flipped(waiter((uid_t)-1));
	outside_refused();
	if (geteuid() == 0)
		refused_for_caller("a caller without CAP_KILL, to nobody",
		    "nokill", waiter(65534));
	return fails ? 1 : 0;
}
