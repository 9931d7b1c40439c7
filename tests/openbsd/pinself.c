/* SPDX-License-Identifier: ISC */
/*
 * A static program without libc (-nostdlib -static, its own _start) that
 * pins its own text with sp_pinsyscalls_raw(), compiled in from
 * lib/pins/pinsyscalls_core.c.  Its system calls are the PINSYSCALL stubs
 * of pinself_traps.S plus the ones inside pinsyscalls itself.
 *
 *	pinself seq CASE...	calls pinsyscalls once per CASE (pincases.h)
 *				and prints "CASE=errno ..." (0 = success)
 *	pinself pinned		pins, then uses its pinned calls: exit 0
 *	pinself othersite	pins, then getpid from an unpinned trap: SIGSYS
 *	pinself wrongnr		pins, then getpid at the write site: SIGSYS
 *	pinself big		pins, then #300 (>= npins) at the write site
 *	pinself enosys		pins, then #600 (>= SYS_MAXSYSCALL): ENOSYS
 *	pinself fork		pins, forks; the child tries the unpinned trap;
 *				exits 0 iff the child died of SIGSYS
 *	pinself exec PROG ARG..	pins, then execs PROG (outside the region)
 *	pinself sealed		pins, then munmap of its own text must fail
 *				with EPERM (sealed, case 37): exit 0
 */
#include <stddef.h>
#include <stdint.h>

#include <syspin/pinsyscalls.h>

#include "pincases.h"

#define NPINS 232		/* exit_group + 1 */
#define SIGSYS_ 31

extern char __executable_start[], etext[];
extern char pt_write_trap[], pt_getpid_trap[], pt_execve_trap[],
    pt_wait4_trap[], pt_fork_trap[], pt_exit_trap[], pt_munmap_trap[];

long pt_write(long nr, long fd, const void *buf, long n);
long pt_getpid(void);
long pt_getpid_unpinned(void);
long pt_execve(const char *path, char *const *argv, char *const *envp);
long pt_fork(void);
long pt_wait4(long pid, int *status, long options, void *rusage);
long pt_munmap(void *addr, long len);
__attribute__((noreturn)) void pt_exit(long code);

int pinself_main(long *sp);

__asm__(
	".text\n"
	".globl _start\n"
	"_start:\n\t"
	"xorl %ebp, %ebp\n\t"
	"movq %rsp, %rdi\n\t"
	"andq $-16, %rsp\n\t"
	"call pinself_main\n\t"
	"movl %eax, %edi\n\t"
	"call pt_exit\n\t"
	"hlt\n");

static unsigned int pins[NPINS];

static size_t
len(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

static void
put(const char *s)
{
	pt_write(1, 1, s, (long)len(s));
}

static void
putnum(long v)
{
	char buf[24], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	put(p);
}

static long
pin_self(void)
{
	uintptr_t base = (uintptr_t)__executable_start;
	long r;

	pins[1] = (unsigned int)((uintptr_t)pt_write_trap - base);
	pins[39] = (unsigned int)((uintptr_t)pt_getpid_trap - base);
	pins[57] = (unsigned int)((uintptr_t)pt_fork_trap - base);
	pins[59] = (unsigned int)((uintptr_t)pt_execve_trap - base);
	pins[61] = (unsigned int)((uintptr_t)pt_wait4_trap - base);
	pins[231] = (unsigned int)((uintptr_t)pt_exit_trap - base);
	pins[11] = (unsigned int)((uintptr_t)pt_munmap_trap - base);
	r = sp_pinsyscalls_raw(__executable_start,
	    (size_t)(etext - __executable_start), pins, NPINS);
	if (r != 0) {
		put("pinself: pinsyscalls failed: ");
		putnum(-r);
		put("\n");
		pt_exit(3);
	}
	return r;
}

static int
seq(int argc, char **argv)
{
	struct pc_call c;

	for (int i = 2; i < argc; i++) {
		if (pc_make(argv[i], &c) != 0) {
			put("pinself: unknown case\n");
			return 2;
		}
		put(argv[i]);
		put("=");
		putnum(-sp_pinsyscalls_raw(c.start, c.len, c.table,
		    c.npins));
		put(i + 1 < argc ? " " : "\n");
	}
	return 0;
}

static int
forked(void)
{
	int status = 0;
	long pid;

	pin_self();
	pid = pt_fork();
	if (pid == 0) {
		pt_getpid_unpinned();
		pt_exit(0);		/* the filter did not follow */
	}
	if (pid < 0 || pt_wait4(pid, &status, 0, NULL) != pid)
		return 4;
	return (status & 0x7f) == SIGSYS_ ? 0 : 1;
}

int
pinself_main(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
	const char *m = argc > 1 ? argv[1] : "";

	if (pc_streq(m, "seq"))
		return seq(argc, argv);
	if (pc_streq(m, "fork"))
		return forked();
	if (argc < 2 || (pc_streq(m, "exec") && argc < 3))
		return 2;
	pin_self();
	if (pc_streq(m, "pinned")) {
		put("pinned ok\n");
		return pt_getpid() > 0 ? 0 : 1;
	} else if (pc_streq(m, "othersite"))
		pt_getpid_unpinned();
	else if (pc_streq(m, "wrongnr"))
		pt_write(39, 0, NULL, 0);
	else if (pc_streq(m, "big"))
		pt_write(300, 0, NULL, 0);
	else if (pc_streq(m, "enosys"))
		return pt_write(600, 0, NULL, 0) == -38 ? 0 : 1;
	else if (pc_streq(m, "sealed"))
		return pt_munmap((void *)((uintptr_t)pt_munmap & ~0xfffull),
		    4096) == -1 ? 0 : 1;	/* -EPERM */
	else if (pc_streq(m, "exec"))
		pt_execve(argv[2], argv + 2, envp);
	else
		return 2;
	put("pinself: survived\n");
	return 1;
}
