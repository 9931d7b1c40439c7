/* SPDX-License-Identifier: ISC */
/*
 * Objects for the start-up resolver's tests, one per -DFN: a function that
 * calls -DCALL when given (so the link needs that library), or, with
 * -DMAIN, the program.  tests/needed/meson.build links each with the
 * DT_RPATH / DT_RUNPATH / DT_NEEDED it needs.
 */
#ifdef MAIN
int
main(void)
{
	return 0;
}
#else
#ifdef CALL
int CALL(void);
#endif

int FN(void);

int
FN(void)
{
#ifdef CALL
	return CALL() + 1;
#else
	return 1;
#endif
}
#endif
