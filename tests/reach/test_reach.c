/* SPDX-License-Identifier: ISC */
/*
 * Reachable-only pins on fixtures (fx_reach.c, fx_lib.c): the numbers
 * left after pruning name the functions the closure reached.  Also the
 * facts' encoding: a round trip, and a damaged buffer refused.
 *
 * usage: test_reach FX_REACH FX_REACH_CONST FX_REACH_ANY LIBFX_REACH
 */
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "reach/reach.h"
#include "fill/fill.h"
#include "analysis/scan.h"

/* The programs (fx_reach, _const, _any, _wrapped, _wrapped_any), then
 * the library. */
#define NPROGS 5
static char **files;

struct img {
	struct sp_elf elf[2];
	struct sp_reach_facts facts[2];
	struct sp_layout lo;
	struct sp_reach_report rep;
	struct sp_reach_count left;
};

static void
load(struct img *m, size_t i, const char *path)
{
	struct sp_error err;
	struct sp_scan scan;
	long o;

	assert_int_equal(sp_elf_open(&m->elf[i], path, &err), 0);
	assert_int_equal(sp_scan(&m->elf[i], NULL, &scan, &err), 0);
	o = sp_layout_add_object(&m->lo, path, SP_OBJ_FILE, 0);
	assert_int_equal(o, (long)i);
	assert_int_equal(sp_pintab_from_scan(&scan, &m->lo.objs[o].tab,
	    &err), 0);
	m->lo.objs[o].have_tab = true;
	sp_scan_free(&scan);
	assert_int_equal(sp_reach_facts_build(&m->elf[i], &m->facts[i],
	    &err), 0);
	assert_int_equal(m->facts[i].whole, SP_REACH_PARTIAL);
}

/*
 * A copy of prog whose import `name` is typed STT_OBJECT in .dynsym, as
 * Go's internal linker types every import (pthread_create included); the
 * path, to be removed by the caller.
 */
static char *
retyped(const char *prog, const char *name)
{
	char *path = strdup("/tmp/syspin-reach-retyped.XXXXXX");
	char cmd[512];
	Elf_Scn *scn = NULL;
	int fd, done = 0;
	Elf *e;

	assert_non_null(path);
	assert_true((fd = mkstemp(path)) >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", prog, path);
	assert_int_equal(system(cmd), 0);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	assert_true((fd = open(path, O_RDWR)) >= 0);
	assert_non_null(e = elf_begin(fd, ELF_C_RDWR, NULL));
	/* Keep the file's layout: only one byte of one symbol changes. */
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_DYNSYM || (d = elf_getdata(scn, NULL)) ==
		    NULL)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			gelf_getsym(d, (int)i, &sym);
			if (sym.st_shndx != SHN_UNDEF || strcmp(elf_strptr(e,
			    sh.sh_link, sym.st_name), name) != 0)
				continue;
			sym.st_info = GELF_ST_INFO(STB_GLOBAL, STT_OBJECT);
			gelf_update_sym(d, (int)i, &sym);
			elf_flagdata(d, ELF_C_SET, ELF_F_DIRTY);
			done = 1;
		}
	}
	assert_true(done);
	assert_true(elf_update(e, ELF_C_WRITE) >= 0);
	elf_end(e);
	close(fd);
	return path;
}

/* The program prog with the fixture library, pruned. */
static void
prune(struct img *m, const char *prog)
{
	struct sp_error err;

	memset(m, 0, sizeof(*m));
	load(m, 0, prog);
	load(m, 1, files[NPROGS]);
	assert_int_equal(sp_layout_reach_with(&m->lo, m->facts, NULL, 0,
	    &m->rep, &err), 0);
	for (size_t i = 0; i < m->lo.nobjs; i++)
		sp_layout_reach_count(&m->lo, i, &m->left);
}

static void
img_free(struct img *m)
{
	for (size_t i = 0; i < 2; i++) {
		sp_pintab_free(&m->lo.objs[i].tab);
		sp_reach_facts_free(&m->facts[i]);
		sp_elf_close(&m->elf[i]);
	}
	sp_layout_free(&m->lo);
}

static void
test_paths(void **state)
{
	struct img m;

	(void)state;
	prune(&m, files[0]);
	assert_false(m.left.nr[500]);	/* nothing reaches dead() */
	assert_true(m.left.nr[501]);	/* a function pointer */
	assert_true(m.left.nr[502]);	/* .init_array */
	assert_true(m.left.nr[503]);	/* a tail jump */
	assert_true(m.left.nr[504]);	/* a jump table's case */
	assert_true(m.left.nr[505]);	/* the PLT, into the library */
	assert_true(m.left.nr[508]);
	assert_false(m.left.nr[506]);	/* exported, never called */
	assert_false(m.left.nr[507]);
	assert_false(m.rep.dlsym);
	assert_true(m.rep.live_sites < m.rep.sites);
	img_free(&m);
}

static void
test_dlsym_constant(void **state)
{
	struct img m;

	(void)state;
	prune(&m, files[1]);
	assert_true(m.left.nr[507]);	/* dlsym("lib_named") */
	assert_false(m.left.nr[506]);
	assert_false(m.rep.dlsym);
	img_free(&m);
}

static void
test_dlsym_any(void **state)
{
	struct img m;

	(void)state;
	prune(&m, files[2]);
	assert_true(m.rep.dlsym);	/* dlsym(argv[1]): widened */
	assert_true(m.left.nr[506]);
	assert_true(m.left.nr[507]);
	assert_false(m.left.nr[500]);	/* static: no name to look up */
	img_free(&m);
}

/* The wrapper's callers pass constants: those names only. */
static void
test_dlsym_wrapped(void **state)
{
	struct img m;

	(void)state;
	prune(&m, files[3]);
	assert_false(m.rep.dlsym);
	assert_true(m.left.nr[507]);	/* lookup(.., "lib_named") */
	assert_false(m.left.nr[506]);
	img_free(&m);
}

/* One caller passes argv[1]: widened, and the call that widened is
 * named (the program's own dlsym call, at its address). */
static void
test_dlsym_wrapped_any(void **state)
{
	const struct sp_symbol *s;
	struct img m;

	(void)state;
	prune(&m, files[4]);
	assert_true(m.rep.dlsym);
	assert_true(m.left.nr[506]);
	assert_int_equal(m.rep.ndlsym_by, 1);
	assert_int_equal(m.rep.dlsym_by[0].obj, 0);
	s = sp_elf_symbol_named(&m.elf[0], "lookup");
	assert_non_null(s);
	assert_true(m.rep.dlsym_by[0].at >= s->addr &&
	    m.rep.dlsym_by[0].at < s->addr + 32);
	img_free(&m);
}

/* An import's type in the importer is a guess: one typed STT_OBJECT
 * (Go's linker) is still called through the PLT. */
static void
test_import_typed_object(void **state)
{
	char *path = retyped(files[0], "lib_typed");
	struct img m;

	(void)state;
	prune(&m, path);
	assert_true(m.left.nr[508]);	/* the PLT, into the library */
	assert_false(m.left.nr[506]);
	img_free(&m);
	unlink(path);
	free(path);
}

/* Names code outside the image calls (an object dlopen'ed later). */
static void
test_late_names(void **state)
{
	const char *late[] = { "lib_unused" };
	struct sp_reach_obj o[2];
	struct sp_reach_result r;
	struct sp_error err;
	struct img m;

	(void)state;
	prune(&m, files[0]);
	for (size_t i = 0; i < 2; i++)
		o[i] = (struct sp_reach_obj){ &m.facts[i], SP_REACH_PARTIAL };
	long f = sp_reach_func_at(&m.facts[1],
	    sp_elf_symbol_named(&m.elf[1], "lib_unused")->addr);
	assert_true(f >= 0);
	assert_int_equal(sp_reach_closure(o, 2, NULL, 0, &r, &err), 0);
	assert_false(r.live[1][f]);
	sp_reach_result_free(&r);
	assert_int_equal(sp_reach_closure(o, 2, late, 1, &r, &err), 0);
	assert_true(r.live[1][f]);
	sp_reach_result_free(&r);
	img_free(&m);
}

static void
test_encoding(void **state)
{
	struct sp_reach_facts back;
	struct sp_error err;
	struct img m;
	size_t len;
	void *buf;

	(void)state;
	prune(&m, files[0]);
	assert_int_equal(sp_reach_encode(&m.facts[1], &buf, &len, &err), 0);
	assert_int_equal(sp_reach_decode(buf, len, &back, &err), 0);
	assert_int_equal(back.nfuncs, m.facts[1].nfuncs);
	assert_int_equal(back.nedges, m.facts[1].nedges);
	assert_true(back.nedges > 0 && back.nexports > 0);
	assert_memory_equal(back.edges, m.facts[1].edges,
	    back.nedges * sizeof(*back.edges));
	assert_string_equal(back.strtab + back.exports[0].from,
	    m.facts[1].strtab + m.facts[1].exports[0].from);
	/* An edge to a function that does not exist is refused. */
	back.edges[0].to = (uint32_t)back.nfuncs;
	assert_int_equal(sp_reach_encode(&back, &buf, &len, &err), 0);
	sp_reach_facts_free(&back);
	assert_int_equal(sp_reach_decode(buf, len, &back, &err), -1);
	/* So is a buffer cut short. */
	assert_int_equal(sp_reach_encode(&m.facts[1], &buf, &len, &err), 0);
	assert_int_equal(sp_reach_decode(buf, len - 8, &back, &err), -1);
	img_free(&m);
}

/* A late object's imported names (reach_imports.c): each name it calls,
 * once; the record round-trips, and a damaged one is refused. */
static void
test_imports(void **state)
{
	struct sp_error err;
	struct img m;
	size_t len, count, blen, n2, c2, calls = 0;
	char *names, *back;
	void *buf;

	(void)state;
	prune(&m, files[0]);
	assert_int_equal(sp_reach_imports_make(&m.facts[0], &names, &len,
	    &count), 0);
	for (size_t i = 0; i < m.facts[0].ncalls; i++) {
		const char *want = m.facts[0].strtab + m.facts[0].calls[i].to;
		size_t seen = 0;
		for (size_t at = 0; at < len; at += strlen(names + at) + 1)
			seen += strcmp(names + at, want) == 0;
		assert_int_equal(seen, 1);	/* there, and once */
		calls++;
	}
	assert_true(calls > 0 && count > 0 && count <= calls);
	assert_int_equal(sp_reach_imports_encode(names, len, count, &buf,
	    &blen), 0);
	assert_int_equal(sp_reach_imports_decode(buf, blen, &back, &n2, &c2,
	    &err), 0);
	assert_int_equal(n2, len);
	assert_int_equal(c2, count);
	assert_memory_equal(back, names, len);
	free(back);
	/* cut short, a name without its NUL, a count that is not the names' */
	assert_int_equal(sp_reach_imports_encode(names, len, count, &buf,
	    &blen), 0);
	assert_int_equal(sp_reach_imports_decode(buf, blen - 1, &back, &n2,
	    &c2, &err), -1);
	assert_int_equal(sp_reach_imports_encode(names, len - 1, count, &buf,
	    &blen), 0);
	assert_int_equal(sp_reach_imports_decode(buf, blen, &back, &n2, &c2,
	    &err), -1);
	assert_int_equal(sp_reach_imports_encode(names, len, count + 1, &buf,
	    &blen), 0);
	assert_int_equal(sp_reach_imports_decode(buf, blen, &back, &n2, &c2,
	    &err), -1);
	free(names);
	img_free(&m);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_dlsym_constant),
		cmocka_unit_test(test_dlsym_any),
		cmocka_unit_test(test_dlsym_wrapped),
		cmocka_unit_test(test_dlsym_wrapped_any),
		cmocka_unit_test(test_import_typed_object),
		cmocka_unit_test(test_late_names),
		cmocka_unit_test(test_encoding),
		cmocka_unit_test(test_imports),
	};

	if (argc != NPROGS + 2)
		return 2;
	files = argv + 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
