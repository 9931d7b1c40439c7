/* SPDX-License-Identifier: ISC */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixtures/expect.h"

void
problem(struct problems *p, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	char *t = realloc(p->text, p->len + (size_t)n + 4);
	if (t == NULL)
		abort();
	p->text = t;
	memcpy(p->text + p->len, "  ", 2);
	memcpy(p->text + p->len + 2, line, (size_t)n);
	p->len += (size_t)n + 2;
	p->text[p->len++] = '\n';
	p->text[p->len] = '\0';
	p->count++;
}

void
problems_free(struct problems *p)
{
	free(p->text);
	memset(p, 0, sizeof(*p));
}

const char *
how_str(int how)
{
	static const char *names[] = { "constant", "callers", "pin-section",
	    "export", "unresolved" };

	if (how == EXP_ANY)
		return "any";
	if (how < 0 || how > 4)
		return "?";
	return names[how];
}

static void
nrs_str(char *buf, size_t sz, const uint32_t *v, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len + 12 < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%s%u",
		    i ? "," : "", v[i]);
	if (n > 0 && len + 12 >= sz)
		snprintf(buf + len, sz - len, ",...");
}

static int
parse_records(struct expect *e, const uint8_t *d, size_t size,
    struct problems *p)
{
	size_t off = 0, cap = 0;

	while (off + 8 <= size) {
		uint32_t len;
		memcpy(&len, d + off, 4);
		if (len == 0) {		/* alignment padding */
			off += 4;
			continue;
		}
		if (len < 40 || len > size - off) {
			problem(p, "fixture: bad record at 0x%zx", off);
			return -1;
		}
		struct exp_rec r = { 0 };
		memcpy(&r.type, d + off + 4, 4);
		memcpy(&r.addr, d + off + 8, 8);
		memcpy(&r.how, d + off + 16, 4);
		memcpy(&r.flags, d + off + 20, 4);
		memcpy(&r.kind, d + off + 24, 4);
		memcpy(&r.reg, d + off + 28, 4);
		memcpy(&r.nnrs, d + off + 32, 4);
		size_t k = r.nnrs == EXP_ANY ? 0 : (size_t)r.nnrs;
		if (r.nnrs < 0 && r.nnrs != EXP_ANY)
			k = SIZE_MAX / 8;
		if (k > (len - 36) / 4 || 36 + 4 * k >= len) {
			problem(p, "fixture: bad number count at 0x%zx", off);
			return -1;
		}
		r.nrs = (const uint32_t *)(const void *)(d + off + 36);
		r.name = (const char *)(d + off + 36 + 4 * k);
		if (memchr(r.name, '\0', len - 36 - 4 * k) == NULL) {
			problem(p, "fixture: unterminated name at 0x%zx", off);
			return -1;
		}
		if (e->n == cap) {
			cap = cap ? 2 * cap : 32;
			e->v = realloc(e->v, cap * sizeof(*e->v));
			if (e->v == NULL)
				abort();
		}
		e->v[e->n++] = r;
		off += len;
	}
	return 0;
}

int
expect_load(const char *path, struct expect *e, struct problems *p)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, rc = -1;

	memset(e, 0, sizeof(*e));
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (fd = open(path, O_RDONLY)) < 0) {
		problem(p, "fixture %s: cannot open", path);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf == NULL || elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto out;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) == NULL)
			goto out;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name == NULL || strcmp(name, ".syspin.expect") != 0)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d == NULL || d->d_size == 0)
			goto out;
		e->raw = malloc(d->d_size);
		if (e->raw == NULL)
			abort();
		memcpy(e->raw, d->d_buf, d->d_size);
		rc = parse_records(e, e->raw, d->d_size, p);
		break;
	}
out:
	if (rc != 0 && p->count == 0)
		problem(p, "fixture %s: no .syspin.expect section", path);
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return rc;
}

void
expect_free(struct expect *e)
{
	free(e->v);
	free(e->raw);
	memset(e, 0, sizeof(*e));
}

static const struct sp_site *
find_site(const struct sp_scan *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->sites[mid].addr == addr)
			return &s->sites[mid];
		if (s->sites[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Innermost FDE, else function symbol, containing addr; 0 if none. */
static uint64_t
enclosing(const struct sp_elf *elf, uint64_t addr, int *is_fde)
{
	uint64_t best = 0, bestsz = UINT64_MAX;

	*is_fde = 0;
	for (size_t i = 0; i < elf->nfdes; i++) {
		const struct sp_symbol *f = &elf->fdes[i];
		if (addr >= f->addr && addr - f->addr < f->size &&
		    f->size < bestsz) {
			best = f->addr;
			bestsz = f->size;
			*is_fde = 1;
		}
	}
	if (*is_fde)
		return best;
	for (size_t i = 0; i < elf->nsyms; i++) {
		const struct sp_symbol *f = &elf->syms[i];
		if (addr >= f->addr && addr - f->addr < f->size &&
		    f->size < bestsz) {
			best = f->addr;
			bestsz = f->size;
		}
	}
	return best;
}

static int
nrs_equal(const struct sp_scan *s, const struct sp_site *site,
    const uint32_t *want, size_t n)
{
	if (site->nr_count != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (sp_site_nr(s, site, (uint32_t)i) != want[i])
			return 0;
	return 1;
}

static void
site_nrs_str(char *buf, size_t sz, const struct sp_scan *s,
    const struct sp_site *site)
{
	if ((uint64_t)site->nr_first + site->nr_count > s->nnrs) {
		snprintf(buf, sz, "<out of range>");
		return;
	}
	nrs_str(buf, sz, s->nrs + site->nr_first, site->nr_count);
}

static void
check_site(const struct sp_elf *elf, const struct sp_scan *s,
    const struct exp_rec *r, struct problems *p)
{
	const struct sp_site *site = find_site(s, r->addr);
	char want[256], got[256];
	uint64_t a = r->addr;
	int is_fde;

	nrs_str(want, sizeof(want), r->nrs, r->nnrs > 0 ? (size_t)r->nnrs : 0);
	if (site == NULL) {
		problem(p, "site 0x%llx: missing (want %s {%s})",
		    (unsigned long long)a, how_str(r->how), want);
		return;
	}
	site_nrs_str(got, sizeof(got), s, site);
	if (site->kind != r->kind)
		problem(p, "site 0x%llx: kind %u, want %u",
		    (unsigned long long)a, site->kind, r->kind);
	if (site->length != 2)
		problem(p, "site 0x%llx: length %u, want 2",
		    (unsigned long long)a, site->length);
	if (r->how != EXP_ANY && site->how != r->how)
		problem(p, "site 0x%llx: how %s {%s}%s%s%s, want %s {%s}",
		    (unsigned long long)a, how_str(site->how), got,
		    site->reason ? " (\"" : "",
		    site->reason ? site->reason : "",
		    site->reason ? "\")" : "", how_str(r->how), want);
	if (site->flags != r->flags)
		problem(p, "site 0x%llx: flags 0x%x, want 0x%x",
		    (unsigned long long)a, site->flags, r->flags);
	if (r->reg != EXP_ANY && site->param_reg != r->reg)
		problem(p, "site 0x%llx: param_reg %d, want %d",
		    (unsigned long long)a, site->param_reg, r->reg);
	if (r->how == HOW_UNRESOLVED) {
		if (r->nnrs == EXP_ANY && site->nr_count != 0)
			problem(p, "site 0x%llx: unresolved with numbers {%s}",
			    (unsigned long long)a, got);
		if (r->nnrs != EXP_ANY &&
		    !nrs_equal(s, site, r->nrs, (size_t)r->nnrs))
			problem(p, "site 0x%llx: unresolved, keeping {%s}, "
			    "want {%s}", (unsigned long long)a, got, want);
		if (site->how == HOW_UNRESOLVED && (site->reason == NULL ||
		    site->reason[0] == '\0'))
			problem(p, "site 0x%llx: unresolved without a reason",
			    (unsigned long long)a);
	} else if (r->nnrs != EXP_ANY &&
	    !nrs_equal(s, site, r->nrs, (size_t)r->nnrs)) {
		problem(p, "site 0x%llx: numbers {%s}, want {%s}",
		    (unsigned long long)a, got, want);
	}
	uint64_t fn = enclosing(elf, a, &is_fde);
	if (fn != 0 && site->function != fn)
		problem(p, "site 0x%llx: function 0x%llx, want 0x%llx (%s)",
		    (unsigned long long)a, (unsigned long long)site->function,
		    (unsigned long long)fn, is_fde ? "FDE" : "symbol");
}

static int
has_rec(const struct expect *e, uint32_t type, uint64_t addr,
    const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].type == type && (name ? strcmp(e->v[i].name,
		    name) == 0 : e->v[i].addr == addr))
			return 1;
	return 0;
}

static void
check_import(const struct sp_scan *s, const struct exp_rec *r,
    struct problems *p)
{
	const struct sp_import *im = NULL;
	char want[256], got[256];

	for (size_t i = 0; i < s->nimports; i++)
		if (strcmp(s->imports[i].symbol, r->name) == 0)
			im = &s->imports[i];
	nrs_str(want, sizeof(want), r->nrs, r->nnrs > 0 ? (size_t)r->nnrs : 0);
	if (im == NULL) {
		problem(p, "import %s: missing (want {%s}%s)", r->name, want,
		    r->flags ? " unresolved" : "");
		return;
	}
	if ((uint64_t)im->nr_first + im->nr_count > s->nnrs) {
		problem(p, "import %s: numbers out of range", r->name);
		return;
	}
	nrs_str(got, sizeof(got), s->nrs + im->nr_first, im->nr_count);
	if (im->unresolved != (r->flags != 0))
		problem(p, "import %s: unresolved=%d, want %d", r->name,
		    im->unresolved, r->flags != 0);
	if (r->reg != EXP_ANY && im->param_reg != r->reg)
		problem(p, "import %s: param_reg %d, want %d", r->name,
		    im->param_reg, r->reg);
	if (r->nnrs != EXP_ANY && (im->nr_count != (uint32_t)r->nnrs ||
	    memcmp(s->nrs + im->nr_first, r->nrs, 4 * (size_t)r->nnrs) != 0))
		problem(p, "import %s: numbers {%s}, want {%s}", r->name, got,
		    want);
}

static void
check_export(const struct sp_scan *s, const struct exp_rec *r,
    struct problems *p)
{
	for (size_t i = 0; i < s->nexports; i++) {
		const struct sp_export *x = &s->exports[i];
		if (strcmp(x->symbol, r->name) != 0)
			continue;
		if (x->addr != r->addr)
			problem(p, "export %s: addr 0x%llx, want 0x%llx",
			    r->name, (unsigned long long)x->addr,
			    (unsigned long long)r->addr);
		if (r->reg != EXP_ANY && x->param_reg != r->reg)
			problem(p, "export %s: param_reg %d, want %d", r->name,
			    x->param_reg, r->reg);
		return;
	}
	problem(p, "export %s: missing", r->name);
}

static int
is_gadget(const struct sp_scan *s, uint64_t addr)
{
	for (size_t i = 0; i < s->ngadgets; i++)
		if (s->gadgets[i] == addr)
			return 1;
	return 0;
}

/* Structural rules every scan must obey. */
static void
check_shape(const struct sp_scan *s, struct problems *p)
{
	for (size_t i = 0; i < s->nsites; i++) {
		const struct sp_site *site = &s->sites[i];
		if (i > 0 && s->sites[i - 1].addr >= site->addr)
			problem(p, "sites not sorted/unique at 0x%llx",
			    (unsigned long long)site->addr);
		if ((uint64_t)site->nr_first + site->nr_count > s->nnrs) {
			problem(p, "site 0x%llx: numbers out of range",
			    (unsigned long long)site->addr);
			continue;
		}
		for (uint32_t k = 1; k < site->nr_count; k++)
			if (sp_site_nr(s, site, k - 1) >= sp_site_nr(s, site, k))
				problem(p, "site 0x%llx: numbers not sorted "
				    "unique", (unsigned long long)site->addr);
		if (site->how > SP_HOW_UNRESOLVED)
			problem(p, "site 0x%llx: how %u out of range",
			    (unsigned long long)site->addr, site->how);
	}
}

void
check_expect(const struct sp_elf *elf, const struct sp_scan *s,
    const struct expect *e, struct problems *p)
{
	size_t nsite = 0, ngad = 0;
	char got[256];

	check_shape(s, p);
	for (size_t i = 0; i < e->n; i++) {
		const struct exp_rec *r = &e->v[i];
		switch (r->type) {
		case EXP_SITE:
			nsite++;
			check_site(elf, s, r, p);
			break;
		case EXP_GADGET:
			ngad++;
			if (!is_gadget(s, r->addr))
				problem(p, "gadget 0x%llx: missing",
				    (unsigned long long)r->addr);
			break;
		case EXP_IMPORT:
			check_import(s, r, p);
			break;
		case EXP_EXPORT:
			check_export(s, r, p);
			break;
		}
	}
	for (size_t i = 0; i < s->nsites; i++) {
		const struct sp_site *site = &s->sites[i];
		if (has_rec(e, EXP_SITE, site->addr, NULL))
			continue;
		site_nrs_str(got, sizeof(got), s, site);
		problem(p, "site 0x%llx: unexpected (%s {%s} flags 0x%x)",
		    (unsigned long long)site->addr, how_str(site->how), got,
		    site->flags);
	}
	for (size_t i = 0; i < s->ngadgets; i++)
		if (!has_rec(e, EXP_GADGET, s->gadgets[i], NULL))
			problem(p, "gadget 0x%llx: unexpected",
			    (unsigned long long)s->gadgets[i]);
	for (size_t i = 0; i < s->nimports; i++)
		if (!has_rec(e, EXP_IMPORT, 0, s->imports[i].symbol))
			problem(p, "import %s: unexpected",
			    s->imports[i].symbol);
	for (size_t i = 0; i < s->nexports; i++)
		if (!has_rec(e, EXP_EXPORT, 0, s->exports[i].symbol))
			problem(p, "export %s: unexpected",
			    s->exports[i].symbol);
	if (s->ngadgets != ngad)
		problem(p, "%zu gadgets, want %zu", s->ngadgets, ngad);
	size_t pairs = count_trap_pairs(elf);
	if (pairs != nsite + ngad)
		problem(p, "FIXTURE BUG: %zu trap byte pairs in code but %zu "
		    "sites + %zu gadgets declared", pairs, nsite, ngad);
}

size_t
count_trap_pairs(const struct sp_elf *elf)
{
	size_t n = 0;

	for (size_t i = 0; i < elf->nsegs; i++) {
		const struct sp_segment *seg = &elf->segs[i];
		const uint8_t *b = elf->data + seg->offset;
		if (!(seg->flags & PF_X))
			continue;
		for (uint64_t o = 0; o + 1 < seg->filesz; o++)
			if ((b[o] == 0x0f && (b[o + 1] == 0x05 ||
			    b[o + 1] == 0x34)) || (b[o] == 0xcd &&
			    b[o + 1] == 0x80))
				n++;
	}
	return n;
}

void
check_same(const char *what, const struct sp_elf *elf_a,
    const struct sp_scan *a, const struct sp_scan *b, int strict,
    struct problems *p)
{
	char ga[256], gb[256];
	int is_fde;

	check_shape(b, p);
	for (size_t i = 0; i < a->nsites; i++) {
		const struct sp_site *x = &a->sites[i];
		const struct sp_site *y = find_site(b, x->addr);
		if (y == NULL) {
			problem(p, "%s: site 0x%llx missing", what,
			    (unsigned long long)x->addr);
			continue;
		}
		enclosing(elf_a, x->addr, &is_fde);
		if (!strict && !is_fde)
			continue;
		site_nrs_str(ga, sizeof(ga), a, x);
		site_nrs_str(gb, sizeof(gb), b, y);
		if (x->how != y->how || x->flags != y->flags ||
		    x->kind != y->kind || x->length != y->length ||
		    x->function != y->function ||
		    x->param_reg != y->param_reg || strcmp(ga, gb) != 0)
			problem(p, "%s: site 0x%llx differs: %s {%s} flags 0x%x "
			    "fn 0x%llx reg %d vs %s {%s} flags 0x%x fn 0x%llx "
			    "reg %d", what, (unsigned long long)x->addr,
			    how_str(x->how), ga, x->flags,
			    (unsigned long long)x->function, x->param_reg,
			    how_str(y->how), gb, y->flags,
			    (unsigned long long)y->function, y->param_reg);
	}
	for (size_t i = 0; i < b->nsites; i++)
		if (find_site(a, b->sites[i].addr) == NULL)
			problem(p, "%s: extra site 0x%llx", what,
			    (unsigned long long)b->sites[i].addr);
	if (a->ngadgets != b->ngadgets)
		problem(p, "%s: %zu gadgets vs %zu", what, a->ngadgets,
		    b->ngadgets);
	for (size_t i = 0; i < a->ngadgets && a->ngadgets == b->ngadgets; i++)
		if (a->gadgets[i] != b->gadgets[i])
			problem(p, "%s: gadget %zu at 0x%llx vs 0x%llx", what, i,
			    (unsigned long long)a->gadgets[i],
			    (unsigned long long)b->gadgets[i]);
	if (a->nimports != b->nimports)
		problem(p, "%s: %zu imports vs %zu", what, a->nimports,
		    b->nimports);
	if (a->nexports != b->nexports)
		problem(p, "%s: %zu exports vs %zu", what, a->nexports,
		    b->nexports);
	for (size_t i = 0; i < a->nimports && i < b->nimports; i++) {
		const struct sp_import *x = &a->imports[i], *y = &b->imports[i];
		if ((uint64_t)x->nr_first + x->nr_count > a->nnrs ||
		    (uint64_t)y->nr_first + y->nr_count > b->nnrs) {
			problem(p, "%s: import numbers out of range", what);
			continue;
		}
		if (strcmp(x->symbol, y->symbol) != 0 ||
		    x->param_reg != y->param_reg ||
		    x->unresolved != y->unresolved ||
		    x->nr_count != y->nr_count ||
		    memcmp(a->nrs + x->nr_first, b->nrs + y->nr_first,
		    4 * (size_t)x->nr_count) != 0)
			problem(p, "%s: import %s differs", what, x->symbol);
	}
	for (size_t i = 0; i < a->nexports && i < b->nexports; i++) {
		const struct sp_export *x = &a->exports[i], *y = &b->exports[i];
		if (strcmp(x->symbol, y->symbol) != 0 || x->addr != y->addr ||
		    x->param_reg != y->param_reg)
			problem(p, "%s: export %s differs", what, x->symbol);
	}
}
