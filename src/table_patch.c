/*
 * table_patch.c: a snapshot built from the previous one (see tablebuild.h), for a change
 * confined to a few pools, as a watch event is.
 *
 * The new table is the old one with the changed pools' rows rebuilt: rows of unchanged pools
 * are copied in runs (one run between two changed pools), every array of a run with one memcpy
 * (or a word-wise bit copy for bitmaps), and indexes into other arrays shifted by the run's
 * offset where a change before it moved them (rows, slices, pools, node selectors); side tables
 * (faults, taints, counters, foreign values) are sorted by row or pool, so a run's entries are
 * one binary search away. The changed pools are built by the same code as a full build
 * (dc_tb_fill_pool), from their slices now. Objects rows point to live in the dictionary's
 * store, shared with the old table, so nothing is copied deeply.
 *
 * What a full build would decide from all rows is kept exact:
 *   - columns: one per name some row has a value of (a column that lost its last value goes;
 *     a new name gets a column, placed in name order); a column keeps its kind, and a change
 *     that would leave more values of other kinds than of its own is built in full instead;
 *   - distinct versions and quantities: each holds how many rows use it; one no row uses any
 *     more is removed (the column's ids renumbered), new ones are appended;
 *   - a string column's few distinct ids (sids): counted the same way; a column that had too
 *     many to list is scanned again when it lost values;
 *   - the longest string, the pool states (judged per pool), the counter groups (numbered on).
 * Orders that show in no result may differ from a full build: distinct values and sids are in
 * order of first appearance in a full build, appended here. The placement index is patched
 * alongside (dc_pindex_patch in src/alloc/pindex.c) from the runs this records (dc_patch_delta).
 *
 * Change with: src/table_build.c (the builder), vm/table.h (what a table holds),
 * src/alloc/pindex.c (dc_pindex_patch), tests/unit/test_fleet.c (test_fleet_random),
 * docs/columnar.md.
 */
#include <stdlib.h>
#include <string.h>

#include "tablebuild.h"

void dc_patch_delta_free(dc_patch_delta *d)
{
    if (!d || !d->alloc)
        return;
    dc_free(d->alloc, d->segs, d->capsegs * sizeof *d->segs);
    d->segs = NULL;
    d->nsegs = d->capsegs = 0;
}

static bool push_seg(dc_patch_delta *d, const dc_patch_seg *s)
{
    if (d->nsegs == d->capsegs) {
        uint32_t cap = d->capsegs ? d->capsegs * 2 : 16;
        dc_patch_seg *v = dc_realloc(d->alloc, d->segs, d->capsegs * sizeof *v, cap * sizeof *v);
        if (!v)
            return false;
        d->segs = v;
        d->capsegs = cap;
    }
    d->segs[d->nsegs++] = *s;
    return true;
}

/* ---- Bits and ranges. */

/* OR bits [spos, spos + n) of src into dst from dpos (the bits there are zero). */
static void bits_copy(uint64_t *dst, uint32_t dpos, const uint64_t *src, uint32_t spos, uint32_t n)
{
    if (!((dpos | spos) & 63)) {
        memcpy(dst + dpos / 64, src + spos / 64, (n / 64) * sizeof *dst);
        dpos += n / 64 * 64;
        spos += n / 64 * 64;
        n %= 64;
    }
    while (n) {
        uint32_t dof = dpos & 63, so = spos & 63;
        uint32_t take = 64 - dof < n ? 64 - dof : n;
        uint64_t w = src[spos >> 6] >> so;
        if (so && so + take > 64)
            w |= src[(spos >> 6) + 1] << (64 - so);
        if (take < 64)
            w &= ((uint64_t)1 << take) - 1;
        dst[dpos >> 6] |= w << dof;
        dpos += take;
        spos += take;
        n -= take;
    }
}

/* Set bits in [from, from + n). */
static uint32_t bits_count(const uint64_t *b, uint32_t from, uint32_t n)
{
    uint32_t c = 0;
    for (uint32_t r = from; r < from + n;) {
        uint32_t off = r & 63, take = 64 - off < from + n - r ? 64 - off : from + n - r;
        uint64_t w = b[r >> 6] >> off;
        if (take < 64)
            w &= ((uint64_t)1 << take) - 1;
        c += (uint32_t)__builtin_popcountll(w);
        r += take;
    }
    return c;
}

/* The first entry of a side table sorted by `field` that is >= key. */
#define LOWER(arr, count, field, key, out)                                   \
    do {                                                                     \
        uint32_t lo_ = 0, hi_ = (count);                                     \
        while (lo_ < hi_) {                                                  \
            uint32_t mid_ = lo_ + (hi_ - lo_) / 2;                           \
            if ((arr)[mid_].field < (key))                                   \
                lo_ = mid_ + 1;                                              \
            else                                                             \
                hi_ = mid_;                                                  \
        }                                                                    \
        (out) = lo_;                                                         \
    } while (0)

/* ---- The patch. */

/* A changed pool. */
typedef struct pch {
    dc_patch_pool *in;
    uint32_t old;                /* its index in the old table, or UINT32_MAX (a new pool) */
    uint32_t at;                 /* where it goes among the old pools */
    bool *keep;                  /* per slice of in: of the newest generation */
    dc_tpool scan;
} pch;

typedef struct patch {
    const dc_table *o;
    dc_table *t;
    dc_tb b;
    const dracel_alloc *a;
    pch *ch;
    uint32_t nch;
    uint32_t *oldcol;            /* per new column: the old one, or UINT32_MAX */
    uint32_t *bcol;              /* per new column: the builder column */
    uint32_t *removed;           /* per old column: values in the rows of changed pools */
    bool *rescan;                /* per builder column: sids to count again */
    uint32_t np;                 /* new pools so far */
    dc_patch_delta *delta;
    unsigned char *blk;          /* the rest of the block the row arrays are carved from */
    size_t blk_left;
} patch;

/* The row arrays of the new table come from one block, 64-byte aligned: the block of the
 * table freed last when it fits (dc_dict_block: its pages are mapped already, where a fresh
 * block of a large table faults in every page, and an allocator may map and unmap blocks that
 * large every time), else a new one. */
/* What carving n bytes takes of the block. */
static size_t carved(size_t n)
{
    return ((n ? n : 1) + 63) & ~(size_t)63;
}

static void *carve(patch *P, size_t n, bool zero)
{
    n = carved(n);
    if (n > P->blk_left)
        return NULL; /* cannot happen: sized in advance */
    void *p = P->blk;
    P->blk += n;
    P->blk_left -= n;
    if (zero)
        memset(p, 0, n);
    return p;
}

static size_t col_bytes(const dc_tcol *col, size_t rows)
{
    size_t words = DC_BITS_WORDS(rows);
    size_t v = col->kind == DC_COL_INT ? rows * 8 : col->kind == DC_COL_BOOL ? words * 8 : rows * 4;
    return carved(words * 8) + carved(v);
}

static int cmp_dict(const dc_dict *d, uint32_t id, const char *s)
{
    return strcmp(dc_dict_str(d, id)->data, s);
}

/* The first of pools [lo, hi) (sorted by driver, then name) not before (driver, pool). */
static uint32_t pool_at(const dc_table *o, uint32_t lo, uint32_t hi, const char *driver,
                        const char *pool)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = cmp_dict(o->dict, o->pools[mid].driver, driver);
        if (!c)
            c = cmp_dict(o->dict, o->pools[mid].name, pool);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool pool_is(const dc_table *o, uint32_t p, uint32_t hi, const char *driver,
                    const char *pool)
{
    return p < hi && !cmp_dict(o->dict, o->pools[p].driver, driver) &&
           !cmp_dict(o->dict, o->pools[p].name, pool);
}

/* The live pool (driver, pool) of o, or where it would go. */
static uint32_t find_pool(const dc_table *o, const char *driver, const char *pool, bool *found)
{
    uint32_t p = pool_at(o, 0, o->nlive_pools, driver, pool);
    *found = pool_is(o, p, o->nlive_pools, driver, pool);
    return p;
}

static int cmp_pch(const void *a, const void *b)
{
    const pch *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    bool xo = x->old != UINT32_MAX, yo = y->old != UINT32_MAX;
    if (xo != yo)
        return xo ? 1 : -1; /* new pools go before the old pool they precede */
    int c = strcmp(x->in->driver, y->in->driver);
    return c ? c : strcmp(x->in->pool, y->in->pool);
}

static uint32_t old_end_row(const dc_table *o, uint32_t p)
{
    return p < o->npools ? o->pools[p].first_row : o->rows;
}

static uint32_t old_end_slice(const dc_table *o, uint32_t p)
{
    return p < o->npools ? o->pools[p].first_slice : o->nslices;
}

static uint32_t old_end_sel(const dc_table *o, uint32_t p)
{
    return p < o->npools ? o->pools[p].first_sel : o->nselectors;
}

/* Room for `add` more entries after n in a vector of the table's arena (*v moves when it
 * grows). false on ENOMEM (b->oom). */
static bool room_for(dc_tb *b, void **v, uint32_t n, uint32_t add, uint32_t *cap, size_t size)
{
    if (n + add <= *cap)
        return true;
    uint32_t c = *cap ? *cap : 8;
    while (c < n + add)
        c *= 2;
    void *nv = dc_arena_alloc(b->ta, (size_t)c * size);
    if (!nv) {
        b->oom = true;
        return false;
    }
    if (n)
        memcpy(nv, *v, (size_t)n * size);
    *v = nv;
    *cap = c;
    return true;
}

/* Reserve room for n entries of a builder side vector (the table's arena). */
static void *reserve(patch *P, uint32_t n, uint32_t *cap, size_t size)
{
    *cap = n + n / 8 + 16;
    void *v = dc_arena_alloc(P->b.ta, (size_t)*cap * size);
    if (!v)
        P->b.oom = true;
    return v;
}

/* The columns of the new table: the old ones that keep a value, and the new names, in order. */
static void lay_out_columns(patch *P)
{
    const dc_table *o = P->o;
    dc_tb *b = &P->b;
    dc_table *t = P->t;
    uint32_t nb = b->ncols; /* old columns are builder columns 0..o->ncols-1 */
    uint32_t *neworder = dc_arena_alloc(b->ta, (nb + 1) * sizeof *neworder);
    dc_tcol *tmp = dc_arena_zalloc(b->ta, (nb + 1) * sizeof *tmp);
    t->cols = dc_arena_zalloc(b->ta, (nb + 1) * sizeof *t->cols);
    P->oldcol = dc_arena_alloc(b->ta, (nb + 1) * sizeof *P->oldcol);
    P->bcol = dc_arena_alloc(b->ta, (nb + 1) * sizeof *P->bcol);
    if (!neworder || !tmp || !t->cols || !P->oldcol || !P->bcol) {
        b->oom = true;
        return;
    }
    uint32_t nnew = 0;
    for (uint32_t c = o->ncols; c < nb; c++) {
        tmp[c].domain = dc_dict_str(b->dict, b->cols[c].domain);
        tmp[c].id = dc_dict_str(b->dict, b->cols[c].id);
        tmp[c].capacity = b->cols[c].capacity;
        uint32_t k = nnew++;
        while (k > 0 && dc_tb_cmp_col(&tmp[neworder[k - 1]], &tmp[c]) > 0) { /* few: insertion */
            neworder[k] = neworder[k - 1];
            k--;
        }
        neworder[k] = c;
    }
    uint32_t n = 0, i = 0, j = 0;
    while (i < o->ncols || j < nnew) {
        bool take_old;
        if (i < o->ncols) {
            const dc_tb_col *bc = &b->cols[i];
            uint32_t added = 0;
            for (int k = 0; k < DC_TB_KINDS; k++)
                added += bc->kinds[k];
            if (o->cols[i].nvalues == P->removed[i] && !added) {
                i++; /* no value left: the column goes */
                continue;
            }
            take_old = j == nnew || dc_tb_cmp_col(&o->cols[i], &tmp[neworder[j]]) < 0;
        } else {
            take_old = false;
        }
        dc_tcol *col = &t->cols[n];
        if (take_old) {
            const dc_tcol *oc = &o->cols[i];
            col->domain = oc->domain;
            col->id = oc->id;
            col->domain_id = oc->domain_id;
            col->id_id = oc->id_id;
            col->capacity = oc->capacity;
            col->kind = oc->kind;
            P->oldcol[n] = i;
            P->bcol[n] = i;
            b->cols[i].col = n;
            i++;
        } else {
            uint32_t c = neworder[j++];
            dc_tb_col *bc = &b->cols[c];
            col->domain = tmp[c].domain;
            col->id = tmp[c].id;
            col->domain_id = bc->domain;
            col->id_id = bc->id;
            col->capacity = bc->capacity;
            dc_colkind best = DC_COL_STRING;
            for (int k = 1; k < 5; k++)
                if (bc->kinds[k] > bc->kinds[best])
                    best = (dc_colkind)k;
            col->kind = best;
            P->oldcol[n] = UINT32_MAX;
            P->bcol[n] = c;
            bc->col = n;
        }
        n++;
    }
    t->ncols = n;
}

/* Per column: the arrays (old columns' values are copied or built over; new columns' are zero
 * where copied runs leave them), and the builder's counts carried over from the old table,
 * less the rows of changed pools. */
static void start_columns(patch *P)
{
    const dc_table *o = P->o;
    dc_tb *b = &P->b;
    dc_table *t = P->t;
    size_t rows = t->rows, words = DC_BITS_WORDS(rows);
    for (uint32_t c = 0; c < t->ncols && !b->oom; c++) {
        dc_tcol *col = &t->cols[c];
        bool old = P->oldcol[c] != UINT32_MAX;
        col->present = carve(P, words * sizeof(uint64_t), true);
        switch (col->kind) {
        case DC_COL_STRING: col->v.sid = carve(P, rows * sizeof(uint32_t), !old); break;
        case DC_COL_INT: col->v.i = carve(P, rows * sizeof(int64_t), !old); break;
        case DC_COL_BOOL: col->v.bits = carve(P, words * sizeof(uint64_t), true); break;
        default: col->v.vid = carve(P, rows * sizeof(uint32_t), !old); break;
        }
        if (!col->present || !col->v.sid) {
            b->oom = true;
            return;
        }
        if (!old)
            continue;
        const dc_tcol *oc = &o->cols[P->oldcol[c]];
        dc_tb_col *bc = &b->cols[P->bcol[c]];
        bc->nvalues = oc->nvalues - P->removed[P->oldcol[c]];
        if (oc->nforeign) {
            bc->foreign = reserve(P, oc->nforeign, &bc->capforeign, sizeof *bc->foreign);
            if (!bc->foreign)
                return;
        }
        if (oc->kind == DC_COL_VERSION || oc->kind == DC_COL_QUANTITY) {
            /* the distinct values, and an index of them by text */
            uint32_t nd = oc->ndistinct, cap = nd + 8;
            bc->distinct = dc_arena_alloc(b->ta, cap * sizeof *bc->distinct);
            bc->dtext = dc_arena_alloc(b->ta, cap * sizeof *bc->dtext);
            bc->drows = dc_arena_alloc(b->ta, cap * sizeof *bc->drows);
            uint32_t dcap = 16;
            while (dcap <= nd * 2)
                dcap *= 2;
            bc->dkeys = dc_malloc(b->alloc, dcap * sizeof *bc->dkeys);
            bc->dvals = dc_malloc(b->alloc, dcap * sizeof *bc->dvals);
            if (bc->dkeys && bc->dvals)
                bc->dcap = dcap;
            if (!bc->distinct || !bc->dtext || !bc->drows || !bc->dkeys || !bc->dvals) {
                dc_free(b->alloc, bc->dkeys, dcap * sizeof *bc->dkeys);
                dc_free(b->alloc, bc->dvals, dcap * sizeof *bc->dvals);
                bc->dkeys = bc->dvals = NULL;
                bc->dcap = 0;
                b->oom = true;
                return;
            }
            if (nd) { /* (an empty column may have no arrays) */
                memcpy(bc->distinct, oc->distinct, nd * sizeof *bc->distinct);
                memcpy(bc->dtext, oc->distinct_text, nd * sizeof *bc->dtext);
                memcpy(bc->drows, oc->distinct_rows, nd * sizeof *bc->drows);
            }
            bc->ndistinct = nd;
            bc->capdistinct = cap;
            memset(bc->dkeys, 0, dcap * sizeof *bc->dkeys);
            for (uint32_t k = 0; k < nd; k++) {
                uint32_t j = ((bc->dtext[k] + 1) * 2654435761u) & (dcap - 1);
                while (bc->dkeys[j])
                    j = (j + 1) & (dcap - 1);
                bc->dkeys[j] = bc->dtext[k] + 1;
                bc->dvals[j] = k;
            }
        } else if (oc->kind == DC_COL_STRING) {
            bc->many = !oc->sids;
            if (oc->sids && oc->nsids) {
                bc->nsids = oc->nsids;
                memcpy(bc->sids, oc->sids, oc->nsids * sizeof *bc->sids);
                memcpy(bc->sidn, oc->sid_rows, oc->nsids * sizeof *bc->sidn);
            }
        }
        /* less the values of the changed pools' old rows */
        for (uint32_t k = 0; k < P->nch; k++) {
            if (P->ch[k].old == UINT32_MAX)
                continue;
            const dc_tpool *op = &o->pools[P->ch[k].old];
            for (uint32_t r = op->first_row; r < op->first_row + op->rows; r++) {
                if (!dc_bit(oc->present, r))
                    continue;
                if (oc->kind == DC_COL_VERSION || oc->kind == DC_COL_QUANTITY) {
                    bc->drows[oc->v.vid[r]]--;
                } else if (oc->kind == DC_COL_STRING) {
                    P->rescan[P->bcol[c]] |= bc->many;
                    for (uint32_t s = 0; !bc->many && s < bc->nsids; s++)
                        if (bc->sids[s] == oc->v.sid[r]) {
                            bc->sidn[s]--;
                            break;
                        }
                }
            }
        }
        /* ids no row holds any more leave the list before new ones come */
        uint32_t n = 0;
        for (uint32_t k = 0; !bc->many && k < bc->nsids; k++)
            if (bc->sidn[k]) {
                bc->sids[n] = bc->sids[k];
                bc->sidn[n++] = bc->sidn[k];
            }
        if (!bc->many)
            bc->nsids = n;
        bc->lastk = 0;
    }
}

/* Copy the rows of old pools [pa, pb) to the end of the new table. */
static void copy_run(patch *P, uint32_t pa, uint32_t pb)
{
    const dc_table *o = P->o;
    dc_table *t = P->t;
    dc_tb *b = &P->b;
    uint32_t ra = o->pools[pa].first_row, rb = old_end_row(o, pb), n = rb - ra;
    uint32_t sa = o->pools[pa].first_slice, sb = old_end_slice(o, pb);
    uint32_t la = o->pools[pa].first_sel, lb = old_end_sel(o, pb);
    /* offsets, modulo 2^32: new = old + d */
    uint32_t dr = b->row - ra, ds = b->slice - sa, dl = b->nsels - la, dp = P->np - pa;
    uint32_t row = b->row;

    memcpy(t->device_name + row, o->device_name + ra, n * sizeof *t->device_name);
    memcpy(t->node_kind + row, o->node_kind + ra, n);
    if (dp) {
        for (uint32_t r = 0; r < n; r++)
            t->pool[row + r] = o->pool[ra + r] + dp;
    } else {
        memcpy(t->pool + row, o->pool + ra, n * sizeof *t->pool);
    }
    if (dl && lb > la) {
        for (uint32_t r = 0; r < n; r++)
            t->node[row + r] =
                o->node[ra + r] + (o->node_kind[ra + r] == DC_NODE_SELECTOR ? dl : 0);
    } else {
        memcpy(t->node + row, o->node + ra, n * sizeof *t->node);
    }
    bits_copy(t->multi, row, o->multi, ra, n);
    bits_copy(t->bindc, row, o->bindc, ra, n);
    bits_copy(t->binds_node, row, o->binds_node, ra, n);
    memcpy(t->slice_first + b->slice, o->slice_first + sa, (sb - sa) * sizeof *t->slice_first);
    for (uint32_t s = b->slice; dr && s < b->slice + (sb - sa); s++)
        t->slice_first[s] += dr;
    bits_copy(t->slice_per_device, b->slice, o->slice_per_device, sa, sb - sa);
    memcpy(t->slice_name + b->slice, o->slice_name + sa, (sb - sa) * sizeof *t->slice_name);
    memcpy(t->pools + P->np, o->pools + pa, (pb - pa) * sizeof *t->pools);
    for (uint32_t p = P->np; (dr || ds || dl) && p < P->np + (pb - pa); p++) {
        dc_tpool *np = &t->pools[p];
        np->first_row += dr;
        np->first_slice += ds;
        np->first_sel += dl;
    }
    if (!room_for(b, (void **)&b->sels, b->nsels, lb - la, &b->capsels, sizeof *b->sels))
        return;
    for (uint32_t l = la; l < lb; l++)
        b->sels[b->nsels++] = o->node_selectors[l];

    uint32_t lo, hi;
    LOWER(o->faults, o->nfaults, row, ra, lo);
    LOWER(o->faults, o->nfaults, row, rb, hi);
    if (!room_for(b, (void **)&b->faults, b->nfaults, hi - lo, &b->capfaults, sizeof *b->faults))
        return;
    for (uint32_t k = lo; k < hi; k++) {
        b->faults[b->nfaults] = o->faults[k];
        b->faults[b->nfaults++].row += dr;
    }
    LOWER(o->taints, o->ntaints, row, ra, lo);
    LOWER(o->taints, o->ntaints, row, rb, hi);
    if (!room_for(b, (void **)&b->taints, b->ntaints, hi - lo, &b->captaints, sizeof *b->taints))
        return;
    for (uint32_t k = lo; k < hi; k++) {
        b->taints[b->ntaints] = o->taints[k];
        b->taints[b->ntaints++].row += dr;
    }
    dc_patch_seg seg = {true, pa, P->np, pb - pa, sa, b->slice, sb - sa, 0, 0, 0, 0, 0, 0};
    LOWER(o->consumes, o->nconsumes, owner, ra, lo);
    LOWER(o->consumes, o->nconsumes, owner, rb, hi);
    seg.old_cons = lo;
    seg.new_cons = b->nconsumes;
    seg.cons = hi - lo;
    if (!room_for(b, (void **)&b->consumes, b->nconsumes, hi - lo, &b->capconsumes,
                  sizeof *b->consumes))
        return;
    for (uint32_t k = lo; k < hi; k++) {
        b->consumes[b->nconsumes] = o->consumes[k];
        b->consumes[b->nconsumes++].owner += dr;
    }
    LOWER(o->binds, o->nbinds, row, ra, lo);
    LOWER(o->binds, o->nbinds, row, rb, hi);
    if (!room_for(b, (void **)&b->binds, b->nbinds, hi - lo, &b->capbinds, sizeof *b->binds))
        return;
    for (uint32_t k = lo; k < hi; k++) {
        b->binds[b->nbinds] = o->binds[k];
        b->binds[b->nbinds++].row += dr;
    }
    LOWER(o->caps, o->ncaps, row, ra, lo);
    LOWER(o->caps, o->ncaps, row, rb, hi);
    if (!room_for(b, (void **)&b->caps, b->ncaps, hi - lo, &b->capcaps, sizeof *b->caps))
        return;
    for (uint32_t k = lo; k < hi; k++) {
        b->caps[b->ncaps] = o->caps[k];
        b->caps[b->ncaps++].row += dr;
    }
    LOWER(o->shared, o->nshared, owner, pa, lo);
    LOWER(o->shared, o->nshared, owner, pb, hi);
    seg.old_shared = lo;
    seg.new_shared = b->nshared;
    seg.shared = hi - lo;
    if (!room_for(b, (void **)&b->shared, b->nshared, hi - lo, &b->capshared, sizeof *b->shared))
        return;
    for (uint32_t k = lo; k < hi; k++) {
        b->shared[b->nshared] = o->shared[k];
        b->shared[b->nshared++].owner += dp;
    }

    for (uint32_t c = 0; c < t->ncols; c++) {
        if (P->oldcol[c] == UINT32_MAX)
            continue; /* zero already */
        const dc_tcol *oc = &o->cols[P->oldcol[c]];
        dc_tcol *col = &t->cols[c];
        bits_copy(col->present, row, oc->present, ra, n);
        switch (col->kind) {
        case DC_COL_STRING: memcpy(col->v.sid + row, oc->v.sid + ra, n * sizeof(uint32_t)); break;
        case DC_COL_INT: memcpy(col->v.i + row, oc->v.i + ra, n * sizeof(int64_t)); break;
        case DC_COL_BOOL: bits_copy(col->v.bits, row, oc->v.bits, ra, n); break;
        default: memcpy(col->v.vid + row, oc->v.vid + ra, n * sizeof(uint32_t)); break;
        }
        if (!oc->nforeign)
            continue;
        dc_tb_col *bc = &b->cols[P->bcol[c]];
        LOWER(oc->foreign, oc->nforeign, row, ra, lo);
        LOWER(oc->foreign, oc->nforeign, row, rb, hi);
        if (!room_for(b, (void **)&bc->foreign, bc->nforeign, hi - lo, &bc->capforeign,
                      sizeof *bc->foreign))
            return;
        for (uint32_t k = lo; k < hi; k++) {
            bc->foreign[bc->nforeign] = oc->foreign[k];
            bc->foreign[bc->nforeign++].row += dr;
        }
    }
    b->row += n;
    b->slice += sb - sa;
    P->np += pb - pa;
    if (!push_seg(P->delta, &seg))
        b->oom = true;
}

/* Build changed pool k at the end of the new table. */
static void build_pool(patch *P, pch *k)
{
    dc_table *t = P->t;
    dc_tb *b = &P->b;
    uint32_t row = b->row, n = k->scan.rows;
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (P->oldcol[c] == UINT32_MAX)
            continue;
        dc_tcol *col = &t->cols[c];
        switch (col->kind) {
        case DC_COL_STRING: memset(col->v.sid + row, 0, n * sizeof(uint32_t)); break;
        case DC_COL_INT: memset(col->v.i + row, 0, n * sizeof(int64_t)); break;
        case DC_COL_BOOL: break; /* bitmaps start zero */
        default: memset(col->v.vid + row, 0, n * sizeof(uint32_t)); break;
        }
    }
    dc_patch_seg seg = {false, UINT32_MAX, P->np, 1, UINT32_MAX, b->slice, k->scan.slices,
                        UINT32_MAX, b->nconsumes, 0, UINT32_MAX, b->nshared, 0};
    t->pools[P->np] = k->scan;
    dc_tb_fill_pool(b, P->np, (const dc_slice_in *const *)k->in->slices, k->keep, k->in->n);
    seg.cons = b->nconsumes - seg.new_cons;
    seg.shared = b->nshared - seg.new_shared;
    P->np++;
    if (!b->oom && !push_seg(P->delta, &seg))
        b->oom = true;
}

/* Values of another kind outnumber the column's own: a full build would choose that kind. */
static bool outnumbered(const dc_tb_col *bc)
{
    if (!bc->nforeign)
        return false;
    uint32_t n[5] = {0};
    for (uint32_t k = 0; k < bc->nforeign; k++)
        switch (bc->foreign[k].v.k) {
        case DC_K_INT: n[DC_COL_INT]++; break;
        case DC_K_BOOL: n[DC_COL_BOOL]++; break;
        case DC_K_STRING: n[DC_COL_STRING]++; break;
        case DC_K_SEMVER: n[DC_COL_VERSION]++; break;
        case DC_K_LIST: break; /* list attributes are never a column's kind */
        default: n[DC_COL_QUANTITY]++; break;
        }
    uint32_t own = bc->nvalues - bc->nforeign;
    for (int k = 0; k < 5; k++)
        if (n[k] > own)
            return true;
    return false;
}

/* A string column's distinct ids counted again (it had too many to list and lost values). */
static void rescan_sids(const dc_table *t, const dc_tcol *col, dc_tb_col *bc)
{
    bc->many = false;
    bc->nsids = 0;
    bc->lastk = 0;
    for (uint32_t r = 0; r < t->rows && !bc->many; r++) {
        if (!dc_bit(col->present, r))
            continue;
        uint32_t id = col->v.sid[r];
        if (bc->lastk < bc->nsids && bc->sids[bc->lastk] == id) {
            bc->sidn[bc->lastk]++;
            continue;
        }
        uint32_t k = 0;
        while (k < bc->nsids && bc->sids[k] != id)
            k++;
        if (k == bc->nsids) {
            if (k == DC_TCOL_SIDS_MAX) {
                bc->many = true;
                break;
            }
            bc->sids[k] = id;
            bc->sidn[k] = 0;
            bc->nsids++;
        }
        bc->sidn[k]++;
        bc->lastk = k;
    }
}

/* Drop the distinct values no row uses any more (renumbering the column's ids); count a string
 * column's ids again when it had too many to list and lost some. */
static void trim_column(patch *P, uint32_t c)
{
    dc_table *t = P->t;
    dc_tcol *col = &t->cols[c];
    dc_tb_col *bc = &P->b.cols[P->bcol[c]];
    if (col->kind == DC_COL_STRING) {
        /* (ids whose rows went left the list before the changed pools were built) */
        if (P->rescan[P->bcol[c]])
            rescan_sids(t, col, bc);
        return;
    }
    if (col->kind != DC_COL_VERSION && col->kind != DC_COL_QUANTITY)
        return;
    uint32_t unused = 0;
    for (uint32_t k = 0; k < bc->ndistinct; k++)
        unused += !bc->drows[k];
    if (!unused)
        return;
    uint32_t *map = dc_malloc(P->a, (bc->ndistinct + 1) * sizeof *map);
    if (!map) {
        P->b.oom = true;
        return;
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < bc->ndistinct; k++) {
        map[k] = n;
        if (bc->drows[k]) {
            bc->distinct[n] = bc->distinct[k];
            bc->dtext[n] = bc->dtext[k];
            bc->drows[n++] = bc->drows[k];
        }
    }
    for (uint32_t r = 0; r < t->rows; r++)
        if (dc_bit(col->present, r))
            col->v.vid[r] = map[col->v.vid[r]];
    dc_free(P->a, map, (bc->ndistinct + 1) * sizeof *map);
    bc->ndistinct = n; /* the index by text is not used again */
}

dracel_status dc_table_patch(const dc_table *o, dc_patch_pool *chg, uint32_t nchg,
                             const dc_taint_rule_in *rules, uint32_t nrules, double max_fraction,
                             const dracel_alloc *alloc, dc_table **out, dc_patch_delta *delta)
{
    *out = NULL;
    const dracel_alloc *a = alloc ? alloc : &dc_default_alloc;
    patch P;
    memset(&P, 0, sizeof P);
    P.o = o;
    P.a = a;
    P.delta = delta;
    delta->nsegs = 0;
    dc_arena arena;
    dc_arena_init(&arena, a);
    dc_table *t = dc_arena_zalloc(&arena, sizeof *t);
    P.ch = dc_arena_zalloc(&arena, (nchg + 1) * sizeof *P.ch);
    if (!t || !P.ch) {
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    P.t = t;
    P.nch = nchg;
    dc_dict *dict = o->dict;
    dc_dict_ref(dict);
    t->dict = dict;
    t->alloc = a;
    t->patched = true;
    dc_tb *b = &P.b;
    dc_tb_init(b, t, &arena, dict, a);
    b->groups = o->groups;
    b->rules = rules;
    b->nrules = nrules;
    pthread_mutex_lock(&dict->lock);

    /* The changed pools: where they were, where they go, what their slices keep. */
    uint64_t removed_rows = 0, added_rows = 0;
    uint32_t npools = o->npools, nslices = o->nslices;
    bool older = false; /* a changed pool has slices of an older generation */
    for (uint32_t k = 0; k < nchg && !b->oom; k++) {
        pch *c = &P.ch[k];
        c->in = &chg[k];
        bool found;
        c->at = find_pool(o, chg[k].driver, chg[k].pool, &found);
        c->old = found ? c->at : UINT32_MAX;
        c->keep = dc_arena_zalloc(&arena, (chg[k].n + 1) * sizeof *c->keep);
        if (!c->keep) {
            b->oom = true;
            break;
        }
        if (chg[k].n > 1)
            dc_sort(chg[k].slices, chg[k].n, sizeof *chg[k].slices, dc_tb_cmp_slice);
        dc_tb_scan_pool((const dc_slice_in *const *)chg[k].slices, chg[k].n, c->keep, &c->scan);
        /* older generations before or after: the pool is built in full */
        for (uint32_t i = 0; i < chg[k].n; i++)
            older |= !c->keep[i];
        older |= pool_is(o, pool_at(o, o->nlive_pools, o->npools, chg[k].driver, chg[k].pool),
                         o->npools, chg[k].driver, chg[k].pool);
        if (found) {
            removed_rows += o->pools[c->old].rows;
            npools--;
            nslices -= o->pools[c->old].slices;
        }
        if (chg[k].n) {
            added_rows += c->scan.rows;
            npools++;
            nslices += c->scan.slices;
        }
    }
    /* Older generations (stale pools, vm/table.h) are rare and short-lived, while a driver
     * republishes a pool: a change to a pool that has or would have them is built in full.
     * Other pools' older generations are copied as they are, after the live pools. */
    bool too_large = older ||
                     (double)(removed_rows + added_rows) > max_fraction * (double)o->rows;
    if (b->oom || too_large)
        goto done;
    if (nchg > 1)
        dc_sort(P.ch, nchg, sizeof *P.ch, cmp_pch);
    t->rows = (uint32_t)(o->rows - removed_rows + added_rows);
    t->npools = npools;

    /* Columns: the old ones first (builder columns 0..o->ncols-1), then the names of the
     * changed pools' devices. */
    for (uint32_t c = 0; c < o->ncols && !b->oom; c++)
        dc_tb_column(b, o->cols[c].domain_id, o->cols[c].id_id, o->cols[c].capacity, true);
    for (uint32_t k = 0; k < nchg && !b->oom; k++)
        dc_tb_columns(b, (const dc_slice_in *const *)P.ch[k].in->slices, P.ch[k].keep,
                      P.ch[k].in->n);
    P.removed = dc_arena_zalloc(&arena, (o->ncols + 1) * sizeof *P.removed);
    P.rescan = dc_arena_zalloc(&arena, (b->ncols + 1) * sizeof *P.rescan);
    if (!P.removed || !P.rescan)
        b->oom = true;
    for (uint32_t k = 0; k < nchg && !b->oom; k++) {
        if (P.ch[k].old == UINT32_MAX)
            continue;
        const dc_tpool *op = &o->pools[P.ch[k].old];
        for (uint32_t c = 0; c < o->ncols; c++) {
            const dc_tcol *oc = &o->cols[c];
            uint32_t lo, hi;
            LOWER(oc->foreign, oc->nforeign, row, op->first_row, lo);
            LOWER(oc->foreign, oc->nforeign, row, op->first_row + op->rows, hi);
            P.removed[c] += bits_count(oc->present, op->first_row, op->rows) + hi - lo;
        }
    }
    if (!b->oom)
        lay_out_columns(&P);

    /* The new table's arrays, from one block. */
    size_t rows = t->rows, words = DC_BITS_WORDS(rows);
    if (!b->oom) {
        size_t total = 3 * carved(rows * 4) + carved(rows) + 3 * carved(words * 8) +
                       carved((nslices + 1) * 4) + carved(DC_BITS_WORDS(nslices + 1) * 8) +
                       carved((nslices + 1) * 4) +
                       carved((npools + 1) * sizeof *t->pools);
        for (uint32_t c = 0; c < t->ncols; c++)
            total += col_bytes(&t->cols[c], rows);
        P.blk = dc_dict_block(dict, a, total + 64, &t->rows_block_size);
        t->rows_block = P.blk;
        P.blk_left = P.blk ? total + 64 : 0;
        if (P.blk) { /* the arena aligns to max_align_t: to 64 bytes here */
            size_t skip = (64 - ((uintptr_t)P.blk & 63)) & 63;
            P.blk += skip;
            P.blk_left -= skip;
        }
        t->device_name = carve(&P, rows * sizeof *t->device_name, false);
        t->pool = carve(&P, rows * sizeof *t->pool, false);
        t->node_kind = carve(&P, rows, false);
        t->node = carve(&P, rows * sizeof *t->node, false);
        t->multi = carve(&P, words * sizeof *t->multi, true);
        t->bindc = carve(&P, words * sizeof *t->bindc, true);
        t->binds_node = carve(&P, words * sizeof *t->binds_node, true);
        t->slice_first = carve(&P, (nslices + 1) * sizeof *t->slice_first, false);
        t->slice_per_device = carve(&P, DC_BITS_WORDS(nslices + 1) * sizeof(uint64_t), true);
        t->slice_name = carve(&P, (nslices + 1) * sizeof *t->slice_name, false);
        t->pools = carve(&P, (npools + 1) * sizeof *t->pools, false);
        if (!P.blk || !t->pools)
            b->oom = true;
    }
    if (!b->oom) {
        b->faults = reserve(&P, o->nfaults, &b->capfaults, sizeof *b->faults);
        b->taints = reserve(&P, o->ntaints, &b->captaints, sizeof *b->taints);
        b->consumes = reserve(&P, o->nconsumes, &b->capconsumes, sizeof *b->consumes);
        b->caps = reserve(&P, o->ncaps, &b->capcaps, sizeof *b->caps);
        b->binds = reserve(&P, o->nbinds, &b->capbinds, sizeof *b->binds);
        b->shared = reserve(&P, o->nshared, &b->capshared, sizeof *b->shared);
        b->sels = reserve(&P, o->nselectors, &b->capsels, sizeof *b->sels);
    }
    if (!b->oom)
        start_columns(&P);

    /* Runs of unchanged pools copied, changed pools built, in order. */
    for (uint32_t i = 0, k = 0; !b->oom && (i < o->npools || k < nchg);) {
        if (k < nchg && P.ch[k].at == i && P.ch[k].old == UINT32_MAX) {
            if (P.ch[k].in->n) /* (a pool added and deleted again has none) */
                build_pool(&P, &P.ch[k]);
            k++;
        } else if (k < nchg && P.ch[k].old == i) {
            if (P.ch[k].in->n)
                build_pool(&P, &P.ch[k]);
            k++;
            i++;
        } else {
            uint32_t j = k < nchg ? P.ch[k].at : o->npools;
            copy_run(&P, i, j);
            i = j;
        }
    }
    if (b->oom)
        goto done;
    t->slice_first[b->slice] = t->rows;
    t->nslices = b->slice;
    /* the changes were to live pools only */
    t->live_rows = (uint32_t)(o->live_rows - removed_rows + added_rows);
    t->nlive_pools = o->nlive_pools + (t->npools - o->npools);
    t->nlive_slices = o->nlive_slices + (t->nslices - o->nslices);
    for (uint32_t q = t->nlive_pools; q < t->npools; q++) { /* their live pools moved */
        const char *drv = dc_dict_str(t->dict, t->pools[q].driver)->data;
        const char *pn = dc_dict_str(t->dict, t->pools[q].name)->data;
        t->pools[q].live = pool_at(t, 0, t->nlive_pools, drv, pn);
    }
    t->faults = b->faults;
    t->nfaults = b->nfaults;
    t->taints = b->taints;
    t->ntaints = b->ntaints;
    t->consumes = b->consumes;
    t->nconsumes = b->nconsumes;
    t->caps = b->caps;
    t->ncaps = b->ncaps;
    t->binds = b->binds;
    t->nbinds = b->nbinds;
    t->shared = b->shared;
    t->nshared = b->nshared;
    t->node_selectors = (const void *const *)b->sels;
    t->nselectors = b->nsels;
    t->groups = b->groups;
    for (uint32_t p = 0; p < t->npools; p++)
        if (t->pools[p].max_strlen > t->max_strlen)
            t->max_strlen = t->pools[p].max_strlen;
    for (uint32_t c = 0; c < t->ncols && !b->oom; c++) {
        dc_tb_col *bc = &b->cols[P.bcol[c]];
        if (outnumbered(bc)) {
            too_large = true;
            break;
        }
        trim_column(&P, c);
        dc_tb_finish_col(b, bc);
    }

done:;
    t->dict_limit = dict->count;
    pthread_mutex_unlock(&dict->lock);
    bool oom = b->oom;
    dc_tb_free(b);
    if (oom || too_large) {
        if (t->rows_block)
            dc_free(a, t->rows_block, t->rows_block_size);
        dc_dict_unref(dict);
        dc_arena_free(&arena);
        delta->nsegs = 0;
        return oom ? DRACEL_ENOMEM : DRACEL_EINPUT;
    }
    t->bytes = dc_tb_bytes(t, &arena);
    t->arena = arena;
    *out = t;
    return DRACEL_OK;
}
