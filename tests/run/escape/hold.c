/* SPDX-License-Identifier: ISC */
/*
 * The battery's attach mode (battery.sh): preloaded into an attack, this
 * constructor holds the process before main until `syspin run -p` has
 * attached and pinned it, so the attack's own code runs only after the
 * attach, as code a server runs on request would.  It writes its pid to
 * $ESC_HOLD (renamed into place when whole), then waits until it is
 * traced and filtered; after 20 s alone it exits 98.  Both variables are
 * taken out of the environment: what the attack runs is not held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
pinned(void)
{
	char line[128];
	long tracer = 0, mode = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		(void)sscanf(line, "TracerPid: %ld", &tracer);
		(void)sscanf(line, "Seccomp: %ld", &mode);
	}
	fclose(f);
	return tracer != 0 && mode == 2;
}

__attribute__((constructor)) static void
hold(void)
{
	const char *path = getenv("ESC_HOLD");
	struct timespec t = { 0, 5000000 };
	char tmp[4096];
	FILE *f;

	unsetenv("LD_PRELOAD");
	if (path == NULL || *path == '\0')
		return;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp) ||
	    (f = fopen(tmp, "w")) == NULL)
		_exit(98);
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		_exit(98);
	unsetenv("ESC_HOLD");
	for (int i = 0; i < 4000; i++) {
		if (pinned())
			return;
		nanosleep(&t, NULL);
	}
	_exit(98);
}
