/* SPDX-License-Identifier: ISC */
/*
 * Stage 4: a process's executable mappings -> placed pins.
 *
 * The runtime builds an sp_layout of its own process (every executable
 * mapping, attributed to a loaded object, the vDSO, the vsyscall page, or
 * nothing), attaches each object's pin table, and places the pins at run-time
 * addresses: ip = base + site addr + length.  An executable mapping without a
 * table still becomes a pinned range, with no pins: nothing may trap there.
 *
 * Lean code only (libc): this is linked into the runtime.
 */
#ifndef SYSPIN_LAYOUT_H
#define SYSPIN_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <syspin/bpf.h>
#include <syspin/cache.h>
#include <syspin/error.h>

/* ---- /proc/PID/maps ---- */

enum sp_map_kind {
	SP_MAP_FILE,		/* backed by a path */
	SP_MAP_ANON,		/* no name */
	SP_MAP_VDSO,		/* [vdso] */
	SP_MAP_VSYSCALL,	/* [vsyscall] */
	SP_MAP_SPECIAL,		/* [stack], [heap], [vvar], [anon:...] */
};

struct sp_map {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t dev;		/* makedev(major, minor) */
	uint64_t inode;
	unsigned prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	bool shared;
	bool deleted;		/* " (deleted)" was stripped from path */
	enum sp_map_kind kind;
	char *path;		/* malloc'ed; "" when anonymous */
};

/*
 * Parses one line (without its newline).  The path is everything after the
 * inode and its padding, spaces included.  The kernel escapes only '\n' in
 * names (as "\012"), so a path is used to find a file, never trusted: the
 * caller checks that (dev, inode) match what stat() finds there.
 */
int sp_maps_parse_line(const char *line, size_t len, struct sp_map *m,
    struct sp_error *err);

/* Parses a whole maps text.  Returns 0 and *maps / *nmaps, or -1. */
int sp_maps_parse(const char *text, size_t len, struct sp_map **maps,
    size_t *nmaps, struct sp_error *err);

/* Reads and parses a maps file ("/proc/self/maps"). */
int sp_maps_read(const char *file, struct sp_map **maps, size_t *nmaps,
    struct sp_error *err);

void sp_maps_free(struct sp_map *maps, size_t nmaps);

/* ---- process layout ---- */

enum sp_obj_kind {
	SP_OBJ_FILE,		/* ELF object loaded by ld.so */
	SP_OBJ_VDSO,
	SP_OBJ_VSYSCALL,	/* fixed kernel ABI: three entry points */
	SP_OBJ_UNKNOWN,		/* executable, but nothing we can analyse */
};

struct sp_object {
	char *name;		/* path, "[vdso]", "[vsyscall]", "[anon]" */
	enum sp_obj_kind kind;
	uint64_t base;		/* load bias: ip = base + site addr + len */
	uint64_t image;		/* SP_OBJ_VDSO: address of the ELF header */
	uint64_t image_size;	/* SP_OBJ_VDSO: bytes of the image */
	bool have_id;
	struct sp_file_id id;	/* SP_OBJ_FILE, checked against maps */
	uint8_t build_id[SP_CACHE_BUILD_ID_MAX];
	size_t build_id_len;
	char key[SP_CACHE_KEY_MAX]; /* "" when no table can exist */
	bool have_tab;		/* else: empty table */
	bool loader;		/* the image's ld.so: SP_BPF_PIN_LOADER */
	struct sp_pintab tab;
};

struct sp_layout_range {
	uint64_t start;
	uint64_t end;
	size_t obj;
};

struct sp_layout {
	struct sp_object *objs;
	size_t nobjs;
	struct sp_layout_range *ranges;	/* every executable mapping */
	size_t nranges;
};

/*
 * The calling process's layout: dl_iterate_phdr for the objects ld.so
 * loaded, /proc/self/maps for every executable mapping.  No tables yet.
 */
int sp_layout_self(struct sp_layout *lo, struct sp_error *err);

/*
 * Attaches tables from the cache.  Objects whose table is missing are listed
 * in *missing (indices, malloc'ed) so the caller can fill the cache and call
 * again; a table that is untrusted, malformed, or whose build-id disagrees
 * with the mapped image is dropped (empty table) and reported in warn.
 */
int sp_layout_load(struct sp_layout *lo, const struct sp_cache *cache,
    size_t **missing, size_t *nmissing, struct sp_error *warn);

void sp_layout_free(struct sp_layout *lo);

/* The region pid's main stack may grow into: a range with no pins. */
int sp_layout_add_stack(struct sp_layout *lo, pid_t pid,
    struct sp_error *err);

/* Index of the range holding addr, or -1. */
long sp_layout_find(const struct sp_layout *lo, uint64_t addr);

/* ---- placed pins ---- */

struct sp_placement {
	struct sp_bpf_pin *pins;
	size_t npins;
	size_t cpins;
	uint64_t *any_ips;
	size_t nany_ips;
	struct sp_bpf_range *ranges;
	size_t nranges;
	struct sp_bpf_range slots;	/* where the loader maps start-up code */
};

/* Who answers the calls a filter neither allows nor kills outright. */
enum sp_answers {
	SP_ANSWER_KERNEL,	/* the kernel alone: EACCES, EPERM */
	SP_ANSWER_RUNTIME,	/* placements: SIGSYS to the runtime's
				   handler (runtime/rt.c) */
	SP_ANSWER_SUPERVISOR,	/* every one a TRACE stop (lib/supervise),
				   violations (data 0) included */
};

/* The filter generator's input for a placement (the band included). */
void sp_placement_bpf_input(const struct sp_placement *pl, unsigned flags,
    enum sp_answers who, struct sp_bpf_input *in);

/*
 * Places every object's pins.  SP_PIN_EXPORT sites get the union of the
 * numbers that all objects' imports pass to that symbol; an import that
 * passes a number the analysis could not tell adds nothing (never "any
 * number": such a call is refused, or judged by the supervisor).
 */
int sp_layout_place(const struct sp_layout *lo, struct sp_placement *pl,
    struct sp_error *err);

/* One more pin (the supervisor's own calls at its injection site). */
int sp_placement_add_pin(struct sp_placement *pl, uint32_t nr, uint64_t ip);

void sp_placement_free(struct sp_placement *pl);

/* ---- report: what the runtime installed, for `syspin run` ---- */

/*
 * Text, one record a line: "obj I BASE NAME", "range START END I",
 * "pin NR IP", "any IP".  Written before the filter is installed.
 */
int sp_report_write(int fd, const struct sp_layout *lo,
    const struct sp_placement *pl);
/* Writes DIR/PID.layout (sp_report_write); -1 with errno on failure. */
int sp_report_save(const char *dir, long pid, const struct sp_layout *lo,
    const struct sp_placement *pl);
/* DIR/PID.layout, the report of process pid. */
void sp_report_path(const char *dir, long pid, char *buf, size_t size);
/* A numeric field ("Tgid", "CapEff", ...) of /proc/PID/status, in base;
 * -1 when unknown. */
int sp_proc_status(pid_t pid, const char *field, int base,
    unsigned long long *value);
/* Seccomp_filters of a process, from /proc/PID/status; -1 unknown. */
long sp_filters_pid(pid_t pid);
/* Building a layout (self.c, and the supervisor's for another process):
 * append an object (name "" = "[anon]") or a range; -1 out of memory. */
long sp_layout_add_object(struct sp_layout *lo, const char *name,
    enum sp_obj_kind kind, uint64_t base);
int sp_layout_add_range(struct sp_layout *lo, uint64_t start, uint64_t end,
    size_t obj);

/*
 * An object the program dlopens after the filter is installed (run
 * --dlopen): added with its identity and build-id but no ranges, so that
 * its imports (the numbers it passes to libc's syscall()) join the union
 * at the export site.  Already mapped: nothing to do.  -1 with err.
 */
int sp_layout_add_later(struct sp_layout *lo, const char *path,
    struct sp_error *err);

/* Reads a report back into a layout (names, bases, ranges only) + pins. */
int sp_report_read(const char *path, struct sp_layout *lo,
    struct sp_placement *pl, struct sp_error *err);

#endif
