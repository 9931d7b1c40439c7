/* SPDX-License-Identifier: ISC */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "mkelf.h"

struct strtab {
	char *buf;
	size_t len;
};

static size_t
add_str(struct strtab *t, const char *s)
{
	size_t off = t->len, l = strlen(s) + 1;

	t->buf = realloc(t->buf, t->len + l);
	if (t->buf == NULL)
		abort();
	memcpy(t->buf + t->len, s, l);
	t->len += l;
	return off;
}

static void
put(Elf64_Dyn *d, size_t *n, int64_t tag, uint64_t val)
{
	d[*n].d_tag = tag;
	d[*n].d_un.d_val = val;
	(*n)++;
}

/* The dynamic entries, string offsets filled in; strtab's vaddr last. */
static Elf64_Dyn *
entries(const struct mkelf_spec *s, struct strtab *t, size_t *n)
{
	size_t cap = s->nneeded + s->repeat + s->filler + 16, i, first = 0;
	Elf64_Dyn *d = calloc(cap, sizeof(*d));

	if (d == NULL)
		abort();
	*n = 0;
	add_str(t, "");
	for (i = 0; i < s->filler; i++)
		put(d, n, DT_DEBUG, 0);
	for (i = 0; i < s->nneeded; i++) {
		size_t off = add_str(t, s->needed[i]);
		if (i == 0)
			first = off;
		put(d, n, DT_NEEDED, off);
	}
	for (i = 0; i < s->repeat; i++)
		put(d, n, DT_NEEDED, first);
	if (s->soname != NULL)
		put(d, n, DT_SONAME, add_str(t, s->soname));
	if (s->rpath != NULL)
		put(d, n, DT_RPATH, add_str(t, s->rpath));
	if (s->runpath != NULL)
		put(d, n, DT_RUNPATH, add_str(t, s->runpath));
	if (s->filter != NULL)
		put(d, n, DT_FILTER, add_str(t, s->filter));
	if (s->flags_1 != 0)
		put(d, n, DT_FLAGS_1, s->flags_1);
	if (s->audit)
		put(d, n, DT_AUDIT, add_str(t, "libaudit.so"));
	put(d, n, DT_STRTAB, 0);
	put(d, n, DT_STRSZ, t->len);
	if (!s->no_null)
		put(d, n, DT_NULL, 0);
	return d;
}

void
mkelf(const struct mkelf_spec *s, struct mkelf *m)
{
	struct strtab t = { 0 };
	size_t n, ilen = s->interp ? strlen(s->interp) + 1 : 0, interp;
	Elf64_Dyn *d = entries(s, &t, &n);
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[3] = { { 0 } };

	memset(m, 0, sizeof(*m));
	m->phoff = sizeof(eh);
	interp = m->phoff + sizeof(ph);
	m->strtab = interp + ilen;
	m->dynamic = (m->strtab + t.len + 7) & ~(size_t)7;
	m->ndyn = n;
	m->size = m->dynamic + n * sizeof(*d);
	if ((m->buf = calloc(1, m->size)) == NULL)
		abort();
	for (size_t i = 0; i < n; i++)
		if (d[i].d_tag == DT_STRTAB)
			d[i].d_un.d_ptr = m->strtab;
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = s->type != 0 ? s->type : ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = m->phoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = s->interp ? 3 : 2;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R,
	    .p_filesz = m->size, .p_memsz = m->size, .p_align = 0x1000 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_DYNAMIC, .p_flags = PF_R,
	    .p_offset = m->dynamic, .p_vaddr = m->dynamic,
	    .p_filesz = n * sizeof(*d), .p_memsz = n * sizeof(*d),
	    .p_align = 8 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_INTERP, .p_flags = PF_R,
	    .p_offset = interp, .p_vaddr = interp, .p_filesz = ilen,
	    .p_memsz = ilen, .p_align = 1 };
	memcpy(m->buf, &eh, sizeof(eh));
	memcpy(m->buf + m->phoff, ph, sizeof(ph));
	if (ilen > 0)
		memcpy(m->buf + interp, s->interp, ilen);
	memcpy(m->buf + m->strtab, t.buf, t.len);
	memcpy(m->buf + m->dynamic, d, n * sizeof(*d));
	free(t.buf);
	free(d);
}
