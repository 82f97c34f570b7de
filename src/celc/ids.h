/* ids.h: the --allocated list of dra-celc explain (docs/dra-celc.md): one device ID
 * (driver/pool/device) a line; blank lines and lines starting with '#' are skipped; spaces and
 * tabs around an ID (and a CR before the newline) are ignored. src/celc/ids.c. */
#ifndef CELC_IDS_H
#define CELC_IDS_H

#include <stddef.h>

#include "dracel.h"

/**
 * Split @p buf (@p len bytes, NUL-terminated at buf[len], modified in place: the IDs point into
 * it) into device IDs. The pool is what lies between the first and the last '/' (it may hold
 * more). Returns 0 with a calloc'd array in *out (*n entries, freed by the caller), 1 when the
 * text is rejected (a NUL byte, a line that is not an ID) with "NAME:LINE: why" in @p msg, or
 * -1 when memory runs out.
 */
int celc_parse_ids(const char *name, char *buf, size_t len, dracel_device_id **out, size_t *n,
                   char *msg, size_t msgcap);

#endif
