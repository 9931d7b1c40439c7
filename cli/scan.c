/* SPDX-License-Identifier: ISC */
/*
 * syspin scan [--json] [--full-sweep] [--openbsd] [--vdso] [FILE...]
 *
 * Exit status: 0 every input was scanned; 2 usage error, or some input
 * could not be read or is not a supported ELF (the others are still
 * reported).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "openbsd_view.h"
#include "scan.h"

static void
usage(FILE *f)
{
	fputs("usage: syspin scan [--json] [--full-sweep] [--verbose] "
	    "[--vdso] FILE...\n"
	    "       syspin scan --openbsd [--json] FILE...\n"
	    "       syspin scan --reach [--json] PROG...\n\n"
	    "Finds every syscall instruction in each ELF file and the numbers "
	    "it can issue.\n\n"
	    "  -j, --json            machine-readable output (see "
	    "docs/scan-json.md)\n"
	    "  -f, --full-sweep      decode every executable byte (slower; "
	    "same sites)\n"
	    "  -v, --verbose         also list gadgets, imports and exports\n"
	    "      --vdso            scan the running kernel's vDSO\n"
	    "      --openbsd         print the pintable OpenBSD would build "
	    "from .openbsd.syscalls\n"
	    "      --no-pin-section  ignore .openbsd.syscalls; analyse only\n"
	    "      --reach           per PROG: the sites its process can reach "
	    "and the numbers\n"
	    "                        pruning removes (docs/design.md)\n"
	    "  -h, --help            this text\n\n"
	    "Exit status: 0 all inputs scanned, 2 usage error or an input "
	    "could not be read.\n", f);
}

static int
parse_args(int argc, char **argv, struct scan_args *a)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "full-sweep", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "vdso", no_argument, NULL, 'V' },
		{ "openbsd", no_argument, NULL, 'O' },
		{ "no-pin-section", no_argument, NULL, 'N' },
		{ "reach", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "jfvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': a->json = true; break;
		case 'f': a->full_sweep = true; break;
		case 'v': a->verbose = true; break;
		case 'V': a->vdso = true; break;
		case 'O': a->openbsd = true; break;
		case 'N': a->no_pin_section = true; break;
		case 'R': a->reach = true; break;
		case 'h': usage(stdout); exit(0);
		default: cli_try("scan"); return -1;
		}
	}
	if (optind == argc && !a->vdso) {
		cli_error("scan: no input files");
		cli_try("scan");
		return -1;
	}
	return 0;
}

/* Hints: the built-in ones plus every export found so far. */
struct hints {
	struct sp_param_hint *v;
	size_t n;
};

static int
hints_add_exports(struct hints *h, const struct sp_scan *scan)
{
	for (size_t i = 0; i < scan->nexports; i++) {
		bool dup = false;
		for (size_t j = 0; j < h->n && !dup; j++)
			dup = strcmp(h->v[j].symbol, scan->exports[i].symbol) ==
			    0;
		if (dup)
			continue;
		void *v = realloc(h->v, (h->n + 1) * sizeof(*h->v));
		if (v == NULL)
			return -1;
		h->v = v;
		h->v[h->n++] = (struct sp_param_hint){ scan->exports[i].symbol,
		    scan->exports[i].param_reg };
	}
	return 0;
}

/* Does this object import a hinted name the default hints lack? */
static bool
imports_new_hint(const struct sp_elf *elf, const struct hints *h, size_t from)
{
	for (size_t j = from; j < h->n; j++) {
		for (size_t i = 0; i < elf->nplt; i++)
			if (strcmp(elf->plt[i].name, h->v[j].symbol) == 0)
				return true;
		for (size_t i = 0; i < elf->ngot; i++)
			if (strcmp(elf->got[i].name, h->v[j].symbol) == 0)
				return true;
	}
	return false;
}

static void
scan_one(struct scanned *s, const struct scan_args *a, const struct hints *h)
{
	struct sp_scan_opts opts = { .full_sweep = a->full_sweep,
	    .ignore_pin_section = a->no_pin_section, .hints = h->v,
	    .nhints = h->n };
	struct sp_error err = { "", 0 };

	sp_scan_free(&s->scan);
	if (sp_scan(&s->elf, &opts, &s->scan, &err) != 0) {
		snprintf(s->error, sizeof(s->error), "%s", err.msg);
		s->ok = false;
		sp_elf_close(&s->elf);
	}
}

static void
load_one(struct scanned *s, const char *path, bool vdso)
{
	struct sp_error err = { "", 0 };
	int rc;

	s->path = path;
	rc = vdso ? vdso_load(&s->elf, &err) : sp_elf_open(&s->elf, path, &err);
	s->ok = rc == 0;
	if (!s->ok)
		snprintf(s->error, sizeof(s->error), "%s", err.msg);
}

/*
 * Two passes: the first finds exported number-taking functions (libc's
 * syscall()), the second rescans the objects that import one of them so
 * their calls become import records, whatever the order of the files.
 */
void
scan_all(struct scanned *v, size_t n, const struct scan_args *a)
{
	struct hints h = { 0 };
	size_t ndefault;
	const struct sp_param_hint *d = sp_scan_default_hints(&ndefault);

	h.v = malloc(ndefault * sizeof(*h.v));
	if (h.v != NULL) {
		memcpy(h.v, d, ndefault * sizeof(*d));
		h.n = ndefault;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].ok) {
			scan_one(&v[i], a, &h);
			if (v[i].ok)
				hints_add_exports(&h, &v[i].scan);
		}
	for (size_t i = 0; i < n && h.n > ndefault; i++)
		if (v[i].ok && imports_new_hint(&v[i].elf, &h, ndefault))
			scan_one(&v[i], a, &h);
	free(h.v);
}

static int
report(struct scanned *v, size_t n, const struct scan_args *a)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		if (!v[i].ok) {
			cli_error("%s: %s", v[i].path, v[i].error);
			rc = EXIT_TROUBLE;
		}
	if (a->openbsd) {
		for (size_t i = 0; i < n; i++)
			if (v[i].ok && cli_print_openbsd(&v[i].elf, a->json,
			    stdout) != 0)
				rc = EXIT_TROUBLE;
	} else if (a->json) {
		if (scan_print_json(stdout, v, n) != 0)
			rc = EXIT_TROUBLE;
	} else {
		for (size_t i = 0; i < n; i++)
			if (v[i].ok)
				scan_print_text(stdout, &v[i], a->verbose);
	}
	if (fflush(stdout) != 0) {
		cli_error("scan: write error on standard output");
		rc = EXIT_TROUBLE;
	}
	return rc;
}

int
cmd_scan(int argc, char **argv)
{
	struct scan_args a = { 0 };
	struct scanned *v;
	size_t n = 0;
	int rc;

	if (parse_args(argc, argv, &a) != 0)
		return EXIT_TROUBLE;
	if (a.reach)
		return scan_reach(argc - optind, argv + optind, &a);
	v = calloc((size_t)(argc - optind) + 1, sizeof(*v));
	if (v == NULL) {
		cli_error("scan: out of memory");
		return EXIT_TROUBLE;
	}
	if (a.vdso)
		load_one(&v[n++], "[vdso]", true);
	for (int i = optind; i < argc; i++)
		load_one(&v[n++], argv[i], false);
	if (!a.openbsd)
		scan_all(v, n, &a);
	rc = report(v, n, &a);
	for (size_t i = 0; i < n; i++) {
		sp_scan_free(&v[i].scan);
		if (v[i].ok)
			sp_elf_close(&v[i].elf);
	}
	free(v);
	return rc;
}
