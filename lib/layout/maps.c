/* SPDX-License-Identifier: ISC */
/*
 * /proc/PID/maps parser.  Format (fs/proc/task_mmu.c show_map_vma):
 *   start-end perms offset major:minor inode<padding>path
 * with hex addresses/offset/device, a decimal inode, and a path that may
 * contain spaces and end in " (deleted)".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "layout/layout.h"
#include "layout/procfs.h"

#define DELETED " (deleted)"

/* Parses an unsigned number in base; advances *p.  -1 when none. */
static int
number(const char **p, const char *end, int base, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int d;

	for (; s < end; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			break;
		if (x > (UINT64_MAX - d) / base)
			return -1;
		x = x * base + d;
	}
	if (s == *p)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

static int
expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -1;
	(*p)++;
	return 0;
}

static int
perms(const char **p, const char *end, struct sp_map *m)
{
	const char *s = *p;

	if (end - s < 4)
		return -1;
	if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 'p' && s[3] != 's'))
		return -1;
	m->prot = (s[0] == 'r' ? PROT_READ : 0) |
	    (s[1] == 'w' ? PROT_WRITE : 0) | (s[2] == 'x' ? PROT_EXEC : 0);
	m->shared = s[3] == 's';
	*p = s + 4;
	return 0;
}

static enum sp_map_kind
kind_of(const char *path)
{
	if (path[0] == '\0')
		return SP_MAP_ANON;
	if (strcmp(path, "[vdso]") == 0)
		return SP_MAP_VDSO;
	if (strcmp(path, "[vsyscall]") == 0)
		return SP_MAP_VSYSCALL;
	if (path[0] == '/')
		return SP_MAP_FILE;
	return SP_MAP_SPECIAL;
}

static int
set_path(struct sp_map *m, const char *s, const char *end)
{
	size_t n = end - s, dl = sizeof(DELETED) - 1;

	m->deleted = false;
	if (n > dl && s[0] == '/' && memcmp(end - dl, DELETED, dl) == 0) {
		m->deleted = true;
		n -= dl;
	}
	if ((m->path = malloc(n + 1)) == NULL)
		return -1;
	memcpy(m->path, s, n);
	m->path[n] = '\0';
	m->kind = kind_of(m->path);
	return 0;
}

int
sp_maps_parse_line(const char *line, size_t len, struct sp_map *m,
    struct sp_error *err)
{
	const char *p = line, *end = line + len;
	uint64_t major, minor;

	memset(m, 0, sizeof(*m));
	if (number(&p, end, 16, &m->start) == -1 || expect(&p, end, '-') ||
	    number(&p, end, 16, &m->end) == -1 || expect(&p, end, ' ') ||
	    perms(&p, end, m) == -1 || expect(&p, end, ' ') ||
	    number(&p, end, 16, &m->offset) == -1 || expect(&p, end, ' ') ||
	    number(&p, end, 16, &major) == -1 || expect(&p, end, ':') ||
	    number(&p, end, 16, &minor) == -1 || expect(&p, end, ' ') ||
	    number(&p, end, 10, &m->inode) == -1 || m->end < m->start ||
	    major > 0xfffff || minor > 0xfffff)
		return sp_error_set(err, "bad maps line: %.*s", (int)len, line);
	m->dev = makedev(major, minor);
	if (p < end && *p != ' ')
		return sp_error_set(err, "bad maps line: %.*s", (int)len, line);
	while (p < end && *p == ' ')
		p++;
	if (set_path(m, p, end) == -1)
		return sp_error_set(err, "out of memory");
	return 0;
}

int
sp_maps_parse(const char *text, size_t len, struct sp_map **maps,
    size_t *nmaps, struct sp_error *err)
{
	const char *p = text, *end = text + len, *nl;
	struct sp_map *v = NULL, *nv;
	size_t n = 0, cap = 0;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (nl == p)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				goto oom;
			v = nv;
		}
		if (sp_maps_parse_line(p, nl - p, &v[n], err) == -1) {
			sp_maps_free(v, n);
			return -1;
		}
		n++;
	}
	*maps = v;
	*nmaps = n;
	return 0;
oom:
	sp_maps_free(v, n);
	return sp_error_set(err, "out of memory");
}

int
sp_maps_read(const char *file, struct sp_map **maps, size_t *nmaps,
    struct sp_error *err)
{
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t r;
	int fd, ret;

	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1)
		return sp_error_sys(err, errno, "%s", file);
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 16384;
			if ((nb = realloc(buf, cap)) == NULL) {
				ret = sp_error_set(err, "out of memory");
				goto out;
			}
			buf = nb;
		}
		r = read(fd, buf + len, cap - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			ret = sp_error_sys(err, errno, "%s", file);
			goto out;
		}
		if (r == 0)
			break;
		len += r;
	}
	ret = sp_maps_parse(buf, len, maps, nmaps, err);
out:
	free(buf);
	close(fd);
	return ret;
}

void
sp_maps_free(struct sp_map *maps, size_t nmaps)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		free(maps[i].path);
	free(maps);
}
