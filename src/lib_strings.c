/*
 * lib_strings.c: size(), the standard string functions contains/startsWith/endsWith, and the
 * cel-go strings extension as Kubernetes enables it (ext.Strings version 2): charAt, indexOf,
 * lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join, format and
 * strings.quote (google/cel-go ext/strings.go, ext/formatting.go).
 *
 * Indices are code points, as cel-go's []rune(str). Strings are valid UTF-8, so a byte match
 * of a valid UTF-8 needle always starts on a code point boundary and byte search is rune
 * search. Where cel-go defers to Go's library (strings.Replace, strings.SplitN,
 * strings.TrimSpace, strconv.Quote, fmt and golang.org/x/text/message for format()), the Go
 * behaviour is reproduced, including its corner cases:
 *   - ''.indexOf('a') and ''.lastIndexOf('a') are "index out of range" errors, while an empty
 *     needle returns the offset unchecked ('abc'.indexOf('', 9) == 9);
 *   - split('') explodes into code points; ''.split('') is []; split(sep, 0) is [];
 *   - replace('', x) inserts x around every code point;
 *   - format's %f and %e print through x/text's en-US number formatter: %f groups thousands
 *     ("1,234.500000"), prints "∞", "-∞", "NaN"; %e prints "1.052033 × 10⁰³" (U+202F around the
 *     ×, superscript exponent, always 6 decimals: cel-go passes the precision as a width);
 *     very large magnitudes in %f go through Go's amd64 float64->uint64 conversion
 *     (2^63 for anything >= 2^64 after scaling), as cel-go on amd64 does;
 *   - %s of lists and maps quotes strings with Go's %q, prints doubles with %.6f and sorts map
 *     entries by their printed keys.
 *
 * indexOf/lastIndexOf with two arguments are shared with Kubernetes' list functions of the same
 * names: a list receiver goes to dc_lib_list_index_of (lib_lists.c).
 */
#include "lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Small helpers. */

static size_t cp_count(const dc_str *s)
{
    return dc_utf8_count(s->data, s->len);
}

/* Byte offset of code point number idx (0 <= idx <= number of code points). */
static size_t cp_offset(const dc_str *s, size_t idx)
{
    size_t i = 0, k = 0;
    for (; i < s->len; i++) {
        if (((unsigned char)s->data[i] & 0xC0) != 0x80) {
            if (k == idx)
                return i;
            k++;
        }
    }
    return s->len;
}

/* Length in bytes of the UTF-8 sequence starting at p (the string is valid). */
static size_t seq_len(unsigned char b)
{
    return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

static const char *find_bytes(const char *h, size_t hn, const char *nd, size_t nn)
{
    if (nn == 0)
        return h;
    if (nn > hn)
        return NULL;
    const char *last = h + (hn - nn);
    for (const char *p = h; p <= last; p++) {
        p = memchr(p, nd[0], (size_t)(last - p) + 1);
        if (!p)
            return NULL;
        if (!memcmp(p, nd, nn))
            return p;
    }
    return NULL;
}

/* strings.Count: non-overlapping occurrences; an empty needle counts code points + 1. */
static size_t count_bytes(const char *h, size_t hn, const char *nd, size_t nn)
{
    if (nn == 0)
        return dc_utf8_count(h, hn) + 1;
    size_t n = 0;
    const char *p = h, *end = h + hn;
    while ((p = find_bytes(p, (size_t)(end - p), nd, nn)) != NULL) {
        n++;
        p += nn;
    }
    return n;
}

static dc_val new_string(dc_ectx *c, const char *p, size_t n)
{
    dc_str *s = dc_str_new(c, p, n);
    return s ? dc_strval(s) : dc_oom(c);
}

static bool is_str(dc_val v)
{
    return v.k == DC_K_STRING;
}

static bool charge(dc_ectx *c, uint64_t units)
{
    return dc_cost(c, units);
}

/* ---- size, contains, startsWith, endsWith. */

static dc_val fn_size(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    switch (a[0].k) {
    case DC_K_STRING: return dc_int((int64_t)cp_count(a[0].u.s));
    case DC_K_BYTES: return dc_int((int64_t)a[0].u.s->len);
    case DC_K_LIST: return dc_int((int64_t)a[0].u.l->n);
    case DC_K_MAP: return dc_int((int64_t)a[0].u.m->n);
    default: return dc_err_no_overload(c);
    }
}

static dc_val fn_contains(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || !is_str(a[1]))
        return dc_err_no_overload(c);
    const dc_str *s = a[0].u.s, *sub = a[1].u.s;
    uint64_t cost = dc_lib_scan_cost(cp_count(s)) * dc_lib_scan_cost(cp_count(sub));
    if (!charge(c, cost))
        return dc_lib_cost_error(c);
    return dc_bool(find_bytes(s->data, s->len, sub->data, sub->len) != NULL);
}

static dc_val fn_starts_with(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || !is_str(a[1]))
        return dc_err_no_overload(c);
    const dc_str *s = a[0].u.s, *p = a[1].u.s;
    if (!charge(c, dc_lib_scan_cost(cp_count(s))))
        return dc_lib_cost_error(c);
    return dc_bool(p->len <= s->len && !memcmp(s->data, p->data, p->len));
}

static dc_val fn_ends_with(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || !is_str(a[1]))
        return dc_err_no_overload(c);
    const dc_str *s = a[0].u.s, *p = a[1].u.s;
    if (!charge(c, dc_lib_scan_cost(cp_count(s))))
        return dc_lib_cost_error(c);
    return dc_bool(p->len <= s->len && !memcmp(s->data + s->len - p->len, p->data, p->len));
}

/* ---- charAt, indexOf, lastIndexOf. */

static dc_val err_index(dc_ectx *c, int64_t i)
{
    return dc_error(c, "index out of range: %lld", (long long)i);
}

static dc_val fn_char_at(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || a[1].k != DC_K_INT)
        return dc_err_no_overload(c);
    const dc_str *s = a[0].u.s;
    int64_t i = a[1].u.i;
    size_t cnt = cp_count(s);
    if (i < 0 || (uint64_t)i > cnt)
        return err_index(c, i);
    if ((uint64_t)i == cnt)
        return new_string(c, "", 0);
    size_t off = cp_offset(s, (size_t)i);
    return new_string(c, s->data + off, seq_len((unsigned char)s->data[off]));
}

/* Kubernetes' traversalCost of a string: trunc(bytes * 0.1). */
static uint64_t str_traversal(const dc_str *s)
{
    return (uint64_t)((double)s->len * 0.1);
}

static dc_val str_index_of(dc_ectx *c, const dc_str *s, const dc_str *sub, int64_t off)
{
    if (sub->len == 0)
        return dc_int(off);
    size_t cnt = cp_count(s);
    if (off < 0 || (uint64_t)off >= cnt)
        return err_index(c, off);
    size_t start = cp_offset(s, (size_t)off);
    const char *p = find_bytes(s->data + start, s->len - start, sub->data, sub->len);
    if (!p)
        return dc_int(-1);
    return dc_int(off + (int64_t)dc_utf8_count(s->data + start, (size_t)(p - (s->data + start))));
}

static dc_val str_last_index_of(dc_ectx *c, const dc_str *s, const dc_str *sub, int64_t off)
{
    if (sub->len == 0)
        return dc_int(off);
    int64_t cnt = (int64_t)cp_count(s);
    if (off < 0 || off >= cnt)
        return err_index(c, off);
    int64_t subcnt = (int64_t)cp_count(sub);
    if (off > cnt - subcnt)
        off = cnt - subcnt;
    if (off < 0)
        return dc_int(-1);
    size_t pos = cp_offset(s, (size_t)off);
    for (int64_t i = off;; i--) {
        if (s->len - pos >= sub->len && !memcmp(s->data + pos, sub->data, sub->len))
            return dc_int(i);
        if (i == 0)
            break;
        do
            pos--;
        while (((unsigned char)s->data[pos] & 0xC0) == 0x80);
    }
    return dc_int(-1);
}

static dc_val fn_index_of2(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k == DC_K_LIST)
        return dc_lib_list_index_of(c, a[0], a[1], false);
    if (!is_str(a[0]) || !is_str(a[1]))
        return dc_err_no_overload(c);
    if (!charge(c, str_traversal(a[0].u.s)))
        return dc_lib_cost_error(c);
    return str_index_of(c, a[0].u.s, a[1].u.s, 0);
}

static dc_val fn_index_of3(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || !is_str(a[1]) || a[2].k != DC_K_INT)
        return dc_err_no_overload(c);
    if (!charge(c, str_traversal(a[0].u.s)))
        return dc_lib_cost_error(c);
    return str_index_of(c, a[0].u.s, a[1].u.s, a[2].u.i);
}

static dc_val fn_last_index_of2(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k == DC_K_LIST)
        return dc_lib_list_index_of(c, a[0], a[1], true);
    if (!is_str(a[0]) || !is_str(a[1]))
        return dc_err_no_overload(c);
    if (!charge(c, str_traversal(a[0].u.s)))
        return dc_lib_cost_error(c);
    int64_t cnt = (int64_t)cp_count(a[0].u.s);
    if (a[1].u.s->len == 0)
        return dc_int(cnt);
    /* A needle longer than the string is not there (cel-go since 2025: ''.lastIndexOf('@@')
     * is -1, not an out-of-range error). */
    if ((int64_t)cp_count(a[1].u.s) > cnt)
        return dc_int(-1);
    return str_last_index_of(c, a[0].u.s, a[1].u.s, cnt - 1);
}

static dc_val fn_last_index_of3(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || !is_str(a[1]) || a[2].k != DC_K_INT)
        return dc_err_no_overload(c);
    if (!charge(c, str_traversal(a[0].u.s)))
        return dc_lib_cost_error(c);
    return str_last_index_of(c, a[0].u.s, a[1].u.s, a[2].u.i);
}

/* ---- lowerAscii, upperAscii, trim, substring. */

static dc_val map_ascii(dc_ectx *c, const dc_val *a, bool upper)
{
    if (!is_str(a[0]))
        return dc_err_no_overload(c);
    const dc_str *s = a[0].u.s;
    if (!charge(c, dc_lib_scan_cost(cp_count(s))))
        return dc_lib_cost_error(c);
    dc_str *r = dc_str_alloc(c, s->len);
    if (!r)
        return dc_oom(c);
    for (uint32_t i = 0; i < s->len; i++) {
        char ch = s->data[i];
        if (upper && ch >= 'a' && ch <= 'z')
            ch = (char)(ch - 'a' + 'A');
        else if (!upper && ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        r->data[i] = ch;
    }
    return dc_strval(r);
}

static dc_val fn_lower_ascii(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    return map_ascii(c, a, false);
}

static dc_val fn_upper_ascii(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    return map_ascii(c, a, true);
}

/* unicode.IsSpace. */
static bool is_space(uint32_t r)
{
    switch (r) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ':
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F:
    case 0x3000:
        return true;
    default:
        return r >= 0x2000 && r <= 0x200A;
    }
}

static dc_val fn_trim(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]))
        return dc_err_no_overload(c);
    const dc_str *s = a[0].u.s;
    if (!charge(c, dc_lib_scan_cost(cp_count(s))))
        return dc_lib_cost_error(c);
    const unsigned char *p = (const unsigned char *)s->data;
    size_t b = 0, e = s->len;
    while (b < e) {
        uint32_t cp;
        int k = dc_utf8_decode(p + b, e - b, &cp);
        if (k == 0 || !is_space(cp))
            break;
        b += (size_t)k;
    }
    while (e > b) {
        size_t q = e - 1;
        while (q > b && (p[q] & 0xC0) == 0x80)
            q--;
        uint32_t cp;
        int k = dc_utf8_decode(p + q, e - q, &cp);
        if (k == 0 || !is_space(cp))
            break;
        e = q;
    }
    if (b == 0 && e == s->len)
        return a[0];
    return new_string(c, s->data + b, e - b);
}

static dc_val fn_substring2(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || a[1].k != DC_K_INT)
        return dc_err_no_overload(c);
    const dc_str *s = a[0].u.s;
    size_t cnt = cp_count(s);
    if (!charge(c, dc_lib_scan_cost(cnt)))
        return dc_lib_cost_error(c);
    int64_t start = a[1].u.i;
    if (start < 0 || (uint64_t)start > cnt)
        return err_index(c, start);
    size_t off = cp_offset(s, (size_t)start);
    return new_string(c, s->data + off, s->len - off);
}

static dc_val fn_substring3(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || a[1].k != DC_K_INT || a[2].k != DC_K_INT)
        return dc_err_no_overload(c);
    const dc_str *s = a[0].u.s;
    size_t cnt = cp_count(s);
    if (!charge(c, dc_lib_scan_cost(cnt)))
        return dc_lib_cost_error(c);
    int64_t start = a[1].u.i, end = a[2].u.i;
    if (start > end)
        return dc_error(c, "invalid substring range. start: %lld, end: %lld", (long long)start,
                        (long long)end);
    if (start < 0 || (uint64_t)start > cnt)
        return err_index(c, start);
    if (end < 0 || (uint64_t)end > cnt)
        return err_index(c, end);
    size_t b = cp_offset(s, (size_t)start), e = cp_offset(s, (size_t)end);
    return new_string(c, s->data + b, e - b);
}

/* ---- replace, split, join. */

/* strings.Replace(s, old, new, limit); limit < 0: all. */
static dc_val do_replace(dc_ectx *c, const dc_str *s, const dc_str *old, const dc_str *nw,
                         int64_t limit, dc_val self)
{
    if (!charge(c, (uint64_t)ceil((double)cp_count(s) * 2 * 0.1)))
        return dc_lib_cost_error(c);
    if ((old->len == nw->len && !memcmp(old->data, nw->data, old->len)) || limit == 0)
        return self;
    size_t m = count_bytes(s->data, s->len, old->data, old->len);
    if (m == 0)
        return self;
    uint64_t reps = limit < 0 || (uint64_t)limit > m ? m : (uint64_t)limit;
    dc_buf b;
    dc_buf_init(&b, c->arena.alloc);
    size_t start = 0;
    for (uint64_t i = 0; i < reps; i++) {
        size_t j = start;
        if (old->len == 0) {
            if (i > 0)
                j += seq_len((unsigned char)s->data[start]);
        } else {
            const char *p = find_bytes(s->data + start, s->len - start, old->data, old->len);
            j = (size_t)(p - s->data);
        }
        dc_buf_append(&b, s->data + start, j - start);
        dc_buf_append(&b, nw->data, nw->len);
        start = j + old->len;
    }
    dc_buf_append(&b, s->data + start, s->len - start);
    return dc_lib_buf_string(c, &b);
}

static dc_val fn_replace3(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || !is_str(a[1]) || !is_str(a[2]))
        return dc_err_no_overload(c);
    return do_replace(c, a[0].u.s, a[1].u.s, a[2].u.s, -1, a[0]);
}

static dc_val fn_replace4(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || !is_str(a[1]) || !is_str(a[2]) || a[3].k != DC_K_INT)
        return dc_err_no_overload(c);
    return do_replace(c, a[0].u.s, a[1].u.s, a[2].u.s, a[3].u.i, a[0]);
}

/* strings.SplitN(s, sep, limit); limit < 0: all. */
static dc_val do_split(dc_ectx *c, const dc_str *s, const dc_str *sep, int64_t limit)
{
    if (!charge(c, (uint64_t)ceil((double)cp_count(s) * 2 * 0.1)))
        return dc_lib_cost_error(c);
    if (limit == 0) {
        dc_list *l = dc_list_new(c, 0);
        return l ? dc_listval(l) : dc_oom(c);
    }
    size_t parts;
    if (sep->len == 0) {
        size_t cnt = cp_count(s);
        parts = limit < 0 || (uint64_t)limit > cnt ? cnt : (size_t)limit;
    } else {
        parts = limit < 0 ? count_bytes(s->data, s->len, sep->data, sep->len) + 1 : (size_t)0;
        if (limit > 0)
            parts = (uint64_t)limit > (uint64_t)s->len + 1 ? (size_t)s->len + 1 : (size_t)limit;
    }
    if (parts > UINT32_MAX)
        return dc_oom(c);
    dc_list *l = dc_list_new(c, (uint32_t)parts);
    if (!l)
        return dc_oom(c);
    size_t pos = 0, k = 0;
    if (sep->len == 0) {
        for (; k + 1 < parts; k++) {
            size_t w = seq_len((unsigned char)s->data[pos]);
            dc_str *e = dc_str_new(c, s->data + pos, w);
            if (!e)
                return dc_oom(c);
            l->v[k] = dc_strval(e);
            pos += w;
        }
    } else {
        for (; k + 1 < parts; k++) {
            const char *p = find_bytes(s->data + pos, s->len - pos, sep->data, sep->len);
            if (!p)
                break;
            size_t m = (size_t)(p - (s->data + pos));
            dc_str *e = dc_str_new(c, s->data + pos, m);
            if (!e)
                return dc_oom(c);
            l->v[k] = dc_strval(e);
            pos += m + sep->len;
        }
    }
    if (parts > 0) {
        dc_str *e = dc_str_new(c, s->data + pos, s->len - pos);
        if (!e)
            return dc_oom(c);
        l->v[k++] = dc_strval(e);
    }
    l->n = (uint32_t)k;
    return dc_listval(l);
}

static dc_val fn_split2(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || !is_str(a[1]))
        return dc_err_no_overload(c);
    return do_split(c, a[0].u.s, a[1].u.s, -1);
}

static dc_val fn_split3(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || !is_str(a[1]) || a[2].k != DC_K_INT)
        return dc_err_no_overload(c);
    return do_split(c, a[0].u.s, a[1].u.s, a[2].u.i);
}

/* Go's %v of a (non-string) value, for join's error message. */
static void go_value_text(dc_buf *b, dc_val v)
{
    char tmp[32];
    switch (v.k) {
    case DC_K_NULL: dc_buf_puts(b, "0"); break; /* types.Null is an int32 enum without String() */
    case DC_K_BOOL: dc_buf_puts(b, v.u.b ? "true" : "false"); break;
    case DC_K_INT: dc_buf_printf(b, "%lld", (long long)v.u.i); break;
    case DC_K_UINT: dc_buf_printf(b, "%llu", (unsigned long long)v.u.u); break;
    case DC_K_DOUBLE:
        dc_lib_format_double(v.u.d, tmp); /* %v of a float64 is %g */
        dc_buf_puts(b, tmp);
        break;
    case DC_K_TYPE: dc_buf_puts(b, dc_typename_str[v.u.t]); break;
    default: dc_buf_puts(b, v.k == DC_K_LIST ? "[...]" : v.k == DC_K_MAP ? "map[...]" : "?"); break;
    }
}

static dc_val do_join(dc_ectx *c, const dc_list *l, const char *sep, size_t seplen)
{
    dc_buf b;
    dc_buf_init(&b, c->arena.alloc);
    for (uint32_t i = 0; i < l->n; i++) {
        if (i)
            dc_buf_append(&b, sep, seplen);
        if (l->v[i].k != DC_K_STRING) {
            dc_buf msg;
            dc_buf_init(&msg, c->arena.alloc);
            go_value_text(&msg, l->v[i]);
            dc_val e = msg.oom ? dc_oom(c)
                               : dc_error(c, "join: invalid input: %s", msg.data ? msg.data : "");
            dc_buf_free(&msg);
            dc_buf_free(&b);
            return e;
        }
        dc_buf_append(&b, l->v[i].u.s->data, l->v[i].u.s->len);
    }
    if (b.oom) {
        dc_buf_free(&b);
        return dc_oom(c);
    }
    uint64_t cost = (uint64_t)ceil((double)dc_utf8_count(b.data ? b.data : "", b.len) * 2 * 0.1);
    if (!charge(c, cost)) {
        dc_buf_free(&b);
        return dc_lib_cost_error(c);
    }
    return dc_lib_buf_string(c, &b);
}

static dc_val fn_join1(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_LIST)
        return dc_err_no_overload(c);
    return do_join(c, a[0].u.l, "", 0);
}

static dc_val fn_join2(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_LIST || !is_str(a[1]))
        return dc_err_no_overload(c);
    return do_join(c, a[0].u.l, a[1].u.s->data, a[1].u.s->len);
}

/* ---- strings.quote and Go's strconv.Quote. */

static dc_val fn_quote(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]))
        return dc_err_no_overload(c);
    const dc_str *s = a[0].u.s;
    if (!charge(c, dc_lib_scan_cost(cp_count(s))))
        return dc_lib_cost_error(c);
    dc_buf b;
    dc_buf_init(&b, c->arena.alloc);
    dc_buf_putc(&b, '"');
    for (uint32_t i = 0; i < s->len; i++) {
        const char *esc = NULL;
        switch (s->data[i]) {
        case '\a': esc = "\\a"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\v': esc = "\\v"; break;
        case '\\': esc = "\\\\"; break;
        case '"': esc = "\\\""; break;
        default: break;
        }
        if (esc)
            dc_buf_puts(&b, esc);
        else
            dc_buf_putc(&b, s->data[i]);
    }
    dc_buf_putc(&b, '"');
    return dc_lib_buf_string(c, &b);
}

/* unicode.IsPrint, approximately: every assigned graphic code point is printable; this rejects
 * controls, non-ASCII spaces, format characters, private use, surrogates and noncharacters
 * (unassigned code points are treated as printable). */
static bool go_is_print(uint32_t r)
{
    if (r < 0x80)
        return r >= 0x20 && r < 0x7F;
    if (r < 0xA0 || r == 0xA0 || r == 0xAD)
        return false;
    static const uint32_t ranges[][2] = {
        {0x0600, 0x0605}, {0x061C, 0x061C}, {0x06DD, 0x06DD}, {0x070F, 0x070F},
        {0x0890, 0x0891}, {0x08E2, 0x08E2}, {0x1680, 0x1680}, {0x180E, 0x180E},
        {0x2000, 0x200F}, {0x2028, 0x202F}, {0x205F, 0x206F}, {0x3000, 0x3000},
        {0xD800, 0xF8FF}, {0xFDD0, 0xFDEF}, {0xFEFF, 0xFEFF}, {0xFFF0, 0xFFFB},
        {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3},
        {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F}, {0xF0000, 0x10FFFF},
    };
    if ((r & 0xFFFE) == 0xFFFE)
        return false;
    for (size_t i = 0; i < DC_COUNTOF(ranges); i++)
        if (r >= ranges[i][0] && r <= ranges[i][1])
            return false;
    return true;
}

/* strconv.Quote (Go's %q of a string). */
static void go_quote(dc_buf *b, const char *p, size_t n)
{
    dc_buf_putc(b, '"');
    size_t i = 0;
    while (i < n) {
        uint32_t r;
        int k = dc_utf8_decode((const unsigned char *)p + i, n - i, &r);
        if (k == 0) {
            dc_buf_printf(b, "\\x%02x", (unsigned char)p[i]);
            i++;
            continue;
        }
        if (r == '"' || r == '\\') {
            dc_buf_putc(b, '\\');
            dc_buf_putc(b, (char)r);
        } else if (go_is_print(r)) {
            dc_buf_append(b, p + i, (size_t)k);
        } else {
            switch (r) {
            case '\a': dc_buf_puts(b, "\\a"); break;
            case '\b': dc_buf_puts(b, "\\b"); break;
            case '\f': dc_buf_puts(b, "\\f"); break;
            case '\n': dc_buf_puts(b, "\\n"); break;
            case '\r': dc_buf_puts(b, "\\r"); break;
            case '\t': dc_buf_puts(b, "\\t"); break;
            case '\v': dc_buf_puts(b, "\\v"); break;
            default:
                if (r < ' ' || r == 0x7F)
                    dc_buf_printf(b, "\\x%02x", (unsigned)r);
                else if (r < 0x10000)
                    dc_buf_printf(b, "\\u%04x", (unsigned)r);
                else
                    dc_buf_printf(b, "\\U%08x", (unsigned)r);
                break;
            }
        }
        i += (size_t)k;
    }
    dc_buf_putc(b, '"');
}

/* ---- format(). */

/* A formatting failure: the message (static or in the arena) or an OOM. */
typedef struct fmt_err {
    const char *msg;
    bool oom;
} fmt_err;

static const char *type_name(dc_val v)
{
    switch (v.k) {
    case DC_K_NULL: return dc_typename_str[DC_T_NULL];
    case DC_K_BOOL: return dc_typename_str[DC_T_BOOL];
    case DC_K_INT: return dc_typename_str[DC_T_INT];
    case DC_K_UINT: return dc_typename_str[DC_T_UINT];
    case DC_K_DOUBLE: return dc_typename_str[DC_T_DOUBLE];
    case DC_K_STRING: return dc_typename_str[DC_T_STRING];
    case DC_K_BYTES: return dc_typename_str[DC_T_BYTES];
    case DC_K_LIST: return dc_typename_str[DC_T_LIST];
    case DC_K_MAP: return dc_typename_str[DC_T_MAP];
    case DC_K_TYPE: return dc_typename_str[DC_T_TYPE];
    case DC_K_OPTIONAL: return dc_typename_str[DC_T_OPTIONAL];
    case DC_K_QUANTITY: return dc_typename_str[DC_T_QUANTITY];
    case DC_K_SEMVER: return dc_typename_str[DC_T_SEMVER];
    default: return "error";
    }
}

/* fmt is always one of this file's literal templates with one %s. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static bool fail(dc_ectx *c, fmt_err *e, const char *fmt, const char *arg)
{
    char *m = NULL;
    int len = snprintf(NULL, 0, fmt, arg);
    if (len >= 0 && (m = dc_ealloc(c, (size_t)len + 1)) != NULL)
        snprintf(m, (size_t)len + 1, fmt, arg);
#pragma GCC diagnostic pop
    if (!m)
        e->oom = true;
    e->msg = m;
    return false;
}

static bool bytes_as_string(dc_ectx *c, fmt_err *e, const dc_str *s)
{
    const unsigned char *p = (const unsigned char *)s->data;
    for (size_t i = 0; i < s->len;) {
        uint32_t cp;
        int k = dc_utf8_decode(p + i, s->len - i, &cp);
        if (k == 0)
            return fail(c, e, "could not convert argument %s to string",
                        "\"invalid UTF-8 in bytes, cannot convert to string\"");
        i += (size_t)k;
    }
    return true;
}

static void put_double_g(dc_buf *b, double d)
{
    char tmp[32];
    dc_buf_append(b, tmp, dc_lib_format_double(d, tmp));
}

/* Go's fmt "%.6f" (used for doubles inside lists and maps). */
static void put_double_f6(dc_buf *b, double d)
{
    if (isnan(d))
        dc_buf_puts(b, "NaN");
    else if (isinf(d))
        dc_buf_puts(b, d > 0 ? "+Inf" : "-Inf");
    else
        dc_buf_printf(b, "%.6f", d);
}

static bool format_value(dc_ectx *c, dc_buf *b, dc_val v, fmt_err *e, bool top);

/* clauseForType + quoteForCEL: an element of a list or a value of a map. */
static bool format_element(dc_ectx *c, dc_buf *b, dc_val v, fmt_err *e)
{
    switch (v.k) {
    case DC_K_INT: dc_buf_printf(b, "%lld", (long long)v.u.i); return true;
    case DC_K_UINT: dc_buf_printf(b, "%llu", (unsigned long long)v.u.u); return true;
    case DC_K_STRING: go_quote(b, v.u.s->data, v.u.s->len); return true;
    case DC_K_BYTES:
        if (!bytes_as_string(c, e, v.u.s))
            return false;
        dc_buf_putc(b, 'b');
        go_quote(b, v.u.s->data, v.u.s->len);
        return true;
    case DC_K_BOOL: dc_buf_puts(b, v.u.b ? "true" : "false"); return true;
    case DC_K_NULL: dc_buf_puts(b, "null"); return true;
    case DC_K_TYPE: dc_buf_puts(b, dc_typename_str[v.u.t]); return true;
    case DC_K_DOUBLE:
        if (isnan(v.u.d) || isinf(v.u.d)) {
            dc_buf_putc(b, '"');
            put_double_f6(b, v.u.d);
            dc_buf_putc(b, '"');
        } else {
            put_double_f6(b, v.u.d);
        }
        return true;
    case DC_K_LIST:
    case DC_K_MAP:
        return format_value(c, b, v, e, false);
    default:
        return fail(c, e, "no formatting function for %s", type_name(v));
    }
}

typedef struct map_pair {
    char *key;
    size_t klen;
    char *val;
    size_t vlen;
} map_pair;

static int pair_cmp(const map_pair *x, const map_pair *y)
{
    size_t n = x->klen < y->klen ? x->klen : y->klen;
    int r = memcmp(x->key, y->key, n);
    if (r)
        return r;
    return x->klen < y->klen ? -1 : x->klen > y->klen;
}

static bool format_map(dc_ectx *c, dc_buf *b, const dc_map *m, fmt_err *e)
{
    map_pair *pairs = dc_ealloc(c, (m->n ? m->n : 1) * sizeof *pairs);
    if (!pairs) {
        e->oom = true;
        return false;
    }
    for (uint32_t i = 0; i < m->n; i++) {
        dc_buf kb, vb;
        dc_buf_init(&kb, c->arena.alloc);
        dc_buf_init(&vb, c->arena.alloc);
        dc_val k = m->keys[i];
        bool ok = true;
        switch (k.k) {
        case DC_K_STRING: go_quote(&kb, k.u.s->data, k.u.s->len); break;
        case DC_K_BOOL: dc_buf_puts(&kb, k.u.b ? "true" : "false"); break;
        case DC_K_INT: dc_buf_printf(&kb, "%lld", (long long)k.u.i); break;
        case DC_K_UINT: dc_buf_printf(&kb, "%llu", (unsigned long long)k.u.u); break;
        default: ok = fail(c, e, "no formatting function for map key of type %s", type_name(k)); break;
        }
        if (ok)
            ok = format_element(c, &vb, m->vals[i], e);
        if (ok && (kb.oom || vb.oom)) {
            e->oom = true;
            ok = false;
        }
        if (ok) {
            pairs[i].key = dc_ealloc(c, kb.len + 1);
            pairs[i].val = dc_ealloc(c, vb.len + 1);
            if (!pairs[i].key || !pairs[i].val) {
                e->oom = true;
                ok = false;
            } else {
                memcpy(pairs[i].key, kb.data ? kb.data : "", kb.len);
                memcpy(pairs[i].val, vb.data ? vb.data : "", vb.len);
                pairs[i].klen = kb.len;
                pairs[i].vlen = vb.len;
            }
        }
        dc_buf_free(&kb);
        dc_buf_free(&vb);
        if (!ok)
            return false;
    }
    /* Stable insertion sort by the printed key (keys are distinct, so stability is moot). */
    for (uint32_t i = 1; i < m->n; i++) {
        map_pair t = pairs[i];
        uint32_t j = i;
        while (j > 0 && pair_cmp(&t, &pairs[j - 1]) < 0) {
            pairs[j] = pairs[j - 1];
            j--;
        }
        pairs[j] = t;
    }
    dc_buf_putc(b, '{');
    for (uint32_t i = 0; i < m->n; i++) {
        if (i)
            dc_buf_puts(b, ", ");
        dc_buf_append(b, pairs[i].key, pairs[i].klen);
        dc_buf_putc(b, ':');
        dc_buf_append(b, pairs[i].val, pairs[i].vlen);
    }
    dc_buf_putc(b, '}');
    return true;
}

/* FormatString (%s) at the top level, or a nested list/map. */
static bool format_value(dc_ectx *c, dc_buf *b, dc_val v, fmt_err *e, bool top)
{
    switch (v.k) {
    case DC_K_LIST:
        dc_buf_putc(b, '[');
        for (uint32_t i = 0; i < v.u.l->n; i++) {
            if (i)
                dc_buf_puts(b, ", ");
            if (!format_element(c, b, v.u.l->v[i], e))
                return false;
        }
        dc_buf_putc(b, ']');
        return true;
    case DC_K_MAP:
        return format_map(c, b, v.u.m, e);
    case DC_K_INT: dc_buf_printf(b, "%lld", (long long)v.u.i); return true;
    case DC_K_UINT: dc_buf_printf(b, "%llu", (unsigned long long)v.u.u); return true;
    case DC_K_DOUBLE: put_double_g(b, v.u.d); return true;
    case DC_K_BOOL: dc_buf_puts(b, v.u.b ? "true" : "false"); return true;
    case DC_K_STRING: dc_buf_append(b, v.u.s->data, v.u.s->len); return true;
    case DC_K_BYTES:
        if (!bytes_as_string(c, e, v.u.s))
            return false;
        dc_buf_append(b, v.u.s->data, v.u.s->len);
        return true;
    case DC_K_TYPE: dc_buf_puts(b, dc_typename_str[v.u.t]); return true;
    case DC_K_NULL: dc_buf_puts(b, "null"); return true;
    default:
        (void)top;
        return fail(c, e,
                    "string clause can only be used on strings, bools, bytes, ints, doubles, maps, "
                    "lists, types, durations, and timestamps, was given %s",
                    type_name(v));
    }
}

/* Integer in base 2, 8 or 16 as Go's %b %o %x %X print int64/uint64 (a '-' for negatives). */
static void put_radix(dc_buf *b, dc_val v, unsigned base, bool upper)
{
    const char *digs = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    uint64_t u;
    bool neg = false;
    if (v.k == DC_K_INT) {
        neg = v.u.i < 0;
        u = neg ? 0 - (uint64_t)v.u.i : (uint64_t)v.u.i;
    } else {
        u = v.u.u;
    }
    char tmp[72];
    int k = (int)sizeof tmp;
    do {
        tmp[--k] = digs[u % base];
        u /= base;
    } while (u);
    if (neg)
        tmp[--k] = '-';
    dc_buf_append(b, tmp + k, sizeof tmp - (size_t)k);
}

/* The x/text en-US number formatter's digit grouping: a separator after the digit at position
 * pos (counted from the decimal point) when pos-1 is a positive multiple of 3. */
static bool needs_sep(int64_t pos)
{
    int64_t p = pos - 1;
    return p > 0 && p % 3 == 0;
}

/* Go's float64 -> uint64 conversion as compiled for amd64 (out of range: 1<<63). */
static uint64_t go_f2u(double v)
{
    if (v < 9223372036854775808.0)
        return (uint64_t)(int64_t)v;
    double y = v - 9223372036854775808.0;
    uint64_t z = y < 9223372036854775808.0 ? (uint64_t)(int64_t)y : 0x8000000000000000ull;
    return z | 0x8000000000000000ull;
}

/* Go's int64(f) on amd64 for the parity test of ToNearestEven (out of range: 1<<63). */
static uint64_t go_f2i_bits(double v)
{
    if (v >= -9223372036854775808.0 && v < 9223372036854775808.0)
        return (uint64_t)(int64_t)v;
    return 0x8000000000000000ull;
}

static void put_utf8(dc_buf *b, const char *s)
{
    dc_buf_puts(b, s);
}

/* message.NewPrinter(en-US).Sprintf("%.<prec>f", x). */
static void format_fixed(dc_buf *b, double x, int64_t prec)
{
    if (isnan(x)) {
        dc_buf_puts(b, "NaN");
        return;
    }
    if (isinf(x)) {
        put_utf8(b, x < 0 ? "-\xe2\x88\x9e" : "\xe2\x88\x9e");
        return;
    }
    bool neg = x < 0;
    /* ConvertFloat with Scale = prec: x * 10^prec, rounded half to even, to a uint64. */
    double scaled;
    if (prec >= 70) {
        scaled = x * pow(10, (double)prec);
    } else {
        double p10 = 1.0;
        for (int64_t i = 0; i < prec; i++)
            p10 *= 10;
        scaled = x * p10;
    }
    double abs = fabs(scaled);
    double ip = 0;
    double fp = modf(abs, &ip);
    if (fp != 0.0) {
        bool inc = fp > 0.5 || (fp == 0.5 && (go_f2i_bits(ip) & 1) != 0);
        if (inc)
            ip += 1;
        abs = ip;
    }
    uint64_t u = isinf(abs) ? 0x8000000000000000ull : go_f2u(abs);
    char digs[24];
    int nd = u ? snprintf(digs, sizeof digs, "%llu", (unsigned long long)u) : 0;
    int64_t exp = (int64_t)nd - prec;
    while (nd > 0 && digs[nd - 1] == '0')
        nd--;
    if (nd == 0)
        exp = 0;
    unsigned frac_digits = (unsigned)(uint8_t)prec; /* MinFractionDigits is a uint8 */
    /* Split into integer and fraction parts (appendDecimal). */
    int64_t num_int = 0, num_frac = 0;
    const char *intd = "", *fracd = "";
    int64_t n_intd = 0, n_fracd = 0;
    if (exp > 0) {
        num_int = exp;
        if (exp >= nd) {
            intd = digs;
            n_intd = nd;
        } else {
            intd = digs;
            n_intd = exp;
            fracd = digs + exp;
            n_fracd = nd - exp;
            num_frac = n_fracd;
        }
    } else {
        fracd = digs;
        n_fracd = nd;
        num_frac = -exp + nd;
    }
    if ((int64_t)frac_digits < num_frac) {
        int64_t extra = num_frac - (int64_t)frac_digits;
        if (extra > n_fracd) {
            num_frac = 0;
            n_fracd = 0;
        } else {
            num_frac = frac_digits;
            n_fracd -= extra;
        }
    }
    if (neg)
        dc_buf_putc(b, '-');
    if (num_int == 0)
        dc_buf_putc(b, '0');
    int64_t i = 0;
    for (; i < n_intd; i++) {
        dc_buf_putc(b, intd[i]);
        if (needs_sep(num_int - i))
            dc_buf_putc(b, ',');
    }
    for (; i < num_int; i++) {
        dc_buf_putc(b, '0');
        if (needs_sep(num_int - i))
            dc_buf_putc(b, ',');
    }
    int64_t trail = (int64_t)frac_digits - num_frac;
    if (num_frac > 0 || trail > 0)
        dc_buf_putc(b, '.');
    for (int64_t z = num_frac - n_fracd; z > 0; z--)
        dc_buf_putc(b, '0');
    dc_buf_append(b, fracd, (size_t)n_fracd);
    for (; trail > 0; trail--)
        dc_buf_putc(b, '0');
}

/* message.NewPrinter(en-US).Sprintf("%<width>e", x): 7 significant digits, "×10" and a
 * superscript exponent of at least two digits; padded with spaces on the left to width code
 * points (width < 0: none). */
static void format_scientific(dc_buf *b, double x, int64_t width)
{
    static const char *const sup[] = {
        "\xe2\x81\xb0", "\xc2\xb9", "\xc2\xb2", "\xc2\xb3", "\xe2\x81\xb4",
        "\xe2\x81\xb5", "\xe2\x81\xb6", "\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9",
    };
    dc_buf t;
    dc_buf_init(&t, b->alloc);
    if (isnan(x)) {
        dc_buf_puts(&t, "NaN");
    } else if (isinf(x)) {
        put_utf8(&t, x < 0 ? "-\xe2\x88\x9e" : "\xe2\x88\x9e");
    } else {
        char tmp[40];
        snprintf(tmp, sizeof tmp, "%.6e", fabs(x));
        char digs[8];
        int nd = 0;
        char *ep = strchr(tmp, 'e');
        for (char *p = tmp; p < ep; p++)
            if (*p != '.')
                digs[nd++] = *p;
        long e10 = strtol(ep + 1, NULL, 10);
        bool zero = true;
        for (int i = 0; i < nd; i++)
            zero = zero && digs[i] == '0';
        if (zero)
            e10 = 0;
        if (x < 0)
            dc_buf_putc(&t, '-');
        dc_buf_putc(&t, digs[0]);
        dc_buf_putc(&t, '.');
        dc_buf_append(&t, digs + 1, 6);
        dc_buf_puts(&t, "\xe2\x80\xaf\xc3\x97\xe2\x80\xaf" "10");
        if (e10 < 0) {
            dc_buf_puts(&t, "\xe2\x81\xbb");
            e10 = -e10;
        }
        char ed[24];
        int en = snprintf(ed, sizeof ed, "%ld", e10);
        if (en < 2)
            dc_buf_puts(&t, sup[0]);
        for (int i = 0; i < en; i++)
            dc_buf_puts(&t, sup[ed[i] - '0']);
    }
    if (t.oom) {
        b->oom = true;
    } else {
        int64_t runes = (int64_t)dc_utf8_count(t.data ? t.data : "", t.len);
        for (int64_t i = runes; i < width; i++)
            dc_buf_putc(b, ' ');
        dc_buf_append(b, t.data ? t.data : "", t.len);
    }
    dc_buf_free(&t);
}

/* The double a %f/%e clause formats: a double, or one of the strings "NaN", "Infinity",
 * "-Infinity". */
static bool float_arg(dc_val v, double *out)
{
    if (v.k == DC_K_DOUBLE) {
        *out = v.u.d;
        return true;
    }
    if (v.k == DC_K_STRING) {
        const dc_str *s = v.u.s;
        if ((s->len == 3 && !memcmp(s->data, "NaN", 3)) ||
            (s->len == 8 && !memcmp(s->data, "Infinity", 8)) ||
            (s->len == 9 && !memcmp(s->data, "-Infinity", 9)))
            return dc_lib_parse_double(NULL, s->data, s->len, out);
    }
    return false;
}

/* Go fmt's parsenum limit: a width or precision whose leading digits exceed 1e6 is not a
 * number, and the verb is then lost ("%!(NOVERB)"). */
static bool go_num_too_large(int64_t v)
{
    return v / 10 > 1000000;
}

static bool format_clause(dc_ectx *c, dc_buf *b, char verb, bool has_prec, int64_t prec,
                          dc_val arg, fmt_err *e)
{
    double d;
    switch (verb) {
    case 's':
        return format_value(c, b, arg, e, true);
    case 'd':
        if (arg.k != DC_K_INT && arg.k != DC_K_UINT)
            return fail(c, e, "decimal clause can only be used on integers, was given %s",
                        type_name(arg));
        if (arg.k == DC_K_INT)
            dc_buf_printf(b, "%lld", (long long)arg.u.i);
        else
            dc_buf_printf(b, "%llu", (unsigned long long)arg.u.u);
        return true;
    case 'f':
        if (!float_arg(arg, &d))
            return fail(c, e, "fixed-point clause can only be used on doubles, was given %s",
                        type_name(arg));
        if (has_prec && go_num_too_large(prec))
            dc_buf_puts(b, "%!(NOVERB)");
        else
            format_fixed(b, d, has_prec ? prec : 6);
        return true;
    case 'e':
        if (!float_arg(arg, &d))
            return fail(c, e, "scientific clause can only be used on doubles, was given %s",
                        type_name(arg));
        if (has_prec && go_num_too_large(prec))
            dc_buf_puts(b, "%!(NOVERB)");
        else
            format_scientific(b, d, has_prec ? prec : 6);
        return true;
    case 'b':
        if (arg.k == DC_K_BOOL) {
            dc_buf_putc(b, arg.u.b ? '1' : '0');
            return true;
        }
        if (arg.k != DC_K_INT && arg.k != DC_K_UINT)
            return fail(c, e, "only integers and bools can be formatted as binary, was given %s",
                        type_name(arg));
        put_radix(b, arg, 2, false);
        return true;
    case 'o':
        if (arg.k != DC_K_INT && arg.k != DC_K_UINT)
            return fail(c, e, "octal clause can only be used on integers, was given %s",
                        type_name(arg));
        put_radix(b, arg, 8, false);
        return true;
    default: /* 'x', 'X' */
        if (arg.k == DC_K_STRING || arg.k == DC_K_BYTES) {
            const char *digs = verb == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
            for (uint32_t i = 0; i < arg.u.s->len; i++) {
                unsigned char ch = (unsigned char)arg.u.s->data[i];
                dc_buf_putc(b, digs[ch >> 4]);
                dc_buf_putc(b, digs[ch & 15]);
            }
            return true;
        }
        if (arg.k != DC_K_INT && arg.k != DC_K_UINT)
            return fail(c, e,
                        "only integers, byte buffers, and strings can be formatted as hex, was "
                        "given %s",
                        type_name(arg));
        put_radix(b, arg, 16, verb == 'X');
        return true;
    }
}

static dc_val fn_format(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_str(a[0]) || a[1].k != DC_K_LIST)
        return dc_err_no_overload(c);
    const dc_str *fs = a[0].u.s;
    const dc_list *args = a[1].u.l;
    if (!charge(c, dc_lib_scan_cost(cp_count(fs))))
        return dc_lib_cost_error(c);
    dc_buf b;
    dc_buf_init(&b, c->arena.alloc);
    const char *s = fs->data;
    size_t len = fs->len, i = 0;
    uint32_t argi = 0;
    dc_val err = dc_null();
    while (i < len) {
        if (s[i] != '%') {
            size_t j = i;
            while (j < len && s[j] != '%')
                j++;
            dc_buf_append(&b, s + i, j - i);
            i = j;
            continue;
        }
        if (i + 1 < len && s[i + 1] == '%') {
            dc_buf_putc(&b, '%');
            i += 2;
            continue;
        }
        if (argi >= args->n) {
            err = dc_error(c, "index %u out of range", (unsigned)argi);
            break;
        }
        if (i + 1 >= len) {
            err = dc_error(c, "unexpected end of string");
            break;
        }
        size_t j = i + 1;
        bool has_prec = false;
        int64_t prec = 0;
        if (s[j] == '.') {
            j++;
            size_t d0 = j;
            while (j < len && s[j] >= '0' && s[j] <= '9')
                j++;
            if (j >= len) {
                err = dc_error(c, "could not parse formatting clause: error while parsing "
                                  "precision: could not find end of precision specifier");
                break;
            }
            if (j == d0) {
                err = dc_error(c, "could not parse formatting clause: error while parsing "
                                  "precision: error while converting precision to integer: "
                                  "strconv.Atoi: parsing \"\": invalid syntax");
                break;
            }
            bool range = false;
            for (size_t k = d0; k < j; k++) {
                int dg = s[k] - '0';
                if (prec > (INT64_MAX - dg) / 10)
                    range = true;
                else
                    prec = prec * 10 + dg;
            }
            if (range) {
                err = dc_error(c, "could not parse formatting clause: error while parsing "
                                  "precision: error while converting precision to integer: "
                                  "strconv.Atoi: parsing \"%.*s\": value out of range",
                               (int)(j - d0), s + d0);
                break;
            }
            has_prec = true;
        }
        unsigned char verb = (unsigned char)s[j];
        if (!strchr("sdfebxXo", verb) || verb == 0) {
            /* Go prints rune(byte): a byte >= 0x80 becomes a Latin-1 code point. */
            char vb[3] = {(char)verb, 0, 0};
            if (verb >= 0x80) {
                vb[0] = (char)(0xC0 | (verb >> 6));
                vb[1] = (char)(0x80 | (verb & 0x3F));
            }
            if (verb == 0)
                err = dc_error(c, "could not parse formatting clause: unrecognized formatting "
                                  "clause \"%c\"", '\0');
            else
                err = dc_error(c, "could not parse formatting clause: unrecognized formatting "
                                  "clause \"%s\"", vb);
            break;
        }
        fmt_err fe = {NULL, false};
        if (!format_clause(c, &b, (char)verb, has_prec, prec, args->v[argi], &fe)) {
            if (fe.oom)
                err = dc_oom(c);
            else
                err = dc_error(c, "error during formatting: %s", fe.msg);
            break;
        }
        i = j + 1;
        argi++;
    }
    if (err.k == DC_K_ERROR) {
        dc_buf_free(&b);
        return err;
    }
    return dc_lib_buf_string(c, &b);
}

const dc_builtin dc_lib_strings[] = {
    {"size", false, 1, 0, fn_size},
    {"size", true, 1, 0, fn_size},
    {"contains", true, 2, 0, fn_contains},
    {"startsWith", true, 2, 0, fn_starts_with},
    {"endsWith", true, 2, 0, fn_ends_with},
    {"charAt", true, 2, 0, fn_char_at},
    {"indexOf", true, 2, 0, fn_index_of2},
    {"indexOf", true, 3, 0, fn_index_of3},
    {"lastIndexOf", true, 2, 0, fn_last_index_of2},
    {"lastIndexOf", true, 3, 0, fn_last_index_of3},
    {"lowerAscii", true, 1, 0, fn_lower_ascii},
    {"upperAscii", true, 1, 0, fn_upper_ascii},
    {"replace", true, 3, 0, fn_replace3},
    {"replace", true, 4, 0, fn_replace4},
    {"split", true, 2, 0, fn_split2},
    {"split", true, 3, 0, fn_split3},
    {"substring", true, 2, 0, fn_substring2},
    {"substring", true, 3, 0, fn_substring3},
    {"trim", true, 1, 0, fn_trim},
    {"join", true, 1, 0, fn_join1},
    {"join", true, 2, 0, fn_join2},
    {"format", true, 2, 0, fn_format},
    {"strings.quote", false, 1, 0, fn_quote},
};
const uint32_t dc_lib_strings_count = (uint32_t)DC_COUNTOF(dc_lib_strings);
