/*
 * dracel.h: the one public header of libdracel, a compiler and evaluator for the CEL device
 * selectors of Kubernetes Dynamic Resource Allocation.
 *
 * Invariants: every handle is opaque; the library keeps no global state (all configuration
 * travels in dracel_config); every allocation goes through the dracel_alloc hook given there.
 * Only names starting with dracel_/DRACEL_ are exported. When this header changes, update
 * docs/api.md and tests/unit/test_header.c (which compiles it alone as C99 and as C++).
 */
#ifndef DRACEL_H
#define DRACEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DRACEL_VERSION_MAJOR 0
#define DRACEL_VERSION_MINOR 1
#define DRACEL_VERSION_PATCH 0
#define DRACEL_VERSION_HEX \
    ((DRACEL_VERSION_MAJOR << 16) | (DRACEL_VERSION_MINOR << 8) | DRACEL_VERSION_PATCH)
#define DRACEL_VERSION_STRING "0.1.0"

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

/** Limits and options for compiling. Fill with dracel_config_init() and then change fields. */
typedef struct dracel_config {
    const dracel_alloc *alloc;   /**< NULL: the C library's malloc */
    size_t max_source_bytes;     /**< default 10240 (Kubernetes' CELSelectorExpressionMaxLength) */
    uint32_t max_depth;          /**< nesting and AST height; default 250 (cel-go, cel-cpp) */
    uint32_t max_nodes;          /**< AST nodes; default 100000 */
    uint32_t max_errors;         /**< diagnostics kept; default 100 (cel-go) */
} dracel_config;

#define DRACEL_DEFAULT_MAX_SOURCE_BYTES 10240u
#define DRACEL_DEFAULT_MAX_DEPTH 250u
#define DRACEL_DEFAULT_MAX_NODES 100000u
#define DRACEL_DEFAULT_MAX_ERRORS 100u
/** Hard caps that configuration cannot raise. */
#define DRACEL_HARD_MAX_SOURCE_BYTES (64u * 1024u * 1024u)
#define DRACEL_HARD_MAX_DEPTH 10000u

/** @return the library's version string, e.g. "0.1.0". */
DRACEL_API const char *dracel_version(void);

/** Fill @p cfg with the defaults above. @param cfg must not be NULL. */
DRACEL_API void dracel_config_init(dracel_config *cfg);

/* ---------------------------------------------------------------------------------------------
 * Diagnostics
 */

/** A list of diagnostics, sorted by position. Opaque. */
typedef struct dracel_diags dracel_diags;

typedef enum dracel_severity { DRACEL_SEV_ERROR = 0, DRACEL_SEV_WARNING = 1 } dracel_severity;

/** One diagnostic, as returned by dracel_diags_get(). Strings live as long as the list. */
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

/** Release a string returned by the library. */
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

#ifdef __cplusplus
}
#endif
#endif /* DRACEL_H */
