/*
 * table.h: the device table, a packed columnar snapshot of a fleet's devices, and the string
 * dictionary its columns share.
 *
 * Rows are devices in Kubernetes' allocator order: pools by driver then pool name, slices by
 * name, devices in published order. Every attribute or capacity name (qualified, as CEL sees it:
 * domain + id) has one column; a column stores its values in the representation of its dominant
 * kind (string: 32-bit dictionary ids; int: int64; bool: a bitmap; version and quantity: 32-bit
 * ids into per-column tables of distinct values), with a presence bitmap; rows whose value has
 * another kind (rare: one name published with different kinds) are kept in a side list of
 * boxed values. Sparse things (taints, counters, per-device node selection) live in side tables.
 *
 * Invariants: a table is immutable once built, so readers never lock; bitmaps are LSB-first
 * uint64_t words (Arrow's order) with the bits past `rows` zero; the dictionary is append-only
 * and shared by successive snapshots (a snapshot never sees ids it did not create or inherit).
 * A table's arena holds only arrays of ids, indexes and pointers: every object they point to
 * (strings, parsed versions and quantities, device faults, node selectors) lives in the
 * dictionary, so that a snapshot can copy the rows of an unchanged pool from the previous one
 * with memcpy (src/table_patch.c).
 *
 * Change with: src/table_build.c and src/table_patch.c (building), vm/vvm.c (the vector VM),
 * vm/vm.c (row reads), docs/columnar.md.
 */
#ifndef DC_TABLE_H
#define DC_TABLE_H

#include <pthread.h>

#include "arena.h"
#include "value.h"

/* ---- Bitmaps. */
#define DC_BITS_WORDS(n) (((size_t)(n) + 63) / 64)
static inline bool dc_bit(const uint64_t *b, uint32_t i)
{
    return (b[i >> 6] >> (i & 63)) & 1u;
}
static inline void dc_bit_set(uint64_t *b, uint32_t i)
{
    b[i >> 6] |= (uint64_t)1 << (i & 63);
}

/* ---- The dictionary: interned strings, ids from 0, append-only, shared by snapshots.
 * Appends happen under `lock` (one writer builds a snapshot at a time); lookups by readers of
 * a built snapshot need no lock, even while a writer appends: the entries a snapshot uses were
 * published before it was; entries never move (they live in fixed-size pages); and when the
 * page directory or the hash index grows, the writer builds the new one completely, publishes
 * it with one atomic store, and keeps the old one (retired, freed with the dictionary), so a
 * reader holding the old pointer still reads valid memory. */
#define DC_DICT_PAGE 4096u

/* The dictionary also keeps the objects snapshots share (parsed versions and quantities, device
 * faults, node selectors): made by the writer under `lock`, immutable, freed with the
 * dictionary. A memo (writer only) finds an object made before by a 64-bit key, so that
 * rebuilding a pool reuses its objects instead of making new ones: the store grows with the
 * distinct objects ever seen, as the strings do. */
typedef struct dc_dict_memo {
    uint64_t key;                /* 0: empty */
    const void *obj;
} dc_dict_memo;

typedef struct dc_dict {
    pthread_mutex_t lock;
    dracel_alloc alloc_copy;
    const dracel_alloc *alloc;   /* &alloc_copy */
    dc_arena strings;            /* the dc_str bodies */
    const dc_str ***pages;       /* pages[id / PAGE][id % PAGE]; atomic pointer */
    uint32_t npages, cap_pages;
    uint32_t count;
    struct dc_dict_index *index; /* atomic pointer; slots written atomically */
    struct dc_dict_retired *retired; /* old page directories and indexes */
    uint32_t nretired, cap_retired;
    uint32_t refs;               /* snapshots holding it */
    dc_arena objs;               /* shared objects */
    dc_dict_memo *memo;          /* open addressing, writer only */
    uint32_t memo_cap, memo_n;
    /* The row block of a patched table freed last (under `lock`), for the next patch: memory
     * already mapped, where a fresh block of that size would fault in every page. */
    void *spare;
    size_t spare_size;
    dracel_alloc spare_alloc;    /* what it was allocated with */
} dc_dict;

typedef struct dc_dict_retired {
    void *p;
    size_t n;
} dc_dict_retired;

/* Open addressing: slot = id + 1, 0 empty. */
typedef struct dc_dict_index {
    uint32_t cap;
    uint32_t slot[];
} dc_dict_index;

#define DC_DICT_NONE UINT32_MAX

dc_dict *dc_dict_new(const dracel_alloc *a);
void dc_dict_ref(dc_dict *d);
void dc_dict_unref(dc_dict *d);
/** The id of s, adding it (writer only). DC_DICT_NONE on ENOMEM. */
uint32_t dc_dict_intern(dc_dict *d, const char *s, size_t n);
/** The id of s if present among the first `limit` ids, else DC_DICT_NONE. Safe for readers
 *  only when `limit` ids were published to them; used when binding programs (writer side) too. */
uint32_t dc_dict_find(const dc_dict *d, const char *s, size_t n, uint32_t limit);
/** A block of @p n to 2n bytes kept from a freed table and allocated with @p a (*size says
 *  how large), or a new one (NULL on ENOMEM). Writer, under the lock. */
void *dc_dict_block(dc_dict *d, const dracel_alloc *a, size_t n, size_t *size);
/** The object memoised under @p key (not 0), or NULL. Writer only. */
const void *dc_dict_memo_get(const dc_dict *d, uint64_t key);
/** Remember @p obj under @p key (not 0; replaces). false on ENOMEM. Writer only. */
bool dc_dict_memo_put(dc_dict *d, uint64_t key, const void *obj);
static inline const dc_str *dc_dict_str(const dc_dict *d, uint32_t id)
{
    const dc_str **const *pages = (const dc_str **const *)__atomic_load_n(&d->pages,
                                                                         __ATOMIC_ACQUIRE);
    return pages[id / DC_DICT_PAGE][id % DC_DICT_PAGE];
}

/* ---- Columns. */
typedef enum dc_colkind {
    DC_COL_STRING,
    DC_COL_INT,
    DC_COL_BOOL,
    DC_COL_VERSION,
    DC_COL_QUANTITY
} dc_colkind;

typedef struct dc_foreign {
    uint32_t row;
    dc_val v;                    /* a value of another kind than the column's */
} dc_foreign;

#define DC_TCOL_SIDS_MAX 64u

typedef struct dc_tcol {
    const dc_str *domain, *id;   /* dictionary strings */
    uint32_t domain_id, id_id;   /* their ids */
    bool capacity;
    dc_colkind kind;
    uint64_t *present;           /* rows whose value is of `kind` */
    union {
        uint32_t *sid;           /* STRING: dictionary ids */
        int64_t *i;              /* INT */
        uint64_t *bits;          /* BOOL: a bitmap of the values */
        uint32_t *vid;           /* VERSION, QUANTITY: ids into `distinct` */
    } v;
    dc_val *distinct;            /* VERSION, QUANTITY: the distinct values of the present rows
                                    (each used by at least one row; in no particular order) */
    const uint32_t *distinct_text; /* their texts' dictionary ids */
    const uint32_t *distinct_rows; /* how many present rows hold each */
    uint32_t ndistinct;
    const uint32_t *sids;        /* STRING: the distinct ids of the present rows, when at most
                                    DC_TCOL_SIDS_MAX, else NULL (in order of first appearance
                                    in a full build; a patched one appends) */
    const uint32_t *sid_rows;    /* how many present rows hold each */
    uint32_t nsids;
    dc_foreign *foreign;         /* sorted by row */
    uint32_t nforeign;
    uint32_t nvalues;            /* rows with a value: present ones and foreign ones */
} dc_tcol;

/* Pool state, as Kubernetes' allocator judges it. */
typedef enum dc_pool_state {
    DC_POOL_COMPLETE,
    DC_POOL_INCOMPLETE,          /* fewer slices of the newest generation than resourceSliceCount */
    DC_POOL_INVALID              /* a device name published twice in the pool, a consumed counter
                                    the pool does not share, or a counter set name shared twice */
} dc_pool_state;

typedef struct dc_tpool {
    uint32_t driver, name;       /* dictionary ids */
    int64_t generation;
    int64_t slice_count;
    uint32_t slices;             /* slices of the newest generation seen */
    dc_pool_state state;
    uint32_t first_row, rows;    /* its devices are rows [first_row, first_row + rows) */
    uint32_t first_slice;        /* its slices are [first_slice, first_slice + slices) */
    uint32_t first_sel;          /* its node selectors start here in node_selectors */
    uint32_t node;               /* the node name id every slice names (nodeName), or
                                    DC_DICT_NONE */
    uint32_t max_strlen;         /* the longest string or version value of its devices */
    uint64_t version;            /* a hash of what an allocation can read of it (see
                                    dracel_pool_info) */
    bool mixed;                  /* a slice with devices and sharedCounters: 1.34's shape,
                                    invalid from 1.35 on (src/alloc/run.c) */
    bool stale;                  /* an older generation (pools [nlive_pools, npools)) */
    uint32_t live;               /* stale: the pool of the newest generation (same driver and
                                    name); unused otherwise (dc_table_live_pool) */
} dc_tpool;

/* A device taint (side table, sorted by row): the device's own, then those of the
 * DeviceTaintRules that select it, in their order. Strings are dictionary ids; value may be
 * DC_DICT_NONE. */
typedef struct dc_ttaint {
    uint32_t row;
    uint32_t key, value, effect;
    bool rule;                   /* added by a DeviceTaintRule (counts only with the gate on) */
} dc_ttaint;

/* A capacity's requestPolicy (consumable capacity), in the dictionary's store. */
typedef struct dc_tpolicy {
    const dc_qtyobj *def;        /* NULL when absent */
    const dc_qtyobj *const *valid; /* validValues, ascending */
    uint32_t nvalid;
    const dc_qtyobj *min, *max, *step; /* validRange (min set when it is given) */
} dc_tpolicy;

/* A capacity of a device as the device publishes it (side table, sorted by row, in published
 * order): consumable capacity compares requests with these names as written. */
typedef struct dc_tcap {
    uint32_t row;
    uint32_t name;               /* dictionary id of the QualifiedName as written */
    const dc_qtyobj *value;
    const dc_tpolicy *policy;    /* NULL when none */
} dc_tcap;

/* A binding condition of a device (side table, sorted by row; bindingConditions first, then
 * bindingFailureConditions, each in published order). */
typedef struct dc_tbind {
    uint32_t row;
    uint32_t name;               /* dictionary id of the condition type */
    bool failure;                /* from bindingFailureConditions */
} dc_tbind;

/* A counter a device consumes, or a pool's shared counter (side tables). */
typedef struct dc_tcounter {
    uint32_t owner;              /* the row (consumesCounters) or the pool (sharedCounters) */
    uint32_t set, name;          /* dictionary ids: counterSet, counter name */
    uint32_t group;              /* which published counter set entry it came from (unique in
                                    the table): one set name in two groups is a duplicate */
    const dc_qtyobj *value;      /* in the table's arena */
} dc_tcounter;

/* How a row is tied to nodes (the slice's scope, or the device's own). */
typedef enum dc_node_kind {
    DC_NODE_NAME,                /* node: dictionary id of the node name */
    DC_NODE_ALL,                 /* allNodes */
    DC_NODE_SELECTOR             /* node selector: selectors[node] */
} dc_node_kind;

typedef struct dc_table {
    const dracel_alloc *alloc;
    dc_arena arena;              /* everything of this snapshot except the dictionary */
    dc_dict *dict;
    uint32_t dict_limit;         /* ids this snapshot may use */
    uint32_t rows;               /* all rows: the newest generations', then the older ones' */
    /* Older generations. Kubernetes gathers, per node, the newest generation of a pool that
     * node sees, so a node that sees none of the newest slices of a pool may allocate from an
     * older generation it sees (src/alloc/run.c). Those generations are kept as stale pools
     * after the live ones, sorted by driver, pool name and generation (newest first), with
     * their rows and slices after the live ones: live_rows, nlive_pools and nlive_slices
     * count what the library shows (dracel_table_rows and pools, selections, usages, pool
     * versions); the allocator reads all. */
    uint32_t live_rows, nlive_pools, nlive_slices;
    /* Per row. */
    uint32_t *device_name;       /* dictionary id */
    uint32_t *pool;              /* index into pools */
    uint8_t *node_kind;          /* dc_node_kind */
    uint32_t *node;              /* node name id or selector index */
    uint64_t *multi;             /* bitmap: allowMultipleAllocations */
    uint64_t *bindc;             /* bitmap: the device has bindingConditions */
    uint64_t *binds_node;        /* bitmap: bindsToNode */
    /* Slices (the live ones, then the stale pools'), in row order: slice k holds rows [slice_first[k],
     * slice_first[k + 1]) (slice_first[nslices] == rows); a slice without devices is an empty
     * range. slice_per_device: bit k when slice k has perDeviceNodeSelection. */
    uint32_t *slice_first;
    uint64_t *slice_per_device;
    uint32_t *slice_name;        /* metadata.name's dictionary id (messages name slices) */
    uint32_t nslices;
    /* Rows Kubernetes cannot present to CEL at all (an attribute that does not convert, such as
     * an invalid version): every selector on them fails with this error. Sorted by row. */
    dc_foreign *faults;
    uint32_t nfaults;
    /* Columns, sorted by (capacity, domain, id). */
    dc_tcol *cols;
    uint32_t ncols;
    dc_tpool *pools;
    uint32_t npools;
    /* Side tables (sparse). Each is indexed by row through a sorted (row, offset) list. */
    const void *const *node_selectors;  /* dc_node_selector_in copies (src/slices.h), in the
                                           dictionary's store; a pool's are contiguous */
    uint32_t nselectors;
    dc_ttaint *taints;           /* sorted by row */
    uint32_t ntaints;
    dc_tcounter *consumes;       /* devices' consumesCounters, sorted by row */
    uint32_t nconsumes;
    dc_tcap *caps;               /* devices' capacities, sorted by row */
    uint32_t ncaps;
    dc_tbind *binds;             /* devices' binding (failure) conditions, sorted by row */
    uint32_t nbinds;
    dc_tcounter *shared;         /* pools' sharedCounters, sorted by pool */
    uint32_t nshared;
    size_t bytes;                /* all memory of this snapshot, for bytes_per_device */
    uint32_t max_strlen;         /* the longest string value of any column (cost bounds) */
    uint32_t groups;             /* counter set entries numbered so far (dc_tcounter.group) */
    bool patched;                /* built from the previous snapshot (src/table_patch.c) */
    void *rows_block;            /* patched: the per-row arrays, outside the arena (given to
                                    the dictionary's spare when the table is freed) */
    size_t rows_block_size;
} dc_table;

/** The taints of a row: *n entries from the returned pointer (NULL when none). */
const dc_ttaint *dc_table_taints(const dc_table *t, uint32_t row, uint32_t *n);
/** The binding conditions of a row: *n entries (NULL when none). */
const dc_tbind *dc_table_binds(const dc_table *t, uint32_t row, uint32_t *n);
/** The capacities of a row as published: *n entries (NULL when none). */
const dc_tcap *dc_table_caps(const dc_table *t, uint32_t row, uint32_t *n);
/** The counters a row consumes: *n entries (NULL when none). */
const dc_tcounter *dc_table_consumes(const dc_table *t, uint32_t row, uint32_t *n);
/** The live pool of pool p: p, or the newest generation of a stale pool. */
static inline uint32_t dc_table_live_pool(const dc_table *t, uint32_t p)
{
    return t->pools[p].stale ? t->pools[p].live : p;
}
/** The slice (index into slice_first) holding a row. Binary search. */
uint32_t dc_table_slice_of(const dc_table *t, uint32_t row);
/** The error of a faulty row (see `faults`), or NULL. */
const dc_val *dc_table_fault(const dc_table *t, uint32_t row);
/** The column of (domain, id) (capacity or attribute), or NULL. Binary search. */
const dc_tcol *dc_table_col(const dc_table *t, bool capacity, const char *domain, size_t dn,
                            const char *id, size_t in);
/** The value of a column at a row, boxed (allocated in c when needed), or false when absent. */
bool dc_tcol_get(const dc_table *t, const dc_tcol *col, uint32_t row, dc_ectx *c, dc_val *out);
/** Rows [row0, row0 + n) of a column, boxed, into out[0..n): false in got[i] for a row without
 *  a value (out[i] unset). One search for the run's first foreign row, then a merge: what the
 *  vector VM reads a column of several kinds (or of lists) with. */
void dc_tcol_get_run(const dc_table *t, const dc_tcol *col, uint32_t row0, uint32_t n,
                     dc_val *out, bool *got);
/** The device at a row as the map `device` reads as in CEL (for whole-map uses). */
dc_val dc_table_device(const dc_table *t, uint32_t row, dc_ectx *c);
void dc_table_free(dc_table *t);

#endif
