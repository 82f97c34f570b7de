/*
 * table_build.c: ResourceSlices (src/slices.h) -> an immutable device table (vm/table.h), and
 * the builder that fills one pool's rows (also used by src/table_patch.c).
 *
 * Kubernetes' rules (reference/k8s-dra.md section 3.2): slices are grouped into pools by
 * (driver, pool name); the newest generation of a pool is its live pool, each older one a stale
 * pool after all the live ones (vm/table.h: a node that sees no newer slice may allocate from
 * it); a pool with fewer slices of
 * that generation than resourceSliceCount is incomplete; a pool publishing a device name twice
 * is invalid. Both are kept in the table and flagged, never silently used as healthy. Rows are
 * in the allocator's order: pools by driver then pool name, slices by name, devices in published
 * order.
 *
 * Two passes over the devices: the first finds the columns (qualified names) and the kind most
 * of their values have; the second fills them, pool after pool. A bare attribute or capacity
 * name hidden by the same name qualified with the driver's domain (dc_device_attr_hidden) gives
 * no value: the qualified one does, whichever comes first (src/json_val.c builds `--device` the
 * same way).
 *
 * Everything a row points to is made in the dictionary's store and memoised there (parsed
 * versions and quantities by their text, faults by their message, node selectors by their
 * content): a table's own arena holds only ids, indexes and pointers, which is what lets a patch
 * copy unchanged rows with memcpy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slices.h"
#include "tablebuild.h"

/* Memo keys: a tag in the top byte, then a dictionary id (exact) or a content hash (checked
 * against the object's content). */
#define MEMO_QTY 1u
#define MEMO_SEMVER 2u
#define MEMO_FAULT 3u
#define MEMO_SELECTOR 4u
#define MEMO_POLICY 5u
#define MEMO_LIST 6u
#define MEMO_KEY(tag, x) (((uint64_t)(tag) << 56) | ((uint64_t)(x) & 0x00FFFFFFFFFFFFFFULL))

/* ---- Hashing (pool versions, memo keys): 64-bit, strings by content, never by id. */

typedef struct vhash {
    uint64_t h;
} vhash;

static uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static void vh_u64(vhash *v, uint64_t x)
{
    v->h ^= rotl(x * 0xC2B2AE3D27D4EB4FULL, 31) * 0x9E3779B97F4A7C15ULL;
    v->h = rotl(v->h, 27) * 0x9E3779B97F4A7C15ULL + 0x85EBCA77C2B2AE63ULL;
}

static void vh_bytes(vhash *v, const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        vh_u64(v, w);
    }
    uint64_t w = 0;
    for (size_t k = 0; i + k < n; k++)
        w |= (uint64_t)s[i + k] << (8 * k);
    vh_u64(v, w ^ ((uint64_t)n << 56)); /* the length ends the string */
}

static void vh_str(vhash *v, const char *s)
{
    if (!s)
        vh_u64(v, 0x6E756C6CULL); /* distinct from every string: those end with a length */
    else
        vh_bytes(v, s, strlen(s));
}

static uint64_t vh_final(const vhash *v)
{
    uint64_t h = v->h;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static void vh_selector(vhash *v, const dc_node_selector_in *s)
{
    vh_u64(v, s->n);
    for (uint32_t i = 0; i < s->n; i++) {
        vh_u64(v, s->terms[i].n);
        for (uint32_t k = 0; k < s->terms[i].n; k++) {
            const dc_node_req_in *r = &s->terms[i].reqs[k];
            vh_str(v, r->key);
            vh_str(v, r->op);
            vh_u64(v, ((uint64_t)r->field << 32) | r->nvalues);
            for (uint32_t x = 0; x < r->nvalues; x++)
                vh_str(v, r->values[x]);
        }
    }
}

static void vh_scope(vhash *v, const dc_node_scope_in *s)
{
    vh_u64(v, (uint64_t)s->all_nodes | (uint64_t)s->per_device << 1 | (uint64_t)!!s->selector << 2);
    vh_str(v, s->node_name);
    if (s->selector)
        vh_selector(v, s->selector);
}

static void vh_counters(vhash *v, const dc_counter_set_in *sets, uint32_t n)
{
    vh_u64(v, n);
    for (uint32_t i = 0; i < n; i++) {
        vh_str(v, sets[i].name);
        vh_u64(v, sets[i].n);
        for (uint32_t k = 0; k < sets[i].n; k++) {
            vh_str(v, sets[i].counters[k].name);
            vh_str(v, sets[i].counters[k].value);
        }
    }
}

/* The values of a list attribute. */
static void vh_list(vhash *v, const dc_attr_in *a)
{
    vh_u64(v, a->n);
    for (uint32_t i = 0; i < a->n; i++)
        switch (a->kind) {
        case DC_ATTR_INTS: vh_u64(v, (uint64_t)a->is[i]); break;
        case DC_ATTR_BOOLS: vh_u64(v, a->bs[i]); break;
        default:
            vh_u64(v, a->slens[i]);
            vh_bytes(v, a->ss[i], a->slens[i]);
            break;
        }
}

/* Everything of a device an allocation can read, in published order. */
static void vh_device(vhash *v, const dc_device_in *d)
{
    vh_str(v, d->name);
    vh_u64(v, ((uint64_t)d->allow_multiple << 63) | ((uint64_t)d->nattrs << 32) | d->ncaps);
    for (uint32_t k = 0; k < d->nattrs; k++) {
        const dc_attr_in *a = &d->attrs[k];
        vh_str(v, a->name);
        vh_u64(v, a->kind);
        switch (a->kind) {
        case DC_ATTR_INT: vh_u64(v, (uint64_t)a->i); break;
        case DC_ATTR_BOOL: vh_u64(v, a->b); break;
        case DC_ATTR_STRING: case DC_ATTR_VERSION: vh_bytes(v, a->s, a->slen); break;
        default: vh_list(v, a); break;
        }
    }
    for (uint32_t k = 0; k < d->ncaps; k++) {
        vh_str(v, d->caps[k].name);
        vh_str(v, d->caps[k].value);
        const dc_cap_policy_in *p = d->caps[k].policy;
        if (p) {
            vh_str(v, p->def);
            vh_str(v, p->min);
            vh_str(v, p->max);
            vh_str(v, p->step);
            vh_u64(v, p->nvalid);
            for (uint32_t i = 0; i < p->nvalid; i++)
                vh_str(v, p->valid[i]);
        }
    }
    vh_u64(v, d->ntaints);
    for (uint32_t k = 0; k < d->ntaints; k++) {
        vh_str(v, d->taints[k].key);
        vh_str(v, d->taints[k].value);
        vh_str(v, d->taints[k].effect);
    }
    vh_counters(v, d->consumes, d->nconsumes);
    vh_scope(v, &d->node);
    if (d->nbinding || d->nbinding_failure || d->binds_to_node) { /* (none: as before) */
        vh_u64(v, ((uint64_t)d->binds_to_node << 63) | ((uint64_t)d->nbinding << 32) |
                      d->nbinding_failure);
        for (uint32_t k = 0; k < d->nbinding; k++)
            vh_str(v, d->binding[k]);
        for (uint32_t k = 0; k < d->nbinding_failure; k++)
            vh_str(v, d->binding_failure[k]);
    }
}

/* ---- The builder. */

void dc_tb_init(dc_tb *b, dc_table *t, dc_arena *ta, dc_dict *dict, const dracel_alloc *a)
{
    memset(b, 0, sizeof *b);
    b->alloc = a;
    b->t = t;
    b->ta = ta;
    b->dict = dict;
}

void dc_tb_free(dc_tb *b)
{
    for (uint32_t c = 0; c < b->ncols; c++) {
        dc_free(b->alloc, b->cols[c].dkeys, b->cols[c].dcap * sizeof(uint32_t));
        dc_free(b->alloc, b->cols[c].dvals, b->cols[c].dcap * sizeof(uint32_t));
    }
    dc_free(b->alloc, b->cols, b->capcols * sizeof *b->cols);
    dc_free(b->alloc, b->keys, b->keycap * sizeof *b->keys);
    dc_free(b->alloc, b->scratch, b->capscratch * sizeof *b->scratch);
    b->cols = NULL;
    b->keys = NULL;
    b->scratch = NULL;
    b->ncols = b->capcols = b->keycap = b->capscratch = 0;
}

uint32_t dc_tb_intern(dc_tb *b, const char *s, size_t n)
{
    uint32_t id = dc_dict_intern(b->dict, s, n);
    if (id == DC_DICT_NONE)
        b->oom = true;
    return id;
}

/* Room for one more element in a vector kept in the table's arena: v itself, or a copy twice
 * as large (the old copy stays in the arena until the snapshot is freed: doubling keeps that
 * waste below the final size). NULL when memory runs out; *cap changes only on success. */
void *dc_tb_room(dc_arena *a, void *v, uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return v;
    uint32_t c = *cap ? *cap * 2 : 8;
    while (c <= n)
        c *= 2;
    void *nv = dc_arena_alloc(a, (size_t)c * size);
    if (!nv)
        return NULL;
    if (n)
        memcpy(nv, v, (size_t)n * size);
    *cap = c;
    return nv;
}

static uint64_t mix3(uint32_t a, uint32_t b, bool c)
{
    uint64_t h = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ULL;
    return (h ^ (h >> 31)) + c;
}

static bool grow_keys(dc_tb *b)
{
    uint32_t cap = b->keycap ? b->keycap * 2 : 256;
    dc_tb_key *k = dc_malloc(b->alloc, cap * sizeof *k);
    if (!k)
        return false;
    memset(k, 0, cap * sizeof *k);
    for (uint32_t i = 0; i < b->keycap; i++) {
        if (!b->keys[i].col)
            continue;
        uint32_t j = (uint32_t)mix3(b->keys[i].domain, b->keys[i].id, b->keys[i].capacity) & (cap - 1);
        while (k[j].col)
            j = (j + 1) & (cap - 1);
        k[j] = b->keys[i];
    }
    dc_free(b->alloc, b->keys, b->keycap * sizeof *b->keys);
    b->keys = k;
    b->keycap = cap;
    return true;
}

uint32_t dc_tb_column(dc_tb *b, uint32_t d, uint32_t i, bool capacity, bool create)
{
    if (!b->keycap || (b->ncols + 1) * 2 > b->keycap) {
        if (!grow_keys(b)) {
            b->oom = true;
            return UINT32_MAX;
        }
    }
    uint32_t mask = b->keycap - 1;
    uint32_t j = (uint32_t)mix3(d, i, capacity) & mask;
    for (; b->keys[j].col; j = (j + 1) & mask)
        if (b->keys[j].domain == d && b->keys[j].id == i && b->keys[j].capacity == capacity)
            return b->keys[j].col - 1;
    if (!create)
        return UINT32_MAX;
    if (b->ncols == b->capcols) {
        uint32_t cap = b->capcols ? b->capcols * 2 : 32;
        dc_tb_col *c = dc_realloc(b->alloc, b->cols, b->capcols * sizeof *c, cap * sizeof *c);
        if (!c) {
            b->oom = true;
            return UINT32_MAX;
        }
        b->cols = c;
        b->capcols = cap;
    }
    dc_tb_col *c = &b->cols[b->ncols];
    memset(c, 0, sizeof *c);
    c->domain = d;
    c->id = i;
    c->capacity = capacity;
    c->col = UINT32_MAX;
    b->keys[j] = (dc_tb_key){d, i, capacity, b->ncols + 1};
    return b->ncols++;
}

static void split(const char *name, const char *driver, const char **dom, size_t *dn,
                  const char **id)
{
    const char *slash = strchr(name, '/');
    if (slash) {
        *dom = name;
        *dn = (size_t)(slash - name);
        *id = slash + 1;
    } else {
        *dom = driver;
        *dn = strlen(driver);
        *id = name;
    }
}

/* The column of a qualified name as written ("model", "dom/id"). */
static uint32_t column_of(dc_tb *b, const char *name, const char *driver, bool capacity,
                          bool create)
{
    const char *dom, *id;
    size_t dn;
    split(name, driver, &dom, &dn, &id);
    uint32_t d = dc_tb_intern(b, dom, dn), i = dc_tb_intern(b, id, strlen(id));
    if (b->oom)
        return UINT32_MAX;
    return dc_tb_column(b, d, i, capacity, create);
}

/* The kind a value counts for in pass 1 (DC_TB_KIND_LIST for lists). */
static int attr_kind(dc_attr_kind k)
{
    switch (k) {
    case DC_ATTR_INTS: case DC_ATTR_BOOLS: case DC_ATTR_STRINGS: case DC_ATTR_VERSIONS:
        return DC_TB_KIND_LIST;
    case DC_ATTR_INT: return DC_COL_INT;
    case DC_ATTR_BOOL: return DC_COL_BOOL;
    case DC_ATTR_STRING: return DC_COL_STRING;
    default: return DC_COL_VERSION;
    }
}

/* ---- Shared objects (the dictionary's store, memoised). */

/* The quantity of a text (the loader validated capacities and counters: only memory fails). */
static const dc_qtyobj *qty_of(dc_tb *b, uint32_t tid)
{
    uint64_t key = MEMO_KEY(MEMO_QTY, tid);
    const dc_qtyobj *m = dc_dict_memo_get(b->dict, key);
    if (m)
        return m;
    dc_qtyobj *o = dc_arena_alloc(&b->dict->objs, sizeof *o);
    if (!o) {
        b->oom = true;
        return NULL;
    }
    const dc_str *ts = dc_dict_str(b->dict, tid);
    if (dc_qty_parse(ts->data, ts->len, &o->q)) {
        b->oom = true; /* cannot happen: validated */
        return NULL;
    }
    o->text = ts;
    if (!dc_dict_memo_put(b->dict, key, o)) {
        b->oom = true;
        return NULL;
    }
    return o;
}

/* The version of a text, or NULL with the parse error in b->msg (*bad) or on ENOMEM. */
static const dc_semverobj *semver_of(dc_tb *b, uint32_t tid, bool *bad)
{
    *bad = false;
    uint64_t key = MEMO_KEY(MEMO_SEMVER, tid);
    const dc_semverobj *m = dc_dict_memo_get(b->dict, key);
    if (m)
        return m;
    const dc_str *ts = dc_dict_str(b->dict, tid);
    dc_semver v;
    dc_semver_error se;
    if (dc_semver_parse_ex(ts->data, ts->len, false, &v, &se)) {
        dc_semver_error_format(&se, b->msg, sizeof b->msg);
        *bad = true;
        return NULL;
    }
    dc_semverobj *o = dc_arena_alloc(&b->dict->objs, sizeof *o);
    if (!o || !dc_dict_memo_put(b->dict, key, o)) {
        b->oom = true;
        return NULL;
    }
    o->v = v; /* pre and build point into the dictionary's text */
    o->text = ts;
    return o;
}

/* Equal node selectors (for the memo). */
static bool same_selector(const dc_node_selector_in *x, const dc_node_selector_in *y)
{
    if (x->n != y->n)
        return false;
    for (uint32_t i = 0; i < x->n; i++) {
        if (x->terms[i].n != y->terms[i].n)
            return false;
        for (uint32_t k = 0; k < x->terms[i].n; k++) {
            const dc_node_req_in *a = &x->terms[i].reqs[k], *c = &y->terms[i].reqs[k];
            if (strcmp(a->key, c->key) || strcmp(a->op, c->op) || a->field != c->field ||
                a->nvalues != c->nvalues)
                return false;
            for (uint32_t v = 0; v < a->nvalues; v++)
                if (strcmp(a->values[v], c->values[v]))
                    return false;
        }
    }
    return true;
}

static char *store_strdup(dc_tb *b, const char *s)
{
    char *p = dc_arena_strndup(&b->dict->objs, s, strlen(s));
    if (!p)
        b->oom = true;
    return p;
}

static void *store_zalloc(dc_tb *b, size_t n)
{
    void *p = dc_arena_zalloc(&b->dict->objs, n ? n : 1);
    if (!p)
        b->oom = true;
    return p;
}

/* A copy of a node selector in the store (one per distinct content). */
static const dc_node_selector_in *selector_of(dc_tb *b, const dc_node_selector_in *s)
{
    vhash v = {0};
    vh_selector(&v, s);
    uint64_t key = MEMO_KEY(MEMO_SELECTOR, vh_final(&v));
    const dc_node_selector_in *m = dc_dict_memo_get(b->dict, key);
    if (m && same_selector(m, s))
        return m;
    dc_node_selector_in *d = store_zalloc(b, sizeof *d);
    if (!d)
        return NULL;
    d->n = s->n;
    d->terms = store_zalloc(b, s->n * sizeof *d->terms);
    if (!d->terms)
        return NULL;
    for (uint32_t i = 0; i < s->n; i++) {
        const dc_node_term_in *st = &s->terms[i];
        dc_node_term_in *dt = &d->terms[i];
        dt->n = st->n;
        dt->reqs = store_zalloc(b, st->n * sizeof *dt->reqs);
        if (!dt->reqs)
            return NULL;
        for (uint32_t k = 0; k < st->n; k++) {
            const dc_node_req_in *sr = &st->reqs[k];
            dc_node_req_in *dr = &dt->reqs[k];
            dr->key = store_strdup(b, sr->key);
            dr->op = store_strdup(b, sr->op);
            dr->field = sr->field;
            dr->nvalues = sr->nvalues;
            dr->values = store_zalloc(b, sr->nvalues * sizeof *dr->values);
            if (!dr->key || !dr->op || !dr->values)
                return NULL;
            for (uint32_t x = 0; x < sr->nvalues; x++)
                if (!(dr->values[x] = store_strdup(b, sr->values[x])))
                    return NULL;
        }
    }
    if (!m && !dc_dict_memo_put(b->dict, key, d)) { /* a colliding hash keeps the first */
        b->oom = true;
        return NULL;
    }
    return d;
}

/* The fault of a device with a bad version attribute (one per distinct message). */
static const dc_err *fault_of(dc_tb *b, const char *name, const char *why)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "attribute %s: parse semantic version: %s", name, why);
    char *msg = buf;
    if (n < 0)
        return NULL;
    dc_arena tmp;
    dc_arena_init(&tmp, b->alloc);
    if ((size_t)n >= sizeof buf && !(msg = dc_arena_printf(&tmp, "attribute %s: parse semantic "
                                                                 "version: %s", name, why))) {
        b->oom = true;
        return NULL;
    }
    vhash v = {0};
    vh_str(&v, msg);
    uint64_t key = MEMO_KEY(MEMO_FAULT, vh_final(&v));
    const dc_err *m = dc_dict_memo_get(b->dict, key);
    dc_err *e = NULL;
    if (m && strcmp(m->msg, msg) == 0) {
        e = (dc_err *)m;
    } else if ((e = store_zalloc(b, sizeof *e)) && (e->msg = store_strdup(b, msg))) {
        e->flags = DC_ERRF_DEVICE;
        if (!m && !dc_dict_memo_put(b->dict, key, e))
            b->oom = true;
    }
    dc_arena_free(&tmp);
    return b->oom ? NULL : e;
}

/* Whether list l (in the store) holds the values of list attribute a. */
static bool same_list(const dc_tb *b, const dc_list *l, const dc_attr_in *a)
{
    (void)b;
    if (l->n != a->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++) {
        const dc_val *x = &l->v[i];
        switch (a->kind) {
        case DC_ATTR_INTS:
            if (x->k != DC_K_INT || x->u.i != a->is[i])
                return false;
            break;
        case DC_ATTR_BOOLS:
            if (x->k != DC_K_BOOL || x->u.b != a->bs[i])
                return false;
            break;
        case DC_ATTR_STRINGS:
            if (x->k != DC_K_STRING || x->u.s->len != a->slens[i] ||
                memcmp(x->u.s->data, a->ss[i], a->slens[i]))
                return false;
            break;
        default:
            if (x->k != DC_K_SEMVER || x->u.sv->text->len != a->slens[i] ||
                memcmp(x->u.sv->text->data, a->ss[i], a->slens[i]))
                return false;
            break;
        }
    }
    return true;
}

/* The CEL value of list attribute @p a: a list in the store (one per distinct content), whose
 * strings and versions are the dictionary's. A version that is not semver: false with the
 * parse error in b->msg (the device gets a fault, as for a scalar version); false on ENOMEM
 * (b->oom). @p maxlen: raised to the longest string or version. */
static bool list_of(dc_tb *b, const dc_attr_in *a, uint32_t *maxlen, dc_val *out)
{
    vhash v = {0};
    vh_u64(&v, a->kind);
    vh_list(&v, a);
    uint64_t key = MEMO_KEY(MEMO_LIST, vh_final(&v));
    const dc_list *m = dc_dict_memo_get(b->dict, key);
    if (a->kind == DC_ATTR_STRINGS || a->kind == DC_ATTR_VERSIONS)
        for (uint32_t i = 0; i < a->n; i++)
            if (a->slens[i] > *maxlen)
                *maxlen = a->slens[i];
    if (m && same_list(b, m, a)) {
        out->k = DC_K_LIST;
        out->u.l = m;
        return true;
    }
    dc_list *l = store_zalloc(b, sizeof *l + (size_t)a->n * sizeof(dc_val));
    if (!l)
        return false;
    l->n = a->n;
    for (uint32_t i = 0; i < a->n; i++) {
        switch (a->kind) {
        case DC_ATTR_INTS: l->v[i] = dc_int(a->is[i]); break;
        case DC_ATTR_BOOLS: l->v[i] = dc_bool(a->bs[i]); break;
        case DC_ATTR_STRINGS: {
            uint32_t sid = dc_tb_intern(b, a->ss[i], a->slens[i]);
            if (b->oom)
                return false;
            l->v[i] = dc_strval(dc_dict_str(b->dict, sid));
            break;
        }
        default: {
            uint32_t tid = dc_tb_intern(b, a->ss[i], a->slens[i]);
            bool bad;
            const dc_semverobj *o = b->oom ? NULL : semver_of(b, tid, &bad);
            if (!o)
                return false; /* b->msg holds the parse error unless b->oom */
            l->v[i].k = DC_K_SEMVER;
            l->v[i].u.sv = o;
            break;
        }
        }
    }
    if (!m && !dc_dict_memo_put(b->dict, key, l)) { /* a colliding hash keeps the first */
        b->oom = true;
        return false;
    }
    out->k = DC_K_LIST;
    out->u.l = l;
    return true;
}

/* A version of list attribute a that is not semver: its parse error in b->msg. */
static bool bad_version_in(dc_tb *b, const dc_attr_in *a)
{
    for (uint32_t i = 0; i < a->n; i++) {
        dc_semver sv;
        dc_semver_error se;
        if (dc_semver_parse_ex(a->ss[i], a->slens[i], false, &sv, &se)) {
            dc_semver_error_format(&se, b->msg, sizeof b->msg);
            return true;
        }
    }
    return false;
}

/* ---- Pass 1. */

int dc_tb_cmp_slice(const void *a, const void *b)
{
    const dc_slice_in *x = *(const dc_slice_in *const *)a, *y = *(const dc_slice_in *const *)b;
    int r = strcmp(x->driver, y->driver);
    if (!r)
        r = strcmp(x->pool, y->pool);
    if (!r)
        r = strcmp(x->name, y->name);
    /* Slices of one name (unnamed ones in a scenario): an order that does not depend on the
     * input's, as far as their contents differ. */
    if (!r)
        r = x->generation < y->generation ? -1 : x->generation > y->generation;
    if (!r)
        r = x->ndevices < y->ndevices ? -1 : x->ndevices > y->ndevices;
    if (!r && x->ndevices)
        r = strcmp(x->devices[0].name, y->devices[0].name);
    if (!r)
        r = strcmp(x->node.node_name ? x->node.node_name : "", y->node.node_name ? y->node.node_name : "");
    /* Then where they were read: a total order for a fleet's slices (an unnamed one is keyed by
     * its file and line), the same whether a pool is built with all slices or alone, and a
     * table load's input order (its files are read sorted by name). */
    if (!r)
        r = strcmp(x->file ? x->file : "", y->file ? y->file : "");
    if (!r)
        r = x->line < y->line ? -1 : x->line > y->line;
    return r;
}

/* The end of the run of one pool's slices that starts at i in sorted order[0..n), and the
 * run's newest generation in *gen. */
static uint32_t pool_run(const dc_slice_in *const *order, uint32_t n, uint32_t i, int64_t *gen)
{
    uint32_t j = i + 1;
    *gen = order[i]->generation;
    for (; j < n && !strcmp(order[j]->driver, order[i]->driver) &&
           !strcmp(order[j]->pool, order[i]->pool);
         j++)
        if (order[j]->generation > *gen)
            *gen = order[j]->generation;
    return j;
}

/* Older slices: by driver, pool, generation (newest first), then in slice order. */
static int cmp_older(const void *a, const void *b)
{
    const dc_slice_in *x = *(const dc_slice_in *const *)a, *y = *(const dc_slice_in *const *)b;
    int r = strcmp(x->driver, y->driver);
    if (!r)
        r = strcmp(x->pool, y->pool);
    if (!r)
        r = x->generation > y->generation ? -1 : x->generation < y->generation;
    return r ? r : dc_tb_cmp_slice(a, b);
}

void dc_tb_scan_pool(const dc_slice_in *const *sl, uint32_t n, bool *keep, dc_tpool *pool)
{
    int64_t gen = n ? sl[0]->generation : 0;
    for (uint32_t k = 1; k < n; k++)
        if (sl[k]->generation > gen)
            gen = sl[k]->generation;
    memset(pool, 0, sizeof *pool);
    pool->generation = gen;
    pool->node = DC_DICT_NONE;
    for (uint32_t k = 0; k < n; k++) {
        keep[k] = sl[k]->generation == gen;
        if (keep[k]) {
            pool->slices++;
            pool->slice_count = sl[k]->slice_count;
            pool->rows += sl[k]->ndevices;
        }
    }
    pool->state = pool->slices < pool->slice_count ? DC_POOL_INCOMPLETE : DC_POOL_COMPLETE;
}

void dc_tb_columns(dc_tb *b, const dc_slice_in *const *sl, const bool *keep, uint32_t n)
{
    for (uint32_t i = 0; i < n && !b->oom; i++) {
        if (!keep[i])
            continue;
        const dc_slice_in *s = sl[i];
        for (uint32_t d = 0; d < s->ndevices && !b->oom; d++) {
            const dc_device_in *dev = &s->devices[d];
            for (uint32_t k = 0; k < dev->nattrs; k++) {
                if (dc_device_attr_hidden(dev, k, s->driver))
                    continue;
                uint32_t c = column_of(b, dev->attrs[k].name, s->driver, false, true);
                if (c != UINT32_MAX)
                    b->cols[c].kinds[attr_kind(dev->attrs[k].kind)]++;
            }
            for (uint32_t k = 0; k < dev->ncaps; k++) {
                if (dc_device_cap_hidden(dev, k, s->driver))
                    continue;
                uint32_t c = column_of(b, dev->caps[k].name, s->driver, true, true);
                if (c != UINT32_MAX)
                    b->cols[c].kinds[DC_COL_QUANTITY]++;
            }
        }
    }
}

/* ---- Pass 2. */

/* The distinct index of a VERSION or QUANTITY value (text id tid, parsed object v). */
static uint32_t distinct_of(dc_tb *b, dc_tb_col *c, uint32_t tid, dc_val v)
{
    if (c->ndistinct * 2 >= c->dcap) {
        uint32_t cap = c->dcap ? c->dcap * 2 : 16;
        uint32_t *k = dc_malloc(b->alloc, cap * sizeof *k), *x = dc_malloc(b->alloc, cap * sizeof *x);
        if (!k || !x) {
            dc_free(b->alloc, k, cap * sizeof *k);
            dc_free(b->alloc, x, cap * sizeof *x);
            b->oom = true;
            return 0;
        }
        memset(k, 0, cap * sizeof *k);
        for (uint32_t i = 0; i < c->dcap; i++)
            if (c->dkeys[i]) {
                uint32_t j = (c->dkeys[i] * 2654435761u) & (cap - 1);
                while (k[j])
                    j = (j + 1) & (cap - 1);
                k[j] = c->dkeys[i];
                x[j] = c->dvals[i];
            }
        dc_free(b->alloc, c->dkeys, c->dcap * sizeof *c->dkeys);
        dc_free(b->alloc, c->dvals, c->dcap * sizeof *c->dvals);
        c->dkeys = k;
        c->dvals = x;
        c->dcap = cap;
    }
    uint32_t mask = c->dcap - 1;
    uint32_t j = ((tid + 1) * 2654435761u) & mask;
    for (; c->dkeys[j]; j = (j + 1) & mask)
        if (c->dkeys[j] == tid + 1)
            return c->dvals[j];
    if (c->ndistinct == c->capdistinct) {
        uint32_t cap = c->capdistinct ? c->capdistinct * 2 : 8;
        dc_val *nd = dc_arena_alloc(b->ta, cap * sizeof *nd);
        uint32_t *nt = dc_arena_alloc(b->ta, cap * sizeof *nt);
        uint32_t *nr = dc_arena_alloc(b->ta, cap * sizeof *nr);
        if (!nd || !nt || !nr) {
            b->oom = true;
            return 0;
        }
        if (c->ndistinct) {
            memcpy(nd, c->distinct, c->ndistinct * sizeof *nd);
            memcpy(nt, c->dtext, c->ndistinct * sizeof *nt);
            memcpy(nr, c->drows, c->ndistinct * sizeof *nr);
        }
        c->distinct = nd;
        c->dtext = nt;
        c->drows = nr;
        c->capdistinct = cap;
    }
    c->distinct[c->ndistinct] = v;
    c->dtext[c->ndistinct] = tid;
    c->drows[c->ndistinct] = 0;
    c->dkeys[j] = tid + 1;
    c->dvals[j] = c->ndistinct;
    return c->ndistinct++;
}

static void sid_add(dc_tb_col *c, uint32_t id)
{
    if (c->many)
        return;
    if (c->lastk < c->nsids && c->sids[c->lastk] == id) {
        c->sidn[c->lastk]++;
        return;
    }
    for (uint32_t k = 0; k < c->nsids; k++)
        if (c->sids[k] == id) {
            c->sidn[k]++;
            c->lastk = k;
            return;
        }
    if (c->nsids == DC_TCOL_SIDS_MAX) {
        c->many = true;
        return;
    }
    c->sids[c->nsids] = id;
    c->sidn[c->nsids] = 1;
    c->lastk = c->nsids++;
}

static void add_foreign(dc_tb *b, dc_tb_col *c, uint32_t row, dc_val v)
{
    dc_foreign *f = dc_tb_room(b->ta, c->foreign, c->nforeign, &c->capforeign, sizeof *f);
    if (!f) {
        b->oom = true;
        return;
    }
    c->foreign = f;
    c->foreign[c->nforeign].row = row;
    c->foreign[c->nforeign].v = v;
    c->nforeign++;
    c->nvalues++;
}

/* Kubernetes cannot present a device with a bad version attribute to CEL at all: the row gets
 * a fault, named by its first bad attribute. */
static void add_fault(dc_tb *b, uint32_t row, const char *name, const char *why)
{
    if (b->nfaults && b->faults[b->nfaults - 1].row == row)
        return;
    const dc_err *e = fault_of(b, name, why);
    dc_foreign *f = e ? dc_tb_room(b->ta, b->faults, b->nfaults, &b->capfaults, sizeof *f) : NULL;
    if (!f) {
        b->oom = true;
        return;
    }
    b->faults = f;
    f[b->nfaults].row = row;
    f[b->nfaults].v = dc_errval(e);
    b->nfaults++;
}

static void push_counters(dc_tb *b, dc_tcounter **v, uint32_t *n, uint32_t *cap, uint32_t owner,
                          const dc_counter_set_in *sets, uint32_t nsets)
{
    for (uint32_t i = 0; i < nsets && !b->oom; i++, b->groups++)
        for (uint32_t k = 0; k < sets[i].n; k++) {
            dc_tcounter *nv = dc_tb_room(b->ta, *v, *n, cap, sizeof *nv);
            if (!nv) {
                b->oom = true;
                return;
            }
            *v = nv;
            const char *q = sets[i].counters[k].value;
            uint32_t tid = dc_tb_intern(b, q, strlen(q));
            uint32_t set = dc_tb_intern(b, sets[i].name, strlen(sets[i].name));
            uint32_t name = dc_tb_intern(b, sets[i].counters[k].name, strlen(sets[i].counters[k].name));
            const dc_qtyobj *o = b->oom ? NULL : qty_of(b, tid);
            if (!o)
                return;
            (*v)[(*n)++] = (dc_tcounter){owner, set, name, b->groups, o};
        }
}

/* A capacity's policy in the dictionary's store (memoised by its texts). */
static const dc_tpolicy *policy_of(dc_tb *b, const dc_cap_policy_in *in)
{
    const char *one[4] = {in->def, in->min, in->max, in->step};
    uint32_t ids[4];
    vhash v = {0};
    for (int k = 0; k < 4; k++) {
        ids[k] = one[k] ? dc_tb_intern(b, one[k], strlen(one[k])) : DC_DICT_NONE;
        vh_str(&v, one[k]);
    }
    vh_u64(&v, in->nvalid);
    for (uint32_t i = 0; i < in->nvalid; i++)
        vh_str(&v, in->valid[i]);
    uint64_t key = MEMO_KEY(MEMO_POLICY, vh_final(&v));
    const dc_tpolicy *m = dc_dict_memo_get(b->dict, key);
    if (m && (m->def ? one[0] && !strcmp(m->def->text->data, one[0]) : !one[0]) &&
        (m->min ? one[1] && !strcmp(m->min->text->data, one[1]) : !one[1]) &&
        (m->max ? one[2] && !strcmp(m->max->text->data, one[2]) : !one[2]) &&
        (m->step ? one[3] && !strcmp(m->step->text->data, one[3]) : !one[3]) &&
        m->nvalid == in->nvalid) {
        bool same = true;
        for (uint32_t i = 0; i < in->nvalid && same; i++)
            same = !strcmp(m->valid[i]->text->data, in->valid[i]);
        if (same)
            return m;
    }
    dc_tpolicy *p = store_zalloc(b, sizeof *p);
    const dc_qtyobj **valid = store_zalloc(b, (in->nvalid + 1) * sizeof *valid);
    if (!p || !valid || b->oom)
        return NULL;
    const dc_qtyobj **slot[4] = {&p->def, &p->min, &p->max, &p->step};
    for (int k = 0; k < 4; k++)
        if (ids[k] != DC_DICT_NONE && !(*slot[k] = qty_of(b, ids[k])))
            return NULL;
    for (uint32_t i = 0; i < in->nvalid; i++) {
        uint32_t id = dc_tb_intern(b, in->valid[i], strlen(in->valid[i]));
        if (b->oom || !(valid[i] = qty_of(b, id)))
            return NULL;
    }
    p->valid = valid;
    p->nvalid = in->nvalid;
    if (!dc_dict_memo_put(b->dict, key, p)) {
        b->oom = true;
        return NULL;
    }
    return p;
}

static void push_binds(dc_tb *b, uint32_t row, const dc_device_in *dev)
{
    for (uint32_t k = 0; k < dev->nbinding + dev->nbinding_failure && !b->oom; k++) {
        bool failure = k >= dev->nbinding;
        const char *nm = failure ? dev->binding_failure[k - dev->nbinding] : dev->binding[k];
        dc_tbind *nv = dc_tb_room(b->ta, b->binds, b->nbinds, &b->capbinds, sizeof *nv);
        if (!nv) {
            b->oom = true;
            return;
        }
        b->binds = nv;
        b->binds[b->nbinds++] = (dc_tbind){row, dc_tb_intern(b, nm, strlen(nm)), failure};
    }
}

static void push_caps(dc_tb *b, uint32_t row, const dc_device_in *dev)
{
    for (uint32_t k = 0; k < dev->ncaps && !b->oom; k++) {
        const dc_capacity_in *ci = &dev->caps[k];
        dc_tcap *nv = dc_tb_room(b->ta, b->caps, b->ncaps, &b->capcaps, sizeof *nv);
        if (!nv) {
            b->oom = true;
            return;
        }
        b->caps = nv;
        uint32_t name = dc_tb_intern(b, ci->name, strlen(ci->name));
        uint32_t tid = dc_tb_intern(b, ci->value, strlen(ci->value));
        const dc_qtyobj *v = b->oom ? NULL : qty_of(b, tid);
        const dc_tpolicy *pol = ci->policy && v ? policy_of(b, ci->policy) : NULL;
        if (!v || (ci->policy && !pol)) {
            b->oom = true;
            return;
        }
        b->caps[b->ncaps++] = (dc_tcap){row, name, v, pol};
    }
}

/* A node selector entry of the table (the rows of one slice share theirs). */
static uint32_t push_selector(dc_tb *b, const dc_node_selector_in *s)
{
    const dc_node_selector_in *copy = selector_of(b, s);
    const void **v = copy ? dc_tb_room(b->ta, (void *)b->sels, b->nsels, &b->capsels, sizeof *v)
                          : NULL;
    if (!v) {
        b->oom = true;
        return 0;
    }
    b->sels = v;
    b->sels[b->nsels] = copy;
    return b->nsels++;
}

static void set_node(dc_tb *b, uint32_t row, const dc_node_scope_in *scope, uint32_t *slice_sel)
{
    dc_table *t = b->t;
    if (scope->node_name) {
        t->node_kind[row] = DC_NODE_NAME;
        t->node[row] = dc_tb_intern(b, scope->node_name, strlen(scope->node_name));
    } else if (scope->selector) {
        t->node_kind[row] = DC_NODE_SELECTOR;
        if (!slice_sel)
            t->node[row] = push_selector(b, scope->selector);
        else if (*slice_sel != UINT32_MAX)
            t->node[row] = *slice_sel;
        else
            t->node[row] = *slice_sel = push_selector(b, scope->selector);
    } else {
        t->node_kind[row] = DC_NODE_ALL;
        t->node[row] = 0;
    }
}

/* One attribute or capacity value of a row (k indexes attrs, then caps). */
static void put_value(dc_tb *b, dc_tpool *pool, uint32_t row, const dc_slice_in *sl,
                      const dc_device_in *dev, uint32_t k)
{
    dc_table *t = b->t;
    bool cap = k >= dev->nattrs;
    const char *name = cap ? dev->caps[k - dev->nattrs].name : dev->attrs[k].name;
    if (cap ? dc_device_cap_hidden(dev, k - dev->nattrs, sl->driver)
            : dc_device_attr_hidden(dev, k, sl->driver)) {
        /* Not a value CEL sees, but Kubernetes converts every attribute before it evaluates: a
         * bad version still faults the device. */
        const dc_attr_in *at = &dev->attrs[k];
        dc_semver sv;
        dc_semver_error se;
        if (!cap && at->kind == DC_ATTR_VERSION && dc_semver_parse_ex(at->s, at->slen, false, &sv, &se)) {
            dc_semver_error_format(&se, b->msg, sizeof b->msg);
            add_fault(b, row, at->name, b->msg);
        } else if (!cap && at->kind == DC_ATTR_VERSIONS && bad_version_in(b, at)) {
            add_fault(b, row, at->name, b->msg);
        }
        return;
    }
    uint32_t ci = column_of(b, name, sl->driver, cap, false);
    if (ci == UINT32_MAX)
        return;
    dc_tb_col *c = &b->cols[ci];
    dc_tcol *col = &t->cols[c->col];
    dc_val v;
    if (cap) {
        const char *q = dev->caps[k - dev->nattrs].value;
        uint32_t tid = dc_tb_intern(b, q, strlen(q));
        const dc_qtyobj *o = b->oom ? NULL : qty_of(b, tid);
        if (!o)
            return;
        v.k = DC_K_QUANTITY;
        v.u.q = o;
        if (col->kind == DC_COL_QUANTITY) {
            uint32_t vid = distinct_of(b, c, tid, v);
            if (b->oom)
                return;
            col->v.vid[row] = vid;
            c->drows[vid]++;
            dc_bit_set(col->present, row);
            c->nvalues++;
            return;
        }
        add_foreign(b, c, row, v);
        return;
    }
    const dc_attr_in *at = &dev->attrs[k];
    if (DC_ATTR_IS_LIST(at->kind)) {
        /* Always a boxed value: scalar columns keep their fast paths. */
        if (list_of(b, at, &pool->max_strlen, &v))
            add_foreign(b, c, row, v);
        else if (!b->oom)
            add_fault(b, row, at->name, b->msg);
        return;
    }
    dc_colkind kind = (dc_colkind)attr_kind(at->kind);
    switch (at->kind) {
    case DC_ATTR_INT:
        v = dc_int(at->i);
        if (col->kind == kind) {
            col->v.i[row] = at->i;
            dc_bit_set(col->present, row);
            c->nvalues++;
            return;
        }
        break;
    case DC_ATTR_BOOL:
        v = dc_bool(at->b);
        if (col->kind == kind) {
            if (at->b)
                dc_bit_set(col->v.bits, row);
            dc_bit_set(col->present, row);
            c->nvalues++;
            return;
        }
        break;
    case DC_ATTR_STRING: {
        uint32_t sid = dc_tb_intern(b, at->s, at->slen);
        if (b->oom)
            return;
        if (at->slen > pool->max_strlen)
            pool->max_strlen = at->slen;
        v = dc_strval(dc_dict_str(b->dict, sid));
        if (col->kind == kind) {
            col->v.sid[row] = sid;
            dc_bit_set(col->present, row);
            sid_add(c, sid);
            c->nvalues++;
            return;
        }
        break;
    }
    default: {
        if (at->slen > pool->max_strlen)
            pool->max_strlen = at->slen;
        uint32_t tid = dc_tb_intern(b, at->s, at->slen);
        bool bad;
        const dc_semverobj *o = b->oom ? NULL : semver_of(b, tid, &bad);
        if (!o) {
            if (!b->oom)
                add_fault(b, row, at->name, b->msg);
            return;
        }
        v.k = DC_K_SEMVER;
        v.u.sv = o;
        if (col->kind == kind) {
            uint32_t vid = distinct_of(b, c, tid, v);
            if (b->oom)
                return;
            col->v.vid[row] = vid;
            c->drows[vid]++;
            dc_bit_set(col->present, row);
            c->nvalues++;
            return;
        }
        break;
    }
    }
    add_foreign(b, c, row, v);
}

/* Invalid pools: a device name published twice, a device consuming a counter its pool does not
 * share, or a pool sharing one counter set twice (Kubernetes' allocator checks these
 * references, which API validation cannot: devices and counters are published in different
 * slices). cons0 and sh0: where the pool's entries start. */
static void judge_pool(dc_tb *b, dc_tpool *pool, uint32_t cons0, uint32_t sh0)
{
    const dc_table *t = b->t;
    if (pool->rows >= 2) {
        if (pool->rows > b->capscratch) {
            uint32_t *s = dc_realloc(b->alloc, b->scratch, b->capscratch * sizeof *s,
                                     pool->rows * sizeof *s);
            if (!s) {
                b->oom = true;
                return;
            }
            b->scratch = s;
            b->capscratch = pool->rows;
        }
        uint32_t *names = b->scratch;
        memcpy(names, t->device_name + pool->first_row, pool->rows * sizeof *names);
        for (uint32_t gap = pool->rows / 2; gap > 0; gap /= 2)
            for (uint32_t x = gap; x < pool->rows; x++)
                for (uint32_t y = x; y >= gap && names[y - gap] > names[y]; y -= gap) {
                    uint32_t tmp = names[y];
                    names[y] = names[y - gap];
                    names[y - gap] = tmp;
                }
        for (uint32_t x = 1; x < pool->rows; x++)
            if (names[x] == names[x - 1]) {
                pool->state = DC_POOL_INVALID;
                break;
            }
    }
    uint32_t nsh = b->nshared - sh0;
    const dc_tcounter *sh = nsh ? b->shared + sh0 : NULL; /* none yet: no NULL + 0 */
    for (uint32_t j = cons0; j < b->nconsumes; j++) {
        const dc_tcounter *c = &b->consumes[j];
        bool found = false;
        for (uint32_t k = 0; k < nsh && !found; k++)
            found = sh[k].set == c->set && sh[k].name == c->name;
        if (!found)
            pool->state = DC_POOL_INVALID;
    }
    for (uint32_t k = 1; k < nsh; k++)
        for (uint32_t i = 0; i < k; i++)
            if (sh[i].set == sh[k].set && sh[i].group != sh[k].group)
                pool->state = DC_POOL_INVALID; /* one counter set name twice */
}

void dc_tb_fill_pool(dc_tb *b, uint32_t p, const dc_slice_in *const *sl, const bool *keep,
                     uint32_t n)
{
    dc_table *t = b->t;
    dc_tpool *pool = &t->pools[p];
    const dc_slice_in *first = n ? sl[0] : NULL;
    pool->driver = first ? dc_tb_intern(b, first->driver, strlen(first->driver)) : 0;
    pool->name = first ? dc_tb_intern(b, first->pool, strlen(first->pool)) : 0;
    pool->first_row = b->row;
    pool->first_slice = b->slice;
    pool->first_sel = b->nsels;
    pool->max_strlen = 0;
    pool->node = DC_DICT_NONE;
    uint32_t cons0 = b->nconsumes, sh0 = b->nshared;
    uint32_t node = DC_DICT_NONE; /* the node every slice names, while they agree */
    bool one_node = true;
    vhash v = {0};
    vh_str(&v, first ? first->driver : "");
    vh_str(&v, first ? first->pool : "");
    for (uint32_t i = 0; i < n && !b->oom; i++) {
        if (!keep[i])
            continue;
        const dc_slice_in *s = sl[i];
        vh_scope(&v, &s->node);
        vh_counters(&v, s->shared_counters, s->nshared);
        vh_u64(&v, s->ndevices);
        if (s->node.node_name && !s->node.per_device) {
            uint32_t id = dc_tb_intern(b, s->node.node_name, strlen(s->node.node_name));
            one_node &= node == DC_DICT_NONE || node == id;
            node = id;
        } else {
            one_node = false;
        }
        if (s->node.per_device)
            dc_bit_set(t->slice_per_device, b->slice);
        t->slice_name[b->slice] = dc_tb_intern(b, s->name ? s->name : "", s->name ? strlen(s->name) : 0);
        t->slice_first[b->slice++] = b->row;
        /* sharedCounters are published in slices without devices: they belong to the pool. */
        if (s->nshared)
            push_counters(b, &b->shared, &b->nshared, &b->capshared, p, s->shared_counters, s->nshared);
        if (s->nshared && s->ndevices)
            pool->mixed = true;
        uint32_t slice_sel = UINT32_MAX;
        for (uint32_t d = 0; d < s->ndevices && !b->oom; d++) {
            uint32_t row = b->row++;
            const dc_device_in *dev = &s->devices[d];
            vh_device(&v, dev);
            t->device_name[row] = dc_tb_intern(b, dev->name, strlen(dev->name));
            t->pool[row] = p;
            if (dev->allow_multiple)
                dc_bit_set(t->multi, row);
            if (dev->nbinding)
                dc_bit_set(t->bindc, row);
            if (dev->binds_to_node)
                dc_bit_set(t->binds_node, row);
            push_binds(b, row, dev);
            if (s->node.per_device)
                set_node(b, row, &dev->node, NULL);
            else
                set_node(b, row, &s->node, &slice_sel);
            /* the device's taints, then those of the rules that select it (the scheduler's
             * slice tracker appends them in the same way) */
            for (uint32_t k = 0; k < dev->ntaints + b->nrules && !b->oom; k++) {
                const dc_taint_in *ti;
                bool rule = k >= dev->ntaints;
                if (rule) {
                    const dc_taint_rule_in *ru = &b->rules[k - dev->ntaints];
                    if ((ru->driver && strcmp(ru->driver, s->driver) != 0) ||
                        (ru->pool && strcmp(ru->pool, s->pool) != 0) ||
                        (ru->device && strcmp(ru->device, dev->name) != 0))
                        continue;
                    ti = &ru->taint;
                    vh_str(&v, "rule");
                    vh_str(&v, ti->key);
                    vh_str(&v, ti->value);
                    vh_str(&v, ti->effect);
                } else {
                    ti = &dev->taints[k];
                }
                dc_ttaint x = {row, dc_tb_intern(b, ti->key, strlen(ti->key)),
                               ti->value ? dc_tb_intern(b, ti->value, strlen(ti->value)) : DC_DICT_NONE,
                               dc_tb_intern(b, ti->effect, strlen(ti->effect)), rule};
                dc_ttaint *nv = dc_tb_room(b->ta, b->taints, b->ntaints, &b->captaints, sizeof *nv);
                if (!nv) {
                    b->oom = true;
                    break;
                }
                b->taints = nv;
                b->taints[b->ntaints++] = x;
            }
            if (dev->nconsumes)
                push_counters(b, &b->consumes, &b->nconsumes, &b->capconsumes, row, dev->consumes,
                              dev->nconsumes);
            push_caps(b, row, dev);
            for (uint32_t k = 0; k < dev->nattrs + dev->ncaps && !b->oom; k++)
                put_value(b, pool, row, s, dev, k);
        }
    }
    pool->node = one_node ? node : DC_DICT_NONE;
    if (b->oom)
        return;
    judge_pool(b, pool, cons0, sh0);
    vh_u64(&v, pool->state);
    pool->version = vh_final(&v);
}

int dc_tb_cmp_col(const dc_tcol *x, const dc_tcol *y)
{
    if (x->capacity != y->capacity)
        return x->capacity < y->capacity ? -1 : 1;
    size_t m = x->domain->len < y->domain->len ? x->domain->len : y->domain->len;
    int r = memcmp(x->domain->data, y->domain->data, m);
    if (r || x->domain->len != y->domain->len)
        return r ? r : (x->domain->len < y->domain->len ? -1 : 1);
    m = x->id->len < y->id->len ? x->id->len : y->id->len;
    r = memcmp(x->id->data, y->id->data, m);
    return r ? r : (x->id->len < y->id->len ? -1 : x->id->len > y->id->len);
}

static int cmp_col(const void *a, const void *b)
{
    return dc_tb_cmp_col(a, b);
}

void dc_tb_finish_col(dc_tb *b, dc_tb_col *c)
{
    dc_tcol *col = &b->t->cols[c->col];
    col->distinct = c->distinct;
    col->distinct_text = c->dtext;
    col->distinct_rows = c->drows;
    col->ndistinct = c->ndistinct;
    col->foreign = c->foreign;
    col->nforeign = c->nforeign;
    col->nvalues = c->nvalues;
    col->sids = NULL;
    col->sid_rows = NULL;
    col->nsids = 0;
    if (col->kind != DC_COL_STRING || c->many)
        return;
    uint32_t *ids = dc_arena_alloc(b->ta, (2 * c->nsids + 1) * sizeof *ids);
    if (!ids) {
        b->oom = true;
        return;
    }
    memcpy(ids, c->sids, c->nsids * sizeof *ids);
    memcpy(ids + c->nsids, c->sidn, c->nsids * sizeof *ids);
    col->sids = ids;
    col->sid_rows = ids + c->nsids;
    col->nsids = c->nsids;
}

size_t dc_tb_bytes(const dc_table *t, const dc_arena *arena)
{
    const dc_dict *d = t->dict;
    return arena->total + t->rows_block_size + d->strings.total + d->objs.total +
           d->npages * DC_DICT_PAGE * sizeof(dc_str *) +
           (d->index ? d->index->cap : 0) * sizeof(uint32_t) + d->memo_cap * sizeof *d->memo;
}

/* ---- A table at once. */

static void *tzalloc(dc_tb *b, size_t n)
{
    void *p = dc_arena_zalloc(b->ta, n ? n : 1);
    if (!p)
        b->oom = true;
    return p;
}

dracel_status dc_table_build(const dc_slice_set *s, dc_dict *dict, const dracel_alloc *alloc,
                             dc_table **out, char *err, size_t errcap)
{
    (void)err;
    (void)errcap;
    *out = NULL;
    const dracel_alloc *a = alloc ? alloc : &dc_default_alloc;
    dc_arena arena;
    dc_arena_init(&arena, a);
    dc_table *t = dc_arena_zalloc(&arena, sizeof *t);
    const dc_slice_in **order = s->n ? dc_malloc(a, s->n * sizeof *order) : NULL;
    bool *keep = s->n ? dc_malloc(a, s->n * sizeof *keep) : NULL;
    if (!t || (s->n && (!order || !keep))) {
        dc_free(a, order, s->n * sizeof *order);
        dc_free(a, keep, s->n * sizeof *keep);
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    if (dict) {
        dc_dict_ref(dict);
    } else if (!(dict = dc_dict_new(a))) {
        dc_free(a, order, s->n * sizeof *order);
        dc_free(a, keep, s->n * sizeof *keep);
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    dc_tb b;
    dc_tb_init(&b, t, &arena, dict, a);
    b.rules = s->rules;
    b.nrules = s->nrules;
    t->dict = dict;
    t->alloc = a;
    pthread_mutex_lock(&dict->lock); /* one writer at a time appends to the dictionary */

    for (uint32_t i = 0; i < s->n; i++)
        order[i] = &s->slices[i];
    if (s->n > 1)
        dc_sort(order, s->n, sizeof *order, dc_tb_cmp_slice);

    /* Pools: runs of (driver, pool); the newest generation of each is a live pool, each older
     * generation a stale pool after all the live ones (vm/table.h). */
    uint32_t npools = 0, nolder = 0;
    for (uint32_t i = 0, j; i < s->n; i = j) {
        int64_t gen;
        j = pool_run(order, s->n, i, &gen);
        for (uint32_t k = i; k < j; k++)
            nolder += order[k]->generation < gen;
        npools++;
    }
    /* The older slices by (driver, pool, generation newest first), then in slice order: each
     * run of one generation is a stale pool. */
    const dc_slice_in **older = NULL;
    uint32_t *stale_at = NULL, nstale = 0, nold = nolder; /* nold: the arrays' size */
    bool *all = NULL;
    if (nolder) {
        older = dc_malloc(a, nolder * sizeof *older);
        stale_at = dc_malloc(a, (nolder + 1) * sizeof *stale_at);
        all = dc_malloc(a, nolder);
        if (!older || !stale_at || !all) {
            b.oom = true;
            nolder = 0;
        }
    }
    if (nolder) {
        uint32_t m = 0;
        for (uint32_t i = 0, j; i < s->n; i = j) {
            int64_t gen;
            j = pool_run(order, s->n, i, &gen);
            for (uint32_t k = i; k < j; k++)
                if (order[k]->generation < gen)
                    older[m++] = order[k];
        }
        if (nolder > 1)
            dc_sort(older, nolder, sizeof *older, cmp_older);
        for (uint32_t i = 0; i < nolder; i++)
            if (i == 0 || strcmp(older[i]->driver, older[i - 1]->driver) ||
                strcmp(older[i]->pool, older[i - 1]->pool) ||
                older[i]->generation != older[i - 1]->generation)
                stale_at[nstale++] = i;
        stale_at[nstale] = nolder;
        memset(all, 1, nolder);
    }
    t->pools = tzalloc(&b, (npools + nstale + 1) * sizeof *t->pools);
    uint32_t *pool_at = tzalloc(&b, (npools + 1) * sizeof *pool_at); /* its first slice */
    uint32_t rows = 0, nkept = 0;
    for (uint32_t i = 0, p = 0; i < s->n && !b.oom; p++) {
        int64_t gen;
        uint32_t j = pool_run(order, s->n, i, &gen);
        dc_tb_scan_pool(order + i, j - i, keep + i, &t->pools[p]);
        pool_at[p] = i;
        rows += t->pools[p].rows;
        nkept += t->pools[p].slices;
        i = j;
    }
    if (!b.oom)
        pool_at[npools] = s->n;
    t->live_rows = rows;
    t->nlive_pools = npools;
    /* The stale pools, each with the live pool of its driver and name (both sorted by them). */
    for (uint32_t q = 0, lp = 0; q < nstale && !b.oom; q++) {
        const dc_slice_in *const *sl = older + stale_at[q];
        uint32_t n = stale_at[q + 1] - stale_at[q];
        while (strcmp(order[pool_at[lp]]->driver, sl[0]->driver) ||
               strcmp(order[pool_at[lp]]->pool, sl[0]->pool))
            lp++;
        dc_tpool *sp = &t->pools[npools + q];
        dc_tb_scan_pool(sl, n, all, sp);
        sp->stale = true;
        sp->live = lp;
        rows += sp->rows;
        nkept += sp->slices;
    }
    t->npools = npools + nstale;
    t->rows = rows;
    /* Per-row arrays. */
    size_t words = DC_BITS_WORDS(rows);
    t->device_name = tzalloc(&b, rows * sizeof *t->device_name);
    t->pool = tzalloc(&b, rows * sizeof *t->pool);
    t->node_kind = tzalloc(&b, rows);
    t->node = tzalloc(&b, rows * sizeof *t->node);
    t->multi = tzalloc(&b, words * sizeof *t->multi);
    t->bindc = tzalloc(&b, words * sizeof *t->bindc);
    t->binds_node = tzalloc(&b, words * sizeof *t->binds_node);
    t->slice_first = tzalloc(&b, (nkept + 1) * sizeof *t->slice_first);
    t->slice_per_device = tzalloc(&b, DC_BITS_WORDS(nkept + 1) * sizeof(uint64_t));
    t->slice_name = tzalloc(&b, (nkept + 1) * sizeof *t->slice_name);

    /* Pass 1: columns and the kind most of their values have. */
    for (uint32_t p = 0; p < npools && !b.oom; p++)
        dc_tb_columns(&b, order + pool_at[p], keep + pool_at[p], pool_at[p + 1] - pool_at[p]);
    for (uint32_t q = 0; q < nstale && !b.oom; q++)
        dc_tb_columns(&b, older + stale_at[q], all, stale_at[q + 1] - stale_at[q]);
    t->ncols = b.ncols;
    t->cols = tzalloc(&b, b.ncols * sizeof *t->cols);
    for (uint32_t c = 0; c < b.ncols && !b.oom; c++) {
        dc_tb_col *ci = &b.cols[c];
        dc_tcol *col = &t->cols[c];
        ci->col = c;
        col->domain = dc_dict_str(dict, ci->domain);
        col->id = dc_dict_str(dict, ci->id);
        col->domain_id = ci->domain;
        col->id_id = ci->id;
        col->capacity = ci->capacity;
        dc_colkind best = DC_COL_STRING;
        for (int k = 1; k < 5; k++)
            if (ci->kinds[k] > ci->kinds[best])
                best = (dc_colkind)k;
        col->kind = best;
        col->present = tzalloc(&b, words * sizeof(uint64_t));
        switch (best) {
        case DC_COL_STRING: col->v.sid = tzalloc(&b, rows * sizeof(uint32_t)); break;
        case DC_COL_INT: col->v.i = tzalloc(&b, rows * sizeof(int64_t)); break;
        case DC_COL_BOOL: col->v.bits = tzalloc(&b, words * sizeof(uint64_t)); break;
        default: col->v.vid = tzalloc(&b, rows * sizeof(uint32_t)); break;
        }
    }

    /* Pass 2: rows, pool by pool. */
    for (uint32_t p = 0; p < npools && !b.oom; p++)
        dc_tb_fill_pool(&b, p, order + pool_at[p], keep + pool_at[p], pool_at[p + 1] - pool_at[p]);
    t->nlive_slices = b.slice;
    for (uint32_t q = 0; q < nstale && !b.oom; q++) {
        dc_tpool *sp = &t->pools[npools + q], *lp = &t->pools[sp->live];
        dc_tb_fill_pool(&b, npools + q, older + stale_at[q], all, stale_at[q + 1] - stale_at[q]);
        /* what a node may allocate of the pool: its version covers the older generations */
        lp->version = (lp->version ^ (sp->version + 0x9E3779B97F4A7C15ULL + (lp->version << 6) +
                                      (lp->version >> 2))) * 0xff51afd7ed558ccdULL;
        lp->version = lp->version ? lp->version : 1;
    }
    if (!b.oom)
        t->slice_first[b.slice] = rows;
    t->nslices = b.slice;
    for (uint32_t p = 0; p < t->npools && !b.oom; p++)
        if (t->pools[p].max_strlen > t->max_strlen)
            t->max_strlen = t->pools[p].max_strlen;
    t->faults = b.faults;
    t->nfaults = b.nfaults;
    t->taints = b.taints;
    t->ntaints = b.ntaints;
    t->consumes = b.consumes;
    t->nconsumes = b.nconsumes;
    t->caps = b.caps;
    t->ncaps = b.ncaps;
    t->binds = b.binds;
    t->nbinds = b.nbinds;
    t->shared = b.shared;
    t->nshared = b.nshared;
    t->node_selectors = (const void *const *)b.sels;
    t->nselectors = b.nsels;
    t->groups = b.groups;

    /* Finish the columns, then sort them by name (the foreign lists are in row order). */
    for (uint32_t c = 0; c < b.ncols && !b.oom; c++)
        dc_tb_finish_col(&b, &b.cols[c]);
    if (!b.oom && b.ncols)
        dc_sort(t->cols, b.ncols, sizeof *t->cols, cmp_col);
    t->dict_limit = dict->count;
    pthread_mutex_unlock(&dict->lock);

    bool oom = b.oom;
    dc_tb_free(&b);
    if (nold) {
        dc_free(a, older, nold * sizeof *older);
        dc_free(a, stale_at, (nold + 1) * sizeof *stale_at);
        dc_free(a, all, nold);
    }
    dc_free(a, keep, s->n * sizeof *keep);
    dc_free(a, order, s->n * sizeof *order);
    if (oom) {
        dc_dict_unref(dict);
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    t->bytes = dc_tb_bytes(t, &arena);
    t->arena = arena; /* t lives in the arena: copy the header last */
    *out = t;
    return DRACEL_OK;
}
