/*
 * test_host.c: host functions (dracel_env_add_function) and activations through the public
 * API, where case files cannot reach: every C type mapping; member and global overloads and
 * cel-go's rules for declaring them (collisions, redefinitions, library functions); errors and
 * results the functions give (copies, NULL, sizes, UTF-8); how often the VMs call a pure and an
 * impure function over a table; declared costs in the static estimate and at run time; four
 * threads sharing a program; a program outliving its environment; programs evaluated with
 * another environment's variables; activations (setters, device rows against device JSON over
 * the sample fleets, typed results); an allocation-failure sweep over declaring and calling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "dracel.h"
#include "slices.h"
#include "testutil.h"

/* ---- Helpers. */

static dracel_env *new_env(dracel_env_kind kind)
{
    dracel_env *env = NULL;
    assert_int_equal(dracel_env_new(NULL, kind, &env), DRACEL_OK);
    return env;
}

static void declare(dracel_env *env, const char *name, const char *id, bool member,
                    uint32_t n, const dracel_type *params, dracel_type result, dracel_host_fn fn,
                    void *data, unsigned flags)
{
    dracel_function f;
    dracel_function_init(&f);
    f.name = name;
    f.overload_id = id;
    f.member = member;
    f.nparams = n;
    for (uint32_t i = 0; i < n; i++)
        f.params[i] = params[i];
    f.result = result;
    f.fn = fn;
    f.data = data;
    f.flags = flags;
    char err[256] = "";
    if (dracel_env_add_function(env, &f, err, sizeof err) != DRACEL_OK)
        fail_msg("declaring %s (%s): %s", name, id, err);
}

/* Compile (failing the test on a diagnostic) and evaluate; the result is the caller's. */
static dracel_program *compile_ok(const dracel_env *env, const char *src, unsigned flags)
{
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    dracel_status st = dracel_compile(env, src, strlen(src), flags, &p, &d);
    if (st != DRACEL_OK) {
        char *text = d ? dracel_diags_render(d, "<input>") : NULL;
        fail_msg("compiling %s: %s", src, text ? text : "?");
    }
    dracel_diags_free(d);
    return p;
}

static dracel_result *eval_ok(const dracel_env *env, const char *src)
{
    dracel_program *p = compile_ok(env, src, DRACEL_COMPILE_ANY_RESULT);
    dracel_result *r = NULL;
    assert_int_equal(dracel_eval(p, env, &r), DRACEL_OK);
    dracel_program_free(p);
    return r;
}

/* The result of src as typed JSON (malloc'ed). */
static char *eval_json(const dracel_env *env, const char *src)
{
    dracel_result *r = eval_ok(env, src);
    char *j = dracel_result_json(r);
    char *copy = strdup(j);
    dracel_free_string(NULL, j);
    dracel_result_free(r);
    return copy;
}

static void expect_json(const dracel_env *env, const char *src, const char *want)
{
    char *got = eval_json(env, src);
    if (strcmp(got, want) != 0)
        fail_msg("%s: got %s, want %s", src, got, want);
    free(got);
}

/* The first diagnostic of a compilation that must fail. */
static void expect_compile_error(const dracel_env *env, const char *src, const char *want)
{
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    assert_int_equal(dracel_compile(env, src, strlen(src), 0, &p, &d), DRACEL_EINPUT);
    dracel_diag_info info;
    assert_int_equal(dracel_diags_get(d, 0, &info), DRACEL_OK);
    if (strcmp(info.message, want) != 0)
        fail_msg("%s: got '%s', want '%s'", src, info.message, want);
    dracel_diags_free(d);
}

static const dracel_type T_B[] = {DRACEL_TYPE_BOOL}, T_I[] = {DRACEL_TYPE_INT},
                         T_U[] = {DRACEL_TYPE_UINT}, T_D[] = {DRACEL_TYPE_DOUBLE},
                         T_S[] = {DRACEL_TYPE_STRING}, T_Y[] = {DRACEL_TYPE_BYTES},
                         T_II[] = {DRACEL_TYPE_INT, DRACEL_TYPE_INT},
                         T_SI[] = {DRACEL_TYPE_STRING, DRACEL_TYPE_INT};

/* ---- Functions. */

static bool f_not(dracel_host_ctx *x, bool b)
{
    (void)x;
    return !b;
}

static int64_t f_neg(dracel_host_ctx *x, int64_t v)
{
    if (v == INT64_MIN) {
        dracel_host_error(x, "integer overflow");
        return 0;
    }
    return -v;
}

static uint64_t f_inc(dracel_host_ctx *x, uint64_t v)
{
    (void)x;
    return v + 1; /* wraps at UINT64_MAX: the test shows what the C function computed */
}

static double f_half(dracel_host_ctx *x, double v)
{
    (void)x;
    return v / 2;
}

/* Echo the string, checking that it is NUL-terminated at len. */
static void f_echo(dracel_host_ctx *x, const char *s, size_t n)
{
    if (s[n] != '\0') {
        dracel_host_error(x, "not NUL-terminated");
        return;
    }
    dracel_host_return_string(x, s, n);
}

static void f_xor(dracel_host_ctx *x, const unsigned char *b, size_t n)
{
    unsigned char buf[32];
    if (n > sizeof buf) {
        dracel_host_error(x, "too long");
        return;
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = b[i] ^ 0xFF;
    dracel_host_return_bytes(x, buf, n);
}

static bool f_is_odd(dracel_host_ctx *x, int64_t v)
{
    (void)x;
    return v & 1;
}

static double f_ratio(dracel_host_ctx *x, int64_t a, int64_t b)
{
    if (b == 0) {
        dracel_host_error(x, "ratio: division by zero");
        return 0;
    }
    return (double)a / (double)b;
}

static void f_repeat(dracel_host_ctx *x, const char *s, size_t n, int64_t k)
{
    char buf[256];
    size_t len = 0;
    for (int64_t i = 0; i < k && len + n <= sizeof buf; i++, len += n)
        memcpy(buf + len, s, n);
    dracel_host_return_string(x, buf, len);
}

static void test_type_mappings(void **state)
{
    (void)state;
    dracel_env *env = new_env(DRACEL_ENV_PLAIN);
    declare(env, "t.not", "not_bool", false, 1, T_B, DRACEL_TYPE_BOOL, DRACEL_HOST_FN(f_not), NULL, 0);
    declare(env, "t.neg", "neg_int", false, 1, T_I, DRACEL_TYPE_INT, DRACEL_HOST_FN(f_neg), NULL, 0);
    declare(env, "t.inc", "inc_uint", false, 1, T_U, DRACEL_TYPE_UINT, DRACEL_HOST_FN(f_inc), NULL, 0);
    declare(env, "t.half", "half_double", false, 1, T_D, DRACEL_TYPE_DOUBLE, DRACEL_HOST_FN(f_half), NULL, 0);
    declare(env, "t.echo", "echo_string", false, 1, T_S, DRACEL_TYPE_STRING, DRACEL_HOST_FN(f_echo), NULL, 0);
    declare(env, "t.xor", "xor_bytes", false, 1, T_Y, DRACEL_TYPE_BYTES, DRACEL_HOST_FN(f_xor), NULL, 0);
    declare(env, "isOdd", "int_is_odd", true, 1, T_I, DRACEL_TYPE_BOOL, DRACEL_HOST_FN(f_is_odd), NULL, 0);
    declare(env, "t.ratio", "ratio_int_int", false, 2, T_II, DRACEL_TYPE_DOUBLE, DRACEL_HOST_FN(f_ratio), NULL, 0);
    declare(env, "repeat", "string_repeat_int", true, 2, T_SI, DRACEL_TYPE_STRING, DRACEL_HOST_FN(f_repeat), NULL, 0);

    dracel_result *r;
    int64_t i;
    uint64_t u;
    double d;
    const char *s;
    const void *y;
    size_t n;

    r = eval_ok(env, "t.not(true)");
    assert_int_equal(dracel_result_bool(r), 0);
    dracel_result_free(r);
    r = eval_ok(env, "t.neg(-9223372036854775807)");
    assert_int_equal(dracel_result_int(r, &i), DRACEL_OK);
    assert_true(i == INT64_MAX);
    dracel_result_free(r);
    r = eval_ok(env, "t.neg(-9223372036854775807 - 1)");
    assert_string_equal(dracel_result_error(r), "integer overflow");
    assert_int_equal(dracel_result_int(r, &i), DRACEL_EINVAL);
    dracel_result_free(r);
    r = eval_ok(env, "t.inc(18446744073709551614u)");
    assert_int_equal(dracel_result_uint(r, &u), DRACEL_OK);
    assert_true(u == UINT64_MAX);
    dracel_result_free(r);
    r = eval_ok(env, "t.half(-3.0)");
    assert_int_equal(dracel_result_double(r, &d), DRACEL_OK);
    assert_true(d == -1.5);
    dracel_result_free(r);
    r = eval_ok(env, "t.half(1.0 / 0.0)");
    assert_int_equal(dracel_result_double(r, &d), DRACEL_OK);
    assert_true(isinf(d));
    dracel_result_free(r);
    /* A string with a NUL inside, and non-ASCII. */
    r = eval_ok(env, "t.echo('a\\x00é')");
    assert_int_equal(dracel_result_string(r, &s, &n), DRACEL_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(s, "a\0\xc3\xa9", 4);
    assert_int_equal(s[n], '\0');
    dracel_result_free(r);
    r = eval_ok(env, "t.echo('')");
    assert_int_equal(dracel_result_string(r, &s, &n), DRACEL_OK);
    assert_int_equal(n, 0);
    dracel_result_free(r);
    r = eval_ok(env, "t.xor(b'\\x00\\x0f\\xff')");
    assert_int_equal(dracel_result_bytes(r, &y, &n), DRACEL_OK);
    assert_int_equal(n, 3);
    assert_memory_equal(y, "\xff\xf0\x00", 3);
    assert_int_equal(dracel_result_string(r, &s, &n), DRACEL_EINVAL);
    dracel_result_free(r);
    expect_json(env, "[7.isOdd(), (-2).isOdd()]", "{\"list\":[{\"bool\":true},{\"bool\":false}]}");
    expect_json(env, "t.ratio(1, 4)", "{\"double\":0.25}");
    expect_json(env, "t.ratio(1, 0)", "{\"error\":\"ratio: division by zero\"}");
    expect_json(env, "'ab'.repeat(3)", "{\"string\":\"ababab\"}");
    /* Results are values like any other. */
    expect_json(env, "t.echo('x') + t.echo('y') == 'xy' && t.xor(t.xor(b'q')) == b'q'",
                "{\"bool\":true}");
    /* The checker's view: result types, and no implicit conversion. */
    expect_compile_error(env, "t.half(1)", "found no matching overload for 't.half' applied to '(int)'");
    expect_compile_error(env, "t.ratio(1, 2) + 1", "found no matching overload for '_+_' applied to '(double, int)'");
    expect_compile_error(env, "1u.isOdd()", "found no matching overload for 'isOdd' applied to 'uint.()'");
    expect_compile_error(env, "t.xor('s')", "found no matching overload for 't.xor' applied to '(string)'");
    dracel_env_free(env);
}

/* ---- Declarations: cel-go's rules. */

static int64_t f_one(dracel_host_ctx *x, int64_t v)
{
    (void)x;
    (void)v;
    return 1;
}

static int64_t f_two(dracel_host_ctx *x, int64_t v)
{
    (void)x;
    (void)v;
    return 2;
}

static dracel_status try_declare(dracel_env *env, const dracel_function *f, char *err, size_t cap)
{
    err[0] = '\0';
    return dracel_env_add_function(env, f, err, cap);
}

static void test_declarations(void **state)
{
    (void)state;
    dracel_env *env = new_env(DRACEL_ENV_PLAIN);
    char err[256];
    dracel_function f;
    dracel_function_init(&f);
    assert_int_equal(f.size, sizeof f);
    assert_int_equal(f.cost, 1);
    assert_int_equal(f.max_result_bytes, DRACEL_DEFAULT_MAX_RESULT);
    f.name = "u.f";
    f.overload_id = "f_int";
    f.nparams = 1;
    f.params[0] = DRACEL_TYPE_INT;
    f.result = DRACEL_TYPE_INT;
    f.fn = DRACEL_HOST_FN(f_one);
    assert_int_equal(try_declare(env, &f, err, sizeof err), DRACEL_OK);

    /* A new id whose signature overlaps: refused. */
    dracel_function g = f;
    g.overload_id = "f_int_again";
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, "overload signature collision in function u.f: f_int collides with f_int_again");
    /* The same id with another signature: refused. */
    g = f;
    g.params[0] = DRACEL_TYPE_UINT;
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, "overload redefinition in function. u.f: f_int has multiple definitions");
    g = f;
    g.result = DRACEL_TYPE_UINT;
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_EINVAL);
    /* Another arity, style or type is another overload. */
    g = f;
    g.overload_id = "f_uint";
    g.params[0] = DRACEL_TYPE_UINT;
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_OK);

    /* The same id and signature again: the new function serves later compilations, earlier
     * programs keep theirs. */
    dracel_program *before = compile_ok(env, "u.f(5)", 0);
    g = f;
    g.fn = DRACEL_HOST_FN(f_two);
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_OK);
    dracel_program *after = compile_ok(env, "u.f(5)", 0);
    dracel_result *r;
    int64_t v;
    assert_int_equal(dracel_eval(before, env, &r), DRACEL_OK);
    assert_int_equal(dracel_result_int(r, &v), DRACEL_OK);
    assert_int_equal(v, 1);
    dracel_result_free(r);
    assert_int_equal(dracel_eval(after, env, &r), DRACEL_OK);
    assert_int_equal(dracel_result_int(r, &v), DRACEL_OK);
    assert_int_equal(v, 2);
    dracel_result_free(r);
    dracel_program_free(before);
    dracel_program_free(after);

    /* Library functions: an overload may be added, none replaced or overlapped. */
    g = f;
    g.name = "size";
    g.overload_id = "size_string";
    g.params[0] = DRACEL_TYPE_STRING;
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, "overload size_string of function size belongs to the library: a host function cannot redefine it");
    g.overload_id = "my_size_string";
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, "overload signature collision in function size: size_string collides with my_size_string");
    g.member = true;
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, "overload signature collision in function size: string_size collides with my_size_string");
    /* dyn(A): a type parameter overlaps everything. */
    g = f;
    g.name = "dyn";
    g.overload_id = "dyn_int";
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, "overload signature collision in function dyn: to_dyn collides with dyn_int");
    /* size(bool) is new. */
    g = f;
    g.name = "size";
    g.overload_id = "size_bool";
    g.params[0] = DRACEL_TYPE_BOOL;
    assert_int_equal(try_declare(env, &g, err, sizeof err), DRACEL_OK);
    expect_json(env, "[size(true), size('ab')]", "{\"list\":[{\"int\":\"1\"},{\"int\":\"2\"}]}");

    /* Malformed declarations. */
    static const struct {
        const char *what;
        int field;
    } cases[] = {{"no name", 0}, {"no id", 1}, {"no fn", 2}, {"9 params", 3},
                 {"member without receiver", 4}, {"bad param type", 5}, {"bad result type", 6},
                 {"unknown flag", 7}, {"negative factor", 8}, {"NaN factor", 9},
                 {"result limit", 10}, {"bad name", 11}, {"dotted member", 12},
                 {"old size", 13}, {"nonzero tail", 14}, {"leading dot", 15}, {"empty id", 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct {
            dracel_function f;
            char tail[8];
        } big;
        memset(&big, 0, sizeof big);
        big.f = f;
        big.f.overload_id = "fresh";
        big.f.name = "fresh.fn";
        switch (cases[i].field) {
        case 0: big.f.name = NULL; break;
        case 1: big.f.overload_id = NULL; break;
        case 2: big.f.fn = NULL; break;
        case 3: big.f.nparams = 9; break;
        case 4: big.f.member = true; big.f.nparams = 0; break;
        case 5: big.f.params[0] = (dracel_type)0; break;
        case 6: big.f.result = (dracel_type)7; break;
        case 7: big.f.flags = 2; break;
        case 8: big.f.size_cost_factor = -1; break;
        case 9: big.f.size_cost_factor = NAN; break;
        case 10: big.f.max_result_bytes = (size_t)UINT32_MAX; break;
        case 11: big.f.name = "a b"; break;
        case 12: big.f.name = "a.b"; big.f.member = true; break;
        case 13: big.f.size = sizeof(size_t); break;
        case 14: big.f.size = sizeof big; big.tail[3] = 1; break;
        case 15: big.f.name = ".x"; break;
        case 16: big.f.overload_id = ""; break;
        }
        if (try_declare(env, &big.f, err, sizeof err) != DRACEL_EINVAL)
            fail_msg("%s: accepted", cases[i].what);
        if (!err[0])
            fail_msg("%s: no message", cases[i].what);
    }
    /* A newer caller's larger struct with a zero tail is fine. */
    struct {
        dracel_function f;
        char tail[8];
    } newer;
    memset(&newer, 0, sizeof newer);
    newer.f = f;
    newer.f.size = sizeof newer;
    newer.f.name = "newer";
    assert_int_equal(try_declare(env, &newer.f, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_env_add_function(NULL, &f, NULL, 0), DRACEL_EINVAL);
    assert_int_equal(dracel_env_add_function(env, NULL, NULL, 0), DRACEL_EINVAL);
    dracel_function_init(NULL); /* harmless */
    dracel_env_free(env);
}

/* ---- Errors and results. */

static bool f_err_null(dracel_host_ctx *x)
{
    dracel_host_error(x, NULL);
    return true;
}

static bool f_err_twice(dracel_host_ctx *x)
{
    dracel_host_error(x, "first");
    dracel_host_error(x, "second");
    return true;
}

static bool f_err_bad_utf8(dracel_host_ctx *x)
{
    dracel_host_error(x, "bad \xff\xfe byte \xc3\xa9");
    return true;
}

static void f_err_after_result(dracel_host_ctx *x)
{
    dracel_host_return_string(x, "ok", 2);
    dracel_host_error(x, "changed my mind");
}

static void f_result_twice(dracel_host_ctx *x)
{
    dracel_host_return_string(x, "one", 3);
    dracel_host_return_string(x, "two", 3);
}

/* Returns its number in a static buffer that the next call overwrites. */
static void f_static_buf(dracel_host_ctx *x, int64_t v)
{
    static char buf[32];
    int n = snprintf(buf, sizeof buf, "n%lld", (long long)v);
    dracel_host_return_string(x, buf, (size_t)n);
    memset(buf, '#', sizeof buf);
}

static void f_nul_ok(dracel_host_ctx *x)
{
    dracel_host_return_string(x, "a\0b", 3);
}

static void f_data(dracel_host_ctx *x)
{
    const char *s = dracel_host_data(x);
    dracel_host_return_string(x, s, strlen(s));
}

static void test_errors_and_results(void **state)
{
    (void)state;
    dracel_env *env = new_env(DRACEL_ENV_PLAIN);
    declare(env, "e.nil", "e_nil", false, 0, NULL, DRACEL_TYPE_BOOL, DRACEL_HOST_FN(f_err_null), NULL, 0);
    declare(env, "e.twice", "e_twice", false, 0, NULL, DRACEL_TYPE_BOOL, DRACEL_HOST_FN(f_err_twice), NULL, 0);
    declare(env, "e.utf8", "e_utf8", false, 0, NULL, DRACEL_TYPE_BOOL, DRACEL_HOST_FN(f_err_bad_utf8), NULL, 0);
    declare(env, "e.after", "e_after", false, 0, NULL, DRACEL_TYPE_STRING, DRACEL_HOST_FN(f_err_after_result), NULL, 0);
    declare(env, "e.two", "e_two", false, 0, NULL, DRACEL_TYPE_STRING, DRACEL_HOST_FN(f_result_twice), NULL, 0);
    declare(env, "e.buf", "e_buf", false, 1, T_I, DRACEL_TYPE_STRING, DRACEL_HOST_FN(f_static_buf), NULL, 0);
    declare(env, "e.nul", "e_nul", false, 0, NULL, DRACEL_TYPE_STRING, DRACEL_HOST_FN(f_nul_ok), NULL, 0);
    static const char datum[] = "from data";
    declare(env, "e.data", "e_data", false, 0, NULL, DRACEL_TYPE_STRING, DRACEL_HOST_FN(f_data), (void *)datum, 0);
    expect_json(env, "e.nil()", "{\"error\":\"host function 'e.nil' failed\"}");
    expect_json(env, "e.twice()", "{\"error\":\"first\"}");
    expect_json(env, "e.utf8()", "{\"error\":\"bad ?? byte \xc3\xa9\"}");
    expect_json(env, "e.after()", "{\"error\":\"changed my mind\"}");
    expect_json(env, "e.two()", "{\"string\":\"two\"}");
    /* Each result was copied when it was returned: the buffer's later changes do not show. */
    expect_json(env, "[e.buf(1), e.buf(22), e.buf(333)]",
                "{\"list\":[{\"string\":\"n1\"},{\"string\":\"n22\"},{\"string\":\"n333\"}]}");
    expect_json(env, "e.nul().size()", "{\"int\":\"3\"}");
    expect_json(env, "e.data()", "{\"string\":\"from data\"}");
    /* Errors are values: absorbed by || and &&, chosen by ?:, kept by a comprehension. */
    expect_json(env, "e.twice() || true", "{\"bool\":true}");
    expect_json(env, "true ? 1 : (e.twice() ? 2 : 3)", "{\"int\":\"1\"}");
    expect_json(env, "[1, 2].exists(i, i == 2 || e.twice())", "{\"bool\":true}");
    expect_json(env, "[1, 2].all(i, i == 2 || e.twice())", "{\"error\":\"first\"}");
    /* The error of a DRA selector (a bool) flows to the selection. */
    dracel_env_free(env);

    /* The evaluation memory limit counts a copied result. */
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.eval_memory_limit = 4096;
    assert_int_equal(dracel_env_new(&cfg, DRACEL_ENV_PLAIN, &env), DRACEL_OK);
    declare(env, "repeat", "string_repeat_int", true, 2, T_SI, DRACEL_TYPE_STRING, DRACEL_HOST_FN(f_repeat), NULL, 0);
    expect_json(env, "'0123456789'.repeat(20).size()", "{\"int\":\"200\"}");
    expect_json(env, "lists.range(40).map(i, '0123456789abcdef'.repeat(16)).size()",
                "{\"error\":\"out of memory\"}");
    dracel_env_free(env);
}

/* ---- How often the VMs call: pure functions once per distinct value over a table. */

typedef struct counter {
    long calls;
} counter;

static int64_t f_count_len(dracel_host_ctx *x, const char *s, size_t n)
{
    (void)s;
    counter *c = dracel_host_data(x);
    __atomic_add_fetch(&c->calls, 1, __ATOMIC_RELAXED);
    return (int64_t)n;
}

/* A fleet of n devices whose model cycles through `models` distinct strings. */
static dracel_table *model_fleet(uint32_t n, uint32_t models)
{
    enum { PER_SLICE = 100 }; /* Kubernetes allows 128 devices per slice */
    uint32_t nslices = (n + PER_SLICE - 1) / PER_SLICE;
    size_t cap = 256 + (size_t)nslices * 300 + (size_t)n * 96;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t len = (size_t)snprintf(buf, cap, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (uint32_t s = 0; s < nslices; s++) {
        len += (size_t)snprintf(buf + len, cap - len,
                                "%s{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\","
                                "\"metadata\":{\"name\":\"s%u\"},\"spec\":{\"driver\":\"gpu.example.com\","
                                "\"nodeName\":\"n\",\"pool\":{\"name\":\"p\",\"generation\":1,"
                                "\"resourceSliceCount\":%u},\"devices\":[",
                                s ? "," : "", s, nslices);
        for (uint32_t i = s * PER_SLICE; i < n && i < (s + 1) * PER_SLICE; i++)
            len += (size_t)snprintf(buf + len, cap - len,
                                    "%s{\"name\":\"d%u\",\"attributes\":{\"model\":{\"string\":\"model-%u\"}}}",
                                    i > s * PER_SLICE ? "," : "", i, i % models);
        len += (size_t)snprintf(buf + len, cap - len, "]}}");
    }
    len += (size_t)snprintf(buf + len, cap - len, "]}");
    dracel_table *t = NULL;
    char err[256];
    if (dracel_table_load_buffer(NULL, "fleet", buf, len, &t, err, sizeof err) != DRACEL_OK)
        fail_msg("fleet: %s", err);
    free(buf);
    return t;
}

static long calls_of_select(const dracel_bound *b, const dracel_env *env, unsigned vm,
                            uint32_t batch, counter *c, uint32_t rows)
{
    dracel_selection *sel;
    assert_int_equal(dracel_selection_new(NULL, &sel), DRACEL_OK);
    dracel_select_opts o;
    dracel_select_opts_init(&o);
    o.vm = vm;
    o.batch = batch;
    c->calls = 0;
    assert_int_equal(dracel_select(b, env, &o, sel), DRACEL_OK);
    /* Every model has a length of 7: all rows match. */
    for (uint32_t r = 0; r < rows; r++)
        assert_true((dracel_selection_matched(sel)[r / 64] >> (r % 64)) & 1);
    dracel_selection_free(sel);
    return c->calls;
}

static void test_pure_and_impure_calls(void **state)
{
    (void)state;
    enum { ROWS = 300, MODELS = 3 };
    dracel_table *t = model_fleet(ROWS, MODELS);
    counter pure = {0}, impure = {0};
    dracel_env *env = new_env(DRACEL_ENV_DRA);
    declare(env, "pureLen", "string_pure_len", true, 1, T_S, DRACEL_TYPE_INT,
            DRACEL_HOST_FN(f_count_len), &pure, DRACEL_FUNCTION_PURE);
    declare(env, "impureLen", "string_impure_len", true, 1, T_S, DRACEL_TYPE_INT,
            DRACEL_HOST_FN(f_count_len), &impure, 0);
    dracel_program *pp = compile_ok(env, "device.attributes[\"gpu.example.com\"].model.pureLen() == 7", 0);
    dracel_program *ip = compile_ok(env, "device.attributes[\"gpu.example.com\"].model.impureLen() == 7", 0);
    /* Impure calls only where the scalar VM would make them: the right of && is skipped. */
    dracel_program *sp = compile_ok(env, "device.attributes[\"gpu.example.com\"].model == 'model-1' && "
                                         "device.attributes[\"gpu.example.com\"].model.impureLen() == 7", 0);
    dracel_bound *pb, *ib, *sb;
    assert_int_equal(dracel_bind(pp, t, &pb), DRACEL_OK);
    assert_int_equal(dracel_bind(ip, t, &ib), DRACEL_OK);
    assert_int_equal(dracel_bind(sp, t, &sb), DRACEL_OK);
    static const uint32_t batches[] = {0, 1, 63, 64, 65, 1025};
    for (size_t k = 0; k < sizeof batches / sizeof batches[0]; k++) {
        /* The batch interpreter calls a pure function once per distinct value of its column. */
        assert_int_equal(calls_of_select(pb, env, DRACEL_VM_BATCHED, batches[k], &pure, ROWS), MODELS);
        assert_int_equal(calls_of_select(ib, env, DRACEL_VM_BATCHED, batches[k], &impure, ROWS), ROWS);
    }
    /* The vector VM as users call it: no fused kernels for host functions, the same calls. */
    assert_int_equal(calls_of_select(pb, env, DRACEL_VM_VECTOR, 0, &pure, ROWS), MODELS);
    assert_int_equal(calls_of_select(ib, env, DRACEL_VM_VECTOR, 0, &impure, ROWS), ROWS);
    /* The scalar VM calls once per row either way. */
    assert_int_equal(calls_of_select(pb, env, DRACEL_VM_SCALAR, 0, &pure, ROWS), ROWS);
    assert_int_equal(calls_of_select(ib, env, DRACEL_VM_SCALAR, 0, &impure, ROWS), ROWS);
    /* Short-circuit: only the model-1 rows reach the impure call, on every VM. */
    static const unsigned vms[] = {DRACEL_VM_SCALAR, DRACEL_VM_BATCHED, DRACEL_VM_VECTOR};
    for (size_t k = 0; k < 3; k++) {
        dracel_selection *sel;
        assert_int_equal(dracel_selection_new(NULL, &sel), DRACEL_OK);
        dracel_select_opts o;
        dracel_select_opts_init(&o);
        o.vm = vms[k];
        impure.calls = 0;
        assert_int_equal(dracel_select(sb, env, &o, sel), DRACEL_OK);
        assert_int_equal(impure.calls, ROWS / MODELS);
        dracel_selection_free(sel);
    }
    dracel_bound_free(pb);
    dracel_bound_free(ib);
    dracel_bound_free(sb);
    dracel_program_free(pp);
    dracel_program_free(ip);
    dracel_program_free(sp);
    dracel_env_free(env);
    dracel_table_free(t);
}

/* ---- Cost. */

static void test_cost(void **state)
{
    (void)state;
    dracel_env *env = new_env(DRACEL_ENV_PLAIN);
    dracel_function f;
    dracel_function_init(&f);
    f.name = "c.len";
    f.overload_id = "c_len_string";
    f.nparams = 1;
    f.params[0] = DRACEL_TYPE_STRING;
    f.result = DRACEL_TYPE_INT;
    f.fn = DRACEL_HOST_FN(f_count_len);
    counter cnt = {0};
    f.data = &cnt;
    f.cost = 7;
    f.size_cost_factor = 0.5;
    char err[256];
    assert_int_equal(dracel_env_add_function(env, &f, err, sizeof err), DRACEL_OK);
    /* 7 + ceil(5 code points x 0.5) = 10, statically and at run time. */
    dracel_program *p = compile_ok(env, "c.len('abcdé')", DRACEL_COMPILE_ESTIMATE_COST);
    uint64_t lo, hi;
    dracel_program_cost(p, &lo, &hi);
    assert_int_equal(lo, 10);
    assert_int_equal(hi, 10);
    dracel_result *r;
    assert_int_equal(dracel_eval(p, env, &r), DRACEL_OK);
    assert_int_equal(dracel_result_cost(r), 10);
    dracel_result_free(r);
    dracel_program_free(p);
    /* A string of unknown size [0, 2^64 - 1]: 1 for the variable, then 7 + ceil(size x 0.5),
     * as cel-go multiplies a cost factor (ceil of the product in double). */
    assert_int_equal(dracel_env_bind_json(env, "s", "{\"string\":\"xy\"}", 15, err, sizeof err), DRACEL_OK);
    p = compile_ok(env, "c.len(s)", DRACEL_COMPILE_ESTIMATE_COST);
    dracel_program_cost(p, &lo, &hi);
    assert_int_equal(lo, 8);
    assert_true(hi == ((uint64_t)1 << 63) + 8);
    dracel_program_free(p);
    dracel_env_free(env);

    /* DRA: an attribute string is at most 64 characters (Kubernetes' bound), so the factor adds
     * 0 to 64 units; a declared cost above the limit is rejected as Kubernetes rejects costly
     * selectors. */
    uint64_t lo0, hi0;
    for (int k = 0; k < 3; k++) {
        dracel_config cfg;
        dracel_config_init(&cfg);
        assert_int_equal(dracel_env_new(&cfg, DRACEL_ENV_DRA, &env), DRACEL_OK);
        f.size_cost_factor = k == 0 ? 0 : 1;
        f.cost = k == 2 ? 2000000 : 7;
        assert_int_equal(dracel_env_add_function(env, &f, err, sizeof err), DRACEL_OK);
        const char *src = "c.len(device.attributes['gpu.example.com'].model) > 3";
        if (k == 2) {
            dracel_diags *d = NULL;
            p = NULL;
            assert_int_equal(dracel_compile(env, src, strlen(src), DRACEL_COMPILE_ESTIMATE_COST, &p, &d),
                             DRACEL_ELIMIT);
            dracel_diag_info info;
            assert_int_equal(dracel_diags_get(d, 0, &info), DRACEL_OK);
            assert_non_null(strstr(info.message, "exceeds the limit of 1000000"));
            dracel_diags_free(d);
        } else {
            p = compile_ok(env, src, DRACEL_COMPILE_ESTIMATE_COST);
            dracel_program_cost(p, &lo, &hi);
            if (k == 0) {
                lo0 = lo;
                hi0 = hi;
            } else {
                assert_int_equal(lo, lo0);
                assert_int_equal(hi, hi0 + 64);
            }
            dracel_program_free(p);
        }
        dracel_env_free(env);
    }

    /* The run-time limit stops before a call the budget cannot pay: it is not made. */
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.cost_limit = 50;
    assert_int_equal(dracel_env_new(&cfg, DRACEL_ENV_PLAIN, &env), DRACEL_OK);
    f.cost = 20;
    f.size_cost_factor = 0;
    assert_int_equal(dracel_env_add_function(env, &f, err, sizeof err), DRACEL_OK);
    cnt.calls = 0;
    expect_json(env, "c.len('a') + c.len('b')", "{\"int\":\"2\"}");
    assert_int_equal(cnt.calls, 2);
    cnt.calls = 0;
    expect_json(env, "c.len('a') + c.len('b') + c.len('c')",
                "{\"error\":\"operation cancelled: actual cost limit exceeded\"}");
    assert_int_equal(cnt.calls, 2);
    dracel_env_free(env);
}

/* ---- Threads. */

static int64_t f_twice_counted(dracel_host_ctx *x, int64_t v)
{
    counter *c = dracel_host_data(x);
    __atomic_add_fetch(&c->calls, 1, __ATOMIC_RELAXED);
    return 2 * v;
}

enum { THREADS = 4, PER_THREAD = 5000 };

typedef struct worker_arg {
    const dracel_program *p;
    const dracel_env *env;
    int id;
    int good;
} worker_arg;

static void *worker(void *arg)
{
    worker_arg *w = arg;
    dracel_activation *act;
    dracel_result *r;
    if (dracel_activation_new(w->env, &act) != DRACEL_OK)
        return NULL;
    if (dracel_result_new(NULL, &r) != DRACEL_OK) {
        dracel_activation_free(act);
        return NULL;
    }
    for (int i = 0; i < PER_THREAD; i++) {
        int64_t x = (int64_t)w->id * 1000000 + i, v;
        if (dracel_activation_set_int(act, "x", x) == DRACEL_OK &&
            dracel_eval_activation(w->p, act, r) == DRACEL_OK &&
            dracel_result_int(r, &v) == DRACEL_OK && v == 2 * x + 1)
            w->good++;
    }
    dracel_result_free(r);
    dracel_activation_free(act);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    dracel_env *env = new_env(DRACEL_ENV_PLAIN);
    char err[128];
    assert_int_equal(dracel_env_bind_json(env, "x", "{\"int\":\"0\"}", 11, err, sizeof err), DRACEL_OK);
    counter cnt = {0};
    declare(env, "twice", "twice_int", false, 1, T_I, DRACEL_TYPE_INT, DRACEL_HOST_FN(f_twice_counted),
            &cnt, DRACEL_FUNCTION_PURE);
    dracel_program *p = compile_ok(env, "twice(x) + 1", 0);
    pthread_t t[THREADS];
    worker_arg w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker_arg){p, env, i, 0};
        assert_int_equal(pthread_create(&t[i], NULL, worker, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].good, PER_THREAD);
    }
    assert_int_equal(cnt.calls, THREADS * PER_THREAD);
    dracel_program_free(p);
    dracel_env_free(env);
}

/* ---- Lifetimes: a program keeps the host functions it calls. */

static void test_program_outlives_env(void **state)
{
    (void)state;
    counter cnt = {0};
    dracel_env *env = new_env(DRACEL_ENV_PLAIN);
    declare(env, "twice", "twice_int", false, 1, T_I, DRACEL_TYPE_INT, DRACEL_HOST_FN(f_twice_counted),
            &cnt, 0);
    dracel_program *p = compile_ok(env, "twice(21)", 0);
    dracel_env_free(env);
    /* Another environment without the declaration (no variable read, so any environment). */
    dracel_env *other = new_env(DRACEL_ENV_PLAIN);
    dracel_result *r;
    int64_t v;
    assert_int_equal(dracel_eval(p, other, &r), DRACEL_OK);
    assert_int_equal(dracel_result_int(r, &v), DRACEL_OK);
    assert_int_equal(v, 42);
    assert_int_equal(cnt.calls, 1);
    char *dis = dracel_program_disasm(p);
    assert_non_null(strstr(dis, "twice/1"));
    dracel_free_string(NULL, dis);
    dracel_program_free(p);
    /* The result outlives its program. */
    char *j = dracel_result_json(r);
    assert_string_equal(j, "{\"int\":\"42\"}");
    dracel_free_string(NULL, j);
    dracel_result_free(r);
    dracel_env_free(other);
}

/* ---- Programs and the variables of another environment. */

static void test_other_environment(void **state)
{
    (void)state;
    char err[256];
    dracel_env *a = new_env(DRACEL_ENV_PLAIN);
    assert_int_equal(dracel_env_bind_json(a, "x", "{\"int\":\"4\"}", 11, err, sizeof err), DRACEL_OK);
    dracel_program *p = compile_ok(a, "x + 1", 0);
    dracel_program *unchecked = compile_ok(a, "x + 1", DRACEL_COMPILE_NO_CHECK);
    dracel_result *r = NULL;

    /* y:int in x's slot, x:string after it: the program would read y. */
    dracel_env *b = new_env(DRACEL_ENV_PLAIN);
    assert_int_equal(dracel_env_bind_json(b, "y", "{\"int\":\"4\"}", 11, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_env_bind_json(b, "x", "{\"string\":\"s\"}", 14, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_eval(p, b, &r), DRACEL_EINVAL);
    assert_null(r);
    assert_int_equal(dracel_eval(unchecked, b, &r), DRACEL_EINVAL);
    dracel_activation *act;
    assert_int_equal(dracel_activation_new(b, &act), DRACEL_OK);
    assert_int_equal(dracel_result_new(NULL, &r), DRACEL_OK);
    assert_int_equal(dracel_eval_activation(p, act, r), DRACEL_EINVAL);
    dracel_activation_free(act);
    /* dracel_select checks the same. */
    dracel_table *t = model_fleet(3, 1);
    dracel_bound *bd;
    dracel_selection *sel;
    assert_int_equal(dracel_bind(p, t, &bd), DRACEL_OK);
    assert_int_equal(dracel_selection_new(NULL, &sel), DRACEL_OK);
    assert_int_equal(dracel_select(bd, b, NULL, sel), DRACEL_EINVAL);
    assert_int_equal(dracel_select(bd, a, NULL, sel), DRACEL_OK);
    dracel_selection_free(sel);
    dracel_bound_free(bd);
    dracel_table_free(t);
    dracel_env_free(b);

    /* x:string in x's slot: the checked program assumed an int; the unchecked one did not. */
    b = new_env(DRACEL_ENV_PLAIN);
    assert_int_equal(dracel_env_bind_json(b, "x", "{\"string\":\"s\"}", 14, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_eval_into(p, b, r), DRACEL_EINVAL);
    assert_int_equal(dracel_eval_into(unchecked, b, r), DRACEL_OK);
    assert_string_equal(dracel_result_error(r), "no such overload");
    dracel_env_free(b);

    /* The same declaration in another environment (more variables after it): fine. */
    b = new_env(DRACEL_ENV_PLAIN);
    assert_int_equal(dracel_env_bind_json(b, "x", "{\"int\":\"41\"}", 12, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_env_bind_json(b, "z", "{\"bool\":true}", 13, err, sizeof err), DRACEL_OK);
    int64_t v;
    assert_int_equal(dracel_eval_into(p, b, r), DRACEL_OK);
    assert_int_equal(dracel_result_int(r, &v), DRACEL_OK);
    assert_int_equal(v, 42);
    dracel_env_free(b);

    /* Fewer variables than the program's environment had: refused. */
    b = new_env(DRACEL_ENV_PLAIN);
    assert_int_equal(dracel_eval_into(p, b, r), DRACEL_EINVAL);
    dracel_env_free(b);

    /* Rebinding a declared variable with a value of another type: refused. */
    assert_int_equal(dracel_env_bind_json(a, "x", "{\"string\":\"s\"}", 14, err, sizeof err), DRACEL_EINPUT);
    assert_string_equal(err, "variable x is declared with type int: the value has another type");
    assert_int_equal(dracel_env_bind_json(a, "x", "{\"int\":\"9\"}", 11, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_eval_into(p, a, r), DRACEL_OK);
    assert_int_equal(dracel_result_int(r, &v), DRACEL_OK);
    assert_int_equal(v, 10);
    dracel_result_free(r);
    dracel_program_free(p);
    dracel_program_free(unchecked);
    dracel_env_free(a);
}

/* ---- Activations. */

static void test_activation_setters(void **state)
{
    (void)state;
    char err[256];
    dracel_env *env = new_env(DRACEL_ENV_PLAIN);
    static const char *const decls[][2] = {
        {"i", "{\"int\":\"1\"}"},       {"u", "{\"uint\":\"1\"}"},
        {"d", "{\"double\":1.0}"},      {"b", "{\"bool\":true}"},
        {"s", "{\"string\":\"x\"}"},    {"y", "{\"bytes\":\"eA==\"}"},
        {"l", "{\"list\":[{\"int\":\"1\"}]}"}, {"any", "{\"list\":[{\"int\":\"1\"},{\"string\":\"a\"}]}"},
    };
    for (size_t k = 0; k < sizeof decls / sizeof decls[0]; k++)
        assert_int_equal(dracel_env_bind_json(env, decls[k][0], decls[k][1], strlen(decls[k][1]), err, sizeof err),
                         DRACEL_OK);
    dracel_program *p = compile_ok(env, "[i, u, d, b, s, y, l, any]", 0);
    dracel_activation *act;
    assert_int_equal(dracel_activation_new(env, &act), DRACEL_OK);
    dracel_result *r;
    assert_int_equal(dracel_result_new(NULL, &r), DRACEL_OK);
    /* Nothing set: the first unbound variable's error (the environment's values are not used). */
    assert_int_equal(dracel_eval_activation(p, act, r), DRACEL_OK);
    assert_string_equal(dracel_result_error(r), "no such attribute(s): variable not bound");

    assert_int_equal(dracel_activation_set_int(act, "i", -7), DRACEL_OK);
    assert_int_equal(dracel_activation_set_uint(act, "u", UINT64_MAX), DRACEL_OK);
    assert_int_equal(dracel_activation_set_double(act, "d", 0.5), DRACEL_OK);
    assert_int_equal(dracel_activation_set_bool(act, "b", false), DRACEL_OK);
    char text[] = "h\xc3\xa9llo";
    assert_int_equal(dracel_activation_set_string(act, "s", text, strlen(text)), DRACEL_OK);
    memset(text, 'z', sizeof text - 1); /* copied: the caller's buffer may change */
    assert_int_equal(dracel_activation_set_bytes(act, "y", "\x00\x01", 2), DRACEL_OK);
    assert_int_equal(dracel_activation_bind_json(act, "l", "{\"list\":[]}", 11, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_activation_set_int(act, "any", 3), DRACEL_EINVAL); /* list(dyn) is not dyn */
    assert_int_equal(dracel_activation_bind_json(act, "any", "{\"list\":[{\"bool\":true}]}", 24, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_eval_activation(p, act, r), DRACEL_OK);
    char *j = dracel_result_json(r);
    assert_string_equal(j, "{\"list\":[{\"int\":\"-7\"},{\"uint\":\"18446744073709551615\"},{\"double\":0.5},"
                           "{\"bool\":false},{\"string\":\"h\xc3\xa9llo\"},{\"bytes\":\"AAE=\"},{\"list\":[]},"
                           "{\"list\":[{\"bool\":true}]}]}");
    dracel_free_string(NULL, j);

    /* Wrong types, unknown names, bad text: refused, the old value kept. */
    assert_int_equal(dracel_activation_set_uint(act, "i", 1), DRACEL_EINVAL);
    assert_int_equal(dracel_activation_set_double(act, "i", 1), DRACEL_EINVAL);
    assert_int_equal(dracel_activation_set_string(act, "i", "1", 1), DRACEL_EINVAL);
    assert_int_equal(dracel_activation_set_bytes(act, "s", "1", 1), DRACEL_EINVAL);
    assert_int_equal(dracel_activation_set_bool(act, "nosuch", true), DRACEL_EINVAL);
    assert_int_equal(dracel_activation_set_string(act, "s", "\xff", 1), DRACEL_EINVAL);
    assert_int_equal(dracel_activation_set_string(act, "s", NULL, 1), DRACEL_EINVAL);
    assert_int_equal(dracel_activation_bind_json(act, "l", "{\"list\":[{\"string\":\"a\"}]}", 25, err, sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "variable l is declared with type list(int): the value has another type");
    assert_int_equal(dracel_activation_bind_json(act, "i", "{\"int\":", 7, err, sizeof err), DRACEL_EINPUT);
    assert_int_equal(dracel_activation_bind_json(act, "nosuch", "{\"int\":\"1\"}", 11, err, sizeof err),
                     DRACEL_EINVAL);
    assert_int_equal(dracel_activation_device_json(act, "{}", 2, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_activation_set_device_row(act, NULL, 0), DRACEL_EINVAL);
    assert_int_equal(dracel_eval_activation(p, act, r), DRACEL_OK);
    j = dracel_result_json(r);
    assert_non_null(strstr(j, "{\"int\":\"-7\"}"));
    assert_non_null(strstr(j, "{\"string\":\"h\xc3\xa9llo\"}"));
    dracel_free_string(NULL, j);

    /* A variable declared after the activation was made can be set too; setting one again and
     * again reuses the slot's memory. */
    assert_int_equal(dracel_env_bind_json(env, "late", "{\"string\":\"q\"}", 14, err, sizeof err), DRACEL_OK);
    dracel_program *q = compile_ok(env, "late + s", 0);
    for (int k = 0; k < 1000; k++) {
        char v[32];
        int n = snprintf(v, sizeof v, "v%d", k);
        assert_int_equal(dracel_activation_set_string(act, "late", v, (size_t)n), DRACEL_OK);
    }
    assert_int_equal(dracel_eval_activation(q, act, r), DRACEL_OK);
    const char *s;
    size_t n;
    assert_int_equal(dracel_result_string(r, &s, &n), DRACEL_OK);
    assert_string_equal(s, "v999h\xc3\xa9llo");
    int64_t iv;
    assert_int_equal(dracel_result_int(r, &iv), DRACEL_EINVAL);
    assert_int_equal(dracel_result_int(NULL, &iv), DRACEL_EINVAL);
    dracel_program_free(q);
    dracel_result_free(r);
    dracel_activation_free(act);
    dracel_activation_free(NULL);
    dracel_program_free(p);
    assert_int_equal(dracel_activation_new(NULL, &act), DRACEL_EINVAL);
    dracel_env_free(env);
}

/* Sort the entries of every {"map":[[K,V],...]} (maps print in insertion order). */
static int cmp_entry(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    char *px = cJSON_PrintUnformatted(x->child), *py = cJSON_PrintUnformatted(y->child);
    int c = strcmp(px, py);
    free(px);
    free(py);
    return c;
}

static void canonical(cJSON *v)
{
    for (cJSON *c = v ? v->child : NULL; c; c = c->next)
        canonical(c);
    cJSON *m = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "map") : NULL;
    if (!cJSON_IsArray(m))
        return;
    int n = cJSON_GetArraySize(m);
    cJSON **e = calloc((size_t)n + 1, sizeof *e);
    for (int i = 0; i < n; i++)
        e[i] = cJSON_DetachItemFromArray(m, 0);
    qsort(e, (size_t)n, sizeof *e, cmp_entry);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(m, e[i]);
    free(e);
}

static char *canonical_text(const char *json)
{
    cJSON *v = cJSON_Parse(json);
    assert_non_null(v);
    canonical(v);
    char *s = cJSON_PrintUnformatted(v);
    cJSON_Delete(v);
    return s;
}

/* The device JSON (dracel_env_device_json's format) of a loaded device. */
static char *device_json(const dc_slice_in *s, const dc_device_in *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "driver", s->driver);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON *attrs = cJSON_AddObjectToObject(o, "attributes");
    for (uint32_t i = 0; i < d->nattrs; i++) {
        const dc_attr_in *a = &d->attrs[i];
        cJSON *v = cJSON_AddObjectToObject(attrs, a->name);
        char num[32];
        switch (a->kind) {
        case DC_ATTR_INT:
            /* a JSON number, as Kubernetes writes it (raw: exact beyond 2^53) */
            snprintf(num, sizeof num, "%lld", (long long)a->i);
            cJSON_AddRawToObject(v, "int", num);
            break;
        case DC_ATTR_BOOL: cJSON_AddBoolToObject(v, "bool", a->b); break;
        case DC_ATTR_STRING: cJSON_AddStringToObject(v, "string", a->s); break;
        case DC_ATTR_VERSION: cJSON_AddStringToObject(v, "version", a->s); break;
        default: {
            static const char *const LK[] = {"ints", "bools", "strings", "versions"};
            cJSON *l = cJSON_AddArrayToObject(v, LK[a->kind - DC_ATTR_INTS]);
            for (uint32_t k = 0; k < a->n; k++) {
                if (a->kind == DC_ATTR_INTS) {
                    snprintf(num, sizeof num, "%lld", (long long)a->is[k]);
                    cJSON_AddItemToArray(l, cJSON_CreateRaw(num));
                } else if (a->kind == DC_ATTR_BOOLS) {
                    cJSON_AddItemToArray(l, cJSON_CreateBool(a->bs[k]));
                } else {
                    cJSON_AddItemToArray(l, cJSON_CreateString(a->ss[k]));
                }
            }
            break;
        }
        }
    }
    cJSON *caps = cJSON_AddObjectToObject(o, "capacity");
    for (uint32_t i = 0; i < d->ncaps; i++)
        cJSON_AddStringToObject(cJSON_AddObjectToObject(caps, d->caps[i].name), "value", d->caps[i].value);
    cJSON_AddBoolToObject(o, "allowMultipleAllocations", d->allow_multiple);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

/* Every row of the fleet at path: `device` from the row equals `device` from its JSON. */
static int rows_against_json(const char *path)
{
    char err[512];
    dracel_table *t;
    if (dracel_table_load(NULL, path, &t, err, sizeof err) != DRACEL_OK)
        fail_msg("%s: %s", path, err);
    dc_slice_set set;
    dc_slice_set_init(&set, NULL);
    assert_int_equal(dc_slices_load(&set, path, NULL, err, sizeof err), DRACEL_OK);
    dracel_env *env = new_env(DRACEL_ENV_DRA);
    dracel_program *p = compile_ok(env, "device", DRACEL_COMPILE_ANY_RESULT);
    dracel_program *sel = compile_ok(env, "device.attributes['gpu.example.com'].model == 'H100' || "
                                          "device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('1Gi'))", 0);
    dracel_activation *from_row, *from_json;
    assert_int_equal(dracel_activation_new(env, &from_row), DRACEL_OK);
    assert_int_equal(dracel_activation_new(env, &from_json), DRACEL_OK);
    dracel_result *r1, *r2;
    assert_int_equal(dracel_result_new(NULL, &r1), DRACEL_OK);
    assert_int_equal(dracel_result_new(NULL, &r2), DRACEL_OK);
    uint32_t rows = dracel_table_rows(t);
    for (uint32_t row = 0; row < rows; row++) {
        dracel_device_info info;
        assert_int_equal(dracel_table_device(t, row, &info), DRACEL_OK);
        /* The device in the newest generation of its pool. */
        const dc_slice_in *best = NULL;
        const dc_device_in *dev = NULL;
        for (uint32_t i = 0; i < set.n; i++) {
            const dc_slice_in *s = &set.slices[i];
            if (strcmp(s->driver, info.driver) || strcmp(s->pool, info.pool) ||
                (best && s->generation < best->generation))
                continue;
            for (uint32_t k = 0; k < s->ndevices; k++)
                if (strcmp(s->devices[k].name, info.device) == 0) {
                    best = s;
                    dev = &s->devices[k];
                }
        }
        assert_non_null(dev);
        char *json = device_json(best, dev);
        assert_int_equal(dracel_activation_set_device_row(from_row, t, row), DRACEL_OK);
        if (dracel_activation_device_json(from_json, json, strlen(json), err, sizeof err) != DRACEL_OK)
            fail_msg("%s: %s", json, err);
        for (int k = 0; k < 2; k++) {
            const dracel_program *prog = k ? sel : p;
            assert_int_equal(dracel_eval_activation(prog, from_row, r1), DRACEL_OK);
            assert_int_equal(dracel_eval_activation(prog, from_json, r2), DRACEL_OK);
            char *a = dracel_result_json(r1), *b = dracel_result_json(r2);
            char *ca = canonical_text(a), *cb = canonical_text(b);
            if (strcmp(ca, cb) != 0)
                fail_msg("%s row %u (%s/%s/%s):\n from the row:  %s\n from its JSON: %s", path, row,
                         info.driver, info.pool, info.device, ca, cb);
            free(ca);
            free(cb);
            dracel_free_string(NULL, a);
            dracel_free_string(NULL, b);
        }
        cJSON_free(json);
    }
    /* The row's value is a copy: the table can go. */
    if (rows) {
        assert_int_equal(dracel_activation_set_device_row(from_row, t, rows - 1), DRACEL_OK);
        assert_int_equal(dracel_activation_set_device_row(from_row, t, rows), DRACEL_EINVAL);
        dracel_table_free(t);
        t = NULL;
        assert_int_equal(dracel_eval_activation(p, from_row, r1), DRACEL_OK);
        assert_int_equal(dracel_eval_activation(p, from_json, r2), DRACEL_OK);
        char *a = dracel_result_json(r1), *b = dracel_result_json(r2);
        char *ca = canonical_text(a), *cb = canonical_text(b);
        assert_string_equal(ca, cb);
        free(ca);
        free(cb);
        dracel_free_string(NULL, a);
        dracel_free_string(NULL, b);
    }
    dracel_table_free(t);
    dracel_result_free(r1);
    dracel_result_free(r2);
    dracel_activation_free(from_row);
    dracel_activation_free(from_json);
    dracel_program_free(p);
    dracel_program_free(sel);
    dracel_env_free(env);
    dc_slice_set_free(&set);
    return (int)rows;
}

static void test_activation_device_rows(void **state)
{
    (void)state;
    assert_int_equal(to_sources(), 0);
    static const char *const paths[] = {
        "tests/data/slices/basic.yaml", "tests/data/slices/basic.json", "tests/data/slices/list.yaml",
        "tests/data/slices/dir", "examples/fleet/a100-nodes.json", "examples/fleet/h100-nodes.yaml",
        "examples/fleet/l4-and-partial.yaml", "examples/fleet/tainted.yaml"};
    int total = 0;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        total += rows_against_json(paths[i]);
    assert_true(total > 20);
}

/* A device Kubernetes cannot present to CEL: both ways give the same error. */
static void test_activation_device_fault(void **state)
{
    (void)state;
    static const char slice[] =
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"s\"},"
        "\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":\"n\",\"pool\":{\"name\":\"p\",\"generation\":1,"
        "\"resourceSliceCount\":1},\"devices\":[{\"name\":\"d\",\"attributes\":{\"fw\":{\"version\":\"v1\"}}}]}}";
    static const char dev[] = "{\"driver\":\"gpu.example.com\",\"name\":\"d\",\"attributes\":{\"fw\":{\"version\":\"v1\"}}}";
    dracel_table *t;
    char err[256];
    assert_int_equal(dracel_table_load_buffer(NULL, "s", slice, sizeof slice - 1, &t, err, sizeof err), DRACEL_OK);
    dracel_env *env = new_env(DRACEL_ENV_DRA);
    dracel_program *p = compile_ok(env, "true", 0);
    dracel_activation *a1, *a2;
    assert_int_equal(dracel_activation_new(env, &a1), DRACEL_OK);
    assert_int_equal(dracel_activation_new(env, &a2), DRACEL_OK);
    assert_int_equal(dracel_activation_set_device_row(a1, t, 0), DRACEL_OK);
    assert_int_equal(dracel_activation_device_json(a2, dev, sizeof dev - 1, err, sizeof err), DRACEL_OK);
    dracel_result *r1, *r2;
    assert_int_equal(dracel_result_new(NULL, &r1), DRACEL_OK);
    assert_int_equal(dracel_result_new(NULL, &r2), DRACEL_OK);
    assert_int_equal(dracel_eval_activation(p, a1, r1), DRACEL_OK);
    assert_int_equal(dracel_eval_activation(p, a2, r2), DRACEL_OK);
    assert_non_null(dracel_result_error(r1));
    assert_string_equal(dracel_result_error(r1), dracel_result_error(r2));
    dracel_table_free(t);
    dracel_result_free(r1);
    dracel_result_free(r2);
    dracel_activation_free(a1);
    dracel_activation_free(a2);
    dracel_program_free(p);
    dracel_env_free(env);
}

/* ---- Allocation failures: declaring and calling. */

static void f_label(dracel_host_ctx *x, const char *s, size_t n)
{
    char buf[128];
    int k = snprintf(buf, sizeof buf, "<%.*s>", (int)n, s);
    dracel_host_return_string(x, buf, (size_t)k);
}

static bool run_with_failure(long k)
{
    fail_alloc fa = {0, k, 0, 0};
    dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.alloc = &a;
    char err[256];
    dracel_env *env = NULL;
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    dracel_activation *act = NULL;
    dracel_result *r = NULL;
    dracel_status st = dracel_env_new(&cfg, DRACEL_ENV_PLAIN, &env);
    dracel_function f;
    dracel_function_init(&f);
    f.name = "label";
    f.overload_id = "label_string";
    f.member = true;
    f.nparams = 1;
    f.params[0] = DRACEL_TYPE_STRING;
    f.result = DRACEL_TYPE_STRING;
    f.fn = DRACEL_HOST_FN(f_label);
    f.flags = DRACEL_FUNCTION_PURE;
    if (st == DRACEL_OK)
        st = dracel_env_add_function(env, &f, err, sizeof err);
    if (st == DRACEL_OK) {
        f.name = "twice";
        f.overload_id = "twice_int";
        f.member = false;
        f.params[0] = DRACEL_TYPE_INT;
        f.result = DRACEL_TYPE_INT;
        f.fn = DRACEL_HOST_FN(f_neg);
        st = dracel_env_add_function(env, &f, err, sizeof err);
    }
    if (st == DRACEL_OK)
        st = dracel_env_bind_json(env, "s", "{\"string\":\"a\"}", 14, err, sizeof err);
    const char *src = "s.label() + [1, 2].map(i, twice(i)).map(i, string(i).label()).join(',')";
    if (st == DRACEL_OK)
        st = dracel_compile(env, src, strlen(src), DRACEL_COMPILE_ESTIMATE_COST, &p, &d);
    if (st == DRACEL_OK)
        st = dracel_activation_new(env, &act);
    if (st == DRACEL_OK)
        st = dracel_activation_set_string(act, "s", "xyz", 3);
    if (st == DRACEL_OK)
        st = dracel_result_new(&cfg, &r);
    if (st == DRACEL_OK)
        st = dracel_eval_activation(p, act, r);
    if (st == DRACEL_OK) {
        const char *e = dracel_result_error(r);
        const char *s;
        size_t n;
        if (e)
            assert_string_equal(e, "out of memory");
        else if (dracel_result_string(r, &s, &n) != DRACEL_OK || strcmp(s, "<xyz><-1>,<-2>") != 0)
            fail_msg("failing allocation %ld: a wrong result", k);
    } else if (st != DRACEL_ENOMEM) {
        fail_msg("failing allocation %ld: status %d (%s), not ENOMEM", k, (int)st, err);
    }
    dracel_result_free(r);
    dracel_activation_free(act);
    dracel_env_free(env); /* before the program: it keeps its functions */
    dracel_program_free(p);
    dracel_diags_free(d);
    if (fa.live_blocks != 0 || fa.live_bytes != 0)
        fail_msg("failing allocation %ld: %ld blocks (%zu bytes) leaked", k, fa.live_blocks, fa.live_bytes);
    return fa.calls >= k;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    long k = 1;
    while (run_with_failure(k))
        k++;
    assert_true(k > 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_mappings),
        cmocka_unit_test(test_declarations),
        cmocka_unit_test(test_errors_and_results),
        cmocka_unit_test(test_pure_and_impure_calls),
        cmocka_unit_test(test_cost),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_program_outlives_env),
        cmocka_unit_test(test_other_environment),
        cmocka_unit_test(test_activation_setters),
        cmocka_unit_test(test_activation_device_rows),
        cmocka_unit_test(test_activation_device_fault),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
