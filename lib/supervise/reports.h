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
 * wait for (ECHILD), or when tid can report nothing (ESRCH: gone, a
 * leader that has exited, in a stop whose report a wait took already):
 * twice in a row, 10 ms apart, while nothing of tid's came. */
pid_t sp_reports_wait(pid_t tid, int *st);
/*
 * The same, for a thread the caller is making run one step or one call
 * of its own (inject.c, connect.c): a report of another kind of event
 * (an exec, a fork, an exit) means the thread is not the one the caller
 * was acting on any more (another thread's exec gave its pid to the new
 * image): that report is kept for the loop, and -1 with errno ESTALE.
 */
pid_t sp_reports_wait_step(pid_t tid, int *st);
/*
 * Whether the report st of pid tells of the stop pid is in now (its
 * siginfo: ptrace's own stops carry the event, a signal its number).
 * False when pid is in another stop, or in none: a report kept while the
 * supervisor waited for another thread may be stale by the time it is
 * handled (another thread's exec killed the thread that stopped, and the
 * new image took its pid and stopped at its exec), and acting on it would
 * resume the new image unpinned.
 */
bool sp_reports_current(pid_t pid, int st);
/* Whether pid is stopped at an exec (PTRACE_EVENT_EXEC) now. */
bool sp_reports_at_exec(pid_t pid);
/*
 * Whether pid is in a seccomp stop now: the stop whose call is being
 * judged, before a request that resumes it into that call.  Not "not at
 * its exit": a thread woken from our stop by SIGKILL may reach its exit's
 * stop between that look and the request, which would then let its exit
 * stop go unseen.  (It may still, in the instant between this look and
 * the request: sp_reports_wait does not wait for ever on it.)
 */
bool sp_reports_at_seccomp(pid_t pid);
/* Whether pid is in its exit's stop (PTRACE_O_TRACEEXIT): killed, by
 * another thread's exec or its process's end, while a stop of it was
 * handled; the call judged will not run, nor anything of it. */
bool sp_reports_at_exit(pid_t pid);
/* Takes one report without waiting: its pid, 0 when none has come. */
pid_t sp_reports_poll(int *st);
/* Keeps every report that has come, in the order they are taken. */
void sp_reports_drain(void);
/* Keeps a report for the loop. */
void sp_reports_keep(pid_t pid, int st);
/* Whether a report of pid's is kept (it is stopped, or gone). */
bool sp_reports_kept(pid_t pid);
/* The oldest report kept: its pid, 0 when none. */
pid_t sp_reports_next(int *st);

#endif
