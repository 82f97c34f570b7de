/*
 * trace.h: the trace of `dra-celc replay` (docs/fairness.md, "Traces"): JSON lines of pod
 * arrivals, {"time":SECONDS,"pod":"NS/NAME","labels":{...},"claim":PATH-OR-OBJECT,
 * "runSeconds":N}, read strictly (unknown fields, fields given twice, wrong types are errors
 * at FILE:LINE, syntax errors at FILE:LINE:COL). The reader only reads: claims are named here
 * (a path resolved against the trace's folder, or an object inline, as JSON text) and loaded by
 * src/celc/replay.c. src/celc/trace.c; fuzzed by fuzz/fuzz_trace.c.
 */
#ifndef CELC_TRACE_H
#define CELC_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* Defaults of the limits (docs/dra-celc.md, "replay"). */
#define TRACE_DEFAULT_MAX_PODS 1000000u
#define TRACE_DEFAULT_MAX_CLAIMS 1000u
#define TRACE_MAX_LINE_BYTES (1u << 20)   /* one JSON line */
#define TRACE_MAX_LABELS 256u             /* labels of one pod */
#define TRACE_MAX_SECONDS 1e12            /* time and runSeconds */

typedef struct trace_label {
    char *key, *value;
} trace_label;

typedef struct trace_pod {
    double time;            /* arrival, seconds (>= 0) */
    double run;             /* seconds it runs once placed (> 0); < 0: until the end */
    char *ns, *name;
    trace_label *labels;    /* sorted by key */
    size_t nlabels;
    size_t claim;           /* index in trace.claims */
    uint32_t line;
} trace_pod;

/* A claim source, each distinct one once. */
typedef struct trace_claim {
    char *path;             /* a file (relative paths resolved against the trace's folder) */
    char *text;             /* or an object given inline, as compact JSON */
    char *name;             /* how messages name it: the path, or "TRACE:LINE" */
    uint32_t line;          /* the first line naming it */
} trace_claim;

typedef struct trace {
    trace_pod *pods;        /* in trace order */
    size_t npods;
    trace_claim *claims;
    size_t nclaims;
} trace;

typedef struct trace_limits {
    size_t max_pods;        /* 0: TRACE_DEFAULT_MAX_PODS */
    size_t max_claims;      /* 0: TRACE_DEFAULT_MAX_CLAIMS */
} trace_limits;

/**
 * Read the trace @p buf (@p len bytes; buf[len] is a NUL) named @p name in messages; relative
 * claim paths are resolved against @p dir (NULL or "": as given). Blank lines and lines whose
 * first non-blank character is '#' are skipped.
 * @return 0 with *out filled (trace_free it), 1 when the trace is rejected ("NAME:LINE[:COL]:
 *         what is wrong" in @p err), -1 when memory ran out.
 */
int trace_parse(const char *name, const char *dir, const char *buf, size_t len,
                const trace_limits *lim, trace *out, char *err, size_t errcap);
void trace_free(trace *t);

#endif
