/* SPDX-License-Identifier: ISC */
/*
 * One of many objects dlopen'ed one after another (late_many.sh): its
 * constructor calls getppid, which the program itself never does, so
 * each load stops at a site reachable-only pinning dropped and the
 * supervisor judges it with what the late objects import.
 */
#include <unistd.h>

__attribute__((constructor)) static void
loaded(void)
{
	(void)getppid();
}
