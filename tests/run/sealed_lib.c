/* SPDX-License-Identifier: ISC */
/* A start-up object whose segments are aligned to 2 MiB (meson.build):
 * ld.so unmaps the slack of the room it reserves for it. */
int sealed_align_mark(void);

int
sealed_align_mark(void)
{
	return 42;
}
