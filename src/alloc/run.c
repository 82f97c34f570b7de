/*
 * alloc/run.c: a run (dc_alloc_run) and its calls: memory, options, reservations and time
 * budget; selectors on rows (the policy's bitmaps, or a lazy selector evaluated now); a node's
 * visible rows, counters and `All` requests gathered before the search (src/alloc/search.c);
 * a tier's devices over the whole table.
 *
 * Change with: src/alloc/allocint.h (struct dc_alloc_run), src/alloc/search.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "allocint.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t dc_al_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void *dc_al_sz(dc_alloc_run *r, size_t n)
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

/* Reserve a row for the call (UINT32_MAX: none). */
static void reserve(dc_alloc_run *r, uint32_t row)
{
    if (row != UINT32_MAX && !dc_bit(r->resv, row)) {
        dc_bit_set(r->resv, row);
        r->resv_rows[r->nresv++] = row;
    }
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
        /* a reserved device is reserved in the older generations too (vm/table.h) */
        uint32_t need = o->nreserved;
        for (uint32_t i = 0; i < o->nreserved && t->nlive_pools != t->npools; i++)
            for (uint32_t at = 0; dc_al_device_older(t, &o->reserved[i], &at) != UINT32_MAX;)
                need++;
        if (need > r->capresv) {
            uint32_t *v = dc_realloc(r->a, r->resv_rows, r->capresv * sizeof *v,
                                     need * sizeof *v);
            if (!v)
                return DRACEL_ENOMEM;
            r->resv_rows = v;
            r->capresv = need;
        }
        for (uint32_t i = 0; i < o->nreserved; i++) {
            reserve(r, dc_al_device_row(t, &o->reserved[i]));
            uint32_t row;
            for (uint32_t at = 0; (row = dc_al_device_older(t, &o->reserved[i], &at)) != UINT32_MAX;)
                reserve(r, row);
        }
        if (r->nresv > 1)
            dc_sort(r->resv_rows, r->nresv, sizeof *r->resv_rows, cmp_u32);
    }
    r->interrupted = false;
    r->call_deadline_ns = o->budget_ms ? dc_al_now_ns() + o->budget_ms * 1000000ull : 0;
    return DRACEL_OK;
}

bool dc_al_expired(dc_alloc_run *r)
{
    if (r->interrupted || (r->o.interrupt && r->o.interrupt(r->o.interrupt_ctx)))
        return r->interrupted = true;
    return r->deadline_ns && dc_al_now_ns() >= r->deadline_ns;
}

int dc_al_fail(dc_alloc_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
    return DC_R_ERR;
}

void dc_al_dev_id(const dc_table *t, uint32_t row, char *buf, size_t cap)
{
    const dc_tpool *pl = &t->pools[t->pool[row]];
    snprintf(buf, cap, "%s/%s/%s", dc_dict_str(t->dict, pl->driver)->data,
             dc_dict_str(t->dict, pl->name)->data, dc_dict_str(t->dict, t->device_name[row])->data);
}

/* ---- Selectors on rows */

int dc_al_sel_on_lazy(dc_alloc_run *r, uint32_t gi, uint32_t row)
{
    const dc_gsel *g = &r->p->sels[gi];
    dc_lzsel *z = &r->lz[gi];
    if (z->known && dc_bit(z->known, row))
        return dc_bit(z->errored, row)   ? DC_S_ERROR
               : dc_bit(z->matched, row) ? DC_S_TRUE
                                         : DC_S_FALSE;
    if (dc_al_expired(r))
        return DC_S_TIMEOUT;
    if (!z->known) {
        size_t w = words_of(r);
        z->known = dc_malloc(r->a, 3 * w * sizeof(uint64_t));
        if (!z->known)
            return DC_S_OOM;
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
        return DC_S_OOM;
    if (v.k == DC_K_BOOL) {
        dc_bit_set(z->known, row);
        if (v.u.b)
            dc_bit_set(z->matched, row);
        return v.u.b ? DC_S_TRUE : DC_S_FALSE;
    }
    /* an error (the VM makes a non-bool result of a selector one) */
    if (z->nerrs == z->caperrs) {
        uint32_t nc = z->caperrs ? z->caperrs * 2 : 8;
        dc_lzerr *e = dc_realloc(r->a, z->errs, z->caperrs * sizeof *e, nc * sizeof *e);
        if (!e)
            return DC_S_OOM;
        z->errs = e;
        z->caperrs = nc;
    }
    dc_lzerr *e = &z->errs[z->nerrs];
    e->row = row;
    if (!dc_val_copy(&r->keep, v, &e->err, 0))
        return DC_S_OOM;
    z->nerrs++;
    dc_bit_set(z->known, row);
    dc_bit_set(z->errored, row);
    return DC_S_ERROR;
}

/* The message of selector gi's error on a row it errored on. */
const char *dc_al_sel_error(const dc_alloc_run *r, uint32_t gi, uint32_t row)
{
    const dc_gsel *g = &r->p->sels[gi];
    if (!g->lazy)
        return dracel_selection_error(g->sel, row);
    const dc_lzsel *z = &r->lz[gi];
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
 * conditions (see dc_al_gather). Stable: the order among the others is kept. */
static dracel_status binding_last(dc_alloc_run *r, uint32_t *seen)
{
    const dc_table *t = r->p->t;
    bool any = false;
    for (uint32_t li = 0; li < r->nrows && !any; li++)
        any = dc_bit(t->bindc, r->rows[li]);
    if (!any)
        return DRACEL_OK;
    uint8_t *bpool = dc_al_sz(r, r->nvpools + 1);
    uint32_t *rows = dc_al_sz(r, r->nrows * sizeof *rows);
    uint32_t *vp = dc_al_sz(r, r->nvpools * sizeof *vp), *vs = dc_al_sz(r, r->nvpools * sizeof *vs);
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
bool dc_al_row_selector_bad(dc_alloc_run *r, uint32_t row, bool gathering, uint32_t s,
                            bool per_device)
{
    const dc_table *t = r->p->t;
    uint32_t k = t->node[row];
    if (r->selbad[k] == 1)
        return false;
    dc_buf b;
    dc_buf_init(&b, r->a);
    bool bad = dc_al_node_selector_bad((const dc_node_selector_in *)t->node_selectors[k], &b);
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

/* Whether sorted v[0..n) holds x. */
static bool in_sorted(const uint32_t *v, uint32_t n, uint32_t x)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

bool dc_al_pool_has_empty(const dc_table *t, uint32_t p)
{
    const dc_tpool *tp = &t->pools[p];
    for (uint32_t k = tp->first_slice; k < tp->first_slice + tp->slices; k++)
        if (t->slice_first[k] == t->slice_first[k + 1])
            return true;
    return false;
}

/* The node's pools gathered, the live ones (vpools[0..nlive)) before the older generations it
 * uses: put each older one where its live pool goes (pools by driver and name), and leave out
 * those marked dropped (seen[v] == UINT32_MAX). Rows come pool after pool, in vpools order. */
static dracel_status older_in_place(dc_alloc_run *r, uint32_t *seen, uint32_t nlive, bool drop)
{
    const dc_table *t = r->p->t;
    uint32_t nv = r->nvpools;
    uint32_t *first = dc_al_sz(r, (nv + 1) * sizeof *first);
    uint32_t *rows = dc_al_sz(r, (r->nrows + 1) * sizeof *rows);
    uint32_t *vp = dc_al_sz(r, (nv + 1) * sizeof *vp), *vs = dc_al_sz(r, (nv + 1) * sizeof *vs);
    if (!first || !rows || !vp || !vs)
        return DRACEL_ENOMEM;
    for (uint32_t li = 0, v = 0; li < r->nrows; li++)
        if (li == 0 || t->pool[r->rows[li]] != t->pool[r->rows[li - 1]])
            first[v++] = li;
    first[nv] = r->nrows;
    uint32_t a = 0, b = nlive, m = 0, n = 0;
    while (a < nlive || b < nv) {
        uint32_t v = b >= nv || (a < nlive && r->vpools[a] < t->pools[r->vpools[b]].live) ? a++
                                                                                         : b++;
        if (drop && seen[v] == UINT32_MAX)
            continue;
        vp[m] = r->vpools[v];
        vs[m++] = seen[v];
        for (uint32_t li = first[v]; li < first[v + 1]; li++)
            rows[n++] = r->rows[li];
    }
    memcpy(r->vpools, vp, m * sizeof *vp);
    memcpy(seen, vs, m * sizeof *vs);
    memcpy(r->rows, rows, n * sizeof *rows);
    r->nvpools = m;
    r->nrows = n;
    return DRACEL_OK;
}

/* Gathering failed (a node selector Kubernetes cannot build): the pools gathered so far are
 * shown with their states in the table. */
static dracel_status gather_failed(dc_alloc_run *r)
{
    for (uint32_t v = 0; v < r->nvpools; v++)
        r->pstate[r->vpools[v]] = (uint8_t)r->p->t->pools[r->vpools[v]].state;
    r->gather_failed = true;
    return DRACEL_OK;
}

/* The node's rows: slices tied to it by name, and the others whose selection matches. */
dracel_status dc_al_gather(dc_alloc_run *r)
{
    const dc_policy *p = r->p;
    const dc_pindex *x = p->x;
    const dc_table *t = p->t;
    const dc_node_in *n = r->node;
    uint32_t name_id = n->name ? dc_dict_find(t->dict, n->name, strlen(n->name), t->dict_limit)
                               : DC_DICT_NONE;
    r->node_id = name_id;
    /* the named slices of this node: a range of x->named */
    uint32_t end, lo = dc_al_named_range(x, name_id, &end);
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
    r->rows = dc_al_sz(r, cap * sizeof *r->rows);
    r->vpools = dc_al_sz(r, cap * sizeof *r->vpools);
    uint32_t *seen = dc_al_sz(r, cap * sizeof *seen); /* per visible pool: its visible slices */
    if (!r->rows || !r->vpools || !seen)
        return DRACEL_ENOMEM;
    r->nrows = r->nvpools = 0;
    uint32_t i = lo, g = 0;
    uint32_t nlive_v = 0, nstale_v = 0, stale_of = UINT32_MAX; /* visible live and stale pools */
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
                        dc_al_row_selector_bad(r, row, true, s, true)) {
                        return gather_failed(r);
                    }
                    visible = dc_al_row_on_node(t, row, n, name_id);
                }
            } else {
                if (t->node_kind[a] == DC_NODE_SELECTOR &&
                    dc_al_row_selector_bad(r, a, true, s, false)) {
                    return gather_failed(r);
                }
                visible = dc_al_row_on_node(t, a, n, name_id);
            }
        }
        if (!visible)
            continue;
        uint32_t pl = t->pool[t->slice_first[s]];
        if (!r->nvpools || r->vpools[r->nvpools - 1] != pl) {
            if (t->pools[pl].stale) {
                /* An older generation (its slices come after every live one): the node's
                 * newest generation of the pool, unless it sees a newer slice. */
                uint32_t lp = t->pools[pl].live;
                if (lp == stale_of || in_sorted(r->vpools, nlive_v, lp) ||
                    (partitionable && dc_al_pool_has_empty(t, lp)))
                    continue;
                stale_of = lp;
                nstale_v++;
            } else {
                nlive_v = r->nvpools + 1;
            }
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
    bool drop = false;
    for (uint32_t v = 0; v < r->nvpools; v++) {
        const dc_tpool *tp = &t->pools[r->vpools[v]];
        dc_pool_state st = tp->state;
        if (tp->mixed && r->k8s.release > 34)
            st = DC_POOL_INVALID; /* the API server of 1.35 on refuses such a slice */
        uint32_t ns = seen[v];
        for (uint32_t k = tp->first_slice; k < tp->first_slice + tp->slices; k++)
            ns += t->slice_first[k] == t->slice_first[k + 1];
        if (tp->stale && (int64_t)ns != tp->slice_count && r->k8s.release > 34) {
            /* from 1.35 on a pool the node sees part of is judged by all its slices, and a
             * newer generation exists: the pool is left out, silently */
            r->pstate[r->vpools[v]] = DC_POOL_INCOMPLETE;
            seen[v] = UINT32_MAX;
            drop = true;
            continue;
        }
        if ((!r->k8s.fleet_complete || tp->stale) && st != DC_POOL_INVALID)
            st = (int64_t)ns == tp->slice_count ? DC_POOL_COMPLETE : DC_POOL_INCOMPLETE;
        r->pstate[r->vpools[v]] = (uint8_t)st;
        if (st == DC_POOL_COMPLETE)
            r->nslices_seen += seen[v];
    }
    if (nstale_v) {
        DC_TRY(older_in_place(r, seen, nlive_v, drop));
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

/* ---- A tier's devices over the whole table (the size of a tier for the tier policies of
 * docs/fairness.md): what its selectors accept, wherever the device is. */

/* Whether the allocator of r->k8s could give row to tier q, in use or not (as answer.c's
 * explanation excludes devices). */
static bool usable(const dc_alloc_run *r, const dc_preq *q, uint32_t row)
{
    if (dc_al_binding_off(r, row))
        return false;
    if ((r->k8s.features & DC_FEAT_DEVICE_TAINTS) && dc_al_tainted(r, q, row))
        return false;
    uint32_t ncons;
    dc_table_consumes(r->p->t, row, &ncons);
    return !ncons || (r->k8s.features & DC_FEAT_PARTITIONABLE);
}

dracel_status dc_alloc_tier_candidates(dc_alloc_run *r, uint32_t tier, bool class_only,
                                       const dc_k8s *k8s, uint64_t *bits, uint32_t *count)
{
    const dc_policy *p = r->p;
    const dc_table *t = p->t;
    const dc_preq *q = &p->preqs[tier];
    uint32_t nsels = class_only ? q->nclass_sels : q->nsels;
    *count = 0;
    if (bits)
        memset(bits, 0, DC_BITS_WORDS(t->live_rows) * sizeof *bits); /* the caller's words */
    if (!q->cls)
        return DRACEL_OK; /* a missing class: no device is the tier's */
    for (uint32_t k = 0; k < nsels; k++)
        if (p->sels[q->sels[k]].compile_err)
            return DRACEL_OK;
    r->deadline_ns = 0;
    if (k8s)
        r->k8s = *k8s;
    for (uint32_t pl = 0; pl < t->nlive_pools; pl++) { /* the newest generations */
        const dc_tpool *tp = &t->pools[pl];
        if (tp->state != DC_POOL_COMPLETE || (k8s && tp->mixed && k8s->release > 34))
            continue;
        for (uint32_t row = tp->first_row; row < tp->first_row + tp->rows; row++) {
            if (k8s && !usable(r, q, row))
                continue;
            bool ok = true;
            for (uint32_t k = 0; k < nsels && ok; k++) {
                int s = dc_al_sel_on(r, q->sels[k], row);
                if (s == DC_S_OOM)
                    return DRACEL_ENOMEM;
                ok = s == DC_S_TRUE;
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
