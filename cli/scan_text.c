/* SPDX-License-Identifier: ISC */
/* Human-readable `syspin scan` output: one line per site. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "scan.h"

void
scan_summarize(const struct scanned *s, struct scan_summary *sum)
{
	const struct sp_scan *sc = &s->scan;
	/* Numbers are < 1024 on every ABI; counted per ABI. */
	uint8_t seen[2048] = { 0 };

	memset(sum, 0, sizeof(*sum));
	sum->sites = sc->nsites;
	for (size_t i = 0; i < sc->nsites; i++) {
		const struct sp_site *site = &sc->sites[i];
		if (sp_site_is_exact(site))
			sum->exact++;
		if (site->how == SP_HOW_UNRESOLVED)
			sum->unresolved++;
		if (site->flags & SP_SITE_UNCOVERED)
			sum->uncovered++;
		if (site->flags & SP_SITE_LIKELY_DATA)
			sum->likely_data++;
		for (uint32_t k = 0; k < site->nr_count; k++) {
			uint32_t nr = sp_site_nr(sc, site, k);
			unsigned key = nr + (site->kind == SP_TRAP_SYSCALL ? 0 :
			    1024);
			if (nr < 1024 && !seen[key]) {
				seen[key] = 1;
				sum->distinct++;
			}
		}
	}
	sum->exact_pct = sum->sites ? 100.0 * (double)sum->exact /
	    (double)sum->sites : 100.0;
}

static void
flags_text(unsigned flags, char *buf, size_t size)
{
	buf[0] = '\0';
	if (flags & SP_SITE_UNCOVERED)
		strncat(buf, " [no unwind info]", size - strlen(buf) - 1);
	if (flags & SP_SITE_LIKELY_DATA)
		strncat(buf, " [likely data]", size - strlen(buf) - 1);
	if (flags & SP_SITE_NOT_PINNED)
		strncat(buf, " [not in pin section]", size - strlen(buf) - 1);
}

static void
print_numbers(FILE *f, const struct sp_scan *sc, const struct sp_site *s)
{
	char name[64];

	for (uint32_t k = 0; k < s->nr_count; k++) {
		uint32_t nr = sp_site_nr(sc, s, k);
		fprintf(f, "%s%u %s", k ? ", " : "", nr,
		    syscall_name(s->kind, nr, name, sizeof(name)));
	}
}

static void
print_site(FILE *f, const struct sp_scan *sc, const struct sp_site *s)
{
	char flags[96];

	flags_text(s->flags, flags, sizeof(flags));
	fprintf(f, "  0x%08" PRIx64 "  %-8s %u  %-11s ", s->addr,
	    sp_trap_kind_name(s->kind), s->length, sp_how_name(s->how));
	if (s->how == SP_HOW_UNRESOLVED) {
		/* pinned to its object's numbers (lib/layout/place.c) and
		 * what its readable callers pass, listed */
		fprintf(f, "its object's numbers: %s", s->reason ? s->reason :
		    "unknown");
		if (s->reason_addr != 0)
			fprintf(f, " at 0x%" PRIx64, s->reason_addr);
		if (s->param_reg >= 0)
			fprintf(f, " (parameter %s of 0x%" PRIx64 ")",
			    sp_reg_name(s->param_reg), s->function);
		if (s->nr_count > 0) {
			fprintf(f, "; and ");
			print_numbers(f, sc, s);
		}
	} else {
		print_numbers(f, sc, s);
		if (s->how == SP_HOW_EXPORT)
			fprintf(f, "%s+ callers of the exported function "
			    "(parameter %s)", s->nr_count ? " " : "",
			    sp_reg_name(s->param_reg));
	}
	fprintf(f, "%s\n", flags);
}

static void
print_header(FILE *f, const struct scanned *s)
{
	const struct sp_elf *e = &s->elf;
	char id[2 * SP_BUILD_ID_MAX + 1];

	sp_build_id_hex(e->build_id, e->build_id_len, id);
	fprintf(f, "%s: x86-64 %s, build-id %s\n", s->path,
	    sp_elf_kind_name(e->kind), id[0] ? id : "(none)");
	if (e->debug_path != NULL)
		fprintf(f, "  symbols from %s\n", e->debug_path);
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct sp_segment *g = &e->segs[i];
		if (!(g->flags & PF_X))
			continue;
		fprintf(f, "  executable segment 0x%" PRIx64 "-0x%" PRIx64
		    " %c%c%c\n", g->vaddr, g->vaddr + g->memsz,
		    g->flags & PF_R ? 'r' : '-', g->flags & PF_W ? 'w' : '-',
		    g->flags & PF_X ? 'x' : '-');
	}
	if (e->warning[0] != '\0')
		fprintf(f, "  warning: %s\n", e->warning);
	if (s->scan.used_pin_section)
		fprintf(f, "  pin section: .openbsd.syscalls is authoritative"
		    "%s\n", s->scan.pin_unmatched ? " (some entries name no "
		    "syscall instruction)" : "");
	else if (s->scan.pin_section_present)
		fprintf(f, "  pin section: rejected, %s; analysis used\n",
		    s->scan.pin_section_reason);
}

static void
print_extras(FILE *f, const struct scanned *s)
{
	const struct sp_scan *sc = &s->scan;

	for (size_t i = 0; i < sc->ngadgets; i++)
		fprintf(f, "  gadget 0x%08" PRIx64 "\n", sc->gadgets[i]);
	for (size_t i = 0; i < sc->nexports; i++)
		fprintf(f, "  export %s at 0x%" PRIx64 ": number in %s\n",
		    sc->exports[i].symbol, sc->exports[i].addr,
		    sp_reg_name(sc->exports[i].param_reg));
	for (size_t i = 0; i < sc->nimports; i++) {
		const struct sp_import *im = &sc->imports[i];
		fprintf(f, "  import %s(%s):", im->symbol,
		    sp_reg_name(im->param_reg));
		for (uint32_t k = 0; k < im->nr_count; k++)
			fprintf(f, " %u", sc->nrs[im->nr_first + k]);
		fprintf(f, "%s\n", im->unresolved ? " + unknown" : "");
	}
}

void
scan_print_text(FILE *f, const struct scanned *s, bool verbose)
{
	struct scan_summary sum;

	print_header(f, s);
	for (size_t i = 0; i < s->scan.nsites; i++)
		print_site(f, &s->scan, &s->scan.sites[i]);
	if (verbose)
		print_extras(f, s);
	scan_summarize(s, &sum);
	fprintf(f, "  summary: %zu sites, %zu exact (%.1f%%), %zu unresolved, "
	    "%zu distinct syscalls, %zu gadgets", sum.sites, sum.exact,
	    sum.exact_pct, sum.unresolved, sum.distinct, s->scan.ngadgets);
	if (sum.uncovered)
		fprintf(f, ", %zu without unwind info (%zu likely data)",
		    sum.uncovered, sum.likely_data);
	if (s->scan.nimports)
		fprintf(f, ", %zu imports", s->scan.nimports);
	if (s->scan.nexports)
		fprintf(f, ", %zu exports", s->scan.nexports);
	fputc('\n', f);
}
