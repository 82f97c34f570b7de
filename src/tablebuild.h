/*
 * tablebuild.h: building a device table (vm/table.h) from loaded ResourceSlices (src/slices.h):
 * at once (src/table_build.c), or from the previous snapshot of a fleet by rebuilding only the
 * pools that changed (src/table_patch.c).
 *
 * Both build a pool's rows with the same code, the builder below (dc_tb_*): one pool at a
 * time, rows and slices in order, side tables appended, so that a table is the same whether its
 * pools were built together or one by one.
 *
 * Change with: src/table_build.c, src/table_patch.c, src/fleet.c, docs/columnar.md.
 */
#ifndef DC_TABLEBUILD_H
#define DC_TABLEBUILD_H

#include "slices.h"
#include "table.h"

/**
 * Build a table from the slices of @p s. @p dict: a dictionary to extend (shared with an
 * earlier snapshot), or NULL for a new one. The table holds its own reference to the dictionary
 * and copies everything it needs: @p s can be freed after.
 * @return DRACEL_OK with *out, or DRACEL_ENOMEM.
 */
dracel_status dc_table_build(const dc_slice_set *s, dc_dict *dict, const dracel_alloc *a,
                             dc_table **out, char *err, size_t errcap) DC_WUR;

/* ---- Patching: a new snapshot from the previous one. */

/** A pool that changed since the previous snapshot, and its slices now (any generation; none
 *  when the pool is gone). */
typedef struct dc_patch_pool {
    const char *driver, *pool;
    const dc_slice_in **slices;
    uint32_t n;
} dc_patch_pool;

/** A run of the new table: pools copied from the old table (`copied`), or one pool built. The
 *  index ranges say where its slices, consumed counters and shared counters were and are. */
typedef struct dc_patch_seg {
    bool copied;
    uint32_t old_pool, new_pool, pools;
    uint32_t old_slice, new_slice, slices;
    uint32_t old_cons, new_cons, cons;
    uint32_t old_shared, new_shared, shared;
} dc_patch_seg;

/** How the new table was made of the old one (for what is built with a table: the placement
 *  index, src/alloc/pindex.c). */
typedef struct dc_patch_delta {
    const dracel_alloc *alloc;
    dc_patch_seg *segs;
    uint32_t nsegs, capsegs;
} dc_patch_delta;

void dc_patch_delta_free(dc_patch_delta *d);

/**
 * A table equal in every result to dc_table_build of the slices @p old was built from with the
 * pools of @p chg replaced by their slices now (pool names unique in @p chg; any order), with
 * the DeviceTaintRules @p rules (the same as the old table's, in the same order: a changed rule
 * calls for a full build).
 * Unchanged pools are copied from @p old (it stays as it was; the new table shares its
 * dictionary).
 * @return DRACEL_OK with *out and @p delta filled; DRACEL_ENOMEM; or DRACEL_EINPUT when the
 *         change is too large to patch (more than @p max_fraction of the rows would be built,
 *         or a column would hold more values of another kind than of its own): build in full.
 */
dracel_status dc_table_patch(const dc_table *old, dc_patch_pool *chg, uint32_t nchg,
                             const dc_taint_rule_in *rules, uint32_t nrules, double max_fraction,
                             const dracel_alloc *a, dc_table **out, dc_patch_delta *delta) DC_WUR;

/* ---- The builder, shared by both (internal to src/table_build.c and src/table_patch.c). */

typedef struct dc_tb_key {
    uint32_t domain, id;         /* dictionary ids */
    bool capacity;
    uint32_t col;                /* builder column + 1; 0: empty slot */
} dc_tb_key;

/* The kinds counted per column: the five dc_colkind values, then lists (always foreign). */
#define DC_TB_KIND_LIST 5
#define DC_TB_KINDS 6

/* A column while it is built. */
typedef struct dc_tb_col {
    uint32_t domain, id;         /* dictionary ids */
    bool capacity;
    uint32_t kinds[DC_TB_KINDS]; /* pass 1: values seen per dc_colkind, then list values
                                    (DC_TB_KIND_LIST: never the column's kind) */
    uint32_t col;                /* its index in t->cols once laid out */
    dc_foreign *foreign;         /* table arena */
    uint32_t nforeign, capforeign;
    /* VERSION and QUANTITY columns: the distinct values (table arena) and an index of them by
     * text id (builder's memory: text id + 1 -> index). */
    dc_val *distinct;
    uint32_t *dtext, *drows;
    uint32_t ndistinct, capdistinct;
    uint32_t *dkeys, *dvals;
    uint32_t dcap;
    /* STRING columns: the distinct ids of present rows while there are few. */
    uint32_t sids[DC_TCOL_SIDS_MAX], sidn[DC_TCOL_SIDS_MAX];
    uint32_t nsids, lastk;
    bool many;
    uint32_t nvalues;
} dc_tb_col;

typedef struct dc_tb {
    const dracel_alloc *alloc;
    dc_table *t;
    dc_arena *ta;                /* the table's arena */
    dc_dict *dict;
    dc_tb_key *keys;
    uint32_t keycap;
    dc_tb_col *cols;
    uint32_t ncols, capcols;
    bool oom;
    char msg[256];               /* the parse error of the last bad version */
    uint32_t groups;             /* counter set entries numbered so far */
    uint32_t row, slice;         /* where the next pool's rows and slices go */
    /* Side tables, appended in row (or pool) order: table arena. */
    dc_foreign *faults;
    uint32_t nfaults, capfaults;
    dc_ttaint *taints;
    uint32_t ntaints, captaints;
    dc_tcounter *consumes, *shared;
    uint32_t nconsumes, capconsumes, nshared, capshared;
    dc_tcap *caps;
    uint32_t ncaps, capcaps;
    dc_tbind *binds;
    uint32_t nbinds, capbinds;
    const void **sels;
    uint32_t nsels, capsels;
    const dc_taint_rule_in *rules; /* DeviceTaintRules applied to the devices built (not owned) */
    uint32_t nrules;
    uint32_t *scratch;           /* builder's memory: a pool's device names, sorted */
    uint32_t capscratch;
} dc_tb;

void dc_tb_init(dc_tb *b, dc_table *t, dc_arena *ta, dc_dict *dict, const dracel_alloc *a);
/** Free the builder's own memory (not what it put in the table's arena). */
void dc_tb_free(dc_tb *b);
uint32_t dc_tb_intern(dc_tb *b, const char *s, size_t n);
/** The builder column of (domain, id, capacity) (dictionary ids), created when @p create;
 *  UINT32_MAX when absent or on ENOMEM (b->oom). */
uint32_t dc_tb_column(dc_tb *b, uint32_t domain, uint32_t id, bool capacity, bool create);
/** Room for n entries in a vector of the table's arena (see table_build.c). */
void *dc_tb_room(dc_arena *a, void *v, uint32_t n, uint32_t *cap, size_t size);
/** Slices of one pool (sorted, any generation): which count (the newest generation), its
 *  generation, slice count, rows and completeness in @p pool. */
void dc_tb_scan_pool(const dc_slice_in *const *sl, uint32_t n, bool *keep, dc_tpool *pool);
/** Pass 1: the columns of the kept slices' devices and the kinds of their values. */
void dc_tb_columns(dc_tb *b, const dc_slice_in *const *sl, const bool *keep, uint32_t n);
/** Pass 2: the rows of pool @p p (t->pools[p] scanned) from b->row and its slices from
 *  b->slice; side tables appended; its state judged (invalid pools) and its version, node and
 *  longest string set. The column arrays of those rows must be zero. */
void dc_tb_fill_pool(dc_tb *b, uint32_t p, const dc_slice_in *const *sl, const bool *keep,
                     uint32_t n);
/** The slice order of the allocator (qsort-style comparator of dc_slice_in pointers). */
int dc_tb_cmp_slice(const void *a, const void *b);
/** Column order: capacity, then domain, then id (bytes). */
int dc_tb_cmp_col(const dc_tcol *x, const dc_tcol *y);
/** Copy the builder's column state (distinct values, string ids, foreign values, counts) into
 *  t->cols[c.col]. */
void dc_tb_finish_col(dc_tb *b, dc_tb_col *c);
/** What a table's memory comes to (its arena, the dictionary and its store). */
size_t dc_tb_bytes(const dc_table *t, const dc_arena *arena);

#endif
