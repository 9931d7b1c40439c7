/* SPDX-License-Identifier: ISC */
/*
 * `syspin scan --json`, built with json-c.  The format is documented in
 * docs/scan-json.md; addresses are "0x..." strings (JSON numbers lose
 * precision above 2^53).
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>

#include "names.h"
#include "scan.h"

static json_object *
hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_object_new_string(buf);
}

static json_object *
site_flags(unsigned flags)
{
	json_object *a = json_object_new_array();

	if (flags & SP_SITE_UNCOVERED)
		json_object_array_add(a, json_object_new_string("uncovered"));
	if (flags & SP_SITE_LIKELY_DATA)
		json_object_array_add(a, json_object_new_string("likely-data"));
	if (flags & SP_SITE_NOT_PINNED)
		json_object_array_add(a, json_object_new_string("not-pinned"));
	return a;
}

static json_object *
site_json(const struct sp_scan *sc, const struct sp_site *s)
{
	json_object *o = json_object_new_object();
	json_object *nums = json_object_new_array();
	json_object *names = json_object_new_array();
	char name[64];

	json_object_object_add(o, "addr", hex(s->addr));
	json_object_object_add(o, "kind",
	    json_object_new_string(sp_trap_kind_name(s->kind)));
	json_object_object_add(o, "length", json_object_new_int(s->length));
	json_object_object_add(o, "abi", json_object_new_string(
	    s->kind == SP_TRAP_SYSCALL ? "x86_64" : "i386"));
	json_object_object_add(o, "how",
	    json_object_new_string(sp_how_name(s->how)));
	for (uint32_t k = 0; k < s->nr_count; k++) {
		uint32_t nr = sp_site_nr(sc, s, k);
		json_object_array_add(nums, json_object_new_int64(nr));
		json_object_array_add(names, json_object_new_string(
		    syscall_name(s->kind, nr, name, sizeof(name))));
	}
	json_object_object_add(o, "numbers", nums);
	json_object_object_add(o, "names", names);
	json_object_object_add(o, "exact",
	    json_object_new_boolean(sp_site_is_exact(s)));
	json_object_object_add(o, "function", hex(s->function));
	json_object_object_add(o, "param", s->param_reg >= 0 ?
	    json_object_new_string(sp_reg_name(s->param_reg)) : NULL);
	json_object_object_add(o, "reason", s->reason ?
	    json_object_new_string(s->reason) : NULL);
	json_object_object_add(o, "reason_addr", s->reason_addr ?
	    hex(s->reason_addr) : NULL);
	json_object_object_add(o, "flags", site_flags(s->flags));
	return o;
}

static json_object *
segments_json(const struct sp_elf *e)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < e->nsegs; i++) {
		const struct sp_segment *g = &e->segs[i];
		char fl[4] = { g->flags & PF_R ? 'r' : '-',
		    g->flags & PF_W ? 'w' : '-', g->flags & PF_X ? 'x' : '-' };
		json_object *o;
		if (!(g->flags & PF_X))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "vaddr", hex(g->vaddr));
		json_object_object_add(o, "memsz", hex(g->memsz));
		json_object_object_add(o, "offset", hex(g->offset));
		json_object_object_add(o, "flags", json_object_new_string(fl));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *
links_json(const struct sp_scan *sc)
{
	json_object *o = json_object_new_object();
	json_object *im = json_object_new_array(), *ex = json_object_new_array();

	for (size_t i = 0; i < sc->nimports; i++) {
		const struct sp_import *m = &sc->imports[i];
		json_object *x = json_object_new_object(), *n =
		    json_object_new_array();
		json_object_object_add(x, "symbol",
		    json_object_new_string(m->symbol));
		json_object_object_add(x, "param",
		    json_object_new_string(sp_reg_name(m->param_reg)));
		for (uint32_t k = 0; k < m->nr_count; k++)
			json_object_array_add(n, json_object_new_int64(
			    sc->nrs[m->nr_first + k]));
		json_object_object_add(x, "numbers", n);
		json_object_object_add(x, "unresolved",
		    json_object_new_boolean(m->unresolved));
		json_object_array_add(im, x);
	}
	for (size_t i = 0; i < sc->nexports; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "symbol",
		    json_object_new_string(sc->exports[i].symbol));
		json_object_object_add(x, "addr", hex(sc->exports[i].addr));
		json_object_object_add(x, "param", json_object_new_string(
		    sp_reg_name(sc->exports[i].param_reg)));
		json_object_array_add(ex, x);
	}
	json_object_object_add(o, "imports", im);
	json_object_object_add(o, "exports", ex);
	return o;
}

static json_object *
summary_json(const struct scanned *s)
{
	struct scan_summary sum;
	json_object *o = json_object_new_object();

	scan_summarize(s, &sum);
	json_object_object_add(o, "sites", json_object_new_int64(
	    (int64_t)sum.sites));
	json_object_object_add(o, "exact", json_object_new_int64(
	    (int64_t)sum.exact));
	json_object_object_add(o, "exact_percent",
	    json_object_new_double(sum.exact_pct));
	json_object_object_add(o, "unresolved", json_object_new_int64(
	    (int64_t)sum.unresolved));
	json_object_object_add(o, "distinct_syscalls",
	    json_object_new_int64((int64_t)sum.distinct));
	json_object_object_add(o, "gadgets", json_object_new_int64(
	    (int64_t)s->scan.ngadgets));
	json_object_object_add(o, "uncovered", json_object_new_int64(
	    (int64_t)sum.uncovered));
	json_object_object_add(o, "likely_data", json_object_new_int64(
	    (int64_t)sum.likely_data));
	json_object_object_add(o, "decoded_bytes", json_object_new_int64(
	    (int64_t)s->scan.stats.decoded_bytes));
	json_object_object_add(o, "exec_bytes", json_object_new_int64(
	    (int64_t)s->scan.stats.exec_bytes));
	return o;
}

static json_object *
file_json(const struct scanned *s)
{
	json_object *o = json_object_new_object(), *sites, *gadgets, *links;
	char id[2 * SP_BUILD_ID_MAX + 1];

	sp_build_id_hex(s->elf.build_id, s->elf.build_id_len, id);
	json_object_object_add(o, "path", json_object_new_string(s->path));
	json_object_object_add(o, "arch", json_object_new_string("x86_64"));
	json_object_object_add(o, "type",
	    json_object_new_string(sp_elf_kind_name(s->elf.kind)));
	json_object_object_add(o, "build_id", id[0] ?
	    json_object_new_string(id) : NULL);
	json_object_object_add(o, "debug_file", s->elf.debug_path ?
	    json_object_new_string(s->elf.debug_path) : NULL);
	json_object_object_add(o, "segments", segments_json(&s->elf));
	sites = json_object_new_array();
	for (size_t i = 0; i < s->scan.nsites; i++)
		json_object_array_add(sites, site_json(&s->scan,
		    &s->scan.sites[i]));
	json_object_object_add(o, "sites", sites);
	gadgets = json_object_new_array();
	for (size_t i = 0; i < s->scan.ngadgets; i++)
		json_object_array_add(gadgets, hex(s->scan.gadgets[i]));
	json_object_object_add(o, "gadgets", gadgets);
	links = links_json(&s->scan);
	json_object_object_add(o, "imports",
	    json_object_get(json_object_object_get(links, "imports")));
	json_object_object_add(o, "exports",
	    json_object_get(json_object_object_get(links, "exports")));
	json_object_put(links);
	json_object *pin = json_object_new_object();
	json_object_object_add(pin, "present",
	    json_object_new_boolean(s->scan.pin_section_present));
	json_object_object_add(pin, "used",
	    json_object_new_boolean(s->scan.used_pin_section));
	json_object_object_add(pin, "reason", s->scan.pin_section_reason[0] ?
	    json_object_new_string(s->scan.pin_section_reason) : NULL);
	json_object_object_add(pin, "unmatched_entries",
	    json_object_new_int64((int64_t)s->scan.pin_unmatched));
	json_object_object_add(o, "pin_section", pin);
	json_object_object_add(o, "warning", s->elf.warning[0] ?
	    json_object_new_string(s->elf.warning) : NULL);
	json_object_object_add(o, "summary", summary_json(s));
	return o;
}

int
scan_print_json(FILE *f, const struct scanned *v, size_t n)
{
	json_object *root = json_object_new_object();
	json_object *files = json_object_new_array();
	json_object *errors = json_object_new_array();
	int rc;

	for (size_t i = 0; i < n; i++) {
		if (v[i].ok) {
			json_object_array_add(files, file_json(&v[i]));
			continue;
		}
		json_object *e = json_object_new_object();
		json_object_object_add(e, "path",
		    json_object_new_string(v[i].path));
		json_object_object_add(e, "error",
		    json_object_new_string(v[i].error));
		json_object_array_add(errors, e);
	}
	json_object_object_add(root, "files", files);
	json_object_object_add(root, "errors", errors);
	rc = fprintf(f, "%s\n", json_object_to_json_string_ext(root,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0;
	json_object_put(root);
	return rc ? -1 : 0;
}
