/* SPDX-License-Identifier: ISC */
/* libescape_sys.so (attack env-dlopen): never loaded; named in
 * SYSPIN_DLOPEN it makes the runtime allow mkdir (83) at libc's syscall()
 * export, since this object imports syscall() and passes 83 to it. */
#include <sys/syscall.h>
#include <unistd.h>

long esc_sys_mkdir(const char *path);

long
esc_sys_mkdir(const char *path)
{
	return syscall(83, path, 0755);
}
