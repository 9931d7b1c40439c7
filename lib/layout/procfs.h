/* SPDX-License-Identifier: ISC */
/*
 * What /proc says about a process: its mappings (/proc/PID/maps) and the
 * numeric fields of /proc/PID/status.  Lean (the runtime links it).
 */
#ifndef SYSPIN_LAYOUT_PROCFS_H
#define SYSPIN_LAYOUT_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

/* ---- /proc/PID/maps ---- */

enum sp_map_kind {
	SP_MAP_FILE,		/* backed by a path */
	SP_MAP_ANON,		/* no name */
	SP_MAP_VDSO,		/* [vdso] */
	SP_MAP_VSYSCALL,	/* [vsyscall] */
	SP_MAP_SPECIAL,		/* [stack], [heap], [vvar], [anon:...] */
};

struct sp_map {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t dev;		/* makedev(major, minor) */
	uint64_t inode;
	unsigned prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	bool shared;
	bool deleted;		/* " (deleted)" was stripped from path */
	enum sp_map_kind kind;
	char *path;		/* malloc'ed; "" when anonymous */
};

/*
 * Parses one line (without its newline).  The path is everything after the
 * inode and its padding, spaces included.  The kernel escapes only '\n' in
 * names (as "\012"), so a path is used to find a file, never trusted: the
 * caller checks that (dev, inode) match what stat() finds there.
 */
int sp_maps_parse_line(const char *line, size_t len, struct sp_map *m,
    struct sp_error *err);

/* Parses a whole maps text.  Returns 0 and *maps / *nmaps, or -1. */
int sp_maps_parse(const char *text, size_t len, struct sp_map **maps,
    size_t *nmaps, struct sp_error *err);

/* Reads and parses a maps file ("/proc/self/maps"). */
int sp_maps_read(const char *file, struct sp_map **maps, size_t *nmaps,
    struct sp_error *err);

void sp_maps_free(struct sp_map *maps, size_t nmaps);

/* A numeric field ("Tgid", "CapEff", ...) of /proc/PID/status, in base;
 * -1 when unknown. */
int sp_proc_status(pid_t pid, const char *field, int base,
    unsigned long long *value);
/* Several fields of one read of the status, in order: how many were
 * found before the first missing one, -1 when it cannot be read. */
int sp_proc_status_fields(pid_t pid, const char *const *fields, size_t n,
    int base, unsigned long long *values);
/* The fields of /proc/PID/status the supervisor looks at, in one read
 * (unknown: every capability, -1). */
struct sp_proc_state {
	unsigned long long cap_prm, cap_eff;
	long filters;		/* Seccomp_filters */
	int no_new_privs;
};
int sp_proc_state(pid_t pid, struct sp_proc_state *st);
/* Of /proc/PID/stat, read after the name's last ')' (a name is any
 * bytes): the state letter, process group, session, controlling
 * terminal (tty_nr) and flags (PF_EXITING 0x4).  -1 when pid is gone. */
struct sp_proc_stat {
	char state;
	int pgrp, session;
	unsigned long long tty_nr;
	unsigned long flags;
	int exit_signal;	/* what its parent gets when it ends; -1 */
};
int sp_proc_stat(pid_t pid, struct sp_proc_stat *st);
/* Seccomp_filters of a process, from /proc/PID/status; -1 unknown. */
long sp_filters_pid(pid_t pid);

#endif
