/*
 * semver.c: semantic versions as Kubernetes' CEL library kubernetes.Semver and DRA device version
 * attributes see them (see semver.h for the API, ownership and invariants).
 *
 * Parsing rules of blang/semver v4 Parse, in the order it checks them (the first failure wins):
 *   1. empty input -> "Version string empty";
 *   2. split at the first two '.': fewer than three parts -> "No Major.Minor.Patch elements
 *      found" (the third part keeps any further dots);
 *   3. major, then minor: every byte a digit ("Invalid character(s) ..."), no leading zero when
 *      longer than one byte ("... must not contain leading zeroes"), then strconv.ParseUint,
 *      which fails only on an empty part ("invalid syntax") or above 2^64-1 ("value out of
 *      range");
 *   4. third part: everything after its first '+' is build metadata; in what precedes, everything
 *      after the first '-' is the prerelease; the rest is the patch number, checked as in 3;
 *   5. prerelease identifiers ('.'-separated, left to right): empty -> "Prerelease is empty";
 *      all digits -> no leading zero, fits uint64; otherwise only [0-9A-Za-z-];
 *   6. build identifiers: empty -> "Build meta data is empty"; only [0-9A-Za-z-].
 * Non-ASCII bytes are never accepted (Go's rune-wise check rejects them too, valid UTF-8 or not).
 *
 * Normalized parsing is Kubernetes' normalizeAndParse: drop one leading 'v'; split at the first
 * two '.' into at most three parts; each part longer than one byte loses its leading '0's and,
 * if that leaves it empty or not starting with a digit, gets one '0' put back in front (so
 * "00" -> "0", "0x" -> "0x", "-rc" -> "0-rc"); with fewer than three parts, a '+' or '-' in the
 * last one is "short version cannot contain PreRelease/Build meta data", else "0" parts are
 * added; the result goes through the strict rules. Here a part is a span of the input plus a
 * flag for that virtual leading '0', so nothing is copied; the prerelease and build spans always
 * lie in the input because normalization only touches the start of a part.
 */
#include "semver.h"

#include <string.h>

static const char *const sv_messages[] = {
    [DC_SEMVER_OK] = NULL,
    [DC_SEMVER_E_EMPTY] = "Version string empty",
    [DC_SEMVER_E_NO_ELEMENTS] = "No Major.Minor.Patch elements found",
    [DC_SEMVER_E_MAJOR_CHARS] = "Invalid character(s) found in major number",
    [DC_SEMVER_E_MAJOR_ZEROES] = "Major number must not contain leading zeroes",
    [DC_SEMVER_E_MINOR_CHARS] = "Invalid character(s) found in minor number",
    [DC_SEMVER_E_MINOR_ZEROES] = "Minor number must not contain leading zeroes",
    [DC_SEMVER_E_PATCH_CHARS] = "Invalid character(s) found in patch number",
    [DC_SEMVER_E_PATCH_ZEROES] = "Patch number must not contain leading zeroes",
    [DC_SEMVER_E_SYNTAX] = "strconv.ParseUint: parsing: invalid syntax",
    [DC_SEMVER_E_RANGE] = "strconv.ParseUint: parsing: value out of range",
    [DC_SEMVER_E_PRE_EMPTY] = "Prerelease is empty",
    [DC_SEMVER_E_PRE_ZEROES] = "Numeric PreRelease version must not contain leading zeroes",
    [DC_SEMVER_E_PRE_CHARS] = "Invalid character(s) found in prerelease",
    [DC_SEMVER_E_BUILD_EMPTY] = "Build meta data is empty",
    [DC_SEMVER_E_BUILD_CHARS] = "Invalid character(s) found in build meta data",
    [DC_SEMVER_E_SHORT] = "short version cannot contain PreRelease/Build meta data",
};

/* One dot-part: the text "0" + p[0..n) when z, else p[0..n). */
typedef struct sv_part {
    const char *p;
    size_t n;
    bool z;
} sv_part;

static bool sv_is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* blang's alphanum set: [A-Za-z0-9-]. */
static bool sv_is_ident(unsigned char c)
{
    return sv_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

static bool sv_only_digits(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!sv_is_digit((unsigned char)p[i]))
            return false;
    return true;
}

static bool sv_only_ident(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!sv_is_ident((unsigned char)p[i]))
            return false;
    return true;
}

/* Digits only (checked by the caller); false when the value exceeds UINT64_MAX. */
static bool sv_digits_to_u64(const char *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static dc_semver_errc sv_fail(dc_semver_error *err, dc_semver_errc code, const char *op,
                              size_t op_len, bool z)
{
    if (err) {
        err->code = code;
        err->msg = sv_messages[code];
        err->operand = op;
        err->operand_len = op_len;
        err->operand_zero = z;
    }
    return code;
}

/* A major/minor/patch number (steps 3 and 4 of the header comment). */
static dc_semver_errc sv_number(sv_part part, dc_semver_errc chars, dc_semver_errc zeroes,
                                uint64_t *out, dc_semver_error *err)
{
    size_t len = part.n + (part.z ? 1 : 0);
    if (!sv_only_digits(part.p, part.n))
        return sv_fail(err, chars, part.p, part.n, part.z);
    if (len > 1 && (part.z || part.p[0] == '0'))
        return sv_fail(err, zeroes, part.p, part.n, part.z);
    if (len == 0)
        return sv_fail(err, DC_SEMVER_E_SYNTAX, part.p, 0, false);
    /* A virtual '0' only precedes an empty span here (it would be a leading zero otherwise). */
    if (!sv_digits_to_u64(part.p, part.n, out))
        return sv_fail(err, DC_SEMVER_E_RANGE, part.p, part.n, part.z);
    return DC_SEMVER_OK;
}

/* blang NewPRVersion for one prerelease identifier. */
static dc_semver_errc sv_pre_ident(const char *p, size_t n, dc_semver_error *err)
{
    uint64_t ignored;
    if (n == 0)
        return sv_fail(err, DC_SEMVER_E_PRE_EMPTY, NULL, 0, false);
    if (sv_only_digits(p, n)) {
        if (n > 1 && p[0] == '0')
            return sv_fail(err, DC_SEMVER_E_PRE_ZEROES, p, n, false);
        if (!sv_digits_to_u64(p, n, &ignored))
            return sv_fail(err, DC_SEMVER_E_RANGE, p, n, false);
        return DC_SEMVER_OK;
    }
    if (!sv_only_ident(p, n))
        return sv_fail(err, DC_SEMVER_E_PRE_CHARS, p, n, false);
    return DC_SEMVER_OK;
}

static dc_semver_errc sv_build_ident(const char *p, size_t n, dc_semver_error *err)
{
    if (n == 0)
        return sv_fail(err, DC_SEMVER_E_BUILD_EMPTY, NULL, 0, false);
    if (!sv_only_ident(p, n))
        return sv_fail(err, DC_SEMVER_E_BUILD_CHARS, p, n, false);
    return DC_SEMVER_OK;
}

/* Apply f to each '.'-separated identifier of p[0..n) (an empty list has one empty identifier). */
static dc_semver_errc sv_each_ident(const char *p, size_t n,
                                    dc_semver_errc (*f)(const char *, size_t, dc_semver_error *),
                                    dc_semver_error *err)
{
    const char *end = p + n;
    for (;;) {
        const char *dot = memchr(p, '.', (size_t)(end - p));
        size_t len = dot ? (size_t)(dot - p) : (size_t)(end - p);
        dc_semver_errc e = f(p, len, err);
        if (e != DC_SEMVER_OK || !dot)
            return e;
        p = dot + 1;
    }
}

/* Steps 3 to 6 on the three parts. */
static dc_semver_errc sv_core(const sv_part part[3], dc_semver *v, dc_semver_error *err)
{
    dc_semver_errc e;
    sv_part rest = part[2], patch;
    const char *plus, *minus, *pre = NULL, *build = NULL;
    size_t head, pre_len = 0, build_len = 0;

    if ((e = sv_number(part[0], DC_SEMVER_E_MAJOR_CHARS, DC_SEMVER_E_MAJOR_ZEROES, &v->major,
                       err)) != DC_SEMVER_OK)
        return e;
    if ((e = sv_number(part[1], DC_SEMVER_E_MINOR_CHARS, DC_SEMVER_E_MINOR_ZEROES, &v->minor,
                       err)) != DC_SEMVER_OK)
        return e;

    /* The virtual '0' of a normalized part is neither '+' nor '-': search the span only. */
    plus = memchr(rest.p, '+', rest.n);
    head = plus ? (size_t)(plus - rest.p) : rest.n;
    if (plus) {
        build = plus + 1;
        build_len = rest.n - head - 1;
    }
    minus = memchr(rest.p, '-', head);
    patch = rest;
    patch.n = head;
    if (minus) {
        patch.n = (size_t)(minus - rest.p);
        pre = minus + 1;
        pre_len = head - patch.n - 1;
    }
    if ((e = sv_number(patch, DC_SEMVER_E_PATCH_CHARS, DC_SEMVER_E_PATCH_ZEROES, &v->patch,
                       err)) != DC_SEMVER_OK)
        return e;
    if (pre && (e = sv_each_ident(pre, pre_len, sv_pre_ident, err)) != DC_SEMVER_OK)
        return e;
    if (build && (e = sv_each_ident(build, build_len, sv_build_ident, err)) != DC_SEMVER_OK)
        return e;

    v->pre = pre;
    v->pre_len = pre_len;
    v->build = build;
    v->build_len = build_len;
    return DC_SEMVER_OK;
}

/* Split at the first two dots: returns the number of parts (1 to 3). */
static int sv_split3(const char *s, size_t n, sv_part part[3])
{
    const char *end = s + n;
    const char *d1 = memchr(s, '.', n), *d2;
    part[0] = (sv_part){s, n, false};
    if (!d1)
        return 1;
    part[0].n = (size_t)(d1 - s);
    d2 = memchr(d1 + 1, '.', (size_t)(end - d1 - 1));
    part[1] = (sv_part){d1 + 1, (size_t)(end - d1 - 1), false};
    if (!d2)
        return 2;
    part[1].n = (size_t)(d2 - d1 - 1);
    part[2] = (sv_part){d2 + 1, (size_t)(end - d2 - 1), false};
    return 3;
}

static dc_semver_errc sv_parse(const char *s, size_t n, bool normalize, dc_semver *v,
                               dc_semver_error *err)
{
    sv_part part[3];
    int count;

    if (!s)
        s = "";
    if (!normalize) {
        if (n == 0)
            return sv_fail(err, DC_SEMVER_E_EMPTY, NULL, 0, false);
        if (sv_split3(s, n, part) != 3)
            return sv_fail(err, DC_SEMVER_E_NO_ELEMENTS, NULL, 0, false);
        return sv_core(part, v, err);
    }

    if (n > 0 && s[0] == 'v') {
        s++;
        n--;
    }
    count = sv_split3(s, n, part);
    for (int i = 0; i < count; i++) {
        sv_part *p = &part[i];
        if (p->n <= 1)
            continue;
        while (p->n > 0 && p->p[0] == '0') {
            p->p++;
            p->n--;
        }
        p->z = p->n == 0 || !sv_is_digit((unsigned char)p->p[0]);
    }
    if (count < 3) {
        const sv_part *last = &part[count - 1];
        if (memchr(last->p, '+', last->n) || memchr(last->p, '-', last->n))
            return sv_fail(err, DC_SEMVER_E_SHORT, NULL, 0, false);
        for (int i = count; i < 3; i++)
            part[i] = (sv_part){"0", 1, false};
    }
    return sv_core(part, v, err);
}

const char *dc_semver_parse_ex(const char *s, size_t n, bool normalize, dc_semver *out,
                               dc_semver_error *err)
{
    dc_semver v = {0};
    dc_semver_errc e;

    if (err)
        *err = (dc_semver_error){DC_SEMVER_OK, NULL, NULL, 0, false};
    e = sv_parse(s, n, normalize, &v, err);
    if (e != DC_SEMVER_OK)
        v = (dc_semver){0};
    if (out)
        *out = v;
    return sv_messages[e];
}

const char *dc_semver_parse(const char *s, size_t n, bool normalize, dc_semver *out)
{
    return dc_semver_parse_ex(s, n, normalize, out, NULL);
}

bool dc_semver_is_valid(const char *s, size_t n, bool normalize)
{
    dc_semver v;
    return sv_parse(s, n, normalize, &v, NULL) == DC_SEMVER_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Comparison
 */

static int sv_cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* Precedence of two non-empty, valid prerelease lists. A numeric identifier has no leading
 * zero, so a longer one is larger and equal lengths compare bytewise: no number is parsed. */
static int sv_cmp_pre(const char *a, size_t an, const char *b, size_t bn)
{
    size_t i = 0, j = 0;
    for (;;) {
        size_t ai = i, bj = j, al, bl;
        bool anum = true, bnum = true;
        int c;
        for (; i < an && a[i] != '.'; i++)
            anum = anum && sv_is_digit((unsigned char)a[i]);
        for (; j < bn && b[j] != '.'; j++)
            bnum = bnum && sv_is_digit((unsigned char)b[j]);
        al = i - ai;
        bl = j - bj;
        if (anum != bnum)
            return anum ? -1 : 1;
        if (anum && al != bl)
            return al < bl ? -1 : 1;
        c = memcmp(a + ai, b + bj, al < bl ? al : bl);
        if (c != 0)
            return c < 0 ? -1 : 1;
        if (al != bl)
            return al < bl ? -1 : 1;
        if (i >= an || j >= bn)
            return (i >= an) == (j >= bn) ? 0 : (i >= an ? -1 : 1);
        i++;
        j++;
    }
}

int dc_semver_cmp(const dc_semver *a, const dc_semver *b)
{
    int c;
    if ((c = sv_cmp_u64(a->major, b->major)) != 0)
        return c;
    if ((c = sv_cmp_u64(a->minor, b->minor)) != 0)
        return c;
    if ((c = sv_cmp_u64(a->patch, b->patch)) != 0)
        return c;
    if (a->pre_len == 0 || b->pre_len == 0)
        return (a->pre_len == 0) - (b->pre_len == 0);
    if (a->pre_len == b->pre_len && memcmp(a->pre, b->pre, a->pre_len) == 0)
        return 0;
    return sv_cmp_pre(a->pre, a->pre_len, b->pre, b->pre_len);
}

bool dc_semver_eq(const dc_semver *a, const dc_semver *b)
{
    /* Equal precedence iff the prerelease bytes are equal (see the invariants in semver.h). */
    return a->major == b->major && a->minor == b->minor && a->patch == b->patch &&
           a->pre_len == b->pre_len && (a->pre_len == 0 || memcmp(a->pre, b->pre, a->pre_len) == 0);
}

int64_t dc_semver_cel_int(uint64_t u)
{
    if (u <= (uint64_t)INT64_MAX)
        return (int64_t)u;
    return -(int64_t)(UINT64_MAX - u) - 1;
}

/* ---------------------------------------------------------------------------------------------
 * Text output
 */

typedef struct sv_out {
    char *buf;
    size_t cap, len;
} sv_out;

static void sv_put(sv_out *o, char c)
{
    if (o->len + 1 < o->cap)
        o->buf[o->len] = c;
    o->len++;
}

static void sv_puts(sv_out *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sv_put(o, s[i]);
}

static void sv_put_u64(sv_out *o, uint64_t v)
{
    char tmp[20];
    size_t k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k)
        sv_put(o, tmp[--k]);
}

static size_t sv_finish(sv_out *o)
{
    if (o->cap)
        o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
    return o->len;
}

size_t dc_semver_format(const dc_semver *v, char *buf, size_t cap)
{
    sv_out o = {buf, cap, 0};
    sv_put_u64(&o, v->major);
    sv_put(&o, '.');
    sv_put_u64(&o, v->minor);
    sv_put(&o, '.');
    sv_put_u64(&o, v->patch);
    if (v->pre_len) {
        sv_put(&o, '-');
        sv_puts(&o, v->pre, v->pre_len);
    }
    if (v->build_len) {
        sv_put(&o, '+');
        sv_puts(&o, v->build, v->build_len);
    }
    return sv_finish(&o);
}

/* Go's utf8.DecodeRune: the width of a valid sequence at p (storing the rune), 0 if invalid. */
static size_t sv_utf8_decode(const unsigned char *p, size_t n, uint32_t *r)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xBF;
    size_t w;
    if (c < 0x80) {
        *r = c;
        return 1;
    }
    if (c < 0xC2 || c > 0xF4)
        return 0;
    w = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n < w)
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < w; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    *r = c & (w == 2 ? 0x1Fu : w == 3 ? 0x0Fu : 0x07u);
    for (size_t i = 1; i < w; i++)
        *r = (*r << 6) | (p[i] & 0x3Fu);
    return w;
}

/* Stand-in for Go's unicode.IsPrint on non-ASCII runes: false for the C1 controls, the non-ASCII
 * spaces and separators, the common format characters, private use and noncharacters. */
static bool sv_is_print_nonascii(uint32_t r)
{
    static const uint32_t nonprint[][2] = {
        {0x80, 0xA0},       {0xAD, 0xAD},       {0x600, 0x605},     {0x61C, 0x61C},
        {0x6DD, 0x6DD},     {0x70F, 0x70F},     {0x890, 0x891},     {0x8E2, 0x8E2},
        {0x1680, 0x1680},   {0x180E, 0x180E},   {0x2000, 0x200F},   {0x2028, 0x202F},
        {0x205F, 0x206F},   {0x3000, 0x3000},   {0xD800, 0xF8FF},   {0xFDD0, 0xFDEF},
        {0xFEFF, 0xFEFF},   {0xFFF0, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
        {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE00FF},
        {0xE01F0, 0x10FFFF},
    };
    if ((r & 0xFFFE) == 0xFFFE)
        return false;
    for (size_t i = 0; i < sizeof nonprint / sizeof nonprint[0]; i++)
        if (r >= nonprint[i][0] && r <= nonprint[i][1])
            return false;
    return true;
}

static void sv_put_hex(sv_out *o, const char *prefix, uint32_t v, int digits)
{
    static const char hex[] = "0123456789abcdef";
    sv_puts(o, prefix, 2);
    for (int i = digits - 1; i >= 0; i--)
        sv_put(o, hex[(v >> (4 * i)) & 0xF]);
}

/* Go's strconv.Quote (what %q does to a string). */
static void sv_put_quoted(sv_out *o, const char *s, size_t n, bool zero)
{
    const unsigned char *p = (const unsigned char *)s;
    sv_put(o, '"');
    if (zero)
        sv_put(o, '0');
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        uint32_t r;
        size_t w;
        if (c < 0x80) {
            i++;
            switch (c) {
            case '"': sv_puts(o, "\\\"", 2); break;
            case '\\': sv_puts(o, "\\\\", 2); break;
            case '\a': sv_puts(o, "\\a", 2); break;
            case '\b': sv_puts(o, "\\b", 2); break;
            case '\f': sv_puts(o, "\\f", 2); break;
            case '\n': sv_puts(o, "\\n", 2); break;
            case '\r': sv_puts(o, "\\r", 2); break;
            case '\t': sv_puts(o, "\\t", 2); break;
            case '\v': sv_puts(o, "\\v", 2); break;
            default:
                if (c < 0x20 || c == 0x7F)
                    sv_put_hex(o, "\\x", c, 2);
                else
                    sv_put(o, (char)c);
            }
            continue;
        }
        w = sv_utf8_decode(p + i, n - i, &r);
        if (w == 0) {
            sv_put_hex(o, "\\x", c, 2);
            i++;
            continue;
        }
        if (sv_is_print_nonascii(r))
            sv_puts(o, s + i, w);
        else if (r < 0x10000)
            sv_put_hex(o, "\\u", r, 4);
        else
            sv_put_hex(o, "\\U", r, 8);
        i += w;
    }
    sv_put(o, '"');
}

size_t dc_semver_error_format(const dc_semver_error *err, char *buf, size_t cap)
{
    sv_out o = {buf, cap, 0};
    const char *msg;

    if (!err || err->code == DC_SEMVER_OK)
        return sv_finish(&o);
    msg = sv_messages[err->code];
    switch (err->code) {
    case DC_SEMVER_E_SYNTAX:
    case DC_SEMVER_E_RANGE:
        sv_puts(&o, "strconv.ParseUint: parsing ", 27);
        sv_put_quoted(&o, err->operand, err->operand_len, err->operand_zero);
        sv_puts(&o, err->code == DC_SEMVER_E_SYNTAX ? ": invalid syntax" : ": value out of range",
                err->code == DC_SEMVER_E_SYNTAX ? 16 : 20);
        break;
    case DC_SEMVER_E_MAJOR_CHARS:
    case DC_SEMVER_E_MAJOR_ZEROES:
    case DC_SEMVER_E_MINOR_CHARS:
    case DC_SEMVER_E_MINOR_ZEROES:
    case DC_SEMVER_E_PATCH_CHARS:
    case DC_SEMVER_E_PATCH_ZEROES:
    case DC_SEMVER_E_PRE_ZEROES:
    case DC_SEMVER_E_PRE_CHARS:
    case DC_SEMVER_E_BUILD_CHARS:
        sv_puts(&o, msg, strlen(msg));
        sv_put(&o, ' ');
        sv_put_quoted(&o, err->operand, err->operand_len, err->operand_zero);
        break;
    default:
        sv_puts(&o, msg, strlen(msg));
        break;
    }
    return sv_finish(&o);
}
