/*
 * diag.c: the diagnostics list and its rendering in cel-go's format:
 *
 *   ERROR: <input>:1:5: undeclared reference to 'devic'
 *    | 1 + devic.attributes["model"]
 *    | ....^
 *
 * Columns count code points. As cel-go does, tabs in the snippet are shown as spaces, and a
 * multi-byte character before the column is marked with a full-width dot (U+FF0E), the caret
 * under a multi-byte character is a full-width caret (U+FF3E), so that the marker lines up in
 * terminals that draw those characters wide.
 */
#include "apiint.h"
#include "diag.h"

#include <stdlib.h>
#include <string.h>

dc_diags *dc_diags_new(const dracel_alloc *a, uint32_t max)
{
    if (!a)
        a = &dc_default_alloc;
    dc_diags *d = dc_malloc(a, sizeof *d);
    if (!d)
        return NULL;
    memset(d, 0, sizeof *d);
    d->alloc = *a;
    dc_arena_init(&d->arena, &d->alloc);
    d->max = max ? max : DRACEL_DEFAULT_MAX_ERRORS;
    d->max_bytes = DRACEL_DEFAULT_MAX_DIAG_BYTES;
    d->src = "";
    return d;
}

void dracel_diags_free(dracel_diags *d)
{
    if (!d)
        return;
    dracel_alloc a = d->alloc;
    dc_free(&a, d->items, d->cap * sizeof *d->items);
    dc_arena_free(&d->arena);
    dc_free(&a, d, sizeof *d);
}

dracel_status dc_diags_set_source(dc_diags *d, const char *src, size_t len)
{
    char *p = dc_arena_strndup(&d->arena, src, len);
    if (!p)
        return DRACEL_ENOMEM;
    d->src = p;
    d->src_len = len;
    return DRACEL_OK;
}

void dc_diag_vadd(dc_diags *d, dracel_severity sev, dracel_span span, const char *fmt, va_list ap)
{
    if (sev == DRACEL_SEV_ERROR)
        d->errors++;
    if (d->count >= d->max) {
        d->dropped++;
        return;
    }
    if (d->count == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        dc_diag *p = dc_realloc(d->arena.alloc, d->items, d->cap * sizeof *p, cap * sizeof *p);
        if (!p) {
            d->oom = true;
            return;
        }
        d->items = p;
        d->cap = cap;
    }
    char *msg = dc_arena_vprintf(&d->arena, fmt, ap);
    if (!msg) {
        d->oom = true;
        return;
    }
    dc_diag *x = &d->items[d->count];
    x->sev = sev;
    x->span = span;
    x->msg = msg;
    x->seq = (uint32_t)d->count;
    x->line = x->col = 0;
    x->lstart = x->lend = 0;
    d->count++;
    d->positioned = false;
}

void dc_diag_add(dc_diags *d, dracel_severity sev, dracel_span span, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dc_diag_vadd(d, sev, span, fmt, ap);
    va_end(ap);
}

static int diag_cmp(const void *a, const void *b)
{
    const dc_diag *x = a, *y = b;
    if (x->span.start != y->span.start)
        return x->span.start < y->span.start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t seq_len(const unsigned char *s, size_t n);

void dc_diags_sort(dc_diags *d)
{
    if (d->count > 1)
        dc_sort(d->items, d->count, sizeof *d->items, diag_cmp);
    /* One pass over the source for all positions (they are in order now): a diagnostic's line
     * and column cost what lies between it and the one before, not the whole prefix. */
    const unsigned char *s = (const unsigned char *)d->src;
    size_t i = 0, lstart = 0, lend = 0;
    uint32_t line = 1, col = 1;
    for (size_t k = 0; k < d->count; k++) {
        dc_diag *x = &d->items[k];
        size_t o = x->span.start > d->src_len ? d->src_len : x->span.start;
        while (i < o) {
            if (s[i] == '\n') {
                line++;
                col = 1;
                lstart = ++i;
            } else {
                i += seq_len(s + i, d->src_len - i);
                col++;
            }
        }
        if (lend < lstart || (k == 0 && !lend)) {
            lend = lstart;
            while (lend < d->src_len && s[lend] != '\n')
                lend++;
        }
        x->line = line;
        x->col = col;
        x->lstart = lstart;
        x->lend = lend;
    }
    d->positioned = true;
}

/* Start of the line holding byte offset off, and its 1-based number. */
static size_t line_start(const dc_diags *d, size_t off, uint32_t *line)
{
    uint32_t ln = 1;
    size_t start = 0;
    for (size_t i = 0; i < off; i++) {
        if (d->src[i] == '\n') {
            ln++;
            start = i + 1;
        }
    }
    *line = ln;
    return start;
}

/* Byte length of the UTF-8 sequence at s (1 for anything invalid: the source was validated
 * before lexing, but a diagnostic about invalid UTF-8 itself points at such a byte). */
static size_t seq_len(const unsigned char *s, size_t n)
{
    uint32_t cp;
    int k = dc_utf8_decode(s, n, &cp);
    return k > 0 ? (size_t)k : 1;
}

void dc_diags_position(const dc_diags *d, uint32_t off, uint32_t *line, uint32_t *col)
{
    size_t o = off > d->src_len ? d->src_len : off;
    size_t i = line_start(d, o, line);
    uint32_t c = 1;
    const unsigned char *s = (const unsigned char *)d->src;
    while (i < o) {
        i += seq_len(s + i, d->src_len - i);
        c++;
    }
    *col = c;
}

size_t dracel_diags_count(const dracel_diags *d)
{
    return d ? d->count : 0;
}

size_t dracel_diags_errors(const dracel_diags *d)
{
    return d ? d->errors : 0;
}

dracel_status dracel_diags_get_size(const dracel_diags *d, size_t i, dracel_diag_info *out,
                                    size_t size)
{
    if (!d || !out || i >= d->count)
        return DRACEL_EINVAL;
    const dc_diag *x = &d->items[i];
    dracel_diag_info info;
    info.severity = x->sev;
    info.message = x->msg;
    info.span = x->span;
    if (d->positioned) {
        info.line = x->line;
        info.column = x->col;
    } else {
        dc_diags_position(d, x->span.start, &info.line, &info.column);
    }
    return dc_struct_write(out, size, &info, sizeof info, sizeof info);
}

/* cel-go shows at most this many bytes of a source line. */
#define MAX_SNIPPET 16384u

static void render_one(const dc_diags *d, const dc_diag *x, const char *name, dc_buf *b)
{
    uint32_t line, col;
    if (d->positioned) {
        line = x->line;
        col = x->col;
    } else {
        dc_diags_position(d, x->span.start, &line, &col);
    }
    dc_buf_printf(b, "%s: %s:%u:%u: %s", x->sev == DRACEL_SEV_ERROR ? "ERROR" : "WARNING", name,
                  line, col, x->msg);
    size_t o = x->span.start > d->src_len ? d->src_len : x->span.start;
    uint32_t ln;
    size_t start = d->positioned ? x->lstart : line_start(d, o, &ln);
    size_t end = d->positioned ? x->lend : start;
    while (!d->positioned && end < d->src_len && d->src[end] != '\n')
        end++;
    if (end - start > MAX_SNIPPET) {
        dc_buf_putc(b, '\n');
        return;
    }
    const unsigned char *s = (const unsigned char *)d->src;
    dc_buf_puts(b, "\n | ");
    for (size_t i = start; i < end; i++) {
        if (s[i] == '\t')
            dc_buf_putc(b, ' ');
        else if (s[i] == '\0')
            dc_buf_puts(b, "\xE2\x90\x80"); /* U+2400 SYMBOL FOR NULL: a NUL would end the text */
        else
            dc_buf_putc(b, (char)s[i]);
    }
    dc_buf_puts(b, "\n | ");
    size_t i = start;
    for (uint32_t c = 1; c < col && i < end; c++) {
        size_t k = seq_len(s + i, end - i);
        dc_buf_puts(b, k > 1 ? "\xEF\xBC\x8E" : ".");
        i += k;
    }
    if (i < end && seq_len(s + i, end - i) > 1)
        dc_buf_puts(b, "\xEF\xBC\xBE");
    else
        dc_buf_putc(b, '^');
    dc_buf_putc(b, '\n');
}

char *dracel_diags_render(const dracel_diags *d, const char *name)
{
    if (!d)
        return NULL;
    dc_buf b;
    dc_buf_init(&b, d->arena.alloc);
    dc_buf_puts(&b, ""); /* an empty list renders as "" */
    size_t i = 0;
    for (; i < d->count && !b.oom; i++) {
        size_t at = b.len;
        render_one(d, &d->items[i], name ? name : "<input>", &b);
        if (d->max_bytes && b.len > d->max_bytes) {
            b.len = at; /* this one does not fit: stop before it */
            break;
        }
    }
    if (i < d->count)
        dc_buf_printf(&b, "%zu more diagnostics not shown (output limit of %zu bytes)\n",
                      d->count - i, d->max_bytes);
    if (d->dropped)
        dc_buf_printf(&b, "%zu more diagnostics not shown (limit %u)\n", d->dropped, d->max);
    if (d->oom)
        dc_buf_puts(&b, "some diagnostics were lost: out of memory\n");
    return dc_buf_take(&b);
}
