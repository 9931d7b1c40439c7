/* SPDX-License-Identifier: ISC */
/*
 * sp_scan(): candidates -> units -> sites -> numbers.
 *
 * The default mode looks for the opcode bytes of the three trap
 * instructions first and decodes only the units that hold them (and,
 * while resolving parameters, the units of their callers).  --full-sweep
 * decodes every unit; both see the same units, so both find the same
 * sites, which a test checks.
 */
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "analysis.h"
#include "sites.h"

static const struct sp_param_hint default_hints[] = {
	{ "syscall", SP_REG_RDI },	/* long syscall(long number, ...) */
};

const struct sp_param_hint *
sp_scan_default_hints(size_t *n)
{
	*n = sizeof(default_hints) / sizeof(*default_hints);
	return default_hints;
}

/* Opcode bytes of a trap at p, or -1. */
static int
trap_bytes(const uint8_t *p)
{
	if (p[0] == 0x0f && p[1] == 0x05)
		return SP_TRAP_SYSCALL;
	if (p[0] == 0xcd && p[1] == 0x80)
		return SP_TRAP_INT80;
	if (p[0] == 0x0f && p[1] == 0x34)
		return SP_TRAP_SYSENTER;
	return -1;
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Every trap's opcode bytes, found by the rarer of their two bytes (0x05
 * and 0x34 are much less common in code than 0x0f).
 */
static int
find_byte(const struct sp_segment *s, const uint8_t *p, uint8_t byte,
    int delta, struct site_set *ss)
{
	/* The byte searched for is the first of the pair (delta 0) or the
	 * second (delta 1); either way both bytes lie inside the segment. */
	const uint8_t *q = p + delta, *end = p + s->filesz - 1 + delta;

	while (q < end && (q = memchr(q, byte, (size_t)(end - q))) != NULL) {
		const uint8_t *op = q - delta;
		if (trap_bytes(op) >= 0 && sp_site_set_candidate(ss, s->vaddr +
		    (uint64_t)(op - p)) != 0)
			return -1;
		q++;
	}
	return 0;
}

static int
find_candidates(struct analysis *a, struct site_set *ss)
{
	for (size_t i = 0; i < a->elf->nsegs; i++) {
		const struct sp_segment *s = &a->elf->segs[i];
		const uint8_t *p = a->elf->data + s->offset;
		if (!(s->flags & PF_X) || s->filesz < 2)
			continue;
		if (find_byte(s, p, 0x05, 1, ss) != 0 ||
		    find_byte(s, p, 0x34, 1, ss) != 0 ||
		    find_byte(s, p, 0xcd, 0, ss) != 0)
			return -1;
	}
	if (ss->ncand > 1)
		qsort(ss->cand, ss->ncand, sizeof(*ss->cand), u64_cmp);
	return 0;
}

/* True when some candidate lies in [start, end). */
static bool
has_candidate(const struct site_set *ss, uint64_t start, uint64_t end)
{
	size_t i = sp_lower_bound(ss->cand, ss->ncand, sizeof(*ss->cand), 0,
	    start);

	return i < ss->ncand && ss->cand[i] < end;
}

/* Decodes the units to look at and records their trap instructions. */
static int
collect_sites(struct analysis *a, struct site_set *ss)
{
	size_t ci = 0;

	for (size_t i = 0; i < a->nunits; i++)
		if (!a->units[i].covered && has_candidate(ss,
		    a->units[i].start, a->units[i].end))
			sp_unit_merge_fallthrough(a, &a->units[i]);

	for (size_t i = 0; i < a->nunits; i++) {
		struct unit *u = &a->units[i];
		bool has = false;
		while (ci < ss->ncand && ss->cand[ci] < u->end) {
			has |= ss->cand[ci] >= u->start;
			ci++;
		}
		if (!has && !a->opts->full_sweep)
			continue;
		if (sp_unit_prepare(a, u, false) != 0)
			return -1;
		a->stats.decoded_bytes += u->end - u->start;
		a->stats.functions++;
		for (size_t k = 0; k < u->code.n; k++) {
			const struct insn *in = &u->code.v[k];
			if (in->flow == FLOW_TRAP &&
			    sp_site_set_add(ss, u, in) != 0)
				return -1;
		}
	}
	return 0;
}

static void
analysis_free(struct analysis *a)
{
	sp_units_free(a);
	free(a->memo);
	sp_decoder_free(a->dec);
}

int
sp_scan(const struct sp_elf *elf, const struct sp_scan_opts *opts,
    struct sp_scan *out, struct sp_error *err)
{
	static const struct sp_scan_opts defaults = { 0 };
	struct analysis a = { .elf = elf, .opts = opts ? opts : &defaults };
	struct site_set ss = { 0 };
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (elf->machine != EM_X86_64)
		return sp_error_set(err, "unsupported architecture: e_machine "
		    "%u", elf->machine);
	a.dec = sp_decoder_new();
	if (a.dec == NULL || sp_units_build(&a) != 0) {
		sp_error_set(err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < elf->nsegs; i++)
		if (elf->segs[i].flags & PF_X)
			a.stats.exec_bytes += elf->segs[i].filesz;
	if (find_candidates(&a, &ss) != 0 || collect_sites(&a, &ss) != 0 ||
	    sp_sites_resolve(&a, &ss) != 0 || sp_pin_section_apply(&a, &ss,
	    out, err) != 0 || sp_sites_emit(&a, &ss, out) != 0 ||
	    sp_imports_emit(&a, out) != 0) {
		if (err != NULL && err->msg[0] == '\0')
			sp_error_set(err, "out of memory");
		sp_scan_free(out);
		goto out;
	}
	out->stats = a.stats;
	out->stats.candidates = ss.ncand;
	rc = 0;
out:
	sp_site_set_free(&ss);
	analysis_free(&a);
	return rc;
}

void
sp_scan_free(struct sp_scan *scan)
{
	for (size_t i = 0; i < scan->nimports; i++)
		free(scan->imports[i].symbol);
	for (size_t i = 0; i < scan->nexports; i++)
		free(scan->exports[i].symbol);
	free(scan->sites);
	free(scan->nrs);
	free(scan->gadgets);
	free(scan->imports);
	free(scan->exports);
	memset(scan, 0, sizeof(*scan));
}
