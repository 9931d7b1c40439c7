/* SPDX-License-Identifier: ISC */
/*
 * escape_early MARK (attacks ldso-skip-entry, ldso-vmclone): after main
 * has started, a jump to ld.so's exec site runs /bin/mkdir MARK (early.c);
 * with ESC_EARLY=vmclone the process its start-up object made (sharing its
 * memory) jumps there, half a second into main.  ld.so runs no exec as a
 * program's interpreter.  Stopped: killed, or the exec refused.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern const char *esc_early_mark;
int esc_ldso_mkdir(void);

int
main(int argc, char **argv)
{
	const char *how = getenv("ESC_EARLY");
	int st;

	if (argc != 2)
		return 2;
	esc_early_mark = argv[1];
	if (how != NULL && strcmp(how, "vmclone") == 0) {
		if (wait(&st) == -1)
			return 3;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	return esc_ldso_mkdir();
}
