/*
 * jsonspan.h: a JSON span scanner (jsonspan.c). It finds where values are in a document (a
 * member of an object, each element of an array) without building a tree, so that the Kubernetes
 * client can hand over objects as the exact bytes the server sent. cJSON would round int64
 * numbers through a double and re-encode everything else.
 *
 * The functions validate what they walk over against RFC 8259's grammar (strings with their
 * escapes, numbers, literals, nesting up to JS_MAX_DEPTH), without recursion; those named
 * _valid are a fast path for spans inside a document validated already, which only match
 * brackets and skip strings (safe on any input, but their answer is then unspecified). Not
 * checked: that strings are valid UTF-8 (the API server sends valid UTF-8, and whoever parses
 * the objects checks it). Duplicate member names: the last one wins, as with Go's
 * encoding/json.
 *
 * Changes with: fuzz/fuzz_watch.c (compares the scanner with cJSON), watch.c.
 */
#ifndef EXT_JSONSPAN_H
#define EXT_JSONSPAN_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes [off, off + len) of the document. len 0: absent (no JSON value is empty). */
typedef struct js_span {
    size_t off, len;
} js_span;

/* Deeper nesting is invalid (cJSON's own limit is 1000; Kubernetes objects are far shallower). */
enum { JS_MAX_DEPTH = 512 };

/** Skip the value at s[*pos] (whitespace before it is skipped too). On success returns 0 with
 *  *pos just past the value; on error returns -1 with *pos at the offending byte. */
int js_skip(const char *s, size_t n, size_t *pos);
/** Is s[0..n) exactly one JSON value, with only whitespace around it? */
bool js_valid(const char *s, size_t n);
/** The span of the value at s[*pos] (after whitespace), as js_skip; -1 when invalid. */
int js_value(const char *s, size_t n, size_t *pos, js_span *v);

/** Find members of the object at v: vals[i] gets the span of member keys[i]'s value (the last
 *  one when a name repeats), or {0, 0} when absent. Returns 0, or -1 when v is not a valid
 *  object. Names are compared after decoding their escapes. */
int js_members(const char *s, js_span v, const char *const *keys, size_t nkeys, js_span *vals);

/** js_members with names matched as Go's encoding/json matches struct fields:
 *  case-insensitively (keys must be ASCII; U+017F and U+212A fold to 's' and 'k', as in Go),
 *  the last match winning. Validating. */
int js_members_fold(const char *s, js_span v, const char *const *keys, size_t nkeys,
                    js_span *vals);

/** js_members for an object inside a document already validated (by js_valid, or by a
 *  validating js_members or iteration over it): brackets are matched and strings skipped,
 *  nothing else checked, several times faster. On any other input it reads nothing outside v
 *  and ends, but its answer is unspecified. */
int js_members_valid(const char *s, js_span v, const char *const *keys, size_t nkeys,
                     js_span *vals);
/** js_members_fold for an object inside a document already validated (see js_members_valid). */
int js_members_fold_valid(const char *s, js_span v, const char *const *keys, size_t nkeys,
                          js_span *vals);

/* Iteration over the elements of an array. */
typedef struct js_iter {
    size_t pos, end;
    bool first;
    bool fast; /* js_array_begin_valid */
} js_iter;
/** Start iterating the array at v: 0, or -1 when v does not start with '['. */
int js_array_begin(const char *s, js_span v, js_iter *it);
/** The same for an array inside a document already validated (see js_members_valid). */
int js_array_begin_valid(const char *s, js_span v, js_iter *it);
/** The number of elements of the array at v, inside a document already validated (see
 *  js_members_valid): one pass that counts the commas outside strings and nested values. */
size_t js_array_count_valid(const char *s, js_span v);
/** The next element: 1 with its span, 0 at the end of the array, -1 when invalid. */
int js_array_next(const char *s, js_iter *it, js_span *elem);
/** The next element, which must be an object, and its members keys[] found in the same walk
 *  (as js_members would find them): 1, 0 at the end, -1 when invalid or not an object. */
int js_array_next_object(const char *s, js_iter *it, const char *const *keys, size_t nkeys,
                         js_span *vals, js_span *elem);
/** The same with names matched as js_members_fold matches them. */
int js_array_next_object_fold(const char *s, js_iter *it, const char *const *keys, size_t nkeys,
                              js_span *vals, js_span *elem);

/* Iteration over the members of an object, in document order. */
/** Start iterating the object at v (validating): 0, or -1 when v does not start with '{'. */
int js_object_begin(const char *s, js_span v, js_iter *it);
/** The same for an object inside a document already validated (see js_members_valid). */
int js_object_begin_valid(const char *s, js_span v, js_iter *it);
/** The next member: 1 with the spans of its name (a string literal, quotes included) and its
 *  value, 0 at the end of the object, -1 when invalid. */
int js_object_next(const char *s, js_iter *it, js_span *key, js_span *val);

/** Is v a string, an object, an array? (The first byte decides; v must be a value.) */
bool js_is_string(const char *s, js_span v);
bool js_is_object(const char *s, js_span v);
bool js_is_array(const char *s, js_span v);

/** Decode the string value at v into out (room for v.len bytes at least: decoding never grows
 *  a string) and NUL-terminate it; *outlen gets its length. Escapes are decoded, \u surrogate
 *  pairs become UTF-8 and a lone surrogate U+FFFD (as Go does). Returns 0, or -1 when v is
 *  not a valid string or holds a NUL (\u0000), which a C string cannot. */
int js_string(const char *s, js_span v, char *out, size_t *outlen);

#endif
