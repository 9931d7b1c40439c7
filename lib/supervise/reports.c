/* SPDX-License-Identifier: ISC */
/*
 * The reports kept while the supervisor waited for one thread (reports.h).
 * One supervisor, one tree, one queue: a process supervises one tree.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "reports.h"

struct report {
	pid_t pid;
	int st;
};

static struct report *kept;
static size_t nkept, head, cap;

void
sp_reports_keep(pid_t pid, int st)
{
	struct report *v;
	size_t n;

	if (nkept == cap) {
		n = cap != 0 ? 2 * cap : 16;
		if ((v = realloc(kept, n * sizeof(*v))) == NULL) {
			/* out of memory: one left stopped would stay so */
			if (WIFSTOPPED(st))
				kill(pid, SIGKILL);
			return;
		}
		kept = v;
		cap = n;
	}
	kept[nkept++] = (struct report){ pid, st };
}

bool
sp_reports_kept(pid_t pid)
{
	for (size_t i = head; i < nkept; i++)
		if (kept[i].pid == pid)
			return true;
	return false;
}

pid_t
sp_reports_next(int *st)
{
	pid_t pid;

	if (head == nkept) {
		free(kept);
		kept = NULL;
		nkept = head = cap = 0;
		return 0;
	}
	pid = kept[head].pid;
	*st = kept[head].st;
	if (++head == nkept)
		head = nkept = 0;
	return pid;
}

pid_t
sp_reports_poll(int *st)
{
	pid_t pid;

	while ((pid = waitpid(-1, st, __WALL | WNOHANG)) == -1 &&
	    errno == EINTR)
		;
	return pid;
}

pid_t
sp_reports_wait(pid_t tid, int *st)
{
	pid_t pid;

	for (;;) {
		if ((pid = waitpid(-1, st, __WALL)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (pid == tid)
			return pid;
		sp_reports_keep(pid, *st);
	}
}
