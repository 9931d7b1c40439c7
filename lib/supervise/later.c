/* SPDX-License-Identifier: ISC */
/*
 * Objects loaded after an image was pinned (dlopen: a JVM's libjvm.so and
 * the libstdc++ it brings) may call an exported number-taking function,
 * libc's syscall(), with numbers its site was not given: the site holds
 * what the objects present at the start pass (lib/layout/place.c).  At
 * such a violation the return address on the stack names the caller
 * (glibc's syscall() is a leaf: nothing is pushed before its `syscall`).
 * When it lies in a file the image's layout does not hold (mapped later:
 * in the late-code band), that file's own table says which numbers it
 * passes to that function: those are allowed, as they would have been had
 * it been there at the start, with every rule a pinned call gets
 * (verdict.c).  A forged return address gains only numbers that some such
 * object really passes there (an object that passes a number we cannot
 * tell gets nothing this way).  The file is the mapped one (its device
 * and inode: mapped.c), and outside --exec=any only a trusted file's
 * table counts, since a file the tree wrote says what its writer wants.
 * Each such call costs a stop.
 * Returns 1 (allowed), 0, or -1 when the thread was killed meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <unistd.h>

#include "util/file.h"
#include "supervise_int.h"
#include "layout/procfs.h"

/*
 * Whether the table of the file fd (a late object's) may be believed:
 * with --exec=any the tree may exec a file it wrote, so believing what
 * such a file says it passes to syscall() gives it nothing more (the
 * route docs/threat-model.md names); otherwise only a trusted file's
 * (trust.c): a file the tree wrote says what its writer wants.
 */
static bool
believed(const struct sup *s, int fd)
{
	char why[256];

	return s->o->pin.exec == SP_EXEC_ANY ||
	    sp_sup_trusted_fd(s, fd, why, sizeof(why));
}

bool
sp_sup_late_key(const struct sup *s, pid_t pid, const struct sp_map *m,
    char *key, size_t size)
{
	struct sp_file_id id;
	struct stat st;
	bool ok;
	int fd;

	if (s->o->pin.cache == NULL || (fd = sp_sup_open_mapped(pid, m,
	    &st)) < 0)
		return false;
	ok = believed(s, fd);
	close(fd);
	if (!ok)
		return false;
	sp_file_id_from_stat(&id, &st);
	sp_cache_key_file(&id, key, size);
	return true;
}

/* The table of the late object mapped at m, filled when missing; only
 * of a file whose table may be believed, and only for that very file
 * (the fill reads the path again: what it made is keyed by what it
 * read, and a table keyed otherwise is not loaded). */
static bool
late_table(const struct sup *s, pid_t pid, const struct sp_map *m,
    struct sp_pintab *tab)
{
	char key[SP_CACHE_KEY_MAX];
	struct sp_error err;

	if (!sp_sup_late_key(s, pid, m, key, sizeof(key)))
		return false;
	if (sp_cache_load(s->o->pin.cache, key, tab, &err) == 1)
		return true;
	/* in a child of ours bounded in memory and time (fill.c) */
	if (sp_sup_fill(s->o->pin.cache, &(struct sp_fill){ m->path, key,
	    SP_FILL_TABLE }, 1, s->o->pin.verbose, &err) == -1)
		return false;
	return sp_cache_load(s->o->pin.cache, key, tab, &err) == 1;
}

/* The exported function whose site ends at ip, in lo's object o (a
 * start-up object: its table is the one the image was pinned with),
 * or NULL. */
static char *
export_at(const struct sup *s, const struct sp_object *o, uint64_t ip)
{
	struct sp_pintab tab;
	struct sp_error err;
	char *name = NULL;

	if (o->kind != SP_OBJ_FILE || o->key[0] == '\0' ||
	    sp_cache_load(s->o->pin.cache, o->key, &tab, &err) != 1)
		return NULL;
	for (size_t i = 0; i < tab.nsites; i++) {
		const struct sp_pin_site *t = &tab.sites[i];
		if (o->base + t->addr + t->length != ip ||
		    t->how != SP_PIN_EXPORT || t->export >= tab.nexports)
			continue;
		if (tab.exports[t->export].name < tab.strtab_size)
			name = strdup(tab.strtab + tab.exports[t->export].name);
		break;
	}
	sp_pintab_free(&tab);
	return name;
}

/* The executable file mapping holding addr, into *out (free its path). */
static bool
mapping_of(pid_t pid, uint64_t addr, struct sp_map *out)
{
	struct sp_map *m;
	struct sp_error err;
	char maps[64];
	bool found = false;
	size_t n;

	snprintf(maps, sizeof(maps), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(maps, &m, &n, &err) == -1)
		return false;
	for (size_t i = 0; i < n && !found; i++)
		if (addr >= m[i].start && addr < m[i].end &&
		    (m[i].prot & PROT_EXEC) && m[i].kind == SP_MAP_FILE) {
			*out = m[i];
			m[i].path = NULL;
			found = true;
		}
	sp_maps_free(m, n);
	return found;
}

static bool
passes(const struct sp_pintab *tab, const char *fn, uint32_t nr)
{
	for (size_t i = 0; i < tab->nimports; i++) {
		const struct sp_pin_import *m = &tab->imports[i];
		if (m->name >= tab->strtab_size ||
		    strcmp(tab->strtab + m->name, fn) != 0)
			continue;
		/* Some call of it passes a number we cannot tell: not
		 * taken on trust (--dlopen FILE says so explicitly). */
		if (m->unresolved)
			return false;
		for (uint32_t k = 0; k < m->nr_count; k++)
			if (m->nr_first + k < tab->nnrs &&
			    tab->nrs[m->nr_first + k] == nr)
				return true;
	}
	return false;
}

int
sp_sup_later_import(struct sup *s, pid_t pid, const struct sp_violation *v,
    const struct sp_layout *lo)
{
	struct user_regs_struct r;
	struct sp_pintab tab;
	struct sp_map m;
	char *fn;
	uint64_t ret;
	long i, word;
	bool ok = false;

	if (v->arch != SP_AUDIT_ARCH_X86_64 ||
	    (i = sp_layout_find(lo, v->ip - 2)) == -1)
		return false;
	fn = export_at(s, &lo->objs[lo->ranges[i].obj], v->ip);
	if (fn == NULL)
		return false;
	errno = 0;
	if (ptrace(PTRACE_GETREGS, pid, 0, &r) == -1 ||
	    ((word = ptrace(PTRACE_PEEKDATA, pid, r.rsp, 0)) == -1 &&
	    errno != 0)) {
		free(fn);
		return errno == ESRCH ? -1 : 0;
	} else {
		ret = (uint64_t)word;
		if (sp_layout_find(lo, ret) == -1 && mapping_of(pid, ret, &m)) {
			if ((ok = late_table(s, pid, &m, &tab))) {
				ok = passes(&tab, fn, v->nr);
				sp_pintab_free(&tab);
			}
			free(m.path);
		}
	}
	free(fn);
	return ok ? 1 : 0;
}
