/* SPDX-License-Identifier: ISC */
/*
 * What waitpid reports of the tree, when the supervisor waits for one
 * thread in particular: the others' reports are kept, in order, for the
 * loop (tree.c), which handles them before it waits again.  Waiting with
 * waitpid(tid) alone could wait for ever: a thread-group leader that has
 * ended is reported only once its other threads have been reaped, and
 * their reports come only to a wait that takes them.
 */
#ifndef SYSPIN_SUPERVISE_REPORTS_H
#define SYSPIN_SUPERVISE_REPORTS_H

#include <stdbool.h>
#include <sys/types.h>

/* Waits for tid's report (__WALL); -1 with errno when there is none to
 * wait for (ECHILD). */
pid_t sp_reports_wait(pid_t tid, int *st);
/* Takes one report without waiting: its pid, 0 when none has come. */
pid_t sp_reports_poll(int *st);
/* Keeps a report for the loop. */
void sp_reports_keep(pid_t pid, int st);
/* Whether a report of pid's is kept (it is stopped, or gone). */
bool sp_reports_kept(pid_t pid);
/* The oldest report kept: its pid, 0 when none. */
pid_t sp_reports_next(int *st);

#endif
