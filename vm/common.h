/*
 * common.h: internal helpers shared by every module of libdracel: the allocation hook, status
 * propagation, a growable byte buffer, a sort that does not allocate, UTF-8. Nothing here is
 * exported.
 *
 * Invariant: vm/common.c's default allocator is the only code of the library that calls the C
 * library's malloc, realloc and free (tests/nomalloc.sh checks the objects).
 */
#ifndef DC_COMMON_H
#define DC_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dracel.h"

#if defined(__GNUC__)
#define DC_WUR __attribute__((warn_unused_result))
#define DC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define DC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define DC_WUR
#define DC_PRINTF(a, b)
#define DC_UNLIKELY(x) (x)
#endif

/** Propagate a non-OK status (nanoarrow's RETURN_NOT_OK). */
#define DC_TRY(expr)                                     \
    do {                                                 \
        dracel_status dc_try_st_ = (expr);               \
        if (DC_UNLIKELY(dc_try_st_ != DRACEL_OK))        \
            return dc_try_st_;                           \
    } while (0)

#define DC_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

/** The default allocator (the C library's). */
extern const dracel_alloc dc_default_alloc;

/** The allocator of a config (NULL config or NULL hook: the default). */
const dracel_alloc *dc_alloc_of(const dracel_config *cfg);


void *dc_malloc(const dracel_alloc *a, size_t n);
void *dc_realloc(const dracel_alloc *a, void *p, size_t old, size_t n);
void dc_free(const dracel_alloc *a, void *p, size_t n);

/** A growable byte buffer; `data` is always NUL-terminated when `len > 0` or after dc_buf_cstr. */
typedef struct dc_buf {
    const dracel_alloc *alloc;
    char *data;
    size_t len, cap;
    bool oom; /* sticky: once an append failed, every later one is a no-op */
} dc_buf;

void dc_buf_init(dc_buf *b, const dracel_alloc *a);
void dc_buf_free(dc_buf *b);
void dc_buf_append(dc_buf *b, const void *p, size_t n);
void dc_buf_puts(dc_buf *b, const char *s);
void dc_buf_putc(dc_buf *b, char c);
void dc_buf_printf(dc_buf *b, const char *fmt, ...) DC_PRINTF(2, 3);
void dc_buf_vprintf(dc_buf *b, const char *fmt, va_list ap);
/** Detach the contents as a NUL-terminated string (allocated with the buffer's allocator; its
 *  size for dc_free is strlen+1 rounded as dc_buf_take says: callers use dracel_free_string). */
char *dc_buf_take(dc_buf *b);

/** Sort n elements of `size` bytes at base by cmp, stably (equal elements keep their order),
 *  in place and without allocating: the C library's qsort may malloc a scratch copy (glibc's
 *  does from 1 KiB), which would bypass the allocator hook. O(n log^2 n) element moves. */
void dc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* UTF-8 */
/** Decode one code point at s[0..n); @return its length (1..4) or 0 when invalid/truncated. */
int dc_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
/** Encode @p cp (must be a valid scalar value) into out[0..4). @return the length. */
int dc_utf8_encode(uint32_t cp, char out[4]);
/** @return the byte offset of the first invalid sequence or NUL byte in s[0..n), or n. */
size_t dc_utf8_check(const unsigned char *s, size_t n);

#endif
