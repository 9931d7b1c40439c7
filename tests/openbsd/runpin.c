/* SPDX-License-Identifier: ISC */
/*
 * A dynamically linked program with its own OpenBSD pin table (the
 * PINSYSCALL entries of runpin_traps.S and of syspin_syscall0), run by
 * check_run.sh with and without `syspin run`.  Each mode exits 0 when what
 * it tried worked; an attack that works unpinned must be killed pinned.
 *
 *	listed		getpid from syspin_syscall0 and from its pinned trap
 *	libc		libc's getpid, write, sigprocmask: libc stays pinned
 *			by analysis next to the program's own table
 *	wrongnr		getuid from the trap pinned for getpid (case 3)
 *	unlisted	getpid from a trap the table does not list (case 2)
 *	signal		a SIGUSR1 handler runs and returns through libc's
 *			__restore_rt (cases 21a, 22)
 *	sigret-own	the handler issues rt_sigreturn from the program's
 *			getpid trap (case 21: sigreturn from elsewhere)
 *	tramp-other	exit_group(42) from __restore_rt's trap, found via
 *			sa_restorer (case 21: another number from the
 *			trampoline): exits 42 if it works
 *	dlopen SO	dlopen SO, call its raw getpid and its libc getpid
 *			(case 36); exits 3 if dlopen fails
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <syspin/pinsyscall.h>

long rp_getpid_at(long nr);
long rp_bare(long nr);
void rp_sigret_handler(int sig);
void rp_jump(void *target, long nr, long a0);

static volatile sig_atomic_t caught;

static void
on_usr1(int sig)
{
	(void)sig;
	caught++;
}

static int
install(void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGUSR1, &sa, NULL);
}

static int
listed(void)
{
	if (syspin_syscall0(SYS_getpid) != getpid())
		return 1;
	return rp_getpid_at(SYS_getpid) == getpid() ? 0 : 2;
}

static int
libc_calls(void)
{
	sigset_t set;

	sigemptyset(&set);
	if (getpid() <= 0 || write(1, "", 0) != 0 ||
	    sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return 1;
	return 0;
}

static int
signal_normal(void)
{
	if (install(on_usr1) != 0)
		return 100;
	if (raise(SIGUSR1) != 0 || raise(SIGUSR1) != 0)
		return 1;
	return caught == 2 ? 0 : 2;
}

/* The handler's own rt_sigreturn resumes here when it is allowed. */
static int
sigret_own(void)
{
	if (install(rp_sigret_handler) != 0)
		return 100;
	if (raise(SIGUSR1) != 0)
		return 1;
	return 0;
}

/*
 * glibc installs every handler with SA_RESTORER = __restore_rt, which is
 * "mov $15, %rax; syscall"; sigaction hands it back in sa_restorer.
 */
static int
tramp_other(void)
{
	struct sigaction old;
	const uint8_t *p;

	if (install(on_usr1) != 0 || sigaction(SIGUSR1, NULL, &old) != 0)
		return 100;
	p = (const uint8_t *)(uintptr_t)old.sa_restorer;
	if (p == NULL)
		return 101;
	for (int i = 0; i < 16; i++) {
		if (p[i] == 0x0f && p[i + 1] == 0x05) {
			rp_jump((void *)(p + i), SYS_exit_group, 42);
			return 102;	/* not reached */
		}
	}
	fprintf(stderr, "runpin: no syscall in the restorer at %p\n",
	    (const void *)p);
	return 103;
}

static int
dl(const char *path)
{
	long (*raw)(void), (*via_libc)(void);
	void *h;

	h = dlopen(path, RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "runpin: dlopen: %s\n", dlerror());
		return 3;
	}
	*(void **)&raw = dlsym(h, "dlraw_getpid");
	*(void **)&via_libc = dlsym(h, "dlraw_libc_getpid");
	if (raw == NULL || via_libc == NULL)
		return 100;
	if (via_libc() != getpid())
		return 1;
	return raw() == getpid() ? 0 : 2;
}

int
main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (strcmp(m, "listed") == 0)
		return listed();
	if (strcmp(m, "libc") == 0)
		return libc_calls();
	if (strcmp(m, "wrongnr") == 0)
		return rp_getpid_at(SYS_getuid) == getuid() ? 0 : 1;
	if (strcmp(m, "unlisted") == 0)
		return rp_bare(SYS_getpid) == getpid() ? 0 : 1;
	if (strcmp(m, "signal") == 0)
		return signal_normal();
	if (strcmp(m, "sigret-own") == 0)
		return sigret_own();
	if (strcmp(m, "tramp-other") == 0)
		return tramp_other();
	if (strcmp(m, "dlopen") == 0 && argc == 3)
		return dl(argv[2]);
	fprintf(stderr, "usage: runpin listed|libc|wrongnr|unlisted|signal|"
	    "sigret-own|tramp-other|dlopen SO\n");
	return 2;
}
