/* SPDX-License-Identifier: ISC */
/*
 * Exec and entry events: every new image is pinned at its entry point.
 *
 * At the exec stop the new image is mapped but the tracee is still inside
 * execve (the kernel has yet to write its return value), so nothing can be
 * injected there.  We plant a breakpoint at AT_ENTRY instead: a static
 * image reaches it at once, a dynamic one after ld.so mapped its objects
 * and ran their constructors.  At the breakpoint, if the filter count grew
 * since the exec and the runtime left a fresh report, the preloaded runtime
 * pinned the image; otherwise (static, LD_PRELOAD gone from the
 * environment, secure mode, the runtime failed or found no room for its
 * filter) we pin it from outside (pin.c; when its filter does not fit,
 * a smaller one and the supervisor's checks: fallback.c).
 * A process we cannot pin is killed: it never runs its own code unpinned.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include "supervise_int.h"

void
sup_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	FILE *f;

	snprintf(buf, size, "?");
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return;
	if (fgets(buf, size, f) != NULL && (n = strcspn(buf, "\n")) >= 0)
		buf[n] = '\0';
	fclose(f);
}

static int
refuse(pid_t pid, const char *why)
{
	char comm[64];

	sup_comm(pid, comm, sizeof(comm));
	fprintf(stderr, "syspin: %s[%ld]: cannot pin: %s\n", comm, (long)pid,
	    why);
	kill(pid, SIGKILL);
	return -1;
}

static void
report_path(const struct sup *s, pid_t pid, char *buf, size_t size)
{
	sp_report_path(s->o->pin.reportdir ? s->o->pin.reportdir :
	    "/nonexistent", (long)pid, buf, size);
}

int
sup_on_exec(struct sup *s, pid_t pid)
{
	struct proc *p = sup_proc(s, pid, true);
	struct sp_error err;
	char path[4200];
	uint8_t cc = 0xcc;
	bool secure;

	if (p == NULL)
		return refuse(pid, "out of memory");
	p->inherited = true;
	/* The report of the image before this one must not vouch for it. */
	report_path(s, pid, path, sizeof(path));
	unlink(path);
	p->bp = 0;
	sup_unpinned(p);
	p->filters0 = sp_filters_pid(pid);
	if (sp_auxv_pid(pid, &p->bp, &secure, &err) == -1 ||
	    sp_mem_read(pid, p->bp, &p->bp_byte, 1, &err) == -1 ||
	    sp_mem_write(pid, p->bp, &cc, 1, &err) == -1) {
		p->bp = 0;
		return refuse(pid, err.msg);
	}
	return 0;
}

/* The runtime pinned this image: a filter more, and its fresh report. */
static bool
runtime_pinned(const struct sup *s, const struct proc *p)
{
	char path[4200];

	report_path(s, p->pid, path, sizeof(path));
	return p->filters0 >= 0 && sp_filters_pid(p->pid) > p->filters0 &&
	    access(path, F_OK) == 0;
}

int
sup_on_trap(struct sup *s, pid_t pid)
{
	struct proc *p = sup_proc(s, pid, false);
	struct user_regs_struct r;
	struct sp_pin_result res;
	struct sp_error err;
	int sig;

	if (p == NULL || p->bp == 0 ||
	    ptrace(PTRACE_GETREGS, pid, 0, &r) == -1 || r.rip != p->bp + 1)
		return SIGTRAP;		/* not ours: the program's own */
	r.rip = p->bp;
	if (sp_mem_write(pid, p->bp, &p->bp_byte, 1, &err) == -1)
		return refuse(pid, err.msg);
	p->bp = 0;
	if (ptrace(PTRACE_SETREGS, pid, 0, &r) == -1)
		return refuse(pid, strerror(errno));
	if (runtime_pinned(s, p)) {
		sup_pinned(s, pid, NULL);
		return 0;
	}
	if (sp_pin_process(pid, &s->o->pin, p->trace_all, &res, &err) == -1)
		return refuse(pid, err.msg);
	sig = res.sig;
	sup_pinned(s, pid, &res);
	return sig;
}
