/* SPDX-License-Identifier: ISC */
/* pin.c internals shared with startup.c and fallback.c. */
#ifndef SYSPIN_PIN_INT_H
#define SYSPIN_PIN_INT_H

#include <sys/user.h>

#include "supervise/supervise.h"
#include "layout/placement.h"
#include "util/raw.h"
#include "verify.h"

/* ldso_run.c: what ld.so run by name was told (`ld.so [OPT]... PROG`). */
struct sp_ldso_run {
	char *prog;		/* PROG when it runs it, else NULL */
	char *library_path;	/* --library-path, or NULL */
	char *preload;		/* --preload, or NULL */
	bool inhibit_cache;	/* --inhibit-cache */
	bool audit;		/* --audit */
};

int sp_ldso_run_read(pid_t pid, struct sp_ldso_run *r);
void sp_ldso_run_free(struct sp_ldso_run *r);

struct job {
	pid_t pid;
	const struct sp_pin_opts *o;
	unsigned flags;			/* o->flags, and this image's own */
	bool first;			/* the tree's first image */
	bool own_filters;		/* the tree installed filters */
	struct sp_auxv aux;
	struct sp_layout lo;
	struct sp_placement pl;
	struct sp_bpf_prog *progs;
	size_t nprogs;
	struct sp_inject in;
	struct user_regs_struct regs;	/* as stopped: restored at the end */
	/* a dynamic image's start-up objects (startup.c) */
	struct sp_slot *slots;
	size_t nslots;
	uint64_t slot_lo, slot_used, slot_hi;
	/* ld.so run by name: it is the program (SP_OBJ_FILE, loader) */
	bool ldso_exe;
	/* ... and runs PROG, slots[0], whose entry is this far into it */
	bool ldso_runs;
	uint64_t prog_entry_off;
	/* the process's filter count before our installs, and the programs
	 * the kernel accepted since; the ranges our mseal calls named */
	struct sp_proc_state st;	/* its status as the pin began */
	long filters;
	size_t installed;
	bool nnp;			/* we set no_new_privs */
	struct sp_seals seals;
};

/* Does the image get start-up slots (a dynamic one, or ld.so PROG)?
 * Where it stops to have them sealed: AT_ENTRY, or PROG's entry. */
bool sp_startup_slots(const struct job *j);
uint64_t sp_startup_entry(const struct job *j);

/* reach.c: drops the sites the image's code cannot reach from its
 * tables (lib/reach/reach.c); -v says how many pins are left. */
int sp_pin_reach(struct job *j, struct sp_error *err);
void sp_pin_say(const struct job *j, const struct sp_pin_result *res);

/* Runs nr(a0..a5) in the tracee at its trap. */
int sp_pin_call(struct job *j, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
    uint64_t a3, long *ret, struct sp_error *err);
/* mseal(2) of [a, a + len) in the tracee, remembered for verify.c. */
int sp_pin_seal(struct job *j, uint64_t a, uint64_t len, struct sp_error *err);
int sp_pin_mmap(struct job *j, uint64_t addr, uint64_t len, uint64_t prot,
    uint64_t flags, long *ret, struct sp_error *err);
/* install.c: programs installed by the tracee (TSYNC), from a sealed
 * memfd (sealed.c): 0 with *kret 0, or with *kret the kernel's -errno for
 * the first it refused; -1 when the injection failed; the registers put
 * back. */
int sp_pin_install_progs(struct job *j, const struct sp_bpf_prog *progs,
    size_t nprogs, long *kret, struct sp_error *err);
int sp_pin_restore(struct job *j, struct sp_error *err);
/* pin.c: the late-code band's arena reserved (its guard sealed); the
 * program of a running process (j->pid, j->o set); what the result
 * keeps, taken from j. */
int sp_pin_reserve_arena(struct job *j, struct sp_error *err);
/* A sealed PROT_NONE page at the bottom of an executable main stack's
 * growth region (the layout's "[stack]"): it grows no further, whatever
 * RLIMIT_STACK is set later.  Nothing where the stack is not executable. */
int sp_pin_guard_stack(struct job *j, struct sp_error *err);
int sp_pin_nnp(struct job *j, struct sp_error *err);
int sp_pin_build_running(struct job *j, struct sp_error *err);
void sp_pin_hand_over(struct job *j, struct sp_pin_result *res);
void sp_pin_job_free(struct job *j);
/* The narrowing of the run into in (--deny, --allow). */
void sp_pin_narrow(const struct job *j, struct sp_bpf_input *in);
/* reuse.c: moves the image to the addresses a (the same program) has,
 * whose filter then judges it.  1 moved, 0 not the same or no room (pin
 * it afresh), -1 with err (half moved: it must not run). */
int sp_pin_reuse(struct job *j, const struct sp_pin_result *a,
    struct sp_error *err);
/* fallback.c: one instruction that stops every call; what is installed
 * when the whole filter did not fit. */
int sp_pin_trace_all(struct job *j, struct sp_error *err);
int sp_pin_fallback(struct job *j, struct sp_pin_result *res,
    struct sp_error *err);

/* startup.c: the slots of a dynamic image's start-up objects (predicted,
 * laid out from 0), then placed (at a random distance below ld.so, or at
 * x) and added to its layout; and their reservation in the tracee. */
int sp_startup_predict(struct job *j, struct sp_error *err);
/* Marks the object whose mmap places objects: the interpreter, or the
 * program when it is a loader run by name (`ld.so PROG`). */
void sp_startup_mark_loader(struct job *j);
int sp_startup_place(struct job *j, struct sp_error *err);
int sp_startup_place_at(struct job *j, uint64_t x, struct sp_error *err);
int sp_startup_reserve(struct job *j, struct sp_error *err);
void sp_startup_free(struct sp_slot *slots, size_t n);

#endif
