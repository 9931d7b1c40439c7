/* SPDX-License-Identifier: ISC */
/*
 * Whether the program a process runs is a dynamic loader run by name
 * (`ld.so PROG`, as ldd does): no interpreter maps objects for it, it
 * maps them itself, PROG included.  Read from the file's headers alone:
 * it is asked at every exec of a program without an interpreter (static
 * ones too, some of them large), where a whole sp_elf_open would cost.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf.h"

#define MAX_PHDRS 128
#define MAX_DYN 1024

static int
read_all(int fd, void *buf, size_t len, uint64_t off, struct sp_error *err)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	if (n == -1)
		return sp_error_sys(err, errno, "pread");
	if ((size_t)n != len)
		return sp_error_set(err, "short ELF file");
	return 0;
}

/* DF_1_PIE in the dynamic segment ph: a static PIE, which loads nothing. */
static int
is_pie(int fd, const Elf64_Phdr *ph, struct sp_error *err)
{
	Elf64_Dyn d[64];
	uint64_t n = ph->p_filesz / sizeof(Elf64_Dyn);

	if (n > MAX_DYN)
		n = MAX_DYN;
	for (uint64_t i = 0; i < n; i += 64) {
		size_t k = n - i < 64 ? (size_t)(n - i) : 64;
		if (read_all(fd, d, k * sizeof(*d), ph->p_offset +
		    i * sizeof(*d), err) == -1)
			return -1;
		for (size_t j = 0; j < k; j++) {
			if (d[j].d_tag == DT_NULL)
				return 0;
			if (d[j].d_tag == DT_FLAGS_1)
				return (d[j].d_un.d_val & DF_1_PIE) != 0;
		}
	}
	return 0;
}

/*
 * A shared object run as a program: ET_DYN, a PT_DYNAMIC, no PT_INTERP
 * (then the kernel maps no loader: AT_BASE is 0) and no DF_1_PIE.
 */
int
sp_elf_fd_is_loader(int fd, struct sp_error *err)
{
	Elf64_Phdr ph[MAX_PHDRS];
	const Elf64_Phdr *dyn = NULL;
	Elf64_Ehdr eh;

	if (read_all(fd, &eh, sizeof(eh), 0, err) == -1)
		return -1;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_DYN ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
	    eh.e_phnum > MAX_PHDRS)
		return 0;
	if (read_all(fd, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff, err) ==
	    -1)
		return -1;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP)
			return 0;
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = &ph[i];
	}
	if (dyn == NULL)
		return 0;
	switch (is_pie(fd, dyn, err)) {
	case -1:
		return -1;
	case 1:
		return 0;
	default:
		return 1;
	}
}
