/* SPDX-License-Identifier: ISC */
/*
 * sp_bpf_generate: checks and normalizes the input, then builds one
 * program, or splits the (arch, number) key space until every program
 * fits BPF_MAXINSNS.  Each program allows the calls it does not own, and
 * the kernel runs them all and keeps the most severe action, so the set
 * decides every call exactly as one program would.
 */
#include <linux/seccomp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "bpf_int.h"

static int
cmp_pin(const void *a, const void *b)
{
	const struct npin *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_range(const void *a, const void *b)
{
	const struct sp_bpf_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int
check_action(uint32_t action, struct sp_error *err)
{
	switch (action & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
	case SECCOMP_RET_TRAP:
	case SECCOMP_RET_ERRNO:
	case SECCOMP_RET_USER_NOTIF:
	case SECCOMP_RET_TRACE:
	case SECCOMP_RET_LOG:
		return 0;
	default:
		return sp_error_set(err, "bpf: violation action 0x%08x is not "
		    "one that stops or reports the call", action);
	}
}

/* What a refused or placed call gets: it never runs as asked. */
static int
check_answer(uint32_t a, const char *what, struct sp_error *err)
{
	switch (a & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ERRNO:
	case SECCOMP_RET_TRACE:
	case SECCOMP_RET_TRAP:
		return 0;
	default:
		return sp_error_set(err, "bpf: %s 0x%08x is not ERRNO, TRAP "
		    "or TRACE", what, a);
	}
}

static int
norm_pins(const struct sp_bpf_input *in, struct norm *n,
    struct sp_error *err)
{
	const struct sp_bpf_pin *p;
	size_t i, o = 0;

	if ((n->pins = calloc(in->npins + 1, sizeof(*n->pins))) == NULL)
		return sp_error_set(err, "out of memory");
	for (i = 0; i < in->npins; i++) {
		p = &in->pins[i];
		if (p->abi == SP_ABI_X86_64 && p->nr & SP_BPF_X32_BIT)
			return sp_error_set(err, "bpf: pin %zu: x86-64 number "
			    "0x%x has the x32 bit (use SP_ABI_X32)", i, p->nr);
		if (p->abi > SP_ABI_X32)
			return sp_error_set(err, "bpf: pin %zu: unknown ABI %u",
			    i, p->abi);
		if (p->flags & ~SP_BPF_PIN_LOADER)
			return sp_error_set(err, "bpf: pin %zu: unknown flags "
			    "0x%x", i, p->flags);
		n->pins[i].ip = p->ip;
		n->pins[i].flags = p->flags;
		n->pins[i].key = p->abi == SP_ABI_I386 ? p->nr : KEY_X86 |
		    (p->abi == SP_ABI_X32 ? p->nr | SP_BPF_X32_BIT : p->nr);
	}
	qsort(n->pins, in->npins, sizeof(*n->pins), cmp_pin);
	for (i = 0; i < in->npins; i++)
		if (o == 0 || cmp_pin(&n->pins[o - 1], &n->pins[i]) != 0)
			n->pins[o++] = n->pins[i];
		else		/* the same site twice: a loader's if either */
			n->pins[o - 1].flags |= n->pins[i].flags;
	n->npins = o;
	return 0;
}

static int
norm_rest(const struct sp_bpf_input *in, struct norm *n,
    struct sp_error *err)
{
	size_t i, o = 0;

	n->any = calloc(in->nany_ips + 1, sizeof(*n->any));
	n->ranges = calloc(in->nranges + 1, sizeof(*n->ranges));
	if (n->any == NULL || n->ranges == NULL)
		return sp_error_set(err, "out of memory");
	if (in->nany_ips > 0)
		memcpy(n->any, in->any_ips, in->nany_ips * sizeof(*n->any));
	qsort(n->any, in->nany_ips, sizeof(*n->any), cmp_u64);
	for (i = 0; i < in->nany_ips; i++)
		if (o == 0 || n->any[o - 1] != n->any[i])
			n->any[o++] = n->any[i];
	n->nany = o;
	for (i = 0, o = 0; i < in->nranges; i++) {
		if (in->ranges[i].end < in->ranges[i].start)
			return sp_error_set(err, "bpf: range %zu ends before it "
			    "starts", i);
		if (in->ranges[i].end > in->ranges[i].start)
			n->ranges[o++] = in->ranges[i];
	}
	qsort(n->ranges, o, sizeof(*n->ranges), cmp_range);
	n->nranges = 0;
	for (i = 0; i < o; i++) {	/* merge overlapping and adjacent */
		struct sp_bpf_range *last = &n->ranges[n->nranges - 1];
		if (n->nranges > 0 && n->ranges[i].start <= last->end) {
			if (n->ranges[i].end > last->end)
				last->end = n->ranges[i].end;
		} else
			n->ranges[n->nranges++] = n->ranges[i];
	}
	return 0;
}

static int
norm_narrow(const struct sp_bpf_input *in, struct norm *n,
    struct sp_error *err)
{
	size_t i, o = 0;

	n->narrow_allow = in->narrow.allow;
	n->narrowed = in->narrowed ? in->narrowed : SECCOMP_RET_ERRNO | EPERM;
	switch (n->narrowed & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
	case SECCOMP_RET_ERRNO:
	case SECCOMP_RET_TRAP:
	case SECCOMP_RET_TRACE:
	case SECCOMP_RET_LOG:
		break;
	default:
		return sp_error_set(err, "bpf: narrowing answer 0x%08x is not "
		    "KILL_PROCESS, ERRNO, TRAP, TRACE or LOG", n->narrowed);
	}
	if (in->narrow.n > 0 && in->narrow.nrs == NULL)
		return sp_error_set(err, "bpf: NULL table with a length");
	if ((n->narrow = calloc(in->narrow.n + 1, sizeof(*n->narrow))) ==
	    NULL)
		return sp_error_set(err, "out of memory");
	for (i = 0; i < in->narrow.n; i++) {
		if (in->narrow.nrs[i] >= SP_BPF_X32_BIT)
			return sp_error_set(err, "bpf: narrowed number 0x%x is "
			    "not an x86-64 number", in->narrow.nrs[i]);
		n->narrow[i] = in->narrow.nrs[i];
	}
	qsort(n->narrow, in->narrow.n, sizeof(*n->narrow), sp_cmp_u32);
	for (i = 0; i < in->narrow.n; i++)
		if (o == 0 || n->narrow[o - 1] != n->narrow[i])
			n->narrow[o++] = n->narrow[i];
	n->nnarrow = o;
	return 0;
}

bool
sp_norm_narrowed(const struct norm *in, uint32_t nr)
{
	size_t lo = 0, hi = in->nnarrow;
	bool listed = false;

	if (nr >= SP_BPF_X32_BIT)
		return false;
	while (lo < hi && !listed) {
		size_t mid = lo + (hi - lo) / 2;
		if (in->narrow[mid] == nr)
			listed = true;
		else if (in->narrow[mid] < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return listed != in->narrow_allow;
}

static void
norm_free(struct norm *n)
{
	free(n->narrow);
	free(n->pins);
	free(n->any);
	free(n->ranges);
}

static int
normalize(const struct sp_bpf_input *in, struct norm *n, struct sp_error *err)
{
	memset(n, 0, sizeof(*n));
	if ((in->npins > 0 && in->pins == NULL) ||
	    (in->nany_ips > 0 && in->any_ips == NULL) ||
	    (in->nranges > 0 && in->ranges == NULL))
		return sp_error_set(err, "bpf: NULL table with a length");
	if (in->flags & ~(SP_BPF_STRICT | SP_BPF_ALLOW_JIT | SP_BPF_AUDIT |
	    SP_BPF_OUTSIDE | SP_BPF_GUARD | SP_BPF_NO_PTRACE | SP_BPF_NO_EXEC |
	    SP_BPF_PLACE_FILES | SP_BPF_NO_CLOCK | SP_BPF_CONNECT |
	    SP_BPF_NO_UNIX | SP_BPF_NO_PERF | SP_BPF_CHECK_EXEC |
	    SP_BPF_NO_URING))
		return sp_error_set(err, "bpf: unknown flags 0x%x", in->flags);
	if (in->band.end < in->band.start || in->slots.end < in->slots.start)
		return sp_error_set(err, "bpf: an area ends before it starts");
	n->flags = in->flags;
	n->action = in->action;
	n->band = in->band;
	n->slots = in->slots;
	if (n->action == 0)
		n->action = in->flags & SP_BPF_AUDIT ? SECCOMP_RET_LOG :
		    SECCOMP_RET_KILL_PROCESS;
	n->refuse = in->refuse ? in->refuse : SECCOMP_RET_ERRNO | EACCES;
	n->deny = in->deny ? in->deny : SECCOMP_RET_ERRNO | EPERM;
	n->place = in->place ? in->place : SECCOMP_RET_ERRNO | EACCES;
	n->check = in->check ? in->check : n->deny;
	if (check_answer(n->refuse, "refusal", err) == -1 ||
	    check_answer(n->check, "check", err) == -1 ||
	    check_answer(n->deny, "denial", err) == -1 ||
	    check_answer(n->place, "placement", err) == -1)
		return -1;
	if (check_action(n->action, err) == -1 ||
	    norm_pins(in, n, err) == -1 || norm_rest(in, n, err) == -1 ||
	    norm_narrow(in, n, err) == -1)
		return -1;
	return 0;
}

struct plist {
	struct sp_bpf_prog *v;
	size_t n, cap;
};

static int
push(struct plist *l, struct sp_bpf_prog p, struct sp_error *err)
{
	struct sp_bpf_prog *nv;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4;
		if ((nv = reallocarray(l->v, l->cap, sizeof(*nv))) == NULL) {
			free(p.insns);
			return sp_error_set(err, "out of memory");
		}
		l->v = nv;
	}
	l->v[l->n++] = p;
	return 0;
}

/* First pin with key >= k. */
static size_t
lower(const struct norm *n, uint64_t k)
{
	return SP_LOWER_BOUND(n->pins, n->npins, key, k);
}

/* A key splitting the sites of [klo, khi) in halves, or 0 when it holds
 * fewer than two numbers. */
static uint64_t
split_key(const struct norm *n, uint64_t klo, uint64_t khi)
{
	size_t a = lower(n, klo), b = lower(n, khi), m;

	if (a == b || n->pins[a].key == n->pins[b - 1].key)
		return 0;
	m = a + (b - a) / 2;
	if (n->pins[m].key == n->pins[a].key)
		m = lower(n, n->pins[a].key + 1);
	return n->pins[m].key;
}

/* One number (the first key from klo) needs more than a program holds. */
static int
alone(const struct norm *n, uint64_t klo, size_t count, const char *what,
    struct sp_error *err)
{
	size_t a = lower(n, klo);
	uint64_t k = a < n->npins ? n->pins[a].key : klo;

	return sp_error_set(err, "bpf: %s number %llu alone needs %zu %s, "
	    "more than %d instructions hold", k < KEY_X86 ? "i386" : "x86-64",
	    (unsigned long long)(k % KEY_X86), count, what, BPF_MAXINSNS);
}

static int
split(const struct norm *n, uint64_t klo, uint64_t khi, struct plist *l,
    struct sp_error *err)
{
	struct sp_bpf_prog p;
	uint64_t mid;
	size_t sites = lower(n, khi) - lower(n, klo);

	/* Each site takes an instruction at least: a range with more is
	 * split without being built (a written program of 0f 05 bytes made
	 * programs of millions of instructions to find that out) */
	if (sites > BPF_MAXINSNS) {
		if ((mid = split_key(n, klo, khi)) == 0)
			return alone(n, klo, sites, "sites", err);
		if (split(n, klo, mid, l, err) == -1)
			return -1;
		return split(n, mid, khi, l, err);
	}
	if (sp_build_program(n, klo, khi, &p, err) == -1)
		return -1;
	if (p.len <= BPF_MAXINSNS)
		return push(l, p, err);
	free(p.insns);
	if ((mid = split_key(n, klo, khi)) == 0)
		return alone(n, klo, p.len, "instructions or more", err);
	if (split(n, klo, mid, l, err) == -1)
		return -1;
	return split(n, mid, khi, l, err);
}

int
sp_bpf_generate(const struct sp_bpf_input *in, struct sp_bpf_prog **progs,
    size_t *nprogs, struct sp_error *err)
{
	struct plist l = { NULL, 0, 0 };
	struct norm n;
	size_t i, total = 0;

	*progs = NULL;
	*nprogs = 0;
	if (normalize(in, &n, err) == -1)
		goto fail;
	/* every program checks each any-number site (an instruction at
	 * least): more than one holds is refused before any is built */
	if (n.nany > BPF_MAXINSNS) {
		sp_error_set(err, "bpf: %zu sites that may make any call, more "
		    "than a filter of %d instructions holds", n.nany,
		    BPF_MAXINSNS);
		goto fail;
	}
	if (split(&n, 0, KEY_END, &l, err) == -1)
		goto fail;
	for (i = 0; i < l.n; i++)
		total += l.v[i].len + 4;
	if (total > SP_BPF_MAX_TOTAL) {
		sp_error_set(err, "bpf: %zu programs of %zu instructions in "
		    "all, more than the kernel's %u", l.n, total,
		    SP_BPF_MAX_TOTAL);
		goto fail;
	}
	norm_free(&n);
	*progs = l.v;
	*nprogs = l.n;
	return 0;
fail:
	norm_free(&n);
	sp_bpf_free(l.v, l.n);
	return -1;
}
