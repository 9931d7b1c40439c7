/* SPDX-License-Identifier: ISC */
/*
 * escape_forge MODE MARK [CACHEDIR] (attacks 14 and 15): forged pin
 * tables.  The attacker rewrites libc's table so that every libc site,
 * getpid's included, "may issue any number" (SP_PIN_ANY), then execs
 * `escape libc-site MARK` (next to this program), which makes mkdir from
 * libc's getpid `syscall`.  Stopped: the exec refused, or the child
 * killed (its pins do not come from the forged table).
 *
 *   table    rewrite libc's table in the cache `syspin run` uses: CACHEDIR
 *            (the --cache-dir), or with "-", $SYSPIN_CACHE_DIR, else the
 *            default directory for our euid.  The table stays there:
 *            battery.sh then starts a second, --strict run of the child
 *            with the same cache.  /var/cache/syspin is never written
 *            unless ESC_ALLOW_SYSTEM_CACHE=1.
 *   cachedir a cache directory of the attacker's own (under $ESC_TMP or
 *            /tmp, 0700, trusted by the ownership rule), filled for the
 *            child's objects, libc's table forged, and the child exec'd
 *            with SYSPIN_CACHE_DIR pointing there.
 *
 * Where syspin signs its tables, the tables are signed with the user's
 * key if the library can get it from inside the pinned tree.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pins/cache.h"
#include "fill/fill.h"
#include "util/error.h"

extern char **environ;

static char self_dir[PATH_MAX];

static void
find_self_dir(void)
{
	ssize_t n = readlink("/proc/self/exe", self_dir, sizeof(self_dir) - 1);
	char *s;

	if (n <= 0)
		exit(1);
	self_dir[n] = '\0';
	if ((s = strrchr(self_dir, '/')) != NULL)
		*s = '\0';
}

static int
fail(const char *what, const char *why)
{
	printf("%s: %s\n", what, why);
	return 3;
}

/* Every file mapped executable here (our objects: the child's libc and
 * ld.so, syspin's runtime), the child itself and the vDSO. */
static void
fill_all(const struct sp_cache *c, const char *child)
{
	char line[4600], perm[8], path[4096], prev[4096] = "";
	struct sp_error err;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*x-%*x %7s %*x %*s %*u %4095s", perm,
		    path) != 2 || perm[2] != 'x' || path[0] != '/' ||
		    strcmp(path, prev) == 0)
			continue;
		snprintf(prev, sizeof(prev), "%s", path);
		if (sp_cache_fill(c, path, false, &err) == -1)
			printf("fill %s: %s\n", path, err.msg);
	}
	if (f != NULL)
		fclose(f);
	(void)sp_cache_fill(c, child, false, &err);
	(void)sp_cache_fill(c, "[vdso]", false, &err);
}

/*
 * libc's table with getpid's site made SP_PIN_ANY.  (Making every site
 * ANY does not work as an attack: the filter for 500 any-number sites
 * no longer fits, and the process is refused for that reason.)
 */
static int
forge(const struct sp_cache *c)
{
	Dl_info info;
	struct stat st;
	struct sp_file_id id;
	struct sp_pintab tab;
	struct sp_error err;
	char key[SP_CACHE_KEY_MAX];
	const uint8_t *trap = dlsym(RTLD_DEFAULT, "getpid");
	uint64_t site;
	size_t n = 0;
	int r;

	for (int i = 0; trap != NULL && i < 64; i++, trap++)
		if (trap[0] == 0x0f && trap[1] == 0x05)
			break;
	if (trap == NULL || dladdr(trap, &info) == 0 ||
	    stat(info.dli_fname, &st) == -1)
		return fail("libc", "not found");
	site = (uint64_t)((uintptr_t)trap - (uintptr_t)info.dli_fbase);
	sp_file_id_from_stat(&id, &st);
	sp_cache_key_file(&id, key, sizeof(key));
	if ((r = sp_cache_load(c, key, &tab, &err)) == 0) {
		if (sp_cache_fill(c, info.dli_fname, false, &err) == -1)
			return fail("fill libc", err.msg);
		r = sp_cache_load(c, key, &tab, &err);
	}
	if (r != 1)
		return fail("load libc's table", r == 0 ? "none" : err.msg);
	for (size_t i = 0; i < tab.nsites; i++)
		if (tab.sites[i].addr == site) {
			tab.sites[i].how = SP_PIN_ANY;
			n++;
		}
	if (n == 0)
		return fail("libc's table", "no site at getpid's trap");
	if (sp_cache_store(c, key, &tab, &err) == -1)
		return fail("store the forged table", err.msg);
	printf("forged %s/%s (%s+0x%llx: any number)\n", c->path, key,
	    info.dli_fname, (unsigned long long)site);
	sp_pintab_free(&tab);
	return 0;
}

/*
 * Once syspin signs its cache (a MAC with a per-user key, lib/pins/
 * cache_mac.c), the attacker asks the library for the key as syspin run
 * does, and signs the forged tables.  A weak reference: the battery also
 * builds against a syspin without it (then nothing is signed).
 */
int sp_cache_use_mac(struct sp_cache *c, struct sp_error *err)
    __attribute__((weak));

static int
signed_tables(struct sp_cache *c, bool own, const char *child)
{
	struct sp_error err;

	if (sp_cache_use_mac == NULL)
		return 4;
	if (sp_cache_use_mac(c, &err) == -1) {
		printf("no MAC key: %s\n", err.msg);
		return 4;
	}
	printf("signing with the user's cache key\n");
	if (own)
		fill_all(c, child);
	return forge(c);
}

static int
exec_child(const char *child, const char *mark)
{
	char *argv[] = { "escape", "libc-site", (char *)mark, NULL };

	execve(child, argv, environ);
	return fail("execve", strerror(errno));
}

int
main(int argc, char **argv)
{
	char dir[PATH_MAX], real[PATH_MAX], *child;
	const char *tmp = getenv("ESC_TMP"), *d;
	struct sp_cache c;
	struct sp_error err;
	bool own = false;
	pid_t pid;
	int r, st;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 3)
		return 2;
	find_self_dir();
	if (asprintf(&child, "%s/escape", self_dir) == -1)
		return 1;
	if (strcmp(argv[1], "table") == 0) {
		d = argc > 3 && strcmp(argv[3], "-") != 0 ? argv[3] :
		    getenv("SYSPIN_CACHE_DIR");
		if (d != NULL)
			snprintf(dir, sizeof(dir), "%s", d);
		else if (sp_cache_default_dir(geteuid(), false, dir,
		    sizeof(dir)) == -1)
			return fail("cache", "no default directory");
		if (realpath(dir, real) != NULL &&
		    strcmp(real, "/var/cache/syspin") == 0 &&
		    getenv("ESC_ALLOW_SYSTEM_CACHE") == NULL)
			return fail(dir, "not touching the system cache");
		if (sp_cache_open(&c, dir, geteuid(), true, &err) == -1)
			return fail("open the cache", err.msg);
	} else if (strcmp(argv[1], "cachedir") == 0) {
		snprintf(dir, sizeof(dir), "%s/escape-cache.XXXXXX",
		    tmp != NULL ? tmp : "/tmp");
		if (mkdtemp(dir) == NULL)
			return fail("mkdtemp", strerror(errno));
		if (sp_cache_open(&c, dir, geteuid(), false, &err) == -1)
			return fail("open our cache", err.msg);
		if (setenv("SYSPIN_CACHE_DIR", dir, 1) == -1)
			return 1;
		own = true;
	} else
		return 2;
	/* Signed if we can, in a child (the attempt may be killed), else
	 * as plain files. */
	if ((pid = fork()) == 0)
		_exit(signed_tables(&c, own, child));
	if (pid == -1 || waitpid(pid, &st, 0) == -1 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		if (own)
			fill_all(&c, child);
		if ((r = forge(&c)) != 0)
			return r;
	}
	sp_cache_close(&c);
	return exec_child(child, argv[2]);
}
