/*
 * watch.c: the Kubernetes wire formats of the API client (watch.h): the line buffer, watch
 * events, Status objects and LIST pages.
 *
 * The line buffer copies only what it must: complete lines inside a chunk are handed over from
 * the chunk itself; only an incomplete line at a chunk's end is kept, and completed by the next
 * chunks.
 */
#include "watch.h"

#include <stdlib.h>
#include <string.h>

/* ---- Line buffer. */

void kw_lines_init(kw_lines *lb, size_t max)
{
    memset(lb, 0, sizeof *lb);
    lb->max = max;
}

void kw_lines_reset(kw_lines *lb)
{
    lb->len = 0;
}

void kw_lines_free(kw_lines *lb)
{
    free(lb->buf);
    lb->buf = NULL;
    lb->len = lb->cap = 0;
}

size_t kw_lines_pending(const kw_lines *lb)
{
    return lb->len;
}

static int keep(kw_lines *lb, const char *data, size_t n)
{
    if (n == 0)
        return 0;
    if (n > lb->cap - lb->len) {
        size_t want = lb->len + n, cap = lb->cap ? lb->cap : 4096;
        while (cap < want)
            cap = cap > (size_t)-1 / 2 ? want : cap * 2;
        char *nb = realloc(lb->buf, cap);
        if (!nb)
            return -1;
        lb->buf = nb;
        lb->cap = cap;
    }
    memcpy(lb->buf + lb->len, data, n);
    lb->len += n;
    return 0;
}

/* Hand over one line: without a final '\r', and not at all when it is blank. */
static int emit(const char *line, size_t n, int (*fn)(void *, const char *, size_t), void *ctx)
{
    if (n > 0 && line[n - 1] == '\r')
        n--;
    size_t i = 0;
    while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    return i == n ? 0 : fn(ctx, line, n);
}

int kw_lines_feed(kw_lines *lb, const char *data, size_t n,
                  int (*fn)(void *ctx, const char *line, size_t len), void *ctx)
{
    size_t i = 0;
    if (lb->len > 0) {
        /* complete the line kept from earlier chunks */
        const char *nl = memchr(data, '\n', n);
        size_t take = nl ? (size_t)(nl - data) : n;
        if (take > lb->max - lb->len)
            return KW_LINE_TOO_LONG;
        if (keep(lb, data, take) != 0)
            return -1;
        if (!nl)
            return 0;
        size_t len = lb->len;
        lb->len = 0;
        int r = emit(lb->buf, len, fn, ctx);
        if (r != 0)
            return r;
        i = take + 1;
    }
    /* complete lines inside the chunk, from the chunk */
    while (i < n) {
        const char *nl = memchr(data + i, '\n', n - i);
        if (!nl)
            break;
        size_t len = (size_t)(nl - (data + i));
        if (len > lb->max)
            return KW_LINE_TOO_LONG;
        int r = emit(data + i, len, fn, ctx);
        if (r != 0)
            return r;
        i += len + 1;
    }
    if (n - i > lb->max)
        return KW_LINE_TOO_LONG;
    return keep(lb, data + i, n - i);
}

/* ---- Objects. */

static bool is_null(const char *s, js_span v)
{
    return v.len == 4 && memcmp(s + v.off, "null", 4) == 0;
}

/* Trim the whitespace around s[0..n). */
static js_span trimmed(const char *s, size_t n)
{
    size_t a = 0;
    while (a < n && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r' || s[a] == '\n'))
        a++;
    while (n > a && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    return (js_span){a, n - a};
}

const char *const kw_object_keys[1] = {"metadata"};

int kw_object_meta(const char *s, js_span obj, kw_meta *m, const char **why)
{
    js_span md;
    /* the event line or the list page was validated as a whole: the fast walk */
    if (js_members_valid(s, obj, kw_object_keys, 1, &md) != 0) {
        memset(m, 0, sizeof *m);
        *why = "the object is not a JSON object";
        return -1;
    }
    return kw_metadata(s, md, m, why);
}

int kw_metadata(const char *s, js_span md, kw_meta *m, const char **why)
{
    static const char *const mkeys[] = {"name", "namespace", "resourceVersion"};
    static const char *const what[] = {"metadata.name is not a string",
                                       "metadata.namespace is not a string",
                                       "metadata.resourceVersion is not a string"};
    js_span v[3];
    memset(m, 0, sizeof *m);
    if (md.len == 0 || is_null(s, md))
        return 0;
    if (js_members_valid(s, md, mkeys, 3, v) != 0) {
        *why = "metadata is not an object";
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        if (is_null(s, v[i]))
            v[i] = (js_span){0, 0};
        if (v[i].len > 0 && !js_is_string(s, v[i])) {
            *why = what[i];
            return -1;
        }
    }
    m->name = v[0];
    m->ns = v[1];
    m->rv = v[2];
    return 0;
}

int kw_meta_strings(const char *s, const kw_meta *m, char *buf, const char **name,
                    const char **ns, const char **rv, const char **why)
{
    const js_span *spans[3] = {&m->name, &m->ns, &m->rv};
    const char **outs[3] = {name, ns, rv};
    size_t k = 0;
    for (int i = 0; i < 3; i++) {
        size_t len = 0;
        *outs[i] = NULL;
        if (spans[i]->len == 0)
            continue;
        if (js_string(s, *spans[i], buf + k, &len) != 0) {
            *why = "a metadata string holds \\u0000";
            return -1;
        }
        if (len > 0 || i != 1)
            *outs[i] = buf + k;
        k += len + 1;
    }
    if (!*name || !**name) {
        *why = "the object has no metadata.name";
        return -1;
    }
    return 0;
}

/* ---- Watch events. */

int kw_parse_event(const char *line, size_t n, kw_event *ev, const char **why)
{
    static const char *const keys[] = {"type", "object"};
    static const struct {
        const char *name;
        char type;
    } types[] = {{"ADDED", 'A'}, {"MODIFIED", 'M'}, {"DELETED", 'D'}, {"BOOKMARK", 'B'},
                 {"ERROR", 'E'}};
    js_span v[2];
    memset(ev, 0, sizeof *ev);
    if (js_members(line, trimmed(line, n), keys, 2, v) != 0) {
        *why = "the event is not a valid JSON object";
        return -1;
    }
    char t[16];
    size_t tlen;
    if (!js_is_string(line, v[0]) || v[0].len > sizeof t || js_string(line, v[0], t, &tlen) != 0) {
        *why = "the event has no type";
        return -1;
    }
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i].name) == 0)
            ev->type = types[i].type;
    if (!ev->type) {
        *why = "unknown event type";
        return -1;
    }
    if (!js_is_object(line, v[1])) {
        *why = "the event has no object";
        return -1;
    }
    ev->object = v[1];
    if (ev->type == 'E')
        return 0;
    if (kw_object_meta(line, ev->object, &ev->meta, why) != 0)
        return -1;
    if (ev->type == 'B' ? ev->meta.rv.len <= 2 : ev->meta.name.len <= 2) {
        *why = ev->type == 'B' ? "a BOOKMARK without metadata.resourceVersion"
                               : "an object without metadata.name";
        return -1;
    }
    return 0;
}

/* ---- Status objects. */

/* Decode the string at v into dst (cap bytes), cut to fit; "" when v is not a string. */
static void copy_string(char *dst, size_t cap, const char *s, js_span v)
{
    dst[0] = '\0';
    if (!js_is_string(s, v))
        return;
    char *tmp = malloc(v.len);
    size_t n;
    if (!tmp)
        return;
    if (js_string(s, v, tmp, &n) == 0) {
        if (n >= cap)
            n = cap - 1;
        memcpy(dst, tmp, n);
        dst[n] = '\0';
    }
    free(tmp);
}

int kw_parse_status(const char *s, size_t n, kw_status *st)
{
    static const char *const keys[] = {"kind", "code", "reason", "message"};
    js_span v[4];
    memset(st, 0, sizeof *st);
    if (js_members(s, trimmed(s, n), keys, 4, v) != 0)
        return -1;
    /* code: an integer of at most three digits, as the API server writes it */
    bool code = v[1].len >= 1 && v[1].len <= 3;
    for (size_t i = 0; i < v[1].len; i++)
        code &= s[v[1].off + i] >= '0' && s[v[1].off + i] <= '9';
    char kind[8];
    copy_string(kind, sizeof kind, s, v[0]);
    if (!code && strcmp(kind, "Status") != 0)
        return -1;
    for (size_t i = 0; code && i < v[1].len; i++)
        st->code = st->code * 10 + (s[v[1].off + i] - '0');
    copy_string(st->reason, sizeof st->reason, s, v[2]);
    copy_string(st->message, sizeof st->message, s, v[3]);
    return 0;
}

/* ---- LIST pages. */

/* The string at v, malloc'd, or NULL when absent, null or empty. 0, or -2 out of memory. */
static int dup_string(const char *s, js_span v, char **out)
{
    *out = NULL;
    if (!js_is_string(s, v) || v.len <= 2)
        return 0;
    char *p = malloc(v.len);
    size_t n;
    if (!p)
        return -2;
    if (js_string(s, v, p, &n) != 0 || n == 0) {
        free(p);
        return 0;
    }
    *out = p;
    return 0;
}

int kw_parse_page(const char *s, size_t n, kw_page *pg, const char **why)
{
    static const char *const keys[] = {"metadata", "items"};
    static const char *const mkeys[] = {"resourceVersion", "continue"};
    js_span v[2], m[2];
    memset(pg, 0, sizeof *pg);
    if (js_members(s, trimmed(s, n), keys, 2, v) != 0) {
        *why = "the list is not a valid JSON object";
        return -1;
    }
    if (v[1].len > 0 && !is_null(s, v[1])) {
        if (!js_is_array(s, v[1])) {
            *why = "the list's items are not an array";
            return -1;
        }
        pg->items = v[1];
    }
    if (v[0].len == 0 || is_null(s, v[0]))
        return 0;
    if (js_members(s, v[0], mkeys, 2, m) != 0) {
        *why = "the list's metadata is not an object";
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        if (m[i].len > 0 && !is_null(s, m[i]) && !js_is_string(s, m[i])) {
            *why = i == 0 ? "the list's metadata.resourceVersion is not a string"
                          : "the list's metadata.continue is not a string";
            return -1;
        }
    }
    int rc = dup_string(s, m[0], &pg->rv);
    if (rc == 0)
        rc = dup_string(s, m[1], &pg->cont);
    if (rc != 0)
        kw_page_free(pg);
    return rc;
}

void kw_page_free(kw_page *pg)
{
    free(pg->rv);
    free(pg->cont);
    pg->rv = pg->cont = NULL;
}
