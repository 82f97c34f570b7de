/*
 * lib_conv.c: the standard type conversions int(), uint(), double(), string(), bool(), bytes(),
 * dyn() and type(), with cel-go's results and error texts (google/cel-go common/types
 * int.go, uint.go, double.go, string.go, bytes.go, bool.go, overflow.go; common/stdlib).
 *
 * Strings are parsed as Go's strconv parses them, strictly: no surrounding whitespace, int()
 * and uint() in base 10 only (uint() takes no sign), double() with Go's float syntax (decimal
 * or hexadecimal with a 'p' exponent, '_' digit separators, "inf"/"infinity"/"nan" in any case,
 * a finite literal that overflows is an error), bool() with strconv.ParseBool's spellings.
 * A failed parse is "type conversion error from 'string' to '<type>'". Doubles print as Go's
 * %g (shortest round-trip digits, exponent from 1e+21 and below 1e-4, "+Inf", "-0").
 *
 * Kinds with no declared overload (int(true), string([1]), bool(1), ...) give "no such
 * overload", as cel-go's dispatcher does for a dyn argument.
 */
#include "lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Shared helpers (declared in lib.h). */

uint64_t dc_lib_scan_cost(uint64_t n)
{
    return (uint64_t)ceil((double)n * 0.1);
}

dc_val dc_lib_cost_error(dc_ectx *c)
{
    return dc_error(c, "operation cancelled: actual cost limit exceeded");
}

dc_val dc_lib_buf_string(dc_ectx *c, dc_buf *b)
{
    if (b->oom) {
        dc_buf_free(b);
        return dc_oom(c);
    }
    dc_str *s = dc_str_new(c, b->data, b->len);
    dc_buf_free(b);
    if (!s)
        return dc_oom(c);
    return dc_strval(s);
}

/* ---- Go's strconv parsers. */

static int lower(int ch)
{
    return ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch;
}

static bool is_digit(int ch)
{
    return ch >= '0' && ch <= '9';
}

/* strconv.ParseInt(s, 10, 64) == nil error. */
static bool parse_int(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == n)
        return false;
    uint64_t v = 0;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (!is_digit((unsigned char)s[i]))
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* strconv.ParseUint(s, 10, 64) == nil error: digits only, no sign. */
static bool parse_uint(const char *s, size_t n, uint64_t *out)
{
    if (n == 0)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit((unsigned char)s[i]))
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* strconv.ParseBool. */
static bool parse_bool(const char *s, size_t n, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < DC_COUNTOF(yes); i++) {
        if (strlen(yes[i]) == n && !memcmp(yes[i], s, n)) {
            *out = true;
            return true;
        }
        if (strlen(no[i]) == n && !memcmp(no[i], s, n)) {
            *out = false;
            return true;
        }
    }
    return false;
}

/* strconv's underscoreOK: '_' only between digits (a base prefix counts as a digit). */
static bool underscore_ok(const char *s, size_t n)
{
    char saw = '^';
    size_t i = 0;
    if (n >= 1 && (s[0] == '-' || s[0] == '+')) {
        s++;
        n--;
    }
    bool hex = false;
    if (n >= 2 && s[0] == '0' && (lower(s[1]) == 'b' || lower(s[1]) == 'o' || lower(s[1]) == 'x')) {
        i = 2;
        saw = '0';
        hex = lower(s[1]) == 'x';
    }
    for (; i < n; i++) {
        int ch = (unsigned char)s[i];
        if (is_digit(ch) || (hex && lower(ch) >= 'a' && lower(ch) <= 'f')) {
            saw = '0';
            continue;
        }
        if (ch == '_') {
            if (saw != '0')
                return false;
            saw = '_';
            continue;
        }
        if (saw == '_')
            return false;
        saw = '!';
    }
    return saw != '_';
}

/* Length of the common prefix of s and the lower-case word w, ignoring ASCII case. */
static size_t prefix_nocase(const char *s, size_t n, const char *w)
{
    size_t i = 0;
    while (i < n && w[i] && lower((unsigned char)s[i]) == w[i])
        i++;
    return i;
}

/* strconv's special(): "inf", "infinity" (signed), "nan" (unsigned), in any case. */
static bool parse_special(const char *s, size_t n, double *out)
{
    if (n == 0)
        return false;
    size_t nsign = 0;
    double sign = 1;
    if (s[0] == '+' || s[0] == '-') {
        sign = s[0] == '-' ? -1 : 1;
        nsign = 1;
    }
    if (nsign || lower((unsigned char)s[0]) == 'i') {
        size_t k = prefix_nocase(s + nsign, n - nsign, "infinity");
        if (k > 3 && k < 8)
            k = 3;
        if ((k == 3 || k == 8) && nsign + k == n) {
            *out = sign * INFINITY;
            return true;
        }
        return false;
    }
    if (lower((unsigned char)s[0]) == 'n' && n == 3 && prefix_nocase(s, n, "nan") == 3) {
        *out = NAN;
        return true;
    }
    return false;
}

bool dc_lib_parse_double(dc_ectx *c, const char *s, size_t n, double *out)
{
    if (parse_special(s, n, out))
        return true;
    /* readFloat's syntax. */
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    bool hex = false;
    if (i + 2 < n && s[i] == '0' && lower((unsigned char)s[i + 1]) == 'x') {
        hex = true;
        i += 2;
    }
    bool underscores = false, sawdot = false, sawdigits = false;
    for (; i < n; i++) {
        int ch = (unsigned char)s[i];
        if (ch == '_') {
            underscores = true;
        } else if (ch == '.') {
            if (sawdot)
                break;
            sawdot = true;
        } else if (is_digit(ch) || (hex && lower(ch) >= 'a' && lower(ch) <= 'f')) {
            sawdigits = true;
        } else {
            break;
        }
    }
    if (!sawdigits)
        return false;
    int exp_char = hex ? 'p' : 'e';
    if (i < n && lower((unsigned char)s[i]) == exp_char) {
        i++;
        if (i >= n)
            return false;
        if (s[i] == '+' || s[i] == '-')
            i++;
        if (i >= n || !is_digit((unsigned char)s[i]))
            return false;
        for (; i < n && (is_digit((unsigned char)s[i]) || s[i] == '_'); i++)
            if (s[i] == '_')
                underscores = true;
    } else if (hex) {
        return false; /* a hexadecimal mantissa requires a 'p' exponent */
    }
    if (i != n)
        return false;
    if (underscores && !underscore_ok(s, n))
        return false;
    /* The syntax is Go's; the value is the correctly rounded one, as strtod computes it. */
    char small[128];
    char *buf = n < sizeof small ? small : c ? dc_ealloc(c, n + 1) : NULL;
    if (!buf)
        return false;
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (s[j] != '_')
            buf[k++] = s[j];
    buf[k] = '\0';
    double v = strtod(buf, NULL);
    if (isinf(v))
        return false; /* overflow: ErrRange */
    *out = v;
    return true;
}

/* ---- Go's %g of a float64. */

/* Shortest decimal digits of d (d finite, > 0) that read back as d, the nearest such when
 * there is a choice, as Go's strconv computes them: digits[] without a point, *dp the position
 * of the decimal point (value = 0.digits * 10^dp). Returns the number of digits. */
static int shortest_digits(double d, char digits[24], int *dp)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
        char *epos = strchr(buf, 'e');
        long e10 = strtol(epos + 1, NULL, 10);
        char mant[24];
        int m = 0;
        for (char *p = buf; p < epos; p++)
            if (*p != '.')
                mant[m++] = *p;
        mant[m] = '\0';
        double near = strtod(buf, NULL);
        unsigned long long mv = strtoull(mant, NULL, 10);
        if (near != d) {
            /* The nearest prec-digit decimal does not read back; its neighbour on the other
             * side of d may (the rounding interval is asymmetric at powers of two). */
            unsigned long long other = near > d ? mv - 1 : mv + 1;
            char alt[48];
            snprintf(alt, sizeof alt, "%llue%ld", other, e10 - (prec - 1));
            if (other == 0 || strtod(alt, NULL) != d)
                continue;
            mv = other;
        }
        char od[24];
        int on = snprintf(od, sizeof od, "%llu", mv);
        int nd = on;
        while (nd > 1 && od[nd - 1] == '0')
            nd--;
        memcpy(digits, od, (size_t)nd);
        *dp = (int)(e10 - (prec - 1)) + on;
        return nd;
    }
    /* Not reached: 17 significant digits always read back. */
    snprintf(buf, sizeof buf, "%.16e", d);
    int nd = 0;
    for (char *p = buf; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    *dp = (int)(strtol(strchr(buf, 'e') + 1, NULL, 10) + 1);
    return nd;
}

size_t dc_lib_format_double(double d, char out[32])
{
    if (isnan(d))
        return (size_t)snprintf(out, 32, "NaN");
    if (isinf(d))
        return (size_t)snprintf(out, 32, d > 0 ? "+Inf" : "-Inf");
    size_t k = 0;
    if (signbit(d)) {
        out[k++] = '-';
        d = -d;
    }
    if (d == 0) {
        out[k++] = '0';
        out[k] = '\0';
        return k;
    }
    char digits[24];
    int dp;
    int nd = shortest_digits(d, digits, &dp);
    int exp = dp - 1;
    if (exp < -4 || exp >= 6) { /* Go's %g: eprec is 6 for the shortest form */
        out[k++] = digits[0];
        if (nd > 1) {
            out[k++] = '.';
            for (int i = 1; i < nd; i++)
                out[k++] = digits[i];
        }
        out[k++] = 'e';
        out[k++] = exp < 0 ? '-' : '+';
        int ae = exp < 0 ? -exp : exp;
        if (ae < 10)
            out[k++] = '0';
        k += (size_t)snprintf(out + k, 32 - k, "%d", ae);
        return k;
    }
    if (dp <= 0) {
        out[k++] = '0';
        out[k++] = '.';
        for (int i = 0; i < -dp; i++)
            out[k++] = '0';
        for (int i = 0; i < nd; i++)
            out[k++] = digits[i];
    } else if (dp >= nd) {
        for (int i = 0; i < nd; i++)
            out[k++] = digits[i];
        for (int i = nd; i < dp; i++)
            out[k++] = '0';
    } else {
        for (int i = 0; i < dp; i++)
            out[k++] = digits[i];
        out[k++] = '.';
        for (int i = dp; i < nd; i++)
            out[k++] = digits[i];
    }
    out[k] = '\0';
    return k;
}

/* ---- The conversions. */

static dc_val conv_error(dc_ectx *c, const char *from, const char *to)
{
    return dc_error(c, "type conversion error from '%s' to '%s'", from, to);
}

static dc_val err_uint_overflow(dc_ectx *c)
{
    static const dc_err e = {"unsigned integer overflow", 0};
    return dc_error_static(c, &e);
}

static dc_val fn_int(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    switch (a[0].k) {
    case DC_K_INT:
        return a[0];
    case DC_K_UINT:
        if (a[0].u.u > (uint64_t)INT64_MAX)
            return dc_err_overflow(c);
        return dc_int((int64_t)a[0].u.u);
    case DC_K_DOUBLE: {
        double d = a[0].u.d;
        /* overflow.go doubleToInt64Checked: both ends are exclusive. */
        if (isnan(d) || d <= -9223372036854775808.0 || d >= 9223372036854775808.0)
            return dc_err_overflow(c);
        return dc_int((int64_t)d);
    }
    case DC_K_STRING: {
        int64_t v;
        if (!parse_int(a[0].u.s->data, a[0].u.s->len, &v))
            return conv_error(c, "string", "int");
        return dc_int(v);
    }
    default:
        return dc_err_no_overload(c);
    }
}

static dc_val fn_uint(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    switch (a[0].k) {
    case DC_K_UINT:
        return a[0];
    case DC_K_INT:
        if (a[0].u.i < 0)
            return err_uint_overflow(c);
        return dc_uint((uint64_t)a[0].u.i);
    case DC_K_DOUBLE: {
        double d = a[0].u.d;
        if (isnan(d) || d < 0 || d >= 18446744073709551616.0)
            return err_uint_overflow(c);
        return dc_uint((uint64_t)d);
    }
    case DC_K_STRING: {
        uint64_t v;
        if (!parse_uint(a[0].u.s->data, a[0].u.s->len, &v))
            return conv_error(c, "string", "uint");
        return dc_uint(v);
    }
    default:
        return dc_err_no_overload(c);
    }
}

static dc_val fn_double(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    switch (a[0].k) {
    case DC_K_DOUBLE:
        return a[0];
    case DC_K_INT:
        return dc_double((double)a[0].u.i);
    case DC_K_UINT:
        return dc_double((double)a[0].u.u);
    case DC_K_STRING: {
        double v;
        if (!dc_lib_parse_double(c, a[0].u.s->data, a[0].u.s->len, &v))
            return c->oom ? dc_oom(c) : conv_error(c, "string", "double");
        return dc_double(v);
    }
    default:
        return dc_err_no_overload(c);
    }
}

static dc_val make_string(dc_ectx *c, const char *p, size_t len)
{
    dc_str *s = dc_str_new(c, p, len);
    return s ? dc_strval(s) : dc_oom(c);
}

static bool utf8_valid(const dc_str *s)
{
    const unsigned char *p = (const unsigned char *)s->data;
    size_t i = 0;
    while (i < s->len) {
        uint32_t cp;
        int k = dc_utf8_decode(p + i, s->len - i, &cp);
        if (k == 0)
            return false;
        i += (size_t)k;
    }
    return true;
}

static dc_val fn_string(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    char buf[32];
    switch (a[0].k) {
    case DC_K_STRING:
        return a[0];
    case DC_K_BOOL:
        return make_string(c, a[0].u.b ? "true" : "false", a[0].u.b ? 4 : 5);
    case DC_K_INT:
        return make_string(c, buf, (size_t)snprintf(buf, sizeof buf, "%lld", (long long)a[0].u.i));
    case DC_K_UINT:
        return make_string(c, buf,
                           (size_t)snprintf(buf, sizeof buf, "%llu", (unsigned long long)a[0].u.u));
    case DC_K_DOUBLE:
        return make_string(c, buf, dc_lib_format_double(a[0].u.d, buf));
    case DC_K_BYTES:
        if (!dc_cost(c, dc_lib_scan_cost(a[0].u.s->len)))
            return dc_lib_cost_error(c);
        if (!utf8_valid(a[0].u.s))
            return dc_error(c, "invalid UTF-8 in bytes, cannot convert to string");
        return dc_strval(a[0].u.s);
    default:
        return dc_err_no_overload(c);
    }
}

static dc_val fn_bool(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    switch (a[0].k) {
    case DC_K_BOOL:
        return a[0];
    case DC_K_STRING: {
        bool b;
        if (!parse_bool(a[0].u.s->data, a[0].u.s->len, &b))
            return conv_error(c, "string", "bool");
        return dc_bool(b);
    }
    default:
        return dc_err_no_overload(c);
    }
}

static dc_val fn_bytes(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    switch (a[0].k) {
    case DC_K_BYTES:
        return a[0];
    case DC_K_STRING:
        if (!dc_cost(c, dc_lib_scan_cost(dc_utf8_count(a[0].u.s->data, a[0].u.s->len))))
            return dc_lib_cost_error(c);
        return dc_bytesval(a[0].u.s);
    default:
        return dc_err_no_overload(c);
    }
}

static dc_val fn_dyn(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)c;
    (void)n;
    return a[0];
}

static dc_val fn_type(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    switch (a[0].k) {
    case DC_K_NULL: return dc_typeval(DC_T_NULL);
    case DC_K_BOOL: return dc_typeval(DC_T_BOOL);
    case DC_K_INT: return dc_typeval(DC_T_INT);
    case DC_K_UINT: return dc_typeval(DC_T_UINT);
    case DC_K_DOUBLE: return dc_typeval(DC_T_DOUBLE);
    case DC_K_STRING: return dc_typeval(DC_T_STRING);
    case DC_K_BYTES: return dc_typeval(DC_T_BYTES);
    case DC_K_LIST: return dc_typeval(DC_T_LIST);
    case DC_K_MAP: return dc_typeval(DC_T_MAP);
    case DC_K_TYPE: return dc_typeval(DC_T_TYPE);
    case DC_K_OPTIONAL: return dc_typeval(DC_T_OPTIONAL);
    case DC_K_QUANTITY: return dc_typeval(DC_T_QUANTITY);
    case DC_K_SEMVER: return dc_typeval(DC_T_SEMVER);
    default: return dc_err_no_overload(c);
    }
}

const dc_builtin dc_lib_conv[] = {
    {"int", false, 1, 0, fn_int},
    {"uint", false, 1, 0, fn_uint},
    {"double", false, 1, 0, fn_double},
    {"string", false, 1, 0, fn_string},
    {"bool", false, 1, 0, fn_bool},
    {"bytes", false, 1, 0, fn_bytes},
    {"dyn", false, 1, 0, fn_dyn},
    {"type", false, 1, 0, fn_type},
};
const uint32_t dc_lib_conv_count = (uint32_t)DC_COUNTOF(dc_lib_conv);
