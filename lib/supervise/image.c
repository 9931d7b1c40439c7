/* SPDX-License-Identifier: ISC */
/*
 * What each traced thread runs: the pinned image (shared by its threads
 * and forks, read-only) and its address space (shared by threads, copied
 * by fork: what was placed where, and whether ld.so still maps start-up
 * objects).  An exec replaces both; until the new image is pinned (the
 * end of the execve, before its first instruction) the thread has none.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervise_int.h"

struct image *
sp_image_ref(struct image *img)
{
	if (img != NULL)
		img->refs++;
	return img;
}

void
sp_image_drop(struct image *img)
{
	if (img == NULL || --img->refs > 0)
		return;
	sp_pin_result_free(&img->pin);
	sp_bpf_free(img->rules, img->nrules);
	free(img->exe);
	free(img);
}

struct space *
sp_space_new(size_t nslots)
{
	struct space *sp = calloc(1, sizeof(*sp));

	if (sp == NULL)
		return NULL;
	if ((sp->placed = calloc(nslots + 1, sizeof(*sp->placed))) == NULL) {
		free(sp);
		return NULL;
	}
	sp->nplaced = nslots;
	sp->refs = 1;
	return sp;
}

struct space *
sp_space_ref(struct space *sp)
{
	if (sp != NULL)
		sp->refs++;
	return sp;
}

struct space *
sp_space_copy(const struct space *sp)
{
	struct space *c;

	if (sp == NULL || (c = sp_space_new(sp->nplaced)) == NULL)
		return NULL;
	c->band_next = sp->band_next;
	c->band_wrapped = sp->band_wrapped;
	c->startup = sp->startup;
	memcpy(c->placed, sp->placed, sp->nplaced * sizeof(*c->placed));
	if (sp->entry.len > 0 &&
	    (c->entry.insns = malloc(sp->entry.len * sizeof(*sp->entry.insns)))
	    != NULL) {
		memcpy(c->entry.insns, sp->entry.insns,
		    sp->entry.len * sizeof(*sp->entry.insns));
		c->entry.len = sp->entry.len;
	}
	return c;
}

void
sp_space_drop(struct space *sp)
{
	if (sp == NULL || --sp->refs > 0)
		return;
	free(sp->entry.insns);
	free(sp->placed);
	sp_sup_late_memo_free(sp->late);
	free(sp->seen);
	free(sp);
}

struct chain *
sp_chain_ref(struct chain *c)
{
	if (c != NULL)
		c->refs++;
	return c;
}

void
sp_chain_drop(struct chain *c)
{
	while (c != NULL && --c->refs == 0) {
		struct chain *up = c->up;
		sp_image_drop(c->img);
		free(c);
		c = up;
	}
}

struct chain *
sp_chain_push(struct chain *c, struct image *img)
{
	struct chain *n = calloc(1, sizeof(*n));

	if (n == NULL)
		return NULL;
	n->refs = 1;
	n->img = sp_image_ref(img);
	n->up = sp_chain_ref(c);
	return n;
}

void
sp_sup_inherit(struct proc *c, const struct proc *parent, bool vm)
{
	sp_image_drop(c->img);
	sp_space_drop(c->sp);
	sp_chain_drop(c->chain);
	c->img = sp_image_ref(parent->img);
	c->sp = vm ? sp_space_ref(parent->sp) : sp_space_copy(parent->sp);
	c->chain = sp_chain_ref(parent->chain);
	/* The int3 is in the memory it copies; debug registers are not
	 * inherited (its start-up slots stay unsealed, as a thread's). */
	c->bp = parent->bp_hw ? 0 : parent->bp;
	c->bp_hw = false;
	c->bp_byte = parent->bp_byte;
	c->stops_all = parent->stops_all;
	c->filters_known = parent->filters_known;
	c->own_filters = parent->own_filters;
	c->exec_pending = false;
	free(c->entry_keys);
	c->entry_keys = NULL;
	c->nentry_keys = 0;
	if (parent->nentry_keys > 0 && (c->entry_keys = calloc(
	    parent->nentry_keys, sizeof(*c->entry_keys))) != NULL) {
		memcpy(c->entry_keys, parent->entry_keys,
		    parent->nentry_keys * sizeof(*c->entry_keys));
		c->nentry_keys = parent->nentry_keys;
	}
}

static void
mark(struct proc *p, struct image *img, struct space *sp,
    struct chain *chain, bool stops_all)
{
	sp_image_drop(p->img);
	sp_space_drop(p->sp);
	sp_chain_drop(p->chain);
	p->img = sp_image_ref(img);
	p->sp = sp_space_ref(sp);
	p->chain = sp_chain_ref(chain);
	p->stops_all = stops_all;
}

/*
 * TSYNC gave every thread the filter: each of them now runs the image (at
 * the end of an execve there is one thread, but be safe).  Takes over the
 * caller's references to img, sp and chain.
 */
void
sp_sup_pinned(struct sup *s, pid_t pid, struct image *img, struct space *sp,
    struct chain *chain, bool stops_all)
{
	struct dirent *e;
	struct proc *p;
	char path[64];
	DIR *d;

	if ((p = sp_sup_proc(s, pid, true)) != NULL)
		mark(p, img, sp, chain, stops_all);
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atol(e->d_name);
			if (tid > 0 && tid != pid &&
			    (p = sp_sup_proc(s, tid, false)) != NULL)
				mark(p, img, sp, chain, stops_all);
		}
		closedir(d);
	}
	sp_image_drop(img);
	sp_space_drop(sp);
	sp_chain_drop(chain);
}
