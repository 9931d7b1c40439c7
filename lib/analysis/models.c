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


bool
sp_model_numbers(struct analysis *a, uint64_t func, struct presult *out)
{
	const struct sp_symbol *f = sp_elf_symbol_at(a->elf, func, NULL);

	if (f == NULL)
		return false;
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
