/* SPDX-License-Identifier: ISC */
/*
 * The ELF reader on good input, checked against binutils: kinds of
 * binaries built here with the system compilers, build-ids (readelf -n),
 * FDE counts (readelf --debug-dump=frames) and PLT entries (objdump -d).
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

#include "elf/elf.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO "/lib64/ld-linux-x86-64.so.2"
#define LS "/usr/bin/ls"

static char tmpdir[] = "/tmp/syspin-elf-good.XXXXXX";

static void
open_or_fail(struct sp_elf *elf, const char *path)
{
	struct sp_error err = { { 0 }, 0 };

	if (sp_elf_open(elf, path, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
}

static int
have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* Builds tmpdir/NAME from a trivial program with CC FLAGS. */
static const char *
build(const char *cc, const char *flags, const char *name)
{
	static char out[512];
	char cmd[1024];

	snprintf(out, sizeof(out), "%s/%s", tmpdir, name);
	snprintf(cmd, sizeof(cmd), "%s %s -o %s %s/main.c 2>/dev/null", cc,
	    flags, out, tmpdir);
	return system(cmd) == 0 ? out : NULL;
}

static void
check_kind(const char *path, enum sp_elf_kind want, int interp)
{
	struct sp_elf elf;

	open_or_fail(&elf, path);
	if (elf.kind != want)
		fail_msg("%s: kind %s, want %s", path,
		    sp_elf_kind_name(elf.kind), sp_elf_kind_name(want));
	if (interp >= 0 && (elf.interp != NULL) != interp)
		fail_msg("%s: interp %s", path, elf.interp ? elf.interp : "none");
	sp_elf_close(&elf);
}

static void
test_kinds(void **state)
{
	static const struct {
		const char *cc, *flags, *name;
		enum sp_elf_kind kind;
		int interp;
	} v[] = {
		{ "gcc", "-no-pie", "exec", SP_ELF_EXEC, 1 },
		{ "gcc", "-pie -fPIE", "pie", SP_ELF_PIE, 1 },
		{ "gcc", "-static", "static", SP_ELF_EXEC_STATIC, 0 },
		{ "gcc", "-static-pie -fPIE", "static-pie", SP_ELF_STATIC_PIE, 0 },
		{ "gcc", "-shared -fPIC", "shared.so", SP_ELF_SHARED, 0 },
		{ "clang", "-no-pie", "clang-exec", SP_ELF_EXEC, 1 },
		{ "clang", "-static-pie -fPIE", "clang-static-pie",
		    SP_ELF_STATIC_PIE, 0 },
		{ "musl-gcc", "-static", "musl-static", SP_ELF_EXEC_STATIC, 0 },
	};
	int built = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++) {
		if (!have(v[i].cc)) {
			print_message("  %s: no %s\n", v[i].name, v[i].cc);
			continue;
		}
		const char *p = build(v[i].cc, v[i].flags, v[i].name);
		if (p == NULL) {
			print_message("  %s: %s %s failed to link\n", v[i].name,
			    v[i].cc, v[i].flags);
			continue;
		}
		built++;
		check_kind(p, v[i].kind, v[i].interp);
	}
	check_kind(LIBC, SP_ELF_SHARED, -1);	/* has PT_INTERP, is a library */
	check_kind(LDSO, SP_ELF_SHARED, 0);
	check_kind(LS, SP_ELF_PIE, 1);
	if (built == 0)
		skip();
}

/* Runs CMD and returns its output (malloc'ed), or NULL. */
static char *
run(const char *fmt, ...)
{
	char cmd[1024], *buf = NULL;
	size_t len = 0, cap = 0, n;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if ((f = popen(cmd, "r")) == NULL)
		return NULL;
	do {
		if (len + 65536 + 1 > cap) {
			cap = 2 * cap + 65536 + 1;
			if ((buf = realloc(buf, cap)) == NULL)
				abort();
		}
		n = fread(buf + len, 1, 65536, f);
		len += n;
	} while (n > 0);
	buf[len] = '\0';
	pclose(f);
	return buf;
}

static void
check_build_id(const char *path)
{
	char hex[2 * SP_BUILD_ID_MAX + 1], *out, *p;
	struct sp_elf elf;

	open_or_fail(&elf, path);
	sp_build_id_hex(elf.build_id, elf.build_id_len, hex);
	out = run("readelf -n '%s' 2>/dev/null", path);
	assert_non_null(out);
	p = strstr(out, "Build ID: ");
	if (p == NULL) {
		if (elf.build_id_len != 0)
			fail_msg("%s: build-id %s, readelf has none", path, hex);
	} else {
		p += strlen("Build ID: ");
		p[strcspn(p, "\n ")] = '\0';
		if (strcmp(p, hex) != 0)
			fail_msg("%s: build-id \"%s\", readelf \"%s\"", path,
			    hex, p);
	}
	free(out);
	sp_elf_close(&elf);
}

static void
test_build_id(void **state)
{
	(void)state;
	check_build_id(LIBC);
	check_build_id(LDSO);
	check_build_id(LS);
	if (have("gcc") && build("gcc", "-Wl,--build-id=sha1", "bid-sha1"))
		check_build_id(build("gcc", "-Wl,--build-id=sha1", "bid-sha1"));
	if (have("gcc") && build("gcc", "-Wl,--build-id=md5", "bid-md5"))
		check_build_id(build("gcc", "-Wl,--build-id=md5", "bid-md5"));
	if (have("gcc") && build("gcc", "-Wl,--build-id=none", "bid-none"))
		check_build_id(build("gcc", "-Wl,--build-id=none", "bid-none"));
}

/* FDEs of .eh_frame with a non-empty range, as readelf lists them. */
static size_t
readelf_fdes(const char *path)
{
	char *out = run("readelf -W --debug-dump=frames '%s' 2>/dev/null",
	    path), *line, *save = NULL;
	int in_eh = 0;
	size_t n = 0;

	assert_non_null(out);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		unsigned long long lo, hi;
		const char *pc;
		if (strncmp(line, "Contents of the ", 16) == 0)
			in_eh = strstr(line, ".eh_frame section") != NULL;
		if (!in_eh || strstr(line, " FDE ") == NULL ||
		    (pc = strstr(line, "pc=")) == NULL)
			continue;
		if (sscanf(pc, "pc=%llx..%llx", &lo, &hi) == 2 && hi > lo)
			n++;
	}
	free(out);
	return n;
}

static void
check_fdes(const char *path)
{
	struct sp_elf elf;
	size_t want = readelf_fdes(path);

	open_or_fail(&elf, path);
	if (elf.nfdes != want)
		fail_msg("%s: %zu FDEs, readelf lists %zu (warning: %s)", path,
		    elf.nfdes, want, elf.warning);
	sp_elf_close(&elf);
}

static void
test_fdes(void **state)
{
	(void)state;
	check_fdes(LIBC);
	check_fdes(LDSO);
	check_fdes(LS);
	if (have("gcc") && build("gcc", "-static", "fde-static"))
		check_fdes(build("gcc", "-static", "fde-static"));
}

/* objdump's <name@plt> labels == elf.plt. */
static void
test_plt_ls(void **state)
{
	char *out = run("objdump -d --no-show-raw-insn %s 2>/dev/null", LS);
	char *line, *save = NULL;
	struct sp_elf elf;
	size_t nobj = 0, bad = 0;

	(void)state;
	assert_non_null(out);
	open_or_fail(&elf, LS);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		unsigned long long addr;
		char name[256];
		size_t i;
		if (sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2)
			continue;
		char *at = strstr(name, "@plt");
		if (at == NULL || at[4] != '\0')
			continue;
		*at = '\0';
		nobj++;
		for (i = 0; i < elf.nplt; i++)
			if (elf.plt[i].addr == addr &&
			    strcmp(elf.plt[i].name, name) == 0)
				break;
		if (i == elf.nplt) {
			print_error("  objdump %s@plt at 0x%llx: not in elf.plt\n",
			    name, addr);
			bad++;
		}
	}
	if (nobj != elf.nplt)
		print_error("  objdump %zu PLT labels, elf.plt %zu\n", nobj,
		    elf.nplt);
	size_t nplt = elf.nplt;
	sp_elf_close(&elf);
	free(out);
	if (bad || nobj != nplt || nobj == 0)
		fail_msg("%zu of %zu objdump PLT labels not found; elf.plt has "
		    "%zu", bad, nobj, nplt);
}

static int
setup(void **state)
{
	FILE *f;

	(void)state;
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	char path[512];
	snprintf(path, sizeof(path), "%s/main.c", tmpdir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("#include <stdio.h>\nint main(void) { puts(\"hi\"); "
	    "return 0; }\n", f);
	return fclose(f);
}

static int
teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_fdes),
		cmocka_unit_test(test_plt_ls),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
