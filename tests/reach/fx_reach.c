/* SPDX-License-Identifier: ISC */
/*
 * What reaches a system call: 500 nothing (pruned), 501 a function
 * pointer, 502 a constructor (.init_array), 503 a tail jump, 504 a case
 * of a jump table, 505 and 508 a call through the PLT into another
 * object.
 * DLSYM_CONST looks lib_named up by a constant name, DLSYM_ANY looks up
 * whatever argv[1] names (every export reachable).  DLSYM_WRAPPED looks
 * names up through a function of its own, which its callers give
 * constants (nginx's module loader); DLSYM_WRAPPED_ANY gives it argv[1]
 * too.
 */
#include <dlfcn.h>

#include "fx_reach.h"

__attribute__((used, noinline)) static void dead(void) { SYS(500); }
__attribute__((noinline)) static void by_pointer(void) { SYS(501); }
__attribute__((constructor)) static void by_init(void) { SYS(502); }

void (*volatile fp)(void) = by_pointer;

/* A tail jump: `jmp tail_target` ends tail_caller. */
__asm__(".text\n"
    ".type tail_target,@function\n"
    "tail_target:\n"
    "	.cfi_startproc\n"
    "	mov $503, %eax\n"
    "	syscall\n"
    "	ret\n"
    "	.cfi_endproc\n"
    ".size tail_target, .-tail_target\n"
    ".globl tail_caller\n"
    ".type tail_caller,@function\n"
    "tail_caller:\n"
    "	.cfi_startproc\n"
    "	nop\n"
    "	jmp tail_target\n"
    "	.cfi_endproc\n"
    ".size tail_caller, .-tail_caller\n");
void tail_caller(void);

__attribute__((noinline)) static int
dispatch(int c)
{
	switch (c) {
	case 0: return 10;
	case 1: return 13;
	case 2: return 17;
	case 3: SYS(504); return 19;
	case 4: return 23;
	case 5: return 29;
	case 6: return 31;
	default: return 0;
	}
}

#if defined(DLSYM_WRAPPED) || defined(DLSYM_WRAPPED_ANY)
/* noipa: no copy of it specialised for a constant name (clang has no
 * noipa; optnone keeps the call and the parameter as written) */
#ifdef __clang__
#define NOIPA __attribute__((noinline, optnone))
#else
#define NOIPA __attribute__((noipa))
#endif
NOIPA static void *
lookup(void *handle, const char *name)
{
	return dlsym(handle, name);
}

NOIPA static void
call_named(void)
{
	((void (*)(void))lookup(RTLD_DEFAULT, "lib_named"))();
}
#endif

int
main(int argc, char **argv)
{
	(void)argv;
	fp();
	tail_caller();
	lib_used();
	lib_typed();
#if defined(DLSYM_CONST)
	((void (*)(void))dlsym(RTLD_DEFAULT, "lib_named"))();
#elif defined(DLSYM_ANY)
	((void (*)(void))dlsym(RTLD_DEFAULT, argv[1]))();
#elif defined(DLSYM_WRAPPED)
	call_named();
	((void (*)(void))lookup(RTLD_DEFAULT, argc > 5 ? "lib_used" :
	    "lib_typed"))();
#elif defined(DLSYM_WRAPPED_ANY)
	call_named();
	((void (*)(void))lookup(RTLD_DEFAULT, argv[1]))();
#endif
	return dispatch(argc);
}
