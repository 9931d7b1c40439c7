/* SPDX-License-Identifier: ISC */
/* Building an object's reachability facts (reach_facts.c, reach_data.c). */
#ifndef SYSPIN_ANALYSIS_REACH_INT_H
#define SYSPIN_ANALYSIS_REACH_INT_H

#include "analysis/reach.h"

#include "analysis.h"

struct rf_vec {
	struct sp_reach_edge *v;
	size_t n, cap;
};

struct rf_build {
	struct analysis *a;
	struct rf_vec edges, calls, exports;
	uint32_t *roots;
	size_t nroots, caproots;
	char *str;			/* strtab being built */
	size_t nstr, capstr;
	uint32_t *hash;			/* name -> offset + 1, open
					   addressing */
	size_t caphash, nhash;
	size_t undecoded;		/* bytes the decoder could not read */
	unsigned name_searches;		/* reach_names.c's budget */
};

/* Appends from -> to; -1 out of memory. */
int sp_rf_push(struct rf_vec *v, uint32_t from, uint32_t to);
/* The strtab offset of name, added once; UINT32_MAX out of memory. */
uint32_t sp_rf_name(struct rf_build *b, const char *name, size_t len);
/* The function index of a code address, or -1. */
long sp_rf_func(const struct rf_build *b, uint64_t addr);
/* Function f (or SP_REACH_ALWAYS) holds addr: when it is a PLT stub, the
 * import is called: 1; 0 not a stub; -1 out of memory. */
int sp_rf_plt_ref(struct rf_build *b, uint32_t f, uint64_t addr);
/* A function that runs without any caller in the object. */
int sp_rf_root(struct rf_build *b, uint64_t addr);
/* A NUL-terminated identifier at addr in e's data, or NULL. */
const char *sp_rf_string_at(const struct sp_elf *e, uint64_t addr,
    size_t *len);
/* The names the dlsym call at addr in u can ask for: 1 with
 * names[0..*n) (lens: their lengths), 0 when they are not bounded. */
int sp_rf_dlsym_names(struct rf_build *b, struct unit *u, uint64_t addr,
    const char **names, size_t *lens, size_t max, size_t *n);
/* Code addresses, names and roots found in data and relocations. */
int sp_rf_data(struct rf_build *b);

#endif
