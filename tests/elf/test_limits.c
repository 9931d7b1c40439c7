/* SPDX-License-Identifier: ISC */
/*
 * The ELF stage's size limit: a file whose executable PT_LOADs hold more
 * than 1 GiB (SP_ELF_MAX_CODE, lib/elf/elf.c) is refused before it is
 * mapped, with one sentence and EFBIG, by sp_elf_open and
 * sp_elf_check_file alike (scan, cache fill and run use them).  The sum
 * of the segments counts, and only executable ones: a large data segment
 * is not code to analyse.  Files are sparse: nothing on disk.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "elf/elf.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)
#define BASE 0x400000ull

static char tmpdir[] = "/tmp/syspin-elf-limits.XXXXXX";

struct seg {
	uint64_t size;
	uint32_t flags;
};

/*
 * An ET_EXEC whose PT_LOADs are segs, laid out one after the other from
 * offset 0, the file as long as they are; `exit(0)` at the entry.
 */
static const char *
make(const char *name, const struct seg *segs, size_t n)
{
	static const uint8_t code[] = {
		0xb8, 0x3c, 0x00, 0x00, 0x00,	/* mov $60, %eax */
		0x31, 0xff,			/* xor %edi, %edi */
		0x0f, 0x05,			/* syscall */
	};
	static char path[256];
	Elf64_Phdr ph[4];
	Elf64_Ehdr eh;
	uint64_t off = 0;
	int fd;

	assert_true(n <= 4);
	memset(&eh, 0, sizeof(eh));
	memset(ph, 0, sizeof(ph));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_entry = BASE + sizeof(eh) + n * sizeof(*ph);
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(*ph);
	eh.e_phnum = (uint16_t)n;
	for (size_t i = 0; i < n; i++) {
		ph[i].p_type = PT_LOAD;
		ph[i].p_flags = segs[i].flags;
		ph[i].p_offset = off;
		ph[i].p_vaddr = ph[i].p_paddr = BASE + off;
		ph[i].p_filesz = ph[i].p_memsz = segs[i].size;
		ph[i].p_align = 0x1000;
		off += (segs[i].size + 0xfff) & ~0xfffull;
	}
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755)) == -1 ||
	    write(fd, &eh, sizeof(eh)) != (ssize_t)sizeof(eh) ||
	    write(fd, ph, n * sizeof(*ph)) != (ssize_t)(n * sizeof(*ph)) ||
	    write(fd, code, sizeof(code)) != (ssize_t)sizeof(code) ||
	    ftruncate(fd, (off_t)off) == -1 || close(fd) == -1)
		fail_msg("%s: cannot write", path);
	return path;
}

static void
refused(const char *path, const char *want)
{
	struct sp_error err = { { 0 }, 0 };
	struct sp_elf elf;

	assert_int_equal(sp_elf_open(&elf, path, &err), -1);
	print_message("%s: %s\n", path, err.msg);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, EFBIG);
	memset(&err, 0, sizeof(err));
	assert_int_equal(sp_elf_check_file(path, &err), -1);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, EFBIG);
}

static void
accepted(const char *path)
{
	struct sp_error err = { { 0 }, 0 };
	struct sp_elf elf;

	if (sp_elf_open(&elf, path, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
	sp_elf_close(&elf);
	assert_int_equal(sp_elf_check_file(path, &err), 0);
}

/* The reported file: 3 GB of "code", one segment. */
static void
test_three_gib(void **state)
{
	const struct seg s[] = { { 3 * GiB, PF_R | PF_X } };

	(void)state;
	refused(make("3g", s, 1), "executable code of 3.0 GiB: over "
	    "syspin's limit of 1 GiB");
}

/* At the limit exactly: opened (the limit is inclusive). */
static void
test_one_gib(void **state)
{
	const struct seg s[] = { { GiB, PF_R | PF_X } };

	(void)state;
	accepted(make("1g", s, 1));
}

/* Two executable segments under the limit each, over it together. */
static void
test_sum(void **state)
{
	const struct seg s[] = { { 600 * MiB, PF_R | PF_X },
	    { 600 * MiB, PF_R | PF_X } };

	(void)state;
	refused(make("sum", s, 2), "executable code of 1.2 GiB: over "
	    "syspin's limit of 1 GiB");
}

/* 3 GiB of data beside a page of code: only code counts. */
static void
test_data(void **state)
{
	const struct seg s[] = { { 4096, PF_R | PF_X },
	    { 3 * GiB, PF_R | PF_W } };

	(void)state;
	accepted(make("data", s, 2));
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_gib),
		cmocka_unit_test(test_one_gib),
		cmocka_unit_test(test_sum),
		cmocka_unit_test(test_data),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
