/*
 * regex_re2.cc: the C API of regex.h over RE2, with Go regexp's syntax, semantics and error
 * messages.
 *
 * RE2 and Go's regexp/syntax share their design (Go's parser is a port of RE2's), so RE2 in its
 * default (non-POSIX, UTF-8, leftmost-first) mode agrees with Go on almost everything. Where the
 * installed RE2 (Debian's 20220601) differs, a pre-pass over the pattern, which tokenizes it the
 * way Go's parser does, fixes it up:
 *
 *   - `(?<name>re)` (Go 1.22+) and `(?P<name>re)`: Go accepts both, with names [A-Za-z0-9_]+ and
 *     duplicates allowed; RE2 20220601 rejects `(?<`, accepts non-ASCII names. Neither CEL
 *     function uses capture names, so every named group becomes a plain `(` and the name is
 *     validated here with Go's rules and Go's error.
 *   - `\C` (any byte): Go rejects it; RE2 accepts it outside classes. Rejected here.
 *   - Repeat counts Go parses but RE2 does not (10+ digits: `a{9999999999}` is an error in Go, a
 *     literal in RE2) and `*{1001}` (Go checks the count before the operator): every repeat
 *     count Go rejects is rejected here with Go's error.
 *
 * Such a rejection is reported only if Go's parser, scanning from the left, would not have
 * failed earlier: the text before the offending construct is compiled on its own and its error,
 * if any (other than the missing `)` that truncation may cause), wins.
 *
 * RE2's errors are mapped to Go's wording ("error parsing regexp: <code>: `<expr>`"); the
 * offending fragments RE2 reports are the same as Go's, except where Go quotes the whole pattern
 * (missing/unexpected parenthesis, too large), done here from the original pattern.
 *
 * No C++ exception crosses into C: every entry point catches everything (RE2 allocates with
 * operator new, so std::bad_alloc is possible).
 */
#include "regex.h"

#include <re2/re2.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <string>

namespace {

const size_t npos = static_cast<size_t>(-1);

/* Go's regexp/syntax error codes (ErrorCode strings). */
const char kErrInternal[] = "regexp/syntax: internal error";
const char kErrInvalidCharClass[] = "invalid character class";
const char kErrInvalidCharRange[] = "invalid character class range";
const char kErrInvalidEscape[] = "invalid escape sequence";
const char kErrInvalidNamedCapture[] = "invalid named capture";
const char kErrInvalidPerlOp[] = "invalid or unsupported Perl syntax";
const char kErrInvalidRepeatOp[] = "invalid nested repetition operator";
const char kErrInvalidRepeatSize[] = "invalid repeat count";
const char kErrInvalidUTF8[] = "invalid UTF-8";
const char kErrMissingBracket[] = "missing closing ]";
const char kErrMissingParen[] = "missing closing )";
const char kErrMissingRepeatArgument[] = "missing argument to repetition operator";
const char kErrTrailingBackslash[] = "trailing backslash at end of expression";
const char kErrUnexpectedParen[] = "unexpected )";
const char kErrLarge[] = "expression too large";

/* Go's syntax.Error.Error(). */
std::string go_error(const char *code, const char *arg, size_t len)
{
    std::string m = "error parsing regexp: ";
    m += code;
    m += ": `";
    m.append(arg, len);
    m += '`';
    return m;
}

/* Length of the valid UTF-8 sequence at s[0..n) (n >= 1), 0 if it is not one (Go's rules:
 * no overlong forms, no surrogates, nothing above U+10FFFF). */
size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c < 0xC2)
        return 0;
    if (c < 0xE0)
        return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0xF0) {
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
        return n >= 3 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c < 0xF5) {
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
        return n >= 4 && s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 &&
                       (s[3] & 0xC0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}

/* Width of the character at s[0..n) (n >= 1) as Go steps over it: an invalid byte counts 1. */
size_t rune_width(const char *s, size_t n)
{
    size_t l = utf8_len(reinterpret_cast<const unsigned char *>(s), n);
    return l ? l : 1;
}

/* Offset of the first invalid UTF-8 byte in s[0..n), or npos. */
size_t first_invalid_utf8(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t l = utf8_len(reinterpret_cast<const unsigned char *>(s + i), n - i);
        if (!l)
            return i;
        i += l;
    }
    return npos;
}

size_t find_byte(const char *p, size_t n, size_t from, char c)
{
    if (from >= n)
        return npos;
    const void *q = std::memchr(p + from, c, n - from);
    return q ? static_cast<size_t>(static_cast<const char *>(q) - p) : npos;
}

size_t find_pair(const char *p, size_t n, size_t from, char a, char b)
{
    for (size_t k = from; k + 1 < n; k++) {
        k = find_byte(p, n - 1, k, a); /* a at k < n - 1, so p[k + 1] exists */
        if (k == npos)
            return npos;
        if (p[k + 1] == b)
            return k;
    }
    return npos;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_alnum(char c)
{
    return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* The result of the pre-pass. */
struct Prepass {
    std::string out;              /* what RE2 compiles: the rewritten pattern, or the text
                                     before the construct Go rejects (forced) */
    bool forced = false;          /* Go rejects a construct RE2 would accept */
    std::string forced_msg;       /* Go's error for it */
    size_t last_escape = npos;    /* offset of the last escape sequence scanned */
    size_t no_posix_close = npos; /* no ":]" at or after this offset */
};

class Scanner {
  public:
    Scanner(const char *p, size_t n, Prepass &pp) : p_(p), n_(n), pp_(pp) {}

    void run()
    {
        size_t i = 0;
        while (i < n_) {
            switch (p_[i]) {
            case '\\':
                if (i + 1 < n_ && p_[i + 1] == 'Q') {
                    /* \Q...\E (or to the end): literal text, copied as is. */
                    size_t e = find_pair(p_, n_, i + 2, '\\', 'E');
                    size_t j = e == npos ? n_ : e + 2;
                    copy(i, j);
                    i = j;
                    break;
                }
                if (i + 1 < n_ && p_[i + 1] == 'C')
                    return force(kErrInvalidEscape, i, i + 2);
                i = copy_to(i, escape_end(i));
                break;
            case '[':
                i = copy_to(i, class_end(i));
                break;
            case '(':
                if (i + 1 < n_ && p_[i + 1] == '?') {
                    if (!group(i))
                        return;
                    i = next_;
                } else {
                    pp_.out += '(';
                    i++;
                }
                break;
            case '{': {
                long lo, hi;
                size_t after;
                if (!parse_repeat(i, lo, hi, after)) {
                    pp_.out += '{'; /* not a repeat: a literal, for Go and RE2 alike */
                    i++;
                    break;
                }
                if (lo < 0 || lo > 1000 || hi > 1000 || (hi >= 0 && lo > hi))
                    return force(kErrInvalidRepeatSize, i, after);
                i = copy_to(i, after);
                break;
            }
            default:
                pp_.out += p_[i];
                i++;
            }
        }
    }

  private:
    const char *p_;
    size_t n_;
    Prepass &pp_;
    size_t next_ = 0;

    void copy(size_t a, size_t b) { pp_.out.append(p_ + a, b - a); }

    size_t copy_to(size_t a, size_t b)
    {
        copy(a, b);
        return b;
    }

    void force(const char *code, size_t a, size_t b)
    {
        pp_.forced = true;
        pp_.forced_msg = go_error(code, p_ + a, b - a);
    }

    /* End of the escape sequence at p[i] == '\\' as Go's parser delimits it (only its extent
     * matters: errors inside it are RE2's to report). */
    size_t escape_end(size_t i)
    {
        pp_.last_escape = i;
        if (i + 1 >= n_)
            return n_;
        char d = p_[i + 1];
        if (d == 'p' || d == 'P' || d == 'x') {
            if (i + 2 >= n_)
                return n_;
            if (p_[i + 2] == '{') {
                size_t e = find_byte(p_, n_, i + 3, '}');
                return e == npos ? n_ : e + 1;
            }
            size_t k = i + 2 + rune_width(p_ + i + 2, n_ - i - 2); /* \pL, first hex digit */
            if (d == 'x' && k < n_)
                k += rune_width(p_ + k, n_ - k); /* second hex digit */
            return k;
        }
        return i + 1 + rune_width(p_ + i + 1, n_ - i - 1);
    }

    /* End of the character class at p[i] == '[' (Go's parseClass). */
    size_t class_end(size_t i)
    {
        size_t j = i + 1;
        if (j < n_ && p_[j] == '^')
            j++;
        bool first = true; /* ']' is a literal as the first character */
        for (;;) {
            if (j >= n_)
                return n_; /* missing ]: RE2 reports it */
            if (p_[j] == ']' && !first)
                return j + 1;
            first = false;
            if (p_[j] == '[' && j + 2 < n_ && p_[j + 1] == ':' &&
                (pp_.no_posix_close == npos || j + 2 < pp_.no_posix_close)) {
                size_t e = find_pair(p_, n_, j + 2, ':', ']');
                if (e != npos) {
                    j = e + 2; /* [:name:] */
                    continue;
                }
                pp_.no_posix_close = j + 2;
            }
            if (p_[j] == '\\') {
                j = escape_end(j);
                continue;
            }
            j += rune_width(p_ + j, n_ - j);
        }
    }

    /* "(?" at p[i]: a named group or a flag group (Go's parsePerlFlags). Sets next_ and returns
     * true to go on scanning, false to stop (the rest has been dealt with). */
    bool group(size_t i)
    {
        size_t len = n_ - i;
        bool with_p = len > 4 && p_[i + 2] == 'P' && p_[i + 3] == '<';
        bool bare = len > 3 && p_[i + 2] == '<';
        if (with_p || bare) {
            size_t gt = find_byte(p_, n_, i, '>');
            if (gt == npos) {
                size_t bad = first_invalid_utf8(p_ + i, len);
                if (bad != npos)
                    force(kErrInvalidUTF8, i + bad, n_);
                else
                    force(kErrInvalidNamedCapture, i, n_);
                return false;
            }
            size_t name = i + (with_p ? 4 : 3);
            size_t bad = first_invalid_utf8(p_ + name, gt - name);
            if (bad != npos) {
                force(kErrInvalidUTF8, name + bad, gt);
                return false;
            }
            bool ok = gt > name;
            for (size_t k = name; ok && k < gt; k++)
                ok = p_[k] == '_' || is_alnum(p_[k]);
            if (!ok) {
                force(kErrInvalidNamedCapture, i, gt + 1);
                return false;
            }
            pp_.out += '('; /* names are of no use here, and RE2 20220601 rejects (?< */
            next_ = gt + 1;
            return true;
        }
        size_t k = i + 2;
        while (k < n_ && (p_[k] == 'i' || p_[k] == 'm' || p_[k] == 's' || p_[k] == 'U' ||
                          p_[k] == '-'))
            k++;
        if (k < n_ && (p_[k] == ':' || p_[k] == ')')) {
            copy(i, k + 1);
            next_ = k + 1;
            return true;
        }
        /* Go fails right here (invalid or unsupported Perl syntax) and so does RE2: nothing
         * after this point can matter. */
        copy(i, n_);
        return false;
    }

    /* Go's parseInt: a decimal integer without leading zeros; -1 if too big. */
    bool parse_int(size_t &s, long &v)
    {
        if (s >= n_ || !is_digit(p_[s]))
            return false;
        if (s + 1 < n_ && p_[s] == '0' && is_digit(p_[s + 1]))
            return false;
        v = 0;
        bool big = false;
        for (; s < n_ && is_digit(p_[s]); s++) {
            if (big)
                continue;
            if (v >= 100000000) {
                v = -1;
                big = true;
                continue;
            }
            v = v * 10 + (p_[s] - '0');
        }
        return true;
    }

    /* Go's parseRepeat at p[i] == '{': {min} (max = min), {min,} (max = -1), {min,max}. */
    bool parse_repeat(size_t i, long &lo, long &hi, size_t &after)
    {
        size_t s = i + 1;
        if (!parse_int(s, lo) || s >= n_)
            return false;
        if (p_[s] != ',') {
            hi = lo;
        } else {
            s++;
            if (s >= n_)
                return false;
            if (p_[s] == '}') {
                hi = -1;
            } else {
                if (!parse_int(s, hi))
                    return false;
                if (hi < 0)
                    lo = -1;
            }
        }
        if (s >= n_ || p_[s] != '}')
            return false;
        after = s + 1;
        return true;
    }
};

/* RE2's error, in Go's words. */
std::string map_error(const re2::RE2 &re, const char *pat, size_t n, const Prepass &pp)
{
    const std::string &arg = re.error_arg();
    const char *code;
    switch (re.error_code()) {
    case re2::RE2::ErrorBadEscape:
        code = kErrInvalidEscape;
        break;
    case re2::RE2::ErrorBadCharClass:
        code = kErrInvalidCharClass;
        break;
    case re2::RE2::ErrorBadCharRange:
        code = kErrInvalidCharRange;
        break;
    case re2::RE2::ErrorMissingBracket:
        code = kErrMissingBracket;
        break;
    case re2::RE2::ErrorMissingParen:
        return go_error(kErrMissingParen, pat, n);
    case re2::RE2::ErrorUnexpectedParen:
        return go_error(kErrUnexpectedParen, pat, n);
    case re2::RE2::ErrorTrailingBackslash:
        return go_error(kErrTrailingBackslash, "", 0);
    case re2::RE2::ErrorRepeatArgument:
        code = kErrMissingRepeatArgument;
        break;
    case re2::RE2::ErrorRepeatSize:
        code = kErrInvalidRepeatSize;
        break;
    case re2::RE2::ErrorRepeatOp:
        code = kErrInvalidRepeatOp;
        break;
    case re2::RE2::ErrorBadPerlOp:
        code = kErrInvalidPerlOp;
        break;
    case re2::RE2::ErrorBadUTF8: {
        /* RE2 gives no fragment. Go quotes the text from the bad byte on; and where the pattern
         * is valid UTF-8, RE2 means an escape cut short by the end of the pattern (`\x{1`),
         * which Go calls an invalid escape, quoted from its backslash to the end. */
        size_t bad = first_invalid_utf8(pat, n);
        if (bad != npos)
            return go_error(kErrInvalidUTF8, pat + bad, n - bad);
        if (pp.last_escape != npos)
            return go_error(kErrInvalidEscape, pat + pp.last_escape, n - pp.last_escape);
        code = kErrInvalidUTF8;
        break;
    }
    case re2::RE2::ErrorBadNamedCapture:
        code = kErrInvalidNamedCapture;
        break;
    case re2::RE2::ErrorPatternTooLarge:
        return go_error(kErrLarge, pat, n);
    default:
        code = kErrInternal;
        break;
    }
    return go_error(code, arg.data(), arg.size());
}

/* Never allocates, so it is safe in an exception handler. */
void put_error(char *buf, size_t cap, const char *msg, size_t len)
{
    if (!buf || cap == 0)
        return;
    size_t k = len;
    if (k > cap - 1) {
        k = cap - 1;
        while (k > 0 && (static_cast<unsigned char>(msg[k]) & 0xC0) == 0x80)
            k--; /* do not split a UTF-8 sequence */
    }
    std::memcpy(buf, msg, k);
    buf[k] = '\0';
}

void put_error(char *buf, size_t cap, const std::string &msg)
{
    put_error(buf, cap, msg.data(), msg.size());
}

void put_error(char *buf, size_t cap, const char *msg) { put_error(buf, cap, msg, std::strlen(msg)); }

re2::RE2::Options options(size_t max_mem)
{
    re2::RE2::Options o;
    o.set_encoding(re2::RE2::Options::EncodingUTF8);
    o.set_posix_syntax(false);  /* Perl syntax; ^ $ match at text ends only, as Go's Perl flags */
    o.set_longest_match(false); /* leftmost-first, as Go (not POSIX leftmost-longest) */
    o.set_log_errors(false);
    o.set_never_capture(true); /* only the overall match is ever asked for */
    o.set_case_sensitive(true);
    if (max_mem == 0)
        max_mem = DC_RE_DEFAULT_MAX_MEM;
    else if (max_mem < DC_RE_MIN_MAX_MEM)
        max_mem = DC_RE_MIN_MAX_MEM; /* RE2 reads tiny budgets as "no limit" or "nothing fits" */
    if (max_mem > static_cast<size_t>(INT64_MAX))
        max_mem = static_cast<size_t>(INT64_MAX);
    o.set_max_mem(static_cast<int64_t>(max_mem));
    return o;
}

re2::StringPiece subject(const char *s, size_t n) { return re2::StringPiece(s ? s : "", s ? n : 0); }

} // namespace

struct dc_re {
    re2::RE2 re;
    dc_re(const std::string &pat, const re2::RE2::Options &o) : re(pat, o) {}
};

extern "C" {

dc_re *dc_re_compile_ex(const char *pat, size_t n, size_t max_mem, char *errbuf, size_t errcap)
{
    if (!pat && n > 0) {
        put_error(errbuf, errcap, "invalid argument: NULL pattern");
        return nullptr;
    }
    if (!pat)
        pat = "";
    dc_re *h = nullptr;
    try {
        Prepass pp;
        Scanner(pat, n, pp).run();
        re2::RE2::Options o = options(max_mem);
        if (pp.forced) {
            /* Go rejects a construct RE2 would accept. Report it unless Go's left-to-right
             * parse fails earlier, in the text before it. */
            re2::RE2 prefix(pp.out, o);
            if (!prefix.ok() && prefix.error_code() != re2::RE2::ErrorMissingParen &&
                prefix.error_code() != re2::RE2::ErrorPatternTooLarge)
                put_error(errbuf, errcap, map_error(prefix, pat, n, pp));
            else
                put_error(errbuf, errcap, pp.forced_msg);
            return nullptr;
        }
        h = new dc_re(pp.out, o);
        if (!h->re.ok()) {
            put_error(errbuf, errcap, map_error(h->re, pat, n, pp));
            delete h;
            return nullptr;
        }
        return h;
    } catch (const std::bad_alloc &) {
        put_error(errbuf, errcap, "out of memory");
    } catch (...) {
        put_error(errbuf, errcap, kErrInternal);
    }
    delete h;
    return nullptr;
}

dc_re *dc_re_compile(const char *pat, size_t n, char *errbuf, size_t errcap)
{
    return dc_re_compile_ex(pat, n, 0, errbuf, errcap);
}

size_t dc_re_program_size(const dc_re *re)
{
    int n = re ? re->re.ProgramSize() : 0;
    return n > 0 ? static_cast<size_t>(n) : 0;
}

void dc_re_free(dc_re *re)
{
    try {
        delete re;
    } catch (...) {
    }
}

int dc_re_match(const dc_re *re, const char *s, size_t n)
{
    if (!re || (!s && n > 0))
        return -1;
    try {
        re2::StringPiece t = subject(s, n);
        return re->re.Match(t, 0, t.size(), re2::RE2::UNANCHORED, nullptr, 0) ? 1 : 0;
    } catch (...) {
        return -1;
    }
}

int dc_re_find(const dc_re *re, const char *s, size_t n, size_t *start, size_t *end)
{
    if (!re || (!s && n > 0) || !start || !end)
        return -1;
    try {
        re2::StringPiece t = subject(s, n);
        re2::StringPiece m;
        if (!re->re.Match(t, 0, t.size(), re2::RE2::UNANCHORED, &m, 1))
            return 0;
        *start = static_cast<size_t>(m.data() - t.data());
        *end = *start + m.size();
        return 1;
    } catch (...) {
        return -1;
    }
}

void dc_re_iter_init(dc_re_iter *it)
{
    if (!it)
        return;
    it->pos = 0;
    it->prev_end = static_cast<size_t>(-1);
    it->done = 0;
}

/* Go's Regexp.allMatches. */
int dc_re_find_next(const dc_re *re, const char *s, size_t n, dc_re_iter *it, size_t *start,
                    size_t *end)
{
    if (!re || (!s && n > 0) || !it || !start || !end)
        return -1;
    try {
        re2::StringPiece t = subject(s, n);
        while (!it->done) {
            if (it->pos > n) {
                it->done = 1;
                break;
            }
            re2::StringPiece m;
            if (!re->re.Match(t, it->pos, t.size(), re2::RE2::UNANCHORED, &m, 1)) {
                it->done = 1;
                break;
            }
            size_t ms = static_cast<size_t>(m.data() - t.data());
            size_t me = ms + m.size();
            bool accept = true;
            if (me == it->pos) {
                /* An empty match. None is allowed right after the previous match. */
                if (ms == it->prev_end)
                    accept = false;
                if (it->pos < n)
                    it->pos += rune_width(t.data() + it->pos, n - it->pos);
                else
                    it->done = 1; /* Go: pos = end + 1 */
            } else {
                it->pos = me;
            }
            it->prev_end = me;
            if (accept) {
                *start = ms;
                *end = me;
                return 1;
            }
        }
        return 0;
    } catch (...) {
        return -1;
    }
}

} /* extern "C" */
