/*
 * regex.h: regular expressions for CEL's matches(), find() and findAll(), with the syntax and
 * semantics of Go's regexp package (RE2 syntax, leftmost-first, linear-time matching), which is
 * what cel-go and therefore Kubernetes use.
 *
 * The implementation (regex_re2.cc) is a C++ shim over RE2 plus a small pre-pass that makes RE2
 * accept and reject exactly what Go accepts and rejects where the two differ. The interface is
 * deliberately narrow so that another engine (e.g. a Pike VM of our own) can replace RE2 without
 * touching the callers.
 *
 * Patterns and subjects are byte strings with explicit lengths: they may contain NUL bytes (CEL
 * strings may contain U+0000). Positions are byte offsets into the subject. Subjects are expected
 * to be valid UTF-8 (CEL strings always are); invalid UTF-8 is handled without crashing but is
 * matched with RE2's rules, not Go's (Go reads each invalid byte as U+FFFD).
 *
 * Nothing here is exported from libdracel. This header compiles as C11 and as C++.
 */
#ifndef DC_REGEX_H
#define DC_REGEX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A compiled pattern: opaque, immutable after compilation, safe to share between threads. */
typedef struct dc_re dc_re;

/** Default memory bound of one compiled pattern (RE2's max_mem: program + DFA caches). */
#define DC_RE_DEFAULT_MAX_MEM ((size_t)8 << 20)
/** Smaller bounds are raised to this. */
#define DC_RE_MIN_MAX_MEM ((size_t)64 << 10)

/**
 * Compile the pattern pat[0..n) (pat may be NULL when n == 0: the empty pattern) with
 * DC_RE_DEFAULT_MAX_MEM. On error returns NULL and, if errbuf is not NULL and errcap > 0,
 * writes a NUL-terminated message into errbuf (truncated to errcap - 1 bytes at a UTF-8 character
 * boundary). The message is Go's regexp.Compile error text, e.g.
 *     error parsing regexp: missing closing ): `(a`
 * which is exactly what cel-go reports for matches() with an invalid pattern at run time
 * (Kubernetes' find()/findAll() prefix it with "Illegal regex: "; cel-go's compile-time
 * ValidateRegexLiterals only says "invalid matches argument"). It quotes the pattern, so it
 * contains a NUL byte if the pattern does. Out of memory is reported as "out of memory".
 */
dc_re *dc_re_compile(const char *pat, size_t n, char *errbuf, size_t errcap);

/**
 * dc_re_compile with an explicit memory bound in bytes (0: the default; smaller than
 * DC_RE_MIN_MAX_MEM: raised to it). A pattern whose program does not fit fails with Go's
 * "expression too large" error; a DFA that outgrows its share falls back to a slower but still
 * linear-time matcher. The default fits programs of roughly 500k instructions: `\pL{400}` fits,
 * `\pL{1000}` does not (Go accepts it: a known difference).
 */
dc_re *dc_re_compile_ex(const char *pat, size_t n, size_t max_mem, char *errbuf, size_t errcap);

/**
 * The size of the compiled program, in RE2 instructions (RE2::ProgramSize): about the pattern's
 * length for ordinary patterns, far more for counted repetitions (`a{1000}`: 1,004; `\pL{400}`:
 * 477,204). Matching takes time proportional to the subject's length times this size in the worst
 * case, which is what the run-time cost of a regex call charges (src/lib_core.c). 0 for NULL.
 */
size_t dc_re_program_size(const dc_re *re);

/** Free a compiled pattern; NULL is a no-op. */
void dc_re_free(dc_re *re);

/**
 * Does the pattern match anywhere in s[0..n)? (CEL matches() and Go's MatchString: substring
 * semantics; anchor with ^ and $ for a full match.) Returns 1 match, 0 no match, -1 internal
 * error (out of memory, NULL pattern).
 */
int dc_re_match(const dc_re *re, const char *s, size_t n);

/**
 * The leftmost-first match in s[0..n), like Go's FindStringIndex: returns 1 and sets
 * [*start, *end), or 0 if there is none, or -1 on internal error. The match may be empty
 * (*start == *end): Kubernetes' find() returns "" both for an empty match and for no match.
 */
int dc_re_find(const dc_re *re, const char *s, size_t n, size_t *start, size_t *end);

/**
 * Iteration over successive non-overlapping matches, exactly like Go's FindAllString(s, -1):
 * after an empty match the search resumes one UTF-8 character further on (one byte for an
 * invalid byte), and an empty match that begins right where the previous match ended is
 * skipped. Each search sees the whole subject as context, so ^, \b and \B at a resume position
 * look at the text before it.
 *
 * Initialise the iterator with DC_RE_ITER_INIT (or dc_re_iter_init) and pass the same re, s and
 * n to every call. Returns 1 and sets [*start, *end) for the next match, 0 when there are no
 * more (and on every later call), -1 on internal error. For findAll(re, limit) the caller stops
 * after `limit` matches (a negative limit means all, 0 means none, as in Go).
 */
typedef struct dc_re_iter {
    size_t pos;      /* where the next search starts */
    size_t prev_end; /* end of the previous match (accepted or skipped); (size_t)-1 if none */
    int done;        /* no more matches */
} dc_re_iter;

#define DC_RE_ITER_INIT {0, (size_t)-1, 0}

void dc_re_iter_init(dc_re_iter *it);
int dc_re_find_next(const dc_re *re, const char *s, size_t n, dc_re_iter *it, size_t *start,
                    size_t *end);

#ifdef __cplusplus
}
#endif

#endif /* DC_REGEX_H */
