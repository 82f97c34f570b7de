/*
 * alloc/capacity.c: consumable capacity (DRAConsumableCapacity, in the copies with the beta
 * features): Kubernetes' consumable_capacity.go and the allocator's CmpRequestOverCapacity;
 * what a share of a device consumes and whether a request fits what is left.
 *
 * Change with: src/alloc/allocint.h, src/alloc/search.c (its caller).
 */
#include "allocint.h"

#include <string.h>

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
dc_qty dc_al_consumed_of(const dc_tcap *c, const dc_qty *req)
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
bool dc_al_cap_in_use(const dc_alloc_run *r, uint32_t li)
{
    uint32_t row = r->rows[li];
    return (r->usage && r->usage->shared && dc_bit(r->usage->shared, row)) ||
           (r->aentry && r->aentry[li]);
}

/* What request q asks of the capacity @p name, or NULL. */
const dc_qty *dc_al_requested(const dc_preq *q, const char *name)
{
    for (uint32_t k = 0; k < q->sub->ncapreqs; k++)
        if (strcmp(q->sub->capreqs[k].name, name) == 0)
            return &q->capq[k];
    return NULL;
}

/* CmpRequestOverCapacity for request pq and the device at li: 1 fits, 0 does not, -1 the
 * request names a capacity the device lacks (an error the allocator skips the device on).
 * @p alone: without what this attempt's shares take (for the explanation). */
int dc_al_cap_check(const dc_alloc_run *r, uint32_t pq, uint32_t li, bool alone)
{
    const dc_table *t = r->p->t;
    const dc_preq *q = &r->p->preqs[pq];
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
        dc_qty used = dc_al_consumed_of(&caps[j], dc_al_requested(q, name));
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
