/* SPDX-License-Identifier: ISC */
/*
 * A program built static (glibc -static, -static-pie, musl) for the static
 * and process-tree tests: `sattack MODE`.
 *   ok       prints "ok", its seccomp state (Seccomp, Seccomp_filters) and
 *            no_new_privs from /proc/self/status, exits 0
 *   attack   issues getppid (110) from its own getpid site (pinned for 39
 *            only), as a ROP chain would: killed when pinned; unpinned it
 *            prints "survived" and exits 0
 *   attack2  three violations: (110, getpid site), (110, gettid site),
 *            (102, getpid site): audit reports three lines
 *   loop     the attack 1000 times (audit: reported once)
 *   int80    a 32-bit getpid by int 0x80: always refused when pinned
 *   mkdir SECONDS PATH
 *            sleeps, then mkdir(PATH) from the getpid site: killed before
 *            the directory exists when pinned
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__asm__(
    ".text\n"
    ".globl sa_raw_getpid\n"
    ".type sa_raw_getpid,@function\n"
    "sa_raw_getpid:\n"
    "	mov $39, %eax\n"
    "	syscall\n"
    "	ret\n"
    ".size sa_raw_getpid, .-sa_raw_getpid\n"
    ".globl sa_raw_gettid\n"
    ".type sa_raw_gettid,@function\n"
    "sa_raw_gettid:\n"
    "	mov $186, %eax\n"
    "	syscall\n"
    "	ret\n"
    ".size sa_raw_gettid, .-sa_raw_gettid\n");

long sa_raw_getpid(void);
long sa_raw_gettid(void);

/* Calls the trap at fn + 5 (past the mov) with rax = nr. */
static long
jump(long (*fn)(void), long nr)
{
	const char *at = (const char *)fn + 5;
	long ret;

	__asm__ volatile("call *%2"
	    : "=a"(ret) : "a"(nr), "r"(at)
	    : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
	return ret;
}

static long
jump2(long (*fn)(void), long nr, long a0, long a1)
{
	const char *at = (const char *)fn + 5;
	long ret;

	__asm__ volatile("call *%2"
	    : "=a"(ret) : "a"(nr), "r"(at), "D"(a0), "S"(a1)
	    : "rcx", "rdx", "r8", "r9", "r10", "r11", "memory");
	return ret;
}

static void
status(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Seccomp", 7) == 0 ||
		    strncmp(line, "NoNewPrivs", 10) == 0)
			fputs(line, stdout);
	fclose(f);
}

int
main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "ok";
	long r = 0;
	int i;

	if (sa_raw_getpid() != getpid() || sa_raw_gettid() != getpid())
		return 1;
	if (strcmp(m, "ok") == 0) {
		printf("ok\n");
		status();
		return 0;
	}
	/* A non-PIE image exec'ing another: the same addresses again. */
	if (strcmp(m, "exec") == 0 && argc > 2) {
		execv(argv[2], argv + 2);
		return 127;
	}
	if (strcmp(m, "attack") == 0)
		r = jump(sa_raw_getpid, 110);
	else if (strcmp(m, "attack2") == 0)
		r = jump(sa_raw_getpid, 110) + jump(sa_raw_gettid, 110) +
		    jump(sa_raw_getpid, 102);
	else if (strcmp(m, "loop") == 0)
		for (i = 0; i < 1000; i++)
			r = jump(sa_raw_getpid, 110);
	else if (strcmp(m, "mkdir") == 0 && argc == 4) {
		sleep(atoi(argv[2]));
		r = jump2(sa_raw_getpid, 83, (long)argv[3], 0700);
	} else if (strcmp(m, "int80") == 0)
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20) : "memory");
	else
		return 2;
	printf("survived (%ld)\n", r);
	return 0;
}
