/*
 * table.c: the dictionary and the read side of device tables (column lookup, boxed reads, the
 * device map for whole-map uses). Building a table from ResourceSlices is src/table_build.c.
 */
#include "table.h"

#include <stddef.h>
#include <string.h>

#include "vm.h"

/* ---- Dictionary. */

static size_t index_bytes(uint32_t cap)
{
    return sizeof(dc_dict_index) + (size_t)cap * sizeof(uint32_t);
}


dc_dict *dc_dict_new(const dracel_alloc *a)
{
    dc_dict *d = dc_malloc(a, sizeof *d);
    if (!d)
        return NULL;
    memset(d, 0, sizeof *d);
    if (pthread_mutex_init(&d->lock, NULL) != 0) {
        dc_free(a, d, sizeof *d);
        return NULL;
    }
    /* its own copy of the allocator: a dictionary outlives the table or fleet that made it */
    d->alloc_copy = *a;
    d->alloc = &d->alloc_copy;
    d->refs = 1;
    dc_arena_init(&d->strings, d->alloc);
    dc_arena_init(&d->objs, d->alloc);
    return d;
}

void dc_dict_ref(dc_dict *d)
{
    pthread_mutex_lock(&d->lock);
    d->refs++;
    pthread_mutex_unlock(&d->lock);
}

void dc_dict_unref(dc_dict *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    uint32_t left = --d->refs;
    pthread_mutex_unlock(&d->lock);
    if (left)
        return;
    dracel_alloc ac = d->alloc_copy; /* d holds it: keep a copy to free d itself */
    const dracel_alloc *a = &ac;
    for (uint32_t i = 0; i < d->npages; i++)
        dc_free(a, (void *)d->pages[i], DC_DICT_PAGE * sizeof(dc_str *));
    for (uint32_t i = 0; i < d->nretired; i++)
        dc_free(a, d->retired[i].p, d->retired[i].n);
    dc_free(a, d->retired, d->cap_retired * sizeof *d->retired);
    dc_free(a, d->pages, d->cap_pages * sizeof *d->pages);
    if (d->index)
        dc_free(a, d->index, index_bytes(d->index->cap));
    dc_free(a, d->memo, d->memo_cap * sizeof *d->memo);
    if (d->spare)
        dc_free(&d->spare_alloc, d->spare, d->spare_size);
    dc_arena_free(&d->objs);
    dc_arena_free(&d->strings);
    pthread_mutex_destroy(&d->lock);
    dc_free(a, d, sizeof *d);
}

static uint64_t str_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

/* Keep an old page directory or index until the dictionary goes: a reader may hold it. */
static bool retire(dc_dict *d, void *p, size_t n)
{
    if (!p)
        return true;
    if (d->nretired == d->cap_retired) {
        uint32_t cap = d->cap_retired ? d->cap_retired * 2 : 16;
        dc_dict_retired *r = dc_realloc(d->alloc, d->retired, d->cap_retired * sizeof *r,
                                        cap * sizeof *r);
        if (!r)
            return false;
        d->retired = r;
        d->cap_retired = cap;
    }
    d->retired[d->nretired].p = p;
    d->retired[d->nretired++].n = n;
    return true;
}

static bool dict_grow_index(dc_dict *d)
{
    dc_dict_index *old = d->index;
    uint32_t cap = old ? old->cap * 2 : 1024;
    dc_dict_index *ix = dc_malloc(d->alloc, index_bytes(cap));
    if (!ix)
        return false;
    memset(ix, 0, index_bytes(cap));
    ix->cap = cap;
    for (uint32_t id = 0; id < d->count; id++) {
        const dc_str *s = dc_dict_str(d, id);
        uint32_t j = (uint32_t)str_hash(s->data, s->len) & (cap - 1);
        while (ix->slot[j])
            j = (j + 1) & (cap - 1);
        ix->slot[j] = id + 1;
    }
    /* retire the old one first: if that fails, nothing is published */
    if (!retire(d, old, old ? index_bytes(old->cap) : 0)) {
        dc_free(d->alloc, ix, index_bytes(cap));
        return false;
    }
    __atomic_store_n(&d->index, ix, __ATOMIC_RELEASE);
    return true;
}

uint32_t dc_dict_find(const dc_dict *d, const char *s, size_t n, uint32_t limit)
{
    const dc_dict_index *ix = __atomic_load_n(&d->index, __ATOMIC_ACQUIRE);
    if (!ix)
        return DC_DICT_NONE;
    uint32_t mask = ix->cap - 1;
    for (uint32_t j = (uint32_t)str_hash(s, n) & mask;; j = (j + 1) & mask) {
        uint32_t v = __atomic_load_n(&ix->slot[j], __ATOMIC_ACQUIRE);
        if (!v)
            return DC_DICT_NONE;
        uint32_t id = v - 1;
        if (id >= limit)
            continue; /* newer than the reader's snapshot: not its to see */
        const dc_str *x = dc_dict_str(d, id);
        if (x->len == n && memcmp(x->data, s, n) == 0)
            return id;
    }
}

uint32_t dc_dict_intern(dc_dict *d, const char *s, size_t n)
{
    uint32_t id = dc_dict_find(d, s, n, UINT32_MAX);
    if (id != DC_DICT_NONE)
        return id;
    if ((!d->index || (d->count + 1) * 2 > d->index->cap) && !dict_grow_index(d))
        return DC_DICT_NONE;
    if (d->count / DC_DICT_PAGE >= d->npages) {
        if (d->npages == d->cap_pages) {
            uint32_t cap = d->cap_pages ? d->cap_pages * 2 : 16;
            const dc_str ***p = dc_malloc(d->alloc, cap * sizeof *p);
            if (!p)
                return DC_DICT_NONE;
            if (d->npages)
                memcpy(p, d->pages, d->npages * sizeof *p);
            if (!retire(d, d->pages, d->cap_pages * sizeof *d->pages)) {
                dc_free(d->alloc, p, cap * sizeof *p);
                return DC_DICT_NONE;
            }
            __atomic_store_n(&d->pages, p, __ATOMIC_RELEASE);
            d->cap_pages = cap;
        }
        const dc_str **page = dc_malloc(d->alloc, DC_DICT_PAGE * sizeof *page);
        if (!page)
            return DC_DICT_NONE;
        d->pages[d->npages++] = page;
    }
    dc_str *x = dc_arena_alloc(&d->strings, sizeof *x + n + 1);
    if (!x)
        return DC_DICT_NONE;
    x->len = (uint32_t)n;
    memcpy(x->data, s, n);
    x->data[n] = '\0';
    id = d->count;
    d->pages[id / DC_DICT_PAGE][id % DC_DICT_PAGE] = x;
    dc_dict_index *ix = d->index;
    uint32_t mask = ix->cap - 1;
    uint32_t j = (uint32_t)str_hash(s, n) & mask;
    while (ix->slot[j])
        j = (j + 1) & mask;
    /* the entry is in its page before its slot says so */
    __atomic_store_n(&ix->slot[j], id + 1, __ATOMIC_RELEASE);
    d->count++;
    return id;
}

static bool same_alloc(const dracel_alloc *x, const dracel_alloc *y)
{
    return x->malloc == y->malloc && x->realloc == y->realloc && x->free == y->free &&
           x->ctx == y->ctx;
}

void *dc_dict_block(dc_dict *d, const dracel_alloc *a, size_t n, size_t *size)
{
    if (d->spare && d->spare_size >= n && d->spare_size / 2 <= n &&
        same_alloc(&d->spare_alloc, a)) {
        void *p = d->spare;
        *size = d->spare_size;
        d->spare = NULL;
        return p;
    }
    *size = n;
    return dc_malloc(a, n);
}

static uint32_t memo_slot(uint64_t key, uint32_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (uint32_t)key & (cap - 1);
}

const void *dc_dict_memo_get(const dc_dict *d, uint64_t key)
{
    if (!d->memo_cap)
        return NULL;
    for (uint32_t j = memo_slot(key, d->memo_cap);; j = (j + 1) & (d->memo_cap - 1)) {
        if (d->memo[j].key == key)
            return d->memo[j].obj;
        if (!d->memo[j].key)
            return NULL;
    }
}

bool dc_dict_memo_put(dc_dict *d, uint64_t key, const void *obj)
{
    if ((d->memo_n + 1) * 2 > d->memo_cap) {
        uint32_t cap = d->memo_cap ? d->memo_cap * 2 : 256;
        dc_dict_memo *m = dc_malloc(d->alloc, cap * sizeof *m);
        if (!m)
            return false;
        memset(m, 0, cap * sizeof *m);
        for (uint32_t i = 0; i < d->memo_cap; i++)
            if (d->memo[i].key) {
                uint32_t j = memo_slot(d->memo[i].key, cap);
                while (m[j].key)
                    j = (j + 1) & (cap - 1);
                m[j] = d->memo[i];
            }
        dc_free(d->alloc, d->memo, d->memo_cap * sizeof *d->memo);
        d->memo = m;
        d->memo_cap = cap;
    }
    uint32_t j = memo_slot(key, d->memo_cap);
    while (d->memo[j].key && d->memo[j].key != key)
        j = (j + 1) & (d->memo_cap - 1);
    if (!d->memo[j].key)
        d->memo_n++;
    d->memo[j].key = key;
    d->memo[j].obj = obj;
    return true;
}

/* ---- Reads. */

static int cmp_name(const dc_tcol *c, bool capacity, const char *domain, size_t dn,
                    const char *id, size_t in)
{
    if (c->capacity != capacity)
        return c->capacity < capacity ? -1 : 1;
    size_t m = c->domain->len < dn ? c->domain->len : dn;
    int r = memcmp(c->domain->data, domain, m);
    if (r || c->domain->len != dn)
        return r ? r : (c->domain->len < dn ? -1 : 1);
    m = c->id->len < in ? c->id->len : in;
    r = memcmp(c->id->data, id, m);
    if (r || c->id->len != in)
        return r ? r : (c->id->len < in ? -1 : 1);
    return 0;
}

const dc_tcol *dc_table_col(const dc_table *t, bool capacity, const char *domain, size_t dn,
                            const char *id, size_t in)
{
    uint32_t lo = 0, hi = t->ncols;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int r = cmp_name(&t->cols[mid], capacity, domain, dn, id, in);
        if (r == 0)
            return &t->cols[mid];
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const dc_foreign *find_row(const dc_foreign *v, uint32_t n, uint32_t row)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid].row == row)
            return &v[mid];
        if (v[mid].row < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The first entry of a row-sorted side table whose row (the uint32_t at offset off of each
 * size-byte entry) is at least row. The allocator asks for a device's capacities, taints and
 * counters many times on every node, and side tables are mostly as regular as fleets (k
 * entries a device): the search starts where a uniform table would hold the row and gallops
 * from there, two or three probes instead of the seventeen of a binary search over 100,000
 * devices; an irregular table costs about twice a binary search. */
static uint32_t side_first(const void *arr, size_t size, size_t off, uint32_t count,
                           uint32_t rows, uint32_t row)
{
#define SIDE_AT(i) (*(const uint32_t *)((const char *)arr + (size_t)(i) * size + off))
    if (!count)
        return 0;
    uint64_t g = rows ? (uint64_t)row * count / rows : 0;
    uint32_t lo, hi;             /* the answer is in [lo, hi] */
    if (g >= count)
        g = count - 1;
    if (SIDE_AT(g) < row) {
        lo = (uint32_t)g + 1, hi = lo;
        for (uint32_t step = 1; hi < count && SIDE_AT(hi) < row; step *= 2) {
            lo = hi + 1;
            hi = count - hi > step ? hi + step : count;
        }
    } else {
        hi = (uint32_t)g, lo = hi;
        for (uint32_t step = 1; lo > 0 && SIDE_AT(lo - 1) >= row; step *= 2) {
            hi = lo - 1;
            lo = lo > step ? lo - step : 0;
        }
    }
    while (lo < hi) {            /* SIDE_AT(hi) >= row or hi == count; below lo all < row */
        uint32_t mid = lo + (hi - lo) / 2;
        if (SIDE_AT(mid) < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
#undef SIDE_AT
}

/* The run of entries of `row` in a row-sorted side table. */
#define SIDE_RANGE(type, arr, count, field)                                             \
    do {                                                                                \
        uint32_t lo = side_first((arr), sizeof(type), offsetof(type, field), (count),    \
                                 t->rows, row);                                         \
        uint32_t end = lo;                                                              \
        while (end < (count) && (arr)[end].field == row)                                \
            end++;                                                                      \
        *n = end - lo;                                                                  \
        return *n ? &(arr)[lo] : NULL;                                                  \
    } while (0)

const dc_ttaint *dc_table_taints(const dc_table *t, uint32_t row, uint32_t *n)
{
    SIDE_RANGE(dc_ttaint, t->taints, t->ntaints, row);
}

const dc_tbind *dc_table_binds(const dc_table *t, uint32_t row, uint32_t *n)
{
    SIDE_RANGE(dc_tbind, t->binds, t->nbinds, row);
}

const dc_tcap *dc_table_caps(const dc_table *t, uint32_t row, uint32_t *n)
{
    SIDE_RANGE(dc_tcap, t->caps, t->ncaps, row);
}

const dc_tcounter *dc_table_consumes(const dc_table *t, uint32_t row, uint32_t *n)
{
    SIDE_RANGE(dc_tcounter, t->consumes, t->nconsumes, owner);
}

uint32_t dc_table_slice_of(const dc_table *t, uint32_t row)
{
    /* the last slice whose first row is <= row: it holds the row (empty slices before it share
     * its first row, and come earlier) */
    uint32_t lo = 0, hi = t->nslices;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->slice_first[mid] <= row)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

const dc_val *dc_table_fault(const dc_table *t, uint32_t row)
{
    const dc_foreign *f = t->nfaults ? find_row(t->faults, t->nfaults, row) : NULL;
    return f ? &f->v : NULL;
}

bool dc_tcol_get(const dc_table *t, const dc_tcol *col, uint32_t row, dc_ectx *c, dc_val *out)
{
    (void)c;
    if (dc_bit(col->present, row)) {
        switch (col->kind) {
        case DC_COL_STRING: *out = dc_strval(dc_dict_str(t->dict, col->v.sid[row])); return true;
        case DC_COL_INT: *out = dc_int(col->v.i[row]); return true;
        case DC_COL_BOOL: *out = dc_bool(dc_bit(col->v.bits, row)); return true;
        case DC_COL_VERSION:
        case DC_COL_QUANTITY: *out = col->distinct[col->v.vid[row]]; return true;
        }
    }
    const dc_foreign *f = col->nforeign ? find_row(col->foreign, col->nforeign, row) : NULL;
    if (f) {
        *out = f->v;
        return true;
    }
    return false;
}

void dc_tcol_get_run(const dc_table *t, const dc_tcol *col, uint32_t row0, uint32_t n,
                     dc_val *out, bool *got)
{
    uint32_t lo = 0, hi = col->nforeign;
    while (lo < hi) { /* the first foreign row at or after row0 */
        uint32_t mid = lo + (hi - lo) / 2;
        if (col->foreign[mid].row < row0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = row0 + i;
        got[i] = true;
        if (dc_bit(col->present, row)) {
            switch (col->kind) {
            case DC_COL_STRING: out[i] = dc_strval(dc_dict_str(t->dict, col->v.sid[row])); break;
            case DC_COL_INT: out[i] = dc_int(col->v.i[row]); break;
            case DC_COL_BOOL: out[i] = dc_bool(dc_bit(col->v.bits, row)); break;
            case DC_COL_VERSION:
            case DC_COL_QUANTITY: out[i] = col->distinct[col->v.vid[row]]; break;
            }
            continue;
        }
        while (lo < col->nforeign && col->foreign[lo].row < row)
            lo++; /* (never: a row is present or foreign, not both) */
        if (lo < col->nforeign && col->foreign[lo].row == row) {
            out[i] = col->foreign[lo++].v;
        } else {
            got[i] = false;
        }
    }
}

/* The device as a map: driver, attributes (domain -> id -> value; missing domains are empty
 * maps), capacity, allowMultipleAllocations. Built on demand, only for programs that use the
 * device as a whole (a dynamic key, `in`, size(), a macro over domains). */
dc_val dc_table_device(const dc_table *t, uint32_t row, dc_ectx *c)
{
    const dc_val *fault = dc_table_fault(t, row);
    if (fault)
        return *fault;
    dc_val groups[2];
    for (int g = 0; g < 2; g++) {
        bool capacity = g == 1;
        /* Columns are sorted by (capacity, domain, id): domains are runs. */
        dc_val *dk = dc_ealloc(c, (t->ncols + 1) * sizeof *dk);
        dc_val *dv = dc_ealloc(c, (t->ncols + 1) * sizeof *dv);
        if (!dk || !dv)
            return dc_oom(c);
        uint32_t nd = 0;
        for (uint32_t i = 0; i < t->ncols;) {
            const dc_tcol *col = &t->cols[i];
            uint32_t j = i;
            while (j < t->ncols && t->cols[j].capacity == col->capacity &&
                   t->cols[j].domain == col->domain)
                j++;
            if (col->capacity == capacity) {
                dc_val *ik = dc_ealloc(c, (j - i) * sizeof *ik);
                dc_val *iv = dc_ealloc(c, (j - i) * sizeof *iv);
                dc_map *m = dc_ealloc(c, sizeof *m);
                if (!ik || !iv || !m)
                    return dc_oom(c);
                uint32_t n = 0;
                for (uint32_t k = i; k < j; k++)
                    if (dc_tcol_get(t, &t->cols[k], row, c, &iv[n])) {
                        ik[n] = dc_strval(t->cols[k].id);
                        n++;
                    }
                if (n) {
                    memset(m, 0, sizeof *m);
                    m->n = n;
                    m->keys = ik;
                    m->vals = iv;
                    dk[nd] = dc_strval(col->domain);
                    dv[nd] = dc_mapval(m);
                    nd++;
                }
            }
            i = j;
        }
        groups[g] = dc_map_build(c, dk, dv, nd);
        if (groups[g].k == DC_K_ERROR)
            return groups[g];
        ((dc_map *)groups[g].u.m)->flags |= DC_MAPF_MISSING_EMPTY;
    }
    const dc_tpool *pool = &t->pools[t->pool[row]];
    dc_val keys[4], vals[4];
    dc_str *k0 = dc_str_new(c, "driver", 6), *k1 = dc_str_new(c, "attributes", 10),
           *k2 = dc_str_new(c, "capacity", 8), *k3 = dc_str_new(c, "allowMultipleAllocations", 24);
    if (!k0 || !k1 || !k2 || !k3)
        return dc_oom(c);
    keys[0] = dc_strval(k0);
    vals[0] = dc_strval(dc_dict_str(t->dict, pool->driver));
    keys[1] = dc_strval(k1);
    vals[1] = groups[0];
    keys[2] = dc_strval(k2);
    vals[2] = groups[1];
    keys[3] = dc_strval(k3);
    vals[3] = dc_bool(dc_bit(t->multi, row));
    return dc_map_build(c, keys, vals, 4);
}

void dc_table_free(dc_table *t)
{
    if (!t)
        return;
    if (t->rows_block) {
        /* keep it for the next patch (one block: the newest freed), else free it */
        dc_dict *d = t->dict;
        void *old = NULL;
        size_t old_size = 0;
        dracel_alloc old_alloc;
        pthread_mutex_lock(&d->lock);
        if (d->spare) {
            old = d->spare;
            old_size = d->spare_size;
            old_alloc = d->spare_alloc;
        }
        d->spare = t->rows_block;
        d->spare_size = t->rows_block_size;
        d->spare_alloc = *t->alloc;
        pthread_mutex_unlock(&d->lock);
        if (old)
            dc_free(&old_alloc, old, old_size);
    }
    dc_dict_unref(t->dict);
    dc_arena a = t->arena;
    dc_arena_free(&a);
}
