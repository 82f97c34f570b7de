/*
 * alloc.h: preference tiers and allocation, as Kubernetes' structured allocator (the incubating
 * variant: pools sorted by driver and name, slices by name, combinations within a request)
 * decides them for one node; and the explanation of every decision (docs/allocation.md).
 *
 * A policy is the claims of one pod and the DeviceClasses they name, bound to a device table:
 * every distinct selector (class selectors first, then the request's) is compiled once and
 * evaluated once over the whole table by the vector VM, giving one match and one error bitmap
 * per selector. The search then reads those bitmaps in exactly the order Kubernetes' search
 * evaluates selectors, device by device, so an error on a device the search never reaches
 * aborts nothing, as in Kubernetes.
 *
 * A policy is immutable once built; dc_alloc_node() may run for many nodes (one thread each with
 * its own dc_alloc_run, or one run reused node after node: its memory is kept).
 *
 * Change with: src/alloc.c, src/celc/place.c (allocate, explain),
 * tests/alloc/, docs/allocation.md.
 */
#ifndef DC_ALLOC_H
#define DC_ALLOC_H

#include "claims.h"
#include "dracel.h"

#define DC_ALLOC_MAX_RESULTS 32u       /* AllocationResultsMaxSize */
#define DC_ALLOC_DEFAULT_TIMEOUT_MS 10000u /* the scheduler's DynamicResourcesArgs.filterTimeout */
#define DC_ALLOC_MAX_EXAMPLES 3u       /* examples per selector in an explanation, at most */

typedef struct dc_policy dc_policy;
typedef struct dc_alloc_run dc_alloc_run;

typedef enum dc_alloc_outcome {
    DC_ALLOC_ALLOCATED,
    DC_ALLOC_UNSCHEDULABLE,
    DC_ALLOC_ERROR
} dc_alloc_outcome;

typedef struct dc_alloc_opts {
    unsigned features;          /* dc_feature bits */
    uint64_t timeout_ms;        /* the search's time limit; 0: none */
    bool explain;               /* gather the explanation */
    uint32_t examples;          /* examples per selector (default 1, at most MAX_EXAMPLES) */
} dc_alloc_opts;

/**
 * Build a policy: resolve classes, compile and evaluate every selector over @p t.
 * @p o supplies the classes and the claims (o->claims, in the pod's order); it must outlive the
 * policy, as must @p t. The allocated devices are given as IDs; those not in the table count
 * for nothing. DRACEL_ENOMEM on allocation failure (err says so).
 */
dracel_status dc_policy_new(const dracel_config *cfg, const dracel_table *t, const dc_objects *o,
                            const dc_device_id *allocated, uint32_t nallocated,
                            dc_policy **out, char *err, size_t errcap) DC_WUR;
void dc_policy_free(dc_policy *p);
/** A stable hash of the classes and claims that decide (names, selectors, modes, counts,
 *  tolerations, constraints, config), independent of input order: "pv1-<16 hex digits>". */
const char *dc_policy_version(const dc_policy *p);

dracel_status dc_alloc_run_new(const dc_policy *p, dc_alloc_run **out) DC_WUR;
void dc_alloc_run_free(dc_alloc_run *r);

/**
 * Allocate the policy's claims on @p node. The answer stays in @p r until the next call.
 * @return DRACEL_OK (the outcome is in the run), DRACEL_ENOMEM.
 */
dracel_status dc_alloc_node(dc_alloc_run *r, const dc_node_in *node, const dc_alloc_opts *o) DC_WUR;

dc_alloc_outcome dc_alloc_outcome_of(const dc_alloc_run *r);
/** The error message (outcome ERROR), or the reason of an unschedulable outcome when there is
 *  one ("timed out trying to allocate devices"), else NULL. */
const char *dc_alloc_message(const dc_alloc_run *r);
/** Whether Kubernetes would treat the error as this node's problem (Unschedulable). */
bool dc_alloc_node_local(const dc_alloc_run *r);
/** The rank of the subrequest chosen for a firstAvailable request summed as the scheduler
 *  scores it (8 - index per firstAvailable request), or -1 when not allocated. */
int dc_alloc_score(const dc_alloc_run *r);
/** A short description of the chosen tiers: "gpu/a100" (requests of every claim, ", "-joined),
 *  or "" when not allocated. Lives in the run. */
const char *dc_alloc_tiers(const dc_alloc_run *r);

/** Append the outcome as JSON (DESIGN.md's allocate output object, with "explanation" when the
 *  run gathered one) / as text (docs/dra-celc.md) to @p b. */
void dc_alloc_json(const dc_alloc_run *r, dc_buf *b);
void dc_alloc_text(const dc_alloc_run *r, dc_buf *b);
/** One line's worth: the devices chosen, or (with an explanation) why each tier failed. */
void dc_alloc_summary(const dc_alloc_run *r, dc_buf *b);
/** Only the explanation object / text. */
void dc_alloc_explain_json(const dc_alloc_run *r, dc_buf *b);
void dc_alloc_explain_text(const dc_alloc_run *r, dc_buf *b);

/** The node names the table's devices are tied to by name, sorted, without duplicates
 *  (explain's nodes when no Node objects are given). Strings live in the table. */
dracel_status dc_table_node_names(const dracel_table *t, const dracel_alloc *a,
                                  const char ***out, uint32_t *n) DC_WUR;

#endif
