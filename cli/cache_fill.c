/* SPDX-License-Identifier: ISC */
/*
 * syspin cache fill [--system] [-j N] [-f] [-q] [-v] [--cache-dir DIR]
 *     [PATH...]
 *
 * Analyses files into the cache ahead of `syspin run`, which then finds
 * every table there.  The files (cache_walk.c) are shared out, largest
 * first, to N worker processes (one per CPU by default) that take the next
 * one from a counter in shared memory; each opens the cache and gets the
 * user's key itself (the key is wiped in a forked child, cache_mac.c).
 * A worker that crashes or takes more than FILE_SECS on one file is killed
 * and replaced; that file is reported and has no table.
 *
 * On a terminal, a progress line (files done/total, rate) and a summary;
 * otherwise nothing but the problems with files named on the command line
 * (-v: with every file, and the summary).  --system, with no PATH, fills
 * from the system's directories and then removes the tables of files that
 * are gone or changed (cache_evict).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fill/fill.h"
#include "cache.h"
#include "cli.h"

#define WORKERS_MAX 64
#define FILE_SECS 300		/* one file's analysis, at most */
#define TICK_MS 200
#define SLOW_MS 1000		/* -v names the files that take longer */

enum result { R_PENDING, R_CACHED, R_ANALYSED, R_FAILED, R_ERROR };

/* Shared between the parent and its workers (MAP_SHARED). */
struct board {
	atomic_size_t next;		/* the next file to take */
	atomic_size_t done;
	struct {
		atomic_long cur;	/* file in hand, -1 none */
		atomic_llong since_ms;
	} w[WORKERS_MAX];
	_Atomic unsigned char result[];	/* enum result, per file */
};

struct fill {
	struct cache_opts o;
	bool force, quiet, system, progress;
	long jobs;
	struct fill_file *files;
	size_t n;
	struct board *b;
	size_t board_size;
	pid_t pid[WORKERS_MAX];
	int msg[2];			/* workers -> parent: problems */
	bool shown;			/* a progress line is on screen */
};

static void
usage(FILE *f)
{
	fputs("usage: syspin cache fill [--system] [-j N] [-fqv] "
	    "[--cache-dir DIR] [PATH...]\n\n"
	    "Analyses the ELF files of PATHs into the pin-table cache; a "
	    "directory\nstands for every x86-64 program and shared object "
	    "under it.\n\n"
	    "      --system        PATHs default to the system's directories "
	    "(/usr/bin,\n"
	    "                      /usr/sbin, /usr/lib, /usr/libexec, ...); "
	    "then remove\n"
	    "                      the tables of files that are gone\n"
	    "  -j, --jobs N        worker processes (default: one per CPU)\n"
	    "  -f, --force         analyse again what the cache has\n"
	    "  -q, --quiet         no progress line, no summary\n"
	    "  -v, --verbose       every problem, the slow files and the "
	    "summary, also\n"
	    "                      when not on a terminal\n"
	    "      --cache-dir DIR the cache (default: /var/cache/syspin for "
	    "root,\n"
	    "                      else $XDG_CACHE_HOME/syspin)\n\n"
	    "Exit status: 0 every file has a table, 1 some could not be "
	    "analysed,\n2 usage error or no cache.\n", f);
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static long long
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static long
cpus(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > WORKERS_MAX ? WORKERS_MAX : n;
}

static int
parse(int argc, char **argv, struct fill *f)
{
	static const struct option opts[] = {
		{ "system", no_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "cache-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int ch;

	f->jobs = cpus();
	/* -j is --json in every command: the jobs are --jobs alone */
	while ((ch = getopt_long(argc, argv, "fqvhc:", opts, NULL)) != -1) {
		switch (ch) {
		case 's': f->system = true; break;
		case 'J':
			errno = 0;
			f->jobs = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || f->jobs < 1 ||
			    f->jobs > WORKERS_MAX) {
				cli_error("cache fill: --jobs %s: not a number "
				    "from 1 to %d", optarg, WORKERS_MAX);
				return -1;
			}
			break;
		case 'f': f->force = true; break;
		case 'q': f->quiet = true; break;
		case 'v': f->o.verbose = true; break;
		case 'c': f->o.dir = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: cli_try("cache fill"); return -1;
		}
	}
	if (optind == argc && !f->system) {
		cli_error("cache fill: no PATH (or --system)");
		cli_try("cache fill");
		return -1;
	}
	f->progress = !f->quiet && isatty(STDERR_FILENO);
	return 0;
}

/*
 * One line to the parent: "INDEX KIND PATH: MESSAGE\n", atomic (< PIPE_BUF);
 * KIND is E for a file without a table, S for a slow one.
 * Some messages of the library name the file already, some do not.
 */
static void
tell(int fd, size_t i, char kind, const char *path, const char *msg)
{
	size_t plen = strlen(path);
	char line[2048];
	int n;

	if (strncmp(msg, path, plen) == 0 && msg[plen] == ':')
		n = snprintf(line, sizeof(line), "%zu %c %s", i, kind, msg);
	else
		n = snprintf(line, sizeof(line), "%zu %c %s: %s", i, kind,
		    path, msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line) - 1)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	while (write(fd, line, n) == -1 && errno == EINTR)
		;
}

static void __attribute__((noreturn))
worker(struct fill *f, int w)
{
	struct sp_error err;
	struct sp_cache c;
	long long t, cpu;
	size_t i;
	int r;

	close(f->msg[0]);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (cache_open(&f->o, &c, false, true, NULL) != 0)
		_exit(3);
	for (;;) {
		i = atomic_fetch_add(&f->b->next, 1);
		if (i >= f->n)
			break;
		atomic_store(&f->b->w[w].since_ms, t = now_ms());
		atomic_store(&f->b->w[w].cur, (long)i);
		cpu = cpu_ms();
		r = sp_cache_fill(&c, f->files[i].path, f->force, &err);
		atomic_store(&f->b->result[i], r == 0 ? R_CACHED : r == 1 ?
		    R_ANALYSED : r == 2 ? R_FAILED : R_ERROR);
		if (r == -1 || r == 2)
			tell(f->msg[1], i, 'E', f->files[i].path, err.msg);
		else if ((t = now_ms() - t) >= SLOW_MS) {
			snprintf(err.msg, sizeof(err.msg), "slow: %.1f s to "
			    "analyse (%.1f s CPU)", t / 1000.0,
			    (cpu_ms() - cpu) / 1000.0);
			tell(f->msg[1], i, 'S', f->files[i].path, err.msg);
		}
		atomic_store(&f->b->w[w].cur, -1L);
		atomic_fetch_add(&f->b->done, 1);
	}
	sp_cache_close(&c);
	_exit(0);
}

static int
spawn(struct fill *f, int w)
{
	pid_t pid;

	atomic_store(&f->b->w[w].cur, -1L);
	if ((pid = fork()) == -1) {
		cli_error("cache fill: fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		worker(f, w);
	f->pid[w] = pid;
	return 0;
}

static void
erase(struct fill *f)
{
	if (f->shown)
		fputs("\r\033[K", stderr);
	f->shown = false;
}

static void
progress(struct fill *f, long long t0)
{
	size_t done = atomic_load(&f->b->done);
	double secs = (now_ms() - t0) / 1000.0;

	fprintf(stderr, "\r\033[Ksyspin: cache fill: %zu/%zu files, %.1f "
	    "files/s", done, f->n, secs > 0 ? done / secs : 0.0);
	f->shown = true;
}

/* A problem with file i: always for named files, else with -v; slow
 * files with -v. */
static void
problem(struct fill *f, size_t i, char kind, const char *msg)
{
	if (i >= f->n || !(f->o.verbose || (f->files[i].named &&
	    kind == 'E')))
		return;
	erase(f);
	cli_error("%s", msg);
}

static void
read_messages(struct fill *f, char *buf, size_t *len, size_t cap)
{
	char *p, *nl, *end;
	ssize_t n;
	size_t i;

	while ((n = read(f->msg[0], buf + *len, cap - 1 - *len)) > 0) {
		*len += n;
		buf[*len] = '\0';
		for (p = buf; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
			*nl = '\0';
			i = strtoul(p, &end, 10);
			if (end[0] == ' ' && end[1] != '\0' && end[2] == ' ')
				problem(f, i, end[1], end + 3);
		}
		*len -= p - buf;
		memmove(buf, p, *len);
		if (*len == cap - 1)
			*len = 0;	/* a line too long: dropped */
	}
}

/* Worker w ended with status st: its file in hand, if any, is lost. */
static void
ended(struct fill *f, int w, int st, bool timed_out)
{
	long cur = atomic_load(&f->b->w[w].cur);
	char msg[PATH_MAX + 64];

	f->pid[w] = 0;
	if (cur < 0)
		return;
	atomic_store(&f->b->result[cur], R_ERROR);
	atomic_fetch_add(&f->b->done, 1);
	if (timed_out)
		snprintf(msg, sizeof(msg), "%s: analysis took more than %d s: "
		    "stopped", f->files[cur].path, FILE_SECS);
	else if (WIFSIGNALED(st))
		snprintf(msg, sizeof(msg), "%s: analysis crashed (signal %d)",
		    f->files[cur].path, WTERMSIG(st));
	else
		snprintf(msg, sizeof(msg), "%s: analysis stopped (status %d)",
		    f->files[cur].path, WEXITSTATUS(st));
	problem(f, cur, 'E', msg);
}

/* Kills the workers stuck on one file for too long. */
static void
watch(struct fill *f, bool *timed_out)
{
	long long t = now_ms();

	for (long w = 0; w < f->jobs; w++)
		if (f->pid[w] > 0 && atomic_load(&f->b->w[w].cur) >= 0 &&
		    t - atomic_load(&f->b->w[w].since_ms) > FILE_SECS * 1000LL &&
		    !timed_out[w]) {
			timed_out[w] = true;
			kill(f->pid[w], SIGKILL);
		}
}

/* SIGINT or SIGTERM to the fill (Ctrl-C): the workers are stopped and
 * the progress line ends cleanly before it goes. */
static volatile sig_atomic_t stop_sig;

static void
on_stop(int sig)
{
	stop_sig = sig;
}

static void
catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;	/* no SA_RESTART: poll returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* The workers told to go, and waited for; the line says how far. */
static void
stopped(struct fill *f)
{
	for (long w = 0; w < f->jobs; w++)
		if (f->pid[w] > 0)
			kill(f->pid[w], SIGTERM);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	erase(f);
	fprintf(stderr, "syspin: cache fill: interrupted: %zu of %zu files "
	    "done\n", (size_t)atomic_load(&f->b->done), f->n);
}

static int
run_workers(struct fill *f)
{
	bool timed_out[WORKERS_MAX] = { false };
	struct pollfd p;
	char buf[8192];
	size_t len = 0;
	long long t0 = now_ms(), shown = 0;
	long w, alive = 0;
	int st, rc = 0;
	pid_t pid;

	for (w = 0; w < f->jobs; w++)
		if (spawn(f, w) == 0)
			alive++;
	close(f->msg[1]);
	p.fd = f->msg[0];
	p.events = POLLIN;
	while (alive > 0) {
		if (stop_sig != 0) {
			stopped(f);
			return -2;
		}
		(void)poll(&p, 1, TICK_MS);
		read_messages(f, buf, &len, sizeof(buf));
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			for (w = 0; w < f->jobs && f->pid[w] != pid; w++)
				;
			if (w == f->jobs)
				continue;
			alive--;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
				rc = -1;	/* no cache: said why */
			ended(f, w, st, timed_out[w]);
			timed_out[w] = false;
			if (rc == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) ==
			    0) && atomic_load(&f->b->next) < f->n &&
			    spawn(f, w) == 0)
				alive++;
		}
		watch(f, timed_out);
		if (f->progress && now_ms() - shown >= TICK_MS) {
			progress(f, t0);
			shown = now_ms();
		}
	}
	read_messages(f, buf, &len, sizeof(buf));
	erase(f);
	return rc;
}

static int
board(struct fill *f)
{
	f->board_size = sizeof(*f->b) + f->n;
	f->b = mmap(NULL, f->board_size, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (f->b == MAP_FAILED) {
		cli_error("cache fill: mmap: %s", strerror(errno));
		return -1;
	}
	if (pipe2(f->msg, O_CLOEXEC) == -1) {
		cli_error("cache fill: pipe: %s", strerror(errno));
		munmap(f->b, f->board_size);
		return -1;
	}
	(void)fcntl(f->msg[0], F_SETFL, O_NONBLOCK);
	return 0;
}

/* The summary; returns the exit status. */
static int
summary(struct fill *f, long long t0, long evicted)
{
	size_t count[R_ERROR + 1] = { 0 };
	double secs = (now_ms() - t0) / 1000.0;
	size_t i;

	for (i = 0; i < f->n; i++)
		count[atomic_load(&f->b->result[i])]++;
	if (f->o.verbose || (f->progress && !f->quiet)) {
		fprintf(stderr, "syspin: cache fill: %zu files in %.1f s (%.1f "
		    "files/s, %ld worker%s): %zu analysed, %zu already "
		    "cached, %zu failed", f->n, secs, secs > 0 ? f->n / secs :
		    0.0, f->jobs, f->jobs == 1 ? "" : "s", count[R_ANALYSED],
		    count[R_CACHED], count[R_FAILED] + count[R_ERROR] +
		    count[R_PENDING]);
		if (evicted > 0)
			fprintf(stderr, "; %ld stale table%s removed",
			    evicted, evicted == 1 ? "" : "s");
		fputc('\n', stderr);
	}
	return count[R_FAILED] + count[R_ERROR] + count[R_PENDING] > 0 ?
	    EXIT_FINDINGS : 0;
}

int
cache_fill_main(int argc, char **argv)
{
	const char *sys[16];
	struct fill f;
	struct sp_cache c;
	long long t0 = now_ms();
	long evicted = 0;
	bool have_mac, missing;
	int rc;

	memset(&f, 0, sizeof(f));
	if (parse(argc, argv, &f) == -1)
		return EXIT_TROUBLE;
	/* Made, checked and keyed once here: the workers only open it. */
	if (cache_open(&f.o, &c, true, true, &have_mac) == -1)
		return EXIT_TROUBLE;
	if (!have_mac)
		cli_error("%s: no kernel keyring: syspin run will analyse "
		    "again what is filled here", c.path);
	if (optind < argc)
		rc = cache_walk(argv + optind, argc - optind, &f.files, &f.n);
	else
		rc = cache_walk((char *const *)sys, cache_system_dirs(sys,
		    sizeof(sys) / sizeof(*sys)), &f.files, &f.n);
	missing = rc == 1;
	if (rc == -1 || board(&f) == -1) {
		sp_cache_close(&c);
		cache_free_files(f.files, f.n);
		return EXIT_TROUBLE;
	}
	if ((size_t)f.jobs > f.n)
		f.jobs = f.n > 0 ? f.n : 1;
	catch_stop();
	rc = f.n > 0 ? run_workers(&f) : (close(f.msg[1]), 0);
	close(f.msg[0]);
	if (rc == -2) {		/* as a shell reports the signal */
		sp_cache_close(&c);
		munmap(f.b, f.board_size);
		cache_free_files(f.files, f.n);
		return 128 + stop_sig;
	}
	if (rc == 0 && f.system)
		evicted = cache_evict(&c, f.o.verbose);
	rc = rc == -1 ? EXIT_TROUBLE : summary(&f, t0, evicted);
	if (rc == 0 && missing)
		rc = EXIT_FINDINGS;	/* a path was not there */
	sp_cache_close(&c);
	munmap(f.b, f.board_size);
	cache_free_files(f.files, f.n);
	return rc;
}
