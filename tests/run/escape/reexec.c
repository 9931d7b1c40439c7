/* SPDX-License-Identifier: ISC */
/*
 * Blind round 7: a program re-exec'ing itself is moved onto the addresses
 * its earlier image's filter pins, and judged by it (lib/supervise/
 * reuse.c): nothing new is installed.  `escape_reexec MARK`: a copy of
 * this program, X, is written and exec'd; X execs this program again,
 * which rewrites X's file in place, its data segment made executable,
 * puts the file's times back (the same device, inode, size and mtime:
 * only ctime moved) and execs X (X -> this -> X: X's filter is still the
 * process's); the new X writes a raw mkdir into that segment and calls
 * it.
 * The earlier filter knows nothing of that code: a supervisor that
 * believes the file unchanged lets it make any call.  Stopped: the new X
 * pinned afresh (its segment judged as its own code, which makes no such
 * call), or not run at all.  Exit 0 MARK made, 3 not.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* In the data segment: mov $83, %eax; syscall; ret (written at run). */
static unsigned char stub[64] = { 1 };

static int
refused(const char *what)
{
	printf("refused: %s\n", what);
	return 3;
}

static int
rewrite(const char *x)
{
	struct timespec ts[2];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	struct stat st;
	int fd, n = 0;

	if (stat(x, &st) == -1 || (fd = open(x, O_RDWR)) == -1)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return -1;
	for (int i = 0; i < eh.e_phnum; i++) {
		off_t o = (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph));
		if (pread(fd, &ph, sizeof(ph), o) != sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W)) {
			ph.p_flags |= PF_X;
			if (pwrite(fd, &ph, sizeof(ph), o) != sizeof(ph))
				return -1;
			n++;
		}
	}
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	if (futimens(fd, ts) == -1)
		return -1;
	close(fd);
	return n > 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	static const unsigned char code[] = { 0xb8, 83, 0, 0, 0, 0x0f, 0x05,
		0xc3 };
	char x[4096];
	long (*call)(const char *, long);
	int in, out;
	ssize_t k;

	if (argc < 2)
		return 2;
	snprintf(x, sizeof(x), "%s.x", argv[1]);
	if (argc == 2) {		/* write X, run it */
		char buf[65536], self[4096];
		if ((k = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
			return refused("readlink");
		self[k] = '\0';
		if ((in = open("/proc/self/exe", O_RDONLY)) == -1 ||
		    (out = open(x, O_WRONLY | O_CREAT | O_TRUNC, 0755)) == -1)
			return refused("copy");
		while ((k = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)k) != k)
				return refused("copy");
		close(in);
		close(out);
		execl(x, x, argv[1], "first", self, (char *)NULL);
		return refused("exec X");
	}
	if (strcmp(argv[2], "first") == 0 && argc > 3) {	/* X: to us */
		execl(argv[3], argv[3], argv[1], "rewrite", (char *)NULL);
		return refused("exec the rewriter");
	}
	if (strcmp(argv[2], "rewrite") == 0) {
		if (rewrite(x) == -1)
			return refused("rewrite X in place");
		execl(x, x, argv[1], "run", (char *)NULL);
		return refused("exec X again");
	}
	memcpy(stub, code, sizeof(code));
	call = (long (*)(const char *, long))(void *)stub;
	printf("mkdir from the data segment: %ld\n", call(argv[1], 0755));
	return access(argv[1], F_OK) == 0 ? 0 : 3;
}
