/* SPDX-License-Identifier: ISC */
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

const char *
syscall_name(enum sp_trap_kind kind, uint32_t nr, char *buf, unsigned size)
{
	uint32_t arch = kind == SP_TRAP_SYSCALL ? SCMP_ARCH_X86_64 :
	    SCMP_ARCH_X86;
	char *name = seccomp_syscall_resolve_num_arch(arch, (int)nr);

	if (name == NULL) {
		snprintf(buf, size, "#%u", nr);
	} else {
		snprintf(buf, size, "%s", name);
		free(name);
	}
	return buf;
}
