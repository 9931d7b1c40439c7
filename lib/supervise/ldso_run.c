/* SPDX-License-Identifier: ISC */
/*
 * ld.so run by name (`ld.so [OPTION]... PROG [ARG]...`): the kernel maps
 * only ld.so, which then maps PROG and what PROG needs itself.  To pin
 * those before they exist, as the kernel-loaded case is (startup.c), we
 * read what ld.so was told from its argument vector, as glibc 2.36's
 * rtld.c (dl_main) reads it: its options first, then PROG.  --list,
 * --verify and ld.so's other queries load but never run PROG: those stay
 * as before (PROG is late code, in the band; ldd works so).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pin_int.h"

#define CMDLINE_MAX (1u << 20)

/* Options that take a value, and whether we keep it. */
static const char *const with_value[] = {
	"--library-path", "--inhibit-rpath", "--audit", "--preload",
	"--argv0", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask", NULL
};

static bool
takes_value(const char *a)
{
	for (size_t i = 0; with_value[i] != NULL; i++)
		if (strcmp(a, with_value[i]) == 0)
			return true;
	return false;
}

/* Reads argv[] into buf (NUL-separated); the number of bytes. */
static size_t
read_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	size_t got = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	return got;
}

static int
keep(char **to, const char *v)
{
	free(*to);
	return (*to = strdup(v)) == NULL ? -1 : 0;
}

/* argv[1..]: ld.so's options, then PROG (r->prog stays NULL: no run). */
static int
parse(char **argv, size_t argc, struct sp_ldso_run *r)
{
	size_t i = 1;

	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--inhibit-cache") == 0)
			r->inhibit_cache = true;
		else if (takes_value(a) && i + 1 < argc) {
			if ((strcmp(a, "--library-path") == 0 &&
			    keep(&r->library_path, argv[i + 1]) == -1) ||
			    (strcmp(a, "--preload") == 0 &&
			    keep(&r->preload, argv[i + 1]) == -1))
				return -1;
			if (strcmp(a, "--audit") == 0)
				r->audit = true;
			i++;
		} else if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strncmp(a, "--", 2) == 0)
			return 0;	/* --list, --verify, --help...: no run */
		else
			break;
	}
	if (i < argc && strchr(argv[i], '/') != NULL)
		return keep(&r->prog, argv[i]);
	return 0;	/* no PROG, or one ld.so searches for: as before */
}

int
sp_ldso_run_read(pid_t pid, struct sp_ldso_run *r)
{
	char *buf, *argv[256];
	size_t n, argc = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((buf = malloc(CMDLINE_MAX)) == NULL)
		return -1;
	n = read_cmdline(pid, buf, CMDLINE_MAX);
	for (size_t k = 0; k < n && argc < 256; k += strlen(buf + k) + 1)
		argv[argc++] = buf + k;
	rc = parse(argv, argc, r);
	free(buf);
	if (rc == -1)
		sp_ldso_run_free(r);
	return rc;
}

void
sp_ldso_run_free(struct sp_ldso_run *r)
{
	free(r->prog);
	free(r->library_path);
	free(r->preload);
	memset(r, 0, sizeof(*r));
}
