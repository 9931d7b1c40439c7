/* SPDX-License-Identifier: ISC */
#include "cli.h"

int
cmd_scan(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("scan: not built yet");
	return EXIT_TROUBLE;
}
