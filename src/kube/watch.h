/*
 * watch.h: the Kubernetes wire formats the API client reads (watch.c), without any I/O: the
 * line buffer that cuts a watch stream into event lines wherever the chunks end, one watch
 * event line, one page of a LIST, and Status objects. fuzz/fuzz_watch.c calls these directly.
 *
 * Everything found is a span of the input (jsonspan.h): objects are handed over as the bytes
 * the server sent, and only the few strings read (the event type, metadata names and
 * resourceVersions, the list's continue token, a Status's reason and message) are decoded, by
 * jsonspan.c. No cJSON here: every cJSON_Parse* call writes cJSON's process-wide error
 * position (it resets it on entry, even with return_parse_end), so parsing from the client's
 * threads would race with each other and with every other cJSON user of the process.
 * fuzz/fuzz_watch.c uses cJSON as the reference instead.
 *
 * Changes with: kube.c (the client), fuzz/fuzz_watch.c, tests/extender/fakeapi.c (the formats
 * it serves).
 */
#ifndef EXT_WATCH_H
#define EXT_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "jsonspan.h"

/* ---- Line buffer. */
typedef struct kw_lines {
    char *buf;
    size_t len, cap;
    size_t max;     /* the longest line accepted, in bytes ('\n' not counted) */
} kw_lines;

enum { KW_LINE_TOO_LONG = -2 };

void kw_lines_init(kw_lines *lb, size_t max);
/** Forget any incomplete line (a new stream starts). */
void kw_lines_reset(kw_lines *lb);
void kw_lines_free(kw_lines *lb);
/** Append data: fn is called for each complete line that is not blank (without its '\n' or a
 *  '\r' before it), in order, however the stream was cut. Returns 0; -1 when out of memory;
 *  KW_LINE_TOO_LONG when a line passes lb->max bytes; or the first nonzero value fn returned
 *  (the rest of data is then dropped). */
int kw_lines_feed(kw_lines *lb, const char *data, size_t n,
                  int (*fn)(void *ctx, const char *line, size_t len), void *ctx);
/** Bytes held of an incomplete line. */
size_t kw_lines_pending(const kw_lines *lb);

/* ---- Objects. */
/* Spans of metadata.name, .namespace and .resourceVersion (JSON strings, undecoded; len 0 when
 * absent or null). */
typedef struct kw_meta {
    js_span name, ns, rv;
} kw_meta;

/** Find the metadata strings of the object at obj, which must lie in a document already
 *  validated (an event line kw_parse_event accepted, a page kw_parse_page accepted): it is
 *  walked with js_members_valid. Returns 0, or -1 with a reason in *why when obj is not an
 *  object, or metadata or one of these members has the wrong type. */
int kw_object_meta(const char *s, js_span obj, kw_meta *m, const char **why);
/** The same from the span of the object's "metadata" member (len 0: absent), found by the
 *  caller with kw_object_keys, e.g. while iterating a list's items with js_array_next_object. */
int kw_metadata(const char *s, js_span md, kw_meta *m, const char **why);
/** {"metadata"}: the member kw_metadata reads. */
extern const char *const kw_object_keys[1];

/** Decode the metadata strings of m into buf (room for name.len + ns.len + rv.len bytes at
 *  least): *name, *ns and *rv point into buf, or are NULL when absent (and *ns when empty).
 *  Returns 0, or -1 with *why when the name is missing or empty, or a string holds \u0000. */
int kw_meta_strings(const char *s, const kw_meta *m, char *buf, const char **name,
                    const char **ns, const char **rv, const char **why);

/* ---- Watch events: {"type": "...", "object": {...}}. */
typedef struct kw_event {
    char type;      /* 'A' ADDED, 'M' MODIFIED, 'D' DELETED, 'B' BOOKMARK, 'E' ERROR */
    js_span object; /* the "object" member's value, in the line */
    kw_meta meta;   /* A, M, D and B: the object's metadata strings */
} kw_event;

/** Parse one event line. A, M and D need an object with a name, B a resourceVersion, E any
 *  object (kw_parse_status reads it). Returns 0, or -1 with a reason in *why. */
int kw_parse_event(const char *line, size_t n, kw_event *ev, const char **why);

/* ---- Status objects (an ERROR event's object; the body of an error response). */
typedef struct kw_status {
    int code;          /* "code", or 0 */
    char reason[64];   /* "reason" (e.g. "Expired"), or "" */
    char message[256]; /* "message", cut to fit, or "" */
} kw_status;

/** Read a Status: 0 when s[0..n) is a JSON object with an integer "code" (up to 999) or
 *  "kind": "Status", -1 otherwise (st is then zeroed). */
int kw_parse_status(const char *s, size_t n, kw_status *st);

/* ---- LIST pages: {"metadata": {"resourceVersion": "...", "continue": "..."}, "items": [...]}. */
typedef struct kw_page {
    js_span items; /* the "items" array (len 0: absent or null, no items) */
    char *rv;      /* metadata.resourceVersion (malloc'd), or NULL when absent */
    char *cont;    /* metadata.continue (malloc'd), or NULL when absent or empty */
} kw_page;

/** Parse a page. Returns 0; -1 with *why when it is not a valid list; -2 out of memory.
 *  Iterate its items with js_array_begin and js_array_next. */
int kw_parse_page(const char *s, size_t n, kw_page *pg, const char **why);
void kw_page_free(kw_page *pg);

#endif
