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
    uint64_t *cap;          /* per tier: its cap in devices (DRACEL_TIER_NO_CAP: none) */
    bool premium_demand;    /* asked for a premium tier at least once */
} rep_tenant;

/* Pods that went to the default tenant for one reason: a namespace no tenant names, or a
 * label with a tenant's podLabel key and a value no tenant has. */
typedef struct rep_default {
    char *key;              /* the label's key; NULL: a namespace */
    char *value;            /* the namespace, or the label's value */
    size_t pods;
} rep_default;

typedef struct rep_policy {
    const char *file, *version, *label, *name, *mode;
    char hash[17];
    rep_tenant *tenants;    /* the tenants with pods, in the policy's order */
    size_t ntenants;
    const char *dflt_name;  /* the default tenant's name */
    rep_default *dflt;      /* why its pods are its: most pods first */
    size_t ndflt;
    size_t pods, placed, unschedulable, over_cap, borrowed;
    double jain;
    uint64_t *reserve;      /* per tier: the idle reserve in devices (0: none) */
    double end;             /* the time of the last event */
    char *records;          /* per-pod records, JSON lines (NULL: not kept) */
    size_t nrecords;        /* their bytes */
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
/** The per-pod records of each policy, one JSON object a line (the first policy's, then the
 *  second's). */
bool report_jsonl(FILE *f, const report *r);
bool report_html(FILE *f, const report *r);
void report_free(report *r);

#endif
