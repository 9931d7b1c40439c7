/* SPDX-License-Identifier: ISC */
/*
 * Error reporting shared by every libsyspin module.
 *
 * Functions that can fail take a struct sp_error * and fill it with one
 * human-readable sentence ("truncated program header table").  The caller
 * prefixes it with the file name when printing: "syspin: FILE: msg".
 * When a system call failed, code is its errno value (the caller decides
 * on it, not on errno, which later calls may have changed); else 0.
 */
#ifndef SYSPIN_UTIL_ERROR_H
#define SYSPIN_UTIL_ERROR_H

#define SP_ERROR_MAX 256

struct sp_error {
	char msg[SP_ERROR_MAX];
	int code;		/* errno of the failed system call, or 0 */
};

/* Sets err->msg (printf-style, made printable) and code 0; err may be
 * NULL.  Returns -1. */
int sp_error_set(struct sp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * After a system call failed with errno value code: err->msg is fmt's
 * text, ": " and strerror(code) (fmt NULL: strerror(code) alone), and
 * err->code is code.  err may be NULL.  Returns -1.
 */
int sp_error_sys(struct sp_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Control characters in s (a file name, a process name: anyone's bytes)
 * made '?': a message is one line on a terminal, whatever it names.
 * sp_error_set and sp_error_sys do it to every message.
 */
void sp_error_printable(char *s);

#endif
