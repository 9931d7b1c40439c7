/* SPDX-License-Identifier: ISC */
/*
 * test_elf_huge SYSPIN: `syspin scan` of 3 GB files (sparse: nothing on
 * disk) that are ELF only in their first bytes.  The headers are checked
 * with a few reads before the file is mapped, and the mapping is not
 * populated: a bad header fails at once and a good one costs the pages
 * read, not the file's size (it took 14 s and 3 GB of memory).
 */
#include <elf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define HUGE (3ull << 30)
#define MAX_SECONDS 2.0		/* a few reads: well under; generous */
#define MAX_RSS_KB (64 * 1024)

static const char *syspin;
static char tmpdir[] = "/tmp/syspin-elf-huge.XXXXXX";

struct image {
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint8_t code[16];
};

/* An ET_EXEC with one program header, padded with a hole to HUGE. */
static const char *
make(const char *name, uint16_t machine, uint32_t ptype)
{
	static char path[256];
	static const uint8_t code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00,	/* mov $39, %eax */
		0x0f, 0x05,			/* syscall */
		0xc3,				/* ret */
	};
	struct image im;
	int fd;

	memset(&im, 0, sizeof(im));
	memcpy(im.eh.e_ident, ELFMAG, SELFMAG);
	im.eh.e_ident[EI_CLASS] = ELFCLASS64;
	im.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	im.eh.e_ident[EI_VERSION] = EV_CURRENT;
	im.eh.e_type = ET_EXEC;
	im.eh.e_machine = machine;
	im.eh.e_version = EV_CURRENT;
	im.eh.e_entry = 0x400000 + offsetof(struct image, code);
	im.eh.e_phoff = offsetof(struct image, ph);
	im.eh.e_ehsize = sizeof(im.eh);
	im.eh.e_phentsize = sizeof(im.ph);
	im.eh.e_phnum = 1;
	im.ph.p_type = ptype;
	im.ph.p_flags = PF_R | PF_X;
	im.ph.p_vaddr = 0x400000;
	im.ph.p_filesz = im.ph.p_memsz = sizeof(im);
	im.ph.p_align = 0x1000;
	memcpy(im.code, code, sizeof(code));
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    write(fd, &im, sizeof(im)) != (ssize_t)sizeof(im) ||
	    ftruncate(fd, (off_t)HUGE) == -1 || close(fd) == -1)
		fail_msg("%s: cannot write", path);
	return path;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs `syspin scan path`: its status, time, peak memory and stderr. */
static void
scan(const char *path, int want_status, const char *want_msg)
{
	char out[4096] = "", errpath[300];
	struct rusage ru;
	double t0, dt;
	pid_t pid;
	int st, fd;
	ssize_t n;

	snprintf(errpath, sizeof(errpath), "%s/stderr", tmpdir);
	t0 = now();
	if ((pid = fork()) == 0) {
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		if ((fd = open("/dev/null", O_WRONLY)) != -1)
			dup2(fd, 1);
		execl(syspin, "syspin", "scan", path, (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(wait4(pid, &st, 0, &ru), pid);
	dt = now() - t0;
	if ((fd = open(errpath, O_RDONLY)) != -1) {
		n = read(fd, out, sizeof(out) - 1);
		out[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	print_message("%s: status %d, %.2f s, max RSS %ld KB: %s", path,
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1, dt, ru.ru_maxrss,
	    out[0] ? out : "(nothing on stderr)\n");
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), want_status);
	if (want_msg != NULL && strstr(out, want_msg) == NULL)
		fail_msg("want \"%s\" on stderr", want_msg);
	if (dt > MAX_SECONDS)
		fail_msg("%.2f s, want under %.1f s", dt, MAX_SECONDS);
	if (ru.ru_maxrss > MAX_RSS_KB)
		fail_msg("max RSS %ld KB, want under %d KB", ru.ru_maxrss,
		    MAX_RSS_KB);
}

static void
test_no_load(void **state)
{
	(void)state;
	scan(make("noload", EM_X86_64, PT_NOTE), 2, "no PT_LOAD segment");
}

static void
test_aarch64(void **state)
{
	(void)state;
	scan(make("aarch64", EM_AARCH64, PT_LOAD), 2,
	    "unsupported architecture");
}

/* A good header: the one page of code is read, not the 3 GB behind it. */
static void
test_good_header(void **state)
{
	(void)state;
	scan(make("good", EM_X86_64, PT_LOAD), 0, NULL);
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
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_load),
		cmocka_unit_test(test_aarch64),
		cmocka_unit_test(test_good_header),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_elf_huge SYSPIN\n");
		return 2;
	}
	syspin = argv[1];
	return cmocka_run_group_tests(tests, setup, teardown);
}
