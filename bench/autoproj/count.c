/* SPDX-License-Identifier: ISC */
#include "config.h"
#include <stdlib.h>
#include <string.h>

#include "count.h"

int
words_add(struct words *ws, const char *w)
{
	for (size_t i = 0; i < ws->n; i++)
		if (strcmp(ws->v[i].w, w) == 0) {
			ws->v[i].n++;
			return 0;
		}
	if (ws->n == ws->cap) {
		size_t cap = ws->cap ? 2 * ws->cap : 64;
		struct word *v = realloc(ws->v, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		ws->v = v;
		ws->cap = cap;
	}
	if ((ws->v[ws->n].w = strdup(w)) == NULL)
		return -1;
	ws->v[ws->n++].n = 1;
	return 0;
}

static int
cmp(const void *a, const void *b)
{
	const struct word *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->w, y->w);
}

void
words_sort(struct words *ws)
{
	qsort(ws->v, ws->n, sizeof(*ws->v), cmp);
}
