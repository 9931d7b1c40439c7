/* SPDX-License-Identifier: ISC */
/*
 * The runtime's account of what it installed, read back by `syspin run` to
 * explain a violation: which object an address is in, and where the number
 * would have been allowed.  Plain text so that it can be read by a human.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/layout.h"
#include "layout/procfs.h"
#include "layout/placement.h"
#include "layout/report.h"

/* Buffered writes through the fd: stdio would allocate a FILE. */
struct out {
	int fd;
	int failed;
	size_t len;
	char buf[8192];
};

static void
flush(struct out *o)
{
	size_t off = 0;
	ssize_t n;

	while (off < o->len && !o->failed) {
		n = write(o->fd, o->buf + off, o->len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			o->failed = 1;
		else
			off += n;
	}
	o->len = 0;
}

static void
emit(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
emit(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sizeof(o->buf) - o->len < 4200)
		flush(o);
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(o->buf) - o->len)
		o->len += n;
}

int
sp_report_write(int fd, const struct sp_layout *lo,
    const struct sp_placement *pl)
{
	struct out o = { fd, 0, 0, "" };
	size_t i;

	emit(&o, "syspin-report 1\n");
	for (i = 0; i < lo->nobjs; i++)
		emit(&o, "obj %zu 0x%" PRIx64 " %d %.4000s\n", i,
		    lo->objs[i].base, lo->objs[i].have_tab,
		    lo->objs[i].name);
	for (i = 0; i < lo->nranges; i++)
		emit(&o, "range 0x%" PRIx64 " 0x%" PRIx64 " %zu\n",
		    lo->ranges[i].start, lo->ranges[i].end, lo->ranges[i].obj);
	for (i = 0; i < pl->npins; i++)
		emit(&o, "pin %" PRIu32 " 0x%" PRIx64 "\n", pl->pins[i].nr,
		    pl->pins[i].ip);
	for (i = 0; i < pl->nany_ips; i++)
		emit(&o, "any 0x%" PRIx64 "\n", pl->any_ips[i]);
	emit(&o, "end\n");
	flush(&o);
	return o.failed ? -1 : 0;
}

static int
grow(void **v, size_t n, size_t sz)
{
	void *nv;

	/* Grow by doubling at powers of two. */
	if (n != 0 && (n & (n - 1)) != 0)
		return 0;
	if ((nv = realloc(*v, (n ? 2 * n : 16) * sz)) == NULL)
		return -1;
	*v = nv;
	return 0;
}

static int
parse_line(char *line, struct sp_layout *lo, struct sp_placement *pl)
{
	struct sp_object *ob;
	uint64_t a, b;
	size_t i;
	int have, n = 0;
	uint32_t nr;

	if (sscanf(line, "obj %zu %" SCNx64 " %d %n", &i, &a, &have, &n) == 3 &&
	    n > 0) {
		if (i != lo->nobjs || grow((void **)&lo->objs, lo->nobjs,
		    sizeof(*lo->objs)) == -1)
			return -1;
		ob = &lo->objs[lo->nobjs++];
		memset(ob, 0, sizeof(*ob));
		ob->base = a;
		ob->have_tab = false;	/* tables are not in the report */
		ob->kind = have ? SP_OBJ_FILE : SP_OBJ_UNKNOWN;
		return (ob->name = strdup(line + n)) == NULL ? -1 : 0;
	}
	if (sscanf(line, "range %" SCNx64 " %" SCNx64 " %zu", &a, &b, &i) == 3) {
		if (i >= lo->nobjs || grow((void **)&lo->ranges, lo->nranges,
		    sizeof(*lo->ranges)) == -1)
			return -1;
		lo->ranges[lo->nranges++] =
		    (struct sp_layout_range){ a, b, i };
		return 0;
	}
	if (sscanf(line, "pin %" SCNu32 " %" SCNx64, &nr, &a) == 2) {
		if (grow((void **)&pl->pins, pl->npins,
		    sizeof(*pl->pins)) == -1)
			return -1;
		pl->pins[pl->npins++] = (struct sp_bpf_pin){ .nr = nr, .ip = a };
		return 0;
	}
	if (sscanf(line, "any %" SCNx64, &a) == 1) {
		if (grow((void **)&pl->any_ips, pl->nany_ips,
		    sizeof(*pl->any_ips)) == -1)
			return -1;
		pl->any_ips[pl->nany_ips++] = a;
		return 0;
	}
	return strcmp(line, "end") == 0 ||
	    strncmp(line, "syspin-report ", 14) == 0 ? 0 : -1;
}

int
sp_report_read(const char *path, struct sp_layout *lo,
    struct sp_placement *pl, struct sp_error *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int ret = 0;

	memset(lo, 0, sizeof(*lo));
	memset(pl, 0, sizeof(*pl));
	if ((f = fopen(path, "re")) == NULL)
		return sp_error_sys(err, errno, "%s", path);
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (parse_line(line, lo, pl) == -1) {
			ret = sp_error_set(err, "%s: bad line: %.80s", path,
			    line);
			break;
		}
	}
	free(line);
	fclose(f);
	if (ret == -1) {
		sp_layout_free(lo);
		sp_placement_free(pl);
	}
	return ret;
}

/* /proc/PID/status into buf (one read: the kernel makes it whole). */
static int
status_read(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int
status_field(const char *buf, const char *field, int base,
    unsigned long long *value)
{
	size_t len = strlen(field);
	const char *p;

	for (p = buf; p != NULL; p = (p = strchr(p, '\n')) ? p + 1 : NULL)
		if (strncmp(p, field, len) == 0 && p[len] == ':') {
			*value = strtoull(p + len + 1, NULL, base);
			return 0;
		}
	return -1;
}

int
sp_proc_status(pid_t pid, const char *field, int base,
    unsigned long long *value)
{
	char buf[4096];

	if (status_read(pid, buf, sizeof(buf)) == -1)
		return -1;
	return status_field(buf, field, base, value);
}

int
sp_proc_status_fields(pid_t pid, const char *const *fields, size_t n,
    int base, unsigned long long *values)
{
	char buf[4096];
	size_t i;

	if (status_read(pid, buf, sizeof(buf)) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (status_field(buf, fields[i], base, &values[i]) == -1)
			break;
	return (int)i;
}

int
sp_proc_state(pid_t pid, struct sp_proc_state *st)
{
	unsigned long long v;
	char buf[4096];

	st->cap_prm = st->cap_eff = ~0ull;	/* unknown: the worst */
	st->filters = st->no_new_privs = -1;
	if (status_read(pid, buf, sizeof(buf)) == -1)
		return -1;
	if (status_field(buf, "CapPrm", 16, &v) == 0)
		st->cap_prm = v;
	if (status_field(buf, "CapEff", 16, &v) == 0)
		st->cap_eff = v;
	if (status_field(buf, "Seccomp_filters", 10, &v) == 0)
		st->filters = (long)v;
	if (status_field(buf, "NoNewPrivs", 10, &v) == 0)
		st->no_new_privs = (int)v;
	return 0;
}

int
sp_proc_stat(pid_t pid, struct sp_proc_stat *st)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* state ppid pgrp session tty_nr tpgid flags */
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1,
	    " %c %*d %d %d %llu %*d %lu", &st->state, &st->pgrp,
	    &st->session, &st->tty_nr, &st->flags) != 5)
		return -1;
	/* field 38, the 36th after the name: -1 when missing */
	st->exit_signal = -1;
	for (int field = 2; field < 38 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL && sscanf(p + 1, "%d", &st->exit_signal) != 1)
		st->exit_signal = -1;
	return 0;
}

long
sp_filters_pid(pid_t pid)
{
	unsigned long long n;

	return sp_proc_status(pid, "Seccomp_filters", 10, &n) == 0 ?
	    (long)n : -1;
}

void
sp_report_path(const char *dir, long pid, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%ld.layout", dir, pid);
}

int
sp_report_save(const char *dir, long pid, const struct sp_layout *lo,
    const struct sp_placement *pl)
{
	char path[4200];
	int fd, rc;

	sp_report_path(dir, pid, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1)
		return -1;
	rc = sp_report_write(fd, lo, pl);
	close(fd);
	return rc;
}
