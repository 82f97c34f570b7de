/*
 * jsonval.h: values from JSON (src/json_val.c): typed JSON for --bind, and a DRA device, both
 * read by the ResourceSlice loader's parser with its rules. Values are allocated in the given
 * evaluation context's arena, which must outlive them.
 */
#ifndef DC_JSONVAL_H
#define DC_JSONVAL_H

#include "types.h"
#include "vm.h"

/** Parse typed JSON text into *out. DRACEL_EINPUT with a message in err naming the field path
 *  ("list[2].int: 1e3 is not an integer"), DRACEL_ENOMEM (c->oom set). */
dracel_status dc_json_typed(dc_ectx *c, const char *text, size_t len, dc_val *out, char *err,
                            size_t cap) DC_WUR;
/** Parse a device (one spec.devices entry plus "driver") into the map `device` reads as.
 *  DRACEL_EINPUT with the slice loader's kind of message ("<input>:3: device gpu-0:
 *  attributes[\"numa\"].int: 1e3 is not an integer"), DRACEL_ENOMEM. */
dracel_status dc_json_device(dc_ectx *c, const char *text, size_t len, dc_val *out, char *err,
                             size_t cap) DC_WUR;
/** The static type a value declares a variable with (lists and maps of mixed types: dyn). */
const dc_type *dc_val_static_type(dc_arena *a, dc_val v);
/** May @p v be bound to a variable declared with type @p t (dyn takes anything; a list or map
 *  type every element; kubernetes.DRADevice a device map)? */
bool dc_val_has_type(dc_val v, const dc_type *t);

#endif
