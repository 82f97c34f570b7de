/*
 * test_lex.c: unit tests for the lexer (grammar/lexer.re) and its literal decoding functions.
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
#include <time.h>

#include "lex.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers
 */

typedef struct ctx {
    dc_arena arena;
    dc_diags *diags;
    dc_lexer lx;
    char *src; /* exactly len + 1 bytes, so ASan catches a read past the NUL */
    size_t len;
} ctx;

static void ctx_init_n(ctx *c, const char *src, size_t len)
{
    c->src = malloc(len + 1);
    assert_non_null(c->src);
    if (len)
        memcpy(c->src, src, len);
    c->src[len] = '\0';
    c->len = len;
    dc_arena_init(&c->arena, &dc_default_alloc);
    c->diags = dc_diags_new(&dc_default_alloc, 100);
    assert_non_null(c->diags);
    dc_lex_init(&c->lx, c->src, len, &c->arena, c->diags);
}

static void ctx_init(ctx *c, const char *src)
{
    ctx_init_n(c, src, strlen(src));
}

static void ctx_fini(ctx *c)
{
    dc_arena_free(&c->arena);
    dracel_diags_free(c->diags);
    free(c->src);
}

static dc_tok next(ctx *c, dc_token *t)
{
    dc_tok k = dc_lex_next(&c->lx, t);
    assert_int_equal(k, t->kind);
    assert_true(t->span.start <= t->span.end);
    assert_true(t->span.end <= c->len);
    return k;
}

static size_t nerr(const ctx *c)
{
    return c->diags->count;
}

static const char *msg(const ctx *c, size_t i)
{
    assert_true(i < c->diags->count);
    return c->diags->items[i].msg;
}

static uint32_t err_at(const ctx *c, size_t i)
{
    assert_true(i < c->diags->count);
    return c->diags->items[i].span.start;
}

/* Lex src, which must be one token followed by end of input, into *t (the context stays open
 * so that t's strings stay valid). */
static dc_tok one_n(ctx *c, const char *src, size_t len, dc_token *t)
{
    ctx_init_n(c, src, len);
    dc_tok k = next(c, t);
    dc_token e;
    assert_int_equal(next(c, &e), DC_TOK_EOF);
    return k;
}

static dc_tok one(ctx *c, const char *src, dc_token *t)
{
    return one_n(c, src, strlen(src), t);
}

/* Check that src lexes to exactly the kinds given (terminated by DC_TOK_EOF), without errors. */
static void expect_kinds(const char *src, ...)
{
    ctx c;
    ctx_init(&c, src);
    va_list ap;
    va_start(ap, src);
    for (;;) {
        dc_tok want = (dc_tok)va_arg(ap, int);
        dc_token t;
        dc_tok got = next(&c, &t);
        if (got != want)
            fail_msg("in \"%s\": expected %s, got %s at %u", src, dc_tok_name(want),
                     dc_tok_name(got), t.span.start);
        if (want == DC_TOK_EOF)
            break;
    }
    va_end(ap);
    if (nerr(&c))
        fail_msg("in \"%s\": unexpected error: %s", src, msg(&c, 0));
    ctx_fini(&c);
}

/* A string literal: src must decode without error to exactly want[0..want_len). */
static void expect_str_n(const char *src, dc_tok kind, const char *want, size_t want_len)
{
    ctx c;
    dc_token t;
    dc_tok k = one(&c, src, &t);
    if (nerr(&c))
        fail_msg("in %s: unexpected error: %s", src, msg(&c, 0));
    assert_int_equal(k, kind);
    assert_int_equal(t.flags, 0);
    assert_int_equal(t.span.start, 0);
    assert_int_equal(t.span.end, strlen(src));
    if (t.v.s.len != want_len || memcmp(t.v.s.ptr, want, want_len) != 0)
        fail_msg("in %s: wrong value (length %zu, expected %zu)", src, t.v.s.len, want_len);
    assert_int_equal(t.v.s.ptr[t.v.s.len], '\0');
    ctx_fini(&c);
}

static void expect_str(const char *src, const char *want)
{
    expect_str_n(src, DC_TOK_STRING, want, strlen(want));
}

static void expect_bytes_n(const char *src, const char *want, size_t want_len)
{
    expect_str_n(src, DC_TOK_BYTES, want, want_len);
}

/* A literal that is one token with one error, reported at its start. */
static void expect_bad(const char *src, dc_tok kind, const char *want_msg)
{
    ctx c;
    dc_token t;
    dc_tok k = one(&c, src, &t);
    assert_int_equal(k, kind);
    assert_true(t.flags & DC_TOKF_BAD);
    assert_int_equal(t.span.start, 0);
    if (nerr(&c) != 1)
        fail_msg("in %s: %zu errors", src, nerr(&c));
    if (strcmp(msg(&c, 0), want_msg) != 0)
        fail_msg("in %s: message \"%s\", expected \"%s\"", src, msg(&c, 0), want_msg);
    assert_int_equal(err_at(&c, 0), 0);
    ctx_fini(&c);
}

/* Lex all of src; @return the number of tokens before EOF. */
static size_t lex_count(ctx *c)
{
    size_t n = 0;
    dc_token t;
    while (next(c, &t) != DC_TOK_EOF)
        n++;
    return n;
}

/* ---------------------------------------------------------------------------------------------
 * Token names, EOF, whitespace, comments
 */

static void test_tok_names(void **state)
{
    (void)state;
    for (int k = 0; k < DC_TOK__COUNT; k++) {
        assert_non_null(dc_tok_name((dc_tok)k));
        assert_true(strlen(dc_tok_name((dc_tok)k)) > 0);
    }
    assert_string_equal(dc_tok_name(DC_TOK_EOF), "end of input");
    assert_string_equal(dc_tok_name(DC_TOK_IDENT), "identifier");
    assert_string_equal(dc_tok_name(DC_TOK_LPAREN), "'('");
    assert_string_equal(dc_tok_name(DC_TOK_OR), "'||'");
    assert_string_equal(dc_tok_name(DC_TOK_BANG), "'!'");
    assert_non_null(dc_tok_name(DC_TOK__COUNT));
    assert_non_null(dc_tok_name((dc_tok)-1));
}

static void test_eof(void **state)
{
    (void)state;
    const char *cases[] = {"", " ", " \t\r\n\f ", "// comment", "  // c\n// d\r\n", "//"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ctx c;
        ctx_init(&c, cases[i]);
        for (int j = 0; j < 3; j++) {
            dc_token t;
            assert_int_equal(next(&c, &t), DC_TOK_EOF);
            assert_int_equal(t.span.start, c.len);
            assert_int_equal(t.span.end, c.len);
        }
        assert_int_equal(nerr(&c), 0);
        ctx_fini(&c);
    }
    /* After a token, EOF keeps coming back. */
    ctx c;
    ctx_init(&c, "a ");
    dc_token t;
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    for (int j = 0; j < 3; j++) {
        assert_int_equal(next(&c, &t), DC_TOK_EOF);
        assert_int_equal(t.span.start, 2);
    }
    ctx_fini(&c);
}

static void test_comments(void **state)
{
    (void)state;
    expect_kinds("a // comment\nb", DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("a//x\r\nb", DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("a // \"unterminated ' # @ \xc3\xa9\n+", DC_TOK_IDENT, DC_TOK_PLUS, DC_TOK_EOF);
    expect_kinds("/ /", DC_TOK_SLASH, DC_TOK_SLASH, DC_TOK_EOF);
    expect_kinds("1 /// x", DC_TOK_INT, DC_TOK_EOF);
    /* whitespace: space, tab, LF, CR, FF; not VT */
    expect_kinds("a\tb\nc\rd\fe", DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT,
                 DC_TOK_IDENT, DC_TOK_EOF);
    ctx c;
    ctx_init(&c, "a\vb");
    assert_int_equal(lex_count(&c), 2);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '\\x0B'");
    ctx_fini(&c);
}

/* ---------------------------------------------------------------------------------------------
 * Operators, identifiers, keywords
 */

static void test_operators(void **state)
{
    (void)state;
    expect_kinds("|| && == != < <= > >= + - * / % ! ? : . , ( ) [ ] { }", DC_TOK_OR, DC_TOK_AND,
                 DC_TOK_EQ, DC_TOK_NE, DC_TOK_LT, DC_TOK_LE, DC_TOK_GT, DC_TOK_GE, DC_TOK_PLUS,
                 DC_TOK_MINUS, DC_TOK_STAR, DC_TOK_SLASH, DC_TOK_PERCENT, DC_TOK_BANG,
                 DC_TOK_QUESTION, DC_TOK_COLON, DC_TOK_DOT, DC_TOK_COMMA, DC_TOK_LPAREN,
                 DC_TOK_RPAREN, DC_TOK_LBRACKET, DC_TOK_RBRACKET, DC_TOK_LBRACE, DC_TOK_RBRACE,
                 DC_TOK_EOF);
    expect_kinds("a<=b>=c!=d==e&&f||g", DC_TOK_IDENT, DC_TOK_LE, DC_TOK_IDENT, DC_TOK_GE,
                 DC_TOK_IDENT, DC_TOK_NE, DC_TOK_IDENT, DC_TOK_EQ, DC_TOK_IDENT, DC_TOK_AND,
                 DC_TOK_IDENT, DC_TOK_OR, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("!!a", DC_TOK_BANG, DC_TOK_BANG, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("--1", DC_TOK_MINUS, DC_TOK_MINUS, DC_TOK_INT, DC_TOK_EOF);
    expect_kinds("<<>>", DC_TOK_LT, DC_TOK_LT, DC_TOK_GT, DC_TOK_GT, DC_TOK_EOF);
    expect_kinds("&&&&", DC_TOK_AND, DC_TOK_AND, DC_TOK_EOF);
    expect_kinds("! ==", DC_TOK_BANG, DC_TOK_EQ, DC_TOK_EOF); /* "!==" is "!=" and a lone '=' */
}

static void test_identifiers(void **state)
{
    (void)state;
    expect_kinds("true false null in", DC_TOK_TRUE, DC_TOK_FALSE, DC_TOK_NULL, DC_TOK_IN,
                 DC_TOK_EOF);
    expect_kinds("True FALSE Null IN truex in_ _in null1", DC_TOK_IDENT, DC_TOK_IDENT,
                 DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT,
                 DC_TOK_IDENT, DC_TOK_EOF);
    /* Reserved words are identifiers for the lexer. */
    expect_kinds("as break const continue else for function if import let loop package "
                 "namespace return var void while",
                 DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT,
                 DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT,
                 DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT,
                 DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_EOF);
    /* String prefixes alone are identifiers. */
    expect_kinds("r b R B rb br Rb bR rbx", DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT,
                 DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT, DC_TOK_IDENT,
                 DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("rr\"x\"", DC_TOK_IDENT, DC_TOK_STRING, DC_TOK_EOF);

    ctx c;
    dc_token t;
    assert_int_equal(one(&c, "  _Abc_09 ", &t), DC_TOK_IDENT);
    assert_int_equal(t.span.start, 2);
    assert_int_equal(t.span.end, 9);
    assert_int_equal(t.v.s.len, 7);
    assert_string_equal(t.v.s.ptr, "_Abc_09");
    ctx_fini(&c);

    ctx_init(&c, "in1 in");
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_string_equal(t.v.s.ptr, "in1");
    assert_int_equal(next(&c, &t), DC_TOK_IN);
    assert_int_equal(t.span.start, 4);
    assert_int_equal(t.span.end, 6);
    ctx_fini(&c);
}

static void test_quoted_identifiers(void **state)
{
    (void)state;
    ctx c;
    dc_token t;
    assert_int_equal(one(&c, "`b-c/d e.f_0`", &t), DC_TOK_QIDENT);
    assert_int_equal(t.flags, 0);
    assert_int_equal(t.span.start, 0);
    assert_int_equal(t.span.end, 13);
    assert_int_equal(t.v.s.len, 11);
    assert_string_equal(t.v.s.ptr, "b-c/d e.f_0");
    ctx_fini(&c);

    assert_int_equal(one(&c, "`in`", &t), DC_TOK_QIDENT);
    assert_string_equal(t.v.s.ptr, "in");
    ctx_fini(&c);

    expect_kinds("a.`b.c`.d", DC_TOK_IDENT, DC_TOK_DOT, DC_TOK_QIDENT, DC_TOK_DOT, DC_TOK_IDENT,
                 DC_TOK_EOF);
    expect_kinds("`a``b`", DC_TOK_QIDENT, DC_TOK_QIDENT, DC_TOK_EOF);

    /* Errors: empty, bad character (skipped up to the closing backquote), unterminated. */
    ctx_init(&c, "x ``");
    assert_int_equal(lex_count(&c), 1);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '``'");
    assert_int_equal(err_at(&c, 0), 2);
    ctx_fini(&c);

    ctx_init(&c, "a.`b@c` + 1");
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(next(&c, &t), DC_TOK_DOT);
    assert_int_equal(next(&c, &t), DC_TOK_PLUS);
    assert_int_equal(next(&c, &t), DC_TOK_INT);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '`b@'");
    assert_int_equal(err_at(&c, 0), 2);
    ctx_fini(&c);

    ctx_init(&c, "`ab\ncd");
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_string_equal(t.v.s.ptr, "cd");
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '`ab\\n'");
    ctx_fini(&c);

    ctx_init(&c, "`abc");
    assert_int_equal(lex_count(&c), 0);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '`abc'");
    ctx_fini(&c);

    ctx_init(&c, "`a\tb`");
    assert_int_equal(lex_count(&c), 0);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '`a\\t'");
    ctx_fini(&c);
}

/* ---------------------------------------------------------------------------------------------
 * Numbers
 */

static void expect_int(const char *src, dc_tok kind, uint64_t v, unsigned flags)
{
    ctx c;
    dc_token t;
    dc_tok k = one(&c, src, &t);
    if (nerr(&c))
        fail_msg("in %s: unexpected error: %s", src, msg(&c, 0));
    assert_int_equal(k, kind);
    assert_int_equal(t.flags, flags);
    assert_int_equal(t.span.start, 0);
    assert_int_equal(t.span.end, strlen(src));
    if (t.v.u != v)
        fail_msg("in %s: value %llu", src, (unsigned long long)t.v.u);
    ctx_fini(&c);
}

static void test_ints(void **state)
{
    (void)state;
    expect_int("0", DC_TOK_INT, 0, 0);
    expect_int("7", DC_TOK_INT, 7, 0);
    expect_int("01", DC_TOK_INT, 1, 0); /* leading zeros: still base 10 */
    expect_int("010", DC_TOK_INT, 10, 0);
    expect_int("000000000000000000000000000042", DC_TOK_INT, 42, 0);
    expect_int("9223372036854775807", DC_TOK_INT, INT64_MAX, 0);
    expect_int("9223372036854775808", DC_TOK_INT, (uint64_t)INT64_MAX + 1, DC_TOKF_INT_OVERFLOW);
    expect_int("18446744073709551615", DC_TOK_INT, UINT64_MAX, DC_TOKF_INT_OVERFLOW);
    expect_bad("18446744073709551616", DC_TOK_INT, "invalid int literal");
    expect_bad("99999999999999999999999999", DC_TOK_INT, "invalid int literal");
    expect_int("0x0", DC_TOK_INT, 0, 0);
    expect_int("0xFF", DC_TOK_INT, 255, 0);
    expect_int("0xaBcDeF", DC_TOK_INT, 0xabcdef, 0);
    expect_int("0x7fffffffffffffff", DC_TOK_INT, INT64_MAX, 0);
    expect_int("0x8000000000000000", DC_TOK_INT, (uint64_t)INT64_MAX + 1, DC_TOKF_INT_OVERFLOW);
    expect_int("0xffffffffffffffff", DC_TOK_INT, UINT64_MAX, DC_TOKF_INT_OVERFLOW);
    expect_int("0x0000000000000000000ffffffffffffffff", DC_TOK_INT, UINT64_MAX,
               DC_TOKF_INT_OVERFLOW);
    expect_bad("0x10000000000000000", DC_TOK_INT, "invalid int literal");

    /* Boundaries between tokens. */
    expect_kinds("0X10", DC_TOK_INT, DC_TOK_IDENT, DC_TOK_EOF); /* only lowercase 0x */
    expect_kinds("0x", DC_TOK_INT, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("0xg", DC_TOK_INT, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("123abc", DC_TOK_INT, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("1e", DC_TOK_INT, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("1e+", DC_TOK_INT, DC_TOK_IDENT, DC_TOK_PLUS, DC_TOK_EOF);
    expect_kinds("-1", DC_TOK_MINUS, DC_TOK_INT, DC_TOK_EOF);
    expect_kinds("1-1", DC_TOK_INT, DC_TOK_MINUS, DC_TOK_INT, DC_TOK_EOF);
    expect_kinds("x[0]", DC_TOK_IDENT, DC_TOK_LBRACKET, DC_TOK_INT, DC_TOK_RBRACKET,
                 DC_TOK_EOF);
}

static void test_uints(void **state)
{
    (void)state;
    expect_int("0u", DC_TOK_UINT, 0, 0);
    expect_int("1U", DC_TOK_UINT, 1, 0);
    expect_int("007u", DC_TOK_UINT, 7, 0);
    expect_int("9223372036854775808u", DC_TOK_UINT, (uint64_t)INT64_MAX + 1, 0);
    expect_int("18446744073709551615u", DC_TOK_UINT, UINT64_MAX, 0);
    expect_bad("18446744073709551616u", DC_TOK_UINT, "invalid uint literal");
    expect_bad("18446744073709551616U", DC_TOK_UINT, "invalid uint literal");
    expect_int("0xFFu", DC_TOK_UINT, 255, 0);
    expect_int("0xffffffffffffffffU", DC_TOK_UINT, UINT64_MAX, 0);
    expect_bad("0x1ffffffffffffffffu", DC_TOK_UINT, "invalid uint literal");
    expect_kinds("1uu", DC_TOK_UINT, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("1u2", DC_TOK_UINT, DC_TOK_INT, DC_TOK_EOF);
    expect_kinds("1.0u", DC_TOK_DOUBLE, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("1e3u", DC_TOK_DOUBLE, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("0Xu", DC_TOK_INT, DC_TOK_IDENT, DC_TOK_EOF);
}

static void test_parse_uint(void **state)
{
    (void)state;
    uint64_t v;
    bool ovf;
#define PU(s) dc_lex_parse_uint((const unsigned char *)(s), strlen(s), &v, &ovf)
    assert_null(PU("123"));
    assert_int_equal(v, 123);
    assert_false(ovf);
    assert_null(PU("0x1F"));
    assert_int_equal(v, 31);
    assert_null(PU("18446744073709551615"));
    assert_true(v == UINT64_MAX);
    assert_false(ovf);
    assert_null(PU("18446744073709551616"));
    assert_true(ovf);
    assert_null(PU("0x10000000000000000"));
    assert_true(ovf);
    assert_null(PU("184467440737095516150"));
    assert_true(ovf);
    assert_non_null(PU(""));
    assert_non_null(PU("0x"));
    assert_non_null(PU("12a"));
    assert_non_null(PU("0xg"));
    assert_non_null(PU("-1"));
    assert_non_null(PU("1u"));
    assert_non_null(PU("0X1"));
#undef PU
}

static void expect_double(const char *src, double want)
{
    ctx c;
    dc_token t;
    dc_tok k = one(&c, src, &t);
    if (nerr(&c))
        fail_msg("in %s: unexpected error: %s", src, msg(&c, 0));
    assert_int_equal(k, DC_TOK_DOUBLE);
    assert_int_equal(t.flags, 0);
    assert_int_equal(t.span.end, strlen(src));
    if (t.v.d != want)
        fail_msg("in %s: %.17g, expected %.17g", src, t.v.d, want);
    ctx_fini(&c);
}

static void test_doubles(void **state)
{
    (void)state;
    expect_double("1.5", 1.5);
    expect_double("0.0", 0.0);
    expect_double("00.25", 0.25);
    expect_double("1e3", 1000.0);
    expect_double("1E3", 1000.0);
    expect_double("1e+3", 1000.0);
    expect_double("1e-3", 0.001);
    expect_double("2.5E-1", 0.25);
    expect_double(".5", 0.5);
    expect_double(".5e1", 5.0);
    expect_double("1.5e10", 1.5e10);
    expect_double("123456789.123456789", 123456789.123456789);
    expect_double("0e0", 0.0);
    expect_double("1.7976931348623157e308", 1.7976931348623157e308);
    expect_double("4.9e-324", 4.9e-324);
    expect_double("1e-999", 0.0); /* underflow to zero is not an error (as Go's ParseFloat) */
    expect_double("0.1", 0.1);
    expect_double("3.141592653589793238462643383279", 3.141592653589793);
    expect_bad("1e999", DC_TOK_DOUBLE, "invalid double literal");
    expect_bad("1.8e308", DC_TOK_DOUBLE, "invalid double literal");
    expect_bad("123456789e301", DC_TOK_DOUBLE, "invalid double literal");

    /* "1." is INT then DOT; "1.e5" is INT DOT IDENT (as cel-go's grammar). */
    expect_kinds("1.", DC_TOK_INT, DC_TOK_DOT, DC_TOK_EOF);
    expect_kinds("1.e5", DC_TOK_INT, DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("1..2", DC_TOK_INT, DC_TOK_DOT, DC_TOK_DOUBLE, DC_TOK_EOF);
    expect_kinds("1.2.3", DC_TOK_DOUBLE, DC_TOK_DOUBLE, DC_TOK_EOF);
    expect_kinds("x.1", DC_TOK_IDENT, DC_TOK_DOUBLE, DC_TOK_EOF);
    expect_kinds("1e5e5", DC_TOK_DOUBLE, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("1.5.e", DC_TOK_DOUBLE, DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_EOF);
    expect_kinds("-1.5", DC_TOK_MINUS, DC_TOK_DOUBLE, DC_TOK_EOF);
    expect_kinds(".", DC_TOK_DOT, DC_TOK_EOF);
    expect_kinds(".e1", DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_EOF);
}

static void test_parse_double(void **state)
{
    (void)state;
    double d;
#define PD(s) dc_lex_parse_double((const unsigned char *)(s), strlen(s), &d)
    assert_null(PD("1"));
    assert_true(d == 1.0);
    assert_null(PD("1."));
    assert_true(d == 1.0);
    assert_null(PD("0.000"));
    assert_true(d == 0.0);
    assert_null(PD("0e99999999999999999999"));
    assert_true(d == 0.0);
    assert_null(PD("1e-99999999999999999999"));
    assert_true(d == 0.0);
    assert_non_null(PD("1e99999999999999999999"));
    assert_non_null(PD(""));
    assert_non_null(PD("."));
    assert_non_null(PD("e5"));
    assert_non_null(PD("1e"));
    assert_non_null(PD("1e+"));
    assert_non_null(PD("1.2.3"));
    assert_non_null(PD("0x1p3"));
    assert_non_null(PD("inf"));
    assert_non_null(PD("nan"));
    assert_non_null(PD(" 1"));
    assert_non_null(PD("+1"));
    assert_non_null(PD("1 "));

    /* Against strtod on many generated texts (bounded lengths: strtod is exact there). */
    srand(12345);
    char buf[128];
    for (int i = 0; i < 20000; i++) {
        size_t n = 0;
        int a = rand() % 25, b = rand() % 25;
        for (int j = 0; j < a; j++)
            buf[n++] = (char)('0' + (j == 0 ? rand() % 10 : rand() % 10));
        if (b || a == 0) {
            buf[n++] = '.';
            for (int j = 0; j < b || (a == 0 && j == 0); j++)
                buf[n++] = (char)('0' + rand() % 10);
        }
        if (rand() % 2) {
            buf[n++] = (rand() % 2) ? 'e' : 'E';
            int r = rand() % 3;
            if (r == 1)
                buf[n++] = '-';
            else if (r == 2)
                buf[n++] = '+';
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%d", rand() % 340);
        }
        buf[n] = '\0';
        double want = strtod(buf, NULL);
        const char *m = dc_lex_parse_double((const unsigned char *)buf, n, &d);
        if (isinf(want)) {
            assert_non_null(m);
        } else {
            if (m || d != want)
                fail_msg("%s: got %.17g (%s), want %.17g", buf, d, m ? m : "ok", want);
        }
    }

    /* Very long mantissas: leading zeros dropped, and digits past the kept ones still decide the
     * rounding. 2^53 + 1 = 9007199254740993 is halfway between two doubles: exactly it rounds
     * to even (...992); any nonzero digit far after it rounds up (...994). */
    size_t big = 5000;
    char *s = malloc(big + 64);
    assert_non_null(s);
    strcpy(s, "9007199254740993.");
    size_t n = strlen(s);
    memset(s + n, '0', big);
    n += big;
    s[n] = '\0';
    assert_null(dc_lex_parse_double((const unsigned char *)s, n, &d));
    assert_true(d == 9007199254740992.0);
    s[n++] = '1';
    s[n] = '\0';
    assert_null(dc_lex_parse_double((const unsigned char *)s, n, &d));
    assert_true(d == 9007199254740994.0);
    /* Leading zeros in both parts, and integer digits past the kept ones scale the value. */
    memset(s, '0', big);
    strcpy(s + big, "1.5e-3");
    assert_null(dc_lex_parse_double((const unsigned char *)s, strlen(s), &d));
    assert_true(d == 1.5e-3);
    s[0] = '1';
    memset(s + 1, '0', 1000);
    strcpy(s + 1001, "e-1000");
    assert_null(dc_lex_parse_double((const unsigned char *)s, strlen(s), &d));
    assert_true(d == 1.0);
    s[0] = '.';
    memset(s + 1, '0', 1000);
    strcpy(s + 1001, "25e1001");
    assert_null(dc_lex_parse_double((const unsigned char *)s, strlen(s), &d));
    assert_true(d == 2.5);
    free(s);
#undef PD
}

/* ---------------------------------------------------------------------------------------------
 * Strings and bytes
 */

static void test_string_forms(void **state)
{
    (void)state;
    expect_str("\"\"", "");
    expect_str("''", "");
    expect_str("\"abc\"", "abc");
    expect_str("'abc'", "abc");
    expect_str("'a\"b'", "a\"b");
    expect_str("\"a'b\"", "a'b");
    expect_str("\"\"\"\"\"\"", "");
    expect_str("''''''", "");
    expect_str("\"\"\"a\"b\"\"c\"\"\"", "a\"b\"\"c");
    expect_str("'''x''x'''", "x''x");
    expect_str("'''a\nb'''", "a\nb");
    expect_str("\"\"\"a\r\nb\rc\"\"\"", "a\nb\nc"); /* newlines normalized to LF */
    expect_str("'''it's'''", "it's");
    expect_str("\"\xc3\xa9\xf0\x9f\x98\x80\"", "\xc3\xa9\xf0\x9f\x98\x80");
    expect_str("\"a\\\"b\"", "a\"b");
    expect_str("'a\\'b'", "a'b");
    expect_str("\"\"\"a\\\"\"\"\"", "a\""); /* escaped quote, then closing */
    expect_str("'''\\''''", "'");

    /* raw */
    expect_str("r\"\\n\"", "\\n");
    expect_str("R'\\d+'", "\\d+");
    expect_str("r\"\\\"", "\\"); /* a backslash does not escape the quote in raw strings */
    expect_str("r'''a\\'''", "a\\");
    expect_str("r\"\"\"\\x\n\\u\"\"\"", "\\x\n\\u");
    expect_str("R'''a\r\nb'''", "a\nb");
    expect_str("r\"\\q\\400\\uD800\"", "\\q\\400\\uD800");

    /* bytes, all prefix spellings */
    expect_bytes_n("b\"abc\"", "abc", 3);
    expect_bytes_n("B'abc'", "abc", 3);
    expect_bytes_n("b\"\"\"a\nb\"\"\"", "a\nb", 3);
    expect_bytes_n("B'''x'''", "x", 1);
    /* cel-go's grammar: BYTES is [bB] before a STRING, which may be raw: only `br` orders. */
    const char *pfx[] = {"br", "bR", "Br", "BR"};
    for (size_t i = 0; i < sizeof pfx / sizeof pfx[0]; i++) {
        char src[32];
        snprintf(src, sizeof src, "%s'\\x'", pfx[i]);
        expect_bytes_n(src, "\\x", 2);
        snprintf(src, sizeof src, "%s\"\"\"\\u\"\"\"", pfx[i]);
        expect_bytes_n(src, "\\u", 2);
    }
    expect_kinds("rb'x'", DC_TOK_IDENT, DC_TOK_STRING, DC_TOK_EOF); /* `rb` is an identifier */
    expect_bytes_n("b'\xf0\x9f\x98\x80'", "\xf0\x9f\x98\x80", 4); /* UTF-8 of the text */
    expect_bytes_n("b\"\xc3\xbf\"", "\xc3\xbf", 2);
    expect_bytes_n("b\"\\303\\277\"", "\xc3\xbf", 2);

    /* Adjacent tokens and spans. */
    ctx c;
    ctx_init(&c, "x+'a'\"b\"r'c'b'd'");
    dc_token t;
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(next(&c, &t), DC_TOK_PLUS);
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_int_equal(t.span.start, 2);
    assert_int_equal(t.span.end, 5);
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_int_equal(t.span.start, 5);
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_int_equal(t.span.start, 8);
    assert_string_equal(t.v.s.ptr, "c");
    assert_int_equal(next(&c, &t), DC_TOK_BYTES);
    assert_int_equal(t.span.start, 12);
    assert_int_equal(t.span.end, 16);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 0);
    ctx_fini(&c);
}

static void test_string_boundaries(void **state)
{
    (void)state;
    /* """a"""" is the string "a" and then an unterminated '"'. */
    ctx c;
    dc_token t;
    ctx_init(&c, "\"\"\"a\"\"\"\" + 1");
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_int_equal(t.span.end, 7);
    assert_int_equal(t.flags, 0);
    assert_string_equal(t.v.s.ptr, "a");
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_true(t.flags & DC_TOKF_BAD);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 1);
    ctx_fini(&c);

    expect_kinds("'''a''' + '''b'''", DC_TOK_STRING, DC_TOK_PLUS, DC_TOK_STRING, DC_TOK_EOF);
    expect_kinds("\"\" \"\"", DC_TOK_STRING, DC_TOK_STRING, DC_TOK_EOF);
    expect_kinds("'' + ''", DC_TOK_STRING, DC_TOK_PLUS, DC_TOK_STRING, DC_TOK_EOF);
}

static void test_escapes_valid(void **state)
{
    (void)state;
    expect_str("\"\\a\\b\\f\\n\\r\\t\\v\\\\\\?\\\"\\'\\`\"", "\a\b\f\n\r\t\v\\?\"'`");
    expect_str("'\\a\\b\\f\\n\\r\\t\\v\\\\\\?\\\"\\'\\`'", "\a\b\f\n\r\t\v\\?\"'`");
    expect_str("'''\\n\\''''", "\n'");
    expect_str("\"\\x41\\X42\\x6a\\x6A\"", "ABjj");
    expect_str("\"\\xff\"", "\xc3\xbf"); /* code point U+00FF in a string */
    expect_str("\"\\xFF\"", "\xc3\xbf");
    expect_str("\"\\x7f\\x80\"", "\x7f\xc2\x80");
    expect_str("\"\\101\\060\"", "A0");
    expect_str("\"\\377\"", "\xc3\xbf");
    expect_str("\"\\303\\277\"", "\xc3\x83\xc2\xbf"); /* two code points: U+00C3 U+00BF */
    expect_str("\"\\u00e9\\u00E9\"", "\xc3\xa9\xc3\xa9");
    expect_str("\"\\u0041\\u20AC\\uffff\"", "A\xe2\x82\xac\xef\xbf\xbf");
    expect_str("\"\\uD7FF\\uE000\"", "\xed\x9f\xbf\xee\x80\x80"); /* around the surrogates */
    expect_str("\"\\U0001F600\"", "\xf0\x9f\x98\x80");
    expect_str("\"\\U00000041\\U0010FFFF\"", "A\xf4\x8f\xbf\xbf");
    expect_str("\"x\\x41\\101\\u0041\\U00000041y\"", "xAAAAy");
    /* NULs from escapes are part of the value. */
    expect_str_n("\"a\\x00b\\000c\\u0000d\\U00000000\"", DC_TOK_STRING, "a\0b\0c\0d\0", 8);

    /* bytes: \x and octal are octets */
    expect_bytes_n("b\"\\xff\\xFF\\x00\\x41\"", "\xff\xff\0A", 4);
    expect_bytes_n("b'\\377\\000\\101'", "\xff\0A", 3);
    expect_bytes_n("b\"\\a\\b\\f\\n\\r\\t\\v\\\\\\?\\\"\\'\\`\"", "\a\b\f\n\r\t\v\\?\"'`", 12);
    expect_bytes_n("b'''\\x80\\n'''", "\x80\n", 2);
}

static void test_escapes_invalid(void **state)
{
    (void)state;
    expect_bad("\"\\q\"", DC_TOK_STRING, "invalid escape sequence '\\q'");
    expect_bad("'\\8'", DC_TOK_STRING, "invalid escape sequence '\\8'");
    expect_bad("'\\9'", DC_TOK_STRING, "invalid escape sequence '\\9'");
    expect_bad("'\\ '", DC_TOK_STRING, "invalid escape sequence '\\ '");
    expect_bad("'\\c'", DC_TOK_STRING, "invalid escape sequence '\\c'");
    expect_bad("'\\e'", DC_TOK_STRING, "invalid escape sequence '\\e'");
    expect_bad("'\\\xc3\xa9'", DC_TOK_STRING, "invalid escape sequence '\\\xc3\xa9'");
    expect_bad("'\\\t'", DC_TOK_STRING,
               "invalid escape sequence: '\\' followed by control character 0x09");
    expect_bad("b'\\q'", DC_TOK_BYTES, "invalid escape sequence '\\q'");
    expect_bad("'''a\\\nb'''", DC_TOK_STRING, "invalid escape sequence: '\\' at end of line");
    expect_bad("'''a\\\r\nb'''", DC_TOK_STRING, "invalid escape sequence: '\\' at end of line");

    expect_bad("'\\x4'", DC_TOK_STRING, "invalid \\x escape: expected 2 hex digits");
    expect_bad("'\\x'", DC_TOK_STRING, "invalid \\x escape: expected 2 hex digits");
    expect_bad("'\\xg1'", DC_TOK_STRING, "invalid \\x escape: expected 2 hex digits");
    expect_bad("'\\X4g'", DC_TOK_STRING, "invalid \\x escape: expected 2 hex digits");
    expect_bad("b'\\x4'", DC_TOK_BYTES, "invalid \\x escape: expected 2 hex digits");
    expect_bad("'\\u12'", DC_TOK_STRING, "invalid \\u escape: expected 4 hex digits");
    expect_bad("'\\u123g'", DC_TOK_STRING, "invalid \\u escape: expected 4 hex digits");
    expect_bad("'\\U1234567'", DC_TOK_STRING, "invalid \\U escape: expected 8 hex digits");
    expect_bad("'\\U0001F60x'", DC_TOK_STRING, "invalid \\U escape: expected 8 hex digits");
    expect_bad("'\\uD800'", DC_TOK_STRING, "invalid \\u escape: surrogate code point");
    expect_bad("'\\udfff'", DC_TOK_STRING, "invalid \\u escape: surrogate code point");
    expect_bad("'\\uDBFF\\uDC00'", DC_TOK_STRING, "invalid \\u escape: surrogate code point");
    expect_bad("'\\U0000D800'", DC_TOK_STRING, "invalid \\U escape: surrogate code point");
    expect_bad("'\\U0000DFFF'", DC_TOK_STRING, "invalid \\U escape: surrogate code point");
    expect_bad("'\\U00110000'", DC_TOK_STRING, "invalid \\U escape: code point above U+10FFFF");
    expect_bad("'\\UFFFFFFFF'", DC_TOK_STRING, "invalid \\U escape: code point above U+10FFFF");
    expect_bad("b'\\u0041'", DC_TOK_BYTES, "\\u escapes are not allowed in bytes literals");
    expect_bad("B\"\\U00000041\"", DC_TOK_BYTES, "\\U escapes are not allowed in bytes literals");
    expect_bad("b'''\\u'''", DC_TOK_BYTES, "\\u escapes are not allowed in bytes literals");

    expect_bad("'\\400'", DC_TOK_STRING, "octal escape out of range");
    expect_bad("'\\777'", DC_TOK_STRING, "octal escape out of range");
    expect_bad("b'\\400'", DC_TOK_BYTES, "octal escape out of range");
    expect_bad("'\\0'", DC_TOK_STRING, "invalid octal escape: expected 3 octal digits");
    expect_bad("'\\12'", DC_TOK_STRING, "invalid octal escape: expected 3 octal digits");
    expect_bad("'\\128'", DC_TOK_STRING, "invalid octal escape: expected 3 octal digits");
    expect_bad("'\\4'", DC_TOK_STRING, "invalid octal escape: expected 3 octal digits");
    expect_bad("'\\08'", DC_TOK_STRING, "invalid octal escape: expected 3 octal digits");

    /* One error per literal, at its start; the token value is an empty placeholder. */
    ctx c;
    dc_token t;
    ctx_init(&c, "x == 'ok' + '\\q\\uD800\\400' + b'\\u0041'");
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(next(&c, &t), DC_TOK_EQ);
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_int_equal(t.flags, 0);
    assert_int_equal(next(&c, &t), DC_TOK_PLUS);
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_int_equal(t.flags, DC_TOKF_BAD);
    assert_int_equal(t.span.start, 12);
    assert_int_equal(t.v.s.len, 0);
    assert_non_null(t.v.s.ptr);
    assert_int_equal(next(&c, &t), DC_TOK_PLUS);
    assert_int_equal(next(&c, &t), DC_TOK_BYTES);
    assert_int_equal(t.flags, DC_TOKF_BAD);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 2);
    assert_string_equal(msg(&c, 0), "invalid escape sequence '\\q'");
    assert_int_equal(err_at(&c, 0), 12);
    assert_string_equal(msg(&c, 1), "\\u escapes are not allowed in bytes literals");
    assert_int_equal(err_at(&c, 1), 29);
    ctx_fini(&c);
}

static void test_decode_quoted(void **state)
{
    (void)state;
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    const char *out;
    size_t len;
#define DQ(s, raw, bytes) \
    dc_lex_decode_quoted(&a, (const unsigned char *)(s), strlen(s), raw, bytes, &out, &len)
    assert_null(DQ("", false, false));
    assert_int_equal(len, 0);
    assert_string_equal(out, "");
    assert_null(DQ("a\\tb", false, false));
    assert_string_equal(out, "a\tb");
    assert_null(DQ("a\\tb", true, false));
    assert_string_equal(out, "a\\tb");
    assert_null(DQ("a\\tb", true, true));
    assert_string_equal(out, "a\\tb");
    assert_null(DQ("\\xff", false, true));
    assert_int_equal(len, 1);
    assert_int_equal((unsigned char)out[0], 0xff);
    assert_null(DQ("\\xff", false, false));
    assert_int_equal(len, 2);
    assert_null(DQ("a\r\nb\r\rc\n", false, false));
    assert_string_equal(out, "a\nb\n\nc\n");
    assert_null(DQ("a\r\nb", true, true));
    assert_string_equal(out, "a\nb");
    assert_null(DQ("\\r\\n", false, false));
    assert_string_equal(out, "\r\n");
    assert_string_equal(DQ("abc\\", false, false),
                        "invalid escape sequence: '\\' at end of literal");
    assert_null(DQ("abc\\", true, false));
    assert_string_equal(DQ("\\q", false, false), "invalid escape sequence");
    assert_string_equal(DQ("\\u00", false, false), "invalid \\u escape: expected 4 hex digits");
    assert_string_equal(DQ("\\uDC00", false, false), "invalid \\u escape: surrogate code point");
    assert_string_equal(DQ("\\U", false, false), "invalid \\U escape: expected 8 hex digits");
    assert_string_equal(DQ("\\u0041", false, true), "\\u escapes are not allowed in bytes literals");
    assert_string_equal(DQ("\\3", false, false), "invalid octal escape: expected 3 octal digits");
    assert_string_equal(DQ("\\37", false, false), "invalid octal escape: expected 3 octal digits");
    assert_string_equal(DQ("\\500", false, true), "octal escape out of range");
    assert_string_equal(DQ("\\x", false, true), "invalid \\x escape: expected 2 hex digits");
    /* non-NUL-terminated input: decode only n bytes */
    assert_null(dc_lex_decode_quoted(&a, (const unsigned char *)"ab\\x41zz", 6, false, false,
                                     &out, &len));
    assert_int_equal(len, 3);
    assert_string_equal(out, "abA");
    assert_string_equal(dc_lex_decode_quoted(&a, (const unsigned char *)"\\x4142", 3, false,
                                             false, &out, &len),
                        "invalid \\x escape: expected 2 hex digits");
#undef DQ
    dc_arena_free(&a);
}

static void test_unterminated(void **state)
{
    (void)state;
    ctx c;
    dc_token t;

    ctx_init(&c, "x == \"abc");
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(next(&c, &t), DC_TOK_EQ);
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_int_equal(t.flags, DC_TOKF_BAD);
    assert_int_equal(t.span.start, 5);
    assert_int_equal(t.span.end, 9);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '\"abc'");
    assert_int_equal(err_at(&c, 0), 5);
    ctx_fini(&c);

    /* A newline ends a single-quoted literal; lexing goes on after it. */
    ctx_init(&c, "'abc\n+ x");
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_true(t.flags & DC_TOKF_BAD);
    assert_int_equal(next(&c, &t), DC_TOK_PLUS);
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: ''abc\\n'");
    assert_int_equal(err_at(&c, 0), 0);
    ctx_fini(&c);

    ctx_init(&c, "\"a\rc\"");
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_true(t.flags & DC_TOKF_BAD);
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(next(&c, &t), DC_TOK_STRING); /* the lone closing quote */
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 2);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '\"a\\r'");
    ctx_fini(&c);

    /* Each form, unterminated, gives one error and one bad token of the right kind. */
    struct {
        const char *src;
        dc_tok kind;
        const char *shown;
    } cases[] = {
        {"\"", DC_TOK_STRING, "\""},
        {"'", DC_TOK_STRING, "'"},
        {"\"\"\"", DC_TOK_STRING, "\"\"\""},
        {"'''abc''", DC_TOK_STRING, "'''abc''"},
        {"\"\"\"a\nb\"\"", DC_TOK_STRING, "\"\"\"a\\nb\"\""},
        {"r\"abc", DC_TOK_STRING, "r\"abc"},
        {"R'''abc", DC_TOK_STRING, "R'''abc"},
        {"b\"abc", DC_TOK_BYTES, "b\"abc"},
        {"B'''abc", DC_TOK_BYTES, "B'''abc"},
        {"br'abc", DC_TOK_BYTES, "br'abc"},
        {"bR\"\"\"abc\"", DC_TOK_BYTES, "bR\"\"\"abc\""},
        {"\"abc\\", DC_TOK_STRING, "\"abc\\"},     /* backslash at end of input */
        {"\"abc\\\"", DC_TOK_STRING, "\"abc\\\""}, /* escaped quote does not close */
        {"'''abc\\", DC_TOK_STRING, "'''abc\\"},
        {"r'a\\'", DC_TOK_STRING, NULL}, /* raw: r'a\' is complete */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ctx_init(&c, cases[i].src);
        assert_int_equal(next(&c, &t), cases[i].kind);
        if (!cases[i].shown) {
            assert_int_equal(t.flags, 0);
            assert_int_equal(nerr(&c), 0);
        } else {
            assert_int_equal(t.flags, DC_TOKF_BAD);
            assert_int_equal(t.span.start, 0);
            assert_int_equal(nerr(&c), 1);
            char want[128];
            snprintf(want, sizeof want, "Syntax error: token recognition error at: '%s'",
                     cases[i].shown);
            if (strcmp(msg(&c, 0), want) != 0)
                fail_msg("%s: got %s", cases[i].src, msg(&c, 0));
        }
        assert_int_equal(next(&c, &t), DC_TOK_EOF);
        ctx_fini(&c);
    }

    /* Backslash then newline in a single-quoted literal: unterminated at the backslash. */
    ctx_init(&c, "'ab\\\ncd");
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_true(t.flags & DC_TOKF_BAD);
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_string_equal(t.v.s.ptr, "cd");
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 1);
    ctx_fini(&c);

    /* A long unterminated literal is shown cut. */
    size_t n = 100000;
    char *s = malloc(n + 1);
    assert_non_null(s);
    s[0] = '"';
    memset(s + 1, 'x', n - 1);
    s[n] = '\0';
    ctx_init(&c, s);
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_int_equal(t.span.end, n);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 1);
    assert_true(strlen(msg(&c, 0)) < 200);
    assert_non_null(strstr(msg(&c, 0), "...'"));
    ctx_fini(&c);
    free(s);
}

/* ---------------------------------------------------------------------------------------------
 * Unrecognized input
 */

static void test_garbage(void **state)
{
    (void)state;
    ctx c;
    dc_token t;
    struct {
        const char *src;
        const char *shown;
        uint32_t at;
    } cases[] = {
        {"#", "#", 0},
        {"a # b", "#", 2},
        {"$x", "$", 0},
        {"@", "@", 0},
        {"a;", ";", 1},
        {"~", "~", 0},
        {"^", "^", 0},
        {"\\", "\\", 0},
        {"##$$@@;;", "#", 0}, /* one error per run */
        {"x \xc3\xa9", "\xc3\xa9", 2},
        {"\xe2\x82\xac\xe2\x82\xac", "\xe2\x82\xac", 0},
        {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", 0},
        {"\xff", "\\xFF", 0},
        {"\xc3", "\\xC3", 0},
        {"\x01", "\\x01", 0},
        {"\x7f", "\\x7F", 0},
        {"a = b", "= ", 2}, /* ANTLR shows the next character too */
        {"a=b", "=b", 1},
        {"a =", "=", 2},
        {"a & b", "& ", 2},
        {"a | b", "| ", 2},
        {"a |\n b", "|\\n", 2},
        {"===", "=", 2},
        {"!==", "=", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ctx_init(&c, cases[i].src);
        lex_count(&c);
        if (nerr(&c) != 1)
            fail_msg("%s: %zu errors", cases[i].src, nerr(&c));
        char want[128];
        snprintf(want, sizeof want, "Syntax error: token recognition error at: '%s'",
                 cases[i].shown);
        if (strcmp(msg(&c, 0), want) != 0)
            fail_msg("%s: got %s", cases[i].src, msg(&c, 0));
        assert_int_equal(err_at(&c, 0), cases[i].at);
        ctx_fini(&c);
    }

    /* Garbage is skipped: the tokens around it come through. */
    ctx_init(&c, "a # b $ c");
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_string_equal(t.v.s.ptr, "b");
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_string_equal(t.v.s.ptr, "c");
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 2);
    assert_int_equal(err_at(&c, 1), 6);
    ctx_fini(&c);

    ctx_init(&c, "#a#");
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(t.span.start, 1);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 2);
    ctx_fini(&c);

    /* A lone '=' before a multi-byte character shows it whole (and then it is garbage). */
    ctx_init(&c, "a =\xc3\xa9");
    lex_count(&c);
    assert_int_equal(nerr(&c), 2);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '=\xc3\xa9'");
    assert_string_equal(msg(&c, 1), "Syntax error: token recognition error at: '\xc3\xa9'");
    ctx_fini(&c);

    ctx_init(&c, "dummy === 1");
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(next(&c, &t), DC_TOK_EQ);
    assert_int_equal(next(&c, &t), DC_TOK_INT);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "Syntax error: token recognition error at: '= '");
    assert_int_equal(err_at(&c, 0), 8);
    ctx_fini(&c);

    /* NUL bytes: an error outside literals and comments, a character inside them (cel-go). */
    ctx_init_n(&c, "a\0b", 3);
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(next(&c, &t), DC_TOK_IDENT);
    assert_int_equal(t.span.start, 2);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(t.span.start, 3);
    assert_int_equal(nerr(&c), 1);
    assert_string_equal(msg(&c, 0), "NUL byte in source text");
    assert_int_equal(err_at(&c, 0), 1);
    ctx_fini(&c);

    ctx_init_n(&c, "\"a\0b\"", 5);
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_false(t.flags & DC_TOKF_BAD);
    assert_int_equal(t.span.end, 5);
    assert_int_equal(t.v.s.len, 3);
    assert_memory_equal(t.v.s.ptr, "a\0b", 3);
    assert_int_equal(nerr(&c), 0);
    ctx_fini(&c);

    ctx_init_n(&c, "br'''\0'''", 9);
    assert_int_equal(next(&c, &t), DC_TOK_BYTES);
    assert_false(t.flags & DC_TOKF_BAD);
    assert_int_equal(t.v.s.len, 1);
    assert_int_equal(t.v.s.ptr[0], '\0');
    ctx_fini(&c);

    /* a backslash before a NUL escapes nothing */
    ctx_init_n(&c, "'\\\0'", 4);
    assert_int_equal(next(&c, &t), DC_TOK_STRING);
    assert_true(t.flags & DC_TOKF_BAD);
    assert_int_equal(nerr(&c), 1);
    ctx_fini(&c);

    ctx_init_n(&c, "// c\0omment\n1", 13);
    assert_int_equal(lex_count(&c), 1); /* the comment ends at the line break, not at the NUL */
    assert_int_equal(nerr(&c), 0);
    ctx_fini(&c);

    ctx_init_n(&c, "\0", 1);
    assert_int_equal(next(&c, &t), DC_TOK_EOF);
    assert_int_equal(t.span.start, 1);
    assert_int_equal(nerr(&c), 1);
    ctx_fini(&c);
}

/* ---------------------------------------------------------------------------------------------
 * Whole expressions
 */

static void test_selector(void **state)
{
    (void)state;
    const char *src = "device.attributes[\"gpu.example.com\"].model == \"H100\" && x[?0].?y";
    struct {
        dc_tok kind;
        uint32_t start, end;
        const char *text;
    } want[] = {
        {DC_TOK_IDENT, 0, 6, "device"},
        {DC_TOK_DOT, 6, 7, NULL},
        {DC_TOK_IDENT, 7, 17, "attributes"},
        {DC_TOK_LBRACKET, 17, 18, NULL},
        {DC_TOK_STRING, 18, 35, "gpu.example.com"},
        {DC_TOK_RBRACKET, 35, 36, NULL},
        {DC_TOK_DOT, 36, 37, NULL},
        {DC_TOK_IDENT, 37, 42, "model"},
        {DC_TOK_EQ, 43, 45, NULL},
        {DC_TOK_STRING, 46, 52, "H100"},
        {DC_TOK_AND, 53, 55, NULL},
        {DC_TOK_IDENT, 56, 57, "x"},
        {DC_TOK_LBRACKET, 57, 58, NULL},
        {DC_TOK_QUESTION, 58, 59, NULL},
        {DC_TOK_INT, 59, 60, NULL},
        {DC_TOK_RBRACKET, 60, 61, NULL},
        {DC_TOK_DOT, 61, 62, NULL},
        {DC_TOK_QUESTION, 62, 63, NULL},
        {DC_TOK_IDENT, 63, 64, "y"},
        {DC_TOK_EOF, 64, 64, NULL},
    };
    ctx c;
    ctx_init(&c, src);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dc_token t;
        assert_int_equal(next(&c, &t), want[i].kind);
        assert_int_equal(t.span.start, want[i].start);
        assert_int_equal(t.span.end, want[i].end);
        assert_int_equal(t.flags, 0);
        if (want[i].text) {
            assert_int_equal(t.v.s.len, strlen(want[i].text));
            assert_string_equal(t.v.s.ptr, want[i].text);
        }
        if (want[i].kind == DC_TOK_INT)
            assert_int_equal(t.v.u, 0);
    }
    assert_int_equal(nerr(&c), 0);
    ctx_fini(&c);

    expect_kinds("device.driver == 'gpu.example.com' &&\n"
                 "  device.attributes['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
                 " // big ones\n"
                 "  && !(device.capacity[\"x\"].cores in [1u, 2u, 0x10u]) ? 1.5e3 : -2",
                 DC_TOK_IDENT, DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_EQ, DC_TOK_STRING, DC_TOK_AND,
                 DC_TOK_IDENT, DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_LBRACKET, DC_TOK_STRING,
                 DC_TOK_RBRACKET, DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_DOT, DC_TOK_IDENT,
                 DC_TOK_LPAREN, DC_TOK_IDENT, DC_TOK_LPAREN, DC_TOK_STRING, DC_TOK_RPAREN,
                 DC_TOK_RPAREN, DC_TOK_GE, DC_TOK_INT, DC_TOK_AND, DC_TOK_BANG, DC_TOK_LPAREN,
                 DC_TOK_IDENT, DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_LBRACKET, DC_TOK_STRING,
                 DC_TOK_RBRACKET, DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_IN, DC_TOK_LBRACKET,
                 DC_TOK_UINT, DC_TOK_COMMA, DC_TOK_UINT, DC_TOK_COMMA, DC_TOK_UINT,
                 DC_TOK_RBRACKET, DC_TOK_RPAREN, DC_TOK_QUESTION, DC_TOK_DOUBLE, DC_TOK_COLON,
                 DC_TOK_MINUS, DC_TOK_INT, DC_TOK_EOF);
    expect_kinds("{'a': 1, \"b\": [true, false, null]}.a", DC_TOK_LBRACE, DC_TOK_STRING,
                 DC_TOK_COLON, DC_TOK_INT, DC_TOK_COMMA, DC_TOK_STRING, DC_TOK_COLON,
                 DC_TOK_LBRACKET, DC_TOK_TRUE, DC_TOK_COMMA, DC_TOK_FALSE, DC_TOK_COMMA,
                 DC_TOK_NULL, DC_TOK_RBRACKET, DC_TOK_RBRACE, DC_TOK_DOT, DC_TOK_IDENT,
                 DC_TOK_EOF);
    expect_kinds(".a.b(c)", DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_DOT, DC_TOK_IDENT, DC_TOK_LPAREN,
                 DC_TOK_IDENT, DC_TOK_RPAREN, DC_TOK_EOF);
    expect_kinds("a%b*c/d", DC_TOK_IDENT, DC_TOK_PERCENT, DC_TOK_IDENT, DC_TOK_STAR,
                 DC_TOK_IDENT, DC_TOK_SLASH, DC_TOK_IDENT, DC_TOK_EOF);
}

/* ---------------------------------------------------------------------------------------------
 * Size, speed, robustness
 */

static void test_long_string(void **state)
{
    (void)state;
    /* 1 MB of text with escapes spread through it. */
    size_t units = 1u << 18; /* each unit: "ab\\n" (4 source bytes) -> "ab\n" */
    size_t n = units * 4 + 2;
    char *s = malloc(n + 1);
    assert_non_null(s);
    s[0] = '"';
    for (size_t i = 0; i < units; i++)
        memcpy(s + 1 + i * 4, "ab\\n", 4);
    s[n - 1] = '"';
    s[n] = '\0';
    ctx c;
    dc_token t;
    assert_int_equal(one(&c, s, &t), DC_TOK_STRING);
    assert_int_equal(nerr(&c), 0);
    assert_int_equal(t.v.s.len, units * 3);
    for (size_t i = 0; i < units; i++) {
        if (memcmp(t.v.s.ptr + i * 3, "ab\n", 3) != 0)
            fail_msg("wrong content at unit %zu", i);
    }
    ctx_fini(&c);
    free(s);

    /* 10 MB raw triple-quoted bytes literal and a 10 MB comment: linear and fast. */
    n = 10u << 20;
    s = malloc(n + 1);
    assert_non_null(s);
    memcpy(s, "br'''", 5);
    for (size_t i = 5; i < n - 3; i++)
        s[i] = (char)("x'\\\"\n"[i % 5]);
    memcpy(s + n - 4, "x'''", 4);
    s[n] = '\0';
    clock_t t0 = clock();
    assert_int_equal(one(&c, s, &t), DC_TOK_BYTES);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_int_equal(nerr(&c), 0);
    assert_int_equal(t.v.s.len, n - 8);
    assert_memory_equal(t.v.s.ptr, s + 5, 64);
    ctx_fini(&c);
    print_message("# 10 MB raw bytes literal: %.3f s\n", secs);
    assert_true(secs < 5.0); /* generous: sanitizers slow this down */

    memcpy(s, "// ", 3);
    for (size_t i = 3; i < n; i++)
        s[i] = (char)('a' + i % 26);
    ctx_init(&c, s);
    assert_int_equal(lex_count(&c), 0);
    ctx_fini(&c);
    free(s);
}

/* Allocation hook that fails after a budget. */
static size_t alloc_budget;

static void *budget_malloc(void *ctx_, size_t n)
{
    (void)ctx_;
    if (alloc_budget == 0)
        return NULL;
    alloc_budget--;
    return malloc(n);
}

static void *budget_realloc(void *ctx_, void *p, size_t old, size_t n)
{
    (void)ctx_;
    (void)old;
    if (alloc_budget == 0)
        return NULL;
    alloc_budget--;
    return realloc(p, n);
}

static void budget_free(void *ctx_, void *p, size_t n)
{
    (void)ctx_;
    (void)n;
    free(p);
}

static void test_oom(void **state)
{
    (void)state;
    static const dracel_alloc failing = {budget_malloc, budget_realloc, budget_free, NULL};
    const char *src = "abc + 'def'";
    dc_arena arena;
    dc_arena_init(&arena, &failing);
    dc_diags *d = dc_diags_new(&dc_default_alloc, 10);
    assert_non_null(d);
    dc_lexer lx;
    dc_lex_init(&lx, src, strlen(src), &arena, d);
    alloc_budget = 0;
    dc_token t;
    assert_int_equal(dc_lex_next(&lx, &t), DC_TOK_EOF);
    assert_int_equal(t.span.start, strlen(src));
    assert_true(d->oom);
    assert_int_equal(dc_lex_next(&lx, &t), DC_TOK_EOF);
    dc_arena_free(&arena);
    dracel_diags_free(d);

    /* Strings need the arena too. */
    dc_arena_init(&arena, &failing);
    d = dc_diags_new(&dc_default_alloc, 10);
    assert_non_null(d);
    dc_lex_init(&lx, "+ 'def'", 7, &arena, d);
    assert_int_equal(dc_lex_next(&lx, &t), DC_TOK_PLUS);
    assert_int_equal(dc_lex_next(&lx, &t), DC_TOK_EOF);
    assert_true(d->oom);
    dc_arena_free(&arena);
    dracel_diags_free(d);
}

static uint32_t rng_state;

static uint32_t rng(void)
{
    /* xorshift32 */
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rng_state = x;
    return x;
}

static void test_random_bytes(void **state)
{
    (void)state;
    /* Bytes biased toward the interesting ones. */
    static const char alphabet[] = "\"'`\\rRbBuUxX0123456789.eE+-_ \n\r\t/*!=<>&|?:()[]{},%#\x00"
                                   "\x80\xc3\xa9\xff\xf0\x9f";
    rng_state = 0x9e3779b9u;
    unsigned char buf[300];
    for (int iter = 0; iter < 10000; iter++) {
        size_t n = rng() % 257;
        int mode = (int)(rng() % 3);
        for (size_t i = 0; i < n; i++) {
            if (mode == 0)
                buf[i] = (unsigned char)rng();
            else
                buf[i] = (unsigned char)alphabet[rng() % (sizeof alphabet - 1)];
        }
        ctx c;
        ctx_init_n(&c, (const char *)buf, n);
        size_t count = 0;
        uint32_t last = 0;
        dc_token t;
        for (;;) {
            dc_tok k = next(&c, &t);
            assert_true(t.span.start >= last);
            last = t.span.end;
            if (k == DC_TOK_EOF)
                break;
            assert_true(t.span.end > t.span.start);
            if (k == DC_TOK_STRING || k == DC_TOK_BYTES || k == DC_TOK_IDENT ||
                k == DC_TOK_QIDENT) {
                assert_non_null(t.v.s.ptr);
                assert_int_equal(t.v.s.ptr[t.v.s.len], '\0');
            }
            count++;
            assert_true(count <= n);
        }
        assert_int_equal(t.span.start, n);
        assert_int_equal(next(&c, &t), DC_TOK_EOF);
        ctx_fini(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tok_names),
        cmocka_unit_test(test_eof),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_operators),
        cmocka_unit_test(test_identifiers),
        cmocka_unit_test(test_quoted_identifiers),
        cmocka_unit_test(test_ints),
        cmocka_unit_test(test_uints),
        cmocka_unit_test(test_parse_uint),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_parse_double),
        cmocka_unit_test(test_string_forms),
        cmocka_unit_test(test_string_boundaries),
        cmocka_unit_test(test_escapes_valid),
        cmocka_unit_test(test_escapes_invalid),
        cmocka_unit_test(test_decode_quoted),
        cmocka_unit_test(test_unterminated),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_selector),
        cmocka_unit_test(test_long_string),
        cmocka_unit_test(test_oom),
        cmocka_unit_test(test_random_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
