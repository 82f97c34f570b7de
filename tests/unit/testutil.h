/*
 * testutil.h: what the cmocka unit tests share (include it after <cmocka.h>):
 *   - the failing allocator of the allocation-failure sweeps: it fails the Nth call (malloc or
 *     realloc) and counts the live blocks and bytes, so that a test can check that every
 *     failure leaks nothing. Use: fail_alloc fa = {0, at, 0, 0};
 *     dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
 *   - slurp (a whole data file), same_str (two strings or two NULLs), to_sources (change to
 *     the source tree, where the data paths start).
 */
#ifndef TESTS_TESTUTIL_H
#define TESTS_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The whole file at path, NUL-terminated (a failed test when it cannot be read). */
static inline char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    p[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return p;
}

static inline void same_str(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

/* The data paths are relative to the source tree: make check runs in the build tree and sets
 * top_srcdir; by hand, TOP_SRCDIR (when the test is compiled with it) names the source tree it
 * was built from. Returns 0, or 1 after printing why it could not change there. */
static inline int to_sources(void)
{
    const char *top = getenv("top_srcdir");
#ifdef TOP_SRCDIR
    if (!top)
        top = TOP_SRCDIR;
#endif
    if (top && chdir(top) != 0) {
        perror(top);
        return 1;
    }
    return 0;
}

#endif
