/* SPDX-License-Identifier: ISC */
/*
 * Terminal and console ioctls the rules of every call name (policy.c,
 * everywhere.c).
 */
#ifndef SYSPIN_BPF_TTY_IOCTLS_H
#define SYSPIN_BPF_TTY_IOCTLS_H

#include <stdint.h>

#define TIOCSTI_	0x5412u
#define TIOCLINUX_	0x541cu
#define TIOCSLCKTRMIOS_	0x5457u
#define TIOCCONS_	0x541du
#define TIOCEXCL_	0x540cu
#define TIOCVHANGUP_	0x5437u
#define TIOCSETD_	0x5423u
#define TIOCSCTTY_	0x540eu
#define USERFAULTFD_IOC_NEW_ 0xaa00u	/* /dev/userfaultfd's userfaultfd(2) */
/*
 * The console's ioctls ('K' keyboard and display, 'V' virtual terminals:
 * plain numbers, no size bits, unlike V4L2's 'V'): the kernel allows
 * them on the caller's controlling terminal without CAP_SYS_TTY_CONFIG,
 * and nothing restores them after the run (a keyboard turned off, a
 * console left in graphics mode, VT switches held).  Only these queries
 * (blind round 16).
 */
static const uint32_t console_queries_[] = {
	0x4b33, 0x4b3b, 0x4b44, 0x4b31,	/* KDGKBTYPE, KDGETMODE, KDGKBMODE, KDGETLED */
	0x4b64, 0x4b62, 0x4b46, 0x4b48,	/* KDGKBLED, KDGKBMETA, KDGKBENT, KDGKBSENT */
	0x4b4a, 0x4bfa, 0x4b60, 0x4b6b,	/* KDGKBDIACR(UC), GIO_FONT(X) */
	0x4b70, 0x4b40, 0x4b69, 0x4b66,	/* GIO_CMAP, GIO_(UNI)SCRNMAP, GIO_UNIMAP */
	0x4b4c, 0x5600, 0x5601, 0x5603,	/* KDGETKEYCODE, VT_OPENQRY, VT_GETMODE, VT_GETSTATE */
	0x560d,				/* VT_GETHIFONTMASK */
};
#define CONSOLE_MASK_	0xffffff00u
#define CONSOLE_KD_	0x4b00u
#define CONSOLE_VT_	0x5600u
#define TTY_TYPE_MASK_	0xff00u
#define TTY_TYPE_	0x5400u		/* _IOC_TYPE 'T' */
#define N_CONSOLE_QUERIES (sizeof(console_queries_) / sizeof(*console_queries_))

#endif
