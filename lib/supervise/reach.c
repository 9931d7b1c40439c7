/* SPDX-License-Identifier: ISC */
/*
 * Reachable-only pins under the supervisor.  At the end of an execve the
 * image's tables keep only the sites its start-up objects' code can
 * reach (lib/reach/reach.c); the facts come from the cache, made there
 * from outside the tree when missing.  An object dlopen'ed later may call
 * what the start-up objects never do: such a call stops as a violation,
 * and sp_sup_reach_late() allows it when the site was pinned before pruning
 * and the closure with the late objects' imports reaches it.  Each such
 * call costs a stop; a forged call gains only what some object loaded in
 * the process really imports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reach/reach.h"

#include "pin_int.h"
#include "supervise_int.h"

int
sp_pin_reach(struct job *j, struct sp_error *err)
{
	struct sp_reach_report rep;
	char comm[64];

	if (sp_layout_reach(&j->lo, j->o->cache, &rep, err) == -1)
		return -1;
	if (j->o->verbose)
		sp_sup_comm(j->pid, comm, sizeof(comm));
	if (j->o->verbose)
		fprintf(stderr, "syspin: %s[%ld]: its code can reach %zu of "
		    "the %zu (site, number) pairs of its objects' tables, at "
		    "%zu of %zu sites; the others are not pinned (--no-reach "
		    "pins them)%s\n", comm, (long)j->pid, rep.live_pairs,
		    rep.pairs, rep.live_sites, rep.sites, rep.dlsym ?
		    "; dlsym with a name chosen at run time: every export "
		    "counts as reachable" : "");
	for (size_t i = 0; j->o->verbose && i < rep.ndlsym_by &&
	    i < SP_REACH_WIDEN_MAX; i++) {
		const struct sp_reach_widen *w = &rep.dlsym_by[i];
		const char *o = w->obj >= 0 && (size_t)w->obj < j->lo.nobjs ?
		    j->lo.objs[w->obj].name : "code with no facts";
		if (w->at != 0)
			fprintf(stderr, "syspin: %s[%ld]: widened by %s: the "
			    "dlsym call at 0x%llx\n", comm, (long)j->pid, o,
			    (unsigned long long)w->at);
		else
			fprintf(stderr, "syspin: %s[%ld]: widened by %s: it "
			    "takes dlsym's address, or its calls are not "
			    "known\n", comm, (long)j->pid, o);
	}
	return 0;
}
