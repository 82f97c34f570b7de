/*
 * dracel.h: the one public header of libdracel, a compiler and evaluator for the CEL device
 * selectors of Kubernetes Dynamic Resource Allocation.
 *
 * Invariants: every handle is opaque; configuration travels in dracel_config (the one piece of
 * global state is a lock around cJSON's parser, docs/api.md "Threads"); the library's own
 * allocations go through the dracel_alloc hook given there (what its dependencies allocate
 * past it is listed in docs/api.md, "Allocation"); every *_free function takes NULL. Only
 * names starting with dracel_/DRACEL_ are exported. When this header changes, update
 * docs/api.md, include/dracel.sym (tests/abi.sh) and tests/unit/test_header_c99.c / test_header_cxx.cc (which
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
    DRACEL_ELIMIT = 4   /**< the input was rejected for exceeding a configured limit (source
                             size, nesting depth, AST nodes, with DRACEL_COMPILE_ESTIMATE_COST
                             the estimated cost): reported as a diagnostic, like EINPUT */
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
    size_t max_diag_bytes;       /**< what dracel_diags_render writes at most (the diagnostics
                                      past it are counted in a last line); default 1 MiB;
                                      0: no limit */
} dracel_config;

#define DRACEL_DEFAULT_MAX_SOURCE_BYTES 10240u
#define DRACEL_DEFAULT_MAX_DEPTH 250u
#define DRACEL_DEFAULT_MAX_NODES 100000u
#define DRACEL_DEFAULT_MAX_ERRORS 100u
#define DRACEL_DEFAULT_COST_LIMIT 1000000u
#define DRACEL_DEFAULT_EVAL_MEMORY (64u * 1024u * 1024u)
#define DRACEL_DEFAULT_MAX_DIAG_BYTES (1024u * 1024u)
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

/** Severities. Diagnostics are errors or warnings; lint findings may also be notes. */
typedef enum dracel_severity {
    DRACEL_SEV_ERROR = 0,
    DRACEL_SEV_WARNING = 1,
    DRACEL_SEV_NOTE = 2
} dracel_severity;

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
/** Read diagnostic @p i into @p out (@p size: the caller's sizeof; use the macro). Structs the
 *  library fills grow at their end like dracel_config: the library writes only the fields
 *  the caller's size holds. @return DRACEL_EINVAL when @p i is out of range. */
DRACEL_API dracel_status dracel_diags_get_size(const dracel_diags *d, size_t i,
                                               dracel_diag_info *out, size_t size);
#define dracel_diags_get(d, i, out) dracel_diags_get_size((d), (i), (out), sizeof *(out))
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
 * @return DRACEL_OK, DRACEL_EINPUT or DRACEL_ELIMIT (errors in @p out_diags), DRACEL_ENOMEM,
 *         DRACEL_EINVAL.
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

/** A compiled program: immutable, shareable by any number of threads. Opaque. It keeps what it
 *  needs of its environment (the host functions it calls, by reference count): it may be used
 *  and freed after the environment is freed. */
typedef struct dracel_program dracel_program;

/** The outcome of one evaluation: a value or an error. Opaque. */
typedef struct dracel_result dracel_result;

/** Create an environment. @param cfg limits and allocator (NULL: defaults; the struct and the
 *  dracel_alloc it points to are copied). */
DRACEL_API dracel_status dracel_env_new(const dracel_config *cfg, dracel_env_kind kind,
                                        dracel_env **out);
/** Release an environment (NULL is fine). Programs compiled with it stay usable; activations
 *  made for it must be freed first. */
DRACEL_API void dracel_env_free(dracel_env *env);

/**
 * Declare variable @p name with the type of a typed-JSON value (docs/dra-celc.md, "eval":
 * {"int":"4"}, {"int":4}, {"list":[...]}, ...) and bind the value to it. Numbers are exact
 * (an int is a JSON integer or a string of digits, never a number with a fraction or an
 * exponent); strings with "\u0000" are rejected.
 * When @p name is already declared, the value must have its type (dyn takes any value): a
 * value of another type is DRACEL_EINPUT.
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
 * @return DRACEL_OK, DRACEL_EINPUT, DRACEL_ELIMIT (a limit of the config, or the estimated
 *         cost), DRACEL_ENOMEM, DRACEL_EINVAL.
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
/** Release a program (NULL is fine), also after its environment was freed. Results it made
 *  stay valid. */
DRACEL_API void dracel_program_free(dracel_program *p);

/**
 * Evaluate @p p with the values bound in @p env: the environment it was compiled for, or one
 * that declares every variable @p p reads in the same place with the same name and type (else
 * DRACEL_EINVAL: the program's code would read another variable).
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
/** The error message of an error result, or NULL for a value. The message lives as long as
 *  the result's value (until @p r is freed or evaluated into again). */
DRACEL_API const char *dracel_result_error(const dracel_result *r);
/** 1 or 0 for a bool result, -1 otherwise. */
DRACEL_API int dracel_result_bool(const dracel_result *r);
/** Read an int result into @p out. @return DRACEL_OK, or DRACEL_EINVAL when the result is
 *  not an int (another type, or an error) or an argument is NULL. */
DRACEL_API dracel_status dracel_result_int(const dracel_result *r, int64_t *out);
/** Read a uint result, as dracel_result_int. */
DRACEL_API dracel_status dracel_result_uint(const dracel_result *r, uint64_t *out);
/** Read a double result, as dracel_result_int. */
DRACEL_API dracel_status dracel_result_double(const dracel_result *r, double *out);
/** Read a string result: @p *data (UTF-8, followed by a NUL that @p *len does not count; the
 *  string itself may contain NULs) lives as long as the result's value (until @p r is freed
 *  or evaluated into again). @return DRACEL_OK, or DRACEL_EINVAL for another type. */
DRACEL_API dracel_status dracel_result_string(const dracel_result *r, const char **data,
                                              size_t *len);
/** Read a bytes result, as dracel_result_string. */
DRACEL_API dracel_status dracel_result_bytes(const dracel_result *r, const void **data,
                                             size_t *len);
/** The value as typed JSON (docs/dra-celc.md, "eval"), or {"error":"..."}; release with
 *  dracel_free_string() and the result's config. */
DRACEL_API char *dracel_result_json(const dracel_result *r);
/** The value as CEL-like text; release with dracel_free_string(). */
DRACEL_API char *dracel_result_text(const dracel_result *r);
/** The run-time cost the evaluation used, in cel-go's units. */
DRACEL_API uint64_t dracel_result_cost(const dracel_result *r);
/** Release a result and everything its value points to (NULL is fine). */
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
/** Number of rows (devices of the newest generation of every pool). Older generations still
 *  published are kept for the allocator (a node that sees no newer slice of a pool allocates
 *  from the newest generation it sees) but are no rows of this view: selections' bits past
 *  the rows are clear. docs/columnar.md. */
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
DRACEL_API dracel_status dracel_table_device_size(const dracel_table *t, uint32_t row,
                                                  dracel_device_info *out, size_t size);
#define dracel_table_device(t, row, out) dracel_table_device_size((t), (row), (out), sizeof *(out))
/** The node names the table's devices are tied to by name (nodeName), sorted and distinct:
 *  the nodes a placement asks about when no Node objects are at hand. Strings live as long as
 *  the table. */
DRACEL_API size_t dracel_table_nodes(const dracel_table *t);
DRACEL_API const char *dracel_table_node(const dracel_table *t, size_t i);

/** A pool of a table (the newest generation), in row order. Strings live as long as the table.
 *  Growable (dracel_table_pool passes its size). */
typedef struct dracel_pool_info {
    const char *driver, *name;
    int64_t generation;
    /** A 64-bit hash of everything of the pool an allocation can read: its slices of the
     *  newest generation in order (devices in order, with their attributes, capacities,
     *  taints, consumed counters, node selection and allowMultipleAllocations; the slices'
     *  node selection and shared counters) and its state; not its generation, slice names or
     *  resourceSliceCount as such. Computed from the strings and values (never dictionary
     *  ids), when the pool is built: equal across snapshots and fleets, patched or built in
     *  full, exactly when that content is (up to hash collisions). With older generations
     *  still published (which a node that sees no newer slice allocates from), their content
     *  too. */
    uint64_t version;
    /** The node every slice of the pool names by nodeName, or NULL (allNodes, a node
     *  selector, per-device node selection, or several nodes). */
    const char *node;
    const char *state;           /**< "complete", "incomplete", "invalid" (static strings) */
    uint32_t first_row, rows;    /**< its devices are rows [first_row, first_row + rows) */
} dracel_pool_info;
/** The number of pools of @p t (0 for NULL). */
DRACEL_API size_t dracel_table_pools(const dracel_table *t);
/**
 * Pool @p i of @p t, in row order.
 * @param size sizeof *out (dracel_table_pool passes it).
 * @return DRACEL_OK, or DRACEL_EINVAL (NULL argument, @p i out of range, @p size too small).
 */
DRACEL_API dracel_status dracel_table_pool_size(const dracel_table *t, size_t i,
                                                dracel_pool_info *out, size_t size);
#define dracel_table_pool(t, i, out) dracel_table_pool_size((t), (i), (out), sizeof *(out))
/**
 * The index of pool (@p driver, @p pool) in @p t (a binary search).
 * @return DRACEL_OK with *index; DRACEL_EINPUT when the table has no such pool; DRACEL_EINVAL
 *         for a NULL argument.
 */
DRACEL_API dracel_status dracel_table_pool_find(const dracel_table *t, const char *driver,
                                                const char *pool, size_t *index);

/**
 * The row of device (@p driver, @p pool, @p device) in the newest generation of its pool.
 * @return DRACEL_OK with *row; DRACEL_EINPUT when there is no such device; DRACEL_EINVAL for a
 *         NULL argument.
 */
DRACEL_API dracel_status dracel_table_device_find(const dracel_table *t, const char *driver,
                                                  const char *pool, const char *device,
                                                  uint32_t *row);
/** Attribute @p name ("domain/id", as Kubernetes' fully qualified names) of row @p row as text:
 *  a string as it is, another value as dra-celc eval prints it (a version "1.2.3", an int, a
 *  bool). Release with dracel_free_string() and the table's config; NULL when the device has
 *  no such attribute (or on ENOMEM). */
DRACEL_API char *dracel_table_attribute_text(const dracel_table *t, uint32_t row,
                                             const char *name);

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
/** Add or replace the slices, and the DeviceTaintRules (by metadata.name), of a file or
 *  directory (as dracel_table_load reads them). All or nothing: on a rejected input the fleet is
 *  unchanged. A rule added, changed or deleted makes the next snapshot a full build; the rules
 *  apply to the devices in the order of their names. */
DRACEL_API dracel_status dracel_fleet_load(dracel_fleet *f, const char *path, char *err,
                                           size_t errcap);
DRACEL_API dracel_status dracel_fleet_load_buffer(dracel_fleet *f, const char *name,
                                                  const char *buf, size_t len, char *err,
                                                  size_t errcap);
/** Remove the slice of this metadata.name: DRACEL_EINPUT when the fleet has none,
 *  DRACEL_ENOMEM (the fleet unchanged) when memory runs out. */
DRACEL_API dracel_status dracel_fleet_delete(dracel_fleet *f, const char *slice_name);
/** Remove the DeviceTaintRule of this metadata.name: DRACEL_EINPUT when the fleet has none. */
DRACEL_API dracel_status dracel_fleet_delete_rule(dracel_fleet *f, const char *rule_name);
/** The number of slices held (every generation). */
DRACEL_API size_t dracel_fleet_slices(const dracel_fleet *f);
/** The number of DeviceTaintRules held. */
DRACEL_API size_t dracel_fleet_rules(const dracel_fleet *f);
/**
 * A table of the fleet as it is now, with the same answers as the table built at once from its
 * slices. The fleet keeps a reference to it (until the next snapshot or dracel_fleet_free):
 * the next snapshot copies the pools that did not change since and builds only the others.
 * @return DRACEL_OK, or DRACEL_ENOMEM (the fleet unchanged; a later snapshot is complete).
 */
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

/* ---------------------------------------------------------------------------------------------
 * Activations: the values of one evaluation, apart from the environment
 *
 * An activation holds a value for each variable of an environment (as cel-cpp's Activation):
 * many threads evaluate one program at once, each with its own activation and result, while
 * the environment only declares. An activation is used by one thread at a time while it is
 * being set; evaluations only read it (several threads may evaluate with one activation that
 * no one changes). The environment must outlive its activations, and its declarations must not
 * change while they are in use. A variable that was never set reads as the error "no such
 * attribute(s): variable not bound". Values are copied in: nothing given to a setter (a string,
 * a JSON text, a table) needs to outlive the call.
 */

/** The values of one evaluation. Opaque. */
typedef struct dracel_activation dracel_activation;

/** A new activation for @p env's variables, none set. @return DRACEL_OK, DRACEL_ENOMEM,
 *  DRACEL_EINVAL. */
DRACEL_API dracel_status dracel_activation_new(const dracel_env *env, dracel_activation **out);
/** Release an activation (NULL is fine). */
DRACEL_API void dracel_activation_free(dracel_activation *act);
/**
 * Set variable @p name (declared in the activation's environment) from typed JSON (as
 * dracel_env_bind_json reads it). The value must have the declared type (dyn takes any).
 * @return DRACEL_OK; DRACEL_EINVAL when @p name is not declared; DRACEL_EINPUT when the JSON
 *         is rejected or its type is not the declared one (a message in @p err); DRACEL_ENOMEM.
 *         On failure the variable keeps its previous value.
 */
DRACEL_API dracel_status dracel_activation_bind_json(dracel_activation *act, const char *name,
                                                     const char *json, size_t len, char *err,
                                                     size_t errcap);
/** Set variable @p name to a CEL int. @return DRACEL_OK, or DRACEL_EINVAL when @p name is not
 *  declared or is declared with a type that is neither int nor dyn; DRACEL_ENOMEM. */
DRACEL_API dracel_status dracel_activation_set_int(dracel_activation *act, const char *name,
                                                   int64_t v);
/** Set a uint variable, as dracel_activation_set_int. */
DRACEL_API dracel_status dracel_activation_set_uint(dracel_activation *act, const char *name,
                                                    uint64_t v);
/** Set a double variable, as dracel_activation_set_int. */
DRACEL_API dracel_status dracel_activation_set_double(dracel_activation *act, const char *name,
                                                      double v);
/** Set a bool variable, as dracel_activation_set_int. */
DRACEL_API dracel_status dracel_activation_set_bool(dracel_activation *act, const char *name,
                                                    bool v);
/** Set a string variable to @p len bytes at @p s (copied; must be UTF-8, else DRACEL_EINVAL;
 *  NULs allowed), as dracel_activation_set_int. */
DRACEL_API dracel_status dracel_activation_set_string(dracel_activation *act, const char *name,
                                                      const char *s, size_t len);
/** Set a bytes variable to @p len bytes at @p b (copied), as dracel_activation_set_int. */
DRACEL_API dracel_status dracel_activation_set_bytes(dracel_activation *act, const char *name,
                                                     const void *b, size_t len);
/** Set `device` (DRA environments) from device JSON, as dracel_env_device_json reads it.
 *  @return DRACEL_EINVAL without a `device` variable; DRACEL_EINPUT for rejected JSON. */
DRACEL_API dracel_status dracel_activation_device_json(dracel_activation *act, const char *json,
                                                       size_t len, char *err, size_t errcap);
/**
 * Set `device` (DRA environments) to row @p row of table @p t, without JSON: the same value
 * dracel_activation_device_json would give for that device's JSON (a device Kubernetes cannot
 * present to CEL, such as one with an invalid version, is the error every selector gets on it).
 * The value is copied: @p t may be freed afterwards.
 * @return DRACEL_OK; DRACEL_EINVAL without a `device` variable or when @p row is out of range;
 *         DRACEL_ENOMEM.
 */
DRACEL_API dracel_status dracel_activation_set_device_row(dracel_activation *act,
                                                          const dracel_table *t, uint32_t row);
/**
 * Evaluate @p p with the values of @p act into @p r (made with dracel_result_new; its previous
 * value is replaced). @p act's environment must declare every variable @p p reads as @p p's
 * environment did (the same environment, or one with the same names and types in the same
 * places), else DRACEL_EINVAL.
 * @return DRACEL_OK (a CEL error is a result), DRACEL_ENOMEM, DRACEL_EINVAL.
 */
DRACEL_API dracel_status dracel_eval_activation(const dracel_program *p,
                                                const dracel_activation *act, dracel_result *r);

/* ---------------------------------------------------------------------------------------------
 * Host functions: C functions that expressions call
 *
 * dracel_env_add_function declares one overload of a function and the C function that
 * implements it; declaring the same name again adds an overload (cel-go's cel.Function with
 * several cel.Overload options merges the same way). Calls go through libffi's ffi_call with a
 * call interface prepared once, at declaration; no closure and no executable memory is used.
 *
 * The C function's signature follows the declaration:
 *
 *     RESULT fn(dracel_host_ctx *ctx, PARAM1, PARAM2, ...)
 *
 * with, for each CEL parameter (the receiver first for a member overload):
 *     DRACEL_TYPE_BOOL   bool            DRACEL_TYPE_INT    int64_t
 *     DRACEL_TYPE_UINT   uint64_t        DRACEL_TYPE_DOUBLE double
 *     DRACEL_TYPE_STRING const char *, size_t   (UTF-8, NUL-terminated too; may hold NULs)
 *     DRACEL_TYPE_BYTES  const unsigned char *, size_t
 * String and bytes arguments point into the evaluation's own values: read-only, valid during
 * the call only. RESULT is bool, int64_t, uint64_t or double for those result types, and void
 * for a string or bytes result, which the function gives with dracel_host_return_string or
 * dracel_host_return_bytes (the library copies it during that call). A function fails with
 * dracel_host_error: the call's value is then a CEL error with that message (and its return
 * value is ignored); errors are values, so `false && f(x)` and `true || f(x)` absorb them as
 * CEL's logic does.
 *
 * Contract: the function must return (no longjmp, no exit), must not keep @p ctx or the
 * argument pointers after it returns, and may be called by several threads at once when
 * several threads evaluate. Its cost cannot be interrupted: declare it (`cost`,
 * `size_cost_factor`); the cost limit is checked before each call, and a call the remaining
 * budget cannot pay is not made. A function without DRACEL_FUNCTION_PURE is called once for
 * every evaluation that reaches the call (the vector VM may run a row again after reaching the
 * memory limit); a pure one may be called once per distinct argument value over a table.
 */

/** CEL types of host function parameters and results, and their C types (above). */
typedef enum dracel_type {
    DRACEL_TYPE_BOOL = 1,
    DRACEL_TYPE_INT = 2,
    DRACEL_TYPE_UINT = 3,
    DRACEL_TYPE_DOUBLE = 4,
    DRACEL_TYPE_STRING = 5,
    DRACEL_TYPE_BYTES = 6
} dracel_type;

/** The call a host function is running: its first argument. Opaque; valid during the call. */
typedef struct dracel_host_ctx dracel_host_ctx;

/** The type of dracel_function.fn: the real C function cast to it with DRACEL_HOST_FN(f). */
typedef void (*dracel_host_fn)(void);
#define DRACEL_HOST_FN(f) ((dracel_host_fn)(f))

/** The most CEL parameters of one overload, the receiver included. */
#define DRACEL_FUNCTION_MAX_PARAMS 8
/** The default longest string or bytes result of a host function (bytes). */
#define DRACEL_DEFAULT_MAX_RESULT (1u << 20)

enum {
    /** The function is deterministic and has no effect the caller can observe: equal arguments
     *  give equal results, so the vector VM may call it once per distinct value of a column. */
    DRACEL_FUNCTION_PURE = 1u << 0
};

/**
 * One overload of a host function. Fill with dracel_function_init() and then set the fields.
 * Grows at its end as dracel_config does (`size`).
 */
typedef struct dracel_function {
    size_t size;               /**< sizeof(dracel_function) as the caller was compiled */
    const char *name;          /**< "score", or qualified "acme.score" (global overloads only) */
    const char *overload_id;   /**< unique within the function, e.g. "score_string_int" */
    bool member;               /**< receiver style, `x.score(y)`: params[0] is the receiver */
    uint32_t nparams;          /**< 0 .. DRACEL_FUNCTION_MAX_PARAMS (at least 1 for member) */
    dracel_type params[DRACEL_FUNCTION_MAX_PARAMS];
    dracel_type result;
    dracel_host_fn fn;         /**< the C function, cast with DRACEL_HOST_FN */
    void *data;                /**< given back by dracel_host_data() during calls */
    unsigned flags;            /**< DRACEL_FUNCTION_* */
    uint64_t cost;             /**< run-time cost of a call in cel-go's units (default 1; 0
                                    counts as 1, what every call costs), also what the static
                                    estimate counts */
    double size_cost_factor;   /**< plus this times the summed sizes of the string (code
                                    points) and bytes (bytes) arguments, rounded up (cel-go
                                    charges 0.1 per character to traverse a string); default 0 */
    size_t max_result_bytes;   /**< a longer string or bytes result is an error value (default
                                    DRACEL_DEFAULT_MAX_RESULT; at most UINT32_MAX - 1) */
} dracel_function;

/** Fill @p f (@p size bytes) with the defaults; use the macro dracel_function_init(f). */
DRACEL_API void dracel_function_init_size(dracel_function *f, size_t size);
#define dracel_function_init(f) dracel_function_init_size((f), sizeof *(f))

/**
 * Declare the overload @p f in @p env (copied: @p f and its strings need not outlive the call).
 * Rules, as cel-go's for adding an overload to a function: a new overload id whose signature
 * overlaps a declared overload of the same name (same style and arity, and each parameter type
 * equal or dyn or a type parameter on either side) is refused ("overload signature collision
 * in function NAME: ID collides with ID"); an id declared before may be declared again with the
 * same signature (the new C function, cost and flags replace the old for later compilations;
 * programs compiled before keep theirs) but not with another ("overload redefinition in
 * function. NAME: ID has multiple definitions"). Library functions can gain overloads (`size`
 * of an int, say) but none of theirs can be redefined or overlapped. Macros (has, all, exists,
 * exists_one, map, filter, cel.bind, ...) are expanded before functions are looked up, as in
 * cel-go: a host function with a macro's name and arity is never called.
 * @param err receives a message on DRACEL_EINVAL (may be NULL).
 * @return DRACEL_OK, DRACEL_EINVAL (a bad or colliding declaration), DRACEL_ENOMEM.
 */
DRACEL_API dracel_status dracel_env_add_function(dracel_env *env, const dracel_function *f,
                                                 char *err, size_t errcap);

/** During a call: the declaration's `data`. */
DRACEL_API void *dracel_host_data(const dracel_host_ctx *ctx);
/** During a call: fail it; the call's value becomes a CEL error with message @p msg (copied;
 *  bytes that are not UTF-8 become '?'; NULL: "host function 'NAME' failed"). The first
 *  error of a call counts; the function's return value is then ignored. */
DRACEL_API void dracel_host_error(dracel_host_ctx *ctx, const char *msg);
/** During a call of a function declared to return a string: return @p len bytes at @p s
 *  (copied now, so a stack buffer is fine). NULL, a longer result than max_result_bytes,
 *  text that is not UTF-8 or a function declared with another result type make the call's
 *  value an error instead. A later return replaces an earlier one. */
DRACEL_API void dracel_host_return_string(dracel_host_ctx *ctx, const char *s, size_t len);
/** During a call of a function declared to return bytes: as dracel_host_return_string. */
DRACEL_API void dracel_host_return_bytes(dracel_host_ctx *ctx, const void *b, size_t len);

/* ---------------------------------------------------------------------------------------------
 * Placement: which devices a pod's ResourceClaims get on a node, and why (docs/allocation.md)
 *
 * The objects (DeviceClasses, ResourceClaims, Nodes) are read as Kubernetes' API server
 * validates them. A policy is one pod's claims and the classes they name, copied and compiled
 * against a device table; it is immutable and any number of threads allocate with it, each with
 * its own dracel_run (the thread's scratch and the answer of its last node). An allocation
 * answers what Kubernetes' structured allocator would answer on that node, with the same error
 * messages. The release whose behaviour is matched: docs/allocation.md.
 */

/** Kubernetes objects: DeviceClasses, ResourceClaims (and the claim of a
 *  ResourceClaimTemplate) and Nodes. Opaque. A set grows with each load, all or nothing; it
 *  must not be read by other threads while a load runs. */
typedef struct dracel_objects dracel_objects;

/** Object kinds, as bits for dracel_objects_load's and dracel_cluster_apply's @p kinds. */
enum {
    DRACEL_OBJ_SLICE = 1u << 0, /**< ResourceSlice (a cluster's; dracel_objects holds none) */
    DRACEL_OBJ_CLASS = 1u << 1, /**< DeviceClass */
    DRACEL_OBJ_CLAIM = 1u << 2, /**< ResourceClaim, and ResourceClaimTemplate (its spec.spec) */
    DRACEL_OBJ_NODE = 1u << 3,  /**< Node (its name, labels and allocatable) */
    DRACEL_OBJ_TAINT_RULE = 1u << 4 /**< DeviceTaintRule (a cluster's; dracel_objects holds
                                         none) */
};

/** An empty set. @param cfg the allocator (NULL: defaults); copied. */
DRACEL_API dracel_status dracel_objects_new(const dracel_config *cfg, dracel_objects **out);
/** Release a set (NULL is fine); policies made from it keep their own copies. */
DRACEL_API void dracel_objects_free(dracel_objects *o);
/**
 * Load the objects of the kinds in @p kinds from a file or a directory (JSON or YAML; one
 * object, a List or a YAML stream; a directory's .json/.yaml/.yml files in name order; claims
 * with their status, docs/allocation.md). DRACEL_OBJ_SLICE and DRACEL_OBJ_TAINT_RULE are not
 * among them (DRACEL_EINVAL).
 * Objects of other kinds are skipped with a note; an object without `kind` is taken as the one kind
 * asked for when @p kinds has one bit. All or nothing: a rejected input (DRACEL_EINPUT, with
 * "FILE:LINE: KIND NAME: FIELD: what is wrong" in @p err) leaves the set as it was. A
 * DeviceClass or Node whose name the set already has is rejected input ("defined twice").
 * An unreadable path is DRACEL_EINVAL with a message.
 */
DRACEL_API dracel_status dracel_objects_load(dracel_objects *o, const char *path, unsigned kinds,
                                             char *err, size_t errcap);
/** The same from a buffer; @p name stands for the file in messages. */
DRACEL_API dracel_status dracel_objects_load_buffer(dracel_objects *o, const char *name,
                                                    const char *buf, size_t len,
                                                    unsigned kinds, char *err, size_t errcap);
/** How many objects of one kind (one DRACEL_OBJ_* bit) the set holds, in load order. */
DRACEL_API size_t dracel_objects_count(const dracel_objects *o, unsigned kind);
/** Notes from loading ("FILE: skipped object of kind Pod"); they live as long as the set. */
DRACEL_API size_t dracel_objects_notes(const dracel_objects *o);
DRACEL_API const char *dracel_objects_note(const dracel_objects *o, size_t i);

/** What identifies an object. Strings live as long as the set (or the policy) it came from. */
typedef struct dracel_object_info {
    const char *kind;      /**< "DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "Node" */
    const char *name;      /**< metadata.name ("" for an unnamed claim of a scenario) */
    const char *ns;        /**< metadata.namespace, or NULL */
    const char *file;      /**< where it was read */
    uint32_t line;         /**< the line of the object in @c file */
    unsigned kind_bit;     /**< its DRACEL_OBJ_* bit (a ResourceClaimTemplate: DRACEL_OBJ_CLAIM);
                                0 for a kind none stands for (dracel_objects_keys) */
} dracel_object_info;
/** Object @p i of one kind. @return DRACEL_EINVAL when out of range. */
DRACEL_API dracel_status dracel_objects_get_size(const dracel_objects *o, unsigned kind, size_t i,
                                                 dracel_object_info *out, size_t size);
#define dracel_objects_get(o, kind, i, out) \
    dracel_objects_get_size((o), (kind), (i), (out), sizeof *(out))
/**
 * The objects of @p buf (JSON or YAML: one object, a List or a YAML stream; read as
 * dracel_objects_load reads it) as they name themselves, without decoding or validating them:
 * @p fn is called for each object, an item of a List on its own, in order, with its `kind` as
 * written ("" when absent) and its kind_bit, metadata.name and metadata.namespace (NULL when absent or not
 * strings), @p name (NULL: "<input>") as its file and its line; the strings live until @p fn
 * returns, and a nonzero return stops the walk. For a source that leaves out the one object a
 * rejected input is about rather than the whole text. DRACEL_EINPUT when the text is not JSON
 * or YAML ("FILE:LINE: ..." in @p err). @p cfg: the allocator (NULL: the default).
 */
DRACEL_API dracel_status dracel_objects_keys(const dracel_config *cfg, const char *name,
                                             const char *buf, size_t len,
                                             int (*fn)(void *ctx, const dracel_object_info *key),
                                             void *ctx, char *err, size_t errcap);
/** The index of the object of one kind named @p name (in namespace @p ns for claims; NULL for
 *  none), in constant time. @return DRACEL_OK, or DRACEL_EINPUT when the set has none. */
DRACEL_API dracel_status dracel_objects_find(const dracel_objects *o, unsigned kind,
                                             const char *ns, const char *name, size_t *index);

/** A node label. */
typedef struct dracel_label {
    const char *key, *value;
} dracel_label;
/** A node as placement sees it: what a ResourceSlice's node selection can read (the name, for
 *  nodeName and matchFields on metadata.name, and the labels). The library copies what it
 *  keeps; labels may come in any order. */
typedef struct dracel_node {
    const char *name;
    const dracel_label *labels;
    size_t nlabels;
} dracel_node;
/** Node @p i of the set (labels sorted by key; pointers into the set). */
DRACEL_API dracel_status dracel_objects_node(const dracel_objects *o, size_t i, dracel_node *out);

/** A device ID, as Kubernetes writes it: driver/pool/device (a pool name may contain '/'). */
typedef struct dracel_device_id {
    const char *driver, *pool, *device;
} dracel_device_id;

/** Devices in use by other claims (allocated, or reserved by a scheduler in flight), bound to
 *  one table: immutable, shared by threads and calls. Opaque. */
typedef struct dracel_usage dracel_usage;
/** The devices of @p t among @p ids (IDs @p t does not have count for nothing, as in
 *  Kubernetes), and what their counters consume. @p t must outlive the usage. */
DRACEL_API dracel_status dracel_usage_new(const dracel_table *t, const dracel_device_id *ids,
                                          size_t n, dracel_usage **out);
/** A device allocated with a shareID (DRAConsumableCapacity), as an allocation result holds
 *  it: not in use for other claims (a device with allowMultipleAllocations), its counters
 *  consumed once, what it consumes of each capacity added up with its other shares. */
typedef struct dracel_share {
    dracel_device_id device;
    const char *const *names;       /**< consumedCapacity's names (as the device writes them) */
    const char *const *quantities;  /**< their quantities, "4Gi" */
    size_t n;
} dracel_share;
/** dracel_usage_new with shared allocations too. @return DRACEL_EINVAL also for a quantity
 *  that does not parse. */
DRACEL_API dracel_status dracel_usage_new_shared(const dracel_table *t, const dracel_device_id *ids,
                                                 size_t n, const dracel_share *shares,
                                                 size_t nshares, dracel_usage **out);
DRACEL_API void dracel_usage_free(dracel_usage *u);
/** How many distinct devices of the table the IDs named. */
DRACEL_API size_t dracel_usage_devices(const dracel_usage *u);
/**
 * A hash of the devices of pool @p pool of the usage's table that the usage marks in use (their
 * names): equal for equal sets of in-use devices of an unchanged pool (see
 * dracel_pool_info.version), 0 when none is in use (or @p pool is out of range).
 */
DRACEL_API uint64_t dracel_usage_pool_hash(const dracel_usage *u, size_t pool);

/**
 * The pools of @p t with at least one device visible on @p node, as the allocator gathers a
 * node's devices (PartitionableDevices on, the default): slices tied to it by nodeName, on
 * allNodes, whose node selector matches its name and labels, and with per-device node
 * selection the slices with a device on it. A key for what an answer on this node can depend
 * on (with the pools' versions and usage hashes). A pool whose only slices on the node are
 * of an older generation is listed (the allocator of 1.35 on may then leave it out).
 * @param out receives the pool indexes, ascending, out[0..cap) (may be NULL when @p cap is 0).
 * @return how many pools there are (may exceed @p cap: then, with older generations, possibly
 *         more than a call with room for all returns); 0 for a NULL or invalid argument.
 */
DRACEL_API size_t dracel_table_node_pools(const dracel_table *t, const dracel_node *node,
                                          size_t *out, size_t cap);

/** The DRA feature gates dracel reproduces, one bit each (docs/allocation.md, "Releases"):
 *  what a cluster turns on. The scheduler of each release turns them into its allocator's
 *  features, which pick the allocator copy that runs. */
enum {
    DRACEL_FEATURE_ADMIN_ACCESS = 1u << 0,        /**< DRAAdminAccess */
    DRACEL_FEATURE_PRIORITIZED_LIST = 1u << 1,    /**< DRAPrioritizedList (firstAvailable) */
    DRACEL_FEATURE_DEVICE_TAINTS = 1u << 2,       /**< DRADeviceTaints */
    DRACEL_FEATURE_PARTITIONABLE = 1u << 3,       /**< DRAPartitionableDevices (counters) */
    DRACEL_FEATURE_CONSUMABLE_CAPACITY = 1u << 4, /**< DRAConsumableCapacity */
    DRACEL_FEATURE_BINDING_CONDITIONS = 1u << 5,  /**< DRADeviceBindingConditions */
    DRACEL_FEATURE_LIST_TYPE_ATTRIBUTES = 1u << 6, /**< DRAListTypeAttributes */
    DRACEL_FEATURE_EXTENDED_RESOURCE = 1u << 7,   /**< DRAExtendedResource */
    DRACEL_FEATURE_DEVICE_STATUS = 1u << 8,       /**< DRAResourceClaimDeviceStatus */
    DRACEL_FEATURE_DEVICE_TAINT_RULES = 1u << 9   /**< DRADeviceTaintRules */
};
/** The gates on by default in the newest release (Kubernetes 1.37); the value of
 *  dracel_kubernetes_defaults(DRACEL_KUBERNETES_NEWEST). */
#define DRACEL_FEATURES_DEFAULT                                                             \
    (DRACEL_FEATURE_ADMIN_ACCESS | DRACEL_FEATURE_PRIORITIZED_LIST |                          \
     DRACEL_FEATURE_DEVICE_TAINTS | DRACEL_FEATURE_PARTITIONABLE |                            \
     DRACEL_FEATURE_CONSUMABLE_CAPACITY | DRACEL_FEATURE_BINDING_CONDITIONS |                 \
     DRACEL_FEATURE_EXTENDED_RESOURCE | DRACEL_FEATURE_DEVICE_STATUS |                        \
     DRACEL_FEATURE_DEVICE_TAINT_RULES)
/** The feature named @p name (@p len bytes; "AdminAccess" or its gate "DRAAdminAccess"), or 0. */
DRACEL_API unsigned dracel_feature_parse(const char *name, size_t len);
/** The name of one feature bit ("AdminAccess"), or NULL. A static string. */
DRACEL_API const char *dracel_feature_name(unsigned bit);

/** The Kubernetes releases whose allocator dracel reproduces, by minor version. */
#define DRACEL_KUBERNETES_OLDEST 34u
#define DRACEL_KUBERNETES_NEWEST 37u
/** The minor version of a release written "1.36" (also "v1.36", "1.36.2"; the patch is not
 *  used), or 0 when it is not one dracel reproduces. */
DRACEL_API unsigned dracel_kubernetes_parse(const char *s, size_t len);
/** The gates release 1.@p minor turns on by default (0 for a release dracel does not know). */
DRACEL_API unsigned dracel_kubernetes_defaults(unsigned minor);
/**
 * Apply a kube-scheduler --feature-gates value ("DRAConsumableCapacity=false,DRADeviceTaints=true",
 * Kubernetes' syntax and checks: unknown gates, gates locked to their default in that release,
 * values strconv.ParseBool does not read are errors) to @p features for release 1.@p minor.
 * @return DRACEL_OK, or DRACEL_EINPUT with the message in @p err (@p features unchanged).
 */
DRACEL_API dracel_status dracel_feature_gates(unsigned minor, const char *spec, size_t len,
                                              unsigned *features, char *err, size_t errcap);

/** One pod's claims and the DeviceClasses they name, compiled against a table. Opaque,
 *  immutable, shared by any number of threads. */
typedef struct dracel_policy dracel_policy;
/**
 * Build a policy. The claims are @p claims' objects at @p claim_index (NULL: all of them, in
 * load order; the pod's order decides the search); the classes they name are looked up in
 * @p classes (a missing class is the allocator's error when a search needs it, as in
 * Kubernetes). Both are copied: the sets may change or go afterwards. Every distinct selector
 * is compiled and evaluated over @p t once; a selector that does not compile is reported by the
 * allocation that meets it, as Kubernetes reports it. @p t must outlive the policy.
 * @param cfg limits and allocator (NULL: defaults): cost_limit and eval_memory_limit bound each
 *        selector's evaluation on each device.
 * @return DRACEL_OK, DRACEL_ENOMEM, DRACEL_EINVAL (an index out of range).
 */
DRACEL_API dracel_status dracel_policy_new(const dracel_config *cfg, const dracel_table *t,
                                           const dracel_objects *classes,
                                           const dracel_objects *claims,
                                           const size_t *claim_index, size_t nclaims,
                                           dracel_policy **out, char *err, size_t errcap);
DRACEL_API void dracel_policy_free(dracel_policy *p);
/** "pv1-" and 16 hex digits: a hash of what decides (classes, selectors, requests, modes,
 *  counts, tolerations, constraints, config), independent of input order. Lives as long as
 *  the policy. */
DRACEL_API const char *dracel_policy_version(const dracel_policy *p);
/** The table the policy was built against. */
DRACEL_API const dracel_table *dracel_policy_table(const dracel_policy *p);
/** The policy's claims, in order; their strings live as long as the policy. */
DRACEL_API size_t dracel_policy_claims(const dracel_policy *p);
DRACEL_API dracel_status dracel_policy_claim_size(const dracel_policy *p, size_t i,
                                                  dracel_object_info *out, size_t size);
#define dracel_policy_claim(p, i, out) dracel_policy_claim_size((p), (i), (out), sizeof *(out))

/** A tier: a request with `exactly` (one tier), or one subrequest of `firstAvailable`. The
 *  policy's tiers are numbered in claim, request, subrequest order. Strings live as long as
 *  the policy. */
typedef struct dracel_tier_info {
    size_t claim, request;     /**< the claim (policy order) and the request (claim order) */
    uint32_t rank;             /**< the subrequest's index in firstAvailable; 0 for exactly */
    bool first_available;
    const char *name;          /**< "req" or "req/sub", as allocation results name it */
    const char *device_class;  /**< deviceClassName, or NULL */
    const char *mode;          /**< "ExactCount", "All" (or what the claim says) */
    int64_t count;             /**< devices (ExactCount) */
    bool admin_access;
    size_t nselectors;         /**< the class's selectors, then the request's */
} dracel_tier_info;
DRACEL_API size_t dracel_policy_tiers(const dracel_policy *p);
DRACEL_API dracel_status dracel_policy_tier_size(const dracel_policy *p, size_t tier,
                                                 dracel_tier_info *out, size_t size);
#define dracel_policy_tier(p, i, out) dracel_policy_tier_size((p), (i), (out), sizeof *(out))

/**
 * The devices of the whole table that tier @p tier accepts: those of complete pools on which
 * its DeviceClass's selectors and its own are all true (with @p class_only, the class's alone:
 * the DeviceClass's devices), wherever they are and whether in use or not. The size of a tier
 * for the shares and idle reserves of a tier policy (docs/fairness.md).
 * @param bits NULL, or @p words words (at least (rows + 63) / 64) that receive the devices as a
 *        bitmap over the table's rows (bit r of word r / 64).
 * @param count receives how many there are.
 * @return DRACEL_OK, DRACEL_ENOMEM, DRACEL_EINVAL (a NULL argument, @p tier out of range,
 *         @p words too few).
 */
DRACEL_API dracel_status dracel_policy_tier_candidates(const dracel_policy *p, size_t tier,
                                                       bool class_only, uint64_t *bits,
                                                       size_t words, uint32_t *count);
struct dracel_allocate_opts;
/**
 * Of dracel_policy_tier_candidates' devices, those the allocator could give the tier now,
 * apart from their being in use, under the release and gates of @p o (`kubernetes`,
 * `features`; NULL: the newest release, default gates): without a taint the tier does not
 * tolerate (NoSchedule or NoExecute; any effect in 1.34) when DRADeviceTaints is on (a
 * DeviceTaintRule's taints with DRADeviceTaintRules), without counters to consume when
 * DRAPartitionableDevices is off, without binding conditions when their gates are off. A tier
 * policy's size of a tier and its free devices count these: a tainted device is neither
 * (docs/fairness.md, "Unhealthy devices").
 * @return as dracel_policy_tier_candidates; DRACEL_EINVAL also for a release dracel does not
 *         reproduce.
 */
DRACEL_API dracel_status dracel_policy_tier_usable(const dracel_policy *p, size_t tier,
                                                   bool class_only,
                                                   const struct dracel_allocate_opts *o,
                                                   uint64_t *bits, size_t words,
                                                   uint32_t *count);
/** How many of the rows of @p bits (a bitmap over the usage's table, @p words words) are in
 *  use: with dracel_policy_tier_candidates, the devices of a tier in use. 0 for a NULL
 *  argument or too few words. */
DRACEL_API uint32_t dracel_usage_count(const dracel_usage *u, const uint64_t *bits, size_t words);

/** Options of an allocation: fill with dracel_allocate_opts_init() (or pass NULL for the
 *  defaults). Grows at its end as dracel_config does (`size`). */
typedef struct dracel_allocate_opts {
    size_t size;                      /**< sizeof(dracel_allocate_opts) as compiled */
    unsigned features;                /**< DRACEL_FEATURE_* bits; default DRACEL_FEATURES_DEFAULT */
    uint64_t timeout_ms;              /**< the search's time limit on one node, as the
                                           scheduler's filterTimeout (default 10000; 0: none):
                                           reaching it makes the node unschedulable */
    uint64_t budget_ms;               /**< the time limit of the whole call (0: none, default):
                                           the nodes it leaves are DRACEL_SKIPPED */
    bool explain;                     /**< gather the explanation */
    uint32_t examples;                /**< examples per selector in it, 1 to 3 (default 1) */
    const dracel_usage *in_use;       /**< devices allocated to other claims (NULL: none); of
                                           the policy's table */
    const dracel_device_id *reserved; /**< more devices in use, for this call only (in-flight
                                           reservations); read during the call */
    size_t nreserved;
    unsigned kubernetes;              /**< the release reproduced, its minor version (34 to 37;
                                           0, the default: the newest): its scheduler turns
                                           `features` (the gates) into its allocator's features
                                           and runs the first allocator copy supporting them */
    int (*interrupt)(void *ctx);      /**< polled where the time limits are checked (before a
                                           node, before a selector's evaluation on a device,
                                           every 256 steps of the search); from its first
                                           nonzero answer the call ends as if its budget were
                                           spent: the node searched is unschedulable
                                           ("interrupted"), the rest DRACEL_SKIPPED. Called on
                                           the calling thread; NULL: never (the default) */
    void *interrupt_ctx;              /**< its argument */
} dracel_allocate_opts;
DRACEL_API void dracel_allocate_opts_init_size(dracel_allocate_opts *o, size_t size);
#define dracel_allocate_opts_init(o) dracel_allocate_opts_init_size((o), sizeof *(o))

/** One thread's allocations with a policy: scratch memory kept between calls, and the answer
 *  of the last node. Opaque. */
typedef struct dracel_run dracel_run;
DRACEL_API dracel_status dracel_run_new(const dracel_policy *p, dracel_run **out);
DRACEL_API void dracel_run_free(dracel_run *r);

/**
 * Allocate the policy's claims on @p node. The answer (and every string and struct read from
 * it) stays in @p r until the next call on @p r.
 * @return DRACEL_OK (the outcome is in the run, read it with dracel_run_get), DRACEL_ENOMEM,
 *         DRACEL_EINVAL (a bad option; a usage of another table).
 */
DRACEL_API dracel_status dracel_allocate(dracel_run *r, const dracel_node *node,
                                         const dracel_allocate_opts *o);
/** Called after each node of dracel_allocate_nodes with the node's answer in @p r (valid until
 *  the callback returns). Return nonzero to stop the call there. */
typedef int (*dracel_node_fn)(void *ctx, size_t i, const dracel_run *r);
/**
 * Allocate on each of @p nodes in turn, calling @p fn after each. The options apply to the
 * whole call: its devices in use, and its budget (budget_ms), after which the remaining nodes
 * are answered DRACEL_SKIPPED without work.
 */
DRACEL_API dracel_status dracel_allocate_nodes(dracel_run *r, const dracel_node *nodes,
                                               size_t n, const dracel_allocate_opts *o,
                                               dracel_node_fn fn, void *ctx);

typedef enum dracel_outcome {
    DRACEL_ALLOCATED = 0,        /**< every claim got its devices */
    DRACEL_UNSCHEDULABLE = 1,    /**< no solution on this node (or the search's time limit) */
    DRACEL_ALLOCATION_ERROR = 2, /**< Kubernetes' allocator returns an error: see node_local */
    DRACEL_SKIPPED = 3           /**< not tried: the call's budget was spent */
} dracel_outcome;

/** The answer of the last node. Strings live until the next call on the run. */
typedef struct dracel_run_info {
    dracel_outcome outcome;
    const char *node;
    const char *message;  /**< the error, or why unschedulable or skipped when known; or NULL */
    bool node_local;      /**< an error Kubernetes treats as this node's (Unschedulable) rather
                               than aborting the pod's scheduling attempt */
    int score;            /**< the scheduler's firstAvailable score (8 - rank, summed), -1
                               unless allocated */
    const char *tiers;    /**< the tiers chosen, "gpu/h100, nic" ("" unless allocated) */
    uint32_t devices, pools; /**< devices and pools visible on the node */
    uint64_t steps, backtracks; /**< the search's work */
    bool explained;       /**< the explanation was gathered */
    unsigned kubernetes;  /**< the release reproduced (minor version) */
    const char *allocator; /**< the copy of Kubernetes' allocator it runs: "stable",
                               "incubating" or "experimental" */
    unsigned allocator_features; /**< the features its scheduler passes that copy
                                      (DRACEL_FEATURE_* bits) */
    const char *nondeterministic; /**< when Kubernetes' own answer here depends on Go's map
                                       order (copies before 1.36 and 1.36's stable copy, more
                                       than one slice with usable devices): why; else NULL */
} dracel_run_info;
DRACEL_API dracel_status dracel_run_get_size(const dracel_run *r, dracel_run_info *out,
                                             size_t size);
#define dracel_run_get(r, out) dracel_run_get_size((r), (out), sizeof *(out))
/** The subrequest rank chosen for request @p request of claim @p claim (0 for exactly), or -1
 *  unless allocated. */
DRACEL_API int dracel_run_chosen(const dracel_run *r, size_t claim, size_t request);

/** One device of an allocation result, as Kubernetes' DeviceRequestAllocationResult. */
typedef struct dracel_device_result {
    const char *request;       /**< "req" or "req/sub" */
    const char *driver, *pool, *device;
    size_t tier;               /**< the policy's tier it came from */
    bool admin_access;
    const char *share_id;      /**< a share of a device with allowMultipleAllocations
                                    (DRAConsumableCapacity): its shareID; else NULL. Kubernetes
                                    makes a random UID, dracel one derived from the node, the
                                    claim, the request and the device */
    size_t nconsumed;          /**< the capacities the share consumes
                                    (dracel_run_result_consumed) */
    size_t nbinding;           /**< the device's bindingConditions copied into the result
                                    (DRADeviceBindingConditions; dracel_run_result_condition) */
    size_t nbinding_failure;   /**< and its bindingFailureConditions */
} dracel_device_result;
/** The devices allocated to a claim (0 unless allocated). */
DRACEL_API size_t dracel_run_results(const dracel_run *r, size_t claim);
DRACEL_API dracel_status dracel_run_result_size(const dracel_run *r, size_t claim, size_t i,
                                                dracel_device_result *out, size_t size);
#define dracel_run_result(r, claim, i, out) \
    dracel_run_result_size((r), (claim), (i), (out), sizeof *(out))

/** Condition @p k of result @p i's bindingConditions (@p failure false) or
 *  bindingFailureConditions (true), in the slice's order; it lives as long as the policy's
 *  table. DRACEL_EINVAL when there is no such condition. */
DRACEL_API dracel_status dracel_run_result_condition(const dracel_run *r, size_t claim, size_t i,
                                                     bool failure, size_t k, const char **name);

/** Capacity @p k of result @p i's share (names in byte order, as Go writes the map): its name
 *  and quantity ("4Gi"), living until the next call on the run. */
DRACEL_API dracel_status dracel_run_result_consumed(const dracel_run *r, size_t claim, size_t i,
                                                    size_t k, const char **name,
                                                    const char **quantity);

/** One entry of an allocation's config, as Kubernetes copies class and claim config. */
typedef struct dracel_device_config {
    bool from_class;           /**< source FromClass, else FromClaim */
    const char *driver;        /**< opaque.driver */
    const char *parameters;    /**< opaque.parameters as compact JSON, or NULL */
    const char *const *requests; /**< the requests it applies to; none: every request */
    size_t nrequests;
} dracel_device_config;
DRACEL_API size_t dracel_run_configs(const dracel_run *r, size_t claim);
DRACEL_API dracel_status dracel_run_config_size(const dracel_run *r, size_t claim, size_t i,
                                                dracel_device_config *out, size_t size);
#define dracel_run_config(r, claim, i, out) \
    dracel_run_config_size((r), (claim), (i), (out), sizeof *(out))

/** Renderings of the answer; release with dracel_free_string() and the policy's config. NULL
 *  on ENOMEM. */
/** The object of `dra-celc allocate --format json` (with "explanation" when gathered). */
DRACEL_API char *dracel_run_json(const dracel_run *r);
/** The node's answer as one object of `dra-celc explain --format json`'s "nodes":
 *  {"node":NAME,"tiers":"...", then the fields of dracel_run_json}. */
DRACEL_API char *dracel_run_node_json(const dracel_run *r);
/** The text of `dra-celc allocate`. */
DRACEL_API char *dracel_run_text(const dracel_run *r);
/** One line: the devices chosen, or (explained) why each tier fell short; may be "". */
DRACEL_API char *dracel_run_summary(const dracel_run *r);
/** The node's answer in one line, as `dra-celc explain` prints it: "NODE: allocated TIERS (score
 *  S): DEVICES", "NODE: error[ (node-local)]: MESSAGE" or "NODE: unschedulable[: WHY]" (also
 *  for a node not tried, DRACEL_SKIPPED; WHY: the message, else the summary). */
DRACEL_API char *dracel_run_line(const dracel_run *r);
/** Only the explanation, as JSON or text; NULL unless gathered (or on ENOMEM). */
DRACEL_API char *dracel_run_explain_json(const dracel_run *r);
DRACEL_API char *dracel_run_explain_text(const dracel_run *r);
/** The node selector of a claim's result as Kubernetes' v1 NodeSelector JSON; NULL when the
 *  result has none (devices of no node or of every node), or unless allocated. */
DRACEL_API char *dracel_run_node_selector_json(const dracel_run *r, size_t claim);

/* The explanation as data (when gathered), per tier of the policy. */
typedef enum dracel_tier_status {
    DRACEL_TIER_CHOSEN = 0,    /**< its devices were allocated */
    DRACEL_TIER_FAILED = 1,    /**< tried, and it gave no solution */
    DRACEL_TIER_NOT_TRIED = 2, /**< an earlier tier of the request was chosen */
    DRACEL_TIER_ABORTED = 3    /**< the allocation stopped with an error */
} dracel_tier_status;
/** Why devices of the node were not candidates, or candidates not available. */
enum {
    DRACEL_EXCLUDED_INCOMPLETE_POOL = 0, /**< its pool is being updated */
    DRACEL_EXCLUDED_INVALID_POOL = 1,    /**< its pool is invalid */
    DRACEL_EXCLUDED_NODE = 2,            /**< per-device node selection: not this node's */
    DRACEL_EXCLUDED_ALLOCATED = 3,       /**< in use by another claim */
    DRACEL_EXCLUDED_TAINTED = 4,         /**< a NoSchedule/NoExecute taint not tolerated */
    DRACEL_EXCLUDED_COUNTERS = 5,        /**< its pool's counters cannot take it */
    DRACEL_EXCLUDED__COUNT = 6
};
typedef struct dracel_tier_explanation {
    dracel_tier_status status;
    const char *reason;        /**< why it failed (status FAILED), else NULL */
    uint32_t needed;           /**< devices the tier needs (All: the candidates) */
    uint32_t candidates;       /**< devices of the node its selectors accept */
    uint32_t available;        /**< candidates not excluded */
    uint32_t excluded[DRACEL_EXCLUDED__COUNT];
    size_t nselectors;
    uint32_t unevaluated;      /**< devices a selector with comprehensions (evaluated device by
                                    device, as Kubernetes does) was not evaluated on before the
                                    time limit; counted nowhere else */
    uint32_t excluded_capacity; /**< candidates without the capacity the tier asks for
                                     (DRAConsumableCapacity) */
    uint32_t excluded_binding;  /**< devices with binding conditions, which cannot be selected
                                     while their gates are off; no selector ran on them, and
                                     they are counted nowhere else */
    uint32_t excluded_ungated;  /**< candidates that consume counters while
                                     DRAPartitionableDevices is off (never allocated then);
                                     not in excluded[DRACEL_EXCLUDED_COUNTERS] */
} dracel_tier_explanation;
DRACEL_API dracel_status dracel_run_explain_tier_size(const dracel_run *r, size_t tier,
                                                      dracel_tier_explanation *out, size_t size);
#define dracel_run_explain_tier(r, tier, out) \
    dracel_run_explain_tier_size((r), (tier), (out), sizeof *(out))

/** One selector of a tier (the class's first, then the request's), and what it rejected. */
typedef struct dracel_selector_explanation {
    bool from_class;
    uint32_t index;            /**< in the class's or the request's list, from 0 */
    const char *expression;
    const char *compile_error; /**< NULL when it compiled */
    uint32_t rejected;         /**< devices it was false on (after the selectors before it) */
    uint32_t errored;          /**< devices it gave an error on */
    size_t nexamples;          /**< up to the examples asked for */
} dracel_selector_explanation;
DRACEL_API dracel_status dracel_run_explain_selector_size(const dracel_run *r, size_t tier,
                                                          size_t k,
                                                          dracel_selector_explanation *out,
                                                          size_t size);
#define dracel_run_explain_selector(r, tier, k, out) \
    dracel_run_explain_selector_size((r), (tier), (k), (out), sizeof *(out))
/** An example device a selector rejected, and the value that made it fail. */
typedef struct dracel_example {
    const char *driver, *pool, *device;
    const char *text;          /**< "gpu-3: device.attributes["gpu.example.com"].model is "L4"" */
    bool errored;              /**< the selector gave an error on it (text has the message) */
} dracel_example;
DRACEL_API dracel_status dracel_run_explain_example_size(const dracel_run *r, size_t tier,
                                                         size_t k, size_t e,
                                                         dracel_example *out, size_t size);
#define dracel_run_explain_example(r, tier, k, e, out) \
    dracel_run_explain_example_size((r), (tier), (k), (e), (out), sizeof *(out))

/** The scenario of `dra-celc allocate`: one object holding features, a node, DeviceClasses,
 *  ResourceSlices, allocated device IDs and a pod's claims (docs/allocation.md). Opaque. */
typedef struct dracel_scenario dracel_scenario;
/** Load a scenario (JSON or YAML) and build its table and usage. Rejected input: DRACEL_EINPUT
 *  with "FILE:LINE: ..." in @p err. */
DRACEL_API dracel_status dracel_scenario_load(const dracel_config *cfg, const char *path,
                                              dracel_scenario **out, char *err, size_t errcap);
DRACEL_API dracel_status dracel_scenario_load_buffer(const dracel_config *cfg, const char *name,
                                                     const char *buf, size_t len,
                                                     dracel_scenario **out, char *err,
                                                     size_t errcap);
DRACEL_API void dracel_scenario_free(dracel_scenario *s);
/** Its classes and claims (claims in the scenario's order). */
DRACEL_API const dracel_objects *dracel_scenario_objects(const dracel_scenario *s);
DRACEL_API const dracel_table *dracel_scenario_table(const dracel_scenario *s);
/** Its allocatedDevices (NULL when none). */
DRACEL_API const dracel_usage *dracel_scenario_usage(const dracel_scenario *s);
DRACEL_API void dracel_scenario_node(const dracel_scenario *s, dracel_node *out);
/** The gates its cluster has on: `features`, else its release's defaults, then
 *  `featureGates`. */
DRACEL_API unsigned dracel_scenario_features(const dracel_scenario *s);
/** The release it names (kubernetesVersion's minor version), else the newest. */
DRACEL_API unsigned dracel_scenario_kubernetes(const dracel_scenario *s);
/** Its gates in release 1.@p minor (0: its own): `features` as listed, else that release's
 *  defaults, then `featureGates` (as `dra-celc allocate --kubernetes-version` runs it). */
DRACEL_API unsigned dracel_scenario_gates(const dracel_scenario *s, unsigned minor);
/** Whether the last of its claims is the special claim the scheduler builds for its pod's
 *  extended resources backed by DRA (`pod`; named `<extended-resources>`): Kubernetes
 *  builds it only with DRAExtendedResource on, so a caller running with that gate off leaves
 *  it out of the policy (as `dra-celc allocate` does). */
DRACEL_API bool dracel_scenario_extended_claim(const dracel_scenario *s);
/** Request mapping @p i of that special claim, as the scheduler writes them into the pod's
 *  `status.extendedResourceClaimStatus.requestMappings` (per resource, by name: the long-lived
 *  containers' mappings, then the short-lived init containers'): container @p i uses request
 *  *request for resource *resource. DRACEL_EINVAL past the last (none without the claim). */
DRACEL_API dracel_status dracel_scenario_request_mapping(const dracel_scenario *s, size_t i,
                                                         const char **container,
                                                         const char **resource,
                                                         const char **request);

/* ---------------------------------------------------------------------------------------------
 * Cluster state and snapshots (docs/api.md, "Cluster state and snapshots")
 *
 * A cluster holds the DRA objects of a Kubernetes cluster (ResourceSlices, DeviceTaintRules,
 * DeviceClasses, ResourceClaims with their status, Nodes), kept up to date object by object as
 * a watch or a watched directory delivers them, each object identified by (kind, namespace,
 * name) and owned by the source that applied it last. DeviceTaintRules taint the devices of
 * the snapshots' tables (as the fleet applies them). A snapshot is the state at one moment: immutable,
 * reference counted, read by any number of threads without locks while the cluster goes on
 * changing; it is built from the previous one, sharing every object and structure that did not
 * change. One writer: the functions taking a dracel_cluster must not run at the same time
 * (snapshot readers never wait). The allocator of the config must be safe to call from any
 * thread: the last thread to release a snapshot frees what only it held.
 */

/** The objects of a cluster, changed by one writer at a time. Opaque. */
typedef struct dracel_cluster dracel_cluster;
/** The state of a cluster at one moment: immutable, reference counted, shared by any number of
 *  threads without locks. It may outlive its cluster. Opaque. */
typedef struct dracel_snapshot dracel_snapshot;

/** An empty cluster. @param cfg its allocator (NULL: defaults); copied. */
DRACEL_API dracel_status dracel_cluster_new(const dracel_config *cfg, dracel_cluster **out);
/** Release a cluster (NULL is fine); its snapshots and their policies stay valid. */
DRACEL_API void dracel_cluster_free(dracel_cluster *c);
/**
 * Add or replace the objects of @p buf (JSON or YAML: one object, a List or a YAML stream), read
 * and validated as dracel_objects_load reads them (ResourceClaims with their status), each keyed
 * by (kind, namespace, name) and attributed to @p source (any string: a file path,
 * "api/resourceclaims"; it stands for the file in messages). An object replaces the one of its
 * key whoever applied it, and belongs to @p source from then on. Objects of kinds not in
 * @p kinds, and ResourceClaimTemplates (not claims of pods), are skipped with a note
 * (dracel_cluster_note); an object without `kind` is of the one kind in @p kinds when it has
 * one bit. All or nothing: a rejected input (DRACEL_EINPUT, with "FILE:LINE: KIND NAME: FIELD:
 * what is wrong" in @p err, as the loaders give; also an object without a name, and a key given
 * twice in @p buf) or a failed allocation (DRACEL_ENOMEM) changes nothing.
 */
DRACEL_API dracel_status dracel_cluster_apply(dracel_cluster *c, const char *source,
                                              const char *buf, size_t len, unsigned kinds,
                                              char *err, size_t errcap);
/** Make @p source hold exactly the objects of @p buf (same rules as dracel_cluster_apply): the
 *  objects of the kinds in @p kinds that @p source owns and @p buf lacks are deleted in the same
 *  step (a relist of a watch, a file rewritten; an empty @p buf: a file removed). Objects owned
 *  by other sources are only touched when @p buf has them. All or nothing. */
DRACEL_API dracel_status dracel_cluster_set_source(dracel_cluster *c, const char *source,
                                                   const char *buf, size_t len, unsigned kinds,
                                                   char *err, size_t errcap);
/** Delete one object (a watch's DELETED event), whoever owns it. @p kind is one DRACEL_OBJ_*
 *  bit; @p ns is ignored but for claims (NULL or "": none). @return DRACEL_EINPUT when the
 *  cluster has no such object, DRACEL_ENOMEM (nothing changed), DRACEL_EINVAL. */
DRACEL_API dracel_status dracel_cluster_delete(dracel_cluster *c, unsigned kind, const char *ns,
                                               const char *name);
/** How many objects of one kind (one DRACEL_OBJ_* bit) the cluster holds. */
DRACEL_API size_t dracel_cluster_count(const dracel_cluster *c, unsigned kind);
/** The notes of the last apply or set_source (objects skipped); they live until the next one. */
DRACEL_API size_t dracel_cluster_notes(const dracel_cluster *c);
DRACEL_API const char *dracel_cluster_note(const dracel_cluster *c, size_t i);
/**
 * A snapshot of the state now (release with dracel_snapshot_unref). Only what changed since the
 * previous snapshot is built: the table, through a dracel_fleet the cluster owns, when a slice
 * changed; the classes when a class changed; the usage when an allocation or the table changed;
 * the pages of the claim and node arrays that a change touched. Unchanged objects are shared,
 * not copied. When nothing changed the previous snapshot is returned again (with its id).
 * @return DRACEL_OK, DRACEL_ENOMEM (the next call tries again; the cluster is unchanged).
 */
DRACEL_API dracel_status dracel_cluster_snapshot(dracel_cluster *c, dracel_snapshot **out,
                                                 char *err, size_t errcap);
/** One more reference to @p s (any thread); @return @p s. */
DRACEL_API dracel_snapshot *dracel_snapshot_ref(dracel_snapshot *s);
/** Release a reference (any thread; NULL is fine); the last one frees the snapshot. */
DRACEL_API void dracel_snapshot_unref(dracel_snapshot *s);
/** The snapshot's number: increasing over the snapshots of one cluster, from 1. */
DRACEL_API uint64_t dracel_snapshot_id(const dracel_snapshot *s);
/** The device table of its ResourceSlices (as dracel_fleet_snapshot builds it). */
DRACEL_API const dracel_table *dracel_snapshot_table(const dracel_snapshot *s);
/** Its DeviceClasses, as a set to pass to dracel_policy_new (read-only). */
DRACEL_API const dracel_objects *dracel_snapshot_classes(const dracel_snapshot *s);
/** The devices of every allocated claim (status.allocation.devices.results, but those with
 *  adminAccess) as a usage of the snapshot's table: what Kubernetes' allocator treats as
 *  allocated (docs/allocation.md); a result with a shareID is a share (dracel_share: its
 *  consumedCapacity), not a device in use. */
DRACEL_API const dracel_usage *dracel_snapshot_usage(const dracel_snapshot *s);
/** Its Nodes, numbered from 0 (the order is that of arrival, but that deleting an object moves
 *  the last one of its kind into its place). Labels are sorted by key; strings live as long as
 *  the snapshot. */
DRACEL_API size_t dracel_snapshot_nodes(const dracel_snapshot *s);
DRACEL_API dracel_status dracel_snapshot_node(const dracel_snapshot *s, size_t i,
                                              dracel_node *out);
/** The index of the Node named @p name, in constant time; DRACEL_EINPUT when none. */
DRACEL_API dracel_status dracel_snapshot_node_find(const dracel_snapshot *s, const char *name,
                                                   size_t *index);
/** Its ResourceClaims (templates are not kept), numbered as nodes are. */
DRACEL_API size_t dracel_snapshot_claims(const dracel_snapshot *s);
/** The index of the claim @p ns/@p name (@p ns NULL or "": none), in constant time;
 *  DRACEL_EINPUT when none. */
DRACEL_API dracel_status dracel_snapshot_claim_find(const dracel_snapshot *s, const char *ns,
                                                    const char *name, size_t *index);

/** A claim of a snapshot and its status. Strings live as long as the snapshot. */
typedef struct dracel_claim_status {
    const char *ns, *name;     /**< metadata.namespace (NULL when none), metadata.name */
    uint64_t version;          /**< a hash of the claim's spec and status: equal exactly when
                                    the claim is unchanged */
    bool allocated;            /**< status.allocation is present */
    size_t nresults;           /**< its devices (status.allocation.devices.results) */
    bool node_selector;        /**< the allocation has a nodeSelector */
    size_t nreserved;          /**< status.reservedFor entries */
} dracel_claim_status;
DRACEL_API dracel_status dracel_snapshot_claim_size(const dracel_snapshot *s, size_t i,
                                                    dracel_claim_status *out, size_t size);
#define dracel_snapshot_claim(s, i, out) \
    dracel_snapshot_claim_size((s), (i), (out), sizeof *(out))
/** Device @p k of claim @p i's allocation (tier is SIZE_MAX: no policy chose it). */
DRACEL_API dracel_status dracel_snapshot_claim_result_size(const dracel_snapshot *s, size_t i,
                                                           size_t k, dracel_device_result *out,
                                                           size_t size);
#define dracel_snapshot_claim_result(s, i, k, out) \
    dracel_snapshot_claim_result_size((s), (i), (k), (out), sizeof *(out))
/** The deviceClassName of request @p request ("req" or "req/sub", as an allocation result
 *  names it) in the spec of claim @p i, or NULL (no such request, or @p i out of range). Lives
 *  as long as the snapshot. */
DRACEL_API const char *dracel_snapshot_claim_device_class(const dracel_snapshot *s, size_t i,
                                                          const char *request);
/** An entry of status.reservedFor: who may use the claim. */
typedef struct dracel_claim_consumer {
    const char *api_group;     /**< NULL: the core group (a Pod) */
    const char *resource, *name, *uid;
} dracel_claim_consumer;
DRACEL_API dracel_status dracel_snapshot_claim_consumer_size(const dracel_snapshot *s, size_t i,
                                                             size_t k,
                                                             dracel_claim_consumer *out,
                                                             size_t size);
#define dracel_snapshot_claim_consumer(s, i, k, out) \
    dracel_snapshot_claim_consumer_size((s), (i), (k), (out), sizeof *(out))
/** Does claim @p i's allocation allow @p node: its nodeSelector matches the node's name
 *  (matchFields on metadata.name) and labels (any order), or it has none (every node)? false
 *  when the claim is not allocated or @p i is out of range. */
DRACEL_API bool dracel_snapshot_claim_fits(const dracel_snapshot *s, size_t i,
                                           const dracel_node *node);
/**
 * A policy for the snapshot's claims at @p claims[0..n) (in the pod's order; NULL and 0: all of
 * them) against the snapshot's table and classes, as dracel_policy_new makes one (same
 * semantics, same answers). The policy holds a reference to the snapshot: the snapshot may be
 * released before the policy is freed.
 * @return DRACEL_OK, DRACEL_ENOMEM, DRACEL_EINVAL (an index out of range).
 */
DRACEL_API dracel_status dracel_snapshot_policy_new(const dracel_config *cfg,
                                                    dracel_snapshot *s, const size_t *claims,
                                                    size_t n, dracel_policy **out, char *err,
                                                    size_t errcap);

/* ---------------------------------------------------------------------------------------------
 * Extended resources backed by DRA (docs/api.md, "Extended resources"; DRAExtendedResource)
 *
 * A pod asking for an extended resource in its containers' resources gets, on a node whose
 * allocatable has none of it, the special claim kube-scheduler builds for it (one request a
 * container and resource, the class that names the resource; docs/allocation.md). The gate is
 * the caller's to check: with DRAExtendedResource off there is no such claim.
 */

/** A resource and its quantity as Kubernetes writes resource lists ("example.com/gpu": "2"). */
typedef struct dracel_resource {
    const char *name, *quantity;
} dracel_resource;
/** A container of a pod, as the scheduler reads it for extended resources. */
typedef struct dracel_container {
    const char *name;                    /**< required */
    bool init;                           /**< one of spec.initContainers */
    const char *restart_policy;          /**< restartPolicy, or NULL ("Always": a sidecar) */
    const dracel_resource *requests;     /**< resources.requests */
    size_t nrequests;
    const dracel_resource *limits;       /**< resources.limits (a request defaults to its limit) */
    size_t nlimits;
} dracel_container;
/** A pod's containers and their resource requests, copied. Immutable and reference counted:
 *  shared by threads without locks. Opaque. */
typedef struct dracel_pod dracel_pod;
/**
 * The pod of namespace @p ns (NULL: none) with containers @p c[0..n) (init containers first,
 * in their order, then the others, as the pod spec lists them). A container without a name, a
 * quantity that does not parse or is negative is rejected input (DRACEL_EINPUT, with
 * "container main: resources.requests[example.com/gpu]: must be a non-negative quantity" in
 * @p err); DRACEL_ENOMEM. Of a resource named twice in one list the first counts.
 */
DRACEL_API dracel_status dracel_pod_new(const dracel_config *cfg, const char *ns,
                                        const dracel_container *c, size_t n, dracel_pod **out,
                                        char *err, size_t errcap);
/** A Pod object read from a file (JSON or YAML, one object; `kind: Pod` and `apiVersion: v1`
 *  when given): metadata.namespace and spec.initContainers and spec.containers (name,
 *  restartPolicy, resources.requests and limits); the rest is ignored. Rejected input:
 *  DRACEL_EINPUT with "FILE:LINE: ..." in @p err. */
DRACEL_API dracel_status dracel_pod_load(const dracel_config *cfg, const char *path,
                                         dracel_pod **out, char *err, size_t errcap);
/** The same from a buffer; @p name stands for the file in messages. */
DRACEL_API dracel_status dracel_pod_load_buffer(const dracel_config *cfg, const char *name,
                                                const char *buf, size_t len, dracel_pod **out,
                                                char *err, size_t errcap);
/** One more reference to @p p (any thread); @return @p p. */
DRACEL_API dracel_pod *dracel_pod_ref(dracel_pod *p);
/** Release a reference (any thread; NULL is fine); the last one frees the pod. */
DRACEL_API void dracel_pod_free(dracel_pod *p);
/**
 * The resources of @p p that need DRA on a node whose allocatable is @p alloc[0..nalloc): an
 * extended resource name (a domain outside kubernetes.io, not "requests.") or an implicit one
 * (deviceclass.resource.kubernetes.io/CLASS) that a container asks for more than 0 of, that a
 * class of @p classes backs (dracel_snapshot_classes), and that @p alloc has none of (absent
 * or 0: what device plugins provide is theirs). Sorted by name into @p out[0..cap) (NULL when
 * @p cap is 0); strings live as long as the pod.
 * @return how many there are (may exceed @p cap); 0 for a NULL @p p or @p classes.
 */
DRACEL_API size_t dracel_pod_extended(const dracel_pod *p, const dracel_objects *classes,
                                      const dracel_resource *alloc, size_t nalloc,
                                      const char **out, size_t cap);
/** dracel_policy_new for claims @p claim_index[0..nclaims) of @p claims (as it takes them)
 *  and, after them, the special claim of @p pod for @p res[0..nres) (as
 *  dracel_snapshot_pod_policy_new builds it, with @p classes). @p nres 0: dracel_policy_new. */
DRACEL_API dracel_status dracel_policy_new_pod(const dracel_config *cfg, const dracel_table *t,
                                               const dracel_objects *classes,
                                               const dracel_objects *claims,
                                               const size_t *claim_index, size_t nclaims,
                                               const dracel_pod *pod, const char *const *res,
                                               size_t nres, dracel_policy **out, char *err,
                                               size_t errcap);
/** A hash of what the special claim of @p p for @p res[0..nres) holds (the namespace, the
 *  containers' names, kinds and counts of those resources): equal for pods that get the same
 *  claim from the same classes (a key for caching its policy). */
DRACEL_API uint64_t dracel_pod_hash(const dracel_pod *p, const char *const *res, size_t nres);
/** Does @p alloc[0..n) (a node's allocatable) have more than 0 of @p resource (a quantity that
 *  parses and is not zero)? What dracel_pod_extended asks of each resource: a node needs DRA
 *  for resource R of dracel_pod_extended(pod, classes, NULL, 0, ...) exactly when this is
 *  false. */
DRACEL_API bool dracel_allocatable_has(const dracel_resource *alloc, size_t n,
                                       const char *resource);
/** The allocatable of node @p i of a snapshot (status.allocatable, sorted by name; quantities
 *  as written): how many, *out pointing into the snapshot (NULL when none). */
DRACEL_API size_t dracel_snapshot_node_allocatable(const dracel_snapshot *s, size_t i,
                                                   const dracel_resource **out);
/** The same for node @p i of a set (dracel_objects_node). */
DRACEL_API size_t dracel_objects_node_allocatable(const dracel_objects *o, size_t i,
                                                  const dracel_resource **out);
/**
 * dracel_snapshot_policy_new for claims @p claims[0..n) and, after them, the special claim of
 * @p pod for the resources @p res[0..nres) (dracel_pod_extended on the node; each must have a
 * class in the snapshot), named "<extended-resources>" in the pod's namespace: for each
 * resource and container a request "container-I-request-J" of exactly the container's quantity
 * of that class, as kube-scheduler builds it (docs/allocation.md). @p nres 0: no special claim
 * (@p pod may be NULL), as dracel_snapshot_policy_new.
 * @return DRACEL_OK, DRACEL_ENOMEM, DRACEL_EINVAL (an index out of range, a resource no class
 * backs).
 */
DRACEL_API dracel_status dracel_snapshot_pod_policy_new(const dracel_config *cfg,
                                                        dracel_snapshot *s, const size_t *claims,
                                                        size_t n, const dracel_pod *pod,
                                                        const char *const *res, size_t nres,
                                                        dracel_policy **out, char *err,
                                                        size_t errcap);

/* ---------------------------------------------------------------------------------------------
 * Lint: the selector bugs that block scheduling, found in manifests (docs/lint.md)
 *
 * A lint reads DeviceClasses, ResourceClaims, ResourceClaimTemplates and TierPolicies from
 * files (one dracel_lint_add per file: JSON or YAML, one object, a List or a YAML stream; a
 * TierPolicy's file is also loaded whole as dracel_tierpolicy_load does; other kinds are
 * skipped with a note), then dracel_lint_run applies the rules of docs/lint.md to everything
 * added, with the fleet and the classes of the options when given. Every finding has the file,
 * the line and column inside the CEL text within the file (columns in code points), a rule id,
 * a severity, a message and, where there is one, a hint. A lint keeps a copy of every file
 * added until it is freed. One thread at a time.
 */

/** A lint run. Opaque. */
typedef struct dracel_lint dracel_lint;

/** How lint reports a field the object's schema does not have (rule unknown-field): as
 *  kubectl's --validate=strict (its default: the API server refuses the object), =warn (the
 *  field is dropped with a warning) or =ignore (dropped silently). */
typedef enum dracel_field_validation {
    DRACEL_FIELDS_STRICT = 0,
    DRACEL_FIELDS_WARN = 1,
    DRACEL_FIELDS_IGNORE = 2
} dracel_field_validation;

/** Options of a lint: fill with dracel_lint_opts_init(). Grows at its end as dracel_config
 *  does (`size`). */
typedef struct dracel_lint_opts {
    size_t size;                    /**< sizeof(dracel_lint_opts) as the caller was compiled */
    const dracel_table *slices;     /**< a fleet, for the rules that need one (NULL: none); it
                                         must outlive the lint */
    const dracel_objects *classes;  /**< DeviceClasses that exist (NULL: the class rules are
                                         off); the classes of the files linted count too. It
                                         must outlive the lint */
    const char *disable;            /**< rule ids switched off, separated by commas (NULL:
                                         none); copied */
    dracel_field_validation fields; /**< an unknown field of a DeviceClass, ResourceClaim or
                                         template, as kubectl's --validate reports it:
                                         DRACEL_FIELDS_STRICT (the default) an error,
                                         _WARN a warning, _IGNORE nothing */
} dracel_lint_opts;
DRACEL_API void dracel_lint_opts_init_size(dracel_lint_opts *o, size_t size);
#define dracel_lint_opts_init(o) dracel_lint_opts_init_size((o), sizeof *(o))

/** A new lint. @param cfg limits (cost_limit is Kubernetes' estimated-cost limit) and the
 *  allocator (NULL: defaults). @return DRACEL_OK, DRACEL_ENOMEM, DRACEL_EINVAL (a rule id of
 *  @p o->disable that does not exist: a message in @p err). */
DRACEL_API dracel_status dracel_lint_new(const dracel_config *cfg, const dracel_lint_opts *o,
                                         dracel_lint **out, char *err, size_t errcap);
/** Release a lint (NULL is fine). */
DRACEL_API void dracel_lint_free(dracel_lint *l);
/**
 * Read the objects of one file, @p name standing for it in findings (@p buf need not outlive
 * the call: it is copied). Text the loader rejects (a YAML or JSON syntax error, an object
 * Kubernetes' API validation would reject) is a finding, not a failure.
 * @return DRACEL_OK, DRACEL_ENOMEM, DRACEL_EINVAL (after dracel_lint_run, or a NULL argument).
 */
DRACEL_API dracel_status dracel_lint_add(dracel_lint *l, const char *name, const char *buf,
                                         size_t len);
/** Apply the rules to everything added (once); the findings are then sorted by file (in the
 *  order added), line and column. @return DRACEL_OK, DRACEL_ENOMEM, DRACEL_EINVAL (run twice). */
DRACEL_API dracel_status dracel_lint_run(dracel_lint *l);
/** The files added and the objects read from them. */
DRACEL_API size_t dracel_lint_files(const dracel_lint *l);
DRACEL_API size_t dracel_lint_objects(const dracel_lint *l);
/** Notes: "FILE:LINE: skipped object of kind Pod (NAME)". They live as long as the lint. */
DRACEL_API size_t dracel_lint_notes(const dracel_lint *l);
DRACEL_API const char *dracel_lint_note(const dracel_lint *l, size_t i);
/** The findings (after dracel_lint_run). */
DRACEL_API size_t dracel_lint_count(const dracel_lint *l);

/** One finding. Strings live as long as the lint. */
typedef struct dracel_finding {
    const char *file;
    uint32_t line, column;      /**< 1-based; the column in code points */
    dracel_severity severity;
    const char *rule;           /**< its id, e.g. "contradiction" */
    const char *message;
    const char *hint;           /**< how to fix it, or NULL */
    const char *source;         /**< the text of the line (without its line break), or NULL */
    /** Another place the finding names (the other of two selectors that contradict each
     *  other), or related_file NULL. */
    const char *related_file;
    uint32_t related_line, related_column;
    const char *related_message;
} dracel_finding;
DRACEL_API dracel_status dracel_lint_finding_size(const dracel_lint *l, size_t i,
                                                  dracel_finding *out, size_t size);
#define dracel_lint_finding(l, i, out) dracel_lint_finding_size((l), (i), (out), sizeof *(out))

/** A rule of docs/lint.md. Strings are static. */
typedef struct dracel_lint_rule {
    const char *id;
    dracel_severity severity;   /**< its usual severity (a finding may have another) */
    const char *summary;        /**< one line */
    const char *help;           /**< what it finds and how to fix it */
} dracel_lint_rule;
/** The number of rules. */
DRACEL_API size_t dracel_lint_rules(void);
DRACEL_API dracel_status dracel_lint_rule_size(size_t i, dracel_lint_rule *out, size_t size);
#define dracel_lint_rule_get(i, out) dracel_lint_rule_size((i), (out), sizeof *(out))

/* ---------------------------------------------------------------------------------------------
 * Tier policies: fair use of premium tiers (docs/fairness.md)
 *
 * A tier policy (a YAML or JSON file of kind TierPolicy) caps, per tenant, the devices of a tier
 * a tenant may have in use. A tier is named by a key: a request or subrequest as allocation
 * results name it ("gpu/h100"; "gpu" for an `exactly` request) or a DeviceClass
 * ("gpu.example.com"); a device of an allocation result counts toward both. A cap is a count, a
 * share of the tier's devices ("50%"), or `fair` (the tenant's weight over the weights of the
 * tenants capped on the key). Above its cap a tenant borrows while the tier keeps its idle
 * reserve of free devices. Tenants are found by namespace or by a pod label; the pods no tenant
 * matches are the default tenant's.
 *
 * The library decides nothing by itself and keeps no state: a policy is immutable and shared by
 * any number of threads; a usage ledger (dracel_tierusage) belongs to its caller. A caller
 * (dra-extender, dra-celc replay) keeps the ledger up to date, asks dracel_tierpolicy_check
 * before a placement, and applies the answer as the policy's mode says.
 */

/** A loaded tier policy: immutable, shared by threads. Opaque. */
typedef struct dracel_tierpolicy dracel_tierpolicy;

/** What a policy does with its answers (per tenant: a tenant's own mode, else the policy's). */
typedef enum dracel_tier_mode {
    DRACEL_TIER_ENFORCE = 0, /**< reject what the caps refuse (the default) */
    DRACEL_TIER_SHADOW = 1,  /**< answer and count, never reject */
    DRACEL_TIER_OFF = 2      /**< no checks (the answers still say what the caps would do) */
} dracel_tier_mode;

/** Fixed limits of a policy file (far above real policies; exceeding one is rejected input). */
#define DRACEL_TIERPOLICY_MAX_BYTES (1u << 20)       /**< the file */
#define DRACEL_TIERPOLICY_MAX_TENANTS 1000u          /**< entries of tenants */
#define DRACEL_TIERPOLICY_MAX_KEYS 256u              /**< distinct keys named, and per map */
#define DRACEL_TIERPOLICY_MAX_NAMESPACES 10000u      /**< per tenant */
#define DRACEL_TIERPOLICY_MAX_WEIGHT 1000000u        /**< weights are 1 to this */
#define DRACEL_TIERPOLICY_MAX_COUNT 1000000000u      /**< counts are 0 to this */
/** What dracel_tierpolicy_cap answers for a tenant without a cap on the key. */
#define DRACEL_TIER_NO_CAP UINT64_MAX

/**
 * Read a policy file (YAML or JSON, one TierPolicy object; docs/fairness.md). Rejected input is
 * DRACEL_EINPUT with "FILE:LINE:COL: field.path: what is wrong" in @p err (the column in code
 * points; unknown fields are errors, as Kubernetes' strict decoding makes them); an unreadable
 * path is DRACEL_EINVAL with "PATH: why".
 * @param cfg the allocator (NULL: defaults).
 */
DRACEL_API dracel_status dracel_tierpolicy_load(const dracel_config *cfg, const char *path,
                                                dracel_tierpolicy **out, char *err,
                                                size_t errcap);
/** The same from a buffer; @p name stands for the file in messages (NULL: "<input>"). */
DRACEL_API dracel_status dracel_tierpolicy_load_buffer(const dracel_config *cfg,
                                                       const char *name, const char *buf,
                                                       size_t len, dracel_tierpolicy **out,
                                                       char *err, size_t errcap);
/** Release a policy (NULL is fine). Its ledgers must be freed first. */
DRACEL_API void dracel_tierpolicy_free(dracel_tierpolicy *p);
/** The `version` field, as written. Strings of a policy live as long as it. */
DRACEL_API const char *dracel_tierpolicy_version(const dracel_tierpolicy *p);
/** FNV-1a 64 over the canonical form of what decides (mode, reserves, tenants in order with
 *  their matching, weights and caps): equal for policies that decide alike whatever their key
 *  order, quoting, whitespace, defaults spelt out or left out, `version` or metadata. */
DRACEL_API uint64_t dracel_tierpolicy_hash(const dracel_tierpolicy *p);
/** "VERSION (h:16 hex digits of the hash)": how versions are shown. */
DRACEL_API const char *dracel_tierpolicy_label(const dracel_tierpolicy *p);
/** metadata.name, or NULL. */
DRACEL_API const char *dracel_tierpolicy_name(const dracel_tierpolicy *p);
/** The name the policy was loaded under (the path, or the buffer's name). */
DRACEL_API const char *dracel_tierpolicy_file(const dracel_tierpolicy *p);
DRACEL_API dracel_tier_mode dracel_tierpolicy_mode(const dracel_tierpolicy *p);
/** "enforce", "shadow", "off" (static), or NULL for a value that is not a mode. */
DRACEL_API const char *dracel_tier_mode_name(dracel_tier_mode m);

/** The tenants of the file, in file order; the default tenant is index dracel_tierpolicy_tenants
 *  (there are tenants + 1 in all). */
DRACEL_API size_t dracel_tierpolicy_tenants(const dracel_tierpolicy *p);
/** A tenant. Growable (dracel_tierpolicy_tenant passes its size). */
typedef struct dracel_tenant_info {
    const char *name;            /**< the default tenant's: defaultTenant.name, or "default" */
    uint32_t weight;             /**< 1 when not given */
    bool is_default;
    const char *const *namespaces; /**< sorted; none for a tenant by label */
    size_t nnamespaces;
    const char *label_key, *label_value; /**< podLabel, or NULL */
    size_t ncaps;
    dracel_tier_mode mode;       /**< its own mode, else the policy's */
} dracel_tenant_info;
DRACEL_API dracel_status dracel_tierpolicy_tenant_size(const dracel_tierpolicy *p, size_t i,
                                                       dracel_tenant_info *out, size_t size);
#define dracel_tierpolicy_tenant(p, i, out) \
    dracel_tierpolicy_tenant_size((p), (i), (out), sizeof *(out))
/** The index of the tenant named @p name (the default tenant's name too); DRACEL_EINPUT when
 *  none. */
DRACEL_API dracel_status dracel_tierpolicy_tenant_find(const dracel_tierpolicy *p,
                                                       const char *name, size_t *index);
/** The tenant of a pod in namespace @p ns (NULL: none) with @p labels (any order): the first
 *  tenant of the file whose namespaces hold @p ns or whose podLabel the labels have; else the
 *  default tenant (index dracel_tierpolicy_tenants). */
DRACEL_API size_t dracel_tierpolicy_tenant_of(const dracel_tierpolicy *p, const char *ns,
                                              const dracel_label *labels, size_t nlabels);
/** Why a pod is, or is not, the default tenant's (dracel_tierpolicy_default_why). */
typedef enum dracel_tier_default {
    DRACEL_TIER_DEFAULT_NOT = 0,    /**< a tenant of the file has it */
    DRACEL_TIER_DEFAULT_NAMESPACE,  /**< no tenant names its namespace, no podLabel is on it */
    DRACEL_TIER_DEFAULT_LABEL       /**< it has the key of a tenant's podLabel, with a value no
                                         tenant has (a mistyped tenant label) */
} dracel_tier_default;
/** Why dracel_tierpolicy_tenant_of gives the pod the tenant it gives; for
 *  DRACEL_TIER_DEFAULT_LABEL, @p label (may be NULL) gets the index in @p labels of the first
 *  label whose key a podLabel tenant has. */
DRACEL_API dracel_tier_default dracel_tierpolicy_default_why(const dracel_tierpolicy *p,
                                                             const char *ns,
                                                             const dracel_label *labels,
                                                             size_t nlabels, size_t *label);

/** The keys the policy names (in caps and tiers), sorted by name (byte order), numbered from 0. */
DRACEL_API size_t dracel_tierpolicy_keys(const dracel_tierpolicy *p);
DRACEL_API const char *dracel_tierpolicy_key(const dracel_tierpolicy *p, size_t i);
/** The index of key @p key; DRACEL_EINPUT when the policy does not name it. */
DRACEL_API dracel_status dracel_tierpolicy_key_find(const dracel_tierpolicy *p, const char *key,
                                                    size_t *index);
/** Tenant @p tenant's cap on key @p key for a tier of @p tier_size devices, in devices: a count
 *  as written, a share rounded down, `fair` as weight / (the weights of the tenants capped on
 *  the key) of the size rounded down; DRACEL_TIER_NO_CAP when it has none (or an index is out
 *  of range). */
DRACEL_API uint64_t dracel_tierpolicy_cap(const dracel_tierpolicy *p, size_t tenant, size_t key,
                                          uint64_t tier_size);
/** The cap as written ("8", "50%", "fair"), or NULL when the tenant has none. */
DRACEL_API const char *dracel_tierpolicy_cap_text(const dracel_tierpolicy *p, size_t tenant,
                                                  size_t key);
/** The idle reserve of key @p key (its tiers entry, else the policy's idleReserve; 0 when
 *  neither is given) for a tier of @p tier_size devices: a count as written, a share rounded
 *  up. */
DRACEL_API uint64_t dracel_tierpolicy_reserve(const dracel_tierpolicy *p, size_t key,
                                              uint64_t tier_size);

/** A usage ledger: devices in use per tenant and key of one policy. Owned by its caller: one
 *  thread at a time changes it. Opaque. */
typedef struct dracel_tierusage dracel_tierusage;
/** An empty ledger for @p p (which must outlive it), with the policy's allocator. */
DRACEL_API dracel_status dracel_tierusage_new(const dracel_tierpolicy *p,
                                              dracel_tierusage **out);
DRACEL_API void dracel_tierusage_free(dracel_tierusage *u);
DRACEL_API const dracel_tierpolicy *dracel_tierusage_policy(const dracel_tierusage *u);
/** Add @p n devices (negative: remove) of key @p key to tenant @p tenant. @return DRACEL_OK, or
 *  DRACEL_EINVAL (an index out of range, or a count that would go below 0 or overflow: the
 *  ledger is unchanged). */
DRACEL_API dracel_status dracel_tierusage_add(dracel_tierusage *u, size_t tenant, size_t key,
                                              int64_t n);
/** The devices of key @p key tenant @p tenant has in use (0 for an index out of range). */
DRACEL_API uint64_t dracel_tierusage_used(const dracel_tierusage *u, size_t tenant, size_t key);
/** The devices of key @p key all tenants have in use. */
DRACEL_API uint64_t dracel_tierusage_total(const dracel_tierusage *u, size_t key);
/** Forget everything (every count 0). */
DRACEL_API void dracel_tierusage_clear(dracel_tierusage *u);

/** The answer of dracel_tierpolicy_check. Growable. */
typedef struct dracel_tier_check {
    bool allowed;       /**< the caps allow it: within the cap, borrowing, or no cap */
    bool borrowing;     /**< allowed above the cap, with the idle reserve kept free */
    bool capped;        /**< the tenant has a cap on the key */
    bool reject;        /**< !allowed and the tenant's mode (its own, else the policy's) is
                             enforce: the caller refuses it */
    uint64_t used;      /**< the tenant's devices of the key in use (before these) */
    uint64_t cap;       /**< its cap in devices (DRACEL_TIER_NO_CAP when none) */
    uint64_t size, free, reserve, n; /**< the tier's devices, its free ones, the idle reserve,
                                          the devices asked for */
    /** One line naming the tenant, the key and the usage, never another tenant:
     *  "tenant team-a at 8/8 gpu/h100 (1 free, idle reserve 2)" (refused),
     *  "tenant team-a at 8/8 gpu/h100 borrows (5 free, idle reserve 2)",
     *  "tenant team-a at 3/8 gpu/h100", "tenant team-a has no cap on gpu/h100"; ", needs N"
     *  follows the key when @p n is not 1. */
    char reason[512];
} dracel_tier_check;
/**
 * May tenant @p tenant take @p n more devices of key @p key, now that @p u counts what is in
 * use? Yes when it has no cap on the key, when used + n <= cap, or when it borrows: the tier's
 * free devices after taking them (tier_free - n) are still at least the idle reserve. A tenant
 * under its cap gets devices down to zero free; borrowers are refused first.
 * @param tier_size the tier's devices (dracel_tierpolicy_key_size): shares and reserves are of it.
 * @param tier_free its devices not in use (including in-flight decisions the caller knows of).
 * @return DRACEL_OK, or DRACEL_EINVAL (a NULL argument, a ledger of another policy, an index out
 *         of range).
 */
DRACEL_API dracel_status dracel_tierpolicy_check_size(const dracel_tierpolicy *p,
                                                      const dracel_tierusage *u, size_t tenant,
                                                      size_t key, uint64_t n, uint64_t tier_size,
                                                      uint64_t tier_free, dracel_tier_check *out,
                                                      size_t size);
#define dracel_tierpolicy_check(p, u, tenant, key, n, tier_size, tier_free, out)              \
    dracel_tierpolicy_check_size((p), (u), (tenant), (key), (n), (tier_size), (tier_free),    \
                                 (out), sizeof *(out))

/** The keys (up to two: the request's, then the class's) a device allocated for @p request
 *  ("req" or "req/sub") of DeviceClass @p device_class (either may be NULL) counts toward.
 *  @return how many were written to @p out. */
DRACEL_API size_t dracel_tierpolicy_keys_of(const dracel_tierpolicy *p, const char *request,
                                            const char *device_class, size_t out[2]);
/** Devices of one key in an allocation. */
typedef struct dracel_tier_take {
    size_t key;
    uint32_t devices;
} dracel_tier_take;
/** What the allocation in run @p r (of placement policy @p pl, outcome allocated) counts toward:
 *  per key, sorted by key, the devices of its results (admin access left out, as Kubernetes
 *  leaves it out of the devices in use). @return how many keys (may exceed @p cap: only the
 *  first @p cap are written). */
DRACEL_API size_t dracel_tierpolicy_run_takes(const dracel_tierpolicy *p, const dracel_policy *pl,
                                              const dracel_run *r, dracel_tier_take *out,
                                              size_t cap);
/** The same for the allocation in the status of claim @p claim of snapshot @p s (the class of
 *  each result's request from the claim's spec); 0 when it is not allocated. */
DRACEL_API size_t dracel_tierpolicy_claim_takes(const dracel_tierpolicy *p,
                                                const dracel_snapshot *s, size_t claim,
                                                dracel_tier_take *out, size_t cap);
/**
 * The size of key @p key for the claims of placement policy @p pl, and its free devices: for a
 * key that names a tier of @p pl (a request or subrequest), that tier's candidates over the
 * whole table; else, for the DeviceClass of one of its tiers, that class's devices
 * (dracel_policy_tier_candidates). @p free_devices (may be NULL): those of them not in
 * @p in_use (NULL: none in use).
 * @return DRACEL_OK, DRACEL_EINPUT (@p pl has no tier or class of that name: size 0),
 *         DRACEL_ENOMEM, DRACEL_EINVAL.
 */
DRACEL_API dracel_status dracel_tierpolicy_key_size(const dracel_tierpolicy *p,
                                                    const dracel_policy *pl, size_t key,
                                                    const dracel_usage *in_use, uint64_t *size,
                                                    uint64_t *free_devices);
/**
 * dracel_tierpolicy_key_size over the devices usable now (dracel_policy_tier_usable under the
 * release and gates of @p o, NULL: the newest and the defaults): the size and free devices
 * dra-extender and `dra-celc replay` check caps and reserves against, so that a tainted device
 * counts in neither. @p free_devices: those not in @p o's `in_use`.
 */
DRACEL_API dracel_status dracel_tierpolicy_key_usable(const dracel_tierpolicy *p,
                                                      const dracel_policy *pl, size_t key,
                                                      const dracel_allocate_opts *o,
                                                      uint64_t *size, uint64_t *free_devices);

#ifdef __cplusplus
}
#endif
#endif /* DRACEL_H */
