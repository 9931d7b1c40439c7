/* SPDX-License-Identifier: ISC */
/*
 * What the supervisor made a tracee do, checked in the kernel's own
 * account of the process rather than by what the injected call returned.
 *
 * The supervisor's calls run in the tracee under every filter the tracee
 * has, as the tree's own calls do (inject.c), and a filter the tree
 * installed earlier (inherited across an exec) may answer them:
 * SECCOMP_RET_ERRNO with errno 0 skips a call and returns 0, which is
 * what seccomp(2), prctl(2) and mseal(2) return when they succeed.  A
 * pin believed from that 0 is no pin (blind round 3, F1: an exec'd perl
 * ran unpinned).  Only a non-zero success is unforgeable (ERRNO returns
 * 0 or -errno; SECCOMP_RET_USER_NOTIF could return anything, but the tree
 * may make no listener: lib/bpf/policy.c), so:
 * - every install is checked by the process's filter count
 *   (/proc/PID/status Seccomp_filters: one more per program accepted),
 *   with the process's other threads stopped where it has any;
 * - no_new_privs by its own field;
 * - seals where the tree has filters of its own (the count is not the
 *   one the supervisor knows: events.c), by smaps' VmFlags "sl": where
 *   it has none, nothing but ours and syspin's caller's can answer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/procfs.h"

#include "verify.h"

int
sp_seals_add(struct sp_seals *s, uint64_t start, uint64_t len)
{
	uint64_t (*r)[2];
	size_t cap;

	if (s->n == s->cap) {
		cap = s->cap ? 2 * s->cap : 16;
		if ((r = realloc(s->r, cap * sizeof(*r))) == NULL)
			return -1;
		s->r = r;
		s->cap = cap;
	}
	s->r[s->n][0] = start;
	s->r[s->n][1] = start + len;
	s->n++;
	return 0;
}

void
sp_seals_free(struct sp_seals *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}

int
sp_verify_installed(pid_t pid, long want, bool nnp, struct sp_error *err)
{
	struct sp_proc_state st;

	if (sp_proc_state(pid, &st) == -1 || st.filters != want || want < 0)
		return sp_error_set(err, "the filter is not installed (the "
		    "process has %ld seccomp filters, %ld expected): a filter "
		    "of the process answered the supervisor's seccomp(2) "
		    "without running it", st.filters, want);
	if (nnp && st.no_new_privs != 1)
		return sp_error_set(err, "no_new_privs is not set: a filter "
		    "of the process answered the supervisor's prctl(2) without "
		    "running it");
	return 0;
}

/* One mapping of smaps: [start, end), sealed or not. */
struct vma {
	uint64_t start, end;
	bool sealed;
};

/* The "sl" word in a VmFlags line's value. */
static bool
has_sl(const char *v)
{
	for (const char *p = v; (p = strstr(p, "sl")) != NULL; p += 2)
		if ((p == v || p[-1] == ' ') && (p[2] == ' ' || p[2] == '\n' ||
		    p[2] == '\0'))
			return true;
	return false;
}

static int
read_smaps(pid_t pid, struct vma **out, size_t *nout, struct sp_error *err)
{
	char path[64], line[512];
	struct vma *v = NULL, *nv;
	size_t n = 0, cap = 0;
	uint64_t lo, hi;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/smaps", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return sp_error_sys(err, errno, "%s", path);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "VmFlags:", 8) == 0) {
			if (n > 0)
				v[n - 1].sealed = has_sl(line + 8);
			continue;
		}
		/* a header: "start-end perms ..." */
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " ", &lo, &hi) != 2)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL) {
				fclose(f);
				free(v);
				return sp_error_set(err, "out of memory");
			}
			v = nv;
		}
		v[n++] = (struct vma){ lo, hi, false };
	}
	fclose(f);
	*out = v;
	*nout = n;
	return 0;
}

int
sp_verify_sealed(pid_t pid, const struct sp_seals *s, struct sp_error *err)
{
	struct vma *v;
	size_t n, i, k;
	uint64_t at;

	if (s->n == 0)
		return 0;
	if (read_smaps(pid, &v, &n, err) == -1)
		return -1;
	for (i = 0; i < s->n; i++) {
		/* the mappings in address order cover it, each sealed */
		at = s->r[i][0];
		for (k = 0; k < n && at < s->r[i][1]; k++)
			if (v[k].start <= at && at < v[k].end && v[k].sealed)
				at = v[k].end;
		if (at < s->r[i][1]) {
			free(v);
			return sp_error_set(err, "0x%" PRIx64 "-0x%" PRIx64
			    " is not sealed: a filter of the process answered "
			    "the supervisor's mseal(2) without running it",
			    s->r[i][0], s->r[i][1]);
		}
	}
	free(v);
	return 0;
}
