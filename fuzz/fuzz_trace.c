/*
 * fuzz_trace: libFuzzer harness for the reader of `dra-celc replay` traces
 * (src/celc/trace.c): the input is one trace. Built with --enable-fuzzing.
 *
 * Besides crashes and sanitizer reports, it traps on a broken contract: an answer other than
 * 0, 1, -1; a rejection without "NAME:LINE" at the start of its message; a trace read with
 * more pods or claims than its limits, a pod naming a claim that is not there, a time or run
 * outside their ranges, a namespace or a name that is empty, labels out of order; a claim that
 * is neither a path nor an object's JSON, or that is given twice.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/celc/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    trace t;
    char err[1024];
    trace_limits lim = {50, 8};
    int rc = trace_parse("t.jsonl", size && data[0] == '{' ? "dir" : NULL, buf, size, &lim, &t,
                         err, sizeof err);
    CHECK(rc == 0 || rc == 1 || rc == -1);
    if (rc == 1) {
        CHECK(strncmp(err, "t.jsonl:", 8) == 0 && err[8] >= '1' && err[8] <= '9');
        CHECK(t.npods == 0 && t.pods == NULL);
    }
    if (rc == 0) {
        CHECK(t.npods <= 50 && t.nclaims <= 8);
        for (size_t i = 0; i < t.npods; i++) {
            const trace_pod *p = &t.pods[i];
            CHECK(p->claim < t.nclaims);
            CHECK(isfinite(p->time) && p->time >= 0 && p->time <= TRACE_MAX_SECONDS);
            CHECK(p->run < 0 || (p->run > 0 && p->run <= TRACE_MAX_SECONDS));
            CHECK(p->ns[0] && p->name[0] && p->line >= 1);
            for (size_t k = 1; k < p->nlabels; k++)
                CHECK(strcmp(p->labels[k - 1].key, p->labels[k].key) < 0);
        }
        for (size_t c = 0; c < t.nclaims; c++) {
            const trace_claim *a = &t.claims[c];
            CHECK((a->path != NULL) != (a->text != NULL) && a->name);
            CHECK(!a->text || a->text[0] == '{');
            for (size_t d = 0; d < c; d++) {
                const trace_claim *b = &t.claims[d];
                CHECK(!(a->path && b->path && strcmp(a->path, b->path) == 0));
                CHECK(!(a->text && b->text && strcmp(a->text, b->text) == 0));
            }
        }
        trace_free(&t);
    }
    free(buf);
    return 0;
}
