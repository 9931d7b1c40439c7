/* SPDX-License-Identifier: ISC */
/*
 * syspin cache fill [--system] [-j N] [-f] [-q] [-v] [--cache-dir DIR]
 *     [PATH...]
 * syspin cache list [--json] [--cache-dir DIR]
 * syspin cache verify [-v] [--cache-dir DIR]
 * syspin cache clear [--stale] [-v] [--cache-dir DIR]
 *
 * The pin-table cache that `syspin run` fills as it goes, managed ahead of
 * time: fill analyses files (cache_fill.c), list shows what is there,
 * verify checks every file (MAC, format, the file it was made from), clear
 * removes everything or only what serves nothing any more.
 *
 * Exit status: 0 success; 1 verify found a problem, fill could not
 * analyse a file; 2 usage error or a cache that cannot be opened.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cli.h"

static const char *const state_names[] = {
	[CS_OK] = "ok", [CS_FAILED] = "failed", [CS_STALE] = "stale",
	[CS_OLD] = "old", [CS_BAD_MAC] = "bad-mac", [CS_BAD] = "bad",
	[CS_UNTRUSTED] = "untrusted", [CS_LEFTOVER] = "leftover",
	[CS_UNKNOWN] = "unknown", [CS_GONE] = "gone",
};

static void
usage(FILE *f)
{
	fputs("usage: syspin cache fill [--system] [--jobs N] [-fqv] "
	    "[-c DIR] [PATH...]\n"
	    "       syspin cache list [-j] [-c DIR]\n"
	    "       syspin cache verify [-v] [-c DIR]\n"
	    "       syspin cache clear [--stale] [-v] [-c DIR]\n\n"
	    "  fill    analyse the ELF files of PATHs (directories: every "
	    "program and\n"
	    "          library under them) into the cache; --system: the "
	    "system's\n"
	    "          programs and libraries\n"
	    "  list    the tables: age, sites, build-id, object\n"
	    "  verify  check every table (MAC, format, its file); exit 1 "
	    "on a problem\n"
	    "  clear   remove every table, or with --stale those that "
	    "serve nothing\n\n"
	    "  -c, --cache-dir DIR  the cache (as syspin run)\n"
	    "  -j, --json      list: one JSON object per table\n"
	    "      --jobs N    fill: analyse N files at once (default: the "
	    "CPUs)\n"
	    "  -f, --force     fill: analyse again what is cached\n"
	    "  -q, --quiet     fill: no progress line\n"
	    "  -v, --verbose   say each file\n"
	    "  -h, --help      this text\n\n"
	    "The cache is /var/cache/syspin for root, else "
	    "$XDG_CACHE_HOME/syspin\nor ~/.cache/syspin; see syspin(1).\n\n"
	    "Exit status: 0 success; 1 verify found a problem, or fill could "
	    "not analyse\na file; 2 usage error or the cache cannot be "
	    "used.\n",
	    f);
}

/* A relative --cache-dir becomes absolute: the runtime runs elsewhere. */
static int
cache_path(const struct cache_opts *o, char *dir, size_t size)
{
	char cwd[PATH_MAX];
	int n;

	if (o->dir == NULL) {
		if (sp_cache_default_dir(geteuid(), false, dir, size) == 0)
			return 0;
		cli_error("cache: no cache directory: set HOME or "
		    "--cache-dir");
		return -1;
	}
	if (o->dir[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL)
		n = snprintf(dir, size, "%s", o->dir);
	else
		n = snprintf(dir, size, "%s/%s", cwd, o->dir);
	if (n < 0 || (size_t)n >= size) {
		cli_error("%s: path too long", o->dir);
		return -1;
	}
	return 0;
}

int
cache_open(const struct cache_opts *o, struct sp_cache *c, bool create,
    bool mac, bool *have_mac)
{
	char dir[PATH_MAX];
	struct sp_error err;
	struct stat st;

	if (have_mac != NULL)
		*have_mac = false;
	if (cache_path(o, dir, sizeof(dir)) == -1)
		return -1;
	/* none yet where syspin keeps it by default; one named that is
	 * not there is a mistake (as for run) */
	if (!create && stat(dir, &st) == -1 && errno == ENOENT) {
		if (o->dir == NULL)
			return 1;
		cli_error("%s: %s", dir, strerror(ENOENT));
		return -1;
	}
	if (sp_cache_open(c, dir, geteuid(), create, &err) == -1) {
		cli_error("%s", err.msg);
		return -1;
	}
	if (!mac)
		return 0;
	if (sp_cache_use_mac(c, &err) == 0) {
		if (have_mac != NULL)
			*have_mac = true;
		return 0;
	}
	/* Without the user's key, read as the runtime does. */
	if (o->verbose)
		fprintf(stderr, "syspin: %s: no kernel keyring (%s): MACs "
		    "not checked\n", c->path, err.msg);
	sp_cache_drop_mac(c);
	return 0;
}

/* Options every subcommand but fill shares. */
static int
parse(int argc, char **argv, struct cache_opts *o, bool *flag,
    const char *flag_name)
{
	struct option opts[] = {
		{ "cache-dir", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ flag_name ? flag_name : "help", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(o, 0, sizeof(*o));
	/* -j: --json, where the subcommand has it (list) */
	while ((ch = getopt_long(argc, argv, flag_name != NULL &&
	    strcmp(flag_name, "json") == 0 ? "c:vhj" : "c:vh", opts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'c': o->dir = optarg; break;
		case 'v': o->verbose = true; break;
		case 'j':
		case 'F':
			if (flag_name != NULL) {
				*flag = true;
				break;
			}
			/* FALLTHROUGH */
		case 'h': usage(stdout); exit(0);
		default: cli_try("cache"); return -1;
		}
	}
	if (optind != argc) {
		cli_error("%s: unexpected argument '%s'", argv[0] +
		    strlen("syspin: "), argv[optind]);
		return -1;
	}
	return 0;
}

static void
age(char *buf, size_t size, int64_t secs)
{
	if (secs < 0)
		secs = 0;
	if (secs < 120)
		snprintf(buf, size, "%llds", (long long)secs);
	else if (secs < 7200)
		snprintf(buf, size, "%lldm", (long long)secs / 60);
	else if (secs < 2 * 86400)
		snprintf(buf, size, "%lldh", (long long)secs / 3600);
	else
		snprintf(buf, size, "%lldd", (long long)secs / 86400);
}

static void
hex(char *buf, size_t size, const uint8_t *p, size_t n)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < n && 2 * i + 2 < size; i++)
		snprintf(buf + 2 * i, 3, "%02x", p[i]);
}

static int
by_object(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;
	const char *p = x->tab.path, *q = y->tab.path;

	if (p == NULL || q == NULL)
		return p == q ? strcmp(x->name, y->name) : p == NULL ? 1 : -1;
	return strcmp(p, q);
}

/* Every table of c, loaded; records counted. */
static int
tables(const struct sp_cache *c, struct cache_entry **out, size_t *n,
    size_t *nrecords)
{
	struct cache_entry *v;
	char **names;
	size_t nnames, i;

	*n = *nrecords = 0;
	if (cache_names(c, &names, &nnames) == -1)
		return -1;
	if ((v = calloc(nnames + 1, sizeof(*v))) == NULL) {
		cache_free_names(names, nnames);
		cli_error("%s: out of memory", c->path);
		return -1;
	}
	for (i = 0; i < nnames; i++) {
		cache_inspect(c, names[i], &v[*n]);
		if (v[*n].kind != CK_TABLE && v[*n].kind != CK_TEMP &&
		    v[*n].kind != CK_OTHER)
			++*nrecords;
		if (v[*n].kind == CK_TABLE && v[*n].state != CS_GONE)
			++*n;
		else
			sp_pintab_free(&v[*n].tab);
	}
	cache_free_names(names, nnames);
	qsort(v, *n, sizeof(*v), by_object);
	*out = v;
	return 0;
}

static void
free_tables(struct cache_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sp_pintab_free(&v[i].tab);
	free(v);
}

static void
list_text(const struct cache_entry *v, size_t n, time_t now)
{
	char a[32], bid[2 * SP_CACHE_BUILD_ID_MAX + 1];
	size_t i;

	printf("%-5s %6s  %-40s  %s\n", "AGE", "SITES", "BUILD-ID", "OBJECT");
	for (i = 0; i < n; i++) {
		const struct cache_entry *e = &v[i];
		age(a, sizeof(a), now - e->mtime);
		hex(bid, sizeof(bid), e->tab.build_id, e->tab.build_id_len);
		if (e->tab.buf != NULL)
			printf("%-5s %6zu  %-40.40s  ", a, e->tab.nsites,
			    bid[0] ? bid : "-");
		else
			printf("%-5s %6s  %-40s  ", a, "-", "-");
		if (e->tab.path != NULL)
			fputs(e->tab.path, stdout);
		else
			printf("? (%s)", e->name);
		if (e->state != CS_OK)
			printf("  [%s: %s]", state_names[e->state], e->why);
		putchar('\n');
	}
}

static json_object *
entry_json(const struct cache_entry *e, time_t now)
{
	char bid[2 * SP_CACHE_BUILD_ID_MAX + 1];
	json_object *o = json_object_new_object();

	json_object_object_add(o, "key", json_object_new_string(e->name));
	json_object_object_add(o, "object", e->tab.path ?
	    json_object_new_string(e->tab.path) : NULL);
	hex(bid, sizeof(bid), e->tab.build_id, e->tab.build_id_len);
	json_object_object_add(o, "build_id", e->tab.buf && bid[0] ?
	    json_object_new_string(bid) : NULL);
	json_object_object_add(o, "sites", e->tab.buf ?
	    json_object_new_int64(e->tab.nsites) : NULL);
	json_object_object_add(o, "bytes", json_object_new_int64(e->bytes));
	json_object_object_add(o, "made", json_object_new_int64(e->mtime));
	json_object_object_add(o, "age_seconds",
	    json_object_new_int64(now - e->mtime));
	json_object_object_add(o, "state",
	    json_object_new_string(state_names[e->state]));
	if (e->state != CS_OK)
		json_object_object_add(o, "why",
		    json_object_new_string(e->why));
	return o;
}

static int
list_json(const char *dir, const struct cache_entry *v, size_t n,
    size_t nrecords, time_t now)
{
	json_object *root = json_object_new_object();
	json_object *a = json_object_new_array();
	int rc;

	json_object_object_add(root, "cache", json_object_new_string(dir));
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, entry_json(&v[i], now));
	json_object_object_add(root, "tables", a);
	json_object_object_add(root, "records",
	    json_object_new_int64(nrecords));
	rc = printf("%s\n", json_object_to_json_string_ext(root,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return rc < 0 ? -1 : 0;
}

static int
cmd_list(int argc, char **argv)
{
	struct cache_opts o;
	struct cache_entry *v = NULL;
	struct sp_cache c;
	char dir[PATH_MAX];
	size_t n = 0, nrec = 0;
	bool json = false, opened;
	int r;

	if (parse(argc, argv, &o, &json, "json") == -1 ||
	    cache_path(&o, dir, sizeof(dir)) == -1)
		return EXIT_TROUBLE;
	if ((r = cache_open(&o, &c, false, true, NULL)) == -1)
		return EXIT_TROUBLE;
	opened = r == 0;
	if (opened && tables(&c, &v, &n, &nrec) == -1) {
		sp_cache_close(&c);
		return EXIT_TROUBLE;
	}
	r = 0;
	if (json)
		r = list_json(opened ? c.path : dir, v, n, nrec, time(NULL));
	else
		list_text(v, n, time(NULL));
	free_tables(v, n);
	if (opened)
		sp_cache_close(&c);
	if (fflush(stdout) == EOF || r == -1) {
		cli_error("cache list: %s", strerror(errno));
		return EXIT_TROUBLE;
	}
	return 0;
}

static int
cmd_verify(int argc, char **argv)
{
	struct cache_opts o;
	struct cache_entry e;
	struct sp_cache c;
	struct sp_error err;
	size_t n, i, nt = 0, nr = 0, bad = 0, evict = 0;
	char **names, dir[PATH_MAX];
	int r;

	if (parse(argc, argv, &o, NULL, NULL) == -1 ||
	    cache_path(&o, dir, sizeof(dir)) == -1)
		return EXIT_TROUBLE;
	if ((r = cache_open(&o, &c, false, false, NULL)) != 0) {
		if (r == 1)
			printf("%s: no cache yet\n", dir);
		return r == 1 ? 0 : EXIT_TROUBLE;
	}
	/* Unlike list, a verify that cannot check MACs has not verified. */
	if (sp_cache_use_mac(&c, &err) == -1) {
		cli_error("%s: cannot check MACs: no kernel keyring (%s)",
		    c.path, err.msg);
		sp_cache_close(&c);
		return EXIT_TROUBLE;
	}
	if (cache_names(&c, &names, &n) == -1) {
		sp_cache_close(&c);
		return EXIT_TROUBLE;
	}
	for (i = 0; i < n; i++) {
		cache_inspect(&c, names[i], &e);
		sp_pintab_free(&e.tab);
		nt += e.kind == CK_TABLE;
		nr += e.kind == CK_RECORD || e.kind == CK_FACTS ||
		    e.kind == CK_PRUNING || e.kind == CK_IMPORTS;
		if (e.state == CS_OK || e.state == CS_GONE ||
		    e.state == CS_FAILED) {
			if (o.verbose && e.state == CS_FAILED)
				fprintf(stderr, "syspin: %s/%s: %s\n", c.path,
				    e.name, e.why);
			continue;
		}
		cli_error("%s/%s: %s", c.path, e.name, e.why);
		bad++;
		evict += e.state != CS_UNTRUSTED && e.state != CS_UNKNOWN;
	}
	cache_free_names(names, n);
	printf("%s: %zu tables, %zu records: ", c.path, nt, nr);
	if (bad == 0)
		printf("ok\n");
	else
		printf("%zu problem%s%s\n", bad, bad == 1 ? "" : "s", evict ?
		    " (syspin cache clear --stale removes them)" : "");
	sp_cache_close(&c);
	return bad > 0 ? EXIT_FINDINGS : 0;
}

static int
cmd_clear(int argc, char **argv)
{
	struct cache_opts o;
	struct sp_cache c;
	bool stale = false;
	long gone;
	int r;

	if (parse(argc, argv, &o, &stale, "stale") == -1)
		return EXIT_TROUBLE;
	if ((r = cache_open(&o, &c, false, stale, NULL)) != 0)
		return r == 1 ? 0 : EXIT_TROUBLE;
	gone = stale ? cache_evict(&c, o.verbose) : cache_clear_all(&c);
	if (gone >= 0 && (o.verbose || isatty(STDOUT_FILENO)))
		printf("%s: removed %ld file%s\n", c.path, gone,
		    gone == 1 ? "" : "s");
	sp_cache_close(&c);
	return gone < 0 ? EXIT_TROUBLE : 0;
}

int
cmd_cache(int argc, char **argv)
{
	static const struct cli_cmd sub[] = {
		{ "fill", cache_fill_main, NULL }, { "list", cmd_list, NULL },
		{ "verify", cmd_verify, NULL }, { "clear", cmd_clear, NULL },
	};
	int rc;

	/* getopt's complaints: "syspin: cache list: ...". */
	if ((rc = cli_dispatch(argc, argv, sub, sizeof(sub) / sizeof(*sub),
	    "syspin: cache", usage)) != -1)
		return rc;
	cli_error("cache: unknown subcommand '%s'", argv[1]);
	cli_try("cache");
	return EXIT_TROUBLE;
}
