/*
 * dracel.h: the one public header of libdracel, a compiler and evaluator for the CEL device
 * selectors of Kubernetes Dynamic Resource Allocation.
 *
 * Invariants: every handle is opaque; configuration travels in dracel_config (the one piece of
 * global state is a lock around cJSON's parser, docs/api.md "Threads"); the library's own
 * allocations go through the dracel_alloc hook given there (what its dependencies allocate
 * past it is listed in docs/api.md, "Allocation"); every *_free function takes NULL. Only
 * names starting with dracel_/DRACEL_ are exported. When this header changes, update
 * docs/api.md, include/dracel.sym and tests/unit/test_header_c99.c / test_header_cxx.cc (which
 * compile it alone as C99 and as C++).
 */
#ifndef DRACEL_H
#define DRACEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DRACEL_VERSION_MAJOR 0
#define DRACEL_VERSION_MINOR 2
#define DRACEL_VERSION_PATCH 0
#define DRACEL_VERSION_HEX \
    ((DRACEL_VERSION_MAJOR << 16) | (DRACEL_VERSION_MINOR << 8) | DRACEL_VERSION_PATCH)
#define DRACEL_VERSION_STRING "0.2.0"

#if defined(_WIN32)
#define DRACEL_API
#elif defined(__GNUC__)
#define DRACEL_API __attribute__((visibility("default")))
#else
#define DRACEL_API
#endif

/** Status of a library call. Input that was read and rejected is DRACEL_EINPUT. */
typedef enum dracel_status {
    DRACEL_OK = 0,
    DRACEL_EINPUT = 1,  /**< the input was read and rejected: see the diagnostics */
    DRACEL_ENOMEM = 2,  /**< an allocation failed */
    DRACEL_EINVAL = 3,  /**< a bad argument (NULL handle, bad option) */
    DRACEL_ELIMIT = 4   /**< a configured limit was exceeded (also reported as a diagnostic) */
} dracel_status;

/** A half-open range [start, end) of byte offsets into the source text. */
typedef struct dracel_span {
    uint32_t start, end;
} dracel_span;

/**
 * Allocation hook (as lua_Alloc and yyjson's allocator). `realloc` receives the old size;
 * `free` receives the size given at allocation. A NULL hook in dracel_config means malloc.
 */
typedef struct dracel_alloc {
    void *(*malloc)(void *ctx, size_t size);
    void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t size);
    void (*free)(void *ctx, void *ptr, size_t size);
    void *ctx;
} dracel_alloc;

/**
 * Limits and options. Fill with dracel_config_init() and then change fields.
 *
 * The struct grows at its end in later releases without breaking the ABI: `size` (set by
 * dracel_config_init to the caller's sizeof) tells the library which fields the caller knows;
 * fields past it take their defaults. A size smaller than this release's first layout, or a
 * larger one whose extra bytes are not zero, is DRACEL_EINVAL.
 */
typedef struct dracel_config {
    size_t size;                 /**< sizeof(dracel_config) as the caller was compiled */
    const dracel_alloc *alloc;   /**< NULL: the C library's malloc */
    size_t max_source_bytes;     /**< default 10240 (Kubernetes' CELSelectorExpressionMaxLength) */
    uint32_t max_depth;          /**< nesting and AST height; default 250 (cel-go, cel-cpp) */
    uint32_t max_nodes;          /**< AST nodes; default 100000 */
    uint32_t max_errors;         /**< diagnostics kept; default 100 (cel-go) */
    uint64_t cost_limit;         /**< run-time cost budget of one evaluation, in cel-go's units;
                                      default 1000000 (Kubernetes' CELSelectorExpressionMaxCost);
                                      0: unlimited */
    size_t eval_memory_limit;    /**< bytes one evaluation may allocate; default 64 MiB */
} dracel_config;

#define DRACEL_DEFAULT_MAX_SOURCE_BYTES 10240u
#define DRACEL_DEFAULT_MAX_DEPTH 250u
#define DRACEL_DEFAULT_MAX_NODES 100000u
#define DRACEL_DEFAULT_MAX_ERRORS 100u
#define DRACEL_DEFAULT_COST_LIMIT 1000000u
#define DRACEL_DEFAULT_EVAL_MEMORY (64u * 1024u * 1024u)
/** Hard caps that configuration cannot raise. */
#define DRACEL_HARD_MAX_SOURCE_BYTES (64u * 1024u * 1024u)
#define DRACEL_HARD_MAX_DEPTH 10000u

/** @return the library's version string, e.g. "0.2.0" (of the library running, which may be
 *  newer than the header a program was compiled with). */
DRACEL_API const char *dracel_version(void);
/** @return the running library's version as DRACEL_VERSION_HEX encodes it: compare with the
 *  header's DRACEL_VERSION_HEX to learn what the running library has. */
DRACEL_API unsigned long dracel_version_number(void);
/** @return a static, constant description of @p st ("out of memory"); "unknown status" for a
 *  value that is not a dracel_status. */
DRACEL_API const char *dracel_status_string(dracel_status st);

/** Fill @p cfg (@p size bytes, the caller's sizeof) with the defaults above. Use the macro
 *  dracel_config_init(cfg), which passes the size. */
DRACEL_API void dracel_config_init_size(dracel_config *cfg, size_t size);
#define dracel_config_init(cfg) dracel_config_init_size((cfg), sizeof *(cfg))

/* ---------------------------------------------------------------------------------------------
 * Diagnostics
 */

/** A list of diagnostics, sorted by position. Opaque. */
typedef struct dracel_diags dracel_diags;

typedef enum dracel_severity { DRACEL_SEV_ERROR = 0, DRACEL_SEV_WARNING = 1 } dracel_severity;

/** One diagnostic, as returned by dracel_diags_get(). `message` lives as long as the list
 *  (until dracel_diags_free). */
typedef struct dracel_diag_info {
    dracel_severity severity;
    const char *message;
    dracel_span span;
    uint32_t line;    /**< 1-based */
    uint32_t column;  /**< 1-based, counted in code points */
} dracel_diag_info;

/** @return the number of diagnostics in @p d (0 for NULL). */
DRACEL_API size_t dracel_diags_count(const dracel_diags *d);
/** @return the number of errors (not warnings) in @p d. */
DRACEL_API size_t dracel_diags_errors(const dracel_diags *d);
/** Read diagnostic @p i into @p out. @return DRACEL_EINVAL when @p i is out of range. */
DRACEL_API dracel_status dracel_diags_get(const dracel_diags *d, size_t i, dracel_diag_info *out);
/**
 * Render every diagnostic in cel-go's format:
 * `ERROR: NAME:LINE:COL: message`, ` | ` source line, ` | ` dots and a caret; one per line group.
 * @param name shown in place of NAME (cel-go shows `<input>`).
 * @return a NUL-terminated string to release with dracel_free_string(), or NULL on ENOMEM.
 */
DRACEL_API char *dracel_diags_render(const dracel_diags *d, const char *name);
/** Release a diagnostics list (NULL is fine). */
DRACEL_API void dracel_diags_free(dracel_diags *d);

/** Release a string returned by the library (dracel_diags_render, dracel_parse_sexpr,
 *  dracel_program_disasm, dracel_result_json/text, dracel_selection_value_json). @p cfg must
 *  carry the allocator the string was made with: that of the config which made the object it
 *  came from (docs/api.md, "Lifetimes"); NULL means the default allocator. NULL @p s is fine. */
DRACEL_API void dracel_free_string(const dracel_config *cfg, char *s);

/* ---------------------------------------------------------------------------------------------
 * Parsing
 */

/**
 * Parse @p src (@p len bytes, need not be NUL-terminated), expand macros, and print the AST
 * in the s-expression form of docs/ast.md.
 * @param cfg limits and allocator; NULL for the defaults.
 * @param out_sexpr on DRACEL_OK, the printed AST (release with dracel_free_string()).
 * @param out_diags always set (possibly empty) unless the result is DRACEL_ENOMEM or EINVAL;
 *        release with dracel_diags_free(). Warnings can come with DRACEL_OK.
 * @return DRACEL_OK, DRACEL_EINPUT (errors in @p out_diags), DRACEL_ENOMEM, DRACEL_EINVAL.
 */
DRACEL_API dracel_status dracel_parse_sexpr(const dracel_config *cfg, const char *src,
                                            size_t len, char **out_sexpr,
                                            dracel_diags **out_diags);

/* ---------------------------------------------------------------------------------------------
 * Environments, programs, evaluation
 */

/** Which CEL environment expressions are compiled in (docs/language.md). */
typedef enum dracel_env_kind {
    DRACEL_ENV_PLAIN = 0, /**< plain CEL: standard and extension libraries, no `device` */
    DRACEL_ENV_DRA = 1    /**< Kubernetes' DRA selector environment: `device`, bool results */
} dracel_env_kind;

/** The declared variables and functions, and the values bound to the variables. Opaque.
 *  Read-only while programs evaluate against it: share it between threads only then. */
typedef struct dracel_env dracel_env;

/** A compiled program: immutable, shareable by any number of threads. Opaque. */
typedef struct dracel_program dracel_program;

/** The outcome of one evaluation: a value or an error. Opaque. */
typedef struct dracel_result dracel_result;

/** Create an environment. @param cfg limits and allocator (NULL: defaults; copied). */
DRACEL_API dracel_status dracel_env_new(const dracel_config *cfg, dracel_env_kind kind,
                                        dracel_env **out);
DRACEL_API void dracel_env_free(dracel_env *env);

/**
 * Declare variable @p name with the type of a typed-JSON value (docs/dra-celc.md, "eval":
 * {"int":"4"}, {"int":4}, {"list":[...]}, ...) and bind the value to it. Numbers are exact
 * (an int is a JSON integer or a string of digits, never a number with a fraction or an
 * exponent); strings with "\u0000" are rejected.
 * @param err receives a message naming the field path when the JSON is rejected
 *        (DRACEL_EINPUT), e.g. "list[1].int: 1e3 is not an integer".
 */
DRACEL_API dracel_status dracel_env_bind_json(dracel_env *env, const char *name,
                                              const char *json, size_t len, char *err,
                                              size_t errcap);

/**
 * Bind `device` (DRA environments) from JSON shaped like one entry of a ResourceSlice's
 * spec.devices plus "driver": {"driver":..., "name":..., "attributes":{...}, "capacity":{...}}.
 * Read and validated as dracel_table_load reads a device ("name" may be absent); a rejected
 * device is DRACEL_EINPUT with "<input>:LINE: [device NAME: ]FIELD.PATH: what is wrong" in
 * @p err.
 */
DRACEL_API dracel_status dracel_env_device_json(dracel_env *env, const char *json, size_t len,
                                                char *err, size_t errcap);

enum {
    DRACEL_COMPILE_NO_CHECK = 1u << 0,   /**< skip type checking (every name is dyn) */
    DRACEL_COMPILE_ANY_RESULT = 1u << 1, /**< DRA: allow a non-bool result (debugging) */
    /** Estimate the worst-case cost statically (cel-go's estimator with Kubernetes' size bounds
     *  for devices). In the DRA environment an estimate above cfg.cost_limit is rejected, as
     *  Kubernetes' API validation rejects such a selector. Needs checking (not with NO_CHECK). */
    DRACEL_COMPILE_ESTIMATE_COST = 1u << 2
};

/**
 * Parse, check and compile @p src for @p env.
 * @param flags DRACEL_COMPILE_* bits.
 * @param out_diags always set unless ENOMEM/EINVAL (warnings may come with DRACEL_OK).
 * @return DRACEL_OK, DRACEL_EINPUT, DRACEL_ENOMEM, DRACEL_EINVAL.
 */
DRACEL_API dracel_status dracel_compile(const dracel_env *env, const char *src, size_t len,
                                        unsigned flags, dracel_program **out,
                                        dracel_diags **out_diags);
/** The checked type of the program's result as cel-go names it ("bool", "list(int)", "dyn").
 *  The string lives as long as the program. */
DRACEL_API const char *dracel_program_type(const dracel_program *p);
/** The static cost estimate [min, max] (with DRACEL_COMPILE_ESTIMATE_COST; else both 0).
 *  UINT64_MAX means unbounded. */
DRACEL_API void dracel_program_cost(const dracel_program *p, uint64_t *min, uint64_t *max);
/** The disassembly (docs/bytecode.md); release with dracel_free_string(). */
DRACEL_API char *dracel_program_disasm(const dracel_program *p);
DRACEL_API void dracel_program_free(dracel_program *p);

/**
 * Evaluate @p p with the values bound in @p env (the environment it was compiled for).
 * A CEL error is not a failure of the call: it is a result (dracel_result_error).
 * @return DRACEL_OK (*out set), DRACEL_ENOMEM, DRACEL_EINVAL.
 */
DRACEL_API dracel_status dracel_eval(const dracel_program *p, const dracel_env *env,
                                     dracel_result **out);
/** A result to reuse with dracel_eval_into: its memory is kept between evaluations, so that a
 *  loop of evaluations allocates nothing after the first (one per thread). */
DRACEL_API dracel_status dracel_result_new(const dracel_config *cfg, dracel_result **out);
/** Evaluate into @p r, replacing its previous value. */
DRACEL_API dracel_status dracel_eval_into(const dracel_program *p, const dracel_env *env,
                                          dracel_result *r);
/** The error message of an error result, or NULL for a value. Valid until the result is
 *  evaluated into again (dracel_eval_into) or freed. */
DRACEL_API const char *dracel_result_error(const dracel_result *r);
/** 1 or 0 for a bool result, -1 otherwise. */
DRACEL_API int dracel_result_bool(const dracel_result *r);
/** The value as typed JSON (docs/dra-celc.md, "eval"), or {"error":"..."}; release with
 *  dracel_free_string() and the result's config. */
DRACEL_API char *dracel_result_json(const dracel_result *r);
/** The value as CEL-like text; release with dracel_free_string(). */
DRACEL_API char *dracel_result_text(const dracel_result *r);
/** The run-time cost the evaluation used, in cel-go's units. */
DRACEL_API uint64_t dracel_result_cost(const dracel_result *r);
DRACEL_API void dracel_result_free(dracel_result *r);

/* ---------------------------------------------------------------------------------------------
 * Device tables and selection over a fleet
 */

/** An immutable, columnar snapshot of a fleet's devices (docs/columnar.md). Opaque; readers
 *  of a built table never lock. */
typedef struct dracel_table dracel_table;
/** A program bound to a table (columns and string constants resolved). Opaque, immutable. */
typedef struct dracel_bound dracel_bound;
/** The result of a selection: matched and errored bitmaps over the table's rows. Opaque. */
typedef struct dracel_selection dracel_selection;

/**
 * Load ResourceSlices from a file or a directory (JSON or YAML; one object, a List, or a YAML
 * stream) and build a table. Rejected input: DRACEL_EINPUT with a message naming the file, the
 * line, the object and the field; unreadable path: DRACEL_EINVAL with a message.
 */
DRACEL_API dracel_status dracel_table_load(const dracel_config *cfg, const char *path,
                                           dracel_table **out, char *err, size_t errcap);
/** Like dracel_table_load, from a buffer (@p name is used in messages). */
DRACEL_API dracel_status dracel_table_load_buffer(const dracel_config *cfg, const char *name,
                                                  const char *buf, size_t len,
                                                  dracel_table **out, char *err, size_t errcap);
DRACEL_API void dracel_table_free(dracel_table *t);
/** Number of rows (devices of the newest generation of every pool). */
DRACEL_API uint32_t dracel_table_rows(const dracel_table *t);
/** All memory of the table, in bytes. */
DRACEL_API size_t dracel_table_bytes(const dracel_table *t);
/** Notes from loading (objects of other kinds skipped), one line each; dracel_table_note's
 *  strings live as long as the table (NULL for @p i out of range). */
DRACEL_API size_t dracel_table_notes(const dracel_table *t);
DRACEL_API const char *dracel_table_note(const dracel_table *t, size_t i);

/** One row: Kubernetes' device ID parts, the node (NULL unless the device is tied to one node
 *  by name) and the pool's state ("complete", "incomplete", "invalid"). The strings live as
 *  long as the table (pool_state: static). */
typedef struct dracel_device_info {
    const char *driver, *pool, *device, *node, *pool_state;
} dracel_device_info;
DRACEL_API dracel_status dracel_table_device(const dracel_table *t, uint32_t row,
                                             dracel_device_info *out);

/**
 * A fleet kept up to date slice by slice, as a watch delivers ResourceSlices: loads add or
 * replace slices (by metadata.name; only the new objects are read and validated), deletions
 * remove them, and a snapshot is an ordinary immutable table of the current slices. Successive
 * snapshots share one append-only string dictionary; they may outlive the fleet. One writer at a
 * time; readers of snapshots never wait. docs/columnar.md.
 */
typedef struct dracel_fleet dracel_fleet;
DRACEL_API dracel_status dracel_fleet_new(const dracel_config *cfg, dracel_fleet **out);
DRACEL_API void dracel_fleet_free(dracel_fleet *f);
/** Add or replace the slices of a file or directory (as dracel_table_load reads them). All or
 *  nothing: on a rejected input the fleet is unchanged. */
DRACEL_API dracel_status dracel_fleet_load(dracel_fleet *f, const char *path, char *err,
                                           size_t errcap);
DRACEL_API dracel_status dracel_fleet_load_buffer(dracel_fleet *f, const char *name,
                                                  const char *buf, size_t len, char *err,
                                                  size_t errcap);
/** Remove the slice of this metadata.name: DRACEL_EINPUT when the fleet has none. */
DRACEL_API dracel_status dracel_fleet_delete(dracel_fleet *f, const char *slice_name);
/** The number of slices held (every generation). */
DRACEL_API size_t dracel_fleet_slices(const dracel_fleet *f);
/** A table of the fleet as it is now. */
DRACEL_API dracel_status dracel_fleet_snapshot(dracel_fleet *f, dracel_table **out, char *err,
                                               size_t errcap);

/** Bind @p p to @p t. A program of the plain environment (no `device`) runs once per row with
 *  the same result on every row. */
DRACEL_API dracel_status dracel_bind(const dracel_program *p, const dracel_table *t,
                                     dracel_bound **out);
DRACEL_API void dracel_bound_free(dracel_bound *b);

/** Which evaluator dracel_select() uses. DRACEL_VM_VECTOR runs a program of `&&`, `||` and `!`
 *  over one-column leaves as fused kernels straight from the table's columns, and any other
 *  program on its batch interpreter; DRACEL_VM_BATCHED always takes the batch interpreter (to
 *  compare or test it); DRACEL_VM_SCALAR evaluates row by row. All give the same answers. */
enum { DRACEL_VM_VECTOR = 0, DRACEL_VM_SCALAR = 1, DRACEL_VM_BATCHED = 2 };

/** Options of a selection: fill with dracel_select_opts_init() (or pass NULL for the
 *  defaults). Grows at its end as dracel_config does (`size`). */
typedef struct dracel_select_opts {
    size_t size;        /**< sizeof(dracel_select_opts) as the caller was compiled */
    unsigned vm;        /**< DRACEL_VM_VECTOR (default), DRACEL_VM_BATCHED or DRACEL_VM_SCALAR */
    uint32_t batch;     /**< lanes per batch of the batch interpreter (0: 1024) */
    bool keep_values;   /**< also keep every row's result (dracel_selection_value_json) */
} dracel_select_opts;

/** Fill @p o (@p size bytes) with the defaults; use the macro dracel_select_opts_init(o). */
DRACEL_API void dracel_select_opts_init_size(dracel_select_opts *o, size_t size);
#define dracel_select_opts_init(o) dracel_select_opts_init_size((o), sizeof *(o))

DRACEL_API dracel_status dracel_selection_new(const dracel_config *cfg, dracel_selection **out);
/**
 * Evaluate the bound selector on every row of its table, with the other variables of @p env.
 * Reuses @p sel. The answer is exact CEL: both VMs give the same bitmaps and errors.
 */
DRACEL_API dracel_status dracel_select(const dracel_bound *b, const dracel_env *env,
                                       const dracel_select_opts *o, dracel_selection *sel);
/** The matched and errored bitmaps: (rows + 63) / 64 words, bit r of word r / 64. */
DRACEL_API const uint64_t *dracel_selection_matched(const dracel_selection *s);
DRACEL_API const uint64_t *dracel_selection_errored(const dracel_selection *s);
/** The error message of an errored row, or NULL. Valid until the next dracel_select() with
 *  @p s or dracel_selection_free(). The bitmaps above live as long. */
DRACEL_API const char *dracel_selection_error(const dracel_selection *s, uint32_t row);
/** With keep_values: a row's result as typed JSON (release with dracel_free_string() and the
 *  selection's config). */
DRACEL_API char *dracel_selection_value_json(const dracel_selection *s, uint32_t row);
DRACEL_API void dracel_selection_free(dracel_selection *s);

#ifdef __cplusplus
}
#endif
#endif /* DRACEL_H */
