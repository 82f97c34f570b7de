/*
 * json.h: the JSON tools of dra-extender (src/extender/json.c) beside the span scanner of
 * jsonspan.h: a pre-scan of a request body (nesting depth, NUL escapes and invalid UTF-8, which
 * the scanner does not check), and an output buffer that writes JSON strings as Go's
 * encoding/json does.
 */
#ifndef EXT_JSON_H
#define EXT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Check @p len bytes of JSON text before parsing it: nesting at most @p max_depth, no "\u0000"
 * escape and no raw control character inside strings, strings valid UTF-8. Returns NULL when
 * the text passes, else a static message ("nesting deeper than the limit", ...) and the byte
 * offset in *at. It does not check the grammar (cJSON does).
 */
const char *json_prescan(const char *s, size_t len, unsigned max_depth, size_t *at);

/* An output buffer. On allocation failure it stays consistent and remembers: `oom`. */
typedef struct jbuf {
    char *data;
    size_t len, cap;
    bool oom;
} jbuf;

void jb_init(jbuf *b);
void jb_free(jbuf *b);
/** Take the text out (NUL-terminated; NULL after an allocation failure); the buffer is reset. */
char *jb_take(jbuf *b, size_t *len);
void jb_put(jbuf *b, const char *s, size_t n);
void jb_puts(jbuf *b, const char *s);
/** Make room for @p n more bytes at once (answers of thousands of nodes grow in one step). */
void jb_reserve(jbuf *b, size_t n);
void jb_putc_grow(jbuf *b, char c);
static inline void jb_putc(jbuf *b, char c)
{
    if (b->len < b->cap)
        b->data[b->len++] = c;
    else
        jb_putc_grow(b, c);
}
/** An unsigned integer in decimal (what a loop over thousands of nodes writes instead of
 *  jb_printf, whose vsnprintf costs a thousand instructions a call). */
void jb_uint(jbuf *b, uint64_t v);
void jb_printf(jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** A JSON string of s[0..n) as Go writes it: "\"", "\\", control characters as \n, \t, ...,
 *  or \u00XX; <, >, & as \u003c, \u003e, \u0026 (HTML-safe, Go's default); U+2028/U+2029
 *  escaped; invalid UTF-8 bytes as U+FFFD. */
void jb_str(jbuf *b, const char *s, size_t n);
void jb_cstr(jbuf *b, const char *s);

#endif
