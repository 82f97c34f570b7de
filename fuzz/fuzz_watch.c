/*
 * fuzz_watch: libFuzzer harness for the parsers of dra-extender's API client: the JSON span
 * scanner (src/kube/jsonspan.c) and the Kubernetes wire formats (src/kube/watch.c:
 * the line buffer, event lines, list pages, Status objects). Built with --enable-fuzzing.
 *
 * Besides crashes and sanitizer reports, it traps on a broken contract, with cJSON as the
 * reference:
 * - what the scanner accepts, cJSON parses (except what cJSON refuses and JSON allows: a lone
 *   or unpaired surrogate escape, a number of 64 characters or more);
 * - the span of an object's member (a name that occurs once), of an array's element, parses to
 *   what cJSON holds there (both printed by cJSON); arrays have cJSON's element count;
 * - a string decodes to cJSON's bytes (when it holds no \u0000);
 * - on a valid document, the fast walk (js_members_valid, js_members_fold_valid,
 *   js_object_begin_valid, js_array_begin_valid, js_array_next_object(_fold),
 *   js_array_count_valid)
 *   finds the same spans and counts as the validating one; on any input it stays in
 *   bounds (the copy of the input is exactly its size, so ASan sees any read past it);
 * - an event line that parses has a known type and an object span that is valid JSON, inside
 *   the line; its metadata strings decode into the room the client gives them;
 * - a list page that parses has items that iterate to the end, and the resourceVersion and
 *   continue token cJSON reads there; a Status has the code, reason and message cJSON reads;
 * - the line buffer gives the same lines, the same status and the same pending bytes whether
 *   the input comes at once or cut at offsets taken from the input.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "../src/kube/jsonspan.h"
#include "../src/kube/watch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

/* Escapes cJSON refuses: \uD800-\uDFFF (cJSON takes only well-formed pairs). A conservative
 * test: any \uD8..\uDF escape at all. */
static bool has_surrogate(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 < n; i++)
        if (s[i] == '\\' && s[i + 1] == 'u' && (s[i + 2] == 'd' || s[i + 2] == 'D') &&
            strchr("89abcdefABCDEF", s[i + 3]) && s[i + 3] != '\0')
            return true;
    return false;
}

/* cJSON reads at most 63 characters of a number. */
static bool has_long_number(const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        run = strchr("0123456789eE.+-", s[i]) && s[i] ? run + 1 : 0;
        if (run >= 63)
            return true;
    }
    return false;
}

static bool same_tree(const cJSON *a, const char *s, js_span v)
{
    const char *end;
    cJSON *b = cJSON_ParseWithLengthOpts(s + v.off, v.len, &end, 0);
    if (!b)
        return false;
    char *pa = cJSON_PrintUnformatted(a), *pb = cJSON_PrintUnformatted(b);
    bool same = pa && pb && strcmp(pa, pb) == 0;
    if (!pa || !pb)
        same = true; /* out of memory in printing: nothing to compare */
    free(pa);
    free(pb);
    cJSON_Delete(b);
    return same;
}

/* The fast walk against the validating one, on a valid value v (recursively, a few levels),
 * and the fast walk alone (any answer, in bounds) on anything. */
static void fast_walk(const char *s, js_span v, bool valid, int depth)
{
    static const char *const keys[] = {"metadata", "items", "a", "object", "type"};
    enum { NK = sizeof keys / sizeof keys[0] };
    js_span a[NK], b[NK];
    if (depth > 4)
        return;
    if (js_is_object(s, v)) {
        int ra = js_members(s, v, keys, NK, a), rb = js_members_valid(s, v, keys, NK, b);
        if (valid) {
            CHECK(ra == 0 && rb == 0);
            for (int i = 0; i < NK; i++) {
                CHECK(a[i].off == b[i].off && a[i].len == b[i].len);
                if (a[i].len)
                    fast_walk(s, a[i], true, depth + 1);
            }
        }
        /* Go's case-insensitive matching, both walks. */
        ra = js_members_fold(s, v, keys, NK, a);
        rb = js_members_fold_valid(s, v, keys, NK, b);
        if (valid) {
            CHECK(ra == 0 && rb == 0);
            for (int i = 0; i < NK; i++)
                CHECK(a[i].off == b[i].off && a[i].len == b[i].len);
        }
        /* Member iteration, both walks. */
        js_iter oa, ob;
        js_span ka, va, kb, vb;
        js_object_begin(s, v, &oa);
        js_object_begin_valid(s, v, &ob);
        do {
            ra = js_object_next(s, &oa, &ka, &va);
            rb = js_object_next(s, &ob, &kb, &vb);
            if (valid)
                CHECK(ra == rb && (ra != 1 || (ka.off == kb.off && ka.len == kb.len &&
                                               va.off == vb.off && va.len == vb.len)));
        } while (ra == 1 && rb == 1);
        while (rb == 1) /* the fast walk alone ends, in bounds */
            rb = js_object_next(s, &ob, &kb, &vb);
    } else if (js_is_array(s, v)) {
        js_iter ia, ib, ic;
        js_span ea, eb, ec, ma[NK], mc[NK];
        int ra, rb, rc = 1;
        js_array_begin(s, v, &ia);
        js_array_begin_valid(s, v, &ib);
        js_array_begin_valid(s, v, &ic);
        size_t elems = 0, counted = js_array_count_valid(s, v);
        do {
            ra = js_array_next(s, &ia, &ea);
            rb = js_array_next(s, &ib, &eb);
            if (valid) {
                CHECK(ra == rb && (ra != 1 || (ea.off == eb.off && ea.len == eb.len)));
                if (ra == 1)
                    fast_walk(s, ea, true, depth + 1);
            }
            elems += ra == 1;
        } while (ra == 1 && rb == 1);
        if (valid)
            CHECK(counted == elems);
        /* js_array_next_object over arrays of objects */
        bool objects = valid;
        js_array_begin(s, v, &ia);
        while (objects && (ra = js_array_next(s, &ia, &ea)) == 1)
            objects = js_is_object(s, ea);
        if (objects) {
            js_iter id;
            js_span ed, md[NK];
            js_array_begin(s, v, &ia);
            js_array_begin_valid(s, v, &id);
            while ((ra = js_array_next(s, &ia, &ea)) == 1) {
                rc = js_array_next_object(s, &ic, keys, NK, mc, &ec);
                CHECK(rc == 1 && ec.off == ea.off && ec.len == ea.len);
                CHECK(js_members(s, ea, keys, NK, ma) == 0);
                for (int i = 0; i < NK; i++)
                    CHECK(ma[i].off == mc[i].off && ma[i].len == mc[i].len);
                /* the folding walk finds what js_members_fold finds */
                rc = js_array_next_object_fold(s, &id, keys, NK, md, &ed);
                CHECK(rc == 1 && ed.off == ea.off && ed.len == ea.len);
                CHECK(js_members_fold(s, ea, keys, NK, ma) == 0);
                for (int i = 0; i < NK; i++)
                    CHECK(ma[i].off == md[i].off && ma[i].len == md[i].len);
            }
            CHECK(js_array_next_object(s, &ic, keys, NK, mc, &ec) == 0);
        } else {
            while (rc == 1)
                rc = js_array_next_object(s, &ic, keys, NK, mc, &ec);
            js_iter id;
            js_span ed, md[NK];
            js_array_begin_valid(s, v, &id);
            while (js_array_next_object_fold(s, &id, keys, NK, md, &ed) == 1)
                ;
        }
    }
}

/* The scanner against cJSON, on a document both accept. */
static void compare(const char *s, size_t n, const cJSON *j, bool has_nul_escape)
{
    js_span v;
    size_t p = 0;
    CHECK(js_value(s, n, &p, &v) == 0);
    if (cJSON_IsArray(j)) {
        js_iter it;
        js_span e;
        int count = 0, r;
        CHECK(js_array_begin(s, v, &it) == 0);
        const cJSON *item = j->child;
        while ((r = js_array_next(s, &it, &e)) == 1) {
            CHECK(item && same_tree(item, s, e));
            item = item->next;
            count++;
        }
        CHECK(r == 0 && count == cJSON_GetArraySize(j));
    } else if (cJSON_IsObject(j) && !has_nul_escape) {
        for (const cJSON *m = j->child; m; m = m->next) {
            int occurs = 0;
            for (const cJSON *o = j->child; o; o = o->next)
                occurs += strcmp(o->string, m->string) == 0;
            if (occurs != 1)
                continue;
            const char *key = m->string;
            js_span mv;
            CHECK(js_members(s, v, &key, 1, &mv) == 0);
            CHECK(mv.len > 0 && same_tree(m, s, mv));
        }
    } else if (cJSON_IsString(j) && !has_nul_escape) {
        char *out = malloc(v.len + 1);
        size_t len;
        if (out) {
            CHECK(js_string(s, v, out, &len) == 0);
            CHECK(len == strlen(j->valuestring) && memcmp(out, j->valuestring, len) == 0);
            free(out);
        }
    }
}

typedef struct lines {
    char *buf;
    size_t len, cap;
    bool oom;
} lines;

static int collect(void *ctx, const char *line, size_t n)
{
    lines *l = ctx;
    CHECK(n > 0 && !memchr(line, '\n', n));
    if (l->oom)
        return 0;
    if (l->cap - l->len < n + 16) {
        size_t cap = (l->cap + n + 16) * 2;
        char *nb = realloc(l->buf, cap);
        if (!nb) {
            l->oom = true;
            return 0;
        }
        l->buf = nb;
        l->cap = cap;
    }
    /* a line is its length, then its bytes */
    memcpy(l->buf + l->len, &n, sizeof n);
    memcpy(l->buf + l->len + sizeof n, line, n);
    l->len += sizeof n + n;
    return 0;
}

static void line_buffer(const char *s, size_t n)
{
    size_t max = 64 + (n ? (unsigned char)s[0] : 0);
    kw_lines a, b;
    lines la = {0}, lb = {0};
    kw_lines_init(&a, max);
    kw_lines_init(&b, max);
    int ra = kw_lines_feed(&a, s, n, collect, &la);
    int rb = 0;
    uint32_t x = 2166136261u;
    for (size_t i = 0; i < n && i < 64; i++)
        x = (x ^ (unsigned char)s[i]) * 16777619u;
    for (size_t i = 0; i < n && rb == 0;) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        size_t cut = 1 + x % 40;
        if (cut > n - i)
            cut = n - i;
        rb = kw_lines_feed(&b, s + i, cut, collect, &lb);
        i += cut;
    }
    if (ra != -1 && rb != -1 && !la.oom && !lb.oom) {
        CHECK(ra == rb);
        CHECK(la.len == lb.len && (la.len == 0 || memcmp(la.buf, lb.buf, la.len) == 0));
        if (ra == 0)
            CHECK(kw_lines_pending(&a) == kw_lines_pending(&b));
    }
    kw_lines_free(&a);
    kw_lines_free(&b);
    free(la.buf);
    free(lb.buf);
}

static void event_line(const char *s, size_t n)
{
    kw_event ev;
    const char *why = NULL;
    if (kw_parse_event(s, n, &ev, &why) != 0) {
        CHECK(why != NULL);
        return;
    }
    CHECK(strchr("AMDBE", ev.type) && ev.type);
    CHECK(ev.object.off + ev.object.len <= n && js_valid(s + ev.object.off, ev.object.len));
    if (ev.type == 'E') {
        kw_status st;
        (void)kw_parse_status(s + ev.object.off, ev.object.len, &st);
        return;
    }
    const js_span *sp[3] = {&ev.meta.name, &ev.meta.ns, &ev.meta.rv};
    for (int i = 0; i < 3; i++)
        CHECK(sp[i]->len == 0 || (sp[i]->off >= ev.object.off &&
                                   sp[i]->off + sp[i]->len <= ev.object.off + ev.object.len));
    char *buf = malloc(ev.meta.name.len + ev.meta.ns.len + ev.meta.rv.len + 1);
    if (!buf)
        return;
    const char *name, *ns, *rv;
    if (ev.type != 'B' && kw_meta_strings(s, &ev.meta, buf, &name, &ns, &rv, &why) == 0)
        CHECK(name && *name && (!ns || *ns));
    free(buf);
}

/* The string member name of cJSON object j, or NULL. */
static const char *str_member(const cJSON *j, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Is the first member of j named name the only one (js_members takes the last, cJSON the
 * first)? */
static bool once(const cJSON *j, const char *name)
{
    int k = 0;
    for (const cJSON *m = j ? j->child : NULL; m; m = m->next)
        k += m->string && strcmp(m->string, name) == 0;
    return k <= 1;
}

/* A prefix of at most cap - 1 bytes of a, the way kw_status cuts its strings. */
static bool same_cut(const char *ours, const char *theirs, size_t cap)
{
    size_t n = theirs ? strlen(theirs) : 0;
    if (n >= cap)
        n = cap - 1;
    return strlen(ours) == n && (n == 0 || memcmp(ours, theirs, n) == 0);
}

static void list_page(const char *s, size_t n, const cJSON *j, bool comparable)
{
    kw_page pg;
    const char *why = NULL;
    int r = kw_parse_page(s, n, &pg, &why);
    if (r == -1)
        CHECK(why != NULL);
    if (r != 0)
        return;
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(j, "metadata");
    if (comparable && cJSON_IsObject(j) && once(j, "metadata") && once(md, "resourceVersion") &&
        once(md, "continue")) {
        const char *rv = str_member(md, "resourceVersion"), *cont = str_member(md, "continue");
        CHECK(rv && *rv ? pg.rv && strcmp(pg.rv, rv) == 0 : !pg.rv);
        CHECK(cont && *cont ? pg.cont && strcmp(pg.cont, cont) == 0 : !pg.cont);
    }
    if (pg.items.len > 0) {
        js_iter it;
        js_span e;
        int k;
        CHECK(js_array_begin(s, pg.items, &it) == 0);
        while ((k = js_array_next(s, &it, &e)) == 1) {
            kw_meta m;
            CHECK(e.off + e.len <= n);
            (void)kw_object_meta(s, e, &m, &why);
        }
        CHECK(k == 0);
    }
    kw_page_free(&pg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly the input's size: reads past it are caught */
    char *s = malloc(size ? size : 1);
    if (!s)
        return 0;
    memcpy(s, data, size);

    bool valid = js_valid(s, size);
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(s, size, &end, 0);
    if (valid && !has_surrogate(s, size) && !has_long_number(s, size))
        CHECK(j != NULL);
    bool nul = false;
    for (size_t i = 0; i + 5 < size; i++)
        nul |= memcmp(s + i, "\\u0000", 6) == 0;
    if (valid && j)
        compare(s, size, j, nul);
    {
        /* the fast walk on the whole input: against the validating one when valid, alone
         * (in bounds, ending) otherwise */
        size_t a = 0, b = size;
        while (a < b && (s[a] == ' ' || s[a] == '\n' || s[a] == '\t' || s[a] == '\r'))
            a++;
        while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\n' || s[b - 1] == '\t' || s[b - 1] == '\r'))
            b--;
        fast_walk(s, (js_span){a, b - a}, valid, 0);
    }

    /* cJSON truncates a string at \u0000; compare only without one */
    bool comparable = valid && j && !nul;
    event_line(s, size);
    list_page(s, size, j, comparable);
    kw_status st;
    int sr = kw_parse_status(s, size, &st);
    if (comparable && cJSON_IsObject(j) && once(j, "code") && once(j, "kind") &&
        once(j, "reason") && once(j, "message")) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(j, "code");
        const char *kind = str_member(j, "kind");
        if (sr == 0) {
            CHECK(same_cut(st.reason, str_member(j, "reason"), sizeof st.reason));
            CHECK(same_cut(st.message, str_member(j, "message"), sizeof st.message));
            CHECK(st.code == 0 || (cJSON_IsNumber(code) && st.code == (int)code->valuedouble));
        } else {
            CHECK(!(kind && strcmp(kind, "Status") == 0));
        }
    }
    cJSON_Delete(j);
    line_buffer(s, size);
    free(s);
    return 0;
}
