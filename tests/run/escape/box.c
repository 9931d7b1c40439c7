/* SPDX-License-Identifier: ISC */
/*
 * The escape battery's third round (`escape_box MODE MARK [ARG]`): routes
 * through the mechanisms that closed the earlier ones (the late-code
 * band, the rescue of later.c, the tables it believes).  Same contract as
 * escape.c: the effect is mkdir(MARK) made where no pin allows it (or,
 * where said, a step that must be refused succeeding); exit 3 when a step
 * was refused, 77 when not applicable.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ldso_trap.h"

#define BAND_START 0x110000000000ull
#define PAGE 4096

/* mov $83, %eax; syscall; ret -- mkdir(rdi, rsi). */
static const uint8_t code[] = { 0xb8, 83, 0, 0, 0, 0x0f, 0x05, 0xc3 };
typedef long (*mkdir_fn)(const char *, long);

static const char *mark;

static int
refused(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	return 3;
}

static int
report(long r)
{
	printf("mkdir returned %ld\n", r);
	return r == 0 ? 0 : 3;
}

static const char *
tmpdir(void)
{
	const char *t = getenv("ESC_TMP");

	return t != NULL && *t != '\0' ? t : "/tmp";
}

static char *
helper(const char *name)
{
	static char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	char *s, *p;

	if (n <= 0)
		exit(1);
	dir[n] = '\0';
	if ((s = strrchr(dir, '/')) != NULL)
		*s = '\0';
	if (asprintf(&p, "%s/%s", dir, name) == -1)
		exit(1);
	return p;
}

/* A memfd of one page holding bytes. */
static int
code_memfd(const void *bytes, size_t n)
{
	int fd = memfd_create("escape-box", MFD_CLOEXEC);

	if (fd == -1 || ftruncate(fd, PAGE) == -1 ||
	    pwrite(fd, bytes, n, 0) != (ssize_t)n)
		return -1;
	return fd;
}

/* Four RW pages at an address of ours above the band (with --allow-jit an
 * anonymous mapping that names no address is placed in the band). */
static uint8_t *
outside(void)
{
	uint8_t *at = (uint8_t *)0x300000000000ull + (getpid() & 0xffff) *
	    (uint64_t)(1u << 20), *p;

	p = mmap(at, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	return p == at ? p : NULL;
}

/*
 * Executable code at the band's first page, by the route the mode
 * leaves open: a file mapping MAP_FIXED there (no --allow-jit needed),
 * else anonymous memory made executable in place (--allow-jit).
 */
static uint8_t *
code_at_band_start(void)
{
	uint8_t *at = (uint8_t *)BAND_START, *p;
	int fd = code_memfd(code, sizeof(code));

	if (fd != -1) {
		p = mmap(at, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE |
		    MAP_FIXED, fd, 0);
		close(fd);
		if (p == at)
			return p;
		printf("file code at the band's start: %s\n", strerror(errno));
	}
	p = mmap(at, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED |
	    MAP_ANONYMOUS, -1, 0);
	if (p != at)
		return NULL;
	memcpy(p, code, sizeof(code));
	if (mprotect(p, PAGE, PROT_READ | PROT_EXEC) == -1) {
		printf("anonymous code at the band's start: %s\n",
		    strerror(errno));
		return NULL;
	}
	return p;
}

/*
 * Linux 6.17+: one mremap(MREMAP_FIXED) moves every mapping of its old
 * range.  An ordinary RW page just below the band and code at the band's
 * start go together to an address outside image and band, where the
 * filters allow any number.  Stopped: a step refused, or the call killed.
 */
static int
mremap_span(void)
{
	uint8_t *below = (uint8_t *)BAND_START - PAGE, *x, *to, *q;

	if ((x = code_at_band_start()) == NULL)
		return refused("code at the band's start");
	if (mmap(below, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_FIXED | MAP_ANONYMOUS, -1, 0) != below)
		return refused("data below the band");
	if ((to = outside()) == NULL)
		return 1;
	q = mremap(below, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
	    to + PAGE);
	if (q == MAP_FAILED) {
		if (errno == EINVAL)	/* a kernel before 6.17: one at a time */
			return 77;
		return refused("mremap of the two mappings");
	}
	printf("moved %p+2 pages to %p\n", (void *)below, (void *)q);
	return report(((mkdir_fn)(q + PAGE))(mark, 0755));
}

/*
 * The same from inside the band: code moved out with the pages after it
 * (a range that starts in the band and ends past its allowed room).
 */
static int
mremap_tail(void)
{
	uint8_t *to, *q, *x;
	int fd = code_memfd(code, sizeof(code));

	if (fd == -1)
		return refused("memfd");
	x = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (x == MAP_FAILED)
		return refused("mmap PROT_EXEC");
	if ((to = outside()) == NULL)
		return 1;
	q = mremap(x, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, to + PAGE);
	if (q == MAP_FAILED)
		return refused("mremap");
	return report(((mkdir_fn)q)(mark, 0755));
}

/* libescape_rescue.so, dlopen'ed: it passes 9 and 250 to syscall(). */
static void *
rescue_fn(const char *name)
{
	void *h = dlopen(helper("libescape_rescue.so"), RTLD_NOW);

	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		return NULL;
	}
	return dlsym(h, name);
}

/*
 * A call that later.c lets through (a late object's number to libc's
 * syscall()) asks for an RWX mapping at an address of its choosing,
 * outside the band.  Stopped: refused (EACCES) or killed.
 */
static int
rescue_mmap(void)
{
	void *(*m)(void *, size_t, long, long) = rescue_fn("esc_rescue_mmap");
	uint8_t *at, *p;

	if (m == NULL)
		return refused("libescape_rescue.so");
	if ((at = outside()) == NULL)
		return 1;
	p = m(at, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE |
	    MAP_FIXED | MAP_ANONYMOUS);
	if (p == MAP_FAILED)
		return refused("mmap RWX through syscall()");
	memcpy(p, code, sizeof(code));
	return report(((mkdir_fn)p)(mark, 0755));
}

/*
 * The same rescue asks for keyctl(KEYCTL_GET_PERSISTENT), which every
 * filter denies: the keyring that holds the cache's key.  The effect,
 * when it works: MARK made (legitimately) with the keyring in hand.
 */
static int
rescue_keyctl(void)
{
	long (*k)(long, long, long) = rescue_fn("esc_rescue_keyctl");
	long r;

	if (k == NULL)
		return refused("libescape_rescue.so");
	r = k(22 /* KEYCTL_GET_PERSISTENT */, -1, -2 /* process keyring */);
	if (r < 0) {
		errno = errno ? errno : EPERM;
		return refused("keyctl(KEYCTL_GET_PERSISTENT)");
	}
	printf("persistent keyring %ld\n", r);
	return mkdir(mark, 0755) == 0 ? 0 : refused("mkdir");
}

static int
copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	if (in == -1)
		return -1;
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755)) == -1) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	close(in);
	close(out);
	return n == 0 ? 0 : -1;
}

/*
 * A library the tree wrote (a copy of libescape_sys.so, which passes 83
 * to syscall()), dlopen'ed: later.c believes the table of its file.
 * The route pinning leaves open where exec of a written file is (the
 * default --exec=any); --exec=trusted and --exec=none must stop it.
 */
static int
later_written(void)
{
	char path[PATH_MAX];
	long (*f)(const char *);
	void *h;

	snprintf(path, sizeof(path), "%s/written.%ld.so", tmpdir(),
	    (long)getpid());
	if (copy_file(helper("libescape_sys.so"), path) == -1)
		return refused("copy");
	h = dlopen(path, RTLD_NOW);	/* left on disk: a deleted file
					   is not believed */
	if (h == NULL) {
		printf("dlopen: %s\n", dlerror());
		return 3;
	}
	if ((f = (long (*)(const char *))dlsym(h, "esc_sys_mkdir")) == NULL)
		return 1;
	return report(f(mark));
}

/*
 * /proc/PID/maps writes a newline in a name as "\012".  Code of ours
 * (mov %rcx,%rax; call *%rax; ret: a call of libc's syscall() that
 * returns into our file) lives in DIR\n/f, mapped MAP_FIXED into the
 * band; DIR\\012/f (a real backslash) is a link to libescape_sys.so,
 * whose table passes 83 to syscall().  A supervisor that reads the path
 * and opens it believes the other file's table.  Stopped: refused, or
 * killed.
 */
static int
later_newline(void)
{
	static const uint8_t tramp[] = { 0x48, 0x89, 0xc8, 0xff, 0xd0, 0xc3 };
	char d1[PATH_MAX], d2[PATH_MAX], f1[PATH_MAX + 8], f2[PATH_MAX + 8];
	long (*t)(long, const char *, long, void *);
	uint8_t *at = (uint8_t *)BAND_START + 64 * PAGE, *p;
	int fd;

	snprintf(d1, sizeof(d1), "%s/nl.%ld\n", tmpdir(), (long)getpid());
	snprintf(d2, sizeof(d2), "%s/nl.%ld\\012", tmpdir(), (long)getpid());
	snprintf(f1, sizeof(f1), "%s/f", d1);
	snprintf(f2, sizeof(f2), "%s/f", d2);
	if (mkdir(d1, 0755) == -1 || mkdir(d2, 0755) == -1 ||
	    symlink(helper("libescape_sys.so"), f2) == -1)
		return refused("setup");
	if ((fd = open(f1, O_RDWR | O_CREAT, 0755)) == -1 ||
	    ftruncate(fd, PAGE) == -1 ||
	    pwrite(fd, tramp, sizeof(tramp), 0) != (ssize_t)sizeof(tramp))
		return refused("code file");
	p = mmap(at, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd,
	    0);
	close(fd);
	if (p == MAP_FAILED)
		return refused("mmap MAP_FIXED into the band");
	t = (long (*)(long, const char *, long, void *))(void *)p;
	return report(t(83, mark, 0755, dlsym(RTLD_DEFAULT, "syscall")));
}

/* ---- the cache's key (lib/pins/cache_mac.c) ---- */

#define KEY_NAME "syspin:cache-mac:v1"

static long
kctl(long op, long a, long b, long c)
{
	return syscall(SYS_keyctl, op, a, b, c, 0L);
}

/*
 * Not an attack: `escape_box with-persistent session|user CMD...` runs
 * CMD with the user's persistent keyring linked into a session keyring
 * of its own (as Kerberos' KEYRING:persistent caches do), or into the
 * user keyring or the user session keyring (undone when CMD ends), syspin's key made there first
 * when missing (as syspin would).
 */
static int
with_persistent(const char *where, char **cmd)
{
	long dest = strcmp(where, "user") == 0 ? KEY_SPEC_USER_KEYRING :
	    strcmp(where, "usersession") == 0 ?
	    KEY_SPEC_USER_SESSION_KEYRING : KEY_SPEC_SESSION_KEYRING, ring;
	uint8_t rnd[32];
	int st = 3 << 8;
	pid_t c;

	if (kctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0) == -1 ||
	    (ring = kctl(KEYCTL_GET_PERSISTENT, -1, dest, 0)) == -1)
		return refused("persistent keyring");
	/* searched from where it was linked: possessed there */
	if (kctl(KEYCTL_SEARCH, dest, (long)"user", (long)KEY_NAME) != -1 ||
	    (getrandom(rnd, sizeof(rnd), 0) == sizeof(rnd) &&
	    syscall(SYS_add_key, "user", KEY_NAME, rnd, sizeof(rnd), ring) !=
	    -1)) {
		if ((c = fork()) == 0) {
			execvp(cmd[0], cmd);
			_exit(127);
		}
		if (c == -1 || waitpid(c, &st, 0) != c)
			st = 1 << 8;
	} else
		printf("the cache key: %s\n", strerror(errno));
	if (dest != KEY_SPEC_SESSION_KEYRING)	/* the user's again */
		kctl(KEYCTL_UNLINK, ring, dest, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * Not an attack: `escape_box with-decoy CMD...` runs CMD with a key named
 * as syspin's cache key, which is not it, in the user keyring (a tree can
 * plant one there: it must not stop every later run of its user), and
 * removes it when CMD ends.
 */
static int
with_decoy(char **cmd)
{
	int st = 3 << 8;
	long id;
	pid_t c;

	if ((id = syscall(SYS_add_key, "user", KEY_NAME, "decoy", 5,
	    KEY_SPEC_USER_KEYRING)) == -1)
		return refused("add_key in the user keyring");
	if ((c = fork()) == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	if (c == -1 || waitpid(c, &st, 0) != c)
		st = 1 << 8;
	kctl(KEYCTL_UNLINK, id, KEY_SPEC_USER_KEYRING, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * Inside the tree: the cache's key through any keyring the process
 * possesses (its session, the user keyring, the user session keyring).
 * The effect: MARK made with the key's bytes in hand.
 */
static int
key_read(void)
{
	static const long rings[] = { KEY_SPEC_SESSION_KEYRING,
		KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING };
	uint8_t key[64];
	long id, n;

	/* the user's keyrings linked into the session, which the process
	 * possesses: what they hold is possessed through it */
	for (size_t i = 1; i < sizeof(rings) / sizeof(*rings); i++)
		if ((id = kctl(KEYCTL_GET_KEYRING_ID, rings[i], 0, 0)) != -1)
			kctl(KEYCTL_LINK, id, KEY_SPEC_SESSION_KEYRING, 0);
	for (size_t i = 0; i < sizeof(rings) / sizeof(*rings); i++) {
		if ((id = kctl(KEYCTL_SEARCH, rings[i], (long)"user",
		    (long)KEY_NAME)) == -1)
			continue;
		if ((n = kctl(KEYCTL_READ, id, (long)key, sizeof(key))) > 0) {
			printf("read %ld bytes of the cache key\n", n);
			return mkdir(mark, 0755) == 0 ? 0 : refused("mkdir");
		}
	}
	return refused("the cache key");
}

/* ---- ld.so's own execve, after the entry point ---- */

/*
 * A chain jumps to ld.so's execve site with rax = 59 and runs
 * /bin/mkdir MARK: ld.so's start-up is long over.  Stopped: killed.
 */
static int
ldso_execve(void)
{
	const uint8_t *trap = ldso_execve_trap();
	char *av[] = { "mkdir", (char *)mark, NULL }, *ev[] = { NULL };
	long r;

	if (trap == NULL) {
		printf("no execve site in ld.so here\n");
		return 77;
	}
	__asm__ volatile("call *%[t]" : "=a"(r) : "a"(59L),
	    "D"("/bin/mkdir"), "S"(av), "d"(ev), [t] "r"(trap)
	    : "rcx", "r11", "memory");
	errno = (int)-r;
	return refused("execve through ld.so");
}

/* ---- the clock that dates files (--exec=trusted, --exec=none) ---- */

/*
 * Setting the system clock (to what it reads: nothing moves, but the call
 * worked) is what dating a written file before the run needs.  The
 * effect: MARK made with the clock in hand.
 */
static int
clock_set(void)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME, &now) == -1 ||
	    clock_settime(CLOCK_REALTIME, &now) == -1)
		return refused("clock_settime");
	return mkdir(mark, 0755) == 0 ? 0 : refused("mkdir");
}

/* ---- perf: samples of another process's registers and stack ---- */

/*
 * perf_event_open of our parent (`syspin run` itself when pinned: the
 * supervisor, which computes the cache's MACs), or of every task on CPU 0
 * (which includes it), with user-stack sampling: the effect is MARK made
 * with the event in hand.
 */
static int
perf_open(bool every)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER |
	    PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = 0xff;
	a.sample_stack_user = 8192;
	a.disabled = 1;
	a.exclude_kernel = 1;	/* what an ordinary user may ask */
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, every ? -1 : (long)getppid(),
	    every ? 0 : -1, -1, 0);
	if (fd < 0)
		return refused("perf_event_open");
	printf("perf event %ld on %s\n", fd, every ? "every task" :
	    "the parent");
	return mkdir(mark, 0755) == 0 ? 0 : refused("mkdir");
}

/*
 * A uprobe on our own code (root): once it fires, the kernel maps its
 * executable trampoline page (with a `syscall` in it) into the process,
 * outside every range a filter knows.  The effect: MARK made with the
 * uprobe in hand.
 */
static int
perf_uprobe(void)
{
	struct perf_event_attr a;
	char self[PATH_MAX];
	unsigned type;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	long fd;

	if (f == NULL || fscanf(f, "%u", &type) != 1 || n <= 0) {
		printf("no uprobe PMU here\n");
		return 77;
	}
	fclose(f);
	self[n] = '\0';
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config1 = (uint64_t)(uintptr_t)self;	/* uprobe_path */
	a.config2 = 0x1000;			/* an offset in it */
	a.disabled = 1;
	fd = syscall(SYS_perf_event_open, &a, 0L, -1L, -1L, 0L);
	if (fd < 0)
		return refused("perf_event_open (uprobe)");
	return mkdir(mark, 0755) == 0 ? 0 : refused("mkdir");
}

/* ---- what runs commands for whoever talks to it (tmux, the bus) ---- */

static socklen_t
unix_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (name[0] == '@') {	/* abstract */
		strncpy(a->sun_path + 1, name + 1, sizeof(a->sun_path) - 2);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
		    strlen(name + 1));
	}
	strncpy(a->sun_path, name, sizeof(a->sun_path) - 1);
	return (socklen_t)sizeof(*a);
}

/*
 * Not an attack: `escape_box cmd-server NAME READY` stands for tmux, screen
 * or a session bus outside the tree: it listens on the unix socket NAME
 * (a path, or @name), creates READY, and runs each "mkdir PATH" line a
 * client sends.  It exits after 120 s.
 */
static int
cmd_server(const char *name, const char *ready)
{
	struct sockaddr_un a;
	socklen_t len = unix_addr(&a, name);
	char line[4200];
	int s, c, fd;
	ssize_t n;

	alarm(120);
	if (name[0] != '@')
		unlink(name);
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&a, len) == -1 || listen(s, 16) == -1 ||
	    (fd = open(ready, O_WRONLY | O_CREAT, 0644)) == -1)
		return 1;
	close(fd);
	for (;;) {
		if ((c = accept(s, NULL, NULL)) == -1)
			continue;
		if ((n = read(c, line, sizeof(line) - 1)) > 6) {
			line[n] = '\0';
			line[strcspn(line, "\n")] = '\0';
			if (strncmp(line, "mkdir ", 6) == 0)
				mkdir(line + 6, 0755);
		}
		close(c);
	}
}

/* Talks to the command server at name, by hand: "mkdir MARK". */
static int
ask_server(const char *name)
{
	struct sockaddr_un a;
	socklen_t len = unix_addr(&a, name);
	char line[4200];
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	if (s == -1 || connect(s, (struct sockaddr *)&a, len) == -1)
		return refused("connect");
	snprintf(line, sizeof(line), "mkdir %s\n", mark);
	if (write(s, line, strlen(line)) != (ssize_t)strlen(line))
		return refused("write");
	close(s);
	for (int i = 0; i < 50 && access(mark, F_OK) != 0; i++)
		usleep(20000);
	return access(mark, F_OK) == 0 ? 0 : 3;
}

/* The same through a link the tree makes to the socket. */
static int
ask_via_link(const char *name)
{
	char link[PATH_MAX];

	snprintf(link, sizeof(link), "%s/link.%ld", tmpdir(), (long)getpid());
	if (symlink(name, link) == -1)
		return refused("symlink");
	return ask_server(link);
}

/*
 * The race a stop invites: one thread connects to a socket of the tree's
 * own while another keeps turning the address in memory into the
 * outside server's, and a link of ours between the two, so that what
 * the kernel reads is not what the supervisor looked at.
 */
static struct sockaddr_un race_addr;
static volatile int race_on = 1;
static char race_in[108], race_out[108], race_link[108];

static void *
flipper(void *arg)
{
	(void)arg;
	while (race_on) {
		memcpy(race_addr.sun_path, race_out, sizeof(race_out));
		memcpy(race_addr.sun_path, race_in, sizeof(race_in));
		/* the link, too: to the outside one, then to ours */
		unlink(race_link);
		(void)!symlink(race_out, race_link);
		unlink(race_link);
		(void)!symlink(race_in, race_link);
	}
	return NULL;
}

static void
say(const struct sockaddr_un *a, const char *line)
{
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	if (s != -1 && connect(s, (const struct sockaddr *)a, sizeof(*a)) == 0)
		(void)!write(s, line, strlen(line));
	if (s != -1)
		close(s);
}

static int
ask_racing(const char *name)
{
	struct sockaddr_un in_a, link_a;
	char line[4200];
	pthread_t t;
	int l, c, i;

	snprintf(race_in, sizeof(race_in), "%s/in.%ld", tmpdir(),
	    (long)getpid());
	snprintf(race_link, sizeof(race_link), "%s/rl.%ld", tmpdir(),
	    (long)getpid());
	snprintf(race_out, sizeof(race_out), "%s", name);
	unix_addr(&in_a, race_in);
	unix_addr(&link_a, race_link);
	if ((l = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1 ||
	    bind(l, (struct sockaddr *)&in_a, sizeof(in_a)) == -1 ||
	    listen(l, 64) == -1)
		return refused("a socket of our own");
	race_addr = in_a;
	if (pthread_create(&t, NULL, flipper, NULL) != 0)
		return 1;
	snprintf(line, sizeof(line), "mkdir %s\n", mark);
	for (i = 0; i < 300 && access(mark, F_OK) != 0; i++) {
		say(&race_addr, line);
		say(&link_a, line);
		while ((c = accept4(l, NULL, NULL, SOCK_CLOEXEC)) >= 0)
			close(c);	/* ours: drained */
	}
	race_on = 0;
	pthread_join(t, NULL);
	for (i = 0; i < 50 && access(mark, F_OK) != 0; i++)
		usleep(20000);
	return access(mark, F_OK) == 0 ? 0 : 3;
}

int
main(int argc, char **argv)
{
	const char *m = argc >= 2 ? argv[1] : "";

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(m, "with-decoy") == 0 && argc >= 3)
		return with_decoy(argv + 2);
	if (strcmp(m, "with-persistent") == 0 && argc >= 4)
		return with_persistent(argv[2], argv + 3);
	if (strcmp(m, "cmd-server") == 0 && argc == 4)
		return cmd_server(argv[2], argv[3]);
	if (argc < 3) {
		fprintf(stderr, "usage: escape_box MODE MARK [ARG]\n");
		return 2;
	}
	mark = argv[2];
	if (strcmp(m, "mremap-span") == 0) return mremap_span();
	if (strcmp(m, "mremap-tail") == 0) return mremap_tail();
	if (strcmp(m, "rescue-mmap") == 0) return rescue_mmap();
	if (strcmp(m, "rescue-keyctl") == 0) return rescue_keyctl();
	if (strcmp(m, "later-written") == 0) return later_written();
	if (strcmp(m, "later-newline") == 0) return later_newline();
	if (strcmp(m, "key-read") == 0) return key_read();
	if (strcmp(m, "perf-super") == 0) return perf_open(false);
	if (strcmp(m, "ldso-execve") == 0) return ldso_execve();
	if (strcmp(m, "clock-set") == 0) return clock_set();
	if (strcmp(m, "perf-every") == 0) return perf_open(true);
	if (strcmp(m, "perf-uprobe") == 0) return perf_uprobe();
	if (strcmp(m, "unix-cmd") == 0 && argc == 4) return ask_server(argv[3]);
	if (strcmp(m, "unix-link") == 0 && argc == 4)
		return ask_via_link(argv[3]);
	if (strcmp(m, "unix-race") == 0 && argc == 4)
		return ask_racing(argv[3]);
	fprintf(stderr, "escape_box: unknown mode %s\n", m);
	return 2;
}
