/*
 * table_build.c: ResourceSlices (src/slices.h) -> an immutable device table (vm/table.h).
 *
 * Kubernetes' rules (reference/k8s-dra.md section 3.2): slices are grouped into pools by
 * (driver, pool name); only the newest generation of a pool counts; a pool with fewer slices of
 * that generation than resourceSliceCount is incomplete; a pool publishing a device name twice
 * is invalid. Both are kept in the table and flagged, never silently used as healthy. Rows are
 * in the allocator's order: pools by driver then pool name, slices by name, devices in published
 * order.
 *
 * Two passes over the devices: the first finds the columns (qualified names) and the kind most
 * of their values have; the second fills them. A bare attribute or capacity name hidden by the
 * same name qualified with the driver's domain (dc_device_attr_hidden) gives no value: the
 * qualified one does, whichever comes first (src/json_val.c builds `--device` the same way).
 */
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "slices.h"
#include "tablebuild.h"

typedef struct key_entry {
    uint32_t domain, id;  /* dictionary ids */
    bool capacity;
    uint32_t col;         /* column index + 1; 0: empty slot */
} key_entry;

typedef struct colinfo {
    uint32_t domain, id;
    bool capacity;
    uint32_t kinds[5];    /* values seen per dc_colkind */
    /* Pass 2 temporaries. */
    dc_foreign *foreign;
    uint32_t nforeign, capforeign;
    /* Distinct values (VERSION, QUANTITY): text id -> index, in a small hash. */
    uint32_t *dkeys;      /* dictionary id of the text + 1 */
    uint32_t *dvals;
    uint32_t dcap, ndistinct, capdistinct;
    dc_val *distinct;
} colinfo;

typedef struct builder {
    const dracel_alloc *alloc;
    dc_table *t;
    dc_arena *ta;         /* the table's arena */
    dc_dict *dict;
    key_entry *keys;
    uint32_t keycap;
    colinfo *cols;
    uint32_t ncols, capcols;
    char *err;
    size_t errcap;
    bool oom;
    char msg[256];        /* the parse error of the last bad version */
    uint32_t groups;      /* counter set entries pushed so far */
} builder;

static int cmp_slice(const void *a, const void *b)
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
    return r;
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

static uint32_t intern(builder *b, const char *s, size_t n)
{
    uint32_t id = dc_dict_intern(b->dict, s, n);
    if (id == DC_DICT_NONE)
        b->oom = true;
    return id;
}

static uint64_t mix3(uint32_t a, uint32_t b, bool c)
{
    uint64_t h = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ULL;
    return (h ^ (h >> 31)) + c;
}

static bool grow_keys(builder *b)
{
    uint32_t cap = b->keycap ? b->keycap * 2 : 256;
    key_entry *k = dc_malloc(b->alloc, cap * sizeof *k);
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

/* The column of a qualified name (created in pass 1). UINT32_MAX on ENOMEM. */
static uint32_t column_of(builder *b, const char *name, const char *driver, bool capacity,
                          bool create)
{
    const char *dom, *id;
    size_t dn;
    split(name, driver, &dom, &dn, &id);
    uint32_t d = intern(b, dom, dn), i = intern(b, id, strlen(id));
    if (b->oom)
        return UINT32_MAX;
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
        colinfo *c = dc_realloc(b->alloc, b->cols, b->capcols * sizeof *c, cap * sizeof *c);
        if (!c) {
            b->oom = true;
            return UINT32_MAX;
        }
        b->cols = c;
        b->capcols = cap;
    }
    colinfo *c = &b->cols[b->ncols];
    memset(c, 0, sizeof *c);
    c->domain = d;
    c->id = i;
    c->capacity = capacity;
    b->keys[j] = (key_entry){d, i, capacity, b->ncols + 1};
    return b->ncols++;
}

static dc_colkind attr_kind(dc_attr_kind k)
{
    switch (k) {
    case DC_ATTR_INT: return DC_COL_INT;
    case DC_ATTR_BOOL: return DC_COL_BOOL;
    case DC_ATTR_STRING: return DC_COL_STRING;
    default: return DC_COL_VERSION;
    }
}

/* Room for one more element in a vector kept in the table's arena: v itself, or a copy twice
 * as large (the old copy stays in the arena until the snapshot is freed: doubling keeps that
 * waste below the final size). NULL when memory runs out; *cap changes only on success. */
static void *arena_room(dc_arena *a, void *v, uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return v;
    uint32_t c = *cap ? *cap * 2 : 8;
    void *nv = dc_arena_alloc(a, (size_t)c * size);
    if (!nv)
        return NULL;
    if (n)
        memcpy(nv, v, (size_t)n * size);
    *cap = c;
    return nv;
}

/* A distinct VERSION or QUANTITY value of a column, by its text. */
static uint32_t distinct_of(builder *b, colinfo *c, const char *text, size_t n, dc_val *value,
                            const char **bad)
{
    *bad = NULL;
    uint32_t tid = intern(b, text, n);
    if (b->oom)
        return 0;
    if (c->ndistinct * 2 >= c->dcap) {
        uint32_t cap = c->dcap ? c->dcap * 2 : 16;
        uint32_t *k = dc_malloc(b->alloc, cap * sizeof *k), *v = dc_malloc(b->alloc, cap * sizeof *v);
        if (!k || !v) {
            dc_free(b->alloc, k, cap * sizeof *k);
            dc_free(b->alloc, v, cap * sizeof *v);
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
                v[j] = c->dvals[i];
            }
        dc_free(b->alloc, c->dkeys, c->dcap * sizeof *c->dkeys);
        dc_free(b->alloc, c->dvals, c->dcap * sizeof *c->dvals);
        c->dkeys = k;
        c->dvals = v;
        c->dcap = cap;
    }
    uint32_t mask = c->dcap - 1;
    uint32_t j = ((tid + 1) * 2654435761u) & mask;
    for (; c->dkeys[j]; j = (j + 1) & mask)
        if (c->dkeys[j] == tid + 1) {
            *value = c->distinct[c->dvals[j]];
            return c->dvals[j];
        }
    /* A new value: parse it into the table's arena. */
    const dc_str *ts = dc_dict_str(b->dict, tid);
    dc_val v;
    if (c->capacity) {
        dc_qtyobj *o = dc_arena_alloc(b->ta, sizeof *o);
        if (!o) {
            b->oom = true;
            return 0;
        }
        if (dc_qty_parse(ts->data, ts->len, &o->q)) {
            *bad = "invalid quantity"; /* the loader validated capacities: cannot happen */
            return 0;
        }
        o->text = ts;
        v.k = DC_K_QUANTITY;
        v.u.q = o;
    } else {
        dc_semverobj *o = dc_arena_alloc(b->ta, sizeof *o);
        if (!o) {
            b->oom = true;
            return 0;
        }
        dc_semver_error se;
        if (dc_semver_parse_ex(ts->data, ts->len, false, &o->v, &se)) {
            dc_semver_error_format(&se, b->msg, sizeof b->msg);
            *bad = b->msg;
            return 0;
        }
        o->text = ts;
        v.k = DC_K_SEMVER;
        v.u.sv = o;
    }
    dc_val *d = arena_room(b->ta, c->distinct, c->ndistinct, &c->capdistinct, sizeof *d);
    if (!d) {
        b->oom = true;
        return 0;
    }
    c->distinct = d;
    c->distinct[c->ndistinct] = v;
    c->dkeys[j] = tid + 1;
    c->dvals[j] = c->ndistinct;
    *value = v;
    return c->ndistinct++;
}

static bool add_foreign(builder *b, colinfo *c, uint32_t row, dc_val v)
{
    dc_foreign *f = arena_room(b->ta, c->foreign, c->nforeign, &c->capforeign, sizeof *f);
    if (!f)
        return false;
    c->foreign = f;
    c->foreign[c->nforeign].row = row;
    c->foreign[c->nforeign].v = v;
    c->nforeign++;
    return true;
}

static void *tzalloc(builder *b, size_t n);

/* A string column's distinct ids when it has few (the vector VM answers a function of the
 * column once per id, and compares ids instead of looking answers up). */
static void list_sids(builder *b, dc_tcol *col, uint32_t rows)
{
    uint32_t ids[DC_TCOL_SIDS_MAX], n = 0, last = DC_DICT_NONE;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t id = col->v.sid[r];
        if (id == last || !dc_bit(col->present, r))
            continue;
        uint32_t k = 0;
        while (k < n && ids[k] != id)
            k++;
        if (k == n) {
            if (n == DC_TCOL_SIDS_MAX)
                return; /* many: not listed */
            ids[n++] = id;
        }
        last = id;
    }
    uint32_t *copy = tzalloc(b, n * sizeof *copy);
    if (!copy)
        return;
    memcpy(copy, ids, n * sizeof *copy);
    col->sids = copy;
    col->nsids = n;
}

static void *tzalloc(builder *b, size_t n)
{
    void *p = dc_arena_zalloc(b->ta, n ? n : 1);
    if (!p)
        b->oom = true;
    return p;
}

/* Deep copy of a node selector into the table's arena. */
static const dc_node_selector_in *copy_selector(builder *b, const dc_node_selector_in *s)
{
    dc_node_selector_in *d = tzalloc(b, sizeof *d);
    if (!d)
        return NULL;
    d->n = s->n;
    d->terms = tzalloc(b, s->n * sizeof *d->terms);
    if (!d->terms)
        return NULL;
    for (uint32_t i = 0; i < s->n; i++) {
        const dc_node_term_in *st = &s->terms[i];
        dc_node_term_in *dt = &d->terms[i];
        dt->n = st->n;
        dt->reqs = tzalloc(b, st->n * sizeof *dt->reqs);
        if (!dt->reqs)
            return NULL;
        for (uint32_t k = 0; k < st->n; k++) {
            const dc_node_req_in *sr = &st->reqs[k];
            dc_node_req_in *dr = &dt->reqs[k];
            dr->key = dc_arena_strndup(b->ta, sr->key, strlen(sr->key));
            dr->op = dc_arena_strndup(b->ta, sr->op, strlen(sr->op));
            dr->field = sr->field;
            dr->nvalues = sr->nvalues;
            dr->values = tzalloc(b, sr->nvalues * sizeof *dr->values);
            if (!dr->key || !dr->op || !dr->values) {
                b->oom = true;
                return NULL;
            }
            for (uint32_t v = 0; v < sr->nvalues; v++)
                if (!(dr->values[v] = dc_arena_strndup(b->ta, sr->values[v], strlen(sr->values[v])))) {
                    b->oom = true;
                    return NULL;
                }
        }
    }
    return d;
}

/* Rows arrive in order, so the side tables stay sorted by row (or pool). */
static bool push_taint(builder *b, dc_ttaint **v, uint32_t *n, uint32_t *cap, dc_ttaint x)
{
    dc_ttaint *nv = arena_room(b->ta, *v, *n, cap, sizeof *nv);
    if (!nv)
        return false;
    *v = nv;
    (*v)[(*n)++] = x;
    return true;
}

static bool push_counters(builder *b, dc_tcounter **v, uint32_t *n, uint32_t *cap, uint32_t owner,
                          const dc_counter_set_in *sets, uint32_t nsets)
{
    for (uint32_t i = 0; i < nsets; i++, b->groups++)
        for (uint32_t k = 0; k < sets[i].n; k++) {
            dc_tcounter *nv = arena_room(b->ta, *v, *n, cap, sizeof *nv);
            if (!nv)
                return false;
            *v = nv;
            const char *q = sets[i].counters[k].value;
            dc_qtyobj *o = dc_arena_alloc(b->ta, sizeof *o);
            if (!o || dc_qty_parse(q, strlen(q), &o->q))
                return false; /* the loader validated the quantity: only memory can fail */
            uint32_t tid = intern(b, q, strlen(q));
            uint32_t set = intern(b, sets[i].name, strlen(sets[i].name));
            uint32_t name = intern(b, sets[i].counters[k].name, strlen(sets[i].counters[k].name));
            if (b->oom)
                return false;
            o->text = dc_dict_str(b->dict, tid);
            (*v)[(*n)++] = (dc_tcounter){owner, set, name, b->groups, o};
        }
    return true;
}

/* Kubernetes cannot present a device with a bad version attribute to CEL at all: the row gets
 * a fault, named by its first bad attribute. false on ENOMEM. */
static bool add_fault(builder *b, dc_foreign **faults, uint32_t *n, uint32_t *cap, uint32_t row,
                      const char *name, const char *why)
{
    if (*n && (*faults)[*n - 1].row == row)
        return true;
    dc_foreign *f = arena_room(b->ta, *faults, *n, cap, sizeof *f);
    if (!f)
        return false;
    *faults = f;
    dc_err *e = dc_arena_alloc(b->ta, sizeof *e);
    char *msg = e ? dc_arena_printf(b->ta, "attribute %s: parse semantic version: %s", name, why)
                  : NULL;
    if (!msg)
        return false;
    e->msg = msg;
    e->flags = DC_ERRF_DEVICE;
    f[*n].row = row;
    f[*n].v = dc_errval(e);
    (*n)++;
    return true;
}

static int cmp_col(const void *a, const void *b)
{
    const dc_tcol *x = a, *y = b;
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

static void set_node(builder *b, uint32_t row, const dc_node_scope_in *scope,
                     const dc_node_selector_in ***sels, uint32_t *nsels, uint32_t *capsels)
{
    dc_table *t = b->t;
    if (scope->node_name) {
        t->node_kind[row] = DC_NODE_NAME;
        t->node[row] = intern(b, scope->node_name, strlen(scope->node_name));
    } else if (scope->selector) {
        const dc_node_selector_in **s = arena_room(b->ta, (void *)*sels, *nsels, capsels, sizeof *s);
        if (!s) {
            b->oom = true;
            return;
        }
        *sels = s;
        (*sels)[*nsels] = copy_selector(b, scope->selector);
        t->node_kind[row] = DC_NODE_SELECTOR;
        t->node[row] = (*nsels)++;
    } else {
        t->node_kind[row] = DC_NODE_ALL;
        t->node[row] = 0;
    }
}

dracel_status dc_table_build(const dc_slice_set *s, dc_dict *dict, const dracel_alloc *alloc,
                             dc_table **out, char *err, size_t errcap)
{
    *out = NULL;
    const dracel_alloc *a = alloc ? alloc : &dc_default_alloc;
    builder b;
    memset(&b, 0, sizeof b);
    b.alloc = a;
    b.err = err;
    b.errcap = errcap;
    dc_arena arena;
    dc_arena_init(&arena, a);
    b.ta = &arena;
    dc_table *t = dc_arena_zalloc(&arena, sizeof *t);
    const dc_slice_in **order = s->n ? dc_malloc(a, s->n * sizeof *order) : NULL;
    if (!t || (s->n && !order)) {
        dc_free(a, order, s->n * sizeof *order);
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    b.t = t;
    if (dict) {
        dc_dict_ref(dict);
    } else if (!(dict = dc_dict_new(a))) {
        dc_free(a, order, s->n * sizeof *order);
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    b.dict = dict;
    t->dict = dict;
    t->alloc = a;
    pthread_mutex_lock(&dict->lock); /* one writer at a time appends to the dictionary */

    for (uint32_t i = 0; i < s->n; i++)
        order[i] = &s->slices[i];
    if (s->n > 1)
        dc_sort(order, s->n, sizeof *order, cmp_slice);

    /* Pools: runs of (driver, pool); keep the newest generation. */
    uint32_t npools = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (i == 0 || strcmp(order[i]->driver, order[i - 1]->driver) ||
            strcmp(order[i]->pool, order[i - 1]->pool))
            npools++;
    t->pools = tzalloc(&b, npools * sizeof *t->pools);
    bool *keep = s->n ? dc_malloc(a, s->n * sizeof *keep) : NULL;
    if (s->n && !keep)
        b.oom = true;
    else if (keep)
        memset(keep, 0, s->n * sizeof *keep);
    uint32_t rows = 0;
    for (uint32_t i = 0, p = 0; i < s->n && !b.oom; p++) {
        uint32_t j = i;
        int64_t gen = order[i]->generation;
        while (j < s->n && !strcmp(order[j]->driver, order[i]->driver) &&
               !strcmp(order[j]->pool, order[i]->pool)) {
            if (order[j]->generation > gen)
                gen = order[j]->generation;
            j++;
        }
        dc_tpool *pool = &t->pools[p];
        pool->driver = intern(&b, order[i]->driver, strlen(order[i]->driver));
        pool->name = intern(&b, order[i]->pool, strlen(order[i]->pool));
        pool->generation = gen;
        pool->first_row = rows;
        for (uint32_t k = i; k < j; k++) {
            keep[k] = order[k]->generation == gen;
            if (keep[k]) {
                pool->slices++;
                pool->slice_count = order[k]->slice_count;
                pool->rows += order[k]->ndevices;
            }
        }
        pool->state = pool->slices < pool->slice_count ? DC_POOL_INCOMPLETE : DC_POOL_COMPLETE;
        rows += pool->rows;
        i = j;
    }
    t->npools = npools;
    t->rows = rows;

    /* Per-row arrays. */
    size_t words = DC_BITS_WORDS(rows);
    t->device_name = tzalloc(&b, rows * sizeof *t->device_name);
    t->pool = tzalloc(&b, rows * sizeof *t->pool);
    t->node_kind = tzalloc(&b, rows);
    t->node = tzalloc(&b, rows * sizeof *t->node);
    t->multi = tzalloc(&b, words * sizeof *t->multi);
    /* Slices of the newest generations, in row order (the allocator's slice boundaries). */
    uint32_t nkept = 0;
    for (uint32_t i = 0; i < s->n; i++)
        nkept += keep && keep[i];
    t->slice_first = tzalloc(&b, (nkept + 1) * sizeof *t->slice_first);
    t->slice_per_device = tzalloc(&b, DC_BITS_WORDS(nkept + 1) * sizeof(uint64_t));

    /* Pass 1: columns and their kinds. */
    for (uint32_t i = 0; i < s->n && !b.oom; i++) {
        if (!keep[i])
            continue;
        const dc_slice_in *sl = order[i];
        for (uint32_t d = 0; d < sl->ndevices && !b.oom; d++) {
            const dc_device_in *dev = &sl->devices[d];
            for (uint32_t k = 0; k < dev->nattrs; k++) {
                if (dc_device_attr_hidden(dev, k, sl->driver))
                    continue;
                uint32_t c = column_of(&b, dev->attrs[k].name, sl->driver, false, true);
                if (c != UINT32_MAX)
                    b.cols[c].kinds[attr_kind(dev->attrs[k].kind)]++;
            }
            for (uint32_t k = 0; k < dev->ncaps; k++) {
                if (dc_device_cap_hidden(dev, k, sl->driver))
                    continue;
                uint32_t c = column_of(&b, dev->caps[k].name, sl->driver, true, true);
                if (c != UINT32_MAX)
                    b.cols[c].kinds[DC_COL_QUANTITY]++;
            }
        }
    }
    t->ncols = b.ncols;
    t->cols = tzalloc(&b, b.ncols * sizeof *t->cols);
    for (uint32_t c = 0; c < b.ncols && !b.oom; c++) {
        colinfo *ci = &b.cols[c];
        dc_tcol *col = &t->cols[c];
        col->domain = dc_dict_str(dict, ci->domain);
        col->id = dc_dict_str(dict, ci->id);
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

    /* Pass 2: rows. */
    const dc_node_selector_in **sels = NULL;
    uint32_t nsels = 0, capsels = 0;
    dc_foreign *faults = NULL;
    uint32_t nfaults = 0, capfaults = 0;
    dc_ttaint *taints = NULL;
    uint32_t ntaints = 0, captaints = 0;
    dc_tcounter *consumes = NULL, *shared = NULL;
    uint32_t nconsumes = 0, capconsumes = 0, nshared = 0, capshared = 0;
    uint32_t row = 0, pool_index = 0;
    for (uint32_t i = 0; i < s->n && !b.oom; i++) {
        while (pool_index + 1 < npools && row >= t->pools[pool_index].first_row + t->pools[pool_index].rows)
            pool_index++;
        if (!keep[i])
            continue;
        const dc_slice_in *sl = order[i];
        if (sl->node.per_device)
            dc_bit_set(t->slice_per_device, t->nslices);
        t->slice_first[t->nslices++] = row;
        /* The pool's shared counters (sharedCounters are published in slices without devices,
         * so the pool is found by name). */
        if (sl->nshared) {
            uint32_t dn = intern(&b, sl->driver, strlen(sl->driver)), pn = intern(&b, sl->pool, strlen(sl->pool));
            for (uint32_t p = 0; p < npools && !b.oom; p++)
                if (t->pools[p].driver == dn && t->pools[p].name == pn &&
                    !push_counters(&b, &shared, &nshared, &capshared, p, sl->shared_counters, sl->nshared))
                    b.oom = true;
        }
        for (uint32_t d = 0; d < sl->ndevices && !b.oom; d++, row++) {
            while (pool_index + 1 < npools && row >= t->pools[pool_index].first_row + t->pools[pool_index].rows)
                pool_index++;
            const dc_device_in *dev = &sl->devices[d];
            t->device_name[row] = intern(&b, dev->name, strlen(dev->name));
            t->pool[row] = pool_index;
            if (dev->allow_multiple)
                dc_bit_set(t->multi, row);
            const dc_node_scope_in *scope = sl->node.per_device ? &dev->node : &sl->node;
            set_node(&b, row, scope, &sels, &nsels, &capsels);
            for (uint32_t k = 0; k < dev->ntaints && !b.oom; k++) {
                const dc_taint_in *ti = &dev->taints[k];
                dc_ttaint x = {row, intern(&b, ti->key, strlen(ti->key)),
                               ti->value ? intern(&b, ti->value, strlen(ti->value)) : DC_DICT_NONE,
                               intern(&b, ti->effect, strlen(ti->effect))};
                if (!push_taint(&b, &taints, &ntaints, &captaints, x))
                    b.oom = true;
            }
            if (dev->nconsumes &&
                !push_counters(&b, &consumes, &nconsumes, &capconsumes, row, dev->consumes, dev->nconsumes))
                b.oom = true;
            for (uint32_t k = 0; k < dev->nattrs + dev->ncaps && !b.oom; k++) {
                bool cap = k >= dev->nattrs;
                const char *name = cap ? dev->caps[k - dev->nattrs].name : dev->attrs[k].name;
                if (cap ? dc_device_cap_hidden(dev, k - dev->nattrs, sl->driver)
                        : dc_device_attr_hidden(dev, k, sl->driver)) {
                    /* Not a value CEL sees, but Kubernetes converts every attribute before
                     * it evaluates: a bad version still faults the device. */
                    const dc_attr_in *at = &dev->attrs[k];
                    dc_semver sv;
                    dc_semver_error se;
                    if (!cap && at->kind == DC_ATTR_VERSION &&
                        dc_semver_parse_ex(at->s, at->slen, false, &sv, &se)) {
                        dc_semver_error_format(&se, b.msg, sizeof b.msg);
                        if (!add_fault(&b, &faults, &nfaults, &capfaults, row, at->name, b.msg))
                            b.oom = true;
                    }
                    continue;
                }
                uint32_t c = column_of(&b, name, sl->driver, cap, false);
                if (c == UINT32_MAX)
                    continue;
                colinfo *ci = &b.cols[c];
                dc_tcol *col = &t->cols[c];
                dc_val v;
                dc_colkind kind;
                if (cap) {
                    const char *q = dev->caps[k - dev->nattrs].value;
                    const char *bad;
                    uint32_t vid = distinct_of(&b, ci, q, strlen(q), &v, &bad);
                    if (b.oom || bad)
                        continue;
                    kind = DC_COL_QUANTITY;
                    if (col->kind == kind) {
                        col->v.vid[row] = vid;
                        dc_bit_set(col->present, row);
                        continue;
                    }
                } else {
                    const dc_attr_in *at = &dev->attrs[k];
                    kind = attr_kind(at->kind);
                    switch (at->kind) {
                    case DC_ATTR_INT:
                        v = dc_int(at->i);
                        if (col->kind == kind) {
                            col->v.i[row] = at->i;
                            dc_bit_set(col->present, row);
                            continue;
                        }
                        break;
                    case DC_ATTR_BOOL:
                        v = dc_bool(at->b);
                        if (col->kind == kind) {
                            if (at->b)
                                dc_bit_set(col->v.bits, row);
                            dc_bit_set(col->present, row);
                            continue;
                        }
                        break;
                    case DC_ATTR_STRING: {
                        uint32_t sid = intern(&b, at->s, at->slen);
                        if (b.oom)
                            continue;
                        if (at->slen > t->max_strlen)
                            t->max_strlen = at->slen;
                        v = dc_strval(dc_dict_str(dict, sid));
                        if (col->kind == kind) {
                            col->v.sid[row] = sid;
                            dc_bit_set(col->present, row);
                            continue;
                        }
                        break;
                    }
                    default: {
                        const char *bad;
                        uint32_t vid = distinct_of(&b, ci, at->s, at->slen, &v, &bad);
                        if (b.oom)
                            continue;
                        if (at->slen > t->max_strlen)
                            t->max_strlen = at->slen;
                        if (bad) {
                            if (!add_fault(&b, &faults, &nfaults, &capfaults, row, at->name, bad))
                                b.oom = true;
                            continue;
                        }
                        if (col->kind == kind) {
                            col->v.vid[row] = vid;
                            dc_bit_set(col->present, row);
                            continue;
                        }
                        break;
                    }
                    }
                }
                (void)kind;
                if (!add_foreign(&b, ci, row, v))
                    b.oom = true;
            }
        }
    }
    t->faults = faults;
    t->nfaults = nfaults;
    t->taints = taints;
    t->ntaints = ntaints;
    t->consumes = consumes;
    t->nconsumes = nconsumes;
    t->shared = shared;
    if (!b.oom)
        t->slice_first[t->nslices] = rows;
    t->nshared = nshared;
    t->node_selectors = (const void *const *)sels;
    t->nselectors = nsels;

    /* Invalid pools: a device name published twice (rows of a pool are contiguous). */
    for (uint32_t p = 0; p < npools && !b.oom; p++) {
        dc_tpool *pool = &t->pools[p];
        if (pool->rows < 2)
            continue;
        uint32_t *names = dc_malloc(a, pool->rows * sizeof *names);
        if (!names) {
            b.oom = true;
            break;
        }
        memcpy(names, t->device_name + pool->first_row, pool->rows * sizeof *names);
        /* Sort ids and look for neighbours. */
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
        dc_free(a, names, pool->rows * sizeof *names);
    }

    /* Invalid pools, too: a device consuming a counter its pool does not share, or a pool
     * sharing one counter set twice (Kubernetes' allocator checks these references, which API
     * validation cannot: devices and counters are published in different slices). */
    uint32_t *sfirst = npools ? dc_malloc(a, (npools + 1) * sizeof *sfirst) : NULL;
    if (npools && !sfirst)
        b.oom = true;
    for (uint32_t p = 0, k = 0; sfirst && p <= npools; p++) { /* shared is sorted by pool */
        while (k < nshared && shared[k].owner < p)
            k++;
        sfirst[p] = k;
    }
    for (uint32_t j = 0; sfirst && j < nconsumes && !b.oom; j++) {
        const dc_tcounter *c = &consumes[j];
        uint32_t p = t->pool[c->owner];
        bool found = false;
        for (uint32_t k = sfirst[p]; k < sfirst[p + 1] && !found; k++)
            found = shared[k].set == c->set && shared[k].name == c->name;
        if (!found)
            t->pools[p].state = DC_POOL_INVALID;
    }
    for (uint32_t p = 0; sfirst && p < npools && !b.oom; p++)
        for (uint32_t k = sfirst[p] + 1; k < sfirst[p + 1]; k++)
            for (uint32_t i = sfirst[p]; i < k; i++)
                if (shared[i].set == shared[k].set && shared[i].group != shared[k].group)
                    t->pools[p].state = DC_POOL_INVALID; /* one counter set name twice */
    if (sfirst)
        dc_free(a, sfirst, (npools + 1) * sizeof *sfirst);

    /* Finish the columns, then sort them by name (the foreign lists are in row order). */
    for (uint32_t c = 0; c < b.ncols && !b.oom; c++) {
        t->cols[c].distinct = b.cols[c].distinct;
        t->cols[c].ndistinct = b.cols[c].ndistinct;
        t->cols[c].foreign = b.cols[c].foreign;
        t->cols[c].nforeign = b.cols[c].nforeign;
    }
    for (uint32_t c = 0; c < b.ncols && !b.oom; c++)
        if (t->cols[c].kind == DC_COL_STRING)
            list_sids(&b, &t->cols[c], rows);
    if (!b.oom && b.ncols)
        dc_sort(t->cols, b.ncols, sizeof *t->cols, cmp_col);
    t->dict_limit = dict->count;
    pthread_mutex_unlock(&dict->lock);

    for (uint32_t c = 0; c < b.ncols; c++) {
        dc_free(a, b.cols[c].dkeys, b.cols[c].dcap * sizeof(uint32_t));
        dc_free(a, b.cols[c].dvals, b.cols[c].dcap * sizeof(uint32_t));
    }
    dc_free(a, b.cols, b.capcols * sizeof *b.cols);
    dc_free(a, b.keys, b.keycap * sizeof *b.keys);
    dc_free(a, keep, s->n * sizeof *keep);
    dc_free(a, order, s->n * sizeof *order);
    if (b.oom) {
        dc_dict_unref(dict);
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    t->bytes = arena.total + dict->strings.total + dict->npages * DC_DICT_PAGE * sizeof(dc_str *) +
               (dict->index ? dict->index->cap : 0) * sizeof(uint32_t);
    t->arena = arena; /* t lives in the arena: copy the header last */
    *out = t;
    return DRACEL_OK;
}
