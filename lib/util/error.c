/* SPDX-License-Identifier: ISC */
#include <stdarg.h>
#include <stdio.h>

#include <syspin/error.h>

int
sp_error_set(struct sp_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}
