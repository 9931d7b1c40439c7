/* SPDX-License-Identifier: ISC */
/* Reachability fixtures: each function issues its own number (500-509),
 * so the numbers left after pruning say which functions are reachable. */
#ifndef FX_REACH_H
#define FX_REACH_H

#define SYS(n) __asm__ volatile("syscall" : : "a"(n) : "rcx", "r11", \
    "memory")

void lib_used(void);		/* 505: called through the PLT */
void lib_unused(void);		/* 506: exported, called by nobody */
void lib_named(void);		/* 507: dlsym("lib_named") */
void lib_typed(void);		/* 508: the PLT, its import retyped */

#endif
