/* SPDX-License-Identifier: ISC */
/*
 * What each traced thread knows of the image it runs: whether that image
 * has its own filter in the kernel yet, and, when that filter is a smaller
 * one or the process's all-TRACE one (see sp_pin_result), the whole
 * program the supervisor checks its stops with.  Threads and forks
 * inherit it.  An exec makes the image's filter an earlier image's; under
 * the all-TRACE filter, where every call stops, the earlier image's
 * program goes on judging the new image's calls until it is pinned, just
 * as that image's filter would in the kernel (it allows everything outside
 * the earlier image's mappings): ld.so must be able to load the new image.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "supervise_int.h"

void
sup_checked_drop(struct checked *c)
{
	if (c == NULL || --c->refs > 0)
		return;
	sp_bpf_free(c->progs, c->nprogs);
	free(c);
}

static void
set_checked(struct proc *p, struct checked *c)
{
	if (c != NULL)
		c->refs++;
	sup_checked_drop(p->chk);
	p->chk = c;
}

void
sup_inherit(struct proc *c, const struct proc *parent)
{
	c->bp = parent->bp;
	c->bp_byte = parent->bp_byte;
	c->filters0 = parent->filters0;
	c->kpinned = parent->kpinned;
	c->trace_all = parent->trace_all;
	set_checked(c, parent->chk);
}

void
sup_unpinned(struct proc *p)
{
	p->kpinned = false;
	if (p->trace_all < 0)
		set_checked(p, NULL);
}

static void
mark(struct proc *p, struct checked *c, bool kernel, long trace_all)
{
	p->kpinned = kernel;
	p->trace_all = trace_all;
	set_checked(p, c);
}

/*
 * TSYNC gave every thread the filter: each of them now runs a pinned image
 * (at the entry point there is normally one thread, but constructors may
 * have started more).  Takes res's programs.  Out of memory, the smaller
 * filter's stops find nothing to check them by: they are refused.
 */
void
sup_pinned(struct sup *s, pid_t pid, struct sp_pin_result *res)
{
	struct checked *c = NULL;
	struct dirent *e;
	struct proc *p;
	char path[64];
	DIR *d;
	/* In the kernel: the whole program, or a smaller one that passes
	 * nothing the whole program refuses. */
	bool kernel = res == NULL || res->checked == NULL ||
	    res->check_data >= 0;
	long trace_all = res != NULL ? res->trace_all : -1;

	if (res == NULL && (p = sup_proc(s, pid, false)) != NULL)
		trace_all = p->trace_all;	/* the runtime's: unchanged */
	if (res != NULL && res->checked != NULL &&
	    (c = calloc(1, sizeof(*c))) != NULL) {
		c->progs = res->checked;
		c->nprogs = res->nchecked;
		c->data = res->check_data;
		c->refs = 1;	/* ours, until the end */
		res->checked = NULL;
		res->nchecked = 0;
	}
	if ((p = sup_proc(s, pid, true)) != NULL)
		mark(p, c, kernel, trace_all);
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atol(e->d_name);
			if (tid > 0 && tid != pid &&
			    (p = sup_proc(s, tid, false)) != NULL)
				mark(p, c, kernel, trace_all);
		}
		closedir(d);
	}
	if (res != NULL)
		sp_pin_result_free(res);
	sup_checked_drop(c);
}
