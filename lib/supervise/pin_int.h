/* SPDX-License-Identifier: ISC */
/* pin.c internals shared with fallback.c. */
#ifndef SYSPIN_PIN_INT_H
#define SYSPIN_PIN_INT_H

#include <sys/user.h>

#include <syspin/supervise.h>

struct job {
	pid_t pid;
	const struct sp_pin_opts *o;
	struct sp_layout lo;
	struct sp_placement pl;
	struct sp_bpf_prog *progs;
	size_t nprogs;
	struct sp_inject in;
	struct user_regs_struct regs;	/* as stopped: restored at the end */
	uint64_t area;			/* where the programs are written */
	size_t area_len;
	void *saved;			/* the stack bytes under them */
};

/* Runs nr(a0, a1, a2) in the tracee at its trap. */
int pin_call(struct job *j, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
    long *ret, struct sp_error *err);
int pin_install_progs(struct job *j, const struct sp_bpf_prog *progs,
    size_t nprogs, long *kret, struct sp_error *err);
/* The supervisor checks j's whole program from now on (fallback.c). */
int pin_hand_over(struct job *j, struct sp_pin_result *res, long check_data,
    size_t nkept, long trace_all);
/* The whole filter did not fit (fallback.c). */
int pin_fallback(struct job *j, struct sp_pin_result *res,
    struct sp_error *err);

#endif
