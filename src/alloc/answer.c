/*
 * alloc/answer.c: a node's answer read back: outcome, chosen tiers, results; the allocation
 * config Kubernetes copies into a result; the explanation (for each tier, the funnel of the
 * node's devices through its filters) and its accessors.
 *
 * Change with: src/alloc/allocint.h, src/alloc/search.c (which fills it), src/alloc/print.c.
 */
#include "allocint.h"

#include <stdio.h>
#include <string.h>

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

void dc_al_finish_tiers(dc_alloc_run *r)
{
    const dc_policy *p = r->p;
    size_t pos = 0;
    int score = 0;
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const dc_pclaim *pc = &p->claims[c];
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
    const dc_pclaim *pc = &p->claims[ci];
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
    const dc_result *x = &r->res[claim][i];
    *tier = x->pq;
    *row = r->rows[x->li];
    *admin = x->admin;
}

/* ---- Allocation config, as Kubernetes' allocator copies it: class configs once per class (in
 * the order the requests name the classes), naming the requests that use the class, then the
 * claim's entries: those without requests once, the others (1.37) once, or (before) once per
 * request they name (a firstAvailable request by its name or by its chosen "req/sub"). */

static dracel_status claim_configs(dc_alloc_run *r, uint32_t ci, dc_ccfg *out)
{
    const dc_policy *p = r->p;
    const dc_pclaim *pc = &p->claims[ci];
    const dc_claim_in *cl = pc->in;
    uint32_t cap = cl->nconfig * (cl->nreqs + 1);
    for (uint32_t ri = 0; ri < cl->nreqs; ri++) {
        const dc_preq *q = &p->preqs[pc->req_first[ri] + chosen_sub(r, ci, ri)];
        cap += q->cls ? q->cls->nconfig : 0;
    }
    out->n = 0;
    out->e = NULL;
    if (!cap)
        return DRACEL_OK;
    dc_alloc_config *e = dc_al_sz(r, cap * sizeof *e);
    const dc_class_in **seen = dc_al_sz(r, (cl->nreqs + 1) * sizeof *seen);
    uint32_t *seen_first = dc_al_sz(r, (cl->nreqs + 1) * 2 * sizeof *seen_first);
    if (!e || !seen || !seen_first)
        return DRACEL_ENOMEM;
    uint32_t ne = 0, nseen = 0;
    for (uint32_t ri = 0; ri < cl->nreqs; ri++) {
        const dc_preq *q = &p->preqs[pc->req_first[ri] + chosen_sub(r, ci, ri)];
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
            const char **names = dc_al_sz(r, cl->nreqs * sizeof *names);
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

dracel_status dc_al_build_configs(dc_alloc_run *r)
{
    r->cfgs = dc_al_sz(r, r->p->nclaims * sizeof *r->cfgs);
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

void dc_al_js(dc_buf *b, const char *s)
{
    dc_json_quote(b, s, strlen(s));
}

const char *dc_al_dstr(const dc_table *t, uint32_t id)
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
static void example_text(dc_buf *b, dc_alloc_run *r, const dc_gsel *g, uint32_t row)
{
    const dc_table *t = r->p->t;
    dc_buf_puts(b, dc_al_dstr(t, t->device_name[row]));
    dc_buf_puts(b, ": ");
    if (dc_al_sel_on(r, (uint32_t)(g - r->p->sels), row) == DC_S_ERROR) {
        const char *e = dc_al_sel_error(r, (uint32_t)(g - r->p->sels), row);
        dc_buf_printf(b, "error: %s", e ? e : "error");
        return;
    }
    const dc_program *prog = dc_api_program(g->prog);
    if (!prog->ncols) {
        if (mentions(g->expr, g->len, "device.driver")) {
            dc_buf_puts(b, "device.driver is ");
            dc_al_js(b, dc_al_dstr(t, t->pools[t->pool[row]].driver));
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

uint32_t dc_al_needed(const dc_alloc_run *r, uint32_t pq)
{
    return r->rd[pq].num;
}

/* Why a tier gives too few devices (the explanation's "reason"). */
static const char *tier_reason(dc_alloc_run *r, uint32_t pq)
{
    const dc_pstat *st = &r->stats[pq];
    const dc_preq *q = &r->p->preqs[pq];
    if (st->sel_error)
        return "a selector does not compile";
    if (q->all && st->available == 0)
        return "asks for all devices, and none matches";
    if (!q->all && st->available < dc_al_needed(r, pq))
        return dc_arena_printf(&r->scratch, "needs %u device%s, %u available", dc_al_needed(r, pq),
                               dc_al_needed(r, pq) == 1 ? "" : "s", st->available);
    return dc_arena_printf(&r->scratch, "%u device%s available, but no combination satisfies the "
                           "claims' constraints and other requests", st->available,
                           st->available == 1 ? "" : "s");
}

dracel_status dc_al_explain(dc_alloc_run *r)
{
    const dc_policy *p = r->p;
    const dc_table *t = p->t;
    uint32_t nex = r->o.examples ? r->o.examples : 1;
    if (nex > DC_ALLOC_MAX_EXAMPLES)
        nex = DC_ALLOC_MAX_EXAMPLES;
    r->o.examples = nex;
    r->stats = dc_al_sz(r, p->npreqs * sizeof *r->stats);
    if (!r->stats)
        return DRACEL_ENOMEM;
    for (uint32_t pq = 0; pq < p->npreqs; pq++) {
        const dc_preq *q = &p->preqs[pq];
        dc_pstat *st = &r->stats[pq];
        st->rejected = dc_al_sz(r, q->nsels * sizeof *st->rejected);
        st->errored = dc_al_sz(r, q->nsels * sizeof *st->errored);
        st->examples = dc_al_sz(r, q->nsels * sizeof *st->examples);
        st->extext = dc_al_sz(r, q->nsels * sizeof *st->extext);
        st->nexamples = dc_al_sz(r, q->nsels * sizeof *st->nexamples);
        if (!st->rejected || !st->errored || !st->examples || !st->extext || !st->nexamples)
            return DRACEL_ENOMEM;
        for (uint32_t k = 0; k < q->nsels; k++)
            st->sel_error |= p->sels[q->sels[k]].compile_err != NULL;
        for (uint32_t li = 0; li < r->nrows; li++) {
            uint32_t row = r->rows[li];
            dc_pool_state ps = dc_al_pool_state(r, t->pool[row]);
            if (ps != DC_POOL_COMPLETE) {
                st->excl[ps == DC_POOL_INCOMPLETE ? DC_EXCL_INCOMPLETE_POOL
                                                  : DC_EXCL_INVALID_POOL]++;
                continue;
            }
            if (st->sel_error)
                continue;
            if (dc_al_binding_off(r, row)) {
                st->binding++; /* unselectable before any selector runs */
                continue;
            }
            bool pass = true, late = false;
            for (uint32_t k = 0; pass && k < q->nsels; k++) {
                int on = dc_al_sel_on(r, q->sels[k], row);
                if (on == DC_S_TRUE)
                    continue;
                if (on == DC_S_OOM)
                    return DRACEL_ENOMEM;
                pass = false;
                if (on == DC_S_TIMEOUT) {
                    late = true;
                    break;
                }
                if (on == DC_S_ERROR)
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
                !dc_al_row_on_node(t, row, r->node, r->node_id)) {
                st->excl[DC_EXCL_NODE]++;
                continue;
            }
            st->candidates++;
            uint32_t ncons;
            dc_table_consumes(t, row, &ncons);
            if (!q->sub->admin_access && dc_al_taken(r, row))
                st->excl[DC_EXCL_ALLOCATED]++;
            else if ((r->k8s.features & DC_FEAT_DEVICE_TAINTS) && dc_al_tainted(r, q, row))
                st->excl[DC_EXCL_TAINTED]++;
            else if (ncons && !(r->k8s.features & DC_FEAT_PARTITIONABLE))
                st->ungated++;
            else if (ncons && alone_exceeds(r, row))
                st->excl[DC_EXCL_COUNTERS]++;
            else if (dc_al_consumable(r) && dc_al_cap_check(r, pq, li, true) <= 0)
                st->capacity++;
            else
                st->available++;
        }
        /* the examples' text and the reason are made when first asked for (dc_al_example_str,
         * dc_al_reason_str): explaining every node of a fleet prints few of them */
    }
    r->explained = true;
    return DRACEL_OK;
}

/* Example e of selector k of a tier as text, made on first use and kept in the node's scratch
 * (a run belongs to one thread, so its const readers may fill this cache). NULL on ENOMEM. */
const char *dc_al_example_str(const dc_alloc_run *cr, uint32_t pq, uint32_t k, uint32_t e)
{
    dc_alloc_run *r = (dc_alloc_run *)(uintptr_t)cr;
    dc_pstat *st = &r->stats[pq];
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

/* Why a tier fell short, made on first use (as dc_al_example_str). NULL on ENOMEM. */
const char *dc_al_reason_str(const dc_alloc_run *cr, uint32_t pq)
{
    dc_alloc_run *r = (dc_alloc_run *)(uintptr_t)cr;
    dc_pstat *st = &r->stats[pq];
    if (!st->reason)
        st->reason = tier_reason(r, pq);
    return st->reason;
}

int dc_al_tier_status(const dc_alloc_run *r, const dc_preq *q)
{
    if (r->outcome == DC_ALLOC_ERROR)
        return DC_TIER_ABORTED; /* the error (the outcome's message) stopped the attempt */
    if (r->outcome != DC_ALLOC_ALLOCATED)
        return DC_TIER_FAILED;
    uint32_t s = chosen_sub(r, q->ci, q->ri);
    return q->si == s ? DC_TIER_CHOSEN : q->si < s ? DC_TIER_FAILED : DC_TIER_NOT_TRIED;
}

void dc_alloc_tier_expl(const dc_alloc_run *r, uint32_t tier, dc_tier_expl *out)
{
    memset(out, 0, sizeof *out);
    const dc_pstat *st = &r->stats[tier];
    out->status = dc_al_tier_status(r, &r->p->preqs[tier]);
    out->reason = out->status == DC_TIER_FAILED ? dc_al_reason_str(r, tier) : NULL;
    out->needed = dc_al_needed(r, tier);
    out->candidates = st->candidates;
    out->available = st->available;
    out->unevaluated = st->unevaluated;
    out->capacity = st->capacity;
    out->binding = st->binding;
    out->ungated = st->ungated;
    memcpy(out->excluded, st->excl, sizeof out->excluded);
}

void dc_alloc_sel_expl(const dc_alloc_run *r, uint32_t tier, uint32_t k, dc_sel_expl *out)
{
    memset(out, 0, sizeof *out);
    const dc_preq *q = &r->p->preqs[tier];
    const dc_pstat *st = &r->stats[tier];
    out->from_class = k < q->nclass_sels;
    out->index = out->from_class ? k : k - q->nclass_sels;
    out->rejected = st->rejected[k];
    out->errored = st->errored[k];
    out->nexamples = st->nexamples[k];
    for (uint32_t e = 0; e < st->nexamples[k]; e++) {
        out->rows[e] = st->examples[k][e];
        out->examples[e] = dc_al_example_str(r, tier, k, e);
        out->example_errored[e] = dc_al_sel_on((dc_alloc_run *)(uintptr_t)r, q->sels[k],
                                               st->examples[k][e]) == DC_S_ERROR;
    }
}
