/* SPDX-License-Identifier: ISC */
/*
 * The ptrace side of `syspin trace`: start the program stopped, seize it
 * with every follow option, and look at each system-call entry of every
 * thread of the tree.  PTRACE_GET_SYSCALL_INFO tells entry from exit stops
 * exactly and gives the number, the ABI and the instruction pointer (after
 * the trap) as seccomp will see them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "trace.h"

#define OPTIONS (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | \
    PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | \
    PTRACE_O_EXITKILL)

/* Calls after which some mapping may have changed (x86-64 numbers). */
static bool
changes_maps(long nr)
{
	switch (nr) {
	case 9:		/* mmap */
	case 10:	/* mprotect */
	case 11:	/* munmap */
	case 25:	/* mremap */
	case 30:	/* shmat */
	case 67:	/* shmdt */
	case 216:	/* remap_file_pages */
	case 329:	/* pkey_mprotect */
		return true;
	}
	return false;
}

/*
 * The child stops itself so that the tracer can seize it before the exec;
 * an exec that fails sends its errno back through a close-on-exec pipe.
 */
static void
child(const char *path, char **argv, int fd)
{
	int e;

	raise(SIGSTOP);
	execv(path, argv);
	e = errno;
	if (write(fd, &e, sizeof(e)) != sizeof(e))
		_exit(126);
	_exit(127);
}

static pid_t
start(const char *path, char **argv, int *errfd)
{
	int p[2], st;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		close(p[0]);
		child(path, argv, p[1]);
	}
	close(p[1]);
	*errfd = p[0];
	if (waitpid(pid, &st, WSTOPPED) == -1 || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SEIZE, pid, 0L, (long)OPTIONS) == -1) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	kill(pid, SIGCONT);
	return pid;
}

/* A system-call stop: check entries; after exits, note map changes. */
static void
on_syscall(struct trace *t, pid_t pid)
{
	struct __ptrace_syscall_info si;
	struct trace_task *task = trace_task_get(t, pid, true);

	if (task == NULL || ptrace(PTRACE_GET_SYSCALL_INFO, pid,
	    (void *)sizeof(si), &si) <= 0)
		return;
	if (si.op == PTRACE_SYSCALL_INFO_ENTRY) {
		bool i386 = si.arch != AUDIT_ARCH_X86_64;
		task->entry_nr = i386 ? -2 : (long)si.entry.nr;
		if (task->started)
			trace_check_call(t, task, (uint32_t)si.entry.nr, i386,
			    si.instruction_pointer);
	} else if (si.op == PTRACE_SYSCALL_INFO_EXIT) {
		/* i386 calls (-2) have numbers of their own: assume any. */
		if (task->entry_nr == -2 || changes_maps(task->entry_nr))
			t->gen++;
		task->entry_nr = -1;
	}
}

/* A new process or thread, or the program itself after its exec. */
static void
on_event(struct trace *t, pid_t pid, int event)
{
	struct trace_task *task;
	unsigned long msg = 0;

	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, pid, 0L, &msg) == -1 ||
		    (task = trace_task_get(t, (pid_t)msg, true)) == NULL)
			return;
		task->started = true;
		if (event == PTRACE_EVENT_CLONE)
			t->threads++;
		else
			t->processes++;
		return;
	case PTRACE_EVENT_EXEC:
		/* A thread that execs takes the leader's id: forget its old
		 * one.  The new image needs new maps everywhere. */
		if (ptrace(PTRACE_GETEVENTMSG, pid, 0L, &msg) == 0 &&
		    (pid_t)msg != pid)
			trace_task_drop(t, (pid_t)msg);
		if ((task = trace_task_get(t, pid, true)) != NULL)
			task->started = true;
		t->gen++;
		return;
	}
}

/* Restarts a stopped tracee; a signal-delivery-stop passes its signal. */
static void
on_stop(struct trace *t, pid_t pid, int st)
{
	int sig = WSTOPSIG(st), event = (unsigned)st >> 16;

	if (sig == (SIGTRAP | 0x80)) {
		on_syscall(t, pid);
		sig = 0;
	} else if (event == PTRACE_EVENT_STOP) {
		/* Group-stop (with PTRACE_SEIZE): stay stopped, listening. */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU) {
			ptrace(PTRACE_LISTEN, pid, 0L, 0L);
			return;
		}
		sig = 0;
	} else if (event != 0) {
		on_event(t, pid, event);
		sig = 0;
	}
	ptrace(PTRACE_SYSCALL, pid, 0L, (long)sig);
}

static void
loop(struct trace *t)
{
	pid_t pid;
	int st;

	for (;;) {
		pid = waitpid(-1, &st, __WALL);
		if (pid == -1) {
			if (errno == EINTR)
				continue;
			break;	/* ECHILD: the whole tree is gone */
		}
		if (WIFSTOPPED(st)) {
			on_stop(t, pid, st);
			continue;
		}
		trace_task_drop(t, pid);
		if (pid == t->child && !t->have_status) {
			t->status = st;
			t->have_status = true;
		}
	}
}

int
trace_run(struct trace *t, const char *path, char **argv)
{
	struct trace_task *task;
	int errfd = -1, e = 0;
	ssize_t n;

	if ((t->child = start(path, argv, &errfd)) == -1) {
		cli_error("trace: cannot start %s: %s", path,
		    strerror(errno));
		if (errfd != -1)
			close(errfd);
		return -1;
	}
	t->processes = 1;
	t->threads = 0;
	if ((task = trace_task_get(t, t->child, true)) == NULL) {
		cli_error("trace: out of memory");
		kill(t->child, SIGKILL);
	} else {
		task->started = false;	/* syspin's own calls until the exec */
	}
	loop(t);
	n = read(errfd, &e, sizeof(e));
	close(errfd);
	if (n == sizeof(e)) {
		cli_error("%s: %s", path, strerror(e));
		return -1;
	}
	return 0;
}
