/*
 * common.c: the default allocator, allocation wrappers, the byte buffer, dc_sort and UTF-8
 * helpers.
 *
 * The default allocator below is the one place in the library that calls malloc, realloc and
 * free (tests/nomalloc.sh fails the build's tests if any other object file refers to them).
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

/* ---- dc_sort: insertion sort of short runs, then runs merged pairwise in place. A merge of
 * [a, m) and [m, b) splits the longer run at its middle element x, finds where x belongs in the
 * other run (before the equal elements of the right run when x comes from the left, after the
 * equal elements of the left run when it comes from the right: stability), rotates the two
 * middle blocks into place and merges the two halves left on either side of x. */

#define SORT_RUN 12

static void swap_elems(char *x, char *y, size_t size)
{
    char tmp[64];
    while (size) {
        size_t k = size < sizeof tmp ? size : sizeof tmp;
        memcpy(tmp, x, k);
        memcpy(x, y, k);
        memcpy(y, tmp, k);
        x += k;
        y += k;
        size -= k;
    }
}

/* Reverse elements [i, j). */
static void reverse(char *base, size_t i, size_t j, size_t size)
{
    while (i + 1 < j) {
        j--;
        swap_elems(base + i * size, base + j * size, size);
        i++;
    }
}

typedef struct sorter {
    char *base;
    size_t size;
    int (*cmp)(const void *, const void *);
} sorter;

static int cmp_at(const sorter *s, size_t i, size_t j)
{
    return s->cmp(s->base + i * s->size, s->base + j * s->size);
}

static void merge_in_place(const sorter *s, size_t a, size_t m, size_t b)
{
    while (a < m && m < b) {
        if (cmp_at(s, m - 1, m) <= 0)
            return; /* already in order (often so: nearly sorted input) */
        if (b - a == 2) {
            if (cmp_at(s, m, a) < 0)
                swap_elems(s->base + a * s->size, s->base + m * s->size, s->size);
            return;
        }
        /* After the rotation below, [lo1, m) and [m, hi2) have traded places and the pivot x
         * sits at p, its final position: [a, p) holds what goes before x, (p, b) the rest. */
        size_t lo1, hi2, p;
        if (m - a >= b - m) {
            size_t x = a + (m - a) / 2, lo = m, hi = b;
            while (lo < hi) { /* the first element of the right run not below x */
                size_t h = lo + (hi - lo) / 2;
                if (cmp_at(s, h, x) < 0)
                    lo = h + 1;
                else
                    hi = h;
            }
            lo1 = x;
            hi2 = lo;
            p = x + (hi2 - m);
        } else {
            size_t x = m + (b - m) / 2, lo = a, hi = m;
            while (lo < hi) { /* the first element of the left run above x */
                size_t h = lo + (hi - lo) / 2;
                if (cmp_at(s, x, h) < 0)
                    hi = h;
                else
                    lo = h + 1;
            }
            lo1 = lo;
            hi2 = x + 1;
            p = lo1 + (x - m);
        }
        reverse(s->base, lo1, m, s->size);
        reverse(s->base, m, hi2, s->size);
        reverse(s->base, lo1, hi2, s->size);
        /* Left to merge: [a, lo1) with [lo1, p), and [p + 1, hi2) with [hi2, b). The smaller
         * recursively, the larger by looping: the depth stays O(log n). */
        if (p - a < b - p) {
            merge_in_place(s, a, lo1, p);
            a = p + 1;
            m = hi2;
        } else {
            merge_in_place(s, p + 1, hi2, b);
            b = p;
            m = lo1;
        }
    }
}

void dc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2 || size == 0)
        return;
    sorter s = {base, size, cmp};
    for (size_t a = 0; a < n; a += SORT_RUN) {
        size_t b = a + SORT_RUN < n ? a + SORT_RUN : n;
        for (size_t i = a + 1; i < b; i++)
            for (size_t j = i; j > a && cmp_at(&s, j, j - 1) < 0; j--)
                swap_elems(s.base + j * size, s.base + (j - 1) * size, size);
    }
    for (size_t w = SORT_RUN; w < n; w *= 2)
        for (size_t a = 0; a + w < n; a += 2 * w)
            merge_in_place(&s, a, a + w, a + 2 * w < n ? a + 2 * w : n);
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
