/* SPDX-License-Identifier: ISC */
/*
 * Objects the program will dlopen after the filter is installed
 * (`syspin run --dlopen FILE`).  Their own code is outside the pinned
 * ranges (allowed, see lib/bpf), but their calls through libc's syscall()
 * land on libc's export site, which only allows the numbers the objects
 * present at start-up pass (place.c, pin_importers).  A JVM's libjvm.so,
 * dlopen'ed by libjli.so, calls syscall(SYS_gettid) and syscall(SYS_futex):
 * named here, the object joins the layout with its table and no ranges, so
 * the union includes exactly what it passes, and nothing else changes.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pins/cache.h"
#include "layout/layout.h"

/* The GNU build-id of an ELF file mapped read-only, from its PT_NOTEs at
 * their file offsets; 0 when there is none or the file is malformed. */
static size_t
file_build_id(const uint8_t *f, size_t size, uint8_t *out, size_t max)
{
	const ElfW(Ehdr) *eh = (const void *)f;
	size_t i, off;

	if (size < sizeof(*eh) || memcmp(f, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phoff > size ||
	    (size - eh->e_phoff) / sizeof(ElfW(Phdr)) < eh->e_phnum)
		return 0;
	for (i = 0; i < eh->e_phnum; i++) {
		ElfW(Phdr) ph;
		memcpy(&ph, f + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > size ||
		    ph.p_filesz > size - ph.p_offset)
			continue;
		for (off = 0; off + 12 <= ph.p_filesz;) {
			ElfW(Nhdr) nh;
			size_t nsz, dsz;
			memcpy(&nh, f + ph.p_offset + off, sizeof(nh));
			nsz = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
			dsz = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
			if (nsz + dsz > ph.p_filesz - off - 12)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    nh.n_descsz <= max && memcmp(f + ph.p_offset +
			    off + 12, "GNU", 4) == 0) {
				memcpy(out, f + ph.p_offset + off + 12 + nsz,
				    nh.n_descsz);
				return nh.n_descsz;
			}
			off += 12 + nsz + dsz;
		}
	}
	return 0;
}

int
sp_layout_add_later(struct sp_layout *lo, const char *path,
    struct sp_error *err)
{
	struct sp_file_id id;
	struct stat st;
	void *map;
	size_t i;
	long oi;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return sp_error_sys(err, errno, "%s", path);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return sp_error_set(err, "%s: not an ELF object", path);
	}
	sp_file_id_from_stat(&id, &st);
	/* Mapped already (a DT_NEEDED object): its imports count anyway. */
	for (i = 0; i < lo->nobjs; i++)
		if (lo->objs[i].have_id && memcmp(&lo->objs[i].id, &id,
		    sizeof(id)) == 0) {
			close(fd);
			return 0;
		}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return sp_error_sys(err, errno, "%s", path);
	if ((oi = sp_layout_add_object(lo, path, SP_OBJ_FILE, 0)) == -1) {
		munmap(map, st.st_size);
		return sp_error_set(err, "out of memory");
	}
	/* The table is believed only for this file and build-id (place.c,
	 * check_table), as for a mapped object. */
	lo->objs[oi].id = id;
	lo->objs[oi].have_id = true;
	sp_cache_key_file(&id, lo->objs[oi].key, sizeof(lo->objs[oi].key));
	lo->objs[oi].build_id_len = file_build_id(map, st.st_size,
	    lo->objs[oi].build_id, sizeof(lo->objs[oi].build_id));
	munmap(map, st.st_size);
	return 0;
}
