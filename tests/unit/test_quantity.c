/*
 * test_quantity.c: unit tests for vm/quantity.c, the Kubernetes resource.Quantity behind the CEL
 * library "kubernetes.Quantity". Cases come from apimachinery pkg/api/resource quantity_test.go
 * (TestQuantityParse, TestQuantityString, TestQuantityParseEmit, TestQuantityCmp*, TestAdd/Sub,
 * TestNegAndSubAtMostNegative…) and apiserver pkg/cel/library quantity_test.go, plus edge cases
 * derived from reading quantity.go / amount.go / suffix.go.
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

#include "quantity.h"

typedef dc_qty_i128 i128;

#define NANO ((i128)1000000000)
#define CAP_NANO ((i128)INT64_MAX * NANO)

/* ---------------------------------------------------------------------------------------------
 * Helpers
 */

static const char *i128_str(i128 v, char *buf)
{
    char tmp[48];
    size_t n = 0;
    unsigned __int128 u = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    size_t k = 0;
    if (v < 0)
        buf[k++] = '-';
    while (n)
        buf[k++] = tmp[--n];
    buf[k] = '\0';
    return buf;
}

static dc_qty P(const char *s)
{
    dc_qty q;
    const char *err = dc_qty_parse(s, strlen(s), &q);
    if (err)
        fail_msg("parse \"%s\": %s", s, err);
    return q;
}

/* V in nano units, for values below 10^29 (canonical exponent -9). */
static i128 nanos(const dc_qty *q)
{
    assert_int_equal(q->e, -9);
    return q->m;
}

static const char *fmt_str(const dc_qty *q, char *buf)
{
    size_t n = dc_qty_format(q, buf, DC_QTY_FMT_MAX);
    assert_true(n < DC_QTY_FMT_MAX);
    assert_int_equal(strlen(buf), n);
    return buf;
}

static void expect_str(const dc_qty *q, const char *want, const char *what)
{
    char buf[DC_QTY_FMT_MAX];
    fmt_str(q, buf);
    if (strcmp(buf, want) != 0)
        fail_msg("%s: String() = \"%s\", want \"%s\"", what, buf, want);
}

static dc_qty ADD(dc_qty a, dc_qty b)
{
    dc_qty r;
    const char *err = dc_qty_add(&a, &b, &r);
    if (err)
        fail_msg("add: %s", err);
    return r;
}

static dc_qty SUB(dc_qty a, dc_qty b)
{
    dc_qty r;
    const char *err = dc_qty_sub(&a, &b, &r);
    if (err)
        fail_msg("sub: %s", err);
    return r;
}

static int CMP(const char *a, const char *b)
{
    dc_qty x = P(a), y = P(b);
    return dc_qty_cmp(&x, &y);
}

/* ---------------------------------------------------------------------------------------------
 * Parsing: values and formats (TestQuantityParse)
 */

typedef struct parse_case {
    const char *in;
    i128 nanos;
    dc_qty_fmt fmt;
} parse_case;

#define DSI DC_QTY_DECIMAL_SI
#define BSI DC_QTY_BINARY_SI
#define DEX DC_QTY_DECIMAL_EXPONENT

static const parse_case parse_cases[] = {
    {"0", 0, DSI}, {"0n", 0, DSI}, {"0u", 0, DSI}, {"0m", 0, DSI}, {"0Ki", 0, BSI}, {"0k", 0, DSI},
    {"0Mi", 0, BSI}, {"0M", 0, DSI}, {"0Gi", 0, BSI}, {"0G", 0, DSI}, {"0Ti", 0, BSI},
    {"0T", 0, DSI},
    /* Quantity-less numbers are allowed */
    {"1", NANO, DSI},
    /* Binary suffixes */
    {"1Ki", (i128)1024 * NANO, BSI},
    {"8Ki", (i128)8 * 1024 * NANO, BSI},
    {"7Mi", (i128)7 * 1024 * 1024 * NANO, BSI},
    {"6Gi", (i128)6 * 1024 * 1024 * 1024 * NANO, BSI},
    {"5Ti", (i128)5 * 1024 * 1024 * 1024 * 1024 * NANO, BSI},
    {"4Pi", (i128)4 * 1024 * 1024 * 1024 * 1024 * 1024 * NANO, BSI},
    {"3Ei", (i128)3 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024 * NANO, BSI},
    {"10Ti", (i128)10 * 1024 * 1024 * 1024 * 1024 * NANO, BSI},
    {"100Ti", (i128)100 * 1024 * 1024 * 1024 * 1024 * NANO, BSI},
    /* Decimal suffixes */
    {"5n", 5, DSI}, {"4u", 4000, DSI}, {"3m", 3000000, DSI}, {"9", 9 * NANO, DSI},
    {"8k", 8000 * NANO, DSI}, {"50k", 50000 * NANO, DSI}, {"7M", 7000000 * NANO, DSI},
    {"6G", (i128)6000000000 * NANO, DSI}, {"5T", (i128)5000000000000 * NANO, DSI},
    {"40T", (i128)40000000000000 * NANO, DSI}, {"300T", (i128)300000000000000 * NANO, DSI},
    {"2P", (i128)2000000000000000 * NANO, DSI}, {"1E", (i128)1000000000000000000 * NANO, DSI},
    /* Decimal exponents */
    {"1E-3", 1000000, DEX}, {"1e3", 1000 * NANO, DEX}, {"1E6", 1000000 * NANO, DEX},
    {"1e9", (i128)1000000000 * NANO, DEX}, {"1E12", (i128)1000000000000 * NANO, DEX},
    {"1e15", (i128)1000000000000000 * NANO, DEX}, {"1E18", (i128)1000000000000000000 * NANO, DEX},
    /* Nonstandard but still parsable */
    {"1e14", (i128)100000000000000 * NANO, DEX}, {"1e13", (i128)10000000000000 * NANO, DEX},
    {"100.035k", 100035 * NANO, DSI},
    /* Things that look like floating point */
    {"0.001", 1000000, DSI}, {"0.0005k", 500000000, DSI}, {"0.005", 5000000, DSI},
    {"0.05", 50000000, DSI}, {"0.5", 500000000, DSI}, {"0.00050k", 500000000, DSI},
    {"0.00500", 5000000, DSI}, {"0.05000", 50000000, DSI}, {"0.50000", 500000000, DSI},
    {"0.5e0", 500000000, DEX}, {"0.5e-1", 50000000, DEX}, {"0.5e-2", 5000000, DEX},
    {"10.035M", (i128)10035000 * NANO, DSI},
    {"1.2e3", 1200 * NANO, DEX}, {"1.3E+6", 1300000 * NANO, DEX},
    {"1.40e9", (i128)1400000000 * NANO, DEX}, {"1.53E12", (i128)1530000000000 * NANO, DEX},
    {"1.6e15", (i128)1600000000000000 * NANO, DEX},
    {"1.7E18", (i128)1700000000000000000 * NANO, DEX},
    {"9.01", 9010000000, DSI}, {"8.1k", 8100 * NANO, DSI}, {"7.123456M", 7123456 * NANO, DSI},
    {"6.987654321G", (i128)6987654321 * NANO, DSI}, {"5.444T", (i128)5444000000000 * NANO, DSI},
    {"40.1T", (i128)40100000000000 * NANO, DSI}, {"300.2T", (i128)300200000000000 * NANO, DSI},
    {"2.5P", (i128)2500000000000000 * NANO, DSI},
    {"1.01E", (i128)1010000000000000000 * NANO, DSI},
    /* Things that saturate/round */
    {"3.001n", 4, DSI}, {"1.1E-9", 2, DEX}, {"0.0000000001", 1, DSI},
    {"0.0000000005", 1, DSI}, {"0.00000000050", 1, DSI}, {"0.5e-9", 1, DEX}, {"0.9n", 1, DSI},
    {"0.00000012345", 124, DSI}, {"0.00000012354", 124, DSI},
    {"9Ei", CAP_NANO, BSI}, {"9223372036854775807Ki", CAP_NANO, BSI},
    {"12E", (i128)12000000000000000000u * NANO, DSI},
    /* We'll accept fractional binary stuff, too. */
    {"100.035Ki", (i128)102435840000000, BSI},
    {"0.5Mi", (i128)524288 * NANO, BSI},
    {"0.05Gi", (i128)53687091200000000, BSI},
    {"0.025Ti", (i128)27487790694 * NANO + 400000000, BSI},
    /* Things written by trolls */
    {"0.000000000001Ki", 2, DSI}, /* rounds up, changes format */
    {".001", 1000000, DSI}, {".0001k", 100000000, DSI}, {"1.", NANO, DSI},
    {"1.G", (i128)1000000000 * NANO, DSI},
    /* Beyond apimachinery's table, from reading parseQuantityString / ParseQuantity */
    {".5", 500000000, DSI}, {"5.", 5 * NANO, DSI}, {"0.5Gi", (i128)536870912 * NANO, BSI},
    {"-", 0, DSI}, {"+", 0, DSI}, {".", 0, DSI}, {"-.", 0, DSI}, {"-0", 0, DSI}, {"000", 0, DSI},
    /* a suffix without digits is zero (apimachinery issue #165), except where the int64 fast
     * path is not taken (Pi, Ei, exponents below -9): see the error table */
    {"Mi", 0, BSI}, {"Ki", 0, BSI}, {"Gi", 0, BSI}, {"Ti", 0, BSI}, {"k", 0, DSI}, {"m", 0, DSI},
    {"E", 0, DSI}, {"e5", 0, DEX}, {"e-9", 0, DEX}, {".Ki", 0, BSI}, {"0.0Ei", 0, BSI},
    /* strconv.ParseInt then int32(): exponents wrap */
    {"1e4294967296", NANO, DEX}, {"1e4294967295", 100000000, DEX},
    /* ParseInt takes leading zeros and '+' */
    {"1e+0003", 1000 * NANO, DEX}, {"2E-0", 2 * NANO, DEX},
    /* rounding of long fractions and binary fractions */
    {"1.0000000000000000000000000000001", NANO + 1, DSI},
    {"0.9999999999999999999999999", NANO, DSI},
    {"0.0000000000000000000001Ki", 1, DSI},
    {"1.0000000001Ki", (i128)1024 * NANO + 103, BSI},
    {"0.9Ki", (i128)9216 * 100000000, BSI},
    {"0.0009Ki", 921600000, DSI}, /* 0.9216: below one, shown as DecimalSI */
    {"99999999999999999999999999999999999999999999Ki", CAP_NANO, BSI},
    {"8Ei", CAP_NANO, BSI}, {"8192Pi", CAP_NANO, BSI}, {"7.99999999999999999999Ei", CAP_NANO, BSI},
};

static void test_parse_values(void **state)
{
    (void)state;
    char want[48], got[48];
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
        const parse_case *c = &parse_cases[i];
        for (int sign = 0; sign < 3; sign++) {
            char in[128];
            if (sign > 0 && (c->in[0] == '-' || c->in[0] == '+'))
                continue;
            snprintf(in, sizeof in, "%s%s", sign == 0 ? "" : sign == 1 ? "-" : "+", c->in);
            dc_qty q;
            const char *err = dc_qty_parse(in, strlen(in), &q);
            if (err)
                fail_msg("\"%s\": unexpected error %s", in, err);
            i128 expect = sign == 1 ? -c->nanos : c->nanos;
            if (q.e != -9 || q.m != expect)
                fail_msg("\"%s\": value %s e%d, want %s nanos", in, i128_str(q.m, got), q.e,
                         i128_str(expect, want));
            if (q.fmt != c->fmt)
                fail_msg("\"%s\": format %d, want %d", in, q.fmt, c->fmt);
            assert_false(q.boxed);
            assert_true(dc_qty_is_valid(in, strlen(in)));
        }
    }
}

/* The last BinarySI case above is exact below the cap: 7.9999999999999999 * 2^60. */
static void test_parse_binary_exact(void **state)
{
    (void)state;
    dc_qty q = P("7.9999999999999999Ei");
    /* 79999999999999999 * 2^60 / 10^16 in nanos, ceil: computed independently with 128 bits */
    unsigned __int128 num = (unsigned __int128)79999999999999999u << 60; /* < 2^127 */
    unsigned __int128 den = 10000000; /* 10^16 / 10^9 */
    unsigned __int128 ceil_nano = (num + den - 1) / den;
    assert_true(q.m == (i128)ceil_nano);
    assert_int_equal(q.fmt, BSI);
    assert_true(q.dec);
    assert_int_equal(q.kscale, -9);
}

/* Kubernetes' internal state: int64Amount vs inf.Dec and the scale. */
static void test_parse_k8s_state(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int dec;
        int32_t kscale;
    } cases[] = {
        {"0", 0, 0}, {"1", 0, 0}, {"50k", 0, 3}, {"1.000", 0, -3}, {"1000m", 0, -3},
        {"1.5", 0, -1}, {"100.035k", 0, 0}, {"5n", 0, -9}, {"1e3", 0, 3}, {"1.2e3", 0, 2},
        {"1Ki", 0, 0}, {"1Ti", 0, 0}, {"99999999999Ki", 0, 0}, {"999999999999Ki", 1, -9},
        {"1Pi", 1, -9}, {"1Ei", 1, -9}, {"0.5Gi", 1, -9}, {"9Ei", 1, 0}, {"-9Ei", 1, 0},
        {"123456789012345678", 0, 0}, {"1234567890123456789", 1, -9}, {"0.0000000001", 1, -9},
        {"0.0000000000000000000", 1, -19}, {"0.0Ki", 1, -1}, {"0e400", 0, 400},
        {"12E", 0, 18}, {"e5", 0, 5}, {"-.", 0, 0}, {"1e4294967296", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dc_qty q = P(cases[i].in);
        if (q.dec != cases[i].dec || q.kscale != cases[i].kscale)
            fail_msg("\"%s\": dec %d kscale %d, want %d %d", cases[i].in, q.dec, q.kscale,
                     cases[i].dec, cases[i].kscale);
    }
}

/* Values beyond 10^29 (canonical exponent above -9). */
static void test_parse_large(void **state)
{
    (void)state;
    dc_qty q = P("9999999999999999999999999999999999999G");
    /* 37 nines * 10^9 = (38 digits: 37 nines and a 0) * 10^8 */
    i128 nines = 0;
    for (int i = 0; i < 37; i++)
        nines = nines * 10 + 9;
    assert_int_equal(q.e, 8);
    assert_true(q.m == nines * 10);
    assert_true(q.dec);
    dc_qty big = P("1e1000");
    assert_int_equal(big.e, 1000 - 37);
    assert_int_equal(big.kscale, 1000);
    assert_false(big.dec);
    /* Rounding carries through a run of nines into a shorter value */
    dc_qty a = P("9999999999999999999999999999999999999.99999999999");
    dc_qty b = P("1e37");
    assert_true(dc_qty_eq(&a, &b));
    dc_qty c = P("-12999999999999999999999999999999999999999999999.99999999999e-10");
    dc_qty d = P("-13e35");
    assert_true(dc_qty_eq(&c, &d));
    /* 38 significant digits are fine */
    dc_qty e = P("12345678901234567890123456789012345678");
    assert_int_equal(e.e, 0);
    dc_qty f = P("1234567890123456789.0123456789012345678e-9");
    assert_int_equal(f.e, -9);
}

/* ---------------------------------------------------------------------------------------------
 * Parsing: errors
 */

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        const char *err;
    } cases[] = {
        {"", dc_qty_err_format},
        /* apimachinery's invalid table */
        {"1.1.M", dc_qty_err_format}, {"1+1.0M", dc_qty_err_format}, {"0.1mi", dc_qty_err_suffix},
        {"0.1am", dc_qty_err_format}, {"aoeu", dc_qty_err_format}, {".5i", dc_qty_err_suffix},
        {"1i", dc_qty_err_suffix}, {"-3.01i", dc_qty_err_suffix}, {"-3.01e-", dc_qty_err_suffix},
        {" 1", dc_qty_err_format}, {"1 ", dc_qty_err_format},
        /* the CEL library's tests and docs */
        {"10Mo", dc_qty_err_format}, {"10Mm", dc_qty_err_suffix}, {"200K", dc_qty_err_suffix},
        {"Three", dc_qty_err_format}, {"1,3G", dc_qty_err_format}, {"Non-Numeric", dc_qty_err_format},
        /* case sensitive */
        {"1KI", dc_qty_err_format}, {"1ki", dc_qty_err_suffix}, {"1mI", dc_qty_err_format},
        {"1mi", dc_qty_err_suffix}, {"1g", dc_qty_err_format}, {"1K", dc_qty_err_suffix},
        /* exponent syntax (strconv.ParseInt) */
        {"e", dc_qty_err_suffix}, {"1e", dc_qty_err_suffix}, {"1e+", dc_qty_err_suffix},
        {"1E-", dc_qty_err_suffix}, {"1e3e", dc_qty_err_format}, {"1e--3", dc_qty_err_format},
        {"1e3.5", dc_qty_err_format}, {"1eE3", dc_qty_err_suffix}, {"1ee", dc_qty_err_suffix},
        {"1e9223372036854775808", dc_qty_err_suffix},
        {"1e-9223372036854775809", dc_qty_err_suffix},
        {"1kk", dc_qty_err_suffix}, {"1Mi5", dc_qty_err_suffix}, {"--1", dc_qty_err_suffix},
        {"-1-", dc_qty_err_suffix}, {"1+", dc_qty_err_suffix}, {"+-1", dc_qty_err_suffix},
        {"0x10", dc_qty_err_format}, {"1_000", dc_qty_err_format}, {"\xc2\xb5" "1", dc_qty_err_format},
        {"1\t", dc_qty_err_format}, {"1\n", dc_qty_err_format}, {"Inf", dc_qty_err_format},
        {"NaN", dc_qty_err_format},
        /* no digit on the inf.Dec slow path: inf.Dec.SetString fails */
        {"Pi", dc_qty_err_numeric}, {"Ei", dc_qty_err_numeric}, {"-.Ei", dc_qty_err_numeric},
        {".e-10", dc_qty_err_numeric}, {"e-10", dc_qty_err_numeric},
        {"+.E-99", dc_qty_err_numeric}, {"e2147483648", dc_qty_err_numeric},
        /* dracel's limits */
        {"123456789012345678901234567890123456789", dc_qty_err_range},
        {"1.00000000000000000000000000000000000001e30", dc_qty_err_range},
        {"1e2000000000", dc_qty_err_range}, {"1.5e-2147483648", dc_qty_err_range},
        {"12345678901234567890e2147483647", dc_qty_err_range},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dc_qty q;
        const char *err = dc_qty_parse(cases[i].in, strlen(cases[i].in), &q);
        if (err != cases[i].err)
            fail_msg("\"%s\": got %s, want %s", cases[i].in, err ? err : "success", cases[i].err);
        assert_false(dc_qty_is_valid(cases[i].in, strlen(cases[i].in)));
    }
    /* bytes after an embedded NUL are part of the input */
    dc_qty q;
    assert_ptr_equal(dc_qty_parse("1\0", 2, &q), dc_qty_err_format);
    assert_ptr_equal(dc_qty_parse("12", 1, &q), NULL);
    assert_true(q.m == NANO);
    /* Kubernetes' exact messages */
    assert_string_equal(dc_qty_err_format,
                        "quantities must match the regular expression "
                        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    assert_string_equal(dc_qty_err_suffix, "unable to parse quantity's suffix");
    assert_string_equal(dc_qty_err_numeric, "unable to parse numeric part of quantity");
    assert_string_equal(dc_qty_err_integer, "cannot convert value to integer");
}

/* isQuantity examples from the CEL library documentation (except 'Mi', which the code accepts). */
static void test_is_valid(void **state)
{
    (void)state;
    assert_true(dc_qty_is_valid("1.3G", 4));
    assert_true(dc_qty_is_valid("1.3Gi", 5));
    assert_false(dc_qty_is_valid("1,3G", 4));
    assert_true(dc_qty_is_valid("10000k", 6));
    assert_false(dc_qty_is_valid("200K", 4));
    assert_false(dc_qty_is_valid("Three", 5));
    assert_true(dc_qty_is_valid("20", 2));
    assert_true(dc_qty_is_valid("20M", 3));
    assert_true(dc_qty_is_valid("20Mi", 4));
    assert_false(dc_qty_is_valid("20Mo", 4));
    assert_false(dc_qty_is_valid("10Mm", 4));
    assert_true(dc_qty_is_valid("Mi", 2));
    assert_false(dc_qty_is_valid("", 0));
}

/* ---------------------------------------------------------------------------------------------
 * Canonical text (TestQuantityString, TestQuantityParseEmit)
 */

static void test_canonical_strings(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        /* TestQuantityParseEmit */
        {"1Ki", "1Ki"}, {"1Mi", "1Mi"}, {"1Gi", "1Gi"}, {"1024Mi", "1Gi"}, {"1000M", "1G"},
        {".001Ki", "1024m"}, {".000001Ki", "1024u"}, {".000000001Ki", "1024n"},
        {".000000000001Ki", "2n"},
        /* TestQuantityString, canonical and alternate spellings */
        {"300Mi", "300Mi"}, {"307200Ki", "300Mi"}, {"6Ki", "6Ki"}, {"1001Gi", "1001Gi"},
        {"1025024Mi", "1001Gi"}, {"1Ti", "1Ti"}, {"1024Gi", "1Ti"}, {"5", "5"}, {"5000m", "5"},
        {"500m", "500m"}, {"0.5", "500m"}, {"1G", "1G"}, {"0.001T", "1G"}, {"1000000k", "1G"},
        {"1000000000", "1G"}, {"1m", "1m"}, {"1000u", "1m"}, {"80m", "80m"}, {"1080m", "1080m"},
        {"1.08", "1080m"}, {"1080000000n", "1080m"}, {"300M", "300M"}, {"1T", "1T"},
        {"1E", "1E"}, {"1e21", "1e21"}, {"1000E", "1e21"}, {"5000E", "5e21"},
        {"1000000E", "1e24"}, {"1234567M", "1234567M"}, {"3k", "3k"}, {"1025", "1025"},
        {"0", "0"}, {"00", "0"}, {"1e9", "1e9"}, {".001e12", "1e9"}, {"1e-3", "1e-3"},
        {"0.001e0", "1e-3"}, {"1e-9", "1e-9"}, {"1000e-12", "1e-9"}, {"80e-3", "80e-3"},
        {"300e6", "300e6"}, {"1e12", "1e12"}, {"1e3", "1e3"}, {"3e3", "3e3"}, {"1n", "1n"},
        {"80n", "80n"}, {"1080n", "1080n"}, {"1u", "1u"}, {"80u", "80u"}, {"1080u", "1080u"},
        /* the brief and the CEL docs */
        {"0.2G", "200M"}, {"1500m", "1500m"}, {"1.5", "1500m"}, {"1.5Gi", "1536Mi"},
        {"12Mi", "12Mi"}, {"1.1Ki", "1126400m"}, {"0.5Gi", "512Mi"}, {"50k", "50k"},
        {"50.02k", "50020"}, {"49.98k", "49980"},
        /* BinarySI corner cases of CanonicalizeBytes */
        {"9Ei", "9223372036854775807"}, {"1Ei", "1Ei"}, {"1023", "1023"}, {"1024", "1024"},
        {"0.5Ki", "512"}, {"1.5Ki", "1536"}, {"2Ki", "2Ki"}, {"0.0009Ki", "921600u"},
        {"0Mi", "0"}, {"Mi", "0"}, {"1100Ki", "1100Ki"}, {"1.0009765625Ki", "1025"},
        {"0.0001Ki", "102400u"},
        /* DecimalSI / DecimalExponent */
        {"12E", "12E"}, {"1.01E", "1010P"}, {"1e1000", "10e999"}, {"10e1000", "100e999"},
        {"123e-2", "1230e-3"}, {"1e4294967296", "1"}, {"-1e4294967295", "-100e-3"},
        {"9999999999999999999999999999999999999G", "9999999999999999999999999999999999999G"},
        {"12345678901234567890123456789012345678", "12345678901234567890123456789012345678"},
        {"0.000000000000000000000001", "1n"}, {"1.5e-9", "2e-9"}, {"100Ti", "100Ti"},
        {"1e0", "1"}, {"1E18", "1e18"}, {"1e19", "10e18"}, {"1E", "1E"}, {"10E", "10E"},
        {"100.035k", "100035"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dc_qty q = P(cases[i].in);
        expect_str(&q, cases[i].out, cases[i].in);
        if (q.m == 0 || cases[i].in[0] == '-')
            continue;
        /* the negative prints with a leading '-' */
        char in[128], out[128];
        snprintf(in, sizeof in, "-%s", cases[i].in);
        snprintf(out, sizeof out, "-%s", cases[i].out);
        dc_qty n = P(in);
        expect_str(&n, out, in);
    }
}

static void test_format_buffer(void **state)
{
    (void)state;
    dc_qty q = P("1536Mi");
    char buf[8];
    memset(buf, 'x', sizeof buf);
    assert_int_equal(dc_qty_format(&q, buf, 5), 6);
    assert_string_equal(buf, "1536");
    assert_int_equal(dc_qty_format(&q, buf, 0), 6);
    assert_int_equal(buf[0], '1');
    assert_int_equal(dc_qty_format(&q, buf, 1), 6);
    assert_string_equal(buf, "");
    assert_int_equal(dc_qty_format(&q, buf, 7), 6);
    assert_string_equal(buf, "1536Mi");
    /* the longest texts fit DC_QTY_FMT_MAX */
    char big[DC_QTY_FMT_MAX];
    dc_qty w = P("-99999999999999999999999999999999999999e1073741787");
    size_t n = dc_qty_format(&w, big, sizeof big);
    assert_true(n < DC_QTY_FMT_MAX);
}

/* ---------------------------------------------------------------------------------------------
 * Comparison and equality
 */

static void test_cmp(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        int want;
    } cases[] = {
        /* TestQuantityCmp */
        {"0", "0", 0}, {"100m", "50m", 1}, {"50m", "100m", -1}, {"10000T", "100Gi", 1},
        /* the CEL library tests */
        {"200M", "0.2G", 0}, {"50M", "50Mi", -1}, {"50Mi", "50M", 1}, {"150Mi", "100Mi", 1},
        {"50Mi", "100Mi", -1}, {"50M", "100M", -1}, {"100M", "50M", 1}, {"2M", "0.002G", 0},
        {"2000k", "2M", 0}, {"0.002G", "2000k", 0}, {"200M", "0.3G", -1}, {"1Gi", "1024Mi", 0},
        /* TestQuantityCmpInt64AndDec, written as text */
        {"9.01", "9.01", 0}, {"9.0", "9.01", -1}, {"9.01", "9.00", 1}, {"0e1", "0e-1", 0},
        {"0.800", "1", -1}, {"0.800", "0.79", 1}, {"9223372036854775807", "0.1", 1},
        {"92233720368547758070", "1", 1}, {"92233720368547758070", "1e1", 1},
        {"92233720368547758070", "0e1", 1}, {"922.3372036854775807", "1e3", -1},
        {"-9223372036854775808", "0", -1}, {"-9.223372036854775808", "-1", -1},
        {"-.9223372036854775808", "-1", 1}, {"10.00000000000000000", "1e1", 0},
        {"10.00000000000000000", "-10", 1}, {"-10.00000000000000000", "-10", 0},
        {"10.00000000000000000", "1", 1}, {"10.00000000000000001", "1e1", 1},
        {"9.99999999999999999", "1e1", 0}, /* rounded up to 1n: exactly 10 */
        {"9.999999999", "1e1", -1},
        /* across families and magnitudes */
        {"12E", "9Ei", 1}, {"8Ei", "9Ei", 0}, {"1e40", "1e39", 1}, {"-1e40", "-1e39", -1},
        {"-1e40", "1n", -1}, {"1e40", "-1n", 1}, {"0", "0Mi", 0}, {"-0", "0", 0},
        {"1e30", "999999999999999999999999999999", 1},
        {"1e20", "99999999999999999999.999999999", 1},
        {"1e37", "10000000000000000000000000000000000000", 0},
        {"5e37", "49999999999999999999999999999999999999", 1}, {"1e38", "2e37", 1},
        {"1.000000000000000001", "1", 1}, {"1e-30", "1n", 0}, {"0.000000000000000000001", "0", 1},
        {"-1e-30", "-1n", 0}, {"1e1000", "1e999", 1}, {"-1e1000", "-1e999", -1},
        {"1e1000", "-1e1000", 1}, {"1Ki", "1024", 0}, {"1k", "1000", 0}, {"1k", "1Ki", -1},
        {"1Ti", "1.099511627776T", 0}, {"1.5Gi", "1536Mi", 0}, {"3Ei", "3458764513820540928", 0},
        {"1e28", "9999999999999999999999999999.999999999", 1},
        {"1e29", "99999999999999999999999999999", 1},
        {"1e29", "100000000000000000000000000000", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dc_qty a = P(cases[i].a), b = P(cases[i].b);
        int c = dc_qty_cmp(&a, &b), r = dc_qty_cmp(&b, &a);
        if (c != cases[i].want || r != -cases[i].want)
            fail_msg("cmp(%s, %s) = %d / %d, want %d", cases[i].a, cases[i].b, c, r,
                     cases[i].want);
        assert_int_equal(dc_qty_eq(&a, &b), cases[i].want == 0);
        assert_int_equal(dc_qty_cmp(&a, &a), 0);
    }
}

/* Exhaustive ordering of a sorted list, against every pair. */
static void test_cmp_total_order(void **state)
{
    (void)state;
    static const char *const sorted[] = {
        "-1e1000", "-1e40", "-99999999999999999999999999999999999999", "-1e37", "-1e29",
        "-99999999999999999999999999999", "-12345678901234567890", "-9Ei", "-1Gi", "-1G",
        "-1.5", "-1", "-1m", "-1n", "0", "1n", "2n", "999999999n", "1", "1.000000001", "1k",
        "1Ki", "1M", "1Mi", "50M", "50Mi", "1G", "1Gi", "1T", "1Ti", "1P", "1Pi", "1E", "1Ei",
        "9223372036854775807", "9223372036854775808", "12E", "1e28", "1e29",
        "100000000000000000000000000001", "1e37", "1.0000000000000000000000000000000000001e37",
        "1e38", "1e39", "2e39", "1e40", "1e1000", "1e1073741800",
    };
    size_t n = sizeof sorted / sizeof sorted[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int want = i < j ? -1 : i > j ? 1 : 0;
            int got = CMP(sorted[i], sorted[j]);
            if (got != want)
                fail_msg("cmp(%s, %s) = %d, want %d", sorted[i], sorted[j], got, want);
        }
}

/* CEL ==: Equal type-asserts the right operand to apiservercel.Quantity, so a *Quantity (the
 * result of add/sub) on the right is never equal. */
static void test_cel_eq_boxed(void **state)
{
    (void)state;
    dc_qty want = P("50.02k");
    dc_qty sum = ADD(P("50k"), P("20"));
    assert_true(sum.boxed);
    assert_true(dc_qty_cel_eq(&sum, &want));   /* quantity("50k").add(quantity("20")) == … */
    assert_false(dc_qty_cel_eq(&want, &sum));  /* … == quantity("50k").add(…): false */
    assert_true(dc_qty_eq(&want, &sum));
    dc_qty sum2 = ADD(P("50.01k"), P("10"));
    assert_false(dc_qty_cel_eq(&sum, &sum2));
    dc_qty a = P("200M"), b = P("0.2G");
    assert_true(dc_qty_cel_eq(&a, &b) && dc_qty_cel_eq(&b, &a));
    dc_qty c = P("0.3G");
    assert_false(dc_qty_cel_eq(&a, &c));
}

/* compareTo/isLessThan/isGreaterThan promote the receiver to inf.Dec when either side is one. */
static void test_compare_to_promotes(void **state)
{
    (void)state;
    dc_qty a = P("1000"), b = P("0.5Gi");
    assert_true(dc_qty_is_integer(&a));
    assert_int_equal(dc_qty_compare_to(&a, &b), -1);
    assert_true(a.dec);
    assert_false(dc_qty_is_integer(&a));
    dc_qty c = P("1000"), d = P("1k");
    assert_int_equal(dc_qty_compare_to(&c, &d), 0);
    assert_false(c.dec);
    assert_true(dc_qty_is_integer(&c));
    dc_qty e = P("1Pi"), f = P("1");
    assert_int_equal(dc_qty_compare_to(&f, &e), -1);
    assert_false(dc_qty_is_integer(&f));
    assert_false(b.dec == 0);
}

/* ---------------------------------------------------------------------------------------------
 * Arithmetic
 */

static void test_add_sub_cel(void **state)
{
    (void)state;
    dc_qty r, want;
    int64_t v;
    /* quantity("50k").add(quantity("20")) == quantity("50.02k") */
    r = ADD(P("50k"), P("20"));
    want = P("50.02k");
    assert_true(dc_qty_cel_eq(&r, &want));
    expect_str(&r, "50020", "50k+20");
    /* quantity("50k").add(20).isLessThan(quantity("50020")) == false */
    r = ADD(P("50k"), dc_qty_from_int(20));
    want = P("50020");
    assert_int_equal(dc_qty_cmp(&r, &want), 0);
    /* sub */
    r = SUB(P("50k"), P("20"));
    want = P("49.98k");
    assert_true(dc_qty_cel_eq(&r, &want));
    r = SUB(P("50k"), dc_qty_from_int(20));
    want = P("49980");
    assert_true(dc_qty_cel_eq(&r, &want));
    /* quantity("50k").add(20).sub(quantity("100k")).asInteger() == -49980 */
    r = SUB(ADD(P("50k"), dc_qty_from_int(20)), P("100k"));
    assert_null(dc_qty_as_int64(&r, &v));
    assert_int_equal(v, -49980);
    /* ….sub(-50000).asInteger() == 20 */
    r = SUB(r, dc_qty_from_int(-50000));
    assert_null(dc_qty_as_int64(&r, &v));
    assert_int_equal(v, 20);
    want = P("20");
    assert_true(dc_qty_cel_eq(&r, &want));
    /* quantity("50k").sub(20000).asApproximateFloat() == 30000 */
    r = SUB(P("50k"), dc_qty_from_int(20000));
    assert_true(dc_qty_approx_float(&r) == 30000.0);
    want = P("30k");
    assert_true(dc_qty_eq(&r, &want));
    /* quantity("50k").sub("20k") == quantity("30k"); add("20k") == "70k" */
    r = SUB(P("50k"), P("20k"));
    assert_true(dc_qty_cel_eq(&r, &want));
    r = ADD(P("50k"), P("20k"));
    want = P("70k");
    assert_true(dc_qty_cel_eq(&r, &want));
}

static void test_add_sub_formats(void **state)
{
    (void)state;
    /* TestAdd / TestSub: the receiver's format wins unless it is zero */
    dc_qty r = ADD(P("10"), P("1e1"));
    expect_str(&r, "20", "10+1e1");
    r = ADD(P("10Ki"), P("1"));
    expect_str(&r, "10241", "10Ki+1");
    assert_int_equal(r.fmt, BSI);
    r = ADD(P("1"), P("1Ki"));
    expect_str(&r, "1025", "1+1Ki");
    assert_int_equal(r.fmt, DSI);
    r = SUB(P("10"), P("1e1"));
    expect_str(&r, "0", "10-1e1");
    r = SUB(P("0"), P("50"));
    expect_str(&r, "-50", "0-50");
    /* TestQuantityAddZeroPreservesSuffix / SubZero */
    static const char *const vals[] = {"100m", "1Gi"};
    for (size_t i = 0; i < 2; i++) {
        char neg[16];
        snprintf(neg, sizeof neg, "-%s", vals[i]);
        r = ADD(P(vals[i]), P("0"));
        expect_str(&r, vals[i], "v+0");
        r = ADD(P("0"), P(vals[i]));
        expect_str(&r, vals[i], "0+v");
        r = SUB(P(vals[i]), P("0"));
        expect_str(&r, vals[i], "v-0");
        r = SUB(P("0"), P(vals[i]));
        expect_str(&r, neg, "0-v");
    }
    /* a zero receiver takes the int operand's DecimalExponent format */
    r = ADD(P("0"), dc_qty_from_int(1000));
    expect_str(&r, "1e3", "0+1000");
    r = ADD(P("0Mi"), dc_qty_from_int(2048));
    expect_str(&r, "2048", "0Mi+2048");
    r = ADD(P("1Mi"), dc_qty_from_int(1048576));
    expect_str(&r, "2Mi", "1Mi+1048576");
    r = ADD(P("1.5"), P("0.5"));
    expect_str(&r, "2", "1.5+0.5");
    r = SUB(P("1Gi"), P("1Gi"));
    expect_str(&r, "0", "1Gi-1Gi");
    r = ADD(P("1G"), P("1Gi"));
    expect_str(&r, "2073741824", "1G+1Gi");
}

static void test_add_sub_large(void **state)
{
    (void)state;
    dc_qty r, want;
    const char *err;
    r = ADD(P("1e30"), P("1e30"));
    expect_str(&r, "2e30", "1e30+1e30");
    r = ADD(P("1e38"), P("-1e38"));
    assert_true(r.m == 0 && r.e == -9);
    r = ADD(P("99999999999999999999999999999999999999"), P("1"));
    want = P("1e38");
    assert_true(dc_qty_eq(&r, &want));
    expect_str(&r, "100e36", "10^38 DecimalSI");
    /* cancellation down to a short value */
    r = SUB(P("1e38"), P("99999999999999999999999999999999999999"));
    want = P("1");
    assert_true(dc_qty_eq(&r, &want));
    /* operands of equal exponent whose sum overflows 128 bits but has few digits */
    r = ADD(P("95000000000000000000000000000000000005e5"), P("95000000000000000000000000000000000005e5"));
    want = P("19000000000000000000000000000000000001e6");
    assert_true(dc_qty_eq(&r, &want));
    /* 38 significant digits are the limit */
    r = ADD(P("1e28"), P("1n"));
    want = P("10000000000000000000000000000.000000001");
    assert_true(dc_qty_eq(&r, &want));
    dc_qty a = P("1e29"), b = P("1n");
    err = dc_qty_add(&a, &b, &r);
    assert_ptr_equal(err, dc_qty_err_range);
    a = P("1e1000");
    b = P("1");
    assert_ptr_equal(dc_qty_sub(&a, &b, &r), dc_qty_err_range);
    b = P("1e999");
    assert_null(dc_qty_sub(&a, &b, &r));
    expect_str(&r, "9e999", "1e1000-1e999");
    a = P("1e1073741800");
    assert_ptr_equal(dc_qty_add(&a, &a, &r), NULL);
    a = P("9e1073741824");
    assert_null(dc_qty_add(&a, &a, &r));
    assert_int_equal(r.e, 1073741824 - 36);
    const char *huge = "10000000000000000000000000000000000000000e1073741824";
    assert_ptr_equal(dc_qty_parse(huge, strlen(huge), &a), dc_qty_err_range);
}

/* Kubernetes switches to inf.Dec when the int64 path overflows; isInteger follows. */
static void test_add_sub_backing(void **state)
{
    (void)state;
    int64_t v;
    dc_qty r = ADD(dc_qty_from_int(INT64_MAX), dc_qty_from_int(-1));
    assert_false(r.dec);
    assert_null(dc_qty_as_int64(&r, &v));
    assert_int_equal(v, INT64_MAX - 1);
    r = ADD(dc_qty_from_int(INT64_MAX), dc_qty_from_int(1));
    assert_true(r.dec);
    assert_false(dc_qty_is_integer(&r));
    expect_str(&r, "9223372036854775808", "MaxInt64+1");
    r = ADD(P("1e18"), dc_qty_from_int(1));
    assert_false(r.dec);
    assert_int_equal(r.kscale, 0);
    assert_null(dc_qty_as_int64(&r, &v));
    assert_int_equal(v, 1000000000000000001);
    r = ADD(P("10e18"), dc_qty_from_int(1));
    assert_true(r.dec);
    assert_int_equal(r.kscale, 0);
    assert_false(dc_qty_is_integer(&r));
    expect_str(&r, "10000000000000000001", "1e19+1");
    /* same scale: int64 add */
    r = ADD(P("12E"), P("12E"));
    assert_false(r.dec);
    assert_int_equal(r.kscale, 18);
    assert_false(dc_qty_is_integer(&r)); /* 24e18 overflows int64 */
    expect_str(&r, "24E", "12E+12E");
    /* int + Dec is Dec, at the smaller scale */
    r = ADD(P("1"), P("0.5Gi"));
    assert_true(r.dec);
    assert_int_equal(r.kscale, -9);
    /* zero operands keep the other's scale on the int64 path */
    r = ADD(P("0m"), P("5k"));
    assert_false(r.dec);
    assert_int_equal(r.kscale, 3);
    assert_true(dc_qty_is_integer(&r));
    r = ADD(P("5k"), P("0m"));
    assert_int_equal(r.kscale, 3);
    /* but not on the inf.Dec path */
    r = ADD(P("0.0000000000000000000"), P("5k"));
    assert_true(r.dec);
    assert_int_equal(r.kscale, -19);
    /* alignment to the smaller scale: 1.5 + 1 = 25e-1 */
    r = ADD(P("1.5"), dc_qty_from_int(1));
    assert_int_equal(r.kscale, -1);
    assert_false(dc_qty_is_integer(&r));
    r = ADD(P("1.5"), P("0.5"));
    assert_int_equal(r.kscale, -1);
    assert_false(dc_qty_is_integer(&r)); /* 20e-1: AsInt64 refuses a negative scale */
}

/* TestNegAndSubAtMostNegative and friends. */
static void test_sub_most_negative(void **state)
{
    (void)state;
    int64_t v;
    dc_qty mn = dc_qty_from_int(INT64_MIN);
    dc_qty want = P("9223372036854775808");
    dc_qty r = SUB(P("0"), mn);
    assert_true(r.dec);
    assert_false(dc_qty_is_integer(&r));
    assert_int_equal(dc_qty_sign(&r), 1);
    assert_true(dc_qty_eq(&r, &want));
    expect_str(&r, "9223372036854775808", "0-MinInt64");
    assert_int_equal(r.fmt, DEX);
    r = SUB(dc_qty_from_int(1), mn);
    assert_true(r.dec);
    want = P("9223372036854775809");
    assert_true(dc_qty_eq(&r, &want));
    expect_str(&r, "9223372036854775809", "1-MinInt64");
    r = SUB(P("0"), dc_qty_from_int(INT64_MIN + 1));
    assert_false(r.dec);
    assert_null(dc_qty_as_int64(&r, &v));
    assert_int_equal(v, INT64_MAX);
    r = SUB(P("1e1"), mn);
    expect_str(&r, "9223372036854775818", "10-MinInt64");
    assert_false(dc_qty_is_integer(&r));
    /* MaxInt64 - (-1) overflows to inf.Dec; -MaxInt64 - 1 is MinInt64 on the int64 path */
    r = SUB(dc_qty_from_int(INT64_MAX), dc_qty_from_int(-1));
    assert_true(r.dec);
    r = SUB(dc_qty_from_int(-INT64_MAX), dc_qty_from_int(1));
    assert_false(r.dec);
    assert_null(dc_qty_as_int64(&r, &v));
    assert_int_equal(v, INT64_MIN);
}

/* String() quirks of the BinarySI path that depend on Kubernetes' storage. */
static void test_binary_string_quirks(void **state)
{
    (void)state;
    /* int64 path: removeInt64Factors cannot negate mostNegative, so no suffix */
    dc_qty r = ADD(P("-1Ti"), dc_qty_from_int(-9223370937343148032));
    assert_false(r.dec);
    assert_int_equal(r.fmt, BSI);
    expect_str(&r, "-9223372036854775808", "int64 -2^63 BinarySI");
    /* the same value on the inf.Dec path is "-8Ei" */
    r = ADD(P("-1Ei"), dc_qty_from_int(-8070450532247928832));
    assert_true(r.dec);
    expect_str(&r, "-8Ei", "Dec -2^63 BinarySI");
    /* zero.Sub(BinarySI MinInt64) inherits BinarySI: 2^63 is "8Ei" */
    r = SUB(ADD(P("-1Ti"), dc_qty_from_int(-9223370937343148032)), P("0"));
    expect_str(&r, "-9223372036854775808", "unchanged");
    dc_qty z = P("0");
    dc_qty m = ADD(P("-1Ti"), dc_qty_from_int(-9223370937343148032));
    r = SUB(z, m);
    assert_int_equal(r.fmt, BSI);
    expect_str(&r, "8Ei", "0 - (-2^63) BinarySI");
    /* beyond Ei there is no suffix: 2^70 prints as "1" */
    dc_qty ei = P("1Ei"), acc = ei;
    for (int i = 1; i < 1024; i++)
        acc = ADD(acc, ei);
    dc_qty p70 = P("1180591620717411303424");
    assert_true(dc_qty_eq(&acc, &p70));
    expect_str(&acc, "1", "2^70 BinarySI");
    acc = ADD(acc, ei);
    expect_str(&acc, "1025Ei", "2^70+2^60");
}

/* ---------------------------------------------------------------------------------------------
 * Conversions
 */

static void test_as_integer(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        bool ok;
        int64_t v;
    } cases[] = {
        {"50k", true, 50000}, {"9999999999999999999999999999999999999G", false, 0},
        {"50", true, 50}, {"50000000G", true, 50000000000000000}, {"1.000", false, 0},
        {"1000m", false, 0}, {"0m", false, 0}, {"0k", true, 0}, {"0", true, 0}, {"-0", true, 0},
        {"1Ti", true, 1099511627776}, {"1Pi", false, 0}, {"1Ei", false, 0}, {"0.5Gi", false, 0},
        {"12E", false, 0}, {"9E", true, 9000000000000000000}, {"9.2E", true, 9200000000000000000},
        {"9.3E", false, 0}, {"-9.2E", true, -9200000000000000000}, {"1e-0", true, 1},
        {"1e3", true, 1000}, {"99999999999Ki", true, 102399999998976},
        {"999999999999Ki", false, 0}, {"99999999Mi", true, 104857598951424},
        {"999999999Mi", false, 0}, {"5.", true, 5}, {".5", false, 0},
        {"123456789012345678", true, 123456789012345678}, {"1234567890123456789", false, 0},
        {"e5", true, 0}, {"0e400", true, 0}, {"1e19", false, 0}, {"9223372036854775807", false, 0},
        {"922337203685477580.7e1", false, 0}, {"922337203685477580e1", true, 9223372036854775800},
        {"-922337203685477580e1", true, -9223372036854775800}, {"1e18", true, 1000000000000000000},
        {"8Ei", false, 0}, {"7Ei", false, 0}, {"1k", true, 1000}, {"1M", true, 1000000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dc_qty q = P(cases[i].in);
        int64_t v = 12345;
        const char *err = dc_qty_as_int64(&q, &v);
        if (cases[i].ok) {
            if (err || v != cases[i].v)
                fail_msg("\"%s\".asInteger(): %s %lld, want %lld", cases[i].in, err ? err : "ok",
                         (long long)v, (long long)cases[i].v);
        } else if (err != dc_qty_err_integer) {
            fail_msg("\"%s\".asInteger() should fail, got %lld", cases[i].in, (long long)v);
        }
        assert_int_equal(dc_qty_is_integer(&q), cases[i].ok);
    }
}

static void test_approx_float(void **state)
{
    (void)state;
    /* as_float from the CEL tests */
    dc_qty q = P("50.703k");
    assert_true(dc_qty_approx_float(&q) == 50703.0);
    /* float64(3) * math.Pow10(-1), not 0.3 */
    volatile double tenth = 1.0 / 10.0;
    q = P("0.3");
    assert_true(dc_qty_approx_float(&q) == 3.0 * tenth);
    assert_true(dc_qty_approx_float(&q) != 0.3);
    q = P("1.5");
    assert_true(dc_qty_approx_float(&q) == 15.0 * tenth);
    q = P("12Mi");
    assert_true(dc_qty_approx_float(&q) == 12582912.0);
    q = P("1n");
    assert_true(dc_qty_approx_float(&q) == 1.0 * (1.0 / 1e9));
    q = P("1E");
    assert_true(dc_qty_approx_float(&q) == 1e18);
    q = P("1e308");
    volatile double p308 = 1e288;
    assert_true(dc_qty_approx_float(&q) == p308 * 1e20);
    q = P("1e400");
    assert_true(isinf(dc_qty_approx_float(&q)) && dc_qty_approx_float(&q) > 0);
    q = P("-1e400");
    assert_true(isinf(dc_qty_approx_float(&q)) && dc_qty_approx_float(&q) < 0);
    q = P("0e400"); /* 0 * Pow10(400) = 0 * +Inf */
    assert_true(isnan(dc_qty_approx_float(&q)));
    q = P("0");
    assert_true(dc_qty_approx_float(&q) == 0.0);
    q = P("-1.5Gi");
    assert_true(dc_qty_approx_float(&q) == (double)-1610612736000000000 * (1.0 / 1e9));
    q = P("9Ei"); /* capped, scale 0 */
    assert_true(dc_qty_approx_float(&q) == (double)INT64_MAX);
    q = P("9999999999999999999999999999999999999G"); /* inf.Dec, scale 9 */
    char digits[64];
    memset(digits, '9', 37);
    memset(digits + 37, '0', 18);
    digits[55] = '\0';
    double base = strtod(digits, NULL);
    assert_true(dc_qty_approx_float(&q) == base * (1.0 / 1e9));
    /* a zero inf.Dec at scale 19 added to 1: float64(10^19) * Pow10(-19) */
    q = ADD(P("0.0000000000000000000"), P("1"));
    assert_true(dc_qty_approx_float(&q) == 1e19 * (1.0 / 1e19));
    /* a zero inf.Dec at scale 300 plus 1n: float64(10^291) * Pow10(-300) */
    char zero300[304] = "0.";
    memset(zero300 + 2, '0', 300);
    zero300[302] = '\0';
    dc_qty z300 = P(zero300);
    assert_int_equal(z300.kscale, -300);
    assert_true(dc_qty_approx_float(&z300) == 0.0);
    q = ADD(z300, P("1n"));
    assert_int_equal(q.kscale, -300);
    volatile double n288 = 1e-288;
    assert_true(dc_qty_approx_float(&q) == strtod("1e291", NULL) * (n288 / 1e12));
    /* the same value at scale 320: float64(10^311) overflows to +Inf */
    char zero320[324] = "0.";
    memset(zero320 + 2, '0', 320);
    zero320[322] = '\0';
    q = ADD(P(zero320), P("1n"));
    assert_true(isinf(dc_qty_approx_float(&q)));
}

static void test_sign(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int s;
    } cases[] = {
        {"-1n", -1}, {"0", 0}, {"1e40", 1}, {"-0", 0}, {"-1e40", -1}, {"-0.0000000000001", -1},
        {"0.0000000000001", 1}, {"Mi", 0}, {"-9Ei", -1}, {"1", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dc_qty q = P(cases[i].in);
        assert_int_equal(dc_qty_sign(&q), cases[i].s);
    }
}

static void test_from_int(void **state)
{
    (void)state;
    int64_t vals[] = {0, 1, -1, 1000, 1024, INT64_MAX, INT64_MIN, -1000000000000};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        dc_qty q = dc_qty_from_int(vals[i]);
        int64_t v;
        assert_null(dc_qty_as_int64(&q, &v));
        assert_int_equal(v, vals[i]);
        assert_int_equal(q.fmt, DEX);
        assert_false(q.dec);
        assert_false(q.boxed);
        assert_true(dc_qty_approx_float(&q) == (double)vals[i]);
    }
    dc_qty q = dc_qty_from_int(1000);
    expect_str(&q, "1e3", "NewQuantity(1000, DecimalExponent)");
    q = dc_qty_from_int(-1500);
    expect_str(&q, "-1500", "NewQuantity(-1500, DecimalExponent)");
}

/* Random add/sub/cmp round trips against 128-bit integer arithmetic on nano counts. */
static void test_random_arith(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    static const char *const suffixes[] = {"n", "u", "m", "", "k", "M", "G", "Ki", "Mi", "Gi"};
    static const int64_t mult[] = {1, 1000, 1000000, 1000000000, 1000000000000,
                                   1000000000000000, 1000000000000000000, 1024000000000,
                                   1048576000000000, 1073741824000000000};
    for (int it = 0; it < 20000; it++) {
        i128 nv[2];
        dc_qty q[2];
        for (int k = 0; k < 2; k++) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            int64_t mag = (int64_t)(seed % 2000000) - 1000000;
            size_t si = (size_t)((seed >> 32) % 10);
            char buf[48];
            snprintf(buf, sizeof buf, "%lld%s", (long long)mag, suffixes[si]);
            q[k] = P(buf);
            nv[k] = (i128)mag * mult[si];
            assert_true(nanos(&q[k]) == nv[k]);
        }
        dc_qty s = ADD(q[0], q[1]), d = SUB(q[0], q[1]);
        assert_true(nanos(&s) == nv[0] + nv[1]);
        assert_true(nanos(&d) == nv[0] - nv[1]);
        int want = (nv[0] > nv[1]) - (nv[0] < nv[1]);
        assert_int_equal(dc_qty_cmp(&q[0], &q[1]), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_values),
        cmocka_unit_test(test_parse_binary_exact),
        cmocka_unit_test(test_parse_k8s_state),
        cmocka_unit_test(test_parse_large),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_is_valid),
        cmocka_unit_test(test_canonical_strings),
        cmocka_unit_test(test_format_buffer),
        cmocka_unit_test(test_cmp),
        cmocka_unit_test(test_cmp_total_order),
        cmocka_unit_test(test_cel_eq_boxed),
        cmocka_unit_test(test_compare_to_promotes),
        cmocka_unit_test(test_add_sub_cel),
        cmocka_unit_test(test_add_sub_formats),
        cmocka_unit_test(test_add_sub_large),
        cmocka_unit_test(test_add_sub_backing),
        cmocka_unit_test(test_sub_most_negative),
        cmocka_unit_test(test_binary_string_quirks),
        cmocka_unit_test(test_as_integer),
        cmocka_unit_test(test_approx_float),
        cmocka_unit_test(test_sign),
        cmocka_unit_test(test_from_int),
        cmocka_unit_test(test_random_arith),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
