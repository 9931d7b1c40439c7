/* SPDX-License-Identifier: ISC */
/*
 * What each traced thread knows of the image it runs: whether that image
 * has its own filter in the kernel, or is checked by us at every call
 * (its filter did not fit: see sp_pin_result), and which all-TRACE filter
 * the process carries.  Threads and forks inherit it; an exec keeps the
 * checked programs until the new image is pinned, because until then they
 * judge its calls exactly like the kernel judges them with a predecessor's
 * filter (everything outside that image's mappings is allowed).
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

static void
mark(struct proc *p, const struct sp_pin_result *res, struct checked *c)
{
	p->kpinned = res == NULL || res->checked == NULL;
	if (res != NULL)
		p->trace_all = res->trace_all;
	if (c != NULL)
		set_checked(p, c);
}

/*
 * TSYNC gave every thread the filter: each of them now runs a pinned image
 * (at the entry point there is normally one thread, but constructors may
 * have started more).  res NULL: the runtime pinned it in the kernel.
 */
void
sup_pinned(struct sup *s, pid_t pid, const struct sp_pin_result *res)
{
	struct checked *c = NULL;
	struct dirent *e;
	struct proc *p;
	char path[64];
	DIR *d;

	/* Out of memory: every call of the image stops with nothing to
	 * check it by, and is refused (fail closed). */
	if (res != NULL && res->checked != NULL) {
		if ((c = calloc(1, sizeof(*c))) == NULL)
			sp_bpf_free(res->checked, res->nchecked);
		else {
			c->progs = res->checked;
			c->nprogs = res->nchecked;
			c->refs = 1;	/* ours, until the end */
		}
	}
	if ((p = sup_proc(s, pid, true)) != NULL)
		mark(p, res, c);
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atol(e->d_name);
			if (tid > 0 && tid != pid &&
			    (p = sup_proc(s, tid, false)) != NULL)
				mark(p, res, c);
		}
		closedir(d);
	}
	sup_checked_drop(c);
}
