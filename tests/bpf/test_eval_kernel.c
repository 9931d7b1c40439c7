/* SPDX-License-Identifier: ISC */
/*
 * The evaluator (lib/bpf/eval.c) against the kernel, on random programs.
 * The supervisor judges calls with the evaluator, so where the two
 * disagree a verdict is wrong.  Each case runs in a forked child that
 * installs one to three random programs, issues one harmless call (a
 * random number among getppid, getpid, getuid, gettid, sched_yield, with
 * random arguments) from a stub whose address we know, and records what
 * happened in shared memory: the call's result, or the SIGSYS of a TRAP
 * and its data, or death by SIGSYS.  The evaluator's answer for the same
 * seccomp_data, mapped to what the kernel makes of it, must match:
 * ALLOW/LOG run the call, ERRNO returns -min(data, 4095), TRACE and
 * USER_NOTIF with no tracer or listener return -ENOSYS, TRAP raises
 * SIGSYS with the data, everything else kills.  Programs the evaluator's
 * check refuses must be refused by the kernel (EINVAL) and the others
 * accepted.  The seed is printed; SYSPIN_SEED repeats a run.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpf/bpf.h"

#include "stubs.h"

#define CASES 1500
#define MAXLEN 48
#define MAXPROGS 3
#define OWN_ID LONG_MIN		/* getpid, gettid: the child's own */

/* What the child saw. */
enum seen { S_RETURNED = 1, S_TRAPPED, S_REFUSED, S_KILLED };

struct shared {
	int seen;
	long ret;		/* S_RETURNED: the result; S_REFUSED: errno */
	int trap_data;		/* S_TRAPPED: si_errno */
	int refused;		/* S_REFUSED: which program */
};

static struct shared *sh;
static uint64_t rng;
static size_t tally[S_KILLED + 1];	/* outcomes seen, for the log */

static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static const long numbers[] = { SYS_getppid, SYS_getpid, SYS_getuid,
    SYS_gettid, SYS_sched_yield };

/* A constant for a comparison or a return: often one the data holds. */
static uint32_t
constant(const struct seccomp_data *d)
{
	uint32_t w[sizeof(*d) / 4];

	memcpy(w, d, sizeof(w));
	switch (rnd() % 4) {
	case 0: return w[rnd() % (sizeof(w) / 4)];
	case 1: return w[rnd() % (sizeof(w) / 4)] + (rnd() % 3) - 1;
	case 2: return rnd() % 64;
	default: return rnd();
	}
}

static uint32_t
action(void)
{
	static const uint32_t acts[] = { SECCOMP_RET_ALLOW, SECCOMP_RET_LOG,
	    SECCOMP_RET_ERRNO, SECCOMP_RET_TRAP, SECCOMP_RET_TRACE,
	    SECCOMP_RET_USER_NOTIF, SECCOMP_RET_KILL_PROCESS,
	    SECCOMP_RET_KILL_THREAD, 0x00010000u };
	uint32_t data = rnd() % 3 == 0 ? rnd() & 0xffff : rnd() % 200;

	return acts[rnd() % (sizeof(acts) / sizeof(*acts))] | data;
}

static const uint16_t alu_ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV,
    BPF_AND, BPF_OR, BPF_XOR, BPF_LSH, BPF_RSH, BPF_NEG };
static const uint16_t jmp_ops[] = { BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET };

/* One instruction at pc of a program of n; mostly valid ones. */
static struct sock_filter
insn(const struct seccomp_data *d, size_t pc, size_t n)
{
	size_t room = n - pc - 2;	/* instructions between here and the
					   last, which is a return */
	uint16_t op, src = rnd() % 2 ? BPF_X : BPF_K;
	uint32_t k;

	switch (rnd() % 10) {
	case 0: case 1:
		return (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    (rnd() % 16) * 4);
	case 2:
		op = alu_ops[rnd() % (sizeof(alu_ops) / sizeof(*alu_ops))];
		k = op == BPF_LSH || op == BPF_RSH ? rnd() % 32 :
		    op == BPF_DIV ? 1 + rnd() % 7 : constant(d);
		if (op == BPF_NEG)
			src = BPF_K;
		return (struct sock_filter)BPF_STMT(BPF_ALU | op | src, k);
	case 3: case 4: case 5:
		op = jmp_ops[rnd() % (sizeof(jmp_ops) / sizeof(*jmp_ops))];
		return (struct sock_filter)BPF_JUMP(BPF_JMP | op | src,
		    constant(d), room ? rnd() % (room + 1) : 0,
		    room ? rnd() % (room + 1) : 0);
	case 6:
		return (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
		    room ? rnd() % (room + 1) : 0);
	case 7:
		switch (rnd() % 6) {
		case 0: return (struct sock_filter)BPF_STMT(BPF_ST,
			    rnd() % BPF_MEMWORDS);
		case 1: return (struct sock_filter)BPF_STMT(BPF_STX,
			    rnd() % BPF_MEMWORDS);
		case 2: return (struct sock_filter)BPF_STMT(BPF_LD | BPF_MEM,
			    rnd() % 8 ? rnd() % 2 : rnd() % BPF_MEMWORDS);
		case 3: return (struct sock_filter)BPF_STMT(BPF_LDX |
			    BPF_W | BPF_MEM,
			    rnd() % 8 ? rnd() % 2 : rnd() % BPF_MEMWORDS);
		case 4: return (struct sock_filter)BPF_STMT(BPF_MISC |
			    BPF_TAX, 0);
		default: return (struct sock_filter)BPF_STMT(BPF_MISC |
			    BPF_TXA, 0);
		}
	case 8:
		switch (rnd() % 4) {
		case 0: return (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM,
			    constant(d));
		case 1: return (struct sock_filter)BPF_STMT(BPF_LDX |
			    BPF_W | BPF_IMM, rnd() % 2 ? rnd() % 40 :
			    constant(d));
		case 2: return (struct sock_filter)BPF_STMT(BPF_LD | BPF_W |
			    BPF_LEN, 0);
		default: return (struct sock_filter)BPF_STMT(BPF_LDX |
			    BPF_W | BPF_LEN, 0);
		}
	default:
		return rnd() % 3 ? (struct sock_filter)BPF_STMT(BPF_RET |
		    BPF_K, action()) : (struct sock_filter)BPF_STMT(BPF_RET |
		    BPF_A, 0);
	}
}

/* Something the kernel refuses, sometimes: a bad opcode, operand, jump. */
static void
spoil(struct sock_filter *f, size_t n)
{
	size_t pc = rnd() % n;

	switch (rnd() % 6) {
	case 0: f[pc] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H |
		    BPF_ABS, 0); break;
	case 1: f[pc] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W |
		    BPF_ABS, 4 * (rnd() % 20) + (rnd() % 2 ? 2 : 0)); break;
	case 2: f[pc] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_DIV |
		    BPF_K, 0); break;
	case 3: f[pc] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_MOD |
		    BPF_K, 3); break;
	case 4: f[pc] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
		    BPF_K, 0, (uint8_t)(n - pc), 0); break;
	default: f[n - 1] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM,
		    1); break;
	}
}

/* A program that allows seccomp(2) and exit_group first (so that the
 * next one can be installed and the child can end), then random
 * instructions. */
static size_t
program(struct sock_filter *f, const struct seccomp_data *d)
{
	size_t n = 6 + rnd() % (MAXLEN - 12), pc = 0, i;

	f[pc++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	f[pc++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    SYS_seccomp, 1, 0);
	f[pc++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    SYS_exit_group, 0, 1);
	f[pc++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	/* slots 0 and 1 written on every path, so that reads of them are
	 * valid; the other slots test the check */
	f[pc++] = (struct sock_filter)BPF_STMT(BPF_ST, 0);
	f[pc++] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_W | BPF_IMM,
	    constant(d));
	f[pc++] = (struct sock_filter)BPF_STMT(BPF_STX, 1);
	n += pc;
	for (i = pc; i + 1 < n; i++)
		f[i] = insn(d, i, n);
	f[n - 1] = rnd() % 4 ? (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    action()) : (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	/* Often, A itself comes back as an errno: 12 of its bits seen. */
	if (rnd() % 2) {
		f[n - 3] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND |
		    BPF_K, 0xfff);
		f[n - 2] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_OR |
		    BPF_K, SECCOMP_RET_ERRNO);
		f[n - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
	}
	if (rnd() % 16 == 0)
		spoil(f + pc, n - pc);
	return n;
}

static void
on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	sh->seen = S_TRAPPED;
	sh->trap_data = si->si_errno;
	_exit(0);
}

static void
child(const struct sp_bpf_prog *p, size_t np, const struct seccomp_data *d)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		_exit(3);
	for (i = np; i-- > 0;) {	/* as sp_bpf_install: p[0] last */
		struct sock_fprog fp = { (unsigned short)p[i].len,
		    p[i].insns };
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp)) {
			sh->seen = S_REFUSED;
			sh->ret = errno;
			sh->refused = (int)i;
			_exit(0);
		}
	}
	sh->ret = sp_stub_a((long)d->nr, (long)d->args[0], (long)d->args[1],
	    (long)d->args[2], (long)d->args[3], (long)d->args[4],
	    (long)d->args[5]);
	sh->seen = S_RETURNED;
	_exit(0);
}

/* What the kernel does with the evaluator's answer. */
static void
expect(uint32_t r, long real, struct shared *want)
{
	uint32_t data = r & SECCOMP_RET_DATA;

	memset(want, 0, sizeof(*want));
	switch (r & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
		want->seen = S_RETURNED;
		want->ret = real;
		break;
	case SECCOMP_RET_ERRNO:
		want->seen = S_RETURNED;
		want->ret = -(long)(data > 4095 ? 4095 : data);
		break;
	case SECCOMP_RET_TRACE:
	case SECCOMP_RET_USER_NOTIF:
		want->seen = S_RETURNED;
		want->ret = -ENOSYS;
		break;
	case SECCOMP_RET_TRAP:
		want->seen = S_TRAPPED;
		want->trap_data = (int)data;
		break;
	default:
		want->seen = S_KILLED;
	}
}

/* The call's own result in the child, unfiltered. */
static long
real_result(long nr)
{
	switch (nr) {
	case SYS_getppid: return getpid();	/* the child's parent: us */
	case SYS_sched_yield: return 0;
	case SYS_getuid: return getuid();
	default: return OWN_ID;	/* the child's pid: checked apart */
	}
}

static bool
same(const struct shared *got, const struct shared *want, long nr)
{
	if (got->seen != want->seen)
		return false;
	if (got->seen == S_TRAPPED)
		return got->trap_data == want->trap_data;
	if (got->seen != S_RETURNED)
		return true;
	if (want->ret != OWN_ID)
		return got->ret == want->ret;
	return (nr == SYS_getpid || nr == SYS_gettid) && got->ret > 0;
}

static void
describe(const struct sp_bpf_prog *p, size_t np)
{
	for (size_t i = 0; i < np; i++) {
		print_message("  program %zu:\n", i);
		for (size_t k = 0; k < p[i].len; k++)
			print_message("    %3zu: code %#06x jt %3u jf %3u k "
			    "%#x\n", k, p[i].insns[k].code, p[i].insns[k].jt,
			    p[i].insns[k].jf, p[i].insns[k].k);
	}
}

/* One case; false (and a description) on a disagreement. */
static bool
one_case(void)
{
	struct sock_filter f[MAXPROGS][MAXLEN];
	struct sp_bpf_prog p[MAXPROGS];
	struct seccomp_data d;
	struct shared want;
	size_t np = 1 + rnd() % MAXPROGS, i;
	int refused = -1, status;
	pid_t pid;

	memset(&d, 0, sizeof(d));
	d.nr = (int)numbers[rnd() % (sizeof(numbers) / sizeof(*numbers))];
	d.arch = AUDIT_ARCH_X86_64;
	d.instruction_pointer = SITE_IP(sp_stub_a_site);
	for (i = 0; i < 6; i++)
		d.args[i] = rnd() % 2 ? rnd() : ((uint64_t)rnd() << 32) | rnd();
	for (i = 0; i < np; i++) {
		p[i].insns = f[i];
		p[i].len = program(f[i], &d);
		if (refused == -1 && sp_bpf_check(p[i].insns, p[i].len, NULL,
		    0) == -1)
			refused = (int)i;
	}
	memset(sh, 0, sizeof(*sh));
	if ((pid = fork()) == 0)
		child(p, np, &d);
	if (pid == -1 || waitpid(pid, &status, 0) != pid)
		fail_msg("fork/wait: %s", strerror(errno));
	if (sh->seen == 0 && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGSYS)
		sh->seen = S_KILLED;
	if (sh->seen == 0)
		fail_msg("the child ended with status %#x", status);
	if (refused >= 0 || sh->seen == S_REFUSED) {
		/* the kernel installs the last program first */
		int first_bad = -1;
		for (i = np; i-- > 0;)
			if (sp_bpf_check(p[i].insns, p[i].len, NULL, 0) == -1) {
				first_bad = (int)i;
				break;
			}
		tally[S_REFUSED]++;
		if (sh->seen == S_REFUSED && sh->ret == EINVAL &&
		    sh->refused == first_bad)
			return true;
		print_message("check: evaluator refuses program %d, kernel "
		    "%s program %d (errno %ld)\n", first_bad,
		    sh->seen == S_REFUSED ? "refused" : "accepted every",
		    sh->refused, sh->ret);
		describe(p, np);
		return false;
	}
	tally[sh->seen]++;
	expect(sp_bpf_run_all(p, np, &d, NULL), real_result(d.nr), &want);
	if (same(sh, &want, d.nr))
		return true;
	print_message("nr %d: evaluator %#x (seen %d ret %ld trap %d), "
	    "kernel: seen %d ret %ld trap %d\n", d.nr,
	    sp_bpf_run_all(p, np, &d, NULL), want.seen, want.ret,
	    want.trap_data, sh->seen, sh->ret, sh->trap_data);
	describe(p, np);
	return false;
}

static void
test_random(void **state)
{
	const char *seed = getenv("SYSPIN_SEED");
	size_t i, bad = 0;

	(void)state;
	rng = seed != NULL ? strtoull(seed, NULL, 0) :
	    (uint64_t)time(NULL) * 2654435761u + (uint64_t)getpid();
	if (rng == 0)
		rng = 1;
	print_message("seed %#llx (SYSPIN_SEED repeats it)\n",
	    (unsigned long long)rng);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(sh != MAP_FAILED);
	for (i = 0; i < CASES && bad < 3; i++)
		if (!one_case())
			bad++;
	munmap(sh, sizeof(*sh));
	print_message("%zu cases: %zu returned, %zu trapped, %zu refused, "
	    "%zu killed\n", i, tally[S_RETURNED], tally[S_TRAPPED],
	    tally[S_REFUSED], tally[S_KILLED]);
	assert_int_equal(bad, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
