/* SPDX-License-Identifier: ISC */
#include "cli.h"

int
cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("run: not built yet");
	return EXIT_TROUBLE;
}
