/*
 * alloc/print.c: a run's answer as JSON and text (docs/allocation.md): allocations, shares,
 * node selectors, the summary; the explanation as JSON and text.
 *
 * Change with: src/alloc/allocint.h, src/alloc/answer.c, docs/allocation.md.
 */
#include "allocint.h"

#include <stdio.h>
#include <string.h>

static void put_device(dc_buf *b, const dc_table *t, uint32_t row)
{
    const dc_tpool *pl = &t->pools[t->pool[row]];
    dc_buf_puts(b, "\"driver\":");
    dc_al_js(b, dc_al_dstr(t, pl->driver));
    dc_buf_puts(b, ",\"pool\":");
    dc_al_js(b, dc_al_dstr(t, pl->name));
    dc_buf_puts(b, ",\"device\":");
    dc_al_js(b, dc_al_dstr(t, t->device_name[row]));
}

static void dev_id_buf(dc_buf *b, const dc_table *t, uint32_t row)
{
    const dc_tpool *pl = &t->pools[t->pool[row]];
    dc_buf_printf(b, "%s/%s/%s", dc_al_dstr(t, pl->driver), dc_al_dstr(t, pl->name),
                  dc_al_dstr(t, t->device_name[row]));
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
            dc_al_js(b, x->key);
            first = false;
        }
        dc_buf_puts(b, first ? "\"operator\":" : ",\"operator\":");
        dc_al_js(b, x->op && x->op[0] ? x->op : "Equal");
        if (x->value && x->value[0]) {
            dc_buf_puts(b, ",\"value\":");
            dc_al_js(b, x->value);
        }
        if (x->effect && x->effect[0]) {
            dc_buf_puts(b, ",\"effect\":");
            dc_al_js(b, x->effect);
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
        dc_al_js(b, e->from_class ? "FromClass" : "FromClaim");
        if (e->nrequests) {
            dc_buf_puts(b, ",\"requests\":[");
            for (uint32_t j = 0; j < e->nrequests; j++) {
                if (j)
                    dc_buf_putc(b, ',');
                dc_al_js(b, e->requests[j]);
            }
            dc_buf_putc(b, ']');
        }
        dc_buf_puts(b, ",\"opaque\":{\"driver\":");
        dc_al_js(b, e->driver ? e->driver : "");
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
        dc_al_js(b, v[i]->key);
        dc_buf_puts(b, ",\"operator\":");
        dc_al_js(b, v[i]->op);
        if (v[i]->nvalues) {
            dc_buf_puts(b, ",\"values\":[");
            for (uint32_t j = 0; j < v[i]->nvalues; j++) {
                if (j)
                    dc_buf_putc(b, ',');
                dc_al_js(b, v[i]->values[j]);
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
            dc_al_js(b, r->node_name);
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
static void share_uid(const dc_alloc_run *r, uint32_t ci, const dc_result *x, char out[37])
{
    char id[800];
    dc_al_dev_id(r->p->t, r->rows[x->li], id, sizeof id);
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
            dc_al_js(b, dc_dict_str(t->dict, x[i].name)->data);
            sep = ",";
        }
        if (*sep == ',' && sep[1] == '\0')
            dc_buf_putc(b, ']');
    }
}

/* ,"shareID":"...","consumedCapacity":{...} of a share (names sorted, as Go writes a map). */
static void put_share(dc_buf *b, const dc_alloc_run *r, uint32_t ci, const dc_result *x)
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
        dc_al_js(b, last);
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
    const dc_result *x = &r->res[claim][i];
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
    const dc_result *x = &r->res[claim][i];
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
                const dc_result *x = &r->res[c][i];
                const dc_preq *q = &p->preqs[x->pq];
                dc_buf_puts(b, i ? ",{\"request\":" : "{\"request\":");
                dc_al_js(b, q->name);
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
    dc_al_js(b, r->node_name);
    dc_buf_puts(b, ",\"tiers\":");
    dc_al_js(b, r->tiers);
    dc_buf_putc(b, ',');
    put_answer(r, b);
}

/* The fields of the allocate object after its '{', and its '}'. */
static void put_answer(const dc_alloc_run *r, dc_buf *b)
{
    dc_buf_puts(b, "\"outcome\":");
    dc_al_js(b, outcome_name(r->outcome));
    dc_buf_putc(b, ',');
    put_allocations(b, r);
    if (r->outcome == DC_ALLOC_ERROR) {
        dc_buf_puts(b, ",\"error\":");
        dc_al_js(b, r->msg);
        dc_buf_puts(b, r->node_local ? ",\"nodeLocal\":true" : ",\"nodeLocal\":false");
    } else if (r->outcome != DC_ALLOC_ALLOCATED && r->msg[0]) {
        dc_buf_puts(b, ",\"reason\":");
        dc_al_js(b, r->msg);
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
                const dc_result *x = &r->res[c][i];
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

static const char *const TIER_STATUS[] = {"chosen", "failed", "not tried", "aborted"};

static void put_exclusions(dc_buf *b, const dc_pstat *st, const char *open, const char *close)
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
    if (st->ungated) {
        dc_buf_printf(b, "%s%u consuming counters (DRAPartitionableDevices is off)", sep,
                      st->ungated);
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
        const dc_preq *q = &p->preqs[pq];
        const char *why = dc_al_reason_str(r, pq);
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
    dc_al_js(b, r->node_name);
    dc_buf_puts(b, ",\"policyVersion\":");
    dc_al_js(b, r->p->version);
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
        dc_al_js(b, r->note);
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
        dc_al_js(b, dc_al_dstr(t, pl->driver));
        dc_buf_puts(b, ",\"pool\":");
        dc_al_js(b, dc_al_dstr(t, pl->name));
        dc_pool_state ps = dc_al_pool_state(r, r->vpools[v]);
        dc_buf_printf(b, ",\"state\":\"%s\"", ps == DC_POOL_COMPLETE     ? "complete"
                                               : ps == DC_POOL_INCOMPLETE ? "incomplete"
                                                                          : "invalid");
        if (pl->stale) /* an older generation: the newest is not on this node */
            dc_buf_printf(b, ",\"generation\":%lld,\"newestGeneration\":%lld",
                          (long long)pl->generation, (long long)t->pools[pl->live].generation);
        dc_buf_puts(b, "}");
    }
    dc_buf_puts(b, "],\"claims\":[");
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const dc_pclaim *pc = &p->claims[c];
        dc_buf_puts(b, c ? ",{\"claim\":" : "{\"claim\":");
        dc_al_js(b, pc->kobj);
        dc_buf_puts(b, ",\"requests\":[");
        for (uint32_t ri = 0; ri < pc->in->nreqs; ri++) {
            const dc_request_in *rq = &pc->in->reqs[ri];
            dc_buf_puts(b, ri ? ",{\"request\":" : "{\"request\":");
            dc_al_js(b, rq->name);
            dc_buf_puts(b, ",\"tiers\":[");
            for (uint32_t s = 0; s < rq->nsubs; s++) {
                uint32_t pq = pc->req_first[ri] + s;
                const dc_preq *q = &p->preqs[pq];
                const dc_pstat *st = &r->stats[pq];
                dc_buf_puts(b, s ? ",{\"tier\":" : "{\"tier\":");
                dc_al_js(b, q->name);
                dc_buf_printf(b, ",\"rank\":%u,\"class\":", s);
                dc_al_js(b, q->sub->class_name ? q->sub->class_name : "");
                dc_buf_puts(b, ",\"status\":");
                int status = dc_al_tier_status(r, q);
                dc_al_js(b, TIER_STATUS[status]);
                if (status == DC_TIER_FAILED) {
                    const char *why = dc_al_reason_str(r, pq);
                    dc_buf_puts(b, ",\"reason\":");
                    if (why)
                        dc_al_js(b, why);
                    else
                        b->oom = true;
                }
                dc_buf_printf(b, ",\"needed\":%u,\"candidates\":%u,\"available\":%u",
                              dc_al_needed(r, pq), st->candidates, st->available);
                dc_buf_puts(b, ",\"selectors\":[");
                for (uint32_t k = 0; k < q->nsels; k++) {
                    const dc_gsel *g = &p->sels[q->sels[k]];
                    bool cls = k < q->nclass_sels;
                    dc_buf_printf(b, "%s{\"source\":\"%s\",\"index\":%u,\"expression\":",
                                  k ? "," : "", cls ? "class" : "request",
                                  cls ? k : k - q->nclass_sels);
                    /* the policy's copies of expressions are NUL-terminated */
                    dc_json_quote(b, g->expr, g->len);
                    if (g->compile_err) {
                        dc_buf_puts(b, ",\"compileError\":");
                        dc_al_js(b, g->compile_err);
                    }
                    dc_buf_printf(b, ",\"rejected\":%u,\"errored\":%u,\"examples\":[",
                                  st->rejected[k], st->errored[k]);
                    for (uint32_t e = 0; e < st->nexamples[k]; e++) {
                        const char *x = dc_al_example_str(r, pq, k, e);
                        if (e)
                            dc_buf_putc(b, ',');
                        if (x)
                            dc_al_js(b, x);
                        else
                            b->oom = true;
                    }
                    dc_buf_puts(b, "]}");
                }
                dc_buf_printf(b, "],\"excluded\":{\"incompletePool\":%u,\"invalidPool\":%u,"
                              "\"node\":%u,\"allocated\":%u,\"tainted\":%u,\"counters\":%u,"
                              "\"capacity\":%u,\"bindingConditions\":%u,\"partitionableOff\":%u}",
                              st->excl[DC_EXCL_INCOMPLETE_POOL], st->excl[DC_EXCL_INVALID_POOL],
                              st->excl[DC_EXCL_NODE], st->excl[DC_EXCL_ALLOCATED],
                              st->excl[DC_EXCL_TAINTED], st->excl[DC_EXCL_COUNTERS],
                              st->capacity, st->binding, st->ungated);
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
        dc_pool_state ps = dc_al_pool_state(r, r->vpools[v]);
        if (pl->stale)
            dc_buf_printf(b, "  pool %s/%s: generation %lld, the newest this node sees (the "
                             "pool's newest, %lld, is not on it)\n",
                          dc_al_dstr(t, pl->driver), dc_al_dstr(t, pl->name),
                          (long long)pl->generation, (long long)t->pools[pl->live].generation);
        if (ps != DC_POOL_COMPLETE)
            dc_buf_printf(b, "  pool %s/%s is %s: its devices are not used%s\n",
                          dc_al_dstr(t, pl->driver), dc_al_dstr(t, pl->name),
                          ps == DC_POOL_INCOMPLETE ? "incomplete" : "invalid",
                          ps == DC_POOL_INVALID && pl->mixed && r->k8s.release > 34
                              ? " (a slice holds devices and sharedCounters: Kubernetes 1.34's "
                                "shape, which the API server refuses from 1.35 on)"
                              : "");
    }
    for (uint32_t c = 0; c < p->nclaims; c++) {
        const dc_pclaim *pc = &p->claims[c];
        dc_buf_printf(b, "  claim %s\n", pc->kobj);
        for (uint32_t ri = 0; ri < pc->in->nreqs; ri++) {
            const dc_request_in *rq = &pc->in->reqs[ri];
            dc_buf_printf(b, "    request %s\n", rq->name);
            for (uint32_t s = 0; s < rq->nsubs; s++) {
                uint32_t pq = pc->req_first[ri] + s;
                const dc_preq *q = &p->preqs[pq];
                const dc_pstat *st = &r->stats[pq];
                int status = dc_al_tier_status(r, q);
                dc_buf_printf(b, "      tier %u %s (class %s): %s", s, q->name,
                              q->sub->class_name ? q->sub->class_name : "-", TIER_STATUS[status]);
                if (status == DC_TIER_FAILED) {
                    const char *why = dc_al_reason_str(r, pq);
                    if (!why)
                        b->oom = true;
                    dc_buf_printf(b, ": %s", why ? why : "");
                }
                else if (status == DC_TIER_CHOSEN)
                    put_chosen(b, r, c, pq, false);
                dc_buf_printf(b, "\n        %u candidates, %u available, %u needed\n",
                              st->candidates, st->available, dc_al_needed(r, pq));
                for (uint32_t k = 0; k < q->nsels; k++) {
                    const dc_gsel *g = &p->sels[q->sels[k]];
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
                        const char *x = dc_al_example_str(r, pq, k, e);
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
