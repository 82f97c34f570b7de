/*
 * fuzz_parse: libFuzzer harness for the lexer and parser (macros, limits, diagnostics rendering).
 * Built with --enable-fuzzing. The input is used as source text as is (the API takes a length,
 * so NUL bytes and invalid UTF-8 reach the validator); limits are the defaults. The seeds
 * fuzz/corpus/parse/limit-* sit at the depth limit (250) or one level past it, and
 * fuzz/smoke.sh passes a -max_len above the source length limit (10 KiB), so that the limits
 * are tried from both sides (STYLE.md, "Fuzz at the limits").
 */
#include <stddef.h>
#include <stdint.h>

#include "dracel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *out = NULL;
    dracel_diags *d = NULL;
    dracel_status st = dracel_parse_sexpr(NULL, (const char *)data, size, &out, &d);
    if (st != DRACEL_ENOMEM && st != DRACEL_OK && st != DRACEL_EINPUT && st != DRACEL_ELIMIT)
        __builtin_trap();
    char *text = dracel_diags_render(d, "<input>");
    dracel_free_string(NULL, text);
    dracel_free_string(NULL, out);
    dracel_diags_free(d);
    return 0;
}
