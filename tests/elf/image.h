/* SPDX-License-Identifier: ISC */
/*
 * Test helpers: an ELF image in memory that tests corrupt field by field,
 * and running the reader (and the scanner, once it links) on it.
 */
#ifndef SYSPIN_TESTS_IMAGE_H
#define SYSPIN_TESTS_IMAGE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/elf.h"

struct image {
	uint8_t *data;
	size_t size;
};

/* Reads PATH whole.  Aborts on failure (test setup). */
void image_load(struct image *im, const char *path);
void image_copy(struct image *dst, const struct image *src);
void image_free(struct image *im);

Elf64_Ehdr *img_ehdr(struct image *im);
/* The first program header of TYPE, or NULL. */
Elf64_Phdr *img_phdr(struct image *im, uint32_t type);
/* The section header named NAME, or NULL. */
Elf64_Shdr *img_shdr(struct image *im, const char *name);
/* The dynamic entry with TAG, or NULL. */
Elf64_Dyn *img_dyn(struct image *im, int64_t tag);
/* File offset of virtual address VADDR (via PT_LOAD), or 0. */
uint64_t img_off(struct image *im, uint64_t vaddr);

/*
 * Runs sp_elf_from_memory on [data, size) and, when it succeeds, sp_scan
 * (if linked).  Returns the reader's result; msg gets its error or "".
 * warning (may be NULL) gets the reader's warning.
 */
int try_image(const void *data, size_t size, char *msg, size_t msgsz,
    char *warning, size_t wsz);

/* End of the file data of the last PT_LOAD (no valid prefix is shorter). */
uint64_t loads_end(const struct image *im);

#endif
