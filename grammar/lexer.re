/*
 * lexer.re: the CEL lexer (re2c source; see src/lex.h for the interface).
 *
 * Token rules follow cel-spec doc/langdef.md and cel-go's parser/gen/CEL.g4; literal decoding
 * follows cel-go's parser/unescape.go (newlines in literals are normalized to "\n", \x and octal
 * escapes are code points in strings and octets in bytes). Errors are reported to the
 * diagnostics list and lexing goes on, as ANTLR does:
 *   - unrecognized input: "Syntax error: token recognition error at: '<text>'" at the offending
 *     character; the character (and the rest of a run of unrecognizable bytes) is skipped;
 *   - an unterminated string: the same message, showing the literal up to the problem, at the
 *     start of the literal; a STRING/BYTES token flagged DC_TOKF_BAD is returned;
 *   - malformed literals (escapes, out-of-range numbers): one error at the literal, and the
 *     token comes back flagged DC_TOKF_BAD.
 *
 * Input is scanned with re2c's sentinel method with bounds checks (re2c:eof): src[len] is NUL and
 * a NUL before the limit is an ordinary byte (a character of a literal or a comment, as in
 * cel-go; elsewhere "NUL byte in source text"), so any bytes are safe. Every rule is
 * a DFA over the input, scanning is linear, and nothing recurses.
 *
 * Generate with: re2c -W --no-generation-date -o lexer.c grammar/lexer.re
 */
#include "lex.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Token names
 */

static const char *const tok_names[DC_TOK__COUNT] = {
#define DC_TOK_NAME(name, text) text,
    DC_TOKENS(DC_TOK_NAME)
#undef DC_TOK_NAME
};

const char *dc_tok_name(dc_tok t)
{
    if ((unsigned)t < (unsigned)DC_TOK__COUNT)
        return tok_names[t];
    return "unknown token";
}

/* ---------------------------------------------------------------------------------------------
 * Display of source text in messages (ANTLR's getErrorDisplay: \n \r \t are shown escaped). We
 * also escape other control bytes, DEL and bytes that are not valid UTF-8 as \xHH so that a
 * message is always printable UTF-8, and cut long text (an unterminated literal can be megabytes).
 */

#define DISPLAY_MAX 64 /* source bytes shown at most */

typedef struct sbuf {
    char *p;
    size_t len, cap; /* cap includes the NUL */
} sbuf;

static void sb_putn(sbuf *b, const char *s, size_t n)
{
    if (b->len + n >= b->cap)
        n = b->cap - 1 - b->len; /* never happens with the sizes used here; just a guard */
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

/* One character of s[0..n) (n >= 1) in display form; @return the bytes consumed. */
static size_t sb_display_char(sbuf *b, const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    char tmp[8];
    if (c == '\n') {
        sb_puts(b, "\\n");
    } else if (c == '\r') {
        sb_puts(b, "\\r");
    } else if (c == '\t') {
        sb_puts(b, "\\t");
    } else if (c >= 0x20 && c < 0x7F) {
        sb_putn(b, (const char *)s, 1);
    } else if (c >= 0x80) {
        uint32_t cp;
        int k = dc_utf8_decode(s, n, &cp);
        if (k > 0) {
            sb_putn(b, (const char *)s, (size_t)k);
            return (size_t)k;
        }
        snprintf(tmp, sizeof tmp, "\\x%02X", c);
        sb_puts(b, tmp);
    } else {
        snprintf(tmp, sizeof tmp, "\\x%02X", c);
        sb_puts(b, tmp);
    }
    return 1;
}

/* s[0..n) in display form, cut after DISPLAY_MAX bytes with "...". out must have room for
 * DISPLAY_MAX * 4 + 8 bytes. */
static void display(char *out, size_t cap, const unsigned char *s, size_t n)
{
    sbuf b = {out, 0, cap};
    out[0] = '\0';
    size_t i = 0;
    while (i < n) {
        if (i >= DISPLAY_MAX) {
            sb_puts(&b, "...");
            break;
        }
        i += sb_display_char(&b, s + i, n - i);
    }
}

#define DISPLAY_BUF (DISPLAY_MAX * 4 + 16)

/* ---------------------------------------------------------------------------------------------
 * Reporting
 */

static dracel_span span_of(const dc_lexer *lx, const unsigned char *a, const unsigned char *b)
{
    return dc_span((uint32_t)(a - lx->src), (uint32_t)(b - lx->src));
}

static void lx_error(dc_lexer *lx, const unsigned char *a, const unsigned char *b,
                     const char *fmt, ...) DC_PRINTF(4, 5);

static void lx_error(dc_lexer *lx, const unsigned char *a, const unsigned char *b,
                     const char *fmt, ...)
{
    if (!lx->diags)
        return;
    va_list ap;
    va_start(ap, fmt);
    dc_diag_vadd(lx->diags, DRACEL_SEV_ERROR, span_of(lx, a, b), fmt, ap);
    va_end(ap);
}

/* "token recognition error" showing shown[0..n), reported over [a, b). */
static void lx_recognition_error(dc_lexer *lx, const unsigned char *a, const unsigned char *b,
                                 const unsigned char *shown, size_t n)
{
    char text[DISPLAY_BUF];
    display(text, sizeof text, shown, n);
    lx_error(lx, a, b, "Syntax error: token recognition error at: '%s'", text);
}

/* ---------------------------------------------------------------------------------------------
 * Literal decoding
 */

enum dq_err {
    DQ_OK,
    DQ_OOM,
    DQ_ESC_UNKNOWN,
    DQ_ESC_EOL,
    DQ_ESC_END,
    DQ_X_DIGITS,
    DQ_U4_DIGITS,
    DQ_U8_DIGITS,
    DQ_U4_SURROGATE,
    DQ_U8_SURROGATE,
    DQ_U8_RANGE,
    DQ_U4_BYTES,
    DQ_U8_BYTES,
    DQ_OCT_DIGITS,
    DQ_OCT_RANGE
};

static const char *const dq_msgs[] = {
    [DQ_OK] = NULL,
    [DQ_OOM] = "out of memory",
    [DQ_ESC_UNKNOWN] = "invalid escape sequence",
    [DQ_ESC_EOL] = "invalid escape sequence: '\\' at end of line",
    [DQ_ESC_END] = "invalid escape sequence: '\\' at end of literal",
    [DQ_X_DIGITS] = "invalid \\x escape: expected 2 hex digits",
    [DQ_U4_DIGITS] = "invalid \\u escape: expected 4 hex digits",
    [DQ_U8_DIGITS] = "invalid \\U escape: expected 8 hex digits",
    [DQ_U4_SURROGATE] = "invalid \\u escape: surrogate code point",
    [DQ_U8_SURROGATE] = "invalid \\U escape: surrogate code point",
    [DQ_U8_RANGE] = "invalid \\U escape: code point above U+10FFFF",
    [DQ_U4_BYTES] = "\\u escapes are not allowed in bytes literals",
    [DQ_U8_BYTES] = "\\U escapes are not allowed in bytes literals",
    [DQ_OCT_DIGITS] = "invalid octal escape: expected 3 octal digits",
    [DQ_OCT_RANGE] = "octal escape out of range",
};

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/*
 * Decode s[0..n). The output is never longer than the input (every escape is at least as long
 * as what it stands for, CR LF becomes LF), so one allocation of n + 1 bytes is enough.
 * On error, *err_at is the offset of the offending backslash.
 */
static enum dq_err decode_body(dc_arena *a, const unsigned char *s, size_t n, bool raw,
                               bool bytes, const char **out, size_t *out_len, size_t *err_at)
{
    *out = "";
    *out_len = 0;
    *err_at = 0;
    char *buf = dc_arena_alloc(a, n + 1);
    if (!buf)
        return DQ_OOM;
    size_t o = 0, i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c == '\r') { /* CR LF and CR are normalized to LF, raw or not (as cel-go) */
            buf[o++] = '\n';
            i += (i + 1 < n && s[i + 1] == '\n') ? 2 : 1;
            continue;
        }
        if (c != '\\' || raw) {
            buf[o++] = (char)c;
            i++;
            continue;
        }
        *err_at = i;
        if (i + 1 >= n)
            return DQ_ESC_END;
        unsigned char e = s[i + 1];
        char simple;
        switch (e) {
        case 'a': simple = '\a'; break;
        case 'b': simple = '\b'; break;
        case 'f': simple = '\f'; break;
        case 'n': simple = '\n'; break;
        case 'r': simple = '\r'; break;
        case 't': simple = '\t'; break;
        case 'v': simple = '\v'; break;
        case '\\': simple = '\\'; break;
        case '?': simple = '?'; break;
        case '"': simple = '"'; break;
        case '\'': simple = '\''; break;
        case '`': simple = '`'; break;
        case 'x':
        case 'X':
        case 'u':
        case 'U': {
            size_t nd = (e == 'u') ? 4 : (e == 'U') ? 8 : 2;
            if (bytes && e == 'u')
                return DQ_U4_BYTES;
            if (bytes && e == 'U')
                return DQ_U8_BYTES;
            enum dq_err digits_err = (e == 'u') ? DQ_U4_DIGITS
                                     : (e == 'U') ? DQ_U8_DIGITS
                                                  : DQ_X_DIGITS;
            if (n - (i + 2) < nd)
                return digits_err;
            uint32_t v = 0;
            for (size_t j = 0; j < nd; j++) {
                int d = hexval(s[i + 2 + j]);
                if (d < 0)
                    return digits_err;
                v = (v << 4) | (uint32_t)d;
            }
            if (v >= 0xD800 && v <= 0xDFFF)
                return e == 'u' ? DQ_U4_SURROGATE : DQ_U8_SURROGATE;
            if (v > 0x10FFFF)
                return DQ_U8_RANGE;
            if (bytes || v < 0x80) {
                buf[o++] = (char)v; /* bytes: \x gives an octet */
            } else {
                o += (size_t)dc_utf8_encode(v, buf + o);
            }
            i += 2 + nd;
            continue;
        }
        case '0': case '1': case '2': case '3':
        case '4': case '5': case '6': case '7': {
            if (n - (i + 2) < 2 || s[i + 2] < '0' || s[i + 2] > '7' || s[i + 3] < '0' ||
                s[i + 3] > '7')
                return DQ_OCT_DIGITS;
            if (e > '3')
                return DQ_OCT_RANGE;
            uint32_t v = (uint32_t)(e - '0') * 64 + (uint32_t)(s[i + 2] - '0') * 8 +
                         (uint32_t)(s[i + 3] - '0');
            if (bytes || v < 0x80)
                buf[o++] = (char)v;
            else
                o += (size_t)dc_utf8_encode(v, buf + o);
            i += 4;
            continue;
        }
        case '\n':
        case '\r':
            return DQ_ESC_EOL;
        default:
            return DQ_ESC_UNKNOWN;
        }
        buf[o++] = simple;
        i += 2;
    }
    buf[o] = '\0';
    *out = buf;
    *out_len = o;
    return DQ_OK;
}

const char *dc_lex_decode_quoted(dc_arena *a, const unsigned char *body, size_t n, bool raw,
                                 bool bytes, const char **out, size_t *out_len)
{
    size_t at;
    enum dq_err e = decode_body(a, body, n, raw, bytes, out, out_len, &at);
    return dq_msgs[e];
}

const char *dc_lex_parse_uint(const unsigned char *text, size_t n, uint64_t *out, bool *overflow)
{
    uint64_t v = 0;
    bool ovf = false;
    *out = 0;
    *overflow = false;
    if (n >= 2 && text[0] == '0' && text[1] == 'x') {
        if (n == 2)
            return "invalid int literal";
        for (size_t i = 2; i < n; i++) {
            int d = hexval(text[i]);
            if (d < 0)
                return "invalid int literal";
            if (v > (UINT64_MAX >> 4))
                ovf = true;
            v = (v << 4) | (uint64_t)d;
        }
    } else {
        if (n == 0)
            return "invalid int literal";
        for (size_t i = 0; i < n; i++) {
            if (text[i] < '0' || text[i] > '9')
                return "invalid int literal";
            uint64_t d = (uint64_t)(text[i] - '0');
            if (v > (UINT64_MAX - d) / 10)
                ovf = true;
            v = v * 10 + d;
        }
    }
    if (ovf) {
        *overflow = true;
        return NULL;
    }
    *out = v;
    return NULL;
}

/*
 * Double parsing. The text is checked against [0-9]* ('.' [0-9]*)? ([eE] [+-]? [0-9]+)? with at
 * least one mantissa digit, then rewritten as "0.<digits>e<exp>" in a bounded buffer for strtod:
 * leading zeros go, and past DBL_SIG_DIGITS significant digits the rest only matters through
 * whether it is zero, so it becomes one sticky '1' digit (767 digits decide any double's
 * rounding). So the text can be megabytes long without an allocation.
 */
#define DBL_SIG_DIGITS 800
#define DBL_EXP_CLAMP 100000 /* far beyond overflow to infinity or underflow to zero */

const char *dc_lex_parse_double(const unsigned char *text, size_t n, double *out)
{
    char buf[DBL_SIG_DIGITS + 40];
    size_t nd = 0, i = 0, mant_digits = 0;
    bool sticky = false;
    int64_t e10 = 0; /* value = 0.<buf digits> * 10^e10 * 10^exp */
    *out = 0;
    buf[0] = '0';
    buf[1] = '.';
    char *dig = buf + 2;

    for (; i < n && text[i] >= '0' && text[i] <= '9'; i++, mant_digits++) {
        if (nd == 0 && text[i] == '0')
            continue;
        if (e10 < INT32_MAX)
            e10++;
        if (nd < DBL_SIG_DIGITS)
            dig[nd++] = (char)text[i];
        else if (text[i] != '0')
            sticky = true;
    }
    if (i < n && text[i] == '.') {
        for (i++; i < n && text[i] >= '0' && text[i] <= '9'; i++, mant_digits++) {
            if (nd == 0 && text[i] == '0') {
                if (e10 > INT32_MIN)
                    e10--;
                continue;
            }
            if (nd < DBL_SIG_DIGITS)
                dig[nd++] = (char)text[i];
            else if (text[i] != '0')
                sticky = true;
        }
    }
    if (mant_digits == 0)
        return "invalid double literal";
    int64_t ex = 0;
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        bool neg = false;
        i++;
        if (i < n && (text[i] == '+' || text[i] == '-'))
            neg = text[i++] == '-';
        size_t start = i;
        for (; i < n && text[i] >= '0' && text[i] <= '9'; i++) {
            if (ex < INT32_MAX)
                ex = ex * 10 + (text[i] - '0');
        }
        if (i == start)
            return "invalid double literal";
        if (neg)
            ex = -ex;
    }
    if (i != n)
        return "invalid double literal";
    if (nd == 0) /* all zeros */
        return NULL;
    if (sticky)
        dig[nd++] = '1';
    int64_t total = e10 + ex;
    if (total > DBL_EXP_CLAMP)
        total = DBL_EXP_CLAMP;
    if (total < -DBL_EXP_CLAMP)
        total = -DBL_EXP_CLAMP;
    snprintf(dig + nd, sizeof buf - 2 - nd, "e%d", (int)total);
    errno = 0;
    double d = strtod(buf, NULL);
    if (isinf(d))
        return "double literal out of range";
    *out = d;
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Token actions
 */

static dc_tok set_tok(dc_lexer *lx, dc_token *t, dc_tok kind, const unsigned char *a,
                      const unsigned char *b)
{
    t->kind = kind;
    t->span = span_of(lx, a, b);
    t->flags = 0;
    memset(&t->v, 0, sizeof t->v);
    return kind;
}

static dc_tok lex_eof(dc_lexer *lx, dc_token *t)
{
    lx->cur = lx->lim;
    return set_tok(lx, t, DC_TOK_EOF, lx->lim, lx->lim);
}

/* Allocation failure: recorded in the diagnostics list; the lexer stays at end of input. */
static dc_tok lex_oom(dc_lexer *lx, dc_token *t)
{
    if (lx->diags)
        lx->diags->oom = true;
    return lex_eof(lx, t);
}

static dc_tok lex_ident(dc_lexer *lx, dc_token *t, dc_tok kind, const unsigned char *a,
                        const unsigned char *b)
{
    set_tok(lx, t, kind, a, b);
    const unsigned char *na = a, *nb = b;
    if (kind == DC_TOK_QIDENT) {
        na++;
        nb--;
    }
    char *s = dc_arena_strndup(lx->arena, (const char *)na, (size_t)(nb - na));
    if (!s)
        return lex_oom(lx, t);
    t->v.s.ptr = s;
    t->v.s.len = (size_t)(nb - na);
    return kind;
}

static dc_tok lex_int(dc_lexer *lx, dc_token *t, const unsigned char *a, const unsigned char *b,
                      bool is_uint)
{
    dc_tok kind = set_tok(lx, t, is_uint ? DC_TOK_UINT : DC_TOK_INT, a, b);
    uint64_t v;
    bool ovf;
    const char *msg = dc_lex_parse_uint(a, (size_t)(b - a) - (is_uint ? 1 : 0), &v, &ovf);
    if (msg || ovf) {
        lx_error(lx, a, b, is_uint ? "invalid uint literal" : "invalid int literal");
        t->flags |= DC_TOKF_BAD;
        return kind;
    }
    if (!is_uint && v > (uint64_t)INT64_MAX)
        t->flags |= DC_TOKF_INT_OVERFLOW;
    t->v.u = v;
    return kind;
}

static dc_tok lex_double(dc_lexer *lx, dc_token *t, const unsigned char *a,
                         const unsigned char *b)
{
    set_tok(lx, t, DC_TOK_DOUBLE, a, b);
    double d;
    if (dc_lex_parse_double(a, (size_t)(b - a), &d)) {
        lx_error(lx, a, b, "invalid double literal");
        t->flags |= DC_TOKF_BAD;
        return DC_TOK_DOUBLE;
    }
    t->v.d = d;
    return DC_TOK_DOUBLE;
}

/* Prefix letters before the quote: r/R raw, b/B bytes. @return the quote's position. */
static const unsigned char *quote_prefix(const unsigned char *a, bool *raw, bool *bytes)
{
    *raw = *bytes = false;
    for (; *a != '"' && *a != '\''; a++) {
        if (*a == 'r' || *a == 'R')
            *raw = true;
        else
            *bytes = true;
    }
    return a;
}

/* A complete string or bytes literal [a, b); qn is 1 or 3 (quote length). */
static dc_tok lex_quoted(dc_lexer *lx, dc_token *t, const unsigned char *a,
                         const unsigned char *b, size_t qn)
{
    bool raw, bytes;
    const unsigned char *q = quote_prefix(a, &raw, &bytes);
    dc_tok kind = set_tok(lx, t, bytes ? DC_TOK_BYTES : DC_TOK_STRING, a, b);
    const unsigned char *body = q + qn;
    size_t n = (size_t)(b - qn - body);
    size_t at;
    const char *s;
    size_t len;
    enum dq_err e = decode_body(lx->arena, body, n, raw, bytes, &s, &len, &at);
    if (e == DQ_OOM)
        return lex_oom(lx, t);
    if (e != DQ_OK) {
        if (e == DQ_ESC_UNKNOWN) {
            unsigned char c = body[at + 1];
            char text[DISPLAY_BUF];
            if (c < 0x20 || c == 0x7F) {
                lx_error(lx, a, b,
                         "invalid escape sequence: '\\' followed by control character 0x%02X",
                         c);
            } else {
                sbuf sb = {text, 0, sizeof text};
                text[0] = '\0';
                sb_display_char(&sb, body + at + 1, n - at - 1);
                lx_error(lx, a, b, "invalid escape sequence '\\%s'", text);
            }
        } else {
            lx_error(lx, a, b, "%s", dq_msgs[e]);
        }
        t->flags |= DC_TOKF_BAD;
    }
    t->v.s.ptr = s;
    t->v.s.len = len;
    return kind;
}

/* An unterminated literal: the scan stopped at lx->cur (end of line, end of input, a NUL, or a
 * backslash that has nothing to escape, which is taken in too). ANTLR shows the text up to and
 * including the character where it failed. */
static dc_tok lex_unterminated(dc_lexer *lx, dc_token *t, const unsigned char *a)
{
    bool raw, bytes;
    quote_prefix(a, &raw, &bytes);
    if (lx->cur < lx->lim && *lx->cur == '\\')
        lx->cur++;
    const unsigned char *b = lx->cur;
    size_t shown = (size_t)(b - a);
    if (b < lx->lim)
        shown++;
    lx_recognition_error(lx, a, b, a, shown);
    dc_tok kind = set_tok(lx, t, bytes ? DC_TOK_BYTES : DC_TOK_STRING, a, b);
    t->flags |= DC_TOKF_BAD;
    t->v.s.ptr = "";
    t->v.s.len = 0;
    return kind;
}

/* Can byte c start a token (or whitespace)? Used to skip a run of unrecognizable bytes. */
static bool starts_token(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c != '\0' && strchr("_ \t\n\r\f\"'`.()[]{},:?!<>=+-*/%&|", c) != NULL;
}

/* Unrecognized input at a: report the first character, skip the run. */
static void lex_garbage(dc_lexer *lx, const unsigned char *a)
{
    const unsigned char *p = a + 1;
    while (p < lx->lim && !starts_token(*p))
        p++;
    if (*a == '\0') { /* outside literals and comments (cel-go: a recognition error) */
        lx_error(lx, a, a + 1, "NUL byte in source text");
        lx->cur = p;
        return;
    }
    uint32_t cp;
    int k = dc_utf8_decode(a, (size_t)(lx->lim - a), &cp);
    lx_recognition_error(lx, a, p, a, k > 0 ? (size_t)k : 1);
    lx->cur = p;
}

/* A lone '&', '|' or '=': ANTLR shows it with the character after it (e.g. '= '). */
static void lex_lone_op(dc_lexer *lx, const unsigned char *a)
{
    size_t shown = 1;
    if (a + 1 < lx->lim) {
        uint32_t cp;
        int k = dc_utf8_decode(a + 1, (size_t)(lx->lim - a - 1), &cp);
        shown += k > 0 ? (size_t)k : 1;
    }
    lx_recognition_error(lx, a, a + 1, a, shown);
    lx->cur = a + 1;
}

/* A backquote that does not start a valid quoted identifier; the scan stopped at lx->cur (on
 * the offending character). The error shows the text up to it, as ANTLR does. */
static void lex_bad_qident(dc_lexer *lx, const unsigned char *a)
{
    const unsigned char *b = lx->cur;
    size_t shown = (size_t)(b - a);
    if (b < lx->lim) {
        uint32_t cp;
        int k = dc_utf8_decode(b, (size_t)(lx->lim - b), &cp);
        shown += k > 0 ? (size_t)k : 1;
        /* Skip to the closing backquote when there is one on the same line (`a@b`, ``), so
         * one mistake gives one error; otherwise skip what was scanned. Scanning for it is
         * linear overall: if there is none, no other backquote follows on this line. */
        const unsigned char *p = b;
        while (p < lx->lim && *p != '`' && *p != '\n' && *p != '\r' && *p != '\0')
            p++;
        if (p < lx->lim && *p == '`')
            b = p + 1;
    }
    lx_recognition_error(lx, a, b, a, shown);
    lx->cur = b;
}

/* ---------------------------------------------------------------------------------------------
 * The scanner
 */

void dc_lex_init(dc_lexer *lx, const char *src, size_t len, dc_arena *arena, dc_diags *diags)
{
    lx->src = (const unsigned char *)src;
    lx->lim = lx->src + len;
    lx->cur = lx->src;
    lx->arena = arena;
    lx->diags = diags;
}

#define SIMPLE(k)                                   \
    do {                                            \
        lx->cur = YYCURSOR;                         \
        return set_tok(lx, t, (k), tok, YYCURSOR);  \
    } while (0)

dc_tok dc_lex_next(dc_lexer *lx, dc_token *t)
{
    const unsigned char *YYCURSOR = lx->cur;
    const unsigned char *const YYLIMIT = lx->lim;
    const unsigned char *YYMARKER = YYCURSOR;

    for (;;) {
        const unsigned char *tok = YYCURSOR;
        /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:yyfill:enable = 0;
        re2c:eof = 0;

        ws      = [ \t\n\r\f]+;
        comment = "//" [^\n]*;

        ident   = [_a-zA-Z] [_a-zA-Z0-9]*;
        qchar   = [_a-zA-Z0-9./ \-];

        dec     = [0-9]+;
        hex     = "0x" [0-9a-fA-F]+;
        exp     = [eE] [+-]? [0-9]+;
        float   = [0-9]+ "." [0-9]+ exp? | [0-9]+ exp | "." [0-9]+ exp?;

        // Escapes are scanned as a backslash and any byte; decode_body checks them.
        // A NUL byte is an ordinary character inside literals and comments, as in cel-go's
        // grammar (re2c:eof tells it from the end of input).
        esc1    = "\\" [^\n\r];
        esc3    = "\\" [^];
        dq1     = ([^"\\\n\r] | esc1)*;
        sq1     = ([^'\\\n\r] | esc1)*;
        dq3     = (["]{0,2} ([^"\\] | esc3))*;
        sq3     = ([']{0,2} ([^'\\] | esc3))*;
        rdq1    = [^"\n\r]*;
        rsq1    = [^'\n\r]*;
        rdq3    = (["]{0,2} [^"])*;
        rsq3    = ([']{0,2} [^'])*;

        cooked  = [bB]?;
        raw     = [rR] | [bB][rR];  /* cel-go: BYTES is [bB] before a (raw) STRING: `br` only, `rb` is two tokens */

        $ { return lex_eof(lx, t); }

        ws      { continue; }
        comment { continue; }

        cooked ["] dq1 ["]          { lx->cur = YYCURSOR; return lex_quoted(lx, t, tok, YYCURSOR, 1); }
        cooked ['] sq1 [']          { lx->cur = YYCURSOR; return lex_quoted(lx, t, tok, YYCURSOR, 1); }
        cooked ["]{3} dq3 ["]{3}    { lx->cur = YYCURSOR; return lex_quoted(lx, t, tok, YYCURSOR, 3); }
        cooked [']{3} sq3 [']{3}    { lx->cur = YYCURSOR; return lex_quoted(lx, t, tok, YYCURSOR, 3); }
        raw ["] rdq1 ["]            { lx->cur = YYCURSOR; return lex_quoted(lx, t, tok, YYCURSOR, 1); }
        raw ['] rsq1 [']            { lx->cur = YYCURSOR; return lex_quoted(lx, t, tok, YYCURSOR, 1); }
        raw ["]{3} rdq3 ["]{3}      { lx->cur = YYCURSOR; return lex_quoted(lx, t, tok, YYCURSOR, 3); }
        raw [']{3} rsq3 [']{3}      { lx->cur = YYCURSOR; return lex_quoted(lx, t, tok, YYCURSOR, 3); }

        // Unterminated literals: shorter than any complete one starting at the same place.
        cooked ["] dq1
        | cooked ['] sq1
        | cooked ["]{3} dq3 ["]{0,2}
        | cooked [']{3} sq3 [']{0,2}
        | raw ["] rdq1
        | raw ['] rsq1
        | raw ["]{3} rdq3 ["]{0,2}
        | raw [']{3} rsq3 [']{0,2}   { lx->cur = YYCURSOR; return lex_unterminated(lx, t, tok); }

        "true"  { SIMPLE(DC_TOK_TRUE); }
        "false" { SIMPLE(DC_TOK_FALSE); }
        "null"  { SIMPLE(DC_TOK_NULL); }
        "in"    { SIMPLE(DC_TOK_IN); }
        ident   { lx->cur = YYCURSOR; return lex_ident(lx, t, DC_TOK_IDENT, tok, YYCURSOR); }
        "`" qchar+ "`" { lx->cur = YYCURSOR; return lex_ident(lx, t, DC_TOK_QIDENT, tok, YYCURSOR); }
        "`" qchar*     { lx->cur = YYCURSOR; lex_bad_qident(lx, tok); YYCURSOR = lx->cur; continue; }

        dec | hex           { lx->cur = YYCURSOR; return lex_int(lx, t, tok, YYCURSOR, false); }
        (dec | hex) [uU]    { lx->cur = YYCURSOR; return lex_int(lx, t, tok, YYCURSOR, true); }
        float               { lx->cur = YYCURSOR; return lex_double(lx, t, tok, YYCURSOR); }

        "||" { SIMPLE(DC_TOK_OR); }
        "&&" { SIMPLE(DC_TOK_AND); }
        "==" { SIMPLE(DC_TOK_EQ); }
        "!=" { SIMPLE(DC_TOK_NE); }
        "<=" { SIMPLE(DC_TOK_LE); }
        ">=" { SIMPLE(DC_TOK_GE); }
        "<"  { SIMPLE(DC_TOK_LT); }
        ">"  { SIMPLE(DC_TOK_GT); }
        "+"  { SIMPLE(DC_TOK_PLUS); }
        "-"  { SIMPLE(DC_TOK_MINUS); }
        "*"  { SIMPLE(DC_TOK_STAR); }
        "/"  { SIMPLE(DC_TOK_SLASH); }
        "%"  { SIMPLE(DC_TOK_PERCENT); }
        "!"  { SIMPLE(DC_TOK_BANG); }
        "?"  { SIMPLE(DC_TOK_QUESTION); }
        ":"  { SIMPLE(DC_TOK_COLON); }
        "."  { SIMPLE(DC_TOK_DOT); }
        ","  { SIMPLE(DC_TOK_COMMA); }
        "("  { SIMPLE(DC_TOK_LPAREN); }
        ")"  { SIMPLE(DC_TOK_RPAREN); }
        "["  { SIMPLE(DC_TOK_LBRACKET); }
        "]"  { SIMPLE(DC_TOK_RBRACKET); }
        "{"  { SIMPLE(DC_TOK_LBRACE); }
        "}"  { SIMPLE(DC_TOK_RBRACE); }

        [&|=] { lex_lone_op(lx, tok); YYCURSOR = lx->cur; continue; }

        *    { lex_garbage(lx, tok); YYCURSOR = lx->cur; continue; }
        */
    }
}
