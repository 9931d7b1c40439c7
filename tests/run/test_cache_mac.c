/* SPDX-License-Identifier: ISC */
/*
 * Authenticated pin tables (lib/pins/cache_mac.c): with a key attached, a
 * file is believed only with its own right MAC; every change, a cut, a
 * missing or foreign MAC make it absent (0: analysed again).  The runtime's
 * way (no key) still reads them.  Without a keyring only what this process
 * wrote is believed.  Also attacks on the key itself from a forked child.
 * Keys are test keys (TEST_KEY...), invalidated at the end.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pins/cache.h"
#include "fill/fill.h"

#define TRAILER 56		/* lib/pins/cache_format.h */
#define HEADER 152		/* sizeof(struct sp_cache_hdr), the same */
#define KEY_ID_AT 16		/* offset of key_id in the trailer */

static char dir[] = "/tmp/syspin-test-mac.XXXXXX";
static char key_name[64], other_name[64];
static bool have_keyring;
static double first_us;		/* the first sp_cache_use_mac_named */

static uint32_t nrs[] = { 39, 0, 1, 59 };
static struct sp_pin_site sites[] = {
	{ .addr = 0x100, .nr_first = 0, .nr_count = 1, .length = 2,
	  .how = SP_PIN_EXACT, .export = SP_PIN_NO_EXPORT },
	{ .addr = 0x300, .nr_first = 0, .nr_count = 0, .length = 2,
	  .how = SP_PIN_ANY, .export = SP_PIN_NO_EXPORT },
};
static char strtab[] = "\0syscall";

static void
sample(struct sp_pintab *t)
{
	memset(t, 0, sizeof(*t));
	t->id = (struct sp_file_id){ 0xfe00, 1234, 5678, 1700000000, 42,
	    1700000001, 7 };
	t->sites = sites;
	t->nsites = 2;
	t->nrs = nrs;
	t->nnrs = 4;
	t->strtab = strtab;
	t->strtab_size = sizeof(strtab);
}

static long
kctl(int op, unsigned long a, unsigned long b, unsigned long c)
{
	return syscall(SYS_keyctl, op, a, b, c, 0);
}

/* The serial of a test key, as syspin itself reaches it. */
static long
key_serial(const char *name)
{
	long ring = kctl(KEYCTL_GET_PERSISTENT, (unsigned long)-1,
	    KEY_SPEC_PROCESS_KEYRING, 0);

	return ring == -1 ? -1 : kctl(KEYCTL_SEARCH, ring,
	    (unsigned long)"user", (unsigned long)name);
}

static void
open_mac(struct sp_cache *c, const char *name, unsigned flags)
{
	struct sp_error err;

	assert_int_equal(sp_cache_open(c, dir, geteuid(), true, &err), 0);
	if (sp_cache_use_mac_named(c, name, flags, &err) == -1 &&
	    !(flags & SP_CACHE_MAC_NO_KEYRING))
		fail_msg("no key: %s", err.msg);
}

static void
path_of(const char *key, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", dir, key);
}

static size_t
slurp(const char *key, uint8_t *buf, size_t max)
{
	char path[256];
	ssize_t n;
	int fd;

	path_of(key, path, sizeof(path));
	assert_true((fd = open(path, O_RDONLY)) != -1);
	n = read(fd, buf, max);
	close(fd);
	assert_true(n > 0 && (size_t)n < max);
	return n;
}

/* Replaces the file under key in place, as a pinned process could. */
static void
spill(const char *key, const uint8_t *buf, size_t len)
{
	char path[256];
	int fd;

	path_of(key, path, sizeof(path));
	assert_true((fd = open(path, O_WRONLY | O_TRUNC)) != -1);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static int
load(const struct sp_cache *c, const char *key, struct sp_error *err)
{
	struct sp_pintab u;
	int r;

	err->msg[0] = '\0';
	if ((r = sp_cache_load(c, key, &u, err)) == 1)
		sp_pintab_free(&u);
	return r;
}

/* Where there is no keyring (containers) the fallback alone is tested. */
#define NEED_KEYRING() do { if (!have_keyring) skip(); } while (0)

static void
test_round_trip(void **state)
{
	struct sp_cache c, rt;
	struct sp_pintab t, u;
	struct sp_error err;

	(void)state;
	NEED_KEYRING();
	sample(&t);
	open_mac(&c, key_name, 0);
	assert_int_equal(sp_cache_auth(&c), SP_CACHE_AUTH_USER);
	assert_int_equal(sp_cache_store(&c, "f-rt", &t, &err), 0);
	assert_int_equal(sp_cache_load(&c, "f-rt", &u, &err), 1);
	assert_memory_equal(u.sites, sites, sizeof(sites));
	assert_memory_equal(u.nrs, nrs, sizeof(nrs));
	sp_pintab_free(&u);
	/* The runtime's way: no key, the trailer skipped. */
	assert_int_equal(sp_cache_open(&rt, dir, geteuid(), false, &err), 0);
	assert_int_equal(sp_cache_auth(&rt), SP_CACHE_AUTH_NONE);
	assert_int_equal(sp_cache_load(&rt, "f-rt", &u, &err), 1);
	assert_memory_equal(u.sites, sites, sizeof(sites));
	sp_pintab_free(&u);
	sp_cache_close(&rt);
	sp_cache_close(&c);
	assert_null(c.mac);
}

/* Every byte flipped, every cut: absent, with a reason. */
static void
test_tamper(void **state)
{
	struct sp_cache c;
	struct sp_pintab t;
	struct sp_error err;
	uint8_t good[4096], bad[4096];
	size_t len, i;

	(void)state;
	NEED_KEYRING();
	sample(&t);
	open_mac(&c, key_name, 0);
	assert_int_equal(sp_cache_store(&c, "f-t", &t, &err), 0);
	len = slurp("f-t", good, sizeof(good));
	for (i = 0; i < len; i++) {
		memcpy(bad, good, len);
		bad[i] ^= 0x01;
		spill("f-t", bad, len);
		assert_int_equal(load(&c, "f-t", &err), 0);
		assert_non_null(strstr(err.msg, "not believed"));
	}
	for (i = 0; i < len; i++) {
		spill("f-t", good, i);
		assert_int_equal(load(&c, "f-t", &err), 0);
	}
	/* An attack's edit: site 0 may now issue any number. */
	memcpy(bad, good, len);
	bad[HEADER + 21] = SP_PIN_ANY;
	spill("f-t", bad, len);
	assert_int_equal(load(&c, "f-t", &err), 0);
	assert_non_null(strstr(err.msg, "wrong MAC"));
	spill("f-t", good, len);
	assert_int_equal(load(&c, "f-t", &err), 1);
	sp_cache_close(&c);
}

/* No MAC: cut off, or written without a key.  The runtime reads both. */
static void
test_no_mac(void **state)
{
	struct sp_cache c, plain;
	struct sp_pintab t;
	struct sp_error err;
	uint8_t good[4096];
	size_t len;

	(void)state;
	NEED_KEYRING();
	sample(&t);
	open_mac(&c, key_name, 0);
	assert_int_equal(sp_cache_open(&plain, dir, geteuid(), false, &err),
	    0);
	assert_int_equal(sp_cache_store(&c, "f-n", &t, &err), 0);
	len = slurp("f-n", good, sizeof(good));
	spill("f-n", good, len - TRAILER);
	assert_int_equal(load(&c, "f-n", &err), 0);
	assert_non_null(strstr(err.msg, "no MAC"));
	assert_int_equal(load(&plain, "f-n", &err), 1);
	assert_int_equal(sp_cache_store(&plain, "f-n", &t, &err), 0);
	assert_int_equal(load(&c, "f-n", &err), 0);
	assert_non_null(strstr(err.msg, "no MAC"));
	assert_int_equal(load(&plain, "f-n", &err), 1);
	sp_cache_close(&plain);
	sp_cache_close(&c);
}

/* Another key's table; its MAC under our key's name; ours renamed. */
static void
test_other_key(void **state)
{
	struct sp_cache c, o;
	struct sp_pintab t;
	struct sp_error err;
	uint8_t mine[4096], theirs[4096];
	size_t len;
	char path[256], path2[256];

	(void)state;
	NEED_KEYRING();
	sample(&t);
	open_mac(&c, key_name, 0);
	open_mac(&o, other_name, 0);
	assert_int_equal(sp_cache_store(&c, "f-o", &t, &err), 0);
	len = slurp("f-o", mine, sizeof(mine));
	assert_int_equal(sp_cache_store(&o, "f-o", &t, &err), 0);
	assert_int_equal(load(&o, "f-o", &err), 1);
	assert_int_equal(load(&c, "f-o", &err), 0);
	assert_non_null(strstr(err.msg, "another key"));
	/* A MAC by the wrong key that claims to be ours. */
	assert_int_equal(slurp("f-o", theirs, sizeof(theirs)), len);
	memcpy(theirs + len - TRAILER + KEY_ID_AT,
	    mine + len - TRAILER + KEY_ID_AT, 8);
	spill("f-o", theirs, len);
	assert_int_equal(load(&c, "f-o", &err), 0);
	assert_non_null(strstr(err.msg, "wrong MAC"));
	/* Our own right table under another object's name. */
	spill("f-o", mine, len);
	assert_int_equal(load(&c, "f-o", &err), 1);
	path_of("f-o", path, sizeof(path));
	path_of("f-libc", path2, sizeof(path2));
	assert_int_equal(rename(path, path2), 0);
	assert_int_equal(load(&c, "f-libc", &err), 0);
	assert_non_null(strstr(err.msg, "wrong MAC"));
	sp_cache_close(&o);
	sp_cache_close(&c);
}

/* sp_cache_put/get/has: the same rule for the auxiliary files. */
static void
test_get_has(void **state)
{
	static const char rec[] = "syspin-objects 1\n/bin/true\n";
	struct sp_cache c, plain;
	struct sp_error err;
	uint8_t file[4096];
	char buf[256];
	size_t len;

	(void)state;
	NEED_KEYRING();
	open_mac(&c, key_name, 0);
	assert_int_equal(sp_cache_open(&plain, dir, geteuid(), false, &err),
	    0);
	assert_int_equal(sp_cache_put(&c, "p-1", rec, strlen(rec), &err), 0);
	assert_int_equal(sp_cache_get(&c, "p-1", buf, sizeof(buf), &err),
	    strlen(rec));
	assert_memory_equal(buf, rec, strlen(rec));
	assert_true(sp_cache_has(&c, "p-1"));
	assert_int_equal(sp_cache_get(&plain, "p-1", buf, sizeof(buf), &err),
	    strlen(rec));
	assert_memory_equal(buf, rec, strlen(rec));
	/* max counts the body, not the trailer. */
	assert_int_equal(sp_cache_get(&c, "p-1", buf, strlen(rec), &err),
	    strlen(rec));
	assert_int_equal(sp_cache_get(&c, "p-1", buf, 4, &err), -1);
	len = slurp("p-1", file, sizeof(file));
	file[20] ^= 1;
	spill("p-1", file, len);
	assert_int_equal(sp_cache_get(&c, "p-1", buf, sizeof(buf), &err), 0);
	assert_non_null(strstr(err.msg, "wrong MAC"));
	assert_false(sp_cache_has(&c, "p-1"));
	assert_true(sp_cache_has(&plain, "p-1"));
	/* A record of an older syspin: no trailer, read as it is. */
	spill("p-1", (const uint8_t *)rec, strlen(rec));
	assert_int_equal(sp_cache_get(&plain, "p-1", buf, sizeof(buf), &err),
	    strlen(rec));
	assert_int_equal(sp_cache_get(&c, "p-1", buf, sizeof(buf), &err), 0);
	assert_false(sp_cache_has(&c, "p-1"));
	assert_false(sp_cache_has(&c, "p-none"));
	sp_cache_close(&plain);
	sp_cache_close(&c);
}

/* Another process without a keyring stores key (see main). */
static void
child_store(const char *key)
{
	char self[4096];
	pid_t pid;
	int st;
	ssize_t n;

	assert_true((n = readlink("/proc/self/exe", self, sizeof(self) - 1))
	    > 0);
	self[n] = '\0';
	if ((pid = fork()) == 0) {
		execl(self, self, "--store-no-keyring", dir, key, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* No keyring: believed are the files this process wrote, any cache. */
static void
test_fallback(void **state)
{
	struct sp_cache c, c2, u;
	struct sp_pintab t;
	struct sp_error err;
	uint8_t buf[4096];
	size_t len;

	(void)state;
	sample(&t);
	assert_int_equal(sp_cache_open(&c, dir, geteuid(), true, &err), 0);
	assert_int_equal(sp_cache_use_mac_named(&c, key_name,
	    SP_CACHE_MAC_NO_KEYRING, &err), -1);
	assert_int_equal(sp_cache_auth(&c), SP_CACHE_AUTH_PROCESS);
	open_mac(&c2, key_name, SP_CACHE_MAC_NO_KEYRING);
	assert_int_equal(sp_cache_store(&c, "f-fb", &t, &err), 0);
	assert_int_equal(load(&c, "f-fb", &err), 1);
	assert_int_equal(load(&c2, "f-fb", &err), 1);
	sp_cache_close(&c);
	assert_int_equal(load(&c2, "f-fb", &err), 1);
	/* Not ours: another process's, the user key's, changed ones. */
	child_store("f-child");
	assert_int_equal(load(&c2, "f-child", &err), 0);
	assert_non_null(strstr(err.msg, "another process"));
	if (have_keyring) {
		open_mac(&u, key_name, 0);
		assert_int_equal(sp_cache_store(&u, "f-user", &t, &err), 0);
		assert_int_equal(load(&u, "f-fb", &err), 0);
		sp_cache_close(&u);
		assert_int_equal(load(&c2, "f-user", &err), 0);
	}
	len = slurp("f-fb", buf, sizeof(buf));
	buf[150] ^= 1;
	spill("f-fb", buf, len);
	assert_int_equal(load(&c2, "f-fb", &err), 0);
	sp_cache_close(&c2);
}

/*
 * A forked child, as the pinned program is before its exec: its copy of
 * the key reads zeros (it believes nothing), and the kernel's key is out
 * of its reach by every way but KEYCTL_GET_PERSISTENT, which the filter of
 * pinned processes refuses.  Possessor-only permissions, no write.
 */
static void
test_child_attack(void **state)
{
	static const long rings[] = { KEY_SPEC_THREAD_KEYRING,
	    KEY_SPEC_PROCESS_KEYRING, KEY_SPEC_SESSION_KEYRING,
	    KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING };
	struct sp_cache c;
	struct sp_pintab t;
	struct sp_error err;
	char desc[256], buf[64];
	long serial;
	unsigned perm;
	pid_t pid;
	size_t i;
	int st;

	(void)state;
	NEED_KEYRING();
	sample(&t);
	open_mac(&c, key_name, 0);
	assert_int_equal(sp_cache_store(&c, "f-fork", &t, &err), 0);
	assert_true((serial = key_serial(key_name)) > 0);
	assert_true(kctl(KEYCTL_DESCRIBE, serial, (unsigned long)desc,
	    sizeof(desc)) > 0);
	assert_int_equal(sscanf(desc, "user;%*u;%*u;%x;", &perm), 1);
	assert_int_equal(perm, 0x3b000000);	/* KEY_POS_ALL - WRITE */
	if ((pid = fork()) == 0) {
		int bad = load(&c, "f-fork", &err) != 0;
		bad |= kctl(KEYCTL_READ, serial, (unsigned long)buf,
		    sizeof(buf)) != -1 || errno != EACCES;
		for (i = 0; i < sizeof(rings) / sizeof(*rings); i++)
			bad |= kctl(KEYCTL_SEARCH, rings[i],
			    (unsigned long)"user", (unsigned long)key_name)
			    != -1;
		_exit(bad);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(load(&c, "f-fork", &err), 1);
	sp_cache_close(&c);
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Printed, not asserted: libc's table with and without the MAC check. */
static void
test_timing(void **state)
{
	struct sp_cache c, plain;
	struct sp_pintab u;
	struct sp_error err;
	struct sp_file_id id;
	struct stat st;
	Dl_info info;
	char key[SP_CACHE_KEY_MAX];
	double t0, mac_us, plain_us;
	int i, n = 2000;

	(void)state;
	NEED_KEYRING();
	assert_true(dladdr((void *)getpid, &info) != 0);
	assert_int_equal(stat(info.dli_fname, &st), 0);
	sp_file_id_from_stat(&id, &st);
	sp_cache_key_file(&id, key, sizeof(key));
	open_mac(&c, key_name, 0);
	assert_true(sp_cache_fill(&c, info.dli_fname, true, &err) >= 1);
	assert_int_equal(sp_cache_open(&plain, dir, geteuid(), false, &err),
	    0);
	assert_int_equal(sp_cache_load(&c, key, &u, &err), 1);
	printf("# %s: table %zu sites, %zu numbers\n", info.dli_fname,
	    u.nsites, u.nnrs);
	sp_pintab_free(&u);
	t0 = now_us();
	for (i = 0; i < n; i++) {
		assert_int_equal(sp_cache_load(&c, key, &u, &err), 1);
		sp_pintab_free(&u);
	}
	mac_us = (now_us() - t0) / n;
	t0 = now_us();
	for (i = 0; i < n; i++) {
		assert_int_equal(sp_cache_load(&plain, key, &u, &err), 1);
		sp_pintab_free(&u);
	}
	plain_us = (now_us() - t0) / n;
	printf("# libc table load: %.1f us with MAC check, %.1f us without "
	    "(+%.1f us)\n", mac_us, plain_us, mac_us - plain_us);
	t0 = now_us();
	for (i = 0; i < 100; i++)
		assert_int_equal(sp_cache_use_mac_named(&c, key_name, 0, &err),
		    0);
	printf("# key: %.1f us the first time (making it, the crypto "
	    "library's set-up), %.1f us each time after (keyctl, mostly)\n",
	    first_us, (now_us() - t0) / 100);
	sp_cache_close(&c);
	sp_cache_close(&plain);
}

static int
teardown(void **state)
{
	char cmd[128];
	long k;

	(void)state;
	if ((k = key_serial(key_name)) > 0)
		kctl(KEYCTL_INVALIDATE, k, 0, 0);
	if ((k = key_serial(other_name)) > 0)
		kctl(KEYCTL_INVALIDATE, k, 0, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The other process of test_fallback: stores one table, no keyring. */
static int
store_no_keyring(const char *d, const char *key)
{
	struct sp_cache c;
	struct sp_pintab t;
	struct sp_error err;

	sample(&t);
	if (sp_cache_open(&c, d, geteuid(), false, &err) == -1 ||
	    sp_cache_use_mac_named(&c, "unused", SP_CACHE_MAC_NO_KEYRING,
	    &err) != -1 || sp_cache_store(&c, key, &t, &err) == -1)
		return 1;
	sp_cache_close(&c);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_tamper),
		cmocka_unit_test(test_no_mac),
		cmocka_unit_test(test_other_key),
		cmocka_unit_test(test_get_has),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_child_attack),
		cmocka_unit_test(test_timing),
	};
	struct sp_cache c;
	struct sp_error err;

	if (argc == 4 && strcmp(argv[1], "--store-no-keyring") == 0)
		return store_no_keyring(argv[2], argv[3]);
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(key_name, sizeof(key_name), "syspin:cache-mac-test:%ld",
	    (long)getpid());
	snprintf(other_name, sizeof(other_name), "syspin:cache-mac-other:%ld",
	    (long)getpid());
	if (sp_cache_open(&c, dir, geteuid(), false, &err) == 0) {
		first_us = now_us();
		have_keyring = sp_cache_use_mac_named(&c, key_name, 0,
		    &err) == 0;
		first_us = now_us() - first_us;
		if (!have_keyring)
			printf("# no kernel keyring: %s\n", err.msg);
		sp_cache_close(&c);
	}
	return cmocka_run_group_tests(tests, NULL, teardown);
}
