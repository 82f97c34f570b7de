/*
 * test_common.c: the helpers of vm/common.c that the rest cannot show on their own: dc_sort
 * (stable, in place, any element size) against a simple reference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common.h"

/* An element: a key with few distinct values (many ties) and its original position; `pad`
 * makes some elements wider than dc_sort's 64-byte swap chunk. */
typedef struct elem {
    int key;
    unsigned seq;
} elem;

typedef struct wide {
    int key;
    unsigned seq;
    char pad[150];
} wide;

static int cmp_elem(const void *a, const void *b)
{
    const elem *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_wide(const void *a, const void *b)
{
    const wide *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

/* Sorted by key, and equal keys in their original order. */
static void check_stable(const elem *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        assert_true(v[i - 1].key <= v[i].key);
        if (v[i - 1].key == v[i].key)
            assert_true(v[i - 1].seq < v[i].seq);
    }
}

static void test_sort_shapes(void **state)
{
    (void)state;
    unsigned seed = 7;
    static const size_t sizes[] = {0, 1, 2, 3, 11, 12, 13, 24, 25, 100, 257, 1000, 4099};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        elem *v = malloc((n ? n : 1) * sizeof *v);
        assert_non_null(v);
        for (int shape = 0; shape < 6; shape++) {
            for (size_t i = 0; i < n; i++) {
                int k;
                switch (shape) {
                case 0: k = (int)(rnd(&seed) % 7); break;            /* many ties */
                case 1: k = (int)(rnd(&seed) % 100000); break;       /* few ties */
                case 2: k = (int)i; break;                           /* sorted */
                case 3: k = (int)(n - i); break;                     /* reversed */
                case 4: k = 3; break;                                /* all equal */
                default: k = (int)((i % 1024) < 300 ? i : i / 2); break; /* runs */
                }
                v[i] = (elem){k, (unsigned)i};
            }
            dc_sort(v, n, sizeof *v, cmp_elem);
            check_stable(v, n);
        }
        free(v);
    }
}

static void test_sort_wide_elements(void **state)
{
    (void)state;
    unsigned seed = 99;
    enum { N = 300 };
    wide *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < N; i++) {
        v[i].key = (int)(rnd(&seed) % 5);
        v[i].seq = (unsigned)i;
        memset(v[i].pad, (int)(i & 0x7F), sizeof v[i].pad);
    }
    dc_sort(v, N, sizeof *v, cmp_wide);
    for (size_t i = 0; i < N; i++) {
        if (i)
            assert_true(v[i - 1].key < v[i].key ||
                        (v[i - 1].key == v[i].key && v[i - 1].seq < v[i].seq));
        for (size_t k = 0; k < sizeof v[i].pad; k++) /* every byte moved with its element */
            assert_int_equal(v[i].pad[k], (char)(v[i].seq & 0x7F));
    }
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_shapes),
        cmocka_unit_test(test_sort_wide_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
