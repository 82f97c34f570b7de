/*
 * test_front.c: unit tests of the front end through the public API and the internal modules:
 * diagnostic rendering, limits, hostile input (bounded time and memory, no crash), allocation
 * failure at every point of a parse, arena behaviour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arena.h"
#include "diag.h"
#include "dracel.h"

/* Parse with cfg; return the AST text or the rendered diagnostics (caller frees with free()). */
static char *parse_text(const dracel_config *cfg, const char *src, size_t len, dracel_status *st)
{
    char *out = NULL;
    dracel_diags *d = NULL;
    *st = dracel_parse_sexpr(cfg, src, len, &out, &d);
    char *r;
    if (*st == DRACEL_OK) {
        r = strdup(out);
    } else {
        char *diag = d ? dracel_diags_render(d, "<input>") : NULL;
        r = strdup(diag ? diag : "");
        dracel_free_string(cfg, diag);
    }
    dracel_free_string(cfg, out);
    dracel_diags_free(d);
    return r;
}

static void test_render_format(void **state)
{
    (void)state;
    dracel_status st;
    char *r = parse_text(NULL, "1 + devic.attributes[", 21, &st);
    assert_int_equal(st, DRACEL_EINPUT);
    assert_string_equal(r, "ERROR: <input>:1:22: Syntax error: mismatched input '<EOF>' expecting "
                           "{identifier, int literal, uint literal, double literal, string literal, "
                           "bytes literal, 'true', 'false', 'null', '(', '[', '{', '.', '?', '-', "
                           "'!'}\n"
                           " | 1 + devic.attributes[\n"
                           " | .....................^\n");
    free(r);
}

static void test_render_columns_count_code_points(void **state)
{
    (void)state;
    /* "é" is two bytes, one code point; cel-go marks it with a full-width dot. */
    const char *src = "'é' + )";
    dracel_status st;
    char *r = parse_text(NULL, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_EINPUT);
    assert_non_null(strstr(r, "ERROR: <input>:1:7: "));
    assert_non_null(strstr(r, "\n | .\xEF\xBC\x8E....^\n"));
    free(r);
}

static void test_render_multiline(void **state)
{
    (void)state;
    const char *src = "a &&\n\tb ||\n  )";
    dracel_status st;
    char *r = parse_text(NULL, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_EINPUT);
    /* The tab is shown as a space, the column is on line 3. */
    assert_non_null(strstr(r, "ERROR: <input>:3:3: "));
    assert_non_null(strstr(r, "\n |   )\n | ..^\n"));
    free(r);
}

static void test_diagnostics_sorted_and_capped(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    /* Errors inside two separate parenthesized groups, then a reserved word earlier on. */
    const char *src = "if + (1 +) + (2 *) + 3";
    char *out = NULL;
    dracel_diags *d = NULL;
    assert_int_equal(dracel_parse_sexpr(&cfg, src, strlen(src), &out, &d), DRACEL_EINPUT);
    assert_true(dracel_diags_count(d) >= 3);
    dracel_diag_info prev = {0}, info;
    for (size_t i = 0; i < dracel_diags_count(d); i++) {
        assert_int_equal(dracel_diags_get(d, i, &info), DRACEL_OK);
        assert_true(info.column >= prev.column);
        prev = info;
    }
    assert_int_equal(dracel_diags_get(d, 0, &info), DRACEL_OK);
    assert_string_equal(info.message, "reserved identifier: if");
    assert_int_equal(dracel_diags_get(d, 999, &info), DRACEL_EINVAL);
    dracel_diags_free(d);

    cfg.max_errors = 1;
    assert_int_equal(dracel_parse_sexpr(&cfg, src, strlen(src), &out, &d), DRACEL_EINPUT);
    assert_int_equal(dracel_diags_count(d), 1);
    char *text = dracel_diags_render(d, "<input>");
    assert_non_null(strstr(text, "more diagnostics not shown (limit 1)"));
    dracel_free_string(&cfg, text);
    dracel_diags_free(d);
}

static char *repeat(const char *unit, size_t times, const char *tail)
{
    size_t u = strlen(unit), t = strlen(tail);
    char *s = malloc(u * times + t + 1);
    assert_non_null(s);
    for (size_t i = 0; i < times; i++)
        memcpy(s + i * u, unit, u);
    memcpy(s + u * times, tail, t + 1);
    return s;
}

static void expect_depth_error(dracel_config *cfg, const char *unit, size_t times,
                               const char *tail)
{
    char *src = repeat(unit, times, tail);
    dracel_status st;
    char *r = parse_text(cfg, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_ELIMIT); /* a configured limit: never EINPUT */
    if (!strstr(r, "expression recursion limit exceeded: 250"))
        fail_msg("no depth diagnostic for %.20s x %zu: %.200s", unit, times, r);
    free(r);
    free(src);
}

static void test_depth_limit(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.max_source_bytes = 16u << 20;
    /* 249 levels of brackets are fine... */
    char *ok = repeat("[", 249, "");
    char *ok2 = repeat("]", 249, "");
    size_t n = strlen(ok);
    char *src = malloc(2 * n + 2);
    memcpy(src, ok, n);
    src[n] = '1';
    memcpy(src + n + 1, ok2, n + 1);
    dracel_status st;
    char *r = parse_text(&cfg, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_OK);
    free(r);
    free(src);
    free(ok);
    free(ok2);
    /* ...and deeper nesting of every kind is a diagnostic, never a stack overflow. */
    expect_depth_error(&cfg, "(", 100000, "");
    expect_depth_error(&cfg, "[", 300, "1");
    expect_depth_error(&cfg, "{1:", 300, "1");
    expect_depth_error(&cfg, "f(", 300, "1");
    expect_depth_error(&cfg, "a.b(", 300, "1");
    expect_depth_error(&cfg, "x[", 300, "1");
    expect_depth_error(&cfg, "a ? b : ", 300, "c");
    expect_depth_error(&cfg, "a ? b : ", 5000, "c");
    expect_depth_error(&cfg, "1 + ", 300, "1");
    expect_depth_error(&cfg, "-(", 300, "1");
    expect_depth_error(&cfg, "a.", 300, "b");
}

/* The hard maximum of the depth limit is reachable: Bison's own stack never stops first (its
 * default of 10,000 entries cut 10,000 levels of brackets at 9,997). */
static void test_depth_hard_max(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.max_depth = DRACEL_HARD_MAX_DEPTH;
    cfg.max_source_bytes = 1u << 20;
    /* Parentheses make no node: 10,000 of them nest 10,000 deep. A list or a map is a node
     * above its element: 9,999 of them around a literal make a tree 10,000 high. */
    static const char *const open[] = {"(", "[", "{1: "};
    static const char *const close[] = {")", "]", "}"};
    static const size_t most[] = {DRACEL_HARD_MAX_DEPTH, DRACEL_HARD_MAX_DEPTH - 1,
                                  DRACEL_HARD_MAX_DEPTH - 1};
    for (int k = 0; k < 3; k++) {
        for (size_t n = most[k] - 1; n <= most[k] + 1; n++) {
            size_t lo = strlen(open[k]), lc = strlen(close[k]);
            char *src = malloc(n * (lo + lc) + 2);
            assert_non_null(src);
            size_t at = 0;
            for (size_t i = 0; i < n; i++, at += lo)
                memcpy(src + at, open[k], lo);
            src[at++] = '1';
            for (size_t i = 0; i < n; i++, at += lc)
                memcpy(src + at, close[k], lc);
            dracel_status st;
            char *r = parse_text(&cfg, src, at, &st);
            if (n <= most[k]) {
                assert_int_equal(st, DRACEL_OK);
            } else {
                assert_int_equal(st, DRACEL_ELIMIT);
                assert_non_null(strstr(r, "expression recursion limit exceeded: 10000"));
            }
            free(r);
            free(src);
        }
    }
}

static void test_long_unary_chains_fold(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.max_source_bytes = 1u << 20;
    char *src = repeat("!", 100000, "x");
    dracel_status st;
    char *r = parse_text(&cfg, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_OK);
    assert_string_equal(r, "x");
    free(r);
    free(src);
    src = repeat("-", 100001, "x");
    r = parse_text(&cfg, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_OK);
    assert_string_equal(r, "(-_ x)");
    free(r);
    free(src);
}

static void test_source_limit(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    char *src = repeat("a", 10240, "");
    dracel_status st;
    char *r = parse_text(&cfg, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_OK);
    free(r);
    free(src);
    src = repeat("a", 10241, "");
    r = parse_text(&cfg, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_ELIMIT);
    assert_non_null(strstr(r, "ERROR: <input>:1:1: expression size exceeds limit: size: 10241 "
                              "bytes, limit 10240\n"));
    free(r);
    free(src);
}

static void test_huge_string_literal(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.max_source_bytes = 11u << 20;
    size_t n = 10u << 20;
    char *src = malloc(n + 3);
    src[0] = '"';
    memset(src + 1, 'x', n);
    src[n + 1] = '"';
    src[n + 2] = '\0';
    char *out = NULL;
    dracel_diags *d = NULL;
    assert_int_equal(dracel_parse_sexpr(&cfg, src, n + 2, &out, &d), DRACEL_OK);
    assert_int_equal(strlen(out), n + 2);
    dracel_free_string(&cfg, out);
    dracel_diags_free(d);
    /* Unterminated: a diagnostic, not a crash or a scan past the end. */
    dracel_status st;
    char *r = parse_text(&cfg, src, n + 1, &st);
    assert_int_equal(st, DRACEL_EINPUT);
    assert_non_null(strstr(r, "ERROR: <input>:1:1: "));
    free(r);
    free(src);
}

static void test_node_limit(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.max_nodes = 10;
    const char *src = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]";
    dracel_status st;
    char *r = parse_text(&cfg, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_ELIMIT);
    assert_non_null(strstr(r, "expression has too many nodes: limit 10"));
    free(r);
    cfg.max_nodes = 12;
    r = parse_text(&cfg, src, strlen(src), &st);
    assert_int_equal(st, DRACEL_OK);
    free(r);
}

static void test_invalid_utf8_and_nul(void **state)
{
    (void)state;
    dracel_status st;
    char *r = parse_text(NULL, "a + \xff", 5, &st);
    assert_int_equal(st, DRACEL_EINPUT);
    assert_non_null(strstr(r, "ERROR: <input>:1:5: invalid UTF-8 in source text (byte 0xff)"));
    free(r);
    /* A NUL is a character inside a literal (as in cel-go), an error outside one. */
    r = parse_text(NULL, "'a\0b'", 5, &st);
    assert_int_equal(st, DRACEL_OK);
    free(r);
    r = parse_text(NULL, "'a' \0+ 'b'", 10, &st);
    assert_int_not_equal(st, DRACEL_OK);
    assert_non_null(strstr(r, "ERROR: <input>:1:5: NUL byte in source text"));
    /* the source line is shown whole, its NUL as U+2400, and the caret under it */
    assert_non_null(strstr(r, "\n | 'a' \xE2\x90\x80" "+ 'b'\n | ....^\n"));
    free(r);
    /* invalid UTF-8 after a NUL is still found */
    r = parse_text(NULL, "'\0' + \xff", 7, &st);
    assert_int_equal(st, DRACEL_EINPUT);
    assert_non_null(strstr(r, "ERROR: <input>:1:7: invalid UTF-8 in source text (byte 0xff)"));
    free(r);
    /* Overlong encoding and a UTF-16 surrogate encoded in UTF-8 are invalid too. */
    r = parse_text(NULL, "'\xc0\xaf'", 4, &st);
    assert_int_equal(st, DRACEL_EINPUT);
    free(r);
    r = parse_text(NULL, "'\xed\xa0\x80'", 5, &st);
    assert_int_equal(st, DRACEL_EINPUT);
    free(r);
}

/* Many diagnostics on one long line: positions in one pass over the source, the rendering bounded
 * by max_diag_bytes (and whole diagnostics only), every position still exact. */
static void test_many_diagnostics(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.max_source_bytes = 1u << 21;
    cfg.max_errors = 100000;
    char *body = repeat("\"\\q\",", 200000, "1]");
    char *src = malloc(strlen(body) + 2);
    assert_non_null(src);
    src[0] = '[';
    strcpy(src + 1, body);
    free(body);
    char *out = NULL;
    dracel_diags *d = NULL;
    /* 200,001 elements: also past the node limit (a configured limit: DRACEL_ELIMIT). */
    assert_int_equal(dracel_parse_sexpr(&cfg, src, strlen(src), &out, &d), DRACEL_ELIMIT);
    assert_int_equal(dracel_diags_count(d), 100000);
    dracel_diag_info info;
    for (size_t i = 0; i < 100000; i += 9999) {
        assert_int_equal(dracel_diags_get(d, i, &info), DRACEL_OK);
        assert_int_equal(info.line, 1);
        assert_int_equal(info.column, 5 * i + 2); /* each element is 5 bytes; the escape's \ */
    }
    char *text = dracel_diags_render(d, "<input>");
    assert_non_null(text);
    size_t len = strlen(text);
    assert_true(len <= DRACEL_DEFAULT_MAX_DIAG_BYTES + 200);
    assert_non_null(strstr(text, "more diagnostics not shown (output limit of 1048576 bytes)\n"));
    assert_non_null(strstr(text, "more diagnostics not shown (limit 100000)\n"));
    dracel_free_string(&cfg, text);
    dracel_diags_free(d);
    /* a smaller limit; 0 is none */
    cfg.max_diag_bytes = 1000;
    assert_int_equal(dracel_parse_sexpr(&cfg, src, strlen(src), &out, &d), DRACEL_ELIMIT);
    text = dracel_diags_render(d, "<input>");
    assert_true(strlen(text) < 1200);
    assert_int_equal(strncmp(text, "ERROR: <input>:1:2: ", 20), 0);
    dracel_free_string(&cfg, text);
    dracel_diags_free(d);
    cfg.max_diag_bytes = 0;
    cfg.max_errors = 1000;
    assert_int_equal(dracel_parse_sexpr(&cfg, src, strlen(src), &out, &d), DRACEL_ELIMIT);
    text = dracel_diags_render(d, "<input>");
    assert_null(strstr(text, "output limit"));
    dracel_free_string(&cfg, text);
    dracel_diags_free(d);
    free(src);
}

static void test_random_bytes(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    char buf[512];
    /* A tiny PRNG; a bias towards CEL's own characters reaches deeper into the grammar. */
    static const char alphabet[] = "()[]{}.,:?!-+*/%<>=&|\"'`\\ab01xu.eE_ \n\t";
    for (int iter = 0; iter < 20000; iter++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t n = (size_t)(x % sizeof buf);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (x & 3) ? alphabet[(x >> 8) % (sizeof alphabet - 1)] : (char)(x >> 16);
        }
        char *out = NULL;
        dracel_diags *d = NULL;
        dracel_status st = dracel_parse_sexpr(NULL, buf, n, &out, &d);
        assert_true(st == DRACEL_OK || st == DRACEL_EINPUT || st == DRACEL_ELIMIT);
        assert_true((st == DRACEL_OK) == (out != NULL));
        char *text = dracel_diags_render(d, "<input>");
        assert_non_null(text);
        dracel_free_string(NULL, text);
        dracel_free_string(NULL, out);
        dracel_diags_free(d);
    }
}

/* An allocator that fails its Nth call, and counts bytes to find leaks (Lua's failnext). */
typedef struct failing {
    long fail_at; /* 0-based index of the call to fail; -1 never */
    long calls;
    long live;    /* blocks currently allocated */
    size_t bytes; /* bytes currently allocated */
} failing;

static void *f_malloc(void *ctx, size_t n)
{
    failing *f = ctx;
    if (f->calls++ == f->fail_at)
        return NULL;
    void *p = malloc(n ? n : 1);
    if (p) {
        f->live++;
        f->bytes += n;
    }
    return p;
}

static void *f_realloc(void *ctx, void *p, size_t old, size_t n)
{
    failing *f = ctx;
    if (f->calls++ == f->fail_at)
        return NULL;
    void *q = realloc(p, n ? n : 1);
    if (q)
        f->bytes = f->bytes - old + n;
    return q;
}

static void f_free(void *ctx, void *p, size_t n)
{
    failing *f = ctx;
    if (p) {
        f->live--;
        f->bytes -= n;
    }
    free(p);
}

static void sweep_allocation_failures(const char *src, dracel_status want)
{
    for (long k = 0;; k++) {
        failing f = {k, 0, 0, 0};
        dracel_alloc a = {f_malloc, f_realloc, f_free, &f};
        dracel_config cfg;
        dracel_config_init(&cfg);
        cfg.alloc = &a;
        char *out = NULL;
        dracel_diags *d = NULL;
        dracel_status st = dracel_parse_sexpr(&cfg, src, strlen(src), &out, &d);
        if (st == DRACEL_ENOMEM) {
            assert_null(out);
            assert_null(d);
        } else {
            assert_int_equal(st, want);
            if (d) {
                char *text = dracel_diags_render(d, "<input>");
                dracel_free_string(&cfg, text); /* NULL when rendering itself hit the failure */
            }
        }
        dracel_free_string(&cfg, out);
        dracel_diags_free(d);
        assert_int_equal(f.live, 0);
        assert_int_equal(f.bytes, 0);
        if (f.calls <= k)
            break; /* the whole run made fewer than k+1 calls: every point was covered */
    }
}

static void test_allocation_failure_sweep(void **state)
{
    (void)state;
    sweep_allocation_failures(
        "device.attributes[\"gpu.example.com\"].model in [\"H100\", \"A100\"] && "
        "[1, 2, 3].map(x, x * 2).exists(y, y > 4) && {'a': b'\\x00'}.size() == 1 && "
        "has(device.attributes.x) && cel.bind(v, 'abc', v + v).startsWith(\"ab\")",
        DRACEL_OK);
    sweep_allocation_failures("1 + + ) 'unterminated", DRACEL_EINPUT);
}

static void test_arena(void **state)
{
    (void)state;
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    char *big = dc_arena_alloc(&a, 3u << 20);
    assert_non_null(big);
    memset(big, 1, 3u << 20);
    for (int i = 0; i < 10000; i++) {
        uint64_t *p = dc_arena_alloc(&a, sizeof *p * (size_t)(i % 7 + 1));
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
        *p = (uint64_t)i;
    }
    char *s = dc_arena_printf(&a, "%s-%d", "x", 42);
    assert_string_equal(s, "x-42");
    assert_null(dc_arena_alloc(&a, SIZE_MAX - 8));
    dc_arena_free(&a);
    assert_int_equal(a.total, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_format),
        cmocka_unit_test(test_render_columns_count_code_points),
        cmocka_unit_test(test_render_multiline),
        cmocka_unit_test(test_diagnostics_sorted_and_capped),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_depth_hard_max),
        cmocka_unit_test(test_long_unary_chains_fold),
        cmocka_unit_test(test_source_limit),
        cmocka_unit_test(test_huge_string_literal),
        cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_invalid_utf8_and_nul),
        cmocka_unit_test(test_many_diagnostics),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_allocation_failure_sweep),
        cmocka_unit_test(test_arena),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
