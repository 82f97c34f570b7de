/*
 * json.h: the JSON tools of dra-extender (src/extender/json.c) beside cJSON: a depth and sanity
 * pre-scan that runs before cJSON sees a body (cJSON's own nesting limit is 1000 and it accepts
 * NUL escapes and invalid UTF-8), a scanner that finds the exact text of a value (so that objects
 * are passed on byte for byte, never re-encoded through cJSON's doubles), and an output buffer
 * that writes JSON strings as Go's encoding/json does.
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

/**
 * The span of the value that starts at s[i] (after optional white space): on success returns
 * the offset just past it and sets *start to its first byte; returns (size_t)-1 when the text
 * there is not one complete value. Strings, nesting and escapes are followed; numbers and
 * literals are taken as written. Valid JSON in, exact spans out.
 */
size_t json_value_end(const char *s, size_t len, size_t i, size_t *start);

/**
 * The span of member @p key (compared exactly, case-sensitively unless @p fold) of the object
 * that starts at s[i]: sets *vs and *ve to its value's first byte and one past its last, and
 * returns true. The last member of that name wins, as in Go's encoding/json. False when the
 * object has none, or the text is not an object.
 */
bool json_member(const char *s, size_t len, size_t i, const char *key, bool fold, size_t *vs,
                 size_t *ve);

/**
 * Call @p fn for each element of the array that starts at s[i] with its span [start, end).
 * Stops early when fn returns nonzero and returns that; returns -1 when the text is not an
 * array, else 0.
 */
int json_elements(const char *s, size_t len, size_t i,
                  int (*fn)(void *ctx, size_t start, size_t end), void *ctx);

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
void jb_putc(jbuf *b, char c);
void jb_printf(jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** A JSON string of s[0..n) as Go writes it: "\"", "\\", control characters as \n, \t, ...,
 *  or \u00XX; <, >, & as \u003c, \u003e, \u0026 (HTML-safe, Go's default); U+2028/U+2029
 *  escaped; invalid UTF-8 bytes as U+FFFD. */
void jb_str(jbuf *b, const char *s, size_t n);
void jb_cstr(jbuf *b, const char *s);

#endif
