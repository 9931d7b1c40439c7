/* SPDX-License-Identifier: ISC */
/*
 * syspin embed [--allow-partial] IN -o OUT
 *
 * Writes a copy of IN with the table `syspin scan IN` finds as an OpenBSD
 * pin table (.openbsd.syscalls + PT_OPENBSD_SYSCALLS): one entry per
 * (site, number) of every exact site.  A site whose numbers are not exact
 * cannot be described; embed refuses and lists them, unless
 * --allow-partial, which leaves them out (the table then omits them, and
 * `syspin scan OUT` flags them "not in pin section").
 *
 * Exit status: 0 OUT written; 1 refused because of unresolved sites;
 * 2 usage error, unreadable input, or a layout embed cannot extend.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"
#include "pins/openbsd.h"
#include "analysis/scan.h"

#include "cli.h"

static void
usage(FILE *f)
{
	fputs("usage: syspin embed [--allow-partial] IN -o OUT\n\n"
	    "Writes a copy of IN carrying the syscall table syspin scan "
	    "finds,\nas .openbsd.syscalls and PT_OPENBSD_SYSCALLS "
	    "(docs/embed.md).\n\n"
	    "  -o, --output FILE     where to write (never IN itself)\n"
	    "      --allow-partial   leave out sites whose numbers are not "
	    "exact\n"
	    "  -h, --help            this text\n\n"
	    "Exit status: 0 written, 1 unresolved sites (nothing written), "
	    "2 usage error or bad input.\n", f);
}

static void
list_unresolved(const struct sp_scan *scan)
{
	for (size_t i = 0; i < scan->nsites; i++) {
		const struct sp_site *s = &scan->sites[i];

		if (sp_site_is_exact(s))
			continue;
		fprintf(stderr, "  0x%08" PRIx64 "  %s: %s\n", s->addr,
		    sp_how_name(s->how), s->reason != NULL ? s->reason :
		    "numbers not known exactly");
	}
}

static int
embed(const char *in, const char *out, bool partial)
{
	struct sp_scan_opts opts = { .ignore_pin_section = true };
	struct sp_openbsd_entry *e = NULL;
	struct sp_error err = { "", 0 };
	struct sp_scan scan;
	struct sp_elf elf;
	size_t n, skipped;
	int rc = EXIT_TROUBLE;

	if (sp_elf_open(&elf, in, &err) != 0) {
		cli_error("%s: %s", in, err.msg);
		return EXIT_TROUBLE;
	}
	if (elf.has_pin_section) {
		cli_error("%s: already has a pin table (.openbsd.syscalls)",
		    in);
		sp_elf_close(&elf);
		return EXIT_TROUBLE;
	}
	if (sp_scan(&elf, &opts, &scan, &err) != 0) {
		cli_error("%s: %s", in, err.msg);
		sp_elf_close(&elf);
		return EXIT_TROUBLE;
	}
	if (sp_openbsd_entries_from_scan(&scan, &e, &n, &skipped,
	    &err) != 0) {
		cli_error("%s: %s", in, err.msg);
		goto done;
	}
	if (skipped > 0 && !partial) {
		cli_error("%s: %zu site%s without exact numbers; nothing "
		    "written (--allow-partial leaves them out):", in, skipped,
		    skipped == 1 ? "" : "s");
		list_unresolved(&scan);
		rc = EXIT_FINDINGS;
		goto done;
	}
	if (sp_openbsd_embed(&elf, out, e, n, &err) != 0) {
		cli_error("%s: %s", out, err.msg);
		goto done;
	}
	printf("%s: %zu entr%s from %zu site%s of %s", out, n,
	    n == 1 ? "y" : "ies", scan.nsites - skipped,
	    scan.nsites - skipped == 1 ? "" : "s", in);
	if (skipped > 0)
		printf("; %zu site%s left out (not in pin section)", skipped,
		    skipped == 1 ? "" : "s");
	printf("\n");
	rc = 0;
done:
	free(e);
	sp_scan_free(&scan);
	sp_elf_close(&elf);
	return rc;
}

int
cmd_embed(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "allow-partial", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	bool partial = false;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'P': partial = true; break;
		case 'h': usage(stdout); return 0;
		default: cli_try("embed"); return EXIT_TROUBLE;
		}
	}
	if (out == NULL || optind + 1 != argc) {
		cli_error("embed: %s", out == NULL ? "no -o OUT" :
		    "one FILE to embed a table into");
		cli_try("embed");
		return EXIT_TROUBLE;
	}
	return embed(argv[optind], out, partial);
}
