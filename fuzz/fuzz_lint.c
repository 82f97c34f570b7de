/*
 * fuzz_lint: libFuzzer harness for `dra-celc lint` in the library (src/lint.c, src/lint_expr.c,
 * src/srcmap.c): one file's bytes (YAML or JSON) linted alone, with every rule on. Built with
 * --enable-fuzzing; seeds are the files of tests/lint/ (fuzz/corpus/lint/).
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dracel_lint *l = NULL;
    if (dracel_lint_new(NULL, NULL, &l, NULL, 0) != DRACEL_OK)
        return 0;
    dracel_status st = dracel_lint_add(l, "fuzz.yaml", (const char *)data, size);
    CHECK(st == DRACEL_OK || st == DRACEL_ENOMEM);
    if (st == DRACEL_OK) {
        st = dracel_lint_run(l);
        CHECK(st == DRACEL_OK || st == DRACEL_ENOMEM);
    }
    uint32_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    uint32_t pl = 0, pc = 0;
    for (size_t i = 0; st == DRACEL_OK && i < dracel_lint_count(l); i++) {
        dracel_finding f;
        CHECK(dracel_lint_finding(l, i, &f) == DRACEL_OK);
        CHECK(f.rule && f.message && f.file);
        CHECK(f.severity == DRACEL_SEV_ERROR || f.severity == DRACEL_SEV_WARNING ||
              f.severity == DRACEL_SEV_NOTE);
        CHECK(f.line >= 1 && f.line <= lines && f.column >= 1);
        CHECK(!f.source || f.column <= strlen(f.source) + 1);
        CHECK(f.line > pl || (f.line == pl && f.column >= pc));
        pl = f.line;
        pc = f.column;
    }
    dracel_lint_free(l);
    return 0;
}
