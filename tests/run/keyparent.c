/* SPDX-License-Identifier: ISC */
/*
 * A process of the tree gives its session keyring to its parent outside
 * the tree (KEYCTL_SESSION_TO_PARENT, blind round 21): an orphan of the
 * tree adopted by a subreaper outside, whose later keys (or a persistent
 * keyring linked there later) the tree then reads.
 *
 * usage: keyparent outer CMD... : a subreaper that runs CMD (for example
 *            `syspin run -- keyparent inner`) and says whether its
 *            session keyring was changed: exit 1 changed, 0 not, 2
 *            trouble
 *        keyparent inner : an orphan made to give its new session
 *            keyring to whoever adopted it
 */
#include <errno.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long
session_id(void)
{
	return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
	    KEY_SPEC_SESSION_KEYRING, 1);
}

static int
inner(void)
{
	pid_t p = fork(), parent;

	if (p == -1)
		return 2;
	if (p == 0) {
		parent = getppid();
		for (int i = 0; i < 200 && getppid() == parent; i++)
			usleep(10000);	/* until orphaned, adopted */
		if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING,
		    "syspin-test") == -1)
			_exit(2);
		long r = syscall(SYS_keyctl, KEYCTL_SESSION_TO_PARENT);
		printf("inner: session to parent %d: %ld (%s)\n", (int)getppid(),
		    r, r == 0 ? "done" : strerror(errno));
		_exit(0);
	}
	return 0;	/* the child is orphaned */
}

static int
outer(char **cmd)
{
	long before = session_id(), after;
	pid_t p;
	int st;

	if (before == -1 || prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		return 2;
	if ((p = fork()) == -1)
		return 2;
	if (p == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	/* the command, then the orphan it left */
	while (waitpid(-1, &st, 0) != -1 || errno == EINTR)
		;
	after = session_id();
	printf("outer: session keyring %lx before, %lx after\n", before,
	    after);
	return after != before;
}

int
main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "outer") == 0)
		return outer(argv + 2);
	if (argc == 2 && strcmp(argv[1], "inner") == 0)
		return inner();
	fprintf(stderr, "usage: keyparent outer CMD... | keyparent inner\n");
	return 2;
}
