/*
 * common.c: the default allocator, allocation wrappers, the byte buffer and UTF-8 helpers.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *std_malloc(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n ? n : 1);
}

static void *std_realloc(void *ctx, void *p, size_t old, size_t n)
{
    (void)ctx;
    (void)old;
    return realloc(p, n ? n : 1);
}

static void std_free(void *ctx, void *p, size_t n)
{
    (void)ctx;
    (void)n;
    free(p);
}

const dracel_alloc dc_default_alloc = {std_malloc, std_realloc, std_free, NULL};

const dracel_alloc *dc_alloc_of(const dracel_config *cfg)
{
    return cfg && cfg->size >= offsetof(dracel_config, alloc) + sizeof cfg->alloc && cfg->alloc
               ? cfg->alloc
               : &dc_default_alloc;
}

void *dc_malloc(const dracel_alloc *a, size_t n)
{
    return a->malloc(a->ctx, n);
}

void *dc_realloc(const dracel_alloc *a, void *p, size_t old, size_t n)
{
    if (!p)
        return a->malloc(a->ctx, n);
    return a->realloc(a->ctx, p, old, n);
}

void dc_free(const dracel_alloc *a, void *p, size_t n)
{
    if (p)
        a->free(a->ctx, p, n);
}

void dc_buf_init(dc_buf *b, const dracel_alloc *a)
{
    b->alloc = a;
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

void dc_buf_free(dc_buf *b)
{
    dc_free(b->alloc, b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = 0;
}

static bool buf_reserve(dc_buf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->oom = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    char *p = dc_realloc(b->alloc, b->data, b->cap, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void dc_buf_append(dc_buf *b, const void *p, size_t n)
{
    if (!buf_reserve(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void dc_buf_puts(dc_buf *b, const char *s)
{
    dc_buf_append(b, s, strlen(s));
}

void dc_buf_putc(dc_buf *b, char c)
{
    dc_buf_append(b, &c, 1);
}

void dc_buf_vprintf(dc_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !buf_reserve(b, (size_t)n)) {
        b->oom = true;
        return;
    }
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void dc_buf_printf(dc_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dc_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *dc_buf_take(dc_buf *b)
{
    if (b->oom) {
        dc_buf_free(b);
        return NULL;
    }
    /* Shrink to the exact size so that dracel_free_string can pass strlen+1 to the hook. */
    size_t n = b->len + 1;
    char *p = dc_malloc(b->alloc, n);
    if (p) {
        if (b->len)
            memcpy(p, b->data, b->len);
        p[b->len] = '\0';
    }
    dc_buf_free(b);
    return p;
}

int dc_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (n == 0)
        return 0;
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1F;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0F;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if ((size_t)len > n)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

int dc_utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t dc_utf8_check(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (s[i] >= 0x01 && s[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        int k = s[i] ? dc_utf8_decode(s + i, n - i, &cp) : 0;
        if (k == 0)
            return i;
        i += (size_t)k;
    }
    return n;
}
