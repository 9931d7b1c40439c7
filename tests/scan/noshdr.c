/* SPDX-License-Identifier: ISC */
/*
 * noshdr IN OUT: copies an ELF64 file and removes its section header
 * table from the header (e_shoff, e_shnum, e_shstrndx = 0), the way
 * some packers and sstrip leave binaries.  The loader never reads it.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	Elf64_Ehdr eh;
	FILE *in, *out;
	char buf[65536];
	size_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: noshdr IN OUT\n");
		return 2;
	}
	if ((in = fopen(argv[1], "rb")) == NULL ||
	    (out = fopen(argv[2], "wb")) == NULL) {
		perror("noshdr");
		return 1;
	}
	if (fread(&eh, sizeof(eh), 1, in) != 1 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "noshdr: %s: not an ELF64 file\n", argv[1]);
		return 1;
	}
	eh.e_shoff = 0;
	eh.e_shnum = 0;
	eh.e_shstrndx = 0;
	if (fwrite(&eh, sizeof(eh), 1, out) != 1)
		return 1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			return 1;
	return fclose(out) == 0 && fclose(in) == 0 ? 0 : 1;
}
