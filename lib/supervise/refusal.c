/* SPDX-License-Identifier: ISC */
/*
 * A refused call in words: what it asked for, and why the rules refuse
 * it (verdict.c says it once per process, rule and call).
 */
#include <string.h>
#include <sys/mman.h>

#include "supervise_int.h"

/* What a refused call asked for, in words. */
const char *
sp_sup_refusal_what(const char *name, const struct seccomp_data *d,
    uint32_t data)
{
	uint32_t cmd = (uint32_t)d->args[1];

	if (data == SP_BPF_DENY_DATA && strstr(name, "ioctl"))
		return cmd == 0x5412 || cmd == 0x541c ?
		    " TIOCSTI/TIOCLINUX (typing into the terminal)" :
		    cmd == 0xaa00 ? " USERFAULTFD_IOC_NEW (a userfaultfd "
		    "holds the kernel's reading of a call's arguments)" :
		    (cmd & 0xffffff00) == 0x4b00 || (cmd & 0xffffff00) ==
		    0x5600 ? " changing the console (keyboard, display, "
		    "virtual terminals: nothing puts them back after the run)" :
		    " changing a terminal outside the tree (another login's, "
		    "the run's hung up, locked, made the console, or given "
		    "to a process group outside)";
	if (data == SP_BPF_DENY_DATA)
		return strcmp(name, "setpgid") == 0 ? " into a process group "
		    "outside the tree" : strstr(name, "seccomp") ?
		    " with a listener (SECCOMP_RET_USER_NOTIF)" :
		    strstr(name, "keyctl") ? ((uint32_t)d->args[0] == 18 ?
		    " KEYCTL_SESSION_TO_PARENT (a keyring given to a process "
		    "outside the tree)" : " KEYCTL_GET_PERSISTENT") :
		    strstr(name, "arch_prctl") ? " ARCH_MAP_VDSO" :
		    strstr(name, "bpf") ? " BPF_PROG_LOAD" :
		    strcmp(name, "clone") == 0 ? " with CLONE_UNTRACED (a "
		    "child the supervisor would not see)" :
		    strstr(name, "request_key") ? " with a callout (an "
		    "upcall runs a program outside the tree)" :
		    strstr(name, "perf") ? " (by a root process any: a "
		    "uprobe maps the kernel's code into it; else of every "
		    "task, a cgroup, or a process outside the tree)" :
		    strstr(name, "time") || strstr(name, "clock") ?
		    " (setting the clock)" : "";
	if (strstr(name, "exec"))
		return "";
	return strstr(name, "shmat") ? " with SHM_EXEC" :
	    strstr(name, "personality") ? " with READ_IMPLIES_EXEC or "
	    "MMAP_PAGE_ZERO" :
	    strstr(name, "mremap") ? " of pinned or late code" :
	    " with PROT_EXEC";
}

/* Memory a JIT compiler would make: anonymous or writable. */
static bool
jit_memory(const char *name, const struct seccomp_data *d)
{
	return strstr(name, "mprotect") != NULL || (strcmp(name, "mmap") == 0 &&
	    ((d->args[3] & MAP_ANONYMOUS) || (d->args[2] & PROT_WRITE)));
}

const char *
sp_sup_refusal_why(unsigned flags, const char *name,
    const struct seccomp_data *d, uint32_t data)
{
	if (data == SP_BPF_DENY_DATA && (strstr(name, "time") ||
	    strstr(name, "clock")))
		return "with --exec=trusted the tree may not move the clock "
		    "that dates what it may run";
	if (data == SP_BPF_DENY_DATA && (strstr(name, "userfaultfd") ||
	    (strstr(name, "ioctl") && (uint32_t)d->args[1] == 0xaa00)))
		return "the pinned tree may not hold the kernel's (or the "
		    "supervisor's) reading of its memory";
	if (data == SP_BPF_DENY_DATA)
		return "the pinned tree may not reach outside itself";
	if (strstr(name, "exec"))
		return flags & SP_BPF_STRICT ? "syspin run "
		    "--strict allows no exec" : "syspin run --exec=none";
	if (flags & SP_BPF_STRICT)	/* --allow-jit is not */
		return "syspin run --strict allows no new code";
	if (!(flags & SP_BPF_ALLOW_JIT) && jit_memory(name, d))
		return "the program makes executable memory at run time (a "
		    "JIT compiler?); syspin run --allow-jit allows it";
	/* --allow-jit allows none of these (blind round 16) */
	if (strstr(name, "personality") || strstr(name, "shmat") ||
	    strstr(name, "mremap"))
		return "new code may only go into the late-code band, where it "
		    "makes no system call";
	if (!(flags & SP_BPF_ALLOW_JIT))
		return "new code may only go into the late-code band, where it "
		    "makes no system call; for a JIT compiler (its code space "
		    "goes there), syspin run --allow-jit allows it";
	return "new code may only go into the late-code band, where it "
	    "makes no system call";
}
