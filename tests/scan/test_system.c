/* SPDX-License-Identifier: ISC */
/*
 * sp_scan on the system's libc.so.6 and ld.so: the sites must be exactly
 * the trap instructions `objdump -d` decodes (its linear sweep agrees
 * with the compiler's instruction stream for these), and full_sweep must
 * find the same sites as the default.
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
#include "analysis/scan.h"

#include "check.h"

static const char *const objects[] = {
	"/lib/x86_64-linux-gnu/libc.so.6",
	"/lib64/ld-linux-x86-64.so.2",
};

struct trap {
	uint64_t addr;
	int kind;
};

/* objdump's trap instructions, in address order. */
static size_t
objdump_traps(const char *path, struct trap **out)
{
	char cmd[512], line[512];
	size_t n = 0, cap = 0;
	struct trap *v = NULL;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long addr;
		char mn[64] = "", op[64] = "";
		int kind;
		if (sscanf(line, " %llx:\t%63s %63s", &addr, mn, op) < 2)
			continue;
		if (strcmp(mn, "syscall") == 0)
			kind = SP_TRAP_SYSCALL;
		else if (strcmp(mn, "sysenter") == 0)
			kind = SP_TRAP_SYSENTER;
		else if (strcmp(mn, "int") == 0 && strcmp(op, "$0x80") == 0)
			kind = SP_TRAP_INT80;
		else
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			if ((v = realloc(v, cap * sizeof(*v))) == NULL)
				abort();
		}
		v[n++] = (struct trap){ addr, kind };
	}
	pclose(f);
	*out = v;
	return n;
}

static void
scan_or_fail(const char *path, bool full, struct sp_elf *elf,
    struct sp_scan *scan)
{
	struct sp_scan_opts opts = { .full_sweep = full };
	struct sp_error err = { { 0 }, 0 };

	if (sp_elf_open(elf, path, &err) != 0)
		fail_msg("%s: %s", path, err.msg);
	if (sp_scan(elf, &opts, scan, &err) != 0)
		fail_msg("%s: sp_scan: %s", path, err.msg);
}

static void
test_objdump(void **state)
{
	const char *path = *state;
	struct sp_elf elf;
	struct sp_scan scan;
	struct trap *t;
	size_t nt, i = 0, j = 0, bad = 0;

	if (access(path, R_OK) != 0)
		skip();
	nt = objdump_traps(path, &t);
	scan_or_fail(path, false, &elf, &scan);
	while (i < nt || j < scan.nsites) {
		if (j == scan.nsites || (i < nt && t[i].addr < scan.sites[j].addr)) {
			print_error("  objdump trap at 0x%llx: no site\n",
			    (unsigned long long)t[i].addr);
			i++, bad++;
		} else if (i == nt || scan.sites[j].addr < t[i].addr) {
			print_error("  site 0x%llx (%s): objdump has no trap "
			    "there\n", (unsigned long long)scan.sites[j].addr,
			    how_str(scan.sites[j].how));
			j++, bad++;
		} else {
			if (scan.sites[j].kind != t[i].kind) {
				print_error("  site 0x%llx: kind %u, objdump "
				    "%d\n", (unsigned long long)t[i].addr,
				    scan.sites[j].kind, t[i].kind);
				bad++;
			}
			i++, j++;
		}
	}
	print_message("  %s: %zu objdump traps, %zu sites, %zu gadgets\n",
	    path, nt, scan.nsites, scan.ngadgets);
	sp_scan_free(&scan);
	sp_elf_close(&elf);
	free(t);
	if (bad)
		fail_msg("%s: %zu differences with objdump", path, bad);
	if (nt == 0)
		fail_msg("%s: objdump found no trap at all", path);
}

static void
test_full_sweep(void **state)
{
	const char *path = *state;
	struct sp_elf ea, eb;
	struct sp_scan a, b;
	struct problems p = { 0 };

	if (access(path, R_OK) != 0)
		skip();
	scan_or_fail(path, false, &ea, &a);
	scan_or_fail(path, true, &eb, &b);
	check_same("full sweep", &ea, &a, &b, 1, &p);
	sp_scan_free(&a);
	sp_scan_free(&b);
	sp_elf_close(&ea);
	sp_elf_close(&eb);
	if (p.count) {
		print_error("%s", p.text);
		problems_free(&p);
		fail_msg("%s: full sweep differs", path);
	}
}

/* glibc's syscall(2): an export whose number is rdi. */
static void
test_libc_syscall_export(void **state)
{
	const char *path = objects[0];
	struct sp_elf elf;
	struct sp_scan scan;
	uint64_t fn = 0, size = 0;
	int found = 0;

	(void)state;
	if (access(path, R_OK) != 0)
		skip();
	scan_or_fail(path, false, &elf, &scan);
	for (size_t i = 0; i < elf.nexports; i++)
		if (strcmp(elf.exports[i].name, "syscall") == 0) {
			fn = elf.exports[i].addr;
			size = elf.exports[i].size;
		}
	assert_true(fn != 0);
	for (size_t i = 0; i < scan.nexports; i++)
		if (strcmp(scan.exports[i].symbol, "syscall") == 0 &&
		    scan.exports[i].addr == fn &&
		    scan.exports[i].param_reg == SP_REG_RDI)
			found = 1;
	for (size_t i = 0; i < scan.nsites; i++) {
		const struct sp_site *s = &scan.sites[i];
		if (s->addr < fn || s->addr - fn >= size)
			continue;
		if (s->how != SP_HOW_EXPORT || s->param_reg != SP_REG_RDI)
			print_error("  syscall() site 0x%llx: %s reg %d (%s), "
			    "want export rdi\n", (unsigned long long)s->addr,
			    how_str(s->how), s->param_reg,
			    s->reason ? s->reason : "");
		else
			found |= 2;
	}
	sp_scan_free(&scan);
	sp_elf_close(&elf);
	if (found != 3)
		fail_msg("libc syscall(): export record %s, export site %s",
		    found & 1 ? "ok" : "missing", found & 2 ? "ok" : "missing");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_objdump, (void *)objects[0]),
		cmocka_unit_test_prestate(test_objdump, (void *)objects[1]),
		cmocka_unit_test_prestate(test_full_sweep, (void *)objects[0]),
		cmocka_unit_test_prestate(test_full_sweep, (void *)objects[1]),
		cmocka_unit_test(test_libc_syscall_export),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
