/*
 * test_semver.c: unit tests for vm/semver.c, the kubernetes.Semver value type. Expected results
 * follow github.com/blang/semver/v4 Parse/Compare and Kubernetes' normalizeAndParse
 * (kubernetes/apiserver pkg/cel/library/semverlib.go, semver_test.go); error texts are Go's
 * err.Error() strings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semver.h"

/* ---------------------------------------------------------------------------------------------
 * Helpers
 */

/* Exactly n bytes, no NUL after them, so ASan catches any read past the input. */
static char *exact_copy(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    assert_non_null(p);
    if (n)
        memcpy(p, s, n);
    return p;
}

typedef struct parsed {
    char *buf;
    size_t n;
    dc_semver v;
    dc_semver_error err;
    const char *msg;
    char full[512];
    char canon[512];
} parsed;

static void parse_into(parsed *r, const char *s, size_t n, bool normalize)
{
    memset(r, 0, sizeof *r);
    r->buf = exact_copy(s, n);
    r->n = n;
    r->msg = dc_semver_parse_ex(r->buf, n, normalize, &r->v, &r->err);
    dc_semver_error_format(&r->err, r->full, sizeof r->full);
    if (!r->msg)
        dc_semver_format(&r->v, r->canon, sizeof r->canon);
}

static void parsed_free(parsed *r)
{
    free(r->buf);
}

/* Parse a valid version (kept alive in a static pool so tests can compare values). */
#define POOL 64
typedef struct pool {
    char *bufs[POOL];
    size_t used;
} pool;

static dc_semver pool_parse(pool *p, const char *s, bool normalize)
{
    dc_semver v;
    size_t n = strlen(s);
    const char *msg;
    assert_true(p->used < POOL);
    p->bufs[p->used] = exact_copy(s, n);
    msg = dc_semver_parse(p->bufs[p->used], n, normalize, &v);
    if (msg)
        fail_msg("unexpected error for \"%s\": %s", s, msg);
    p->used++;
    return v;
}

static void pool_free(pool *p)
{
    for (size_t i = 0; i < p->used; i++)
        free(p->bufs[i]);
    p->used = 0;
}

/* ---------------------------------------------------------------------------------------------
 * Accept/reject table
 */

typedef struct row {
    const char *in;
    bool norm;
    const char *err;   /* Go's full error text, NULL when accepted */
    const char *canon; /* blang String() of the result when accepted */
} row;

#define OK(s, c) {s, false, NULL, c}
#define BAD(s, e) {s, false, e, NULL}
#define NOK(s, c) {s, true, NULL, c}
#define NBAD(s, e) {s, true, e, NULL}

#define E_EMPTY "Version string empty"
#define E_NOELEM "No Major.Minor.Patch elements found"
#define E_PRE_EMPTY "Prerelease is empty"
#define E_BUILD_EMPTY "Build meta data is empty"
#define E_SHORT "short version cannot contain PreRelease/Build meta data"
#define E_SYNTAX_EMPTY "strconv.ParseUint: parsing \"\": invalid syntax"

static const row rows[] = {
    /* ---- strict: accepted (semver.org examples, blang formatTests) */
    OK("0.0.0", "0.0.0"),
    OK("1.2.3", "1.2.3"),
    OK("10.20.30", "10.20.30"),
    OK("0.0.1", "0.0.1"),
    OK("1.2.3-alpha", "1.2.3-alpha"),
    OK("1.2.3-alpha.1", "1.2.3-alpha.1"),
    OK("1.0.0-0.3.7", "1.0.0-0.3.7"),
    OK("1.0.0-x.7.z.92", "1.0.0-x.7.z.92"),
    OK("1.0.0-x-y-z.--", "1.0.0-x-y-z.--"),
    OK("1.2.3-0", "1.2.3-0"),
    OK("1.2.3-0a", "1.2.3-0a"),
    OK("1.2.3-00a", "1.2.3-00a"),
    OK("1.2.3--", "1.2.3--"),
    OK("1.2.3--1", "1.2.3--1"),
    OK("1.2.3-a-b", "1.2.3-a-b"),
    OK("1.0.0-alpha+001", "1.0.0-alpha+001"),
    OK("1.0.0+20130313144700", "1.0.0+20130313144700"),
    OK("1.0.0-beta+exp.sha.5114f85", "1.0.0-beta+exp.sha.5114f85"),
    OK("1.0.0+21AF26D3----117B344092BD", "1.0.0+21AF26D3----117B344092BD"),
    OK("1.0.0-alpha+build.1", "1.0.0-alpha+build.1"),
    OK("1.2.3-beta.1+build.1", "1.2.3-beta.1+build.1"),
    OK("1.2.3+build.01", "1.2.3+build.01"),
    OK("1.0.0+a-b", "1.0.0+a-b"),
    OK("1.0.0+-", "1.0.0+-"),
    OK("1.0.0-a+b-c", "1.0.0-a+b-c"),
    OK("0.0.1-alpha.preview+123.456", "0.0.1-alpha.preview+123.456"),
    OK("1.2.3-alpha.b-eta+123.b-uild", "1.2.3-alpha.b-eta+123.b-uild"),
    OK("32.2.1-alpha", "32.2.1-alpha"),
    OK("550.54.15", "550.54.15"),
    OK("18446744073709551615.18446744073709551615.18446744073709551615",
       "18446744073709551615.18446744073709551615.18446744073709551615"),
    OK("1.0.0-18446744073709551615", "1.0.0-18446744073709551615"),
    OK("1.0.0-99999999999999999999a", "1.0.0-99999999999999999999a"),

    /* ---- strict: structure */
    BAD("", E_EMPTY),
    BAD("1", E_NOELEM),
    BAD("1.0", E_NOELEM),
    BAD("v1.0", E_NOELEM),
    BAD("1.1", E_NOELEM),
    BAD(".", E_NOELEM),
    BAD("1.", E_NOELEM),
    BAD(".1", E_NOELEM),
    BAD("Three", E_NOELEM),
    BAD("200K", E_NOELEM),
    BAD("Mi", E_NOELEM),
    BAD("hello", E_NOELEM),
    BAD("invalid version", E_NOELEM),
    BAD("1.2-alpha", E_NOELEM),
    BAD("1.0-rc.1", "Invalid character(s) found in minor number \"0-rc\""),
    BAD("1.2-beta.3", "Invalid character(s) found in minor number \"2-beta\""),
    BAD("1.2.3.4", "Invalid character(s) found in patch number \"3.4\""),

    /* ---- strict: whitespace and prefixes */
    BAD("v1.0.0", "Invalid character(s) found in major number \"v1\""),
    BAD("V1.0.0", "Invalid character(s) found in major number \"V1\""),
    BAD(" 1.0.0", "Invalid character(s) found in major number \" 1\""),
    BAD("1. 0.0", "Invalid character(s) found in minor number \" 0\""),
    BAD("1.0.0 ", "Invalid character(s) found in patch number \"0 \""),
    BAD("1.0.0\n", "Invalid character(s) found in patch number \"0\\n\""),
    BAD("\t1.2.3", "Invalid character(s) found in major number \"\\t1\""),
    BAD("+1.0.0", "Invalid character(s) found in major number \"+1\""),

    /* ---- strict: invalid characters and empty numbers (blang wrongformatTests) */
    BAD("..", E_SYNTAX_EMPTY),
    BAD("a.b.c", "Invalid character(s) found in major number \"a\""),
    BAD("1.a.b", "Invalid character(s) found in minor number \"a\""),
    BAD("1.1.a", "Invalid character(s) found in patch number \"a\""),
    BAD("1.a.1", "Invalid character(s) found in minor number \"a\""),
    BAD("a.1.1", "Invalid character(s) found in major number \"a\""),
    BAD("1..", E_SYNTAX_EMPTY),
    BAD("1.1.", E_SYNTAX_EMPTY),
    BAD("1..1", E_SYNTAX_EMPTY),
    BAD(".1.1", E_SYNTAX_EMPTY),
    BAD("1.1.+123", E_SYNTAX_EMPTY),
    BAD("1.1.-beta", E_SYNTAX_EMPTY),
    BAD("1.1.-1", E_SYNTAX_EMPTY),
    BAD("-1.1.1", "Invalid character(s) found in major number \"-1\""),
    BAD("1.-1.1", "Invalid character(s) found in minor number \"-1\""),
    BAD("1.0a.0", "Invalid character(s) found in minor number \"0a\""),
    BAD("1.0.0a", "Invalid character(s) found in patch number \"0a\""),
    BAD("a.01.b", "Invalid character(s) found in major number \"a\""),

    /* ---- strict: leading zeroes */
    BAD("01.1.1", "Major number must not contain leading zeroes \"01\""),
    BAD("001.1.1", "Major number must not contain leading zeroes \"001\""),
    BAD("00.0.0", "Major number must not contain leading zeroes \"00\""),
    BAD("01.01.01", "Major number must not contain leading zeroes \"01\""),
    BAD("01.a.b", "Major number must not contain leading zeroes \"01\""),
    BAD("1.01.1", "Minor number must not contain leading zeroes \"01\""),
    BAD("1.001.1", "Minor number must not contain leading zeroes \"001\""),
    BAD("1.1.01", "Patch number must not contain leading zeroes \"01\""),
    BAD("1.1.001", "Patch number must not contain leading zeroes \"001\""),
    BAD("1.0.00", "Patch number must not contain leading zeroes \"00\""),
    BAD("1.0.00-rc", "Patch number must not contain leading zeroes \"00\""),
    BAD("1.1.1-01", "Numeric PreRelease version must not contain leading zeroes \"01\""),
    BAD("1.0.0-01", "Numeric PreRelease version must not contain leading zeroes \"01\""),
    BAD("1.1.1-001", "Numeric PreRelease version must not contain leading zeroes \"001\""),
    BAD("1.1.1-beta.01", "Numeric PreRelease version must not contain leading zeroes \"01\""),
    BAD("1.1.1-beta.001", "Numeric PreRelease version must not contain leading zeroes \"001\""),
    BAD("1.0.0-00", "Numeric PreRelease version must not contain leading zeroes \"00\""),

    /* ---- strict: overflow (uint64) */
    BAD("20000000000000000000.1.1",
        "strconv.ParseUint: parsing \"20000000000000000000\": value out of range"),
    BAD("1.20000000000000000000.1",
        "strconv.ParseUint: parsing \"20000000000000000000\": value out of range"),
    BAD("1.1.20000000000000000000",
        "strconv.ParseUint: parsing \"20000000000000000000\": value out of range"),
    BAD("1.1.1-20000000000000000000",
        "strconv.ParseUint: parsing \"20000000000000000000\": value out of range"),
    BAD("18446744073709551616.0.0",
        "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"),
    BAD("0.18446744073709551616.0",
        "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"),
    BAD("0.0.18446744073709551616-rc",
        "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"),
    BAD("1.0.0-18446744073709551616",
        "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"),
    BAD("1.0.0-rc.99999999999999999999999999999",
        "strconv.ParseUint: parsing \"99999999999999999999999999999\": value out of range"),
    BAD("123456789012345678901234567890.0.0",
        "strconv.ParseUint: parsing \"123456789012345678901234567890\": value out of range"),

    /* ---- strict: prerelease and build identifiers */
    BAD("1.0.0-", E_PRE_EMPTY),
    BAD("1.0.0+", E_BUILD_EMPTY),
    BAD("1.0.0-+", E_PRE_EMPTY),
    BAD("1.0.0-alpha..1", E_PRE_EMPTY),
    BAD("1.0.0-.alpha", E_PRE_EMPTY),
    BAD("0.0.0-.alpha", E_PRE_EMPTY),
    BAD("1.0.0-alpha.", E_PRE_EMPTY),
    BAD("0.0.0-alpha+", E_BUILD_EMPTY),
    BAD("0.0.0-alpha+test.", E_BUILD_EMPTY),
    BAD("1.0.0+a..b", E_BUILD_EMPTY),
    BAD("1.0.0+.a", E_BUILD_EMPTY),
    BAD("0.0.0-!", "Invalid character(s) found in prerelease \"!\""),
    BAD("0.0.0+!", "Invalid character(s) found in build meta data \"!\""),
    BAD("1.0.0-a_b", "Invalid character(s) found in prerelease \"a_b\""),
    BAD("1.0.0+a_b", "Invalid character(s) found in build meta data \"a_b\""),
    BAD("1.0.0+test?", "Invalid character(s) found in build meta data \"test?\""),
    BAD("1.2.3-beta.1+build+x", "Invalid character(s) found in build meta data \"build+x\""),
    BAD("1.0.0+a+", "Invalid character(s) found in build meta data \"a+\""),
    BAD("1.0.0-01.x!", "Numeric PreRelease version must not contain leading zeroes \"01\""),
    BAD("1.0.0-x!.01", "Invalid character(s) found in prerelease \"x!\""),
    BAD("1.0.0-01+!", "Numeric PreRelease version must not contain leading zeroes \"01\""),
    BAD("1.0.0-a+", E_BUILD_EMPTY),
    BAD("1.0.0-a b", "Invalid character(s) found in prerelease \"a b\""),
    BAD("01.0.0-01", "Major number must not contain leading zeroes \"01\""),

    /* ---- strict: quoting of the operand as Go's %q */
    BAD("1.0.0-a\"b", "Invalid character(s) found in prerelease \"a\\\"b\""),
    BAD("1.0.0-a\\b", "Invalid character(s) found in prerelease \"a\\\\b\""),
    BAD("1.0.0-a\tb", "Invalid character(s) found in prerelease \"a\\tb\""),
    BAD("1.0.0-a\x7f", "Invalid character(s) found in prerelease \"a\\x7f\""),
    BAD("1.0.0-a\x01\a\b\f\r\v", "Invalid character(s) found in prerelease \"a\\x01\\a\\b\\f\\r\\v\""),
    BAD("1.0.0-\xce\xb1", "Invalid character(s) found in prerelease \"\xce\xb1\""),
    BAD("1.0.0-\xff", "Invalid character(s) found in prerelease \"\\xff\""),
    BAD("1.0.0-\xce", "Invalid character(s) found in prerelease \"\\xce\""),
    BAD("1.0.0-\xe2\x82", "Invalid character(s) found in prerelease \"\\xe2\\x82\""),
    BAD("1.0.0-\xc0\xaf", "Invalid character(s) found in prerelease \"\\xc0\\xaf\""),
    BAD("1.0.0-\xed\xa0\x80", "Invalid character(s) found in prerelease \"\\xed\\xa0\\x80\""),
    BAD("1.0.0+\xc2\xa0", "Invalid character(s) found in build meta data \"\\u00a0\""),
    BAD("1.0.0+\xc2\x85", "Invalid character(s) found in build meta data \"\\u0085\""),
    BAD("1.0.0-\xe2\x80\x8b", "Invalid character(s) found in prerelease \"\\u200b\""),
    BAD("1.0.0-\xef\xbb\xbf", "Invalid character(s) found in prerelease \"\\ufeff\""),
    BAD("1.0.0-\xef\xbf\xbd", "Invalid character(s) found in prerelease \"\xef\xbf\xbd\""),
    BAD("1.0.0-\xf0\x9f\x98\x80", "Invalid character(s) found in prerelease \"\xf0\x9f\x98\x80\""),
    BAD("1.0.0-\xf3\xb0\x80\x80", "Invalid character(s) found in prerelease \"\\U000f0000\""),
    BAD("\xe4\xb8\x80.0.0", "Invalid character(s) found in major number \"\xe4\xb8\x80\""),

    /* ---- normalized: Kubernetes semver_test.go and semverlib.go doc examples */
    NOK("1.2.3", "1.2.3"),
    NOK("v1.0.0", "1.0.0"),
    NOK("1.0", "1.0.0"),
    NOK("01.01.01", "1.1.1"),
    NOK("1", "1.0.0"),
    NOK("1.1", "1.1.0"),
    NOK("v01.01", "1.1.0"),
    NBAD("", E_SYNTAX_EMPTY),
    NBAD(" 1.0.0", "Invalid character(s) found in major number \"0 1\""),
    NBAD("1. 0.0", "Invalid character(s) found in minor number \"0 0\""),
    NBAD("1.0.0 ", "Invalid character(s) found in patch number \"0 \""),
    /* ---- normalized: blang tolerantFormatTests, minus whitespace trimming */
    NOK("v1.2.3", "1.2.3"),
    NOK("1.2.0-alpha", "1.2.0-alpha"),
    NOK("1.2.00", "1.2.0"),
    NBAD("\t1.2.3 ", "Invalid character(s) found in major number \"0\\t1\""),
    NOK("01.02.03", "1.2.3"),
    NOK("00.0.03", "0.0.3"),
    NOK("000.0.03", "0.0.3"),
    NOK("1.2", "1.2.0"),
    NBAD("1.0+abc", E_SHORT),
    /* SplitN gives three parts, "1", "0-rc", "1": not a short version */
    NBAD("1.0-rc.1", "Invalid character(s) found in minor number \"0-rc\""),
    /* ---- normalized: edges of the algorithm */
    NOK("0", "0.0.0"),
    NOK("00", "0.0.0"),
    NOK("0.0", "0.0.0"),
    NOK("v0", "0.0.0"),
    NOK("1.2.3-beta.1+build.1", "1.2.3-beta.1+build.1"),
    NOK("v1.2.3-rc.1+b", "1.2.3-rc.1+b"),
    NOK("1.2.0001-rc.1+07", "1.2.1-rc.1+07"),
    NOK("1.2.00-rc", "1.2.0-rc"),
    NOK("1.2.-rc", "1.2.0-rc"),
    NOK("1.2.+b", "1.2.0+b"),
    NOK("1.2.0+b", "1.2.0+b"),
    NOK("1.02.3-alpha", "1.2.3-alpha"),
    NOK("1.2.3-0alpha", "1.2.3-0alpha"),
    NOK("1.2.3-00alpha", "1.2.3-00alpha"),
    NOK("00018446744073709551615", "18446744073709551615.0.0"),
    NOK("v1.2.3+build.01", "1.2.3+build.01"),
    NBAD("1.2.3.", "Invalid character(s) found in patch number \"3.\""),
    NBAD("v", E_SYNTAX_EMPTY),
    NBAD(".", E_SYNTAX_EMPTY),
    NBAD("1.", E_SYNTAX_EMPTY),
    NBAD("1.2.", E_SYNTAX_EMPTY),
    NBAD("1.2.-", E_SYNTAX_EMPTY),
    NBAD("1.2.3-", E_PRE_EMPTY),
    NBAD("1.2.3+", E_BUILD_EMPTY),
    NBAD("1.2.0-01", "Numeric PreRelease version must not contain leading zeroes \"01\""),
    NBAD("1.2.3-01", "Numeric PreRelease version must not contain leading zeroes \"01\""),
    NBAD("1.2.3-rc.01", "Numeric PreRelease version must not contain leading zeroes \"01\""),
    NBAD("vv1", "Invalid character(s) found in major number \"0v1\""),
    NBAD("V1", "Invalid character(s) found in major number \"0V1\""),
    NBAD("x", "Invalid character(s) found in major number \"x\""),
    NBAD("xy", "Invalid character(s) found in major number \"0xy\""),
    NBAD("00x.1.2", "Invalid character(s) found in major number \"0x\""),
    NBAD("1.00x.2", "Invalid character(s) found in minor number \"0x\""),
    NBAD("1.0.0.0", "Invalid character(s) found in patch number \"0.0\""),
    NBAD("1.2.03.4", "Invalid character(s) found in patch number \"3.4\""),
    NBAD("1.2.3.4", "Invalid character(s) found in patch number \"3.4\""),
    NBAD("v1.2.3 ", "Invalid character(s) found in patch number \"3 \""),
    NBAD("1-rc", E_SHORT),
    NBAD("1-", E_SHORT),
    NBAD("-1", E_SHORT),
    NBAD("+1", E_SHORT),
    NBAD("1.2-alpha", E_SHORT),
    NBAD("1.-a", E_SHORT),
    NBAD("1.2+b", E_SHORT),
    NBAD("18446744073709551616",
         "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"),
    NBAD("1.18446744073709551616",
         "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"),
    NBAD("1.0.0-18446744073709551616",
         "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"),
    NBAD("1.0.0-0\xff", "Invalid character(s) found in prerelease \"0\\xff\""),
};

static const char *expected_static(const char *full)
{
    /* Go text minus the quoted operand and the space before it, as dc_semver_parse returns. */
    static const struct {
        const char *prefix;
        const char *stat;
    } map[] = {
        {"strconv.ParseUint: parsing \"", NULL},
        {"Invalid character(s) found in major number ", "Invalid character(s) found in major number"},
        {"Invalid character(s) found in minor number ", "Invalid character(s) found in minor number"},
        {"Invalid character(s) found in patch number ", "Invalid character(s) found in patch number"},
        {"Major number must not contain leading zeroes ", "Major number must not contain leading zeroes"},
        {"Minor number must not contain leading zeroes ", "Minor number must not contain leading zeroes"},
        {"Patch number must not contain leading zeroes ", "Patch number must not contain leading zeroes"},
        {"Numeric PreRelease version must not contain leading zeroes ",
         "Numeric PreRelease version must not contain leading zeroes"},
        {"Invalid character(s) found in prerelease ", "Invalid character(s) found in prerelease"},
        {"Invalid character(s) found in build meta data ",
         "Invalid character(s) found in build meta data"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strncmp(full, map[i].prefix, strlen(map[i].prefix)) != 0)
            continue;
        if (map[i].stat)
            return map[i].stat;
        return strstr(full, "invalid syntax") ? "strconv.ParseUint: parsing: invalid syntax"
                                              : "strconv.ParseUint: parsing: value out of range";
    }
    return full;
}

static int check_row(const row *r)
{
    parsed p;
    int failed = 0;
    size_t n = strlen(r->in);

    parse_into(&p, r->in, n, r->norm);
    if (r->err) {
        if (!p.msg || strcmp(p.full, r->err) != 0 || strcmp(p.msg, expected_static(r->err)) != 0) {
            print_error("%s(\"%s\"): want error [%s], got [%s] / [%s]\n",
                        r->norm ? "normalized" : "strict", r->in, r->err,
                        p.msg ? p.msg : "(none)", p.full);
            failed = 1;
        }
        if (p.v.major || p.v.minor || p.v.patch || p.v.pre || p.v.build || p.v.pre_len ||
            p.v.build_len) {
            print_error("\"%s\": value not zeroed on error\n", r->in);
            failed = 1;
        }
        /* The operand, if any, lies inside the input. */
        if (p.err.operand && (p.err.operand < p.buf || p.err.operand + p.err.operand_len > p.buf + n)) {
            print_error("\"%s\": operand outside the input\n", r->in);
            failed = 1;
        }
        if (dc_semver_is_valid(p.buf, n, r->norm)) {
            print_error("\"%s\": is_valid disagrees\n", r->in);
            failed = 1;
        }
    } else {
        if (p.msg || strcmp(p.canon, r->canon) != 0) {
            print_error("%s(\"%s\"): want %s, got [%s] [%s]\n", r->norm ? "normalized" : "strict",
                        r->in, r->canon, p.msg ? p.full : "", p.canon);
            failed = 1;
        }
        if (p.err.code != DC_SEMVER_OK || p.err.msg || p.full[0]) {
            print_error("\"%s\": error record not cleared\n", r->in);
            failed = 1;
        }
        if ((p.v.pre_len == 0) != (p.v.pre == NULL) || (p.v.build_len == 0) != (p.v.build == NULL)) {
            print_error("\"%s\": pre/build pointer invariant\n", r->in);
            failed = 1;
        }
        if ((p.v.pre && (p.v.pre < p.buf || p.v.pre + p.v.pre_len > p.buf + n)) ||
            (p.v.build && (p.v.build < p.buf || p.v.build + p.v.build_len > p.buf + n))) {
            print_error("\"%s\": spans outside the input\n", r->in);
            failed = 1;
        }
        if (!dc_semver_is_valid(p.buf, n, r->norm)) {
            print_error("\"%s\": is_valid disagrees\n", r->in);
            failed = 1;
        }
    }
    parsed_free(&p);
    return failed;
}

static void test_table(void **state)
{
    int failed = 0;
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        failed += check_row(&rows[i]);
    assert_int_equal(failed, 0);
}

/* Every strict-valid string normalizes to itself (no 'v', no leading zero to drop, three parts),
 * so semver(s, true) accepts whatever semver(s) accepts, with the same value. */
static void test_normalize_superset(void **state)
{
    int failed = 0;
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        parsed a, b;
        if (r->norm || r->err)
            continue;
        parse_into(&a, r->in, strlen(r->in), false);
        parse_into(&b, r->in, strlen(r->in), true);
        if (b.msg || strcmp(a.canon, b.canon) != 0 || !dc_semver_eq(&a.v, &b.v)) {
            print_error("\"%s\": normalized [%s] [%s]\n", r->in, b.full, b.canon);
            failed++;
        }
        parsed_free(&a);
        parsed_free(&b);
    }
    assert_int_equal(failed, 0);
}

/* Inputs with NUL bytes: the length is what counts, never a terminator. */
static void test_embedded_nul(void **state)
{
    parsed p;
    (void)state;

    parse_into(&p, "1.0.0\0", 6, false);
    assert_non_null(p.msg);
    assert_string_equal(p.full, "Invalid character(s) found in patch number \"0\\x00\"");
    parsed_free(&p);

    parse_into(&p, "1.0.0-a\0b", 9, false);
    assert_string_equal(p.full, "Invalid character(s) found in prerelease \"a\\x00b\"");
    parsed_free(&p);

    /* A prefix of a longer buffer. */
    parse_into(&p, "1.2.3-rc.1+b.2 trailing", 14, false);
    assert_null(p.msg);
    assert_string_equal(p.canon, "1.2.3-rc.1+b.2");
    parsed_free(&p);

    parse_into(&p, "1.2.3", 3, false);
    assert_string_equal(p.full, E_NOELEM);
    parsed_free(&p);

    /* NULL with length 0 is the empty string. */
    assert_string_equal(dc_semver_parse(NULL, 0, false, NULL), E_EMPTY);
    assert_false(dc_semver_is_valid(NULL, 0, true));
}

static void test_fields(void **state)
{
    parsed p;
    (void)state;

    parse_into(&p, "1.2.3-beta.11+build.7", 21, false);
    assert_null(p.msg);
    assert_int_equal(p.v.major, 1);
    assert_int_equal(p.v.minor, 2);
    assert_int_equal(p.v.patch, 3);
    assert_int_equal(p.v.pre_len, 7);
    assert_memory_equal(p.v.pre, "beta.11", 7);
    assert_ptr_equal(p.v.pre, p.buf + 6);
    assert_int_equal(p.v.build_len, 7);
    assert_memory_equal(p.v.build, "build.7", 7);
    assert_ptr_equal(p.v.build, p.buf + 14);
    parsed_free(&p);

    /* Normalized: the spans still point into the original text. */
    parse_into(&p, "v01.002.0003-rc.1+b", 19, true);
    assert_null(p.msg);
    assert_int_equal(p.v.major, 1);
    assert_int_equal(p.v.minor, 2);
    assert_int_equal(p.v.patch, 3);
    assert_ptr_equal(p.v.pre, p.buf + 13);
    assert_int_equal(p.v.pre_len, 4);
    assert_ptr_equal(p.v.build, p.buf + 18);
    assert_int_equal(p.v.build_len, 1);
    parsed_free(&p);

    parse_into(&p, "18446744073709551615.9223372036854775808.9223372036854775807", 60, false);
    assert_null(p.msg);
    assert_true(p.v.major == UINT64_MAX);
    assert_true(p.v.minor == (uint64_t)1 << 63);
    assert_true(p.v.patch == (uint64_t)INT64_MAX);
    /* major()/minor()/patch() as CEL sees them: Go's int64(uint64) wraps. */
    assert_true(dc_semver_cel_int(p.v.major) == -1);
    assert_true(dc_semver_cel_int(p.v.minor) == INT64_MIN);
    assert_true(dc_semver_cel_int(p.v.patch) == INT64_MAX);
    assert_true(dc_semver_cel_int(0) == 0);
    assert_true(dc_semver_cel_int(3) == 3);
    parsed_free(&p);
}

static void test_error_record(void **state)
{
    parsed p;
    (void)state;

    parse_into(&p, "v1.0.0", 6, false);
    assert_int_equal(p.err.code, DC_SEMVER_E_MAJOR_CHARS);
    assert_ptr_equal(p.err.msg, p.msg);
    assert_ptr_equal(p.err.operand, p.buf);
    assert_int_equal(p.err.operand_len, 2);
    assert_false(p.err.operand_zero);
    parsed_free(&p);

    parse_into(&p, "00x.1.2", 7, true);
    assert_int_equal(p.err.code, DC_SEMVER_E_MAJOR_CHARS);
    assert_ptr_equal(p.err.operand, p.buf + 2);
    assert_int_equal(p.err.operand_len, 1);
    assert_true(p.err.operand_zero);
    parsed_free(&p);

    parse_into(&p, "1.0", 3, false);
    assert_int_equal(p.err.code, DC_SEMVER_E_NO_ELEMENTS);
    assert_null(p.err.operand);
    parsed_free(&p);

    parse_into(&p, "1.0.0-01", 8, false);
    assert_int_equal(p.err.code, DC_SEMVER_E_PRE_ZEROES);
    parsed_free(&p);

    parse_into(&p, "1.0-rc", 6, true);
    assert_int_equal(p.err.code, DC_SEMVER_E_SHORT);
    assert_string_equal(p.msg, E_SHORT);
    parsed_free(&p);

    /* The error formatter truncates like snprintf. */
    {
        dc_semver_error e;
        char small[8];
        const char *in = "1.0.0-!";
        size_t full;
        assert_non_null(dc_semver_parse_ex(in, strlen(in), false, NULL, &e));
        full = dc_semver_error_format(&e, small, sizeof small);
        assert_int_equal(full, strlen("Invalid character(s) found in prerelease \"!\""));
        assert_string_equal(small, "Invalid");
        assert_int_equal(dc_semver_error_format(&e, NULL, 0), full);
        assert_int_equal(dc_semver_error_format(NULL, small, sizeof small), 0);
        assert_string_equal(small, "");
    }
}

/* ---------------------------------------------------------------------------------------------
 * Formatting
 */

static void test_format(void **state)
{
    pool pl = {0};
    dc_semver v;
    char buf[64];
    (void)state;

    v = pool_parse(&pl, "1.2.3-alpha.1+build.5", false);
    assert_int_equal(dc_semver_format(&v, buf, sizeof buf), 21);
    assert_string_equal(buf, "1.2.3-alpha.1+build.5");
    /* Truncation like snprintf. */
    assert_int_equal(dc_semver_format(&v, buf, 6), 21);
    assert_string_equal(buf, "1.2.3");
    assert_int_equal(dc_semver_format(&v, buf, 1), 21);
    assert_string_equal(buf, "");
    assert_int_equal(dc_semver_format(&v, NULL, 0), 21);

    /* A hand-built value (blang formatTests). */
    v = (dc_semver){0, 0, 1, "alpha.preview", "123.456", 13, 7};
    dc_semver_format(&v, buf, sizeof buf);
    assert_string_equal(buf, "0.0.1-alpha.preview+123.456");
    v = (dc_semver){1, 2, 3, NULL, "123.b-uild", 0, 10};
    dc_semver_format(&v, buf, sizeof buf);
    assert_string_equal(buf, "1.2.3+123.b-uild");
    v = (dc_semver){UINT64_MAX, 0, 10, NULL, NULL, 0, 0};
    dc_semver_format(&v, buf, sizeof buf);
    assert_string_equal(buf, "18446744073709551615.0.10");
    pool_free(&pl);
}

/* ---------------------------------------------------------------------------------------------
 * Comparison and equality
 */

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

/* Every list is strictly increasing by precedence. */
static const char *const chains[][12] = {
    /* semver.org 11.4 */
    {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
     "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", NULL},
    /* semver.org 11.2 */
    {"1.0.0", "2.0.0", "2.1.0", "2.1.1", NULL},
    /* numeric identifiers compare numerically and below alphanumeric ones */
    {"1.0.0-0", "1.0.0-1", "1.0.0-2", "1.0.0-10", "1.0.0-11", "1.0.0-18446744073709551615",
     "1.0.0--", "1.0.0-0a", "1.0.0-A", "1.0.0-a", NULL},
    /* alphanumeric ones bytewise: '-' < digits < upper < lower; prefixes first */
    {"1.0.0-a", "1.0.0-a-b", "1.0.0-a1", "1.0.0-a10", "1.0.0-a9", "1.0.0-aB", "1.0.0-aa",
     "1.0.0-b", NULL},
    /* longer lists after their prefix; numeric beside alphanumeric at the same position */
    {"1.0.0-1", "1.0.0-1.1", "1.0.0-1.1.1", "1.0.0-1.2", "1.0.0-1.a", "1.0.0-1.a.0", "1.0.0-2",
     NULL},
    /* major, minor, patch as uint64 */
    {"0.0.0-0", "0.0.0", "0.0.1", "0.0.9", "0.0.10", "0.1.0", "0.18446744073709551615.0", "1.0.0",
     "9.9.9", "10.0.0", "18446744073709551615.0.0", NULL},
    /* blang compareTests, spec example 9 */
    {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
     "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1-0", "1.0.1", NULL},
};

static void test_precedence_chains(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++) {
        pool pl = {0};
        dc_semver v[12];
        size_t n = 0;
        while (chains[c][n]) {
            v[n] = pool_parse(&pl, chains[c][n], false);
            n++;
        }
        for (size_t i = 0; i < n; i++) {
            for (size_t j = 0; j < n; j++) {
                int want = sign((int)i - (int)j), got = dc_semver_cmp(&v[i], &v[j]);
                if (got != want)
                    fail_msg("cmp(%s, %s) = %d, want %d", chains[c][i], chains[c][j], got, want);
                assert_int_equal(dc_semver_eq(&v[i], &v[j]), i == j);
            }
        }
        pool_free(&pl);
    }
}

static void test_equality(void **state)
{
    pool pl = {0};
    dc_semver a, b, c, d, e, f;
    (void)state;

    /* Kubernetes semver_test.go */
    a = pool_parse(&pl, "v01.01", true);
    b = pool_parse(&pl, "1.1.0", false);
    assert_true(dc_semver_eq(&a, &b));
    assert_int_equal(dc_semver_cmp(&a, &b), 0);
    a = pool_parse(&pl, "1.2.3", false);
    b = pool_parse(&pl, "1.2.3", false);
    c = pool_parse(&pl, "1.0.0", false);
    assert_true(dc_semver_eq(&a, &b));
    assert_false(dc_semver_eq(&a, &c));
    assert_int_equal(dc_semver_cmp(&c, &a), -1);  /* compareTo / isLessThan */
    assert_int_equal(dc_semver_cmp(&a, &c), 1);   /* isGreaterThan */
    assert_int_equal(dc_semver_cmp(&c, &c), 0);
    assert_false(dc_semver_cmp(&c, &c) == 1);     /* semver_greater_false */
    assert_false(dc_semver_cmp(&c, &c) == -1);    /* semver_less_false */

    /* Build metadata is ignored by Compare, so by EQ and by CEL ==. */
    a = pool_parse(&pl, "1.0.0+a", false);
    b = pool_parse(&pl, "1.0.0+b", false);
    c = pool_parse(&pl, "1.0.0", false);
    assert_true(dc_semver_eq(&a, &b));
    assert_true(dc_semver_eq(&a, &c));
    assert_int_equal(dc_semver_cmp(&a, &b), 0);
    assert_int_equal(dc_semver_cmp(&b, &c), 0);
    d = pool_parse(&pl, "1.0.0-rc.1+build.1", false);
    e = pool_parse(&pl, "1.0.0-rc.1+build.2", false);
    f = pool_parse(&pl, "1.0.0-rc.1", false);
    assert_true(dc_semver_eq(&d, &e));
    assert_true(dc_semver_eq(&d, &f));
    assert_false(dc_semver_eq(&d, &c)); /* prerelease counts */
    assert_int_equal(dc_semver_cmp(&d, &c), -1);
    /* blang compareTests: "1.0.0+1.2.3" vs "1.0.0" */
    a = pool_parse(&pl, "1.0.0+1.2.3", false);
    assert_int_equal(dc_semver_cmp(&a, &c), 0);
    assert_int_equal(dc_semver_cmp(&c, &a), 0);

    /* Normalization yields equal values. */
    a = pool_parse(&pl, "v1.2.3-rc.1+x", true);
    b = pool_parse(&pl, "1.2.3-rc.1", false);
    assert_true(dc_semver_eq(&a, &b));
    a = pool_parse(&pl, "1.2.00-rc", true);
    b = pool_parse(&pl, "1.2.0-rc", false);
    assert_true(dc_semver_eq(&a, &b));

    /* Same text at different addresses. */
    a = pool_parse(&pl, "1.0.0-alpha.10.b", false);
    b = pool_parse(&pl, "1.0.0-alpha.10.b", false);
    assert_ptr_not_equal(a.pre, b.pre);
    assert_true(dc_semver_eq(&a, &b));
    assert_int_equal(dc_semver_cmp(&a, &b), 0);
    pool_free(&pl);
}

/* cmp is a total preorder consistent with eq over a mixed set, and eq iff cmp == 0. */
static void test_cmp_consistency(void **state)
{
    static const char *const set[] = {
        "0.0.0", "0.0.0-0", "0.0.0-a", "1.0.0", "1.0.0+x", "1.0.0-1", "1.0.0-1+y", "1.0.0-1.0",
        "1.0.0-a.1", "1.0.0-a.b", "1.0.0-a-1", "1.0.0-A", "1.0.0-z", "1.0.0-10", "1.0.0-9",
        "2.0.0", "1.10.0", "1.9.0", "1.0.10", "1.0.9", "18446744073709551615.0.0-rc",
        "1.0.0-rc.1", "1.0.0-rc.1.1", "1.0.0-rc.01a", "1.0.0-rc.1a",
    };
    enum { N = sizeof set / sizeof set[0] };
    pool pl = {0};
    dc_semver v[N];
    (void)state;
    for (size_t i = 0; i < N; i++)
        v[i] = pool_parse(&pl, set[i], false);
    for (size_t i = 0; i < N; i++) {
        for (size_t j = 0; j < N; j++) {
            int ij = dc_semver_cmp(&v[i], &v[j]), ji = dc_semver_cmp(&v[j], &v[i]);
            assert_true(ij >= -1 && ij <= 1);
            assert_int_equal(ij, -ji);
            assert_int_equal(dc_semver_eq(&v[i], &v[j]), ij == 0);
            for (size_t k = 0; k < N; k++) {
                int jk = dc_semver_cmp(&v[j], &v[k]);
                if (ij <= 0 && jk <= 0)
                    assert_true(dc_semver_cmp(&v[i], &v[k]) <= 0);
            }
        }
    }
    pool_free(&pl);
}

/* ---------------------------------------------------------------------------------------------
 * The normalized path against a literal transcription of normalizeAndParse: normalize into a
 * real string, then strict-parse it. Same error text and same value, for every short string
 * over an alphabet that exercises every rule.
 */

static size_t literal_normalize(const char *s, size_t n, char *out, const char **short_err)
{
    const char *part[3];
    size_t plen[3], np = 0, o = 0;
    *short_err = NULL;
    if (n > 0 && s[0] == 'v') {
        s++;
        n--;
    }
    /* strings.SplitN(s, ".", 3) */
    {
        size_t start = 0;
        for (size_t i = 0; i < n && np < 2; i++) {
            if (s[i] == '.') {
                part[np] = s + start;
                plen[np++] = i - start;
                start = i + 1;
            }
        }
        part[np] = s + start;
        plen[np++] = n - start;
    }
    /* each part: TrimLeft "0", then "0" + p if empty or not starting with a digit */
    for (size_t i = 0; i < np; i++) {
        size_t k = 0;
        if (i)
            out[o++] = '.';
        if (plen[i] > 1) {
            while (k < plen[i] && part[i][k] == '0')
                k++;
            if (k == plen[i] || part[i][k] < '0' || part[i][k] > '9')
                out[o++] = '0';
        }
        memcpy(out + o, part[i] + k, plen[i] - k);
        o += plen[i] - k;
        if (i == np - 1 && np < 3) {
            /* strings.ContainsAny(parts[len(parts)-1], "+-") on the trimmed part */
            const char *last = out + o - (plen[i] - k);
            size_t ll = plen[i] - k;
            if (memchr(last, '+', ll) || memchr(last, '-', ll))
                *short_err = E_SHORT;
        }
    }
    for (; np < 3; np++) {
        out[o++] = '.';
        out[o++] = '0';
    }
    return o;
}

static void test_normalize_differential(void **state)
{
    static const char alpha[] = "0019v.-+a ";
    enum { A = sizeof alpha - 1, MAXLEN = 6 };
    char in[MAXLEN], norm[3 * MAXLEN + 8];
    unsigned long count = 0, failed = 0;
    (void)state;

    for (size_t len = 0; len <= MAXLEN; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++)
            total *= A;
        for (size_t idx = 0; idx < total; idx++) {
            size_t x = idx, nn;
            const char *short_err;
            parsed got, want;
            for (size_t i = 0; i < len; i++) {
                in[i] = alpha[x % A];
                x /= A;
            }
            nn = literal_normalize(in, len, norm, &short_err);
            parse_into(&got, in, len, true);
            if (short_err) {
                if (!got.msg || strcmp(got.full, short_err) != 0)
                    failed++;
            } else {
                parse_into(&want, norm, nn, false);
                if ((got.msg == NULL) != (want.msg == NULL) || strcmp(got.full, want.full) != 0 ||
                    strcmp(got.canon, want.canon) != 0 ||
                    (got.msg && strcmp(got.msg, want.msg) != 0)) {
                    if (failed < 10)
                        print_error("\"%.*s\" -> \"%.*s\": got [%s][%s] want [%s][%s]\n", (int)len,
                                    in, (int)nn, norm, got.full, got.canon, want.full, want.canon);
                    failed++;
                }
                parsed_free(&want);
            }
            parsed_free(&got);
            count++;
        }
    }
    assert_true(count > 1000000);
    assert_int_equal(failed, 0);
}

/* The strict path against an independent, literal transcription of blang Parse working on
 * split copies, for every short string over a small alphabet. */

static bool lit_only(const char *s, size_t n, const char *set)
{
    for (size_t i = 0; i < n; i++)
        if (!s[i] || !strchr(set, s[i]))
            return false;
    return true;
}

static const char *lit_num(const char *s, size_t n, const char *what, char *msg)
{
    static const char digits[] = "0123456789";
    if (!lit_only(s, n, digits)) {
        sprintf(msg, "Invalid character(s) found in %s number \"%.*s\"", what, (int)n, s);
        return msg;
    }
    if (n > 1 && s[0] == '0') {
        sprintf(msg, "%c%s number must not contain leading zeroes \"%.*s\"", what[0] - 32, what + 1,
                (int)n, s);
        return msg;
    }
    if (n == 0) {
        sprintf(msg, E_SYNTAX_EMPTY);
        return msg;
    }
    return NULL;
}

static const char *literal_parse(const char *s, size_t n, char *msg)
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";
    const char *d1, *d2, *p3, *plus, *minus, *e;
    size_t n3, head;
    if (n == 0)
        return E_EMPTY;
    d1 = memchr(s, '.', n);
    d2 = d1 ? memchr(d1 + 1, '.', (size_t)(s + n - d1 - 1)) : NULL;
    if (!d2)
        return E_NOELEM;
    if ((e = lit_num(s, (size_t)(d1 - s), "major", msg)))
        return e;
    if ((e = lit_num(d1 + 1, (size_t)(d2 - d1 - 1), "minor", msg)))
        return e;
    p3 = d2 + 1;
    n3 = (size_t)(s + n - p3);
    plus = memchr(p3, '+', n3);
    head = plus ? (size_t)(plus - p3) : n3;
    minus = memchr(p3, '-', head);
    if ((e = lit_num(p3, minus ? (size_t)(minus - p3) : head, "patch", msg)))
        return e;
    if (minus) {
        const char *q = minus + 1, *end = p3 + head;
        for (;;) {
            const char *dot = memchr(q, '.', (size_t)(end - q));
            size_t l = dot ? (size_t)(dot - q) : (size_t)(end - q);
            if (l == 0)
                return E_PRE_EMPTY;
            if (lit_only(q, l, "0123456789")) {
                if (l > 1 && q[0] == '0') {
                    sprintf(msg, "Numeric PreRelease version must not contain leading zeroes \"%.*s\"",
                            (int)l, q);
                    return msg;
                }
            } else if (!lit_only(q, l, alnum)) {
                sprintf(msg, "Invalid character(s) found in prerelease \"%.*s\"", (int)l, q);
                return msg;
            }
            if (!dot)
                break;
            q = dot + 1;
        }
    }
    if (plus) {
        const char *q = plus + 1, *end = s + n;
        for (;;) {
            const char *dot = memchr(q, '.', (size_t)(end - q));
            size_t l = dot ? (size_t)(dot - q) : (size_t)(end - q);
            if (l == 0)
                return E_BUILD_EMPTY;
            if (!lit_only(q, l, alnum)) {
                sprintf(msg, "Invalid character(s) found in build meta data \"%.*s\"", (int)l, q);
                return msg;
            }
            if (!dot)
                break;
            q = dot + 1;
        }
    }
    return NULL;
}

static void test_strict_differential(void **state)
{
    /* '-' stands for the alphanumeric identifiers, '!' for any byte outside the sets. */
    static const char alpha[] = "01.-+!";
    enum { A = sizeof alpha - 1, MAXLEN = 8 };
    char in[MAXLEN], msg[256];
    unsigned long count = 0, failed = 0;
    (void)state;

    for (size_t len = 0; len <= MAXLEN; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++)
            total *= A;
        for (size_t idx = 0; idx < total; idx++) {
            size_t x = idx;
            const char *want;
            parsed got;
            for (size_t i = 0; i < len; i++) {
                in[i] = alpha[x % A];
                x /= A;
            }
            want = literal_parse(in, len, msg);
            parse_into(&got, in, len, false);
            if ((want == NULL) != (got.msg == NULL) || (want && strcmp(want, got.full) != 0)) {
                if (failed < 10)
                    print_error("\"%.*s\": got [%s] want [%s]\n", (int)len, in, got.full,
                                want ? want : "(ok)");
                failed++;
            } else if (!want) {
                /* Accepted: the canonical text is the input itself (no leading zero survives). */
                if (strlen(got.canon) != len || memcmp(got.canon, in, len) != 0)
                    failed++;
            }
            parsed_free(&got);
            count++;
        }
    }
    assert_true(count > 2000000);
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_normalize_superset),
        cmocka_unit_test(test_embedded_nul),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_error_record),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_precedence_chains),
        cmocka_unit_test(test_equality),
        cmocka_unit_test(test_cmp_consistency),
        cmocka_unit_test(test_normalize_differential),
        cmocka_unit_test(test_strict_differential),
    };
    return cmocka_run_group_tests_name("semver", tests, NULL, NULL);
}
