/* SPDX-License-Identifier: ISC */
/*
 * The dynamic sections of files read before, by identity.  A file's
 * identity (device, inode, size, mtime and ctime: struct sp_file_id, as
 * the cache keys tables) stands for its bytes, so the supervisor's next
 * prediction of the same start-up objects (every exec of a program) reads
 * none of them again: a changed file has another identity.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "elf/dynamic.h"
#include "pins/cache.h"
#include "util/file.h"

#include "needed_int.h"

#define DYN_MEMO 64

static struct {
	bool used;
	struct sp_file_id id;
	struct sp_dyn dyn;
} memo[DYN_MEMO];
static size_t memo_next;

int
sp_nd_dyn_read(int fd, bool path_fd, const struct sp_file_id *id,
    struct sp_dyn *out, struct sp_error *err)
{
	size_t i;
	int rfd = fd, r;

	for (i = 0; i < DYN_MEMO; i++)
		if (memo[i].used && memcmp(&memo[i].id, id, sizeof(*id)) == 0)
			return sp_dyn_copy(out, &memo[i].dyn) == 0 ? 0 :
			    sp_error_set(err, "out of memory");
	if (path_fd && (rfd = sp_open_path_fd(fd)) == -1)
		return sp_error_set(err, "cannot open it");
	r = sp_dyn_read_fd(rfd, out, err);
	if (path_fd)
		close(rfd);
	if (r == -1)
		return -1;
	i = memo_next++ % DYN_MEMO;
	if (memo[i].used)
		sp_dyn_free(&memo[i].dyn);
	memo[i].used = sp_dyn_copy(&memo[i].dyn, out) == 0;
	memo[i].id = *id;
	return 0;
}
