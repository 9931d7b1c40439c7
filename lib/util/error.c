/* SPDX-License-Identifier: ISC */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

void
sp_error_printable(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int
sp_error_set(struct sp_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	sp_error_printable(err->msg);
	err->code = 0;
	return -1;
}

int
sp_error_sys(struct sp_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	size_t n = 0;
	int k;

	if (err == NULL)
		return -1;
	err->msg[0] = '\0';
	if (fmt != NULL) {
		va_start(ap, fmt);
		k = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		n = k < 0 ? 0 : (size_t)k < sizeof(err->msg) ? (size_t)k :
		    sizeof(err->msg) - 1;
	}
	snprintf(err->msg + n, sizeof(err->msg) - n, "%s%s",
	    n > 0 ? ": " : "", strerror(code));
	sp_error_printable(err->msg);
	err->code = code;
	return -1;
}
