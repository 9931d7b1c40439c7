/* SPDX-License-Identifier: ISC */
/* /proc/PID/maps parser: tricky lines from a fixture and from this process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "layout/layout.h"
#include "layout/procfs.h"

static char fixture[4096];

static void
test_fixture(void **state)
{
	struct sp_map *m;
	struct sp_error err;
	size_t n;

	(void)state;
	assert_int_equal(sp_maps_read(fixture, &m, &n, &err), 0);
	assert_int_equal(n, 12);

	assert_int_equal(m[1].start, 0x55d0c1a2d000ull);
	assert_int_equal(m[1].end, 0x55d0c1a32000ull);
	assert_int_equal(m[1].offset, 0x2000);
	assert_int_equal(m[1].prot, PROT_READ | PROT_EXEC);
	assert_int_equal(m[1].dev, makedev(0xfe, 0));
	assert_int_equal(m[1].inode, 247134);
	assert_string_equal(m[1].path, "/usr/bin/cat");
	assert_int_equal(m[1].kind, SP_MAP_FILE);
	assert_false(m[1].deleted);

	/* Anonymous: the kernel leaves a trailing space. */
	assert_int_equal(m[2].kind, SP_MAP_ANON);
	assert_string_equal(m[2].path, "");
	assert_int_equal(m[2].prot, PROT_READ | PROT_WRITE);

	/* Spaces in the name, deleted, a three-digit major. */
	assert_string_equal(m[3].path, "/tmp/dir with spaces/lib x.so");
	assert_true(m[3].deleted);
	assert_int_equal(m[3].dev, makedev(0x103, 2));

	assert_true(m[4].shared);
	assert_int_equal(m[5].kind, SP_MAP_SPECIAL);
	assert_int_equal(m[6].kind, SP_MAP_VDSO);
	assert_int_equal(m[7].kind, SP_MAP_SPECIAL);
	assert_string_equal(m[7].path, "[anon:jit code]");
	assert_int_equal(m[7].prot, PROT_READ | PROT_WRITE | PROT_EXEC);
	assert_string_equal(m[8].path, "/memfd:payload");
	assert_true(m[8].deleted);
	/* Inner and trailing spaces belong to the name. */
	assert_string_equal(m[9].path, "/opt/a  two  spaces ");

	assert_int_equal(m[11].kind, SP_MAP_VSYSCALL);
	assert_int_equal(m[11].start, 0xffffffffff600000ull);
	assert_int_equal(m[11].end, 0xffffffffff601000ull);
	assert_int_equal(m[11].prot, PROT_EXEC);
	sp_maps_free(m, n);
}

static void
test_bad_lines(void **state)
{
	static const char *bad[] = {
		"",
		"zz-1000 r-xp 00000000 00:00 0",
		"1000-2000 r-x 00000000 00:00 0",
		"1000-2000 rzxp 00000000 00:00 0",
		"2000-1000 r-xp 00000000 00:00 0",
		"1000-2000 r-xp 00000000 0000 0",
		"1000-2000 r-xp 00000000 00:00 x /a",
		"1000-2000 r-xp 00000000 00:00 12x /a",
		"10000000000000000-2000 r-xp 00000000 00:00 0",
	};
	struct sp_map m;
	struct sp_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(sp_maps_parse_line(bad[i], strlen(bad[i]),
		    &m, &err), -1);
}

/* A file named "(deleted)" on purpose is read as deleted: documented. */
static void
test_deleted_only_suffix(void **state)
{
	const char *l = "1000-2000 r-xp 00000000 00:00 0 /x (deleted) y";
	struct sp_map m;
	struct sp_error err;

	(void)state;
	assert_int_equal(sp_maps_parse_line(l, strlen(l), &m, &err), 0);
	assert_false(m.deleted);
	assert_string_equal(m.path, "/x (deleted) y");
	free(m.path);
}

/* This process: the vDSO where auxv says, this code executable. */
static void
test_self(void **state)
{
	struct sp_map *m;
	struct sp_error err;
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR), me = (uint64_t)test_self;
	size_t n, i;
	int saw_vdso = 0, saw_me = 0;

	(void)state;
	assert_int_equal(sp_maps_read("/proc/self/maps", &m, &n, &err), 0);
	for (i = 0; i < n; i++) {
		if (m[i].kind == SP_MAP_VDSO && m[i].start == vdso)
			saw_vdso = 1;
		if (me >= m[i].start && me < m[i].end &&
		    (m[i].prot & PROT_EXEC) && m[i].kind == SP_MAP_FILE)
			saw_me = 1;
	}
	assert_true(saw_vdso);
	assert_true(saw_me);
	sp_maps_free(m, n);
}

/* The layout attributes this program's text and libc's to objects. */
static void
test_layout_self(void **state)
{
	struct sp_layout lo;
	struct sp_error err;
	long r;

	(void)state;
	assert_int_equal(sp_layout_self(&lo, &err), 0);
	r = sp_layout_find(&lo, (uint64_t)test_layout_self);
	assert_true(r >= 0);
	assert_int_equal(lo.objs[lo.ranges[r].obj].kind, SP_OBJ_FILE);
	assert_true(lo.objs[lo.ranges[r].obj].have_id);
	assert_true(lo.objs[lo.ranges[r].obj].key[0] == 'f');
	r = sp_layout_find(&lo, (uint64_t)getauxval(AT_SYSINFO_EHDR) + 0x800);
	assert_true(r >= 0);
	assert_int_equal(lo.objs[lo.ranges[r].obj].kind, SP_OBJ_VDSO);
	assert_true(strncmp(lo.objs[lo.ranges[r].obj].key, "vdso-", 5) == 0);
	r = sp_layout_find(&lo, (uint64_t)memcpy);
	assert_true(r >= 0);
	assert_non_null(strstr(lo.objs[lo.ranges[r].obj].name, "libc"));
	sp_layout_free(&lo);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_deleted_only_suffix),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_layout_self),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_maps FIXTURE\n");
		return 2;
	}
	snprintf(fixture, sizeof(fixture), "%s", argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
