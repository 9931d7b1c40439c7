/* SPDX-License-Identifier: ISC */
/*
 * The dynamic facts of one ELF file, with pread: see <syspin/dynamic.h>.
 *
 * ld.so takes the last PT_DYNAMIC and the last DT_STRTAB it sees; so do we.
 * Several DT_RPATH or DT_RUNPATH entries are joined (ld.so keeps the last
 * one): the resolver wants a superset of the directories.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/dynamic.h"

#define DYN_CHUNK 256		/* entries read per pread */

/* The file: a descriptor, or bytes in memory. */
struct src {
	int fd;
	const uint8_t *mem;
	uint64_t size;
};

/* Where a vaddr lands: file offset, bytes of file and of memory behind it. */
struct where {
	uint64_t off;
	uint64_t filebytes;
	uint64_t membytes;
};

/* String offsets gathered from the dynamic section, resolved afterwards. */
struct strs {
	uint64_t strtab;
	bool has_strtab;
	uint64_t needed[SP_DYN_MAX_NEEDED];
	size_t nneeded;
	uint64_t filters[SP_DYN_MAX_NEEDED];
	size_t nfilters;
	uint64_t soname;
	bool has_soname;
	uint64_t *paths[2];	/* DT_RPATH, DT_RUNPATH offsets */
	size_t npaths[2];
};

static int
src_read(const struct src *s, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	if (off > s->size || len > s->size - off)
		return -1;
	if (s->mem != NULL) {
		memcpy(buf, s->mem + off, len);
		return 0;
	}
	while (len > 0) {
		n = pread(s->fd, p, len, off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;	/* the file shrank under us */
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int
check_ehdr(const Elf64_Ehdr *eh, struct sp_error *err)
{
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64)
		return sp_error_set(err, "not an x86-64 ELF file");
	if (eh->e_ident[EI_VERSION] != EV_CURRENT)
		return sp_error_set(err, "unknown ELF version");
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return sp_error_set(err, "neither an executable nor a shared "
		    "object");
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return sp_error_set(err, "bad program header size");
	if (eh->e_phnum == 0 || eh->e_phnum > SP_DYN_MAX_PHDRS)
		return sp_error_set(err, "bad program header count %u",
		    eh->e_phnum);
	return 0;
}

static int
read_phdrs(const struct src *s, Elf64_Ehdr *eh, Elf64_Phdr **ph,
    size_t *nph, struct sp_error *err)
{
	size_t len;

	memset(eh, 0, sizeof(*eh));
	if (src_read(s, 0, eh, s->size < sizeof(*eh) ? s->size :
	    sizeof(*eh)) == -1)
		return sp_error_set(err, "read error");
	if (s->size < SELFMAG || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return sp_error_set(err, "not an ELF file");
	if (s->size < sizeof(*eh))
		return sp_error_set(err, "truncated ELF header");
	if (check_ehdr(eh, err) == -1)
		return -1;
	len = (size_t)eh->e_phnum * sizeof(Elf64_Phdr);
	if ((*ph = malloc(len)) == NULL)
		return sp_error_set(err, "out of memory");
	if (src_read(s, eh->e_phoff, *ph, len) == -1) {
		free(*ph);
		*ph = NULL;
		return sp_error_set(err, "truncated program header table");
	}
	*nph = eh->e_phnum;
	return 0;
}

/* PT_LOAD extent and alignment, as ld.so reserves them. */
static int
load_span(const Elf64_Phdr *ph, size_t nph, struct sp_dyn *d,
    struct sp_error *err)
{
	uint64_t lo = UINT64_MAX, hi = 0, end;
	size_t i;

	d->align = SP_DYN_PAGE;
	for (i = 0; i < nph; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_filesz > ph[i].p_memsz ||
		    ph[i].p_vaddr > UINT64_MAX - ph[i].p_memsz ||
		    ph[i].p_vaddr + ph[i].p_memsz > UINT64_MAX - SP_DYN_PAGE)
			return sp_error_set(err, "bad PT_LOAD");
		end = ph[i].p_vaddr + ph[i].p_memsz;
		if (ph[i].p_vaddr < lo)
			lo = ph[i].p_vaddr;
		if (end > hi)
			hi = end;
		if (ph[i].p_align > d->align)
			d->align = ph[i].p_align;
	}
	if (lo == UINT64_MAX)
		return sp_error_set(err, "no PT_LOAD");
	d->lo = lo & ~(uint64_t)(SP_DYN_PAGE - 1);
	d->span = ((hi + SP_DYN_PAGE - 1) & ~(uint64_t)(SP_DYN_PAGE - 1)) -
	    d->lo;
	return 0;
}

/* The kernel reads PT_INTERP from the file; it must end in a NUL. */
static int
read_interp(const struct src *s, const Elf64_Phdr *ph, struct sp_dyn *d,
    struct sp_error *err)
{
	char buf[SP_DYN_MAX_STRING];

	if (ph->p_filesz < 2 || ph->p_filesz > sizeof(buf) ||
	    src_read(s, ph->p_offset, buf, ph->p_filesz) == -1 ||
	    buf[ph->p_filesz - 1] != '\0')
		return sp_error_set(err, "truncated or invalid PT_INTERP");
	if ((d->interp = strdup(buf)) == NULL)
		return sp_error_set(err, "out of memory");
	return 0;
}

/* Finds the PT_LOAD holding vaddr v; -1 when none does. */
static int
translate(const Elf64_Phdr *ph, size_t nph, uint64_t v, struct where *w)
{
	uint64_t rel;
	size_t i;

	for (i = 0; i < nph; i++) {
		if (ph[i].p_type != PT_LOAD || v < ph[i].p_vaddr ||
		    v - ph[i].p_vaddr >= ph[i].p_memsz)
			continue;
		rel = v - ph[i].p_vaddr;
		if (ph[i].p_offset > UINT64_MAX - rel)
			return -1;
		w->off = ph[i].p_offset + rel;
		w->filebytes = rel < ph[i].p_filesz ? ph[i].p_filesz - rel : 0;
		w->membytes = ph[i].p_memsz - rel;
		return 0;
	}
	return -1;
}

static int
add_off(uint64_t **v, size_t *n, uint64_t off)
{
	uint64_t *nv;

	if (*n >= SP_DYN_MAX_NEEDED)
		return -1;
	if ((nv = realloc(*v, (*n + 1) * sizeof(**v))) == NULL)
		return -1;
	nv[(*n)++] = off;
	*v = nv;
	return 0;
}

/* Notes one entry; -1 on a cap or allocation failure. */
static int
note_entry(const Elf64_Dyn *e, struct sp_dyn *d, struct strs *st,
    struct sp_error *err)
{
	switch (e->d_tag) {
	case DT_NEEDED:
		if (st->nneeded >= SP_DYN_MAX_NEEDED)
			return sp_error_set(err, "more than %u DT_NEEDED",
			    SP_DYN_MAX_NEEDED);
		st->needed[st->nneeded++] = e->d_un.d_val;
		break;
	case DT_FILTER:
	case DT_AUXILIARY:
		if (st->nfilters >= SP_DYN_MAX_NEEDED)
			return sp_error_set(err, "more than %u filters",
			    SP_DYN_MAX_NEEDED);
		st->filters[st->nfilters++] = e->d_un.d_val;
		break;
	case DT_STRTAB:
		st->strtab = e->d_un.d_ptr;
		st->has_strtab = true;
		break;
	case DT_SONAME:
		st->soname = e->d_un.d_val;
		st->has_soname = true;
		break;
	case DT_RPATH:
	case DT_RUNPATH:
		if (add_off(&st->paths[e->d_tag == DT_RUNPATH],
		    &st->npaths[e->d_tag == DT_RUNPATH], e->d_un.d_val) == -1)
			return sp_error_set(err, "too many search paths");
		break;
	case DT_FLAGS_1:
		d->flags_1 = e->d_un.d_val;
		break;
	case DT_AUDIT:
	case DT_DEPAUDIT:
		d->audit = true;
		break;
	}
	return 0;
}

/*
 * Walks the dynamic section up to DT_NULL.  Bytes past the file part of
 * the segment are zeros in memory: an implicit DT_NULL.
 */
static int
walk_dynamic(const struct src *s, const Elf64_Phdr *ph, size_t nph,
    const Elf64_Phdr *dyn, struct sp_dyn *d, struct strs *st,
    struct sp_error *err)
{
	Elf64_Dyn buf[DYN_CHUNK];
	struct where w;
	uint64_t n, filen, i, k, chunk;

	if (translate(ph, nph, dyn->p_vaddr, &w) == -1)
		return sp_error_set(err, "dynamic section outside the "
		    "loaded segments");
	n = w.membytes / sizeof(Elf64_Dyn);
	filen = w.filebytes / sizeof(Elf64_Dyn);
	for (i = 0; i < n && i < SP_DYN_MAX_ENTRIES; i += chunk) {
		if (i >= filen)
			return 0;
		chunk = filen - i < DYN_CHUNK ? filen - i : DYN_CHUNK;
		if (src_read(s, w.off + i * sizeof(Elf64_Dyn), buf,
		    chunk * sizeof(Elf64_Dyn)) == -1)
			return sp_error_set(err, "dynamic section extends "
			    "past the end of the file");
		for (k = 0; k < chunk; k++) {
			if (buf[k].d_tag == DT_NULL)
				return 0;
			if (note_entry(&buf[k], d, st, err) == -1)
				return -1;
		}
	}
	if (i >= SP_DYN_MAX_ENTRIES)
		return sp_error_set(err, "more than %u dynamic entries",
		    SP_DYN_MAX_ENTRIES);
	return sp_error_set(err, "dynamic section without DT_NULL");
}

/* Reads the string at strtab + off; bss zeros end it too. */
static int
read_string(const struct src *s, const Elf64_Phdr *ph, size_t nph,
    const struct strs *st, uint64_t off, char **out, struct sp_error *err)
{
	char buf[SP_DYN_MAX_STRING];
	struct where w;
	uint64_t len;
	char *nul;

	if (!st->has_strtab)
		return sp_error_set(err, "dynamic strings without DT_STRTAB");
	if (st->strtab > UINT64_MAX - off ||
	    translate(ph, nph, st->strtab + off, &w) == -1)
		return sp_error_set(err, "dynamic string outside the loaded "
		    "segments");
	len = w.filebytes < sizeof(buf) ? w.filebytes : sizeof(buf);
	if (src_read(s, w.off, buf, len) == -1)
		return sp_error_set(err, "dynamic string extends past the "
		    "end of the file");
	if ((nul = memchr(buf, '\0', len)) == NULL) {
		if (len == sizeof(buf) || w.membytes == w.filebytes)
			return sp_error_set(err, "dynamic string too long or "
			    "unterminated");
		buf[len] = '\0';
	}
	if ((*out = strdup(buf)) == NULL)
		return sp_error_set(err, "out of memory");
	return 0;
}

static int
read_list(const struct src *s, const Elf64_Phdr *ph, size_t nph,
    const struct strs *st, const uint64_t *offs, size_t n, char ***out,
    size_t *nout, struct sp_error *err)
{
	size_t i;

	if (n == 0)
		return 0;
	if ((*out = calloc(n, sizeof(**out))) == NULL)
		return sp_error_set(err, "out of memory");
	for (i = 0; i < n; i++) {
		if (read_string(s, ph, nph, st, offs[i], &(*out)[i], err) == -1)
			return -1;
		*nout = i + 1;
	}
	return 0;
}

/* Joins several DT_RPATH (or DT_RUNPATH) strings with ':'. */
static int
read_path(const struct src *s, const Elf64_Phdr *ph, size_t nph,
    const struct strs *st, int which, char **out, struct sp_error *err)
{
	size_t i, len = 0, l;
	char *one, *p;

	for (i = 0; i < st->npaths[which]; i++) {
		if (read_string(s, ph, nph, st, st->paths[which][i], &one,
		    err) == -1)
			return -1;
		l = strlen(one);
		if ((p = realloc(*out, len + l + 2)) == NULL) {
			free(one);
			return sp_error_set(err, "out of memory");
		}
		*out = p;
		if (len > 0)
			p[len++] = ':';
		memcpy(p + len, one, l + 1);
		len += l;
		free(one);
	}
	return 0;
}

static int
read_strings(const struct src *s, const Elf64_Phdr *ph, size_t nph,
    const struct strs *st, struct sp_dyn *d, struct sp_error *err)
{
	if (read_list(s, ph, nph, st, st->needed, st->nneeded, &d->needed,
	    &d->nneeded, err) == -1 ||
	    read_list(s, ph, nph, st, st->filters, st->nfilters, &d->filters,
	    &d->nfilters, err) == -1)
		return -1;
	if (st->has_soname && read_string(s, ph, nph, st, st->soname,
	    &d->soname, err) == -1)
		return -1;
	if (read_path(s, ph, nph, st, 0, &d->rpath, err) == -1 ||
	    read_path(s, ph, nph, st, 1, &d->runpath, err) == -1)
		return -1;
	return 0;
}

static int
read_dynamic(const struct src *s, const Elf64_Phdr *ph, size_t nph,
    const Elf64_Phdr *dyn, struct sp_dyn *d, struct sp_error *err)
{
	struct strs *st;
	int rc;

	if ((st = calloc(1, sizeof(*st))) == NULL)
		return sp_error_set(err, "out of memory");
	rc = walk_dynamic(s, ph, nph, dyn, d, st, err);
	if (rc == 0)
		rc = read_strings(s, ph, nph, st, d, err);
	free(st->paths[0]);
	free(st->paths[1]);
	free(st);
	return rc;
}

static int
read_src(const struct src *s, struct sp_dyn *d, struct sp_error *err)
{
	const Elf64_Phdr *dyn = NULL, *interp = NULL;
	Elf64_Phdr *ph = NULL;
	Elf64_Ehdr eh;
	size_t nph = 0, i;
	int rc = -1;

	memset(d, 0, sizeof(*d));
	if (read_phdrs(s, &eh, &ph, &nph, err) == -1)
		return -1;
	d->type = eh.e_type;
	d->entry = eh.e_entry;
	for (i = 0; i < nph; i++) {
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = &ph[i];
		else if (ph[i].p_type == PT_INTERP && interp == NULL)
			interp = &ph[i];
	}
	if (load_span(ph, nph, d, err) == -1 ||
	    (interp != NULL && read_interp(s, interp, d, err) == -1))
		goto out;
	d->dynamic = dyn != NULL;
	if (dyn != NULL && read_dynamic(s, ph, nph, dyn, d, err) == -1)
		goto out;
	rc = 0;
out:
	free(ph);
	if (rc == -1)
		sp_dyn_free(d);
	return rc;
}

int
sp_dyn_read_fd(int fd, struct sp_dyn *d, struct sp_error *err)
{
	struct src s = { .fd = fd };
	struct stat st;

	memset(d, 0, sizeof(*d));
	if (fstat(fd, &st) == -1)
		return sp_error_sys(err, errno, NULL);
	if (!S_ISREG(st.st_mode))
		return sp_error_set(err, "not a regular file");
	s.size = st.st_size;
	return read_src(&s, d, err);
}

int
sp_dyn_read(const char *path, struct sp_dyn *d, struct sp_error *err)
{
	int fd, rc;

	memset(d, 0, sizeof(*d));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return sp_error_sys(err, errno, NULL);
	rc = sp_dyn_read_fd(fd, d, err);
	close(fd);
	return rc;
}

int
sp_dyn_from_memory(const void *data, size_t size, struct sp_dyn *d,
    struct sp_error *err)
{
	struct src s = { .fd = -1, .mem = data, .size = size };

	return read_src(&s, d, err);
}

static void
free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int
copy_str(char **to, const char *from)
{
	*to = NULL;
	return from == NULL || (*to = strdup(from)) != NULL ? 0 : -1;
}

/* n strings copied into a new array *to (NULL when n is 0); on failure
 * what was copied is freed. */
static int
copy_list(char ***to, char *const *from, size_t n)
{
	*to = NULL;
	if (n == 0)
		return 0;
	if ((*to = calloc(n, sizeof(**to))) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (copy_str(&(*to)[i], from[i]) == -1) {
			free_list(*to, i);
			*to = NULL;
			return -1;
		}
	return 0;
}

int
sp_dyn_copy(struct sp_dyn *to, const struct sp_dyn *from)
{
	*to = *from;
	to->needed = to->filters = NULL;
	to->nneeded = to->nfilters = 0;		/* counted once copied */
	to->interp = to->soname = to->rpath = to->runpath = NULL;
	if (copy_list(&to->needed, from->needed, from->nneeded) == -1)
		goto fail;
	to->nneeded = from->nneeded;
	if (copy_list(&to->filters, from->filters, from->nfilters) == -1)
		goto fail;
	to->nfilters = from->nfilters;
	if (copy_str(&to->interp, from->interp) == -1 ||
	    copy_str(&to->soname, from->soname) == -1 ||
	    copy_str(&to->rpath, from->rpath) == -1 ||
	    copy_str(&to->runpath, from->runpath) == -1)
		goto fail;
	return 0;
fail:
	sp_dyn_free(to);
	return -1;
}

void
sp_dyn_free(struct sp_dyn *d)
{
	free(d->interp);
	free_list(d->needed, d->nneeded);
	free_list(d->filters, d->nfilters);
	free(d->soname);
	free(d->rpath);
	free(d->runpath);
	memset(d, 0, sizeof(*d));
}
