/*
 * test_regex.c: unit tests for the regex module (src/regex.h over RE2), pinning Go regexp's
 * syntax, semantics and error messages, which cel-go (and so Kubernetes) exposes through
 * matches(), find() and findAll().
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regex.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers
 */

/* An exact-size heap copy (no trailing NUL), so ASan catches any read past the end. */
static char *dup_exact(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    assert_non_null(p);
    if (n)
        memcpy(p, s, n);
    return p;
}

static dc_re *compile_n(const char *pat, size_t n)
{
    char err[512];
    char *p = dup_exact(pat, n);
    dc_re *re = dc_re_compile(p, n, err, sizeof err);
    free(p);
    if (!re)
        fail_msg("pattern /%s/ should compile: %s", pat, err);
    return re;
}

static dc_re *compile(const char *pat) { return compile_n(pat, strlen(pat)); }

/* The pattern must fail to compile with exactly this message. */
static void expect_error_n(const char *pat, size_t n, const char *msg)
{
    char err[512];
    memset(err, 'x', sizeof err);
    char *p = dup_exact(pat, n);
    dc_re *re = dc_re_compile(p, n, err, sizeof err);
    free(p);
    if (re) {
        dc_re_free(re);
        fail_msg("pattern /%s/ should not compile", pat);
    }
    assert_string_equal(err, msg);
}

static void expect_error(const char *pat, const char *msg) { expect_error_n(pat, strlen(pat), msg); }

static int match_n(const char *pat, size_t pn, const char *s, size_t n)
{
    dc_re *re = compile_n(pat, pn);
    char *t = dup_exact(s, n);
    int r = dc_re_match(re, t, n);
    free(t);
    dc_re_free(re);
    return r;
}

static int match(const char *pat, const char *s) { return match_n(pat, strlen(pat), s, strlen(s)); }

/* find(): 1 and the span, or 0. */
static int find(const char *pat, const char *s, size_t *start, size_t *end)
{
    dc_re *re = compile(pat);
    size_t n = strlen(s);
    char *t = dup_exact(s, n);
    int r = dc_re_find(re, t, n, start, end);
    free(t);
    dc_re_free(re);
    return r;
}

/* findAll(): the spans as "s-e,s-e,..." (empty string for none). */
static void find_all_n(const char *pat, const char *s, size_t n, char *out, size_t cap)
{
    dc_re *re = compile(pat);
    char *t = dup_exact(s, n);
    dc_re_iter it = DC_RE_ITER_INIT;
    size_t a, b, len = 0;
    int r, count = 0;
    out[0] = '\0';
    while ((r = dc_re_find_next(re, t, n, &it, &a, &b)) == 1) {
        assert_true(a <= b && b <= n);
        len += (size_t)snprintf(out + len, cap - len, "%s%zu-%zu", count ? "," : "", a, b);
        assert_true(len < cap);
        assert_true(++count < 10000);
    }
    assert_int_equal(r, 0);
    /* Exhausted iterators stay exhausted. */
    assert_int_equal(dc_re_find_next(re, t, n, &it, &a, &b), 0);
    free(t);
    dc_re_free(re);
}

static void expect_all(const char *pat, const char *s, const char *spans)
{
    char out[4096];
    find_all_n(pat, s, strlen(s), out, sizeof out);
    if (strcmp(out, spans) != 0)
        fail_msg("findAll(/%s/, \"%s\") = [%s], want [%s]", pat, s, out, spans);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------------------------------------
 * Matching semantics (Go regexp)
 */

static void test_substring_semantics(void **state)
{
    (void)state;
    assert_int_equal(match("b", "abc"), 1);
    assert_int_equal(match("^b", "abc"), 0);
    assert_int_equal(match("^abc$", "abc"), 1);
    assert_int_equal(match("^ab$", "abc"), 0);
    assert_int_equal(match("x", "abc"), 0);
    assert_int_equal(match("[0-9]+", "node-12"), 1);
    assert_int_equal(match("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "my-node-1"), 1);
    assert_int_equal(match("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "-bad"), 0);
}

static void test_empty_pattern(void **state)
{
    (void)state;
    assert_int_equal(match("", ""), 1);
    assert_int_equal(match("", "abc"), 1);
    size_t a = 9, b = 9;
    assert_int_equal(find("", "abc", &a, &b), 1);
    assert_int_equal(a, 0);
    assert_int_equal(b, 0);
    /* NULL with length 0 is the empty pattern / subject. */
    char err[64];
    dc_re *re = dc_re_compile(NULL, 0, err, sizeof err);
    assert_non_null(re);
    assert_int_equal(dc_re_match(re, NULL, 0), 1);
    dc_re_free(re);
}

static void test_dollar_and_newline(void **state)
{
    (void)state;
    /* $ is end of text (Go's OneLine), not "before a final newline" as in PCRE. */
    assert_int_equal(match("abc$", "abc\n"), 0);
    assert_int_equal(match("abc$", "abc"), 1);
    assert_int_equal(match("abc\\z", "abc\n"), 0);
    assert_int_equal(match("(?m)abc$", "abc\nx"), 1);
    assert_int_equal(match("(?m)^b", "a\nb"), 1);
    assert_int_equal(match("^b", "a\nb"), 0);
    assert_int_equal(match("\\Ab", "a\nb"), 0);
    /* . excludes \n unless (?s); a negated class includes it (Go's ClassNL). */
    assert_int_equal(match("^.$", "\n"), 0);
    assert_int_equal(match("(?s)^.$", "\n"), 1);
    assert_int_equal(match("^[^a]$", "\n"), 1);
    assert_int_equal(match("^.$", "\r"), 1);
}

static void test_perl_classes_ascii(void **state)
{
    (void)state;
    /* \s is [\t\n\f\r ]: no \v (PCRE's \s has it); [[:space:]] has it. */
    assert_int_equal(match("^\\s$", "\v"), 0);
    assert_int_equal(match("^\\s$", "\t"), 1);
    assert_int_equal(match("^\\s$", "\f"), 1);
    assert_int_equal(match("^[[:space:]]$", "\v"), 1);
    assert_int_equal(match("^\\s$", "\xc2\xa0"), 0); /* U+00A0: \s is ASCII */
    /* \d and \w are ASCII; \pN / \pL are Unicode. */
    assert_int_equal(match("^\\d$", "\xd9\xa3"), 0); /* U+0663 ARABIC-INDIC DIGIT THREE */
    assert_int_equal(match("^\\pN$", "\xd9\xa3"), 1);
    assert_int_equal(match("^\\p{Nd}$", "\xd9\xa3"), 1);
    assert_int_equal(match("^\\w$", "\xc3\xa9"), 0);
    assert_int_equal(match("^[[:word:]]+$", "a_1"), 1);
    assert_int_equal(match("^[[:word:]]$", "\xc3\xa9"), 0);
    assert_int_equal(match("^[[:^alpha:]]$", "1"), 1);
    /* \b is an ASCII word boundary. */
    assert_int_equal(match("\\bcat\\b", "a cat."), 1);
    assert_int_equal(match("\\bcat\\b", "concat"), 0);
    assert_int_equal(match("\\Bcat", "concat"), 1);
}

static void test_unicode(void **state)
{
    (void)state;
    /* é is one character: \pL, ., and a Unicode-script class. */
    assert_int_equal(match("^\\pL$", "\xc3\xa9"), 1);
    assert_int_equal(match("^\\p{L}$", "\xc3\xa9"), 1);
    assert_int_equal(match("^\\PL$", "\xc3\xa9"), 0);
    assert_int_equal(match("^.$", "\xc3\xa9"), 1);
    assert_int_equal(match("^..$", "\xc3\xa9"), 0);
    assert_int_equal(match("^\\p{Latin}$", "\xc3\xa9"), 1);
    assert_int_equal(match("^\\p{Greek}+$", "\xce\xb1\xce\xb2"), 1);
    assert_int_equal(match("^\\p{^Greek}$", "a"), 1);
    assert_int_equal(match("^\\P{Greek}$", "\xce\xb1"), 0);
    /* e + COMBINING ACUTE is two characters. */
    assert_int_equal(match("^\\pL$", "e\xcc\x81"), 0);
    assert_int_equal(match("^\\pL\\pM$", "e\xcc\x81"), 1);
    /* Escapes for code points. */
    assert_int_equal(match("^\\x{e9}$", "\xc3\xa9"), 1);
    assert_int_equal(match("^\\xe9$", "\xc3\xa9"), 1);
    assert_int_equal(match("^\\x{1F600}$", "\xf0\x9f\x98\x80"), 1);
    assert_int_equal(match("^\\101$", "A"), 1); /* octal */
    assert_int_equal(match("^[\\x{e0}-\\x{ff}]$", "\xc3\xa9"), 1);
}

static void test_case_folding(void **state)
{
    (void)state;
    assert_int_equal(match("(?i)abc", "xABCx"), 1);
    assert_int_equal(match("abc", "ABC"), 0);
    assert_int_equal(match("(?i)^\xc3\xa9$", "\xc3\x89"), 1);         /* é / É */
    assert_int_equal(match("(?i)^k$", "\xe2\x84\xaa"), 1);             /* KELVIN SIGN */
    assert_int_equal(match("(?i)^\xcf\x83$", "\xcf\x82"), 1);          /* σ / ς */
    assert_int_equal(match("(?i)^\xcf\x83$", "\xce\xa3"), 1);          /* σ / Σ */
    assert_int_equal(match("(?i)^stra\xc3\x9f" "e$", "STRASSE"), 0);   /* simple folding only */
    assert_int_equal(match("(?i:a)b", "Ab"), 1);
    assert_int_equal(match("(?i:a)b", "AB"), 0);
    assert_int_equal(match("(?i)a(?-i)b", "AB"), 0);
    assert_int_equal(match("(?i)[a-c]+", "ABC"), 1);
}

static void test_leftmost_first(void **state)
{
    (void)state;
    size_t a, b;
    /* Go (like Perl) prefers the first alternative, not the longest (POSIX). */
    assert_int_equal(find("a|ab", "ab", &a, &b), 1);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    assert_int_equal(find("a+", "baaa", &a, &b), 1);
    assert_int_equal(a, 1);
    assert_int_equal(b, 4);
    assert_int_equal(find("a+?", "baaa", &a, &b), 1);
    assert_int_equal(b, 2);
    assert_int_equal(find("(?U)a+", "baaa", &a, &b), 1); /* ungreedy flag */
    assert_int_equal(b, 2);
    assert_int_equal(find("(?U)a+?", "baaa", &a, &b), 1);
    assert_int_equal(b, 4);
    assert_int_equal(find("[0-9]+", "abc 123 def 45", &a, &b), 1);
    assert_int_equal(a, 4);
    assert_int_equal(b, 7);
    assert_int_equal(find("[0-9]+", "abc", &a, &b), 0);
    assert_int_equal(find("x*", "abc", &a, &b), 1); /* an empty match is a match */
    assert_int_equal(a, 0);
    assert_int_equal(b, 0);
}

static void test_named_groups(void **state)
{
    (void)state;
    assert_int_equal(match("^(?P<n>a)+$", "aaa"), 1);
    assert_int_equal(match("^(?<n>a)+$", "aaa"), 1);     /* Go 1.22+ */
    assert_int_equal(match("^(?<n>a)(?P<n>b)$", "ab"), 1); /* Go allows duplicate names */
    assert_int_equal(match("^(?<first_1>a|b)(?<Z9>c)$", "bc"), 1);
    assert_int_equal(match("(?<n>a)", "b"), 0);
    /* "(?<" only means a named group where Go's parser sees a group. */
    assert_int_equal(match("^\\Q(?<n>\\E$", "(?<n>"), 1);
    assert_int_equal(match("^[(?<n>]+$", "<?n>("), 1);
    assert_int_equal(match("^\\(?<n>$", "(<n>"), 1);
    assert_int_equal(match("^\\(?<n>$", "<n>"), 1);
    assert_int_equal(match("^[[:alpha:](?<]+$", "a(<?"), 1);
    assert_int_equal(match("^\\p{Greek}(?<n>x)$", "\xce\xb1x"), 1);
    assert_int_equal(match("^(?i)(?<n>a)(?s:.)$", "A\n"), 1);
}

static void test_literal_braces_and_quotes(void **state)
{
    (void)state;
    /* Not a repeat in Go's grammar: literal braces. */
    assert_int_equal(match("^x{01}$", "x{01}"), 1);
    assert_int_equal(match("^x{01}$", "x"), 0);
    assert_int_equal(match("^a{,2}$", "a{,2}"), 1);
    assert_int_equal(match("^a{2$", "a{2"), 1);
    assert_int_equal(match("^{$", "{"), 1);
    assert_int_equal(match("^a{ 2}$", "a{ 2}"), 1);
    assert_int_equal(match("^a{2}$", "aa"), 1);
    assert_int_equal(match("^a{2,}$", "aaaa"), 1);
    assert_int_equal(match("^a{2,3}$", "aaaa"), 0);
    assert_int_equal(match("^a{1000}$", "a"), 0);
    /* \Q...\E: literal text; a trailing quantifier applies to its last character. */
    assert_int_equal(match("^\\Qa.b*\\E$", "a.b*"), 1);
    assert_int_equal(match("^\\Qa.b*\\E$", "axb"), 0);
    assert_int_equal(match("^\\Qab\\E*$", "abbb"), 1);
    assert_int_equal(match("^\\Qa\\\\E$", "a\\"), 1);
    assert_int_equal(match("^\\Qa(b$", "a(b$"), 1); /* unterminated: to the end */
    /* Escaped punctuation, including \_ which Go allows. */
    assert_int_equal(match("^\\_\\-\\.\\*$", "_-.*"), 1);
    assert_int_equal(match("^[\\]a]+$", "]a]"), 1);
    assert_int_equal(match("^[]a]+$", "]a]"), 1);
    assert_int_equal(match("^[a-]+$", "-a-"), 1);
}

static void test_nul_bytes(void **state)
{
    (void)state;
    /* CEL strings may contain U+0000: lengths, not C strings. */
    assert_int_equal(match_n("^a\0b$", 5, "a\0b", 3), 1);
    assert_int_equal(match_n("^a\0b$", 5, "ab", 2), 0);
    assert_int_equal(match_n("a\\x00b", 6, "xa\0by", 5), 1);
    assert_int_equal(match_n("^a$", 3, "a\0", 2), 0);
    assert_int_equal(match_n("^[^x]+$", 7, "\0\0\0", 3), 1);
    assert_int_equal(match_n("b", 1, "a\0b", 3), 1);

    dc_re *re = compile("b");
    size_t a, b;
    assert_int_equal(dc_re_find(re, "a\0b", 3, &a, &b), 1);
    assert_int_equal(a, 2);
    assert_int_equal(b, 3);
    dc_re_free(re);
}

static void test_invalid_utf8_subject(void **state)
{
    (void)state;
    /* Cannot come from CEL, but must be safe. */
    static const char s[] = "a\xff" "b\xc3\xe9\x80";
    size_t n = sizeof s - 1;
    assert_int_equal(match_n("b", 1, s, n), 1);
    assert_int_equal(match_n("^a", 2, s, n), 1);
    assert_true(match_n(".", 1, s, n) >= 0);
    assert_true(match_n("^.*$", 4, s, n) >= 0);
    assert_true(match_n("(?i)\\pL+", 7, s, n) >= 0);

    char out[256];
    /* The empty pattern steps over each invalid byte as one character, as Go does. */
    find_all_n("", s, n, out, sizeof out);
    assert_string_equal(out, "0-0,1-1,2-2,3-3,4-4,5-5,6-6");
    find_all_n("[ab]", s, n, out, sizeof out);
    assert_string_equal(out, "0-1,2-3");
    find_all_n(".", s, n, out, sizeof out); /* RE2: invalid bytes match nothing */
    find_all_n("\\x{FFFD}", s, n, out, sizeof out);
}

/* ---------------------------------------------------------------------------------------------
 * findAll (Go's FindAllString)
 */

static void test_find_all(void **state)
{
    (void)state;
    expect_all("[0-9]+", "a1 22 333", "1-2,3-5,6-9");
    expect_all("[0-9]+", "abc", "");
    expect_all("[0-9]+", "", "");
    expect_all("a", "aaa", "0-1,1-2,2-3");
    expect_all("aa", "aaaaa", "0-2,2-4");
    /* Empty matches: after one, the search resumes a character later ... */
    expect_all("", "abc", "0-0,1-1,2-2,3-3");
    expect_all("", "", "0-0");
    expect_all("x*", "", "0-0");
    expect_all("", "\xc3\xa9" "a", "0-0,2-2,3-3");
    /* ... and one right where the previous match ended is dropped. */
    expect_all("a*", "baaac", "0-0,1-4,5-5");
    expect_all("a*", "aab", "0-2,3-3");
    expect_all("a*?", "aa", "0-0,1-1,2-2");
    expect_all("a|", "aba", "0-1,2-3");
    expect_all("b*", "abb", "0-0,1-3");
    /* Each search sees the text before its start: \b and ^ are not fooled. */
    expect_all("\\b", "ab cd", "0-0,2-2,3-3,5-5");
    expect_all("^a", "aaa", "0-1");
    expect_all("^", "aaa", "0-0");
    expect_all("$", "aaa", "3-3");
    expect_all("(?m)^.", "ab\ncd\n", "0-1,3-4");
    expect_all("\\Ba", "aaa", "1-2,2-3");
    expect_all("\\pL+", "h\xc3\xa9llo w\xc3\xb6rld", "0-6,7-13");
    expect_all("(?i)\xc3\xa9", "\xc3\x89\xc3\xa9", "0-2,2-4");
}

static void test_find_all_limit_and_reset(void **state)
{
    (void)state;
    /* The caller implements findAll(re, n) by stopping after n matches. */
    dc_re *re = compile("[a-z]");
    const char *s = "abcdef";
    dc_re_iter it;
    dc_re_iter_init(&it);
    size_t a, b;
    int count = 0;
    while (count < 2 && dc_re_find_next(re, s, 6, &it, &a, &b) == 1)
        count++;
    assert_int_equal(count, 2);
    assert_int_equal(a, 1);
    /* The iterator resumes where it stopped. */
    assert_int_equal(dc_re_find_next(re, s, 6, &it, &a, &b), 1);
    assert_int_equal(a, 2);
    /* Reinitialised, it starts over. */
    dc_re_iter_init(&it);
    assert_int_equal(dc_re_find_next(re, s, 6, &it, &a, &b), 1);
    assert_int_equal(a, 0);
    dc_re_free(re);
}

/* ---------------------------------------------------------------------------------------------
 * Compile errors: what Go rejects, with Go's message
 */

static void test_errors_unsupported_perl(void **state)
{
    (void)state;
    expect_error("(a)\\1", "error parsing regexp: invalid escape sequence: `\\1`");
    expect_error("a(?=b)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
    expect_error("a(?!b)", "error parsing regexp: invalid or unsupported Perl syntax: `(?!`");
    /* Go reads "(?<" as a named group: lookbehind is an invalid name. */
    expect_error("(?<=a)b", "error parsing regexp: invalid named capture: `(?<=a)b`");
    expect_error("(?<!a)b", "error parsing regexp: invalid named capture: `(?<!a)b`");
    expect_error("(?<=a)>", "error parsing regexp: invalid named capture: `(?<=a)>`");
    expect_error("a++", "error parsing regexp: invalid nested repetition operator: `++`");
    expect_error("a*+", "error parsing regexp: invalid nested repetition operator: `*+`");
    expect_error("a{2}+", "error parsing regexp: invalid nested repetition operator: `{2}+`");
    expect_error("(?>a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?>`");
    expect_error("\\Z", "error parsing regexp: invalid escape sequence: `\\Z`");
    expect_error("a\\z\\Z", "error parsing regexp: invalid escape sequence: `\\Z`");
    expect_error("\\k<n>", "error parsing regexp: invalid escape sequence: `\\k`");
    expect_error("\\R", "error parsing regexp: invalid escape sequence: `\\R`");
    expect_error("\\h", "error parsing regexp: invalid escape sequence: `\\h`");
    expect_error("\\G", "error parsing regexp: invalid escape sequence: `\\G`");
    expect_error("\\cA", "error parsing regexp: invalid escape sequence: `\\c`");
    expect_error("(?#comment)", "error parsing regexp: invalid or unsupported Perl syntax: `(?#`");
    expect_error("(?'n'a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?'`");
    expect_error("(?P=n)", "error parsing regexp: invalid or unsupported Perl syntax: `(?P`");
    expect_error("(?P>n)", "error parsing regexp: invalid or unsupported Perl syntax: `(?P`");
}

static void test_errors_any_byte(void **state)
{
    (void)state;
    /* \C: RE2 accepts it, Go does not. */
    expect_error("\\C", "error parsing regexp: invalid escape sequence: `\\C`");
    expect_error("a\\C*", "error parsing regexp: invalid escape sequence: `\\C`");
    expect_error("[\\C]", "error parsing regexp: invalid escape sequence: `\\C`");
    expect_error("(a\\C", "error parsing regexp: invalid escape sequence: `\\C`");
    expect_error("(?<n>a)\\C", "error parsing regexp: invalid escape sequence: `\\C`");
    /* Go reports the first error from the left. */
    expect_error("a**\\C", "error parsing regexp: invalid nested repetition operator: `**`");
    expect_error("\\C(a**", "error parsing regexp: invalid escape sequence: `\\C`");
    expect_error("a)\\C", "error parsing regexp: unexpected ): `a)\\C`");
    expect_error("\\8\\C", "error parsing regexp: invalid escape sequence: `\\8`");
    expect_error("(?i\\C)", "error parsing regexp: invalid or unsupported Perl syntax: `(?i\\`");
    /* Not an escape of C. */
    assert_int_equal(match("^\\\\C$", "\\C"), 1);
    assert_int_equal(match("^\\QC\\C\\E$", "C\\C"), 1);
}

static void test_errors_repeat(void **state)
{
    (void)state;
    expect_error("a{1001}", "error parsing regexp: invalid repeat count: `{1001}`");
    expect_error("a{1001,}", "error parsing regexp: invalid repeat count: `{1001,}`");
    expect_error("a{0,1001}", "error parsing regexp: invalid repeat count: `{0,1001}`");
    expect_error("a{2,1}", "error parsing regexp: invalid repeat count: `{2,1}`");
    expect_error("a{99999999999}", "error parsing regexp: invalid repeat count: `{99999999999}`");
    expect_error("a{1,99999999999}",
                 "error parsing regexp: invalid repeat count: `{1,99999999999}`");
    expect_error("a*{1001}", "error parsing regexp: invalid repeat count: `{1001}`");
    expect_error("{1001}", "error parsing regexp: invalid repeat count: `{1001}`");
    /* The product of nested counts is limited too. */
    expect_error("(a{2}){501}", "error parsing regexp: invalid repeat count: `{501}`");
    expect_error("((a{10}){10}){11}", "error parsing regexp: invalid repeat count: `{11}`");
    dc_re_free(compile("((a{10}){10}){10}"));
    dc_re_free(compile("a{1000}"));
    dc_re_free(compile("a{0,1000}"));
    dc_re_free(compile("(a*)*"));
    dc_re_free(compile("(a{2}){0}"));

    expect_error("a**", "error parsing regexp: invalid nested repetition operator: `**`");
    expect_error("a*??", "error parsing regexp: invalid nested repetition operator: `*??`");
    expect_error("x{2}{3}", "error parsing regexp: invalid nested repetition operator: `{2}{3}`");
    expect_error("*", "error parsing regexp: missing argument to repetition operator: `*`");
    expect_error("*?", "error parsing regexp: missing argument to repetition operator: `*?`");
    expect_error("a|*", "error parsing regexp: missing argument to repetition operator: `*`");
    expect_error("(?i)+", "error parsing regexp: missing argument to repetition operator: `+`");
    expect_error("{2}", "error parsing regexp: missing argument to repetition operator: `{2}`");
}

static void test_errors_groups(void **state)
{
    (void)state;
    /* Go quotes the whole pattern, as written (not as rewritten for RE2). */
    expect_error("(a", "error parsing regexp: missing closing ): `(a`");
    expect_error("(?:a", "error parsing regexp: missing closing ): `(?:a`");
    expect_error("(?<n>a", "error parsing regexp: missing closing ): `(?<n>a`");
    expect_error("(?P<n>a", "error parsing regexp: missing closing ): `(?P<n>a`");
    expect_error("(?<a>x)(?<b>y)(", "error parsing regexp: missing closing ): `(?<a>x)(?<b>y)(`");
    expect_error("a)", "error parsing regexp: unexpected ): `a)`");
    expect_error(")", "error parsing regexp: unexpected ): `)`");
    expect_error("(?<n>a))", "error parsing regexp: unexpected ): `(?<n>a))`");

    expect_error("(?P<n", "error parsing regexp: invalid named capture: `(?P<n`");
    expect_error("(?<n", "error parsing regexp: invalid named capture: `(?<n`");
    expect_error("(?<>a)", "error parsing regexp: invalid named capture: `(?<>`");
    expect_error("(?P<>a)", "error parsing regexp: invalid named capture: `(?P<>`");
    expect_error("(?<a-b>x)", "error parsing regexp: invalid named capture: `(?<a-b>`");
    expect_error("(?P<\xc3\xa9>x)", "error parsing regexp: invalid named capture: `(?P<\xc3\xa9>`");
    expect_error("(?<", "error parsing regexp: invalid or unsupported Perl syntax: `(?<`");
    expect_error("(?P<", "error parsing regexp: invalid or unsupported Perl syntax: `(?P`");
    expect_error("(?", "error parsing regexp: invalid or unsupported Perl syntax: `(?`");
    expect_error("(?i", "error parsing regexp: invalid or unsupported Perl syntax: `(?i`");
    expect_error("(?z)", "error parsing regexp: invalid or unsupported Perl syntax: `(?z`");
    expect_error("(?-)", "error parsing regexp: invalid or unsupported Perl syntax: `(?-)`");
    expect_error("a**(?<>x)", "error parsing regexp: invalid nested repetition operator: `**`");
    dc_re_free(compile("(?)"));
    dc_re_free(compile("(?i-s:a)"));
    dc_re_free(compile("()"));
}

static void test_errors_classes_and_escapes(void **state)
{
    (void)state;
    expect_error("[a", "error parsing regexp: missing closing ]: `[a`");
    expect_error("[]", "error parsing regexp: missing closing ]: `[]`");
    expect_error("x[a-", "error parsing regexp: missing closing ]: `[a-`");
    expect_error("[[:alpha:]", "error parsing regexp: missing closing ]: `[[:alpha:]`");
    expect_error("[z-a]", "error parsing regexp: invalid character class range: `z-a`");
    expect_error("[[:foo:]]", "error parsing regexp: invalid character class range: `[:foo:]`");
    expect_error("\\pX", "error parsing regexp: invalid character class range: `\\pX`");
    expect_error("\\p{Foo}", "error parsing regexp: invalid character class range: `\\p{Foo}`");
    expect_error("\\p{Greek", "error parsing regexp: invalid character class range: `\\p{Greek`");
    expect_error("\\p", "error parsing regexp: invalid character class range: `\\p`");
    expect_error("a\\", "error parsing regexp: trailing backslash at end of expression: ``");
    expect_error("[a\\", "error parsing regexp: trailing backslash at end of expression: ``");
    expect_error("\\x", "error parsing regexp: invalid escape sequence: `\\x`");
    expect_error("\\xg", "error parsing regexp: invalid escape sequence: `\\xg`");
    expect_error("\\x{", "error parsing regexp: invalid escape sequence: `\\x{`");
    expect_error("\\x{1", "error parsing regexp: invalid escape sequence: `\\x{1`");
    expect_error("[\\x{1", "error parsing regexp: invalid escape sequence: `\\x{1`");
    expect_error("\\x{}", "error parsing regexp: invalid escape sequence: `\\x{}`");
    expect_error("\\x{110000}", "error parsing regexp: invalid escape sequence: `\\x{110000`");
    expect_error("\\8", "error parsing regexp: invalid escape sequence: `\\8`");
    expect_error("\\E", "error parsing regexp: invalid escape sequence: `\\E`");
    expect_error("[a-\\d]", "error parsing regexp: invalid escape sequence: `\\d`");
    /* Invalid UTF-8 in the pattern (impossible from CEL): Go quotes from the bad byte on. */
    expect_error("a\xff" "b", "error parsing regexp: invalid UTF-8: `\xff" "b`");
    expect_error("(?<a\xffz>x)", "error parsing regexp: invalid UTF-8: `\xffz`");
}

static void test_error_buffer(void **state)
{
    (void)state;
    /* A NUL byte in the pattern is quoted like any other byte. */
    static const char want[] = "error parsing regexp: missing closing ): `(\0`";
    char err[128];
    memset(err, 'x', sizeof err);
    assert_null(dc_re_compile("(\0", 2, err, sizeof err));
    assert_memory_equal(err, want, sizeof want);

    /* Truncation never splits a UTF-8 character and always terminates. */
    static const char prefix[] = "error parsing regexp: missing closing ): `(";
    size_t l = sizeof prefix - 1;
    memset(err, 'x', sizeof err);
    assert_null(dc_re_compile("(\xc3\xa9", 3, err, l + 2)); /* room for one byte of é */
    assert_int_equal(strlen(err), l);
    assert_memory_equal(err, prefix, l);
    memset(err, 'x', sizeof err);
    assert_null(dc_re_compile("(a", 2, err, 1));
    assert_int_equal(err[0], '\0');

    /* No buffer at all. */
    assert_null(dc_re_compile("(a", 2, NULL, 0));
    assert_null(dc_re_compile("(a", 2, err, 0));
    /* A NULL pattern with a length is a caller bug, reported. */
    assert_null(dc_re_compile(NULL, 3, err, sizeof err));
    assert_true(strlen(err) > 0);
}

/* ---------------------------------------------------------------------------------------------
 * Linear time and size limits
 */

static void test_redos_linear(void **state)
{
    (void)state;
    dc_re *re = compile("(a+)+$");
    char s[32];
    memset(s, 'a', 30);
    s[30] = 'b';
    double t0 = now();
    assert_int_equal(dc_re_match(re, s, 31), 0);
    size_t a, b;
    assert_int_equal(dc_re_find(re, s, 31, &a, &b), 0);
    double t1 = now();
    assert_true(t1 - t0 < 0.5);

    /* 1 MiB of 'a', then a 'b': no match; and all 'a': a match. */
    size_t n = (size_t)1 << 20;
    char *big = malloc(n + 1);
    assert_non_null(big);
    memset(big, 'a', n);
    big[n] = 'b';
    t0 = now();
    assert_int_equal(dc_re_match(re, big, n + 1), 0);
    assert_int_equal(dc_re_match(re, big, n), 1);
    assert_int_equal(dc_re_find(re, big, n, &a, &b), 1);
    assert_int_equal(a, 0);
    assert_int_equal(b, n);
    t1 = now();
    assert_true(t1 - t0 < 2.0);
    dc_re_free(re);

    /* Other classic exponential-backtracking shapes. */
    const char *pats[] = {"^(a|aa)+$", "^(a|a?)+$", "^(\\w+\\s?)*$", "(x+x+)+y", "^(a*)*b$"};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        re = compile(pats[i]);
        t0 = now();
        assert_true(dc_re_match(re, big, n + 1) >= 0);
        assert_true(dc_re_find(re, big, n + 1, &a, &b) >= 0);
        t1 = now();
        if (t1 - t0 >= 2.0)
            fail_msg("/%s/ on 1 MiB took %.2f s", pats[i], t1 - t0);
        dc_re_free(re);
    }
    free(big);
}

static void test_size_limits(void **state)
{
    (void)state;
    /* RE2's program for \pL is hundreds of byte-range instructions, so large counted repeats of
     * Unicode classes hit max_mem well before Go's limit: a known difference (Go accepts). */
    expect_error("\\pL{1000}", "error parsing regexp: expression too large: `\\pL{1000}`");
    char err[256];
    dc_re *re = dc_re_compile_ex("\\pL{100}", 8, (size_t)1 << 20, err, sizeof err);
    assert_null(re);
    assert_string_equal(err, "error parsing regexp: expression too large: `\\pL{100}`");
    re = dc_re_compile_ex("\\pL{10}", 7, 1, err, sizeof err); /* raised to the minimum */
    assert_null(re);
    assert_string_equal(err, "error parsing regexp: expression too large: `\\pL{10}`");
    re = dc_re_compile_ex("^a+$", 4, 1, err, sizeof err);
    assert_non_null(re);
    assert_int_equal(dc_re_match(re, "aaa", 3), 1);
    dc_re_free(re);
    re = dc_re_compile_ex("\\pL{100}", 8, 0, err, sizeof err); /* 0: the default */
    assert_non_null(re);
    assert_int_equal(dc_re_match(re, "x", 1), 0);
    dc_re_free(re);

    /* A DFA that outgrows its budget falls back to a slower linear matcher: still correct. */
    re = dc_re_compile_ex("\\pL{60}", 7, 0, err, sizeof err);
    assert_non_null(re);
    size_t n = 60 + 2000, a, b;
    char *s = malloc(n);
    assert_non_null(s);
    memset(s, ' ', n);
    memset(s + 1000, 'x', 60);
    assert_int_equal(dc_re_find(re, s, n, &a, &b), 1);
    assert_int_equal(a, 1000);
    assert_int_equal(b, 1060);
    free(s);
    dc_re_free(re);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    /* Go rejects trees deeper than 1000 ("expression nests too deeply"); RE2 has no such limit
     * (known difference). Either way: no crash, no stack overflow. */
    size_t d = 20000;
    char *p = malloc(2 * d + 1);
    assert_non_null(p);
    memset(p, '(', d);
    p[d] = 'a';
    memset(p + d + 1, ')', d);
    char err[256];
    dc_re *re = dc_re_compile(p, 2 * d + 1, err, sizeof err);
    if (re) {
        assert_int_equal(dc_re_match(re, "a", 1), 1);
        dc_re_free(re);
    }
    /* Unbalanced: the error quotes the whole pattern, truncated safely. */
    assert_null(dc_re_compile(p, 2 * d, err, sizeof err));
    assert_int_equal(strlen(err), sizeof err - 1);
    free(p);
}

/* ---------------------------------------------------------------------------------------------
 * API robustness and threads
 */

static void test_null_arguments(void **state)
{
    (void)state;
    size_t a, b;
    dc_re_iter it = DC_RE_ITER_INIT;
    assert_int_equal(dc_re_match(NULL, "a", 1), -1);
    assert_int_equal(dc_re_find(NULL, "a", 1, &a, &b), -1);
    assert_int_equal(dc_re_find_next(NULL, "a", 1, &it, &a, &b), -1);
    dc_re *re = compile("a");
    assert_int_equal(dc_re_match(re, NULL, 1), -1);
    assert_int_equal(dc_re_match(re, NULL, 0), 0);
    assert_int_equal(dc_re_find(re, "a", 1, NULL, &b), -1);
    assert_int_equal(dc_re_find_next(re, "a", 1, NULL, &a, &b), -1);
    dc_re_free(re);
    dc_re_free(NULL);
    dc_re_iter_init(NULL);
}

struct thread_arg {
    const dc_re *re;
    int ok;
};

static void *thread_main(void *p)
{
    struct thread_arg *arg = p;
    static const char s[] = "host-17.zone-b.example.com";
    arg->ok = 1;
    for (int i = 0; i < 2000; i++) {
        size_t a, b;
        if (dc_re_match(arg->re, s, sizeof s - 1) != 1 ||
            dc_re_find(arg->re, s, sizeof s - 1, &a, &b) != 1 || a != 5 || b != 7)
            arg->ok = 0;
        dc_re_iter it = DC_RE_ITER_INIT;
        int count = 0;
        while (dc_re_find_next(arg->re, s, sizeof s - 1, &it, &a, &b) == 1)
            count++;
        if (count != 1)
            arg->ok = 0;
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    /* One compiled pattern shared by several threads (RE2 builds its DFAs lazily, under locks). */
    dc_re *re = compile("[0-9]+");
    pthread_t th[4];
    struct thread_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i].re = re;
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_true(args[i].ok);
    }
    dc_re_free(re);
}

static void test_random_patterns(void **state)
{
    (void)state;
    /* Random patterns from a regex-heavy alphabet: compile either succeeds or yields a Go-style
     * message; matching never fails internally. ASan/UBSan watch the pre-pass. */
    static const char alpha[] = "()[]{}\\?*+|^$.:<>=!-,PpQECxz019aAi_ \xc3\xa9";
    unsigned seed = 12345;
    char pat[24], err[256];
    for (int i = 0; i < 20000; i++) {
        size_t n = (size_t)(i % 23);
        for (size_t k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            pat[k] = alpha[(seed >> 16) % (sizeof alpha - 1)];
        }
        char *p = dup_exact(pat, n);
        dc_re *re = dc_re_compile(p, n, err, sizeof err);
        if (re) {
            assert_true(dc_re_match(re, "a(b)c\xc3\xa9:<x>", 12) >= 0);
            dc_re_iter it = DC_RE_ITER_INIT;
            size_t a, b;
            int count = 0;
            while (dc_re_find_next(re, "a(b)c\xc3\xa9:<x>", 12, &it, &a, &b) == 1)
                assert_true(++count <= 13);
            dc_re_free(re);
        } else {
            assert_memory_equal(err, "error parsing regexp: ", 22);
        }
        free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_substring_semantics),
        cmocka_unit_test(test_empty_pattern),
        cmocka_unit_test(test_dollar_and_newline),
        cmocka_unit_test(test_perl_classes_ascii),
        cmocka_unit_test(test_unicode),
        cmocka_unit_test(test_case_folding),
        cmocka_unit_test(test_leftmost_first),
        cmocka_unit_test(test_named_groups),
        cmocka_unit_test(test_literal_braces_and_quotes),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_invalid_utf8_subject),
        cmocka_unit_test(test_find_all),
        cmocka_unit_test(test_find_all_limit_and_reset),
        cmocka_unit_test(test_errors_unsupported_perl),
        cmocka_unit_test(test_errors_any_byte),
        cmocka_unit_test(test_errors_repeat),
        cmocka_unit_test(test_errors_groups),
        cmocka_unit_test(test_errors_classes_and_escapes),
        cmocka_unit_test(test_error_buffer),
        cmocka_unit_test(test_redos_linear),
        cmocka_unit_test(test_size_limits),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_random_patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
