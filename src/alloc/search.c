/*
 * alloc/search.c: the per-node search (src/alloc.h) and its steps: selectable, in use, taints,
 * counters, constraints, a device allocated and given back, requests validated.
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
 * Change with: src/alloc/allocint.h, src/alloc/run.c (what is gathered before the search),
 * src/alloc/capacity.c, src/alloc/answer.c (the explanation it calls).
 */
#include "allocint.h"

#include <stdio.h>
#include <string.h>

/* Kubernetes' isSelectable: 1, 0, or DC_R_ERR with the message. */
static int selectable(dc_alloc_run *r, uint32_t pq, uint32_t li)
{
    const dc_policy *p = r->p;
    const dc_preq *q = &p->preqs[pq];
    uint32_t row = r->rows[li];
    if (dc_al_binding_off(r, row))
        return 0; /* before any selector, as isSelectable checks it */
    for (uint32_t k = 0; k < q->nsels; k++) {
        const dc_gsel *g = &p->sels[q->sels[k]];
        bool cls = k < q->nclass_sels;
        uint32_t idx = cls ? k : k - q->nclass_sels;
        if (g->compile_err) {
            if (cls)
                return dc_al_fail(r, "class %s: selector #%u: CEL compile error: %s", q->cls->name,
                                  idx, g->compile_err);
            return dc_al_fail(r, "claim %s: selector #%u: CEL compile error: %s",
                              p->claims[q->ci].kobj, idx, g->compile_err);
        }
        int on = dc_al_sel_on(r, q->sels[k], row);
        if (on == DC_S_TIMEOUT)
            return DC_R_TIMEOUT;
        if (on == DC_S_OOM) {
            r->oom = true;
            return dc_al_fail(r, "out of memory");
        }
        if (on == DC_S_ERROR) {
            char id[800], where[1024];
            const char *e = dc_al_sel_error(r, q->sels[k], row);
            /* 1.37 names the device and adds cel.EnhanceRuntimeError's hint to "no such key" */
            const char *hint = r->k8s.device_in_msg && e && strstr(e, "no such key:")
                                   ? ". consider using CEL optional chaining (.? followed by "
                                     "orValue()) or guarding the check with has() for optional "
                                     "fields"
                                   : "";
            if (r->k8s.device_in_msg) {
                dc_al_dev_id(p->t, row, id, sizeof id);
                snprintf(where, sizeof where, "selector #%u on device %s", idx, id);
            } else {
                snprintf(where, sizeof where, "selector #%u", idx);
            }
            if (cls)
                return dc_al_fail(r, "class %s: %s: CEL runtime error: %s%s", q->cls->name, where,
                                  e ? e : "error", hint);
            return dc_al_fail(r, "claim %s: %s: CEL runtime error: %s%s", p->claims[q->ci].kobj,
                              where, e ? e : "error", hint);
        }
        if (on == DC_S_FALSE)
            return 0;
    }
    const dc_table *t = p->t;
    if (dc_bit(t->slice_per_device, dc_table_slice_of(t, row))) {
        if (t->node_kind[row] == DC_NODE_SELECTOR &&
            dc_al_row_selector_bad(r, row, false, dc_table_slice_of(t, row), true))
            return DC_R_ERR;
        if (!dc_al_row_on_node(t, row, r->node, r->node_id))
            return 0;
    }
    return 1;
}

static bool in_use(const dc_alloc_run *r, uint32_t li)
{
    return dc_al_taken(r, r->rows[li]) || r->using[li] > 0;
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

bool dc_al_tainted(const dc_alloc_run *r, const dc_preq *q, uint32_t row)
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
    case DC_K_STRING:
        return a.u.s->len == b.u.s->len && !memcmp(a.u.s->data, b.u.s->data, a.u.s->len);
    case DC_K_INT: return a.u.i == b.u.i;
    case DC_K_BOOL: return a.u.b == b.u.b;
    case DC_K_SEMVER:
        /* versions are compared as exact strings */
        return a.u.sv->text->len == b.u.sv->text->len &&
               !memcmp(a.u.sv->text->data, b.u.sv->text->data, a.u.sv->text->len);
    default: return false;
    }
}

/* ---- List-typed attributes in constraints (DRAListTypeAttributes), when the scheduler passes
 * ListTypeAttributes to the experimental copy: a value is a set, a scalar a set of one; values
 * of different kinds never meet. matchAttribute keeps the running intersection of the devices'
 * sets, one level per device added (so that taking a device back restores the one before it,
 * kubernetes PR 140326); distinctAttribute wants each device's set disjoint from those kept. */

#define LIST_MAX_VALUES 48u /* ResourceSliceMaxAttributeValuesPerDevice: a set's size */

/* The elements of a value seen as a set: a list's, or the value alone. */
static const dc_val *set_elems(const dc_val *v, uint32_t *n)
{
    if (v->k == DC_K_LIST) {
        *n = v->u.l->n;
        return v->u.l->v;
    }
    *n = 1;
    return v;
}

static bool set_has(const dc_val *x, uint32_t n, dc_val v)
{
    for (uint32_t i = 0; i < n; i++)
        if (attr_eq(x[i], v))
            return true;
    return false;
}

/* Whether the sets of a and b meet. */
static bool sets_meet(const dc_val *a, const dc_val *b)
{
    uint32_t na, nb;
    const dc_val *x = set_elems(a, &na), *y = set_elems(b, &nb);
    for (uint32_t i = 0; i < na; i++)
        if (set_has(y, nb, x[i]))
            return true;
    return false;
}

/* matchAttribute over sets: level s->n of the intersections becomes level s->n - 1 met with
 * v's set. false (nothing pushed) when that is empty. */
static bool match_push(dc_cstate *s, const dc_val *v)
{
    if (s->n > DC_ALLOC_MAX_RESULTS)
        return false; /* never reached: a claim holds at most 32 devices, plus one tried */
    uint32_t nv;
    const dc_val *y = set_elems(v, &nv);
    dc_val *out = s->isect + (size_t)s->n * LIST_MAX_VALUES;
    uint32_t k = 0;
    if (s->n == 0) {
        for (uint32_t i = 0; i < nv && k < LIST_MAX_VALUES; i++)
            out[k++] = y[i];
    } else {
        const dc_val *prev = s->isect + (size_t)(s->n - 1) * LIST_MAX_VALUES;
        for (uint32_t i = 0; i < s->isect_n[s->n - 1]; i++)
            if (set_has(y, nv, prev[i]))
                out[k++] = prev[i];
        if (k == 0)
            return false;
    }
    s->isect_n[s->n] = k;
    return true;
}

static bool cons_applies(const dc_constraint_in *c, const dc_preq *q)
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

static bool cons_add(dc_alloc_run *r, uint32_t k, const dc_preq *q, uint32_t row)
{
    const dc_constraint_in *c = r->p->cons[k];
    dc_cstate *s = &r->cs[k];
    if (!cons_applies(c, q))
        return true;
    dc_val v;
    if (c->match_attribute) {
        if (!attribute(r, c->match_attribute, row, &v))
            return false;
        if (r->k8s.list_attrs) {
            if (!match_push(s, &v))
                return false;
            s->n++;
            return true;
        }
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
        /* With ListTypeAttributes the sets must be disjoint; without it a list matches no case
         * of the scalar comparison, which refuses it as soon as one value is kept. */
        const dc_pclaim *pc = &r->p->claims[q->ci];
        for (uint32_t i = 0; i < pc->in->nreqs; i++)
            if (s->has[i] && (r->k8s.list_attrs ? sets_meet(&s->vals[i], &v)
                                                : v.k == DC_K_LIST || attr_eq(s->vals[i], v)))
                return false;
    }
    s->vals[q->ri] = v;
    s->has[q->ri] = true;
    s->n++;
    return true;
}

static void cons_remove(dc_alloc_run *r, uint32_t k, const dc_preq *q)
{
    const dc_constraint_in *c = r->p->cons[k];
    dc_cstate *s = &r->cs[k];
    if (!cons_applies(c, q))
        return;
    s->n--;
    if (c->distinct_attribute)
        s->has[q->ri] = false; /* delete(m.attributes, requestName) */
}

/* Kubernetes' allocateDevice: 1 allocated, 0 not usable, DC_R_ERR. */
static int allocate_device(dc_alloc_run *r, uint32_t ci, uint32_t pq, uint32_t li, bool must)
{
    const dc_policy *p = r->p;
    const dc_preq *q = &p->preqs[pq];
    uint32_t row = r->rows[li];
    bool admin = q->sub->admin_access;
    bool multi = dc_al_multi_row(r, row);
    if (!multi && admin && allocating_for_claim(r, li, ci))
        return 0;
    if (!admin && in_use(r, li))
        return 0;
    uint32_t ncons;
    dc_table_consumes(p->t, row, &ncons);
    if (ncons && !(r->k8s.features & DC_FEAT_PARTITIONABLE))
        return 0;
    /* a device of several shares consumes its counters once, with its first share */
    bool skip_counters = multi && dc_al_cap_in_use(r, li);
    if (!skip_counters && ncons && !counters_take(r, row))
        return 0;
    /* From here a failure keeps the device's counters consumed for the rest of the node's
     * attempt, as every release of Kubernetes' allocator does (allocateDevice returns without
     * deallocateCountersForDevice): it can hide solutions there, and so here. */
    if ((r->k8s.features & DC_FEAT_DEVICE_TAINTS) && dc_al_tainted(r, q, row))
        return 0;
    const dc_pclaim *pc = &p->claims[ci];
    uint32_t k0 = pc->cons_first, k1 = k0 + pc->in->ncons;
    for (uint32_t k = k0; k < k1; k++) {
        if (cons_add(r, k, q, row))
            continue;
        for (uint32_t e = k0; e < k; e++)
            cons_remove(r, e, q);
        if (must) {
            char id[800];
            dc_al_dev_id(p->t, row, id, sizeof id);
            return dc_al_fail(r, "claim %s, request %s: cannot add device %s because a claim "
                              "constraint would not be satisfied", pc->kobj,
                              q->sub->name ? q->sub->name : q->req->name, id);
        }
        return 0;
    }
    if (!multi)
        r->using[li]++;
    /* Checked again after the constraints and the in-use mark, which stay when it fails, as
     * in Kubernetes (this can only fail for an All request, whose devices were checked when
     * gathered, before earlier requests took their shares). */
    if (dc_al_consumable(r) && dc_al_cap_check(r, pq, li, false) <= 0)
        return 0;
    dc_result *x = &r->res[ci][r->nres[ci]];
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
            x->consumed[j] = dc_al_consumed_of(&caps[j], dc_al_requested(q, name));
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
    dc_result x = r->res[ci][--r->nres[ci]];
    const dc_preq *q = &p->preqs[x.pq];
    const dc_pclaim *pc = &p->claims[ci];
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
    if ((r->steps & 255) == 0 && dc_al_expired(r))
        return DC_R_TIMEOUT;
    if (ci >= p->nclaims)
        return DC_R_DONE;
    const dc_pclaim *pc = &p->claims[ci];
    if (ri >= pc->in->nreqs) {
        int x = allocate_one(r, ci + 1, 0, 0, 0, false, 0);
        return x == DC_R_MAXSIZE ? DC_R_NOT : x;
    }
    const dc_request_in *rq = &pc->in->reqs[ri];
    if (!in_sub && rq->first_available) {
        bool all_exceeded = true;
        for (uint32_t s = 0; s < rq->nsubs; s++) {
            int x = allocate_one(r, ci, ri, s, 0, true, 0);
            if (x == DC_R_MAXSIZE)
                continue;
            all_exceeded = false;
            if (x < 0)
                return x;
            if (x == DC_R_DONE) {
                r->selected[p->req_slot[pc->req_first[ri]]] = s;
                return DC_R_DONE;
            }
        }
        return all_exceeded ? DC_R_MAXSIZE : DC_R_NOT;
    }
    uint32_t pq = pc->req_first[ri] + si;
    const dc_preq *q = &p->preqs[pq];
    const dc_rdata *d = &r->rd[pq];
    if (q->all && d->nall == 0)
        return DC_R_NOT;
    if (di >= d->num)
        return allocate_one(r, ci, ri + 1, 0, 0, false, 0);
    if (r->nres[ci] + d->num - di > DC_ALLOC_MAX_RESULTS)
        /* DC_R_NOT in 1.34/1.35 stable: just no solution */
        return r->k8s.maxsize_cut ? DC_R_MAXSIZE : DC_R_NOT;
    if (q->all) {
        int ok = allocate_device(r, ci, pq, d->all[di], true);
        if (ok <= 0)
            return ok < 0 ? ok : DC_R_NOT;
        int x = allocate_one(r, ci, ri, si, di + 1, in_sub, 0);
        if (x != DC_R_DONE) {
            deallocate(r, ci);
            return x;
        }
        return DC_R_DONE;
    }
    for (uint32_t li = start; li < r->nrows; li++) {
        uint32_t row = r->rows[li];
        if (!dc_al_pool_usable(r, row))
            continue;
        if (q->sub->admin_access ? allocating_for_claim(r, li, ci) : in_use(r, li))
            continue; /* (a share of a multi-allocation device is in use for no one) */
        int s = selectable(r, pq, li);
        if (s < 0)
            return s;
        if (!s)
            continue;
        if (dc_al_consumable(r) && dc_al_cap_check(r, pq, li, false) <= 0)
            continue;
        int ok = allocate_device(r, ci, pq, li, false);
        if (ok < 0)
            return ok;
        if (!ok)
            continue;
        /* combinations (1.36 on, sorted copies): the next slot starts after this device;
         * permutations: from the first device again */
        int x = allocate_one(r, ci, ri, si, di + 1, in_sub, r->k8s.combinations ? li + 1 : 0);
        if (x == DC_R_DONE)
            return DC_R_DONE;
        deallocate(r, ci);
        if (x < 0)
            return x;
    }
    return DC_R_NOT;
}

/* Kubernetes' validateDeviceRequest. */
static int validate(dc_alloc_run *r, uint32_t pq)
{
    const dc_policy *p = r->p;
    const dc_preq *q = &p->preqs[pq];
    const char *ko = p->claims[q->ci].kobj;
    const char *name = q->sub->name ? q->sub->name : q->req->name;
    dc_rdata *d = &r->rd[pq];
    for (uint32_t k = 0; k < q->sub->nsels; k++)
        if (!q->sub->sels[k].expr)
            return dc_al_fail(r, "claim %s, request %s, selector #%u: CEL expression empty "
                              "(unsupported selector type?)", ko, name, k);
    if (q->sub->admin_access && !(r->k8s.features & DC_FEAT_ADMIN_ACCESS))
        return dc_al_fail(r, "claim %s, request %s: admin access is requested, but the feature is "
                          "disabled", ko, name);
    if (!q->sub->class_name || !q->sub->class_name[0])
        return dc_al_fail(r, "claim %s, request %s: missing device class name (unsupported request "
                          "type?)", ko, name);
    if (!q->cls)
        return dc_al_fail(r, "claim %s, request %s: could not retrieve device class %s: "
                          "deviceclass.resource.k8s.io \"%s\" not found", ko, name,
                          q->sub->class_name, q->sub->class_name);
    if (!q->mode_ok)
        return dc_al_fail(r, "claim %s, request %s: unsupported count mode %s", ko, name,
                          q->sub->mode);
    if (!q->all) {
        d->num = q->sub->count > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)q->sub->count;
        return 0;
    }
    const dc_table *t = p->t;
    for (uint32_t v = 0; v < r->nvpools; v++) {
        const dc_tpool *pl = &t->pools[r->vpools[v]];
        const char *dn = dc_dict_str(t->dict, pl->driver)->data;
        const char *pn = dc_dict_str(t->dict, pl->name)->data;
        if (r->pstate[r->vpools[v]] == DC_POOL_INCOMPLETE)
            return dc_al_fail(r, "claim %s, request %s: asks for all devices, but resource pool "
                              "%s/%s is currently being updated", ko, name, dn, pn);
        if (dc_al_pool_state(r, r->vpools[v]) == DC_POOL_INVALID)
            return dc_al_fail(r, "claim %s, request %s: asks for all devices, but resource pool "
                              "%s/%s is currently invalid", ko, name, dn, pn);
    }
    d->all = dc_al_sz(r, r->nrows * sizeof *d->all);
    if (!d->all) {
        r->oom = true;
        return dc_al_fail(r, "out of memory");
    }
    for (uint32_t li = 0; li < r->nrows; li++) {
        int s = selectable(r, pq, li);
        if (s < 0)
            return s;
        if (s && dc_al_consumable(r) && dc_al_cap_check(r, pq, li, false) <= 0)
            continue;
        if (s)
            d->all[d->nall++] = li;
    }
    d->num = d->nall;
    return 0;
}

static int prepare(dc_alloc_run *r)
{
    const dc_policy *p = r->p;
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const dc_pclaim *pc = &p->claims[c];
        uint64_t min_claim = 0;
        for (uint32_t ri = 0; ri < pc->in->nreqs; ri++) {
            const dc_request_in *rq = &pc->in->reqs[ri];
            if (rq->first_available && !(r->k8s.features & DC_FEAT_PRIORITIZED_LIST))
                return dc_al_fail(r, "claim %s, request %s: has subrequests, but the "
                                  "DRAPrioritizedList feature is disabled", pc->kobj, rq->name);
            /* Copies without consumable capacity ignore capacity requests (the API server
             * drops them while the gate is off). */
            for (uint32_t s = 0; r->k8s.beta_code && s < rq->nsubs; s++) {
                if (!rq->subs[s].capacity_requests)
                    continue;
                if (!(r->k8s.features & DC_FEAT_CONSUMABLE_CAPACITY)) {
                    if (rq->first_available)
                        return dc_al_fail(r, "claim %s, subrequest %s: has capacity requests, "
                                          "but the DRAConsumableCapacity feature is disabled",
                                          pc->kobj,
                                          rq->subs[s].name);
                    return dc_al_fail(r, "claim %s, request %s: has capacity requests, but "
                                      "the DRAConsumableCapacity feature is disabled", pc->kobj,
                                      rq->name);
                }
            }
            uint64_t min_req = UINT64_MAX;
            for (uint32_t s = 0; s < rq->nsubs; s++) {
                uint32_t pq = pc->req_first[ri] + s;
                int x = validate(r, pq);
                if (x < 0)
                    return x;
                /* the count as asked, not as the search holds it (at most UINT32_MAX) */
                const dc_preq *q = &r->p->preqs[pq];
                uint64_t num = q->all ? r->rd[pq].num : (uint64_t)q->sub->count;
                if (num < min_req)
                    min_req = num;
            }
            min_claim = min_claim > UINT64_MAX - min_req ? UINT64_MAX : min_claim + min_req;
        }
        if (min_claim > DC_ALLOC_MAX_RESULTS)
            return dc_al_fail(r, "claim %s: number of requested devices %llu exceeds the claim "
                              "limit of %u", pc->kobj, (unsigned long long)min_claim,
                              DC_ALLOC_MAX_RESULTS);
        for (uint32_t k = 0; k < pc->in->ncons; k++)
            if (!pc->in->cons[k].match_attribute &&
                !(pc->in->cons[k].distinct_attribute && r->k8s.beta_code))
                return dc_al_fail(r, "claim %s, constraint #%u: empty constraint (unsupported "
                                  "constraint type?)", pc->kobj, k);
    }
    return 0;
}

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
    if (!r->interrupted && r->o.interrupt && r->o.interrupt(r->o.interrupt_ctx))
        r->interrupted = true;
    if (r->interrupted || (r->call_deadline_ns && dc_al_now_ns() >= r->call_deadline_ns)) {
        r->outcome = DC_ALLOC_SKIPPED;
        r->note[0] = '\0';
        r->note_key = 0;
        if (r->interrupted)
            snprintf(r->msg, sizeof r->msg, "not tried: the call was interrupted");
        else
            snprintf(r->msg, sizeof r->msg, "not tried: the time limit of the call (%llums) "
                     "was reached before this node", (unsigned long long)o->budget_ms);
        return DRACEL_OK;
    }
    r->outcome = DC_ALLOC_UNSCHEDULABLE;
    r->node = node;
    r->gather_failed = false;
    dracel_status st = dc_al_gather(r);
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
    r->rd = dc_al_sz(r, p->npreqs * sizeof *r->rd);
    r->selected = dc_al_sz(r, p->nreqs_total * sizeof *r->selected);
    r->using = dc_al_sz(r, r->nrows * sizeof *r->using);
    r->res = dc_al_sz(r, p->nclaims * sizeof *r->res);
    r->nres = dc_al_sz(r, p->nclaims * sizeof *r->nres);
    r->cs = dc_al_sz(r, p->ncons * sizeof *r->cs);
    if (st != DRACEL_OK || !r->rd || !r->selected || !r->using || !r->res || !r->nres || !r->cs)
        goto nomem;
    for (uint32_t c = 0; c < p->nclaims; c++) {
        /* each claim holds at most 32 results, plus one being tried */
        r->res[c] = dc_al_sz(r, (DC_ALLOC_MAX_RESULTS + 1) * sizeof **r->res);
        if (!r->res[c])
            goto nomem;
    }
    const dc_qty none = dc_qty_from_int(0);
    for (uint32_t v = 0; v < r->nvpools; v++)
        for (uint32_t k = p->x->shared_first[r->vpools[v]];
             k < p->x->shared_first[r->vpools[v] + 1]; k++)
            r->consumed[k] = none;
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const dc_pclaim *pc = &p->claims[c];
        for (uint32_t k = pc->cons_first; k < pc->cons_first + pc->in->ncons; k++) {
            if (p->cons[k]->match_attribute && r->k8s.list_attrs) {
                r->cs[k].isect = dc_al_sz(r, (size_t)(DC_ALLOC_MAX_RESULTS + 1) * LIST_MAX_VALUES *
                                           sizeof *r->cs[k].isect);
                r->cs[k].isect_n = dc_al_sz(r, (DC_ALLOC_MAX_RESULTS + 1) *
                                                   sizeof *r->cs[k].isect_n);
                if (!r->cs[k].isect || !r->cs[k].isect_n)
                    goto nomem;
            }
            if (!p->cons[k]->distinct_attribute)
                continue;
            r->cs[k].vals = dc_al_sz(r, pc->in->nreqs * sizeof *r->cs[k].vals);
            r->cs[k].has = dc_al_sz(r, pc->in->nreqs * sizeof *r->cs[k].has);
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
    if (dc_al_consumable(r)) {
        r->capoff = dc_al_sz(r, (r->nrows + 1) * sizeof *r->capoff);
        r->aentry = dc_al_sz(r, r->nrows + 1);
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
        r->acap = dc_al_sz(r, (total + 1) * sizeof *r->acap);
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
    uint64_t now = dc_al_now_ns();
    r->deadline_ns = o->timeout_ms ? now + o->timeout_ms * 1000000ull : 0;
    if (r->call_deadline_ns && (!r->deadline_ns || r->call_deadline_ns < r->deadline_ns))
        r->deadline_ns = r->call_deadline_ns;
    int x = r->gather_failed ? DC_R_ERR : prepare(r);
    if (x == 0)
        x = allocate_one(r, 0, 0, 0, 0, false, 0);
    if (r->oom)
        goto nomem;
    switch (x) {
    case DC_R_DONE:
        r->outcome = DC_ALLOC_ALLOCATED;
        dc_al_finish_tiers(r);
        if (dc_al_build_configs(r) != DRACEL_OK)
            goto nomem;
        break;
    case DC_R_TIMEOUT:
        r->outcome = DC_ALLOC_UNSCHEDULABLE;
        r->timed_out = true;
        snprintf(r->msg, sizeof r->msg, r->interrupted ? "interrupted trying to allocate devices"
                                                       : "timed out trying to allocate devices");
        break;
    case DC_R_ERR:
        r->outcome = DC_ALLOC_ERROR;
        break;
    default: {
        r->outcome = DC_ALLOC_UNSCHEDULABLE;
        bool invalid = false;
        for (uint32_t v = 0; v < r->nvpools; v++)
            invalid |= dc_al_pool_state(r, r->vpools[v]) == DC_POOL_INVALID;
        if (invalid) {
            r->outcome = DC_ALLOC_ERROR;
            r->node_local = true;
            snprintf(r->msg, sizeof r->msg, "invalid resource pools were encountered");
        }
        break;
    }
    }
    if (o->explain && dc_al_explain(r) != DRACEL_OK)
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
