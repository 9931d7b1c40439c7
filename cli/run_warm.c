/* SPDX-License-Identifier: ISC */
/*
 * The warm start of `syspin run`: once a program's objects are in the
 * cache, starting it again should cost a few stat(2) calls, not an
 * `ld.so --list` and a read of every table.  After a fill we record which
 * objects the program maps ("p-HASH", one path a line); next time we stat
 * each and check that its table is there.
 *
 * The record is a hint, never trusted for security: the runtime still
 * checks every mapped file's identity and every table it loads, and fills
 * what is missing itself.  A stale record only costs speed.  It is keyed
 * by what decides the object list: the program file, the runtime, the
 * loader's cache and the environment variables ld.so obeys.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pins/cache.h"
#include "elf/elf.h"
#include "layout/layout.h"

#include "run.h"
#include "util/hash.h"

#define RECORD_MAX 65536
#define RECORD_MAGIC "syspin-objects 1\n"

static uint64_t
fnv(uint64_t h, const char *s)
{
	static const unsigned char sep = 0xff;

	return sp_fnv1a(sp_fnv1a_str(h, s), &sep, 1);
}

/* The key of a file as the cache names it; "" when it cannot be stat'ed. */
static void
file_key(const char *path, char *key, size_t size)
{
	struct sp_file_id id;
	struct stat st;

	key[0] = '\0';
	if (stat(path, &st) == 0) {
		sp_file_id_from_stat(&id, &st);
		sp_cache_key_file(&id, key, size);
	}
}

static void
record_key(const char *elf, const char *rt, char *key, size_t size)
{
	static const char *const vars[] = { "LD_LIBRARY_PATH", "LD_PRELOAD",
	    "LD_BIND_NOW", "LD_HWCAP_MASK", "GLIBC_TUNABLES" };
	char k[SP_CACHE_KEY_MAX];
	uint64_t h = SP_FNV1A_INIT;
	size_t i;

	h = fnv(fnv(h, elf), rt);
	file_key(elf, k, sizeof(k));
	h = fnv(h, k);
	file_key(rt, k, sizeof(k));
	h = fnv(h, k);
	file_key("/etc/ld.so.cache", k, sizeof(k));
	h = fnv(h, k);
	for (i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		h = fnv(fnv(h, vars[i]), getenv(vars[i]));
	snprintf(key, size, "p-%016" PRIx64, h);
}

/* The cache key of one recorded object, "" when it has none. */
static void
object_key(const char *obj, char *key, size_t size)
{
	const void *eh;
	uint8_t bid[SP_CACHE_BUILD_ID_MAX];
	size_t n, len;

	if (strcmp(obj, "[vdso]") != 0) {
		file_key(obj, key, size);
		return;
	}
	key[0] = '\0';
	if ((eh = (const void *)getauxval(AT_SYSINFO_EHDR)) == NULL)
		return;
	n = sp_mem_image_size(eh);
	len = sp_mem_build_id(eh, (uint64_t)eh, bid, sizeof(bid));
	sp_cache_key_vdso(bid, len, eh, n, key, size);
}

bool
run_warm(const struct sp_cache *c, const char *elf, const char *rt)
{
	char key[SP_CACHE_KEY_MAX], *buf, *p, *nl;
	struct sp_error err;
	ssize_t n;
	bool warm;

	record_key(elf, rt, key, sizeof(key));
	if ((buf = malloc(RECORD_MAX + 1)) == NULL)
		return false;
	n = sp_cache_get(c, key, buf, RECORD_MAX, &err);
	warm = n > (ssize_t)strlen(RECORD_MAGIC) &&
	    memcmp(buf, RECORD_MAGIC, strlen(RECORD_MAGIC)) == 0;
	if (warm)
		buf[n] = '\0';
	for (p = buf + strlen(RECORD_MAGIC); warm && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		*nl = '\0';
		object_key(p, key, sizeof(key));
		warm = key[0] != '\0' && sp_cache_has(c, key);
	}
	free(buf);
	return warm;
}

void
run_remember(const struct sp_cache *c, const char *elf, const char *rt,
    char **objs, size_t n)
{
	char key[SP_CACHE_KEY_MAX], *buf;
	struct sp_error err;
	size_t i, len;

	if ((buf = malloc(RECORD_MAX)) == NULL)
		return;
	len = snprintf(buf, RECORD_MAX, "%s", RECORD_MAGIC);
	for (i = 0; i < n && len < RECORD_MAX; i++)
		if (strchr(objs[i], '\n') == NULL)
			len += snprintf(buf + len, RECORD_MAX - len, "%s\n",
			    objs[i]);
	record_key(elf, rt, key, sizeof(key));
	if (len < RECORD_MAX)
		sp_cache_put(c, key, buf, len, &err);
	free(buf);
}

/* One table into the memfd: u32 key length, u32 file length, key, file. */
static int
hand_one(int fd, const struct sp_cache *c, const char *key, char *forged)
{
	struct sp_pintab tab;
	struct sp_error err;
	uint32_t hdr[2];
	void *buf;
	size_t len;
	int r;

	err.msg[0] = '\0';
	if ((r = sp_cache_load(c, key, &tab, &err)) == 0 &&
	    err.msg[0] != '\0') {
		/* there, but not ours: written since the fill */
		snprintf(forged, SP_ERROR_MAX, "%s; another process of yours "
		    "writes the cache", err.msg);
		return -2;
	}
	if (r != 1)
		return 0;		/* none: the runtime fills it */
	sp_pintab_free(&tab);
	if (sp_cache_believed(c, key, &buf, &len) != 1)
		return 0;
	hdr[0] = (uint32_t)strlen(key);
	hdr[1] = (uint32_t)len;
	r = write(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr) &&
	    write(fd, key, hdr[0]) == (ssize_t)hdr[0] &&
	    write(fd, buf, len) == (ssize_t)len ? 0 : -1;
	free(buf);
	return r;
}

int
run_hand_tables(const struct sp_cache *c, const char *elf, const char *rt,
    char *forged)
{
	char key[SP_CACHE_KEY_MAX], *buf, *p, *nl;
	struct sp_error err;
	ssize_t n;
	int fd = -1, r = -1;

	record_key(elf, rt, key, sizeof(key));
	if ((buf = malloc(RECORD_MAX + 1)) == NULL)
		return -1;
	n = sp_cache_get(c, key, buf, RECORD_MAX, &err);
	if (n <= (ssize_t)strlen(RECORD_MAGIC) ||
	    memcmp(buf, RECORD_MAGIC, strlen(RECORD_MAGIC)) != 0 ||
	    (fd = memfd_create("syspin-tables", MFD_ALLOW_SEALING)) == -1 ||
	    write(fd, "SYSPINTB", 8) != 8)
		goto fail;
	buf[n] = '\0';
	for (p = buf + strlen(RECORD_MAGIC); *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		*nl = '\0';
		object_key(p, key, sizeof(key));
		if (key[0] != '\0' && (r = hand_one(fd, c, key, forged)) < 0)
			goto fail;
	}
	/* a process that holds it writable (mapped) keeps the seal off
	 * (blind round 20): then the program does not run */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL) == -1) {
		snprintf(forged, SP_ERROR_MAX, "the tables' memfd cannot be "
		    "sealed (%s): another process holds it", strerror(errno));
		r = -2;
		goto fail;
	}
	free(buf);
	return fd;
fail:
	if (fd != -1)
		close(fd);
	free(buf);
	return r == -2 ? -2 : -1;
}
