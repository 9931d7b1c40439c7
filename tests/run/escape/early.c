/* SPDX-License-Identifier: ISC */
/*
 * libescape_early.so, a start-up object of escape_early (blind round 4):
 * its constructor runs before the program's entry point, as a chain in
 * start-up code would.  ESC_EARLY=skip: it never returns, and enters the
 * program's _start past its first instruction, so that whatever stops
 * the entry point is never met.  ESC_EARLY=vmclone: it makes a process
 * that shares the memory (CLONE_VM, not a thread), which runs on after
 * the entry point.  Either way the program then jumps to ld.so's exec
 * site.
 */
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>

#include "ldso_trap.h"

extern void *__libc_stack_end;
const char *esc_early_mark;	/* set by main (early_main.c) */

/* ld.so's exec site with rax = 59: /bin/mkdir MARK.  3 when refused. */
int
esc_ldso_mkdir(void)
{
	const uint8_t *trap = ldso_execve_trap();
	char *av[] = { "mkdir", (char *)esc_early_mark, NULL };
	char *ev[] = { NULL };
	long r;

	if (trap == NULL || esc_early_mark == NULL) {
		printf("no execve site in ld.so here\n");
		return 77;
	}
	__asm__ volatile("call *%[t]" : "=a"(r) : "a"(59L),
	    "D"("/bin/mkdir"), "S"(av), "d"(ev), [t] "r"(trap)
	    : "rcx", "r11", "memory");
	printf("execve through ld.so: %s\n", strerror((int)-r));
	return 3;
}

/* The process sharing the memory: main has started when it wakes. */
static int
child(void *arg)
{
	struct timespec ts = { 0, 500 * 1000 * 1000 };

	(void)arg;
	nanosleep(&ts, NULL);
	return esc_ldso_mkdir();
}

__attribute__((constructor)) static void
early(void)
{
	const char *how = getenv("ESC_EARLY");
	const uint8_t *entry = (const uint8_t *)getauxval(AT_ENTRY);
	char *stack;

	if (how == NULL)
		return;
	if (strcmp(how, "skip") == 0) {
		/* past `endbr64` or `xor %ebp,%ebp` (its first byte may be a
		 * breakpoint's 0xcc now) */
		entry += memcmp(entry + 1, "\x0f\x1e\xfa", 3) == 0 ? 4 : 2;
		__asm__ volatile("mov %0, %%rsp; xor %%edx, %%edx; jmp *%1"
		    : : "r"(__libc_stack_end), "r"(entry));
	}
	if (strcmp(how, "vmclone") == 0 && (stack = mmap(NULL, 1 << 18,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) !=
	    MAP_FAILED)
		clone(child, stack + (1 << 18), CLONE_VM | SIGCHLD,
		    NULL);
}
