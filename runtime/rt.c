/* SPDX-License-Identifier: ISC */
/*
 * libsyspin-rt.so: pins the syscalls of the process it is loaded into.
 *
 * `syspin run` without its supervisor (SYSPIN_SUPERVISE=0, or no ptrace)
 * preloads it with LD_PRELOAD (or /etc/ld.so.preload does); its
 * constructor runs before the program's own code: it enumerates every
 * executable mapping, reads each object's pin table from the cache (asking
 * the syspin binary to fill what is missing), places the pins, installs the
 * seccomp filter on every thread and seals the pinned text with mseal(2).
 * Code mapped later goes into the late-code band (rt_place.c).
 *
 * Anything that goes wrong before the filter is installed ends the process:
 * a pinned program that silently ran unpinned would be worse than one that
 * does not run.
 *
 * Its limits, which only the supervisor lifts (docs/threat-model.md): the
 * objects and constructors that run before this one, and a child exec'd
 * without it in its environment, run unpinned; a process already under a
 * filter (a descendant) takes no weakening setting from its environment.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf/bpf.h"
#include "pins/cache.h"
#include "layout/layout.h"
#include "layout/procfs.h"
#include "layout/placement.h"
#include "layout/report.h"

#include "util/raw.h"
#include "rt.h"

#ifndef SYSPIN_BIN
#define SYSPIN_BIN "/usr/local/bin/syspin"
#endif

extern char **environ;

struct rt {
	bool secure;		/* AT_SECURE: the environment is not ours */
	bool inherited;		/* under a filter already: a descendant, whose
				   environment a pinned program wrote */
	bool verbose;
	unsigned flags;		/* SP_BPF_* */
	char dir[4096];
	bool default_dir;	/* dir is the user's default (~/.cache/syspin) */
	struct sp_cache cache;
	bool have_cache;
	struct sp_layout lo;
	struct sp_placement pl;
	uint32_t *narrow;	/* SYSPIN_NARROW: --deny / --allow */
	struct sp_bpf_narrow nw;
	uint32_t narrowed;	/* its answer, 0 when none */
	double t[7];		/* -v: when each phase ended, usec() */
};

static const char *
env(const struct rt *rt, const char *name)
{
	return rt->secure ? NULL : getenv(name);
}

/* A setting that loosens the pins: only the first image's environment,
 * which `syspin run` wrote, may give it. */
static const char *
loosening(const struct rt *rt, const char *name)
{
	return rt->inherited ? NULL : env(rt, name);
}

/* argv[0]'s last part: the runtime's constructor runs first of all
 * (-z initfirst), before libc's own sets program_invocation_short_name. */
static const char *rt_name = "";

/* One line, whatever argv[0] holds: a long name is cut, not the reason. */
__attribute__((noreturn)) static void
die(const char *fmt, const char *arg)
{
	char why[384], msg[512];
	int n;

	snprintf(why, sizeof(why), fmt, arg);
	n = snprintf(msg, sizeof(msg), "syspin: %.64s[%ld]: cannot pin: %s\n",
	    rt_name, (long)getpid(), why);
	if (n >= (int)sizeof(msg)) {	/* keep the newline */
		n = sizeof(msg) - 1;
		msg[n - 1] = '\n';
	}
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	_exit(127);
}

/* 's', 'x' and 'p' only tighten: anyone may ask for them. */
static void
parse_flags(struct rt *rt)
{
	const char *f = env(rt, "SYSPIN_FLAGS");
	bool loosen = loosening(rt, "SYSPIN_FLAGS") != NULL;

	rt->verbose = env(rt, "SYSPIN_VERBOSE") != NULL;
	/* No one judges a connect here (lib/supervise/connect.c does under
	 * the supervisor): the tree makes no unix stream socket at all. */
	rt->flags |= SP_BPF_NO_UNIX;
	for (; f != NULL && *f != '\0'; f++) {
		if (*f == 's')
			rt->flags |= SP_BPF_STRICT;
		else if (*f == 'x')
			rt->flags |= SP_BPF_NO_EXEC;
		else if (*f == 'p')	/* no Landlock: no ptrace & co. */
			rt->flags |= SP_BPF_NO_PTRACE;
		else if (*f == 'j' && loosen)
			rt->flags |= SP_BPF_ALLOW_JIT;
		else if (*f == 'a' && loosen)
			rt->flags |= SP_BPF_AUDIT;
	}
}

/*
 * SYSPIN_NARROW (syspin run --deny / --allow): "dE:N,N,..." denies the
 * numbers with errno E, "ak:N,..." denies all others and kills.  Taken in
 * a descendant too: narrowing only takes away, and the filters inherited
 * from the first image keep its lists whatever a later environment says.
 * A malformed value ends the process (a run that asked for narrowing
 * must not run without it).
 */
static void
parse_narrow(struct rt *rt)
{
	const char *v = env(rt, "SYSPIN_NARROW"), *p;
	unsigned long e = EPERM, x;
	size_t n = 1;
	char *end;

	if (v == NULL || *v == '\0')
		return;
	if ((v[0] != 'd' && v[0] != 'a') || (p = strchr(v, ':')) == NULL)
		die("SYSPIN_NARROW=%s: malformed", v);
	if (v[1] == 'k')
		rt->narrowed = rt->flags & SP_BPF_AUDIT ? SECCOMP_RET_LOG :
		    SECCOMP_RET_KILL_PROCESS;
	else if (v[1] == 'e' && (e = strtoul(v + 2, &end, 10)) > 0 &&
	    e < 4096 && end == p)
		rt->narrowed = SECCOMP_RET_ERRNO | (uint32_t)e;
	else
		die("SYSPIN_NARROW=%s: malformed", v);
	for (const char *c = p + 1; *c != '\0'; c++)
		n += *c == ',';
	if ((rt->narrow = calloc(n, sizeof(*rt->narrow))) == NULL)
		die("%s", "out of memory");
	rt->nw = (struct sp_bpf_narrow){ rt->narrow, 0, v[0] == 'a' };
	for (p++; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		x = strtoul(p, &end, 10);
		if (end == p || (*end != ',' && *end != '\0') ||
		    x >= SP_BPF_X32_BIT)
			die("SYSPIN_NARROW=%s: malformed", v);
		rt->narrow[rt->nw.n++] = (uint32_t)x;
	}
}

/*
 * The tables `syspin run` read and believed by their MAC just before it
 * ran us (cli/run_warm.c), in a sealed memfd: taken before the cache
 * directory's, which another process of the user's may have changed since
 * (blind round 18: a forged libc table swapped in between).  Only the
 * first image's (a descendant's environment is the tree's); the
 * descriptor is closed, the variable dropped.
 */
#define SEALED (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

static void
take_tables(struct rt *rt)
{
	const char *v = loosening(rt, "SYSPIN_TABLES_FD");
	char key[SP_CACHE_KEY_MAX], *end;
	const uint8_t *p;
	struct stat st;
	uint32_t h[2];
	size_t at = 8;
	long fd;

	if (v == NULL)
		return;
	fd = strtol(v, &end, 10);
	unsetenv("SYSPIN_TABLES_FD");
	if (*end != '\0' || fd < 3 || fd > 65535)
		return;
	if (fstat((int)fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (fcntl((int)fd, F_GET_SEALS) & SEALED) != SEALED ||
	    st.st_size < 8 || (uint64_t)st.st_size > (256u << 20) ||
	    (p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
	    (int)fd, 0)) == MAP_FAILED) {
		close((int)fd);
		return;
	}
	if (memcmp(p, "SYSPINTB", 8) == 0)
		while (at + sizeof(h) <= (size_t)st.st_size) {
			memcpy(h, p + at, sizeof(h));
			at += sizeof(h);
			if (h[0] == 0 || h[0] >= sizeof(key) ||
			    h[1] > (size_t)st.st_size - at - h[0] ||
			    h[0] > (size_t)st.st_size - at)
				break;
			memcpy(key, p + at, h[0]);
			key[h[0]] = '\0';
			at += h[0];
			if (strlen(key) != h[0] || sp_cache_believe(&rt->cache,
			    key, p + at, h[1]) == -1)
				break;
			at += h[1];
		}
	munmap((void *)p, (size_t)st.st_size);
	close((int)fd);
}

static void
open_cache(struct rt *rt)
{
	struct sp_error err;
	const char *d = loosening(rt, "SYSPIN_CACHE_DIR");

	if (d != NULL)
		snprintf(rt->dir, sizeof(rt->dir), "%s", d);
	else if (sp_cache_default_dir(geteuid(), rt->secure, rt->dir,
	    sizeof(rt->dir)) == -1)
		die("%s", "no cache directory (set HOME or XDG_CACHE_HOME)");
	rt->default_dir = d == NULL;
	if (rt->have_cache)
		return;
	if (sp_cache_open(&rt->cache, rt->dir, geteuid(), false, &err) == 0) {
		rt->have_cache = true;
		take_tables(rt);
	}
	else if (rt->verbose)
		fprintf(stderr, "syspin-rt: %s\n", err.msg);
}

/* The environment for the filler: ours minus LD_PRELOAD. */
static char **
filler_env(void)
{
	size_t n = 0, i, j = 0;
	char **e;

	while (environ != NULL && environ[n] != NULL)
		n++;
	if ((e = calloc(n + 2, sizeof(*e))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			e[j++] = environ[i];
	e[j] = NULL;
	return e;
}

/*
 * Runs `syspin run --fill-cache` for the objects the cache lacks.  It is
 * the slow path (a program exec'd by the pinned one, seen for the first
 * time); its failure only leaves those objects without pins.
 */
static void
fill(struct rt *rt, const size_t *missing, size_t nmissing)
{
	const char *bin = env(rt, "SYSPIN_BIN");
	char **argv, **envp;
	size_t i, n = 0;
	pid_t pid;
	int st;

	if (bin == NULL)
		bin = SYSPIN_BIN;
	if ((argv = calloc(nmissing + 6, sizeof(*argv))) == NULL ||
	    (envp = filler_env()) == NULL) {
		free(argv);
		return;
	}
	/* The default directory's parent (~/.cache) may not be there yet
	 * in a new account: `syspin run --cache-dir` makes only the last
	 * directory, and without it nothing would ever be pinned. */
	if (rt->default_dir) {
		char parent[sizeof(rt->dir)], *slash;

		snprintf(parent, sizeof(parent), "%s", rt->dir);
		if ((slash = strrchr(parent, '/')) != NULL && slash != parent) {
			*slash = '\0';
			(void)mkdir(parent, 0700);
		}
	}
	argv[n++] = "syspin";
	argv[n++] = "run";
	argv[n++] = "--fill-cache";
	argv[n++] = "--cache-dir";
	argv[n++] = rt->dir;
	for (i = 0; i < nmissing; i++)
		argv[n++] = rt->lo.objs[missing[i]].kind == SP_OBJ_VDSO ?
		    "[vdso]" : rt->lo.objs[missing[i]].name;
	argv[n] = NULL;
	if (posix_spawn(&pid, bin, NULL, NULL, argv, envp) == 0)
		while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
			;
	else if (rt->verbose)
		fprintf(stderr, "syspin-rt: cannot run %s\n", bin);
	free(argv);
	free(envp);
}

/* Without a cache, every object that could have a table is missing. */
static void
all_objects(const struct sp_layout *lo, size_t **missing, size_t *n)
{
	size_t i;

	*n = 0;
	if ((*missing = calloc(lo->nobjs + 1, sizeof(**missing))) == NULL)
		return;
	for (i = 0; i < lo->nobjs; i++)
		if (lo->objs[i].key[0] != '\0')
			(*missing)[(*n)++] = i;
}

static void
load_tables(struct rt *rt)
{
	struct sp_error warn;
	size_t *missing = NULL, nmissing = 0;

	warn.msg[0] = '\0';
	if (!rt->have_cache)
		all_objects(&rt->lo, &missing, &nmissing);
	else if (sp_layout_load(&rt->lo, &rt->cache, &missing, &nmissing,
	    &warn) == -1)
		die("%s", warn.msg);
	if (nmissing > 0) {
		fill(rt, missing, nmissing);
		free(missing);
		open_cache(rt);
		if (rt->have_cache && sp_layout_load(&rt->lo, &rt->cache,
		    &missing, &nmissing, &warn) == 0)
			free(missing);
	} else {
		free(missing);
	}
	if (rt->verbose && warn.msg[0] != '\0')
		fprintf(stderr, "syspin-rt: %s\n", warn.msg);
}

/*
 * SYSPIN_DLOPEN (run --dlopen): objects that will be dlopen'ed after the
 * filter is installed; what they pass to libc's syscall() must be allowed
 * there now (lib/layout/later.c).  A path that cannot be read adds nothing.
 */
static void
add_later(struct rt *rt)
{
	const char *v = loosening(rt, "SYSPIN_DLOPEN"), *e;
	char path[4096];
	struct sp_error err;
	size_t n;

	for (; v != NULL && *v != '\0'; v = *e ? e + 1 : e) {
		e = v + strcspn(v, ":");
		if ((n = (size_t)(e - v)) == 0 || n >= sizeof(path))
			continue;
		memcpy(path, v, n);
		path[n] = '\0';
		if (sp_layout_add_later(&rt->lo, path, &err) == -1 &&
		    rt->verbose)
			fprintf(stderr, "syspin-rt: --dlopen %s\n", err.msg);
	}
}

/* CAP_SYS_ADMIN lets us install without no_new_privs (setuid works). */
static bool
have_sys_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (sp_raw_capget(&h, d) < 0)
		return false;
	return (d[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32)) & 1;
}

/* CAP_SYS_ADMIN or CAP_PERFMON permitted: it may make uprobes, whose
 * trampoline page is kernel code outside the pins (SP_BPF_NO_PERF). */
static bool
may_uprobe(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (sp_raw_capget(&h, d) < 0)
		return true;
	return ((d[CAP_SYS_ADMIN / 32].permitted >> (CAP_SYS_ADMIN % 32)) & 1) ||
	    ((d[38 / 32].permitted >> (38 % 32)) & 1);
}

static void
report(struct rt *rt)
{
	const char *dir = env(rt, "SYSPIN_REPORT_DIR");

	if (dir != NULL)
		(void)sp_report_save(dir, (long)getpid(), &rt->lo, &rt->pl);
}

/* Objects present now are never unmapped: seal their text. */
/* Whether our main stack is executable (-z execstack). */
static bool
stack_exec(void)
{
	struct sp_error err;
	struct sp_map *m;
	bool x = true;		/* unknown: guard it */
	size_t n;

	if (sp_maps_read("/proc/self/maps", &m, &n, &err) == -1)
		return x;
	for (size_t i = 0; i < n; i++)
		if (m[i].kind == SP_MAP_SPECIAL &&
		    strcmp(m[i].path, "[stack]") == 0)
			x = (m[i].prot & PROT_EXEC) != 0;
	sp_maps_free(m, n);
	return x;
}

static void
seal(struct rt *rt)
{
	size_t i;

	for (i = 0; i < rt->lo.nranges; i++) {
		const struct sp_layout_range *r = &rt->lo.ranges[i];
		if (rt->lo.objs[r->obj].kind == SP_OBJ_VSYSCALL)
			continue;
		/* an executable stack's growth region: a sealed guard page
		 * at its bottom keeps the stack in it (lib/supervise/pin.c) */
		if (strcmp(rt->lo.objs[r->obj].name, "[stack]") == 0) {
			if (stack_exec() && sp_raw_mmap(r->start, 4096,
			    PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			    MAP_NORESERVE | MAP_FIXED_NOREPLACE, (unsigned long)-1,
			    0) == (long)r->start)
				(void)sp_raw_mseal(r->start, 4096, 0);
			continue;
		}
		long e = sp_raw_mseal(r->start, r->end - r->start, 0);
		if (e < 0 && rt->verbose)
			fprintf(stderr, "syspin-rt: mseal %s: %s\n",
			    rt->lo.objs[r->obj].name, strerror((int)-e));
	}
}

static double
usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ld.so (AT_BASE): dlopen'ed objects are placed in the band. */
static void
mark_loader(struct sp_layout *lo)
{
	uint64_t base = getauxval(AT_BASE);

	for (size_t i = 0; base != 0 && i < lo->nobjs; i++)
		if (lo->objs[i].kind == SP_OBJ_FILE &&
		    lo->objs[i].base == base)
			lo->objs[i].loader = true;
}

static void
die_nested(size_t nprogs)
{
	char what[128];

	snprintf(what, sizeof(what), "%ld filters inherited from pinned "
	    "programs, %zu more needed", sp_filters_pid(getpid()), nprogs);
	die("too many nested pinned programs (%s; seccomp allows 32768 "
	    "instructions in all of a process's filters: see syspin run's "
	    "Limits)", what);
}

static void
install(struct rt *rt)
{
	struct sp_bpf_input in;
	struct sp_bpf_prog *progs;
	struct sp_error err;
	size_t nprogs;
	long before;

	/* ld.so's start-up is over: its exec sites would serve only a chain */
	sp_placement_drop_loader_exec(&rt->pl, &rt->lo);
	if (may_uprobe())
		rt->flags |= SP_BPF_NO_PERF;
	/* Placements are made by our SIGSYS handler (rt_place.c). */
	sp_placement_bpf_input(&rt->pl, rt->flags, SP_ANSWER_RUNTIME, &in);
	in.narrow = rt->nw;
	in.narrowed = rt->narrowed;
	if (sp_bpf_generate(&in, &progs, &nprogs, &err) == -1)
		die("%s", err.msg);
	rt->t[5] = usec();
	report(rt);
	seal(rt);
	if (!rt_place_init(rt->flags & SP_BPF_STRICT))
		die("%s", "no sealed guard below the late-code band");
	before = sp_filters_pid(getpid());
	if (sp_bpf_install(progs, nprogs, have_sys_admin() ?
	    SP_BPF_INSTALL_NO_NNP : 0, &err) == -1) {
		/* ENOMEM: the stack of filters inherited from pinned
		 * ancestors would pass seccomp's 32768-instruction limit. */
		if (err.code == ENOMEM)
			die_nested(nprogs);
		die("%s", err.msg);
	}
	/* A filter of the process's may have answered our seccomp(2) with
	 * 0 without running it (lib/supervise/verify.c): the count says. */
	if (before < 0 || sp_filters_pid(getpid()) != before + (long)nprogs)
		die("%s", "the filter is not installed: a filter of the "
		    "process answered seccomp(2) without running it");
	rt->t[6] = usec();
	if (rt->verbose)
		fprintf(stderr, "syspin-rt: %s[%ld]: %zu objects, %zu ranges, "
		    "%zu pins, %zu any-number sites, %zu programs\n",
		    rt_name, (long)getpid(),
		    rt->lo.nobjs, rt->lo.nranges, rt->pl.npins,
		    rt->pl.nany_ips, nprogs);
	sp_bpf_free(progs, nprogs);
}


/*
 * The first constructor of the process (-z initfirst): a start-up
 * object's own runs after it, so that none can keep the process from
 * being pinned (one that never returns, a process it makes that shares
 * the memory: blind round 4).  libc's has not run yet either: environ
 * and the program's name are taken from what ld.so passes.
 */
__attribute__((constructor)) static void
syspin_rt_init(int argc, char **argv, char **envp)
{
	static struct rt rt;
	struct sp_error err;

	if (environ == NULL)
		environ = envp;
	if (argc > 0 && argv[0] != NULL)
		rt_name = strrchr(argv[0], '/') != NULL ?
		    strrchr(argv[0], '/') + 1 : argv[0];
	rt.t[0] = usec();
	rt.secure = getauxval(AT_SECURE) != 0;
	/* Unknown counts as inherited: the safe side. */
	rt.inherited = sp_filters_pid(getpid()) != 0;
	parse_flags(&rt);
	parse_narrow(&rt);
	open_cache(&rt);
	rt.t[1] = usec();
	if (sp_layout_self(&rt.lo, &err) == -1 ||
	    sp_layout_add_stack(&rt.lo, getpid(), &err) == -1)
		die("%s", err.msg);
	mark_loader(&rt.lo);
	add_later(&rt);
	rt.t[2] = usec();
	load_tables(&rt);
	rt.t[3] = usec();
	if (sp_layout_place(&rt.lo, &rt.pl, &err) == -1)
		die("%s", err.msg);
	rt.t[4] = usec();
	install(&rt);
	if (rt.verbose)
		fprintf(stderr, "syspin-rt: time (us): cache %.0f, layout %.0f, "
		    "tables %.0f, place %.0f, generate %.0f, install %.0f\n",
		    rt.t[1] - rt.t[0], rt.t[2] - rt.t[1], rt.t[3] - rt.t[2],
		    rt.t[4] - rt.t[3], rt.t[5] - rt.t[4], rt.t[6] - rt.t[5]);
	if (rt.have_cache)
		sp_cache_close(&rt.cache);
	sp_placement_free(&rt.pl);
	sp_layout_free(&rt.lo);
	free(rt.narrow);
}
