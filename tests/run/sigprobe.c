/* SPDX-License-Identifier: ISC */
/*
 * A process of the tree that sandboxed itself sends SIGQUIT to another
 * process of the tree that its sandbox keeps it from signalling
 * (blind round 21): the supervisor, which sends core-dumping signals on
 * the caller's behalf, must not send what the kernel would refuse the
 * caller.  Its own seccomp filter answers every signal-0 call (the
 * supervisor's check of the caller's permission) with 0, without
 * running it.
 *
 * usage: sigprobe HOW FAKE SANDBOX
 *   HOW      kill, tkill, tgkill, pidfd or sigqueue
 *   FAKE     1: the filter that answers signal 0 with 0
 *   SANDBOX  scope: Landlock's signal scope (ABI 6); cap: root without
 *            CAP_KILL, the victim nobody's; none
 * Exit: 0 the victim died of SIGQUIT, 1 it lives, 2 trouble, 77 this
 * kernel cannot make the sandbox.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define ARG(i) (offsetof(struct seccomp_data, args[i]))

/* signal 0 of kill, tkill, pidfd_send_signal, rt_sigqueueinfo (args[1])
 * and tgkill (args[2]): "done", unrun */
static int
fake_probes(void)
{
	struct sock_filter f[] = {
		LD(offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kill, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tkill, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_send_signal, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigqueueinfo, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 4, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		LD(ARG(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 4, 3),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		LD(ARG(2)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
	};
	struct sock_fprog p = { sizeof(f) / sizeof(f[0]), f };

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p);
}

static int
scope_signals(void)
{
	struct { unsigned long long fs, net, scoped; } r = { 0, 0, 2 };
	int fd = (int)syscall(SYS_landlock_create_ruleset, &r, sizeof(r), 0);

	if (fd < 0)
		return -1;
	return (int)syscall(SYS_landlock_restrict_self, fd, 0);
}

static int
drop_cap_kill(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) == -1)
		return -1;
	d[0].effective &= ~(1u << CAP_KILL);
	d[0].permitted &= ~(1u << CAP_KILL);
	return (int)syscall(SYS_capset, &h, d);
}

static long
send(const char *how, pid_t victim, int pfd)
{
	siginfo_t si;

	if (strcmp(how, "tkill") == 0)
		return syscall(SYS_tkill, victim, SIGQUIT);
	if (strcmp(how, "tgkill") == 0)
		return syscall(SYS_tgkill, victim, victim, SIGQUIT);
	if (strcmp(how, "pidfd") == 0)
		return syscall(SYS_pidfd_send_signal, pfd, SIGQUIT, NULL, 0);
	if (strcmp(how, "sigqueue") == 0) {
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGQUIT;
		si.si_code = SI_QUEUE;
		si.si_pid = getpid();
		si.si_uid = getuid();
		return syscall(SYS_rt_sigqueueinfo, victim, SIGQUIT, &si);
	}
	return kill(victim, SIGQUIT);
}

int
main(int argc, char **argv)
{
	int ready[2], st, pfd, fake;
	pid_t victim, attacker;
	const char *sandbox;
	char c;

	if (argc != 4)
		return 2;
	fake = atoi(argv[2]);
	sandbox = argv[3];
	if (pipe(ready) == -1)
		return 2;
	if ((victim = fork()) == 0) {
		signal(SIGQUIT, SIG_DFL);
		if (strcmp(sandbox, "cap") == 0 && setresuid(65534, 65534,
		    65534) == -1)
			_exit(2);
		(void)write(ready[1], "r", 1);
		for (;;)
			pause();
	}
	if (victim == -1 || read(ready[0], &c, 1) != 1)
		return 2;
	pfd = (int)syscall(SYS_pidfd_open, victim, 0);
	if ((attacker = fork()) == 0) {
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		if (strcmp(sandbox, "scope") == 0 && scope_signals() == -1)
			_exit(77);
		if (strcmp(sandbox, "cap") == 0 && drop_cap_kill() == -1)
			_exit(77);
		if (fake && fake_probes() == -1)
			_exit(2);
		long r = send(argv[1], victim, pfd);
		printf("%s(victim, SIGQUIT) = %ld (%s)\n", argv[1], r,
		    r == 0 ? "sent" : strerror(errno));
		_exit(0);
	}
	if (attacker == -1 || waitpid(attacker, &st, 0) == -1)
		return 2;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
		kill(victim, SIGKILL);
		return WEXITSTATUS(st);
	}
	usleep(300000);
	if (waitpid(victim, &st, WNOHANG) == victim)
		return WIFSIGNALED(st) && WTERMSIG(st) == SIGQUIT ? 0 : 2;
	kill(victim, SIGKILL);
	waitpid(victim, &st, 0);
	return 1;
}
