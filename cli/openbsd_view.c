/* SPDX-License-Identifier: ISC */
/*
 * syspin scan --openbsd FILE: the table OpenBSD would install, built by
 * sp_openbsd_pintable() exactly as elf_read_pintable + elf_adjustpins do.
 * Only the numbers with a non-zero pin are listed; every other number
 * below npins (and every number at or above it) is "not allowed".
 *
 * The table shown is the one syspin installs on Linux.  It differs from
 * OpenBSD's only in accepting number 0 (read(2) here, SYS_syscall there);
 * when OpenBSD would reject the table for that, a note says so.
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>

#include "pins/openbsd.h"

#include "cli.h"
#include "openbsd_view.h"

/* Linux x86-64 name of NR into buf ("#NR" when libseccomp has none). */
static const char *
nr_name(uint32_t nr, char *buf, size_t size)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64,
	    (int)nr);

	if (name != NULL)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "#%" PRIu32, nr);
	free(name);
	return buf;
}

static const char *
verdict(const struct sp_openbsd_pintable *pt)
{
	if (!pt->present)
		return "no table: OpenBSD installs none, and the first "
		    "system call of a static binary kills it";
	if (!pt->valid)
		return "table rejected (by syspin and OpenBSD): none is "
		    "installed, and the first system call of a static binary "
		    "kills it";
	return NULL;
}

static void
print_text(const struct sp_elf *elf, const struct sp_openbsd_pintable *pt,
    FILE *out)
{
	const struct sp_openbsd_region *r = &pt->region;
	char name[64];

	fprintf(out, "%s: OpenBSD pintable\n", elf->name);
	if (pt->ignored)
		fprintf(out, "  note: dynamic executable; OpenBSD reads only "
		    "libc's and ld.so's tables, never the program's own\n");
	fprintf(out, "  region 0x%" PRIx64 "-0x%" PRIx64 " (0x%" PRIx64
	    " bytes, executable PT_LOADs)\n", r->start, r->end,
	    r->end - r->start);
	if (verdict(pt) != NULL) {
		fprintf(out, "  %s\n", verdict(pt));
		if (pt->present)
			fprintf(out, "  reason: %s\n", pt->reason);
		return;
	}
	if (!pt->openbsd_valid)
		fprintf(out, "  note: OpenBSD would reject this table (%s); "
		    "syspin accepts number 0, read(2) on Linux\n",
		    pt->openbsd_reason);
	fprintf(out, "  npins %" PRIu32 "\n", pt->npins);
	for (uint32_t nr = 0; nr < pt->npins; nr++) {
		uint32_t v = pt->pins[nr];

		if (v == 0)
			continue;
		nr_name(nr, name, sizeof(name));
		if (v == SP_PIN_ANY)
			fprintf(out, "  %4" PRIu32 " %-22s -1 (anywhere in the "
			    "region)\n", nr, name);
		else
			fprintf(out, "  %4" PRIu32 " %-22s 0x%" PRIx32
			    " (0x%" PRIx64 ")\n", nr, name, v, r->start + v);
	}
	fprintf(out, "  every other number: not allowed (killed)\n");
}

static char *
hex(char *buf, size_t size, uint64_t v)
{
	snprintf(buf, size, "0x%" PRIx64, v);
	return buf;
}

static json_object *
pins_json(const struct sp_openbsd_pintable *pt)
{
	json_object *a = json_object_new_array(), *o;
	char name[64], addr[32];

	for (uint32_t nr = 0; pt->valid && nr < pt->npins; nr++) {
		uint32_t v = pt->pins[nr];

		if (v == 0)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "nr", json_object_new_int64(nr));
		json_object_object_add(o, "name", json_object_new_string(
		    nr_name(nr, name, sizeof(name))));
		json_object_object_add(o, "pin", json_object_new_int64(
		    v == SP_PIN_ANY ? -1 : (int64_t)v));
		json_object_object_add(o, "addr", v == SP_PIN_ANY ? NULL :
		    json_object_new_string(hex(addr, sizeof(addr),
		    pt->region.start + v)));
		json_object_array_add(a, o);
	}
	return a;
}

static int
print_json(const struct sp_elf *elf, const struct sp_openbsd_pintable *pt,
    FILE *out)
{
	json_object *root = json_object_new_object(), *r;
	char buf[32];
	int rc;

	json_object_object_add(root, "file", json_object_new_string(
	    elf->name));
	json_object_object_add(root, "present",
	    json_object_new_boolean(pt->present));
	json_object_object_add(root, "valid",
	    json_object_new_boolean(pt->valid));
	json_object_object_add(root, "reason", pt->present && !pt->valid ?
	    json_object_new_string(pt->reason) : NULL);
	json_object_object_add(root, "openbsd_valid",
	    json_object_new_boolean(pt->present && pt->openbsd_valid));
	json_object_object_add(root, "openbsd_reason",
	    pt->present && !pt->openbsd_valid ?
	    json_object_new_string(pt->openbsd_reason) : NULL);
	json_object_object_add(root, "ignored",
	    json_object_new_boolean(pt->ignored));
	r = json_object_new_object();
	json_object_object_add(r, "start", json_object_new_string(
	    hex(buf, sizeof(buf), pt->region.start)));
	json_object_object_add(r, "end", json_object_new_string(
	    hex(buf, sizeof(buf), pt->region.end)));
	json_object_object_add(root, "region", r);
	json_object_object_add(root, "npins",
	    json_object_new_int64(pt->valid ? pt->npins : 0));
	json_object_object_add(root, "pins", pins_json(pt));
	rc = fprintf(out, "%s\n", json_object_to_json_string_ext(root,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0;
	json_object_put(root);
	return rc ? -1 : 0;
}

int
cli_print_openbsd(const struct sp_elf *elf, bool json, FILE *out)
{
	struct sp_openbsd_pintable pt;
	struct sp_error err;
	int rc = 0;

	if (sp_openbsd_pintable(elf, &pt, &err) != 0) {
		cli_error("%s: %s", elf->name, err.msg);
		return -1;
	}
	if (json)
		rc = print_json(elf, &pt, out);
	else
		print_text(elf, &pt, out);
	sp_openbsd_pintable_free(&pt);
	if (ferror(out))
		rc = -1;
	return rc;
}
