/*
 * value.h: CEL run-time values, as the scalar VM and the function library see them.
 *
 * A value is 16 bytes: a kind and a payload. Scalars are inline; strings, bytes, lists, maps,
 * optionals, errors, quantities and semvers point to immutable objects that live either in the
 * program (constants) or in the evaluation arena of one call (dc_ectx), which is reset, not
 * freed, between calls: a typical selector allocates nothing on the heap per evaluation.
 * Values never own memory and are never freed one by one.
 *
 * Errors are values (CEL): an operation on an error operand yields that error, except where
 * CEL says otherwise (&&, ||, ?:, and the macros' absorption rules), which the VM implements.
 *
 * Change with: vm/value.c (equality, ordering, hashing, printing), vm/vm.c, src/lib_*.c.
 */
#ifndef DC_VALUE_H
#define DC_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dracel.h"
#include "quantity.h"
#include "semver.h"

typedef enum dc_kind {
    DC_K_NULL,
    DC_K_BOOL,
    DC_K_INT,
    DC_K_UINT,
    DC_K_DOUBLE,
    DC_K_STRING,
    DC_K_BYTES,
    DC_K_LIST,
    DC_K_MAP,
    DC_K_TYPE,
    DC_K_OPTIONAL,
    DC_K_QUANTITY,
    DC_K_SEMVER,
    DC_K_ERROR,
    DC_K__COUNT
} dc_kind;

/* A string or bytes object: len bytes of data followed by a NUL (not counted). Strings are
 * valid UTF-8 (they may contain U+0000). */
typedef struct dc_str {
    uint32_t len;
    char data[];
} dc_str;

typedef struct dc_val dc_val;
typedef struct dc_list dc_list;
typedef struct dc_map dc_map;
typedef struct dc_err dc_err;
/* Kubernetes' Quantity and Semver values: the parsed value and the text it prints as
 * (as written for quantity() and capacities; canonical for the results of add and sub). */
typedef struct dc_qtyobj {
    dc_qty q;
    const dc_str *text;
} dc_qtyobj;
typedef struct dc_semverobj {
    dc_semver v;            /* pre and build point into text */
    const dc_str *text;
} dc_semverobj;

/* Type values, as `type(x)` returns them, named as cel-go names them. */
typedef enum dc_typename {
    DC_T_NULL,      /* "null_type" */
    DC_T_BOOL,      /* "bool" */
    DC_T_INT,       /* "int" */
    DC_T_UINT,      /* "uint" */
    DC_T_DOUBLE,    /* "double" */
    DC_T_STRING,    /* "string" */
    DC_T_BYTES,     /* "bytes" */
    DC_T_LIST,      /* "list" */
    DC_T_MAP,       /* "map" */
    DC_T_TYPE,      /* "type" */
    DC_T_OPTIONAL,  /* "optional_type" */
    DC_T_QUANTITY,  /* "kubernetes.Quantity" */
    DC_T_SEMVER,    /* "kubernetes.Semver" */
    DC_T__COUNT
} dc_typename;

extern const char *const dc_typename_str[DC_T__COUNT];

struct dc_val {
    uint8_t k; /* dc_kind */
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        const dc_str *s;        /* STRING, BYTES */
        const dc_list *l;
        const dc_map *m;
        dc_typename t;
        const dc_val *opt;      /* OPTIONAL: NULL is optional.none() */
        const dc_qtyobj *q;
        const dc_semverobj *sv;
        const dc_err *e;
    } u;
};

struct dc_list {
    uint32_t n;
    dc_val v[];
};

/* Maps keep insertion order (for printing); keys are int, uint, bool or string. Lookup is
 * linear below DC_MAP_HASH_MIN entries and by an open-addressing index above. Keys are unique
 * under CEL equality (1, 1u and 1.0 are the same key). */
struct dc_map {
    uint32_t n;
    uint32_t flags;      /* DC_MAPF_* */
    uint32_t index_cap;  /* 0: no index; else a power of two */
    const dc_val *keys;
    const dc_val *vals;
    const uint32_t *index; /* slots hold entry number + 1; 0 is empty */
};
#define DC_MAP_HASH_MIN 8u
/* A missing key reads as an empty map instead of an error: Kubernetes' device.attributes and
 * device.capacity, whose unknown domains are empty maps (`in` still says false). */
#define DC_MAPF_MISSING_EMPTY 1u

struct dc_err {
    const char *msg;     /* cel-go's wording where users meet it */
    unsigned flags;      /* DC_ERRF_* */
};
/* The error stands for a device that cannot be presented to CEL at all (a bad attribute): every
 * selector evaluated on it fails with this error. */
#define DC_ERRF_DEVICE 1u

/* ---- Constructors of scalars (no allocation). */
static inline dc_val dc_null(void) { dc_val v; v.k = DC_K_NULL; v.u.i = 0; return v; }
static inline dc_val dc_bool(bool b) { dc_val v; v.k = DC_K_BOOL; v.u.i = 0; v.u.b = b; return v; }
static inline dc_val dc_int(int64_t i) { dc_val v; v.k = DC_K_INT; v.u.i = i; return v; }
static inline dc_val dc_uint(uint64_t u) { dc_val v; v.k = DC_K_UINT; v.u.u = u; return v; }
static inline dc_val dc_double(double d) { dc_val v; v.k = DC_K_DOUBLE; v.u.d = d; return v; }
static inline dc_val dc_typeval(dc_typename t) { dc_val v; v.k = DC_K_TYPE; v.u.i = 0; v.u.t = t; return v; }
static inline dc_val dc_strval(const dc_str *s) { dc_val v; v.k = DC_K_STRING; v.u.s = s; return v; }
static inline dc_val dc_bytesval(const dc_str *s) { dc_val v; v.k = DC_K_BYTES; v.u.s = s; return v; }
static inline dc_val dc_listval(const dc_list *l) { dc_val v; v.k = DC_K_LIST; v.u.l = l; return v; }
static inline dc_val dc_mapval(const dc_map *m) { dc_val v; v.k = DC_K_MAP; v.u.m = m; return v; }
static inline dc_val dc_errval(const dc_err *e) { dc_val v; v.k = DC_K_ERROR; v.u.e = e; return v; }
static inline bool dc_is_err(dc_val v) { return v.k == DC_K_ERROR; }

/* ---- The evaluation context: allocation, errors and cost for one evaluation. */
typedef struct dc_ectx dc_ectx;

/* Allocate in the evaluation arena. NULL when out of memory or over the memory limit: callers
 * return dc_oom(ctx), an error value that aborts the evaluation. */
void *dc_ealloc(dc_ectx *c, size_t n);
/* Error values. The message is copied (formatted) into the arena. */
/* (The name is parenthesised so that diag.h's dc_error macro, for compile-time diagnostics,
 * does not expand here when both headers are included.) */
dc_val(dc_error)(dc_ectx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A static error (message with static storage: no allocation). */
dc_val dc_error_static(dc_ectx *c, const dc_err *e);
/* The standard errors with cel-go's wording. */
dc_val dc_err_no_overload(dc_ectx *c);       /* "no such overload" */
dc_val dc_err_overflow(dc_ectx *c);          /* "integer overflow" */
dc_val dc_err_div_zero(dc_ectx *c);          /* "division by zero" */
dc_val dc_err_mod_zero(dc_ectx *c);          /* "modulus by zero" */
dc_val dc_oom(dc_ectx *c);                   /* out of memory: aborts the evaluation */
/* dc_cost(c, units): add run-time cost, in vm.h (inline: it runs once per instruction). */

/* New objects in the arena; NULL on OOM. */
dc_str *dc_str_new(dc_ectx *c, const char *p, size_t n);      /* copies; NUL-terminates */
dc_str *dc_str_alloc(dc_ectx *c, size_t n);                   /* uninitialised data[n], NUL set */
dc_list *dc_list_new(dc_ectx *c, uint32_t n);                 /* elements uninitialised */
/* Build a map from parallel key/value arrays (copied). A repeated key ("Failed with repeated
 * key") or a key of a kind that cannot be a map key gives an error value. */
dc_val dc_map_build(dc_ectx *c, const dc_val *keys, const dc_val *vals, uint32_t n);
dc_val dc_optional(dc_ectx *c, dc_val inner);                 /* optional.of(inner) */
static inline dc_val dc_optional_none(void) { dc_val v; v.k = DC_K_OPTIONAL; v.u.opt = NULL; return v; }

/* ---- Semantics shared by both VMs. */

/* CEL equality (heterogeneous numeric equality; lists and maps element-wise; different kinds
 * are not equal). An error operand yields it. Returns a bool or an error value. */
dc_val dc_val_eq(dc_ectx *c, dc_val a, dc_val b);
/* Ordering for < <= > >=: -1, 0, 1 in *out, or an error value returned (no such overload,
 * "NaN values cannot be ordered"). Works across int, uint, double. */
bool dc_val_cmp(dc_ectx *c, dc_val a, dc_val b, int *out, dc_val *err);
/* Look up key in map: the value, or NULL when absent. Numeric keys unify (1 == 1u == 1.0). */
const dc_val *dc_map_get(const dc_map *m, dc_val key);
/* How deep a value may nest for the walks that recurse over values (copy, print): past what
 * any program can build, since a value nests at most as deep as the expression that builds it
 * (DRACEL_HARD_MAX_DEPTH) plus its inputs (the JSON readers allow 64 levels). */
#define DC_VALUE_MAX_DEPTH (2 * (int)DRACEL_HARD_MAX_DEPTH + 64)

/* Copy v and everything it points to into arena a (the compiler keeps folded constants in the
 * program). false on ENOMEM or nesting deeper than DC_VALUE_MAX_DEPTH. */
struct dc_arena;
bool dc_val_copy(struct dc_arena *a, dc_val v, dc_val *out, int depth);
/* Number of code points in a UTF-8 string. */
size_t dc_utf8_count(const char *s, size_t n);

#endif
