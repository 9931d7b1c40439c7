/* SPDX-License-Identifier: ISC */
/* Loaded late by late_main.c: calls getsid, nothing else of note (not
 * getppid: a jump there stays a violation). */
#include <unistd.h>

long late_entry(void);

long
late_entry(void)
{
	return (long)getsid(0);
}
