/*
 * test_lib.c: unit tests for the run-time function libraries (src/lib_strings.c,
 * src/lib_lists.c, src/lib_conv.c), called directly through their builtin tables with an
 * evaluation context. Expected values and error texts are cel-go's (google/cel-go ext/strings.go
 * and strings_test.go, ext/formatting.go, ext/lists.go, ext/sets.go, common/types; kubernetes
 * apiserver pkg/cel/library/lists.go) and the edge cases of reference/cel-edges.md.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers
 */

static int setup(void **state)
{
    dc_ectx *c = malloc(sizeof *c);
    if (!c)
        return -1;
    dc_ectx_init(c, NULL);
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    dc_ectx *c = *state;
    dc_ectx_free(c);
    free(c);
    return 0;
}

static const dc_builtin *find_fn(const char *name, bool member, uint32_t argc)
{
    const dc_builtin *tabs[] = {dc_lib_strings, dc_lib_lists, dc_lib_conv};
    const uint32_t counts[] = {dc_lib_strings_count, dc_lib_lists_count, dc_lib_conv_count};
    for (int t = 0; t < 3; t++)
        for (uint32_t i = 0; i < counts[t]; i++)
            if (tabs[t][i].member == member && tabs[t][i].argc == argc &&
                !strcmp(tabs[t][i].name, name))
                return &tabs[t][i];
    return NULL;
}

static dc_val callv(dc_ectx *c, const char *name, bool member, uint32_t argc, ...)
{
    const dc_builtin *b = find_fn(name, member, argc);
    if (!b)
        fail_msg("no builtin %s/%s/%u", name, member ? "member" : "global", argc);
    dc_val args[8];
    va_list ap;
    va_start(ap, argc);
    for (uint32_t i = 0; i < argc; i++)
        args[i] = va_arg(ap, dc_val);
    va_end(ap);
    return b->fn(c, args, argc);
}

/* Member call: M(c, "name", argc, receiver, args...); global call: G(...). */
#define M(c, name, argc, ...) callv((c), (name), true, (argc), __VA_ARGS__)
#define G(c, name, argc, ...) callv((c), (name), false, (argc), __VA_ARGS__)

static dc_val S(dc_ectx *c, const char *s)
{
    dc_str *p = dc_str_new(c, s, strlen(s));
    assert_non_null(p);
    return dc_strval(p);
}

static dc_val SN(dc_ectx *c, const char *s, size_t n)
{
    dc_str *p = dc_str_new(c, s, n);
    assert_non_null(p);
    return dc_strval(p);
}

static dc_val BY(dc_ectx *c, const char *s, size_t n)
{
    dc_str *p = dc_str_new(c, s, n);
    assert_non_null(p);
    return dc_bytesval(p);
}

static dc_val I(int64_t i) { return dc_int(i); }
static dc_val U(uint64_t u) { return dc_uint(u); }
static dc_val D(double d) { return dc_double(d); }
static dc_val BO(bool b) { return dc_bool(b); }

static dc_val L(dc_ectx *c, uint32_t n, ...)
{
    dc_list *l = dc_list_new(c, n);
    assert_non_null(l);
    va_list ap;
    va_start(ap, n);
    for (uint32_t i = 0; i < n; i++)
        l->v[i] = va_arg(ap, dc_val);
    va_end(ap);
    return dc_listval(l);
}

/* MAP(c, n, k1, v1, k2, v2, ...) */
static dc_val MAP(dc_ectx *c, uint32_t n, ...)
{
    dc_val k[16], v[16];
    assert_true(n <= 16);
    va_list ap;
    va_start(ap, n);
    for (uint32_t i = 0; i < n; i++) {
        k[i] = va_arg(ap, dc_val);
        v[i] = va_arg(ap, dc_val);
    }
    va_end(ap);
    dc_val m = dc_map_build(c, k, v, n);
    assert_int_equal(m.k, DC_K_MAP);
    return m;
}

static const char *kind_str(dc_val v)
{
    static const char *const names[] = {"null", "bool", "int", "uint", "double", "string",
                                        "bytes", "list", "map", "type", "optional", "quantity",
                                        "semver", "error"};
    return v.k < DC_K__COUNT ? names[v.k] : "?";
}

static void check_no_error(dc_val v, int line)
{
    if (v.k == DC_K_ERROR)
        fail_msg("line %d: unexpected error \"%s\"", line, v.u.e->msg);
}

static void check_str(dc_val v, const char *want, size_t wn, int line)
{
    check_no_error(v, line);
    if (v.k != DC_K_STRING)
        fail_msg("line %d: want string, got %s", line, kind_str(v));
    if (v.u.s->len != wn || memcmp(v.u.s->data, want, wn))
        fail_msg("line %d: want \"%.*s\", got \"%.*s\"", line, (int)wn, want, (int)v.u.s->len,
                 v.u.s->data);
    if (v.u.s->data[v.u.s->len] != '\0')
        fail_msg("line %d: string not NUL-terminated", line);
}

static void check_int(dc_val v, int64_t want, int line)
{
    check_no_error(v, line);
    if (v.k != DC_K_INT)
        fail_msg("line %d: want int, got %s", line, kind_str(v));
    if (v.u.i != want)
        fail_msg("line %d: want %lld, got %lld", line, (long long)want, (long long)v.u.i);
}

static void check_uint(dc_val v, uint64_t want, int line)
{
    check_no_error(v, line);
    if (v.k != DC_K_UINT)
        fail_msg("line %d: want uint, got %s", line, kind_str(v));
    if (v.u.u != want)
        fail_msg("line %d: want %llu, got %llu", line, (unsigned long long)want,
                 (unsigned long long)v.u.u);
}

static void check_double(dc_val v, double want, int line)
{
    check_no_error(v, line);
    if (v.k != DC_K_DOUBLE)
        fail_msg("line %d: want double, got %s", line, kind_str(v));
    bool same = isnan(want) ? isnan(v.u.d)
                            : (v.u.d == want && signbit(v.u.d) == signbit(want));
    if (!same)
        fail_msg("line %d: want %.17g, got %.17g", line, want, v.u.d);
}

static void check_bool(dc_val v, bool want, int line)
{
    check_no_error(v, line);
    if (v.k != DC_K_BOOL)
        fail_msg("line %d: want bool, got %s", line, kind_str(v));
    if (v.u.b != want)
        fail_msg("line %d: want %s", line, want ? "true" : "false");
}

static void check_err(dc_val v, const char *want, int line)
{
    if (v.k != DC_K_ERROR)
        fail_msg("line %d: want error \"%s\", got %s", line, want, kind_str(v));
    if (strcmp(v.u.e->msg, want))
        fail_msg("line %d: want error \"%s\", got \"%s\"", line, want, v.u.e->msg);
}

/* The list's elements, each as a value to compare with CEL equality and the same kind. */
static void check_list(dc_ectx *c, dc_val v, dc_val want, int line)
{
    check_no_error(v, line);
    if (v.k != DC_K_LIST)
        fail_msg("line %d: want list, got %s", line, kind_str(v));
    if (v.u.l->n != want.u.l->n)
        fail_msg("line %d: want %u elements, got %u", line, want.u.l->n, v.u.l->n);
    for (uint32_t i = 0; i < v.u.l->n; i++) {
        dc_val a = v.u.l->v[i], b = want.u.l->v[i];
        dc_val eq = dc_val_eq(c, a, b);
        if (a.k != b.k || eq.k != DC_K_BOOL || !eq.u.b)
            fail_msg("line %d: element %u differs (%s vs %s)", line, i, kind_str(a), kind_str(b));
    }
}

#define EXPECT_STR(v, s) check_str((v), (s), strlen(s), __LINE__)
#define EXPECT_STRN(v, s, n) check_str((v), (s), (n), __LINE__)
#define EXPECT_INT(v, i) check_int((v), (i), __LINE__)
#define EXPECT_UINT(v, u) check_uint((v), (u), __LINE__)
#define EXPECT_DOUBLE(v, d) check_double((v), (d), __LINE__)
#define EXPECT_BOOL(v, b) check_bool((v), (b), __LINE__)
#define EXPECT_ERR(v, m) check_err((v), (m), __LINE__)
#define EXPECT_LIST(c, v, w) check_list((c), (v), (w), __LINE__)

static const char *const NO_OVERLOAD = "no such overload";

/* ---------------------------------------------------------------------------------------------
 * Tables
 */

static void test_tables_unique(void **state)
{
    (void)state;
    const dc_builtin *tabs[] = {dc_lib_strings, dc_lib_lists, dc_lib_conv};
    const uint32_t counts[] = {dc_lib_strings_count, dc_lib_lists_count, dc_lib_conv_count};
    for (int t = 0; t < 3; t++) {
        assert_true(counts[t] > 0);
        for (uint32_t i = 0; i < counts[t]; i++) {
            const dc_builtin *b = &tabs[t][i];
            assert_non_null(b->fn);
            assert_int_equal(b->flags, 0);
            assert_true(find_fn(b->name, b->member, b->argc) == b);
        }
    }
    assert_non_null(find_fn("size", false, 1));
    assert_non_null(find_fn("size", true, 1));
    assert_null(find_fn("contains", false, 2)); /* receiver style only in cel-go */
    assert_non_null(find_fn("strings.quote", false, 1));
    assert_non_null(find_fn("sets.contains", false, 2));
    assert_non_null(find_fn("lists.range", false, 1));
    assert_non_null(find_fn("@sortByAssociatedKeys", true, 2));
}

/* ---------------------------------------------------------------------------------------------
 * Conversions
 */

static void test_int_conv(void **state)
{
    dc_ectx *c = *state;
    const char *bad = "type conversion error from 'string' to 'int'";
    EXPECT_INT(G(c, "int", 1, S(c, "42")), 42);
    EXPECT_INT(G(c, "int", 1, S(c, "-456")), -456);
    EXPECT_INT(G(c, "int", 1, S(c, "+5")), 5);
    EXPECT_INT(G(c, "int", 1, S(c, "-0")), 0);
    EXPECT_INT(G(c, "int", 1, S(c, "007")), 7);
    EXPECT_INT(G(c, "int", 1, S(c, "9223372036854775807")), INT64_MAX);
    EXPECT_INT(G(c, "int", 1, S(c, "-9223372036854775808")), INT64_MIN);
    EXPECT_ERR(G(c, "int", 1, S(c, "9223372036854775808")), bad);
    EXPECT_ERR(G(c, "int", 1, S(c, "-9223372036854775809")), bad);
    EXPECT_ERR(G(c, "int", 1, S(c, "")), bad); /* cel-edges: int('') is an error */
    EXPECT_ERR(G(c, "int", 1, S(c, " 1")), bad);
    EXPECT_ERR(G(c, "int", 1, S(c, "1 ")), bad);
    EXPECT_ERR(G(c, "int", 1, S(c, "-")), bad);
    EXPECT_ERR(G(c, "int", 1, S(c, "0x10")), bad);
    EXPECT_ERR(G(c, "int", 1, S(c, "1_000")), bad);
    EXPECT_ERR(G(c, "int", 1, S(c, "1.0")), bad);
    EXPECT_ERR(G(c, "int", 1, S(c, "1e3")), bad);
    EXPECT_ERR(G(c, "int", 1, S(c, "\xd9\xa1")), bad); /* Arabic-Indic digit one */
    /* From double: truncation; both ends of the int64 range are errors. */
    EXPECT_INT(G(c, "int", 1, D(1.9)), 1);
    EXPECT_INT(G(c, "int", 1, D(-1.9)), -1);
    EXPECT_INT(G(c, "int", 1, D(-0.5)), 0);
    EXPECT_INT(G(c, "int", 1, D(9.2e18)), 9200000000000000000LL);
    EXPECT_INT(G(c, "int", 1, D(-9.2e18)), -9200000000000000000LL);
    EXPECT_ERR(G(c, "int", 1, D(9.3e18)), "integer overflow");
    EXPECT_ERR(G(c, "int", 1, D(9223372036854775808.0)), "integer overflow");
    EXPECT_ERR(G(c, "int", 1, D(-9223372036854775808.0)), "integer overflow");
    EXPECT_ERR(G(c, "int", 1, D(NAN)), "integer overflow");
    EXPECT_ERR(G(c, "int", 1, D(INFINITY)), "integer overflow");
    EXPECT_ERR(G(c, "int", 1, D(-INFINITY)), "integer overflow");
    /* From uint. */
    EXPECT_INT(G(c, "int", 1, U(9223372036854775807ULL)), INT64_MAX);
    EXPECT_ERR(G(c, "int", 1, U(9223372036854775808ULL)), "integer overflow");
    EXPECT_INT(G(c, "int", 1, I(-3)), -3);
    /* No overload for other kinds (reachable through dyn). */
    EXPECT_ERR(G(c, "int", 1, BO(true)), NO_OVERLOAD);
    EXPECT_ERR(G(c, "int", 1, dc_null()), NO_OVERLOAD);
    EXPECT_ERR(G(c, "int", 1, BY(c, "1", 1)), NO_OVERLOAD);
    EXPECT_ERR(G(c, "int", 1, L(c, 0)), NO_OVERLOAD);
}

static void test_uint_conv(void **state)
{
    dc_ectx *c = *state;
    const char *bad = "type conversion error from 'string' to 'uint'";
    EXPECT_UINT(G(c, "uint", 1, S(c, "123")), 123);
    EXPECT_UINT(G(c, "uint", 1, S(c, "18446744073709551615")), UINT64_MAX);
    EXPECT_ERR(G(c, "uint", 1, S(c, "18446744073709551616")), bad);
    EXPECT_ERR(G(c, "uint", 1, S(c, " 1")), bad); /* cel-edges */
    EXPECT_ERR(G(c, "uint", 1, S(c, "+1")), bad);
    EXPECT_ERR(G(c, "uint", 1, S(c, "-0")), bad);
    EXPECT_ERR(G(c, "uint", 1, S(c, "-1")), bad);
    EXPECT_ERR(G(c, "uint", 1, S(c, "")), bad);
    EXPECT_ERR(G(c, "uint", 1, S(c, "1u")), bad);
    EXPECT_ERR(G(c, "uint", 1, I(-1)), "unsigned integer overflow");
    EXPECT_UINT(G(c, "uint", 1, I(0)), 0);
    EXPECT_UINT(G(c, "uint", 1, I(INT64_MAX)), 9223372036854775807ULL);
    EXPECT_UINT(G(c, "uint", 1, D(1.5)), 1);
    EXPECT_UINT(G(c, "uint", 1, D(-0.0)), 0);
    EXPECT_ERR(G(c, "uint", 1, D(-0.5)), "unsigned integer overflow");
    EXPECT_UINT(G(c, "uint", 1, D(18446744073709549568.0)), 18446744073709549568ULL);
    EXPECT_ERR(G(c, "uint", 1, D(18446744073709551616.0)), "unsigned integer overflow");
    EXPECT_ERR(G(c, "uint", 1, D(NAN)), "unsigned integer overflow");
    EXPECT_ERR(G(c, "uint", 1, D(INFINITY)), "unsigned integer overflow");
    EXPECT_UINT(G(c, "uint", 1, U(7)), 7);
    EXPECT_ERR(G(c, "uint", 1, BO(false)), NO_OVERLOAD);
}

static void test_double_conv(void **state)
{
    dc_ectx *c = *state;
    const char *bad = "type conversion error from 'string' to 'double'";
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "1.23")), 1.23);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "-1.5e3")), -1500.0);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "1E+5")), 1e5);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, ".5")), 0.5);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "5.")), 5.0);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "-0")), -0.0);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "1_000.5")), 1000.5);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "0x1p-2")), 0.25);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "0X1.8P1")), 3.0);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "0x_1p0")), 1.0);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "1e-400")), 0.0); /* underflow is not an error */
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "0.1")), 0.1);
    /* cel-edges: double('inf') is +Inf; Go accepts inf/infinity/nan in any case. */
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "inf")), INFINITY);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "+Inf")), INFINITY);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "-Infinity")), -INFINITY);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "INFINITY")), INFINITY);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "nan")), NAN);
    EXPECT_DOUBLE(G(c, "double", 1, S(c, "NaN")), NAN);
    EXPECT_ERR(G(c, "double", 1, S(c, "+nan")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "infin")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "x")), bad); /* cel-edges */
    EXPECT_ERR(G(c, "double", 1, S(c, "")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, " 1")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "1 ")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, ".")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "1e")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "1e+")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "e5")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "1.2.3")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "0x10")), bad); /* hex needs a p exponent */
    EXPECT_ERR(G(c, "double", 1, S(c, "_1")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "1__0")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "1_")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "1e400")), bad); /* out of range */
    EXPECT_ERR(G(c, "double", 1, S(c, "-1e400")), bad);
    EXPECT_ERR(G(c, "double", 1, S(c, "1.0d")), bad);
    EXPECT_DOUBLE(G(c, "double", 1, I(-3)), -3.0);
    EXPECT_DOUBLE(G(c, "double", 1, I(9007199254740993LL)), 9007199254740992.0);
    EXPECT_DOUBLE(G(c, "double", 1, U(UINT64_MAX)), 18446744073709551616.0);
    EXPECT_DOUBLE(G(c, "double", 1, D(2.5)), 2.5);
    EXPECT_ERR(G(c, "double", 1, BO(true)), NO_OVERLOAD);
}

static void test_bool_conv(void **state)
{
    dc_ectx *c = *state;
    const char *yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    const char *no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < 6; i++) {
        EXPECT_BOOL(G(c, "bool", 1, S(c, yes[i])), true);
        EXPECT_BOOL(G(c, "bool", 1, S(c, no[i])), false);
    }
    const char *bad = "type conversion error from 'string' to 'bool'";
    EXPECT_ERR(G(c, "bool", 1, S(c, "tRUE")), bad);
    EXPECT_ERR(G(c, "bool", 1, S(c, "yes")), bad);
    EXPECT_ERR(G(c, "bool", 1, S(c, "")), bad);
    EXPECT_ERR(G(c, "bool", 1, S(c, " true")), bad);
    EXPECT_ERR(G(c, "bool", 1, S(c, "2")), bad);
    EXPECT_BOOL(G(c, "bool", 1, BO(false)), false);
    EXPECT_ERR(G(c, "bool", 1, I(1)), NO_OVERLOAD);
}

static void test_string_conv(void **state)
{
    dc_ectx *c = *state;
    /* cel-edges: Go's %g: */
    EXPECT_STR(G(c, "string", 1, D(1e-7)), "1e-07");
    EXPECT_STR(G(c, "string", 1, D(1e20)), "1e+20");
    EXPECT_STR(G(c, "string", 1, D(INFINITY)), "+Inf");
    EXPECT_STR(G(c, "string", 1, D(-INFINITY)), "-Inf");
    EXPECT_STR(G(c, "string", 1, D(NAN)), "NaN");
    EXPECT_STR(G(c, "string", 1, D(-0.0)), "-0");
    EXPECT_STR(G(c, "string", 1, D(0.0)), "0");
    EXPECT_STR(G(c, "string", 1, D(1.5)), "1.5");
    EXPECT_STR(G(c, "string", 1, D(1.0)), "1");
    EXPECT_STR(G(c, "string", 1, D(-1.23e4)), "-12300");
    EXPECT_STR(G(c, "string", 1, D(100000.0)), "100000");
    EXPECT_STR(G(c, "string", 1, D(123456.7)), "123456.7");
    EXPECT_STR(G(c, "string", 1, D(1e6)), "1e+06");
    EXPECT_STR(G(c, "string", 1, D(1234567.0)), "1.234567e+06");
    EXPECT_STR(G(c, "string", 1, D(0.0001)), "0.0001");
    EXPECT_STR(G(c, "string", 1, D(0.00001)), "1e-05");
    EXPECT_STR(G(c, "string", 1, D(0.1 + 0.2)), "0.30000000000000004");
    EXPECT_STR(G(c, "string", 1, D(1.0 / 3.0)), "0.3333333333333333");
    EXPECT_STR(G(c, "string", 1, D(5e-324)), "5e-324");
    EXPECT_STR(G(c, "string", 1, D(1.7976931348623157e308)), "1.7976931348623157e+308");
    EXPECT_STR(G(c, "string", 1, D(9223372036854775808.0)), "9.223372036854776e+18");
    EXPECT_STR(G(c, "string", 1, D(2.2250738585072014e-308)), "2.2250738585072014e-308");
    EXPECT_STR(G(c, "string", 1, D(1e23)), "1e+23");
    EXPECT_STR(G(c, "string", 1, D(123e100)), "1.23e+102");
    EXPECT_STR(G(c, "string", 1, I(-123)), "-123");
    EXPECT_STR(G(c, "string", 1, I(INT64_MIN)), "-9223372036854775808");
    EXPECT_STR(G(c, "string", 1, U(UINT64_MAX)), "18446744073709551615");
    EXPECT_STR(G(c, "string", 1, BO(true)), "true");
    EXPECT_STR(G(c, "string", 1, BO(false)), "false");
    EXPECT_STR(G(c, "string", 1, S(c, "héllo")), "héllo");
    EXPECT_STR(G(c, "string", 1, BY(c, "abc", 3)), "abc");
    EXPECT_STRN(G(c, "string", 1, BY(c, "a\0b", 3)), "a\0b", 3);
    EXPECT_STR(G(c, "string", 1, BY(c, "\xf0\x9f\x98\x80", 4)), "😀");
    EXPECT_ERR(G(c, "string", 1, BY(c, "\xff", 1)), "invalid UTF-8 in bytes, cannot convert to string");
    EXPECT_ERR(G(c, "string", 1, BY(c, "\xed\xa0\x80", 3)),
               "invalid UTF-8 in bytes, cannot convert to string"); /* a surrogate */
    EXPECT_ERR(G(c, "string", 1, L(c, 1, I(1))), NO_OVERLOAD);
    EXPECT_ERR(G(c, "string", 1, dc_null()), NO_OVERLOAD);
}

static void test_bytes_dyn_type(void **state)
{
    dc_ectx *c = *state;
    dc_val b = G(c, "bytes", 1, S(c, "héllo"));
    assert_int_equal(b.k, DC_K_BYTES);
    assert_int_equal(b.u.s->len, 6);
    assert_memory_equal(b.u.s->data, "h\xc3\xa9llo", 6);
    dc_val b2 = G(c, "bytes", 1, b);
    assert_int_equal(b2.k, DC_K_BYTES);
    EXPECT_ERR(G(c, "bytes", 1, I(1)), NO_OVERLOAD);
    EXPECT_INT(G(c, "dyn", 1, I(5)), 5);
    EXPECT_STR(G(c, "dyn", 1, S(c, "x")), "x");
    struct {
        dc_val v;
        dc_typename t;
    } cases[] = {
        {dc_null(), DC_T_NULL},       {BO(true), DC_T_BOOL},          {I(1), DC_T_INT},
        {U(1), DC_T_UINT},            {D(1), DC_T_DOUBLE},            {S(c, ""), DC_T_STRING},
        {BY(c, "", 0), DC_T_BYTES},   {L(c, 0), DC_T_LIST},           {MAP(c, 0), DC_T_MAP},
        {dc_typeval(DC_T_INT), DC_T_TYPE}, {dc_optional_none(), DC_T_OPTIONAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dc_val t = G(c, "type", 1, cases[i].v);
        assert_int_equal(t.k, DC_K_TYPE);
        assert_int_equal(t.u.t, cases[i].t);
    }
    assert_string_equal(dc_typename_str[G(c, "type", 1, dc_null()).u.t], "null_type");
}

/* ---------------------------------------------------------------------------------------------
 * size, contains, startsWith, endsWith
 */

static void test_size(void **state)
{
    dc_ectx *c = *state;
    EXPECT_INT(G(c, "size", 1, S(c, "hello")), 5);
    EXPECT_INT(M(c, "size", 1, S(c, "hello")), 5);
    EXPECT_INT(G(c, "size", 1, S(c, "")), 0);
    EXPECT_INT(G(c, "size", 1, S(c, "héllo")), 5);      /* code points */
    EXPECT_INT(G(c, "size", 1, S(c, "😀a")), 2);
    EXPECT_INT(G(c, "size", 1, S(c, "πέντε")), 5);
    EXPECT_INT(G(c, "size", 1, BY(c, "h\xc3\xa9", 3)), 3); /* bytes */
    EXPECT_INT(M(c, "size", 1, BY(c, "\xff\x00", 2)), 2);
    /* cel-edges: b'😀' holds its four UTF-8 bytes. */
    EXPECT_INT(G(c, "size", 1, BY(c, "\xf0\x9f\x98\x80", 4)), 4);
    EXPECT_INT(G(c, "size", 1, L(c, 3, I(1), I(2), I(3))), 3);
    EXPECT_INT(M(c, "size", 1, L(c, 0)), 0);
    EXPECT_INT(G(c, "size", 1, MAP(c, 2, S(c, "a"), I(1), S(c, "b"), I(2))), 2);
    EXPECT_INT(M(c, "size", 1, MAP(c, 0)), 0);
    EXPECT_ERR(G(c, "size", 1, I(1)), NO_OVERLOAD);
    EXPECT_ERR(M(c, "size", 1, dc_null()), NO_OVERLOAD);
}

static void test_contains_prefix_suffix(void **state)
{
    dc_ectx *c = *state;
    EXPECT_BOOL(M(c, "contains", 2, S(c, "hello world"), S(c, "o w")), true);
    EXPECT_BOOL(M(c, "contains", 2, S(c, "hello world"), S(c, "goodbye")), false);
    EXPECT_BOOL(M(c, "contains", 2, S(c, "abc"), S(c, "")), true);
    EXPECT_BOOL(M(c, "contains", 2, S(c, ""), S(c, "")), true);
    EXPECT_BOOL(M(c, "contains", 2, S(c, ""), S(c, "a")), false);
    EXPECT_BOOL(M(c, "contains", 2, S(c, "ta©o"), S(c, "©")), true);
    EXPECT_BOOL(M(c, "contains", 2, SN(c, "a\0b", 3), SN(c, "\0b", 2)), true);
    EXPECT_BOOL(M(c, "startsWith", 2, S(c, "hello world"), S(c, "hello")), true);
    EXPECT_BOOL(M(c, "startsWith", 2, S(c, "hello world"), S(c, "world")), false);
    EXPECT_BOOL(M(c, "startsWith", 2, S(c, "hi"), S(c, "hi!")), false);
    EXPECT_BOOL(M(c, "startsWith", 2, S(c, ""), S(c, "")), true);
    EXPECT_BOOL(M(c, "startsWith", 2, S(c, "éa"), S(c, "é")), true);
    EXPECT_BOOL(M(c, "endsWith", 2, S(c, "hello world"), S(c, "world")), true);
    EXPECT_BOOL(M(c, "endsWith", 2, S(c, "hello world"), S(c, "hello")), false);
    EXPECT_BOOL(M(c, "endsWith", 2, S(c, "a"), S(c, "")), true);
    EXPECT_BOOL(M(c, "endsWith", 2, S(c, "a"), S(c, "ba")), false);
    EXPECT_ERR(M(c, "contains", 2, I(42), S(c, "4")), NO_OVERLOAD);
    EXPECT_ERR(M(c, "startsWith", 2, S(c, "a"), I(1)), NO_OVERLOAD);
    EXPECT_ERR(M(c, "endsWith", 2, BY(c, "a", 1), BY(c, "a", 1)), NO_OVERLOAD);
}

/* ---------------------------------------------------------------------------------------------
 * Strings extension
 */

static void test_char_at(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(M(c, "charAt", 2, S(c, "tacocat"), I(3)), "o");
    EXPECT_STR(M(c, "charAt", 2, S(c, "tacocat"), I(7)), "");
    EXPECT_STR(M(c, "charAt", 2, S(c, "hello"), I(4)), "o");
    EXPECT_STR(M(c, "charAt", 2, S(c, "©αT"), I(0)), "©");
    EXPECT_STR(M(c, "charAt", 2, S(c, "©αT"), I(1)), "α");
    EXPECT_STR(M(c, "charAt", 2, S(c, "©αT"), I(2)), "T");
    EXPECT_STR(M(c, "charAt", 2, S(c, "a😀b"), I(1)), "😀");
    EXPECT_STR(M(c, "charAt", 2, S(c, ""), I(0)), "");
    EXPECT_ERR(M(c, "charAt", 2, S(c, "tacocat"), I(30)), "index out of range: 30");
    EXPECT_ERR(M(c, "charAt", 2, S(c, "hello"), I(-1)), "index out of range: -1");
    EXPECT_ERR(M(c, "charAt", 2, S(c, "©αT"), I(4)), "index out of range: 4");
    EXPECT_ERR(M(c, "charAt", 2, S(c, ""), I(1)), "index out of range: 1");
    EXPECT_ERR(M(c, "charAt", 2, I(42), I(2)), NO_OVERLOAD);
    EXPECT_ERR(M(c, "charAt", 2, S(c, "hello"), BO(true)), NO_OVERLOAD);
}

static void test_index_of(void **state)
{
    dc_ectx *c = *state;
    dc_val taco = S(c, "tacocat"), uni = S(c, "ta©o©αT"), hw = S(c, "hello wello");
    EXPECT_INT(M(c, "indexOf", 2, taco, S(c, "")), 0);
    EXPECT_INT(M(c, "indexOf", 2, taco, S(c, "ac")), 1);
    EXPECT_INT(M(c, "indexOf", 2, taco, S(c, "none")), -1);
    EXPECT_INT(M(c, "indexOf", 3, taco, S(c, ""), I(3)), 3);
    EXPECT_INT(M(c, "indexOf", 3, taco, S(c, "a"), I(3)), 5);
    EXPECT_INT(M(c, "indexOf", 3, taco, S(c, "at"), I(3)), 5);
    EXPECT_INT(M(c, "indexOf", 2, uni, S(c, "©")), 2);
    EXPECT_INT(M(c, "indexOf", 3, uni, S(c, "©"), I(3)), 4);
    EXPECT_INT(M(c, "indexOf", 3, uni, S(c, "©αT"), I(3)), 4);
    EXPECT_INT(M(c, "indexOf", 3, uni, S(c, "©α"), I(5)), -1);
    EXPECT_INT(M(c, "indexOf", 2, S(c, "ijk"), S(c, "k")), 2);
    EXPECT_INT(M(c, "indexOf", 2, hw, S(c, "hello wello")), 0);
    EXPECT_INT(M(c, "indexOf", 3, hw, S(c, "ello"), I(6)), 7);
    EXPECT_INT(M(c, "indexOf", 2, hw, S(c, "elbo room!!")), -1);
    EXPECT_INT(M(c, "indexOf", 2, hw, S(c, "elbo room!!!")), -1);
    EXPECT_INT(M(c, "indexOf", 2, S(c, "a😀b😀"), S(c, "b")), 2);
    /* An empty needle returns the offset unchecked; otherwise the offset must be inside. */
    EXPECT_INT(M(c, "indexOf", 3, S(c, "abc"), S(c, ""), I(9)), 9);
    EXPECT_INT(M(c, "indexOf", 3, S(c, "abc"), S(c, ""), I(-1)), -1);
    EXPECT_INT(M(c, "indexOf", 2, S(c, ""), S(c, "")), 0);
    EXPECT_ERR(M(c, "indexOf", 2, S(c, ""), S(c, "a")), "index out of range: 0");
    EXPECT_ERR(M(c, "indexOf", 3, taco, S(c, "a"), I(30)), "index out of range: 30");
    EXPECT_ERR(M(c, "indexOf", 3, S(c, "abc"), S(c, "c"), I(3)), "index out of range: 3");
    EXPECT_ERR(M(c, "indexOf", 3, S(c, "abc"), S(c, "c"), I(-1)), "index out of range: -1");
    EXPECT_ERR(M(c, "indexOf", 2, I(24), S(c, "2")), NO_OVERLOAD);
    EXPECT_ERR(M(c, "indexOf", 2, S(c, "hello"), BO(true)), NO_OVERLOAD);
    EXPECT_ERR(M(c, "indexOf", 3, S(c, "42"), I(4), I(0)), NO_OVERLOAD);
    EXPECT_ERR(M(c, "indexOf", 3, S(c, "42"), S(c, "4"), S(c, "0")), NO_OVERLOAD);
}

static void test_last_index_of(void **state)
{
    dc_ectx *c = *state;
    dc_val taco = S(c, "tacocat"), uni = S(c, "ta©o©αT"), hw = S(c, "hello wello");
    EXPECT_INT(M(c, "lastIndexOf", 2, taco, S(c, "")), 7);
    EXPECT_INT(M(c, "lastIndexOf", 2, taco, S(c, "at")), 5);
    EXPECT_INT(M(c, "lastIndexOf", 2, taco, S(c, "none")), -1);
    EXPECT_INT(M(c, "lastIndexOf", 3, taco, S(c, ""), I(3)), 3);
    EXPECT_INT(M(c, "lastIndexOf", 3, taco, S(c, "a"), I(3)), 1);
    EXPECT_INT(M(c, "lastIndexOf", 2, uni, S(c, "©")), 4);
    EXPECT_INT(M(c, "lastIndexOf", 3, uni, S(c, "©"), I(3)), 2);
    EXPECT_INT(M(c, "lastIndexOf", 3, uni, S(c, "©α"), I(4)), 4);
    EXPECT_INT(M(c, "lastIndexOf", 3, hw, S(c, "ello"), I(6)), 1);
    EXPECT_INT(M(c, "lastIndexOf", 2, hw, S(c, "low")), -1);
    EXPECT_INT(M(c, "lastIndexOf", 2, hw, S(c, "elbo room!!")), -1);
    EXPECT_INT(M(c, "lastIndexOf", 2, hw, S(c, "elbo room!!!")), -1);
    EXPECT_INT(M(c, "lastIndexOf", 2, hw, S(c, "hello wello")), 0);
    EXPECT_INT(M(c, "lastIndexOf", 3, S(c, "bananananana"), S(c, "nana"), I(7)), 6);
    EXPECT_INT(M(c, "lastIndexOf", 2, S(c, "hello mellow"), S(c, "")), 12);
    EXPECT_INT(M(c, "lastIndexOf", 2, S(c, "hello mellow"), S(c, "ello")), 7);
    EXPECT_INT(M(c, "lastIndexOf", 3, S(c, "hello mellow"), S(c, "ello"), I(6)), 1);
    EXPECT_INT(M(c, "lastIndexOf", 2, S(c, "😀x😀"), S(c, "😀")), 2);
    EXPECT_INT(M(c, "lastIndexOf", 2, S(c, ""), S(c, "")), 0);
    EXPECT_INT(M(c, "lastIndexOf", 3, S(c, "abc"), S(c, ""), I(-4)), -4);
    /* cel-go since 2025 (the conformance suite pins it): a needle longer than the string is -1. */
    EXPECT_INT(M(c, "lastIndexOf", 2, S(c, ""), S(c, "a")), -1);
    EXPECT_ERR(M(c, "lastIndexOf", 3, taco, S(c, "a"), I(-1)), "index out of range: -1");
    EXPECT_ERR(M(c, "lastIndexOf", 3, taco, S(c, "a"), I(30)), "index out of range: 30");
    EXPECT_ERR(M(c, "lastIndexOf", 3, taco, S(c, "a"), I(7)), "index out of range: 7");
    EXPECT_INT(M(c, "lastIndexOf", 2, S(c, "ab"), S(c, "abc")), -1);
    EXPECT_ERR(M(c, "lastIndexOf", 2, I(1), S(c, "1")), NO_OVERLOAD);
}

static void test_ascii_case(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(M(c, "lowerAscii", 1, S(c, "TacoCat")), "tacocat");
    EXPECT_STR(M(c, "lowerAscii", 1, S(c, "TacoCÆt")), "tacocÆt");
    EXPECT_STR(M(c, "lowerAscii", 1, S(c, "TacoCÆt Xii")), "tacocÆt xii");
    EXPECT_STR(M(c, "lowerAscii", 1, S(c, "")), "");
    EXPECT_STR(M(c, "upperAscii", 1, S(c, "tacoCat")), "TACOCAT");
    EXPECT_STR(M(c, "upperAscii", 1, S(c, "tacoCαt")), "TACOCαT");
    EXPECT_STR(M(c, "upperAscii", 1, S(c, "TacoCÆt Xii")), "TACOCÆT XII");
    EXPECT_STR(M(c, "upperAscii", 1, S(c, "ß@[`{")), "ß@[`{");
    EXPECT_ERR(M(c, "upperAscii", 1, I(1)), NO_OVERLOAD);
}

static void test_replace(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(M(c, "replace", 3, S(c, "12 days 12 hours"), S(c, "{0}"), S(c, "2")),
               "12 days 12 hours");
    EXPECT_STR(M(c, "replace", 3, S(c, "{0} days {0} hours"), S(c, "{0}"), S(c, "2")),
               "2 days 2 hours");
    dc_val once = M(c, "replace", 4, S(c, "{0} days {0} hours"), S(c, "{0}"), S(c, "2"), I(1));
    EXPECT_STR(M(c, "replace", 3, once, S(c, "{0}"), S(c, "23")), "2 days 23 hours");
    EXPECT_STR(M(c, "replace", 3, S(c, "1 ©αT taco"), S(c, "αT"), S(c, "o©α")), "1 ©o©α taco");
    EXPECT_STR(M(c, "replace", 3, S(c, "hello hello"), S(c, "he"), S(c, "we")), "wello wello");
    EXPECT_STR(M(c, "replace", 4, S(c, "hello hello"), S(c, "he"), S(c, "we"), I(-1)),
               "wello wello");
    EXPECT_STR(M(c, "replace", 4, S(c, "hello hello"), S(c, "he"), S(c, "we"), I(1)),
               "wello hello");
    EXPECT_STR(M(c, "replace", 4, S(c, "hello hello"), S(c, "he"), S(c, "we"), I(0)),
               "hello hello");
    EXPECT_STR(M(c, "replace", 4, S(c, "hello hello"), S(c, "he"), S(c, "we"), I(99)),
               "wello wello");
    EXPECT_STR(M(c, "replace", 3, S(c, "aaa"), S(c, "aa"), S(c, "b")), "ba");
    EXPECT_STR(M(c, "replace", 3, S(c, "abc"), S(c, ""), S(c, "-")), "-a-b-c-");
    EXPECT_STR(M(c, "replace", 4, S(c, "abc"), S(c, ""), S(c, "-"), I(2)), "-a-bc");
    EXPECT_STR(M(c, "replace", 3, S(c, "é😀"), S(c, ""), S(c, "|")), "|é|😀|");
    EXPECT_STR(M(c, "replace", 3, S(c, ""), S(c, ""), S(c, "x")), "x");
    EXPECT_STR(M(c, "replace", 3, S(c, "abc"), S(c, "b"), S(c, "")), "ac");
    EXPECT_STR(M(c, "replace", 3, S(c, ""), S(c, "a"), S(c, "b")), "");
    EXPECT_ERR(M(c, "replace", 3, S(c, "42"), I(2), I(1)), NO_OVERLOAD);
    EXPECT_ERR(M(c, "replace", 4, S(c, "42"), S(c, "2"), S(c, "1"), S(c, "1")), NO_OVERLOAD);
}

static void test_split(void **state)
{
    dc_ectx *c = *state;
    EXPECT_LIST(c, M(c, "split", 2, S(c, "hello world"), S(c, " ")),
                L(c, 2, S(c, "hello"), S(c, "world")));
    EXPECT_LIST(c, M(c, "split", 3, S(c, "hello world events!"), S(c, " "), I(0)), L(c, 0));
    EXPECT_LIST(c, M(c, "split", 3, S(c, "hello world events!"), S(c, " "), I(1)),
                L(c, 1, S(c, "hello world events!")));
    EXPECT_LIST(c, M(c, "split", 3, S(c, "hello hello hello"), S(c, " "), I(2)),
                L(c, 2, S(c, "hello"), S(c, "hello hello")));
    EXPECT_LIST(c, M(c, "split", 3, S(c, "o©o©o©o"), S(c, "©"), I(-1)),
                L(c, 4, S(c, "o"), S(c, "o"), S(c, "o"), S(c, "o")));
    EXPECT_LIST(c, M(c, "split", 3, S(c, "a,b"), S(c, ","), I(10)), L(c, 2, S(c, "a"), S(c, "b")));
    EXPECT_LIST(c, M(c, "split", 2, S(c, ",a,,b,"), S(c, ",")),
                L(c, 5, S(c, ""), S(c, "a"), S(c, ""), S(c, "b"), S(c, "")));
    EXPECT_LIST(c, M(c, "split", 2, S(c, ""), S(c, ",")), L(c, 1, S(c, "")));
    EXPECT_LIST(c, M(c, "split", 2, S(c, "abc"), S(c, "abc")), L(c, 2, S(c, ""), S(c, "")));
    /* An empty separator explodes into code points. */
    EXPECT_LIST(c, M(c, "split", 2, S(c, "aé😀"), S(c, "")),
                L(c, 3, S(c, "a"), S(c, "é"), S(c, "😀")));
    EXPECT_LIST(c, M(c, "split", 3, S(c, "abcd"), S(c, ""), I(2)), L(c, 2, S(c, "a"), S(c, "bcd")));
    EXPECT_LIST(c, M(c, "split", 2, S(c, ""), S(c, "")), L(c, 0));
    EXPECT_ERR(M(c, "split", 2, I(42), S(c, "2")), NO_OVERLOAD);
    EXPECT_ERR(M(c, "split", 3, S(c, "42"), S(c, "2"), S(c, "1")), NO_OVERLOAD);
}

static void test_substring(void **state)
{
    dc_ectx *c = *state;
    dc_val taco = S(c, "tacocat");
    EXPECT_STR(M(c, "substring", 2, taco, I(4)), "cat");
    EXPECT_STR(M(c, "substring", 2, taco, I(7)), "");
    EXPECT_STR(M(c, "substring", 2, taco, I(0)), "tacocat");
    EXPECT_STR(M(c, "substring", 3, taco, I(0), I(4)), "taco");
    EXPECT_STR(M(c, "substring", 3, taco, I(4), I(4)), "");
    EXPECT_STR(M(c, "substring", 3, S(c, "ta©o©αT"), I(2), I(6)), "©o©α");
    EXPECT_STR(M(c, "substring", 3, S(c, "ta©o©αT"), I(7), I(7)), "");
    EXPECT_STR(M(c, "substring", 2, S(c, "😀😁"), I(1)), "😁");
    EXPECT_ERR(M(c, "substring", 2, taco, I(40)), "index out of range: 40");
    EXPECT_ERR(M(c, "substring", 2, taco, I(-1)), "index out of range: -1");
    EXPECT_ERR(M(c, "substring", 3, taco, I(1), I(50)), "index out of range: 50");
    EXPECT_ERR(M(c, "substring", 3, taco, I(49), I(50)), "index out of range: 49");
    EXPECT_ERR(M(c, "substring", 3, taco, I(4), I(3)), "invalid substring range. start: 4, end: 3");
    EXPECT_ERR(M(c, "substring", 3, taco, I(-2), I(-3)),
               "invalid substring range. start: -2, end: -3");
    EXPECT_ERR(M(c, "substring", 3, taco, I(-1), I(3)), "index out of range: -1");
    EXPECT_ERR(M(c, "substring", 3, I(30), BO(true), I(3)), NO_OVERLOAD);
    EXPECT_ERR(M(c, "substring", 3, taco, I(0), BO(false)), NO_OVERLOAD);
}

static void test_trim(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(M(c, "trim", 1, S(c, " \f\n\r\t\vtext  ")), "text");
    EXPECT_STR(M(c, "trim", 1, S(c, "\xc2\x85\u00a0\u1680text")), "text");
    EXPECT_STR(M(c, "trim", 1,
                 S(c, "text\u2000\u2001\u2002\u2003\u2004\u2004\u2006\u2007\u2008\u2009")),
               "text");
    EXPECT_STR(M(c, "trim", 1, S(c, "\u200atext\u2028\u2029\u202F\u205F\u3000")), "text");
    /* Zero-width and other space-like characters are not whitespace. */
    EXPECT_STR(M(c, "trim", 1, S(c, "\u180etext\u200b\u200c\u200d\u2060\ufeff")),
               "\u180etext\u200b\u200c\u200d\u2060\ufeff");
    EXPECT_STR(M(c, "trim", 1, S(c, "  \ttrim\n    ")), "trim");
    EXPECT_STR(M(c, "trim", 1, S(c, "   ")), "");
    EXPECT_STR(M(c, "trim", 1, S(c, "")), "");
    EXPECT_STR(M(c, "trim", 1, S(c, " a b ")), "a b");
    EXPECT_ERR(M(c, "trim", 1, I(1)), NO_OVERLOAD);
}

static void test_join(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(M(c, "join", 1, L(c, 2, S(c, "x"), S(c, "y"))), "xy");
    EXPECT_STR(M(c, "join", 2, L(c, 2, S(c, "x"), S(c, "y")), S(c, "-")), "x-y");
    EXPECT_STR(M(c, "join", 1, L(c, 0)), "");
    EXPECT_STR(M(c, "join", 2, L(c, 0), S(c, "-")), "");
    EXPECT_STR(M(c, "join", 2, L(c, 2, S(c, "hello"), S(c, "mellow")), S(c, " ")), "hello mellow");
    EXPECT_STR(M(c, "join", 2, L(c, 3, S(c, "a"), S(c, ""), S(c, "é")), S(c, "©")), "a©©é");
    EXPECT_ERR(M(c, "join", 1, L(c, 2, S(c, "x"), I(5))), "join: invalid input: 5");
    EXPECT_ERR(M(c, "join", 2, L(c, 1, BO(true)), S(c, ",")), "join: invalid input: true");
    EXPECT_ERR(M(c, "join", 1, L(c, 1, D(1e6))), "join: invalid input: 1e+06");
    EXPECT_ERR(M(c, "join", 1, S(c, "x")), NO_OVERLOAD);
    EXPECT_ERR(M(c, "join", 2, L(c, 0), I(1)), NO_OVERLOAD);
}

static void test_quote(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "first\nsecond")), "\"first\\nsecond\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "bell\a")), "\"bell\\a\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "\bbackspace")), "\"\\bbackspace\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "\fform feed")), "\"\\fform feed\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "carriage \r return")), "\"carriage \\r return\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "horizontal tab\t")), "\"horizontal tab\\t\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "vertical \v tab")), "\"vertical \\v tab\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "double \\\\ slash")),
               "\"double \\\\\\\\ slash\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "two escape sequences \a\n")),
               "\"two escape sequences \\a\\n\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "verbatim")), "\"verbatim\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "ends with \\")), "\"ends with \\\\\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "\\ starts with")), "\"\\\\ starts with\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "printable unicode😀")), "\"printable unicode😀\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "mid string \" quote")),
               "\"mid string \\\" quote\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "single-quote with \"double quote\"")),
               "\"single-quote with \\\"double quote\\\"\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "size('ÿ')")), "\"size('ÿ')\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "завтра")), "\"завтра\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "ta©o©αT")), "\"ta©o©αT\"");
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "")), "\"\"");
    /* Other control characters pass through unescaped. */
    EXPECT_STR(G(c, "strings.quote", 1, S(c, "\x01")), "\"\x01\"");
    EXPECT_ERR(G(c, "strings.quote", 1, I(1)), NO_OVERLOAD);
}

/* ---------------------------------------------------------------------------------------------
 * format
 */

#define FMT(c, f, ...) M((c), "format", 2, S((c), (f)), L((c), __VA_ARGS__))

static void test_format_basic(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(FMT(c, "no substitution", 0), "no substitution");
    EXPECT_STR(FMT(c, "str is %s and some more", 1, S(c, "filler")),
               "str is filler and some more");
    EXPECT_STR(FMT(c, "%% and also %%", 0), "% and also %");
    EXPECT_STR(FMT(c, "%%%s%%", 1, S(c, "text")), "%text%");
    EXPECT_STR(FMT(c, "%s%%", 1, S(c, "percent on the right")), "percent on the right%");
    EXPECT_STR(FMT(c, "%%%s", 1, S(c, "percent on the left")), "%percent on the left");
    EXPECT_STR(FMT(c, "%d %d %d, %s %s %s, %d %d %d, %s %s %s", 12, I(1), I(2), I(3), S(c, "A"),
                   S(c, "B"), S(c, "C"), I(4), I(5), I(6), S(c, "D"), S(c, "E"), S(c, "F")),
               "1 2 3, A B C, 4 5 6, D E F");
    EXPECT_STR(FMT(c, "\u00fc%s\u00fc", 1, S(c, "é")), "üéü");
    EXPECT_STR(FMT(c, "", 0), "");
    /* Unused arguments are not an error at run time. */
    EXPECT_STR(FMT(c, "%d", 2, I(1), I(2)), "1");
    /* Precision is ignored by %s and %d. */
    EXPECT_STR(FMT(c, "%.2d|%.1s", 2, I(7), S(c, "abc")), "7|abc");
}

static void test_format_numbers(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(FMT(c, "this is 5 in binary: %b", 1, I(5)), "this is 5 in binary: 101");
    EXPECT_STR(FMT(c, "unsigned 64 in binary: %b", 1, U(64)), "unsigned 64 in binary: 1000000");
    EXPECT_STR(FMT(c, "bit set from bool: %b", 1, BO(true)), "bit set from bool: 1");
    EXPECT_STR(FMT(c, "%b", 1, BO(false)), "0");
    EXPECT_STR(FMT(c, "%b", 1, I(-5)), "-101");
    EXPECT_STR(FMT(c, "%o", 1, I(11)), "13");
    EXPECT_STR(FMT(c, "this is an unsigned octal: %o", 1, U(65535)),
               "this is an unsigned octal: 177777");
    EXPECT_STR(FMT(c, "%o", 1, I(-8)), "-10");
    EXPECT_STR(FMT(c, "%x is 20 in hexadecimal", 1, I(30)), "1e is 20 in hexadecimal");
    EXPECT_STR(FMT(c, "%X is 20 in hexadecimal", 1, I(30)), "1E is 20 in hexadecimal");
    EXPECT_STR(FMT(c, "%X is 6000 in hexadecimal", 1, U(6000)), "1770 is 6000 in hexadecimal");
    EXPECT_STR(FMT(c, "%x", 1, I(-255)), "-ff");
    EXPECT_STR(FMT(c, "%x", 1, I(INT64_MIN)), "-8000000000000000");
    EXPECT_STR(FMT(c, "%X", 1, U(UINT64_MAX)), "FFFFFFFFFFFFFFFF");
    EXPECT_STR(FMT(c, "%x", 1, S(c, "Hello world!")), "48656c6c6f20776f726c6421");
    EXPECT_STR(FMT(c, "%X", 1, S(c, "Hello world!")), "48656C6C6F20776F726C6421");
    EXPECT_STR(FMT(c, "%x", 1, BY(c, "byte string", 11)), "6279746520737472696e67");
    EXPECT_STR(FMT(c, "%X", 1, BY(c, "byte string", 11)), "6279746520737472696E67");
    EXPECT_STR(FMT(c, "%x", 1, S(c, "é")), "c3a9");
    EXPECT_STR(FMT(c, "%d", 1, U(64)), "64");
    EXPECT_STR(FMT(c, "%d", 1, I(-9223372036854775807LL - 1)), "-9223372036854775808");
    EXPECT_STR(FMT(c, "%d", 1, I(1234567)), "1234567"); /* %d is not grouped */
}

static void test_format_float(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(FMT(c, "%.3f", 1, D(1.2345)), "1.234");
    EXPECT_STR(FMT(c, "%f", 1, D(2.71828)), "2.718280");
    EXPECT_STR(FMT(c, "dynamic double: %.3f", 1, D(4.5)), "dynamic double: 4.500");
    EXPECT_STR(FMT(c, "%f", 1, S(c, "NaN")), "NaN");
    EXPECT_STR(FMT(c, "%f", 1, S(c, "Infinity")), "∞");
    EXPECT_STR(FMT(c, "%f", 1, S(c, "-Infinity")), "-∞");
    EXPECT_STR(FMT(c, "NaN: %f, infinity: %f", 2, D(NAN), D(INFINITY)), "NaN: NaN, infinity: ∞");
    /* x/text's en-US printer groups thousands and rounds half to even. */
    EXPECT_STR(FMT(c, "%f", 1, D(1234567.891)), "1,234,567.891000");
    EXPECT_STR(FMT(c, "%.2f", 1, D(-1234.5)), "-1,234.50");
    EXPECT_STR(FMT(c, "%.0f", 1, D(2.5)), "2");
    EXPECT_STR(FMT(c, "%.0f", 1, D(3.5)), "4");
    EXPECT_STR(FMT(c, "%.0f", 1, D(999.6)), "1,000");
    EXPECT_STR(FMT(c, "%.2f", 1, D(0.001)), "0.00");
    EXPECT_STR(FMT(c, "%.2f", 1, D(-0.001)), "-0.00");
    EXPECT_STR(FMT(c, "%f", 1, D(-0.0)), "0.000000");
    EXPECT_STR(FMT(c, "%f", 1, D(0.5)), "0.500000");
    EXPECT_STR(FMT(c, "%.1f", 1, D(100.0)), "100.0");
    EXPECT_STR(FMT(c, "%.4f", 1, D(0.00012)), "0.0001");
    /* Derived, not observed: a value whose scaled digits pass 2^64 goes through Go's amd64
     * float64->uint64 conversion (1<<63), as x/text's ConvertFloat does. */
    EXPECT_STR(FMT(c, "%f", 1, D(1e20)), "9,223,372,036,854.775808");
    /* Scientific: 7 significant digits, U+202F×U+202F10 and a superscript exponent. */
    EXPECT_STR(FMT(c, "%.6e", 1, D(1052.032911275)), "1.052033\u202f\u00d7\u202f10\u2070\u00b3");
    EXPECT_STR(FMT(c, "%e", 1, D(2.71828)), "2.718280\u202f\u00d7\u202f10\u2070\u2070");
    EXPECT_STR(FMT(c, "unescaped unicode: %e, escaped unicode: %e", 2, D(2.71828), D(2.71828)),
               "unescaped unicode: 2.718280 × 10⁰⁰, escaped unicode: "
               "2.718280\u202f\u00d7\u202f10\u2070\u2070");
    EXPECT_STR(FMT(c, "%e", 1, D(0.001)), "1.000000\u202f\u00d7\u202f10\u207b\u2070\u00b3");
    EXPECT_STR(FMT(c, "%e", 1, D(-2.5e100)), "-2.500000\u202f\u00d7\u202f10\u00b9\u2070\u2070");
    EXPECT_STR(FMT(c, "%e", 1, D(0.0)), "0.000000\u202f\u00d7\u202f10\u2070\u2070");
    EXPECT_STR(FMT(c, "%.2e", 1, D(123456.0)), "1.234560\u202f\u00d7\u202f10\u2070\u2075");
    /* Derived from the code, not observed: cel-go builds "%6e" (the default precision as a
     * width), so the short special values are padded to 6 code points. */
    EXPECT_STR(FMT(c, "%e", 1, S(c, "Infinity")), "     ∞");
    EXPECT_STR(FMT(c, "%e", 1, D(NAN)), "   NaN");
    EXPECT_STR(FMT(c, "%.0e", 1, D(-INFINITY)), "-∞");
    /* The precision of %e is passed to the printer as a width: */
    EXPECT_STR(FMT(c, "%.20e", 1, D(1.0)), "     1.000000\u202f\u00d7\u202f10\u2070\u2070");
    /* %s of a double uses the same text as string(). */
    EXPECT_STR(FMT(c, "a double substituted with %%s: %s", 1, D(64.2)),
               "a double substituted with %s: 64.2");
    EXPECT_STR(FMT(c, "dynIntStr: %s dynDoubleStr: %s", 2, I(32), D(56.8)),
               "dynIntStr: 32 dynDoubleStr: 56.8");
    EXPECT_STR(FMT(c, "%s", 1, D(1e20)), "1e+20");
    EXPECT_STR(FMT(c, "%s", 1, D(-INFINITY)), "-Inf");
}

static void test_format_values(void **state)
{
    dc_ectx *c = *state;
    EXPECT_STR(FMT(c, "null: %s", 1, dc_null()), "null: null");
    EXPECT_STR(FMT(c, "some bytes: %s", 1, BY(c, "xyz", 3)), "some bytes: xyz");
    EXPECT_STR(FMT(c, "type is %s", 1, dc_typeval(DC_T_STRING)), "type is string");
    EXPECT_STR(FMT(c, "true bool: %s, false bool: %s", 2, BO(true), BO(false)),
               "true bool: true, false bool: false");
    EXPECT_STR(FMT(c, "%s", 1, U(5)), "5");
    EXPECT_STR(FMT(c, "%s", 1, L(c, 4, S(c, "abc"), D(3.14), dc_null(),
                                 L(c, 4, I(9), I(8), I(7), I(6)))),
               "[\"abc\", 3.140000, null, [9, 8, 7, 6]]");
    EXPECT_STR(FMT(c, "dyntype list: %s", 1, L(c, 3, I(6), D(4.2), S(c, "a string"))),
               "dyntype list: [6, 4.200000, \"a string\"]");
    EXPECT_STR(FMT(c, "map with multiple key types: %s", 1,
                   MAP(c, 3, I(1), S(c, "value1"), U(2), S(c, "value2"), BO(true), D(NAN))),
               "map with multiple key types: {1:\"value1\", 2:\"value2\", true:\"NaN\"}");
    EXPECT_STR(FMT(c, "%s", 1,
                   MAP(c, 3, S(c, "key2"), BY(c, "xyz", 3), S(c, "key1"), BO(true),
                       S(c, "key3"), D(2.71828))),
               "{\"key1\":true, \"key2\":b\"xyz\", \"key3\":2.718280}");
    EXPECT_STR(FMT(c, "%s", 1, MAP(c, 3, S(c, "strKey"), S(c, "x"), BO(true), I(42), I(6), U(1))),
               "{\"strKey\":\"x\", 6:1, true:42}");
    EXPECT_STR(FMT(c, "%s", 1, L(c, 3, D(INFINITY), D(-INFINITY), dc_typeval(DC_T_INT))),
               "[\"+Inf\", \"-Inf\", int]");
    EXPECT_STR(FMT(c, "%s", 1, L(c, 2, S(c, "a\nb\"c\\"), S(c, "é\x01\u200b"))),
               "[\"a\\nb\\\"c\\\\\", \"é\\x01\\u200b\"]");
    EXPECT_STR(FMT(c, "%s", 1, L(c, 2, L(c, 0), MAP(c, 0))), "[[], {}]");
    EXPECT_STR(FMT(c, "%s", 1, L(c, 1, MAP(c, 1, S(c, "k"), L(c, 1, BO(false))))),
               "[{\"k\":[false]}]");
    EXPECT_STR(FMT(c, "%s", 1, L(c, 1, BY(c, "a\n", 2))), "[b\"a\\n\"]");
}

static void test_format_errors(void **state)
{
    dc_ectx *c = *state;
    EXPECT_ERR(FMT(c, "%a", 1, I(1)),
               "could not parse formatting clause: unrecognized formatting clause \"a\"");
    EXPECT_ERR(FMT(c, "double is %E", 1, D(0.5)),
               "could not parse formatting clause: unrecognized formatting clause \"E\"");
    EXPECT_ERR(FMT(c, "%\xc3\xa9", 1, I(1)),
               "could not parse formatting clause: unrecognized formatting clause \"\xc3\x83\"");
    EXPECT_ERR(FMT(c, "%d %d %d", 2, I(0), I(1)), "index 2 out of range");
    EXPECT_ERR(FMT(c, "%", 0), "index 0 out of range");
    EXPECT_ERR(FMT(c, "abc%", 1, I(1)), "unexpected end of string");
    EXPECT_ERR(FMT(c, "%.3", 1, D(1)),
               "could not parse formatting clause: error while parsing precision: could not "
               "find end of precision specifier");
    EXPECT_ERR(FMT(c, "%.", 1, D(1)),
               "could not parse formatting clause: error while parsing precision: could not "
               "find end of precision specifier");
    EXPECT_ERR(FMT(c, "%.f", 1, D(1)),
               "could not parse formatting clause: error while parsing precision: error while "
               "converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax");
    EXPECT_ERR(FMT(c, "%.99999999999999999999f", 1, D(1)),
               "could not parse formatting clause: error while parsing precision: error while "
               "converting precision to integer: strconv.Atoi: parsing "
               "\"99999999999999999999\": value out of range");
    EXPECT_ERR(FMT(c, "string is %b", 1, S(c, "abc")),
               "error during formatting: only integers and bools can be formatted as binary, "
               "was given string");
    EXPECT_ERR(FMT(c, "octal: %o", 1, S(c, "a string")),
               "error during formatting: octal clause can only be used on integers, was given "
               "string");
    EXPECT_ERR(FMT(c, "double is %x", 1, D(0.5)),
               "error during formatting: only integers, byte buffers, and strings can be "
               "formatted as hex, was given double");
    EXPECT_ERR(FMT(c, "null: %d", 1, dc_null()),
               "error during formatting: decimal clause can only be used on integers, was given "
               "null_type");
    EXPECT_ERR(FMT(c, "null: %e", 1, dc_null()),
               "error during formatting: scientific clause can only be used on doubles, was "
               "given null_type");
    EXPECT_ERR(FMT(c, "null: %f", 1, dc_null()),
               "error during formatting: fixed-point clause can only be used on doubles, was "
               "given null_type");
    EXPECT_ERR(FMT(c, "null: %x", 1, dc_null()),
               "error during formatting: only integers, byte buffers, and strings can be "
               "formatted as hex, was given null_type");
    EXPECT_ERR(FMT(c, "null: %X", 1, dc_null()),
               "error during formatting: only integers, byte buffers, and strings can be "
               "formatted as hex, was given null_type");
    EXPECT_ERR(FMT(c, "null: %b", 1, dc_null()),
               "error during formatting: only integers and bools can be formatted as binary, "
               "was given null_type");
    EXPECT_ERR(FMT(c, "null: %o", 1, dc_null()),
               "error during formatting: octal clause can only be used on integers, was given "
               "null_type");
    EXPECT_ERR(FMT(c, "%f", 1, S(c, "1.5")),
               "error during formatting: fixed-point clause can only be used on doubles, was "
               "given string");
    EXPECT_ERR(FMT(c, "%f", 1, I(1)),
               "error during formatting: fixed-point clause can only be used on doubles, was "
               "given int");
    EXPECT_ERR(FMT(c, "%d", 1, D(1.0)),
               "error during formatting: decimal clause can only be used on integers, was given "
               "double");
    EXPECT_ERR(FMT(c, "%s", 1, dc_optional_none()),
               "error during formatting: string clause can only be used on strings, bools, "
               "bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given "
               "optional_type");
    EXPECT_ERR(FMT(c, "%s", 1, L(c, 2, I(1), dc_optional_none())),
               "error during formatting: no formatting function for optional_type");
    EXPECT_ERR(FMT(c, "%s", 1, BY(c, "\xff", 1)),
               "error during formatting: could not convert argument \"invalid UTF-8 in bytes, "
               "cannot convert to string\" to string");
    EXPECT_ERR(FMT(c, "%s", 1, L(c, 1, BY(c, "\xff", 1))),
               "error during formatting: could not convert argument \"invalid UTF-8 in bytes, "
               "cannot convert to string\" to string");
    EXPECT_ERR(M(c, "format", 2, I(1), L(c, 0)), NO_OVERLOAD);
    EXPECT_ERR(M(c, "format", 2, S(c, "%s"), S(c, "x")), NO_OVERLOAD);
}

/* ---------------------------------------------------------------------------------------------
 * Lists extension
 */

static void test_slice(void **state)
{
    dc_ectx *c = *state;
    dc_val l4 = L(c, 4, I(1), I(2), I(3), I(4));
    EXPECT_LIST(c, M(c, "slice", 3, l4, I(1), I(3)), L(c, 2, I(2), I(3)));
    EXPECT_LIST(c, M(c, "slice", 3, l4, I(2), I(4)), L(c, 2, I(3), I(4)));
    EXPECT_LIST(c, M(c, "slice", 3, l4, I(0), I(0)), L(c, 0));
    EXPECT_LIST(c, M(c, "slice", 3, l4, I(4), I(4)), L(c, 0));
    EXPECT_LIST(c, M(c, "slice", 3, L(c, 0), I(0), I(0)), L(c, 0));
    EXPECT_ERR(M(c, "slice", 3, l4, I(3), I(0)),
               "cannot slice(3, 0), start index must be less than or equal to end index");
    EXPECT_ERR(M(c, "slice", 3, l4, I(0), I(10)), "cannot slice(0, 10), list is length 4");
    EXPECT_ERR(M(c, "slice", 3, l4, I(-5), I(10)),
               "cannot slice(-5, 10), negative indexes not supported");
    EXPECT_ERR(M(c, "slice", 3, l4, I(1), I(-5)),
               "cannot slice(1, -5), negative indexes not supported");
    EXPECT_ERR(M(c, "slice", 3, S(c, "abc"), I(0), I(1)), NO_OVERLOAD);
}

static void test_flatten(void **state)
{
    dc_ectx *c = *state;
    EXPECT_LIST(c, M(c, "flatten", 1, L(c, 3, I(1), L(c, 2, I(2), I(3)), L(c, 1, I(4)))),
                L(c, 4, I(1), I(2), I(3), I(4)));
    dc_val nested = L(c, 2, I(1), L(c, 2, I(2), L(c, 2, I(3), I(4))));
    dc_val r = M(c, "flatten", 1, nested);
    check_no_error(r, __LINE__);
    assert_int_equal(r.u.l->n, 3);
    assert_int_equal(r.u.l->v[2].k, DC_K_LIST);
    EXPECT_LIST(c, M(c, "flatten", 1, L(c, 5, I(1), I(2), L(c, 0), L(c, 0), L(c, 2, I(3), I(4)))),
                L(c, 4, I(1), I(2), I(3), I(4)));
    dc_val deep = L(c, 2, I(1), L(c, 2, I(2), L(c, 2, I(3), L(c, 1, I(4)))));
    r = M(c, "flatten", 2, deep, I(2));
    check_no_error(r, __LINE__);
    assert_int_equal(r.u.l->n, 4);
    assert_int_equal(r.u.l->v[3].k, DC_K_LIST);
    EXPECT_LIST(c, M(c, "flatten", 2, deep, I(100)), L(c, 4, I(1), I(2), I(3), I(4)));
    r = M(c, "flatten", 2, deep, I(0));
    check_no_error(r, __LINE__);
    assert_int_equal(r.u.l->n, 2);
    EXPECT_ERR(M(c, "flatten", 2, deep, I(-1)), "level must be non-negative");
    EXPECT_LIST(c, M(c, "flatten", 1, L(c, 2, I(1), I(2))), L(c, 2, I(1), I(2)));
    EXPECT_LIST(c, M(c, "flatten", 1, L(c, 0)), L(c, 0));
    EXPECT_ERR(M(c, "flatten", 1, I(1)), NO_OVERLOAD);
}

static void test_distinct_reverse_range(void **state)
{
    dc_ectx *c = *state;
    EXPECT_LIST(c, M(c, "distinct", 1, L(c, 6, I(1), I(2), I(2), I(3), I(3), I(3))),
                L(c, 3, I(1), I(2), I(3)));
    EXPECT_LIST(c, M(c, "distinct", 1,
                     L(c, 5, S(c, "b"), S(c, "b"), S(c, "c"), S(c, "a"), S(c, "c"))),
                L(c, 3, S(c, "b"), S(c, "c"), S(c, "a")));
    EXPECT_LIST(c, M(c, "distinct", 1, L(c, 4, I(1), S(c, "b"), I(2), S(c, "b"))),
                L(c, 3, I(1), S(c, "b"), I(2)));
    EXPECT_LIST(c, M(c, "distinct", 1, L(c, 3, I(1), D(1.0), U(1))), L(c, 1, I(1)));
    EXPECT_LIST(c, M(c, "distinct", 1, L(c, 3, L(c, 1, I(1)), L(c, 1, D(1.0)), L(c, 0))),
                L(c, 2, L(c, 1, I(1)), L(c, 0)));
    EXPECT_LIST(c, M(c, "distinct", 1, L(c, 0)), L(c, 0));
    EXPECT_LIST(c, M(c, "reverse", 1, L(c, 4, I(5), I(3), I(1), I(2))),
                L(c, 4, I(2), I(1), I(3), I(5)));
    EXPECT_LIST(c, M(c, "reverse", 1, L(c, 0)), L(c, 0));
    EXPECT_LIST(c, G(c, "lists.range", 1, I(5)), L(c, 5, I(0), I(1), I(2), I(3), I(4)));
    EXPECT_LIST(c, G(c, "lists.range", 1, I(0)), L(c, 0));
    EXPECT_LIST(c, G(c, "lists.range", 1, I(-3)), L(c, 0));
    EXPECT_ERR(G(c, "lists.range", 1, D(1)), NO_OVERLOAD);
    EXPECT_ERR(M(c, "distinct", 1, S(c, "a")), NO_OVERLOAD);
    EXPECT_ERR(M(c, "reverse", 1, S(c, "ab")), NO_OVERLOAD);
}

static void test_sort(void **state)
{
    dc_ectx *c = *state;
    EXPECT_LIST(c, M(c, "sort", 1, L(c, 3, I(3), I(2), I(1))), L(c, 3, I(1), I(2), I(3)));
    EXPECT_LIST(c, M(c, "sort", 1, L(c, 3, S(c, "b"), S(c, "c"), S(c, "a"))),
                L(c, 3, S(c, "a"), S(c, "b"), S(c, "c")));
    EXPECT_LIST(c, M(c, "sort", 1, L(c, 3, BO(true), BO(false), BO(true))),
                L(c, 3, BO(false), BO(true), BO(true)));
    EXPECT_LIST(c, M(c, "sort", 1, L(c, 4, D(2.5), D(-1), D(0), D(1e9))),
                L(c, 4, D(-1), D(0), D(2.5), D(1e9)));
    EXPECT_LIST(c, M(c, "sort", 1, L(c, 3, U(3), U(1), U(2))), L(c, 3, U(1), U(2), U(3)));
    /* Code point order for strings ('\ue000' < '\U00010000'). */
    EXPECT_LIST(c, M(c, "sort", 1, L(c, 2, S(c, "\U00010000"), S(c, "\ue000"))),
                L(c, 2, S(c, "\ue000"), S(c, "\U00010000")));
    EXPECT_LIST(c, M(c, "sort", 1, L(c, 0)), L(c, 0));
    /* 20 elements (merge sort beyond Go's insertion-sort threshold). */
    dc_list *big = dc_list_new(c, 20);
    dc_list *want = dc_list_new(c, 20);
    for (int i = 0; i < 20; i++) {
        big->v[i] = I((i * 7) % 20);
        want->v[i] = I(i);
    }
    EXPECT_LIST(c, M(c, "sort", 1, dc_listval(big)), dc_listval(want));
    EXPECT_ERR(M(c, "sort", 1, L(c, 2, I(1), S(c, "b"))), "list elements must have the same type");
    EXPECT_ERR(M(c, "sort", 1, L(c, 2, I(1), D(2))), "list elements must have the same type");
    EXPECT_ERR(M(c, "sort", 1, L(c, 1, L(c, 3, I(1), I(2), I(3)))),
               "list elements must be comparable");
    EXPECT_ERR(M(c, "sort", 1, L(c, 1, dc_null())), "list elements must be comparable");
    /* sortBy's helper: stable, keys decide. */
    EXPECT_LIST(c, M(c, "@sortByAssociatedKeys", 2,
                     L(c, 3, S(c, "foo"), S(c, "bar"), S(c, "baz")), L(c, 3, I(3), I(1), I(2))),
                L(c, 3, S(c, "bar"), S(c, "baz"), S(c, "foo")));
    EXPECT_LIST(c, M(c, "@sortByAssociatedKeys", 2,
                     L(c, 4, S(c, "a"), S(c, "b"), S(c, "c"), S(c, "d")),
                     L(c, 4, I(1), I(0), I(1), I(0))),
                L(c, 4, S(c, "b"), S(c, "d"), S(c, "a"), S(c, "c")));
    EXPECT_ERR(M(c, "@sortByAssociatedKeys", 2, L(c, 2, I(1), I(2)), L(c, 1, I(1))),
               "@sortByAssociatedKeys() expected a list of the same size as the associated keys "
               "list, but got 2 and 1 elements respectively");
    EXPECT_ERR(M(c, "sort", 1, S(c, "cba")), NO_OVERLOAD);
}

/* ---------------------------------------------------------------------------------------------
 * Kubernetes lists library
 */

static void test_k8s_lists(void **state)
{
    dc_ectx *c = *state;
    EXPECT_BOOL(M(c, "isSorted", 1, L(c, 3, I(1), I(2), I(3))), true);
    EXPECT_BOOL(M(c, "isSorted", 1, L(c, 4, S(c, "a"), S(c, "b"), S(c, "b"), S(c, "c"))), true);
    EXPECT_BOOL(M(c, "isSorted", 1, L(c, 2, D(2.0), D(1.0))), false);
    EXPECT_BOOL(M(c, "isSorted", 1, L(c, 1, I(1))), true);
    EXPECT_BOOL(M(c, "isSorted", 1, L(c, 0)), true);
    EXPECT_ERR(M(c, "isSorted", 1, L(c, 1, L(c, 0))), NO_OVERLOAD);
    EXPECT_INT(M(c, "sum", 1, L(c, 2, I(1), I(3))), 4);
    EXPECT_DOUBLE(M(c, "sum", 1, L(c, 2, D(1.0), D(3.0))), 4.0);
    EXPECT_UINT(M(c, "sum", 1, L(c, 2, U(1), U(2))), 3);
    EXPECT_INT(M(c, "sum", 1, L(c, 0)), 0);
    EXPECT_DOUBLE(M(c, "sum", 1, L(c, 1, D(-0.0))), 0.0);
    EXPECT_ERR(M(c, "sum", 1, L(c, 2, I(INT64_MAX), I(1))), "integer overflow");
    EXPECT_ERR(M(c, "sum", 1, L(c, 2, U(UINT64_MAX), U(1))), "unsigned integer overflow");
    EXPECT_ERR(M(c, "sum", 1, L(c, 2, I(1), D(1))), NO_OVERLOAD);
    EXPECT_ERR(M(c, "sum", 1, L(c, 1, S(c, "a"))), NO_OVERLOAD);
    EXPECT_INT(M(c, "min", 1, L(c, 2, I(1), I(3))), 1);
    EXPECT_INT(M(c, "max", 1, L(c, 2, I(1), I(3))), 3);
    EXPECT_INT(M(c, "min", 1, L(c, 1, I(1))), 1);
    EXPECT_STR(M(c, "max", 1, L(c, 3, S(c, "b"), S(c, "é"), S(c, "a"))), "é");
    EXPECT_DOUBLE(M(c, "min", 1, L(c, 3, D(2), D(-7.5), D(3))), -7.5);
    EXPECT_ERR(M(c, "min", 1, L(c, 0)), "min called on empty list");
    EXPECT_ERR(M(c, "max", 1, L(c, 0)), "max called on empty list");
    EXPECT_ERR(M(c, "max", 1, L(c, 1, dc_null())), NO_OVERLOAD);
    EXPECT_INT(M(c, "indexOf", 2, L(c, 4, I(1), I(2), I(2), I(3)), I(2)), 1);
    EXPECT_INT(M(c, "lastIndexOf", 2, L(c, 4, S(c, "a"), S(c, "b"), S(c, "b"), S(c, "c")),
                 S(c, "b")), 2);
    EXPECT_INT(M(c, "indexOf", 2, L(c, 1, D(1.0)), D(1.1)), -1);
    EXPECT_INT(M(c, "indexOf", 2, L(c, 0), S(c, "string")), -1);
    EXPECT_INT(M(c, "lastIndexOf", 2, L(c, 0), I(1)), -1);
    EXPECT_INT(M(c, "indexOf", 2, L(c, 2, S(c, "x"), I(1)), D(1.0)), 1); /* numeric equality */
    EXPECT_INT(M(c, "indexOf", 2, L(c, 2, L(c, 1, I(1)), L(c, 1, I(2))), L(c, 1, U(2))), 1);
    EXPECT_BOOL(M(c, "includes", 2, L(c, 3, I(1), I(2), I(3)), I(2)), true);
    EXPECT_BOOL(M(c, "includes", 2, L(c, 3, I(1), I(2), I(3)), I(4)), false);
    EXPECT_BOOL(M(c, "includes", 2, S(c, "model-a"), S(c, "model-a")), true);
    EXPECT_BOOL(M(c, "includes", 2, S(c, "model-a"), S(c, "model-b")), false);
}

static void test_sets(void **state)
{
    dc_ectx *c = *state;
    EXPECT_BOOL(G(c, "sets.contains", 2, L(c, 0), L(c, 0)), true);
    EXPECT_BOOL(G(c, "sets.contains", 2, L(c, 1, I(1)), L(c, 0)), true);
    EXPECT_BOOL(G(c, "sets.contains", 2, L(c, 0), L(c, 1, I(1))), false);
    EXPECT_BOOL(G(c, "sets.contains", 2, L(c, 4, I(1), I(2), I(3), I(4)), L(c, 2, I(2), I(3))),
                true);
    EXPECT_BOOL(G(c, "sets.contains", 2, L(c, 2, I(1), I(2)), L(c, 1, I(3))), false);
    EXPECT_BOOL(G(c, "sets.contains", 2, L(c, 2, D(1.0), U(2)), L(c, 2, I(1), I(2))), true);
    EXPECT_BOOL(G(c, "sets.contains", 2, L(c, 2, L(c, 1, I(1)), L(c, 2, I(2), I(3))),
                  L(c, 1, L(c, 2, I(2), D(3.0)))),
                true);
    EXPECT_BOOL(G(c, "sets.equivalent", 2, L(c, 0), L(c, 0)), true);
    EXPECT_BOOL(G(c, "sets.equivalent", 2, L(c, 2, I(1), I(2)), L(c, 3, I(2), I(1), I(1))), true);
    EXPECT_BOOL(G(c, "sets.equivalent", 2, L(c, 1, I(1)), L(c, 2, I(1), I(2))), false);
    EXPECT_BOOL(G(c, "sets.equivalent", 2, L(c, 3, I(1), I(2), I(3)),
                  L(c, 3, U(3), D(2.0), I(1))),
                true);
    EXPECT_BOOL(G(c, "sets.intersects", 2, L(c, 1, I(1)), L(c, 0)), false);
    EXPECT_BOOL(G(c, "sets.intersects", 2, L(c, 0), L(c, 1, I(1))), false);
    EXPECT_BOOL(G(c, "sets.intersects", 2, L(c, 1, I(1)), L(c, 2, I(1), I(2))), true);
    EXPECT_BOOL(G(c, "sets.intersects", 2, L(c, 2, L(c, 1, I(1)), L(c, 2, I(2), I(3))),
                  L(c, 2, L(c, 2, I(1), I(2)), L(c, 2, I(2), D(3.0)))),
                true);
    EXPECT_BOOL(G(c, "sets.intersects", 2, L(c, 2, S(c, "a"), I(1)), L(c, 1, S(c, "b"))), false);
    EXPECT_ERR(G(c, "sets.contains", 2, I(1), L(c, 0)), NO_OVERLOAD);
    EXPECT_ERR(G(c, "sets.intersects", 2, L(c, 0), MAP(c, 0)), NO_OVERLOAD);
}

/* ---------------------------------------------------------------------------------------------
 * Cost, cost limit and memory limit
 */

static void test_costs(void **state)
{
    dc_ectx *c = *state;
    dc_val s25 = S(c, "abcdefghijklmnopqrstuvwxy"); /* 25 code points */
    dc_val s15 = S(c, "abcdefghijklmno");
    dc_val u10 = S(c, "éééééééééé"); /* 10 code points, 20 bytes */
    c->cost = 0;
    M(c, "startsWith", 2, s25, S(c, "a"));
    assert_int_equal(c->cost, 3); /* ceil(2.5) */
    c->cost = 0;
    M(c, "contains", 2, s25, s15);
    assert_int_equal(c->cost, 6); /* 3 * 2 */
    c->cost = 0;
    M(c, "contains", 2, s25, S(c, ""));
    assert_int_equal(c->cost, 0);
    c->cost = 0;
    M(c, "endsWith", 2, u10, S(c, "é"));
    assert_int_equal(c->cost, 1); /* code points, not bytes */
    c->cost = 0;
    M(c, "size", 1, s25);
    assert_int_equal(c->cost, 0);
    c->cost = 0;
    M(c, "split", 2, s25, S(c, ","));
    assert_int_equal(c->cost, 5); /* ceil(25 * 2 * 0.1) */
    c->cost = 0;
    M(c, "indexOf", 2, u10, S(c, "x"));
    assert_int_equal(c->cost, 2); /* trunc(20 bytes * 0.1) */
    c->cost = 0;
    M(c, "join", 2, L(c, 2, s25, s15), S(c, "-"));
    assert_int_equal(c->cost, 9); /* ceil(41 * 2 * 0.1) */
    c->cost = 0;
    M(c, "indexOf", 2, L(c, 3, I(1), s25, s15), I(9));
    assert_int_equal(c->cost, 1 + 2 + 1);
    c->cost = 0;
    G(c, "sets.equivalent", 2, L(c, 2, I(1), I(2)), L(c, 3, I(1), I(2), I(3)));
    assert_int_equal(c->cost, 12);
    c->cost = 0;
    G(c, "lists.range", 1, I(7));
    assert_int_equal(c->cost, 7);
    c->cost = 0;
    G(c, "bytes", 1, s25);
    assert_int_equal(c->cost, 3);
    c->cost = 0;

    /* Over the limit: an error value at once, and no huge allocation. */
    c->cost_limit = 100;
    dc_val r = G(c, "lists.range", 1, I(1000000000));
    EXPECT_ERR(r, "operation cancelled: actual cost limit exceeded");
    assert_true(c->cost_exceeded);
    c->cost_limit = 0;
    c->cost_exceeded = false;
    c->cost = 0;
}

static void test_oom(void **state)
{
    dc_ectx *c = *state;
    c->mem_base = c->arena.served; /* what this evaluation asks for from here */
    c->mem_limit = 64;
    dc_val big = G(c, "lists.range", 1, I(100000));
    assert_int_equal(big.k, DC_K_ERROR);
    assert_true(c->oom);
    c->oom = false;
    c->mem_limit = 0;
    /* A string result too large for a tiny limit. */
    dc_val s = S(c, "abcdefghijklmnopqrstuvwxyz"), empty = S(c, ""), digits = S(c, "0123456789");
    c->mem_base = c->arena.served;
    c->mem_limit = 16;
    dc_val r = M(c, "replace", 3, s, empty, digits);
    assert_int_equal(r.k, DC_K_ERROR);
    assert_true(c->oom);
    c->oom = false;
    c->mem_limit = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_unique),
        cmocka_unit_test_setup_teardown(test_int_conv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uint_conv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_double_conv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bool_conv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_string_conv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bytes_dyn_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_contains_prefix_suffix, setup, teardown),
        cmocka_unit_test_setup_teardown(test_char_at, setup, teardown),
        cmocka_unit_test_setup_teardown(test_index_of, setup, teardown),
        cmocka_unit_test_setup_teardown(test_last_index_of, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ascii_case, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_split, setup, teardown),
        cmocka_unit_test_setup_teardown(test_substring, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trim, setup, teardown),
        cmocka_unit_test_setup_teardown(test_join, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quote, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_basic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_float, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flatten, setup, teardown),
        cmocka_unit_test_setup_teardown(test_distinct_reverse_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_k8s_lists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_costs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
