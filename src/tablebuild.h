/*
 * tablebuild.h: building a device table (vm/table.h) from loaded ResourceSlices (src/slices.h).
 */
#ifndef DC_TABLEBUILD_H
#define DC_TABLEBUILD_H

#include "slices.h"
#include "table.h"

/**
 * Build a table from the slices of @p s. @p dict: a dictionary to extend (shared with an
 * earlier snapshot), or NULL for a new one. The table holds its own reference to the dictionary
 * and copies everything it needs: @p s can be freed after.
 * @return DRACEL_OK with *out, or DRACEL_ENOMEM.
 */
dracel_status dc_table_build(const dc_slice_set *s, dc_dict *dict, const dracel_alloc *a,
                             dc_table **out, char *err, size_t errcap) DC_WUR;

#endif
