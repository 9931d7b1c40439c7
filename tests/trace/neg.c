/* SPDX-License-Identifier: ISC */
/*
 * System calls pinning must kill, for `syspin trace` to report:
 *   neg jit FILE     mov $39,%eax; syscall; ret  written to anonymous
 *                    RWX memory and called (no object backs it)
 *   neg int80 FILE   int $0x80 (i386 getpid) from the program's own text
 *   neg gadget FILE  a syscall whose opcode bytes sit inside another
 *                    instruction (a ROP gadget: no trap site there)
 *   neg dlsym FILE   libc's syscall(SYS_getppid) through dlsym: no object
 *                    imports syscall() with that number, so its site
 *                    (an export completed by importers) must not allow it
 *   neg import FILE  syscall(SYS_getpid) through the PLT: covered (exit 0)
 *   neg deleted FILE copies itself to FILE, runs the copy, which unlinks
 *                    its own file and then issues getpid from its own text
 *                    (a constant site): covered (exit 0) if trace reads
 *                    the deleted object through /proc/PID/map_files
 * FILE receives the address trace must report, in hex: absolute for jit,
 * link-time (from the ELF header of this PIE) otherwise.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

extern const char __ehdr_start[];
extern char int80_site[], gadget_host[];
long i386_getpid(void);
long via_gadget(void);
long own_getpid(void);

__asm__(
    ".text\n"
    ".globl i386_getpid\n"
    ".type i386_getpid, @function\n"
    "i386_getpid:\n"
    "	movl $20, %eax\n"		/* i386 getpid */
    ".globl int80_site\n"
    "int80_site:\n"
    "	int $0x80\n"
    "	ret\n"
    ".size i386_getpid, .-i386_getpid\n"
    ".globl gadget_host\n"
    ".type gadget_host, @function\n"
    "gadget_host:\n"
    "	movl $0xc3050f, %ecx\n"	/* b9 0f 05 c3 00: syscall; ret */
    "	ret\n"
    ".size gadget_host, .-gadget_host\n"
    ".globl via_gadget\n"
    ".type via_gadget, @function\n"
    "via_gadget:\n"
    "	movl $39, %eax\n"		/* getpid */
    "	leaq gadget_host+1(%rip), %rdx\n"
    "	jmp *%rdx\n"
    ".size via_gadget, .-via_gadget\n"
    ".globl own_getpid\n"
    ".type own_getpid, @function\n"
    "own_getpid:\n"
    "	movl $39, %eax\n"
    "	syscall\n"
    "	ret\n"
    ".size own_getpid, .-own_getpid\n");

static const unsigned char jit_code[] = {
	0xb8, 0x27, 0x00, 0x00, 0x00,	/* mov $39,%eax */
	0x0f, 0x05,			/* syscall */
	0xc3,				/* ret */
};

static int
save(const char *file, uintptr_t addr)
{
	FILE *f = fopen(file, "w");

	if (f == NULL || fprintf(f, "%#lx\n", (unsigned long)addr) < 0 ||
	    fclose(f) != 0) {
		perror(file);
		return -1;
	}
	return 0;
}

static int
jit(const char *file)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE |
	    PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long (*fn)(void);

	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(p, jit_code, sizeof(jit_code));
	if (save(file, (uintptr_t)p + 5) == -1)
		return 1;
	fn = (long (*)(void))(void *)p;
	return fn() > 0 ? 0 : 1;
}

static int
by_dlsym(void)
{
	long (*fn)(long, ...);

	*(void **)&fn = dlsym(RTLD_DEFAULT, "syscall");
	if (fn == NULL)
		return 1;
	return fn(SYS_getppid) > 0 ? 0 : 1;
}

static int
copy_and_run(const char *file)
{
	struct stat st;
	int in = open("/proc/self/exe", O_RDONLY), out;

	out = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in == -1 || out == -1 || fstat(in, &st) == -1 ||
	    sendfile(out, in, NULL, st.st_size) != st.st_size ||
	    close(out) == -1) {
		perror(file);
		return 1;
	}
	close(in);
	execl(file, file, "deleted-run", file, (char *)NULL);
	perror(file);
	return 1;
}

int
main(int argc, char **argv)
{
	uintptr_t base = (uintptr_t)__ehdr_start;

	if (argc != 3)
		return 2;
	if (strcmp(argv[1], "jit") == 0)
		return jit(argv[2]);
	if (strcmp(argv[1], "int80") == 0) {
		if (save(argv[2], (uintptr_t)int80_site - base) == -1)
			return 1;
		return i386_getpid() > 0 ? 0 : 1;
	}
	if (strcmp(argv[1], "gadget") == 0) {
		if (save(argv[2], (uintptr_t)gadget_host + 1 - base) == -1)
			return 1;
		return via_gadget() > 0 ? 0 : 1;
	}
	if (strcmp(argv[1], "deleted") == 0)
		return copy_and_run(argv[2]);
	if (strcmp(argv[1], "deleted-run") == 0)
		return unlink(argv[2]) == 0 && own_getpid() > 0 ? 0 : 1;
	if (strcmp(argv[1], "dlsym") == 0)
		return by_dlsym();
	if (strcmp(argv[1], "import") == 0)
		return syscall(SYS_getpid) > 0 ? 0 : 1;
	return 2;
}
