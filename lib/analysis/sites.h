/* SPDX-License-Identifier: ISC */
/* Sites while a scan is in progress, and turning them into sp_scan. */
#ifndef SYSPIN_ANALYSIS_SITES_H
#define SYSPIN_ANALYSIS_SITES_H

#include "analysis.h"

struct raw_site {
	uint64_t addr;
	uint8_t len, kind;
	struct unit *unit;
	/* Results: */
	uint8_t how, flags;
	int8_t param_reg;
	struct nrset nrs;
	const char *reason;
	uint64_t reason_addr;
	uint8_t nvia;
	uint64_t via_addr[MAX_EXPORT_VIA];
	int8_t via_param[MAX_EXPORT_VIA];
};

struct site_set {
	uint64_t *cand;		/* opcode byte positions, ascending */
	size_t ncand, capcand;
	struct raw_site *v;
	size_t n, cap;
};

int sp_site_set_candidate(struct site_set *ss, uint64_t addr);
int sp_site_set_add(struct site_set *ss, struct unit *u, const struct insn *in);
void sp_site_set_free(struct site_set *ss);

/* Infers every site's numbers. */
int sp_sites_resolve(struct analysis *a, struct site_set *ss);
/* Where the binary carries .openbsd.syscalls: its entries are the pins. */
int sp_pin_section_apply(struct analysis *a, struct site_set *ss,
    struct sp_scan *out, struct sp_error *err);
/* Appends a number set to out->nrs (capacity *cap). */
int sp_emit_nrset(struct sp_scan *out, size_t *cap, const struct nrset *set,
    uint32_t *first, uint32_t *count);
/* Fills out->sites, nrs, gadgets, exports. */
int sp_sites_emit(struct analysis *a, struct site_set *ss, struct sp_scan *out);
/* Calls to imported number-taking functions (syscall@plt). */
int sp_imports_emit(struct analysis *a, struct sp_scan *out);

#endif
