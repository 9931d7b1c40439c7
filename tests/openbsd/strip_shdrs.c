/* SPDX-License-Identifier: ISC */
/*
 * strip_shdrs IN OUT: copies an ELF64 file with its section header table
 * forgotten (e_shoff, e_shnum, e_shstrndx = 0), as sstrip does, so that a
 * reader can only find the pin table through PT_OPENBSD_SYSCALLS.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (buf = malloc(n ? n : 1)) == NULL ||
	    fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	} else
		*len = n;
	if (f != NULL)
		fclose(f);
	return buf;
}

int
main(int argc, char **argv)
{
	Elf64_Ehdr eh;
	unsigned char *buf;
	size_t len;
	FILE *out;

	if (argc != 3) {
		fprintf(stderr, "usage: strip_shdrs IN OUT\n");
		return 2;
	}
	if ((buf = slurp(argv[1], &len)) == NULL || len < sizeof(eh) ||
	    memcmp(buf, ELFMAG, SELFMAG) != 0 || buf[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "strip_shdrs: %s: not an ELF64 file\n", argv[1]);
		return 1;
	}
	memcpy(&eh, buf, sizeof(eh));
	eh.e_shoff = 0;
	eh.e_shnum = 0;
	eh.e_shstrndx = SHN_UNDEF;
	memcpy(buf, &eh, sizeof(eh));
	if ((out = fopen(argv[2], "wb")) == NULL ||
	    fwrite(buf, 1, len, out) != len || fclose(out) != 0) {
		fprintf(stderr, "strip_shdrs: %s: cannot write\n", argv[2]);
		return 1;
	}
	chmod(argv[2], 0755);
	free(buf);
	return 0;
}
