/*
 * diag.h: diagnostics with byte spans, collected during a compilation and rendered lazily in
 * cel-go's format. dc_diags is the public dracel_diags. It owns a copy of the source text so that
 * rendering (line, column in code points, snippet, caret) needs nothing else.
 */
#ifndef DC_DIAG_H
#define DC_DIAG_H

#include "arena.h"

typedef struct dc_diag {
    dracel_severity sev;
    dracel_span span;
    const char *msg;   /* in the arena */
    uint32_t seq;      /* insertion order: ties in position keep it */
    uint32_t line, col; /* 1-based, set by dc_diags_sort */
    size_t lstart, lend; /* byte offsets of its line's start and end, set by dc_diags_sort */
} dc_diag;

struct dracel_diags {
    dracel_alloc alloc;     /* a copy: the list may outlive the environment that made it */
    dc_arena arena;         /* allocates with &alloc */
    const char *src;   /* copy of the source, NUL-terminated, in the arena */
    size_t src_len;
    dc_diag *items;
    size_t count, cap;
    uint32_t max;      /* kept at most; later ones are counted in `dropped` */
    size_t max_bytes;  /* what dracel_diags_render may write at most (dracel_config) */
    size_t dropped;
    size_t errors;
    bool limit;        /* an error was a configured limit (dc_limit_error): DRACEL_ELIMIT */
    bool oom;
    bool positioned;   /* items' line, col and lstart are set (dc_diags_sort) */
};

typedef struct dracel_diags dc_diags;

/** Create an empty list that will keep at most @p max diagnostics. NULL on ENOMEM. */
dc_diags *dc_diags_new(const dracel_alloc *a, uint32_t max);
/** Attach the source text (copied). */
dracel_status dc_diags_set_source(dc_diags *d, const char *src, size_t len) DC_WUR;
/** Add a diagnostic at @p span. Never fails: on ENOMEM the list records `oom`. */
void dc_diag_add(dc_diags *d, dracel_severity sev, dracel_span span, const char *fmt, ...)
    DC_PRINTF(4, 5);
void dc_diag_vadd(dc_diags *d, dracel_severity sev, dracel_span span, const char *fmt,
                  va_list ap);
#define dc_error(d, span, ...) dc_diag_add((d), DRACEL_SEV_ERROR, (span), __VA_ARGS__)
/* An error that a configured limit was exceeded (source size, nesting, nodes, estimated cost):
 * the call that reports it returns DRACEL_ELIMIT rather than DRACEL_EINPUT. */
#define dc_limit_error(d, span, ...) \
    ((d)->limit = true, dc_diag_add((d), DRACEL_SEV_ERROR, (span), __VA_ARGS__))
/* The status of a front-end step that reported errors. */
static inline dracel_status dc_diags_status(const struct dracel_diags *d)
{
    return d->oom && !d->errors ? DRACEL_ENOMEM : d->limit ? DRACEL_ELIMIT : DRACEL_EINPUT;
}
/** Sort by position (stable) and work out every item's line and column in one pass over the
 *  source. Done once before the list is handed out. */
void dc_diags_sort(dc_diags *d);
/** 1-based line and column (code points) of byte offset @p off. */
void dc_diags_position(const dc_diags *d, uint32_t off, uint32_t *line, uint32_t *col);

static inline dracel_span dc_span(uint32_t start, uint32_t end)
{
    dracel_span s = {start, end};
    return s;
}

#endif
