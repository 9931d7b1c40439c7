/* SPDX-License-Identifier: ISC */
/*
 * Explaining a violation after the fact, OpenBSD-style:
 *   prog[pid]: pinsyscalls addr 0x..(obj+0x..) code N (name): why
 * The kernel tells us the number and address in its seccomp audit record
 * (type=1326) in the kernel log; the runtime's report tells us what was
 * pinned where.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "layout/diag.h"
#include "layout/procfs.h"
#include "layout/placement.h"

/* A value "key=..." in a record, parsed in base; -1 when absent. */
static int
field(const char *rec, const char *key, int base, uint64_t *v)
{
	const char *p = rec;
	size_t n = strlen(key);
	char *end;

	while ((p = strstr(p, key)) != NULL) {
		if (p == rec || p[-1] == ' ') {
			errno = 0;
			*v = strtoull(p + n, &end, base);
			return end == p + n || errno != 0 ? -1 : 0;
		}
		p += n;
	}
	return -1;
}

/* comm="NAME" (the kernel hex-encodes names with odd bytes: kept as is). */
static void
comm(const char *rec, char *buf, size_t size)
{
	const char *p = strstr(rec, " comm=\"");
	size_t n;

	buf[0] = '\0';
	if (p == NULL)
		return;
	p += 7;
	n = strcspn(p, "\"");
	snprintf(buf, size, "%.*s", (int)n, p);
}

static int
parse_record(const char *rec, long pid, struct sp_violation *v)
{
	uint64_t p, arch, nr, ip;

	if (strstr(rec, "type=1326") == NULL ||
	    field(rec, "pid=", 10, &p) == -1 || (pid != -1 && (long)p != pid) ||
	    field(rec, "arch=", 16, &arch) == -1 ||
	    field(rec, "syscall=", 10, &nr) == -1 ||
	    field(rec, "ip=", 16, &ip) == -1)
		return -1;
	v->arch = arch;
	v->nr = nr;
	v->ip = ip;
	v->pid = p;
	comm(rec, v->comm, sizeof(v->comm));
	v->have = true;
	return 0;
}

/*
 * Reads the records that arrived since the last call; the last one
 * matching wins.  fd was opened at the end of the log before the process
 * started (sp_kmsg_open_end): pids are reused, and an old record of the
 * same pid must never be taken for this process's.
 */
static int
scan_kmsg(int fd, long pid, struct sp_violation *v)
{
	char rec[8192];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n == -1 && errno == EPIPE)
			continue;	/* overwritten record: skip it */
		if (n <= 0)
			break;
		rec[n] = '\0';
		parse_record(rec, pid, v);
	}
	return v->have ? 0 : -1;
}

int
sp_kmsg_find(int fd, long pid, int wait_ms, struct sp_violation *v,
    struct sp_error *err)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int waited;

	memset(v, 0, sizeof(*v));
	if (fd == -1)
		return sp_error_set(err, "/dev/kmsg is not readable");
	/* kauditd prints asynchronously: give it a moment. */
	for (waited = 0; scan_kmsg(fd, pid, v) == -1 && waited < wait_ms;
	    waited += 20)
		nanosleep(&ts, NULL);
	if (!v->have)
		return sp_error_set(err, "no seccomp audit record for pid %ld "
		    "in the kernel log", pid);
	return 0;
}

int
sp_kmsg_open_end(void)
{
	int fd;

	if ((fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return -1;
	if (lseek(fd, 0, SEEK_END) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

int
sp_kmsg_next(int fd, struct sp_violation *v)
{
	char rec[8192];
	ssize_t n;

	for (;;) {
		memset(v, 0, sizeof(*v));
		n = read(fd, rec, sizeof(rec) - 1);
		if (n == -1 && errno == EPIPE)
			continue;	/* overwritten record: skip it */
		if (n <= 0)
			return 0;
		rec[n] = '\0';
		if (parse_record(rec, -1, v) == 0)
			return 1;
	}
}

/* "libc.so.6+0x1234", or the bare address outside every object. */
static void
where(char *buf, size_t size, const struct sp_layout *lo, uint64_t addr)
{
	long r = sp_layout_find(lo, addr);
	const struct sp_object *o;
	const char *base;

	if (r == -1) {
		snprintf(buf, size, "outside the pinned image");
		return;
	}
	o = &lo->objs[lo->ranges[r].obj];
	base = strrchr(o->name, '/');
	base = base != NULL ? base + 1 : o->name;
	snprintf(buf, size, "%s+0x%" PRIx64, base, addr - o->base);
}

void
sp_diag_where(char *buf, size_t size, const struct sp_layout *lo,
    uint64_t addr)
{
	where(buf, size, lo, addr);
}

/* Late code (the band): "late code in FILE+0xoff", or "[anon]". */
static void
late_where(char *buf, size_t size, long pid, uint64_t addr)
{
	struct sp_map *m;
	struct sp_error err;
	char path[64];
	size_t n, i;

	snprintf(buf, size, "late code");
	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	if (pid <= 0 || sp_maps_read(path, &m, &n, &err) == -1)
		return;
	for (i = 0; i < n; i++)
		if (addr >= m[i].start && addr < m[i].end) {
			const char *b = strrchr(m[i].path, '/');
			snprintf(buf, size, "late code in %s+0x%" PRIx64,
			    b != NULL ? b + 1 : m[i].path[0] ? m[i].path :
			    "[anon]", addr - m[i].start + m[i].offset);
			break;
		}
	sp_maps_free(m, n);
}

static bool
pinned_at(const struct sp_placement *pl, uint32_t nr, uint64_t ip)
{
	size_t i;

	for (i = 0; i < pl->npins; i++)
		if (pl->pins[i].nr == nr && pl->pins[i].ip == ip)
			return true;
	for (i = 0; i < pl->nany_ips; i++)
		if (pl->any_ips[i] == ip)
			return true;
	return false;
}

/* "; NAME is pinned at a, b" or "; NAME is pinned nowhere". */
static void
elsewhere(char *buf, size_t size, const struct sp_layout *lo,
    const struct sp_placement *pl, uint32_t nr, const char *name)
{
	char w[300];
	size_t i, n = 0, len;

	len = snprintf(buf, size, "; %s is pinned", name);
	for (i = 0; i < pl->npins && len < size; i++) {
		if (pl->pins[i].nr != nr)
			continue;
		if (n++ == 3) {
			len += snprintf(buf + len, size - len, ", ...");
			break;
		}
		where(w, sizeof(w), lo, pl->pins[i].ip - 2);
		len += snprintf(buf + len, size - len, "%s%s",
		    n == 1 ? " at " : ", ", w);
	}
	if (n == 0 && len < size)
		snprintf(buf + len, size - len, " nowhere");
}

/* Whether an object's dynamic strings name `syscall` (an import of it, in
 * practice): cheap enough for the once-per-violation path, and it keeps
 * the advice to the objects that can have made the call. */
static bool
names_syscall(const char *path)
{
	static const char pat[] = "\0syscall\0";
	struct stat st;
	void *f;
	bool yes = false;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return false;
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (f = mmap(NULL,
	    st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
		yes = memmem(f, st.st_size, pat, sizeof(pat) - 1) != NULL;
		munmap(f, st.st_size);
	}
	close(fd);
	return yes;
}

/*
 * Objects mapped after the filter was installed (dlopen): executable file
 * mappings of the live process outside every range of its report.  Their
 * own code is allowed, but what they pass to libc's syscall() is not
 * pinned there unless `syspin run --dlopen` named them (layout/later.c):
 * the likeliest cause of a "not pinned here" while such objects exist.
 * Appends the options that would name those that import syscall();
 * nothing when the process is gone (the kernel already killed it).
 */
static void
late_objects(char *buf, size_t size, long pid, const struct sp_layout *lo)
{
	struct sp_map *m;
	struct sp_error err;
	char path[64];
	size_t n, i, j, len = 0, count = 0;

	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	if (pid <= 0 || sp_maps_read(path, &m, &n, &err) == -1)
		return;
	for (i = 0; i < n && count < 4; i++) {
		if (!(m[i].prot & PROT_EXEC) || m[i].kind != SP_MAP_FILE ||
		    sp_layout_find(lo, m[i].start) != -1)
			continue;
		/* One object, several executable mappings: once. */
		for (j = 0; j < i; j++)
			if ((m[j].prot & PROT_EXEC) &&
			    strcmp(m[j].path, m[i].path) == 0)
				break;
		if (j < i || !names_syscall(m[i].path))
			continue;
		if (count++ == 0)
			len = snprintf(buf, size, "; objects dlopen'ed after "
			    "the filter pass numbers to libc's syscall() that "
			    "are pinned only if named: run with");
		if (len < size)
			len += snprintf(buf + len, size - len, " --dlopen %s",
			    m[i].path);
	}
	sp_maps_free(m, n);
}

void
sp_diag_format(char *buf, size_t size, const char *comm, long pid,
    const struct sp_violation *v, const struct sp_layout *lo,
    const struct sp_placement *pl, const char *name, const char *func)
{
	char w[300], more[1024] = "", late[1200] = "";
	/* Every x86 trap instruction is 2 bytes: the kernel reports the
	 * address after it, OpenBSD the instruction itself. */
	uint64_t addr = v->ip - 2;

	if (lo == NULL) {
		snprintf(buf, size, "%s[%ld]: pinsyscalls addr 0x%" PRIx64
		    " code %" PRIu32 " (%s): not pinned (no layout report)",
		    comm, pid, addr, v->nr, name);
		return;
	}
	where(w, sizeof(w), lo, addr);
	if (func != NULL && func[0] != '\0')
		snprintf(w + strlen(w), sizeof(w) - strlen(w), " <%.64s>", func);
	if (v->arch != SP_AUDIT_ARCH_X86_64)
		snprintf(more, sizeof(more), ": 32-bit system call (int 0x80)"
		    " from a 64-bit process");
	else if (addr >= SP_BAND_START && addr < SP_BAND_END) {
		late_where(w, sizeof(w), pid, addr);
		snprintf(more, sizeof(more), ": code mapped after the image "
		    "was pinned makes no system call of its own");
	} else if (sp_layout_find(lo, addr) == -1)
		snprintf(more, sizeof(more), ": outside the pinned image "
		    "(refused by the memory or --strict rules)");
	else if (pinned_at(pl, v->nr, v->ip))
		snprintf(more, sizeof(more), ": pinned here, but the "
		    "arguments are refused (executable memory, filters)");
	else {
		size_t n = snprintf(more, sizeof(more), ": not pinned here");
		elsewhere(more + n, sizeof(more) - n, lo, pl, v->nr, name);
		late_objects(late, sizeof(late), pid, lo);
	}
	snprintf(buf, size, "%s[%ld]: pinsyscalls addr 0x%" PRIx64 "(%s) code "
	    "%" PRIu32 " (%s)%s%s", comm, pid, addr, w, v->nr, name, more,
	    late);
	sp_error_printable(buf);	/* names of objects and processes */
}
