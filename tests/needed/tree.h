/* SPDX-License-Identifier: ISC */
/* Scratch trees of fixture objects, and what the real ld.so says. */
#ifndef TESTS_NEEDED_TREE_H
#define TESTS_NEEDED_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "layout/needed.h"

#define LDSO "/lib64/ld-linux-x86-64.so.2"

/* A fresh directory under /tmp (its real path) with the fixtures:
 *   prog                          nd_prog, DT_RUNPATH $ORIGIN/lib
 *   lib/libnd_a.so                DT_RUNPATH $ORIGIN/deps
 *   lib/deps/libnd_dep.so
 *   lib/libnd_r1.so               DT_RPATH $ORIGIN/rchain
 *   lib/rchain/libnd_r2.so        DF_1_NODEFLIB, needs libnd_r3.so
 *   lib/rchain/libnd_r3.so        only through libnd_r1's DT_RPATH
 *   lib/glibc-hwcaps/x86-64-v2/libnd_hw.so
 *   llp/libnd_llp.so              only through LD_LIBRARY_PATH
 *   llpx/libnd_llp.so             e_machine AArch64: ld.so skips it
 *   llp0/libnd_llp.so             not ELF (ld.so would fail on it)
 *   pre/libnd_pre.so
 *   cached/libnd_cached.so        only through ldcache (below)
 *   ldcache                       an ld.so.cache: libnd_cached.so
 * libnd_missing.so is left out.
 */
void tree_make(char *root, size_t size, const char *builddir);
void tree_remove(const char *root);

/* root + "/" + rel, kept until the test program exits. */
const char *tree_at(const char *root, const char *rel);

char *tree_read(const char *path, size_t *len);
void tree_copy(const char *from, const char *to);
void tree_write(const char *path, const void *data, size_t len);
void tree_mkdirs(const char *path);

/* The object at path (by dev/ino) in n, or NULL. */
const struct sp_needed_obj *tree_find(const struct sp_needed *n,
    const char *path);

/*
 * ld.so --list PROG in the environment envp: the paths it prints (the
 * vDSO and "not found" left out), malloc'ed; -1 when it could not run.
 * With trace, LD_TRACE_LOADED_OBJECTS=1 ld.so PROG instead (what ldd
 * runs): the same search, but a missing library is not fatal.
 */
int ldso_list(const char *prog, char *const envp[], bool trace,
    char ***paths, size_t *npaths);
void free_paths(char **paths, size_t n);

#endif
