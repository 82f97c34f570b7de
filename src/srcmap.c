/*
 * srcmap.c: where each byte of a YAML or JSON string value came from in its file, so that a
 * position inside a CEL expression (a byte offset into the decoded text) can be shown at its
 * line and column in the file (lint.h, dc_srcmap).
 *
 * The loaders (src/load/json.c, src/load/yaml.c) decode every scalar with libyaml or the JSON
 * scanner and keep where its node starts (dc_tnode.off). Here the scalar is decoded again from that point, by the
 * rules of its style, recording the source offset of each byte produced: plain and quoted flow
 * scalars with YAML's line folding, double-quoted escapes, literal (|) and folded (>) block
 * scalars with their indentation and chomping, JSON strings with escapes. The decoding is
 * guided by the text the loader produced: every byte must agree, and a scalar this code reads
 * differently (a construct it does not know) gives no map rather than wrong positions.
 *
 * The rules follow libyaml 0.2.5's scanner (scan_plain_scalar, scan_flow_scalar,
 * scan_block_scalar): folding keeps a single line break as a space and n empty lines as n line
 * breaks, trailing blanks before a break are dropped, an escaped line break joins lines.
 *
 * Change with: src/load/json.c, src/load/yaml.c (what dc_tnode.off means), tests/unit/test_lint.c.
 */
#include "lint.h"

#include <string.h>

typedef struct sm {
    const char *t;      /* the file */
    size_t n;           /* its length */
    const char *want;   /* the decoded value */
    size_t wlen, k;     /* its length; bytes matched so far */
    uint32_t *map;      /* map[i]: source offset of decoded byte i */
    bool bad;           /* the decoding disagreed with want */
} sm;

static bool done(const sm *s)
{
    return s->bad || s->k >= s->wlen;
}

/* Decoded bytes b[0..n), all from source offset pos (an escape, a folded break). */
static void emit(sm *s, const char *b, size_t n, size_t pos)
{
    for (size_t i = 0; i < n && !done(s); i++) {
        if (s->want[s->k] != b[i]) {
            s->bad = true;
            return;
        }
        s->map[s->k++] = (uint32_t)pos;
    }
}

/* One source byte copied as it is. */
static void copy(sm *s, size_t pos)
{
    emit(s, s->t + pos, 1, pos);
}

/* A line break at p: its length (\n, \r, \r\n, NEL), or 0. */
static size_t brk(const sm *s, size_t p)
{
    if (p >= s->n)
        return 0;
    unsigned char c = (unsigned char)s->t[p];
    if (c == '\n')
        return 1;
    if (c == '\r')
        return p + 1 < s->n && s->t[p + 1] == '\n' ? 2 : 1;
    if (c == 0xC2 && p + 1 < s->n && (unsigned char)s->t[p + 1] == 0x85)
        return 2;
    return 0;
}

static bool blank(const sm *s, size_t p)
{
    return p < s->n && (s->t[p] == ' ' || s->t[p] == '\t');
}

/*
 * Flow folding at p, a blank or a break inside a plain or quoted scalar: blanks followed by
 * more text are content; blanks before a break are dropped; the break becomes a space, or the
 * empty lines after it become line breaks; the next line's leading blanks are dropped.
 * @p escaped: the break was escaped (double-quoted `\` + break): no space, only the empty lines.
 * @return where the next content starts.
 */
static size_t fold(sm *s, size_t p, bool escaped)
{
    size_t q = p;
    if (!escaped) {
        while (blank(s, q))
            q++;
        if (!brk(s, q)) {
            for (; p < q; p++)
                copy(s, p);
            return q;
        }
    }
    size_t first = q; /* the break (escaped: the first position after it) */
    if (!escaped)
        q += brk(s, q);
    unsigned nl = 0;
    for (;;) {
        size_t r = q;
        while (blank(s, r))
            r++;
        size_t b = brk(s, r);
        if (!b) {
            q = r;
            break;
        }
        emit(s, "\n", 1, r); /* an empty line: its break is kept */
        nl++;
        q = r + b;
    }
    if (!escaped && nl == 0)
        emit(s, " ", 1, first); /* one break between two lines: a space */
    return q;
}

static int hexv(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        return (c | 0x20) - 'a' + 10;
    return -1;
}

/* n hex digits at p, or -1. */
static long hexn(const sm *s, size_t p, unsigned n)
{
    if (p + n > s->n)
        return -1;
    long v = 0;
    for (unsigned i = 0; i < n; i++) {
        int h = hexv(s->t[p + i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static void emit_cp(sm *s, long cp, size_t pos)
{
    char u[4];
    if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        s->bad = true;
        return;
    }
    emit(s, u, (size_t)dc_utf8_encode((uint32_t)cp, u), pos);
}

/* A double-quoted YAML escape at p (the backslash). @return the position after it. */
static size_t yaml_escape(sm *s, size_t p)
{
    if (p + 1 >= s->n) {
        s->bad = true;
        return s->n;
    }
    char e = s->t[p + 1];
    static const char from[] = "0abt\tnvfre \"/\\";
    static const char to[] = "\0\a\b\t\t\n\v\f\r\x1b \"/\\";
    const char *x = memchr(from, e, sizeof from - 1);
    if (x) {
        emit(s, &to[x - from], 1, p);
        return p + 2;
    }
    switch (e) {
    case 'N': emit(s, "\xC2\x85", 2, p); return p + 2;
    case '_': emit(s, "\xC2\xA0", 2, p); return p + 2;
    case 'L': emit(s, "\xE2\x80\xA8", 3, p); return p + 2;
    case 'P': emit(s, "\xE2\x80\xA9", 3, p); return p + 2;
    case 'x': emit_cp(s, hexn(s, p + 2, 2), p); return p + 4;
    case 'u': emit_cp(s, hexn(s, p + 2, 4), p); return p + 6;
    case 'U': emit_cp(s, hexn(s, p + 2, 8), p); return p + 10;
    default: break;
    }
    s->bad = true;
    return s->n;
}

/* Plain, single- or double-quoted (quote 0, '\'', '"') from p, the first content byte. */
static void flow(sm *s, size_t p, char quote)
{
    while (!done(s) && p < s->n) {
        char c = s->t[p];
        if (quote && c == quote) {
            if (quote == '\'' && p + 1 < s->n && s->t[p + 1] == '\'') {
                emit(s, "'", 1, p);
                p += 2;
                continue;
            }
            break; /* the closing quote */
        }
        if (quote == '"' && c == '\\') {
            size_t b = brk(s, p + 1);
            if (b) {
                p = fold(s, p + 1 + b, true);
                continue;
            }
            p = yaml_escape(s, p);
            continue;
        }
        if (c == ' ' || c == '\t' || brk(s, p)) {
            p = fold(s, p, false);
            continue;
        }
        copy(s, p++);
    }
}

/* The column (in bytes: indentation is spaces) where the key of a `key: |` line starts, past
 * any `- ` sequence indicators: the indentation libyaml's explicit indicator adds to. */
static size_t parent_indent(const sm *s, size_t p)
{
    size_t ls = p;
    while (ls > 0 && s->t[ls - 1] != '\n' && s->t[ls - 1] != '\r')
        ls--;
    size_t q = ls, last_dash = SIZE_MAX;
    for (;;) {
        while (q < p && s->t[q] == ' ')
            q++;
        if (q + 1 < p && s->t[q] == '-' && (s->t[q + 1] == ' ' || s->t[q + 1] == '\t')) {
            last_dash = q;
            q += 2;
            continue;
        }
        break;
    }
    if (q >= p) /* the indicator itself is the entry: `- |2` */
        return last_dash == SIZE_MAX ? 0 : last_dash - ls;
    return q - ls;
}

/* A block scalar from p, its indicator ('|' or '>'). */
static void block(sm *s, size_t p)
{
    bool literal = s->t[p] == '|';
    int chomp = 0; /* -1 strip, 0 clip, 1 keep */
    size_t indent = 0;
    size_t hdr = p++;
    for (int i = 0; i < 2 && p < s->n; i++) {
        char c = s->t[p];
        if (c == '+' || c == '-') {
            chomp = c == '+' ? 1 : -1;
            p++;
        } else if (c >= '1' && c <= '9') {
            indent = parent_indent(s, hdr) + (size_t)(c - '0');
            p++;
        }
    }
    while (blank(s, p))
        p++;
    if (p < s->n && s->t[p] == '#')
        while (p < s->n && !brk(s, p))
            p++;
    size_t b = brk(s, p);
    if (!b) {
        s->bad = p < s->n;
        return;
    }
    p += b;
    if (!indent) {
        /* the first non-empty line's indentation (at least that of the empty lines before) */
        size_t q = p, maxe = 0;
        for (;;) {
            size_t sp = 0;
            while (q + sp < s->n && s->t[q + sp] == ' ')
                sp++;
            size_t bb = brk(s, q + sp);
            if (q + sp >= s->n) {
                indent = maxe ? maxe : 1;
                break;
            }
            if (!bb) {
                indent = sp > maxe ? sp : maxe;
                if (!indent)
                    indent = 1;
                break;
            }
            if (sp > maxe)
                maxe = sp;
            q += sp + bb;
        }
    }
    /* The breaks held back, as libyaml holds them: the one that ended the last content line
     * (leading) and those of the empty lines after it (trailing). */
    size_t lead = SIZE_MAX, trail[64];
    unsigned ntrail = 0;
    bool lead_blank = false;
    while (!done(s)) {
        /* the indentation (up to `indent` spaces) and the empty lines */
        size_t sp = 0;
        while (sp < indent && p + sp < s->n && s->t[p + sp] == ' ')
            sp++;
        size_t bb = brk(s, p + sp);
        if (bb) {
            if (ntrail < 64)
                trail[ntrail++] = p + sp;
            else
                s->bad = true;
            p += sp + bb;
            continue;
        }
        if (p + sp >= s->n || sp < indent)
            break; /* the end of the scalar */
        p += sp;
        bool trail_blank = blank(s, p);
        if (!literal && lead != SIZE_MAX && !lead_blank && !trail_blank) {
            if (ntrail == 0)
                emit(s, " ", 1, lead);
        } else if (lead != SIZE_MAX) {
            emit(s, "\n", 1, lead);
        }
        for (unsigned i = 0; i < ntrail; i++)
            emit(s, "\n", 1, trail[i]);
        ntrail = 0;
        lead_blank = trail_blank;
        while (p < s->n && !brk(s, p) && !done(s))
            copy(s, p++);
        lead = p;
        p += brk(s, p);
        if (lead >= s->n) {
            lead = SIZE_MAX;
            break;
        }
    }
    if (chomp != -1 && lead != SIZE_MAX)
        emit(s, "\n", 1, lead);
    if (chomp == 1)
        for (unsigned i = 0; i < ntrail; i++)
            emit(s, "\n", 1, trail[i]);
}

/* A JSON string from p, its opening quote. */
static void json_string(sm *s, size_t p)
{
    p++;
    while (!done(s) && p < s->n && s->t[p] != '"') {
        if (s->t[p] != '\\') {
            copy(s, p++);
            continue;
        }
        char e = p + 1 < s->n ? s->t[p + 1] : '\0';
        static const char from[] = "\"\\/bfnrt";
        static const char to[] = "\"\\/\b\f\n\r\t";
        const char *x = e ? memchr(from, e, sizeof from - 1) : NULL;
        if (x) {
            emit(s, &to[x - from], 1, p);
            p += 2;
            continue;
        }
        long u = e == 'u' ? hexn(s, p + 2, 4) : -1;
        if (u < 0) {
            s->bad = true;
            return;
        }
        size_t at = p;
        p += 6;
        if (u >= 0xD800 && u <= 0xDBFF && p + 1 < s->n && s->t[p] == '\\' && s->t[p + 1] == 'u') {
            long lo = hexn(s, p + 2, 4);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            }
        }
        emit_cp(s, u, at);
    }
}

size_t dc_srcmap_byte(const char *text, size_t len, bool json, uint32_t off)
{
    size_t bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    if (json)
        return bom + off < len ? bom + off : len;
    /* libyaml counts characters */
    size_t p = bom;
    for (uint32_t i = 0; i < off && p < len; i++) {
        p++;
        while (p < len && ((unsigned char)text[p] & 0xC0) == 0x80)
            p++;
    }
    return p;
}

uint32_t *dc_srcmap(dc_arena *a, const char *text, size_t len, size_t start, bool json,
                    const char *want, size_t wlen)
{
    if (start >= len)
        return NULL;
    uint32_t *map = dc_arena_alloc(a, (wlen + 1) * sizeof *map);
    if (!map)
        return NULL;
    sm s = {text, len, want, wlen, 0, map, false};
    size_t p = start;
    if (json) {
        if (text[p] != '"')
            return NULL;
        json_string(&s, p);
    } else {
        /* an anchor and a tag may come first */
        while (p < len && (text[p] == '&' || text[p] == '!')) {
            while (p < len && text[p] != ' ' && text[p] != '\t' && !brk(&s, p))
                p++;
            while (p < len && (blank(&s, p) || brk(&s, p)))
                p++;
        }
        if (p >= len)
            return NULL;
        char c = text[p];
        if (c == '"' || c == '\'')
            flow(&s, p + 1, c);
        else if (c == '|' || c == '>')
            block(&s, p);
        else
            flow(&s, p, 0);
    }
    if (s.bad || s.k != wlen)
        return NULL;
    /* the end: after the last byte's source (a multi-byte character's bytes map one to one) */
    map[wlen] = wlen ? map[wlen - 1] + 1 : (uint32_t)p;
    return map;
}
