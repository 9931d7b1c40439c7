/* SPDX-License-Identifier: ISC */
/*
 * sp_needed_resolve: the fixture tree (DT_RUNPATH with $ORIGIN, a DT_RPATH
 * chain, glibc-hwcaps, LD_LIBRARY_PATH, LD_PRELOAD, ld.so.preload,
 * ld.so.cache, secure mode, a missing and malformed candidates), hostile
 * candidates, the object cap, and the superset check against the real
 * ld.so --list on system programs.  Prints how long a resolution takes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <elf.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "elf/dynamic.h"
#include "layout/needed.h"

#include "mkelf.h"
#include "tree.h"

static const char *builddir;
static char root[PATH_MAX];

static int
setup(void **state)
{
	(void)state;
	tree_make(root, sizeof(root), builddir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

static void
resolve(const struct sp_needed_in *in, struct sp_needed *n)
{
	struct sp_error err;

	if (sp_needed_resolve(in, n, &err) != 0)
		fail_msg("%s", err.msg);
}

/* Present, with these flags exactly (0: absent). */
static void
expect(const struct sp_needed *n, const char *rel, unsigned flags)
{
	const struct sp_needed_obj *o = tree_find(n, tree_at(root, rel));

	if (flags == 0) {
		if (o != NULL)
			fail_msg("%s: should not be there", rel);
		return;
	}
	if (o == NULL) {
		for (size_t i = 0; i < n->nobjs; i++)
			print_message("  have %s\n", n->objs[i].path);
		fail_msg("%s: missing", rel);
	}
	if (o->flags != flags)
		fail_msg("%s: flags %#x, expected %#x", rel, o->flags, flags);
	assert_string_equal(o->path, tree_at(root, rel));
	assert_true(o->span > 0 && o->span % 4096 == 0);
	assert_true(o->align >= 4096);
}

/* No object twice, neither the program nor its interpreter. */
static void
sane(const struct sp_needed *n, const char *prog)
{
	for (size_t i = 0; i < n->nobjs; i++)
		for (size_t j = i + 1; j < n->nobjs; j++)
			assert_false(n->objs[i].id.dev == n->objs[j].id.dev &&
			    n->objs[i].id.ino == n->objs[j].id.ino);
	assert_null(tree_find(n, prog));
	if (n->interp != NULL)
		assert_null(tree_find(n, n->interp));
}

static void
test_tree(void **state)
{
	char llp[3 * PATH_MAX];
	struct sp_needed_in in = {
		.exe = tree_at(root, "prog"),
		.ld_library_path = llp,
		.ld_preload = tree_at(root, "pre/libnd_pre.so"),
		.ldcache_file = "/etc/ld.so.cache",
	};
	struct sp_needed n;
	const unsigned P = SP_NEEDED_PROGRAM;

	(void)state;
	snprintf(llp, sizeof(llp), "%s:%s;%s", tree_at(root, "llp0"),
	    tree_at(root, "llpx"), tree_at(root, "llp"));
	resolve(&in, &n);
	sane(&n, in.exe);
	expect(&n, "lib/libnd_a.so", P);
	expect(&n, "lib/deps/libnd_dep.so", P);
	expect(&n, "lib/libnd_r1.so", P);
	expect(&n, "lib/rchain/libnd_r2.so", P);
	expect(&n, "lib/rchain/libnd_r3.so", P);
	expect(&n, "lib/glibc-hwcaps/x86-64-v2/libnd_hw.so", P);
	expect(&n, "llp/libnd_llp.so", P);
	expect(&n, "llp0/libnd_llp.so", 0);
	expect(&n, "llpx/libnd_llp.so", 0);
	expect(&n, "pre/libnd_pre.so", SP_NEEDED_ENV);
	expect(&n, "cached/libnd_cached.so", 0);
	assert_non_null(n.interp);
	assert_false(n.audit);
	if (access("/lib/x86_64-linux-gnu/libc.so.6", R_OK) == 0) {
		const struct sp_needed_obj *libc = tree_find(&n,
		    "/lib/x86_64-linux-gnu/libc.so.6");
		struct sp_error err;
		struct sp_dyn pre;
		bool env = false;

		assert_non_null(libc);
		/* The preload needs libc or not, depending on the compiler. */
		assert_int_equal(sp_dyn_read(in.ld_preload, &pre, &err), 0);
		for (size_t i = 0; i < pre.nneeded; i++)
			env |= strcmp(pre.needed[i], "libc.so.6") == 0;
		sp_dyn_free(&pre);
		assert_int_equal(libc->flags, P | (env ? SP_NEEDED_ENV : 0));
	}
	sp_needed_free(&n);
	/* No LD_LIBRARY_PATH: libnd_llp.so is missing, like libnd_missing. */
	in.ld_library_path = NULL;
	in.ld_preload = NULL;
	resolve(&in, &n);
	expect(&n, "llp/libnd_llp.so", 0);
	expect(&n, "pre/libnd_pre.so", 0);
	expect(&n, "lib/rchain/libnd_r3.so", P);
	sp_needed_free(&n);
}

/* Everything ld.so --list prints (but itself) is in the result. */
static size_t
superset(const char *prog, const char *llp, const char *preload, bool trace)
{
	char ellp[PATH_MAX + 32], epre[PATH_MAX + 32], *envp[3];
	struct sp_needed_in in = { .exe = prog, .ld_library_path = llp,
	    .ld_preload = preload, .ldcache_file = "/etc/ld.so.cache",
	    .preload_file = "/etc/ld.so.preload" };
	struct sp_needed n;
	struct stat st, ist;
	size_t npaths, k, e = 0;
	char **paths;

	if (llp != NULL) {
		snprintf(ellp, sizeof(ellp), "LD_LIBRARY_PATH=%s", llp);
		envp[e++] = ellp;
	}
	if (preload != NULL) {
		snprintf(epre, sizeof(epre), "LD_PRELOAD=%s", preload);
		envp[e++] = epre;
	}
	envp[e] = NULL;
	if (ldso_list(prog, envp, trace, &paths, &npaths) == -1)
		skip();
	resolve(&in, &n);
	sane(&n, prog);
	for (k = 0; k < npaths; k++) {
		if (stat(paths[k], &st) == -1)
			fail_msg("%s: ld.so --list printed %s", prog, paths[k]);
		if (n.interp != NULL && stat(n.interp, &ist) == 0 &&
		    st.st_dev == ist.st_dev && st.st_ino == ist.st_ino)
			continue;
		if (tree_find(&n, paths[k]) == NULL)
			fail_msg("%s (LD_LIBRARY_PATH=%s LD_PRELOAD=%s): %s "
			    "is missing", prog, llp ? llp : "",
			    preload ? preload : "", paths[k]);
	}
	print_message("  %-40s ld.so %zu, resolved %zu\n", prog, npaths,
	    n.nobjs);
	free_paths(paths, npaths);
	sp_needed_free(&n);
	return npaths;
}

static void
test_tree_vs_ldso(void **state)
{
	char llp[2 * PATH_MAX];

	(void)state;
	snprintf(llp, sizeof(llp), "%s:%s", tree_at(root, "llpx"),
	    tree_at(root, "llp"));
	/* ld.so --list fails on libnd_missing.so: ldd's way. */
	assert_true(superset(tree_at(root, "prog"), llp,
	    tree_at(root, "pre/libnd_pre.so"), true) >= 10);
	assert_true(superset(tree_at(root, "prog"), llp, "libnd_llp.so",
	    true) >= 9);
}

static const char *const programs[] = {
	"/bin/ls", "/usr/bin/python3", "/usr/bin/git", "/usr/bin/ssh",
	"/usr/bin/curl", "/usr/bin/perl",
};

static void
test_system_superset(void **state)
{
	const char *pre = tree_at(root, "pre/libnd_pre.so");
	const char *llp = tree_at(root, "llp");
	size_t i, n = sizeof(programs) / sizeof(programs[0]);
	glob_t g;

	(void)state;
	for (i = 0; i < n; i++) {
		if (access(programs[i], X_OK) != 0)
			continue;
		assert_true(superset(programs[i], NULL, NULL, false) > 0);
		assert_true(superset(programs[i], llp, "libnd_llp.so",
		    false) > 0);
		assert_true(superset(programs[i], llp, pre, false) > 0);
	}
	/* pyenv's pythons find libpython through DT_RPATH $ORIGIN/../lib. */
	if (glob("/root/.pyenv/versions/*/bin/python3.*[0-9]", 0, NULL,
	    &g) == 0) {
		for (i = 0; i < g.gl_pathc && i < 3; i++)
			assert_true(superset(g.gl_pathv[i], llp, pre,
			    false) > 0);
		globfree(&g);
	}
}

/* Secure mode: no LD_LIBRARY_PATH, no LD_PRELOAD paths. */
static void
test_secure(void **state)
{
	struct sp_needed_in in = {
		.exe = tree_at(root, "prog"),
		.ld_library_path = tree_at(root, "llp"),
		.ld_preload = tree_at(root, "pre/libnd_pre.so"),
		.ldcache_file = tree_at(root, "ldcache"),
		.secure = true,
	};
	char pre[2 * PATH_MAX];
	struct sp_needed n;

	(void)state;
	resolve(&in, &n);
	expect(&n, "llp/libnd_llp.so", 0);
	expect(&n, "pre/libnd_pre.so", 0);
	expect(&n, "lib/libnd_a.so", SP_NEEDED_PROGRAM);
	sp_needed_free(&n);
	/* Names are still searched, in the cache among others. */
	snprintf(pre, sizeof(pre), "libnd_pre.so libnd_cached.so:%s",
	    tree_at(root, "pre/libnd_pre.so"));
	in.ld_preload = pre;
	resolve(&in, &n);
	expect(&n, "pre/libnd_pre.so", 0);
	expect(&n, "cached/libnd_cached.so", SP_NEEDED_ENV);
	sp_needed_free(&n);
}

static void
test_preload_file(void **state)
{
	struct sp_needed_in in = {
		.exe = tree_at(root, "prog"),
		.ldcache_file = tree_at(root, "ldcache"),
		.preload_file = tree_at(root, "ld.so.preload"),
		.ld_preload = "libnd_cached.so",
	};
	char text[2 * PATH_MAX];
	struct sp_needed n;
	int len;

	(void)state;
	len = snprintf(text, sizeof(text), "# %s\n %s:libnd_nothere.so\t"
	    "libnd_cached.so # pre/libnd_llp.so", tree_at(root,
	    "llp/libnd_llp.so"), tree_at(root, "pre/libnd_pre.so"));
	tree_write(in.preload_file, text, len);
	resolve(&in, &n);
	expect(&n, "pre/libnd_pre.so", SP_NEEDED_PROGRAM);
	expect(&n, "cached/libnd_cached.so",
	    SP_NEEDED_PROGRAM | SP_NEEDED_ENV);
	expect(&n, "llp/libnd_llp.so", 0);
	sp_needed_free(&n);
	unlink(in.preload_file);
}

/* A relative program, LD_LIBRARY_PATH and LD_PRELOAD, from cwd. */
static void
test_relative(void **state)
{
	struct sp_needed_in in = { .exe = "prog", .cwd = root,
	    .ld_library_path = "llp", .ld_preload = "./pre/libnd_pre.so" };
	struct sp_needed n;

	(void)state;
	resolve(&in, &n);
	expect(&n, "llp/libnd_llp.so", SP_NEEDED_PROGRAM);
	expect(&n, "pre/libnd_pre.so", SP_NEEDED_ENV);
	expect(&n, "lib/deps/libnd_dep.so", SP_NEEDED_PROGRAM);
	sp_needed_free(&n);
}

static void
write_elf(const char *path, const struct mkelf_spec *s)
{
	struct mkelf m;

	mkelf(s, &m);
	tree_write(path, m.buf, m.size);
	free(m.buf);
}

static void
expect_fail(const char *exe, const char *msg)
{
	struct sp_needed_in in = { .exe = exe };
	struct sp_error err;
	struct sp_needed n;

	if (sp_needed_resolve(&in, &n, &err) != -1)
		fail_msg("%s: accepted", exe);
	if (strncmp(err.msg, exe, strlen(exe)) != 0 ||
	    strstr(err.msg, msg) == NULL)
		fail_msg("\"%s\", expected \"%s: ...%s\"", err.msg, exe, msg);
	assert_int_equal(n.nobjs, 0);
}

static void
test_bad_program(void **state)
{
	struct mkelf_spec s = { .interp = "/lib/ld.so" };
	const char *nodyn = tree_at(root, "nodyn");
	struct mkelf m;

	(void)state;
	expect_fail(tree_at(root, "nothere"), "No such file");
	expect_fail(tree_at(root, "llp0/libnd_llp.so"), "not an ELF");
	expect_fail(tree_at(root, "llpx/libnd_llp.so"), "not an x86-64");
	expect_fail(root, "not a regular file");
	mkelf(&s, &m);
	((Elf64_Phdr *)(m.buf + m.phoff))[1].p_type = PT_NULL;
	tree_write(nodyn, m.buf, m.size);
	free(m.buf);
	expect_fail(nodyn, "not dynamically linked");
}

/*
 * A program whose DT_RUNPATH directory holds hostile candidates: cut
 * short, garbage, a directory, a FIFO (must not block), a symlink loop,
 * an empty file; next to them two synthetic objects needing each other.
 */
static void
test_hostile_candidates(void **state)
{
	static const char *const names[] = { "libh1.so", "libh2.so",
	    "libh3.so", "libh4.so", "libh5.so", "libh6.so", "libc1.so",
	    "$ORIGIN/h/libc2.so", "${ORIGIN}$LIB$PLATFORM$ORIGIN/x.so",
	    "libh1.so", "", "/nonexistent/lib.so" };
	const char *const c1[] = { "libc2.so" }, *const c2[] = { "libc1.so" };
	struct mkelf_spec s = { .interp = "/lib64/ld-linux-x86-64.so.2",
	    .needed = names, .nneeded = sizeof(names) / sizeof(names[0]),
	    .runpath = "$ORIGIN/h:$ORIGIN/$LIB/${PLATFORM}:::/dev/null" };
	char exe[PATH_MAX], *lib;
	struct sp_needed_in in = { .exe = exe };
	size_t len;
	struct sp_needed n;

	(void)state;
	snprintf(exe, sizeof(exe), "%s", tree_at(root, "hprog"));
	tree_mkdirs(tree_at(root, "h"));
	write_elf(in.exe, &s);
	memset(&s, 0, sizeof(s));
	s.needed = c1;
	s.nneeded = 1;
	write_elf(tree_at(root, "h/libc1.so"), &s);
	s.needed = c2;
	write_elf(tree_at(root, "h/libc2.so"), &s);
	tree_copy(tree_at(root, "lib/deps/libnd_dep.so"),
	    tree_at(root, "h/libh6.so"));
	lib = tree_read(tree_at(root, "h/libh6.so"), &len);
	tree_write(tree_at(root, "h/libh1.so"), lib, 200);
	tree_write(tree_at(root, "h/libh2.so"), "\177ELF\2\1\1garbage", 15);
	free(lib);
	tree_mkdirs(tree_at(root, "h/libh3.so"));
	assert_int_equal(mkfifo(tree_at(root, "h/libh4.so"), 0644), 0);
	assert_int_equal(symlink("libh5.so", tree_at(root, "h/libh5.so")), 0);
	tree_write(tree_at(root, "h/libh0.so"), "", 0);
	resolve(&in, &n);
	sane(&n, in.exe);
	assert_non_null(tree_find(&n, tree_at(root, "h/libh6.so")));
	assert_non_null(tree_find(&n, tree_at(root, "h/libc1.so")));
	assert_non_null(tree_find(&n, tree_at(root, "h/libc2.so")));
	for (int i = 1; i <= 5; i++) {
		char rel[32];
		snprintf(rel, sizeof(rel), "h/libh%d.so", i);
		assert_null(tree_find(&n, tree_at(root, rel)));
	}
	sp_needed_free(&n);
}

/* A chain of objects through the program's DT_RPATH, past the cap. */
static void
chain(size_t len, bool ok)
{
	struct mkelf_spec s = { .interp = "/lib64/ld-linux-x86-64.so.2" };
	char name[64], next[64], dir[PATH_MAX], exe[PATH_MAX];
	struct sp_needed_in in = { .exe = exe };
	const char *needed[1] = { next };
	struct sp_error err;
	struct sp_needed n;

	snprintf(dir, sizeof(dir), "%s", tree_at(root, "chain"));
	snprintf(exe, sizeof(exe), "%s", tree_at(root, "cprog"));
	tree_mkdirs(dir);
	s.rpath = dir;
	s.needed = needed;
	s.nneeded = 1;
	snprintf(next, sizeof(next), "libl0.so");
	write_elf(in.exe, &s);
	s.rpath = NULL;
	for (size_t i = 0; i < len; i++) {
		snprintf(name, sizeof(name), "chain/libl%zu.so", i);
		snprintf(next, sizeof(next), "libl%zu.so", i + 1);
		write_elf(tree_at(root, name), &s);
	}
	if (!ok) {
		assert_int_equal(sp_needed_resolve(&in, &n, &err), -1);
		assert_non_null(strstr(err.msg, "more than"));
		return;
	}
	resolve(&in, &n);
	assert_int_equal(n.nobjs, len);
	sp_needed_free(&n);
}

static void
test_chain(void **state)
{
	(void)state;
	chain(300, true);
	chain(SP_NEEDED_MAX_OBJS + 10, false);
}

static double
ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1e3 + (b.tv_nsec - a->tv_nsec) / 1e6;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
test_timing(void **state)
{
	static const char *const progs[] = { "/usr/bin/python3",
	    "/usr/bin/git" };
	double t[21];
	struct timespec a;
	struct sp_needed n;

	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct sp_needed_in in = { .exe = progs[p],
		    .ldcache_file = "/etc/ld.so.cache",
		    .preload_file = "/etc/ld.so.preload" };
		if (access(progs[p], X_OK) != 0)
			continue;
		for (int r = 0; r < 21; r++) {
			clock_gettime(CLOCK_MONOTONIC, &a);
			resolve(&in, &n);
			t[r] = ms_since(&a);
			if (r < 20)
				sp_needed_free(&n);
		}
		qsort(t, 21, sizeof(t[0]), by_value);
		print_message("  sp_needed_resolve %s: %zu objects, median "
		    "%.3f ms, min %.3f ms, max %.3f ms (21 runs)\n", progs[p],
		    n.nobjs, t[10], t[0], t[20]);
		sp_needed_free(&n);
	}
}

static void
copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

/*
 * A search directory's hwcaps subdirectories are remembered between
 * resolutions (needed_search.c): one made or removed since is seen at
 * once, legacy or glibc-hwcaps, nested or not.
 */
static void
test_dirs_change(void **state)
{
	static const char *const subs[] = { "glibc-hwcaps/x86-64-v3",
		"tls", "x86_64/haswell" };
	char llp[PATH_MAX], dir[2 * PATH_MAX], file[3 * PATH_MAX], rel[128];
	struct sp_needed_in in = { .exe = tree_at(root, "prog"),
	    .ld_library_path = llp };
	struct sp_needed n;

	(void)state;
	snprintf(llp, sizeof(llp), "%s", tree_at(root, "llp"));
	for (size_t i = 0; i < sizeof(subs) / sizeof(*subs); i++) {
		snprintf(rel, sizeof(rel), "llp/%s/libnd_llp.so", subs[i]);
		resolve(&in, &n);	/* remembered without it */
		expect(&n, rel, 0);
		sp_needed_free(&n);
		snprintf(dir, sizeof(dir), "%s/%s", llp, subs[i]);
		for (char *p = dir + strlen(llp) + 1; (p = strchr(p, '/')) !=
		    NULL; p++) {
			*p = '\0';
			(void)mkdir(dir, 0755);
			*p = '/';
		}
		assert_int_equal(mkdir(dir, 0755), 0);
		snprintf(file, sizeof(file), "%s/libnd_llp.so", dir);
		copy_file(tree_at(root, "llp/libnd_llp.so"), file);
		resolve(&in, &n);
		expect(&n, rel, SP_NEEDED_PROGRAM);
		sp_needed_free(&n);
		assert_int_equal(unlink(file), 0);
		assert_int_equal(rmdir(dir), 0);
		resolve(&in, &n);
		expect(&n, rel, 0);
		sp_needed_free(&n);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_tree_vs_ldso),
		cmocka_unit_test(test_system_superset),
		cmocka_unit_test(test_secure),
		cmocka_unit_test(test_preload_file),
		cmocka_unit_test(test_relative),
		cmocka_unit_test(test_bad_program),
		cmocka_unit_test(test_hostile_candidates),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_dirs_change),
		cmocka_unit_test(test_timing),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_needed BUILDDIR\n");
		return 2;
	}
	builddir = argv[1];
	return cmocka_run_group_tests(tests, setup, teardown);
}
