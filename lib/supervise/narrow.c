/* SPDX-License-Identifier: ISC */
/*
 * syspin run --deny / --allow lists: names and systemd's groups to
 * numbers.  A name nobody knows is an error, never ignored; a group
 * member x86-64 lacks (mmap2, chown32: other architectures') is skipped,
 * as systemd skips it.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervise/narrow.h"
#include "util/search.h"

#include "narrow_int.h"

#define DEPTH_MAX 8

/* Numbers newer than libseccomp 2.5's table (arch/x86/entry/syscalls/
 * syscall_64.tbl). */
static const struct { const char *name; uint32_t nr; } newer[] = {
	{ "uretprobe", 335 }, { "statmount", 457 }, { "listmount", 458 },
	{ "lsm_get_self_attr", 459 }, { "lsm_set_self_attr", 460 },
	{ "lsm_list_modules", 461 }, { "mseal", 462 }, { "setxattrat", 463 },
	{ "getxattrat", 464 }, { "listxattrat", 465 },
	{ "removexattrat", 466 },
};

long
sp_syscall_number(const char *name)
{
	int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
	size_t i;

	if (nr >= 0)
		return nr;
	for (i = 0; i < sizeof(newer) / sizeof(*newer); i++)
		if (strcmp(newer[i].name, name) == 0)
			return newer[i].nr;
	return -1;
}

const char *
sp_syscall_newer(uint32_t nr)
{
	size_t i;

	for (i = 0; i < sizeof(newer) / sizeof(*newer); i++)
		if (newer[i].nr == nr)
			return newer[i].name;
	return NULL;
}

/* Known on some other architecture (a group member x86-64 lacks). */
static bool
known_elsewhere(const char *name)
{
	static const uint32_t arches[] = { SCMP_ARCH_X86, SCMP_ARCH_X32,
		SCMP_ARCH_AARCH64, SCMP_ARCH_ARM, SCMP_ARCH_PPC64,
		SCMP_ARCH_S390X, SCMP_ARCH_MIPS, SCMP_ARCH_RISCV64 };
	size_t i;

	for (i = 0; i < sizeof(arches) / sizeof(*arches); i++)
		if (seccomp_syscall_resolve_name_arch(arches[i], name) !=
		    __NR_SCMP_ERROR)
			return true;
	/* names of architectures libseccomp may not have */
	return strcmp(name, "rtas") == 0 || strcmp(name, "cacheflush") == 0 ||
	    strncmp(name, "s390_", 5) == 0 || strncmp(name, "riscv_", 6) == 0 ||
	    strncmp(name, "osf_", 4) == 0;
}

const char *
sp_narrow_group(const char *name)
{
	size_t i;

	for (i = 0; sp_groups[i].name != NULL; i++)
		if (strcmp(sp_groups[i].name, name) == 0)
			return sp_groups[i].members;
	return NULL;
}

const char *
sp_narrow_group_at(size_t i, const char **help)
{
	size_t n = 0;

	while (sp_groups[n].name != NULL)
		n++;
	if (i >= n)
		return NULL;
	if (help != NULL)
		*help = sp_groups[i].help;
	return sp_groups[i].name;
}

static int
push(struct sp_narrow *n, uint32_t nr, struct sp_error *err)
{
	uint32_t *nv;
	size_t i;

	for (i = 0; i < n->n; i++)
		if (n->nrs[i] == nr)
			return 0;
	if (n->n == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 64;
		if ((nv = reallocarray(n->nrs, n->cap, sizeof(*nv))) == NULL)
			return sp_error_set(err, "out of memory");
		n->nrs = nv;
	}
	n->nrs[n->n++] = nr;
	return 0;
}

static int add_word(struct sp_narrow *, const char *, const char *, int,
    struct sp_error *);

/* Every word of a space- or comma-separated list. */
static int
add_words(struct sp_narrow *n, const char *opt, const char *list, int depth,
    struct sp_error *err)
{
	char word[128];
	size_t len;

	while (*list != '\0') {
		list += strspn(list, ", \t\n");
		if ((len = strcspn(list, ", \t\n")) == 0)
			break;
		if (len >= sizeof(word))
			return sp_error_set(err, "%s %.*s: no such system call",
			    opt, (int)len, list);
		memcpy(word, list, len);
		word[len] = '\0';
		list += len;
		if (add_word(n, opt, word, depth, err) == -1)
			return -1;
	}
	return 0;
}

static int
add_word(struct sp_narrow *n, const char *opt, const char *w, int depth,
    struct sp_error *err)
{
	const char *members;
	uint32_t arg0;
	long nr;

	if (w[0] == '@') {
		if ((members = sp_narrow_group(w)) == NULL)
			return sp_error_set(err, "%s %s: no such group (syspin "
			    "filter --groups lists them)", opt, w);
		if (depth >= DEPTH_MAX)
			return sp_error_set(err, "%s %s: groups nest too deep",
			    opt, w);
		return add_words(n, opt, members, depth + 1, err);
	}
	if ((nr = sp_syscall_number(w)) == -1) {
		if (depth > 0 && known_elsewhere(w))
			return 0;	/* another architecture's */
		if (known_elsewhere(w))
			return sp_error_set(err, "%s %s: not an x86-64 system "
			    "call", opt, w);
		return sp_error_set(err, "%s %s: no such system call", opt, w);
	}
	if (depth == 0 && !n->allow && sp_bpf_narrow_exempt((uint32_t)nr,
	    &arg0) == SP_NARROW_NEVER)
		return sp_error_set(err, "%s %s: never denied (it only ends "
		    "the process or takes away)", opt, w);
	return push(n, (uint32_t)nr, err);
}

int
sp_narrow_add(struct sp_narrow *n, const char *list, bool allow,
    struct sp_error *err)
{
	const char *opt = allow ? "--allow" : "--deny";

	if (n->given && n->allow != allow)
		return sp_error_set(err, "--deny and --allow: give one or the "
		    "other");
	n->given = true;
	n->allow = allow;
	if (add_words(n, opt, list, 0, err) == -1)
		return -1;
	qsort(n->nrs, n->n, sizeof(*n->nrs), sp_cmp_u32);
	return 0;
}

int
sp_narrow_action(struct sp_narrow *n, const char *spec, struct sp_error *err)
{
	const char *e;
	char *end;
	long v;
	int i;

	if (strcmp(spec, "kill") == 0) {
		n->kill = true;
		return 0;
	}
	n->kill = false;
	n->errnum = EPERM;
	if (strcmp(spec, "errno") == 0)
		return 0;
	if (strncmp(spec, "errno:", 6) != 0)
		return sp_error_set(err, "--deny-action=%s: not errno, "
		    "errno:NAME or kill", spec);
	e = spec + 6;
	errno = 0;
	v = strtol(e, &end, 10);
	if (*e != '\0' && *end == '\0' && errno == 0 && v > 0 && v < 4096) {
		n->errnum = (int)v;
		return 0;
	}
	for (i = 1; i < 4096; i++) {
		const char *name = strerrorname_np(i);
		if (name != NULL && strcmp(name, e) == 0) {
			n->errnum = i;
			return 0;
		}
	}
	return sp_error_set(err, "--deny-action=%s: no such errno", spec);
}

struct sp_bpf_narrow
sp_narrow_bpf(const struct sp_narrow *n)
{
	if (!n->given)
		return (struct sp_bpf_narrow){ NULL, 0, false };
	return (struct sp_bpf_narrow){ n->nrs, n->n, n->allow };
}

int
sp_narrow_env(const struct sp_narrow *n, char *buf, size_t size)
{
	size_t len, i;
	int k;

	buf[0] = '\0';
	if (!n->given)
		return 0;
	if (n->kill)
		k = snprintf(buf, size, "%ck:", n->allow ? 'a' : 'd');
	else
		k = snprintf(buf, size, "%ce%d:", n->allow ? 'a' : 'd',
		    n->errnum ? n->errnum : EPERM);
	for (len = (size_t)k, i = 0; i < n->n && len < size; i++) {
		k = snprintf(buf + len, size - len, "%s%u", i ? "," : "",
		    n->nrs[i]);
		len += (size_t)k;
	}
	return len < size ? 0 : -1;
}

void
sp_narrow_free(struct sp_narrow *n)
{
	free(n->nrs);
	memset(n, 0, sizeof(*n));
}
