/* SPDX-License-Identifier: ISC */
/* escape_dtaudit (attack dt-audit): a program whose DT_AUDIT names
 * libescape_audit.so, found through LD_LIBRARY_PATH.  ld.so runs the
 * module's la_version() before the program's first instruction, in
 * whatever process runs ld.so on it: `ld.so --list` too. */
int
main(void)
{
	return 0;
}
