/* SPDX-License-Identifier: ISC */
/*
 * The runtime alone (no supervisor): new code goes into the late-code
 * band all the same.  The filter answers a mapping that must be placed
 * (ld.so reserving room for a dlopen'ed object, any mmap of new code that
 * names no address) with SECCOMP_RET_TRAP: the call does not run, and
 * this SIGSYS handler makes it again, MAP_FIXED in the band, from our own
 * mmap instruction (lib/util/raw.S), whose pins allow exactly that.  The
 * caller gets the new address as the call's result.
 *
 * Nothing here is enforcement: a program that replaces the handler only
 * loses its placements.  A forged call of the handler maps, at worst,
 * code into the band, where no system call may come from.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <ucontext.h>

#include "bpf/bpf.h"

#include "util/raw.h"
#include "rt.h"

#define PAGE 4096ull
#define HUGE (2ull << 20)
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1	/* si_code of a filter's SIGSYS */
#endif

static _Atomic uint64_t next;
static bool reserved, strict;

static uint64_t
rnd(uint64_t n)
{
	uint64_t r = 0;

	return getrandom(&r, sizeof(r), GRND_NONBLOCK) == sizeof(r) ? r % n :
	    0;
}

/* len bytes of the band after a random gap; 0 when it is full. */
static uint64_t
take(uint64_t len)
{
	uint64_t align = len >= HUGE ? HUGE : PAGE, a, old, want;
	uint64_t arena_end = SP_BAND_START + SP_BAND_ARENA;

	len = (len + PAGE - 1) & ~(PAGE - 1);
	old = atomic_load(&next);
	do {
		a = (old + rnd(256) * PAGE + align - 1) & ~(align - 1);
		/* the arena is replaced only whole: what would stick out of
		 * it goes after it */
		if (a < arena_end && a + len > arena_end)
			a = (arena_end + rnd(256) * PAGE + align - 1) &
			    ~(align - 1);
		if (len >= SP_BAND_END - SP_BAND_MARGIN - a)
			return 0;
		want = a + len + PAGE;
	} while (!atomic_compare_exchange_weak(&next, &old, want));
	return a;
}

static void
on_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	uint64_t at, flags;
	int saved = errno;

	if (si->si_code != SYS_SECCOMP || si->si_errno != SP_BPF_PLACE_DATA ||
	    si->si_syscall != 9) {
		/* Not ours: what SIGSYS would have done. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	if (strict) {		/* no new code at all */
		g[REG_RAX] = -EACCES;
		return;
	}
	if ((at = take((uint64_t)g[REG_RSI])) == 0) {
		g[REG_RAX] = -ENOMEM;
		return;
	}
	flags = ((uint64_t)g[REG_R10] & ~(uint64_t)(MAP_FIXED |
	    MAP_FIXED_NOREPLACE)) | (reserved && at + (uint64_t)g[REG_RSI] <=
	    SP_BAND_START + SP_BAND_ARENA ? MAP_FIXED : MAP_FIXED_NOREPLACE);
	g[REG_RAX] = sp_raw_mmap(at, (uint64_t)g[REG_RSI],
	    (uint64_t)g[REG_RDX], flags, (uint64_t)g[REG_R8],
	    (uint64_t)g[REG_R9]);
	errno = saved;
}

bool
rt_place_init(bool no_new_code)
{
	uint64_t guard = SP_BAND_START - SP_BAND_GUARD;
	struct sigaction sa;
	long r;

	strict = no_new_code;
	/* what grows down in the band stops at a sealed page below it
	 * (lib/supervise/pin.c, reserve_arena) */
	if (sp_raw_mmap(guard, SP_BAND_GUARD, PROT_NONE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0) !=
	    (long)guard || sp_raw_mseal(guard, SP_BAND_GUARD, 0) != 0)
		return false;
	r = sp_raw_mmap(SP_BAND_START, SP_BAND_ARENA, PROT_NONE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	reserved = (uint64_t)r == SP_BAND_START;
	atomic_store(&next, SP_BAND_START + rnd(1u << 18) * PAGE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSYS, &sa, NULL);
	return true;
}
