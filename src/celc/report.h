/*
 * report.h: what `dra-celc replay` found, per policy and tenant, and its three renderings
 * (text, JSON, a self-contained HTML page with inline SVG charts): src/celc/report.c. The
 * numbers are computed once (src/celc/replay.c); the renderings only format them, with fixed
 * precision, so that the same inputs give the same bytes.
 */
#ifndef CELC_REPORT_H
#define CELC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define REPORT_BUCKETS 96       /* points of the charts over time */

/* A tier as claims name it ("gpu/h100"), over every claim of the trace. */
typedef struct rep_tier {
    char *name;
    uint32_t devices;       /* its candidates over the fleet (the first claim naming it) */
    int rank;               /* its lowest rank in a firstAvailable list (0: a first choice) */
    bool premium;           /* rank 0 of a firstAvailable request somewhere */
    bool fallback;          /* rank above 0 somewhere */
} rep_tier;

typedef struct rep_tenant {
    const char *name;
    const char *mode;       /* its own, else the policy's */
    uint32_t weight;
    size_t pods, placed, first, unschedulable, over_cap, borrowed;
    double wait_mean, wait_p95, wait_max;
    double *waits;          /* placed pods' waits, sorted */
    size_t nwaits;
    size_t *fallback;       /* per tier: placed pods that got it below their first choice */
    double *held;           /* per tier: device-seconds held */
    double *series;         /* per tier, REPORT_BUCKETS each: devices held on average */
    bool premium_demand;    /* asked for a premium tier at least once */
} rep_tenant;

typedef struct rep_policy {
    const char *file, *version, *label, *name, *mode;
    char hash[17];
    rep_tenant *tenants;    /* the tenants with pods, in the policy's order */
    size_t ntenants;
    size_t pods, placed, unschedulable, over_cap, borrowed;
    double jain;
    double end;             /* the time of the last event */
    /* work (for --stats) */
    uint64_t attempts, allocations, memo_hits;
} rep_policy;

typedef struct report {
    const char *trace, *fleet, *classes;
    size_t pods, nodes, devices, claims;
    rep_tier *tiers;
    size_t ntiers;
    rep_policy pol[2];
    size_t npol;
} report;

/** Each writes the whole report to @p f; false when memory ran out. */
bool report_text(FILE *f, const report *r);
bool report_json(FILE *f, const report *r);
bool report_html(FILE *f, const report *r);
void report_free(report *r);

#endif
