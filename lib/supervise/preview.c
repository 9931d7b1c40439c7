/* SPDX-License-Identifier: ISC */
/*
 * syspin filter -- PROG: what the supervisor pins PROG with, built on the
 * same path (sp_pin_process at the end of PROG's execve, where the layout
 * is the kernel's and the start-up objects' slots are planned), with
 * nothing injected; PROG is killed before its first instruction.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervise/supervise.h"

static int
stop(pid_t pid, int *st, struct sp_error *err)
{
	while (waitpid(pid, st, __WALL) == -1)
		if (errno != EINTR)
			return sp_error_set(err, "waitpid: %s", strerror(errno));
	if (WIFEXITED(*st))
		return sp_error_set(err, "the program did not start (exit "
		    "status %d)", WEXITSTATUS(*st));
	if (WIFSIGNALED(*st))
		return sp_error_set(err, "the program did not start (signal "
		    "%d)", WTERMSIG(*st));
	return 0;
}

int
sp_pin_preview(const char *path, char *const *argv,
    const struct sp_pin_opts *o, struct sp_pin_result *res, pid_t *pid,
    struct sp_error *err)
{
	int p[2], st, r = -1;
	char go = 0;
	pid_t c;

	if (pipe2(p, O_CLOEXEC) == -1)
		return sp_error_set(err, "pipe: %s", strerror(errno));
	if ((c = fork()) == -1)
		return sp_error_set(err, "fork: %s", strerror(errno));
	if (c == 0) {
		close(p[1]);
		if (read(p[0], &go, 1) != 1 || go != 'y')
			_exit(126);
		execv(path, argv);
		fprintf(stderr, "syspin: %s: %s\n", path, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(p[0]);
	*pid = c;
	if (ptrace(PTRACE_SEIZE, c, 0, PTRACE_O_TRACEEXEC |
	    PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD) == -1) {
		sp_error_set(err, "ptrace: %s", strerror(errno));
		goto out;
	}
	if (write(p[1], "y", 1) != 1) {
		sp_error_set(err, "cannot start the program");
		goto out;
	}
	/* the exec event, then the end of the execve */
	for (;;) {
		if (stop(c, &st, err) == -1)
			goto out;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
			break;
		ptrace(PTRACE_CONT, c, 0, 0);
	}
	ptrace(PTRACE_SYSCALL, c, 0, 0);
	if (stop(c, &st, err) == -1)
		goto out;
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != (SIGTRAP | 0x80)) {
		sp_error_set(err, "the program did not stop after its exec");
		goto out;
	}
	r = sp_pin_process(c, o, SP_PIN_FIRST | SP_PIN_DRY, -1, NULL, 0, res,
	    err);
out:
	close(p[1]);
	kill(c, SIGKILL);
	while (waitpid(c, &st, __WALL) == -1 && errno == EINTR)
		;
	return r;
}
