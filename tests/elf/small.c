/* SPDX-License-Identifier: ISC */
/* A small shared object for the ELF reader's bad-input tests. */
int small_counter;

int
small_fn(int x)
{
	return x + small_counter;
}

long
small_getpid(void)
{
	long r;

	__asm__ volatile ("syscall" : "=a"(r) : "0"(39L) : "rcx", "r11",
	    "memory");
	return r;
}
