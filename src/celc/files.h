/* files.h: how dra-celc reads the files it is given directly (-f, --device, --allocated): one
 * size cap, checked before reading when the file's size is known, and while reading when it is
 * not (a pipe, a FIFO, a device such as /dev/zero); a directory is refused. src/celc/files.c. */
#ifndef CELC_FILES_H
#define CELC_FILES_H

#include <stddef.h>

/* The largest such file: as large as the library's hard cap on an expression's source
 * (DRACEL_HARD_MAX_SOURCE_BYTES), which is also the slice loader's default per file. */
#define CELC_MAX_FILE_BYTES ((size_t)64 << 20)

/**
 * Read @p path ("-" for standard input) whole, NUL-terminated (the NUL not counted in *len).
 * On failure returns NULL after printing "dra-celc: PATH: why" (or "dra-celc: out of memory")
 * on stderr; *oom tells which. Exit 2 either way.
 */
char *celc_read_file(const char *path, size_t max, size_t *len, int *oom);

#endif
