/* SPDX-License-Identifier: ISC */
/*
 * escape_victim INFO MARK: a process outside the pinned tree (battery.sh
 * starts it), the target of the ptrace/mem/process_vm/pidfd attacks.  It
 * holds a file open, writes "PID FLAG-ADDRESS FD" to INFO, then polls
 * `flag`: when someone else sets it to 1 it creates MARK.  It exits after
 * 60 s in any case.  A signal that would dump its core (SIGQUIT: blocked,
 * not caught, seen pending; SIGSEGV: caught, as a crash handler that
 * re-raises it does) sets the flag too, and so does a soft
 * RLIMIT_NOFILE of 777 set by someone else (prlimit: the core and CPU
 * limits are a way to its memory).
 *
 * escape_victim INFO MARK group: the same in a process group of its own,
 * whose leader (named in INFO) catches SIGQUIT, as `syspin run` does at
 * the head of a shell's job: a signal to the group reaches the victim.
 */
#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile int flag;

static void
on_quit(int sig)
{
	(void)sig;
}

/* A crash handler (as Python's faulthandler): it would re-raise. */
static void
on_segv(int sig)
{
	(void)sig;
	flag = 1;
}

int
main(int argc, char **argv)
{
	char tmp[4096], held[4096];
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	FILE *f;
	int fd;

	bool group = argc == 4;
	pid_t member = 0;
	int st;

	if (argc != 3 && argc != 4)
		return 2;
	if (group && setpgid(0, 0) == -1)
		return 1;
	snprintf(held, sizeof(held), "%s.held", argv[1]);
	if ((fd = open(held, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1)
		return 1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	if ((f = fopen(tmp, "w")) == NULL)
		return 1;
	fprintf(f, "%d %lx %d\n", (int)getpid(), (unsigned long)&flag, fd);
	if (fclose(f) != 0)
		return 1;
	if (group && (member = fork()) > 0) {	/* the leader */
		signal(SIGQUIT, on_quit);
		if (rename(tmp, argv[1]) == -1)
			return 1;
		while (waitpid(member, &st, 0) == -1)
			;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	if (member == -1 || (!group && rename(tmp, argv[1]) == -1))
		return 1;
	sigset_t quit, pending;

	/* its default action (a shell's background job ignores it) */
	signal(SIGQUIT, SIG_DFL);
	signal(SIGSEGV, on_segv);
	sigemptyset(&quit);
	sigaddset(&quit, SIGQUIT);
	sigprocmask(SIG_BLOCK, &quit, NULL);
	for (int i = 0; i < 6000; i++) {
		struct rlimit rl;
		if ((getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur == 777) ||
		    (sigpending(&pending) == 0 &&
		    sigismember(&pending, SIGQUIT)))
			flag = 1;
		if (flag == 1)
			return mkdir(argv[2], 0755) == 0 ? 0 : 1;
		nanosleep(&ts, NULL);
	}
	return 1;
}
