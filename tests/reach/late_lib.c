/* SPDX-License-Identifier: ISC */
/* Loaded late by late_main.c: calls what its loader never does. */
#include <unistd.h>

long late_entry(void);

long
late_entry(void)
{
	return (long)getppid();
}
