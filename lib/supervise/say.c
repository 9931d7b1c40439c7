/* SPDX-License-Identifier: ISC */
/*
 * syspin run -v, in the user's terms: how many system calls the program
 * keeps, and per object where it is and what it may issue there, once
 * per run (a shell loop's hundredth `true` says only its own line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

#include "pin_int.h"
#include "supervise_int.h"

/* Objects said already: past this many, they are said again. */
#define SAID_MAX 1024
static uint64_t said[SAID_MAX];
static size_t nsaid;

static bool
first_time(const struct sp_object *o)
{
	uint64_t h = sp_fnv1a_str(SP_FNV1A_INIT, o->key[0] != '\0' ? o->key :
	    o->name);

	for (size_t i = 0; i < nsaid; i++)
		if (said[i] == h)
			return false;
	if (nsaid < SAID_MAX)
		said[nsaid++] = h;
	return true;
}

/* Distinct numbers, per ABI (a bit each) */
struct numbers {
	uint64_t bits[3][1024 / 64];
	size_t n;
};

static void
count(struct numbers *c, const struct sp_bpf_pin *p)
{
	uint32_t nr = p->nr & 1023;
	uint64_t *w = &c->bits[p->abi < 3 ? p->abi : 0][nr / 64];

	if (!(*w & (1ull << (nr % 64)))) {
		*w |= 1ull << (nr % 64);
		c->n++;
	}
}

static int
cmp_ip(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The object a pin's ip lies in (its trap: ip - 2), or -1. */
static long
object_of(const struct sp_layout *lo, uint64_t ip)
{
	for (size_t i = 0; i < lo->nranges; i++)
		if (ip - 2 >= lo->ranges[i].start && ip - 2 < lo->ranges[i].end)
			return (long)lo->ranges[i].obj;
	return -1;
}

static void
say_object(const char *who, const struct job *j, size_t oi,
    const struct numbers *c, size_t sites)
{
	const struct sp_object *o = &j->lo.objs[oi];

	if (sites == 0)
		fprintf(stderr, "syspin: %s:   %s at 0x%llx: no system call "
		    "may come from it\n", who, o->name,
		    (unsigned long long)o->base);
	else
		fprintf(stderr, "syspin: %s:   %s at 0x%llx: %zu system "
		    "call%s at %zu site%s%s\n", who, o->name,
		    (unsigned long long)o->base, c->n, c->n == 1 ? "" : "s",
		    sites, sites == 1 ? "" : "s", o->loader ?
		    " (the dynamic loader)" : "");
}

void
sp_pin_say(const struct job *j, const struct sp_pin_result *res)
{
	struct numbers all, *per = calloc(j->lo.nobjs + 1, sizeof(*per));
	uint64_t *ips = malloc((j->pl.npins + 1) * sizeof(*ips));
	char comm[64], who[96];
	size_t n;

	sp_sup_comm(j->pid, comm, sizeof(comm));
	snprintf(who, sizeof(who), "%s[%ld]", comm, (long)j->pid);
	memset(&all, 0, sizeof(all));
	for (size_t i = 0; i < j->pl.npins; i++)
		count(&all, &j->pl.pins[i]);
	fprintf(stderr, "syspin: %s: pinned before its first instruction: "
	    "%zu system calls, at %zu (site, number) pairs; code mapped "
	    "later goes to the late-code band, where no call may come "
	    "from\n", who, all.n, j->pl.npins);
	if (res->smaller || res->stops_all)
		fprintf(stderr, "syspin: %s: no room for the whole filter "
		    "under the inherited ones: %zu of its numbers judged in "
		    "the kernel, the others by the supervisor at each call\n",
		    who, res->smaller ? res->nkept : 0);
	if (per == NULL || ips == NULL)
		goto out;
	for (size_t oi = 0; oi < j->lo.nobjs; oi++) {
		/* the start-up region: its libraries are said */
		if (strcmp(j->lo.objs[oi].name, "[start-up region]") == 0 ||
		    !first_time(&j->lo.objs[oi]))
			continue;
		n = 0;
		for (size_t i = 0; i < j->pl.npins; i++)
			if (object_of(&j->lo, j->pl.pins[i].ip) == (long)oi) {
				count(&per[oi], &j->pl.pins[i]);
				ips[n++] = j->pl.pins[i].ip;
			}
		qsort(ips, n, sizeof(*ips), cmp_ip);
		size_t sites = 0;
		for (size_t i = 0; i < n; i++)
			sites += i == 0 || ips[i] != ips[i - 1];
		say_object(who, j, oi, &per[oi], sites);
	}
out:
	free(per);
	free(ips);
}
