/*
 * allocint.h: the insides of the allocator (src/alloc.h), shared by its files and by nothing
 * else. The pipeline, one file a stage:
 *   src/alloc/pindex.c    the placement index of a table
 *   src/alloc/inuse.c     devices in use
 *   src/alloc/policy.c    a policy: claims and classes bound to a table, selectors evaluated
 *   src/alloc/nodes.c     node selection: what a node sees of the table
 *   src/alloc/run.c       a run and its calls, selectors on rows, a node's rows gathered
 *   src/alloc/capacity.c  consumable capacity
 *   src/alloc/search.c    the per-node search, as Kubernetes' structured allocator
 *   src/alloc/answer.c    the answer read back, allocation config, the explanation
 *   src/alloc/print.c     the answer and the explanation as JSON and text
 * Per node, every array is indexed by the device's position in the node's visible rows ("local
 * index"), so a run over 5,000 nodes never touches a fleet-sized array per node.
 *
 * Change with: src/alloc.h, the files above.
 */
#ifndef DC_ALLOCINT_H
#define DC_ALLOCINT_H

#include "alloc.h"

#include "apiint.h"
#include "quantity.h"
#include "tablebuild.h"
#include "table.h"
#include "vm.h"

/* ---- A policy (src/alloc/policy.c) */

/* A distinct selector of the policy. Most are evaluated over the whole table when the policy is
 * built (the vector VM: well under a microsecond a device). One with comprehensions can cost
 * milliseconds a device: it is evaluated lazily instead, device by device as a run's search and
 * explanation reach them (as Kubernetes does), each run keeping what it evaluated, so that the
 * run's time limits bound that work too. */
typedef struct dc_gsel {
    const char *expr;
    uint32_t len;
    dracel_program *prog;
    dracel_bound *bound;
    dracel_selection *sel;
    const char *compile_err;    /* in the policy arena; NULL when it compiled */
    bool empty;                 /* no `cel` in the selector */
    bool lazy;                  /* evaluated by the runs, row by row (comprehensions) */
    const dc_bound *b;
    const uint64_t *matched, *errored;   /* eager: over the table's rows */
} dc_gsel;

/* A request or a subrequest, as the search sees it (Kubernetes' requestData). */
typedef struct dc_preq {
    const dc_claim_in *claim;
    const dc_request_in *req;
    const dc_subreq_in *sub;
    uint32_t ci, ri, si;
    bool has_parent;            /* a firstAvailable subrequest */
    bool all;                   /* allocationMode All */
    bool mode_ok;               /* ExactCount or All */
    const dc_class_in *cls;     /* NULL when not found */
    uint32_t *sels;             /* dc_gsel indexes: the class's, then the request's */
    uint32_t nclass_sels, nsels;
    const char *name;           /* "req" or "req/sub" */
    dc_qty *capq;               /* capacity.requests, parsed (names in sub->capreqs) */
} dc_preq;

typedef struct dc_pclaim {
    const dc_claim_in *in;
    const char *kobj;           /* "namespace/name" or "name", as klog.KObj prints it */
    uint32_t *req_first;        /* per request: its first dc_preq */
    uint32_t cons_first;        /* its first constraint in the policy's flat list */
} dc_pclaim;

struct dc_policy {
    dracel_config cfg;
    const dracel_alloc *a;
    dc_arena arena;
    dracel_env *env;            /* the programs' environment: it must outlive them */
    const dracel_table *tt;
    const dc_table *t;
    const dc_pindex *x;         /* the table's placement index */
    dc_objects own;             /* copies of the claims and the classes they name */
    dc_gsel *sels;
    uint32_t nsels;
    dc_preq *preqs;
    uint32_t npreqs;
    dc_pclaim *claims;
    uint32_t nclaims;
    uint32_t nreqs_total;       /* requests of all claims (selected-subrequest slots) */
    uint32_t *req_slot;         /* per dc_preq: its request's slot */
    uint32_t ncons;
    const dc_constraint_in **cons;
    const dc_val *vars;         /* the activation of lazy selectors (their `device` is the row) */
    dc_val *vars_tmp;
    uint32_t nvars;
    bool any_lazy;
    char version[24];
};

/* ---- The placement index of a table (src/alloc/pindex.c): built once per table, read by
 * every policy on it. */

struct dc_pindex {
    const dracel_alloc *a;
    dc_arena arena;
    uint32_t *shared_first;     /* per pool: its first entry in t->shared; [npools] = nshared */
    uint32_t *cons_k;           /* per t->consumes entry: its shared counter, or UINT32_MAX */
    /* Slices by node: (node name id, slice) sorted, and the slices every node must check. */
    uint64_t *named;
    uint32_t nnamed;
    uint32_t *general;
    uint32_t ngeneral;
    const char **nodes;         /* node names, sorted, distinct (strings in the dictionary) */
    uint32_t nnodes;
};

/* ---- Devices in use (src/alloc/inuse.c) */

/* Capacity a device's shared allocations consume, summed per capacity name. */
typedef struct dc_ushare {
    uint32_t row;
    const char *name;           /* as written in consumedCapacity */
    dc_qty q;
} dc_ushare;

struct dc_usage {
    const dracel_alloc *a;
    const dracel_table *tt;
    uint64_t *bits;             /* over rows */
    dc_qty *avail;              /* per shared counter: its value minus what devices in use take */
    uint32_t found;
    uint64_t *shared;           /* over rows: devices with a shared allocation (or NULL) */
    dc_ushare *shares;             /* sorted by row, then name; strings in `names` */
    uint32_t nshares, capshares;
    char *names;
    size_t names_len;
};

/* ---- A run (src/alloc/run.c) and its search (src/alloc/search.c) */

/* What the search's steps return: a negative value stops it. */
enum { DC_R_NOT = 0, DC_R_DONE = 1, DC_R_ERR = -1, DC_R_MAXSIZE = -2, DC_R_TIMEOUT = -3 };

typedef struct dc_rdata {
    uint32_t num;               /* devices to allocate */
    uint32_t *all;              /* All: local indexes */
    uint32_t nall;
} dc_rdata;

typedef struct dc_result {
    uint32_t li;                /* local index */
    uint32_t pq;                /* dc_preq */
    bool admin;
    bool multi;                 /* a share of an allowMultipleAllocations device */
    bool consumed_any;          /* consumedCapacity is set (the device has capacities) */
    dc_qty *consumed;           /* a share's consumed capacity, per cap of the row (the slot's
                                   buffer) */
    uint64_t share;             /* a share's number in the node's attempt (its shareID) */
} dc_result;

typedef struct dc_cstate {
    uint32_t n;                 /* devices in the set */
    dc_val v;                   /* match: the first device's value */
    dc_val *vals;               /* distinct: per request of the claim, the value of the last
                                   device it added (Kubernetes keys its map by request name) */
    bool *has;
    /* match over sets (list-typed attributes, with ListTypeAttributes): the intersection after
     * each device added, 48 values a level (search.c: LIST_MAX_VALUES), DC_ALLOC_MAX_RESULTS
     * + 1 levels */
    dc_val *isect;
    uint32_t *isect_n;
} dc_cstate;

typedef struct dc_pstat {       /* explanation, per dc_preq */
    uint32_t excl[DC_EXCL__COUNT];
    uint32_t capacity;                  /* consumable capacity: the request does not fit */
    uint32_t binding;                   /* binding conditions with their gates off */
    uint32_t ungated;                   /* consuming counters, DRAPartitionableDevices off */
    uint32_t candidates, available;
    uint32_t unevaluated;               /* devices a lazy selector could not be evaluated on in
                                           time: counted nowhere else */
    uint32_t *rejected, *errored;       /* per selector */
    uint32_t (*examples)[DC_ALLOC_MAX_EXAMPLES];
    const char *(*extext)[DC_ALLOC_MAX_EXAMPLES]; /* the examples as text, in the scratch arena */
    uint32_t *nexamples;
    bool sel_error;                     /* a selector did not compile */
    const char *reason;                 /* why the tier failed (status failed) */
} dc_pstat;

typedef struct dc_lzerr {
    uint32_t row;
    dc_val err;                 /* in the run's keep arena */
} dc_lzerr;

typedef struct dc_lzsel {       /* a lazy selector's answers so far, over the table's rows */
    uint64_t *known, *matched, *errored;
    dc_lzerr *errs;
    uint32_t nerrs, caperrs;
} dc_lzsel;

typedef struct dc_ccfg {        /* allocation config of a claim (outcome allocated) */
    dc_alloc_config *e;
    uint32_t n;
} dc_ccfg;

struct dc_alloc_run {
    const dc_policy *p;
    const dracel_alloc *a;
    dc_arena scratch;           /* per node */
    dc_ectx ectx;
    /* the call */
    dc_alloc_opts o;
    dc_k8s k8s;                 /* the release and copy reproduced */
    const dc_usage *usage;
    uint64_t *resv;             /* reserved rows of this call (bits over the table's rows) */
    uint32_t *resv_rows;        /* the same, sorted, without duplicates */
    uint32_t nresv, capresv;
    dc_qty *avail;              /* per shared counter of the node's pools: what is left */
    uint64_t call_deadline_ns;  /* 0: none */
    /* the node */
    const dc_node_in *node;     /* during dc_alloc_node only */
    const char *node_name;      /* in the scratch arena */
    uint32_t node_id;           /* the node name's dictionary id, or DC_DICT_NONE */
    /* visible rows */
    uint32_t *rows;
    uint32_t nrows;
    uint32_t *vpools;           /* visible pools */
    uint32_t nvpools;
    uint8_t *pstate;            /* per pool of the table: its dc_pool_state on this node (read
                                   only for visible pools) */
    uint32_t nslices_seen;      /* visible slices with devices that the search may use */
    uint8_t *selbad;            /* per node selector of the table: 0 not checked, 1 fine, 2 one
                                   Kubernetes cannot build (dc_al_node_selector_bad) */
    bool gather_failed;         /* dc_al_gather met such a selector: msg holds the error */
    char note[512];             /* dc_alloc_nondeterministic */
    uint64_t note_key;          /* what note says (release, copy, slices); 0: nothing */
    /* search state */
    dc_rdata *rd;
    uint32_t *selected;         /* per request slot: the chosen subrequest */
    uint16_t *using;            /* per local index: claims allocating it */
    /* consumable capacity (the node's rows, when the copy and the feature have it) */
    uint32_t *capoff;           /* per local index: its first entry in acap; [nrows] = total */
    dc_qty *acap;               /* per capacity of each row: what this attempt's shares take */
    uint8_t *aentry;            /* per local index: allocatingCapacity has an entry for it */
    uint32_t maxcaps;           /* the most capacities one visible row has */
    uint64_t shares;            /* shares made so far (their shareIDs) */
    dc_result **res;               /* per claim */
    uint32_t *nres;
    dc_cstate *cs;                 /* per constraint */
    dc_qty *consumed;           /* per shared counter */
    uint64_t steps, backtracks;
    uint64_t deadline_ns;
    /* answer */
    dc_alloc_outcome outcome;
    bool node_local, timed_out, oom;
    bool interrupted;           /* the caller's interrupt answered nonzero: the call ends */
    char msg[2048];
    char tiers[1024];
    int score;
    dc_ccfg *cfgs;                 /* per claim, when allocated */
    dc_pstat *stats;               /* explain */
    bool explained;
    /* lazy selectors: what this run evaluated, kept across nodes and calls */
    dc_lzsel *lz;                  /* per selector of the policy (NULL: none is lazy) */
    dc_arena keep;              /* their error values */
    dc_ectx lctx;               /* their evaluations */
    uint64_t lazy_evals;
};

/* ---- Helpers of the run's files, inline (the search calls them device by device) */

/* What a selector gives on a row (dc_al_sel_on). */
enum { DC_S_FALSE = 0, DC_S_TRUE = 1, DC_S_ERROR = 2, DC_S_TIMEOUT = 3, DC_S_OOM = 4 };

/* Selector gi on a row: read from the policy's bitmaps, or (a lazy selector) from what the run
 * evaluated, evaluating it now on the scalar VM when it has not yet; DC_S_TIMEOUT when that is
 * needed after the run's deadline, DC_S_OOM when the run's memory ran out. */
int dc_al_sel_on_lazy(dc_alloc_run *r, uint32_t gi, uint32_t row);

static inline int dc_al_sel_on(dc_alloc_run *r, uint32_t gi, uint32_t row)
{
    const dc_gsel *g = &r->p->sels[gi];
    if (!g->lazy)
        return dc_bit(g->errored, row)   ? DC_S_ERROR
               : dc_bit(g->matched, row) ? DC_S_TRUE
                                         : DC_S_FALSE;
    return dc_al_sel_on_lazy(r, gi, row);
}

static inline bool dc_al_pool_usable(const dc_alloc_run *r, uint32_t row)
{
    return r->pstate[r->p->t->pool[row]] == DC_POOL_COMPLETE;
}

static inline dc_pool_state dc_al_pool_state(const dc_alloc_run *r, uint32_t pool)
{
    return (dc_pool_state)r->pstate[pool];
}

static inline bool dc_al_consumable(const dc_alloc_run *r)
{
    return r->k8s.beta_code && (r->k8s.features & DC_FEAT_CONSUMABLE_CAPACITY);
}

static inline bool dc_al_multi_row(const dc_alloc_run *r, uint32_t row)
{
    return dc_al_consumable(r) && dc_bit(r->p->t->multi, row);
}

/* Devices with binding conditions are selectable only with binding conditions on: in 1.34
 * DeviceBinding and DeviceStatus, from 1.35 DeviceBindingAndStatus (both gates). */
static inline bool dc_al_binding_off(const dc_alloc_run *r, uint32_t row)
{
    if (!dc_bit(r->p->t->bindc, row))
        return false;
    unsigned need = r->k8s.release == 34 ? DC_FEAT_BINDING_CONDITIONS | DC_FEAT_DEVICE_STATUS
                                         : DC_FEAT_BINDING_CONDITIONS;
    return (r->k8s.features & need) != need;
}

/* In use by another claim: the call's usage or reservations. */
static inline bool dc_al_taken(const dc_alloc_run *r, uint32_t row)
{
    return (r->usage && dc_bit(r->usage->bits, row)) || (r->nresv && dc_bit(r->resv, row));
}

/* ---- Between the allocator's files (each described where it is defined) */

/* policy.c: the row of a device id in the newest generation of its pool, or UINT32_MAX. */
uint32_t dc_al_device_row(const dc_table *t, const dc_device_id *id);
/* The rows of a device ID in older generations (stale pools, vm/table.h), one per call: *at
 * starts at 0; UINT32_MAX when there are no more. A device in use is in use in each. */
uint32_t dc_al_device_older(const dc_table *t, const dc_device_id *id, uint32_t *at);
/* run.c: whether pool p has a slice without devices, which the table takes as seen by every
 * node (docs/allocation.md, "Differences from Kubernetes"): no node falls back to an older
 * generation of such a pool. */
bool dc_al_pool_has_empty(const dc_table *t, uint32_t p);

/* nodes.c */
bool dc_al_node_selector_bad(const dc_node_selector_in *s, dc_buf *b);
bool dc_al_row_on_node(const dc_table *t, uint32_t row, const dc_node_in *n, uint32_t name_id);
uint32_t dc_al_named_range(const dc_pindex *x, uint32_t name_id, uint32_t *end);

/* run.c */
uint64_t dc_al_now_ns(void);
/* Is the node's time up: its deadline passed, or the caller interrupts (remembered, so the
 * rest of the call is skipped). */
bool dc_al_expired(dc_alloc_run *r);
void *dc_al_sz(dc_alloc_run *r, size_t n);
int dc_al_fail(dc_alloc_run *r, const char *fmt, ...) DC_PRINTF(2, 3);
void dc_al_dev_id(const dc_table *t, uint32_t row, char *buf, size_t cap);
const char *dc_al_sel_error(const dc_alloc_run *r, uint32_t gi, uint32_t row);
bool dc_al_row_selector_bad(dc_alloc_run *r, uint32_t row, bool gathering, uint32_t s,
                            bool per_device);
dracel_status dc_al_gather(dc_alloc_run *r);

/* capacity.c */
dc_qty dc_al_consumed_of(const dc_tcap *c, const dc_qty *req);
bool dc_al_cap_in_use(const dc_alloc_run *r, uint32_t li);
const dc_qty *dc_al_requested(const dc_preq *q, const char *name);
int dc_al_cap_check(const dc_alloc_run *r, uint32_t pq, uint32_t li, bool alone);

/* search.c */
bool dc_al_tainted(const dc_alloc_run *r, const dc_preq *q, uint32_t row);

/* answer.c */
void dc_al_finish_tiers(dc_alloc_run *r);
dracel_status dc_al_build_configs(dc_alloc_run *r);
dracel_status dc_al_explain(dc_alloc_run *r);
void dc_al_js(dc_buf *b, const char *s);
const char *dc_al_dstr(const dc_table *t, uint32_t id);
uint32_t dc_al_needed(const dc_alloc_run *r, uint32_t pq);
const char *dc_al_example_str(const dc_alloc_run *cr, uint32_t pq, uint32_t k, uint32_t e);
const char *dc_al_reason_str(const dc_alloc_run *cr, uint32_t pq);
int dc_al_tier_status(const dc_alloc_run *r, const dc_preq *q);

#endif
