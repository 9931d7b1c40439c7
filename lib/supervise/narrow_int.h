/* SPDX-License-Identifier: ISC */
/* narrow.c internals: systemd's groups (groups.c). */
#ifndef SYSPIN_NARROW_INT_H
#define SYSPIN_NARROW_INT_H

struct sp_group {
	const char *name;	/* "@mount" */
	const char *help;
	const char *members;	/* names and groups, space-separated */
};

/* Ends with { NULL, NULL, NULL }. */
extern const struct sp_group sp_groups[];

#endif
