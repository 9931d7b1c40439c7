/* SPDX-License-Identifier: ISC */
/* Field-by-field corruptions of a good ELF image (mutations.c). */
#ifndef SYSPIN_TESTS_MUTATIONS_H
#define SYSPIN_TESTS_MUTATIONS_H

#include "image.h"

/* The good image every mutation starts from. */
extern struct image small;

void test_mutations(void **state);
void test_eh_frame(void **state);
void test_foreign(void **state);

#endif
