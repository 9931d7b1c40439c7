/* SPDX-License-Identifier: ISC */
/*
 * escape_victim INFO MARK: a process outside the pinned tree (battery.sh
 * starts it), the target of the ptrace/mem/process_vm/pidfd attacks.  It
 * holds a file open, writes "PID FLAG-ADDRESS FD" to INFO, then polls
 * `flag`: when someone else sets it to 1 it creates MARK.  It exits after
 * 60 s in any case.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile int flag;

int
main(int argc, char **argv)
{
	char tmp[4096], held[4096];
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	FILE *f;
	int fd;

	if (argc != 3)
		return 2;
	snprintf(held, sizeof(held), "%s.held", argv[1]);
	if ((fd = open(held, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1)
		return 1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	if ((f = fopen(tmp, "w")) == NULL)
		return 1;
	fprintf(f, "%d %lx %d\n", (int)getpid(), (unsigned long)&flag, fd);
	if (fclose(f) != 0 || rename(tmp, argv[1]) == -1)
		return 1;
	for (int i = 0; i < 6000; i++) {
		if (flag == 1)
			return mkdir(argv[2], 0755) == 0 ? 0 : 1;
		nanosleep(&ts, NULL);
	}
	return 1;
}
