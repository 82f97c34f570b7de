/*
 * load/json.c: JSON text into the loader's tree (src/ldint.h), for src/slices.c's decoders.
 *
 * The text is first walked once by hand: every value's and key's position, line and raw token,
 * nesting within the limits, numbers as written (cJSON keeps only a double); then cJSON builds
 * the structure, and both are joined into one tree with a line for every value and key. Each
 * document's root then goes to the per-document function or to dc_ld_dispatch.
 *
 * One value is not held to the nesting limit: the `parameters` of an `opaque` entry (a claim's
 * or a class's config), which Kubernetes passes to the driver untouched and accepts nested as
 * deep as its 10 KiB allow. When one nests past the limit, the scan checks it in full (down to
 * RAW_MAX_DEPTH levels below it), keeps it as one token of its text (DC_TN_RAW), and cJSON is
 * given a copy of the text with "" in its place, so that neither cJSON's recursion nor the
 * tree's ever goes deeper than the limit.
 *
 * Change with: src/ldint.h, src/slices.c, src/load/yaml.c (the same tree from YAML).
 */
#include "ldint.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <string.h>

dracel_status dc_ld_too_many_values(dc_ld *c, uint32_t line)
{
    return dc_ld_fail(c, line,
                      "more than %u values in one file (the loader's limit; split the file)",
                      (unsigned)DC_SLICES_MAX_VALUES_PER_FILE);
}

static dracel_status jv_push(dc_ld *c, uint32_t off, uint32_t len, uint32_t line)
{
    if (c->njv >= DC_SLICES_MAX_VALUES_PER_FILE)
        return dc_ld_too_many_values(c, line);
    if (!dc_ld_grow(c->a, (void **)&c->jv, &c->capjv, c->njv + 1, sizeof *c->jv))
        return dc_ld_oom(c);
    c->jv[c->njv++] = (dc_jtok){off, len, line, false};
    return DRACEL_OK;
}

/* Levels a raw `parameters` value may nest below itself: 10 KiB of JSON nest 5,120 at most. */
#define RAW_MAX_DEPTH 10240u
/* The scan's stack: per depth, bit 0: an object (else an array); bit 1: the object is the
 * value of a key "opaque". */
#define S_OBJ 1u
#define S_OPAQUE 2u

static dracel_status jk_push(dc_ld *c, uint32_t line)
{
    if (!dc_ld_grow(c->a, (void **)&c->jk, &c->capjk, c->njk + 1, sizeof *c->jk))
        return dc_ld_oom(c);
    c->jk[c->njk++] = line;
    return DRACEL_OK;
}

static bool is_hex(char ch)
{
    return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
}

/* JSON grammar states of the pre-scan */
enum { J_VALUE, J_VALUE_OR_CLOSE, J_KEY, J_KEY_OR_CLOSE, J_COLON, J_COMMA_OR_CLOSE, J_END };

#define JSON_MAX_NUMBER 63 /* cJSON copies at most 63 characters of a number */

static dracel_status jsyntax(dc_ld *c, const char *p, size_t len, size_t i, uint32_t line,
                             const char *what)
{
    c->fail_col = dc_ld_col_at(p, len, i);
    return dc_ld_fail(c, line, "JSON syntax error: %s", what);
}

static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char ch = p[k];
        v = v * 16 + (unsigned)(ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
    }
    return v;
}

/* The pre-scan (see the file comment): the whole JSON grammar, so that cJSON only ever sees valid
 * JSON, plus the side tables (value tokens and key lines in document order). */
static dracel_status json_scan(dc_ld *c, const char *p, size_t len)
{
    size_t i = 0;
    uint32_t line = 1, depth = 0;
    int state = J_VALUE;
    unsigned char stack[DC_LD_HARD_DEPTH + RAW_MAX_DEPTH + 1];
    stack[0] = 0;
    /* the last key scanned (the key of the value that follows it) */
    bool key_opaque = false, key_parameters = false;
    /* a `parameters` value being scanned: where it starts, its depth, the tokens before it */
    size_t raw_at = SIZE_MAX;
    uint32_t raw_depth = 0, raw_line = 0;
    size_t raw_jv = 0, raw_jk = 0;
    bool raw_deep = false;
    while (i < len) {
        char ch = p[i];
        if (ch == '\n') {
            line++;
            i++;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            i++;
            continue;
        }
        if (state == J_END)
            return jsyntax(c, p, len, i, line, "unexpected data after the JSON value");
        if (ch == '}' || ch == ']') {
            bool obj = ch == '}';
            if (!(state == J_COMMA_OR_CLOSE || (obj && state == J_KEY_OR_CLOSE) ||
                  (!obj && state == J_VALUE_OR_CLOSE)) ||
                depth == 0 || (stack[depth] & S_OBJ) != obj)
                return jsyntax(c, p, len, i, line, obj ? "unexpected '}'" : "unexpected ']'");
            if (raw_at != SIZE_MAX && depth == raw_depth) {
                if (raw_deep) { /* one token for it all, none of its own */
                    c->njv = raw_jv;
                    c->njk = raw_jk;
                    DC_TRY(jv_push(c, (uint32_t)raw_at, (uint32_t)(i + 1 - raw_at), raw_line));
                    c->jv[c->njv - 1].raw = true;
                    c->nraw++;
                }
                raw_at = SIZE_MAX;
            }
            depth--;
            state = depth ? J_COMMA_OR_CLOSE : J_END;
            i++;
            continue;
        }
        if (ch == ',') {
            if (state != J_COMMA_OR_CLOSE)
                return jsyntax(c, p, len, i, line, "unexpected ','");
            state = stack[depth] & S_OBJ ? J_KEY : J_VALUE;
            i++;
            continue;
        }
        if (ch == ':') {
            if (state != J_COLON)
                return jsyntax(c, p, len, i, line, "unexpected ':'");
            state = J_VALUE;
            i++;
            continue;
        }
        bool key = state == J_KEY || state == J_KEY_OR_CLOSE;
        if (state == J_COLON)
            return jsyntax(c, p, len, i, line, "expected ':' after an object key");
        if (state == J_COMMA_OR_CLOSE)
            return jsyntax(c, p, len, i, line,
                           stack[depth] & S_OBJ ? "expected ',' or '}'" : "expected ',' or ']'");
        if (key && ch != '"')
            return jsyntax(c, p, len, i, line, "expected a string (an object key)");
        /* a value (or a key) starts here */
        if (ch == '{' || ch == '[') {
            bool in_obj = depth && (stack[depth] & S_OBJ);
            if (raw_at == SIZE_MAX && in_obj && (stack[depth] & S_OPAQUE) && key_parameters) {
                raw_at = i;
                raw_depth = depth + 1;
                raw_line = line;
                raw_jv = c->njv;
                raw_jk = c->njk;
                raw_deep = false;
            }
            if (++depth > c->max_depth) {
                if (raw_at == SIZE_MAX || depth - raw_depth >= RAW_MAX_DEPTH)
                    return dc_ld_fail(c, line, "nesting deeper than %u", c->max_depth);
                raw_deep = true;
            }
            stack[depth] = (unsigned char)((ch == '{' ? S_OBJ : 0) |
                                           (in_obj && key_opaque && ch == '{' ? S_OPAQUE : 0));
            key_opaque = key_parameters = false;
            DC_TRY(jv_push(c, (uint32_t)i, 1, line));
            state = ch == '{' ? J_KEY_OR_CLOSE : J_VALUE_OR_CLOSE;
            i++;
            continue;
        }
        size_t st = i;
        if (ch == '"') {
            i++;
            for (;;) {
                if (i >= len)
                    return jsyntax(c, p, len, i, line, "unterminated string");
                unsigned char x = (unsigned char)p[i];
                if (x == '"') {
                    i++;
                    break;
                }
                if (x < 0x20)
                    return jsyntax(c, p, len, i, line, "control character in string");
                if (x != '\\') {
                    i++;
                    continue;
                }
                char e = i + 1 < len ? p[i + 1] : '\0';
                if (e != 'u') {
                    if (!e || !strchr("\"\\/bfnrt", e))
                        return jsyntax(c, p, len, i, line, "invalid escape in string");
                    i += 2;
                    continue;
                }
                if (i + 5 >= len || !is_hex(p[i + 2]) || !is_hex(p[i + 3]) || !is_hex(p[i + 4]) ||
                    !is_hex(p[i + 5]))
                    return jsyntax(c, p, len, i, line, "invalid \\u escape");
                unsigned u = hex4(p + i + 2);
                if (u == 0)
                    return dc_ld_fail(c, line, "JSON string contains \\u0000 (not supported)");
                if (u >= 0xDC00 && u <= 0xDFFF)
                    return jsyntax(c, p, len, i, line, "invalid \\u escape (a lone low surrogate)");
                i += 6;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (i + 5 >= len || p[i] != '\\' || p[i + 1] != 'u' || !is_hex(p[i + 2]) ||
                        !is_hex(p[i + 3]) || !is_hex(p[i + 4]) || !is_hex(p[i + 5]) ||
                        hex4(p + i + 2) < 0xDC00 || hex4(p + i + 2) > 0xDFFF)
                        return jsyntax(c, p, len, i, line, "invalid \\u escape (a lone high surrogate)");
                    i += 6;
                }
            }
            if (key) {
                DC_TRY(jk_push(c, line));
                key_opaque = i - st == 8 && memcmp(p + st, "\"opaque\"", 8) == 0;
                key_parameters = i - st == 12 && memcmp(p + st, "\"parameters\"", 12) == 0;
                state = J_COLON;
                continue;
            }
        } else if (ch == 't' || ch == 'f' || ch == 'n') {
            const char *lit = ch == 't' ? "true" : ch == 'f' ? "false" : "null";
            size_t n = strlen(lit);
            if (len - i < n || memcmp(p + i, lit, n) != 0) {
                c->fail_col = dc_ld_col_at(p, len, i);
                return dc_ld_fail(c, line, "JSON syntax error: unexpected %s",
                                  dc_ld_qs(c, 0, p + i, len - i < 8 ? len - i : 8, true));
            }
            i += n;
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            if (p[i] == '-')
                i++;
            if (i < len && p[i] == '0') {
                i++;
            } else if (i < len && p[i] >= '1' && p[i] <= '9') {
                while (i < len && p[i] >= '0' && p[i] <= '9')
                    i++;
            } else {
                return jsyntax(c, p, len, i, line, "invalid number");
            }
            if (i < len && p[i] == '.') {
                size_t d = ++i;
                while (i < len && p[i] >= '0' && p[i] <= '9')
                    i++;
                if (i == d)
                    return jsyntax(c, p, len, i, line, "invalid number");
            }
            if (i < len && (p[i] == 'e' || p[i] == 'E')) {
                i++;
                if (i < len && (p[i] == '+' || p[i] == '-'))
                    i++;
                size_t d = i;
                while (i < len && p[i] >= '0' && p[i] <= '9')
                    i++;
                if (i == d)
                    return jsyntax(c, p, len, i, line, "invalid number");
            }
            if (i < len && (p[i] == '.' || (p[i] >= '0' && p[i] <= '9')))
                return jsyntax(c, p, len, i, line, "invalid number");
            if (i - st > JSON_MAX_NUMBER)
                return dc_ld_fail(c, line, "JSON number longer than %u characters (not supported)",
                                  JSON_MAX_NUMBER);
        } else {
            c->fail_col = dc_ld_col_at(p, len, i);
            return dc_ld_fail(c, line, "JSON syntax error: unexpected %s",
                              dc_ld_qs(c, 0, p + i, 1, true));
        }
        DC_TRY(jv_push(c, (uint32_t)st, (uint32_t)(i - st), line));
        key_opaque = key_parameters = false;
        state = depth ? J_COMMA_OR_CLOSE : J_END;
    }
    if (state != J_END)
        return jsyntax(c, p, len, i, line, "unexpected end of input");
    return DRACEL_OK;
}

typedef struct jwalk {
    const char *base;
    size_t vi, ki;
} jwalk;

static dracel_status jconv(dc_ld *c, jwalk *w, const cJSON *x, dc_tnode *out)
{
    if (w->vi >= c->njv)
        return dc_ld_fail(c, 0, "internal error: JSON token mismatch");
    const dc_jtok *t = &c->jv[w->vi++];
    memset(out, 0, sizeof *out);
    out->line = t->line;
    out->off = t->off;
    char first = w->base[t->off];
    if (t->raw) {
        if ((x->type & 0xFF) != cJSON_String)
            return dc_ld_fail(c, t->line, "internal error: JSON token mismatch");
        out->t = DC_TN_RAW;
        out->s = w->base + t->off;
        out->n = t->len;
        return DRACEL_OK;
    }
    switch (x->type & 0xFF) {
    case cJSON_False:
    case cJSON_True:
        if (first != 't' && first != 'f')
            break;
        out->t = DC_TN_BOOL;
        out->b = (x->type & 0xFF) == cJSON_True;
        out->s = first == 't' ? "true" : "false";
        out->n = (uint32_t)strlen(out->s);
        return DRACEL_OK;
    case cJSON_NULL:
        if (first != 'n')
            break;
        out->t = DC_TN_NULL;
        out->s = "null";
        out->n = 4;
        return DRACEL_OK;
    case cJSON_Number: {
        if (first != '-' && !(first >= '0' && first <= '9'))
            break;
        const char *z = w->base + t->off; /* the raw token (not NUL-terminated) */
        out->s = z;
        out->n = t->len;
        if (memchr(z, '.', t->len) || memchr(z, 'e', t->len) || memchr(z, 'E', t->len)) {
            out->t = DC_TN_FLOAT;
        } else {
            out->t = DC_TN_INT;
            out->iok = dc_ld_dec_i64(z, t->len, &out->i);
        }
        return DRACEL_OK;
    }
    case cJSON_String:
        if (first != '"' || !x->valuestring)
            break;
        out->t = DC_TN_STR;
        out->s = x->valuestring;
        out->n = (uint32_t)strlen(x->valuestring);
        return DRACEL_OK;
    case cJSON_Array:
    case cJSON_Object: {
        bool obj = (x->type & 0xFF) == cJSON_Object;
        if (first != (obj ? '{' : '['))
            break;
        uint32_t n = 0;
        for (const cJSON *k = x->child; k; k = k->next)
            n++;
        out->t = obj ? DC_TN_MAP : DC_TN_SEQ;
        out->n = n;
        if (n) {
            out->kids = dc_arena_alloc(&c->doc, (size_t)n * sizeof *out->kids);
            if (!out->kids)
                return dc_ld_oom(c);
        }
        uint32_t i = 0;
        for (const cJSON *k = x->child; k; k = k->next, i++) {
            dc_tent *e = &out->kids[i];
            e->k = NULL;
            e->klen = e->kline = 0;
            if (obj) {
                if (!k->string || w->ki >= c->njk)
                    return dc_ld_fail(c, 0, "internal error: JSON key mismatch");
                e->k = k->string;
                e->klen = (uint32_t)strlen(k->string);
                e->kline = c->jk[w->ki++];
            }
            DC_TRY(jconv(c, w, k, &e->v));
        }
        return DRACEL_OK;
    }
    default:
        break;
    }
    return dc_ld_fail(c, t->line, "internal error: JSON token mismatch");
}

/* The library's one piece of global state: see load_json. */
static pthread_mutex_t cjson_parse_lock = PTHREAD_MUTEX_INITIALIZER;

/* buf[len] is '\0'. */
dracel_status dc_ld_load_json(dc_ld *c, const char *buf, size_t len)
{
    size_t bad = dc_utf8_check((const unsigned char *)buf, len);
    if (bad < len) {
        c->fail_col = dc_ld_col_at(buf, len, bad);
        return dc_ld_fail(c, dc_ld_line_at(buf, len, bad), buf[bad] ? "invalid UTF-8 in JSON text"
                                                        : "NUL byte in JSON text");
    }
    c->njv = c->njk = c->nraw = 0;
    DC_TRY(json_scan(c, buf, len));
    /* cJSON reads a copy with "" in place of each raw value (the same length: the offsets
     * hold); the tree points into buf. */
    char *text = NULL;
    if (c->nraw) {
        if (!(text = dc_malloc(c->a, len + 1)))
            return dc_ld_oom(c);
        memcpy(text, buf, len + 1);
        for (size_t k = 0; k < c->njv; k++)
            if (c->jv[k].raw) {
                memset(text + c->jv[k].off, ' ', c->jv[k].len);
                text[c->jv[k].off] = text[c->jv[k].off + 1] = '"';
            }
    }
    /* Every cJSON_Parse* writes cJSON's one process-wide error pointer (global_error): two
     * threads parsing at once race on it. This is the library's only call to cJSON's parser,
     * so one lock here serialises them all (docs/api.md, "Threads"); the scan above, the tree
     * and everything after run in parallel. */
    pthread_mutex_lock(&cjson_parse_lock);
    cJSON *root = cJSON_ParseWithLengthOpts(text ? text : buf, len + 1, NULL, 1);
    pthread_mutex_unlock(&cjson_parse_lock);
    if (text)
        dc_free(c->a, text, len + 1);
    if (!root) /* the text passed the full grammar check: cJSON ran out of memory */
        return dc_ld_oom(c);
    jwalk w = {buf, 0, 0};
    dc_tnode tree;
    dracel_status st = jconv(c, &w, root, &tree);
    if (st == DRACEL_OK && (w.vi != c->njv || w.ki != c->njk))
        st = dc_ld_fail(c, 0, "internal error: JSON token mismatch");
    if (st == DRACEL_OK)
        st = c->per_doc ? c->per_doc(c, &tree) : dc_ld_dispatch(c, &tree, 0);
    cJSON_Delete(root);
    return st;
}
