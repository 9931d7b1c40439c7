/* SPDX-License-Identifier: ISC */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tree.h"

const char *
tree_at(const char *root, const char *rel)
{
	static char **paths;
	static size_t npaths;
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/%s", root, rel);
	for (size_t i = 0; i < npaths; i++)
		if (strcmp(paths[i], buf) == 0)
			return paths[i];
	paths = realloc(paths, (npaths + 1) * sizeof(*paths));
	assert_non_null(paths);
	paths[npaths] = strdup(buf);
	assert_non_null(paths[npaths]);
	return paths[npaths++];
}

void
tree_mkdirs(const char *path)
{
	char buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		(void)mkdir(buf, 0755);
		*p = '/';
	}
	(void)mkdir(buf, 0755);
}

void
tree_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	if (fd == -1)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

char *
tree_read(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd == -1 || fstat(fd, &st) == -1)
		fail_msg("%s: %s", path, strerror(errno));
	buf = malloc(st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	*len = st.st_size;
	return buf;
}

void
tree_copy(const char *from, const char *to)
{
	size_t len;
	char *buf = tree_read(from, &len);

	tree_write(to, buf, len);
	free(buf);
}

/* A new-format ld.so.cache with one entry. */
static void
write_cache(const char *file, const char *key, const char *value)
{
	uint8_t buf[4096] = { 0 };
	uint32_t v, len = 48 + 24;

	memcpy(buf, "glibc-ld.so.cache1.1", 20);
	v = 1;
	memcpy(buf + 20, &v, 4);
	buf[28] = 2;				/* little-endian */
	v = 0x0303;
	memcpy(buf + 48, &v, 4);
	memcpy(buf + 52, &len, 4);
	strcpy((char *)buf + len, key);
	len += strlen(key) + 1;
	memcpy(buf + 56, &len, 4);
	strcpy((char *)buf + len, value);
	len += strlen(value) + 1;
	tree_write(file, buf, len);
}

void
tree_make(char *root, size_t size, const char *bd)
{
	static const char *const copies[][2] = {
		{ "nd_prog", "prog" },
		{ "libnd_a.so", "lib/libnd_a.so" },
		{ "libnd_dep.so", "lib/deps/libnd_dep.so" },
		{ "libnd_r1.so", "lib/libnd_r1.so" },
		{ "libnd_r2.so", "lib/rchain/libnd_r2.so" },
		{ "libnd_r3.so", "lib/rchain/libnd_r3.so" },
		{ "libnd_hw.so", "lib/glibc-hwcaps/x86-64-v2/libnd_hw.so" },
		{ "libnd_llp.so", "llp/libnd_llp.so" },
		{ "libnd_llp.so", "llpx/libnd_llp.so" },
		{ "libnd_pre.so", "pre/libnd_pre.so" },
		{ "libnd_dep.so", "cached/libnd_cached.so" },
	};
	char tmpl[] = "/tmp/syspin-test-needed.XXXXXX", *real;
	uint16_t arm = EM_AARCH64;
	char *dir;
	int fd;

	assert_non_null(mkdtemp(tmpl));
	real = realpath(tmpl, NULL);
	assert_non_null(real);
	snprintf(root, size, "%s", real);
	free(real);
	for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++) {
		const char *to = tree_at(root, copies[i][1]);
		dir = strdup(to);
		*strrchr(dir, '/') = '\0';
		tree_mkdirs(dir);
		free(dir);
		tree_copy(tree_at(bd, copies[i][0]), to);
	}
	fd = open(tree_at(root, "llpx/libnd_llp.so"), O_WRONLY);
	assert_int_equal(pwrite(fd, &arm, 2, offsetof(Elf64_Ehdr, e_machine)),
	    2);
	close(fd);
	tree_mkdirs(tree_at(root, "llp0"));
	tree_write(tree_at(root, "llp0/libnd_llp.so"), "not ELF\n", 8);
	write_cache(tree_at(root, "ldcache"), "libnd_cached.so",
	    tree_at(root, "cached/libnd_cached.so"));
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
tree_remove(const char *root)
{
	(void)nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const struct sp_needed_obj *
tree_find(const struct sp_needed *n, const char *path)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return NULL;
	for (size_t i = 0; i < n->nobjs; i++)
		if (n->objs[i].id.dev == (uint64_t)st.st_dev &&
		    n->objs[i].id.ino == (uint64_t)st.st_ino)
			return &n->objs[i];
	return NULL;
}

/* The path of one line of ld.so --list, or NULL. */
static char *
list_path(char *line)
{
	char *p = strstr(line, " => "), *end;

	if (p != NULL)
		p += 4;
	else
		p = line + strspn(line, " \t");
	if (*p != '/')
		return NULL;
	if ((end = strstr(p, " (0x")) != NULL)
		*end = '\0';
	else
		p[strcspn(p, "\n")] = '\0';
	return strdup(p);
}

int
ldso_list(const char *prog, char *const envp[], bool trace, char ***paths,
    size_t *npaths)
{
	char *const list[] = { (char *)LDSO, (char *)"--list", (char *)prog,
	    NULL };
	char *const run[] = { (char *)LDSO, (char *)prog, NULL };
	char line[PATH_MAX + 64], *p, *env[8];
	size_t n = 0;
	int pfd[2], st;
	pid_t pid;
	FILE *f;

	*paths = NULL;
	*npaths = 0;
	if (access(LDSO, X_OK) != 0 || pipe(pfd) == -1)
		return -1;
	if (trace)
		env[n++] = (char *)"LD_TRACE_LOADED_OBJECTS=1";
	for (; *envp != NULL && n < 7; envp++)
		env[n++] = *envp;
	env[n] = NULL;
	if ((pid = fork()) == 0) {
		dup2(pfd[1], 1);
		close(2);
		close(pfd[0]);
		execve(LDSO, trace ? run : list, env);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	while (fgets(line, sizeof(line), f) != NULL) {
		if ((p = list_path(line)) == NULL)
			continue;
		*paths = realloc(*paths, (*npaths + 1) * sizeof(**paths));
		(*paths)[(*npaths)++] = p;
	}
	fclose(f);
	waitpid(pid, &st, 0);
	return 0;
}

void
free_paths(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
