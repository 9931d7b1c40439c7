/* SPDX-License-Identifier: ISC */
/*
 * Error reporting shared by every libsyspin module.
 *
 * Functions that can fail take a struct sp_error * and fill it with one
 * human-readable sentence ("truncated program header table").  The caller
 * prefixes it with the file name when printing: "syspin: FILE: msg".
 */
#ifndef SYSPIN_ERROR_H
#define SYSPIN_ERROR_H

#define SP_ERROR_MAX 256

struct sp_error {
	char msg[SP_ERROR_MAX];
};

/* Sets err->msg (printf-style); err may be NULL.  Always returns -1. */
int sp_error_set(struct sp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
