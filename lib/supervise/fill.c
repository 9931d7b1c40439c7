/* SPDX-License-Identifier: ISC */
/*
 * The analysis of the files the tree names, bounded.  What the tree execs
 * is the tree's choice, and the analysis of a file costs memory and time
 * with what is in it: run in the supervisor, a file made for it (3 GB of
 * sparse "code") took the machine's memory until the OOM killer ended the
 * supervisor.  So it runs in a child of ours, one for all that an image
 * lacks (a child faults its memory in afresh, ~20 ms on this VM: one a
 * file made a cold start 1.6 times slower), under limits of memory
 * (RLIMIT_AS: the smaller of 8 GiB, half the machine's memory and our
 * own limit), CPU time (RLIMIT_CPU, 120 s) and wall time (300 s, then we
 * kill it).  Beyond one the file being analysed gets no table and the
 * image is refused, with one line naming the file and the limit.  The
 * heaviest real file measured, GHC's shellcheck, needs 2.5 GiB and 16 s
 * (less memory makes some of its sites "any number": the solver gives
 * up on a function it cannot allocate for).
 *
 * The child holds no cache key: a fork wipes the key's page
 * (lib/pins/cache_mac.c), and a process that parses hostile input is no
 * place for it.  It fills the cache as sp_cache_fill and sp_reach_fill
 * do, with a courier for a MAC: each file it writes (with no MAC:
 * believed by nobody) is also sent to us through a pipe, and we store
 * those bytes again under ours, when the child ended within its limits
 * and only under the names we asked for.  The pipe, not the file on
 * disk: the tree owns the cache directory and could replace the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pins/cache.h"
#include "fill/fill.h"
#include "reach/reach.h"
#include "fill/fill.h"

#include "pins/cache_format.h"
#include "supervise_int.h"

#define AS_MAX (8ull << 30)
#define CPU_MAX 120			/* seconds of CPU time */
#define WALL_MAX 300			/* seconds */
#define NAME_MAX_LEN (SP_CACHE_KEY_MAX + 8)	/* "r-" + a key */
/* Far above what an image's tables and facts take (a few MB). */
#define INBOX_MAX (2 * ((size_t)SP_CACHE_MAX_FILE + 4096))

/* On the pipe: a file written (REC_FILE), the next file to analyse
 * (REC_BEGIN: its index), the end (REC_END: struct end). */
enum { REC_FILE = 1, REC_BEGIN, REC_END };

/* How the child's pipe ended. */
enum { RECV_EOF, RECV_LATE, RECV_FLOOD };

/* What the child says of an analysis. */
enum result {
	WITHIN,		/* done as sp_cache_fill does, failed or not */
	OVER_SIZE,	/* lib/elf refused the file's size (EFBIG) */
	OVER_MEMORY,	/* an allocation failed: RLIMIT_AS */
};

/* A header, then name_len bytes of name, body_len bytes of body. */
struct rec {
	uint32_t type;
	uint32_t name_len;	/* with its NUL; 0 but for REC_FILE */
	uint64_t body_len;
};

struct end {
	int32_t result;		/* enum result */
	uint32_t item;		/* over a limit: the file's index */
	char msg[SP_ERROR_MAX];
};

struct courier {
	struct sp_cache_mac base;	/* first: what the cache calls */
	int fd;
};

struct inbox {
	uint8_t *buf;
	size_t len, cap;
};

/* The child's limits: bytes of address space, seconds of CPU time. */
struct bounds {
	rlim_t as, cpu;
};

static void
send_all(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, b, len)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);	/* the supervisor is gone */
		b += n;
		len -= (size_t)n;
	}
}

static void
send_rec(int fd, uint32_t type, const char *name, const void *body,
    size_t len)
{
	struct rec r = { type, name != NULL ? strlen(name) + 1 : 0, len };

	send_all(fd, &r, sizeof(r));
	send_all(fd, name, r.name_len);
	send_all(fd, body, len);
}

/* Nothing on disk is believed: the child analyses afresh. */
static int
courier_check(const struct sp_cache_mac *m, const char *name,
    const void *buf, size_t len, struct sp_error *why)
{
	(void)m, (void)name, (void)buf, (void)len;
	sp_error_set(why, "analysed again");
	return 0;
}

/* The trailer stays "none"; the bytes go to the supervisor. */
static void
courier_seal(const struct sp_cache_mac *m, const char *name,
    const void *buf, size_t len, struct sp_cache_trailer *t)
{
	(void)t;
	send_rec(((const struct courier *)m)->fd, REC_FILE, name, buf, len);
}

static void
courier_destroy(struct sp_cache_mac *m)
{
	(void)m;
}

/* An allocation failed: under RLIMIT_AS, the limit. */
static bool
starved(const struct sp_error *e)
{
	return e->code == ENOMEM || strstr(e->msg, "out of memory") != NULL;
}

/* r and err of sp_cache_fill (or sp_reach_fill) as a result. */
static enum result
result_of(int r, const struct sp_error *err)
{
	if (r == -1 && err->code == EFBIG)
		return OVER_SIZE;
	if ((r == -1 || r == 2) && starved(err))
		return OVER_MEMORY;
	return WITHIN;
}

/* Soft and hard limit v (no higher than ours: bounds()). */
static int
lower(int resource, rlim_t v)
{
	struct rlimit rl = { v, v };

	return setrlimit(resource, &rl);
}

/* Signals the supervisor forwards, which end the child at once (^C,
 * timeout(1) send them to our process group). */
static const int interrupts[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };

static bool
interrupt(int sig)
{
	for (size_t i = 0; i < sizeof(interrupts) / sizeof(*interrupts); i++)
		if (interrupts[i] == sig)
			return true;
	return false;
}

/* The limits; signals that end us, not the supervisor's handlers; and
 * an end with the supervisor. */
static int
bound(const struct bounds *b, pid_t parent)
{
	for (size_t i = 0; i < sizeof(interrupts) / sizeof(*interrupts); i++)
		signal(interrupts[i], SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent)
		return -1;
	return lower(RLIMIT_AS, b->as) == -1 ||
	    lower(RLIMIT_CPU, b->cpu) == -1 ||
	    lower(RLIMIT_CORE, 0) == -1 ? -1 : 0;
}

/* One file's analyses; within the limits, what failed is said with -v,
 * as it was before the child. */
static enum result
fill_one(const struct sp_cache *cc, const struct sp_fill *f, bool verbose,
    struct sp_error *err)
{
	struct sp_error rerr;
	enum result res;
	int r = 0;

	memset(err, 0, sizeof(*err));
	if (f->what & SP_FILL_TABLE)
		r = sp_cache_fill(cc, f->path, false, err);
	if ((res = result_of(r, err)) != WITHIN)
		return res;
	if ((r == -1 || r == 2) && verbose)
		fprintf(stderr, "syspin: %s\n", err->msg);
	else if (verbose && (f->what & SP_FILL_TABLE))
		fprintf(stderr, "syspin: %s: %s\n", f->path, r == 1 ?
		    "analysed" : "cached");
	/* Facts that cannot be made are not fatal (an object without
	 * them is reachable whole); a limit is. */
	if ((f->what & SP_FILL_REACH) && strcmp(f->path, "[vdso]") != 0 &&
	    sp_reach_fill(cc, f->path, f->key, &rerr) == -1 &&
	    (res = result_of(-1, &rerr)) != WITHIN)
		*err = rerr;
	return res;
}

/* Each file in turn, until one is over a limit. */
static _Noreturn void
child(int fd, const struct sp_cache *c, const struct sp_fill *f, size_t n,
    bool verbose, const struct bounds *b, pid_t parent)
{
	struct courier co = { { courier_check, courier_seal, courier_destroy,
	    SP_CACHE_AUTH_USER }, fd };
	struct sp_cache cc = *c;
	struct sp_error err;
	struct end e;

	if (bound(b, parent) == -1)
		_exit(1);
	cc.mac = &co.base;
	memset(&e, 0, sizeof(e));
	for (uint32_t i = 0; i < n && e.result == WITHIN; i++) {
		send_rec(fd, REC_BEGIN, NULL, &i, sizeof(i));
		if ((e.result = fill_one(&cc, &f[i], verbose, &err)) != WITHIN) {
			e.item = i;
			snprintf(e.msg, sizeof(e.msg), "%s", err.msg);
		}
	}
	send_rec(fd, REC_END, NULL, &e, sizeof(e));
	_exit(0);
}

static int
grow(struct inbox *in)
{
	size_t cap = in->cap ? in->cap * 2 : 65536;
	uint8_t *p;

	if (in->len < in->cap)
		return 0;
	if (cap > INBOX_MAX || (p = realloc(in->buf, cap)) == NULL)
		return -1;
	in->buf = p;
	in->cap = cap;
	return 0;
}

static int
ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int)((deadline->tv_sec - now.tv_sec) * 1000 +
	    (deadline->tv_nsec - now.tv_nsec) / 1000000);
}

/* All the child sends, until it closes the pipe (RECV_EOF), the
 * deadline passes or it sends more than a child of ours does. */
static int
receive(int fd, struct inbox *in)
{
	struct timespec deadline;
	struct pollfd pfd = { fd, POLLIN, 0 };
	ssize_t n;
	int ms;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += WALL_MAX;
	for (;;) {
		if ((ms = ms_left(&deadline)) <= 0)
			return RECV_LATE;
		if ((n = poll(&pfd, 1, ms)) <= 0) {
			if (n == -1 && errno != EINTR)
				return RECV_FLOOD;
			continue;
		}
		if (grow(in) == -1)
			return RECV_FLOOD;
		n = read(fd, in->buf + in->len, in->cap - in->len);
		if (n == 0)
			return RECV_EOF;
		if (n == -1 && errno != EINTR)
			return RECV_FLOOD;
		in->len += n > 0 ? (size_t)n : 0;
	}
}

/* The record at *at (advanced past it), or false when none is whole. */
static bool
next_rec(const struct inbox *in, size_t *at, struct rec *r,
    const char **name, const uint8_t **body)
{
	size_t left = in->len - *at;

	if (left < sizeof(*r))
		return false;
	memcpy(r, in->buf + *at, sizeof(*r));
	left -= sizeof(*r);
	if (r->name_len > NAME_MAX_LEN || r->name_len > left ||
	    r->body_len > left - r->name_len ||
	    (r->name_len > 0 && in->buf[*at + sizeof(*r) + r->name_len - 1]))
		return false;
	*name = (const char *)in->buf + *at + sizeof(*r);
	*body = in->buf + *at + sizeof(*r) + r->name_len;
	*at += sizeof(*r) + r->name_len + r->body_len;
	return true;
}

/* The file of f[0..n) that a cache file name is made for, or n. */
static size_t
owner(const char *name, const struct sp_fill *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((f[i].what & SP_FILL_TABLE) && strcmp(name, f[i].key) == 0) ||
		    ((f[i].what & SP_FILL_REACH) && strncmp(name, "r-", 2) == 0 &&
		    strcmp(name + 2, f[i].key) == 0))
			return i;
	return n;
}

/* The child's end in *e (false: it sent none), and the file it began
 * last in *cur (n: none). */
static bool
ending(const struct inbox *in, size_t n, struct end *e, size_t *cur)
{
	const uint8_t *body;
	const char *name;
	struct rec r;
	uint32_t i;
	size_t at = 0;

	*cur = n;
	while (next_rec(in, &at, &r, &name, &body)) {
		if (r.type == REC_BEGIN && r.body_len == sizeof(i)) {
			memcpy(&i, body, sizeof(i));
			*cur = i < n ? i : n;
		} else if (r.type == REC_END && r.body_len == sizeof(*e)) {
			memcpy(e, body, sizeof(*e));
			e->msg[sizeof(e->msg) - 1] = '\0';
			return e->result == WITHIN || e->item < n;
		}
	}
	return false;
}

/*
 * The files the child sent, stored under our MAC: only those of f, and
 * not those of f[bad] (n: none; all when bad > n), which are removed
 * from the directory the child wrote them to.
 */
static void
deliver(const struct sp_cache *c, const struct inbox *in,
    const struct sp_fill *f, size_t n, size_t bad, bool verbose)
{
	const uint8_t *body;
	const char *name;
	struct sp_error err;
	struct rec r;
	size_t at = 0, i;

	while (next_rec(in, &at, &r, &name, &body)) {
		if (r.type != REC_FILE || (i = owner(name, f, n)) == n)
			continue;
		if (i == bad || bad > n)
			(void)unlinkat(c->dirfd, name, 0);
		else if (sp_cache_put(c, name, body, r.body_len, &err) == -1 &&
		    verbose)
			fprintf(stderr, "syspin: %s\n", err.msg);
	}
}

/* What ended the child, for the line that refuses the image. */
static int
judge(int st, const struct rusage *ru, int how, const char *path,
    const struct bounds *b, struct sp_error *err)
{
	double cpu = ru->ru_utime.tv_sec + ru->ru_stime.tv_sec +
	    (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;

	if (how == RECV_LATE)
		return sp_error_set(err, "%s: its analysis took over %d s: "
		    "over syspin's limit", path, WALL_MAX);
	if (how == RECV_FLOOD)
		return sp_error_set(err, "%s: its analysis sent more than "
		    "tables, or could not be heard", path);
	if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGXCPU ||
	    (WTERMSIG(st) == SIGKILL && cpu + 1 >= (double)b->cpu)))
		return sp_error_set(err, "%s: its analysis took over %llu s "
		    "of CPU time: over syspin's limit", path,
		    (unsigned long long)b->cpu);
	if (WIFSIGNALED(st) && interrupt(WTERMSIG(st)))
		return sp_error_set(err, "%s: its analysis was interrupted "
		    "(signal %d)", path, WTERMSIG(st));
	if (WIFSIGNALED(st))
		return sp_error_set(err, "%s: its analysis died of signal %d "
		    "(syspin's limits: %.1f GiB of memory, %llu s of CPU "
		    "time)", path, WTERMSIG(st), b->as / (double)(1u << 30),
		    (unsigned long long)b->cpu);
	return sp_error_set(err, "%s: its analysis ended without a result "
	    "(status %d)", path, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* The child's limits: AS_MAX or half the machine's memory, CPU_MAX;
 * never more than ours. */
static void
bounds(struct bounds *b)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	struct rlimit rl;

	b->as = AS_MAX;
	b->cpu = CPU_MAX;
	if (pages > 0 && size > 0 && (rlim_t)pages * (rlim_t)size / 2 < b->as)
		b->as = (rlim_t)pages * (rlim_t)size / 2;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur < b->as)
		b->as = rl.rlim_cur;
	if (getrlimit(RLIMIT_CPU, &rl) == 0 && rl.rlim_cur < b->cpu)
		b->cpu = rl.rlim_cur;
}

/* The limit the child said a file is over. */
static int
over(const struct end *e, const char *path, const struct bounds *b,
    struct sp_error *err)
{
	if (e->result == OVER_SIZE)
		return sp_error_set(err, "%s: %s", path, e->msg);
	return sp_error_set(err, "%s: its analysis needs more than %.1f GiB "
	    "of memory: over syspin's limit", path, b->as / (double)(1u << 30));
}

/* The child made and heard to its end: how, its status, its times. */
static int
run(const struct sp_cache *c, const struct sp_fill *f, size_t n,
    bool verbose, const struct bounds *b, struct inbox *in, int *st,
    struct rusage *ru, struct sp_error *err)
{
	pid_t pid, self = getpid();
	int p[2], how;

	if (pipe2(p, O_CLOEXEC) == -1)
		return sp_error_sys(err, errno, "%s: cannot be analysed: pipe",
		    f[0].path);
	if ((pid = fork()) == 0) {
		close(p[0]);
		child(p[1], c, f, n, verbose, b, self);
	}
	close(p[1]);
	if (pid == -1) {
		close(p[0]);
		return sp_error_sys(err, errno, "%s: cannot be analysed: fork",
		    f[0].path);
	}
	if ((how = receive(p[0], in)) != RECV_EOF)
		kill(pid, SIGKILL);
	close(p[0]);
	while (wait4(pid, st, 0, ru) == -1 && errno == EINTR)
		;
	return how;
}

int
sp_sup_fill(const struct sp_cache *c, const struct sp_fill *f, size_t n,
    bool verbose, struct sp_error *err)
{
	struct inbox in = { NULL, 0, 0 };
	struct bounds b;
	struct rusage ru;
	struct end e;
	size_t cur;
	int st, how, r = 0;

	if (n == 0)
		return 0;
	bounds(&b);
	if ((how = run(c, f, n, verbose, &b, &in, &st, &ru, err)) == -1)
		return -1;
	if (ending(&in, n, &e, &cur) && how == RECV_EOF) {
		deliver(c, &in, f, n, e.result == WITHIN ? n : e.item, verbose);
		if (e.result != WITHIN)
			r = over(&e, f[e.item].path, &b, err);
	} else {
		/* What a child that floods us sent is not believed; the
		 * files one finished before it died are. */
		deliver(c, &in, f, n, how == RECV_FLOOD ? n + 1 : cur,
		    verbose);
		r = judge(st, &ru, how, f[cur < n ? cur : 0].path, &b, err);
	}
	free(in.buf);
	return r;
}

/* Whether i is one of v[0..n). */
static bool
listed(size_t i, const size_t *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (v[k] == i)
			return true;
	return false;
}

/* The cache has the facts of the object of this key (believed, whole). */
static bool
has_facts(const struct sp_cache *c, const char *key)
{
	struct sp_reach_facts f;
	struct sp_error why;

	if (sp_reach_load(c, key, &f, &why) != 1)
		return false;
	sp_reach_facts_free(&f);
	return true;
}

int
sp_sup_fill_image(const struct sp_cache *c, const struct sp_layout *lo,
    const size_t *missing, size_t nmissing, bool reach, bool verbose,
    struct sp_error *err)
{
	char memo[SP_CACHE_KEY_MAX];
	struct sp_fill *f;
	size_t n = 0;
	bool facts;
	int r;

	/* The result for these objects saves their facts (reach_memo.c). */
	sp_reach_memo_key(lo, memo, sizeof(memo));
	facts = reach && !sp_cache_has(c, memo);
	if (nmissing == 0 && !facts)
		return 0;
	if ((f = calloc(lo->nobjs + 1, sizeof(*f))) == NULL)
		return sp_error_set(err, "out of memory");
	for (size_t i = 0; i < lo->nobjs; i++) {
		const struct sp_object *o = &lo->objs[i];
		bool file = o->kind == SP_OBJ_FILE && o->key[0] != '\0';
		unsigned what = listed(i, missing, nmissing) ? SP_FILL_TABLE : 0;
		if (file && reach && (what != 0 || (facts && !has_facts(c, o->key))))
			what |= SP_FILL_REACH;
		if (what != 0)
			f[n++] = (struct sp_fill){ file ? o->name : "[vdso]",
			    o->key, what };
	}
	r = sp_sup_fill(c, f, n, verbose, err);
	free(f);
	return r;
}

/*
 * The files syspin run is handed (the program and what it loads at
 * start-up), analysed as a tree's are: the user may name a file made to
 * be expensive.  Each by the key of the file there now; a table we
 * believe (with our key, which the child does not hold) is not made
 * again; the child reads the file it opens, and what it sends for
 * another is not stored.
 */
int
sp_fill_files(const struct sp_cache *c, char *const *paths, size_t n,
    bool reach, bool verbose, struct sp_error *err)
{
	struct sp_fill *f = calloc(n + 1, sizeof(*f));
	char (*keys)[SP_CACHE_KEY_MAX] = calloc(n + 1, sizeof(*keys));
	struct sp_file_id id;
	struct sp_pintab tab;
	struct sp_error why;
	struct stat st;
	size_t k = 0;
	int r;

	if (f == NULL || keys == NULL) {
		free(f);
		free(keys);
		return sp_error_set(err, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		if (stat(paths[i], &st) == -1)
			continue;	/* no file: nothing to analyse */
		sp_file_id_from_stat(&id, &st);
		sp_cache_key_file(&id, keys[k], sizeof(keys[k]));
		unsigned what = SP_FILL_TABLE | (reach ? SP_FILL_REACH : 0);
		if (sp_cache_load(c, keys[k], &tab, &why) == 1) {
			sp_pintab_free(&tab);
			if (!reach || has_facts(c, keys[k])) {
				if (verbose)
					fprintf(stderr, "syspin: %s: cached\n",
					    paths[i]);
				continue;
			}
			what = SP_FILL_REACH;
		}
		f[k] = (struct sp_fill){ paths[i], keys[k], what };
		k++;
	}
	r = sp_sup_fill(c, f, k, verbose, err);
	free(f);
	free(keys);
	return r;
}
