/*
 * semver.h: the value type and operations behind the Kubernetes CEL library "kubernetes.Semver"
 * (semver(), isSemver(), major()/minor()/patch(), compareTo/isGreaterThan/isLessThan and ==),
 * and behind device "version" attributes of resource.k8s.io, which Kubernetes parses with the
 * same strict parser. Self-contained: standard headers only, no allocation, no global state.
 *
 * Reference behaviour (matched exactly, see semver.c for the rules):
 *   - strict parse: github.com/blang/semver/v4 Parse (semver.go), including its error texts;
 *   - normalized parse (semver(s, true), isSemver(s, true)): normalizeAndParse in
 *     kubernetes/apiserver pkg/cel/library/semverlib.go (drop one leading 'v', fill a missing
 *     minor/patch with 0, trim leading zeros of each of the first three dot-parts, then strict
 *     parse); unlike blang's ParseTolerant it does NOT trim whitespace;
 *   - ordering: blang Version.Compare (semver 2.0.0 precedence; build metadata ignored);
 *   - equality: Kubernetes' Semver.Equal is blang's EQ, i.e. Compare == 0, so build metadata is
 *     ignored: semver("1.0.0+a") == semver("1.0.0+b") is true.
 *
 * Ownership: a dc_semver does not own text. `pre` and `build` point into the string given to
 * dc_semver_parse (also on the normalized path: normalization only rewrites the numeric parts,
 * never the prerelease or build text), so that string must outlive the value and must not be
 * modified; copy the text and re-parse (or relocate the two pointers by the same offset) to move a
 * value. A dc_semver_error likewise borrows its operand from the parsed string.
 *
 * Invariants of a value filled by a successful parse:
 *   - pre_len == 0 iff there is no prerelease (an empty prerelease is a parse error), and then
 *     pre == NULL; the same for build/build_len;
 *   - pre is a '.'-separated list of non-empty identifiers over [0-9A-Za-z-]; a purely numeric one
 *     has no leading zero and fits in uint64; build identifiers are non-empty over [0-9A-Za-z-];
 *   - hence two values have equal precedence iff major, minor, patch and the prerelease bytes are
 *     equal, and the canonical text (blang's String()) is major.minor.patch[-pre][+build] with the
 *     prerelease and build text exactly as parsed.
 */
#ifndef DC_SEMVER_H
#define DC_SEMVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dc_semver {
    uint64_t major, minor, patch;
    const char *pre;   /* prerelease without the '-', not NUL-terminated; NULL if none */
    const char *build; /* build metadata without the '+', not NUL-terminated; NULL if none */
    size_t pre_len;
    size_t build_len;
} dc_semver;

/* Why a parse failed. Each code is one error of blang Parse, strconv.ParseUint, or
 * normalizeAndParse; the comment is Go's err.Error() text, %q being the operand. */
typedef enum dc_semver_errc {
    DC_SEMVER_OK = 0,
    DC_SEMVER_E_EMPTY,        /* Version string empty */
    DC_SEMVER_E_NO_ELEMENTS,  /* No Major.Minor.Patch elements found */
    DC_SEMVER_E_MAJOR_CHARS,  /* Invalid character(s) found in major number %q */
    DC_SEMVER_E_MAJOR_ZEROES, /* Major number must not contain leading zeroes %q */
    DC_SEMVER_E_MINOR_CHARS,  /* Invalid character(s) found in minor number %q */
    DC_SEMVER_E_MINOR_ZEROES, /* Minor number must not contain leading zeroes %q */
    DC_SEMVER_E_PATCH_CHARS,  /* Invalid character(s) found in patch number %q */
    DC_SEMVER_E_PATCH_ZEROES, /* Patch number must not contain leading zeroes %q */
    DC_SEMVER_E_SYNTAX,       /* strconv.ParseUint: parsing %q: invalid syntax (an empty number) */
    DC_SEMVER_E_RANGE,        /* strconv.ParseUint: parsing %q: value out of range (> 2^64-1) */
    DC_SEMVER_E_PRE_EMPTY,    /* Prerelease is empty */
    DC_SEMVER_E_PRE_ZEROES,   /* Numeric PreRelease version must not contain leading zeroes %q */
    DC_SEMVER_E_PRE_CHARS,    /* Invalid character(s) found in prerelease %q */
    DC_SEMVER_E_BUILD_EMPTY,  /* Build meta data is empty */
    DC_SEMVER_E_BUILD_CHARS,  /* Invalid character(s) found in build meta data %q */
    DC_SEMVER_E_SHORT         /* short version cannot contain PreRelease/Build meta data */
} dc_semver_errc;

typedef struct dc_semver_error {
    dc_semver_errc code;
    const char *msg;       /* static; the same pointer dc_semver_parse returns */
    const char *operand;   /* the %q operand: a span of the parsed string (possibly empty); */
    size_t operand_len;    /* NULL/0 for codes without an operand */
    bool operand_zero;     /* normalized path: Go's operand is "0" followed by the span */
} dc_semver_error;

/*
 * Parse s[0..n) (any bytes; no NUL terminator needed). normalize=false is blang Parse, as used by
 * semver(s), isSemver(s) and device version attributes; normalize=true is Kubernetes'
 * normalizeAndParse, as used by semver(s, true) and isSemver(s, true).
 * Returns NULL on success, else a static message: Go's error text with the quoted operand (and
 * the space before it) left out, e.g. "Invalid character(s) found in major number" or
 * "strconv.ParseUint: parsing: value out of range"; dc_semver_error_format gives the full text.
 * On failure *out is zeroed. out may be NULL.
 */
const char *dc_semver_parse(const char *s, size_t n, bool normalize, dc_semver *out);

/* As dc_semver_parse, also describing the failure in *err (which may be NULL; on success its
 * code is DC_SEMVER_OK and msg NULL). */
const char *dc_semver_parse_ex(const char *s, size_t n, bool normalize, dc_semver *out,
                               dc_semver_error *err);

/* Go's err.Error() for a failed parse, e.g. `Invalid character(s) found in major number "v1"`
 * (DRA prefixes it with "parse semantic version: "). The operand is quoted as Go's %q
 * (strconv.Quote) does: exact for ASCII and invalid UTF-8; for valid non-ASCII runes a built-in
 * list of non-printable ranges stands in for unicode.IsPrint (unassigned code points are kept
 * verbatim where Go would escape them). The string parsed must still be alive.
 * Writes at most cap bytes including a NUL (when cap > 0); returns the full length without
 * the NUL, like snprintf. */
size_t dc_semver_error_format(const dc_semver_error *err, char *buf, size_t cap);

/* isSemver(s[, normalize]): true iff dc_semver_parse would succeed. */
bool dc_semver_is_valid(const char *s, size_t n, bool normalize);

/* compareTo: -1, 0 or 1 by semver 2.0.0 precedence (blang Version.Compare): major, minor, patch
 * numerically; a version without prerelease is greater than one with; prerelease identifiers
 * left to right, numeric ones numerically and lower than alphanumeric ones, alphanumeric ones
 * bytewise; a shorter identifier list that is a prefix is lower. Build metadata is ignored.
 * No allocation, no parsing of numbers. isGreaterThan is cmp == 1, isLessThan is cmp == -1. */
int dc_semver_cmp(const dc_semver *a, const dc_semver *b);

/* CEL ==: blang EQ, i.e. dc_semver_cmp(a, b) == 0 (build metadata ignored). */
bool dc_semver_eq(const dc_semver *a, const dc_semver *b);

/* blang String(): "major.minor.patch[-pre][+build]". Writes at most cap bytes including a NUL
 * (when cap > 0); returns the full length without the NUL, like snprintf. */
size_t dc_semver_format(const dc_semver *v, char *buf, size_t cap);

/* major()/minor()/patch() return Go's types.Int(uint64), i.e. the two's complement wrap of the
 * uint64 to int64: 18446744073709551615 -> -1, no error. This does that conversion portably. */
int64_t dc_semver_cel_int(uint64_t u);

#endif
