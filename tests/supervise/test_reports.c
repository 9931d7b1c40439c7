/* SPDX-License-Identifier: ISC */
/*
 * sp_reports_wait: waiting for one thread's report never waits for ever.
 * A leader that has exited is reported only once its other threads have
 * been reaped; a thread whose stop's report a wait took already reports
 * nothing more.  Both come back at once (ESRCH) instead of holding the
 * supervisor and the whole tree (round 24b: a leader resumed from its exit
 * stop unseen, the supervisor waiting for it in a remade connect).  A
 * thread that does stop is waited for, however late, and what others
 * report meanwhile is kept, in order.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervise/reports.h"

static int go[2];

static void *
sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

enum { WAITS, LEADER_EXITS, STOPS_LATE };

/* The child, on the parent's word: waits to be killed; or makes a thread
 * and its leader exits alone (the thread sleeps on); or stops itself
 * 150 ms later. */
static pid_t
child(int what)
{
	struct timespec late = { 0, 150000000 };
	pthread_t t;
	pid_t pid;
	char c;

	assert_int_equal(pipe(go), 0);
	if ((pid = fork()) == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		if (what == STOPS_LATE) {
			nanosleep(&late, NULL);
			raise(SIGSTOP);
		}
		if (what != LEADER_EXITS)
			for (;;)
				pause();
		pthread_create(&t, NULL, sleeper, NULL);
		syscall(SYS_exit, 0);	/* this thread only */
	}
	assert_true(pid > 0);
	assert_int_equal(ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACECLONE |
	    PTRACE_O_TRACEEXIT), 0);
	assert_int_equal(write(go[1], "y", 1), 1);
	close(go[0]);
	close(go[1]);
	return pid;
}

static void
reap(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	while ((pid = waitpid(-1, &st, __WALL)) > 0)
		if (WIFSTOPPED(st))	/* its exit's stop */
			ptrace(PTRACE_CONT, pid, 0, 0);
	while (sp_reports_next(&st) > 0)
		;
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) /
	    1000000;
}

static void
test_exited_leader(void **state)
{
	struct timespec t0;
	pid_t pid, w, thread = 0;
	bool exited = false;
	int st;

	(void)state;
	pid = child(LEADER_EXITS);
	/* the clone, the thread's first stop, the leader's exit stop: each
	 * let go (the last one as the supervisor did, unseen by the wait
	 * below) */
	while (!exited && (w = waitpid(-1, &st, __WALL)) > 0) {
		assert_true(WIFSTOPPED(st));
		if (st >> 16 == PTRACE_EVENT_CLONE)
			ptrace(PTRACE_GETEVENTMSG, pid, 0, &thread);
		exited = w == pid && st >> 16 == PTRACE_EVENT_EXIT;
		ptrace(PTRACE_CONT, w, 0, 0);
	}
	assert_true(exited);
	assert_true(thread > 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	w = sp_reports_wait(pid, &st);
	assert_int_equal(w, -1);
	assert_int_equal(errno, ESRCH);
	assert_true(ms_since(&t0) < 2000);
	reap(pid);
}

static void
test_report_taken(void **state)
{
	struct timespec t0;
	pid_t pid;
	int st;

	(void)state;
	pid = child(WAITS);
	assert_int_equal(ptrace(PTRACE_INTERRUPT, pid, 0, 0), 0);
	assert_int_equal(waitpid(pid, &st, __WALL), pid);	/* taken */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	assert_int_equal(sp_reports_wait(pid, &st), -1);
	assert_int_equal(errno, ESRCH);
	assert_true(ms_since(&t0) < 2000);
	reap(pid);
}

/* One that stops late is waited for; another's report meanwhile kept. */
static void
test_late_stop(void **state)
{
	struct timespec soon = { 0, 20000000 };
	pid_t a, helper, w;
	int st, kst;

	(void)state;
	a = child(STOPS_LATE);
	if ((helper = fork()) == 0) {	/* ends first: its report kept */
		nanosleep(&soon, NULL);
		_exit(0);
	}
	assert_int_equal(sp_reports_wait(a, &st), a);
	assert_true(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);
	w = sp_reports_next(&kst);
	assert_int_equal(w, helper);
	assert_true(WIFEXITED(kst));
	assert_int_equal(sp_reports_next(&kst), 0);
	reap(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exited_leader),
		cmocka_unit_test(test_report_taken),
		cmocka_unit_test(test_late_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
