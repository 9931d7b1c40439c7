/* SPDX-License-Identifier: ISC */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "analysis/scan.h"

#include "image.h"

void
image_load(struct image *im, const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "cannot read %s\n", path);
		abort();
	}
	im->size = (size_t)n;
	im->data = malloc(im->size);
	if (im->data == NULL || fread(im->data, 1, im->size, f) != im->size)
		abort();
	fclose(f);
}

void
image_copy(struct image *dst, const struct image *src)
{
	dst->size = src->size;
	dst->data = malloc(src->size);
	if (dst->data == NULL)
		abort();
	memcpy(dst->data, src->data, src->size);
}

void
image_free(struct image *im)
{
	free(im->data);
	im->data = NULL;
	im->size = 0;
}

Elf64_Ehdr *
img_ehdr(struct image *im)
{
	return (Elf64_Ehdr *)(void *)im->data;
}

Elf64_Phdr *
img_phdr(struct image *im, uint32_t type)
{
	Elf64_Ehdr *eh = img_ehdr(im);
	Elf64_Phdr *ph = (Elf64_Phdr *)(void *)(im->data + eh->e_phoff);

	for (size_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == type)
			return &ph[i];
	return NULL;
}

Elf64_Shdr *
img_shdr(struct image *im, const char *name)
{
	Elf64_Ehdr *eh = img_ehdr(im);
	Elf64_Shdr *sh = (Elf64_Shdr *)(void *)(im->data + eh->e_shoff);
	const char *str;

	if (eh->e_shoff == 0 || eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	str = (const char *)im->data + sh[eh->e_shstrndx].sh_offset;
	for (size_t i = 0; i < eh->e_shnum; i++)
		if (strcmp(str + sh[i].sh_name, name) == 0)
			return &sh[i];
	return NULL;
}

uint64_t
img_off(struct image *im, uint64_t vaddr)
{
	Elf64_Ehdr *eh = img_ehdr(im);
	Elf64_Phdr *ph = (Elf64_Phdr *)(void *)(im->data + eh->e_phoff);

	for (size_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr - ph[i].p_vaddr < ph[i].p_filesz)
			return ph[i].p_offset + (vaddr - ph[i].p_vaddr);
	return 0;
}

Elf64_Dyn *
img_dyn(struct image *im, int64_t tag)
{
	Elf64_Phdr *ph = img_phdr(im, PT_DYNAMIC);
	Elf64_Dyn *d;

	if (ph == NULL)
		return NULL;
	d = (Elf64_Dyn *)(void *)(im->data + ph->p_offset);
	for (size_t i = 0; i < ph->p_filesz / sizeof(*d); i++) {
		if (d[i].d_tag == DT_NULL)
			break;
		if (d[i].d_tag == tag)
			return &d[i];
	}
	return NULL;
}

uint64_t
loads_end(const struct image *im)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(const void *)im->data;
	const Elf64_Phdr *ph;
	uint64_t end = 0;

	ph = (const Elf64_Phdr *)(const void *)(im->data + eh->e_phoff);
	for (size_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD &&
		    ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	return end;
}

int
try_image(const void *data, size_t size, char *msg, size_t msgsz,
    char *warning, size_t wsz)
{
	struct sp_error err = { { 0 }, 0 };
	struct sp_elf elf;

	msg[0] = '\0';
	if (warning != NULL)
		warning[0] = '\0';
	if (sp_elf_from_memory(&elf, data, size, "image", &err) != 0) {
		snprintf(msg, msgsz, "%s", err.msg);
		return -1;
	}
	if (warning != NULL)
		snprintf(warning, wsz, "%s", elf.warning);
	struct sp_scan scan;
	struct sp_scan_opts opts = { 0 };
	if (sp_scan(&elf, &opts, &scan, &err) == 0)
		sp_scan_free(&scan);
	sp_elf_close(&elf);
	return 0;
}
