/*
 * alloc.c: policies (claims + classes bound to a table) and the per-node search (see alloc.h).
 *
 * The search follows Kubernetes' structured allocator step for step, because its
 * answer, its errors and the order it meets them are the contract (reference/k8s-dra.md §3):
 *   - requests are validated claim by claim before searching (features, selector kinds, class,
 *     allocation mode; `All` gathers its devices here, so its CEL errors come first), then the
 *     32-result limit per claim;
 *   - the search is depth-first: claims, requests, a firstAvailable request's subrequests in
 *     order, then one device slot after the other; within a request only combinations are
 *     tried (a slot starts after the device of the previous slot);
 *   - a device is tried when its pool is complete and valid; then (cheapest first) not in use,
 *     selectable (class selectors, then the request's; the first false stops, the first error
 *     aborts; per-device node selection), counters, taints, constraints;
 *   - a branch that would exceed 32 results is cut, and a firstAvailable request moves on to
 *     its next subrequest.
 * Like Kubernetes, a device that passes the counter check but fails a taint or a constraint
 * keeps its counters consumed for the rest of the node's attempt. What differs by release and
 * copy (order, permutations, messages...) is switched by the run's dc_k8s (src/k8s.h).
 *
 * Per node, every array is indexed by the device's position in the node's visible rows ("local
 * index"), so a run over 5,000 nodes never touches a fleet-sized array per node.
 */
#define _POSIX_C_SOURCE 200809L

#include "alloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiint.h"
#include "quantity.h"
#include "tablebuild.h"
#include "table.h"
#include "vm.h"

/* ---------------------------------------------------------------------------------------------
 * Policy
 */

/* A distinct selector of the policy. Most are evaluated over the whole table when the policy is
 * built (the vector VM: well under a microsecond a device). One with comprehensions can cost
 * milliseconds a device: it is evaluated lazily instead, device by device as a run's search and
 * explanation reach them (as Kubernetes does), each run keeping what it evaluated, so that the
 * run's time limits bound that work too. */
typedef struct gsel {
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
} gsel;

/* A request or a subrequest, as the search sees it (Kubernetes' requestData). */
typedef struct preq {
    const dc_claim_in *claim;
    const dc_request_in *req;
    const dc_subreq_in *sub;
    uint32_t ci, ri, si;
    bool has_parent;            /* a firstAvailable subrequest */
    bool all;                   /* allocationMode All */
    bool mode_ok;               /* ExactCount or All */
    const dc_class_in *cls;     /* NULL when not found */
    uint32_t *sels;             /* gsel indexes: the class's, then the request's */
    uint32_t nclass_sels, nsels;
    const char *name;           /* "req" or "req/sub" */
    dc_qty *capq;               /* capacity.requests, parsed (names in sub->capreqs) */
} preq;

typedef struct pclaim {
    const dc_claim_in *in;
    const char *kobj;           /* "namespace/name" or "name", as klog.KObj prints it */
    uint32_t *req_first;        /* per request: its first preq */
    uint32_t cons_first;        /* its first constraint in the policy's flat list */
} pclaim;

struct dc_policy {
    dracel_config cfg;
    const dracel_alloc *a;
    dc_arena arena;
    dracel_env *env;            /* the programs' environment: it must outlive them */
    const dracel_table *tt;
    const dc_table *t;
    const dc_pindex *x;         /* the table's placement index */
    dc_objects own;             /* copies of the claims and the classes they name */
    gsel *sels;
    uint32_t nsels;
    preq *preqs;
    uint32_t npreqs;
    pclaim *claims;
    uint32_t nclaims;
    uint32_t nreqs_total;       /* requests of all claims (selected-subrequest slots) */
    uint32_t *req_slot;         /* per preq: its request's slot */
    uint32_t ncons;
    const dc_constraint_in **cons;
    const dc_val *vars;         /* the activation of lazy selectors (their `device` is the row) */
    dc_val *vars_tmp;
    uint32_t nvars;
    bool any_lazy;
    char version[24];
};

/* ---------------------------------------------------------------------------------------------
 * The placement index of a table: built once per table, read by every policy on it.
 */

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

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Per pool, its first shared counter. */
static bool index_shared(dc_pindex *x, const dc_table *t)
{
    x->shared_first = dc_arena_zalloc(&x->arena, (t->npools + 1) * sizeof *x->shared_first);
    x->cons_k = dc_arena_zalloc(&x->arena, (t->nconsumes + 1) * sizeof *x->cons_k);
    if (!x->shared_first || !x->cons_k)
        return false;
    uint32_t k = 0;
    for (uint32_t pl = 0; pl <= t->npools; pl++) {
        while (k < t->nshared && t->shared[k].owner < pl)
            k++;
        x->shared_first[pl] = k;
    }
    return true;
}

/* The shared counter of consumed counters [j0, j1). */
static void index_consumes(dc_pindex *x, const dc_table *t, uint32_t j0, uint32_t j1)
{
    for (uint32_t j = j0; j < j1; j++) {
        const dc_tcounter *c = &t->consumes[j];
        uint32_t pl = t->pool[c->owner];
        x->cons_k[j] = UINT32_MAX;
        for (uint32_t i = x->shared_first[pl]; i < x->shared_first[pl + 1]; i++)
            if (t->shared[i].set == c->set && t->shared[i].name == c->name) {
                x->cons_k[j] = i;
                break;
            }
    }
}

/* How a slice is found for a node: not at all (no devices), by its node's name, or checked by
 * every node. */
enum { SL_EMPTY, SL_NAMED, SL_GENERAL };

static int slice_class(const dc_table *t, uint32_t s)
{
    uint32_t r = t->slice_first[s];
    if (r == t->slice_first[s + 1])
        return SL_EMPTY;
    return !dc_bit(t->slice_per_device, s) && t->node_kind[r] == DC_NODE_NAME ? SL_NAMED
                                                                               : SL_GENERAL;
}

static uint64_t named_key(const dc_table *t, uint32_t s)
{
    return ((uint64_t)t->node[t->slice_first[s]] << 32) | s;
}

/* Whether a sorted list of named slices has one of node id. */
static bool has_node(const uint64_t *named, uint32_t n, uint32_t id)
{
    uint32_t lo = 0, hi = n;
    uint64_t key = (uint64_t)id << 32;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (named[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && (named[lo] >> 32) == id;
}

dracel_status dc_pindex_build(const dc_table *t, const dracel_alloc *a, dc_pindex **out)
{
    *out = NULL;
    dc_pindex *x = dc_malloc(a, sizeof *x);
    if (!x)
        return DRACEL_ENOMEM;
    memset(x, 0, sizeof *x);
    x->a = a;
    dc_arena_init(&x->arena, a);
    if (!index_shared(x, t))
        goto nomem;
    index_consumes(x, t, 0, t->nconsumes);
    /* Slices by node. */
    uint32_t nn = 0, ng = 0;
    for (uint32_t s = 0; s < t->nslices; s++) {
        int c = slice_class(t, s);
        nn += c == SL_NAMED;
        ng += c == SL_GENERAL;
    }
    x->named = dc_arena_alloc(&x->arena, (nn + 1) * sizeof *x->named);
    x->general = dc_arena_alloc(&x->arena, (ng + 1) * sizeof *x->general);
    if (!x->named || !x->general)
        goto nomem;
    for (uint32_t s = 0; s < t->nslices; s++) {
        int c = slice_class(t, s);
        if (c == SL_NAMED)
            x->named[x->nnamed++] = named_key(t, s);
        else if (c == SL_GENERAL)
            x->general[x->ngeneral++] = s;
    }
    if (x->nnamed > 1)
        dc_sort(x->named, x->nnamed, sizeof *x->named, cmp_u64);
    /* The node names: one per run of named slices of one node, then sorted by name. */
    x->nodes = dc_arena_alloc(&x->arena, (x->nnamed + 1) * sizeof *x->nodes);
    if (!x->nodes)
        goto nomem;
    for (uint32_t i = 0; i < x->nnamed; i++)
        if (i == 0 || (x->named[i] >> 32) != (x->named[i - 1] >> 32))
            x->nodes[x->nnodes++] = dc_dict_str(t->dict, (uint32_t)(x->named[i] >> 32))->data;
    if (x->nnodes > 1)
        dc_sort(x->nodes, x->nnodes, sizeof *x->nodes, cmp_str);
    *out = x;
    return DRACEL_OK;
nomem:
    dc_pindex_free(x);
    return DRACEL_ENOMEM;
}

/* Sorted distinct node names of the ids in v (sorts v by name). */
static uint32_t names_of(const dc_table *t, const char **v, const uint32_t *ids, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        v[i] = dc_dict_str(t->dict, ids[i])->data;
    if (n > 1)
        dc_sort(v, n, sizeof *v, cmp_str);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!m || strcmp(v[m - 1], v[i]))
            v[m++] = v[i];
    return m;
}

dracel_status dc_pindex_patch(const dc_table *o, const dc_pindex *ox, const dc_table *t,
                              const struct dc_patch_delta *d, const dracel_alloc *a,
                              dc_pindex **out)
{
    *out = NULL;
    dc_pindex *x = dc_malloc(a, sizeof *x);
    if (!x)
        return DRACEL_ENOMEM;
    memset(x, 0, sizeof *x);
    x->a = a;
    dc_arena_init(&x->arena, a);
    dc_arena tmp; /* this call's scratch */
    dc_arena_init(&tmp, a);
    if (!index_shared(x, t))
        goto nomem;
    /* Consumed counters: a copied run's point to its shared counters, shifted with them. */
    uint32_t nb = 0, gb = 0; /* named and general slices of the built pools */
    for (uint32_t k = 0; k < d->nsegs; k++) {
        const dc_patch_seg *g = &d->segs[k];
        if (!g->copied) {
            index_consumes(x, t, g->new_cons, g->new_cons + g->cons);
            for (uint32_t s = g->new_slice; s < g->new_slice + g->slices; s++) {
                int c = slice_class(t, s);
                nb += c == SL_NAMED;
                gb += c == SL_GENERAL;
            }
            continue;
        }
        for (uint32_t j = 0; j < g->cons; j++) {
            uint32_t v = ox->cons_k[g->old_cons + j];
            x->cons_k[g->new_cons + j] = v == UINT32_MAX ? v : v + (g->new_shared - g->old_shared);
        }
    }
    /* Where the old slices went (UINT32_MAX: a changed pool's). */
    uint32_t *map = dc_arena_alloc(&tmp, (o->nslices + 1) * sizeof *map);
    uint64_t *bn = dc_arena_alloc(&tmp, (nb + 1) * sizeof *bn);
    uint32_t *bg = dc_arena_alloc(&tmp, (gb + 1) * sizeof *bg);
    x->named = dc_arena_alloc(&x->arena, (ox->nnamed + nb + 1) * sizeof *x->named);
    x->general = dc_arena_alloc(&x->arena, (ox->ngeneral + gb + 1) * sizeof *x->general);
    if (!map || !bn || !bg || !x->named || !x->general)
        goto nomem;
    memset(map, 0xff, (o->nslices + 1) * sizeof *map);
    nb = gb = 0;
    for (uint32_t k = 0; k < d->nsegs; k++) {
        const dc_patch_seg *g = &d->segs[k];
        for (uint32_t s = 0; g->copied && s < g->slices; s++)
            map[g->old_slice + s] = g->new_slice + s;
        for (uint32_t s = g->new_slice; !g->copied && s < g->new_slice + g->slices; s++) {
            int c = slice_class(t, s);
            if (c == SL_NAMED)
                bn[nb++] = named_key(t, s);
            else if (c == SL_GENERAL)
                bg[gb++] = s;
        }
    }
    if (nb > 1)
        dc_sort(bn, nb, sizeof *bn, cmp_u64);
    /* Named slices: the old ones that stay (their order kept: slices move in order), merged
     * with the built ones; node ids that may have gone or come. */
    uint32_t *gone = dc_arena_alloc(&tmp, (ox->nnamed + 1) * sizeof *gone), ngone = 0;
    uint32_t *came = dc_arena_alloc(&tmp, (nb + 1) * sizeof *came), ncame = 0;
    if (!gone || !came)
        goto nomem;
    uint32_t j = 0;
    for (uint32_t i = 0; i < ox->nnamed; i++) {
        uint32_t s = map[(uint32_t)ox->named[i]];
        if (s == UINT32_MAX) {
            gone[ngone++] = (uint32_t)(ox->named[i] >> 32);
            continue;
        }
        uint64_t e = (ox->named[i] & 0xFFFFFFFF00000000ULL) | s;
        while (j < nb && bn[j] < e)
            x->named[x->nnamed++] = bn[j++];
        x->named[x->nnamed++] = e;
    }
    while (j < nb)
        x->named[x->nnamed++] = bn[j++];
    j = 0;
    for (uint32_t i = 0; i < ox->ngeneral; i++) {
        uint32_t s = map[ox->general[i]];
        if (s == UINT32_MAX)
            continue;
        while (j < gb && bg[j] < s)
            x->general[x->ngeneral++] = bg[j++];
        x->general[x->ngeneral++] = s;
    }
    while (j < gb)
        x->general[x->ngeneral++] = bg[j++];
    /* The node names: the old ones, less those no slice names now, plus new ones. */
    uint32_t n = 0;
    for (uint32_t i = 0; i < ngone; i++)
        if (!has_node(x->named, x->nnamed, gone[i]))
            gone[n++] = gone[i];
    ngone = n;
    for (uint32_t i = 0; i < nb; i++) {
        uint32_t id = (uint32_t)(bn[i] >> 32);
        if ((!i || (bn[i - 1] >> 32) != id) && !has_node(ox->named, ox->nnamed, id))
            came[ncame++] = id;
    }
    const char **rm = dc_arena_alloc(&tmp, (ngone + 1) * sizeof *rm);
    const char **add = dc_arena_alloc(&tmp, (ncame + 1) * sizeof *add);
    x->nodes = dc_arena_alloc(&x->arena, (ox->nnodes + ncame + 1) * sizeof *x->nodes);
    if (!rm || !add || !x->nodes)
        goto nomem;
    ngone = names_of(t, rm, gone, ngone);
    ncame = names_of(t, add, came, ncame);
    uint32_t r = 0;
    j = 0;
    for (uint32_t i = 0; i < ox->nnodes; i++) {
        if (r < ngone && !strcmp(ox->nodes[i], rm[r])) {
            r++;
            continue;
        }
        while (j < ncame && strcmp(add[j], ox->nodes[i]) < 0)
            x->nodes[x->nnodes++] = add[j++];
        x->nodes[x->nnodes++] = ox->nodes[i];
    }
    while (j < ncame)
        x->nodes[x->nnodes++] = add[j++];
    dc_arena_free(&tmp);
    *out = x;
    return DRACEL_OK;
nomem:
    dc_arena_free(&tmp);
    dc_pindex_free(x);
    return DRACEL_ENOMEM;
}

void dc_pindex_describe(const dc_table *t, const dc_pindex *x, dc_buf *b)
{
    for (uint32_t p = 0; p <= t->npools; p++)
        dc_buf_printf(b, "pool %u shared from %u\n", p, x->shared_first[p]);
    for (uint32_t j = 0; j < t->nconsumes; j++)
        dc_buf_printf(b, "consumed %u: shared %d\n", j, (int)x->cons_k[j]);
    for (uint32_t i = 0; i < x->nnamed; i++) /* in node id order, which differs by dictionary */
        dc_buf_printf(b, "named %s slice %u%s\n",
                      dc_dict_str(t->dict, (uint32_t)(x->named[i] >> 32))->data,
                      (uint32_t)x->named[i], i && x->named[i - 1] >= x->named[i] ? " UNSORTED" : "");
    for (uint32_t i = 0; i < x->ngeneral; i++)
        dc_buf_printf(b, "general slice %u%s\n", x->general[i],
                      i && x->general[i - 1] >= x->general[i] ? " UNSORTED" : "");
    for (uint32_t i = 0; i < x->nnodes; i++)
        dc_buf_printf(b, "node %s%s\n", x->nodes[i],
                      i && strcmp(x->nodes[i - 1], x->nodes[i]) >= 0 ? " UNSORTED" : "");
}

void dc_pindex_free(dc_pindex *x)
{
    if (!x)
        return;
    const dracel_alloc *a = x->a;
    dc_arena_free(&x->arena);
    dc_free(a, x, sizeof *x);
}

uint32_t dc_pindex_nodes(const dc_pindex *x)
{
    return x ? x->nnodes : 0;
}

const char *dc_pindex_node(const dc_pindex *x, uint32_t i)
{
    return x && i < x->nnodes ? x->nodes[i] : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Devices in use
 */

/* Capacity a device's shared allocations consume, summed per capacity name. */
typedef struct ushare {
    uint32_t row;
    const char *name;           /* as written in consumedCapacity */
    dc_qty q;
} ushare;

struct dc_usage {
    const dracel_alloc *a;
    const dracel_table *tt;
    uint64_t *bits;             /* over rows */
    dc_qty *avail;              /* per shared counter: its value minus what devices in use take */
    uint32_t found;
    uint64_t *shared;           /* over rows: devices with a shared allocation (or NULL) */
    ushare *shares;             /* sorted by row, then name; strings in `names` */
    uint32_t nshares, capshares;
    char *names;
    size_t names_len;
};

static uint32_t device_row(const dc_table *t, const dc_device_id *id);

/* What the devices of @p bits (and of @p shared, a device counted once) consume, taken from
 * the shared counters' values (@p avail, one per t->shared). A counter that would go below the
 * most negative quantity stays as it was. */
static void take_counters(const dc_table *t, const dc_pindex *x, const uint64_t *bits,
                          const uint64_t *shared, dc_qty *avail)
{
    for (uint32_t j = 0; j < t->nconsumes; j++) {
        const dc_tcounter *c = &t->consumes[j];
        if (x->cons_k[j] == UINT32_MAX ||
            !(dc_bit(bits, c->owner) || (shared && dc_bit(shared, c->owner))))
            continue;
        dc_qty out;
        if (!dc_qty_sub(&avail[x->cons_k[j]], &c->value->q, &out))
            avail[x->cons_k[j]] = out;
    }
}

dracel_status dc_usage_new(const dracel_table *tt, const dracel_alloc *a, const dc_device_id *ids,
                           uint32_t n, dc_usage **out)
{
    *out = NULL;
    const dc_table *t = dc_api_table(tt);
    const dc_pindex *x = dc_api_table_pindex(tt);
    dc_usage *u = dc_malloc(a, sizeof *u);
    if (!u)
        return DRACEL_ENOMEM;
    memset(u, 0, sizeof *u);
    u->a = a;
    u->tt = tt;
    size_t words = DC_BITS_WORDS(t->rows) + 1;
    u->bits = dc_malloc(a, words * sizeof *u->bits);
    u->avail = dc_malloc(a, (t->nshared + 1) * sizeof *u->avail);
    if (!u->bits || !u->avail) {
        dc_usage_free(u);
        return DRACEL_ENOMEM;
    }
    memset(u->bits, 0, words * sizeof *u->bits);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = device_row(t, &ids[i]);
        if (r != UINT32_MAX && !dc_bit(u->bits, r)) {
            dc_bit_set(u->bits, r);
            u->found++;
        }
    }
    for (uint32_t i = 0; i < t->nshared; i++)
        u->avail[i] = t->shared[i].value->q;
    take_counters(t, x, u->bits, NULL, u->avail);
    *out = u;
    return DRACEL_OK;
}

static int cmp_ushare(const void *a, const void *b)
{
    const ushare *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return strcmp(x->name, y->name);
}

dracel_status dc_usage_new_shared(const dracel_table *tt, const dracel_alloc *a,
                                  const dc_device_id *ids, uint32_t n, const dc_share_in *shares,
                                  uint32_t nshares, dc_usage **out)
{
    DC_TRY(dc_usage_new(tt, a, ids, n, out));
    if (!nshares)
        return DRACEL_OK;
    dc_usage *u = *out;
    const dc_table *t = dc_api_table(tt);
    size_t words = DC_BITS_WORDS(t->rows) + 1, names = 0, ncaps = 0;
    for (uint32_t i = 0; i < nshares; i++)
        for (uint32_t k = 0; k < shares[i].ncaps; k++) {
            names += strlen(shares[i].caps[k].name) + 1;
            ncaps++;
        }
    u->shared = dc_malloc(a, words * sizeof *u->shared);
    u->capshares = (uint32_t)ncaps + 1;
    u->shares = dc_malloc(a, u->capshares * sizeof *u->shares);
    u->names = dc_malloc(a, names + 1);
    u->names_len = names + 1;
    if (!u->shared || !u->shares || !u->names) {
        dc_usage_free(u);
        *out = NULL;
        return DRACEL_ENOMEM;
    }
    memset(u->shared, 0, words * sizeof *u->shared);
    char *np = u->names;
    for (uint32_t i = 0; i < nshares; i++) {
        uint32_t row = device_row(t, &shares[i].id);
        for (uint32_t k = 0; k < shares[i].ncaps; k++) {
            const char *qt = shares[i].caps[k].value;
            dc_qty q;
            if (dc_qty_parse(qt, strlen(qt), &q)) {
                dc_usage_free(u);
                *out = NULL;
                return DRACEL_EINPUT;
            }
            if (row == UINT32_MAX)
                continue; /* not in the table: counts for nothing */
            size_t ln = strlen(shares[i].caps[k].name);
            memcpy(np, shares[i].caps[k].name, ln + 1);
            u->shares[u->nshares++] = (ushare){row, np, q};
            np += ln + 1;
        }
        if (row != UINT32_MAX)
            dc_bit_set(u->shared, row);
    }
    if (u->nshares > 1)
        dc_sort(u->shares, u->nshares, sizeof *u->shares, cmp_ushare);
    /* one entry per (row, name): the shares' sum */
    uint32_t m = 0;
    for (uint32_t i = 0; i < u->nshares; i++) {
        if (m && u->shares[m - 1].row == u->shares[i].row &&
            strcmp(u->shares[m - 1].name, u->shares[i].name) == 0) {
            dc_qty sum;
            if (!dc_qty_add(&u->shares[m - 1].q, &u->shares[i].q, &sum))
                u->shares[m - 1].q = sum;
            continue;
        }
        u->shares[m++] = u->shares[i];
    }
    u->nshares = m;
    for (uint32_t i = 0; i < t->nshared; i++)
        u->avail[i] = t->shared[i].value->q;
    take_counters(t, dc_api_table_pindex(tt), u->bits, u->shared, u->avail);
    return DRACEL_OK;
}

dracel_status dc_usage_derive(const dc_usage *prev, const dracel_alloc *a,
                              const dc_device_id *set, uint32_t nset, const dc_device_id *clear,
                              uint32_t nclear, dc_usage **out)
{
    *out = NULL;
    const dc_table *t = dc_api_table(prev->tt);
    const dc_pindex *x = dc_api_table_pindex(prev->tt);
    dc_usage *u = dc_malloc(a, sizeof *u);
    if (!u)
        return DRACEL_ENOMEM;
    memset(u, 0, sizeof *u);
    u->a = a;
    u->tt = prev->tt;
    size_t words = DC_BITS_WORDS(t->rows) + 1;
    u->bits = dc_malloc(a, words * sizeof *u->bits);
    u->avail = dc_malloc(a, (t->nshared + 1) * sizeof *u->avail);
    if (!u->bits || !u->avail) {
        dc_usage_free(u);
        return DRACEL_ENOMEM;
    }
    memcpy(u->bits, prev->bits, words * sizeof *u->bits);
    u->found = prev->found;
    for (uint32_t i = 0; i < nclear; i++) {
        uint32_t r = device_row(t, &clear[i]);
        if (r != UINT32_MAX && dc_bit(u->bits, r)) {
            u->bits[r / 64] &= ~(1ull << (r % 64));
            u->found--;
        }
    }
    for (uint32_t i = 0; i < nset; i++) {
        uint32_t r = device_row(t, &set[i]);
        if (r != UINT32_MAX && !dc_bit(u->bits, r)) {
            dc_bit_set(u->bits, r);
            u->found++;
        }
    }
    for (uint32_t i = 0; i < t->nshared; i++)
        u->avail[i] = t->shared[i].value->q;
    take_counters(t, x, u->bits, NULL, u->avail);
    *out = u;
    return DRACEL_OK;
}

void dc_usage_free(dc_usage *u)
{
    if (!u)
        return;
    const dc_table *t = dc_api_table(u->tt);
    dc_free(u->a, u->bits, (DC_BITS_WORDS(t->rows) + 1) * sizeof *u->bits);
    dc_free(u->a, u->avail, (t->nshared + 1) * sizeof *u->avail);
    dc_free(u->a, u->shared, (DC_BITS_WORDS(t->rows) + 1) * sizeof *u->shared);
    dc_free(u->a, u->shares, u->capshares * sizeof *u->shares);
    dc_free(u->a, u->names, u->names_len);
    dc_free(u->a, u, sizeof *u);
}

uint32_t dc_usage_found(const dc_usage *u)
{
    return u ? u->found : 0;
}

const dracel_table *dc_usage_table(const dc_usage *u)
{
    return u ? u->tt : NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Policies
 */

static void *pz(dc_policy *p, size_t n)
{
    return dc_arena_zalloc(&p->arena, n ? n : 1);
}

static uint32_t intern_sel(dc_policy *p, const dc_sel_in *s, uint32_t *cap, bool *oom)
{
    const char *e = s->expr ? s->expr : "";
    uint32_t len = s->expr ? s->len : 0;
    for (uint32_t i = 0; i < p->nsels; i++)
        if (p->sels[i].empty == !s->expr && p->sels[i].len == len &&
            memcmp(p->sels[i].expr, e, len) == 0)
            return i;
    if (p->nsels == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        gsel *ns = dc_arena_zalloc(&p->arena, nc * sizeof *ns);
        if (!ns) {
            *oom = true;
            return 0;
        }
        if (p->nsels)
            memcpy(ns, p->sels, p->nsels * sizeof *ns);
        p->sels = ns;
        *cap = nc;
    }
    gsel *g = &p->sels[p->nsels];
    memset(g, 0, sizeof *g);
    g->expr = e;
    g->len = len;
    g->empty = !s->expr;
    if (!s->expr)
        g->compile_err = "CEL expression empty (unsupported selector type?)";
    return p->nsels++;
}

/* Compile, bind and evaluate one selector over the whole table. */
static dracel_status eval_sel(dc_policy *p, dracel_env *env, gsel *g)
{
    if (g->compile_err)
        return DRACEL_OK;
    dracel_diags *d = NULL;
    dracel_status st = dracel_compile(env, g->expr, g->len, 0, &g->prog, &d);
    if (st == DRACEL_EINPUT || st == DRACEL_ELIMIT) {
        dracel_diag_info info;
        const char *msg = "invalid expression";
        char buf[512];
        if (d && dracel_diags_count(d) && dracel_diags_get(d, 0, &info) == DRACEL_OK) {
            snprintf(buf, sizeof buf, "<input>:%u:%u: %s", (unsigned)info.line,
                     (unsigned)info.column, info.message);
            msg = buf;
        }
        g->compile_err = dc_arena_strndup(&p->arena, msg, strlen(msg));
        dracel_diags_free(d);
        return g->compile_err ? DRACEL_OK : DRACEL_ENOMEM;
    }
    dracel_diags_free(d);
    if (st != DRACEL_OK)
        return st;
    DC_TRY(dracel_bind(g->prog, p->tt, &g->bound));
    g->b = dc_api_bound(g->bound);
    if (g->b->p->loops) {
        g->lazy = p->any_lazy = true;
        return DRACEL_OK;
    }
    DC_TRY(dracel_selection_new(&p->cfg, &g->sel));
    DC_TRY(dracel_select(g->bound, env, NULL, g->sel));
    g->matched = dracel_selection_matched(g->sel);
    g->errored = dracel_selection_errored(g->sel);
    return DRACEL_OK;
}

static uint32_t device_row(const dc_table *t, const dc_device_id *id)
{
    uint32_t lim = t->dict_limit;
    uint32_t d = dc_dict_find(t->dict, id->driver, strlen(id->driver), lim);
    uint32_t pn = dc_dict_find(t->dict, id->pool, strlen(id->pool), lim);
    uint32_t dn = dc_dict_find(t->dict, id->device, strlen(id->device), lim);
    if (d == DC_DICT_NONE || pn == DC_DICT_NONE || dn == DC_DICT_NONE)
        return UINT32_MAX;
    /* pools are sorted by driver, then pool name (byte order) */
    uint32_t lo = 0, hi = t->npools;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const dc_tpool *pl = &t->pools[mid];
        int c = strcmp(dc_dict_str(t->dict, pl->driver)->data, id->driver);
        if (!c)
            c = strcmp(dc_dict_str(t->dict, pl->name)->data, id->pool);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == t->npools || t->pools[lo].driver != d || t->pools[lo].name != pn)
        return UINT32_MAX;
    const dc_tpool *pl = &t->pools[lo];
    for (uint32_t r = pl->first_row; r < pl->first_row + pl->rows; r++)
        if (t->device_name[r] == dn)
            return r;
    return UINT32_MAX;
}

/* FNV-1a over the decisive parts of the policy (src/objects.c hashes each object's part). */
static void policy_version(dc_policy *p)
{
    dc_hash f = DC_HASH_INIT;
    /* the classes the claims use, by name: p->own holds each once, sorted */
    for (uint32_t i = 0; i < p->own.nclasses; i++) {
        const dc_class_in *cl = &p->own.classes[i];
        dc_hash_str(&f, "class");
        dc_hash_str(&f, cl->name);
        dc_hash_class_spec(&f, cl);
    }
    for (uint32_t c = 0; c < p->nclaims; c++) {
        dc_hash_str(&f, "claim");
        dc_hash_claim_spec(&f, p->claims[c].in);
    }
    snprintf(p->version, sizeof p->version, "pv1-%016llx", (unsigned long long)f.h);
}

static const char *kobj(dc_policy *p, const dc_claim_in *c)
{
    if (c->namespace && c->namespace[0])
        return dc_arena_printf(&p->arena, "%s/%s", c->namespace, c->name);
    return c->name;
}

static int cmp_class(const void *a, const void *b)
{
    return strcmp(((const dc_class_in *)a)->name, ((const dc_class_in *)b)->name);
}

/* Copy the claims, and once each the classes they name that @p classes has, sorted by name. */
static dracel_status copy_objects(dc_policy *p, const dc_objects *classes,
                                  const dc_claim_in *const *claims, uint32_t nclaims)
{
    dc_objects *o = &p->own;
    o->claims = pz(p, nclaims * sizeof *o->claims);
    if (!o->claims)
        return DRACEL_ENOMEM;
    uint32_t nsubs = 0;
    for (uint32_t c = 0; c < nclaims; c++) {
        DC_TRY(dc_claim_copy(&p->arena, claims[c], &o->claims[c]));
        o->nclaims++;
        for (uint32_t r = 0; r < claims[c]->nreqs; r++)
            nsubs += claims[c]->reqs[r].nsubs;
    }
    const dc_class_in **found = pz(p, nsubs * sizeof *found);
    o->classes = pz(p, nsubs * sizeof *o->classes);
    if (!found || !o->classes)
        return DRACEL_ENOMEM;
    uint32_t nfound = 0;
    for (uint32_t c = 0; c < nclaims; c++)
        for (uint32_t r = 0; r < claims[c]->nreqs; r++)
            for (uint32_t s = 0; s < claims[c]->reqs[r].nsubs; s++) {
                const char *name = claims[c]->reqs[r].subs[s].class_name;
                uint32_t i = classes && name && name[0]
                                 ? dc_objects_find(classes, DC_OBJ_CLASS, NULL, name)
                                 : UINT32_MAX;
                if (i == UINT32_MAX)
                    continue;
                bool seen = false;
                for (uint32_t k = 0; k < nfound && !seen; k++)
                    seen = found[k] == &classes->classes[i];
                if (!seen)
                    found[nfound++] = &classes->classes[i];
            }
    for (uint32_t k = 0; k < nfound; k++)
        DC_TRY(dc_class_copy(&p->arena, found[k], &o->classes[o->nclasses++]));
    if (o->nclasses > 1)
        dc_sort(o->classes, o->nclasses, sizeof *o->classes, cmp_class);
    return DRACEL_OK;
}

static const dc_class_in *own_class(const dc_policy *p, const char *name)
{
    uint32_t lo = 0, hi = p->own.nclasses;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(p->own.classes[mid].name, name);
        if (!c)
            return &p->own.classes[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

dracel_status dc_policy_new(const dracel_config *cfg, const dracel_table *tt,
                            const dc_objects *classes, const dc_claim_in *const *claims,
                            uint32_t nclaims, dc_policy **out, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (!tt || (!claims && nclaims) || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_config pc_cfg;
    DC_TRY(dc_config_read(cfg, &pc_cfg));
    const dracel_alloc *a = dc_alloc_of(&pc_cfg);
    dc_policy *p = dc_malloc(a, sizeof *p);
    if (!p)
        goto nomem_early;
    memset(p, 0, sizeof *p);
    p->cfg = pc_cfg;
    p->a = a;
    dc_arena_init(&p->arena, a);
    p->tt = tt;
    p->t = dc_api_table(tt);
    p->x = dc_api_table_pindex(tt);
    dracel_status st = DRACEL_OK;
    bool oom = false;
    uint32_t capsels = 0;
    if (copy_objects(p, classes, claims, nclaims) != DRACEL_OK)
        goto nomem;
    const dc_objects *o = &p->own;

    /* Requests and subrequests. */
    p->nclaims = o->nclaims;
    p->claims = pz(p, o->nclaims * sizeof *p->claims);
    uint32_t npre = 0, ncons = 0;
    for (uint32_t c = 0; c < o->nclaims; c++) {
        for (uint32_t r = 0; r < o->claims[c].nreqs; r++)
            npre += o->claims[c].reqs[r].nsubs;
        p->nreqs_total += o->claims[c].nreqs;
        ncons += o->claims[c].ncons;
    }
    p->preqs = pz(p, npre * sizeof *p->preqs);
    p->req_slot = pz(p, npre * sizeof *p->req_slot);
    p->cons = pz(p, ncons * sizeof *p->cons);
    if (!p->claims || !p->preqs || !p->req_slot || !p->cons)
        goto nomem;
    uint32_t slot = 0;
    for (uint32_t c = 0; c < o->nclaims && !oom; c++) {
        const dc_claim_in *ci = &o->claims[c];
        pclaim *pc = &p->claims[c];
        pc->in = ci;
        pc->kobj = kobj(p, ci);
        pc->req_first = pz(p, ci->nreqs * sizeof *pc->req_first);
        pc->cons_first = p->ncons;
        if (!pc->kobj || !pc->req_first)
            goto nomem;
        for (uint32_t k = 0; k < ci->ncons; k++) {
            p->cons[p->ncons++] = &ci->cons[k];
        }
        for (uint32_t r = 0; r < ci->nreqs && !oom; r++, slot++) {
            const dc_request_in *rq = &ci->reqs[r];
            pc->req_first[r] = p->npreqs;
            for (uint32_t s = 0; s < rq->nsubs && !oom; s++) {
                preq *q = &p->preqs[p->npreqs];
                p->req_slot[p->npreqs++] = slot;
                const dc_subreq_in *sr = &rq->subs[s];
                q->claim = ci;
                q->req = rq;
                q->sub = sr;
                q->ci = c;
                q->ri = r;
                q->si = s;
                q->has_parent = rq->first_available;
                q->all = sr->mode && strcmp(sr->mode, "All") == 0;
                q->mode_ok = !sr->mode || q->all || strcmp(sr->mode, "ExactCount") == 0;
                q->name = q->has_parent ? dc_arena_printf(&p->arena, "%s/%s", rq->name, sr->name)
                                        : rq->name;
                q->cls = sr->class_name && sr->class_name[0] ? own_class(p, sr->class_name) : NULL;
                uint32_t ncs = q->cls ? q->cls->nsels : 0;
                q->sels = pz(p, (ncs + sr->nsels) * sizeof *q->sels);
                if (!q->name || !q->sels)
                    goto nomem;
                for (uint32_t k = 0; k < ncs && !oom; k++)
                    q->sels[q->nsels++] = intern_sel(p, &q->cls->sels[k], &capsels, &oom);
                q->nclass_sels = q->nsels;
                for (uint32_t k = 0; k < sr->nsels && !oom; k++)
                    q->sels[q->nsels++] = intern_sel(p, &sr->sels[k], &capsels, &oom);
                q->capq = pz(p, sr->ncapreqs * sizeof *q->capq);
                if (!q->capq)
                    goto nomem;
                for (uint32_t k = 0; k < sr->ncapreqs; k++) /* validated when read */
                    (void)dc_qty_parse(sr->capreqs[k].value, strlen(sr->capreqs[k].value),
                                       &q->capq[k]);
            }
        }
    }
    if (oom)
        goto nomem;

    /* Evaluate every selector over the table. */
    st = dracel_env_new(&p->cfg, DRACEL_ENV_DRA, &p->env);
    for (uint32_t i = 0; st == DRACEL_OK && i < p->nsels; i++)
        st = eval_sel(p, p->env, &p->sels[i]);
    /* one activation serves every lazy selector (one environment): that of the one reading
     * the most variables */
    const dc_program *widest = NULL;
    for (uint32_t i = 0; st == DRACEL_OK && i < p->nsels; i++)
        if (p->sels[i].lazy && (!widest || p->sels[i].b->p->nvars > widest->nvars))
            widest = p->sels[i].b->p;
    if (st == DRACEL_OK && widest) {
        p->nvars = widest->nvars;
        st = dc_api_env_vars(p->env, widest, &p->vars, &p->vars_tmp);
    }
    if (st != DRACEL_OK) {
        dc_policy_free(p);
        if (err && errcap)
            snprintf(err, errcap, "%s", st == DRACEL_ENOMEM ? "out of memory" : "cannot build the policy");
        return st;
    }
    policy_version(p);
    *out = p;
    return DRACEL_OK;
nomem:
    dc_policy_free(p);
nomem_early:
    if (err && errcap)
        snprintf(err, errcap, "out of memory");
    return DRACEL_ENOMEM;
}

void dc_policy_free(dc_policy *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->nsels; i++) {
        dracel_selection_free(p->sels[i].sel);
        dracel_bound_free(p->sels[i].bound);
        dracel_program_free(p->sels[i].prog);
    }
    if (p->vars_tmp)
        dc_api_env_vars_done(p->env, p->nvars, p->vars_tmp);
    dracel_env_free(p->env);
    const dracel_alloc *a = p->a;
    dc_arena_free(&p->arena);
    dc_free(a, p, sizeof *p);
}

const char *dc_policy_version(const dc_policy *p)
{
    return p->version;
}

const dracel_table *dc_policy_table(const dc_policy *p)
{
    return p->tt;
}

uint32_t dc_policy_nclaims(const dc_policy *p)
{
    return p->nclaims;
}

const dc_claim_in *dc_policy_claim(const dc_policy *p, uint32_t i)
{
    return i < p->nclaims ? p->claims[i].in : NULL;
}

const char *dc_policy_kobj(const dc_policy *p, uint32_t i)
{
    return i < p->nclaims ? p->claims[i].kobj : NULL;
}

uint32_t dc_policy_ntiers(const dc_policy *p)
{
    return p->npreqs;
}

void dc_policy_tier(const dc_policy *p, uint32_t i, dc_tier_desc *out)
{
    const preq *q = &p->preqs[i];
    out->claim = q->ci;
    out->request = q->ri;
    out->rank = q->si;
    out->name = q->name;
    out->req = q->req;
    out->sub = q->sub;
    out->cls = q->cls;
    out->nsels = q->nsels;
    out->nclass_sels = q->nclass_sels;
}

uint32_t dc_policy_tier_of(const dc_policy *p, uint32_t claim, uint32_t request)
{
    return p->claims[claim].req_first[request];
}

const char *dc_policy_selector(const dc_policy *p, uint32_t tier, uint32_t k, uint32_t *len,
                               const char **compile_error)
{
    const gsel *g = &p->sels[p->preqs[tier].sels[k]];
    *len = g->len;
    *compile_error = g->compile_err;
    return g->expr;
}

/* ---------------------------------------------------------------------------------------------
 * Node selection
 */

/* The value of label @p key; the labels are sorted by key unless !sorted. */
static const char *label_of(const dc_node_in *n, const char *key, bool sorted)
{
    if (!sorted) {
        for (uint32_t i = 0; i < n->nlabels; i++)
            if (strcmp(n->labels[i].key, key) == 0)
                return n->labels[i].value;
        return NULL;
    }
    uint32_t lo = 0, hi = n->nlabels;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(n->labels[mid].key, key);
        if (c == 0)
            return n->labels[mid].value;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* A Gt/Lt operand: Kubernetes needs it to be both a label value and an int64 (strconv.ParseInt),
 * so only decimal digits (a label value cannot start with a sign). */
static bool parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    for (const char *c = s; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* One NodeSelectorRequirement, as k8s.io/component-helpers' nodeaffinity matches it. */
static bool req_matches(const dc_node_req_in *rq, const dc_node_in *n, bool sorted)
{
    const char *v;
    if (rq->field)
        v = strcmp(rq->key, "metadata.name") == 0 ? n->name : NULL;
    else
        v = label_of(n, rq->key, sorted);
    const char *op = rq->op;
    if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
        bool in = false;
        for (uint32_t i = 0; v && i < rq->nvalues; i++)
            in |= strcmp(rq->values[i], v) == 0;
        return op[0] == 'I' ? in : !in;
    }
    if (strcmp(op, "Exists") == 0)
        return v != NULL;
    if (strcmp(op, "DoesNotExist") == 0)
        return v == NULL;
    if (strcmp(op, "Gt") == 0 || strcmp(op, "Lt") == 0) {
        int64_t have, want;
        if (!v || rq->nvalues != 1 || !parse_i64(v, &have) || !parse_i64(rq->values[0], &want))
            return false;
        return op[0] == 'G' ? have > want : have < want;
    }
    return false;
}

/* ---- Node selectors Kubernetes cannot build. nodeaffinity.NewNodeSelector turns each
 * non-empty term into a label selector (labels.NewRequirement): a Gt/Lt value must then be an
 * int64 for strconv.ParseInt and a valid label value. The API server does not check that, so
 * such a selector reaches the allocator, which fails the pod: "failed to perform node
 * selection". (Everything else NewRequirement checks is checked when slices are read.) */

static bool go_parse_int(const char *s)
{
    size_t i = *s == '+' || *s == '-';
    if (!s[i])
        return false;
    for (const char *c = s + i; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    errno = 0;
    char *end;
    (void)strtoll(s, &end, 10);
    return !errno && !*end;
}

static bool alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* IsValidLabelValue's messages, "; "-joined, or NULL. */
static void label_value_msgs(const char *v, dc_buf *b, bool *any)
{
    size_t n = strlen(v);
    bool ok = n == 0 || (alnum(v[0]) && alnum(v[n - 1]));
    for (size_t i = 0; ok && i < n; i++)
        ok = alnum(v[i]) || v[i] == '-' || v[i] == '_' || v[i] == '.';
    if (n > 63) {
        dc_buf_puts(b, "must be no more than 63 characters");
        *any = true;
    }
    if (!ok) {
        dc_buf_puts(b, n > 63 ? "; " : "");
        dc_buf_puts(b, "a valid label must be an empty string or consist of alphanumeric "
                       "characters, '-', '_' or '.', and must start and end with an "
                       "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                       "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?"
                       "[A-Za-z0-9])?')");
        *any = true;
    }
}

/* The selector as Go prints a v1.NodeSelector (its generated String()). */
static void go_selector_string(dc_buf *b, const dc_node_selector_in *s)
{
    dc_buf_puts(b, "&NodeSelector{NodeSelectorTerms:[]NodeSelectorTerm{");
    for (uint32_t i = 0; i < s->n; i++) {
        dc_buf_puts(b, "NodeSelectorTerm{");
        for (int field = 0; field < 2; field++) {
            dc_buf_puts(b, field ? "MatchFields:[]NodeSelectorRequirement{"
                                 : "MatchExpressions:[]NodeSelectorRequirement{");
            for (uint32_t j = 0; j < s->terms[i].n; j++) {
                const dc_node_req_in *r = &s->terms[i].reqs[j];
                if (r->field != (field == 1))
                    continue;
                dc_buf_printf(b, "NodeSelectorRequirement{Key:%s,Operator:%s,Values:[", r->key,
                              r->op);
                for (uint32_t k = 0; k < r->nvalues; k++)
                    dc_buf_printf(b, "%s%s", k ? " " : "", r->values[k]);
                dc_buf_puts(b, "],},");
            }
            dc_buf_puts(b, "},");
        }
        dc_buf_puts(b, "},");
    }
    dc_buf_puts(b, "},}");
}

/* Whether @p s can be built; when not, NodeMatches' error into @p b ("failed to parse node
 * selector ...: FIELD: Invalid value: ...", several as "[a, b]", as utilerrors aggregates). */
static bool node_selector_bad(const dc_node_selector_in *s, dc_buf *b)
{
    uint32_t nerr = 0;
    dc_buf e;
    dc_buf_init(&e, b->alloc);
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t k = 0; /* index among the term's matchExpressions */
        for (uint32_t j = 0; j < s->terms[i].n; j++) {
            const dc_node_req_in *r = &s->terms[i].reqs[j];
            if (r->field)
                continue;
            uint32_t idx = k++;
            if ((strcmp(r->op, "Gt") != 0 && strcmp(r->op, "Lt") != 0) || r->nvalues != 1)
                continue;
            const char *v = r->values[0];
            bool lbad = false;
            dc_buf lm;
            dc_buf_init(&lm, b->alloc);
            label_value_msgs(v, &lm, &lbad);
            for (int part = 0; part < 2; part++) {
                if (part == 0 ? go_parse_int(v) : !lbad)
                    continue;
                dc_buf_puts(&e, nerr++ ? ", " : "");
                dc_buf_printf(&e, "nodeSelectorTerms[%u].matchExpressions[%u].values[0]: Invalid "
                              "value: \"%s\": %s", i, idx, v,
                              part == 0 ? "for 'Gt', 'Lt' operators, the value must be an integer"
                                        : (lm.data ? lm.data : ""));
            }
            dc_buf_free(&lm);
        }
    }
    if (nerr) {
        dc_buf_puts(b, "failed to parse node selector ");
        go_selector_string(b, s);
        dc_buf_printf(b, ": %s%s%s", nerr > 1 ? "[" : "", e.data ? e.data : "",
                      nerr > 1 ? "]" : "");
    }
    dc_buf_free(&e);
    return nerr > 0;
}

bool dc_node_selector_match(const dc_node_selector_in *s, const dc_node_in *n, bool sorted)
{
    for (uint32_t i = 0; i < s->n; i++) {
        const dc_node_term_in *term = &s->terms[i];
        if (term->n == 0)
            continue; /* an empty term matches nothing */
        bool ok = true;
        for (uint32_t j = 0; ok && j < term->n; j++)
            ok = req_matches(&term->reqs[j], n, sorted);
        if (ok)
            return true;
    }
    return false;
}

static bool row_on_node_ex(const dc_table *t, uint32_t row, const dc_node_in *n, uint32_t name_id,
                           bool sorted)
{
    switch ((dc_node_kind)t->node_kind[row]) {
    case DC_NODE_NAME: return name_id != DC_DICT_NONE && t->node[row] == name_id;
    case DC_NODE_ALL: return true;
    case DC_NODE_SELECTOR:
        return dc_node_selector_match((const dc_node_selector_in *)t->node_selectors[t->node[row]],
                                      n, sorted);
    }
    return false;
}

static bool row_on_node(const dc_table *t, uint32_t row, const dc_node_in *n, uint32_t name_id)
{
    return row_on_node_ex(t, row, n, name_id, true);
}

/* The range of x->named of a node name id. */
static uint32_t named_range(const dc_pindex *x, uint32_t name_id, uint32_t *end)
{
    uint32_t lo = 0, hi = x->nnamed;
    uint64_t key = (uint64_t)name_id << 32;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (x->named[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    *end = lo;
    while (name_id != DC_DICT_NONE && *end < x->nnamed && (x->named[*end] >> 32) == name_id)
        (*end)++;
    return lo;
}

size_t dc_node_pools(const dc_table *t, const dc_pindex *x, const dc_node_in *n, bool sorted,
                     size_t *out, size_t cap)
{
    uint32_t name_id = dc_dict_find(t->dict, n->name, strlen(n->name), t->dict_limit);
    uint32_t end, i = named_range(x, name_id, &end), g = 0;
    size_t count = 0;
    uint32_t last = UINT32_MAX;
    /* as gather() visits slices (with per-device node selection, PartitionableDevices) */
    while (i < end || g < x->ngeneral) {
        uint32_t s;
        bool visible;
        if (g >= x->ngeneral || (i < end && (uint32_t)x->named[i] < x->general[g])) {
            s = (uint32_t)x->named[i++];
            visible = true;
        } else {
            s = x->general[g++];
            uint32_t a = t->slice_first[s], b = t->slice_first[s + 1];
            visible = false;
            if (dc_bit(t->slice_per_device, s)) {
                for (uint32_t row = a; !visible && row < b; row++)
                    visible = row_on_node_ex(t, row, n, name_id, sorted);
            } else {
                visible = row_on_node_ex(t, a, n, name_id, sorted);
            }
        }
        uint32_t pl = t->pool[t->slice_first[s]]; /* slices here have devices */
        if (!visible || pl == last)
            continue;
        if (count < cap)
            out[count] = pl;
        count++;
        last = pl;
    }
    return count;
}

uint64_t dc_usage_pool_hash(const dc_usage *u, uint32_t pool)
{
    const dc_table *t = dc_api_table(u->tt);
    if (pool >= t->npools)
        return 0;
    const dc_tpool *p = &t->pools[pool];
    uint64_t h = 0x2545F4914F6CDD1DULL;
    bool any = false;
    for (uint32_t r = p->first_row; r < p->first_row + p->rows; r++) {
        if (!dc_bit(u->bits, r))
            continue;
        const dc_str *name = dc_dict_str(t->dict, t->device_name[r]);
        uint64_t x = 1469598103934665603ULL;
        for (uint32_t k = 0; k < name->len; k++)
            x = (x ^ (unsigned char)name->data[k]) * 1099511628211ULL;
        x ^= name->len;
        h = (h ^ (x * 0x9E3779B97F4A7C15ULL)) * 0xC2B2AE3D27D4EB4FULL;
        h ^= h >> 29;
        any = true;
    }
    if (!any)
        return 0;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h ? h : 1;
}

/* ---------------------------------------------------------------------------------------------
 * The run
 */

enum { R_NOT = 0, R_DONE = 1, R_ERR = -1, R_MAXSIZE = -2, R_TIMEOUT = -3 };

typedef struct rdata {
    uint32_t num;               /* devices to allocate */
    uint32_t *all;              /* All: local indexes */
    uint32_t nall;
} rdata;

typedef struct result {
    uint32_t li;                /* local index */
    uint32_t pq;                /* preq */
    bool admin;
    bool multi;                 /* a share of an allowMultipleAllocations device */
    bool consumed_any;          /* consumedCapacity is set (the device has capacities) */
    dc_qty *consumed;           /* a share's consumed capacity, per cap of the row (the slot's
                                   buffer) */
    uint64_t share;             /* a share's number in the node's attempt (its shareID) */
} result;

typedef struct cstate {
    uint32_t n;                 /* devices in the set */
    dc_val v;                   /* match: the first device's value */
    dc_val *vals;               /* distinct: per request of the claim, the value of the last
                                   device it added (Kubernetes keys its map by request name) */
    bool *has;
} cstate;

typedef struct pstat {          /* explanation, per preq */
    uint32_t excl[DC_EXCL__COUNT];
    uint32_t capacity;                  /* consumable capacity: the request does not fit */
    uint32_t binding;                   /* binding conditions with their gates off */
    uint32_t candidates, available;
    uint32_t unevaluated;               /* devices a lazy selector could not be evaluated on in
                                           time: counted nowhere else */
    uint32_t *rejected, *errored;       /* per selector */
    uint32_t (*examples)[DC_ALLOC_MAX_EXAMPLES];
    const char *(*extext)[DC_ALLOC_MAX_EXAMPLES]; /* the examples as text, in the scratch arena */
    uint32_t *nexamples;
    bool sel_error;                     /* a selector did not compile */
    const char *reason;                 /* why the tier failed (status failed) */
} pstat;

typedef struct lzerr {
    uint32_t row;
    dc_val err;                 /* in the run's keep arena */
} lzerr;

typedef struct lzsel {          /* a lazy selector's answers so far, over the table's rows */
    uint64_t *known, *matched, *errored;
    lzerr *errs;
    uint32_t nerrs, caperrs;
} lzsel;

typedef struct ccfg {           /* allocation config of a claim (outcome allocated) */
    dc_alloc_config *e;
    uint32_t n;
} ccfg;

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
                                   Kubernetes cannot build (node_selector_bad) */
    bool gather_failed;         /* gather met such a selector: msg holds the error */
    char note[512];             /* dc_alloc_nondeterministic */
    uint64_t note_key;          /* what note says (release, copy, slices); 0: nothing */
    /* search state */
    rdata *rd;
    uint32_t *selected;         /* per request slot: the chosen subrequest */
    uint16_t *using;            /* per local index: claims allocating it */
    /* consumable capacity (the node's rows, when the copy and the feature have it) */
    uint32_t *capoff;           /* per local index: its first entry in acap; [nrows] = total */
    dc_qty *acap;               /* per capacity of each row: what this attempt's shares take */
    uint8_t *aentry;            /* per local index: allocatingCapacity has an entry for it */
    uint32_t maxcaps;           /* the most capacities one visible row has */
    uint64_t shares;            /* shares made so far (their shareIDs) */
    result **res;               /* per claim */
    uint32_t *nres;
    cstate *cs;                 /* per constraint */
    dc_qty *consumed;           /* per shared counter */
    uint64_t steps, backtracks;
    uint64_t deadline_ns;
    /* answer */
    dc_alloc_outcome outcome;
    bool node_local, timed_out, oom;
    char msg[2048];
    char tiers[1024];
    int score;
    ccfg *cfgs;                 /* per claim, when allocated */
    pstat *stats;               /* explain */
    bool explained;
    /* lazy selectors: what this run evaluated, kept across nodes and calls */
    lzsel *lz;                  /* per selector of the policy (NULL: none is lazy) */
    dc_arena keep;              /* their error values */
    dc_ectx lctx;               /* their evaluations */
    uint64_t lazy_evals;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *sz(dc_alloc_run *r, size_t n)
{
    return dc_arena_zalloc(&r->scratch, n ? n : 1);
}

dracel_status dc_alloc_run_new(const dc_policy *p, dc_alloc_run **out)
{
    dc_alloc_run *r = dc_malloc(p->a, sizeof *r);
    if (!r)
        return DRACEL_ENOMEM;
    memset(r, 0, sizeof *r);
    r->p = p;
    r->a = p->a;
    dc_arena_init(&r->scratch, p->a);
    dc_ectx_init(&r->ectx, p->a);
    r->outcome = DC_ALLOC_SKIPPED;
    r->score = -1;
    r->node_name = "";
    dc_arena_init(&r->keep, p->a);
    dc_ectx_init(&r->lctx, p->a);
    r->lctx.cost_limit = p->cfg.cost_limit;
    r->lctx.mem_limit = p->cfg.eval_memory_limit;
    if (p->any_lazy) {
        r->lz = dc_malloc(p->a, p->nsels * sizeof *r->lz);
        if (!r->lz) {
            dc_alloc_run_free(r);
            return DRACEL_ENOMEM;
        }
        memset(r->lz, 0, p->nsels * sizeof *r->lz);
    }
    *out = r;
    return DRACEL_OK;
}

static size_t words_of(const dc_alloc_run *r)
{
    return DC_BITS_WORDS(r->p->t->rows) + 1;
}

void dc_alloc_run_free(dc_alloc_run *r)
{
    if (!r)
        return;
    dc_arena_free(&r->scratch);
    dc_ectx_free(&r->ectx);
    dc_free(r->a, r->resv, words_of(r) * sizeof *r->resv);
    dc_free(r->a, r->pstate, r->p->t->npools + 1);
    dc_free(r->a, r->selbad, r->p->t->nselectors + 1);
    dc_free(r->a, r->resv_rows, r->capresv * sizeof *r->resv_rows);
    dc_free(r->a, r->avail, (r->p->t->nshared + 1) * sizeof *r->avail);
    dc_free(r->a, r->consumed, (r->p->t->nshared + 1) * sizeof *r->consumed);
    for (uint32_t i = 0; r->lz && i < r->p->nsels; i++) {
        dc_free(r->a, r->lz[i].known, 3 * words_of(r) * sizeof(uint64_t));
        dc_free(r->a, r->lz[i].errs, r->lz[i].caperrs * sizeof *r->lz[i].errs);
    }
    dc_free(r->a, r->lz, r->p->nsels * sizeof *r->lz);
    dc_ectx_free(&r->lctx);
    dc_arena_free(&r->keep);
    dc_free(r->a, r, sizeof *r);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

dracel_status dc_alloc_begin(dc_alloc_run *r, const dc_alloc_opts *o)
{
    const dc_table *t = r->p->t;
    if (o->in_use && dc_usage_table(o->in_use) != r->p->tt)
        return DRACEL_EINVAL;
    if (o->nreserved && !o->reserved)
        return DRACEL_EINVAL;
    /* take back the previous call's reservations */
    for (uint32_t i = 0; i < r->nresv; i++)
        r->resv[r->resv_rows[i] / 64] = 0;
    r->nresv = 0;
    r->o = *o;
    dc_k8s_resolve(o->release ? o->release : DC_K8S_NEWEST, o->features, &r->k8s);
    r->usage = o->in_use;
    if (!r->pstate) {
        r->pstate = dc_malloc(r->a, t->npools + 1);
        r->selbad = dc_malloc(r->a, t->nselectors + 1);
        if (!r->pstate || !r->selbad)
            return DRACEL_ENOMEM;
        memset(r->selbad, 0, t->nselectors + 1);
    }
    if (!r->avail) {
        r->avail = dc_malloc(r->a, (t->nshared + 1) * sizeof *r->avail);
        r->consumed = dc_malloc(r->a, (t->nshared + 1) * sizeof *r->consumed);
        if (!r->avail || !r->consumed) {
            dc_free(r->a, r->avail, (t->nshared + 1) * sizeof *r->avail);
            dc_free(r->a, r->consumed, (t->nshared + 1) * sizeof *r->consumed);
            r->avail = r->consumed = NULL;
            return DRACEL_ENOMEM;
        }
    }
    if (o->nreserved) {
        if (!r->resv) {
            r->resv = dc_malloc(r->a, words_of(r) * sizeof *r->resv);
            if (!r->resv)
                return DRACEL_ENOMEM;
            memset(r->resv, 0, words_of(r) * sizeof *r->resv);
        }
        if (o->nreserved > r->capresv) {
            uint32_t *v = dc_realloc(r->a, r->resv_rows, r->capresv * sizeof *v,
                                     o->nreserved * sizeof *v);
            if (!v)
                return DRACEL_ENOMEM;
            r->resv_rows = v;
            r->capresv = o->nreserved;
        }
        for (uint32_t i = 0; i < o->nreserved; i++) {
            uint32_t row = device_row(t, &o->reserved[i]);
            if (row != UINT32_MAX && !dc_bit(r->resv, row)) {
                dc_bit_set(r->resv, row);
                r->resv_rows[r->nresv++] = row;
            }
        }
        if (r->nresv > 1)
            dc_sort(r->resv_rows, r->nresv, sizeof *r->resv_rows, cmp_u32);
    }
    r->call_deadline_ns = o->budget_ms ? now_ns() + o->budget_ms * 1000000ull : 0;
    return DRACEL_OK;
}

static int fail(dc_alloc_run *r, const char *fmt, ...) DC_PRINTF(2, 3);
static int fail(dc_alloc_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
    return R_ERR;
}

static void dev_id(const dc_table *t, uint32_t row, char *buf, size_t cap)
{
    const dc_tpool *pl = &t->pools[t->pool[row]];
    snprintf(buf, cap, "%s/%s/%s", dc_dict_str(t->dict, pl->driver)->data,
             dc_dict_str(t->dict, pl->name)->data, dc_dict_str(t->dict, t->device_name[row])->data);
}

/* ---- Selectors on rows */

enum { S_FALSE = 0, S_TRUE = 1, S_ERROR = 2, S_TIMEOUT = 3, S_OOM = 4 };

/* Selector gi on a row: read from the policy's bitmaps, or (a lazy selector) from what the run
 * evaluated, evaluating it now on the scalar VM when it has not yet; S_TIMEOUT when that is
 * needed after the run's deadline, S_OOM when the run's memory ran out. */
static int sel_on_lazy(dc_alloc_run *r, uint32_t gi, uint32_t row);

static inline int sel_on(dc_alloc_run *r, uint32_t gi, uint32_t row)
{
    const gsel *g = &r->p->sels[gi];
    if (!g->lazy)
        return dc_bit(g->errored, row) ? S_ERROR : dc_bit(g->matched, row) ? S_TRUE : S_FALSE;
    return sel_on_lazy(r, gi, row);
}

static int sel_on_lazy(dc_alloc_run *r, uint32_t gi, uint32_t row)
{
    const gsel *g = &r->p->sels[gi];
    lzsel *z = &r->lz[gi];
    if (z->known && dc_bit(z->known, row))
        return dc_bit(z->errored, row) ? S_ERROR : dc_bit(z->matched, row) ? S_TRUE : S_FALSE;
    if (r->deadline_ns && now_ns() >= r->deadline_ns)
        return S_TIMEOUT;
    if (!z->known) {
        size_t w = words_of(r);
        z->known = dc_malloc(r->a, 3 * w * sizeof(uint64_t));
        if (!z->known)
            return S_OOM;
        memset(z->known, 0, 3 * w * sizeof(uint64_t));
        z->matched = z->known + w;
        z->errored = z->known + 2 * w;
    }
    dc_rowsrc rs = {g->b, row};
    r->lctx.rowsrc = &rs;
    dc_val v = dc_vm_exec(g->b->p, &r->lctx, r->p->vars);
    r->lctx.rowsrc = NULL;
    r->lazy_evals++;
    if (r->lctx.alloc_failed)
        return S_OOM;
    if (v.k == DC_K_BOOL) {
        dc_bit_set(z->known, row);
        if (v.u.b)
            dc_bit_set(z->matched, row);
        return v.u.b ? S_TRUE : S_FALSE;
    }
    /* an error (the VM makes a non-bool result of a selector one) */
    if (z->nerrs == z->caperrs) {
        uint32_t nc = z->caperrs ? z->caperrs * 2 : 8;
        lzerr *e = dc_realloc(r->a, z->errs, z->caperrs * sizeof *e, nc * sizeof *e);
        if (!e)
            return S_OOM;
        z->errs = e;
        z->caperrs = nc;
    }
    lzerr *e = &z->errs[z->nerrs];
    e->row = row;
    if (!dc_val_copy(&r->keep, v, &e->err, 0))
        return S_OOM;
    z->nerrs++;
    dc_bit_set(z->known, row);
    dc_bit_set(z->errored, row);
    return S_ERROR;
}

/* The message of selector gi's error on a row it errored on. */
static const char *sel_error(const dc_alloc_run *r, uint32_t gi, uint32_t row)
{
    const gsel *g = &r->p->sels[gi];
    if (!g->lazy)
        return dracel_selection_error(g->sel, row);
    const lzsel *z = &r->lz[gi];
    for (uint32_t i = 0; i < z->nerrs; i++)
        if (z->errs[i].row == row && z->errs[i].err.k == DC_K_ERROR)
            return z->errs[i].err.u.e->msg;
    return NULL;
}

/* What the counters of the node's pools have left: their values, minus what the devices in use
 * (the call's usage and reservations) consume. */
static void node_counters(dc_alloc_run *r)
{
    const dc_table *t = r->p->t;
    const dc_pindex *x = r->p->x;
    for (uint32_t v = 0; v < r->nvpools; v++) {
        uint32_t pl = r->vpools[v];
        for (uint32_t k = x->shared_first[pl]; k < x->shared_first[pl + 1]; k++)
            r->avail[k] = r->usage ? r->usage->avail[k] : t->shared[k].value->q;
        if (!r->nresv || x->shared_first[pl] == x->shared_first[pl + 1])
            continue;
        /* the call's reserved devices of this pool */
        const dc_tpool *tp = &t->pools[pl];
        uint32_t lo = 0, hi = r->nresv;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (r->resv_rows[mid] < tp->first_row)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t i = lo; i < r->nresv && r->resv_rows[i] < tp->first_row + tp->rows; i++) {
            uint32_t row = r->resv_rows[i], n;
            if (r->usage && dc_bit(r->usage->bits, row))
                continue; /* counted by the usage already */
            const dc_tcounter *c = dc_table_consumes(t, row, &n);
            for (uint32_t j = 0; j < n; j++) {
                uint32_t k = x->cons_k[c - t->consumes + j];
                dc_qty out;
                if (k != UINT32_MAX && !dc_qty_sub(&r->avail[k], &c[j].value->q, &out))
                    r->avail[k] = out;
            }
        }
    }
}

/* Reorder the node's rows (and pools, and @p seen, their visible slices) for binding
 * conditions (see gather). Stable: the order among the others is kept. */
static dracel_status binding_last(dc_alloc_run *r, uint32_t *seen)
{
    const dc_table *t = r->p->t;
    bool any = false;
    for (uint32_t li = 0; li < r->nrows && !any; li++)
        any = dc_bit(t->bindc, r->rows[li]);
    if (!any)
        return DRACEL_OK;
    uint8_t *bpool = sz(r, r->nvpools + 1);
    uint32_t *rows = sz(r, r->nrows * sizeof *rows);
    uint32_t *vp = sz(r, r->nvpools * sizeof *vp), *vs = sz(r, r->nvpools * sizeof *vs);
    if (!bpool || !rows || !vp || !vs)
        return DRACEL_ENOMEM;
    /* rows come pool after pool, in vpools order */
    uint32_t v = 0;
    for (uint32_t li = 0; li < r->nrows; li++) {
        while (t->pool[r->rows[li]] != r->vpools[v])
            v++;
        bpool[v] |= dc_bit(t->bindc, r->rows[li]);
    }
    /* From 1.35 on an incomplete pool reaches the allocator without its slices, so among the
     * others */
    for (v = 0; v < r->nvpools && r->k8s.release > 34; v++)
        if (r->pstate[r->vpools[v]] == DC_POOL_INCOMPLETE)
            bpool[v] = 0;
    uint32_t n = 0, m = 0;
    for (int pass = 0; pass < 2; pass++) {
        v = 0;
        uint32_t start = 0;
        for (uint32_t li = 0; li <= r->nrows; li++) {
            if (li < r->nrows && t->pool[r->rows[li]] == r->vpools[v])
                continue;
            /* rows [start, li) are pool v's */
            if (bpool[v] == pass) {
                vp[m] = r->vpools[v];
                vs[m++] = seen[v];
                bool by_slice = r->k8s.release <= 35;
                for (int sp = 0; sp < (by_slice ? 2 : 1); sp++)
                    for (uint32_t k = start; k < li; k++) {
                        uint32_t row = r->rows[k];
                        if (by_slice) {
                            uint32_t sl = dc_table_slice_of(t, row), b = 0;
                            for (uint32_t x = t->slice_first[sl]; x < t->slice_first[sl + 1] && !b;
                                 x++)
                                b = dc_bit(t->bindc, x);
                            if ((int)b != sp)
                                continue;
                        }
                        rows[n++] = row;
                    }
            }
            start = li;
            if (li < r->nrows)
                v++;
        }
    }
    memcpy(r->rows, rows, r->nrows * sizeof *rows);
    memcpy(r->vpools, vp, r->nvpools * sizeof *vp);
    memcpy(seen, vs, r->nvpools * sizeof *vs);
    return DRACEL_OK;
}

/* Whether row's node selector (it has one) is one Kubernetes cannot build; if so its error
 * becomes the run's message, as GatherPools wraps it (@p gathering: for slice @p s, or for
 * the device in slice @p s when @p per_device) or as isSelectable returns it. */
static bool row_selector_bad(dc_alloc_run *r, uint32_t row, bool gathering, uint32_t s,
                             bool per_device)
{
    const dc_table *t = r->p->t;
    uint32_t k = t->node[row];
    if (r->selbad[k] == 1)
        return false;
    dc_buf b;
    dc_buf_init(&b, r->a);
    bool bad = node_selector_bad((const dc_node_selector_in *)t->node_selectors[k], &b);
    r->selbad[k] = bad ? 2 : 1;
    if (bad) {
        const char *e = b.data ? b.data : "failed to parse node selector";
        const char *sname = dc_dict_str(t->dict, t->slice_name[s])->data;
        if (!gathering)
            snprintf(r->msg, sizeof r->msg, "%s", e);
        else if (per_device)
            snprintf(r->msg, sizeof r->msg, "gather pool information: failed to perform node "
                     "selection for device %s in slice %s: %s",
                     dc_dict_str(t->dict, t->device_name[row])->data, sname, e);
        else
            snprintf(r->msg, sizeof r->msg, "gather pool information: failed to perform node "
                     "selection for slice %s: %s", sname, e);
    }
    dc_buf_free(&b);
    return bad;
}

/* The node's rows: slices tied to it by name, and the others whose selection matches. */
static dracel_status gather(dc_alloc_run *r)
{
    const dc_policy *p = r->p;
    const dc_pindex *x = p->x;
    const dc_table *t = p->t;
    const dc_node_in *n = r->node;
    uint32_t name_id = n->name ? dc_dict_find(t->dict, n->name, strlen(n->name), t->dict_limit)
                               : DC_DICT_NONE;
    r->node_id = name_id;
    /* the named slices of this node: a range of x->named */
    uint32_t end, lo = named_range(x, name_id, &end);
    /* merge with the general slices, in slice order */
    uint32_t cap = 0;
    for (uint32_t i = lo; i < end; i++) {
        uint32_t s = (uint32_t)x->named[i];
        cap += t->slice_first[s + 1] - t->slice_first[s];
    }
    for (uint32_t i = 0; i < x->ngeneral; i++) {
        uint32_t s = x->general[i];
        cap += t->slice_first[s + 1] - t->slice_first[s];
    }
    r->rows = sz(r, cap * sizeof *r->rows);
    r->vpools = sz(r, cap * sizeof *r->vpools);
    uint32_t *seen = sz(r, cap * sizeof *seen); /* per visible pool: its visible slices */
    if (!r->rows || !r->vpools || !seen)
        return DRACEL_ENOMEM;
    r->nrows = r->nvpools = 0;
    uint32_t i = lo, g = 0;
    bool partitionable = r->k8s.features & DC_FEAT_PARTITIONABLE;
    while (i < end || g < x->ngeneral) {
        uint32_t s;
        bool visible;
        if (g >= x->ngeneral || (i < end && (uint32_t)x->named[i] < x->general[g])) {
            s = (uint32_t)x->named[i++];
            visible = true;
        } else {
            s = x->general[g++];
            uint32_t a = t->slice_first[s], b = t->slice_first[s + 1];
            visible = false;
            if (dc_bit(t->slice_per_device, s)) {
                for (uint32_t row = a; partitionable && !visible && row < b; row++) {
                    if (t->node_kind[row] == DC_NODE_SELECTOR &&
                        row_selector_bad(r, row, true, s, true)) {
                        r->gather_failed = true;
                        return DRACEL_OK;
                    }
                    visible = row_on_node(t, row, n, name_id);
                }
            } else {
                if (t->node_kind[a] == DC_NODE_SELECTOR && row_selector_bad(r, a, true, s, false)) {
                    r->gather_failed = true;
                    return DRACEL_OK;
                }
                visible = row_on_node(t, a, n, name_id);
            }
        }
        if (!visible)
            continue;
        uint32_t pl = t->pool[t->slice_first[s]];
        if (!r->nvpools || r->vpools[r->nvpools - 1] != pl) {
            r->vpools[r->nvpools++] = pl;
            seen[r->nvpools - 1] = 0;
        }
        seen[r->nvpools - 1]++;
        for (uint32_t row = t->slice_first[s]; row < t->slice_first[s + 1]; row++)
            r->rows[r->nrows++] = row;
    }
    /* The pools' state on this node. From 1.35 on a pool the node sees only part of is judged
     * by all its slices (the table's state); 1.34 judges it by the node's slices alone, so a
     * pool spread over nodes is incomplete on each (a slice without devices, whose node the
     * table does not keep, counts as seen). */
    r->nslices_seen = 0;
    for (uint32_t v = 0; v < r->nvpools; v++) {
        const dc_tpool *tp = &t->pools[r->vpools[v]];
        dc_pool_state st = tp->state;
        if (!r->k8s.fleet_complete && st != DC_POOL_INVALID) {
            uint32_t ns = seen[v];
            for (uint32_t k = tp->first_slice; k < tp->first_slice + tp->slices; k++)
                ns += t->slice_first[k] == t->slice_first[k + 1];
            st = (int64_t)ns == tp->slice_count ? DC_POOL_COMPLETE : DC_POOL_INCOMPLETE;
        }
        r->pstate[r->vpools[v]] = (uint8_t)st;
        if (st == DC_POOL_COMPLETE)
            r->nslices_seen += seen[v];
    }
    /* The copies with binding conditions try pools holding devices with binding conditions
     * (among the node's) last; 1.34's and 1.35's experimental copy also the slices holding
     * them last within each pool. */
    if (r->k8s.beta_code && r->nrows) {
        DC_TRY(binding_last(r, seen));
    }
    node_counters(r);
    return DRACEL_OK;
}

static inline bool pool_usable(const dc_alloc_run *r, uint32_t row)
{
    return r->pstate[r->p->t->pool[row]] == DC_POOL_COMPLETE;
}

static inline dc_pool_state pool_state(const dc_alloc_run *r, uint32_t pool)
{
    return (dc_pool_state)r->pstate[pool];
}

/* ---- Consumable capacity (DRAConsumableCapacity, in the copies with the beta features):
 * Kubernetes' consumable_capacity.go and the allocator's CmpRequestOverCapacity. */

static inline bool consumable(const dc_alloc_run *r)
{
    return r->k8s.beta_code && (r->k8s.features & DC_FEAT_CONSUMABLE_CAPACITY);
}

static inline bool multi_row(const dc_alloc_run *r, uint32_t row)
{
    return consumable(r) && dc_bit(r->p->t->multi, row);
}

/* Quantity.Value(): rounded up, away from zero, to an integer (saturating). */
static int64_t qty_value(const dc_qty *q)
{
    dc_qty_i128 m = q->m;
    for (int32_t e = q->e; e > 0; e--) {
        if (m > (dc_qty_i128)INT64_MAX || m < (dc_qty_i128)INT64_MIN)
            return m > 0 ? INT64_MAX : INT64_MIN;
        m *= 10;
    }
    for (int32_t e = q->e; e < 0; e++) {
        dc_qty_i128 d = m / 10, rem = m % 10;
        m = d + (rem > 0) - (rem < 0);
    }
    if (m > (dc_qty_i128)INT64_MAX)
        return INT64_MAX;
    if (m < (dc_qty_i128)INT64_MIN)
        return INT64_MIN;
    return (int64_t)m;
}

/* Go's == on two resource.Quantity values (what violatesPolicy compares the default with):
 * the same value held the same way, in the same format. */
static bool qty_same(const dc_qty *a, const dc_qty *b)
{
    return a->m == b->m && a->e == b->e && a->kscale == b->kscale && a->fmt == b->fmt &&
           a->dec == b->dec;
}

/* calculateConsumedCapacity: what one request (req, or none) consumes of a capacity. */
static dc_qty consumed_of(const dc_tcap *c, const dc_qty *req)
{
    const dc_tpolicy *p = c->policy;
    if (!req)
        return p && p->def ? p->def->q : c->value->q; /* fillEmptyRequest */
    if (!p)
        return *req;
    if (p->min) { /* roundUpRange */
        if (dc_qty_cmp(req, &p->min->q) < 0)
            return p->min->q;
        if (!p->step)
            return *req;
        int64_t rv = qty_value(req), step = qty_value(&p->step->q), mn = qty_value(&p->min->q);
        int64_t added = rv - mn, n = step ? added / step : 0;
        if (step && added % step != 0)
            n++;
        dc_qty out = dc_qty_from_int(mn + step * n);
        out.fmt = DC_QTY_BINARY_SI; /* resource.NewQuantity(val, BinarySI) */
        return out;
    }
    if (p->nvalid) { /* roundUpValidValues */
        for (uint32_t i = 0; i < p->nvalid; i++)
            if (dc_qty_cmp(req, &p->valid[i]->q) <= 0)
                return p->valid[i]->q;
        return *req;
    }
    return *req;
}

/* violatesPolicy */
static bool violates(const dc_qty *v, const dc_tpolicy *p)
{
    if (!p)
        return false;
    if (p->def && qty_same(v, &p->def->q))
        return false;
    if (p->min) {
        if (p->max && dc_qty_cmp(v, &p->max->q) > 0)
            return true;
        if (p->step) {
            int64_t step = qty_value(&p->step->q);
            return step && (qty_value(v) - qty_value(&p->min->q)) % step != 0;
        }
        return false;
    }
    if (p->nvalid) {
        for (uint32_t i = 0; i < p->nvalid; i++)
            if (dc_qty_cmp(v, &p->valid[i]->q) == 0)
                return false;
        return true;
    }
    return false;
}

/* What the shared allocations in use consume of a row's capacity @p name (0 when none). */
static const dc_qty *shared_use(const dc_alloc_run *r, uint32_t row, const char *name)
{
    const dc_usage *u = r->usage;
    if (!u || !u->nshares || !dc_bit(u->shared, row))
        return NULL;
    uint32_t lo = 0, hi = u->nshares;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (u->shares[mid].row < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < u->nshares && u->shares[lo].row == row; lo++)
        if (strcmp(u->shares[lo].name, name) == 0)
            return &u->shares[lo].q;
    return NULL;
}

/* deviceCapacityInUse: a share of the device is allocated, or being allocated here. */
static bool cap_in_use(const dc_alloc_run *r, uint32_t li)
{
    uint32_t row = r->rows[li];
    return (r->usage && r->usage->shared && dc_bit(r->usage->shared, row)) ||
           (r->aentry && r->aentry[li]);
}

/* What request q asks of the capacity @p name, or NULL. */
static const dc_qty *requested(const preq *q, const char *name)
{
    for (uint32_t k = 0; k < q->sub->ncapreqs; k++)
        if (strcmp(q->sub->capreqs[k].name, name) == 0)
            return &q->capq[k];
    return NULL;
}

/* CmpRequestOverCapacity for request pq and the device at li: 1 fits, 0 does not, -1 the
 * request names a capacity the device lacks (an error the allocator skips the device on).
 * @p alone: without what this attempt's shares take (for the explanation). */
static int cap_check(const dc_alloc_run *r, uint32_t pq, uint32_t li, bool alone)
{
    const dc_table *t = r->p->t;
    const preq *q = &r->p->preqs[pq];
    uint32_t row = r->rows[li], nc;
    const dc_tcap *caps = dc_table_caps(t, row, &nc);
    for (uint32_t k = 0; k < q->sub->ncapreqs; k++) {
        bool found = false;
        for (uint32_t j = 0; j < nc && !found; j++)
            found = strcmp(dc_dict_str(t->dict, caps[j].name)->data, q->sub->capreqs[k].name) == 0;
        if (!found)
            return -1;
    }
    for (uint32_t j = 0; j < nc; j++) {
        const char *name = dc_dict_str(t->dict, caps[j].name)->data;
        dc_qty used = consumed_of(&caps[j], requested(q, name));
        if (violates(&used, caps[j].policy))
            return 0;
        dc_qty sum;
        const dc_qty *in_use = shared_use(r, row, name);
        if (in_use && !dc_qty_add(in_use, &used, &sum))
            used = sum;
        if (!alone && r->acap && !dc_qty_add(&used, &r->acap[r->capoff[li] + j], &sum))
            used = sum;
        if (dc_qty_cmp(&used, &caps[j].value->q) > 0)
            return 0;
    }
    return 1;
}

/* Devices with binding conditions are selectable only with binding conditions on: in 1.34
 * DeviceBinding and DeviceStatus, from 1.35 DeviceBindingAndStatus (both gates). */
static inline bool binding_off(const dc_alloc_run *r, uint32_t row)
{
    if (!dc_bit(r->p->t->bindc, row))
        return false;
    unsigned need = r->k8s.release == 34 ? DC_FEAT_BINDING_CONDITIONS | DC_FEAT_DEVICE_STATUS
                                         : DC_FEAT_BINDING_CONDITIONS;
    return (r->k8s.features & need) != need;
}

/* Kubernetes' isSelectable: 1, 0, or R_ERR with the message. */
static int selectable(dc_alloc_run *r, uint32_t pq, uint32_t li)
{
    const dc_policy *p = r->p;
    const preq *q = &p->preqs[pq];
    uint32_t row = r->rows[li];
    if (binding_off(r, row))
        return 0; /* before any selector, as isSelectable checks it */
    for (uint32_t k = 0; k < q->nsels; k++) {
        const gsel *g = &p->sels[q->sels[k]];
        bool cls = k < q->nclass_sels;
        uint32_t idx = cls ? k : k - q->nclass_sels;
        if (g->compile_err) {
            if (cls)
                return fail(r, "class %s: selector #%u: CEL compile error: %s", q->cls->name, idx,
                            g->compile_err);
            return fail(r, "claim %s: selector #%u: CEL compile error: %s",
                        p->claims[q->ci].kobj, idx, g->compile_err);
        }
        int on = sel_on(r, q->sels[k], row);
        if (on == S_TIMEOUT)
            return R_TIMEOUT;
        if (on == S_OOM) {
            r->oom = true;
            return fail(r, "out of memory");
        }
        if (on == S_ERROR) {
            char id[800], where[1024];
            const char *e = sel_error(r, q->sels[k], row);
            /* 1.37 names the device and adds cel.EnhanceRuntimeError's hint to "no such key" */
            const char *hint = r->k8s.device_in_msg && e && strstr(e, "no such key:")
                                   ? ". consider using CEL optional chaining (.? followed by "
                                     "orValue()) or guarding the check with has() for optional "
                                     "fields"
                                   : "";
            if (r->k8s.device_in_msg) {
                dev_id(p->t, row, id, sizeof id);
                snprintf(where, sizeof where, "selector #%u on device %s", idx, id);
            } else {
                snprintf(where, sizeof where, "selector #%u", idx);
            }
            if (cls)
                return fail(r, "class %s: %s: CEL runtime error: %s%s", q->cls->name, where,
                            e ? e : "error", hint);
            return fail(r, "claim %s: %s: CEL runtime error: %s%s", p->claims[q->ci].kobj, where,
                        e ? e : "error", hint);
        }
        if (on == S_FALSE)
            return 0;
    }
    const dc_table *t = p->t;
    if (dc_bit(t->slice_per_device, dc_table_slice_of(t, row))) {
        if (t->node_kind[row] == DC_NODE_SELECTOR &&
            row_selector_bad(r, row, false, dc_table_slice_of(t, row), true))
            return R_ERR;
        if (!row_on_node(t, row, r->node, r->node_id))
            return 0;
    }
    return 1;
}

/* In use by another claim: the call's usage or reservations. */
static inline bool taken(const dc_alloc_run *r, uint32_t row)
{
    return (r->usage && dc_bit(r->usage->bits, row)) || (r->nresv && dc_bit(r->resv, row));
}

static bool in_use(const dc_alloc_run *r, uint32_t li)
{
    return taken(r, r->rows[li]) || r->using[li] > 0;
}

/* allocatingDeviceForClaim: a share of a multi-allocation device does not count. */
static bool allocating_for_claim(const dc_alloc_run *r, uint32_t li, uint32_t ci)
{
    for (uint32_t i = 0; i < r->nres[ci]; i++)
        if (r->res[ci][i].li == li && !r->res[ci][i].multi)
            return true;
    return false;
}

static bool str_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* resourceclaim.ToleratesTaint */
static bool tolerates(const dc_toleration_in *tol, const dc_table *t, const dc_ttaint *x)
{
    const char *key = dc_dict_str(t->dict, x->key)->data;
    const char *value = x->value == DC_DICT_NONE ? "" : dc_dict_str(t->dict, x->value)->data;
    const char *effect = dc_dict_str(t->dict, x->effect)->data;
    if (tol->effect && tol->effect[0] && strcmp(tol->effect, effect) != 0)
        return false;
    if (tol->key && tol->key[0] && strcmp(tol->key, key) != 0)
        return false;
    if (!tol->op || !tol->op[0] || strcmp(tol->op, "Equal") == 0)
        return str_eq(tol->value, value);
    return strcmp(tol->op, "Exists") == 0;
}

static bool tainted(const dc_alloc_run *r, const preq *q, uint32_t row)
{
    const dc_table *t = r->p->t;
    uint32_t n;
    const dc_ttaint *x = dc_table_taints(t, row, &n);
    bool rules = r->k8s.gates & DC_FEAT_DEVICE_TAINT_RULES;
    for (uint32_t i = 0; i < n; i++) {
        if (x[i].rule && !rules)
            continue; /* the scheduler applies DeviceTaintRules only with DRADeviceTaintRules */
        const char *effect = dc_dict_str(t->dict, x[i].effect)->data;
        /* 1.34 (and 1.35's stable copy) needs every taint tolerated (allTaintsTolerated);
         * later copies only NoSchedule and NoExecute (taintPreventsAllocation: None and
         * unknown effects are ignored). */
        if (!r->k8s.none_blocks && strcmp(effect, "NoSchedule") != 0 &&
            strcmp(effect, "NoExecute") != 0)
            continue;
        bool ok = false;
        for (uint32_t k = 0; !ok && k < q->sub->ntols; k++)
            ok = tolerates(&q->sub->tols[k], t, &x[i]);
        if (!ok)
            return true;
    }
    return false;
}

/* Counters: add the device's consumption; undo it and fail when some counter of the pool is
 * exceeded. */
static void counters_add(dc_alloc_run *r, uint32_t row, bool add)
{
    const dc_policy *p = r->p;
    uint32_t n;
    const dc_tcounter *c = dc_table_consumes(p->t, row, &n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = p->x->cons_k[c - p->t->consumes + i];
        if (k == UINT32_MAX)
            continue;
        dc_qty out;
        const char *e = add ? dc_qty_add(&r->consumed[k], &c[i].value->q, &out)
                            : dc_qty_sub(&r->consumed[k], &c[i].value->q, &out);
        if (!e)
            r->consumed[k] = out;
    }
}

static bool counters_take(dc_alloc_run *r, uint32_t row)
{
    const dc_policy *p = r->p;
    counters_add(r, row, true);
    uint32_t pl = p->t->pool[row];
    for (uint32_t k = p->x->shared_first[pl]; k < p->x->shared_first[pl + 1]; k++)
        if (dc_qty_cmp(&r->avail[k], &r->consumed[k]) < 0) {
            counters_add(r, row, false);
            return false;
        }
    return true;
}

/* The value of a fully qualified attribute for a row (Kubernetes' lookupAttribute: the column
 * of (domain, id) holds both "domain/id" and, for the driver's domain, the bare id). */
static bool attribute(dc_alloc_run *r, const char *name, uint32_t row, dc_val *out)
{
    const char *slash = strchr(name, '/');
    if (!slash)
        return false;
    const dc_tcol *col = dc_table_col(r->p->t, false, name, (size_t)(slash - name), slash + 1,
                                      strlen(slash + 1));
    return col && dc_tcol_get(r->p->t, col, row, &r->ectx, out);
}

static bool attr_eq(dc_val a, dc_val b)
{
    if (a.k != b.k)
        return false;
    switch (a.k) {
    case DC_K_STRING: return a.u.s->len == b.u.s->len && !memcmp(a.u.s->data, b.u.s->data, a.u.s->len);
    case DC_K_INT: return a.u.i == b.u.i;
    case DC_K_BOOL: return a.u.b == b.u.b;
    case DC_K_SEMVER:
        /* versions are compared as exact strings */
        return a.u.sv->text->len == b.u.sv->text->len &&
               !memcmp(a.u.sv->text->data, b.u.sv->text->data, a.u.sv->text->len);
    default: return false;
    }
}

static bool cons_applies(const dc_constraint_in *c, const preq *q)
{
    if (!c->nrequests)
        return true;
    for (uint32_t i = 0; i < c->nrequests; i++) {
        if (strcmp(c->requests[i], q->req->name) == 0)
            return true;
        if (q->has_parent && strcmp(c->requests[i], q->name) == 0)
            return true;
    }
    return false;
}

static bool cons_add(dc_alloc_run *r, uint32_t k, const preq *q, uint32_t row)
{
    const dc_constraint_in *c = r->p->cons[k];
    cstate *s = &r->cs[k];
    if (!cons_applies(c, q))
        return true;
    dc_val v;
    if (c->match_attribute) {
        if (!attribute(r, c->match_attribute, row, &v))
            return false;
        if (s->n == 0) {
            s->v = v;
            s->n = 1;
            return true;
        }
        if (!attr_eq(s->v, v))
            return false;
        s->n++;
        return true;
    }
    /* distinctAttribute as Kubernetes implements it: the values kept are, per request, that
     * of the last device the request added (its map is keyed by request name), and a device
     * is checked against those only; the first device of an empty set is not checked. */
    if (!attribute(r, c->distinct_attribute, row, &v))
        return false;
    if (s->n) {
        const pclaim *pc = &r->p->claims[q->ci];
        for (uint32_t i = 0; i < pc->in->nreqs; i++)
            if (s->has[i] && attr_eq(s->vals[i], v))
                return false;
    }
    s->vals[q->ri] = v;
    s->has[q->ri] = true;
    s->n++;
    return true;
}

static void cons_remove(dc_alloc_run *r, uint32_t k, const preq *q)
{
    const dc_constraint_in *c = r->p->cons[k];
    cstate *s = &r->cs[k];
    if (!cons_applies(c, q))
        return;
    s->n--;
    if (c->distinct_attribute)
        s->has[q->ri] = false; /* delete(m.attributes, requestName) */
}

/* Kubernetes' allocateDevice: 1 allocated, 0 not usable, R_ERR. */
static int allocate_device(dc_alloc_run *r, uint32_t ci, uint32_t pq, uint32_t li, bool must)
{
    const dc_policy *p = r->p;
    const preq *q = &p->preqs[pq];
    uint32_t row = r->rows[li];
    bool admin = q->sub->admin_access;
    bool multi = multi_row(r, row);
    if (!multi && admin && allocating_for_claim(r, li, ci))
        return 0;
    if (!admin && in_use(r, li))
        return 0;
    uint32_t ncons;
    dc_table_consumes(p->t, row, &ncons);
    if (ncons && !(r->k8s.features & DC_FEAT_PARTITIONABLE))
        return 0;
    /* a device of several shares consumes its counters once, with its first share */
    bool skip_counters = multi && cap_in_use(r, li);
    if (!skip_counters && ncons && !counters_take(r, row))
        return 0;
    /* From here a failure keeps the device's counters consumed for the rest of the node's
     * attempt, as every release of Kubernetes' allocator does (allocateDevice returns without
     * deallocateCountersForDevice): it can hide solutions there, and so here. */
    if ((r->k8s.features & DC_FEAT_DEVICE_TAINTS) && tainted(r, q, row))
        return 0;
    const pclaim *pc = &p->claims[ci];
    uint32_t k0 = pc->cons_first, k1 = k0 + pc->in->ncons;
    for (uint32_t k = k0; k < k1; k++) {
        if (cons_add(r, k, q, row))
            continue;
        for (uint32_t e = k0; e < k; e++)
            cons_remove(r, e, q);
        if (must) {
            char id[800];
            dev_id(p->t, row, id, sizeof id);
            return fail(r, "claim %s, request %s: cannot add device %s because a claim constraint "
                        "would not be satisfied", pc->kobj, q->sub->name ? q->sub->name : q->req->name, id);
        }
        return 0;
    }
    if (!multi)
        r->using[li]++;
    /* Checked again after the constraints and the in-use mark, which stay when it fails, as
     * in Kubernetes (this can only fail for an All request, whose devices were checked when
     * gathered, before earlier requests took their shares). */
    if (consumable(r) && cap_check(r, pq, li, false) <= 0)
        return 0;
    result *x = &r->res[ci][r->nres[ci]];
    x->li = li;
    x->pq = pq;
    x->admin = admin;
    x->multi = multi;
    x->consumed_any = false;
    if (multi) { /* GetConsumedCapacityFromRequest, a new shareID, allocatingCapacity.Insert */
        uint32_t nc;
        const dc_tcap *caps = dc_table_caps(p->t, row, &nc);
        for (uint32_t j = 0; j < nc; j++) {
            const char *name = dc_dict_str(p->t->dict, caps[j].name)->data;
            x->consumed[j] = consumed_of(&caps[j], requested(q, name));
            dc_qty sum;
            if (!dc_qty_add(&r->acap[r->capoff[li] + j], &x->consumed[j], &sum))
                r->acap[r->capoff[li] + j] = sum;
        }
        x->consumed_any = nc > 0;
        x->share = ++r->shares;
        r->aentry[li] = 1;
    }
    r->nres[ci]++;
    return 1;
}

static void deallocate(dc_alloc_run *r, uint32_t ci)
{
    const dc_policy *p = r->p;
    result x = r->res[ci][--r->nres[ci]];
    const preq *q = &p->preqs[x.pq];
    const pclaim *pc = &p->claims[ci];
    for (uint32_t k = pc->cons_first; k < pc->cons_first + pc->in->ncons; k++)
        cons_remove(r, k, q);
    r->backtracks++;
    if (x.multi) {
        /* allocatingCapacity.Remove (only when the share consumed something: Kubernetes keeps
         * an empty entry otherwise); the counters stay taken, as Kubernetes' deallocate
         * gives a shared device's counters back in no case */
        if (!x.consumed_any)
            return;
        uint32_t nc;
        dc_table_caps(p->t, r->rows[x.li], &nc);
        bool zero = true;
        for (uint32_t j = 0; j < nc; j++) {
            dc_qty *a = &r->acap[r->capoff[x.li] + j], out;
            if (!dc_qty_sub(a, &x.consumed[j], &out))
                *a = out;
            zero &= dc_qty_sign(a) == 0;
        }
        if (zero)
            r->aentry[x.li] = 0;
        return;
    }
    r->using[x.li]--;
    uint32_t ncons;
    dc_table_consumes(p->t, r->rows[x.li], &ncons);
    if (ncons)
        counters_add(r, r->rows[x.li], false);
}

static int allocate_one(dc_alloc_run *r, uint32_t ci, uint32_t ri, uint32_t si, uint32_t di,
                        bool in_sub, uint32_t start)
{
    const dc_policy *p = r->p;
    r->steps++;
    if (r->deadline_ns && (r->steps & 255) == 0 && now_ns() > r->deadline_ns)
        return R_TIMEOUT;
    if (ci >= p->nclaims)
        return R_DONE;
    const pclaim *pc = &p->claims[ci];
    if (ri >= pc->in->nreqs) {
        int x = allocate_one(r, ci + 1, 0, 0, 0, false, 0);
        return x == R_MAXSIZE ? R_NOT : x;
    }
    const dc_request_in *rq = &pc->in->reqs[ri];
    if (!in_sub && rq->first_available) {
        bool all_exceeded = true;
        for (uint32_t s = 0; s < rq->nsubs; s++) {
            int x = allocate_one(r, ci, ri, s, 0, true, 0);
            if (x == R_MAXSIZE)
                continue;
            all_exceeded = false;
            if (x < 0)
                return x;
            if (x == R_DONE) {
                r->selected[p->req_slot[pc->req_first[ri]]] = s;
                return R_DONE;
            }
        }
        return all_exceeded ? R_MAXSIZE : R_NOT;
    }
    uint32_t pq = pc->req_first[ri] + si;
    const preq *q = &p->preqs[pq];
    const rdata *d = &r->rd[pq];
    if (q->all && d->nall == 0)
        return R_NOT;
    if (di >= d->num)
        return allocate_one(r, ci, ri + 1, 0, 0, false, 0);
    if (r->nres[ci] + d->num - di > DC_ALLOC_MAX_RESULTS)
        return r->k8s.maxsize_cut ? R_MAXSIZE : R_NOT; /* 1.34/1.35 stable: just no solution */
    if (q->all) {
        int ok = allocate_device(r, ci, pq, d->all[di], true);
        if (ok <= 0)
            return ok < 0 ? ok : R_NOT;
        int x = allocate_one(r, ci, ri, si, di + 1, in_sub, 0);
        if (x != R_DONE) {
            deallocate(r, ci);
            return x;
        }
        return R_DONE;
    }
    for (uint32_t li = start; li < r->nrows; li++) {
        uint32_t row = r->rows[li];
        if (!pool_usable(r, row))
            continue;
        if (q->sub->admin_access ? allocating_for_claim(r, li, ci) : in_use(r, li))
            continue; /* (a share of a multi-allocation device is in use for no one) */
        int s = selectable(r, pq, li);
        if (s < 0)
            return s;
        if (!s)
            continue;
        if (consumable(r) && cap_check(r, pq, li, false) <= 0)
            continue;
        int ok = allocate_device(r, ci, pq, li, false);
        if (ok < 0)
            return ok;
        if (!ok)
            continue;
        /* combinations (1.36 on, sorted copies): the next slot starts after this device;
         * permutations: from the first device again */
        int x = allocate_one(r, ci, ri, si, di + 1, in_sub, r->k8s.combinations ? li + 1 : 0);
        if (x == R_DONE)
            return R_DONE;
        deallocate(r, ci);
        if (x < 0)
            return x;
    }
    return R_NOT;
}

/* Kubernetes' validateDeviceRequest. */
static int validate(dc_alloc_run *r, uint32_t pq)
{
    const dc_policy *p = r->p;
    const preq *q = &p->preqs[pq];
    const char *ko = p->claims[q->ci].kobj;
    const char *name = q->sub->name ? q->sub->name : q->req->name;
    rdata *d = &r->rd[pq];
    for (uint32_t k = 0; k < q->sub->nsels; k++)
        if (!q->sub->sels[k].expr)
            return fail(r, "claim %s, request %s, selector #%u: CEL expression empty (unsupported "
                        "selector type?)", ko, name, k);
    if (q->sub->admin_access && !(r->k8s.features & DC_FEAT_ADMIN_ACCESS))
        return fail(r, "claim %s, request %s: admin access is requested, but the feature is "
                    "disabled", ko, name);
    if (!q->sub->class_name || !q->sub->class_name[0])
        return fail(r, "claim %s, request %s: missing device class name (unsupported request "
                    "type?)", ko, name);
    if (!q->cls)
        return fail(r, "claim %s, request %s: could not retrieve device class %s: "
                    "deviceclass.resource.k8s.io \"%s\" not found", ko, name, q->sub->class_name,
                    q->sub->class_name);
    if (!q->mode_ok)
        return fail(r, "claim %s, request %s: unsupported count mode %s", ko, name, q->sub->mode);
    if (!q->all) {
        d->num = q->sub->count > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)q->sub->count;
        return 0;
    }
    const dc_table *t = p->t;
    for (uint32_t v = 0; v < r->nvpools; v++) {
        const dc_tpool *pl = &t->pools[r->vpools[v]];
        const char *dn = dc_dict_str(t->dict, pl->driver)->data, *pn = dc_dict_str(t->dict, pl->name)->data;
        if (r->pstate[r->vpools[v]] == DC_POOL_INCOMPLETE)
            return fail(r, "claim %s, request %s: asks for all devices, but resource pool %s/%s is "
                        "currently being updated", ko, name, dn, pn);
        if (pool_state(r, r->vpools[v]) == DC_POOL_INVALID)
            return fail(r, "claim %s, request %s: asks for all devices, but resource pool %s/%s is "
                        "currently invalid", ko, name, dn, pn);
    }
    d->all = sz(r, r->nrows * sizeof *d->all);
    if (!d->all) {
        r->oom = true;
        return fail(r, "out of memory");
    }
    for (uint32_t li = 0; li < r->nrows; li++) {
        int s = selectable(r, pq, li);
        if (s < 0)
            return s;
        if (s && consumable(r) && cap_check(r, pq, li, false) <= 0)
            continue;
        if (s)
            d->all[d->nall++] = li;
    }
    d->num = d->nall;
    return 0;
}

static void finish_tiers(dc_alloc_run *r);
static dracel_status explain(dc_alloc_run *r);

static int prepare(dc_alloc_run *r)
{
    const dc_policy *p = r->p;
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const pclaim *pc = &p->claims[c];
        uint64_t min_claim = 0;
        for (uint32_t ri = 0; ri < pc->in->nreqs; ri++) {
            const dc_request_in *rq = &pc->in->reqs[ri];
            if (rq->first_available && !(r->k8s.features & DC_FEAT_PRIORITIZED_LIST))
                return fail(r, "claim %s, request %s: has subrequests, but the DRAPrioritizedList "
                            "feature is disabled", pc->kobj, rq->name);
            /* Copies without consumable capacity ignore capacity requests (the API server
             * drops them while the gate is off). */
            for (uint32_t s = 0; r->k8s.beta_code && s < rq->nsubs; s++) {
                if (!rq->subs[s].capacity_requests)
                    continue;
                if (!(r->k8s.features & DC_FEAT_CONSUMABLE_CAPACITY)) {
                    if (rq->first_available)
                        return fail(r, "claim %s, subrequest %s: has capacity requests, but the "
                                    "DRAConsumableCapacity feature is disabled", pc->kobj,
                                    rq->subs[s].name);
                    return fail(r, "claim %s, request %s: has capacity requests, but the "
                                "DRAConsumableCapacity feature is disabled", pc->kobj, rq->name);
                }
            }
            uint64_t min_req = UINT64_MAX;
            for (uint32_t s = 0; s < rq->nsubs; s++) {
                uint32_t pq = pc->req_first[ri] + s;
                int x = validate(r, pq);
                if (x < 0)
                    return x;
                if (r->rd[pq].num < min_req)
                    min_req = r->rd[pq].num;
            }
            min_claim += min_req;
        }
        if (min_claim > DC_ALLOC_MAX_RESULTS)
            return fail(r, "claim %s: number of requested devices %llu exceeds the claim limit of %u",
                        pc->kobj, (unsigned long long)min_claim, DC_ALLOC_MAX_RESULTS);
        for (uint32_t k = 0; k < pc->in->ncons; k++)
            if (!pc->in->cons[k].match_attribute &&
                !(pc->in->cons[k].distinct_attribute && r->k8s.beta_code))
                return fail(r, "claim %s, constraint #%u: empty constraint (unsupported constraint "
                            "type?)", pc->kobj, k);
    }
    return 0;
}

static dracel_status build_configs(dc_alloc_run *r);

dracel_status dc_alloc_node(dc_alloc_run *r, const dc_node_in *node)
{
    const dc_policy *p = r->p;
    const dc_alloc_opts *o = &r->o;
    dc_arena_reset(&r->scratch);
    dc_arena_reset(&r->ectx.arena); /* attribute values of the last node's constraints */
    r->msg[0] = r->tiers[0] = '\0';
    r->node_local = r->timed_out = r->explained = r->oom = false;
    r->steps = r->backtracks = 0;
    r->score = -1;
    r->stats = NULL;
    r->cfgs = NULL;
    r->nrows = r->nvpools = 0;
    r->node_name = dc_arena_strndup(&r->scratch, node->name ? node->name : "",
                                    node->name ? strlen(node->name) : 0);
    if (!r->node_name) {
        r->node_name = "";
        return DRACEL_ENOMEM;
    }
    if (r->call_deadline_ns && now_ns() >= r->call_deadline_ns) {
        r->outcome = DC_ALLOC_SKIPPED;
        r->note[0] = '\0';
        r->note_key = 0;
        snprintf(r->msg, sizeof r->msg, "not tried: the time limit of the call (%llums) was "
                 "reached before this node", (unsigned long long)o->budget_ms);
        return DRACEL_OK;
    }
    r->outcome = DC_ALLOC_UNSCHEDULABLE;
    r->node = node;
    r->gather_failed = false;
    dracel_status st = gather(r);
    /* The note is the same on most nodes: written again only when its key changes. */
    uint64_t key = st == DRACEL_OK && !r->k8s.sorted && r->nslices_seen > 1
                       ? (uint64_t)r->k8s.release << 40 | (uint64_t)r->k8s.copy << 32 |
                             r->nslices_seen
                       : 0;
    if (key != r->note_key) {
        r->note_key = key;
        r->note[0] = '\0';
        if (key)
            snprintf(r->note, sizeof r->note, "Kubernetes 1.%u runs the %s copy of its "
                     "allocator, which walks a node's pools in Go map order and their slices in "
                     "the order the scheduler lists them: with usable devices in %u slices here "
                     "it may pick other devices, or meet another device's CEL error first (this "
                     "answer takes pools by driver and name, slices by name)", r->k8s.release,
                     dc_copy_name(r->k8s.copy), r->nslices_seen);
    }
    r->rd = sz(r, p->npreqs * sizeof *r->rd);
    r->selected = sz(r, p->nreqs_total * sizeof *r->selected);
    r->using = sz(r, r->nrows * sizeof *r->using);
    r->res = sz(r, p->nclaims * sizeof *r->res);
    r->nres = sz(r, p->nclaims * sizeof *r->nres);
    r->cs = sz(r, p->ncons * sizeof *r->cs);
    if (st != DRACEL_OK || !r->rd || !r->selected || !r->using || !r->res || !r->nres || !r->cs)
        goto nomem;
    for (uint32_t c = 0; c < p->nclaims; c++) {
        /* each claim holds at most 32 results, plus one being tried */
        r->res[c] = sz(r, (DC_ALLOC_MAX_RESULTS + 1) * sizeof **r->res);
        if (!r->res[c])
            goto nomem;
    }
    const dc_qty none = dc_qty_from_int(0);
    for (uint32_t v = 0; v < r->nvpools; v++)
        for (uint32_t k = p->x->shared_first[r->vpools[v]]; k < p->x->shared_first[r->vpools[v] + 1]; k++)
            r->consumed[k] = none;
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const pclaim *pc = &p->claims[c];
        for (uint32_t k = pc->cons_first; k < pc->cons_first + pc->in->ncons; k++) {
            if (!p->cons[k]->distinct_attribute)
                continue;
            r->cs[k].vals = sz(r, pc->in->nreqs * sizeof *r->cs[k].vals);
            r->cs[k].has = sz(r, pc->in->nreqs * sizeof *r->cs[k].has);
            if (!r->cs[k].vals || !r->cs[k].has)
                goto nomem;
        }
    }
    /* consumable capacity: the capacities of the node's rows, what shares take of them */
    r->capoff = NULL;
    r->acap = NULL;
    r->aentry = NULL;
    r->maxcaps = 0;
    r->shares = 0;
    if (consumable(r)) {
        r->capoff = sz(r, (r->nrows + 1) * sizeof *r->capoff);
        r->aentry = sz(r, r->nrows + 1);
        if (!r->capoff || !r->aentry)
            goto nomem;
        uint32_t total = 0;
        for (uint32_t li = 0; li < r->nrows; li++) {
            uint32_t nc;
            dc_table_caps(p->t, r->rows[li], &nc);
            r->capoff[li] = total;
            total += nc;
            if (nc > r->maxcaps)
                r->maxcaps = nc;
        }
        r->capoff[r->nrows] = total;
        r->acap = sz(r, (total + 1) * sizeof *r->acap);
        /* each result slot's consumed capacity: one block, not zeroed (33 allocations a claim
         * were a sixth of a node's search; a slot's entries are written before any is read,
         * see consumed_any) */
        size_t per = r->maxcaps + 1, slots = (size_t)p->nclaims * (DC_ALLOC_MAX_RESULTS + 1);
        dc_qty *blk = dc_arena_alloc(&r->scratch, slots * per * sizeof *blk);
        if (!r->acap || !blk)
            goto nomem;
        const dc_qty zero = dc_qty_from_int(0);
        for (uint32_t i = 0; i < total; i++)
            r->acap[i] = zero;
        for (uint32_t c = 0; c < p->nclaims; c++)
            for (uint32_t i = 0; i <= DC_ALLOC_MAX_RESULTS; i++, blk += per)
                r->res[c][i].consumed = blk;
    }
    /* The node's limit covers validation too: an All request evaluates lazy selectors there. */
    uint64_t now = now_ns();
    r->deadline_ns = o->timeout_ms ? now + o->timeout_ms * 1000000ull : 0;
    if (r->call_deadline_ns && (!r->deadline_ns || r->call_deadline_ns < r->deadline_ns))
        r->deadline_ns = r->call_deadline_ns;
    int x = r->gather_failed ? R_ERR : prepare(r);
    if (x == 0)
        x = allocate_one(r, 0, 0, 0, 0, false, 0);
    if (r->oom)
        goto nomem;
    switch (x) {
    case R_DONE:
        r->outcome = DC_ALLOC_ALLOCATED;
        finish_tiers(r);
        if (build_configs(r) != DRACEL_OK)
            goto nomem;
        break;
    case R_TIMEOUT:
        r->outcome = DC_ALLOC_UNSCHEDULABLE;
        r->timed_out = true;
        snprintf(r->msg, sizeof r->msg, "timed out trying to allocate devices");
        break;
    case R_ERR:
        r->outcome = DC_ALLOC_ERROR;
        break;
    default: {
        r->outcome = DC_ALLOC_UNSCHEDULABLE;
        bool invalid = false;
        for (uint32_t v = 0; v < r->nvpools; v++)
            invalid |= pool_state(r, r->vpools[v]) == DC_POOL_INVALID;
        if (invalid) {
            r->outcome = DC_ALLOC_ERROR;
            r->node_local = true;
            snprintf(r->msg, sizeof r->msg, "invalid resource pools were encountered");
        }
        break;
    }
    }
    if (o->explain && explain(r) != DRACEL_OK)
        goto nomem;
    r->node = NULL;
    return DRACEL_OK;
nomem:
    /* no half answer: the node reads as not tried */
    r->node = NULL;
    r->outcome = DC_ALLOC_SKIPPED;
    r->explained = false;
    r->cfgs = NULL;
    snprintf(r->msg, sizeof r->msg, "out of memory");
    return DRACEL_ENOMEM;
}

/* ---------------------------------------------------------------------------------------------
 * Answers
 */

dc_alloc_outcome dc_alloc_outcome_of(const dc_alloc_run *r)
{
    return r->outcome;
}

const dc_k8s *dc_alloc_k8s(const dc_alloc_run *r)
{
    return &r->k8s;
}

const char *dc_alloc_nondeterministic(const dc_alloc_run *r)
{
    return r->note[0] ? r->note : NULL;
}

const char *dc_alloc_message(const dc_alloc_run *r)
{
    return r->msg[0] ? r->msg : NULL;
}

bool dc_alloc_node_local(const dc_alloc_run *r)
{
    return r->node_local;
}

int dc_alloc_score(const dc_alloc_run *r)
{
    return r->score;
}

const char *dc_alloc_tiers(const dc_alloc_run *r)
{
    return r->tiers;
}

const char *dc_alloc_node_name(const dc_alloc_run *r)
{
    return r->node_name;
}

void dc_alloc_counts(const dc_alloc_run *r, uint32_t *devices, uint32_t *pools, uint64_t *steps,
                     uint64_t *backtracks)
{
    *devices = r->nrows;
    *pools = r->nvpools;
    *steps = r->steps;
    *backtracks = r->backtracks;
}

bool dc_alloc_explained(const dc_alloc_run *r)
{
    return r->explained;
}

static void finish_tiers(dc_alloc_run *r)
{
    const dc_policy *p = r->p;
    size_t pos = 0;
    int score = 0;
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const pclaim *pc = &p->claims[c];
        for (uint32_t ri = 0; ri < pc->in->nreqs; ri++) {
            const dc_request_in *rq = &pc->in->reqs[ri];
            uint32_t s = rq->first_available ? r->selected[p->req_slot[pc->req_first[ri]]] : 0;
            if (rq->first_available)
                score += 8 - (int)s;
            /* ", name" when it fits whole (by hand: snprintf was a tenth of a node's search) */
            const char *name = p->preqs[pc->req_first[ri] + s].name;
            size_t sep = pos ? 2 : 0, len = strlen(name);
            if (sep + len < sizeof r->tiers - pos) {
                memcpy(r->tiers + pos, ", ", sep);
                memcpy(r->tiers + pos + sep, name, len);
                pos += sep + len;
            }
        }
    }
    r->tiers[pos] = '\0';
    r->score = score;
}

/* The chosen subrequest of a request, when allocated. */
static uint32_t chosen_sub(const dc_alloc_run *r, uint32_t ci, uint32_t ri)
{
    const dc_policy *p = r->p;
    const pclaim *pc = &p->claims[ci];
    return pc->in->reqs[ri].first_available ? r->selected[p->req_slot[pc->req_first[ri]]] : 0;
}

int dc_alloc_chosen(const dc_alloc_run *r, uint32_t claim, uint32_t request)
{
    if (r->outcome != DC_ALLOC_ALLOCATED || claim >= r->p->nclaims ||
        request >= r->p->claims[claim].in->nreqs)
        return -1;
    return (int)chosen_sub(r, claim, request);
}

uint32_t dc_alloc_nresults(const dc_alloc_run *r, uint32_t claim)
{
    return r->outcome == DC_ALLOC_ALLOCATED && claim < r->p->nclaims ? r->nres[claim] : 0;
}

void dc_alloc_result(const dc_alloc_run *r, uint32_t claim, uint32_t i, uint32_t *tier,
                     uint32_t *row, bool *admin)
{
    const result *x = &r->res[claim][i];
    *tier = x->pq;
    *row = r->rows[x->li];
    *admin = x->admin;
}

/* ---- Allocation config, as Kubernetes' allocator copies it: class configs once per class (in
 * the order the requests name the classes), naming the requests that use the class, then the
 * claim's entries: those without requests once, the others (1.37) once, or (before) once per
 * request they name (a firstAvailable request by its name or by its chosen "req/sub"). */

static dracel_status claim_configs(dc_alloc_run *r, uint32_t ci, ccfg *out)
{
    const dc_policy *p = r->p;
    const pclaim *pc = &p->claims[ci];
    const dc_claim_in *cl = pc->in;
    uint32_t cap = cl->nconfig * (cl->nreqs + 1);
    for (uint32_t ri = 0; ri < cl->nreqs; ri++) {
        const preq *q = &p->preqs[pc->req_first[ri] + chosen_sub(r, ci, ri)];
        cap += q->cls ? q->cls->nconfig : 0;
    }
    out->n = 0;
    out->e = NULL;
    if (!cap)
        return DRACEL_OK;
    dc_alloc_config *e = sz(r, cap * sizeof *e);
    const dc_class_in **seen = sz(r, (cl->nreqs + 1) * sizeof *seen);
    uint32_t *seen_first = sz(r, (cl->nreqs + 1) * 2 * sizeof *seen_first);
    if (!e || !seen || !seen_first)
        return DRACEL_ENOMEM;
    uint32_t ne = 0, nseen = 0;
    for (uint32_t ri = 0; ri < cl->nreqs; ri++) {
        const preq *q = &p->preqs[pc->req_first[ri] + chosen_sub(r, ci, ri)];
        if (!q->cls)
            continue;
        uint32_t k = 0;
        while (k < nseen && seen[k] != q->cls)
            k++;
        if (k < nseen) {
            /* entries of one class were given room for every request */
            for (uint32_t x = seen_first[2 * k]; x < seen_first[2 * k + 1]; x++)
                ((const char **)e[x].requests)[e[x].nrequests++] = q->name;
            continue;
        }
        seen[nseen] = q->cls;
        seen_first[2 * nseen] = ne;
        for (uint32_t c = 0; c < q->cls->nconfig; c++) {
            const char **names = sz(r, cl->nreqs * sizeof *names);
            if (!names)
                return DRACEL_ENOMEM;
            names[0] = q->name;
            e[ne++] = (dc_alloc_config){true, q->cls->config[c].driver,
                                        q->cls->config[c].parameters, names, 1};
        }
        seen_first[2 * nseen + 1] = ne;
        nseen++;
    }
    for (uint32_t k = 0; k < cl->nconfig; k++) {
        const dc_claim_config_in *cc = &cl->config[k];
        if (!cc->nrequests) {
            e[ne++] = (dc_alloc_config){false, cc->opaque.driver, cc->opaque.parameters, NULL, 0};
            continue;
        }
        for (uint32_t ri = 0; ri < cl->nreqs; ri++) {
            const dc_request_in *rq = &cl->reqs[ri];
            bool hit = false;
            for (uint32_t j = 0; j < cc->nrequests; j++)
                hit |= strcmp(cc->requests[j], rq->name) == 0;
            if (!hit && rq->first_available) {
                const char *full = p->preqs[pc->req_first[ri] + chosen_sub(r, ci, ri)].name;
                for (uint32_t j = 0; j < cc->nrequests; j++)
                    hit |= strcmp(cc->requests[j], full) == 0;
            }
            if (!hit)
                continue;
            e[ne++] = (dc_alloc_config){false, cc->opaque.driver, cc->opaque.parameters,
                                        cc->requests, cc->nrequests};
            if (r->k8s.config_once)
                break; /* 1.37: once per entry; before, once per request it names */
        }
    }
    /* 1.37: an entry (class or claim) naming every request of the claim, by its name or by
     * its chosen "req/sub", names none ("empty means all") */
    for (uint32_t i = 0; r->k8s.config_once && i < ne; i++) {
        if (!e[i].nrequests)
            continue;
        bool all = true;
        for (uint32_t ri = 0; ri < cl->nreqs && all; ri++) {
            const char *full = p->preqs[pc->req_first[ri] + chosen_sub(r, ci, ri)].name;
            bool named = false;
            for (uint32_t j = 0; j < e[i].nrequests && !named; j++)
                named = strcmp(e[i].requests[j], cl->reqs[ri].name) == 0 ||
                        (cl->reqs[ri].first_available && strcmp(e[i].requests[j], full) == 0);
            all = named;
        }
        if (all) {
            e[i].requests = NULL;
            e[i].nrequests = 0;
        }
    }
    out->e = e;
    out->n = ne;
    return DRACEL_OK;
}

static dracel_status build_configs(dc_alloc_run *r)
{
    r->cfgs = sz(r, r->p->nclaims * sizeof *r->cfgs);
    if (!r->cfgs)
        return DRACEL_ENOMEM;
    for (uint32_t c = 0; c < r->p->nclaims; c++)
        DC_TRY(claim_configs(r, c, &r->cfgs[c]));
    return DRACEL_OK;
}

uint32_t dc_alloc_nconfigs(const dc_alloc_run *r, uint32_t claim)
{
    return r->cfgs && claim < r->p->nclaims ? r->cfgs[claim].n : 0;
}

const dc_alloc_config *dc_alloc_config_of(const dc_alloc_run *r, uint32_t claim, uint32_t i)
{
    return i < dc_alloc_nconfigs(r, claim) ? &r->cfgs[claim].e[i] : NULL;
}

/* ---- Explanation: for each tier, the funnel of the node's devices through its filters. */

static bool alone_exceeds(const dc_alloc_run *r, uint32_t row)
{
    const dc_policy *p = r->p;
    uint32_t n;
    const dc_tcounter *c = dc_table_consumes(p->t, row, &n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = p->x->cons_k[c - p->t->consumes + i];
        if (k != UINT32_MAX && dc_qty_cmp(&r->avail[k], &c[i].value->q) < 0)
            return true;
    }
    uint32_t pl = p->t->pool[row];
    for (uint32_t k = p->x->shared_first[pl]; n && k < p->x->shared_first[pl + 1]; k++)
        if (dc_qty_sign(&r->avail[k]) < 0)
            return true;
    return false;
}

static void js(dc_buf *b, const char *s)
{
    dc_json_quote(b, s, strlen(s));
}

static const char *dstr(const dc_table *t, uint32_t id)
{
    return dc_dict_str(t->dict, id)->data;
}

static bool mentions(const char *s, size_t n, const char *w)
{
    size_t wn = strlen(w);
    for (size_t i = 0; i + wn <= n; i++)
        if (memcmp(s + i, w, wn) == 0)
            return true;
    return false;
}

/* "gpu-3: device.attributes["gpu.example.com"].model is "L4"" */
static void example_text(dc_buf *b, dc_alloc_run *r, const gsel *g, uint32_t row)
{
    const dc_table *t = r->p->t;
    dc_buf_puts(b, dstr(t, t->device_name[row]));
    dc_buf_puts(b, ": ");
    if (sel_on(r, (uint32_t)(g - r->p->sels), row) == S_ERROR) {
        const char *e = sel_error(r, (uint32_t)(g - r->p->sels), row);
        dc_buf_printf(b, "error: %s", e ? e : "error");
        return;
    }
    const dc_program *prog = dc_api_program(g->prog);
    if (!prog->ncols) {
        if (mentions(g->expr, g->len, "device.driver")) {
            dc_buf_puts(b, "device.driver is ");
            js(b, dstr(t, t->pools[t->pool[row]].driver));
        } else {
            dc_buf_puts(b, "the selector is false");
        }
        return;
    }
    for (uint32_t i = 0; i < prog->ncols && i < 3; i++) {
        const dc_column *col = &prog->cols[i];
        if (i)
            dc_buf_puts(b, ", ");
        dc_buf_printf(b, "device.%s[\"%.*s\"].%.*s", col->capacity ? "capacity" : "attributes",
                      (int)col->domain->len, col->domain->data, (int)col->id->len, col->id->data);
        const dc_tcol *tc = dc_table_col(t, col->capacity, col->domain->data, col->domain->len,
                                         col->id->data, col->id->len);
        dc_val v;
        if (tc && dc_tcol_get(t, tc, row, &r->ectx, &v)) {
            dc_buf_puts(b, " is ");
            dc_val_text(b, v);
        } else {
            dc_buf_puts(b, " is absent");
        }
    }
}

static uint32_t needed(const dc_alloc_run *r, uint32_t pq)
{
    return r->rd[pq].num;
}

/* Why a tier gives too few devices (the explanation's "reason"). */
static const char *tier_reason(dc_alloc_run *r, uint32_t pq)
{
    const pstat *st = &r->stats[pq];
    const preq *q = &r->p->preqs[pq];
    if (st->sel_error)
        return "a selector does not compile";
    if (q->all && st->available == 0)
        return "asks for all devices, and none matches";
    if (!q->all && st->available < needed(r, pq))
        return dc_arena_printf(&r->scratch, "needs %u device%s, %u available", needed(r, pq),
                               needed(r, pq) == 1 ? "" : "s", st->available);
    return dc_arena_printf(&r->scratch, "%u device%s available, but no combination satisfies the "
                           "claims' constraints and other requests", st->available,
                           st->available == 1 ? "" : "s");
}

static dracel_status explain(dc_alloc_run *r)
{
    const dc_policy *p = r->p;
    const dc_table *t = p->t;
    uint32_t nex = r->o.examples ? r->o.examples : 1;
    if (nex > DC_ALLOC_MAX_EXAMPLES)
        nex = DC_ALLOC_MAX_EXAMPLES;
    r->o.examples = nex;
    r->stats = sz(r, p->npreqs * sizeof *r->stats);
    if (!r->stats)
        return DRACEL_ENOMEM;
    for (uint32_t pq = 0; pq < p->npreqs; pq++) {
        const preq *q = &p->preqs[pq];
        pstat *st = &r->stats[pq];
        st->rejected = sz(r, q->nsels * sizeof *st->rejected);
        st->errored = sz(r, q->nsels * sizeof *st->errored);
        st->examples = sz(r, q->nsels * sizeof *st->examples);
        st->extext = sz(r, q->nsels * sizeof *st->extext);
        st->nexamples = sz(r, q->nsels * sizeof *st->nexamples);
        if (!st->rejected || !st->errored || !st->examples || !st->extext || !st->nexamples)
            return DRACEL_ENOMEM;
        for (uint32_t k = 0; k < q->nsels; k++)
            st->sel_error |= p->sels[q->sels[k]].compile_err != NULL;
        for (uint32_t li = 0; li < r->nrows; li++) {
            uint32_t row = r->rows[li];
            dc_pool_state ps = pool_state(r, t->pool[row]);
            if (ps != DC_POOL_COMPLETE) {
                st->excl[ps == DC_POOL_INCOMPLETE ? DC_EXCL_INCOMPLETE_POOL : DC_EXCL_INVALID_POOL]++;
                continue;
            }
            if (st->sel_error)
                continue;
            if (binding_off(r, row)) {
                st->binding++; /* unselectable before any selector runs */
                continue;
            }
            bool pass = true, late = false;
            for (uint32_t k = 0; pass && k < q->nsels; k++) {
                int on = sel_on(r, q->sels[k], row);
                if (on == S_TRUE)
                    continue;
                if (on == S_OOM)
                    return DRACEL_ENOMEM;
                pass = false;
                if (on == S_TIMEOUT) {
                    late = true;
                    break;
                }
                if (on == S_ERROR)
                    st->errored[k]++;
                else
                    st->rejected[k]++;
                if (st->nexamples[k] < nex)
                    st->examples[k][st->nexamples[k]++] = row;
            }
            st->unevaluated += late;
            if (!pass)
                continue;
            if (dc_bit(t->slice_per_device, dc_table_slice_of(t, row)) &&
                !row_on_node(t, row, r->node, r->node_id)) {
                st->excl[DC_EXCL_NODE]++;
                continue;
            }
            st->candidates++;
            uint32_t ncons;
            dc_table_consumes(t, row, &ncons);
            if (!q->sub->admin_access && taken(r, row))
                st->excl[DC_EXCL_ALLOCATED]++;
            else if ((r->k8s.features & DC_FEAT_DEVICE_TAINTS) && tainted(r, q, row))
                st->excl[DC_EXCL_TAINTED]++;
            else if (ncons && (!(r->k8s.features & DC_FEAT_PARTITIONABLE) || alone_exceeds(r, row)))
                st->excl[DC_EXCL_COUNTERS]++;
            else if (consumable(r) && cap_check(r, pq, li, true) <= 0)
                st->capacity++;
            else
                st->available++;
        }
        /* the examples' text and the reason are made when first asked for (example_str,
         * reason_str): explaining every node of a fleet prints few of them */
    }
    r->explained = true;
    return DRACEL_OK;
}

/* Example e of selector k of a tier as text, made on first use and kept in the node's scratch
 * (a run belongs to one thread, so its const readers may fill this cache). NULL on ENOMEM. */
static const char *example_str(const dc_alloc_run *cr, uint32_t pq, uint32_t k, uint32_t e)
{
    dc_alloc_run *r = (dc_alloc_run *)(uintptr_t)cr;
    pstat *st = &r->stats[pq];
    if (st->extext[k][e])
        return st->extext[k][e];
    dc_buf b;
    dc_buf_init(&b, r->a);
    example_text(&b, r, &r->p->sels[r->p->preqs[pq].sels[k]], st->examples[k][e]);
    if (!b.oom)
        st->extext[k][e] = dc_arena_strndup(&r->scratch, b.len ? b.data : "", b.len);
    dc_buf_free(&b);
    return st->extext[k][e];
}

/* Why a tier fell short, made on first use (as example_str). NULL on ENOMEM. */
static const char *reason_str(const dc_alloc_run *cr, uint32_t pq)
{
    dc_alloc_run *r = (dc_alloc_run *)(uintptr_t)cr;
    pstat *st = &r->stats[pq];
    if (!st->reason)
        st->reason = tier_reason(r, pq);
    return st->reason;
}

static int tier_status(const dc_alloc_run *r, const preq *q)
{
    if (r->outcome == DC_ALLOC_ERROR)
        return DC_TIER_ABORTED; /* the error (the outcome's message) stopped the attempt */
    if (r->outcome != DC_ALLOC_ALLOCATED)
        return DC_TIER_FAILED;
    uint32_t s = chosen_sub(r, q->ci, q->ri);
    return q->si == s ? DC_TIER_CHOSEN : q->si < s ? DC_TIER_FAILED : DC_TIER_NOT_TRIED;
}

static const char *const TIER_STATUS[] = {"chosen", "failed", "not tried", "aborted"};

void dc_alloc_tier_expl(const dc_alloc_run *r, uint32_t tier, dc_tier_expl *out)
{
    memset(out, 0, sizeof *out);
    const pstat *st = &r->stats[tier];
    out->status = tier_status(r, &r->p->preqs[tier]);
    out->reason = out->status == DC_TIER_FAILED ? reason_str(r, tier) : NULL;
    out->needed = needed(r, tier);
    out->candidates = st->candidates;
    out->available = st->available;
    out->unevaluated = st->unevaluated;
    out->capacity = st->capacity;
    out->binding = st->binding;
    memcpy(out->excluded, st->excl, sizeof out->excluded);
}

void dc_alloc_sel_expl(const dc_alloc_run *r, uint32_t tier, uint32_t k, dc_sel_expl *out)
{
    memset(out, 0, sizeof *out);
    const preq *q = &r->p->preqs[tier];
    const pstat *st = &r->stats[tier];
    out->from_class = k < q->nclass_sels;
    out->index = out->from_class ? k : k - q->nclass_sels;
    out->rejected = st->rejected[k];
    out->errored = st->errored[k];
    out->nexamples = st->nexamples[k];
    for (uint32_t e = 0; e < st->nexamples[k]; e++) {
        out->rows[e] = st->examples[k][e];
        out->examples[e] = example_str(r, tier, k, e);
        out->example_errored[e] = sel_on((dc_alloc_run *)(uintptr_t)r, q->sels[k],
                                         st->examples[k][e]) == S_ERROR;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Printing
 */

static void put_device(dc_buf *b, const dc_table *t, uint32_t row)
{
    const dc_tpool *pl = &t->pools[t->pool[row]];
    dc_buf_puts(b, "\"driver\":");
    js(b, dstr(t, pl->driver));
    dc_buf_puts(b, ",\"pool\":");
    js(b, dstr(t, pl->name));
    dc_buf_puts(b, ",\"device\":");
    js(b, dstr(t, t->device_name[row]));
}

static void dev_id_buf(dc_buf *b, const dc_table *t, uint32_t row)
{
    const dc_tpool *pl = &t->pools[t->pool[row]];
    dc_buf_printf(b, "%s/%s/%s", dstr(t, pl->driver), dstr(t, pl->name),
                  dstr(t, t->device_name[row]));
}

static void put_tolerations(dc_buf *b, const dc_subreq_in *s)
{
    dc_buf_puts(b, ",\"tolerations\":[");
    for (uint32_t i = 0; i < s->ntols; i++) {
        const dc_toleration_in *x = &s->tols[i];
        dc_buf_puts(b, i ? ",{" : "{");
        bool first = true;
        if (x->key && x->key[0]) {
            dc_buf_puts(b, "\"key\":");
            js(b, x->key);
            first = false;
        }
        dc_buf_puts(b, first ? "\"operator\":" : ",\"operator\":");
        js(b, x->op && x->op[0] ? x->op : "Equal");
        if (x->value && x->value[0]) {
            dc_buf_puts(b, ",\"value\":");
            js(b, x->value);
        }
        if (x->effect && x->effect[0]) {
            dc_buf_puts(b, ",\"effect\":");
            js(b, x->effect);
        }
        if (x->has_seconds)
            dc_buf_printf(b, ",\"tolerationSeconds\":%lld", (long long)x->seconds);
        dc_buf_putc(b, '}');
    }
    dc_buf_putc(b, ']');
}

static void put_config(dc_buf *b, const dc_alloc_run *r, uint32_t ci)
{
    uint32_t n = dc_alloc_nconfigs(r, ci);
    if (!n)
        return;
    dc_buf_puts(b, ",\"config\":[");
    for (uint32_t i = 0; i < n; i++) {
        const dc_alloc_config *e = &r->cfgs[ci].e[i];
        dc_buf_puts(b, i ? ",{\"source\":" : "{\"source\":");
        js(b, e->from_class ? "FromClass" : "FromClaim");
        if (e->nrequests) {
            dc_buf_puts(b, ",\"requests\":[");
            for (uint32_t j = 0; j < e->nrequests; j++) {
                if (j)
                    dc_buf_putc(b, ',');
                js(b, e->requests[j]);
            }
            dc_buf_putc(b, ']');
        }
        dc_buf_puts(b, ",\"opaque\":{\"driver\":");
        js(b, e->driver ? e->driver : "");
        if (e->parameters) {
            dc_buf_puts(b, ",\"parameters\":");
            dc_buf_puts(b, e->parameters);
        }
        dc_buf_puts(b, "}}");
    }
    dc_buf_putc(b, ']');
}

static bool same_req(const dc_node_req_in *a, const dc_node_req_in *b)
{
    if (a->field != b->field || strcmp(a->key, b->key) || strcmp(a->op, b->op))
        return false;
    /* the same set of values */
    for (uint32_t i = 0; i < a->nvalues; i++) {
        bool f = false;
        for (uint32_t j = 0; !f && j < b->nvalues; j++)
            f = strcmp(a->values[i], b->values[j]) == 0;
        if (!f)
            return false;
    }
    for (uint32_t j = 0; j < b->nvalues; j++) {
        bool f = false;
        for (uint32_t i = 0; !f && i < a->nvalues; i++)
            f = strcmp(a->values[i], b->values[j]) == 0;
        if (!f)
            return false;
    }
    return true;
}

static void put_reqs(dc_buf *b, const char *field, const dc_node_req_in *const *v, uint32_t n,
                     bool *first)
{
    if (!n)
        return;
    dc_buf_puts(b, *first ? "\"" : ",\"");
    dc_buf_puts(b, field);
    dc_buf_puts(b, "\":[");
    for (uint32_t i = 0; i < n; i++) {
        dc_buf_puts(b, i ? ",{\"key\":" : "{\"key\":");
        js(b, v[i]->key);
        dc_buf_puts(b, ",\"operator\":");
        js(b, v[i]->op);
        if (v[i]->nvalues) {
            dc_buf_puts(b, ",\"values\":[");
            for (uint32_t j = 0; j < v[i]->nvalues; j++) {
                if (j)
                    dc_buf_putc(b, ',');
                js(b, v[i]->values[j]);
            }
            dc_buf_putc(b, ']');
        }
        dc_buf_putc(b, '}');
    }
    dc_buf_putc(b, ']');
    *first = false;
}

/* Kubernetes' createNodeSelector: the object, without a leading comma; nothing when none. */
void dc_alloc_node_selector_json(const dc_alloc_run *r, uint32_t ci, dc_buf *b)
{
    const dc_table *t = r->p->t;
    if (dc_alloc_nresults(r, ci) == 0)
        return;
    uint32_t nexp = 0, nfld = 0, cap = 0;
    for (uint32_t i = 0; i < r->nres[ci]; i++) {
        uint32_t row = r->rows[r->res[ci][i].li];
        if (t->node_kind[row] == DC_NODE_NAME || (r->k8s.beta_code && dc_bit(t->binds_node, row))) {
            dc_buf_puts(b, "{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":"
                           "\"metadata.name\",\"operator\":\"In\",\"values\":[");
            js(b, r->node_name);
            dc_buf_puts(b, "]}]}]}");
            return;
        }
        if (t->node_kind[row] == DC_NODE_SELECTOR) {
            const dc_node_selector_in *s = t->node_selectors[t->node[row]];
            if (s->n)
                cap += s->terms[0].n;
        }
    }
    if (!cap)
        return;
    const dc_node_req_in **exp = dc_malloc(r->a, 2 * cap * sizeof *exp);
    if (!exp) {
        b->oom = true;
        return;
    }
    const dc_node_req_in **fld = exp + cap;
    for (uint32_t i = 0; i < r->nres[ci]; i++) {
        uint32_t row = r->rows[r->res[ci][i].li];
        if (t->node_kind[row] != DC_NODE_SELECTOR)
            continue;
        const dc_node_selector_in *s = t->node_selectors[t->node[row]];
        if (s->n != 1)
            continue; /* validation allows exactly one term */
        for (uint32_t j = 0; j < s->terms[0].n; j++) {
            const dc_node_req_in *q = &s->terms[0].reqs[j];
            const dc_node_req_in **v = q->field ? fld : exp;
            uint32_t *n = q->field ? &nfld : &nexp;
            bool dup = false;
            for (uint32_t k = 0; !dup && k < *n; k++)
                dup = same_req(v[k], q);
            if (!dup)
                v[(*n)++] = q;
        }
    }
    if (nexp || nfld) {
        bool first = true;
        dc_buf_puts(b, "{\"nodeSelectorTerms\":[{");
        put_reqs(b, "matchExpressions", exp, nexp, &first);
        put_reqs(b, "matchFields", fld, nfld, &first);
        dc_buf_puts(b, "}]}");
    }
    dc_free(r->a, exp, 2 * cap * sizeof *exp);
}

/* A share's shareID: Kubernetes makes a random UID (uuid.NewUUID); dracel derives one in the
 * same form (version 4, RFC 4122 variant) from the node, the claim, the request, the device
 * and the share's number, so that answers replay byte for byte. */
static void share_uid(const dc_alloc_run *r, uint32_t ci, const result *x, char out[37])
{
    char id[800];
    dev_id(r->p->t, r->rows[x->li], id, sizeof id);
    dc_hash h1 = DC_HASH_INIT, h2 = DC_HASH_INIT;
    dc_hash_str(&h1, r->node_name);
    dc_hash_str(&h1, r->p->claims[ci].kobj);
    dc_hash_str(&h1, r->p->preqs[x->pq].name);
    dc_hash_str(&h1, id);
    dc_hash_int(&h1, (int64_t)x->share);
    dc_hash_int(&h2, (int64_t)h1.h);
    dc_hash_str(&h2, "shareID");
    unsigned char u[16];
    for (int i = 0; i < 8; i++) {
        u[i] = (unsigned char)(h1.h >> (8 * i));
        u[8 + i] = (unsigned char)(h2.h >> (8 * i));
    }
    u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
    u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
    static const char hex[] = "0123456789abcdef";
    int o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[u[i] >> 4];
        out[o++] = hex[u[i] & 15];
    }
    out[o] = '\0';
}

/* ,"bindingConditions":[...],"bindingFailureConditions":[...] of a device that has them
 * (copied into results with DeviceBindingAndStatus). */
static void put_binding(dc_buf *b, const dc_alloc_run *r, uint32_t row)
{
    const dc_table *t = r->p->t;
    uint32_t n;
    const dc_tbind *x = dc_table_binds(t, row, &n);
    for (int failure = 0; failure < 2; failure++) {
        const char *sep = failure ? ",\"bindingFailureConditions\":[" : ",\"bindingConditions\":[";
        for (uint32_t i = 0; i < n; i++) {
            if (x[i].failure != (failure == 1))
                continue;
            dc_buf_puts(b, sep);
            js(b, dc_dict_str(t->dict, x[i].name)->data);
            sep = ",";
        }
        if (*sep == ',' && sep[1] == '\0')
            dc_buf_putc(b, ']');
    }
}

/* ,"shareID":"...","consumedCapacity":{...} of a share (names sorted, as Go writes a map). */
static void put_share(dc_buf *b, const dc_alloc_run *r, uint32_t ci, const result *x)
{
    char uid[37];
    share_uid(r, ci, x, uid);
    dc_buf_printf(b, ",\"shareID\":\"%s\"", uid);
    if (!x->consumed_any)
        return;
    const dc_table *t = r->p->t;
    uint32_t nc;
    const dc_tcap *caps = dc_table_caps(t, r->rows[x->li], &nc);
    dc_buf_puts(b, ",\"consumedCapacity\":{");
    const char *last = NULL; /* the names are a map's keys: distinct, printed in order */
    for (uint32_t n = 0; n < nc; n++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t j = 0; j < nc; j++) {
            const char *nm = dc_dict_str(t->dict, caps[j].name)->data;
            if ((!last || strcmp(nm, last) > 0) &&
                (best == UINT32_MAX || strcmp(nm, dc_dict_str(t->dict, caps[best].name)->data) < 0))
                best = j;
        }
        if (best == UINT32_MAX)
            break;
        last = dc_dict_str(t->dict, caps[best].name)->data;
        char q[DC_QTY_FMT_MAX];
        dc_qty_format(&x->consumed[best], q, sizeof q);
        if (n)
            dc_buf_putc(b, ',');
        js(b, last);
        dc_buf_printf(b, ":\"%s\"", q);
    }
    dc_buf_putc(b, '}');
}

const char *dc_alloc_share(const dc_alloc_run *cr, uint32_t claim, uint32_t i, uint32_t *ncaps)
{
    dc_alloc_run *r = (dc_alloc_run *)(uintptr_t)cr;
    *ncaps = 0;
    if (r->outcome != DC_ALLOC_ALLOCATED || claim >= r->p->nclaims || i >= r->nres[claim] ||
        !r->res[claim][i].multi)
        return NULL;
    const result *x = &r->res[claim][i];
    char uid[37];
    share_uid(r, claim, x, uid);
    if (x->consumed_any)
        dc_table_caps(r->p->t, r->rows[x->li], ncaps);
    return dc_arena_strndup(&r->scratch, uid, 36);
}

uint32_t dc_alloc_conditions(const dc_alloc_run *r, uint32_t claim, uint32_t i, bool failure,
                             uint32_t k, const char **name)
{
    if (r->outcome != DC_ALLOC_ALLOCATED || claim >= r->p->nclaims || i >= r->nres[claim] ||
        !(r->k8s.features & DC_FEAT_BINDING_CONDITIONS))
        return 0;
    const dc_table *t = r->p->t;
    uint32_t n, m = 0;
    const dc_tbind *x = dc_table_binds(t, r->rows[r->res[claim][i].li], &n);
    for (uint32_t j = 0; j < n; j++) {
        if (x[j].failure != failure)
            continue;
        if (name && m == k)
            *name = dc_dict_str(t->dict, x[j].name)->data;
        m++;
    }
    return m;
}

bool dc_alloc_consumed(const dc_alloc_run *cr, uint32_t claim, uint32_t i, uint32_t k,
                       const char **name, const char **quantity)
{
    dc_alloc_run *r = (dc_alloc_run *)(uintptr_t)cr;
    uint32_t nc;
    if (!dc_alloc_share(r, claim, i, &nc) || k >= nc)
        return false;
    const result *x = &r->res[claim][i];
    const dc_table *t = r->p->t;
    const dc_tcap *caps = dc_table_caps(t, r->rows[x->li], &nc);
    /* the k-th name in byte order (names of one device are distinct) */
    uint32_t best = UINT32_MAX;
    for (uint32_t j = 0; j < nc; j++) {
        const char *nm = dc_dict_str(t->dict, caps[j].name)->data;
        uint32_t below = 0;
        for (uint32_t m = 0; m < nc; m++)
            below += strcmp(dc_dict_str(t->dict, caps[m].name)->data, nm) < 0;
        if (below == k)
            best = j;
    }
    if (best == UINT32_MAX)
        return false;
    char q[DC_QTY_FMT_MAX];
    dc_qty_format(&x->consumed[best], q, sizeof q);
    *name = dc_dict_str(t->dict, caps[best].name)->data;
    *quantity = dc_arena_strndup(&r->scratch, q, strlen(q));
    return *quantity != NULL;
}

static void put_allocations(dc_buf *b, const dc_alloc_run *r)
{
    const dc_policy *p = r->p;
    dc_buf_puts(b, "\"allocations\":[");
    if (r->outcome == DC_ALLOC_ALLOCATED) {
        for (uint32_t c = 0; c < p->nclaims; c++) {
            dc_buf_puts(b, c ? ",{\"devices\":{\"results\":[" : "{\"devices\":{\"results\":[");
            for (uint32_t i = 0; i < r->nres[c]; i++) {
                const result *x = &r->res[c][i];
                const preq *q = &p->preqs[x->pq];
                dc_buf_puts(b, i ? ",{\"request\":" : "{\"request\":");
                js(b, q->name);
                dc_buf_putc(b, ',');
                put_device(b, p->t, r->rows[x->li]);
                if (x->admin)
                    dc_buf_puts(b, ",\"adminAccess\":true");
                if (q->sub->ntols)
                    put_tolerations(b, q->sub);
                if (r->k8s.features & DC_FEAT_BINDING_CONDITIONS)
                    put_binding(b, r, r->rows[x->li]);
                if (x->multi)
                    put_share(b, r, c, x);
                dc_buf_putc(b, '}');
            }
            dc_buf_putc(b, ']');
            put_config(b, r, c);
            dc_buf_putc(b, '}');
            size_t at = b->len;
            dc_buf_puts(b, ",\"nodeSelector\":");
            size_t mark = b->len;
            dc_alloc_node_selector_json(r, c, b);
            if (b->len == mark)
                b->len = at;
            dc_buf_putc(b, '}');
        }
    }
    dc_buf_putc(b, ']');
}

static const char *outcome_name(dc_alloc_outcome o)
{
    /* a node not tried is, to the scheduler, a node that did not fit */
    return o == DC_ALLOC_ALLOCATED ? "allocated" : o == DC_ALLOC_ERROR ? "error" : "unschedulable";
}

static void put_answer(const dc_alloc_run *r, dc_buf *b);

void dc_alloc_json(const dc_alloc_run *r, dc_buf *b)
{
    dc_buf_putc(b, '{');
    put_answer(r, b);
}

void dc_alloc_node_json(const dc_alloc_run *r, dc_buf *b)
{
    dc_buf_puts(b, "{\"node\":");
    js(b, r->node_name);
    dc_buf_puts(b, ",\"tiers\":");
    js(b, r->tiers);
    dc_buf_putc(b, ',');
    put_answer(r, b);
}

/* The fields of the allocate object after its '{', and its '}'. */
static void put_answer(const dc_alloc_run *r, dc_buf *b)
{
    dc_buf_puts(b, "\"outcome\":");
    js(b, outcome_name(r->outcome));
    dc_buf_putc(b, ',');
    put_allocations(b, r);
    if (r->outcome == DC_ALLOC_ERROR) {
        dc_buf_puts(b, ",\"error\":");
        js(b, r->msg);
        dc_buf_puts(b, r->node_local ? ",\"nodeLocal\":true" : ",\"nodeLocal\":false");
    } else if (r->outcome != DC_ALLOC_ALLOCATED && r->msg[0]) {
        dc_buf_puts(b, ",\"reason\":");
        js(b, r->msg);
    }
    if (r->outcome == DC_ALLOC_SKIPPED)
        dc_buf_puts(b, ",\"skipped\":true");
    if (r->explained) {
        dc_buf_puts(b, ",\"explanation\":");
        dc_alloc_explain_json(r, b);
    }
    dc_buf_putc(b, '}');
}

static void put_outcome_line(dc_buf *b, const dc_alloc_run *r)
{
    if (r->outcome == DC_ALLOC_ERROR)
        dc_buf_printf(b, "error%s: %s\n", r->node_local ? " (node-local)" : "", r->msg);
    else if (r->msg[0])
        dc_buf_printf(b, "%s: %s\n", outcome_name(r->outcome), r->msg);
    else
        dc_buf_printf(b, "%s\n", outcome_name(r->outcome));
}

void dc_alloc_text(const dc_alloc_run *r, dc_buf *b)
{
    const dc_policy *p = r->p;
    put_outcome_line(b, r);
    if (r->outcome == DC_ALLOC_ALLOCATED) {
        for (uint32_t c = 0; c < p->nclaims; c++)
            for (uint32_t i = 0; i < r->nres[c]; i++) {
                const result *x = &r->res[c][i];
                const char *cn = p->claims[c].in->name;
                dc_buf_printf(b, "%s %s ", cn && cn[0] ? cn : "(unnamed)", p->preqs[x->pq].name);
                dev_id_buf(b, p->t, r->rows[x->li]);
                dc_buf_printf(b, "%s\n", x->admin ? " adminAccess" : "");
            }
    }
    if (r->explained)
        dc_alloc_explain_text(r, b);
}

/* ---- Explanation printing. */

static void put_exclusions(dc_buf *b, const pstat *st, const char *open, const char *close)
{
    static const char *const what[DC_EXCL__COUNT] = {
        "in an incomplete pool", "in an invalid pool", "not on this node", "allocated", "tainted",
        "counters exhausted"};
    const char *sep = open;
    for (size_t i = 0; i < DC_EXCL__COUNT; i++)
        if (st->excl[i]) {
            dc_buf_printf(b, "%s%u %s", sep, st->excl[i], what[i]);
            sep = ", ";
        }
    if (st->capacity) {
        dc_buf_printf(b, "%s%u without the capacity asked for", sep, st->capacity);
        sep = ", ";
    }
    if (st->binding) {
        dc_buf_printf(b, "%s%u with binding conditions (their gates are off)", sep, st->binding);
        sep = ", ";
    }
    if (sep != open)
        dc_buf_puts(b, close);
}

void dc_alloc_summary(const dc_alloc_run *r, dc_buf *b)
{
    const dc_policy *p = r->p;
    if (r->outcome == DC_ALLOC_ALLOCATED) {
        const char *sep = "";
        for (uint32_t c = 0; c < p->nclaims; c++)
            for (uint32_t i = 0; i < r->nres[c]; i++) {
                dc_buf_puts(b, sep);
                dev_id_buf(b, p->t, r->rows[r->res[c][i].li]);
                sep = ", ";
            }
        return;
    }
    if (!r->explained || r->outcome == DC_ALLOC_ERROR)
        return;
    const char *sep = "";
    for (uint32_t pq = 0; pq < p->npreqs; pq++) {
        const preq *q = &p->preqs[pq];
        const char *why = reason_str(r, pq);
        if (!why)
            b->oom = true;
        dc_buf_printf(b, "%s%s: %s", sep, q->name, why ? why : "");
        put_exclusions(b, &r->stats[pq], " (", ")");
        sep = "; ";
    }
}

static void put_policy_head(dc_buf *b, const dc_alloc_run *r)
{
    dc_buf_puts(b, "{\"node\":");
    js(b, r->node_name);
    dc_buf_puts(b, ",\"policyVersion\":");
    js(b, r->p->version);
    dc_buf_printf(b, ",\"devices\":%u,\"steps\":%llu,\"backtracks\":%llu", r->nrows,
                  (unsigned long long)r->steps, (unsigned long long)r->backtracks);
    if (r->score >= 0)
        dc_buf_printf(b, ",\"score\":%d", r->score);
    dc_buf_printf(b, ",\"kubernetes\":{\"version\":\"1.%u\",\"allocator\":\"%s\",\"features\":[",
                  r->k8s.release, dc_copy_name(r->k8s.copy));
    const char *sep = "";
    for (unsigned bit = 1; bit && bit <= DC_FEAT_DEVICE_TAINT_RULES; bit <<= 1)
        if (r->k8s.features & bit) {
            dc_buf_printf(b, "%s\"%s\"", sep, dc_feature_name(bit));
            sep = ",";
        }
    dc_buf_putc(b, ']');
    if (r->note[0]) {
        dc_buf_puts(b, ",\"nondeterministic\":");
        js(b, r->note);
    }
    dc_buf_putc(b, '}');
}

/* The allocator features as text: "AdminAccess, PrioritizedList" or "none". */
static void put_features_text(dc_buf *b, unsigned f)
{
    const char *sep = "";
    for (unsigned bit = 1; bit && bit <= DC_FEAT_DEVICE_TAINT_RULES; bit <<= 1)
        if (f & bit) {
            dc_buf_printf(b, "%s%s", sep, dc_feature_name(bit));
            sep = ", ";
        }
    if (!*sep)
        dc_buf_puts(b, "none");
}

static void put_chosen(dc_buf *b, const dc_alloc_run *r, uint32_t c, uint32_t pq, bool json)
{
    bool first = true;
    for (uint32_t i = 0; i < r->nres[c]; i++) {
        if (r->res[c][i].pq != pq)
            continue;
        uint32_t row = r->rows[r->res[c][i].li];
        if (!json) {
            dc_buf_puts(b, first ? ": " : ", ");
            dev_id_buf(b, r->p->t, row);
        } else {
            dc_buf id;
            dc_buf_init(&id, r->a);
            dev_id_buf(&id, r->p->t, row);
            if (!first)
                dc_buf_putc(b, ',');
            if (id.oom)
                b->oom = true;
            else
                dc_json_quote(b, id.data, id.len);
            dc_buf_free(&id);
        }
        first = false;
    }
}

void dc_alloc_explain_json(const dc_alloc_run *r, dc_buf *b)
{
    const dc_policy *p = r->p;
    const dc_table *t = p->t;
    put_policy_head(b, r);
    dc_buf_puts(b, ",\"pools\":[");
    for (uint32_t v = 0; v < r->nvpools; v++) {
        const dc_tpool *pl = &t->pools[r->vpools[v]];
        dc_buf_puts(b, v ? ",{\"driver\":" : "{\"driver\":");
        js(b, dstr(t, pl->driver));
        dc_buf_puts(b, ",\"pool\":");
        js(b, dstr(t, pl->name));
        dc_pool_state ps = pool_state(r, r->vpools[v]);
        dc_buf_printf(b, ",\"state\":\"%s\"}", ps == DC_POOL_COMPLETE     ? "complete"
                                                : ps == DC_POOL_INCOMPLETE ? "incomplete"
                                                                           : "invalid");
    }
    dc_buf_puts(b, "],\"claims\":[");
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const pclaim *pc = &p->claims[c];
        dc_buf_puts(b, c ? ",{\"claim\":" : "{\"claim\":");
        js(b, pc->kobj);
        dc_buf_puts(b, ",\"requests\":[");
        for (uint32_t ri = 0; ri < pc->in->nreqs; ri++) {
            const dc_request_in *rq = &pc->in->reqs[ri];
            dc_buf_puts(b, ri ? ",{\"request\":" : "{\"request\":");
            js(b, rq->name);
            dc_buf_puts(b, ",\"tiers\":[");
            for (uint32_t s = 0; s < rq->nsubs; s++) {
                uint32_t pq = pc->req_first[ri] + s;
                const preq *q = &p->preqs[pq];
                const pstat *st = &r->stats[pq];
                dc_buf_puts(b, s ? ",{\"tier\":" : "{\"tier\":");
                js(b, q->name);
                dc_buf_printf(b, ",\"rank\":%u,\"class\":", s);
                js(b, q->sub->class_name ? q->sub->class_name : "");
                dc_buf_puts(b, ",\"status\":");
                int status = tier_status(r, q);
                js(b, TIER_STATUS[status]);
                if (status == DC_TIER_FAILED) {
                    const char *why = reason_str(r, pq);
                    dc_buf_puts(b, ",\"reason\":");
                    if (why)
                        js(b, why);
                    else
                        b->oom = true;
                }
                dc_buf_printf(b, ",\"needed\":%u,\"candidates\":%u,\"available\":%u",
                              needed(r, pq), st->candidates, st->available);
                dc_buf_puts(b, ",\"selectors\":[");
                for (uint32_t k = 0; k < q->nsels; k++) {
                    const gsel *g = &p->sels[q->sels[k]];
                    bool cls = k < q->nclass_sels;
                    dc_buf_printf(b, "%s{\"source\":\"%s\",\"index\":%u,\"expression\":",
                                  k ? "," : "", cls ? "class" : "request",
                                  cls ? k : k - q->nclass_sels);
                    /* the policy's copies of expressions are NUL-terminated */
                    dc_json_quote(b, g->expr, g->len);
                    if (g->compile_err) {
                        dc_buf_puts(b, ",\"compileError\":");
                        js(b, g->compile_err);
                    }
                    dc_buf_printf(b, ",\"rejected\":%u,\"errored\":%u,\"examples\":[",
                                  st->rejected[k], st->errored[k]);
                    for (uint32_t e = 0; e < st->nexamples[k]; e++) {
                        const char *x = example_str(r, pq, k, e);
                        if (e)
                            dc_buf_putc(b, ',');
                        if (x)
                            js(b, x);
                        else
                            b->oom = true;
                    }
                    dc_buf_puts(b, "]}");
                }
                dc_buf_printf(b, "],\"excluded\":{\"incompletePool\":%u,\"invalidPool\":%u,"
                              "\"node\":%u,\"allocated\":%u,\"tainted\":%u,\"counters\":%u,"
                              "\"capacity\":%u,\"bindingConditions\":%u}",
                              st->excl[DC_EXCL_INCOMPLETE_POOL], st->excl[DC_EXCL_INVALID_POOL],
                              st->excl[DC_EXCL_NODE], st->excl[DC_EXCL_ALLOCATED],
                              st->excl[DC_EXCL_TAINTED], st->excl[DC_EXCL_COUNTERS],
                              st->capacity, st->binding);
                if (st->unevaluated)
                    dc_buf_printf(b, ",\"unevaluated\":%u", st->unevaluated);
                if (status == DC_TIER_CHOSEN) {
                    dc_buf_puts(b, ",\"devices\":[");
                    put_chosen(b, r, c, pq, true);
                    dc_buf_putc(b, ']');
                }
                dc_buf_putc(b, '}');
            }
            dc_buf_puts(b, "]}");
        }
        dc_buf_puts(b, "]}");
    }
    dc_buf_puts(b, "]}");
}

void dc_alloc_explain_text(const dc_alloc_run *r, dc_buf *b)
{
    const dc_policy *p = r->p;
    const dc_table *t = p->t;
    dc_buf_printf(b, "node %s: %u devices in %u pools; policy %s\n", r->node_name, r->nrows,
                  r->nvpools, p->version);
    dc_buf_printf(b, "  kubernetes 1.%u: allocator %s (", r->k8s.release,
                  dc_copy_name(r->k8s.copy));
    put_features_text(b, r->k8s.features);
    dc_buf_puts(b, ")\n");
    if (r->note[0])
        dc_buf_printf(b, "  not deterministic: %s\n", r->note);
    for (uint32_t v = 0; v < r->nvpools; v++) {
        const dc_tpool *pl = &t->pools[r->vpools[v]];
        dc_pool_state ps = pool_state(r, r->vpools[v]);
        if (ps != DC_POOL_COMPLETE)
            dc_buf_printf(b, "  pool %s/%s is %s: its devices are not used\n", dstr(t, pl->driver),
                          dstr(t, pl->name), ps == DC_POOL_INCOMPLETE ? "incomplete" : "invalid");
    }
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const pclaim *pc = &p->claims[c];
        dc_buf_printf(b, "  claim %s\n", pc->kobj);
        for (uint32_t ri = 0; ri < pc->in->nreqs; ri++) {
            const dc_request_in *rq = &pc->in->reqs[ri];
            dc_buf_printf(b, "    request %s\n", rq->name);
            for (uint32_t s = 0; s < rq->nsubs; s++) {
                uint32_t pq = pc->req_first[ri] + s;
                const preq *q = &p->preqs[pq];
                const pstat *st = &r->stats[pq];
                int status = tier_status(r, q);
                dc_buf_printf(b, "      tier %u %s (class %s): %s", s, q->name,
                              q->sub->class_name ? q->sub->class_name : "-", TIER_STATUS[status]);
                if (status == DC_TIER_FAILED) {
                    const char *why = reason_str(r, pq);
                    if (!why)
                        b->oom = true;
                    dc_buf_printf(b, ": %s", why ? why : "");
                }
                else if (status == DC_TIER_CHOSEN)
                    put_chosen(b, r, c, pq, false);
                dc_buf_printf(b, "\n        %u candidates, %u available, %u needed\n",
                              st->candidates, st->available, needed(r, pq));
                for (uint32_t k = 0; k < q->nsels; k++) {
                    const gsel *g = &p->sels[q->sels[k]];
                    bool cls = k < q->nclass_sels;
                    dc_buf_printf(b, "        %s selector #%u: ", cls ? "class" : "request",
                                  cls ? k : k - q->nclass_sels);
                    if (g->compile_err) {
                        dc_buf_printf(b, "does not compile: %s\n", g->compile_err);
                        continue;
                    }
                    dc_buf_printf(b, "rejected %u", st->rejected[k]);
                    if (st->errored[k])
                        dc_buf_printf(b, ", errored %u", st->errored[k]);
                    for (uint32_t e = 0; e < st->nexamples[k]; e++) {
                        const char *x = example_str(r, pq, k, e);
                        dc_buf_puts(b, e ? "; " : " (e.g. ");
                        if (x)
                            dc_buf_puts(b, x);
                        else
                            b->oom = true;
                    }
                    dc_buf_puts(b, st->nexamples[k] ? ")\n" : "\n");
                }
                put_exclusions(b, st, "        excluded: ", "\n");
                if (st->unevaluated)
                    dc_buf_printf(b, "        %u not evaluated: the time limit was reached\n",
                                  st->unevaluated);
            }
        }
    }
    dc_buf_printf(b, "  search: %llu steps, %llu backtracks\n", (unsigned long long)r->steps,
                  (unsigned long long)r->backtracks);
}

/* ---------------------------------------------------------------------------------------------
 * A tier's devices over the whole table (the size of a tier for the tier policies of
 * docs/fairness.md): what its selectors accept, wherever the device is.
 */

dracel_status dc_alloc_tier_candidates(dc_alloc_run *r, uint32_t tier, bool class_only,
                                       uint64_t *bits, uint32_t *count)
{
    const dc_policy *p = r->p;
    const dc_table *t = p->t;
    const preq *q = &p->preqs[tier];
    uint32_t nsels = class_only ? q->nclass_sels : q->nsels;
    *count = 0;
    if (bits)
        memset(bits, 0, DC_BITS_WORDS(t->rows) * sizeof *bits);
    if (!q->cls)
        return DRACEL_OK; /* a missing class: no device is the tier's */
    for (uint32_t k = 0; k < nsels; k++)
        if (p->sels[q->sels[k]].compile_err)
            return DRACEL_OK;
    r->deadline_ns = 0;
    for (uint32_t pl = 0; pl < t->npools; pl++) {
        const dc_tpool *tp = &t->pools[pl];
        if (tp->state != DC_POOL_COMPLETE)
            continue;
        for (uint32_t row = tp->first_row; row < tp->first_row + tp->rows; row++) {
            bool ok = true;
            for (uint32_t k = 0; k < nsels && ok; k++) {
                int s = sel_on(r, q->sels[k], row);
                if (s == S_OOM)
                    return DRACEL_ENOMEM;
                ok = s == S_TRUE;
            }
            if (ok) {
                (*count)++;
                if (bits)
                    dc_bit_set(bits, row);
            }
        }
    }
    return DRACEL_OK;
}

uint32_t dc_usage_count_in(const dc_usage *u, const uint64_t *bits)
{
    const dc_table *t = dc_api_table(u->tt);
    uint32_t n = 0;
    for (size_t w = 0; w < DC_BITS_WORDS(t->rows); w++)
        n += (uint32_t)__builtin_popcountll(u->bits[w] & bits[w]);
    return n;
}
