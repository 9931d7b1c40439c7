/* SPDX-License-Identifier: ISC */
/*
 * The light ELF reader (lib/elf/dynamic.c): real files, the fixtures,
 * synthetic files with every field, and hostile ones: counts past the
 * caps, addresses outside the file, truncation at every length, random
 * mutations.  A hostile file gets an error or a result, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "elf/dynamic.h"

#include "mkelf.h"

static const char *builddir;

static bool
has(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static uint8_t *
slurp(const char *path, size_t *size)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc(st.st_size);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	*size = st.st_size;
	return buf;
}

static void
fixture(const char *name, struct sp_dyn *d)
{
	struct sp_error err;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", builddir, name);
	if (sp_dyn_read(path, d, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
}

static void
test_system_files(void **state)
{
	struct sp_error err;
	struct sp_dyn d;

	(void)state;
	if (access("/bin/ls", R_OK) == 0) {
		assert_int_equal(sp_dyn_read("/bin/ls", &d, &err), 0);
		assert_true(d.dynamic);
		assert_non_null(d.interp);
		assert_true(has(d.needed, d.nneeded, "libc.so.6"));
		assert_true(d.span > 0 && d.span % SP_DYN_PAGE == 0);
		assert_true(d.align >= SP_DYN_PAGE);
		sp_dyn_free(&d);
	}
	if (access("/lib/x86_64-linux-gnu/libc.so.6", R_OK) == 0) {
		assert_int_equal(sp_dyn_read("/lib/x86_64-linux-gnu/libc.so.6",
		    &d, &err), 0);
		assert_int_equal(d.type, ET_DYN);
		assert_string_equal(d.soname, "libc.so.6");
		assert_true(has(d.needed, d.nneeded, "ld-linux-x86-64.so.2"));
		sp_dyn_free(&d);
	}
	assert_int_equal(sp_dyn_read("/", &d, &err), -1);
	assert_int_equal(sp_dyn_read("/nonexistent/x", &d, &err), -1);
}

static void
test_fixtures(void **state)
{
	struct sp_dyn d;

	(void)state;
	fixture("libnd_a.so", &d);
	assert_int_equal(d.type, ET_DYN);
	assert_null(d.interp);
	assert_string_equal(d.soname, "libnd_a.so");
	assert_string_equal(d.runpath, "$ORIGIN/deps");
	assert_null(d.rpath);
	assert_true(has(d.needed, d.nneeded, "libnd_dep.so"));
	sp_dyn_free(&d);
	fixture("libnd_r1.so", &d);
	assert_string_equal(d.rpath, "$ORIGIN/rchain");
	assert_null(d.runpath);
	sp_dyn_free(&d);
	fixture("libnd_r2.so", &d);
	assert_true(d.flags_1 & DF_1_NODEFLIB);
	assert_true(has(d.needed, d.nneeded, "libnd_r3.so"));
	sp_dyn_free(&d);
	fixture("nd_prog", &d);
	assert_non_null(d.interp);
	assert_string_equal(d.runpath, "$ORIGIN/lib");
	assert_true(has(d.needed, d.nneeded, "libnd_missing.so"));
	assert_true(has(d.needed, d.nneeded, "libnd_a.so"));
	assert_false(d.audit);
	sp_dyn_free(&d);
}

static const char *const two[] = { "liba.so", "libb.so" };

static int
from(const struct mkelf *m, struct sp_dyn *d, struct sp_error *err)
{
	return sp_dyn_from_memory(m->buf, m->size, d, err);
}

static void
test_synthetic(void **state)
{
	struct mkelf_spec s = { .interp = "/lib/ld.so", .needed = two,
	    .nneeded = 2, .soname = "libx.so", .rpath = "/r1",
	    .runpath = "/u1:$ORIGIN", .filter = "libf.so",
	    .flags_1 = DF_1_NODEFLIB, .audit = true };
	struct sp_error err;
	struct sp_dyn d;
	struct mkelf m;

	(void)state;
	mkelf(&s, &m);
	if (from(&m, &d, &err) != 0)
		fail_msg("%s", err.msg);
	assert_string_equal(d.interp, "/lib/ld.so");
	assert_int_equal(d.nneeded, 2);
	assert_string_equal(d.needed[0], "liba.so");
	assert_string_equal(d.needed[1], "libb.so");
	assert_int_equal(d.nfilters, 1);
	assert_string_equal(d.filters[0], "libf.so");
	assert_string_equal(d.soname, "libx.so");
	assert_string_equal(d.rpath, "/r1");
	assert_string_equal(d.runpath, "/u1:$ORIGIN");
	assert_true(d.flags_1 & DF_1_NODEFLIB);
	assert_true(d.audit);
	assert_int_equal(d.lo, 0);
	assert_int_equal(d.span, SP_DYN_PAGE);
	sp_dyn_free(&d);
	free(m.buf);
}

static void
test_caps(void **state)
{
	struct mkelf_spec s = { .needed = two, .nneeded = 1,
	    .repeat = SP_DYN_MAX_NEEDED - 1 };
	struct sp_error err;
	struct sp_dyn d;
	struct mkelf m;

	(void)state;
	mkelf(&s, &m);
	assert_int_equal(from(&m, &d, &err), 0);
	assert_int_equal(d.nneeded, SP_DYN_MAX_NEEDED);
	sp_dyn_free(&d);
	free(m.buf);
	s.repeat = SP_DYN_MAX_NEEDED;
	mkelf(&s, &m);
	assert_int_equal(from(&m, &d, &err), -1);
	assert_non_null(strstr(err.msg, "DT_NEEDED"));
	free(m.buf);
	/* No DT_NULL before the segment ends. */
	s.repeat = 0;
	s.no_null = true;
	mkelf(&s, &m);
	assert_int_equal(from(&m, &d, &err), -1);
	assert_non_null(strstr(err.msg, "DT_NULL"));
	free(m.buf);
	/* More entries than the cap before DT_NULL. */
	s.no_null = false;
	s.filler = SP_DYN_MAX_ENTRIES;
	mkelf(&s, &m);
	assert_int_equal(from(&m, &d, &err), -1);
	assert_non_null(strstr(err.msg, "dynamic entries"));
	free(m.buf);
	s.filler = SP_DYN_MAX_ENTRIES - 8;
	mkelf(&s, &m);
	assert_int_equal(from(&m, &d, &err), 0);
	sp_dyn_free(&d);
	free(m.buf);
}

static Elf64_Phdr *
phdr(struct mkelf *m, int i)
{
	return (Elf64_Phdr *)(m->buf + m->phoff) + i;
}

static Elf64_Dyn *
dyn_tag(struct mkelf *m, int64_t tag)
{
	Elf64_Dyn *d = (Elf64_Dyn *)(m->buf + m->dynamic);

	for (size_t i = 0; i < m->ndyn; i++)
		if (d[i].d_tag == tag)
			return &d[i];
	fail_msg("no tag %lld", (long long)tag);
	return NULL;
}

/* One corruption of a fresh synthetic file, expecting -1 and msg. */
static void
expect_error(void (*corrupt)(struct mkelf *), const char *msg)
{
	struct mkelf_spec s = { .interp = "/lib/ld.so", .needed = two,
	    .nneeded = 2, .runpath = "/x" };
	struct sp_error err;
	struct sp_dyn d;
	struct mkelf m;

	mkelf(&s, &m);
	corrupt(&m);
	if (from(&m, &d, &err) != -1)
		fail_msg("accepted, expected \"%s\"", msg);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("\"%s\", expected \"%s\"", err.msg, msg);
	free(m.buf);
}

static void c_dyn_out(struct mkelf *m) { phdr(m, 1)->p_vaddr = 1u << 30; }
static void c_strtab_out(struct mkelf *m)
{ dyn_tag(m, DT_STRTAB)->d_un.d_ptr = 1u << 30; }
static void c_needed_huge(struct mkelf *m)
{ dyn_tag(m, DT_NEEDED)->d_un.d_val = UINT64_MAX; }
static void c_phnum(struct mkelf *m) { ((Elf64_Ehdr *)m->buf)->e_phnum = 0xffff; }
static void c_phoff(struct mkelf *m) { ((Elf64_Ehdr *)m->buf)->e_phoff = 1u << 20; }
static void c_phentsize(struct mkelf *m) { ((Elf64_Ehdr *)m->buf)->e_phentsize = 32; }
static void c_class(struct mkelf *m) { m->buf[EI_CLASS] = ELFCLASS32; }
static void c_machine(struct mkelf *m) { ((Elf64_Ehdr *)m->buf)->e_machine = EM_AARCH64; }
static void c_magic(struct mkelf *m) { m->buf[1] = 'X'; }
static void c_type(struct mkelf *m) { ((Elf64_Ehdr *)m->buf)->e_type = ET_REL; }
static void c_noload(struct mkelf *m) { phdr(m, 0)->p_type = PT_NOTE; }
static void c_wrap(struct mkelf *m) { phdr(m, 0)->p_vaddr = UINT64_MAX - 10; }
static void c_filesz(struct mkelf *m) { phdr(m, 0)->p_filesz = phdr(m, 0)->p_memsz + 1; }
static void c_interp(struct mkelf *m) { phdr(m, 2)->p_filesz = 3; }
static void c_interp_off(struct mkelf *m) { phdr(m, 2)->p_offset = UINT64_MAX - 1; }
/* The segment claims more file than there is: the dynamic section too. */
static void c_past_eof(struct mkelf *m)
{
	phdr(m, 0)->p_filesz = phdr(m, 0)->p_memsz = 1u << 20;
	phdr(m, 1)->p_vaddr = (1u << 20) - 64;
}

static void
test_hostile_headers(void **state)
{
	(void)state;
	expect_error(c_dyn_out, "dynamic section outside");
	expect_error(c_strtab_out, "outside the loaded segments");
	expect_error(c_needed_huge, "dynamic string");
	expect_error(c_phnum, "program header count");
	expect_error(c_phoff, "truncated program header");
	expect_error(c_phentsize, "program header size");
	expect_error(c_class, "not an x86-64");
	expect_error(c_machine, "not an x86-64");
	expect_error(c_magic, "not an ELF");
	expect_error(c_type, "neither");
	expect_error(c_noload, "no PT_LOAD");
	expect_error(c_wrap, "bad PT_LOAD");
	expect_error(c_filesz, "bad PT_LOAD");
	expect_error(c_interp, "PT_INTERP");
	expect_error(c_interp_off, "PT_INTERP");
	expect_error(c_past_eof, "past the end of the file");
}

/* Strings: unterminated in the file, or ended by the zeros of the bss. */
static void
test_hostile_strings(void **state)
{
	struct mkelf_spec s = { .needed = two, .nneeded = 1 };
	size_t tail = 2 * SP_DYN_MAX_STRING, size;
	struct sp_error err;
	struct sp_dyn d;
	struct mkelf m;
	uint8_t *buf;

	(void)state;
	mkelf(&s, &m);
	size = m.size + tail;
	buf = realloc(m.buf, size);
	assert_non_null(buf);
	m.buf = buf;
	memset(buf + m.size, 'A', tail);
	phdr(&m, 0)->p_filesz = phdr(&m, 0)->p_memsz = size;
	dyn_tag(&m, DT_NEEDED)->d_un.d_val = m.size - m.strtab;
	assert_int_equal(sp_dyn_from_memory(buf, size, &d, &err), -1);
	assert_non_null(strstr(err.msg, "unterminated"));
	/* 100 bytes before the end of the file, the bss after it. */
	dyn_tag(&m, DT_NEEDED)->d_un.d_val = size - 100 - m.strtab;
	assert_int_equal(sp_dyn_from_memory(buf, size, &d, &err), -1);
	phdr(&m, 0)->p_memsz = size + SP_DYN_PAGE;
	assert_int_equal(sp_dyn_from_memory(buf, size, &d, &err), 0);
	assert_int_equal(strlen(d.needed[0]), 100);
	sp_dyn_free(&d);
	/* The dynamic section in the bss: zeros, no entries. */
	phdr(&m, 1)->p_vaddr = size + 64;
	assert_int_equal(sp_dyn_from_memory(buf, size, &d, &err), 0);
	assert_true(d.dynamic);
	assert_int_equal(d.nneeded, 0);
	sp_dyn_free(&d);
	free(buf);
}

/* Every prefix of a file, and random byte changes: no crash, no leak. */
static void
shake(const uint8_t *orig, size_t size, unsigned rounds)
{
	uint8_t *buf = malloc(size);
	struct sp_error err;
	struct sp_dyn d;
	unsigned seed = 12345;

	assert_non_null(buf);
	for (size_t n = 0; n <= size; n += n < 8192 ? 1 : 61)
		if (sp_dyn_from_memory(orig, n, &d, &err) == 0)
			sp_dyn_free(&d);
	for (unsigned r = 0; r < rounds; r++) {
		memcpy(buf, orig, size);
		for (int k = 0; k < 1 + (int)(rand_r(&seed) % 8); k++) {
			size_t at = rand_r(&seed) % size;
			/* Mostly the headers, where the pointers are. */
			if (rand_r(&seed) % 2 && size > 1024)
				at %= 1024;
			buf[at] = rand_r(&seed) % 4 == 0 ? 0xff :
			    (uint8_t)rand_r(&seed);
		}
		if (sp_dyn_from_memory(buf, size, &d, &err) == 0)
			sp_dyn_free(&d);
	}
	free(buf);
}

static void
test_shake(void **state)
{
	struct mkelf_spec s = { .interp = "/lib/ld.so", .needed = two,
	    .nneeded = 2, .rpath = "/a", .runpath = "/b", .soname = "x" };
	char path[4096];
	struct mkelf m;
	uint8_t *buf;
	size_t size;

	(void)state;
	mkelf(&s, &m);
	shake(m.buf, m.size, 20000);
	free(m.buf);
	snprintf(path, sizeof(path), "%s/libnd_a.so", builddir);
	buf = slurp(path, &size);
	shake(buf, size, 5000);
	free(buf);
}

/* The file reader: pread at offsets, a file shorter than it claims. */
static void
test_fd(void **state)
{
	struct mkelf_spec s = { .needed = two, .nneeded = 2 };
	char path[] = "/tmp/syspin-test-dyn.XXXXXX";
	struct sp_error err;
	struct sp_dyn d;
	struct mkelf m;
	int fd;

	(void)state;
	mkelf(&s, &m);
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, m.buf, m.size), (ssize_t)m.size);
	assert_int_equal(sp_dyn_read_fd(fd, &d, &err), 0);
	assert_int_equal(d.nneeded, 2);
	sp_dyn_free(&d);
	assert_int_equal(ftruncate(fd, m.dynamic + 8), 0);
	assert_int_equal(sp_dyn_read_fd(fd, &d, &err), -1);
	close(fd);
	unlink(path);
	free(m.buf);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_system_files),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_hostile_headers),
		cmocka_unit_test(test_hostile_strings),
		cmocka_unit_test(test_shake),
		cmocka_unit_test(test_fd),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_dynamic BUILDDIR\n");
		return 2;
	}
	builddir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
