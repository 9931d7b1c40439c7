/* SPDX-License-Identifier: ISC */
#include "analysis/scan.h"

const char *
sp_trap_kind_name(enum sp_trap_kind kind)
{
	switch (kind) {
	case SP_TRAP_SYSCALL: return "syscall";
	case SP_TRAP_INT80: return "int 0x80";
	case SP_TRAP_SYSENTER: return "sysenter";
	}
	return "?";
}

const char *
sp_how_name(enum sp_how how)
{
	switch (how) {
	case SP_HOW_CONSTANT: return "constant";
	case SP_HOW_CALLERS: return "callers";
	case SP_HOW_PIN_SECTION: return "pin section";
	case SP_HOW_EXPORT: return "export";
	case SP_HOW_UNRESOLVED: return "unresolved";
	}
	return "?";
}

const char *
sp_reg_name(int reg)
{
	static const char *names[SP_NREGS] = { "rax", "rcx", "rdx", "rbx",
	    "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",
	    "r13", "r14", "r15" };

	if (reg >= 0 && reg < SP_NREGS)
		return names[reg];
	if (reg >= 16 && reg < 16 + 6) {
		static const char *stack[] = { "stack0", "stack1", "stack2",
		    "stack3", "stack4", "stack5" };
		return stack[reg - 16];
	}
	return "none";
}
