/* SPDX-License-Identifier: ISC */
/*
 * libescape_rescue.so (attacks rescue-*): an ordinary library, dlopen'ed
 * after start-up, that passes constant numbers to libc's syscall(): 9
 * (mmap) and 250 (keyctl).  Its own table says so, so the supervisor
 * lets those numbers through syscall()'s export site when the call
 * returns here (lib/supervise/later.c): the attack asks for what the
 * image's argument rules forbid (an RWX mapping outside the band,
 * KEYCTL_GET_PERSISTENT).  Stopped: refused by those rules.
 */
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

void *esc_rescue_mmap(void *addr, size_t len, long prot, long flags);
long esc_rescue_keyctl(long cmd, long a2, long a3);

/* Calls, not tail jumps: syscall() must return here, into this object
 * (the barrier keeps the compiler from a sibling call). */
void *
esc_rescue_mmap(void *addr, size_t len, long prot, long flags)
{
	long r = syscall(9, addr, len, prot, flags, -1L, 0L);

	__asm__ volatile("" ::: "memory");
	return (void *)r;
}

long
esc_rescue_keyctl(long cmd, long a2, long a3)
{
	long r = syscall(250, cmd, a2, a3);

	__asm__ volatile("" ::: "memory");
	return r;
}
