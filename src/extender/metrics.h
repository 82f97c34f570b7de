/*
 * metrics.h: Prometheus metrics of dra-extender (src/extender/metrics.c), rendered in the text
 * exposition format (version 0.0.4) at /metrics. Families are declared once (name, help, type,
 * histogram buckets); a series is a family plus its labels, written as Prometheus writes them
 * (`verb="filter",code="200"`, values escaped by the caller with metrics_label). Updates take one
 * short lock; renders sort series so that the output is stable.
 */
#ifndef EXT_METRICS_H
#define EXT_METRICS_H

#include <stddef.h>

#include "json.h"

typedef enum metric_type { METRIC_COUNTER, METRIC_GAUGE, METRIC_HISTOGRAM } metric_type;

typedef struct metric_family {
    const char *name;
    const char *help;
    metric_type type;
    const double *buckets;  /* histograms: upper bounds, ascending (+Inf is implied) */
    size_t nbuckets;
} metric_family;

/** Add @p v to a counter (or a gauge). @p labels may be "" or NULL. */
void metrics_add(const metric_family *f, const char *labels, double v);
/** Set a gauge. */
void metrics_set(const metric_family *f, const char *labels, double v);
/** Observe a value of a histogram. */
void metrics_observe(const metric_family *f, const char *labels, double v);
/** Append @p value to @p b as a label value (backslash, double quote and newline escaped). */
void metrics_label(jbuf *b, const char *value);
/** Render every family that has a series (in the order families were first used), then the
 *  families registered with metrics_declare that have none (as HELP and TYPE only). */
void metrics_render(jbuf *b);
/** Make a family appear in the output even before its first series. */
void metrics_declare(const metric_family *f);
/** Forget every series of one family (gauges rendered anew from a state: usage per tenant). */
void metrics_clear(const metric_family *f);
/** Forget every series (tests). */
void metrics_reset(void);

#endif
