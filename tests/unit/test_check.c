/*
 * test_check.c: unit tests of the type checker (src/check.c), the declarations (src/decls.c),
 * environments (src/env.c) and types (src/types.c). Expressions are parsed with dc_parse and
 * checked in the plain CEL environment, the DRA selector environment, or a host environment
 * with extra variables; each case pins either the type (as cel-go prints it) or the exact
 * rendered diagnostics (cel-go's format: message, source line, caret).
 *
 * Expected messages and positions follow cel-go's checker (checker/errors.go), its AST
 * validators (cel/validator.go) and Kubernetes' DRA compiler (dynamic-resource-allocation
 * cel/compile.go).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "parse.h"

/* ---------------------------------------------------------------------------------------------
 * Harness
 */

typedef struct envs {
    dc_env *plain, *dra, *host;
} envs;

typedef struct experr {
    unsigned col; /* 1-based, on line 1 */
    const char *msg;
} experr;

typedef struct tcase {
    const char *src;
    const char *type;  /* the expected type; NULL when errors are expected */
    experr err[4];     /* expected diagnostics, in order (msg NULL ends the list) */
} tcase;

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    assert_non_null(p);
    memcpy(p, s, n);
    return p;
}

/* cel-go's rendering of diagnostics on a one-line source. */
static char *render_expected(const char *src, const experr *err)
{
    size_t cap = 4096 + 8 * strlen(src);
    char *out = malloc(cap);
    assert_non_null(out);
    out[0] = '\0';
    for (int i = 0; i < 4 && err[i].msg; i++) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "ERROR: <input>:1:%u: %s\n | %s\n | ", err[i].col,
                 err[i].msg, src);
        len = strlen(out);
        for (unsigned c = 1; c < err[i].col; c++)
            out[len++] = '.';
        out[len++] = '^';
        out[len++] = '\n';
        out[len] = '\0';
    }
    return out;
}

/* Parse and check src; return the type or "!" followed by the rendered diagnostics. */
static char *run(const dc_env *env, const char *src, dc_checked *out_types)
{
    dc_diags *d = dc_diags_new(&dc_default_alloc, 0);
    assert_non_null(d);
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    dc_ast *ast = NULL;
    char *r;
    dracel_status st = dc_parse(NULL, &a, d, src, strlen(src), &ast);
    if (st != DRACEL_OK) {
        char *x = dracel_diags_render(d, "<input>");
        size_t n = strlen(x) + 16;
        r = malloc(n);
        snprintf(r, n, "PARSE %s", x);
        dracel_free_string(NULL, x);
    } else {
        dc_checked ck = {0};
        const dc_type *t = dc_check_ex(env, &a, d, ast, &ck);
        assert_false(d->oom);
        if (t) {
            assert_int_equal(dracel_diags_count(d), 0);
            assert_non_null(ck.types);
            /* The root's recorded type is the returned one. */
            assert_true(dc_type_equal(ck.types[ast->id], t));
            r = xstrdup(dc_type_str(&a, t));
            if (out_types)
                *out_types = ck;
        } else {
            assert_true(dracel_diags_errors(d) > 0);
            dc_diags_sort(d);
            char *x = dracel_diags_render(d, "<input>");
            size_t n = strlen(x) + 2;
            r = malloc(n);
            snprintf(r, n, "!%s", x);
            dracel_free_string(NULL, x);
        }
    }
    dc_arena_free(&a);
    dracel_diags_free(d);
    return r;
}

static void run_cases(const dc_env *env, const tcase *cases, size_t n)
{
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        const tcase *k = &cases[i];
        char *got = run(env, k->src, NULL);
        char *want;
        if (k->type) {
            want = xstrdup(k->type);
        } else {
            char *e = render_expected(k->src, k->err);
            size_t len = strlen(e) + 2;
            want = malloc(len);
            snprintf(want, len, "!%s", e);
            free(e);
        }
        if (strcmp(got, want) != 0) {
            print_error("case %zu: %s\n  want: %s\n  got:  %s\n", i, k->src, want, got);
            failures++;
        }
        free(got);
        free(want);
    }
    assert_int_equal(failures, 0);
}

#define RUN(env, table) run_cases((env), (table), sizeof(table) / sizeof((table)[0]))

static int setup(void **state)
{
    envs *e = calloc(1, sizeof *e);
    if (!e)
        return -1;
    e->plain = dc_env_new(NULL, DC_ENV_PLAIN);
    e->dra = dc_env_new(NULL, DC_ENV_DRA);
    e->host = dc_env_new(NULL, DC_ENV_PLAIN);
    if (!e->plain || !e->dra || !e->host)
        return -1;
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    if (dc_env_add_var(e->host, "x", &dc_ty_int) != 0 ||
        dc_env_add_var(e->host, "y", &dc_ty_string) != 1 ||
        dc_env_add_var(e->host, "a.b", dc_type_parse(&a, "map(string, int)")) != 2 ||
        dc_env_add_var(e->host, "ns.name", &dc_ty_string) != 3 ||
        dc_env_add_var(e->host, "m", dc_type_parse(&a, "map(string, dyn)")) != 4 ||
        dc_env_add_var(e->host, "q", &dc_ty_quantity) != 5)
        return -1;
    dc_arena_free(&a); /* the environment copied the types */
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    envs *e = *state;
    dc_env_free(e->plain);
    dc_env_free(e->dra);
    dc_env_free(e->host);
    free(e);
    return 0;
}

#define ENVS ((envs *)*state)

/* ---------------------------------------------------------------------------------------------
 * Types
 */

static void test_type_printing_and_parsing(void **state)
{
    (void)state;
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    static const char *const roundtrip[] = {
        "int", "uint", "double", "bool", "string", "bytes", "dyn", "null_type",
        "list(int)", "map(string, dyn)", "optional_type(int)", "type", "type(int)",
        "kubernetes.Quantity", "kubernetes.Semver", "kubernetes.DRADevice",
        "map(string, map(string, kubernetes.Quantity))", "list(A)", "map(K, V)",
        "optional_type(list(map(int, type(string))))",
    };
    for (size_t i = 0; i < sizeof roundtrip / sizeof *roundtrip; i++) {
        const dc_type *t = dc_type_parse(&a, roundtrip[i]);
        assert_non_null(t);
        assert_string_equal(dc_type_str(&a, t), roundtrip[i]);
        assert_true(dc_type_equal(t, dc_type_clone(&a, t)));
    }
    assert_non_null(dc_type_parse(&a, " map( string ,int ) "));
    assert_string_equal(dc_type_str(&a, dc_type_parse(&a, " map( string ,int ) ")),
                        "map(string, int)");
    static const char *const bad[] = {"", "list(", "list(int", "list(int))", "map(int)",
                                      "foo", "int(int)", "list(int) x", "list()", "a.B",
                                      "list(int,)"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_null(dc_type_parse(&a, bad[i]));
    assert_int_equal(dc_type_parse(&a, "Quantity")->kind, DC_TY_PARAM);
    /* The two printers differ on null and error types, as cel-go's do. */
    assert_string_equal(dc_type_str(&a, &dc_ty_null), "null_type");
    assert_string_equal(dc_type_str_checker(&a, &dc_ty_null), "null");
    assert_string_equal(dc_type_str_checker(&a, &dc_ty_error), "!error!");
    assert_string_equal(dc_type_str_checker(&a, dc_ty_list(&a, &dc_ty_null)), "list(null)");
    assert_false(dc_type_equal(dc_type_parse(&a, "list(int)"), dc_type_parse(&a, "list(uint)")));
    assert_false(dc_type_equal(dc_type_parse(&a, "A"), dc_type_parse(&a, "B")));
    assert_true(dc_type_equal(dc_type_parse(&a, "A"), dc_type_parse(&a, "A")));
    assert_false(dc_type_equal(dc_type_parse(&a, "type"), dc_type_parse(&a, "type(int)")));
    /* Deep nesting is fine for the printer and the parser has a bound. */
    char deep[1024] = "";
    for (int i = 0; i < 100; i++)
        strcat(deep, "list(");
    strcat(deep, "int");
    for (int i = 0; i < 100; i++)
        strcat(deep, ")");
    assert_null(dc_type_parse(&a, deep));
    dc_arena_free(&a);
}

/* ---------------------------------------------------------------------------------------------
 * Environments and declarations
 */

static void test_env_variables(void **state)
{
    (void)state;
    dc_env *env = dc_env_new(NULL, DC_ENV_DRA);
    assert_non_null(env);
    const dc_vardecl *dev = dc_env_var(env, "device");
    assert_non_null(dev);
    assert_int_equal(dev->slot, 0);
    assert_int_equal(dev->type->kind, DC_TY_DEVICE);
    assert_int_equal(dc_env_add_var(env, "tier", &dc_ty_int), 1);
    assert_int_equal(dc_env_add_var(env, "a.b.c", &dc_ty_string), 2);
    assert_int_equal(dc_env_add_var(env, "tier", &dc_ty_string), DC_ENV_NOSLOT);
    assert_int_equal(dc_env_add_var(env, "device", &dc_ty_string), DC_ENV_NOSLOT);
    static const char *const bad[] = {"", ".a", "a.", "a..b", "1a", "a-b", "a.1b", "a b"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(dc_env_add_var(env, bad[i], &dc_ty_int), DC_ENV_NOSLOT);
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    assert_int_equal(dc_env_add_var(env, "p", dc_type_parse(&a, "list(A)")), DC_ENV_NOSLOT);
    assert_int_equal(dc_env_add_var(env, "z", NULL), DC_ENV_NOSLOT);
    dc_arena_free(&a);
    assert_int_equal(env->nvars, 3);
    assert_null(dc_env_var(env, "nope"));
    dc_env_free(env);
    dc_env_free(NULL);

    dc_env *plain = dc_env_new(NULL, DC_ENV_PLAIN);
    assert_null(dc_env_var(plain, "device"));
    assert_int_equal(dc_env_add_var(plain, "device", &dc_ty_int), 0);
    dc_env_free(plain);
}

static const dc_overload *overload(const dc_env *env, const char *fn, const char *id)
{
    const dc_fundecl *f = dc_env_fun(env, fn);
    if (!f)
        return NULL;
    for (uint32_t i = 0; i < f->n; i++)
        if (strcmp(f->overloads[i].id, id) == 0)
            return &f->overloads[i];
    return NULL;
}

static void test_declarations(void **state)
{
    const dc_env *env = ENVS->plain;
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    assert_int_equal(dc_env_fun(env, "size")->n, 8);
    assert_int_equal(dc_env_fun(env, "_<_")->n, 12);
    assert_int_equal(dc_env_fun(env, "_[_]")->n, 4);
    const dc_overload *o = overload(env, "size", "string_size");
    assert_non_null(o);
    assert_true(o->member);
    assert_int_equal(o->nparams, 1);
    assert_string_equal(dc_type_str(&a, o->result), "int");
    o = overload(env, "_<_", "less_int64_double");
    assert_non_null(o);
    assert_false(o->member);
    assert_string_equal(dc_type_str(&a, o->params[1]), "double");
    o = overload(env, "_[?_]", "optional_map_optindex_optional_value");
    assert_non_null(o);
    assert_string_equal(dc_type_str(&a, o->params[0]), "optional_type(map(K, V))");
    assert_non_null(overload(env, "matches", "matches"));
    assert_non_null(overload(env, "matches", "matches_string"));
    assert_null(overload(env, "contains", "contains"));   /* receiver-style only */
    assert_non_null(overload(env, "indexOf", "list_a_index_of_int"));
    assert_non_null(overload(env, "indexOf", "string_index_of_string_int"));
    assert_non_null(overload(env, "compareTo", "semver_compare_to"));
    assert_non_null(overload(env, "compareTo", "quantity_compare_to"));
    assert_non_null(overload(env, "sort", "list_bytes_sort"));
    assert_non_null(overload(env, "sign", "quantity_sign"));
    assert_false(overload(env, "sign", "quantity_sign")->member);
    assert_non_null(dc_env_fun(env, "optional.of"));
    assert_non_null(dc_env_fun(env, "sets.intersects"));
    assert_non_null(dc_env_fun(env, "strings.quote"));
    assert_non_null(dc_env_fun(env, "lists.range"));
    assert_null(dc_env_fun(env, "timestamp"));
    assert_null(dc_env_fun(env, "duration"));
    assert_null(dc_env_fun(env, "url"));
    /* the DRA compiler's includes (DRAListTypeAttributes), in the DRA environment only */
    assert_null(dc_env_fun(env, "includes"));
    const dc_overload *inc = overload(ENVS->dra, "includes", "dra_includes_dyn_dyn");
    assert_non_null(inc);
    assert_true(inc->member);
    assert_string_equal(dc_type_str(&a, inc->params[0]), "dyn");
    assert_string_equal(dc_type_str(&a, inc->result), "bool");
    dc_arena_free(&a);
}

static void test_host_overloads(void **state)
{
    (void)state;
    dc_env *env = dc_env_new(NULL, DC_ENV_PLAIN);
    assert_int_equal(dc_env_add_overload(env, "tier", "tier_string_int", false, "string, int",
                                         "bool"),
                     DRACEL_OK);
    assert_int_equal(dc_env_add_overload(env, "tier", "tier_string_int", false, "string",
                                         "bool"),
                     DRACEL_EINVAL); /* duplicate id */
    assert_int_equal(dc_env_add_overload(env, "tier", "x", false, "strin", "bool"),
                     DRACEL_EINVAL);
    assert_int_equal(dc_env_add_overload(env, "tier", "x", false, "", "bool("), DRACEL_EINVAL);
    assert_int_equal(dc_env_add_overload(env, "tier", "x", true, "", "bool"), DRACEL_EINVAL);
    assert_int_equal(dc_env_add_overload(env, "first", "list_first", true, "list(T)", "T"),
                     DRACEL_OK);
    /* Enough overloads to grow the array several times. */
    for (int i = 0; i < 40; i++) {
        char id[32];
        snprintf(id, sizeof id, "many_%d", i);
        assert_int_equal(dc_env_add_overload(env, "many", id, false, "int, int, int", "int"),
                         DRACEL_OK);
    }
    assert_int_equal(dc_env_fun(env, "many")->n, 40);
    static const tcase cases[] = {
        {"tier('gold', 1)", "bool", {{0}}},
        {"[1.5].first()", "double", {{0}}},
        {"many(1, 2, 3)", "int", {{0}}},
        {"tier(1, 'gold')", NULL,
         {{5, "found no matching overload for 'tier' applied to '(int, string)'"}}},
    };
    RUN(env, cases);
    dc_env_free(env);
}

/* ---------------------------------------------------------------------------------------------
 * Plain CEL: types
 */

static void test_literals_and_operators(void **state)
{
    static const tcase cases[] = {
        {"1", "int", {{0}}},
        {"1u", "uint", {{0}}},
        {"1.5", "double", {{0}}},
        {"'a'", "string", {{0}}},
        {"b'a'", "bytes", {{0}}},
        {"true", "bool", {{0}}},
        {"null", "null_type", {{0}}},
        {"[1, 2]", "list(int)", {{0}}},
        {"[]", "list(dyn)", {{0}}},
        {"{}", "map(dyn, dyn)", {{0}}},
        {"{'a': 1}", "map(string, int)", {{0}}},
        {"[[], [1]]", "list(list(int))", {{0}}},
        {"[[1], []]", "list(list(int))", {{0}}},
        {"[{}, {'a': [1.5]}]", "list(map(string, list(double)))", {{0}}},
        {"[null, null]", "list(null_type)", {{0}}},
        {"1 + 2", "int", {{0}}},
        {"1u * 2u", "uint", {{0}}},
        {"1.0 / 2.0", "double", {{0}}},
        {"7 % 2", "int", {{0}}},
        {"-1.5", "double", {{0}}},
        {"-(1)", "int", {{0}}},
        {"'a' + 'b'", "string", {{0}}},
        {"b'a' + b'b'", "bytes", {{0}}},
        {"[1] + [2]", "list(int)", {{0}}},
        {"[1] + []", "list(int)", {{0}}},
        {"[] + ['a']", "list(string)", {{0}}},
        {"!true", "bool", {{0}}},
        {"true && false || true", "bool", {{0}}},
        {"true ? 1 : 2", "int", {{0}}},
        {"false ? [] : [1]", "list(int)", {{0}}},
        {"1 in [1, 2]", "bool", {{0}}},
        {"'a' in {'a': 1}", "bool", {{0}}},
        {"[1, 2][0]", "int", {{0}}},
        {"{'a': [1]}['a']", "list(int)", {{0}}},
        {"{'a': 1}.a", "int", {{0}}},
        {"has({'a': 1}.a)", "bool", {{0}}},
        {"1 == 1", "bool", {{0}}},
        {"null == null", "bool", {{0}}},
        {"[1] != [2]", "bool", {{0}}},
        {"'a' < 'b'", "bool", {{0}}},
        {"b'a' <= b'b'", "bool", {{0}}},
        {"true > false", "bool", {{0}}},
    };
    RUN(ENVS->plain, cases);
}

static void test_cross_type_numeric_comparisons(void **state)
{
    static const tcase cases[] = {
        {"1 < 2.0", "bool", {{0}}},
        {"1 <= 2u", "bool", {{0}}},
        {"1u > -1", "bool", {{0}}},
        {"1u >= 0.5", "bool", {{0}}},
        {"2.0 < 1", "bool", {{0}}},
        {"2.0 > 1u", "bool", {{0}}},
        /* Equality is not cross-type at check time (cel-go). */
        {"1 == 1.0", NULL,
         {{3, "found no matching overload for '_==_' applied to '(int, double)'"}}},
        {"1u != 1", NULL,
         {{4, "found no matching overload for '_!=_' applied to '(uint, int)'"}}},
        {"'a' < 1", NULL,
         {{5, "found no matching overload for '_<_' applied to '(string, int)'"}}},
        {"[1] < [2]", NULL,
         {{5, "found no matching overload for '_<_' applied to '(list(int), list(int))'"}}},
        {"quantity('1') < quantity('2')", NULL,
         {{15, "found no matching overload for '_<_' applied to "
               "'(kubernetes.Quantity, kubernetes.Quantity)'"}}},
    };
    RUN(ENVS->plain, cases);
}

static void test_conversions_and_type_idents(void **state)
{
    static const tcase cases[] = {
        {"int('1')", "int", {{0}}},
        {"int(1.5)", "int", {{0}}},
        {"int(1u)", "int", {{0}}},
        {"uint(1)", "uint", {{0}}},
        {"uint(1.5)", "uint", {{0}}},
        {"uint('1')", "uint", {{0}}},
        {"double(1)", "double", {{0}}},
        {"double(1u)", "double", {{0}}},
        {"double('1.5')", "double", {{0}}},
        {"string(1)", "string", {{0}}},
        {"string(1u)", "string", {{0}}},
        {"string(1.5)", "string", {{0}}},
        {"string(b'a')", "string", {{0}}},
        {"string(true)", "string", {{0}}},
        {"string('a')", "string", {{0}}},
        {"bytes('a')", "bytes", {{0}}},
        {"bool('true')", "bool", {{0}}},
        {"dyn(1)", "dyn", {{0}}},
        {"type(1)", "type(int)", {{0}}},
        {"type([1])", "type(list(int))", {{0}}},
        {"type(1) == int", "bool", {{0}}},
        {"type('a') == string", "bool", {{0}}},
        {"int", "type(int)", {{0}}},
        {"type", "type(type)", {{0}}},
        {"list", "type(list(dyn))", {{0}}},
        {"map", "type(map(dyn, dyn))", {{0}}},
        {"null_type", "type(null_type)", {{0}}},
        {"optional_type", "type(optional_type(dyn))", {{0}}},
        {"int(true)", NULL, {{4, "found no matching overload for 'int' applied to '(bool)'"}}},
        {"bytes(1)", NULL, {{6, "found no matching overload for 'bytes' applied to '(int)'"}}},
        {"dyn", NULL, {{1, "undeclared reference to 'dyn' (in container '')"}}},
    };
    RUN(ENVS->plain, cases);
}

static void test_dyn_propagation(void **state)
{
    static const tcase cases[] = {
        {"dyn(1) + 1", "int", {{0}}},
        {"1 + dyn(1)", "int", {{0}}},
        {"dyn(1) + dyn(2)", "dyn", {{0}}},
        {"dyn(1) == 1.0", "bool", {{0}}},
        {"dyn(1) < 'a'", "bool", {{0}}},
        {"dyn(1).foo", "dyn", {{0}}},
        {"dyn(1).foo.bar", "dyn", {{0}}},
        {"has(dyn(1).foo)", "bool", {{0}}},
        {"dyn([]).size()", "int", {{0}}},
        {"size(dyn(1))", "int", {{0}}},
        {"dyn(1)[0]", "dyn", {{0}}},
        {"dyn({})['a']", "dyn", {{0}}},
        {"dyn('a').startsWith('b')", "bool", {{0}}},
        {"true ? 1 : dyn(2)", "dyn", {{0}}},
        {"[1, dyn(2)]", "list(dyn)", {{0}}},
        {"[dyn(1), 2]", "list(dyn)", {{0}}},
        {"int(dyn('1'))", "int", {{0}}},
        {"dyn([1]).all(x, x)", "bool", {{0}}},
        {"dyn([1]).map(x, x)", "list(dyn)", {{0}}},
        {"dyn(1).optMap(x, x)", "optional_type(dyn)", {{0}}},
        {"dyn(1).?a", "optional_type(dyn)", {{0}}},
        /* Several overloads match with different result types: dyn (as cel-go). */
        {"dyn(1)[?'a']", "dyn", {{0}}},
        {"[][0]", "dyn", {{0}}},
        {"{}.a", "dyn", {{0}}},
    };
    RUN(ENVS->plain, cases);
}

static void test_heterogeneous_literals_plain(void **state)
{
    static const tcase cases[] = {
        {"[1, 'a']", "list(dyn)", {{0}}},
        {"[1, 2.0]", "list(dyn)", {{0}}},
        {"[1, null]", "list(dyn)", {{0}}},
        {"{'a': 1, 'b': 'x'}", "map(string, dyn)", {{0}}},
        {"{1: 'a', 'b': 'c'}", "map(dyn, string)", {{0}}},
        {"[[1], ['a']]", "list(dyn)", {{0}}},
        {"[[1], [dyn('a')]]", "list(list(dyn))", {{0}}},
        {"[[1], 'a']", "list(dyn)", {{0}}},
        {"[1, 'a'][0]", "dyn", {{0}}},
        {"[1, 'a'].size()", "int", {{0}}},
    };
    RUN(ENVS->plain, cases);
}

static void test_standard_functions(void **state)
{
    static const tcase cases[] = {
        {"size('a')", "int", {{0}}},
        {"'a'.size()", "int", {{0}}},
        {"size(b'a')", "int", {{0}}},
        {"b'a'.size()", "int", {{0}}},
        {"size([1])", "int", {{0}}},
        {"[1].size()", "int", {{0}}},
        {"size({1: 2})", "int", {{0}}},
        {"{1: 2}.size()", "int", {{0}}},
        {"'abc'.contains('a')", "bool", {{0}}},
        {"'abc'.startsWith('a')", "bool", {{0}}},
        {"'abc'.endsWith('c')", "bool", {{0}}},
        {"'abc'.matches('^a')", "bool", {{0}}},
        {"matches('abc', '^a')", "bool", {{0}}},
        {"'abc'.matches('(')", "bool", {{0}}}, /* only the DRA environment validates */
        {"contains('abc', 'a')", NULL,
         {{9, "found no matching overload for 'contains' applied to '(string, string)'"}}},
        {"size(1)", NULL, {{5, "found no matching overload for 'size' applied to '(int)'"}}},
        {"1.startsWith('a')", NULL,
         {{13, "found no matching overload for 'startsWith' applied to 'int.(string)'"}}},
        {"'a'.startsWith(1)", NULL,
         {{15, "found no matching overload for 'startsWith' applied to 'string.(int)'"}}},
        {"'a'.size(1)", NULL,
         {{9, "found no matching overload for 'size' applied to 'string.(int)'"}}},
    };
    RUN(ENVS->plain, cases);
}

static void test_extension_functions(void **state)
{
    static const tcase cases[] = {
        /* strings */
        {"'abc'.charAt(1)", "string", {{0}}},
        {"'abc'.indexOf('b')", "int", {{0}}},
        {"'abc'.indexOf('b', 1)", "int", {{0}}},
        {"'abc'.lastIndexOf('b')", "int", {{0}}},
        {"'abc'.lastIndexOf('b', 2)", "int", {{0}}},
        {"'ABC'.lowerAscii()", "string", {{0}}},
        {"'abc'.upperAscii()", "string", {{0}}},
        {"'abc'.replace('a', 'b')", "string", {{0}}},
        {"'abc'.replace('a', 'b', 1)", "string", {{0}}},
        {"'a,b'.split(',')", "list(string)", {{0}}},
        {"'a,b'.split(',', 1)", "list(string)", {{0}}},
        {"'abc'.substring(1)", "string", {{0}}},
        {"'abc'.substring(1, 2)", "string", {{0}}},
        {"' a '.trim()", "string", {{0}}},
        {"['a', 'b'].join()", "string", {{0}}},
        {"['a', 'b'].join(', ')", "string", {{0}}},
        {"'%d-%s'.format([1, 'a'])", "string", {{0}}},
        {"strings.quote('a')", "string", {{0}}},
        /* lists */
        {"[1, 2].slice(0, 1)", "list(int)", {{0}}},
        {"[[1], [2]].flatten()", "list(int)", {{0}}},
        {"[1, [2]].flatten(1)", "list(dyn)", {{0}}},
        {"[2, 1].sort()", "list(int)", {{0}}},
        {"['b', 'a'].sort()", "list(string)", {{0}}},
        {"lists.range(3)", "list(int)", {{0}}},
        {"[1].reverse()", "list(int)", {{0}}},
        {"[1, 1].distinct()", "list(int)", {{0}}},
        {"[1].isSorted()", "bool", {{0}}},
        {"[1].sum()", "int", {{0}}},
        {"[1.5].sum()", "double", {{0}}},
        {"[1u].max()", "uint", {{0}}},
        {"['a'].min()", "string", {{0}}},
        {"[1].indexOf(1)", "int", {{0}}},
        {"['a'].lastIndexOf('a')", "int", {{0}}},
        {"[1, 'a'].sort()", "dyn", {{0}}},
        /* sets */
        {"sets.contains([1], [1])", "bool", {{0}}},
        {"sets.equivalent([1], [1, 1])", "bool", {{0}}},
        {"sets.intersects(['a'], [])", "bool", {{0}}},
        /* regex */
        {"'abc'.find('b')", "string", {{0}}},
        {"'abc'.findAll('b')", "list(string)", {{0}}},
        {"'abc'.findAll('b', 1)", "list(string)", {{0}}},
        /* Kubernetes quantity and semver */
        {"quantity('1Gi')", "kubernetes.Quantity", {{0}}},
        {"isQuantity('1Gi')", "bool", {{0}}},
        {"sign(quantity('-1'))", "int", {{0}}},
        {"quantity('1').isGreaterThan(quantity('2'))", "bool", {{0}}},
        {"quantity('1').isLessThan(quantity('2'))", "bool", {{0}}},
        {"quantity('1').compareTo(quantity('2'))", "int", {{0}}},
        {"quantity('1').add(1)", "kubernetes.Quantity", {{0}}},
        {"quantity('1').add(quantity('1'))", "kubernetes.Quantity", {{0}}},
        {"quantity('1').sub(1).sub(quantity('1'))", "kubernetes.Quantity", {{0}}},
        {"quantity('1').asInteger()", "int", {{0}}},
        {"quantity('1').isInteger()", "bool", {{0}}},
        {"quantity('1').asApproximateFloat()", "double", {{0}}},
        {"quantity('1') == quantity('1000m')", "bool", {{0}}},
        {"semver('1.0.0')", "kubernetes.Semver", {{0}}},
        {"semver('v1', true)", "kubernetes.Semver", {{0}}},
        {"isSemver('1.0.0')", "bool", {{0}}},
        {"isSemver('v1', true)", "bool", {{0}}},
        {"semver('1.2.3').major() + semver('1.2.3').minor() + semver('1.2.3').patch()", "int",
         {{0}}},
        {"semver('1.0.0').compareTo(semver('2.0.0'))", "int", {{0}}},
        {"semver('1.0.0').isLessThan(semver('2.0.0'))", "bool", {{0}}},
        {"semver('1.0.0').isGreaterThan(semver('2.0.0'))", "bool", {{0}}},
        /* errors */
        {"[[1]].sort()", NULL,
         {{11, "found no matching overload for 'sort' applied to 'list(list(int)).()'"}}},
        {"[1].join()", NULL,
         {{9, "found no matching overload for 'join' applied to 'list(int).()'"}}},
        {"quantity('1').sign()", NULL,
         {{19, "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'"}}},
        {"quantity('1').compareTo(semver('1.0.0'))", NULL,
         {{24, "found no matching overload for 'compareTo' applied to "
               "'kubernetes.Quantity.(kubernetes.Semver)'"}}},
        {"quantity(1)", NULL,
         {{9, "found no matching overload for 'quantity' applied to '(int)'"}}},
        {"sets.contains([1], ['a'])", NULL,
         {{14, "found no matching overload for 'sets.contains' applied to "
               "'(list(int), list(string))'"}}},
    };
    RUN(ENVS->plain, cases);
}

static void test_optionals(void **state)
{
    static const tcase cases[] = {
        {"optional.of(1)", "optional_type(int)", {{0}}},
        {"optional.ofNonZeroValue('')", "optional_type(string)", {{0}}},
        {"optional.none()", "optional_type(dyn)", {{0}}},
        {"optional.of(1).value()", "int", {{0}}},
        {"optional.of(1).hasValue()", "bool", {{0}}},
        {"optional.of(1).orValue(2)", "int", {{0}}},
        {"optional.none().orValue(2)", "int", {{0}}},
        {"optional.of(1).or(optional.none())", "optional_type(int)", {{0}}},
        {"{'a': 1}.?a", "optional_type(int)", {{0}}},
        {"{'a': 1}.?a.orValue(0)", "int", {{0}}},
        {"{'a': 1}[?'a']", "optional_type(int)", {{0}}},
        {"[1][?0]", "optional_type(int)", {{0}}},
        {"optional.of({'a': 1}).a", "optional_type(int)", {{0}}},
        {"optional.of({'a': 1}).?a", "optional_type(int)", {{0}}},
        {"optional.of({'a': 1})['a']", "optional_type(int)", {{0}}},
        {"optional.of([1])[0]", "optional_type(int)", {{0}}},
        {"optional.of([1])[?0]", "optional_type(int)", {{0}}},
        {"[?optional.of(1), 2]", "list(int)", {{0}}},
        {"[?optional.none(), 2]", "list(int)", {{0}}},
        {"{?'a': optional.of(1)}", "map(string, int)", {{0}}},
        {"optional.of(1).optMap(x, x + 1)", "optional_type(int)", {{0}}},
        {"optional.of(1).optMap(x, string(x))", "optional_type(string)", {{0}}},
        {"optional.of(1).optFlatMap(x, optional.of(x * 2))", "optional_type(int)", {{0}}},
        {"optional.of(1) == optional.none()", "bool", {{0}}},
        {"optional.of(1).value() + 'a'", NULL,
         {{24, "found no matching overload for '_+_' applied to '(int, string)'"}}},
        {"[?1]", NULL, {{3, "expected type 'optional_type(int)' but found 'int'"}}},
        {"{?'a': 1}", NULL, {{8, "expected type 'optional_type(int)' but found 'int'"}}},
        {"[1][?'a']", NULL,
         {{4, "found no matching overload for '_[?_]' applied to '(list(int), string)'"}}},
        {"{'a': 1}.?a.?b", NULL, {{12, "type 'int' does not support field selection"}}},
        {"1.?a", NULL, {{2, "type 'int' does not support field selection"}}},
        {"[1].optMap(x, x)", NULL,
         {{11, "found no matching overload for 'hasValue' applied to 'list(int).()'"},
          {11, "found no matching overload for 'value' applied to 'list(int).()'"}}},
        {"optional.of(1).optFlatMap(x, x)", NULL,
         {{26, "found no matching overload for '_?_:_' applied to "
               "'(bool, int, optional_type(dyn))'"}}},
        {"optional.of(1).optMap(1, 2)", NULL,
         {{23, "optMap() variable name must be a simple identifier"}}},
        {"optional.of()", NULL,
         {{12, "found no matching overload for 'optional.of' applied to '()'"}}},
        {"optional.none(1)", NULL,
         {{14, "found no matching overload for 'optional.none' applied to '(int)'"}}},
        {"optional.foo(1)", NULL,
         {{1, "undeclared reference to 'optional' (in container '')"},
          {13, "undeclared reference to 'foo' (in container '')"}}},
    };
    RUN(ENVS->plain, cases);
}

/* ---------------------------------------------------------------------------------------------
 * Plain CEL: names, scopes, macros
 */

static void test_names_and_shadowing(void **state)
{
    static const tcase cases[] = {
        {"x", "int", {{0}}},
        {".x", "int", {{0}}},
        {"y + 'a'", "string", {{0}}},
        {"a.b", "map(string, int)", {{0}}},
        {"a.b.c", "int", {{0}}},
        {"a.b['c'] + x", "int", {{0}}},
        {".a.b.c", "int", {{0}}},
        {"ns.name", "string", {{0}}},
        {"ns.name.size()", "int", {{0}}},
        {"has(a.b.c)", "bool", {{0}}},
        {"m.k.l", "dyn", {{0}}},
        {"q.isInteger()", "bool", {{0}}},
        /* comprehension variables and cel.bind shadow the environment */
        {"[1.5].all(x, x > 1.0)", "bool", {{0}}},
        {"[1.5].map(x, x)", "list(double)", {{0}}},
        {"[1.5].map(x, x) + [x]", NULL,
         {{17, "found no matching overload for '_+_' applied to '(list(double), list(int))'"}}},
        {"[1].map(y, y)", "list(int)", {{0}}},
        {"cel.bind(x, 'a', x + 'b')", "string", {{0}}},
        {"cel.bind(x, 'a', x) + x", NULL,
         {{21, "found no matching overload for '_+_' applied to '(string, int)'"}}},
        {"cel.bind(x, 'a', [1].exists(x, x == 1))", "bool", {{0}}},
        {"cel.bind(x, 'a', [1].map(x, x)[0] + x.size())", "int", {{0}}},
        {"[1].map(x, ['a'].map(x, x))", "list(list(string))", {{0}}},
        {"[1].map(x, ['a'].map(z, x))", "list(list(int))", {{0}}},
        {"cel.bind(z, 1, z) + z", NULL, {{21, "undeclared reference to 'z' (in container '')"}}},
        {"[1].all(z, true) && z", NULL, {{21, "undeclared reference to 'z' (in container '')"}}},
        /* A leading dot reaches past locals to the environment. */
        {"cel.bind(x, 'a', .x + 1)", "int", {{0}}},
        /* A local hides the qualified names that start with it. */
        {"[{'b': 'q'}].all(a, a.b == 'q')", "bool", {{0}}},
        {"cel.bind(ns, {'name': 1}, ns.name + 1)", "int", {{0}}},
        {"a", NULL, {{1, "undeclared reference to 'a' (in container '')"}}},
        {"ns", NULL, {{1, "undeclared reference to 'ns' (in container '')"}}},
        {"a.c", NULL, {{1, "undeclared reference to 'a' (in container '')"}}},
        {"x.y", NULL, {{2, "type 'int' does not support field selection"}}},
        {".z", NULL, {{1, "undeclared reference to '.z' (in container '')"}}},
    };
    RUN(ENVS->host, cases);
}

static void test_qualified_function_names(void **state)
{
    const dc_env *env = ENVS->host;
    static const struct {
        const char *src;
        const char *want;
    } cases[] = {
        {"optional.of(1)", "optional.of"},
        {".optional.of(1)", "optional.of"},
        {"optional.none()", "optional.none"},
        {"sets.contains([1], [1])", "sets.contains"},
        {"strings.quote('a')", "strings.quote"},
        {"lists.range(2)", "lists.range"},
        {"optional.foo(1)", NULL},
        {"x.of(1)", NULL},
        {"a.b.c()", NULL},
        {"size('a')", NULL},
        {"'a'.size()", NULL},
        {"(1 + 2).of(1)", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dc_diags *d = dc_diags_new(&dc_default_alloc, 0);
        dc_arena a;
        dc_arena_init(&a, &dc_default_alloc);
        dc_ast *ast = NULL;
        assert_int_equal(dc_parse(NULL, &a, d, cases[i].src, strlen(cases[i].src), &ast),
                         DRACEL_OK);
        const char *got = dc_check_qualified_fn(env, ast);
        if (cases[i].want) {
            assert_non_null(got);
            assert_string_equal(got, cases[i].want);
        } else {
            assert_null(got);
        }
        dc_arena_free(&a);
        dracel_diags_free(d);
    }
    assert_null(dc_check_qualified_fn(env, NULL));
    assert_null(dc_check_qualified_fn(NULL, NULL));
}

static void test_comprehensions(void **state)
{
    static const tcase cases[] = {
        {"[1, 2].all(x, x > 0)", "bool", {{0}}},
        {"[1].exists(x, x == 1)", "bool", {{0}}},
        {"[1].exists_one(x, x == 1)", "bool", {{0}}},
        {"[1].map(x, x * 2)", "list(int)", {{0}}},
        {"[1].map(x, x > 0, string(x))", "list(string)", {{0}}},
        {"[1].filter(x, x > 0)", "list(int)", {{0}}},
        {"{'a': 1}.all(k, k == 'a')", "bool", {{0}}},
        {"{'a': 1}.map(k, k)", "list(string)", {{0}}},
        {"{'a': 1}.filter(k, k == 'a')", "list(string)", {{0}}},
        {"[1].all(i, v, i < v)", "bool", {{0}}},
        {"{'a': 1}.exists(k, v, k == 'a' && v == 1)", "bool", {{0}}},
        {"[1].existsOne(i, v, v == 1)", "bool", {{0}}},
        {"['a'].transformList(i, v, i)", "list(int)", {{0}}},
        {"['a'].transformList(i, v, i > 0, v)", "list(string)", {{0}}},
        {"{'a': 1}.transformList(k, v, v)", "list(int)", {{0}}},
        {"{'a': 1}.transformMap(k, v, v * 2)", "map(string, int)", {{0}}},
        {"{'a': 1}.transformMap(k, v, v > 0, k)", "map(string, string)", {{0}}},
        {"['a'].transformMap(i, v, v)", "map(int, string)", {{0}}},
        {"{'a': 1}.transformMapEntry(k, v, {v: k})", "map(int, string)", {{0}}},
        {"{'a': 1}.transformMapEntry(k, v, v > 0, {v: k})", "map(int, string)", {{0}}},
        {"{'a': 1}.transformMapEntry(k, v, dyn(1))", "map(dyn, dyn)", {{0}}},
        {"cel.bind(x, 1, x + 1)", "int", {{0}}},
        {"cel.bind(x, [1, 2], x.map(y, y * 2))", "list(int)", {{0}}},
        {"[[1]].map(x, x.map(y, y + 1))", "list(list(int))", {{0}}},
        {"[1].sortBy(x, -x)", "list(int)", {{0}}},
        {"['bb', 'a'].sortBy(s, s.size())", "list(string)", {{0}}},
        {"[1].map(x, x).sortBy(x, x)", "list(int)", {{0}}},
        {"dyn([1]).sortBy(x, x)", "dyn", {{0}}},
        {"[1, 2].all(x, x)", NULL, {{15, "expected type 'bool' but found 'int'"}}},
        {"[1].exists(i, v, v)", NULL, {{18, "expected type 'bool' but found 'int'"}}},
        {"[1].exists_one(x, x)", NULL,
         {{15, "found no matching overload for '_?_:_' applied to '(int, int, int)'"}}},
        {"[1].filter(x, x)", NULL,
         {{11, "found no matching overload for '_?_:_' applied to "
               "'(int, list(int), list(int))'"}}},
        {"[1] . map (x, 'a', x)", NULL,
         {{11, "found no matching overload for '_?_:_' applied to "
               "'(string, list(int), list(int))'"}}},
        {"(([1])).filter(x, 1)", NULL,
         {{15, "found no matching overload for '_?_:_' applied to "
               "'(int, list(int), list(int))'"}}},
        {"{'a': 1}.transformMapEntry(k, v, v)", NULL,
         {{27, "found no matching overload for 'cel.@mapInsert' applied to "
               "'(map(dyn, dyn), int)'"}}},
        {"1.all(x, true)", NULL,
         {{1, "expression of type 'int' cannot be range of a comprehension (must be list, map, "
              "or dynamic)"}}},
        {"'abc'.map(x, x)", NULL,
         {{1, "expression of type 'string' cannot be range of a comprehension (must be list, "
              "map, or dynamic)"}}},
        {"{'a': 1}.sortBy(x, x)", NULL,
         {{1, "sortBy can only be applied to a list, identifier, comprehension, call or select "
              "expression"}}},
        {"[1].sortBy(1, 1)", NULL, {{12, "argument is not an identifier"}}},
        {"[[1]].sortBy(x, x)", NULL,
         {{13, "found no matching overload for '@sortByAssociatedKeys' applied to "
               "'list(list(int)).(list(list(int)))'"}}},
        {"'ab'.sortBy(x, x)", NULL,
         {{1, "sortBy can only be applied to a list, identifier, comprehension, call or select "
              "expression"}}},
        {"cel.bind(s, 'ab', s.sortBy(x, x))", NULL,
         {{27, "expression of type 'string' cannot be range of a comprehension (must be list, "
               "map, or dynamic)"}}},
    };
    RUN(ENVS->plain, cases);
}

/* ---------------------------------------------------------------------------------------------
 * Plain CEL: errors
 */

static void test_errors(void **state)
{
    static const tcase cases[] = {
        {"1 + 'a'", NULL, {{3, "found no matching overload for '_+_' applied to '(int, string)'"}}},
        {"x", NULL, {{1, "undeclared reference to 'x' (in container '')"}}},
        {"foo(1)", NULL, {{4, "undeclared reference to 'foo' (in container '')"}}},
        {".foo(1)", NULL, {{5, "undeclared reference to '.foo' (in container '')"}}},
        {"1.foo()", NULL, {{6, "undeclared reference to 'foo' (in container '')"}}},
        {"true && 1", NULL, {{9, "expected type 'bool' but found 'int'"}}},
        {"1 || 'a'", NULL,
         {{1, "expected type 'bool' but found 'int'"},
          {6, "expected type 'bool' but found 'string'"}}},
        {"!1", NULL, {{1, "found no matching overload for '!_' applied to '(int)'"}}},
        {"-'a'", NULL, {{1, "found no matching overload for '-_' applied to '(string)'"}}},
        {"-1u", NULL, {{1, "found no matching overload for '-_' applied to '(uint)'"}}},
        {"true ? 1 : 'a'", NULL,
         {{6, "found no matching overload for '_?_:_' applied to '(bool, int, string)'"}}},
        {"1 ? 1 : 1", NULL,
         {{3, "found no matching overload for '_?_:_' applied to '(int, int, int)'"}}},
        {"[1]['a']", NULL,
         {{4, "found no matching overload for '_[_]' applied to '(list(int), string)'"}}},
        {"{'a': 1}[1]", NULL,
         {{9, "found no matching overload for '_[_]' applied to '(map(string, int), int)'"}}},
        {"1 in 1", NULL, {{3, "found no matching overload for '@in' applied to '(int, int)'"}}},
        {"1 in ['a']", NULL,
         {{3, "found no matching overload for '@in' applied to '(int, list(string))'"}}},
        {"{'a': 1}.a.b", NULL, {{11, "type 'int' does not support field selection"}}},
        {"has(1.a)", NULL, {{4, "type 'int' does not support field selection"}}},
        {"has([1].a)", NULL, {{4, "type 'list(int)' does not support field selection"}}},
        {"null.a", NULL, {{5, "type 'null' does not support field selection"}}},
        {"1 + null", NULL, {{3, "found no matching overload for '_+_' applied to '(int, null)'"}}},
        {"1 == null", NULL,
         {{3, "found no matching overload for '_==_' applied to '(int, null)'"}}},
        {"[] + 1", NULL, {{4, "found no matching overload for '_+_' applied to '(list(dyn), int)'"}}},
        {"Foo{a: 1}", NULL, {{4, "message construction is not supported"}}},
        {"a.b.Foo{}", NULL, {{8, "message construction is not supported"}}},
        {"timestamp('2020-01-01T00:00:00Z')", NULL, {{10, "timestamp values are not supported"}}},
        {"duration('1s')", NULL, {{9, "duration values are not supported"}}},
        {"timestamp", NULL, {{1, "timestamp values are not supported"}}},
        {"dyn(1).getHours()", NULL, {{16, "timestamp values are not supported"}}},
        {"url('x')", NULL, {{4, "URL values are not supported"}}},
        /* every error is reported, in source order */
        {"x + y", NULL,
         {{1, "undeclared reference to 'x' (in container '')"},
          {5, "undeclared reference to 'y' (in container '')"}}},
        {"foo(1) || bar(2) || 1 + 'a'", NULL,
         {{4, "undeclared reference to 'foo' (in container '')"},
          {14, "undeclared reference to 'bar' (in container '')"},
          {23, "found no matching overload for '_+_' applied to '(int, string)'"}}},
        {"[1 + 'a', 2 + 'b']", NULL,
         {{4, "found no matching overload for '_+_' applied to '(int, string)'"},
          {13, "found no matching overload for '_+_' applied to '(int, string)'"}}},
        /* an error type does not cause follow-on errors */
        {"x.foo + 1", NULL, {{1, "undeclared reference to 'x' (in container '')"}}},
        {"size(x) + x.y.z", NULL,
         {{6, "undeclared reference to 'x' (in container '')"},
          {11, "undeclared reference to 'x' (in container '')"}}},
        {"x.startsWith(1) && x[0] + 1 == 2", NULL,
         {{1, "undeclared reference to 'x' (in container '')"},
          {20, "undeclared reference to 'x' (in container '')"}}},
        {"(1 + 'a') + 2", NULL,
         {{4, "found no matching overload for '_+_' applied to '(int, string)'"}}},
        {"!(1 + 'a') && true", NULL,
         {{5, "found no matching overload for '_+_' applied to '(int, string)'"}}},
        {"[x].all(e, e)", NULL, {{2, "undeclared reference to 'x' (in container '')"}}},
        {"x.all(e, e.startsWith('a') && e + 1 == 2)", NULL,
         {{1, "undeclared reference to 'x' (in container '')"}}},
    };
    RUN(ENVS->plain, cases);
}

static void test_render_exact(void **state)
{
    char *got = run(ENVS->plain, "1 + 'a'", NULL);
    assert_string_equal(got, "!ERROR: <input>:1:3: found no matching overload for '_+_' "
                             "applied to '(int, string)'\n"
                             " | 1 + 'a'\n"
                             " | ..^\n");
    free(got);
    got = run(ENVS->dra, "device.driver == 'x' &&\n  devic.attributes['a'].b", NULL);
    assert_string_equal(got, "!ERROR: <input>:2:3: undeclared reference to 'devic' (in "
                             "container '')\n"
                             " |   devic.attributes['a'].b\n"
                             " | ..^\n");
    free(got);
    got = run(ENVS->dra, "device.driver", NULL);
    assert_string_equal(got, "!ERROR: <input>:1:1: must evaluate to bool or the unknown type, "
                             "not string\n"
                             " | device.driver\n"
                             " | ^\n");
    free(got);
}

/* ---------------------------------------------------------------------------------------------
 * The DRA environment
 */

static void test_dra_device(void **state)
{
    static const tcase cases[] = {
        {"device.driver == 'gpu.example.com'", "bool", {{0}}},
        {"device.attributes['gpu.example.com'].model == 'H100'", "bool", {{0}}},
        {"device.attributes['gpu.example.com']['model'] == 'H100'", "bool", {{0}}},
        {"device.attributes['d'].model", "dyn", {{0}}},
        {"device.attributes['d'].count > 1.5", "bool", {{0}}},
        {"device.attributes['d'].count * 2 > 1", "bool", {{0}}},
        {"device.capacity['d'].memory.compareTo(quantity('80Gi')) >= 0", "bool", {{0}}},
        {"device.capacity['d'].memory.isGreaterThan(quantity('1Mi'))", "bool", {{0}}},
        {"device.attributes['d'].driverVersion.major() >= 1", "bool", {{0}}},
        {"device.allowMultipleAllocations", "bool", {{0}}},
        {"has(device.attributes['d'].model)", "bool", {{0}}},
        {"has(device.driver)", "bool", {{0}}},
        {"'model' in device.attributes['d']", "bool", {{0}}},
        {"'d' in device.attributes", "bool", {{0}}},
        {"device.attributes['d'].?model.orValue('') == 'x'", "bool", {{0}}},
        {"device.attributes['d'][?'model'].hasValue()", "bool", {{0}}},
        {"device.attributes.exists_one(d, d.startsWith('gpu'))", "bool", {{0}}},
        {"device.attributes['d'].all(k, v, k.size() < 10)", "bool", {{0}}},
        {"device.attributes['d'].list.exists(x, x == 1)", "bool", {{0}}},
        {"cel.bind(d, device.attributes['dra.example.com'], d.a && d.b)", "bool", {{0}}},
        {"[1].all(device, device > 0)", "bool", {{0}}},
        {".device.driver == 'x'", "bool", {{0}}},
        {"device.attributes['d'].flag", "dyn", {{0}}},
        {"dyn(1)", "dyn", {{0}}},
        {"semver(device.attributes['d'].v).isLessThan(semver('2.0.0'))", "bool", {{0}}},
        {"'%s-%d'.format(['a', 1]) == 'a-1'", "bool", {{0}}},
        {"device.foo", NULL, {{7, "undefined field 'foo'"}}},
        {"has(device.foo)", NULL, {{4, "undefined field 'foo'"}}},
        {"device.?foo.hasValue()", NULL, {{7, "undefined field 'foo'"}}},
        {"device.driver.foo", NULL, {{14, "type 'string' does not support field selection"}}},
        {"device.capacity['d'].memory > quantity('1')", NULL,
         {{29, "found no matching overload for '_>_' applied to "
               "'(kubernetes.Quantity, kubernetes.Quantity)'"}}},
        {"devic.driver == 'x'", NULL, {{1, "undeclared reference to 'devic' (in container '')"}}},
    };
    RUN(ENVS->dra, cases);
}

static void test_dra_result_type(void **state)
{
    static const struct {
        const char *src;
        const char *type;
    } bad[] = {
        {"device.driver", "string"},
        {"1", "int"},
        {"[1]", "list(int)"},
        {"[]", "list(dyn)"},
        {"null", "null_type"},
        {"optional.none()", "optional_type(dyn)"},
        {"device", "kubernetes.DRADevice"},
        {"device.attributes", "map(string, map(string, dyn))"},
        {"{}", "map(dyn, dyn)"},
        {"int", "type(int)"},
        {"quantity('1')", "kubernetes.Quantity"},
        {"device.attributes['d'].?x", "optional_type(dyn)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char msg[256];
        snprintf(msg, sizeof msg, "must evaluate to bool or the unknown type, not %s",
                 bad[i].type);
        tcase k = {bad[i].src, NULL, {{1, msg}}};
        run_cases(ENVS->dra, &k, 1);
    }
    /* The same expressions are fine in plain CEL. */
    char *got = run(ENVS->plain, "[1]", NULL);
    assert_string_equal(got, "list(int)");
    free(got);
    /* Check errors come first: the result rule is only applied to a clean check. */
    static const tcase cases[] = {
        {"1 + 'a'", NULL, {{3, "found no matching overload for '_+_' applied to '(int, string)'"}}},
        {"[1, 'a']", NULL, {{5, "expected type 'int' but found 'string'"}}},
    };
    RUN(ENVS->dra, cases);
}

static void test_dra_homogeneous_literals(void **state)
{
    static const tcase cases[] = {
        {"[1, 2].size() > 0", "bool", {{0}}},
        {"[1, 'a'].size() > 0", NULL, {{5, "expected type 'int' but found 'string'"}}},
        {"[1, 2.0, 'a'].size() > 0", NULL, {{5, "expected type 'int' but found 'double'"}}},
        /* The position is the element's: for a call, its '(' (cel-go). */
        {"[1, dyn(2)].size() > 0", NULL, {{8, "expected type 'int' but found 'dyn'"}}},
        {"[[1], ['a']].size() > 0", NULL,
         {{7, "expected type 'list(int)' but found 'list(string)'"}}},
        {"[[1, 'a']].size() > 0", NULL, {{6, "expected type 'int' but found 'string'"}}},
        {"[1, null].size() > 0", NULL, {{5, "expected type 'int' but found 'null'"}}},
        {"{'a': 1, 'b': 'x', 2: 3}.size() > 0", NULL,
         {{15, "expected type 'int' but found 'string'"},
          {20, "expected type 'string' but found 'int'"}}},
        {"[[], [1]].size() > 0", "bool", {{0}}},
        {"[?optional.of(1), 2].size() > 0", "bool", {{0}}},
        {"device.attributes['d'].x in [1, 'a']", NULL, {{33, "expected type 'int' but found 'string'"}}},
        {"device.attributes['d'].x in [1, device.attributes['d'].y]", NULL,
         {{55, "expected type 'int' but found 'dyn'"}}},
        /* format() arguments are exempt, also nested */
        {"'%s %d'.format(['a', 1]) == 'a 1'", "bool", {{0}}},
        {"'%s'.format([['a', 1]]) != ''", "bool", {{0}}},
        {"'%s'.format([{'a': 1, 2: 'b'}]) != ''", "bool", {{0}}},
        {"'%s'.format([[1, 'a'].size()]) != ''", NULL,
         {{18, "expected type 'int' but found 'string'"}}},
    };
    RUN(ENVS->dra, cases);
}

static void test_dra_regex_literals(void **state)
{
    static const tcase cases[] = {
        {"device.driver.matches('^gpu')", "bool", {{0}}},
        {"device.driver.matches('(')", NULL, {{23, "invalid matches argument"}}},
        {"device.driver.matches('a**')", NULL, {{23, "invalid matches argument"}}},
        /* cel-go's validator checks the first argument after the receiver; for the global form
         * that is the subject, not the pattern (Kubernetes inherits this). */
        {"matches(device.driver, '(')", "bool", {{0}}},
        {"matches('(', device.driver)", NULL, {{9, "invalid matches argument"}}},
        {"device.driver.matches(device.driver)", "bool", {{0}}},
        {"device.driver.find('[0-9]+') != ''", "bool", {{0}}},
        {"device.driver.findAll('[0-9]+', 2).size() > 0", "bool", {{0}}},
    };
    RUN(ENVS->dra, cases);
    /* find/findAll patterns are compiled as the program is built: Go's regexp error. */
    char *got = run(ENVS->dra, "device.driver.find('(') == ''", NULL);
    assert_non_null(strstr(got, "ERROR: <input>:1:20: error parsing regexp: "));
    assert_non_null(strstr(got, "\n | ...................^\n"));
    free(got);
    got = run(ENVS->dra, "device.driver.findAll('[a', 1).size() > 0", NULL);
    assert_non_null(strstr(got, "ERROR: <input>:1:23: error parsing regexp: "));
    free(got);
    /* ... after the result type rule. */
    got = run(ENVS->dra, "device.driver.find('(')", NULL);
    assert_non_null(strstr(got, "not string"));
    assert_null(strstr(got, "regexp"));
    free(got);
    /* Not in plain CEL. */
    got = run(ENVS->plain, "'a'.find('(') == '' && 'a'.matches('(')", NULL);
    assert_string_equal(got, "bool");
    free(got);
}

static void test_dra_unsupported_features(void **state)
{
    static const tcase cases[] = {
        {"timestamp('2020-01-01T00:00:00Z') > timestamp('2019-01-01T00:00:00Z')", NULL,
         {{10, "timestamp values are not supported in device selectors"},
          {46, "timestamp values are not supported in device selectors"}}},
        {"duration('1s') > duration('0s')", NULL,
         {{9, "duration values are not supported in device selectors"},
          {26, "duration values are not supported in device selectors"}}},
        {"url('https://x').getHost() == 'x'", NULL,
         {{4, "URL values are not supported in device selectors"},
          {25, "URL values are not supported in device selectors"}}},
        {"isURL(device.driver)", NULL, {{6, "URL values are not supported in device selectors"}}},
        {"ip('1.2.3.4').family() == 4", NULL,
         {{3, "IP address values are not supported in device selectors"},
          {21, "IP address values are not supported in device selectors"}}},
        {"device.attributes['d'].addr.isLoopback()", NULL,
         {{39, "IP address values are not supported in device selectors"}}},
        {"ip.isCanonical('1.2.3.4')", NULL,
         {{15, "IP address values are not supported in device selectors"}}},
        {"cidr('10.0.0.0/8').containsIP('10.0.0.1')", NULL,
         {{5, "CIDR values are not supported in device selectors"},
          {30, "CIDR values are not supported in device selectors"}}},
        {"format.named('dns1123Label').validate('x').hasValue()", NULL,
         {{13, "format.named() is not supported in device selectors"},
          {38, "format.named() is not supported in device selectors"}}},
        {"kubernetes.Foo{a: 1}", NULL,
         {{15, "message construction is not supported in device selectors"}}},
        {"Foo{}", NULL, {{4, "message construction is not supported in device selectors"}}},
        {"timestamp == 1", NULL, {{1, "timestamp values are not supported in device selectors"}}},
        {"device.attributes['d'].t.getFullYear() > 2000", NULL,
         {{37, "timestamp values are not supported in device selectors"}}},
        {"jsonpatch.escapeKey('a') == 'a'", NULL,
         {{20, "JSON patch functions are not supported in device selectors"}}},
        {"fieldSelector('a=b') != null", NULL,
         {{14, "field and label selectors are not supported in device selectors"}}},
        {"device.attributes['d'].check('x')", NULL,
         {{29, "authorizer checks are not supported in device selectors"}}},
        {"foo(1)", NULL, {{4, "undeclared reference to 'foo' (in container '')"}}},
    };
    RUN(ENVS->dra, cases);
}

/* ---------------------------------------------------------------------------------------------
 * Node types, limits, allocation failure
 */

static void test_node_types(void **state)
{
    dc_diags *d = dc_diags_new(&dc_default_alloc, 0);
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    dc_ast *ast = NULL;
    const char *src = "[1, 2].map(x, x * 2 > 1.0)";
    assert_int_equal(dc_parse(NULL, &a, d, src, strlen(src), &ast), DRACEL_OK);
    dc_checked ck = {0};
    const dc_type *t = dc_check_ex(ENVS->plain, &a, d, ast, &ck);
    assert_non_null(t);
    assert_string_equal(dc_type_str(&a, t), "list(bool)");
    assert_int_equal(ast->kind, DC_AST_COMPREHENSION);
    assert_true(ast->id < ck.ntypes);
    assert_string_equal(dc_type_str(&a, ck.types[ast->u.comp.range->id]), "list(int)");
    const dc_ast *body = ast->u.comp.arg1;
    assert_string_equal(dc_type_str(&a, ck.types[body->id]), "bool");
    const dc_ast *mul = body->u.call.args[0]->u.call.args[0];
    assert_string_equal(dc_type_str(&a, ck.types[mul->id]), "int");
    /* No type variable survives in the recorded types. */
    const char *src2 = "[[], {}, []]";
    dc_ast *ast2 = NULL;
    assert_int_equal(dc_parse(NULL, &a, d, src2, strlen(src2), &ast2), DRACEL_OK);
    t = dc_check_ex(ENVS->plain, &a, d, ast2, &ck);
    assert_string_equal(dc_type_str(&a, t), "list(dyn)");
    for (uint32_t i = 0; i < ck.ntypes; i++)
        if (ck.types[i])
            assert_null(strstr(dc_type_str(&a, ck.types[i]), "_var"));
    assert_null(dc_check(NULL, &a, d, ast2));
    assert_null(dc_check(ENVS->plain, &a, d, NULL));
    dc_arena_free(&a);
    dracel_diags_free(d);
}

static void test_deep_and_large(void **state)
{
    /* 240 nested lists (the parser's limit is 250). */
    char src[1024] = "";
    for (int i = 0; i < 240; i++)
        strcat(src, "[");
    strcat(src, "1");
    for (int i = 0; i < 240; i++)
        strcat(src, "]");
    char *got = run(ENVS->plain, src, NULL);
    assert_int_equal(strncmp(got, "list(list(", 10), 0);
    assert_non_null(strstr(got, "(int)"));
    free(got);

    /* Long flat chains (&& chains are balanced) and many literals, near the 10 KiB limit. */
    size_t cap = 10240;
    char *big = malloc(cap + 1);
    size_t n = 0;
    n += (size_t)snprintf(big + n, cap - n, "1 < 2");
    while (n + 24 < cap)
        n += (size_t)snprintf(big + n, cap - n, " && 1 < 2.0");
    got = run(ENVS->plain, big, NULL);
    assert_string_equal(got, "bool");
    free(got);
    n = (size_t)snprintf(big, cap, "[[]");
    while (n + 16 < cap)
        n += (size_t)snprintf(big + n, cap - n, ", [], {}");
    snprintf(big + n, cap - n, "]");
    got = run(ENVS->plain, big, NULL);
    assert_string_equal(got, "list(dyn)");
    free(got);
    n = (size_t)snprintf(big, cap, "[");
    while (n + 24 < cap)
        n += (size_t)snprintf(big + n, cap - n, "dyn(1) == 1,");
    snprintf(big + n, cap - n, "true]");
    got = run(ENVS->plain, big, NULL);
    assert_string_equal(got, "list(bool)");
    free(got);
    free(big);
}

typedef struct failing {
    long left; /* allocations that still succeed; negative: never fail */
    size_t live;
} failing;

static void *f_malloc(void *ctx, size_t n)
{
    failing *f = ctx;
    if (f->left == 0)
        return NULL;
    if (f->left > 0)
        f->left--;
    f->live++;
    return malloc(n);
}

static void *f_realloc(void *ctx, void *p, size_t old, size_t n)
{
    failing *f = ctx;
    (void)old;
    if (f->left == 0)
        return NULL;
    if (f->left > 0)
        f->left--;
    if (!p)
        f->live++;
    return realloc(p, n);
}

static void f_free(void *ctx, void *p, size_t n)
{
    failing *f = ctx;
    (void)n;
    if (p)
        f->live--;
    free(p);
}

static void test_allocation_failures(void **state)
{
    const char *exprs[] = {
        "[1, 2].map(x, x * 2.0 > 1.0) + [true] == [] && 'a' + 1 == 2",
        "device.attributes['d'].x in [1, 'a'] || device.foo",
        "{'a': [1]}.transformMap(k, v, v.sortBy(x, -x)).size() > 0",
    };
    for (size_t e = 0; e < sizeof exprs / sizeof *exprs; e++) {
        bool done = false;
        for (long budget = 0; budget < 100000 && !done; budget++) {
            dc_diags *d = dc_diags_new(&dc_default_alloc, 0);
            dc_arena pa;
            dc_arena_init(&pa, &dc_default_alloc);
            dc_ast *ast = NULL;
            assert_int_equal(dc_parse(NULL, &pa, d, exprs[e], strlen(exprs[e]), &ast),
                             DRACEL_OK);
            failing f = {budget, 0};
            dracel_alloc fa = {f_malloc, f_realloc, f_free, &f};
            dc_arena a;
            dc_arena_init(&a, &fa);
            const dc_type *t = dc_check(ENVS->dra, &a, d, ast);
            (void)t;
            if (!d->oom)
                done = true;
            dc_arena_free(&a);
            assert_int_equal(f.live, 0);
            dc_arena_free(&pa);
            dracel_diags_free(d);
        }
        assert_true(done);
    }
    /* Environment creation under allocation failure. */
    for (long budget = 0; budget < 100000; budget++) {
        failing f = {budget, 0};
        dracel_alloc fa = {f_malloc, f_realloc, f_free, &f};
        dc_env *env = dc_env_new(&fa, DC_ENV_DRA);
        bool ok = env != NULL;
        dc_env_free(env);
        assert_int_equal(f.live, 0);
        if (ok)
            break;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_printing_and_parsing),
        cmocka_unit_test(test_env_variables),
        cmocka_unit_test(test_declarations),
        cmocka_unit_test(test_host_overloads),
        cmocka_unit_test(test_literals_and_operators),
        cmocka_unit_test(test_cross_type_numeric_comparisons),
        cmocka_unit_test(test_conversions_and_type_idents),
        cmocka_unit_test(test_dyn_propagation),
        cmocka_unit_test(test_heterogeneous_literals_plain),
        cmocka_unit_test(test_standard_functions),
        cmocka_unit_test(test_extension_functions),
        cmocka_unit_test(test_optionals),
        cmocka_unit_test(test_names_and_shadowing),
        cmocka_unit_test(test_qualified_function_names),
        cmocka_unit_test(test_comprehensions),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_render_exact),
        cmocka_unit_test(test_dra_device),
        cmocka_unit_test(test_dra_result_type),
        cmocka_unit_test(test_dra_homogeneous_literals),
        cmocka_unit_test(test_dra_regex_literals),
        cmocka_unit_test(test_dra_unsupported_features),
        cmocka_unit_test(test_node_types),
        cmocka_unit_test(test_deep_and_large),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
