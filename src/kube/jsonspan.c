/*
 * jsonspan.c: the JSON span scanner (jsonspan.h). Two walkers: js_skip validates a value and
 * returns where it ends, iteratively, its nesting in a bit stack (1: object, 0: array) of
 * JS_MAX_DEPTH bits, so that hostile input cannot exhaust the C stack; fast_skip, for
 * documents validated already, only matches brackets and skips strings, and is bounded by the
 * span it is given whatever it reads. Member lookup and array iteration run on either.
 */
#include "jsonspan.h"

#include <stdint.h>
#include <string.h>

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const char *s, size_t n, size_t p)
{
    while (p < n && is_ws(s[p]))
        p++;
    return p;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The bytes that may stand in a string as they are: not '"', '\\' or a control character. */
static const unsigned char plain[256] = {
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
    R16(0), R16(0),                                     /* 0x00-0x1f */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,     /* 0x20-0x2f: '"' */
    R16(1), R16(1),                                     /* 0x30-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,     /* 0x50-0x5f: '\\' */
    R16(1), R16(1), R16(1), R16(1), R16(1), R16(1), R16(1), R16(1), R16(1), R16(1),
#undef R16
};

/* A string starting at s[p] == '"': returns the offset past the closing quote, or 0 when
 * invalid (0 is never a valid end). */
static size_t skip_string(const char *s, size_t n, size_t p)
{
    p++;
    for (;;) {
        while (p < n && plain[(unsigned char)s[p]])
            p++;
        if (p >= n)
            return 0;
        unsigned char c = (unsigned char)s[p];
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return 0;
        if (++p >= n)
            return 0;
        switch (s[p]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            p++;
            break;
        case 'u':
            if (n - p < 5)
                return 0;
            for (int i = 1; i <= 4; i++)
                if (hexval(s[p + i]) < 0)
                    return 0;
            p += 5;
            break;
        default:
            return 0;
        }
    }
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? at s[p]: the offset past it, or 0. */
static size_t skip_number(const char *s, size_t n, size_t p)
{
    if (p < n && s[p] == '-')
        p++;
    if (p >= n)
        return 0;
    if (s[p] == '0') {
        p++;
    } else if (s[p] >= '1' && s[p] <= '9') {
        while (p < n && s[p] >= '0' && s[p] <= '9')
            p++;
    } else {
        return 0;
    }
    if (p < n && s[p] == '.') {
        p++;
        if (p >= n || s[p] < '0' || s[p] > '9')
            return 0;
        while (p < n && s[p] >= '0' && s[p] <= '9')
            p++;
    }
    if (p < n && (s[p] == 'e' || s[p] == 'E')) {
        p++;
        if (p < n && (s[p] == '+' || s[p] == '-'))
            p++;
        if (p >= n || s[p] < '0' || s[p] > '9')
            return 0;
        while (p < n && s[p] >= '0' && s[p] <= '9')
            p++;
    }
    return p;
}

static size_t skip_literal(const char *s, size_t n, size_t p, const char *word)
{
    size_t k = strlen(word);
    return n - p >= k && memcmp(s + p, word, k) == 0 ? p + k : 0;
}

/* Is the container at depth d (0-based) of the bit stack an object? */
#define IS_OBJ(stack, d) (((stack)[(d) / 8] >> ((d) % 8)) & 1u)

int js_skip(const char *s, size_t n, size_t *pos)
{
    uint8_t stack[JS_MAX_DEPTH / 8] = {0};
    int depth = 0;
    size_t p = skip_ws(s, n, *pos), e;
    for (;;) {
        /* here a value starts at s[p] */
        if (p >= n)
            goto fail;
        switch (s[p]) {
        case '{':
        case '[':
            if (depth == JS_MAX_DEPTH)
                goto fail;
            if (s[p] == '{')
                stack[depth / 8] |= (uint8_t)(1u << (depth % 8));
            else
                stack[depth / 8] &= (uint8_t)~(1u << (depth % 8));
            depth++;
            p = skip_ws(s, n, p + 1);
            if (p < n && (s[p] == '}' || s[p] == ']')) {
                if (s[p] != (IS_OBJ(stack, depth - 1) ? '}' : ']'))
                    goto fail;
                depth--;
                p++;
                goto after_value;
            }
            if (IS_OBJ(stack, depth - 1))
                goto member;
            continue;
        case '"':
            e = skip_string(s, n, p);
            break;
        case 't':
            e = skip_literal(s, n, p, "true");
            break;
        case 'f':
            e = skip_literal(s, n, p, "false");
            break;
        case 'n':
            e = skip_literal(s, n, p, "null");
            break;
        default:
            e = skip_number(s, n, p);
            break;
        }
        if (e == 0)
            goto fail;
        p = e;
    after_value:
        if (depth == 0) {
            *pos = p;
            return 0;
        }
        p = skip_ws(s, n, p);
        if (p >= n)
            goto fail;
        {
            bool obj = IS_OBJ(stack, depth - 1);
            if (s[p] == ',') {
                p = skip_ws(s, n, p + 1);
                if (obj)
                    goto member;
                continue;
            }
            if (s[p] != (obj ? '}' : ']'))
                goto fail;
            depth--;
            p++;
            goto after_value;
        }
    member:
        /* a member name, a colon, then the value */
        if (p >= n || s[p] != '"' || (e = skip_string(s, n, p)) == 0)
            goto fail;
        p = skip_ws(s, n, e);
        if (p >= n || s[p] != ':')
            goto fail;
        p = skip_ws(s, n, p + 1);
    }
fail:
    *pos = p;
    return -1;
}

bool js_valid(const char *s, size_t n)
{
    size_t p = 0;
    return js_skip(s, n, &p) == 0 && skip_ws(s, n, p) == n;
}

int js_value(const char *s, size_t n, size_t *pos, js_span *v)
{
    size_t p = skip_ws(s, n, *pos);
    size_t start = p;
    if (js_skip(s, n, &p) != 0) {
        *pos = p;
        return -1;
    }
    v->off = start;
    v->len = p - start;
    *pos = p;
    return 0;
}

enum { BAD_ESCAPE = 0xFFFFFFFFu };

/* Four hex digits at s[p..p+4) (inside end): their value, or BAD_ESCAPE. */
static uint32_t hex4(const char *s, size_t end, size_t p)
{
    if (end - p < 4)
        return BAD_ESCAPE;
    uint32_t u = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(s[p + i]);
        if (h < 0)
            return BAD_ESCAPE;
        u = u << 4 | (uint32_t)h;
    }
    return u;
}

/* Decode one escape at s[*p] == '\\', inside end: the code point, *p past it; a \u surrogate
 * pair is joined and a lone surrogate gives U+FFFD. BAD_ESCAPE for an escape that is not one
 * (only the fast walk, which does not validate names, can meet one). */
static uint32_t decode_escape(const char *s, size_t end, size_t *p)
{
    if (end - *p < 2) {
        *p = end;
        return BAD_ESCAPE;
    }
    char c = s[*p + 1];
    *p += 2;
    switch (c) {
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case '"': case '\\': case '/': return (unsigned char)c;
    case 'u': break;
    default: return BAD_ESCAPE;
    }
    uint32_t u = hex4(s, end, *p);
    if (u == BAD_ESCAPE) {
        *p = end;
        return BAD_ESCAPE;
    }
    *p += 4;
    if (u >= 0xDC00 && u <= 0xDFFF)
        return 0xFFFD;
    if (u >= 0xD800 && u <= 0xDBFF) {
        if (end - *p >= 6 && s[*p] == '\\' && s[*p + 1] == 'u') {
            uint32_t lo = hex4(s, end, *p + 2);
            if (lo != BAD_ESCAPE && lo >= 0xDC00 && lo <= 0xDFFF) {
                *p += 6;
                return 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            }
        }
        return 0xFFFD;
    }
    return u;
}

static size_t put_utf8(char *out, uint32_t u)
{
    if (u < 0x80) {
        out[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        out[0] = (char)(0xC0 | u >> 6);
        out[1] = (char)(0x80 | (u & 0x3F));
        return 2;
    }
    if (u < 0x10000) {
        out[0] = (char)(0xE0 | u >> 12);
        out[1] = (char)(0x80 | (u >> 6 & 0x3F));
        out[2] = (char)(0x80 | (u & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | u >> 18);
    out[1] = (char)(0x80 | (u >> 12 & 0x3F));
    out[2] = (char)(0x80 | (u >> 6 & 0x3F));
    out[3] = (char)(0x80 | (u & 0x3F));
    return 4;
}

/* One code point of a name compared case-insensitively, as Go's encoding/json matches field
 * names (ASCII letters fold; so do U+017F LONG S to 's' and U+212A KELVIN SIGN to 'k', the two
 * non-ASCII letters whose simple fold is ASCII). Returns the ASCII byte to compare, or 0. */
static int fold_ascii(uint32_t u)
{
    if (u == 0x17F)
        return 's';
    if (u == 0x212A)
        return 'k';
    if (u >= 'A' && u <= 'Z')
        return (int)(u - 'A' + 'a');
    return u < 0x80 ? (int)u : 0;
}

/* Is the (valid) string literal s[a..b), quotes included, equal to key once decoded
 * (case-insensitively when fold: key must be ASCII then)? */
static bool name_is(const char *s, size_t a, size_t b, const char *key, bool fold)
{
    size_t klen = strlen(key);
    a++;
    b--;
    if (!fold && !memchr(s + a, '\\', b - a))
        return b - a == klen && memcmp(s + a, key, klen) == 0;
    size_t k = 0;
    while (a < b) {
        char buf[4];
        size_t m;
        uint32_t u;
        if (s[a] == '\\') {
            u = decode_escape(s, b, &a);
            if (u == BAD_ESCAPE)
                return false;
            m = put_utf8(buf, u);
        } else if (fold && (unsigned char)s[a] >= 0x80) {
            /* a multibyte character: decode it for folding */
            unsigned char c = (unsigned char)s[a];
            size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            if (a + len > b)
                return false;
            u = len == 2 ? (uint32_t)(c & 0x1F) : len == 3 ? (uint32_t)(c & 0x0F) : (uint32_t)(c & 0x07);
            for (size_t i = 1; i < len; i++)
                u = u << 6 | ((unsigned char)s[a + i] & 0x3F);
            memcpy(buf, s + a, len);
            m = len;
            a += len;
        } else {
            u = (unsigned char)s[a];
            buf[0] = s[a++];
            m = 1;
        }
        if (fold) {
            int f = fold_ascii(u);
            if (!f || k >= klen || fold_ascii((unsigned char)key[k]) != f)
                return false;
            k++;
            continue;
        }
        if (klen - k < m || memcmp(key + k, buf, m) != 0)
            return false;
        k += m;
    }
    return k == klen;
}

/* ---- The fast path, for spans of a document already validated: brackets are matched and
 * strings skipped, nothing else is checked. On any input it stays inside [p, n) and ends. */

/* '"' and '\\': where the fast skipper stops inside a string. */
static const unsigned char string_stop[256] = {['"'] = 1, ['\\'] = 1};

/* '"', '{', '}', '[', ']': where the fast skipper stops. */
static const unsigned char structural[256] = {
    ['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1,
};

/* The string at s[p] == '"': the offset past its closing quote, or 0. */
static size_t fast_string(const char *s, size_t n, size_t p)
{
    for (p++;;) {
        /* a table loop, as skip_string's: compares per byte are slower */
        while (p < n && !string_stop[(unsigned char)s[p]])
            p++;
        if (p >= n)
            return 0;
        if (s[p] == '"')
            return p + 1;
        p += 2; /* a backslash and the byte it escapes (of \uXXXX, the rest is plain) */
    }
}

/* The value at s[p] (no whitespace before it): the offset past it, or 0. */
static size_t fast_skip(const char *s, size_t n, size_t p)
{
    if (p >= n)
        return 0;
    if (s[p] == '"')
        return fast_string(s, n, p);
    if (s[p] != '{' && s[p] != '[') {
        while (p < n && s[p] != ',' && s[p] != '}' && s[p] != ']' && !is_ws(s[p]))
            p++;
        return p;
    }
    size_t depth = 0;
    while (p < n) {
        while (p < n && !structural[(unsigned char)s[p]])
            p++;
        if (p >= n)
            break;
        switch (s[p]) {
        case '"':
            if ((p = fast_string(s, n, p)) == 0)
                return 0;
            continue;
        case '{':
        case '[':
            depth++;
            break;
        default:
            if (--depth == 0)
                return p + 1;
            break;
        }
        p++;
    }
    return 0;
}

/* A value at s[*pos] (after whitespace): its span, *pos past it. Validating unless fast. */
static int value_at(const char *s, size_t n, size_t *pos, js_span *v, bool fast)
{
    if (!fast)
        return js_value(s, n, pos, v);
    size_t p = skip_ws(s, n, *pos), e = fast_skip(s, n, p);
    if (e <= p)
        return -1;
    v->off = p;
    v->len = e - p;
    *pos = e;
    return 0;
}

/* The object at s[*pos] (no whitespace before it), below n: the members keys[] in vals, *pos
 * past the object. */
static int members_at(const char *s, size_t n, size_t *pos, const char *const *keys, size_t nkeys,
                      js_span *vals, bool fast, bool fold)
{
    for (size_t i = 0; i < nkeys; i++)
        vals[i] = (js_span){0, 0};
    size_t p = *pos;
    if (p >= n || s[p] != '{')
        return -1;
    p = skip_ws(s, n, p + 1);
    if (p < n && s[p] == '}') {
        *pos = p + 1;
        return 0;
    }
    for (;;) {
        size_t ks = p, ke;
        if (p >= n || s[p] != '"' || (ke = fast ? fast_string(s, n, p) : skip_string(s, n, p)) == 0)
            return -1;
        p = skip_ws(s, n, ke);
        if (p >= n || s[p] != ':')
            return -1;
        js_span val;
        p++;
        if (value_at(s, n, &p, &val, fast) != 0)
            return -1;
        for (size_t i = 0; i < nkeys; i++)
            if (name_is(s, ks, ke, keys[i], fold))
                vals[i] = val;
        p = skip_ws(s, n, p);
        if (p >= n)
            return -1;
        if (s[p] == '}') {
            *pos = p + 1;
            return 0;
        }
        if (s[p] != ',')
            return -1;
        p = skip_ws(s, n, p + 1);
    }
}

static int members(const char *s, js_span v, const char *const *keys, size_t nkeys, js_span *vals,
                   bool fast, bool fold)
{
    size_t p = v.off, n = v.off + v.len;
    if (members_at(s, n, &p, keys, nkeys, vals, fast, fold) != 0)
        return -1;
    return p == n ? 0 : -1;
}

int js_members(const char *s, js_span v, const char *const *keys, size_t nkeys, js_span *vals)
{
    return members(s, v, keys, nkeys, vals, false, false);
}

int js_members_valid(const char *s, js_span v, const char *const *keys, size_t nkeys, js_span *vals)
{
    return members(s, v, keys, nkeys, vals, true, false);
}

int js_members_fold(const char *s, js_span v, const char *const *keys, size_t nkeys,
                    js_span *vals)
{
    return members(s, v, keys, nkeys, vals, false, true);
}

int js_members_fold_valid(const char *s, js_span v, const char *const *keys, size_t nkeys,
                          js_span *vals)
{
    return members(s, v, keys, nkeys, vals, true, true);
}

static int array_begin(const char *s, js_span v, js_iter *it, bool fast)
{
    if (v.len == 0 || s[v.off] != '[')
        return -1;
    it->pos = v.off + 1;
    it->end = v.off + v.len;
    it->first = true;
    it->fast = fast;
    return 0;
}

int js_array_begin(const char *s, js_span v, js_iter *it)
{
    return array_begin(s, v, it, false);
}

int js_array_begin_valid(const char *s, js_span v, js_iter *it)
{
    return array_begin(s, v, it, true);
}

/* Past the separator before the next element: 1 with *p at it, 0 at the end, -1 invalid. */
static int array_sep(const char *s, js_iter *it, size_t *p)
{
    size_t n = it->end;
    *p = skip_ws(s, n, it->pos);
    if (*p >= n)
        return -1;
    if (s[*p] == ']') {
        it->pos = *p;
        return *p + 1 == n ? 0 : -1;
    }
    if (!it->first) {
        if (s[*p] != ',')
            return -1;
        *p = skip_ws(s, n, *p + 1);
    }
    return 1;
}

size_t js_array_count_valid(const char *s, js_span v)
{
    if (v.len < 2 || s[v.off] != '[')
        return 0;
    size_t p = v.off + 1, end = v.off + v.len - 1, depth = 0, commas = 0;
    bool any = false;
    while (p < end) {
        unsigned char c = (unsigned char)s[p];
        if (c == '"') {
            if ((p = fast_string(s, end, p)) == 0)
                break;
            any = true;
            continue;
        }
        if (c == '[' || c == '{')
            depth++;
        else if ((c == ']' || c == '}') && depth)
            depth--;
        else if (c == ',' && depth == 0)
            commas++;
        if (!is_ws((char)c))
            any = true;
        p++;
    }
    return any ? commas + 1 : 0;
}

int js_array_next(const char *s, js_iter *it, js_span *elem)
{
    size_t p;
    int r = array_sep(s, it, &p);
    if (r != 1)
        return r;
    if (value_at(s, it->end, &p, elem, it->fast) != 0)
        return -1;
    it->first = false;
    it->pos = p;
    return 1;
}

static int next_object(const char *s, js_iter *it, const char *const *keys, size_t nkeys,
                       js_span *vals, js_span *elem, bool fold)
{
    size_t p;
    int r = array_sep(s, it, &p);
    if (r != 1)
        return r;
    size_t start = p;
    if (members_at(s, it->end, &p, keys, nkeys, vals, it->fast, fold) != 0)
        return -1;
    elem->off = start;
    elem->len = p - start;
    it->first = false;
    it->pos = p;
    return 1;
}

int js_array_next_object(const char *s, js_iter *it, const char *const *keys, size_t nkeys,
                         js_span *vals, js_span *elem)
{
    return next_object(s, it, keys, nkeys, vals, elem, false);
}

int js_array_next_object_fold(const char *s, js_iter *it, const char *const *keys, size_t nkeys,
                              js_span *vals, js_span *elem)
{
    return next_object(s, it, keys, nkeys, vals, elem, true);
}

static int object_begin(const char *s, js_span v, js_iter *it, bool fast)
{
    if (v.len == 0 || s[v.off] != '{')
        return -1;
    it->pos = v.off + 1;
    it->end = v.off + v.len;
    it->first = true;
    it->fast = fast;
    return 0;
}

int js_object_begin(const char *s, js_span v, js_iter *it)
{
    return object_begin(s, v, it, false);
}

int js_object_begin_valid(const char *s, js_span v, js_iter *it)
{
    return object_begin(s, v, it, true);
}

int js_object_next(const char *s, js_iter *it, js_span *key, js_span *val)
{
    size_t n = it->end, p = skip_ws(s, n, it->pos);
    if (p >= n)
        return -1;
    if (s[p] == '}') {
        it->pos = p;
        return p + 1 == n ? 0 : -1;
    }
    if (!it->first) {
        if (s[p] != ',')
            return -1;
        p = skip_ws(s, n, p + 1);
    }
    size_t ke;
    if (p >= n || s[p] != '"' ||
        (ke = it->fast ? fast_string(s, n, p) : skip_string(s, n, p)) == 0)
        return -1;
    key->off = p;
    key->len = ke - p;
    p = skip_ws(s, n, ke);
    if (p >= n || s[p] != ':')
        return -1;
    p++;
    if (value_at(s, n, &p, val, it->fast) != 0)
        return -1;
    it->first = false;
    it->pos = p;
    return 1;
}

bool js_is_string(const char *s, js_span v)
{
    return v.len > 0 && s[v.off] == '"';
}

bool js_is_object(const char *s, js_span v)
{
    return v.len > 0 && s[v.off] == '{';
}

bool js_is_array(const char *s, js_span v)
{
    return v.len > 0 && s[v.off] == '[';
}

int js_string(const char *s, js_span v, char *out, size_t *outlen)
{
    if (!js_is_string(s, v))
        return -1;
    /* The usual string has no escape: one pass finds its end, then one copy. */
    size_t p = v.off + 1, end = v.off + v.len - 1, k = 0;
    while (p < end && plain[(unsigned char)s[p]])
        p++;
    if (p == end && v.len >= 2 && s[end] == '"') {
        memcpy(out, s + v.off + 1, end - v.off - 1);
        out[end - v.off - 1] = '\0';
        *outlen = end - v.off - 1;
        return 0;
    }
    if (skip_string(s, v.off + v.len, v.off) != v.off + v.len)
        return -1;
    p = v.off + 1;
    while (p < end) {
        if (s[p] != '\\') {
            out[k++] = s[p++];
            continue;
        }
        uint32_t u = decode_escape(s, end, &p);
        if (u == 0 || u == BAD_ESCAPE)
            return -1;
        k += put_utf8(out + k, u);
    }
    out[k] = '\0';
    *outlen = k;
    return 0;
}
