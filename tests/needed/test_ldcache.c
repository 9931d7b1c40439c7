/* SPDX-License-Identifier: ISC */
/*
 * The ld.so.cache reader (lib/layout/ldcache.c): the system's cache
 * against ldconfig -p, synthetic caches in the new, old and combined
 * formats, and hostile ones (truncated, counts and offsets out of range,
 * the other endianness, random mutations).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "layout/needed.h"

#define X86_64 0x0303
#define HWCAP_EXT (1ull << 62)

struct cent {
	int32_t flags;
	const char *key, *value;
	uint64_t hwcap;
};

struct img {
	uint8_t buf[1 << 16];
	size_t len;
	size_t base;		/* of the new header */
};

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Appends a string; its offset from the start of the image. */
static size_t
add_str(struct img *im, const char *s)
{
	size_t at = im->len, l = strlen(s) + 1;

	memcpy(im->buf + at, s, l);
	im->len += l;
	return at;
}

static void
fill_entry(struct img *im, uint8_t *p, const struct cent *e, size_t rel)
{
	put32(p, (uint32_t)e->flags);
	put32(p + 4, add_str(im, e->key) - rel);
	put32(p + 8, add_str(im, e->value) - rel);
}

/*
 * An old table of on entries (when old), then a new one of nn entries
 * (when nn or !old), then the strings.  Offsets as ld.so reads them: old
 * from the end of the old entries, new from the new header.
 */
static void
build(struct img *im, bool old, const struct cent *oe, size_t on,
    const struct cent *ne, size_t nn, uint8_t endian)
{
	size_t oldend = 16 + on * 12, i;
	bool new = !old || nn > 0;

	memset(im, 0, sizeof(*im));
	im->base = old ? (oldend + 7) & ~(size_t)7 : 0;
	im->len = new ? im->base + 48 + nn * 24 : oldend;
	if (old) {
		memcpy(im->buf, "ld.so-1.7.0", 11);
		put32(im->buf + 12, on);
		for (i = 0; i < on; i++)
			fill_entry(im, im->buf + 16 + i * 12, &oe[i], oldend);
	}
	if (!new)
		return;
	memcpy(im->buf + im->base, "glibc-ld.so.cache1.1", 20);
	put32(im->buf + im->base + 20, nn);
	im->buf[im->base + 28] = endian;
	for (i = 0; i < nn; i++) {
		uint8_t *p = im->buf + im->base + 48 + i * 24;
		fill_entry(im, p, &ne[i], im->base);
		memcpy(p + 16, &ne[i].hwcap, 8);
	}
	put32(im->buf + im->base + 24, im->len - im->base - 48 - nn * 24);
}

static const struct cent sample[] = {
	{ X86_64, "libfoo.so.1", "/a/libfoo.so.1", 0 },
	{ 0x0003, "libfoo.so.1", "/i386/libfoo.so.1", 0 },
	{ 0x0803, "libfoo.so.1", "/x32/libfoo.so.1", 0 },
	{ X86_64, "libbar.so", "/a/libbar.so", 0 },
	{ X86_64, "libfoo.so.1", "/b/glibc-hwcaps/x86-64-v3/libfoo.so.1",
	  HWCAP_EXT | 1 },
	{ 0x0001, "libold.so", "/old/libold.so", 0 },
};
#define NSAMPLE (sizeof(sample) / sizeof(sample[0]))

static size_t
lookup(const struct sp_ldcache *c, const char *name, const char **paths)
{
	const struct sp_ldcache_entry *e;
	size_t n = sp_ldcache_lookup(c, name, &e);

	for (size_t i = 0; i < n; i++) {
		assert_string_equal(e[i].key, name);
		paths[i] = e[i].path;
	}
	return n;
}

static void
check_sample(const struct sp_ldcache *c)
{
	const char *p[8];

	assert_int_equal(lookup(c, "libfoo.so.1", p), 2);
	assert_string_equal(p[0], "/a/libfoo.so.1");
	assert_string_equal(p[1], "/b/glibc-hwcaps/x86-64-v3/libfoo.so.1");
	assert_int_equal(lookup(c, "libbar.so", p), 1);
	assert_int_equal(lookup(c, "libold.so", p), 1);
	assert_int_equal(lookup(c, "libnone.so", p), 0);
	assert_int_equal(lookup(c, "", p), 0);
}

static void
test_formats(void **state)
{
	struct sp_error err;
	struct sp_ldcache c;
	struct img im;
	const char *p[8];

	(void)state;
	build(&im, false, NULL, 0, sample, NSAMPLE, 2);
	assert_int_equal(sp_ldcache_from_memory(im.buf, im.len, &c, &err), 0);
	check_sample(&c);
	sp_ldcache_free(&c);
	/* Endianness unset (an old ldconfig): accepted. */
	build(&im, false, NULL, 0, sample, NSAMPLE, 0);
	assert_int_equal(sp_ldcache_from_memory(im.buf, im.len, &c, &err), 0);
	sp_ldcache_free(&c);
	/* Old and new: ld.so reads only the new table. */
	build(&im, true, sample + 3, 1, sample, NSAMPLE, 2);
	assert_int_equal(sp_ldcache_from_memory(im.buf, im.len, &c, &err), 0);
	check_sample(&c);
	sp_ldcache_free(&c);
	build(&im, true, sample + 3, 1, sample, 1, 2);
	assert_int_equal(sp_ldcache_from_memory(im.buf, im.len, &c, &err), 0);
	assert_int_equal(lookup(&c, "libbar.so", p), 0);
	sp_ldcache_free(&c);
	/* Old alone. */
	build(&im, true, sample, NSAMPLE, NULL, 0, 0);
	assert_int_equal(sp_ldcache_from_memory(im.buf, im.len, &c, &err), 0);
	check_sample(&c);
	sp_ldcache_free(&c);
}

static void
expect_bad(const struct img *im, size_t len, const char *msg)
{
	struct sp_error err;
	struct sp_ldcache c;

	if (sp_ldcache_from_memory(im->buf, len, &c, &err) == 0)
		fail_msg("accepted, expected \"%s\"", msg);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("\"%s\", expected \"%s\"", err.msg, msg);
}

static void
test_hostile_header(void **state)
{
	struct sp_error err;
	struct sp_ldcache c;
	struct img im;
	const char *p[8];

	(void)state;
	build(&im, false, NULL, 0, sample, NSAMPLE, 2);
	expect_bad(&im, 0, "not an ld.so.cache");
	expect_bad(&im, 20, "truncated");
	expect_bad(&im, 48, "truncated");
	put32(im.buf + 20, 0xffffffff);
	expect_bad(&im, im.len, "past the end");
	put32(im.buf + 20, NSAMPLE + 1);
	expect_bad(&im, 48 + NSAMPLE * 24, "past the end");
	build(&im, false, NULL, 0, sample, NSAMPLE, 3);
	expect_bad(&im, im.len, "endianness");
	build(&im, false, NULL, 0, sample, NSAMPLE, 1);
	expect_bad(&im, im.len, "endianness");
	build(&im, true, sample, NSAMPLE, NULL, 0, 0);
	put32(im.buf + 12, 0x7fffffff);
	expect_bad(&im, im.len, "past the end");
	expect_bad(&im, 16, "truncated");
	memcpy(im.buf, "garbage garbage garbage", 23);
	expect_bad(&im, im.len, "not an ld.so.cache");
	/* After an old table ld.so does not check the new count: clamped. */
	build(&im, true, sample, 1, sample, NSAMPLE, 2);
	put32(im.buf + im.base + 20, 0x7fffffff);
	assert_int_equal(sp_ldcache_from_memory(im.buf, im.len, &c, &err), 0);
	assert_true(c.nents <= NSAMPLE);
	sp_ldcache_free(&c);
	/* Offsets out of range: that entry only is dropped. */
	build(&im, false, NULL, 0, sample, NSAMPLE, 2);
	put32(im.buf + 48 + 4, im.len);			/* key of [0] */
	put32(im.buf + 48 + 5 * 24 + 8, 0xfffffff0);	/* value of [5] */
	put32(im.buf + 48 + 3 * 24 + 8, im.len - 1);	/* "" at the end */
	assert_int_equal(sp_ldcache_from_memory(im.buf, im.len, &c, &err), 0);
	assert_int_equal(lookup(&c, "libfoo.so.1", p), 1);
	assert_int_equal(lookup(&c, "libold.so", p), 0);
	assert_int_equal(lookup(&c, "libbar.so", p), 1);
	assert_string_equal(p[0], "");
	sp_ldcache_free(&c);
}

/* Every prefix and random changes: an error or a cache, no crash. */
static void
test_shake(void **state)
{
	struct sp_error err;
	struct sp_ldcache c;
	struct img im, m;
	unsigned seed = 4242;
	const char *p[16];

	(void)state;
	for (int old = 0; old < 2; old++) {
		build(&im, old, sample, NSAMPLE, sample, old ? 2 : NSAMPLE, 2);
		for (size_t n = 0; n <= im.len; n++)
			if (sp_ldcache_from_memory(im.buf, n, &c, &err) == 0) {
				(void)lookup(&c, "libfoo.so.1", p);
				sp_ldcache_free(&c);
			}
		for (int r = 0; r < 20000; r++) {
			m = im;
			for (int k = 0; k < 1 + rand_r(&seed) % 6; k++)
				m.buf[rand_r(&seed) % m.len] =
				    rand_r(&seed) % 3 == 0 ? 0xff :
				    (uint8_t)rand_r(&seed);
			if (sp_ldcache_from_memory(m.buf, m.len, &c, &err) ==
			    0) {
				(void)lookup(&c, "libfoo.so.1", p);
				sp_ldcache_free(&c);
			}
		}
	}
}

static void
test_files(void **state)
{
	char path[] = "/tmp/syspin-test-ldcache.XXXXXX";
	struct sp_error err;
	struct sp_ldcache c;
	struct img im;
	int fd;

	(void)state;
	build(&im, false, NULL, 0, sample, NSAMPLE, 2);
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, im.buf, im.len), (ssize_t)im.len);
	close(fd);
	assert_int_equal(sp_ldcache_read(path, &c, &err), 0);
	check_sample(&c);
	sp_ldcache_free(&c);
	unlink(path);
	assert_int_equal(sp_ldcache_read(path, &c, &err), -1);
	assert_int_equal(sp_ldcache_read("/", &c, &err), -1);
}

/* Every x86-64 library ldconfig -p lists is found under its name. */
static void
test_system_cache(void **state)
{
	const struct sp_ldcache_entry *e;
	char line[4096], name[1024], path[3072];
	struct sp_error err;
	struct sp_ldcache c;
	size_t n, checked = 0, k;
	FILE *f;

	(void)state;
	if (access("/etc/ld.so.cache", R_OK) != 0)
		skip();
	if (sp_ldcache_read("/etc/ld.so.cache", &c, &err) != 0)
		fail_msg("/etc/ld.so.cache: %s", err.msg);
	f = popen("PATH=/sbin:/usr/sbin:$PATH ldconfig -p 2>/dev/null", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, "(libc6,x86-64") == NULL ||
		    sscanf(line, " %1023s (%*[^)]) => %3071s", name,
		    path) != 2)
			continue;
		n = sp_ldcache_lookup(&c, name, &e);
		for (k = 0; k < n && strcmp(e[k].path, path) != 0; k++)
			;
		if (k == n)
			fail_msg("%s => %s: not in the cache", name, path);
		checked++;
	}
	pclose(f);
	print_message("ld.so.cache: %zu entries kept, %zu checked against "
	    "ldconfig -p\n", c.nents, checked);
	assert_true(checked > 0);
	sp_ldcache_free(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_hostile_header),
		cmocka_unit_test(test_shake),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_system_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
