/* SPDX-License-Identifier: ISC */
/*
 * syspin run -o FILE / --log-fd N: one JSON object a line for each
 * violation, refusal or audit report (docs/run-log.md), as strace -o and
 * bwrap --json-status-fd give tools what they need.  Each record is one
 * write(2), so records never interleave.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "layout/diag.h"
#include "supervise/supervise.h"

static const char *const verdicts[] = { "killed", "audited", "refused",
	"denied" };

static json_object *
hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_object_new_string(buf);
}

static json_object *
str(const char *s)
{
	return s != NULL ? json_object_new_string(s) : NULL;
}

/* RFC 3339, UTC, nanoseconds. */
static json_object *
rfc3339(const struct timespec *t)
{
	char buf[64], date[40];
	struct tm tm;

	gmtime_r(&t->tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, sizeof(buf), "%s.%09ldZ", date, (long)t->tv_nsec);
	return json_object_new_string(buf);
}

static const char *
arch_name(uint32_t arch, uint32_t nr)
{
	if (arch == SP_AUDIT_ARCH_I386)
		return "i386";
	if (arch != SP_AUDIT_ARCH_X86_64)
		return "unknown";
	return nr & SP_BPF_X32_BIT ? "x32" : "x86_64";
}

/* The sites of the call's number, "obj+0xoff" each, once. */
static json_object *
expected(const struct sp_event *ev)
{
	json_object *a = json_object_new_array();
	char w[300];
	size_t i, j;

	if (ev->lo == NULL || ev->pl == NULL)
		return a;
	for (i = 0; i < ev->pl->npins; i++) {
		const struct sp_bpf_pin *p = &ev->pl->pins[i];
		if (p->nr != ev->nr || (ev->arch == SP_AUDIT_ARCH_I386) !=
		    (p->abi == SP_ABI_I386))
			continue;
		for (j = 0; j < i; j++)
			if (ev->pl->pins[j].nr == p->nr &&
			    ev->pl->pins[j].ip == p->ip)
				break;
		if (j < i)
			continue;
		sp_diag_where(w, sizeof(w), ev->lo, p->ip - 2);
		json_object_array_add(a, json_object_new_string(w));
	}
	return a;
}

/* object, offset and site of the trap, when the layout has it. */
static void
site(json_object *o, const struct sp_event *ev, uint64_t addr)
{
	const struct sp_object *ob;
	char w[300];
	long r;

	r = ev->lo != NULL ? sp_layout_find(ev->lo, addr) : -1;
	if (r == -1) {
		json_object_object_add(o, "object", NULL);
		json_object_object_add(o, "offset", NULL);
		json_object_object_add(o, "site", addr >= SP_BAND_START &&
		    addr < SP_BAND_END ? str("late code") : NULL);
		return;
	}
	ob = &ev->lo->objs[ev->lo->ranges[r].obj];
	sp_diag_where(w, sizeof(w), ev->lo, addr);
	json_object_object_add(o, "object", str(ob->name));
	json_object_object_add(o, "offset", hex(addr - ob->base));
	json_object_object_add(o, "site", str(w));
}

int
sp_event_log(int fd, const struct sp_event *ev)
{
	json_object *o = json_object_new_object();
	uint64_t addr = ev->ip - 2;	/* every x86 trap is 2 bytes */
	const char *text;
	size_t len, off = 0;
	ssize_t n;
	char *buf;
	int r = 0, e;

	json_object_object_add(o, "time", rfc3339(&ev->time));
	json_object_object_add(o, "pid", json_object_new_int64(ev->pid));
	json_object_object_add(o, "tid", json_object_new_int64(ev->tid));
	json_object_object_add(o, "comm", str(ev->comm));
	json_object_object_add(o, "exe", str(ev->exe));
	site(o, ev, addr);
	json_object_object_add(o, "address", hex(addr));
	json_object_object_add(o, "number", json_object_new_int64(
	    ev->nr & ~(ev->arch == SP_AUDIT_ARCH_X86_64 ? SP_BPF_X32_BIT :
	    0)));
	json_object_object_add(o, "name", str(ev->name));
	json_object_object_add(o, "arch", str(arch_name(ev->arch, ev->nr)));
	json_object_object_add(o, "expected", expected(ev));
	json_object_object_add(o, "verdict", str(verdicts[ev->verdict]));
	json_object_object_add(o, "rule", str(ev->rule));
	json_object_object_add(o, "errno", ev->errnum > 0 ?
	    str(strerrorname_np(ev->errnum)) : NULL);
	json_object_object_add(o, "mode", str(ev->audit ? "audit" :
	    "enforce"));
	json_object_object_add(o, "message", str(ev->line));
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	if ((buf = malloc(len + 1)) == NULL) {
		json_object_put(o);
		return -1;
	}
	memcpy(buf, text, len);
	buf[len++] = '\n';
	json_object_put(o);
	while (off < len) {
		if ((n = write(fd, buf + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			r = -1;
			break;
		}
		off += (size_t)n;
	}
	e = errno;
	free(buf);
	errno = e;
	return r;
}
