/* SPDX-License-Identifier: ISC */
struct word {
	char *w;
	unsigned n;
};

struct words {
	struct word *v;
	size_t n, cap;
};

int words_add(struct words *ws, const char *w);
void words_sort(struct words *ws);
