/* SPDX-License-Identifier: ISC */
/*
 * usage: reach_late_main LIB... [--call NAME]
 * dlopen()s each LIB in turn and calls its late_entry(): a library calls
 * what nothing in this program reaches (late_lib.c: getppid; late_lib2.c:
 * getsid), so reachable-only pins drop those libc sites at start-up, and
 * the supervisor must allow each call once its library is loaded
 * (lib/supervise/reach_late.c), also after an earlier library's call made
 * the closure.  --call NAME then calls libc's NAME through its address,
 * found in libc's symbol table (no dlsym, no reference to NAME): the jump
 * a chain would make; allowed only when a loaded library imports NAME.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

struct find {
	const char *name;
	long (*fn)(void);
};

/* A defined function of libc's dynamic symbol table (.dynsym lies right
 * before .dynstr, as GNU ld lays them out). */
static int
in_libc(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct find *f = ctx;

	(void)size;
	if (strstr(info->dlpi_name, "/libc.so") == NULL)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const ElfW(Dyn) *d;
		uintptr_t sym = 0, str = 0;
		if (ph->p_type != PT_DYNAMIC)
			continue;
		d = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
		for (; d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_SYMTAB)
				sym = d->d_un.d_ptr;
			else if (d->d_tag == DT_STRTAB)
				str = d->d_un.d_ptr;
		if (sym < info->dlpi_addr)	/* not relocated by ld.so */
			sym += info->dlpi_addr;
		if (str < info->dlpi_addr)
			str += info->dlpi_addr;
		for (const ElfW(Sym) *s = (const ElfW(Sym) *)sym;
		    (uintptr_t)(s + 1) <= str; s++)
			if (ELF64_ST_TYPE(s->st_info) == STT_FUNC &&
			    s->st_shndx != SHN_UNDEF && s->st_name != 0 &&
			    strcmp((const char *)str + s->st_name, f->name) ==
			    0) {
				f->fn = (long (*)(void))(info->dlpi_addr +
				    s->st_value);
				return 1;
			}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct find f = { NULL, NULL };
	void *h;
	long (*entry)(void);
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--call") != 0; i++)
		if ((h = dlopen(argv[i], RTLD_NOW)) == NULL ||
		    (entry = (long (*)(void))dlsym(h, "late_entry")) ==
		    NULL || entry() <= 0)
			return 2;
	if (i == argc)
		return 0;
	if (i + 2 != argc)
		return 2;
	f.name = argv[i + 1];
	if (dl_iterate_phdr(in_libc, &f) != 1 || f.fn == NULL) {
		fprintf(stderr, "reach_late_main: %s not found in libc\n",
		    f.name);
		return 3;
	}
	return f.fn() > 0 ? 0 : 1;
}
