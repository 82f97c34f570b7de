/*
 * quantity.c: Kubernetes resource.Quantity as the CEL library "kubernetes.Quantity" uses it.
 * See quantity.h for the representation, its exactness proof and the tracked Kubernetes state.
 *
 * Invariants of every dc_qty produced here:
 *   - (m, e) is canonical: e >= -9, |m| < 10^38, e minimal (so e > -9 implies |m| >= 10^37);
 *     zero is (0, -9);
 *   - |kscale| <= 2^30 and V / 10^kscale is an integer (Kubernetes' unscaled value);
 *   - dec == 0 implies -9 <= kscale, e <= kscale (or m == 0) and V / 10^kscale fits in int64.
 *
 * Arithmetic is on unsigned 128-bit magnitudes; additions whose operands must be aligned use a
 * three-limb (192-bit) scratch integer, which holds every intermediate below 10^40.
 */
#include "quantity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;
typedef dc_qty_i128 i128;

const char dc_qty_err_format[] =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const char dc_qty_err_numeric[] = "unable to parse numeric part of quantity";
const char dc_qty_err_suffix[] = "unable to parse quantity's suffix";
const char dc_qty_err_integer[] = "cannot convert value to integer";
const char dc_qty_err_range[] =
    "quantity outside dracel's exact range (more than 38 significant digits or an exponent "
    "beyond 2^30)";

#define EXP_LIMIT (INT64_C(1) << 30)
#define U128(hi, lo) (((u128)(hi) << 64) | (u128)(lo))

/* 10^k for k = 0..38 (10^38 < 2^127). */
static const u128 P10[39] = {
    U128(0x0000000000000000u, 0x0000000000000001u), U128(0x0000000000000000u, 0x000000000000000au),
    U128(0x0000000000000000u, 0x0000000000000064u), U128(0x0000000000000000u, 0x00000000000003e8u),
    U128(0x0000000000000000u, 0x0000000000002710u), U128(0x0000000000000000u, 0x00000000000186a0u),
    U128(0x0000000000000000u, 0x00000000000f4240u), U128(0x0000000000000000u, 0x0000000000989680u),
    U128(0x0000000000000000u, 0x0000000005f5e100u), U128(0x0000000000000000u, 0x000000003b9aca00u),
    U128(0x0000000000000000u, 0x00000002540be400u), U128(0x0000000000000000u, 0x000000174876e800u),
    U128(0x0000000000000000u, 0x000000e8d4a51000u), U128(0x0000000000000000u, 0x000009184e72a000u),
    U128(0x0000000000000000u, 0x00005af3107a4000u), U128(0x0000000000000000u, 0x00038d7ea4c68000u),
    U128(0x0000000000000000u, 0x002386f26fc10000u), U128(0x0000000000000000u, 0x016345785d8a0000u),
    U128(0x0000000000000000u, 0x0de0b6b3a7640000u), U128(0x0000000000000000u, 0x8ac7230489e80000u),
    U128(0x0000000000000005u, 0x6bc75e2d63100000u), U128(0x0000000000000036u, 0x35c9adc5dea00000u),
    U128(0x000000000000021eu, 0x19e0c9bab2400000u), U128(0x000000000000152du, 0x02c7e14af6800000u),
    U128(0x000000000000d3c2u, 0x1bcecceda1000000u), U128(0x0000000000084595u, 0x161401484a000000u),
    U128(0x000000000052b7d2u, 0xdcc80cd2e4000000u), U128(0x00000000033b2e3cu, 0x9fd0803ce8000000u),
    U128(0x00000000204fce5eu, 0x3e25026110000000u), U128(0x00000001431e0faeu, 0x6d7217caa0000000u),
    U128(0x0000000c9f2c9cd0u, 0x4674edea40000000u), U128(0x0000007e37be2022u, 0xc0914b2680000000u),
    U128(0x000004ee2d6d415bu, 0x85acef8100000000u), U128(0x0000314dc6448d93u, 0x38c15b0a00000000u),
    U128(0x0001ed09bead87c0u, 0x378d8e6400000000u), U128(0x0013426172c74d82u, 0x2b878fe800000000u),
    U128(0x00c097ce7bc90715u, 0xb34b9f1000000000u), U128(0x0785ee10d5da46d9u, 0x00f436a000000000u),
    U128(0x4b3b4ca85a86c47au, 0x098a224000000000u),
};

/* ---------------------------------------------------------------------------------------------
 * Small integer helpers
 */

static u128 uabs128(i128 v)
{
    return v < 0 ? (u128)0 - (u128)v : (u128)v;
}

/* Decimal digits of v (1 for 0); 39 for anything >= 10^38. */
static int ndigits(u128 v)
{
    int k = 1;
    while (k < 39 && v >= P10[k])
        k++;
    return k;
}

/* Remove trailing decimal zeros of a non-zero v, adding their count to *pw. */
static u128 strip10(u128 v, int64_t *pw)
{
    if (v == 0)
        return 0;
    while (v % 10 == 0) {
        v /= 10;
        (*pw)++;
    }
    return v;
}

static bool fits_i64(i128 v)
{
    return v >= INT64_MIN && v <= INT64_MAX;
}

/* Go's int32(x) for an int64 x: two's complement truncation. */
static int32_t wrap32(int64_t v)
{
    uint32_t u = (uint32_t)(uint64_t)v;
    if (u <= (uint32_t)INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - 2147483648u) - INT32_MAX - 1;
}

/*
 * Canonical (m, e) of (neg ? -1 : 1) * mag * 10^pw, where mag < 10^38, pw >= -9 or mag a
 * multiple of 10^(-9-pw). False when the exponent leaves the supported range.
 */
static bool make_value(bool neg, u128 mag, int64_t pw, i128 *m, int32_t *e)
{
    if (mag == 0) {
        *m = 0;
        *e = -9;
        return true;
    }
    while (pw < -9) { /* only reached for exact multiples of 1n */
        mag /= 10;
        pw++;
    }
    int64_t room = 38 - ndigits(mag);
    int64_t k = pw + 9 < room ? pw + 9 : room;
    mag *= P10[k];
    pw -= k;
    if (pw > EXP_LIMIT)
        return false;
    *m = neg ? -(i128)mag : (i128)mag;
    *e = (int32_t)pw;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * 192-bit unsigned scratch integers (little-endian 64-bit limbs)
 */

typedef struct u192 {
    uint64_t w[3];
} u192;

static u192 u192_from(u128 v)
{
    u192 r = {{(uint64_t)v, (uint64_t)(v >> 64), 0}};
    return r;
}

static bool u192_is_zero(const u192 *a)
{
    return (a->w[0] | a->w[1] | a->w[2]) == 0;
}

static int u192_cmp(const u192 *a, const u192 *b)
{
    for (int i = 2; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

/* a *= k; the caller guarantees no overflow. */
static void u192_mul_small(u192 *a, uint64_t k)
{
    u128 carry = 0;
    for (int i = 0; i < 3; i++) {
        u128 t = (u128)a->w[i] * k + carry;
        a->w[i] = (uint64_t)t;
        carry = t >> 64;
    }
}

/* a /= k, returning the remainder. */
static uint64_t u192_div_small(u192 *a, uint64_t k)
{
    u128 rem = 0;
    for (int i = 2; i >= 0; i--) {
        u128 cur = (rem << 64) | a->w[i];
        a->w[i] = (uint64_t)(cur / k);
        rem = cur % k;
    }
    return (uint64_t)rem;
}

static void u192_add(u192 *a, const u192 *b)
{
    u128 carry = 0;
    for (int i = 0; i < 3; i++) {
        u128 t = (u128)a->w[i] + b->w[i] + carry;
        a->w[i] = (uint64_t)t;
        carry = t >> 64;
    }
}

/* a -= b, with a >= b. */
static void u192_sub(u192 *a, const u192 *b)
{
    uint64_t borrow = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t x = a->w[i], y = b->w[i];
        uint64_t d = x - y - borrow;
        borrow = (x < y) || (x == y && borrow) ? 1 : 0;
        a->w[i] = d;
    }
}

/* Decimal text of a (no sign) into out; returns its length (<= 58). */
static size_t u192_to_dec(u192 a, char *out)
{
    char tmp[64];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + u192_div_small(&a, 10));
    } while (!u192_is_zero(&a));
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

static size_t u128_to_dec(u128 v, char *out)
{
    return u192_to_dec(u192_from(v), out);
}

/* ---------------------------------------------------------------------------------------------
 * Exact sum of two canonical values
 */

/* (ma, ea) + (mb, eb) into canonical (m, e); false when the sum is not representable. */
static bool value_sum(i128 ma, int32_t ea, i128 mb, int32_t eb, i128 *m, int32_t *e)
{
    if (mb == 0) {
        *m = ma;
        *e = ea;
        return true;
    }
    if (ma == 0) {
        *m = mb;
        *e = eb;
        return true;
    }
    if (ea == eb) {
        i128 s;
        if (!__builtin_add_overflow(ma, mb, &s) && uabs128(s) < P10[38])
            return make_value(s < 0, uabs128(s), ea, m, e);
    }
    /* General case: align the tight (zero-stripped) significands in 192 bits. */
    int64_t xa = ea, xb = eb;
    u128 ua = strip10(uabs128(ma), &xa), ub = strip10(uabs128(mb), &xb);
    bool na = ma < 0, nb = mb < 0;
    if (xa < xb) {
        u128 tu = ua; ua = ub; ub = tu;
        int64_t tx = xa; xa = xb; xb = tx;
        bool tn = na; na = nb; nb = tn;
    }
    int64_t d = xa - xb;
    /* ub is not a multiple of 10, so the sum's lowest non-zero digit is at 10^xb; with
     * ua * 10^d >= 10^40 and ub < 10^38 it would have more than 38 significant digits. */
    if (ndigits(ua) + d > 40)
        return false;
    u192 A = u192_from(ua), B = u192_from(ub);
    for (int64_t i = 0; i < d; i++)
        u192_mul_small(&A, 10);
    bool neg;
    if (na == nb) {
        u192_add(&A, &B);
        neg = na;
    } else if (u192_cmp(&A, &B) >= 0) {
        u192_sub(&A, &B);
        neg = na;
    } else {
        u192_sub(&B, &A);
        A = B;
        neg = nb;
    }
    if (u192_is_zero(&A)) {
        *m = 0;
        *e = -9;
        return true;
    }
    int64_t x = xb;
    for (;;) {
        u192 q = A;
        if (u192_div_small(&q, 10) != 0)
            break;
        A = q;
        x++;
    }
    u192 lim = u192_from(P10[38]);
    if (u192_cmp(&A, &lim) >= 0)
        return false;
    return make_value(neg, ((u128)A.w[1] << 64) | A.w[0], x, m, e);
}

/* ---------------------------------------------------------------------------------------------
 * Parsing
 */

typedef struct qscan {
    bool neg;
    bool has_digit;      /* the numeric text holds a digit (inf.Dec.SetString would succeed) */
    size_t num_at, num_len; /* integer digits after the stripped leading zeros */
    size_t den_at, den_len; /* fraction digits */
    size_t suf_at, suf_len;
} qscan;

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_suffix_letter(char c)
{
    switch (c) {
    case 'e': case 'E': case 'i': case 'n': case 'u': case 'm':
    case 'k': case 'K': case 'M': case 'G': case 'T': case 'P':
        return true;
    default:
        return false;
    }
}

/* parseQuantityString. False means ErrFormatWrong. */
static bool scan_quantity(const char *s, size_t n, qscan *sc)
{
    size_t pos = 0;
    memset(sc, 0, sizeof *sc);
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        sc->neg = s[0] == '-';
        pos = 1;
    }
    size_t start = pos;
    while (pos < n && s[pos] == '0')
        pos++;
    if (pos >= n) { /* only a sign and zeros: Go returns num = value = "0" */
        sc->has_digit = true;
        return true;
    }
    sc->has_digit = pos > start;
    sc->num_at = pos;
    while (pos < n && is_digit(s[pos]))
        pos++;
    sc->num_len = pos - sc->num_at;
    sc->has_digit |= sc->num_len > 0;
    if (pos >= n)
        return true;
    if (s[pos] == '.') {
        pos++;
        sc->den_at = pos;
        while (pos < n && is_digit(s[pos]))
            pos++;
        sc->den_len = pos - sc->den_at;
        sc->has_digit |= sc->den_len > 0;
        if (pos >= n)
            return true;
    }
    sc->suf_at = pos;
    while (pos < n && is_suffix_letter(s[pos]))
        pos++;
    if (pos < n && (s[pos] == '-' || s[pos] == '+'))
        pos++;
    while (pos < n && is_digit(s[pos]))
        pos++;
    if (pos < n)
        return false;
    sc->suf_len = n - sc->suf_at;
    return true;
}

/* strconv.ParseInt(p[0..n), 10, 64). */
static bool parse_go_int64(const char *p, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (p[i] == '+' || p[i] == '-')) {
        neg = p[i] == '-';
        i++;
    }
    if (i == n)
        return false;
    uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
    for (; i < n; i++) {
        if (!is_digit(p[i]))
            return false;
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (lim - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = !neg ? (int64_t)v : v == 0 ? 0 : -(int64_t)(v - 1) - 1;
    return true;
}

/* quantitySuffixer.interpret. */
static bool interpret_suffix(const char *p, size_t n, int *base, int32_t *pw, dc_qty_fmt *fmt)
{
    *base = 10;
    *fmt = DC_QTY_DECIMAL_SI;
    if (n == 0) {
        *pw = 0;
        return true;
    }
    if (n == 1) {
        switch (p[0]) {
        case 'n': *pw = -9; return true;
        case 'u': *pw = -6; return true;
        case 'm': *pw = -3; return true;
        case 'k': *pw = 3; return true;
        case 'M': *pw = 6; return true;
        case 'G': *pw = 9; return true;
        case 'T': *pw = 12; return true;
        case 'P': *pw = 15; return true;
        case 'E': *pw = 18; return true;
        default: return false;
        }
    }
    if (n == 2 && p[1] == 'i') {
        static const char bin[] = "KMGTPE";
        const char *hit = memchr(bin, p[0], 6);
        if (hit) {
            *base = 2;
            *pw = (int32_t)(10 * (hit - bin + 1));
            *fmt = DC_QTY_BINARY_SI;
            return true;
        }
    }
    if (p[0] == 'e' || p[0] == 'E') {
        int64_t v;
        if (!parse_go_int64(p + 1, n - 1, &v))
            return false;
        *pw = wrap32(v);
        *fmt = DC_QTY_DECIMAL_EXPONENT;
        return true;
    }
    return false;
}

/* i-th digit of the numeric text num ++ den. */
static unsigned digit_at(const char *s, const qscan *sc, size_t i)
{
    char c = i < sc->num_len ? s[sc->num_at + i] : s[sc->den_at + (i - sc->num_len)];
    return (unsigned)(c - '0');
}

/*
 * |V| = int(num ++ den) * 10^x, rounded up to a multiple of 1n (inf.Round(…, 9, RoundUp)), as a
 * canonical value. Works on the text in place: the floor part is the digits at positions >= -9,
 * the sticky bit any non-zero digit below; adding the sticky bit carries through a trailing run
 * of 9s.
 */
static bool decimal_value(const char *s, const qscan *sc, int64_t x, i128 *m, int32_t *e)
{
    int64_t len = (int64_t)(sc->num_len + sc->den_len);
    /* digit i has position x + len - 1 - i; keep positions >= -9 */
    int64_t last = x + len + 8;
    if (last > len - 1)
        last = len - 1;
    bool sticky = false;
    for (int64_t i = last + 1 > 0 ? last + 1 : 0; i < len && !sticky; i++)
        sticky = digit_at(s, sc, (size_t)i) != 0;
    int64_t f = -1;
    for (int64_t i = 0; i <= last; i++)
        if (digit_at(s, sc, (size_t)i) != 0) {
            f = i;
            break;
        }
    u128 mag = 0;
    int64_t pw = -9;
    if (f < 0) {
        mag = sticky ? 1 : 0;
    } else {
        int64_t end; /* last digit of the significand */
        if (!sticky) {
            end = last;
            while (digit_at(s, sc, (size_t)end) == 0)
                end--;
        } else {
            end = last;
            while (end >= f && digit_at(s, sc, (size_t)end) == 9)
                end--;
        }
        if (end < f) { /* 99…9 + 1 */
            mag = 1;
            pw = x + len - f;
        } else {
            if (end - f + 1 > 38)
                return false;
            for (int64_t i = f; i <= end; i++)
                mag = mag * 10 + digit_at(s, sc, (size_t)i);
            mag += sticky;
            pw = x + len - 1 - end;
        }
    }
    return make_value(sc->neg, mag, pw, m, e);
}

/* (2^63-1) * 10^9: the BinarySI cap in nano units. */
#define CAP_NANO ((u128)INT64_MAX * 1000000000u)

/*
 * Slow BinarySI path: |V| = int(num ++ den) * 2^k / 10^den_len, rounded up to 1n, capped at
 * 2^63-1. Sets *nano to ceil(|V| * 10^9) and *capped.
 */
static void binary_value(const char *s, const qscan *sc, int k, u128 *nano, bool *capped)
{
    size_t len = sc->num_len + sc->den_len;
    int64_t sh = (int64_t)sc->den_len - 9; /* N = int(D) * 2^k / 10^sh */
    size_t hlen = sh > 0 ? len - (size_t)sh : len; /* = num_len + 9 when sh > 0 */
    const u128 cap_k = CAP_NANO >> k;
    u128 h = 0;
    *capped = false;
    for (size_t i = 0; i < hlen; i++) {
        h = h * 10 + digit_at(s, sc, i);
        if (h > CAP_NANO) {
            *capped = true;
            return;
        }
    }
    if (sh < 0) {
        h *= P10[-sh];
        if (h > CAP_NANO) {
            *capped = true;
            return;
        }
    }
    if (h > cap_k) {
        *capped = true;
        return;
    }
    u128 n = h << k;
    if (sh > 0) {
        /* floor(R * 2^k / 10^sh) and whether it is exact, R being the last sh digits: long
         * multiplication from the least significant digit; the carry stays below 2^k. */
        uint64_t carry = 0;
        bool rest = false;
        for (size_t i = len; i-- > hlen;) {
            u128 t = (u128)digit_at(s, sc, i) << k;
            t += carry;
            rest |= t % 10 != 0;
            carry = (uint64_t)(t / 10);
        }
        n += carry;
        n += rest;
    }
    if (n > CAP_NANO) {
        *capped = true;
        return;
    }
    *nano = n;
}

const char *dc_qty_parse(const char *s, size_t n, dc_qty *out)
{
    qscan sc;
    int base;
    int32_t pw;
    dc_qty_fmt fmt;
    dc_qty q;

    if (n == 0)
        return dc_qty_err_format;
    if (n > (size_t)EXP_LIMIT)
        return dc_qty_err_range;
    if (!scan_quantity(s, n, &sc))
        return dc_qty_err_format;
    if (!interpret_suffix(s + sc.suf_at, sc.suf_len, &base, &pw, &fmt))
        return dc_qty_err_suffix;

    int64_t num_digits = sc.num_len ? (int64_t)sc.num_len : 1; /* Go's num is "0" when empty */
    q.fmt = (uint8_t)fmt;
    q.boxed = 0;
    if (base == 10) {
        int64_t scale64 = (int64_t)pw - (int64_t)sc.den_len;
        int32_t scale32 = wrap32(scale64);
        if (num_digits + (int64_t)sc.den_len <= 18 && scale32 >= -9) {
            /* int64Amount{num ++ den, scale} */
            if (scale64 != scale32 || scale64 > EXP_LIMIT)
                return dc_qty_err_range;
            uint64_t v = 0;
            for (size_t i = 0; i < sc.num_len + sc.den_len; i++)
                v = v * 10 + digit_at(s, &sc, i);
            if (!make_value(sc.neg, v, scale64, &q.m, &q.e))
                return dc_qty_err_range;
            q.kscale = scale32;
            q.dec = 0;
        } else {
            if (!sc.has_digit)
                return dc_qty_err_numeric;
            /* inf.Dec scale len(den) - exponent must not overflow Kubernetes' int32 */
            if (pw == INT32_MIN || scale64 < -EXP_LIMIT)
                return dc_qty_err_range;
            if (!decimal_value(s, &sc, scale64, &q.m, &q.e))
                return dc_qty_err_range;
            if (q.m == 0 && scale64 > EXP_LIMIT)
                return dc_qty_err_range;
            q.kscale = q.m != 0 ? -9 : (int32_t)scale64;
            q.dec = 1;
        }
    } else {
        int k = pw;
        if (sc.den_len == 0 && num_digits <= 14 - 3 * k / 10) {
            /* int64Amount{num << k, 0} */
            uint64_t v = 0;
            for (size_t i = 0; i < sc.num_len; i++)
                v = v * 10 + digit_at(s, &sc, i);
            make_value(sc.neg, (u128)v << k, 0, &q.m, &q.e);
            q.kscale = 0;
            q.dec = 0;
        } else {
            if (!sc.has_digit)
                return dc_qty_err_numeric;
            if ((int64_t)sc.den_len > EXP_LIMIT)
                return dc_qty_err_range;
            u128 nano = 0;
            bool capped;
            binary_value(s, &sc, k, &nano, &capped);
            if (capped)
                nano = CAP_NANO;
            make_value(sc.neg, nano, -9, &q.m, &q.e);
            q.kscale = capped ? 0 : nano != 0 ? -9 : -(int32_t)sc.den_len;
            q.dec = 1;
            if (nano != 0 && nano < 1000000000u)
                q.fmt = DC_QTY_DECIMAL_SI;
        }
    }
    *out = q;
    return NULL;
}

bool dc_qty_is_valid(const char *s, size_t n)
{
    dc_qty q;
    return dc_qty_parse(s, n, &q) == NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Comparison, arithmetic, conversions
 */

bool dc_qty_cel_eq(const dc_qty *lhs, const dc_qty *rhs)
{
    return !rhs->boxed && dc_qty_eq(lhs, rhs);
}

int dc_qty_compare_to(dc_qty *recv, const dc_qty *arg)
{
    int c = dc_qty_cmp(recv, arg);
    recv->dec |= arg->dec;
    return c;
}

/* Kubernetes' int64Amount value V / 10^kscale of an int-backed quantity. */
static int64_t int_value(const dc_qty *q)
{
    if (q->m == 0)
        return 0;
    return (int64_t)(q->m / (i128)P10[(int64_t)q->kscale - q->e]);
}

/* int64Amount.Add of two non-zero amounts succeeds (no int64 overflow after alignment). */
static bool int_add_fits(int64_t av, int32_t ka, int64_t bv, int32_t kb)
{
    if (ka < kb) {
        int64_t tv = av; av = bv; bv = tv;
        int32_t tk = ka; ka = kb; kb = tk;
    }
    int64_t d = (int64_t)ka - kb; /* av is scaled up by 10^d */
    if (d > 18)
        return false;
    i128 c = (i128)av * (i128)P10[d];
    return fits_i64(c) && fits_i64(c + bv);
}

static const char *add_sub(const dc_qty *a, const dc_qty *b, bool sub, dc_qty *out)
{
    dc_qty r;
    if (!value_sum(a->m, a->e, sub ? -b->m : b->m, b->e, &r.m, &r.e))
        return dc_qty_err_range;
    r.fmt = a->m == 0 ? b->fmt : a->fmt; /* "if q.IsZero() { q.Format = y.Format }" */
    r.boxed = 1;
    int32_t kmin = a->kscale < b->kscale ? a->kscale : b->kscale;
    r.dec = 1; /* inf.Dec fallback unless the int64 path below succeeds */
    r.kscale = kmin;
    if (!a->dec && !b->dec) {
        int64_t av = int_value(a), bv = int_value(b);
        if (sub && bv == INT64_MIN) {
            /* -mostNegative: Sub goes to inf.Dec; 0 - y is y negated at y's scale */
            if (av == 0)
                r.kscale = b->kscale;
        } else {
            if (sub)
                bv = -bv;
            if (bv == 0) {
                r.dec = 0;
                r.kscale = a->kscale;
            } else if (av == 0) {
                r.dec = 0;
                r.kscale = b->kscale;
            } else if (int_add_fits(av, a->kscale, bv, b->kscale)) {
                r.dec = 0;
            }
        }
    }
    *out = r;
    return NULL;
}

const char *dc_qty_add(const dc_qty *a, const dc_qty *b, dc_qty *out)
{
    return add_sub(a, b, false, out);
}

const char *dc_qty_sub(const dc_qty *a, const dc_qty *b, dc_qty *out)
{
    return add_sub(a, b, true, out);
}

dc_qty dc_qty_from_int(int64_t v)
{
    dc_qty q;
    make_value(v < 0, uabs128(v), 0, &q.m, &q.e);
    q.kscale = 0;
    q.fmt = DC_QTY_DECIMAL_EXPONENT;
    q.dec = 0;
    q.boxed = 0;
    return q;
}

const char *dc_qty_as_int64(const dc_qty *q, int64_t *out)
{
    if (q->dec || q->kscale < 0)
        return dc_qty_err_integer;
    int64_t v = int_value(q);
    if (v != 0 && q->kscale > 0) { /* positiveScaleInt64 */
        if (q->kscale > 18)
            return dc_qty_err_integer;
        i128 c = (i128)v * (i128)P10[q->kscale];
        if (!fits_i64(c))
            return dc_qty_err_integer;
        v = (int64_t)c;
    }
    *out = v;
    return NULL;
}

bool dc_qty_is_integer(const dc_qty *q)
{
    int64_t v;
    return dc_qty_as_int64(q, &v) == NULL;
}

/* Go's math.Pow10. */
static double go_pow10(int64_t n)
{
    static const double tab[32] = {
        1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10, 1e11, 1e12, 1e13, 1e14,
        1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29,
        1e30, 1e31,
    };
    static const double pos32[10] = {
        1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    };
    static const double neg32[11] = {
        1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    };
    if (n >= 0 && n <= 308)
        return pos32[n / 32] * tab[n % 32];
    if (n >= -323 && n <= 0)
        return neg32[-n / 32] / tab[-n % 32];
    return n > 0 ? HUGE_VAL : 0.0;
}

double dc_qty_approx_float(const dc_qty *q)
{
    /* float64(unscaled) (correctly rounded, like Go's int64 and big.Float conversions) times
     * math.Pow10(scale), unless the scale is 0. */
    double base = 0.0;
    if (q->m != 0) {
        int64_t x = q->e;
        u128 mag = strip10(uabs128(q->m), &x);
        int64_t zeros = x - q->kscale; /* >= 0: V / 10^kscale is an integer */
        if (zeros < 0)
            zeros = 0;
        if (ndigits(mag) + zeros > 400) {
            base = HUGE_VAL;
        } else {
            char buf[448];
            size_t n = u128_to_dec(mag, buf);
            memset(buf + n, '0', (size_t)zeros);
            buf[n + (size_t)zeros] = '\0';
            base = strtod(buf, NULL);
        }
        if (q->m < 0)
            base = -base;
    }
    if (q->kscale == 0)
        return base;
    return base * go_pow10(q->kscale);
}

/* ---------------------------------------------------------------------------------------------
 * Canonical text
 */

/* Append "e<power of ten>". */
static size_t put_exp(char *p, int64_t pw)
{
    char tmp[24];
    size_t n = 0;
    uint64_t u = pw < 0 ? (uint64_t)0 - (uint64_t)pw : (uint64_t)pw;
    p[0] = 'e';
    size_t k = 1;
    if (pw < 0)
        p[k++] = '-';
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        p[k++] = tmp[--n];
    return k;
}

/* DecimalSI / DecimalExponent: AsCanonicalBytes (exponent a multiple of 3) plus the suffix. */
static size_t format_decimal(const dc_qty *q, dc_qty_fmt fmt, char *p)
{
    static const char *const si[10] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    size_t k = 0;
    int64_t x = q->e;
    u128 mag = strip10(uabs128(q->m), &x);
    int64_t r = ((x % 3) + 3) % 3;
    int64_t pw = x - r;
    if (q->m < 0)
        p[k++] = '-';
    k += u128_to_dec(mag, p + k);
    while (r-- > 0)
        p[k++] = '0';
    if (fmt == DC_QTY_DECIMAL_SI && pw >= -9 && pw <= 18) {
        const char *suf = si[(pw + 9) / 3];
        size_t sl = strlen(suf);
        memcpy(p + k, suf, sl);
        k += sl;
    } else if (pw != 0) {
        /* DecimalExponent, or DecimalSI beyond "E" (Kubernetes falls back to "e<exp>") */
        k += put_exp(p + k, pw);
    }
    return k;
}

/* BinarySI for an integer value: AsCanonicalBase1024Bytes plus the suffix. False when the
 * integer does not fit 192 bits (then dracel prints it as DecimalSI). */
static bool format_binary(const dc_qty *q, char *p, size_t *len)
{
    static const char *const bin[7] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    u128 mag = uabs128(q->m);
    u192 w;
    size_t k = 0;
    if (q->e < 0) {
        w = u192_from(mag / P10[-q->e]);
    } else {
        if (ndigits(mag) + (int64_t)q->e > 57)
            return false;
        w = u192_from(mag);
        for (int32_t i = 0; i < q->e; i++)
            u192_mul_small(&w, 10);
    }
    if (q->m < 0)
        p[k++] = '-';
    if (!q->dec && q->kscale == 0 && q->e == -9 && q->m == (i128)INT64_MIN * 1000000000) {
        /* int64 path of removeInt64Factors cannot negate mostNegative: no factors removed */
        k += u192_to_dec(w, p + k);
        *len = k;
        return true;
    }
    int times = 0;
    while ((w.w[0] & 1023u) == 0) {
        u192_div_small(&w, 1024);
        times++;
    }
    k += u192_to_dec(w, p + k);
    if (times <= 6) { /* beyond Ei Kubernetes finds no suffix and prints none */
        size_t sl = strlen(bin[times]);
        memcpy(p + k, bin[times], sl);
        k += sl;
    }
    *len = k;
    return true;
}

static bool is_integral(const dc_qty *q)
{
    return q->e >= 0 || uabs128(q->m) % P10[-q->e] == 0;
}

size_t dc_qty_format(const dc_qty *q, char *buf, size_t cap)
{
    char tmp[DC_QTY_FMT_MAX];
    size_t n = 0;
    if (q->m == 0) {
        tmp[0] = '0';
        n = 1;
    } else {
        dc_qty_fmt fmt = (dc_qty_fmt)q->fmt;
        bool done = false;
        if (fmt == DC_QTY_BINARY_SI) {
            const u128 k1024 = (u128)1024 * 1000000000u;
            /* -1024 < V < 1024, or a fraction: shown as DecimalSI */
            if ((q->e == -9 && uabs128(q->m) < k1024) || !is_integral(q))
                fmt = DC_QTY_DECIMAL_SI;
            else
                done = format_binary(q, tmp, &n);
            if (!done)
                fmt = DC_QTY_DECIMAL_SI;
        }
        if (!done)
            n = format_decimal(q, fmt, tmp);
    }
    if (cap > 0) {
        size_t c = n < cap - 1 ? n : cap - 1;
        memcpy(buf, tmp, c);
        buf[c] = '\0';
    }
    return n;
}
