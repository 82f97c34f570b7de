/*
 * alloc/policy.c: a policy (src/alloc.h): the claims of one pod and the classes they name,
 * copied and bound to a table; its distinct selectors compiled and, unless lazy, evaluated over
 * the whole table; its requests and subrequests in the search's order (dc_preq); the policy's
 * accessors.
 *
 * Change with: src/alloc/allocint.h, src/alloc/run.c (lazy selectors), src/alloc/search.c.
 */
#include "allocint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        dc_gsel *ns = dc_arena_zalloc(&p->arena, nc * sizeof *ns);
        if (!ns) {
            *oom = true;
            return 0;
        }
        if (p->nsels)
            memcpy(ns, p->sels, p->nsels * sizeof *ns);
        p->sels = ns;
        *cap = nc;
    }
    dc_gsel *g = &p->sels[p->nsels];
    memset(g, 0, sizeof *g);
    g->expr = e;
    g->len = len;
    g->empty = !s->expr;
    if (!s->expr)
        g->compile_err = "CEL expression empty (unsupported selector type?)";
    return p->nsels++;
}

/* Compile, bind and evaluate one selector over the whole table. */
static dracel_status eval_sel(dc_policy *p, dracel_env *env, dc_gsel *g)
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
    DC_TRY(dc_api_select_all(g->bound, env, NULL, g->sel));
    g->matched = dracel_selection_matched(g->sel);
    g->errored = dracel_selection_errored(g->sel);
    return DRACEL_OK;
}

/* The first of pools [lo, hi) (sorted by driver, then pool name, byte order) not before id's. */
static uint32_t first_pool(const dc_table *t, uint32_t lo, uint32_t hi, const dc_device_id *id)
{
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
    return lo;
}

/* The dictionary ids of a device ID's parts: false when the table has none of one. */
static bool id_parts(const dc_table *t, const dc_device_id *id, uint32_t *d, uint32_t *pn,
                     uint32_t *dn)
{
    uint32_t lim = t->dict_limit;
    *d = dc_dict_find(t->dict, id->driver, strlen(id->driver), lim);
    *pn = dc_dict_find(t->dict, id->pool, strlen(id->pool), lim);
    *dn = dc_dict_find(t->dict, id->device, strlen(id->device), lim);
    return *d != DC_DICT_NONE && *pn != DC_DICT_NONE && *dn != DC_DICT_NONE;
}

uint32_t dc_al_device_row(const dc_table *t, const dc_device_id *id)
{
    uint32_t d, pn, dn;
    if (!id_parts(t, id, &d, &pn, &dn))
        return UINT32_MAX;
    uint32_t lo = first_pool(t, 0, t->nlive_pools, id);
    if (lo == t->nlive_pools || t->pools[lo].driver != d || t->pools[lo].name != pn)
        return UINT32_MAX;
    const dc_tpool *pl = &t->pools[lo];
    for (uint32_t r = pl->first_row; r < pl->first_row + pl->rows; r++)
        if (t->device_name[r] == dn)
            return r;
    return UINT32_MAX;
}

uint32_t dc_al_device_older(const dc_table *t, const dc_device_id *id, uint32_t *at)
{
    uint32_t d, pn, dn;
    if (t->nlive_pools == t->npools || !id_parts(t, id, &d, &pn, &dn))
        return UINT32_MAX;
    uint32_t p = *at ? *at : first_pool(t, t->nlive_pools, t->npools, id);
    for (; p < t->npools && t->pools[p].driver == d && t->pools[p].name == pn; p++) {
        const dc_tpool *pl = &t->pools[p];
        for (uint32_t r = pl->first_row; r < pl->first_row + pl->rows; r++)
            if (t->device_name[r] == dn) {
                *at = p + 1;
                return r;
            }
    }
    *at = t->npools;
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
        dc_pclaim *pc = &p->claims[c];
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
                dc_preq *q = &p->preqs[p->npreqs];
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
            snprintf(err, errcap, "%s",
                     st == DRACEL_ENOMEM ? "out of memory" : "cannot build the policy");
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
    const dc_preq *q = &p->preqs[i];
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
    const dc_gsel *g = &p->sels[p->preqs[tier].sels[k]];
    *len = g->len;
    *compile_error = g->compile_err;
    return g->expr;
}
