/*
 * jsonval.h: values from JSON (src/json_val.c): typed JSON for --bind, and a DRA device.
 * Values are allocated in the given evaluation context's arena, which must outlive them.
 */
#ifndef DC_JSONVAL_H
#define DC_JSONVAL_H

#include "types.h"
#include "vm.h"

/** Parse typed JSON text into *out. NULL on success, else a message (in err or static). */
const char *dc_json_typed(dc_ectx *c, const char *text, size_t len, dc_val *out, char *err,
                          size_t cap);
/** Parse a device (one spec.devices entry plus "driver") into the map `device` reads as. */
const char *dc_json_device(dc_ectx *c, const char *text, size_t len, dc_val *out, char *err,
                           size_t cap);
/** The static type a value declares a variable with (lists and maps of mixed types: dyn). */
const dc_type *dc_val_static_type(dc_arena *a, dc_val v);
/** May @p v be bound to a variable declared with type @p t (dyn takes anything; a list or map
 *  type every element; kubernetes.DRADevice a device map)? */
bool dc_val_has_type(dc_val v, const dc_type *t);

#endif
