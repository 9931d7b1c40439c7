/* SPDX-License-Identifier: ISC */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "count.h"

int
main(void)
{
	struct words ws = { NULL, 0, 0 };
	char w[256];
	size_t n = 0;
	int c;

	while ((c = getchar()) != EOF || n > 0) {
		if (c != EOF && isalpha(c) && n < sizeof(w) - 1) {
			w[n++] = (char)tolower(c);
			continue;
		}
		if (n > 0) {
			w[n] = '\0';
			n = 0;
			if (words_add(&ws, w) == -1)
				return 1;
		}
		if (c == EOF)
			break;
	}
	words_sort(&ws);
	for (size_t i = 0; i < ws.n && i < 10; i++)
		printf("%u %s\n", ws.v[i].n, ws.v[i].w);
	return 0;
}
