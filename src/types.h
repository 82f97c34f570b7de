/*
 * types.h: static types of the checker. Types are immutable and interned per environment or
 * per compilation (arena-allocated); compare them with dc_type_equal, not by pointer.
 * Names print as cel-go prints them: int, list(string), map(string, dyn), optional_type(int),
 * kubernetes.Quantity, kubernetes.Semver, kubernetes.DRADevice, type(int), null_type, A (a type
 * parameter).
 *
 * Change with: src/types.c, src/check.c, src/decls.c.
 */
#ifndef DC_TYPES_H
#define DC_TYPES_H

#include "arena.h"

typedef enum dc_tykind {
    DC_TY_DYN,
    DC_TY_NULL,
    DC_TY_BOOL,
    DC_TY_INT,
    DC_TY_UINT,
    DC_TY_DOUBLE,
    DC_TY_STRING,
    DC_TY_BYTES,
    DC_TY_LIST,      /* a = element */
    DC_TY_MAP,       /* a = key, b = value */
    DC_TY_TYPE,      /* a = the type denoted (NULL: any) */
    DC_TY_OPTIONAL,  /* a = inner */
    DC_TY_QUANTITY,
    DC_TY_SEMVER,
    DC_TY_DEVICE,    /* kubernetes.DRADevice: fields driver, attributes, capacity,
                        allowMultipleAllocations */
    DC_TY_PARAM,     /* a type parameter of an overload signature: name */
    DC_TY_ERROR      /* the type of an expression that already failed to check */
} dc_tykind;

typedef struct dc_type dc_type;
struct dc_type {
    dc_tykind kind;
    const dc_type *a, *b;
    const char *name;  /* DC_TY_PARAM */
};

/* Shared singletons of the primitive types. */
extern const dc_type dc_ty_dyn, dc_ty_null, dc_ty_bool, dc_ty_int, dc_ty_uint, dc_ty_double,
    dc_ty_string, dc_ty_bytes, dc_ty_quantity, dc_ty_semver, dc_ty_device, dc_ty_error;

const dc_type *dc_ty_list(dc_arena *a, const dc_type *elem);
const dc_type *dc_ty_map(dc_arena *a, const dc_type *key, const dc_type *val);
const dc_type *dc_ty_optional(dc_arena *a, const dc_type *inner);
const dc_type *dc_ty_type(dc_arena *a, const dc_type *of);
const dc_type *dc_ty_param(dc_arena *a, const char *name);
bool dc_type_equal(const dc_type *x, const dc_type *y);
/** Print as cel-go does, into the arena. */
const char *dc_type_str(dc_arena *a, const dc_type *t);
/** Parse a signature type text ("list(A)", "map(string, dyn)", "int"); NULL if malformed. */
const dc_type *dc_type_parse(dc_arena *a, const char *text);

/* Added with the checker (src/types.c): */
/** Print as cel-go's checker prints types in diagnostics (FormatCELType): like dc_type_str,
 *  except that the null type is "null" and the error type "!error!". NULL on ENOMEM. */
const char *dc_type_str_checker(dc_arena *a, const dc_type *t);
/** Deep copy of @p t into @p a (singletons are shared). NULL on ENOMEM. */
const dc_type *dc_type_clone(dc_arena *a, const dc_type *t);

#endif
