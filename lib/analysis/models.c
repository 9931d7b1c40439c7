/* SPDX-License-Identifier: ISC */
/*
 * Runtime models: a few language runtimes replay, in every thread, a
 * system call whose number another function stored in memory.  Data flow
 * cannot follow a number through that memory, but the runtime's own
 * contract says where it comes from.  A model names the replaying function
 * and the functions whose number parameter feeds it; the replay may issue
 * exactly the numbers those functions are called with (none, when they are
 * not linked in: then nothing can start a replay).
 *
 * Found by symbol name, so only where symbols are present; a stripped
 * binary keeps the site unresolved.
 */
#include <string.h>

#include "analysis.h"

struct model {
	const char *replayer;
	const char *sources[3];
	int8_t param;
};

static const struct model models[] = {
	/*
	 * Go: syscall.AllThreadsSyscall(trap, ...) issues trap itself, then
	 * signals every M, whose runtime.runPerThreadSyscall replays
	 * mp.perThreadSyscall (src/runtime/os_linux.go).  Register ABI:
	 * trap arrives in rax.
	 */
	{ "runtime.runPerThreadSyscall",
	    { "syscall.AllThreadsSyscall", "syscall.AllThreadsSyscall6" },
	    SP_REG_RAX },
};


/*
 * Go (amd64): a few functions pass fcntl's number from a variable
 * (syscall.fcntl64Syscall, golang.org/x/sys/unix's own copy,
 * internal/syscall/unix.FcntlSyscall) that only 32-bit Linux ever sets to
 * something else (flock.go, nonblocking.go, *_linux_32bit.go).  With its
 * symbol table a program shows that nothing writes it (globals.c);
 * without (Debian's `go`), the variable's extent is not known, so the
 * contract says: fcntl, from these callers (a vendored copy's path ends
 * the same).  Go 1.19's forkAndExecInChild1 passes it to RawSyscall for
 * F_SETFD, internal/syscall/unix.IsNonblock for F_GETFL.
 */
#define SYS_FCNTL_X86_64 72
static const char *const fcntl_var_callers[] = {
	"syscall.forkAndExecInChild1", "syscall.FcntlFlock", "syscall.fcntl",
	"internal/syscall/unix.IsNonblock", "internal/syscall/unix.Fcntl",
	"internal/poll.fcntl", "internal/poll.newPipe",
	"golang.org/x/sys/unix.fcntl", "golang.org/x/sys/unix.FcntlFlock",
};

static bool
fcntl_var_caller(const char *name)
{
	size_t n = strlen(name);

	for (size_t k = 0; k < sizeof(fcntl_var_callers) /
	    sizeof(*fcntl_var_callers); k++) {
		const char *c = fcntl_var_callers[k];
		size_t m = strlen(c);
		if (strcmp(name, c) == 0 || (strncmp(c, "golang.org/", 11) == 0 &&
		    n > m && name[n - m - 1] == '/' && strcmp(name + n - m, c) == 0))
			return true;
	}
	return false;
}

bool
sp_model_numbers(struct analysis *a, uint64_t func, struct presult *out)
{
	const struct sp_symbol *f = sp_elf_symbol_at(a->elf, func, NULL);

	if (f == NULL)
		return false;
	if (a->elf->go && fcntl_var_caller(f->name)) {
		sp_nrset_clear(&out->nrs);
		out->nvia = 0;
		sp_nrset_add(&out->nrs, SYS_FCNTL_X86_64);
		return true;
	}
	for (size_t m = 0; m < sizeof(models) / sizeof(*models); m++) {
		if (strcmp(f->name, models[m].replayer) != 0)
			continue;
		sp_nrset_clear(&out->nrs);
		out->nvia = 0;
		for (size_t k = 0; k < 3 && models[m].sources[k]; k++) {
			const struct sp_symbol *src = sp_elf_symbol_named(a->elf,
			    models[m].sources[k]);
			if (src == NULL)
				continue;
			const struct presult *p = sp_resolve_param(a, src->addr,
			    models[m].param);
			if (p->nrs.top || p->no_callers) {
				sp_nrset_set_top(&out->nrs);
				out->reason = p->nrs.top ? p->reason :
				    "replayed number's source has no callers";
				return true;
			}
			sp_nrset_union(&out->nrs, &p->nrs);
		}
		return true;
	}
	return false;
}
