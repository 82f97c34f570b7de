/*
 * fuzz_lint: libFuzzer harness for `dra-celc lint` in the library (src/lint.c, src/lint_expr.c,
 * src/srcmap.c): one file's bytes (YAML or JSON) linted alone, with every rule on; or, when
 * the input holds a NUL, two files (the bytes before it, then after), so that a TierPolicy is
 * checked against claims and classes. Built with --enable-fuzzing; seeds are the files of
 * tests/lint/ (fuzz/corpus/lint/), and policy-claims (tests/lint/policy/fair-use.yaml, a NUL,
 * tests/lint/14-tier-policy.yaml).
 *
 * Besides crashes and sanitizer reports (the source maps re-read every scalar style from the
 * text, at offsets the loader recorded), it traps on a broken contract: a status other than
 * OK/ENOMEM, a finding outside the file (line past its last line, a column past its line), a
 * finding without a rule, severity or message, or findings out of order.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dracel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

/* Lines of a file, and whether findings come in order within it. */
typedef struct seen {
    uint32_t lines, line, col;
} seen;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dracel_lint *l = NULL;
    if (dracel_lint_new(NULL, NULL, &l, NULL, 0) != DRACEL_OK)
        return 0;
    /* Up to a NUL (which no YAML or JSON text holds): a first file, then the rest as a second,
     * so that rules across files (a TierPolicy's keys against claims) are reached. */
    const uint8_t *nul = memchr(data, 0, size);
    size_t n1 = nul ? (size_t)(nul - data) : size;
    static const char *const NAMES[2] = {"policy.yaml", "fuzz.yaml"};
    const uint8_t *part[2] = {data, nul ? nul + 1 : NULL};
    size_t len[2] = {n1, nul ? size - n1 - 1 : 0};
    seen sn[2] = {{1, 0, 0}, {1, 0, 0}};
    dracel_status st = DRACEL_OK;
    for (int k = 0; k < (nul ? 2 : 1) && st == DRACEL_OK; k++) {
        st = dracel_lint_add(l, nul ? NAMES[k] : NAMES[1], (const char *)part[k], len[k]);
        CHECK(st == DRACEL_OK || st == DRACEL_ENOMEM);
        for (size_t i = 0; i < len[k]; i++)
            sn[nul ? k : 1].lines += part[k][i] == '\n';
    }
    if (st == DRACEL_OK) {
        st = dracel_lint_run(l);
        CHECK(st == DRACEL_OK || st == DRACEL_ENOMEM);
    }
    for (size_t i = 0; st == DRACEL_OK && i < dracel_lint_count(l); i++) {
        dracel_finding f;
        CHECK(dracel_lint_finding(l, i, &f) == DRACEL_OK);
        CHECK(f.rule && f.message && f.file);
        CHECK(f.severity == DRACEL_SEV_ERROR || f.severity == DRACEL_SEV_WARNING ||
              f.severity == DRACEL_SEV_NOTE);
        seen *s = &sn[strcmp(f.file, NAMES[0]) == 0 ? 0 : 1];
        CHECK(f.line >= 1 && f.line <= s->lines && f.column >= 1);
        CHECK(!f.source || f.column <= strlen(f.source) + 1);
        CHECK(f.line > s->line || (f.line == s->line && f.column >= s->col));
        s->line = f.line;
        s->col = f.column;
    }
    dracel_lint_free(l);
    return 0;
}
