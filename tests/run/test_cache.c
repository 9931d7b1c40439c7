/* SPDX-License-Identifier: ISC */
/* Pin table cache: round trip, hostile files, trust rules, pin placement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pins/cache.h"
#include "layout/layout.h"
#include "layout/placement.h"

static char dir[] = "/tmp/syspin-test-cache.XXXXXX";

/* A table: getpid at 0x100, an export `syscall` at 0x200, any at 0x300. */
static uint32_t nrs[] = { 39, 0, 1, 59 };
static struct sp_pin_site sites[] = {
	{ .addr = 0x100, .nr_first = 0, .nr_count = 1, .length = 2,
	  .how = SP_PIN_EXACT, .export = SP_PIN_NO_EXPORT },
	{ .addr = 0x200, .nr_first = 1, .nr_count = 0, .length = 2,
	  .how = SP_PIN_EXPORT, .export = 0 },
	{ .addr = 0x300, .nr_first = 0, .nr_count = 0, .length = 2,
	  .how = SP_PIN_ANY, .export = SP_PIN_NO_EXPORT },
};
static struct sp_pin_import imports[] = {
	{ .name = 1, .nr_first = 1, .nr_count = 2, .unresolved = 0 },
};
static struct sp_pin_export exports[] = { { .name = 1, .addr = 0x1f0 } };
static char strtab[] = "\0syscall";

static void
sample(struct sp_pintab *t)
{
	memset(t, 0, sizeof(*t));
	t->id = (struct sp_file_id){ 0xfe00, 1234, 5678, 1700000000, 42,
	    1700000001, 7 };
	t->build_id_len = 3;
	memcpy(t->build_id, "\x01\x02\x03", 3);
	t->sites = sites;
	t->nsites = 3;
	t->nrs = nrs;
	t->nnrs = 4;
	t->imports = imports;
	t->nimports = 1;
	t->exports = exports;
	t->nexports = 1;
	t->strtab = strtab;
	t->strtab_size = sizeof(strtab);
	t->path = "/usr/lib/libsample.so.1";
}

static void
test_round_trip(void **state)
{
	struct sp_cache c;
	struct sp_pintab t, u;
	struct sp_error err;
	char key[SP_CACHE_KEY_MAX];

	(void)state;
	sample(&t);
	sp_cache_key_file(&t.id, key, sizeof(key));
	assert_string_equal(key, "f-fe00-1234-5678-1700000000.000000042-1700000001.000000007");
	assert_int_equal(sp_cache_open(&c, dir, geteuid(), true, &err), 0);
	assert_int_equal(sp_cache_store(&c, key, &t, &err), 0);
	assert_int_equal(sp_cache_load(&c, key, &u, &err), 1);
	assert_memory_equal(&u.id, &t.id, sizeof(t.id));
	assert_int_equal(u.build_id_len, 3);
	assert_int_equal(u.nsites, 3);
	assert_memory_equal(u.sites, sites, sizeof(sites));
	assert_memory_equal(u.nrs, nrs, sizeof(nrs));
	assert_memory_equal(u.imports, imports, sizeof(imports));
	assert_memory_equal(u.exports, exports, sizeof(exports));
	assert_string_equal(u.strtab + u.exports[0].name, "syscall");
	assert_string_equal(u.path, "/usr/lib/libsample.so.1");
	sp_pintab_free(&u);
	/* No path: none read back; an empty string table gets its "". */
	t.path = NULL;
	assert_int_equal(sp_cache_store(&c, key, &t, &err), 0);
	assert_int_equal(sp_cache_load(&c, key, &u, &err), 1);
	assert_null(u.path);
	assert_string_equal(u.strtab + u.exports[0].name, "syscall");
	sp_pintab_free(&u);
	t.path = "[vdso]";
	t.nimports = t.nexports = 0;
	t.sites = &sites[0];
	t.nsites = 1;
	t.strtab = NULL;
	t.strtab_size = 0;
	assert_int_equal(sp_cache_store(&c, key, &t, &err), 0);
	assert_int_equal(sp_cache_load(&c, key, &u, &err), 1);
	assert_string_equal(u.path, "[vdso]");
	assert_int_equal(u.strtab[0], '\0');
	sp_pintab_free(&u);
	assert_int_equal(sp_cache_load(&c, "f-none", &u, &err), 0);
	sp_cache_close(&c);
}

/* A table another syspin version made is no table: it is made again. */
static void
test_stale_version(void **state)
{
	struct sp_cache c;
	struct sp_pintab t, u;
	struct sp_error err;
	char key[SP_CACHE_KEY_MAX], path[4200];
	uint32_t version;
	FILE *f;

	(void)state;
	sample(&t);
	sp_cache_key_file(&t.id, key, sizeof(key));
	assert_int_equal(sp_cache_open(&c, dir, geteuid(), true, &err), 0);
	assert_int_equal(sp_cache_store(&c, key, &t, &err), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, key);
	assert_non_null(f = fopen(path, "r+"));
	assert_int_equal(fseek(f, 8, SEEK_SET), 0);	/* after the magic */
	assert_int_equal(fread(&version, 4, 1, f), 1);
	version--;
	assert_int_equal(fseek(f, 8, SEEK_SET), 0);
	assert_int_equal(fwrite(&version, 4, 1, f), 1);
	fclose(f);
	assert_int_equal(sp_cache_load(&c, key, &u, &err), 0);
	/* Written again: current. */
	assert_int_equal(sp_cache_store(&c, key, &t, &err), 0);
	assert_int_equal(sp_cache_load(&c, key, &u, &err), 1);
	sp_pintab_free(&u);
	sp_cache_close(&c);
}

/* Every truncation and a few corrupted indices must be refused. */
static void
test_hostile(void **state)
{
	struct sp_pintab t, u;
	struct sp_error err;
	struct sp_pin_site bad;
	size_t len, cut;
	void *buf, *copy;

	(void)state;
	sample(&t);
	assert_int_equal(sp_pintab_encode(&t, &buf, &len, &err), 0);
	for (cut = 0; cut < len; cut++) {
		copy = malloc(cut + 1);
		memcpy(copy, buf, cut);
		assert_int_equal(sp_pintab_decode(copy, cut, &u, &err), -1);
	}
	free(buf);
	bad = sites[1];
	bad.export = 5;			/* no such export */
	t.sites = &bad;
	t.nsites = 1;
	assert_int_equal(sp_pintab_encode(&t, &buf, &len, &err), 0);
	assert_int_equal(sp_pintab_decode(buf, len, &u, &err), -1);
	bad = sites[0];
	bad.nr_count = 99;		/* past nrs[] */
	assert_int_equal(sp_pintab_encode(&t, &buf, &len, &err), 0);
	assert_int_equal(sp_pintab_decode(buf, len, &u, &err), -1);
}

static void
test_trust_rules(void **state)
{
	struct stat st;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_uid = 0;
	assert_true(sp_cache_trusted(&st, 0, false));
	assert_true(sp_cache_trusted(&st, 1000, false));
	st.st_uid = 1000;
	assert_false(sp_cache_trusted(&st, 0, false));
	assert_true(sp_cache_trusted(&st, 1000, false));
	assert_false(sp_cache_trusted(&st, 1001, false));
	st.st_uid = 0;
	st.st_mode = S_IFREG | 0664;
	assert_false(sp_cache_trusted(&st, 0, false));
	st.st_mode = S_IFREG | 0646;
	assert_false(sp_cache_trusted(&st, 0, false));
	st.st_mode = S_IFDIR | 01777;
	assert_false(sp_cache_trusted(&st, 0, false));
	assert_true(sp_cache_trusted(&st, 0, true));
	st.st_mode = S_IFDIR | 0777;
	assert_false(sp_cache_trusted(&st, 0, true));
}

/* Real files: as root, refuse another owner and group/world write. */
static void
test_trust_files(void **state)
{
	struct sp_cache c;
	struct sp_pintab t, u;
	struct sp_error err;
	char path[512], sub[256];

	(void)state;
	if (geteuid() != 0)
		skip();
	sample(&t);
	assert_int_equal(sp_cache_open(&c, dir, 0, true, &err), 0);
	assert_int_equal(sp_cache_store(&c, "f-other", &t, &err), 0);
	assert_int_equal(sp_cache_store(&c, "f-gw", &t, &err), 0);
	assert_int_equal(sp_cache_store(&c, "f-ow", &t, &err), 0);
	snprintf(path, sizeof(path), "%s/f-other", dir);
	assert_int_equal(chown(path, 1234, 0), 0);
	snprintf(path, sizeof(path), "%s/f-gw", dir);
	assert_int_equal(chmod(path, 0664), 0);
	snprintf(path, sizeof(path), "%s/f-ow", dir);
	assert_int_equal(chmod(path, 0646), 0);
	assert_int_equal(sp_cache_load(&c, "f-other", &u, &err), -1);
	assert_non_null(strstr(err.msg, "untrusted"));
	assert_int_equal(sp_cache_load(&c, "f-gw", &u, &err), -1);
	assert_int_equal(sp_cache_load(&c, "f-ow", &u, &err), -1);
	/* The owner itself may read its own file. */
	c.euid = 1234;
	assert_int_equal(sp_cache_load(&c, "f-other", &u, &err), 1);
	sp_pintab_free(&u);
	sp_cache_close(&c);

	/* A directory owned by a user, or world-writable, is refused. */
	snprintf(sub, sizeof(sub), "%s/userdir", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(chown(sub, 1234, 1234), 0);
	assert_int_equal(sp_cache_open(&c, sub, 0, false, &err), -1);
	assert_int_equal(sp_cache_open(&c, sub, 1234, false, &err), 0);
	sp_cache_close(&c);
	snprintf(sub, sizeof(sub), "%s/wdir", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(chmod(sub, 0777), 0);
	assert_int_equal(sp_cache_open(&c, sub, 0, false, &err), -1);
	/* ... and so is anything below it. */
	snprintf(path, sizeof(path), "%s/below", sub);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(sp_cache_open(&c, path, 0, false, &err), -1);
	assert_non_null(strstr(err.msg, "ancestor"));
}

static int
has_pin(const struct sp_placement *pl, uint32_t nr, uint64_t ip)
{
	for (size_t i = 0; i < pl->npins; i++)
		if (pl->pins[i].nr == nr && pl->pins[i].ip == ip)
			return 1;
	return 0;
}

static int
has_any(const struct sp_placement *pl, uint64_t ip)
{
	for (size_t i = 0; i < pl->nany_ips; i++)
		if (pl->any_ips[i] == ip)
			return 1;
	return 0;
}

/* Two objects: "libc" exports syscall(), "prog" imports it with 0 and 1. */
static void
test_place(void **state)
{
	struct sp_object objs[3];
	struct sp_layout_range ranges[3] = {
		{ 0x10000, 0x11000, 0 },	/* libc text */
		{ 0x20000, 0x21000, 1 },	/* prog text */
		{ 0xffffffffff600000ull, 0xffffffffff601000ull, 2 },
	};
	struct sp_layout lo = { objs, 3, ranges, 3 };
	struct sp_pin_import imp = { 1, 1, 2, 0 };
	struct sp_placement pl;
	struct sp_error err;

	(void)state;
	memset(objs, 0, sizeof(objs));
	objs[0].kind = objs[1].kind = SP_OBJ_FILE;
	objs[2].kind = SP_OBJ_VSYSCALL;
	objs[0].base = 0x10000 - 0x000;
	objs[0].have_tab = true;
	sample(&objs[0].tab);
	objs[0].tab.nimports = 0;
	objs[1].base = 0x20000;
	objs[1].have_tab = true;
	sample(&objs[1].tab);
	objs[1].tab.nsites = 0;
	objs[1].tab.imports = &imp;

	assert_int_equal(sp_layout_place(&lo, &pl, &err), 0);
	assert_int_equal(pl.nranges, 3);
	assert_true(has_pin(&pl, 39, 0x10102));
	assert_false(has_pin(&pl, 59, 0x10102));
	assert_true(has_pin(&pl, 0, 0x10202));	/* from prog's import */
	assert_true(has_pin(&pl, 1, 0x10202));
	assert_false(has_pin(&pl, 59, 0x10202));
	/* the unresolved site: what libc issues at the others, no more
	 * (blind round 15: "any number" was a gadget for every call) */
	assert_false(has_any(&pl, 0x10302));
	assert_true(has_pin(&pl, 39, 0x10302));
	assert_true(has_pin(&pl, 0, 0x10302));
	assert_true(has_pin(&pl, 1, 0x10302));
	assert_false(has_pin(&pl, 59, 0x10302));
	assert_false(has_any(&pl, 0x10202));
	assert_true(has_pin(&pl, 96, 0xffffffffff600000ull));
	assert_int_equal(pl.npins, 3 + 3 + 3);
	sp_placement_free(&pl);

	/* A number-taking function with a caller whose number cannot be
	 * read, or none: the same, never any number (blind round 18: musl's
	 * __syscall_cp_asm, Free Pascal's Do_SysCall). */
	sites[2].how = SP_PIN_ANY_PARAM;
	assert_int_equal(sp_layout_place(&lo, &pl, &err), 0);
	assert_false(has_any(&pl, 0x10302));
	assert_true(has_pin(&pl, 39, 0x10302));
	assert_true(has_pin(&pl, 0, 0x10302));
	assert_true(has_pin(&pl, 1, 0x10302));
	assert_false(has_pin(&pl, 59, 0x10302));
	assert_int_equal(pl.npins, 3 + 3 + 3);
	sp_placement_free(&pl);
	sites[2].how = SP_PIN_ANY;

	/* An importer passing an unknown number adds what it is known to
	 * pass, never "any number" (python3's ctypes would call anything). */
	imp.unresolved = 1;
	assert_int_equal(sp_layout_place(&lo, &pl, &err), 0);
	assert_false(has_any(&pl, 0x10202));
	assert_true(has_pin(&pl, 1, 0x10202));
	assert_false(has_pin(&pl, 59, 0x10202));
	sp_placement_free(&pl);

	/* A failed analysis, or a site outside the text, pins nothing. */
	objs[0].tab.flags = SP_PINTAB_FAILED;
	assert_int_equal(sp_layout_place(&lo, &pl, &err), 0);
	assert_false(has_pin(&pl, 39, 0x10102));
	assert_false(has_any(&pl, 0x10302));
	sp_placement_free(&pl);
	objs[0].tab.flags = 0;
	ranges[0].end = 0x10200;
	imp.unresolved = 0;
	assert_int_equal(sp_layout_place(&lo, &pl, &err), 0);
	assert_true(has_pin(&pl, 39, 0x10102));
	assert_false(has_pin(&pl, 0, 0x10202));
	assert_false(has_any(&pl, 0x10302));
	sp_placement_free(&pl);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_stale_version),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_trust_rules),
		cmocka_unit_test(test_trust_files),
		cmocka_unit_test(test_place),
	};

	if (mkdtemp(dir) == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, teardown);
}
