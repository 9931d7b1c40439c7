/* SPDX-License-Identifier: ISC */
/*
 * The attack suite: `attack MODE`.  Each attack performs, for real, what an
 * exploit would do once it controls the instruction pointer; each control
 * does the same thing the legitimate way.  Unpinned, every attack succeeds:
 * the syscall runs and the program exits 0 ("survived"), or a protected
 * mapping is replaced (exit 66).  attacks.sh checks both sides.
 *
 * Exit codes: 0 survived / control ok, 3 the operation was refused (EPERM),
 * 66 libc text was replaced, 1 the control misbehaved, 2 usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/ucontext.h>
#include <unistd.h>

/*
 * Our own syscall sites, with constant numbers: the analysis pins
 * sp_raw_getpid's trap for 39 only and sp_raw_exit's for 231 only.
 * sp_gadget_host hides "0f 05 c3" (syscall; ret) inside a mov immediate.
 */
__asm__(
    ".text\n"
    ".globl sp_raw_getpid\n"
    ".type sp_raw_getpid,@function\n"
    "sp_raw_getpid:\n"
    "	mov $39, %eax\n"
    "	syscall\n"
    "	ret\n"
    ".size sp_raw_getpid, .-sp_raw_getpid\n"
    ".globl sp_raw_exit\n"
    ".type sp_raw_exit,@function\n"
    "sp_raw_exit:\n"
    "	mov $231, %eax\n"
    "	syscall\n"
    "	hlt\n"
    ".size sp_raw_exit, .-sp_raw_exit\n"
    ".globl sp_gadget_host\n"
    ".type sp_gadget_host,@function\n"
    "sp_gadget_host:\n"
    "	push %rbx\n"
    "	mov $0xc3050f, %ebx\n"
    "	pop %rbx\n"
    "	ret\n"
    ".size sp_gadget_host, .-sp_gadget_host\n");

long sp_raw_getpid(void);
void sp_raw_exit(int) __attribute__((noreturn));
void sp_gadget_host(void);

/* Calls code at `at` with rax = nr and null arguments, as a ROP chain
 * would after popping registers; returns rax. */
static long
jump(const void *at, long nr)
{
	long ret;

	__asm__ volatile("xor %%edi, %%edi\n\t"
	    "xor %%esi, %%esi\n\t"
	    "xor %%edx, %%edx\n\t"
	    "call *%2"
	    : "=a"(ret) : "a"(nr), "r"(at)
	    : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
	return ret;
}

/* The first syscall instruction in the first bytes of fn. */
static const uint8_t *
find_trap(const void *fn)
{
	const uint8_t *p = fn;

	for (int i = 0; i < 64; i++)
		if (p[i] == 0x0f && p[i + 1] == 0x05)
			return p + i;
	return NULL;
}

static int
survived(long r)
{
	printf("survived (syscall returned %ld)\n", r);
	return 0;
}

/* Our getpid site (sp_raw_getpid + 5, past the mov) with execve's number. */
static int
own_nr(void)
{
	return survived(jump((const uint8_t *)sp_raw_getpid + 5, 59));
}

static int
own_nr_ok(void)
{
	return sp_raw_getpid() == getpid() ? 0 : 1;
}

static int
mid_insn(void)
{
	/* push %rbx (1) + mov opcode (1): the hidden 0f 05 c3. */
	return survived(jump((const uint8_t *)sp_gadget_host + 2, 39));
}

static int
mid_insn_ok(void)
{
	sp_gadget_host();
	return own_nr_ok();
}

/*
 * A ROP chain's call of libc's execve stub, found as a chain finds it:
 * from a known function and the distance between the two in this libc
 * (ATTACK_DELTA, from nm).  Nothing in this program execs, so with
 * reachable-only pins (the default) the stub is pinned for nothing.
 */
static int
rop_execve(void)
{
	const uint8_t *at = dlsym(RTLD_DEFAULT, "getpid");
	const char *d = getenv("ATTACK_DELTA");

	if (at == NULL || d == NULL) {
		fprintf(stderr, "attack: rop-execve needs ATTACK_DELTA\n");
		return 2;
	}
	return survived(jump(at + strtol(d, NULL, 0), 59));
}

static int
libc_site(long nr)
{
	const uint8_t *site = find_trap(dlsym(RTLD_DEFAULT, "getpid"));

	if (site == NULL) {
		fprintf(stderr, "attack: no syscall in libc's getpid\n");
		return 1;
	}
	return survived(jump(site, nr));
}

/*
 * glibc's setxid signal handler issues the number it reads through the
 * global xidcmd pointer (`mov (%rax),%eax; syscall`).  Unless the analysis
 * can show what is published there (lib/analysis/globals.c, with libc's
 * symbols), that `syscall` may issue any number: the one gadget a ROP
 * chain would need.  Here: exit_group(0) from it, the process then exits
 * 0.  77: no such instruction (another libc).
 */
static int
setxid_gadget(void)
{
	static const uint8_t pat[] = { 0x8b, 0x00, 0x0f, 0x05 };
	const uint8_t *hit = NULL;
	unsigned long lo, hi;
	char line[512], perm[8];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 ||
		    perm[2] != 'x' || strstr(line, "/libc.so.6") == NULL)
			continue;
		for (const uint8_t *p = (const uint8_t *)lo;
		    p + sizeof(pat) <= (const uint8_t *)hi; p++)
			if (memcmp(p, pat, sizeof(pat)) == 0) {
				hit = p + 2;
				n++;
			}
	}
	if (f != NULL)
		fclose(f);
	if (n != 1)
		return 77;
	return survived(jump(hit, 231));
}

/*
 * Sigreturn-oriented programming: a forged signal frame handed to libc's
 * own rt_sigreturn stub (pinned for 15: that call is allowed) sets every
 * register, rip included.  Here rip is libc's getpid `syscall` and rax
 * exit_group (231), rdi 0: the process exits 0 if that call runs.  The
 * kernel checks (231, getpid's site): not pinned there.  The control
 * makes getpid's own call from there, whose `ret` lands in srop_landing.
 */
static uint8_t srop_stack[4096] __attribute__((aligned(16)));
static ucontext_t srop_frame __attribute__((aligned(16)));

static void
srop_noop(int sig)
{
	(void)sig;
}

static void __attribute__((noreturn, used))
srop_landing(void)
{
	_exit(0);
}

static int
srop(long nr)
{
	const uint8_t *site = find_trap(dlsym(RTLD_DEFAULT, "getpid"));
	struct sigaction sa = { .sa_handler = srop_noop }, old;
	void (*restorer)(void);
	uint64_t *sp;

	/* glibc fills in its restorer; the kernel tells us where it is */
	if (site == NULL || sigaction(SIGUSR1, &sa, NULL) == -1 ||
	    sigaction(SIGUSR1, NULL, &old) == -1 ||
	    (restorer = old.sa_restorer) == NULL)
		return 77;
	/* at entry to srop_landing, as after a call: rsp = 8 mod 16 */
	sp = (uint64_t *)(srop_stack + sizeof(srop_stack) - 64);
	sp[0] = (uint64_t)(uintptr_t)srop_landing;
	memset(&srop_frame, 0, sizeof(srop_frame));
	greg_t *g = srop_frame.uc_mcontext.gregs;
	g[REG_RIP] = (greg_t)(uintptr_t)site;
	g[REG_RAX] = nr;
	g[REG_RDI] = 0;
	g[REG_RSP] = (greg_t)(uintptr_t)sp;
	g[REG_EFL] = 0x202;
	g[REG_CSGSFS] = 0x33 | (0x2bll << 48);	/* user cs, ss */
	/* rt_sigreturn reads the frame at rsp (its pretcode was popped) */
	__asm__ volatile("mov %0, %%rsp\n\tjmp *%1"
	    :: "r"(&srop_frame), "r"(restorer) : "memory");
	__builtin_unreachable();
}

static int
int80(void)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20) : "memory");
	return survived(r);
}

/* A second filter that allows everything cannot loosen the first. */
static int
second_filter(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
		printf("second filter: %s\n", strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0) == -1)
		printf("clear no_new_privs: %s\n", strerror(errno));
	return 0;
}

static void *
thread_attack(void *arg)
{
	(void)arg;
	own_nr();
	return NULL;
}

static void *
thread_ok(void *arg)
{
	*(int *)arg = own_nr_ok();
	return NULL;
}

static int
in_thread(void *(*fn)(void *))
{
	pthread_t t;
	int r = 0;

	if (pthread_create(&t, NULL, fn, &r) != 0)
		return 1;
	pthread_join(t, NULL);
	return fn == thread_attack ? survived(0) : r;
}

static const uint8_t code[] = {
	0xb8, 39, 0, 0, 0,	/* mov $39, %eax */
	0x0f, 0x05,		/* syscall */
	0xc3,			/* ret */
};

/* Code made at run time without a system call of its own. */
static const uint8_t quiet[] = {
	0xb8, 42, 0, 0, 0,	/* mov $42, %eax */
	0xc3,			/* ret */
};

/*
 * Writes code into a page and makes it executable, the way JIT compilers
 * do (V8, a JVM: code space reserved PROT_NONE, then written and
 * switched to executable).  With a system call in it, the attack: under
 * --allow-jit the code runs, from the late-code band, and its call dies.
 */
static int
jit(const uint8_t *c, size_t len)
{
	uint8_t *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);

	if (p == MAP_FAILED || mprotect(p, 4096, PROT_READ | PROT_WRITE) == -1)
		return 1;
	memcpy(p, c, len);
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) == -1) {
		printf("mprotect: %s\n", strerror(errno));
		return 3;
	}
	if (c == quiet)
		return ((long (*)(void))p)() == 42 ? 0 : 1;
	return survived(((long (*)(void))p)());
}

static uint8_t *
libc_page(void)
{
	uintptr_t a = (uintptr_t)find_trap(dlsym(RTLD_DEFAULT, "getpid"));

	return (uint8_t *)(a & ~(uintptr_t)4095);
}

/* Replacing libc's text under the pins; 66 when it worked. */
static int
remap(const char *how, uint8_t *target)
{
	void *src, *r;

	if (strcmp(how, "munmap") == 0) {
		if (munmap(target, 4096) == 0)
			sp_raw_exit(66);	/* libc is gone: no printf */
	} else if (strcmp(how, "mapfixed") == 0) {
		r = mmap(target, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (r != MAP_FAILED)
			sp_raw_exit(66);
	} else {
		src = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (src == MAP_FAILED)
			return 1;
		r = mremap(src, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED,
		    target);
		if (r != MAP_FAILED)
			sp_raw_exit(66);
	}
	printf("%s over libc text: %s\n", how, strerror(errno));
	return errno == EPERM ? 3 : 1;
}

/* The same three operations on our own anonymous memory must work. */
static int
remap_own(void)
{
	uint8_t *own = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *src;

	if (own == MAP_FAILED || munmap(own, 4096) == -1 ||
	    mmap(own + 4096, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return 1;
	src = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED || mremap(src, 4096, 4096, MREMAP_MAYMOVE |
	    MREMAP_FIXED, own + 2 * 4096) == MAP_FAILED)
		return 1;
	return 0;
}

/* The legacy vsyscall page's gettimeofday is pinned by the kernel ABI. */
static int
vsyscall_ok(void)
{
	long (*gtod)(struct timeval *, void *) = (void *)0xffffffffff600000;
	struct timeval tv;

	return gtod(&tv, NULL) == 0 && tv.tv_sec > 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	const char *m = argc == 2 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(m, "own-nr") == 0) return own_nr();
	if (strcmp(m, "own-nr-ok") == 0) return own_nr_ok();
	if (strcmp(m, "mid-insn") == 0) return mid_insn();
	if (strcmp(m, "mid-insn-ok") == 0) return mid_insn_ok();
	if (strcmp(m, "libc-wrong-nr") == 0) return libc_site(59);
	if (strcmp(m, "libc-right-nr") == 0) return libc_site(39);
	if (strcmp(m, "rop-execve") == 0) return rop_execve();
	if (strcmp(m, "setxid-gadget") == 0) return setxid_gadget();
	if (strcmp(m, "srop") == 0) return srop(231);
	if (strcmp(m, "srop-ok") == 0) return srop(39);
	if (strcmp(m, "int80") == 0) return int80();
	if (strcmp(m, "int80-ok") == 0) return getpid() > 0 ? 0 : 1;
	if (strcmp(m, "filter") == 0) return second_filter() || own_nr();
	if (strcmp(m, "filter-ok") == 0)
		return second_filter() || own_nr_ok();
	if (strcmp(m, "thread") == 0) return in_thread(thread_attack);
	if (strcmp(m, "thread-ok") == 0) return in_thread(thread_ok);
	if (strcmp(m, "jit") == 0) return jit(code, sizeof(code));
	if (strcmp(m, "jit-ok") == 0) return jit(quiet, sizeof(quiet));
	if (strcmp(m, "munmap") == 0 || strcmp(m, "mapfixed") == 0 ||
	    strcmp(m, "mremap") == 0)
		return remap(m, libc_page());
	if (strcmp(m, "remap-own") == 0) return remap_own();
	if (strcmp(m, "vsyscall-ok") == 0) return vsyscall_ok();
	fprintf(stderr, "usage: attack MODE\n");
	return 2;
}
