/* SPDX-License-Identifier: ISC */
/* libescape_sys.so (attack env-dlopen): never loaded; named in
 * SYSPIN_DLOPEN it makes the runtime allow mkdir (83) at libc's syscall()
 * export, since this object imports syscall() and passes 83 to it.
 * Attacks later-written (a copy of it, dlopen'ed) and later-newline (a
 * link to it, found by a confused path) use its table too. */
#include <sys/syscall.h>
#include <unistd.h>

long esc_sys_mkdir(const char *path);

/* A call, not a tail jump: syscall() returns into this object (attack
 * later-written dlopens a copy and relies on that). */
long
esc_sys_mkdir(const char *path)
{
	long r = syscall(83, path, 0755);

	__asm__ volatile("" ::: "memory");
	return r;
}
