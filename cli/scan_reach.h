/* SPDX-License-Identifier: ISC */
/* `syspin scan --reach`: shared between the driver and its printers. */
#ifndef SYSPIN_CLI_SCAN_REACH_H
#define SYSPIN_CLI_SCAN_REACH_H

#include <json-c/json.h>
#include <stdio.h>

#include "reach/reach.h"

#include "scan.h"

/* One program's process image. */
struct rprog {
	struct scanned *v;	/* the program first, the vDSO last */
	size_t n;
	struct sp_reach_facts *facts;	/* per layout object */
	struct sp_layout lo;
	long *obj;		/* v[i] -> layout object, or -1 */
	struct sp_reach_count *before, *after;	/* per layout object */
	struct sp_reach_report rep;
	/* ld.so's exec sites, where it is the interpreter: start-up code
	 * (dl_main runs a program by name), never pinned by syspin run
	 * (sp_placement_drop_loader_exec); not in after */
	size_t startup_sites, startup_pairs;
};

void reach_text(FILE *f, const struct rprog *p);
json_object *reach_json(const struct rprog *p);

#endif
