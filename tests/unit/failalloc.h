/*
 * failalloc.h: the failing allocator of the unit tests' allocation-failure sweeps. It fails
 * the Nth call (malloc or realloc) and counts the live blocks and bytes, so that a test can
 * check that every failure leaks nothing. Use: fail_alloc fa = {0, at, 0, 0};
 * dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
 */
#ifndef TESTS_FAILALLOC_H
#define TESTS_FAILALLOC_H

#include <stdlib.h>

typedef struct fail_alloc {
    long calls, fail_at;
    long live_blocks;
    size_t live_bytes;
} fail_alloc;

static inline void *fa_malloc(void *ctx, size_t n)
{
    fail_alloc *f = ctx;
    if (++f->calls == f->fail_at)
        return NULL;
    void *p = malloc(n ? n : 1);
    if (p) {
        f->live_blocks++;
        f->live_bytes += n;
    }
    return p;
}

static inline void *fa_realloc(void *ctx, void *p, size_t old, size_t n)
{
    fail_alloc *f = ctx;
    if (++f->calls == f->fail_at)
        return NULL;
    void *q = realloc(p, n ? n : 1);
    if (q) {
        if (!p)
            f->live_blocks++;
        f->live_bytes += n - old;
    }
    return q;
}

static inline void fa_free(void *ctx, void *p, size_t n)
{
    fail_alloc *f = ctx;
    if (!p)
        return;
    f->live_blocks--;
    f->live_bytes -= n;
    free(p);
}

#endif
