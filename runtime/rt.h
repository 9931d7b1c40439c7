/* SPDX-License-Identifier: ISC */
/* libsyspin-rt.so internals. */
#ifndef SYSPIN_RT_H
#define SYSPIN_RT_H

#include <stdbool.h>

/* Reserves the band's arena and installs the SIGSYS handler that places
 * new code there (rt_place.c; with no_new_code, refuses it).  Before the
 * filter. */
bool rt_place_init(bool no_new_code);

#endif
