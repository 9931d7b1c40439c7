/* SPDX-License-Identifier: ISC */
/*
 * The layout of a traced process, seen from outside.  The runtime asks
 * dl_iterate_phdr which object owns a mapping; we have only /proc/PID/maps,
 * so each file mapping's load bias comes from the file's own program
 * headers: the executable PT_LOAD whose file page is the mapping's offset.
 * The file is the mapped one only when stat(2) finds the mapping's device
 * and inode at its path; otherwise (or anonymous, or deleted) the mapping
 * is a range with no table: nothing may trap there.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf.h"
#include "supervise/supervise.h"
#include "layout/procfs.h"

#include "util/file.h"

#define PAGE_DOWN(a) ((a) & ~(uint64_t)4095)
#define PAGE_UP(a) (((a) + 4095) & ~(uint64_t)4095)
#define MAX_PHNUM 256

struct elfinfo {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[MAX_PHNUM];
};

static int
read_elf(int fd, struct elfinfo *e)
{
	size_t n;

	if (pread(fd, &e->eh, sizeof(e->eh), 0) != sizeof(e->eh) ||
	    memcmp(e->eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    e->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    e->eh.e_phnum > MAX_PHNUM)
		return -1;
	n = e->eh.e_phnum * sizeof(Elf64_Phdr);
	return pread(fd, e->ph, n, e->eh.e_phoff) == (ssize_t)n ? 0 : -1;
}

/* The GNU build-id from the file's PT_NOTEs, as the cache filler reads it. */
static size_t
file_build_id(int fd, const struct elfinfo *e, uint8_t *out, size_t max)
{
	uint8_t buf[4096];
	size_t i, off, len;

	for (i = 0; i < e->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &e->ph[i];
		if (ph->p_type != PT_NOTE)
			continue;
		len = ph->p_filesz < sizeof(buf) ? ph->p_filesz : sizeof(buf);
		if (pread(fd, buf, len, ph->p_offset) != (ssize_t)len)
			continue;
		for (off = 0; off + 12 <= len;) {
			Elf64_Nhdr nh;
			memcpy(&nh, buf + off, sizeof(nh));
			size_t nsz = (nh.n_namesz + 3) & ~3u;
			size_t dsz = (nh.n_descsz + 3) & ~3u;
			if (nsz + dsz > len - off - 12)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    nh.n_descsz <= max &&
			    memcmp(buf + off + 12, "GNU", 4) == 0) {
				memcpy(out, buf + off + 12 + nsz, nh.n_descsz);
				return nh.n_descsz;
			}
			off += 12 + nsz + dsz;
		}
	}
	return 0;
}

/* Load bias of the file mapping m, from the PT_LOAD it maps. */
static int
file_bias(const struct elfinfo *e, const struct sp_map *m, uint64_t *bias)
{
	size_t i;

	for (i = 0; i < e->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &e->ph[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
		    PAGE_DOWN(ph->p_offset) != m->offset)
			continue;
		*bias = m->start - PAGE_DOWN(ph->p_vaddr);
		return 0;
	}
	return -1;
}


/* A file mapping: an object already seen (same file, same bias) or new. */
static long
file_object(struct sp_layout *lo, const struct sp_map *m)
{
	struct elfinfo *e;
	struct stat st;
	uint64_t bias;
	long oi = -2;
	size_t i;
	int fd;

	/* The path is the tree's to rename: a regular file, or nothing. */
	if ((fd = sp_open_regular(m->path, &st)) < 0)
		return -2;
	if ((e = malloc(sizeof(*e))) == NULL ||
	    st.st_dev != m->dev || st.st_ino != m->inode ||
	    read_elf(fd, e) == -1 || file_bias(e, m, &bias) == -1)
		goto out;
	for (i = 0; i < lo->nobjs; i++)
		if (lo->objs[i].kind == SP_OBJ_FILE &&
		    lo->objs[i].id.dev == st.st_dev &&
		    lo->objs[i].id.ino == st.st_ino &&
		    lo->objs[i].base == bias) {
			oi = i;
			goto out;
		}
	if ((oi = sp_layout_add_object(lo, m->path, SP_OBJ_FILE, bias)) < 0)
		goto out;
	struct sp_object *o = &lo->objs[oi];
	sp_file_id_from_stat(&o->id, &st);
	o->have_id = true;
	sp_cache_key_file(&o->id, o->key, sizeof(o->key));
	o->build_id_len = file_build_id(fd, e, o->build_id,
	    sizeof(o->build_id));
out:
	free(e);
	close(fd);
	return oi;
}

/* The vDSO, read from the tracee: the same image as ours, normally. */
static long
vdso_object(struct sp_layout *lo, pid_t pid, const struct sp_map *m)
{
	size_t len = m->end - m->start;
	struct sp_object *o;
	struct sp_error err;
	void *img;
	long oi;

	if (len > (1u << 20) || (img = malloc(len)) == NULL)
		return -2;
	if (sp_mem_read(pid, m->start, img, len, &err) == -1 ||
	    memcmp(img, ELFMAG, SELFMAG) != 0 ||
	    (oi = sp_layout_add_object(lo, "[vdso]", SP_OBJ_VDSO, m->start)) < 0) {
		free(img);
		return -2;
	}
	o = &lo->objs[oi];
	o->image = m->start;
	/* where calls are injected (pin.c): found now, while we hold it */
	for (size_t i = 0; i + 1 < len && o->trap == 0; i++)
		if (((uint8_t *)img)[i] == 0x0f && ((uint8_t *)img)[i + 1] == 0x05)
			o->trap = m->start + i;
	o->image_size = sp_mem_image_size(img);
	if (o->image_size > len)
		o->image_size = len;
	o->build_id_len = sp_mem_build_id(img, (uint64_t)img, o->build_id,
	    sizeof(o->build_id));
	sp_cache_key_vdso(o->build_id, o->build_id_len, img, o->image_size,
	    o->key, sizeof(o->key));
	free(img);
	return oi;
}

static long
object_for(struct sp_layout *lo, pid_t pid, const struct sp_map *m)
{
	long oi = -2;

	if (m->kind == SP_MAP_VSYSCALL)
		return sp_layout_add_object(lo, "[vsyscall]", SP_OBJ_VSYSCALL, 0);
	if (m->kind == SP_MAP_VDSO)
		oi = vdso_object(lo, pid, m);
	else if (m->kind == SP_MAP_FILE && !m->deleted)
		oi = file_object(lo, m);
	if (oi == -2)	/* nothing we can analyse: an empty table */
		oi = sp_layout_add_object(lo, m->path, SP_OBJ_UNKNOWN, 0);
	return oi;
}


int
sp_layout_pid(pid_t pid, struct sp_layout *lo, struct sp_error *err)
{
	char path[64];
	struct sp_map *maps;
	size_t nmaps, i;
	long oi;
	int ret = 0;

	memset(lo, 0, sizeof(*lo));
	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	if (sp_maps_read(path, &maps, &nmaps, err) == -1)
		return -1;
	for (i = 0; i < nmaps; i++) {
		if (!(maps[i].prot & PROT_EXEC))
			continue;
		if ((oi = object_for(lo, pid, &maps[i])) < 0 ||
		    sp_layout_add_range(lo, maps[i].start, maps[i].end,
		    (size_t)oi) == -1) {
			ret = sp_error_set(err, "out of memory");
			break;
		}
	}
	sp_maps_free(maps, nmaps);
	if (ret == -1)
		sp_layout_free(lo);
	return ret;
}

/*
 * A start-up object whose lowest PT_LOAD ld.so will map at base (its
 * slot): its executable PT_LOADs there are its ranges.  The file must
 * still be the one the prediction found (id).
 */
long
sp_layout_add_file(struct sp_layout *lo, const char *path,
    const struct sp_file_id *id, uint64_t base, struct sp_error *err)
{
	struct sp_file_id now;
	struct elfinfo *e;
	struct stat st;
	long oi = -1;
	size_t i;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return sp_error_sys(err, errno, "%s", path);
	if ((e = malloc(sizeof(*e))) == NULL || fstat(fd, &st) == -1 ||
	    read_elf(fd, e) == -1) {
		sp_error_set(err, "%s: not an ELF object", path);
		goto out;
	}
	sp_file_id_from_stat(&now, &st);
	if (memcmp(&now, id, sizeof(now)) != 0) {
		sp_error_set(err, "%s: replaced while it was being pinned",
		    path);
		goto out;
	}
	/* ld.so: l_addr = where it mapped the first PT_LOAD - its page */
	for (i = 0; i < e->eh.e_phnum; i++)
		if (e->ph[i].p_type == PT_LOAD) {
			base -= PAGE_DOWN(e->ph[i].p_vaddr);
			break;
		}
	if ((oi = sp_layout_add_object(lo, path, SP_OBJ_FILE, base)) < 0) {
		oi = sp_error_set(err, "out of memory");
		goto out;
	}
	struct sp_object *o = &lo->objs[oi];
	o->id = now;
	o->have_id = true;
	sp_cache_key_file(&o->id, o->key, sizeof(o->key));
	o->build_id_len = file_build_id(fd, e, o->build_id,
	    sizeof(o->build_id));
	for (i = 0; i < e->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &e->ph[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (sp_layout_add_range(lo, base + PAGE_DOWN(ph->p_vaddr),
		    base + PAGE_UP(ph->p_vaddr + ph->p_memsz),
		    (size_t)oi) == -1) {
			oi = sp_error_set(err, "out of memory");
			goto out;
		}
	}
out:
	free(e);
	close(fd);
	return oi;
}

int
sp_auxv_pid(pid_t pid, struct sp_auxv *a, struct sp_error *err)
{
	char path[64];
	uint64_t av[2 * 64];
	ssize_t n;
	size_t i;
	int fd;

	memset(a, 0, sizeof(*a));
	snprintf(path, sizeof(path), "/proc/%ld/auxv", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return sp_error_sys(err, errno, "%s", path);
	n = read(fd, av, sizeof(av));
	close(fd);
	for (i = 0; n > 0 && i + 1 < (size_t)n / 8 && av[i] != AT_NULL;
	    i += 2) {
		if (av[i] == AT_ENTRY)
			a->entry = av[i + 1];
		else if (av[i] == AT_SECURE)
			a->secure = av[i + 1] != 0;
		else if (av[i] == AT_BASE)
			a->base = av[i + 1];
	}
	if (a->entry == 0)
		return sp_error_set(err, "%s: no AT_ENTRY", path);
	return 0;
}

