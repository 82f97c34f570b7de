/* json.c: the JSON tools of dra-extender (src/extender/json.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* ---- UTF-8. */

/* The length of the valid UTF-8 sequence at s[0..n), or 0 when it is not one (overlong forms,
 * surrogates and code points past U+10FFFF are invalid, as Go's utf8.Valid judges). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t k;
    unsigned cp, min;
    if ((c & 0xE0) == 0xC0)
        k = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        k = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        k = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

/* ---- The pre-scan. */

#define R16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
/* Outside strings, the bytes the pre-scan looks at: brackets and '"'. */
static const unsigned char scan_stop[256] = {
    ['['] = 1, ['{'] = 1, [']'] = 1, ['}'] = 1, ['"'] = 1,
};
/* Inside strings, the bytes it passes over: printable ASCII but '"' and '\\'. */
static const unsigned char scan_plain[256] = {
    R16(0), R16(0),                                     /* 0x00-0x1f */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,     /* 0x20-0x2f: '"' */
    R16(1), R16(1),                                     /* 0x30-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,     /* 0x50-0x5f: '\\' */
    R16(1), R16(1),                                     /* 0x60-0x7f */
    R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), /* 0x80-0xff */
};
#undef R16

const char *json_prescan(const char *s, size_t len, unsigned max_depth, size_t *at)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned depth = 0;
    for (size_t i = 0; i < len;) {
        while (i < len && !scan_stop[p[i]])
            i++;
        if (i >= len)
            break;
        unsigned c = p[i];
        if (c == '[' || c == '{') {
            if (++depth > max_depth) {
                *at = i;
                return "nesting deeper than the limit";
            }
            i++;
        } else if (c == ']' || c == '}') {
            if (depth)
                depth--;
            i++;
        } else if (c == '"') {
            for (i++;;) {
                if (i >= len) {
                    *at = i;
                    return "unterminated string";
                }
                while (i < len && scan_plain[p[i]])
                    i++; /* the plain ASCII run */
                if (i >= len)
                    continue;
                c = p[i];
                if (c == '"') {
                    i++;
                    break;
                }
                if (c < 0x20) {
                    *at = i;
                    return "a control character inside a string";
                }
                if (c == '\\') {
                    if (i + 1 < len && p[i + 1] == 'u' && i + 6 <= len &&
                        memcmp(p + i + 2, "0000", 4) == 0) {
                        *at = i;
                        return "a NUL character (\\u0000) inside a string";
                    }
                    i += 2;
                    continue;
                }
                size_t k = utf8_seq(p + i, len - i);
                if (!k) {
                    *at = i;
                    return "invalid UTF-8 inside a string";
                }
                i += k;
            }
        } else {
            i++;
        }
    }
    return NULL;
}

/* ---- Output. */

void jb_init(jbuf *b)
{
    memset(b, 0, sizeof *b);
}

void jb_free(jbuf *b)
{
    free(b->data);
    jb_init(b);
}

char *jb_take(jbuf *b, size_t *len)
{
    jb_putc(b, '\0');
    char *d = b->oom ? NULL : b->data;
    if (len)
        *len = d ? b->len - 1 : 0;
    if (!d)
        free(b->data);
    jb_init(b);
    return d;
}

static bool grow(jbuf *b, size_t n)
{
    if (b->oom)
        return false;
    if (b->len + n <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) {
        if (cap > SIZE_MAX / 2) {
            b->oom = true;
            return false;
        }
        cap *= 2;
    }
    char *d = realloc(b->data, cap);
    if (!d) {
        b->oom = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

void jb_put(jbuf *b, const char *s, size_t n)
{
    if (n && grow(b, n)) {
        memcpy(b->data + b->len, s, n);
        b->len += n;
    }
}

void jb_puts(jbuf *b, const char *s)
{
    jb_put(b, s, strlen(s));
}

void jb_putc_grow(jbuf *b, char c)
{
    if (grow(b, 1))
        b->data[b->len++] = c;
}

void jb_reserve(jbuf *b, size_t n)
{
    grow(b, n);
}

void jb_uint(jbuf *b, uint64_t v)
{
    char d[20];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    if (grow(b, (size_t)n))
        while (n)
            b->data[b->len++] = d[--n];
}

void jb_printf(jbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        jb_put(b, small, (size_t)n);
        return;
    }
    if (!grow(b, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The bytes jb_str copies as they are: printable ASCII but '"', '\\', '<', '>' and '&'. */
static const unsigned char go_plain[256] = {
#define R16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
    R16(0), R16(0),                                     /* 0x00-0x1f */
    1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,     /* 0x20-0x2f: '"', '&' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1,     /* 0x30-0x3f: '<', '>' */
    R16(1),                                             /* 0x40-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,     /* 0x50-0x5f: '\\' */
    R16(1), R16(1),                                     /* 0x60-0x7f */
    R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), /* 0x80-0xff */
#undef R16
};

void jb_str(jbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    if (!grow(b, n + 2))
        return;
    b->data[b->len++] = '"';
    size_t run = 0; /* bytes copied as they are, flushed in one put */
    for (size_t i = 0; i < n;) {
        if (go_plain[p[i]]) {
            size_t j = i + 1;
            while (j < n && go_plain[p[j]])
                j++;
            run += j - i;
            i = j;
            continue;
        }
        unsigned c = p[i];
        const char *esc = NULL;
        char u[7];
        size_t k = 1;
        if (c >= 0x80) {
            k = utf8_seq(p + i, n - i);
            if (k == 3 && p[i] == 0xE2 && p[i + 1] == 0x80 && (p[i + 2] == 0xA8 || p[i + 2] == 0xA9))
                esc = p[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
            else if (k) {
                run += k;
                i += k;
                continue;
            } else {
                esc = "\xEF\xBF\xBD"; /* U+FFFD for an invalid byte */
                k = 1;
            }
        } else if (c == '"') {
            esc = "\\\"";
        } else if (c == '\\') {
            esc = "\\\\";
        } else if (c == '\n') {
            esc = "\\n";
        } else if (c == '\r') {
            esc = "\\r";
        } else if (c == '\t') {
            esc = "\\t";
        } else {
            u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0', u[4] = hex[c >> 4], u[5] = hex[c & 15];
            u[6] = '\0';
            esc = u;
        }
        jb_put(b, (const char *)p + i - run, run);
        run = 0;
        jb_puts(b, esc);
        i += k;
    }
    jb_put(b, (const char *)p + n - run, run);
    jb_putc(b, '"');
}

void jb_cstr(jbuf *b, const char *s)
{
    jb_str(b, s, strlen(s));
}
