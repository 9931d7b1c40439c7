/* SPDX-License-Identifier: ISC */
/*
 * Filling the cache: analyse an object and store its table under the key
 * the runtime will compute for the same mapped file.  Not in the runtime.
 *
 * Tables are per object, so imports are found with the built-in hints
 * (libc's syscall()); an export nobody hints at only keeps the numbers its
 * own object passes.  That is the safe direction: fewer pins.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pins/cache.h"
#include "fill/fill.h"
#include "elf/elf.h"
#include "layout/layout.h"
#include "analysis/scan.h"

/*
 * The path a table records (`syspin cache list`, stale tables): absolute,
 * as given otherwise.  NULL when it cannot be told.
 */
static const char *
record_path(const char *path, char *buf, size_t size)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/' || strcmp(path, "[vdso]") == 0)
		return path;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return NULL;
	n = snprintf(buf, size, "%s/%s", cwd, path);
	return n > 0 && (size_t)n < size ? buf : NULL;
}

/* An analysis that failed still gets a table: an empty one. */
static int
store(const struct sp_cache *c, const char *key, struct sp_elf *elf,
    const char *path, const struct sp_file_id *id, struct sp_error *err)
{
	char abs[PATH_MAX];
	struct sp_scan_opts opts = { false, false, NULL, 0 };
	struct sp_pintab tab, empty;
	struct sp_scan scan;
	struct sp_error serr;
	int r;

	memset(&scan, 0, sizeof(scan));
	memset(&empty, 0, sizeof(empty));
	/* said whatever path failed (one out of memory sets nothing) */
	sp_error_set(&serr, "out of memory, or a limit");
	if (sp_scan(elf, &opts, &scan, &serr) == 0 &&
	    sp_pintab_from_scan(&scan, &tab, &serr) == 0) {
		sp_scan_free(&scan);
	} else {
		sp_scan_free(&scan);
		tab = empty;
		tab.flags = SP_PINTAB_FAILED;
		static char nul[1] = "";
		tab.strtab = nul;
		tab.strtab_size = 1;
		tab.path = record_path(path, abs, sizeof(abs));
		if (id != NULL)
			tab.id = *id;
		sp_error_set(err, "%s: analysis failed, no syscall will be "
		    "allowed from it: %s", elf->name, serr.msg);
		r = sp_cache_store(c, key, &tab, NULL);
		return r == -1 ? -1 : 2;
	}
	if (id != NULL)
		tab.id = *id;
	tab.path = record_path(path, abs, sizeof(abs));
	tab.build_id_len = elf->build_id_len <= SP_CACHE_BUILD_ID_MAX ?
	    elf->build_id_len : 0;
	memcpy(tab.build_id, elf->build_id, tab.build_id_len);
	r = sp_cache_store(c, key, &tab, err);
	sp_pintab_free(&tab);
	return r == -1 ? -1 : 1;
}

/*
 * Whether the cache holds a believed table under key.  One it does not
 * believe (its MAC) is made again; why goes to err for -v.
 */
static bool
cached(const struct sp_cache *c, const char *key, bool force,
    struct sp_error *err)
{
	struct sp_pintab tab;
	struct sp_error why;

	why.msg[0] = '\0';
	if (force)
		return false;
	if (sp_cache_load(c, key, &tab, &why) == 1) {
		sp_pintab_free(&tab);
		return true;
	}
	if (c->mac != NULL && why.msg[0] != '\0')
		sp_error_set(err, "%s", why.msg);
	return false;
}

static int
fill_vdso(const struct sp_cache *c, bool force, struct sp_error *err)
{
	const void *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	char key[SP_CACHE_KEY_MAX];
	struct sp_elf elf;
	size_t size;
	int r;

	if (eh == NULL)
		return 0;
	size = sp_mem_image_size(eh);
	if (sp_elf_from_memory(&elf, eh, size, "[vdso]", err) == -1)
		return -1;
	sp_cache_key_vdso(elf.build_id, elf.build_id_len, eh, size, key,
	    sizeof(key));
	if (cached(c, key, force, err)) {
		sp_elf_close(&elf);
		return 0;
	}
	r = store(c, key, &elf, "[vdso]", NULL, err);
	sp_elf_close(&elf);
	return r;
}

int
sp_cache_fill(const struct sp_cache *c, const char *path, bool force,
    struct sp_error *err)
{
	char key[SP_CACHE_KEY_MAX];
	struct sp_file_id id, id2;
	struct sp_elf elf;
	struct stat st;
	int r;

	if (err != NULL)
		err->msg[0] = '\0';
	if (strcmp(path, "[vdso]") == 0)
		return fill_vdso(c, force, err);
	if (stat(path, &st) == -1)
		return sp_error_sys(err, errno, "%s", path);
	sp_file_id_from_stat(&id, &st);
	sp_cache_key_file(&id, key, sizeof(key));
	if (cached(c, key, force, err))
		return 0;
	if (sp_elf_open(&elf, path, err) == -1)
		return -1;
	/* The table must describe the file the key names: the key is the
	 * file read (the path may name another one by now, or did when it
	 * was looked at first). */
	sp_file_id_from_stat(&id2, &elf.st);
	if (memcmp(&id, &id2, sizeof(id)) != 0) {
		sp_elf_close(&elf);
		return sp_error_set(err, "%s: changed while being analysed",
		    path);
	}
	r = store(c, key, &elf, path, &id, err);
	sp_elf_close(&elf);
	return r;
}
