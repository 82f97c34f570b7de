/*
 * alloc.h: preference tiers and allocation, as Kubernetes' structured allocator (the incubating
 * variant: pools sorted by driver and name, slices by name, combinations within a request)
 * decides them for one node; and the explanation of every decision (docs/allocation.md).
 *
 * Three lifetimes:
 *   - the placement index of a table (dc_pindex): what every policy on that table needs and only
 *     the table decides (slices by node, counters by pool, the nodes named); built once with the
 *     table (src/api_table.c) and as immutable as it;
 *   - a policy (dc_policy): the claims of one pod and the DeviceClasses they name, copied, bound
 *     to a table: every distinct selector (class selectors first, then the request's) is
 *     compiled once and evaluated once over the whole table by the vector VM, giving one match
 *     and one error bitmap per selector. The search reads those bitmaps in exactly the order
 *     Kubernetes' search evaluates selectors, device by device, so an error on a device the
 *     search never reaches aborts nothing, as in Kubernetes. Immutable once built: any number
 *     of threads allocate with it, each with its own run;
 *   - a run (dc_alloc_run): one thread's scratch and the answer of its last node. A call
 *     (dc_alloc_begin) fixes the options, the devices in use and the call's time budget; then
 *     dc_alloc_node may run for many nodes, its memory kept between them.
 * Devices in use (dc_usage) are given per call: a usage is bound to one table and immutable.
 *
 * Change with: src/alloc/ (the implementation; src/alloc/allocint.h names its files),
 * src/api_place.c (the public API), tests/alloc/, tests/unit/test_place.c, docs/allocation.md,
 * docs/api.md.
 */
#ifndef DC_ALLOC_H
#define DC_ALLOC_H

#include "claims.h"
#include "dracel.h"
#include "k8s.h"
#include "table.h"

#define DC_ALLOC_MAX_RESULTS 32u       /* AllocationResultsMaxSize */
#define DC_ALLOC_DEFAULT_TIMEOUT_MS 10000u /* the scheduler's DynamicResourcesArgs.filterTimeout */
#define DC_ALLOC_MAX_EXAMPLES 3u       /* examples per selector in an explanation, at most */

typedef struct dc_pindex dc_pindex;
typedef struct dc_usage dc_usage;
typedef struct dc_policy dc_policy;
typedef struct dc_alloc_run dc_alloc_run;

typedef enum dc_alloc_outcome {
    DC_ALLOC_ALLOCATED,
    DC_ALLOC_UNSCHEDULABLE,
    DC_ALLOC_ERROR,
    DC_ALLOC_SKIPPED           /* not tried: the call's budget ran out before this node */
} dc_alloc_outcome;

/* ---- The placement index of a table */

dracel_status dc_pindex_build(const dc_table *t, const dracel_alloc *a, dc_pindex **out) DC_WUR;
struct dc_patch_delta;
/** The index of @p t, patched from the index @p ox of the table @p o it was patched from
 *  (src/table_patch.c): equal to dc_pindex_build(t), at the cost of the slices' count. */
dracel_status dc_pindex_patch(const dc_table *o, const dc_pindex *ox, const dc_table *t,
                              const struct dc_patch_delta *d, const dracel_alloc *a,
                              dc_pindex **out) DC_WUR;
void dc_pindex_free(dc_pindex *x);
/** The index as text, for tests (node names, not ids: comparable across dictionaries). */
void dc_pindex_describe(const dc_table *t, const dc_pindex *x, dc_buf *b);
/** The node names the table's devices are tied to by name, sorted, without duplicates
 *  (explain's nodes when no Node objects are given). Strings live in the table. */
uint32_t dc_pindex_nodes(const dc_pindex *x);
const char *dc_pindex_node(const dc_pindex *x, uint32_t i);
/** The pools of @p t with a device visible on node @p n, as a run gathers the node's devices
 *  (PartitionableDevices on): ascending, into out[0..cap); how many there are. @p sorted: the
 *  node's labels are sorted by key (else they are looked up one by one). */
size_t dc_node_pools(const dc_table *t, const dc_pindex *x, const dc_node_in *n, bool sorted,
                     size_t *out, size_t cap);

/** Does the v1 NodeSelector @p s match node @p n (its terms ORed, each term's requirements
 *  ANDed, as k8s.io/component-helpers' nodeaffinity matches them)? The labels of @p n are
 *  sorted by key unless !sorted. */
bool dc_node_selector_match(const dc_node_selector_in *s, const dc_node_in *n, bool sorted);

/* ---- Devices in use */

/** The devices in use among @p ids (IDs the table does not have count for nothing), with what
 *  their counters consume. Immutable; @p t must outlive it. */
dracel_status dc_usage_new(const dracel_table *t, const dracel_alloc *a, const dc_device_id *ids,
                           uint32_t n, dc_usage **out) DC_WUR;
/** The same with shared allocations (consumable capacity): @p shares' devices are not in use
 *  but their counters are consumed (once per device) and their consumed capacity adds up.
 *  DRACEL_EINPUT when a quantity does not parse. */
dracel_status dc_usage_new_shared(const dracel_table *t, const dracel_alloc *a,
                                  const dc_device_id *ids, uint32_t n, const dc_share_in *shares,
                                  uint32_t nshares, dc_usage **out) DC_WUR;
/** A usage of the same table as @p prev, with the devices of @p set in use too and those of
 *  @p clear no longer (@p clear first; IDs the table does not have count for nothing), and the
 *  counters taken again: what dc_usage_new gives for the new list of IDs, without looking the
 *  unchanged ones up again. */
dracel_status dc_usage_derive(const dc_usage *prev, const dracel_alloc *a,
                              const dc_device_id *set, uint32_t nset, const dc_device_id *clear,
                              uint32_t nclear, dc_usage **out) DC_WUR;
void dc_usage_free(dc_usage *u);
/** How many of the IDs were devices of the table (each counted once). */
uint32_t dc_usage_found(const dc_usage *u);
const dracel_table *dc_usage_table(const dc_usage *u);
/** A hash of the names of the devices of @p pool in use (0: none). */
uint64_t dc_usage_pool_hash(const dc_usage *u, uint32_t pool);
/** How many rows of @p bits (a bitmap over the usage's table) are in use. */
uint32_t dc_usage_count_in(const dc_usage *u, const uint64_t *bits);

/* ---- Policies */

/**
 * Build a policy: copy @p claims (in the pod's order) and the classes they name (looked up in
 * @p classes), compile and evaluate every selector over @p t. @p t must outlive the policy; the
 * objects need not. DRACEL_ENOMEM on allocation failure (err says so).
 */
dracel_status dc_policy_new(const dracel_config *cfg, const dracel_table *t,
                            const dc_objects *classes, const dc_claim_in *const *claims,
                            uint32_t nclaims, dc_policy **out, char *err, size_t errcap) DC_WUR;
void dc_policy_free(dc_policy *p);
/** A stable hash of the classes and claims that decide (names, selectors, modes, counts,
 *  tolerations, constraints, config), independent of input order: "pv1-<16 hex digits>". */
const char *dc_policy_version(const dc_policy *p);
const dracel_table *dc_policy_table(const dc_policy *p);
uint32_t dc_policy_nclaims(const dc_policy *p);
const dc_claim_in *dc_policy_claim(const dc_policy *p, uint32_t i);
/** "namespace/name" or "name", as klog.KObj prints it. */
const char *dc_policy_kobj(const dc_policy *p, uint32_t i);

/* The tiers (requests and subrequests, flattened in claim, request, subrequest order). */
typedef struct dc_tier_desc {
    uint32_t claim, request, rank;
    const char *name;           /* "req" or "req/sub" */
    const dc_request_in *req;
    const dc_subreq_in *sub;
    const dc_class_in *cls;     /* NULL when the class is missing */
    uint32_t nsels, nclass_sels;
} dc_tier_desc;
uint32_t dc_policy_ntiers(const dc_policy *p);
void dc_policy_tier(const dc_policy *p, uint32_t i, dc_tier_desc *out);
/** The first tier of a claim's request. */
uint32_t dc_policy_tier_of(const dc_policy *p, uint32_t claim, uint32_t request);
/** Selector k of tier i: its text (NUL-terminated), the compile error, or NULL. */
const char *dc_policy_selector(const dc_policy *p, uint32_t tier, uint32_t k, uint32_t *len,
                               const char **compile_error);

/* ---- Runs */

typedef struct dc_alloc_opts {
    unsigned features;          /* dc_feature bits: the gates that are on */
    uint64_t timeout_ms;        /* the search's time limit on one node; 0: none */
    uint64_t budget_ms;         /* the time limit of the whole call; 0: none */
    bool explain;               /* gather the explanation */
    uint32_t examples;          /* examples per selector (default 1, at most MAX_EXAMPLES) */
    const dc_usage *in_use;     /* NULL: none */
    const dc_device_id *reserved; /* in use for this call only */
    uint32_t nreserved;
    unsigned release;           /* the Kubernetes release reproduced (minor version; 0: the
                                   newest): its scheduler turns the gates into the allocator's
                                   features, and they pick the copy it runs (src/k8s.h) */
    int (*interrupt)(void *ctx); /* polled with the deadlines; nonzero: the call ends */
    void *interrupt_ctx;
} dc_alloc_opts;

dracel_status dc_alloc_run_new(const dc_policy *p, dc_alloc_run **out) DC_WUR;
void dc_alloc_run_free(dc_alloc_run *r);

/** Start a call: options, devices in use (@p o->in_use must be of the policy's table: EINVAL
 *  otherwise), the call's deadline. @p o is copied; its arrays must live until the call ends
 *  (the next dc_alloc_begin). */
dracel_status dc_alloc_begin(dc_alloc_run *r, const dc_alloc_opts *o) DC_WUR;
/**
 * Allocate the policy's claims on @p node (labels sorted by key). The answer stays in @p r until
 * the next call. When the call's budget is spent the outcome is DC_ALLOC_SKIPPED at once.
 * @return DRACEL_OK (the outcome is in the run), DRACEL_ENOMEM.
 */
dracel_status dc_alloc_node(dc_alloc_run *r, const dc_node_in *node) DC_WUR;

dc_alloc_outcome dc_alloc_outcome_of(const dc_alloc_run *r);
/** The release, gates, allocator features and copy of the call (after dc_alloc_begin). */
const dc_k8s *dc_alloc_k8s(const dc_alloc_run *r);
/** When the copy run walks Go maps (not sorted) and the node's usable devices are in more than
 *  one slice: Kubernetes may pick other devices than this answer. The note, else NULL. */
const char *dc_alloc_nondeterministic(const dc_alloc_run *r);
/** The error message (outcome ERROR), or the reason of an unschedulable or skipped outcome when
 *  there is one ("timed out trying to allocate devices"), else NULL. */
const char *dc_alloc_message(const dc_alloc_run *r);
/** Whether Kubernetes would treat the error as this node's problem (Unschedulable). */
bool dc_alloc_node_local(const dc_alloc_run *r);
/** The rank of the subrequest chosen for a firstAvailable request summed as the scheduler
 *  scores it (8 - index per firstAvailable request), or -1 when not allocated. */
int dc_alloc_score(const dc_alloc_run *r);
/** A short description of the chosen tiers: "gpu/a100" (requests of every claim, ", "-joined),
 *  or "" when not allocated. Lives in the run. */
const char *dc_alloc_tiers(const dc_alloc_run *r);
/** The node of the last call (copied: it lives in the run). */
const char *dc_alloc_node_name(const dc_alloc_run *r);
/** Devices and pools visible on the node; search steps and backtracks. */
void dc_alloc_counts(const dc_alloc_run *r, uint32_t *devices, uint32_t *pools, uint64_t *steps,
                     uint64_t *backtracks);
bool dc_alloc_explained(const dc_alloc_run *r);

/* The answer as data (outcome ALLOCATED). */
/** The subrequest rank chosen for a request (0 for `exactly`), or -1 when not allocated. */
int dc_alloc_chosen(const dc_alloc_run *r, uint32_t claim, uint32_t request);
uint32_t dc_alloc_nresults(const dc_alloc_run *r, uint32_t claim);
/** Result i of a claim: its tier, the device's row, and whether it has admin access. */
void dc_alloc_result(const dc_alloc_run *r, uint32_t claim, uint32_t i, uint32_t *tier,
                     uint32_t *row, bool *admin);
/** A result's share (consumable capacity): its shareID (in the run's scratch until the next
 *  node) and how many capacities it consumed, or NULL and 0 when the result is no share. */
const char *dc_alloc_share(const dc_alloc_run *r, uint32_t claim, uint32_t i, uint32_t *ncaps);
/** Result i's binding conditions (failure: its failure conditions), as copied into the
 *  result: their number, and condition k's name when @p name is not NULL and k is below it. */
uint32_t dc_alloc_conditions(const dc_alloc_run *r, uint32_t claim, uint32_t i, bool failure,
                             uint32_t k, const char **name);
/** Capacity k of that share, in Go's map order (names sorted): its name and quantity text
 *  (both in the run's scratch). false when out of range or on ENOMEM. */
bool dc_alloc_consumed(const dc_alloc_run *r, uint32_t claim, uint32_t i, uint32_t k,
                       const char **name, const char **quantity);
/* Allocation config entries, as the allocator copies them (class configs once per class, then
 * the claim's; an entry naming every request names none). */
typedef struct dc_alloc_config {
    bool from_class;
    const char *driver;
    const char *parameters;     /* compact JSON, or NULL */
    const char *const *requests; /* empty: every request */
    uint32_t nrequests;
} dc_alloc_config;
uint32_t dc_alloc_nconfigs(const dc_alloc_run *r, uint32_t claim);
const dc_alloc_config *dc_alloc_config_of(const dc_alloc_run *r, uint32_t claim, uint32_t i);

/* The explanation as data (when gathered), per tier. */
enum { DC_TIER_CHOSEN, DC_TIER_FAILED, DC_TIER_NOT_TRIED, DC_TIER_ABORTED };
enum {
    DC_EXCL_INCOMPLETE_POOL, DC_EXCL_INVALID_POOL, DC_EXCL_NODE, DC_EXCL_ALLOCATED,
    DC_EXCL_TAINTED, DC_EXCL_COUNTERS, DC_EXCL__COUNT
};
typedef struct dc_tier_expl {
    int status;                 /* DC_TIER_* */
    const char *reason;         /* when FAILED, else NULL */
    uint32_t needed, candidates, available;
    uint32_t unevaluated;       /* a lazy selector ran out of time on them */
    uint32_t excluded[DC_EXCL__COUNT];
    uint32_t capacity;          /* consumable capacity: candidates the request does not fit */
    uint32_t binding;           /* devices with binding conditions, unselectable (gates off) */
    uint32_t ungated;           /* consuming counters with DRAPartitionableDevices off */
} dc_tier_expl;
typedef struct dc_sel_expl {
    bool from_class;
    uint32_t index;             /* in the class's or the request's list */
    uint32_t rejected, errored;
    uint32_t nexamples;
    uint32_t rows[DC_ALLOC_MAX_EXAMPLES];
    const char *examples[DC_ALLOC_MAX_EXAMPLES]; /* "gpu-3: device.attributes[...].model is "L4"" */
    bool example_errored[DC_ALLOC_MAX_EXAMPLES];
} dc_sel_expl;
/** The devices of the whole table that tier @p tier's selectors accept (with @p class_only, its
 *  DeviceClass's only), devices of incomplete and invalid pools left out: their number, and
 *  (when @p bits is not NULL) a bitmap over the table's rows. With @p k8s (a release and its
 *  gates), only those the allocator could give the tier there, apart from their being in use:
 *  not tainted against its tolerations (DRADeviceTaints on), without counters when
 *  DRAPartitionableDevices is off, without binding conditions when their gates are off. Lazy
 *  selectors are evaluated with the run's memory, without a time limit. DRACEL_ENOMEM when that
 *  memory runs out. */
dracel_status dc_alloc_tier_candidates(dc_alloc_run *r, uint32_t tier, bool class_only,
                                       const dc_k8s *k8s, uint64_t *bits,
                                       uint32_t *count) DC_WUR;
void dc_alloc_tier_expl(const dc_alloc_run *r, uint32_t tier, dc_tier_expl *out);
void dc_alloc_sel_expl(const dc_alloc_run *r, uint32_t tier, uint32_t k, dc_sel_expl *out);

/** Append the outcome as JSON (the allocate output object of docs/dra-celc.md, with "explanation" when the
 *  run gathered one) / as text (docs/dra-celc.md) to @p b. */
void dc_alloc_json(const dc_alloc_run *r, dc_buf *b);
/** {"node":NAME,"tiers":"...", then dc_alloc_json's fields}: one node of explain's output. */
void dc_alloc_node_json(const dc_alloc_run *r, dc_buf *b);
void dc_alloc_text(const dc_alloc_run *r, dc_buf *b);
/** One line's worth: the devices chosen, or (with an explanation) why each tier failed. */
void dc_alloc_summary(const dc_alloc_run *r, dc_buf *b);
/** Only the explanation object / text. */
void dc_alloc_explain_json(const dc_alloc_run *r, dc_buf *b);
void dc_alloc_explain_text(const dc_alloc_run *r, dc_buf *b);
/** The result's node selector of a claim as JSON, or nothing when the result has none. */
void dc_alloc_node_selector_json(const dc_alloc_run *r, uint32_t claim, dc_buf *b);

#endif
