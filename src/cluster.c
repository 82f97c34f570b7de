/*
 * cluster.c: a cluster's DRA objects kept up to date object by object, and immutable snapshots
 * of them (include/dracel.h, "Cluster state and snapshots"; docs/api.md).
 *
 * Three layers:
 *   - Items: one decoded object (a claim with its status, a node, a class; for a ResourceSlice
 *     or a DeviceTaintRule, its name: the object itself lives in the cluster's dracel_fleet) copied into one block of
 *     its own (its size measured by a first copy), immutable and reference counted
 *     (atomically): held by the cluster while current and by each snapshot page that shows it.
 *   - The cluster (one writer): entries by key (kind, namespace, name) in a hash map, each with
 *     its current item and the source that owns it (the one that applied it last; a source
 *     lists its entries), and a dense array per kind (an entry's position is its index in
 *     snapshots; a deletion moves the last entry of the kind into the hole). What changed since
 *     the last snapshot is recorded, never built: positions whose item changed, the operations
 *     on the name index, the device IDs whose count of allocated claims crossed zero, whether a
 *     class or a slice changed.
 *   - Snapshots, reference counted. Claims and nodes are persistent paged arrays (item
 *     pointers by position, IPAGE to a page) with a paged hash index (key hash and position,
 *     XPAGE slots to a page). A snapshot copies the page directories of the previous one and
 *     copies only the pages a change touches; pages and items are shared by reference count.
 *     The table (rebuilt by the fleet when a slice changed), the classes (when a class changed)
 *     and the usage (derived from the previous one when only allocations changed, built anew
 *     when the table did) are shared with the previous snapshot otherwise.
 *
 * All or nothing: an apply decodes and validates its whole input, makes every new item and
 * entry and reserves all the room its change needs (map slots, array capacities, lists of
 * pending changes, device-ID records; the fleet's own load last) before the first change, after
 * which nothing fails. A snapshot built from the pending changes replaces the previous one only
 * once complete: a failure leaves the changes pending for the next call.
 *
 * Change with: include/dracel.h, src/claims.h (status, copies, versions), src/placeint.h,
 * tests/unit/test_cluster.c, docs/api.md, bench/cluster.c.
 */
#include <stdio.h>
#include <string.h>

#include "apiint.h"
#include "placeint.h"

#define IPAGE 64u   /* item pointers per page of a snapshot's array */
#define XPAGE 512u  /* slots per page of a snapshot's name index */
#define NKINDS 5u   /* slice, class, claim, node, rule: the bit's position */
#define ALL_KINDS (DC_OBJ_SLICE | DC_OBJ_CLASS | DC_OBJ_CLAIM | DC_OBJ_NODE | DC_OBJ_RULE)

static unsigned kind_ix(unsigned bit)
{
    return (unsigned)__builtin_ctz(bit);
}

/* One DC_OBJ_* bit. */
static bool one_kind(unsigned kind)
{
    return kind && !(kind & (kind - 1)) && (kind & ALL_KINDS);
}

static const char *const KIND_NAME[NKINDS] = {"ResourceSlice", "DeviceClass", "ResourceClaim",
                                              "Node", "DeviceTaintRule"};

static uint32_t ref_add(uint32_t *r)
{
    return __atomic_add_fetch(r, 1, __ATOMIC_RELAXED);
}

/* true when it was the last reference */
static bool ref_drop(uint32_t *r)
{
    return __atomic_sub_fetch(r, 1, __ATOMIC_ACQ_REL) == 0;
}

/* ---------------------------------------------------------------------------------------------
 * The allocator, shared by a cluster and its snapshots (the last of them frees it)
 */

typedef struct core {
    uint32_t refs;
    dracel_config cfg;          /* cfg.alloc is &alloc */
    dracel_alloc alloc;
} core;

static void core_unref(core *k)
{
    if (k && ref_drop(&k->refs)) {
        dracel_alloc a = k->alloc;
        dc_free(&a, k, sizeof *k);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Items
 */

typedef struct item {
    uint32_t refs;              /* atomic */
    unsigned kind;              /* DC_OBJ_* */
    uint64_t version;           /* dc_claim_version and friends (0 for slices) */
    union {
        dc_claim_in claim;
        dc_node_in node;
        dc_class_in cls;
        const char *slice;      /* a slice's or a DeviceTaintRule's name */
    } u;
    dc_arena arena;             /* the block holding the item and all it points to */
} item;

static const char *item_name(const item *it)
{
    switch (it->kind) {
    case DC_OBJ_CLAIM: return it->u.claim.name;
    case DC_OBJ_NODE: return it->u.node.name;
    case DC_OBJ_CLASS: return it->u.cls.name;
    default: return it->u.slice;
    }
}

static const char *item_ns(const item *it)
{
    return it->kind == DC_OBJ_CLAIM ? it->u.claim.namespace : NULL;
}

static void item_ref(item *it)
{
    ref_add(&it->refs);
}

static void item_unref(item *it)
{
    if (it && ref_drop(&it->refs)) {
        dc_arena a = it->arena;
        dc_arena_free(&a);
    }
}

/* The copy of @p obj (of kind @p kind) in @p a, with the item that holds it. */
static dracel_status item_fill(dc_arena *a, unsigned kind, const void *obj, item **out)
{
    item *it = dc_arena_zalloc(a, sizeof *it);
    if (!it)
        return DRACEL_ENOMEM;
    it->kind = kind;
    dracel_status st = DRACEL_OK;
    switch (kind) {
    case DC_OBJ_CLAIM: st = dc_claim_copy(a, obj, &it->u.claim); break;
    case DC_OBJ_NODE: st = dc_node_copy(a, obj, &it->u.node); break;
    case DC_OBJ_CLASS: st = dc_class_copy(a, obj, &it->u.cls); break;
    default: {
        const char *name = kind == DC_OBJ_RULE ? ((const dc_taint_rule_in *)obj)->name
                                               : ((const dc_slice_in *)obj)->name;
        it->u.slice = dc_arena_strndup(a, name, strlen(name));
        st = it->u.slice ? DRACEL_OK : DRACEL_ENOMEM;
    }
    }
    *out = it;
    return st;
}

static uint64_t version_of(unsigned kind, const void *obj)
{
    switch (kind) {
    case DC_OBJ_CLAIM: return dc_claim_version(obj);
    case DC_OBJ_NODE: return dc_node_version(obj);
    case DC_OBJ_CLASS: return dc_class_version(obj);
    default: return 0;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Keys
 */

static uint64_t key_hash(unsigned kind, const char *ns, const char *name)
{
    dc_hash h = DC_HASH_INIT;
    unsigned char k = (unsigned char)kind;
    dc_hash_bytes(&h, &k, 1);
    dc_hash_str(&h, ns && *ns ? ns : NULL);
    dc_hash_str(&h, name);
    return h.h;
}

/* The hash stored in a snapshot's index slots. */
static uint32_t h32(uint64_t h)
{
    return (uint32_t)(h ^ (h >> 32));
}

static bool same_str(const char *a, const char *b)
{
    return strcmp(a && *a ? a : "", b && *b ? b : "") == 0;
}

static bool item_is(const item *it, const char *ns, const char *name)
{
    return strcmp(item_name(it), name) == 0 && same_str(item_ns(it), ns);
}

/* ---------------------------------------------------------------------------------------------
 * Snapshot arrays: persistent, paged, copy on write
 */

typedef struct ipage {
    uint32_t refs;              /* atomic */
    item *it[IPAGE];            /* references */
} ipage;

typedef struct xpage {
    uint32_t refs;              /* atomic */
    uint64_t slot[XPAGE];       /* (hash32 << 32) | (position + 1); 0: empty */
} xpage;

/* The claims or nodes of a snapshot: positions 0..n-1, and the name index over them. */
typedef struct pvec {
    uint32_t refs;              /* atomic: snapshots and the cluster (its last one) */
    const dracel_alloc *a;
    uint32_t n;
    uint32_t nip;               /* item pages: ceil(n / IPAGE) */
    ipage **ip;
    uint32_t cap;               /* index slots: a power of two, at least 2n, at least XPAGE */
    xpage **xp;                 /* cap / XPAGE pages */
} pvec;

static void ipage_unref(const dracel_alloc *a, ipage *p)
{
    if (!p || !ref_drop(&p->refs))
        return;
    for (uint32_t i = 0; i < IPAGE; i++)
        item_unref(p->it[i]);
    dc_free(a, p, sizeof *p);
}

static void xpage_unref(const dracel_alloc *a, xpage *p)
{
    if (p && ref_drop(&p->refs))
        dc_free(a, p, sizeof *p);
}

/* The page directory of nip pages (one slot at least: an empty array is a valid block). */
static size_t ip_bytes(uint32_t nip)
{
    return (size_t)(nip ? nip : 1) * sizeof(ipage *);
}

static void pvec_unref(pvec *v)
{
    if (!v || !ref_drop(&v->refs))
        return;
    const dracel_alloc *a = v->a;
    for (uint32_t i = 0; v->ip && i < v->nip; i++)
        ipage_unref(a, v->ip[i]);
    for (uint32_t i = 0; v->xp && i < v->cap / XPAGE; i++)
        xpage_unref(a, v->xp[i]);
    dc_free(a, v->ip, ip_bytes(v->nip));
    dc_free(a, v->xp, (size_t)(v->cap / XPAGE) * sizeof *v->xp);
    dc_free(a, v, sizeof *v);
}

static item *pvec_item(const pvec *v, uint32_t pos)
{
    return v->ip[pos / IPAGE]->it[pos % IPAGE];
}

static uint64_t pvec_slot(const pvec *v, uint32_t k)
{
    return v->xp[k / XPAGE]->slot[k % XPAGE];
}

/* The position of (ns, name), or UINT32_MAX. */
static uint32_t pvec_find(const pvec *v, unsigned kind, const char *ns, const char *name)
{
    if (!v || !v->n)
        return UINT32_MAX;
    uint32_t h = h32(key_hash(kind, ns, name)), mask = v->cap - 1;
    for (uint32_t k = h & mask;; k = (k + 1) & mask) {
        uint64_t s = pvec_slot(v, k);
        if (!s)
            return UINT32_MAX;
        uint32_t pos = (uint32_t)s - 1;
        if ((uint32_t)(s >> 32) == h && item_is(pvec_item(v, pos), ns, name))
            return pos;
    }
}

/* ---------------------------------------------------------------------------------------------
 * The cluster's records
 */

typedef struct owner owner;

typedef struct entry {
    item *it;                   /* the current object (a reference) */
    owner *src;                /* its owner */
    struct entry *sprev, *snext; /* the owner's entries */
    uint64_t hash;              /* of the key */
    uint32_t pos;               /* in the dense array of its kind */
    unsigned kind;
} entry;

struct owner {
    char *name;
    size_t len;
    uint64_t hash;
    entry *head;
    uint32_t n;
};

/* A device ID of allocated claims' results, and how many claims hold it. */
typedef struct devref {
    uint64_t hash;
    const char *driver, *pool, *device; /* in the same block */
    uint32_t count;             /* allocated claims listing it (admin access not counted) */
    bool was;                   /* in the usage of the last snapshot */
    bool dirty;                 /* in the dirty list: count > 0 may differ from was */
    size_t size;                /* of the block */
} devref;

/* An index operation, replayed on the previous snapshot's index. */
enum { XOP_ADD, XOP_DEL, XOP_MOVE };
typedef struct xop {
    uint8_t op;
    uint32_t hash;
    uint32_t from, to;          /* ADD: to; DEL: from; MOVE: from -> to */
} xop;

/* Open addressing over pointers, by a 64-bit hash each knows: slot = pointer, NULL empty. */
typedef struct pmap {
    void **slot;
    uint32_t cap, n;            /* cap a power of two (or 0); n <= cap / 2 */
} pmap;

typedef struct pending {
    uint32_t *dirty;            /* positions whose item changed (duplicates allowed) */
    uint32_t ndirty, capdirty;
    xop *xops;
    uint32_t nxops, capxops;
} pending;

struct dracel_cluster {
    core *k;
    const dracel_alloc *a;
    dracel_fleet *fleet;
    pmap entries;               /* entry * by key */
    pmap sources;               /* owner * by name */
    pmap devs;                  /* devref * by device ID */
    entry **dense[NKINDS];
    uint32_t ndense[NKINDS], capdense[NKINDS];
    pending pend[NKINDS];       /* claims and nodes */
    devref **ddirty;            /* devrefs whose count crossed zero since the last usage */
    uint32_t nddirty, capddirty;
    uint64_t nshared;           /* shared results (shareID) of the allocated claims */
    bool shares_dirty;          /* they changed since the last usage */
    bool classes_dirty, table_dirty, changed;
    dracel_snapshot *last;      /* the last snapshot (a reference), or NULL */
    uint64_t next_id;
    dc_arena scratch;           /* measuring copies of items */
    dc_arena notes_arena;
    const char **notes;
    uint32_t nnotes, capnotes;
};

/* ---- pmap */

typedef uint64_t (*hash_fn)(const void *p);

static uint64_t entry_hash(const void *p)
{
    return ((const entry *)p)->hash;
}

static uint64_t source_hash(const void *p)
{
    return ((const owner *)p)->hash;
}

static uint64_t devref_hash(const void *p)
{
    return ((const devref *)p)->hash;
}

/* Room for @p more entries (the table at most half full). */
static bool pmap_reserve(const dracel_alloc *a, pmap *m, uint32_t more, hash_fn hf)
{
    uint64_t need = (uint64_t)m->n + more;
    if (need * 2 <= m->cap)
        return true;
    uint64_t cap = m->cap ? m->cap : 16;
    while (need * 2 > cap)
        cap *= 2;
    if (cap > UINT32_MAX / 2 + 1)
        return false;
    void **slot = dc_malloc(a, (size_t)cap * sizeof *slot);
    if (!slot)
        return false;
    memset(slot, 0, (size_t)cap * sizeof *slot);
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->slot[i])
            continue;
        uint32_t k = (uint32_t)hf(m->slot[i]) & (uint32_t)(cap - 1);
        while (slot[k])
            k = (k + 1) & (uint32_t)(cap - 1);
        slot[k] = m->slot[i];
    }
    dc_free(a, m->slot, (size_t)m->cap * sizeof *m->slot);
    m->slot = slot;
    m->cap = (uint32_t)cap;
    return true;
}

/* Insert @p p (room reserved). */
static void pmap_put(pmap *m, void *p, uint64_t hash)
{
    uint32_t mask = m->cap - 1, k = (uint32_t)hash & mask;
    while (m->slot[k])
        k = (k + 1) & mask;
    m->slot[k] = p;
    m->n++;
}

/* Remove @p p (present), shifting the entries after it back (no tombstones). */
static void pmap_del(pmap *m, const void *p, uint64_t hash, hash_fn hf)
{
    uint32_t mask = m->cap - 1, k = (uint32_t)hash & mask;
    while (m->slot[k] != p)
        k = (k + 1) & mask;
    for (uint32_t j = (k + 1) & mask; m->slot[j]; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)hf(m->slot[j]) & mask;
        /* j's entry may move to k when its home is not in (k, j] (cyclically) */
        if ((j > k && (home <= k || home > j)) || (j < k && home <= k && home > j)) {
            m->slot[k] = m->slot[j];
            k = j;
        }
    }
    m->slot[k] = NULL;
    m->n--;
}

static void pmap_free(const dracel_alloc *a, pmap *m)
{
    dc_free(a, m->slot, (size_t)m->cap * sizeof *m->slot);
    memset(m, 0, sizeof *m);
}

static entry *find_entry(const dracel_cluster *c, unsigned kind, const char *ns, const char *name,
                         uint64_t hash)
{
    if (!c->entries.cap)
        return NULL;
    uint32_t mask = c->entries.cap - 1;
    for (uint32_t k = (uint32_t)hash & mask; c->entries.slot[k]; k = (k + 1) & mask) {
        entry *e = c->entries.slot[k];
        if (e->hash == hash && e->kind == kind && item_is(e->it, ns, name))
            return e;
    }
    return NULL;
}

static uint64_t name_hash(const char *s, size_t n)
{
    dc_hash h = DC_HASH_INIT;
    dc_hash_bytes(&h, s, n);
    return h.h;
}

static owner *find_source(const dracel_cluster *c, const char *name, size_t len, uint64_t hash)
{
    if (!c->sources.cap)
        return NULL;
    uint32_t mask = c->sources.cap - 1;
    for (uint32_t k = (uint32_t)hash & mask; c->sources.slot[k]; k = (k + 1) & mask) {
        owner *s = c->sources.slot[k];
        if (s->hash == hash && s->len == len && memcmp(s->name, name, len) == 0)
            return s;
    }
    return NULL;
}

static uint64_t dev_hash(const char *driver, const char *pool, const char *device)
{
    dc_hash h = DC_HASH_INIT;
    dc_hash_str(&h, driver);
    dc_hash_str(&h, pool);
    dc_hash_str(&h, device);
    return h.h;
}

static devref *find_dev(const dracel_cluster *c, const dc_result_in *r, uint64_t hash)
{
    if (!c->devs.cap)
        return NULL;
    uint32_t mask = c->devs.cap - 1;
    for (uint32_t k = (uint32_t)hash & mask; c->devs.slot[k]; k = (k + 1) & mask) {
        devref *d = c->devs.slot[k];
        if (d->hash == hash && strcmp(d->driver, r->driver) == 0 &&
            strcmp(d->pool, r->pool) == 0 && strcmp(d->device, r->device) == 0)
            return d;
    }
    return NULL;
}

static void devref_free(const dracel_alloc *a, devref *d)
{
    dc_free(a, d, d->size);
}

/* A record of a result's device ID (count 0), in one block. */
static devref *devref_new(const dracel_alloc *a, const dc_result_in *r, uint64_t hash)
{
    size_t ld = strlen(r->driver) + 1, lp = strlen(r->pool) + 1, lv = strlen(r->device) + 1;
    size_t size = sizeof(devref) + ld + lp + lv;
    devref *d = dc_malloc(a, size);
    if (!d)
        return NULL;
    memset(d, 0, sizeof *d);
    char *s = (char *)(d + 1);
    memcpy(s, r->driver, ld);
    memcpy(s + ld, r->pool, lp);
    memcpy(s + ld + lp, r->device, lv);
    d->driver = s;
    d->pool = s + ld;
    d->device = s + ld + lp;
    d->hash = hash;
    d->size = size;
    return d;
}

/* Whether a result makes its device allocated: as the scheduler's foreachAllocatedDevice
 * (kubernetes pkg/scheduler/framework/plugins/dynamicresources/allocateddevices.go), which
 * skips results with adminAccess ("Is not considered as allocated"). A result with a shareID
 * counts like any other: that is what it does with DRAConsumableCapacity off, and this library
 * does not implement consumable capacity. */
/* A device in use: a result without admin access, and not a share of a device that allows
 * multiple allocations (those count through their consumed capacity: snap_usage). */
static bool result_counts(const dc_result_in *r)
{
    return !r->admin_access && !r->share_id;
}

static bool result_shared(const dc_result_in *r)
{
    return !r->admin_access && r->share_id;
}

/* ---------------------------------------------------------------------------------------------
 * Growable arrays (capacity reserved before a change, so that the change cannot fail)
 */

static bool reserve(const dracel_alloc *a, void **arr, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint64_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    if (nc > UINT32_MAX || nc > SIZE_MAX / elem)
        return false;
    void *p = dc_realloc(a, *arr, (size_t)*cap * elem, (size_t)nc * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = (uint32_t)nc;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Snapshots
 */

/* A table of the fleet, shared by the snapshots that saw the same slices. */
typedef struct table_ref {
    uint32_t refs;
    const dracel_alloc *a;
    dracel_table *t;
} table_ref;

typedef struct usage_ref {
    uint32_t refs;
    const dracel_alloc *a;
    dracel_usage *u;
    bool shared;                /* it has shared allocations (consumable capacity) */
    table_ref *t;               /* the table it is of (a reference) */
} usage_ref;

typedef struct classes_ref {
    uint32_t refs;
    const dracel_alloc *a;
    dracel_objects objs;        /* classes: shallow copies of the items' */
    item **items;               /* references */
    uint32_t n, cap;
} classes_ref;

struct dracel_snapshot {
    uint32_t refs;              /* atomic */
    core *k;
    uint64_t id;
    table_ref *table;
    usage_ref *usage;
    classes_ref *classes;
    pvec *claims, *nodes;
};

static void table_unref(table_ref *t)
{
    if (t && ref_drop(&t->refs)) {
        dracel_table_free(t->t);
        dc_free(t->a, t, sizeof *t);
    }
}

static void usage_unref(usage_ref *u)
{
    if (u && ref_drop(&u->refs)) {
        dracel_usage_free(u->u);
        table_unref(u->t);
        dc_free(u->a, u, sizeof *u);
    }
}

static void classes_unref(classes_ref *c)
{
    if (c && ref_drop(&c->refs)) {
        dc_objects_free(&c->objs.o);
        for (uint32_t i = 0; i < c->n; i++)
            item_unref(c->items[i]);
        dc_free(c->a, c->items, (size_t)c->cap * sizeof *c->items);
        dc_free(c->a, c, sizeof *c);
    }
}

dracel_snapshot *dracel_snapshot_ref(dracel_snapshot *s)
{
    if (s)
        ref_add(&s->refs);
    return s;
}

void dracel_snapshot_unref(dracel_snapshot *s)
{
    if (!s || !ref_drop(&s->refs))
        return;
    core *k = s->k;
    table_unref(s->table);
    usage_unref(s->usage);
    classes_unref(s->classes);
    pvec_unref(s->claims);
    pvec_unref(s->nodes);
    dc_free(&k->alloc, s, sizeof *s);
    core_unref(k);
}

/* ---- Building a pvec */

static ipage *ipage_new(const dracel_alloc *a)
{
    ipage *p = dc_malloc(a, sizeof *p);
    if (p) {
        memset(p, 0, sizeof *p);
        p->refs = 1;
    }
    return p;
}

static xpage *xpage_new(const dracel_alloc *a)
{
    xpage *p = dc_malloc(a, sizeof *p);
    if (p) {
        memset(p, 0, sizeof *p);
        p->refs = 1;
    }
    return p;
}

/* Page @p i of @p v, made private to @p v (copied when another holds it). */
static ipage *ipage_own(pvec *v, uint32_t i)
{
    ipage *p = v->ip[i];
    if (__atomic_load_n(&p->refs, __ATOMIC_ACQUIRE) == 1)
        return p;
    ipage *q = dc_malloc(v->a, sizeof *q);
    if (!q)
        return NULL;
    memcpy(q, p, sizeof *q);
    q->refs = 1;
    for (uint32_t k = 0; k < IPAGE; k++)
        if (q->it[k])
            item_ref(q->it[k]);
    v->ip[i] = q;
    ipage_unref(v->a, p);
    return q;
}

static xpage *xpage_own(pvec *v, uint32_t i)
{
    xpage *p = v->xp[i];
    if (__atomic_load_n(&p->refs, __ATOMIC_ACQUIRE) == 1)
        return p;
    xpage *q = dc_malloc(v->a, sizeof *q);
    if (!q)
        return NULL;
    memcpy(q, p, sizeof *q);
    q->refs = 1;
    v->xp[i] = q;
    xpage_unref(v->a, p);
    return q;
}

static bool pvec_set_item(pvec *v, uint32_t pos, item *it)
{
    ipage *p = ipage_own(v, pos / IPAGE);
    if (!p)
        return false;
    item **at = &p->it[pos % IPAGE];
    if (*at == it)
        return true;
    if (it)
        item_ref(it);
    item_unref(*at);
    *at = it;
    return true;
}

static bool pvec_set_slot(pvec *v, uint32_t k, uint64_t s)
{
    if (pvec_slot(v, k) == s)
        return true;
    xpage *p = xpage_own(v, k / XPAGE);
    if (!p)
        return false;
    p->slot[k % XPAGE] = s;
    return true;
}

/* The index operations: X_OK, X_NOMEM, or X_LOST when a position is not where the operations
 * say (it cannot be: the caller then builds the index anew rather than trust it). */
enum { X_OK, X_NOMEM, X_LOST };

/* The slot of @p pos along the probe sequence of @p hash, or UINT32_MAX. */
static uint32_t xslot_of(const pvec *v, uint32_t hash, uint32_t pos)
{
    uint32_t mask = v->cap - 1, k = hash & mask;
    for (uint32_t n = 0; n < v->cap; n++, k = (k + 1) & mask) {
        uint64_t s = pvec_slot(v, k);
        if ((uint32_t)s == pos + 1)
            return k;
        if (!s)
            break;
    }
    return UINT32_MAX;
}

static int x_add(pvec *v, uint32_t hash, uint32_t pos)
{
    uint32_t mask = v->cap - 1, k = hash & mask;
    while (pvec_slot(v, k))
        k = (k + 1) & mask;
    return pvec_set_slot(v, k, ((uint64_t)hash << 32) | (pos + 1)) ? X_OK : X_NOMEM;
}

/* Backward-shift deletion: the entries after the hole whose home is not between it and them
 * move into it, so that no probe sequence is cut. */
static int x_del(pvec *v, uint32_t hash, uint32_t pos)
{
    uint32_t mask = v->cap - 1, k = xslot_of(v, hash, pos);
    if (k == UINT32_MAX)
        return X_LOST;
    for (uint32_t j = (k + 1) & mask;; j = (j + 1) & mask) {
        uint64_t s = pvec_slot(v, j);
        if (!s)
            break;
        uint32_t home = (uint32_t)(s >> 32) & mask;
        if ((j > k && (home <= k || home > j)) || (j < k && home <= k && home > j)) {
            if (!pvec_set_slot(v, k, s))
                return X_NOMEM;
            k = j;
        }
    }
    return pvec_set_slot(v, k, 0) ? X_OK : X_NOMEM;
}

static int x_move(pvec *v, uint32_t hash, uint32_t from, uint32_t to)
{
    uint32_t k = xslot_of(v, hash, from);
    if (k == UINT32_MAX)
        return X_LOST;
    return pvec_set_slot(v, k, ((uint64_t)hash << 32) | (to + 1)) ? X_OK : X_NOMEM;
}

static pvec *pvec_alloc(const dracel_alloc *a, uint32_t n, uint32_t cap)
{
    pvec *v = dc_malloc(a, sizeof *v);
    if (!v)
        return NULL;
    memset(v, 0, sizeof *v);
    v->refs = 1;
    v->a = a;
    v->n = n;
    v->nip = (n + IPAGE - 1) / IPAGE;
    v->cap = cap;
    v->ip = dc_malloc(a, ip_bytes(v->nip));
    v->xp = dc_malloc(a, (size_t)(cap / XPAGE) * sizeof *v->xp);
    if (!v->ip || !v->xp) {
        dc_free(a, v->ip, ip_bytes(v->nip));
        dc_free(a, v->xp, (size_t)(cap / XPAGE) * sizeof *v->xp);
        dc_free(a, v, sizeof *v);
        return NULL;
    }
    memset(v->ip, 0, ip_bytes(v->nip));
    memset(v->xp, 0, (size_t)(cap / XPAGE) * sizeof *v->xp);
    return v;
}

/* Whether an index of @p cap slots serves @p n objects: at most half full, and not so sparse
 * that a smaller one would do (between the two, additions and deletions never rebuild it). */
static bool cap_ok(uint32_t cap, uint32_t n)
{
    return (uint64_t)n * 2 <= cap && (cap <= XPAGE || cap / 8 < n);
}

/* The slots of a new index for @p n objects (0: too many). */
static uint32_t index_cap(uint32_t n)
{
    uint64_t cap = XPAGE;
    while (cap < (uint64_t)n * 2)
        cap *= 2;
    return cap > UINT32_MAX / 2 ? 0 : (uint32_t)cap;
}

/* A pvec of the dense array of kind @p ki, from nothing. */
static pvec *pvec_build(const dracel_cluster *c, unsigned ki)
{
    uint32_t n = c->ndense[ki], cap = index_cap(n);
    if (!cap)
        return NULL;
    pvec *v = pvec_alloc(c->a, n, cap);
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < v->nip; i++)
        if (!(v->ip[i] = ipage_new(c->a)))
            goto fail;
    for (uint32_t i = 0; i < cap / XPAGE; i++)
        if (!(v->xp[i] = xpage_new(c->a)))
            goto fail;
    for (uint32_t pos = 0; pos < n; pos++) {
        const entry *e = c->dense[ki][pos];
        item_ref(e->it);
        v->ip[pos / IPAGE]->it[pos % IPAGE] = e->it;
        uint32_t h = h32(e->hash), k = h & (cap - 1);
        while (v->xp[k / XPAGE]->slot[k % XPAGE])
            k = (k + 1) & (cap - 1);
        v->xp[k / XPAGE]->slot[k % XPAGE] = ((uint64_t)h << 32) | (pos + 1);
    }
    return v;
fail:
    pvec_unref(v);
    return NULL;
}

/* A pvec of kind @p ki: @p prev with the pending changes (pages copied where they touch). */
static pvec *pvec_next(const dracel_cluster *c, unsigned ki, const pvec *prev)
{
    const pending *pd = &c->pend[ki];
    uint32_t n = c->ndense[ki];
    if (!prev || !cap_ok(prev->cap, n) || pd->nxops + pd->ndirty > n / 2 + 64)
        return pvec_build(c, ki); /* the index changes size, or building is as cheap */
    pvec *v = pvec_alloc(c->a, n, prev->cap);
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < v->nip; i++) {
        if (i < prev->nip) {
            v->ip[i] = prev->ip[i];
            ref_add(&v->ip[i]->refs);
        } else if (!(v->ip[i] = ipage_new(c->a))) {
            goto fail;
        }
    }
    for (uint32_t i = 0; i < v->cap / XPAGE; i++) {
        v->xp[i] = prev->xp[i];
        ref_add(&v->xp[i]->refs);
    }
    /* positions past the end (the array shrank) in the last page */
    for (uint32_t pos = n; pos < prev->n && pos < v->nip * IPAGE; pos++)
        if (!pvec_set_item(v, pos, NULL))
            goto fail;
    for (uint32_t i = 0; i < pd->ndirty; i++) {
        uint32_t pos = pd->dirty[i];
        if (pos < n && !pvec_set_item(v, pos, c->dense[ki][pos]->it))
            goto fail;
    }
    for (uint32_t i = 0; i < pd->nxops; i++) {
        const xop *o = &pd->xops[i];
        int x = o->op == XOP_ADD   ? x_add(v, o->hash, o->to)
                : o->op == XOP_DEL ? x_del(v, o->hash, o->from)
                                   : x_move(v, o->hash, o->from, o->to);
        if (x == X_LOST) {
            pvec_unref(v);
            return pvec_build(c, ki);
        }
        if (x != X_OK)
            goto fail;
    }
    return v;
fail:
    pvec_unref(v);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * The cluster
 */

static void set_err(char *err, size_t cap, const char *msg)
{
    if (err && cap)
        snprintf(err, cap, "%s", msg);
}

dracel_status dracel_cluster_new(const dracel_config *cfg, dracel_cluster **out)
{
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_config conf;
    DC_TRY(dc_config_read(cfg, &conf));
    const dracel_alloc *a0 = dc_alloc_of(&conf);
    core *k = dc_malloc(a0, sizeof *k);
    if (!k)
        return DRACEL_ENOMEM;
    memset(k, 0, sizeof *k);
    k->refs = 1;
    k->alloc = *a0;
    k->cfg = conf;
    k->cfg.alloc = &k->alloc;
    dracel_cluster *c = dc_malloc(&k->alloc, sizeof *c);
    if (!c) {
        core_unref(k);
        return DRACEL_ENOMEM;
    }
    memset(c, 0, sizeof *c);
    c->k = k;
    c->a = &k->alloc;
    dc_arena_init(&c->scratch, c->a);
    dc_arena_init(&c->notes_arena, c->a);
    dracel_status st = dracel_fleet_new(&k->cfg, &c->fleet);
    if (st != DRACEL_OK) {
        dracel_cluster_free(c);
        return st;
    }
    *out = c;
    return DRACEL_OK;
}

static void source_free(const dracel_alloc *a, owner *s)
{
    dc_free(a, s->name, s->len + 1);
    dc_free(a, s, sizeof *s);
}

void dracel_cluster_free(dracel_cluster *c)
{
    if (!c)
        return;
    const dracel_alloc *a = c->a;
    for (uint32_t i = 0; i < c->entries.cap; i++) {
        entry *e = c->entries.slot[i];
        if (e) {
            item_unref(e->it);
            dc_free(a, e, sizeof *e);
        }
    }
    for (uint32_t i = 0; i < c->sources.cap; i++)
        if (c->sources.slot[i])
            source_free(a, c->sources.slot[i]);
    for (uint32_t i = 0; i < c->devs.cap; i++)
        if (c->devs.slot[i])
            devref_free(a, c->devs.slot[i]);
    pmap_free(a, &c->entries);
    pmap_free(a, &c->sources);
    pmap_free(a, &c->devs);
    for (unsigned ki = 0; ki < NKINDS; ki++) {
        dc_free(a, c->dense[ki], (size_t)c->capdense[ki] * sizeof *c->dense[ki]);
        dc_free(a, c->pend[ki].dirty, (size_t)c->pend[ki].capdirty * sizeof *c->pend[ki].dirty);
        dc_free(a, c->pend[ki].xops, (size_t)c->pend[ki].capxops * sizeof *c->pend[ki].xops);
    }
    dc_free(a, c->ddirty, (size_t)c->capddirty * sizeof *c->ddirty);
    dc_free(a, c->notes, (size_t)c->capnotes * sizeof *c->notes);
    dracel_fleet_free(c->fleet);
    dracel_snapshot_unref(c->last);
    dc_arena_free(&c->scratch);
    dc_arena_free(&c->notes_arena);
    core *k = c->k;
    dc_free(a, c, sizeof *c);
    core_unref(k);
}

size_t dracel_cluster_count(const dracel_cluster *c, unsigned kind)
{
    if (!c || !one_kind(kind))
        return 0;
    return c->ndense[kind_ix(kind)];
}

size_t dracel_cluster_notes(const dracel_cluster *c)
{
    return c ? c->nnotes : 0;
}

const char *dracel_cluster_note(const dracel_cluster *c, size_t i)
{
    return c && i < c->nnotes ? c->notes[i] : NULL;
}

static bool add_note(dracel_cluster *c, char *note)
{
    if (!note ||
        !reserve(c->a, (void **)&c->notes, &c->capnotes, (uint64_t)c->nnotes + 1, sizeof *c->notes))
        return false;
    c->notes[c->nnotes++] = note;
    return true;
}

/* ---- Changing the records (nothing here fails: room was reserved) */

static void push_dirty(dracel_cluster *c, unsigned ki, uint32_t pos)
{
    pending *pd = &c->pend[ki];
    pd->dirty[pd->ndirty++] = pos;
}

static void push_xop(dracel_cluster *c, unsigned ki, uint8_t op, uint64_t hash, uint32_t from,
                     uint32_t to)
{
    pending *pd = &c->pend[ki];
    pd->xops[pd->nxops++] = (xop){op, h32(hash), from, to};
}

static bool paged(unsigned kind)
{
    return kind == DC_OBJ_CLAIM || kind == DC_OBJ_NODE;
}

/* Count the devices of a claim's allocation in (+1) or out (-1). */
static void dev_count(dracel_cluster *c, const item *it, int delta)
{
    if (it->kind != DC_OBJ_CLAIM || !it->u.claim.allocated)
        return;
    for (uint32_t k = 0; k < it->u.claim.nresults; k++) {
        const dc_result_in *r = &it->u.claim.results[k];
        if (result_shared(r)) {
            c->nshared = delta > 0 ? c->nshared + 1 : c->nshared - (c->nshared > 0);
            c->shares_dirty = true;
        }
        if (!result_counts(r))
            continue;
        devref *d = find_dev(c, r, dev_hash(r->driver, r->pool, r->device));
        if (!d)
            continue; /* cannot be: prepare made one for every result */
        if (delta > 0)
            d->count++;
        else if (d->count)
            d->count--;
        if ((d->count == 0 || (delta > 0 && d->count == 1)) && !d->dirty) {
            d->dirty = true;
            c->ddirty[c->nddirty++] = d;
        }
    }
}

static void source_unlink(dracel_cluster *c, entry *e, const owner *keep)
{
    owner *s = e->src;
    if (!s)
        return;
    if (e->sprev)
        e->sprev->snext = e->snext;
    else
        s->head = e->snext;
    if (e->snext)
        e->snext->sprev = e->sprev;
    e->sprev = e->snext = NULL;
    e->src = NULL;
    if (--s->n == 0 && s != keep) {
        pmap_del(&c->sources, s, s->hash, source_hash);
        source_free(c->a, s);
    }
}

static void set_owner(dracel_cluster *c, entry *e, owner *s)
{
    if (e->src == s)
        return;
    source_unlink(c, e, s);
    e->src = s;
    e->sprev = NULL;
    e->snext = s->head;
    if (s->head)
        s->head->sprev = e;
    s->head = e;
    s->n++;
}

static void mark_kind(dracel_cluster *c, unsigned kind)
{
    if (kind == DC_OBJ_CLASS)
        c->classes_dirty = true;
    else if (kind == DC_OBJ_SLICE || kind == DC_OBJ_RULE)
        c->table_dirty = true;
    c->changed = true;
}

static void remove_entry(dracel_cluster *c, entry *e, const owner *keep)
{
    unsigned ki = kind_ix(e->kind);
    pmap_del(&c->entries, e, e->hash, entry_hash);
    uint32_t pos = e->pos, last = --c->ndense[ki];
    if (paged(e->kind))
        push_xop(c, ki, XOP_DEL, e->hash, pos, 0);
    if (pos != last) {
        entry *m = c->dense[ki][last];
        c->dense[ki][pos] = m;
        m->pos = pos;
        if (paged(e->kind)) {
            push_xop(c, ki, XOP_MOVE, m->hash, last, pos);
            push_dirty(c, ki, pos);
        }
    }
    dev_count(c, e->it, -1);
    if (e->kind == DC_OBJ_SLICE)
        (void)dracel_fleet_delete(c->fleet, e->it->u.slice); /* held: it cannot fail */
    else if (e->kind == DC_OBJ_RULE)
        (void)dracel_fleet_delete_rule(c->fleet, e->it->u.slice); /* nor can this */
    mark_kind(c, e->kind);
    source_unlink(c, e, keep);
    item_unref(e->it);
    dc_free(c->a, e, sizeof *e);
}

static void replace_item(dracel_cluster *c, entry *e, item *it)
{
    item *old = e->it;
    dev_count(c, it, +1);
    dev_count(c, old, -1);
    e->it = it;
    if (paged(e->kind))
        push_dirty(c, kind_ix(e->kind), e->pos);
    mark_kind(c, e->kind);
    item_unref(old);
}

static void add_entry(dracel_cluster *c, entry *e)
{
    unsigned ki = kind_ix(e->kind);
    pmap_put(&c->entries, e, e->hash);
    e->pos = c->ndense[ki]++;
    c->dense[ki][e->pos] = e;
    if (paged(e->kind)) {
        push_xop(c, ki, XOP_ADD, e->hash, 0, e->pos);
        push_dirty(c, ki, e->pos);
    }
    dev_count(c, e->it, +1);
    mark_kind(c, e->kind);
}

/* ---- One change: decode, prepare (everything that can fail), commit */

typedef struct incoming {
    unsigned kind;              /* DC_OBJ_* */
    const char *ns, *name;
    const void *obj;            /* dc_slice_in, dc_class_in, dc_claim_in, dc_node_in or
                                   dc_taint_rule_in */
    uint32_t line;
    uint64_t hash;              /* of the key */
    entry *e;                   /* the key's entry now, or NULL */
    item *it;                   /* the new object; NULL when unchanged */
    entry *ne;                  /* a new entry, when e is NULL */
} incoming;

typedef struct batch {
    dc_objects t;               /* the decoded input */
    bool decoded;
    incoming *in;
    uint32_t nin, capin;
    uint32_t *set;              /* the keys of `in`: index + 1, open addressing */
    uint32_t capset;
    entry **del;                /* entries to delete */
    uint32_t ndel, capdel;
    owner *src;
    bool new_src;
    devref **fresh;             /* device-ID records made for this change (in c->devs) */
    uint32_t nfresh, capfresh;
    unsigned fleet;             /* the kinds the fleet loads from the input (slices, rules) */
} batch;

static void batch_free(dracel_cluster *c, batch *b, bool committed)
{
    const dracel_alloc *a = c->a;
    if (!committed) {
        for (uint32_t i = 0; i < b->nin; i++) {
            item_unref(b->in[i].it);
            dc_free(a, b->in[i].ne, sizeof *b->in[i].ne);
        }
        for (uint32_t i = 0; i < b->nfresh; i++) {
            pmap_del(&c->devs, b->fresh[i], b->fresh[i]->hash, devref_hash);
            devref_free(a, b->fresh[i]);
        }
        if (b->new_src)
            source_free(a, b->src);
    }
    if (b->decoded)
        dc_objects_free(&b->t);
    dc_free(a, b->in, (size_t)b->capin * sizeof *b->in);
    dc_free(a, b->set, (size_t)b->capset * sizeof *b->set);
    dc_free(a, b->del, (size_t)b->capdel * sizeof *b->del);
    dc_free(a, b->fresh, (size_t)b->capfresh * sizeof *b->fresh);
}

static dracel_status oom(char *err, size_t errcap)
{
    set_err(err, errcap, "out of memory");
    return DRACEL_ENOMEM;
}

static dracel_status add_in(dracel_cluster *c, batch *b, unsigned kind, const char *ns,
                            const char *name, const void *obj, uint32_t line)
{
    if (!reserve(c->a, (void **)&b->in, &b->capin, (uint64_t)b->nin + 1, sizeof *b->in))
        return DRACEL_ENOMEM;
    incoming *x = &b->in[b->nin++];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->ns = ns && *ns ? ns : NULL;
    x->name = name ? name : "";
    x->obj = obj;
    x->line = line;
    x->hash = key_hash(kind, x->ns, x->name);
    return DRACEL_OK;
}

/* The objects of the decoded input, templates skipped with a note. */
static dracel_status gather(dracel_cluster *c, batch *b, const char *source)
{
    const dc_objects *t = &b->t;
    for (uint32_t i = 0; i < t->slices.n; i++)
        DC_TRY(add_in(c, b, DC_OBJ_SLICE, NULL, t->slices.slices[i].name, &t->slices.slices[i],
                      t->slices.slices[i].line));
    for (uint32_t i = 0; i < t->slices.nrules; i++)
        DC_TRY(add_in(c, b, DC_OBJ_RULE, NULL, t->slices.rules[i].name, &t->slices.rules[i],
                      t->slices.rules[i].line));
    b->fleet = (t->slices.n ? DC_OBJ_SLICE : 0) | (t->slices.nrules ? DC_OBJ_RULE : 0);
    for (uint32_t i = 0; i < t->nclasses; i++)
        DC_TRY(add_in(c, b, DC_OBJ_CLASS, NULL, t->classes[i].name, &t->classes[i],
                      t->classes[i].line));
    for (uint32_t i = 0; i < t->nclaims; i++) {
        const dc_claim_in *cl = &t->claims[i];
        if (cl->kind && strcmp(cl->kind, "ResourceClaimTemplate") == 0) {
            char *note = dc_arena_printf(
                &c->notes_arena,
                "%s:%u: skipped object of kind ResourceClaimTemplate%s%s%s: a template is not "
                "the claim of a pod",
                source, (unsigned)cl->line, cl->name[0] ? " (" : "", cl->name,
                cl->name[0] ? ")" : "");
            if (!add_note(c, note))
                return DRACEL_ENOMEM;
            continue;
        }
        DC_TRY(add_in(c, b, DC_OBJ_CLAIM, cl->namespace, cl->name, cl, cl->line));
    }
    for (uint32_t i = 0; i < t->nnodes; i++)
        DC_TRY(add_in(c, b, DC_OBJ_NODE, NULL, t->nodes[i].name, &t->nodes[i], t->nodes[i].line));
    return DRACEL_OK;
}

static bool in_is(const incoming *x, unsigned kind, const char *ns, const char *name)
{
    return x->kind == kind && strcmp(x->name, name) == 0 && same_str(x->ns, ns);
}

/* The incoming object of a key, or NULL. */
static const incoming *set_find(const batch *b, unsigned kind, const char *ns, const char *name,
                                uint64_t hash)
{
    if (!b->capset)
        return NULL;
    uint32_t mask = b->capset - 1;
    for (uint32_t k = (uint32_t)hash & mask; b->set[k]; k = (k + 1) & mask) {
        const incoming *x = &b->in[b->set[k] - 1];
        if (x->hash == hash && in_is(x, kind, ns, name))
            return x;
    }
    return NULL;
}

/* Every incoming object named, and named once. */
static dracel_status check_keys(dracel_cluster *c, batch *b, const char *source, char *err,
                                size_t errcap)
{
    uint64_t cap = 16;
    while (cap < (uint64_t)b->nin * 2)
        cap *= 2;
    if (cap > UINT32_MAX / 2 + 1)
        return oom(err, errcap);
    b->set = dc_malloc(c->a, (size_t)cap * sizeof *b->set);
    if (!b->set)
        return oom(err, errcap);
    b->capset = (uint32_t)cap;
    memset(b->set, 0, (size_t)cap * sizeof *b->set);
    for (uint32_t i = 0; i < b->nin; i++) {
        const incoming *x = &b->in[i];
        const char *kn = KIND_NAME[kind_ix(x->kind)];
        if (!x->name[0]) {
            if (err && errcap)
                snprintf(err, errcap, "%s:%u: %s (unnamed): metadata.name: required value", source,
                         (unsigned)x->line, kn);
            return DRACEL_EINPUT;
        }
        const incoming *y = set_find(b, x->kind, x->ns, x->name, x->hash);
        if (y) {
            if (err && errcap)
                snprintf(err, errcap, "%s:%u: %s %s: defined twice (also %s:%u)", source,
                         (unsigned)x->line, kn, x->name, source, (unsigned)y->line);
            return DRACEL_EINPUT;
        }
        uint32_t k = (uint32_t)x->hash & (b->capset - 1);
        while (b->set[k])
            k = (k + 1) & (b->capset - 1);
        b->set[k] = i + 1;
    }
    return DRACEL_OK;
}

/* A new item holding a copy of @p obj, in one block of the measured size. */
static dracel_status make_item(dracel_cluster *c, unsigned kind, const void *obj,
                               uint64_t version, item **out)
{
    *out = NULL;
    item *probe;
    dc_arena_reset(&c->scratch);
    size_t before = c->scratch.served;
    DC_TRY(item_fill(&c->scratch, kind, obj, &probe));
    dc_arena a;
    dc_arena_init_sized(&a, c->a, c->scratch.served - before);
    item *it = NULL;
    dracel_status st = item_fill(&a, kind, obj, &it);
    if (st != DRACEL_OK) {
        dc_arena_free(&a);
        return st;
    }
    it->refs = 1;
    it->version = version;
    it->arena = a;
    *out = it;
    return DRACEL_OK;
}

/* Everything that can fail, before the first change. */
static dracel_status prepare(dracel_cluster *c, batch *b, const char *source, unsigned replace,
                             char *err, size_t errcap)
{
    const dracel_alloc *a = c->a;
    size_t slen = strlen(source);
    uint64_t sh = name_hash(source, slen);
    b->src = find_source(c, source, slen, sh);
    if (replace && b->src) {
        for (entry *e = b->src->head; e; e = e->snext) {
            if (!(e->kind & replace) ||
                set_find(b, e->kind, item_ns(e->it), item_name(e->it), e->hash))
                continue;
            if (!reserve(a, (void **)&b->del, &b->capdel, (uint64_t)b->ndel + 1, sizeof *b->del))
                return oom(err, errcap);
            b->del[b->ndel++] = e;
        }
    }
    if (!b->src) {
        owner *s = dc_malloc(a, sizeof *s);
        char *name = dc_malloc(a, slen + 1);
        if (!s || !name) {
            dc_free(a, s, sizeof *s);
            dc_free(a, name, slen + 1);
            return oom(err, errcap);
        }
        memset(s, 0, sizeof *s);
        memcpy(name, source, slen + 1);
        s->name = name;
        s->len = slen;
        s->hash = sh;
        b->src = s;
        b->new_src = true;
        if (!pmap_reserve(a, &c->sources, 1, source_hash))
            return oom(err, errcap);
    }
    /* new items and entries; what the change adds to each list */
    uint32_t added[NKINDS] = {0}, dirty[NKINDS] = {0}, xops[NKINDS] = {0}, nnew = 0;
    uint64_t results = 0;
    for (uint32_t i = 0; i < b->nin; i++) {
        incoming *x = &b->in[i];
        unsigned ki = kind_ix(x->kind);
        x->e = find_entry(c, x->kind, x->ns, x->name, x->hash);
        uint64_t v = version_of(x->kind, x->obj);
        if (x->e && x->kind != DC_OBJ_SLICE && x->kind != DC_OBJ_RULE && x->e->it->version == v)
            continue; /* unchanged: only its owner may change (the fleet compares its own) */
        if (make_item(c, x->kind, x->obj, v, &x->it) != DRACEL_OK)
            return oom(err, errcap);
        dirty[ki]++;
        if (x->kind == DC_OBJ_CLAIM)
            results += x->it->u.claim.nresults + (x->e ? x->e->it->u.claim.nresults : 0);
        if (!x->e) {
            if (!(x->ne = dc_malloc(a, sizeof *x->ne)))
                return oom(err, errcap);
            memset(x->ne, 0, sizeof *x->ne);
            x->ne->kind = x->kind;
            x->ne->hash = x->hash;
            added[ki]++;
            xops[ki]++;
            nnew++;
        }
    }
    for (uint32_t i = 0; i < b->ndel; i++) {
        const entry *e = b->del[i];
        unsigned ki = kind_ix(e->kind);
        dirty[ki]++;
        xops[ki] += 2;
        if (e->kind == DC_OBJ_CLAIM)
            results += e->it->u.claim.nresults;
    }
    if (!pmap_reserve(a, &c->entries, nnew, entry_hash))
        return oom(err, errcap);
    for (unsigned ki = 0; ki < NKINDS; ki++) {
        pending *pd = &c->pend[ki];
        if (!reserve(a, (void **)&c->dense[ki], &c->capdense[ki],
                     (uint64_t)c->ndense[ki] + added[ki], sizeof *c->dense[ki]) ||
            !reserve(a, (void **)&pd->dirty, &pd->capdirty, (uint64_t)pd->ndirty + dirty[ki],
                     sizeof *pd->dirty) ||
            !reserve(a, (void **)&pd->xops, &pd->capxops, (uint64_t)pd->nxops + xops[ki],
                     sizeof *pd->xops))
            return oom(err, errcap);
    }
    /* a record for every device ID the new allocations name */
    if (!reserve(a, (void **)&c->ddirty, &c->capddirty, (uint64_t)c->nddirty + results,
                 sizeof *c->ddirty) ||
        results > UINT32_MAX || !pmap_reserve(a, &c->devs, (uint32_t)results, devref_hash))
        return oom(err, errcap);
    for (uint32_t i = 0; i < b->nin; i++) {
        const item *it = b->in[i].it;
        if (!it || it->kind != DC_OBJ_CLAIM || !it->u.claim.allocated)
            continue;
        for (uint32_t k = 0; k < it->u.claim.nresults; k++) {
            const dc_result_in *r = &it->u.claim.results[k];
            uint64_t h = dev_hash(r->driver, r->pool, r->device);
            if (!result_counts(r) || find_dev(c, r, h))
                continue;
            devref *d = devref_new(a, r, h);
            if (!d || !reserve(a, (void **)&b->fresh, &b->capfresh, (uint64_t)b->nfresh + 1,
                               sizeof *b->fresh)) {
                if (d)
                    devref_free(a, d);
                return oom(err, errcap);
            }
            pmap_put(&c->devs, d, h);
            b->fresh[b->nfresh++] = d;
        }
    }
    return DRACEL_OK;
}

static void commit(dracel_cluster *c, batch *b)
{
    owner *src = b->src;
    if (b->new_src)
        pmap_put(&c->sources, src, src->hash);
    for (uint32_t i = 0; i < b->ndel; i++)
        remove_entry(c, b->del[i], src);
    for (uint32_t i = 0; i < b->nin; i++) {
        incoming *x = &b->in[i];
        entry *e = x->e;
        if (!e) {
            e = x->ne;
            e->it = x->it;
            add_entry(c, e);
        } else if (x->it) {
            replace_item(c, e, x->it);
        }
        set_owner(c, e, src);
    }
    if (src->n == 0) { /* it holds nothing (any more) */
        pmap_del(&c->sources, src, src->hash, source_hash);
        source_free(c->a, src);
    }
}

static bool kinds_ok(unsigned kinds)
{
    return kinds && !(kinds & ~(unsigned)ALL_KINDS);
}

/* Apply @p buf; with @p replace, delete the objects of those kinds that the source owns and
 * @p buf lacks. */
static dracel_status change(dracel_cluster *c, const char *source, const char *buf, size_t len,
                            unsigned kinds, bool replace, char *err, size_t errcap)
{
    set_err(err, errcap, "");
    if (!c || !source || (!buf && len) || !kinds_ok(kinds))
        return DRACEL_EINVAL;
    batch b;
    memset(&b, 0, sizeof b);
    dc_arena_free(&c->notes_arena);
    c->nnotes = 0;
    dc_objects_init(&b.t, c->a);
    b.decoded = true;
    dracel_status st =
        dc_objects_load_buffer(&b.t, source, buf ? buf : "", len, kinds, NULL, err, errcap);
    for (uint32_t i = 0; st == DRACEL_OK && i < b.t.slices.nnotes; i++) {
        const char *n = b.t.slices.notes[i];
        if (!add_note(c, dc_arena_strndup(&c->notes_arena, n, strlen(n))))
            st = DRACEL_ENOMEM;
    }
    if (st == DRACEL_OK)
        st = gather(c, &b, source);
    if (st == DRACEL_OK)
        st = check_keys(c, &b, source, err, errcap);
    if (st == DRACEL_OK)
        st = prepare(c, &b, source, replace ? kinds : 0, err, errcap);
    if (st == DRACEL_OK && b.fleet) /* the fleet reads them again (its own decoder) */
        st = dc_api_fleet_load_buffer(c->fleet, source, buf ? buf : "", len, b.fleet, err,
                                      errcap);
    if (st != DRACEL_OK) {
        if (st == DRACEL_ENOMEM)
            set_err(err, errcap, "out of memory");
        batch_free(c, &b, false);
        return st;
    }
    commit(c, &b);
    batch_free(c, &b, true);
    return DRACEL_OK;
}

dracel_status dracel_cluster_apply(dracel_cluster *c, const char *source, const char *buf,
                                   size_t len, unsigned kinds, char *err, size_t errcap)
{
    return change(c, source, buf, len, kinds, false, err, errcap);
}

dracel_status dracel_cluster_set_source(dracel_cluster *c, const char *source, const char *buf,
                                        size_t len, unsigned kinds, char *err, size_t errcap)
{
    return change(c, source, buf, len, kinds, true, err, errcap);
}

dracel_status dracel_cluster_delete(dracel_cluster *c, unsigned kind, const char *ns,
                                    const char *name)
{
    if (!c || !name || !one_kind(kind))
        return DRACEL_EINVAL;
    if (kind != DC_OBJ_CLAIM || (ns && !*ns))
        ns = NULL;
    entry *e = find_entry(c, kind, ns, name, key_hash(kind, ns, name));
    if (!e)
        return DRACEL_EINPUT;
    unsigned ki = kind_ix(kind);
    pending *pd = &c->pend[ki];
    uint32_t nres = kind == DC_OBJ_CLAIM ? e->it->u.claim.nresults : 0;
    if (!reserve(c->a, (void **)&pd->dirty, &pd->capdirty, (uint64_t)pd->ndirty + 1,
                 sizeof *pd->dirty) ||
        !reserve(c->a, (void **)&pd->xops, &pd->capxops, (uint64_t)pd->nxops + 2,
                 sizeof *pd->xops) ||
        !reserve(c->a, (void **)&c->ddirty, &c->capddirty, (uint64_t)c->nddirty + nres,
                 sizeof *c->ddirty))
        return DRACEL_ENOMEM;
    remove_entry(c, e, NULL);
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Taking a snapshot
 */

static dracel_status snap_table(dracel_cluster *c, const dracel_snapshot *prev, dracel_snapshot *s,
                                char *err, size_t errcap)
{
    if (prev && !c->table_dirty) {
        s->table = prev->table;
        ref_add(&s->table->refs);
        return DRACEL_OK;
    }
    table_ref *t = dc_malloc(c->a, sizeof *t);
    if (!t)
        return DRACEL_ENOMEM;
    memset(t, 0, sizeof *t);
    t->refs = 1;
    t->a = c->a;
    dracel_status st = dracel_fleet_snapshot(c->fleet, &t->t, err, errcap);
    if (st != DRACEL_OK) {
        dc_free(c->a, t, sizeof *t);
        return st;
    }
    s->table = t;
    return DRACEL_OK;
}

static dracel_status snap_classes(dracel_cluster *c, const dracel_snapshot *prev,
                                  dracel_snapshot *s)
{
    if (prev && !c->classes_dirty) {
        s->classes = prev->classes;
        ref_add(&s->classes->refs);
        return DRACEL_OK;
    }
    uint32_t n = c->ndense[kind_ix(DC_OBJ_CLASS)];
    classes_ref *r = dc_malloc(c->a, sizeof *r);
    if (!r)
        return DRACEL_ENOMEM;
    memset(r, 0, sizeof *r);
    r->refs = 1;
    r->a = c->a;
    dc_api_objects_init(&r->objs, &c->k->cfg);
    s->classes = r;
    r->items = dc_malloc(c->a, (size_t)(n ? n : 1) * sizeof *r->items);
    if (!r->items)
        return DRACEL_ENOMEM;
    r->cap = n ? n : 1;
    dc_class_in *cls = n ? dc_arena_alloc(&r->objs.o.slices.arena, (size_t)n * sizeof *cls) : NULL;
    if (n && !cls)
        return DRACEL_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        item *it = c->dense[kind_ix(DC_OBJ_CLASS)][i]->it;
        item_ref(it);
        r->items[r->n++] = it;
        cls[i] = it->u.cls;
    }
    r->objs.o.classes = cls;
    r->objs.o.nclasses = r->objs.o.capclasses = n;
    return dc_objects_index(&r->objs.o, NULL, 0) == DRACEL_OK ? DRACEL_OK : DRACEL_ENOMEM;
}

/* The shared results of the snapshot's allocated claims as shares (their strings the
 * claims'); *n of them in *out (malloc'd through the cluster's allocator, *cap elements). */
static dracel_status snap_shares(dracel_cluster *c, const dracel_snapshot *s, dracel_share **out,
                                 size_t *n, size_t *cap, const char ***strs, size_t *nstrs)
{
    size_t ns = 0, nq = 0;
    for (uint32_t i = 0; i < s->claims->n; i++) {
        const dc_claim_in *cl = &pvec_item(s->claims, i)->u.claim;
        for (uint32_t k = 0; cl->allocated && k < cl->nresults; k++)
            if (result_shared(&cl->results[k])) {
                ns++;
                nq += cl->results[k].nconsumed;
            }
    }
    *out = dc_malloc(c->a, (ns + 1) * sizeof **out);
    *strs = dc_malloc(c->a, (2 * nq + 1) * sizeof **strs);
    *cap = ns + 1;
    *nstrs = 2 * nq + 1;
    if (!*out || !*strs)
        return DRACEL_ENOMEM;
    const char **q = *strs;
    *n = 0;
    for (uint32_t i = 0; i < s->claims->n; i++) {
        const dc_claim_in *cl = &pvec_item(s->claims, i)->u.claim;
        for (uint32_t k = 0; cl->allocated && k < cl->nresults; k++) {
            const dc_result_in *r = &cl->results[k];
            if (!result_shared(r))
                continue;
            dracel_share *sh = &(*out)[(*n)++];
            sh->device = (dracel_device_id){r->driver, r->pool, r->device};
            sh->names = q;
            sh->quantities = q + r->nconsumed;
            sh->n = r->nconsumed;
            for (uint32_t j = 0; j < r->nconsumed; j++) {
                q[j] = r->consumed[j].name;
                q[r->nconsumed + j] = r->consumed[j].value;
            }
            q += 2 * r->nconsumed;
        }
    }
    return DRACEL_OK;
}

static dracel_status snap_usage(dracel_cluster *c, const dracel_snapshot *prev, dracel_snapshot *s)
{
    bool same_table = prev && prev->table == s->table;
    bool shared = c->nshared > 0, was_shared = prev && prev->usage->shared;
    if (same_table && !c->nddirty && !(c->shares_dirty && (shared || was_shared))) {
        s->usage = prev->usage;
        ref_add(&s->usage->refs);
        return DRACEL_OK;
    }
    usage_ref *u = dc_malloc(c->a, sizeof *u);
    if (!u)
        return DRACEL_ENOMEM;
    memset(u, 0, sizeof *u);
    u->refs = 1;
    u->a = c->a;
    u->t = s->table;
    ref_add(&u->t->refs);
    s->usage = u;
    u->shared = shared;
    if (shared || was_shared) /* shares are not derived: the usage is made anew */
        same_table = false;
    /* the IDs to look up: every one in use (a new table), or those that changed */
    uint32_t cap = same_table ? c->nddirty : c->devs.n, nset = 0, nclear = 0;
    dracel_device_id *ids = dc_malloc(c->a, (size_t)cap * sizeof *ids + 1);
    if (!ids)
        return DRACEL_ENOMEM;
    if (same_table) {
        /* those to set from the front of ids, those to clear from its back */
        for (uint32_t i = 0; i < c->nddirty; i++) {
            const devref *d = c->ddirty[i];
            if (d->count && !d->was)
                ids[nset++] = (dracel_device_id){d->driver, d->pool, d->device};
            else if (!d->count && d->was)
                ids[cap - ++nclear] = (dracel_device_id){d->driver, d->pool, d->device};
        }
    } else {
        for (uint32_t i = 0; i < c->devs.cap; i++) {
            const devref *d = c->devs.slot[i];
            if (d && d->count)
                ids[nset++] = (dracel_device_id){d->driver, d->pool, d->device};
        }
    }
    dracel_status st;
    if (same_table) {
        st = dc_api_usage_derive(prev->usage->u, ids, nset, ids + cap - nclear, nclear, &u->u);
    } else if (shared) {
        dracel_share *sh = NULL;
        const char **strs = NULL;
        size_t nsh = 0, capsh = 0, nstrs = 0;
        st = snap_shares(c, s, &sh, &nsh, &capsh, &strs, &nstrs);
        if (st == DRACEL_OK)
            st = dracel_usage_new_shared(s->table->t, ids, nset, sh, nsh, &u->u);
        dc_free(c->a, sh, capsh * sizeof *sh);
        dc_free(c->a, strs, nstrs * sizeof *strs);
    } else {
        st = dracel_usage_new(s->table->t, ids, nset, &u->u);
    }
    dc_free(c->a, ids, (size_t)cap * sizeof *ids + 1);
    return st;
}

static dracel_status snap_vec(dracel_cluster *c, const dracel_snapshot *prev, unsigned kind,
                              pvec **out)
{
    unsigned ki = kind_ix(kind);
    const pvec *old = prev ? (kind == DC_OBJ_CLAIM ? prev->claims : prev->nodes) : NULL;
    if (old && !c->pend[ki].ndirty && !c->pend[ki].nxops && old->n == c->ndense[ki]) {
        *out = (pvec *)old;
        ref_add(&(*out)->refs);
        return DRACEL_OK;
    }
    *out = pvec_next(c, ki, old);
    return *out ? DRACEL_OK : DRACEL_ENOMEM;
}

dracel_status dracel_cluster_snapshot(dracel_cluster *c, dracel_snapshot **out, char *err,
                                      size_t errcap)
{
    set_err(err, errcap, "");
    if (!c || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    if (c->last && !c->changed) {
        *out = dracel_snapshot_ref(c->last);
        return DRACEL_OK;
    }
    const dracel_snapshot *prev = c->last;
    dracel_snapshot *s = dc_malloc(c->a, sizeof *s);
    if (!s)
        return oom(err, errcap);
    memset(s, 0, sizeof *s);
    s->refs = 1;
    s->k = c->k;
    ref_add(&c->k->refs);
    dracel_status st = snap_table(c, prev, s, err, errcap);
    if (st == DRACEL_OK)
        st = snap_classes(c, prev, s);
    if (st == DRACEL_OK)
        st = snap_vec(c, prev, DC_OBJ_CLAIM, &s->claims);
    if (st == DRACEL_OK) /* after the claims: shared allocations are read from them */
        st = snap_usage(c, prev, s);
    if (st == DRACEL_OK)
        st = snap_vec(c, prev, DC_OBJ_NODE, &s->nodes);
    if (st != DRACEL_OK) {
        dracel_snapshot_unref(s);
        if (st == DRACEL_ENOMEM)
            set_err(err, errcap, "out of memory");
        return st;
    }
    /* The changes are in: forget them. */
    s->id = ++c->next_id;
    for (unsigned ki = 0; ki < NKINDS; ki++)
        c->pend[ki].ndirty = c->pend[ki].nxops = 0;
    for (uint32_t i = 0; i < c->nddirty; i++) {
        devref *d = c->ddirty[i];
        d->dirty = false;
        d->was = d->count > 0;
        if (!d->count) {
            pmap_del(&c->devs, d, d->hash, devref_hash);
            devref_free(c->a, d);
        }
    }
    c->nddirty = 0;
    c->shares_dirty = false;
    c->classes_dirty = c->table_dirty = c->changed = false;
    dracel_snapshot_unref(c->last);
    c->last = dracel_snapshot_ref(s);
    *out = s;
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Reading a snapshot
 */

uint64_t dracel_snapshot_id(const dracel_snapshot *s)
{
    return s ? s->id : 0;
}

const dracel_table *dracel_snapshot_table(const dracel_snapshot *s)
{
    return s ? s->table->t : NULL;
}

const dracel_objects *dracel_snapshot_classes(const dracel_snapshot *s)
{
    return s ? &s->classes->objs : NULL;
}

const dracel_usage *dracel_snapshot_usage(const dracel_snapshot *s)
{
    return s ? s->usage->u : NULL;
}

size_t dracel_snapshot_nodes(const dracel_snapshot *s)
{
    return s ? s->nodes->n : 0;
}

dracel_status dracel_snapshot_node(const dracel_snapshot *s, size_t i, dracel_node *out)
{
    if (!s || !out || i >= s->nodes->n)
        return DRACEL_EINVAL;
    const dc_node_in *n = &pvec_item(s->nodes, (uint32_t)i)->u.node;
    out->name = n->name;
    out->labels = (const dracel_label *)n->labels;
    out->nlabels = n->nlabels;
    return DRACEL_OK;
}

dracel_status dracel_snapshot_node_find(const dracel_snapshot *s, const char *name, size_t *index)
{
    if (!s || !name || !index)
        return DRACEL_EINVAL;
    uint32_t pos = pvec_find(s->nodes, DC_OBJ_NODE, NULL, name);
    if (pos == UINT32_MAX)
        return DRACEL_EINPUT;
    *index = pos;
    return DRACEL_OK;
}

size_t dracel_snapshot_claims(const dracel_snapshot *s)
{
    return s ? s->claims->n : 0;
}

dracel_status dracel_snapshot_claim_find(const dracel_snapshot *s, const char *ns,
                                         const char *name, size_t *index)
{
    if (!s || !name || !index)
        return DRACEL_EINVAL;
    uint32_t pos = pvec_find(s->claims, DC_OBJ_CLAIM, ns && *ns ? ns : NULL, name);
    if (pos == UINT32_MAX)
        return DRACEL_EINPUT;
    *index = pos;
    return DRACEL_OK;
}

/* The first layouts of the growable structs (they never change once released). */
#define CLAIM_STATUS_V1 (offsetof(dracel_claim_status, nreserved) + sizeof(size_t))
#define RESULT_V1 (offsetof(dracel_device_result, admin_access) + sizeof(bool))
#define CONSUMER_V1 (offsetof(dracel_claim_consumer, uid) + sizeof(const char *))

static const dc_claim_in *claim_at(const dracel_snapshot *s, size_t i)
{
    return s && i < s->claims->n ? &pvec_item(s->claims, (uint32_t)i)->u.claim : NULL;
}

dracel_status dracel_snapshot_claim_size(const dracel_snapshot *s, size_t i,
                                         dracel_claim_status *out, size_t size)
{
    const dc_claim_in *cl = claim_at(s, i);
    if (!cl || !out)
        return DRACEL_EINVAL;
    dracel_claim_status x;
    memset(&x, 0, sizeof x);
    x.ns = cl->namespace;
    x.name = cl->name;
    x.version = pvec_item(s->claims, (uint32_t)i)->version;
    x.allocated = cl->allocated;
    x.nresults = cl->nresults;
    x.node_selector = cl->node_selector != NULL;
    x.nreserved = cl->nreserved;
    return dc_struct_write(out, size, &x, sizeof x, CLAIM_STATUS_V1);
}

dracel_status dracel_snapshot_claim_result_size(const dracel_snapshot *s, size_t i, size_t k,
                                                dracel_device_result *out, size_t size)
{
    const dc_claim_in *cl = claim_at(s, i);
    if (!cl || !out || k >= cl->nresults)
        return DRACEL_EINVAL;
    const dc_result_in *r = &cl->results[k];
    dracel_device_result x;
    memset(&x, 0, sizeof x);
    x.request = r->request;
    x.driver = r->driver;
    x.pool = r->pool;
    x.device = r->device;
    x.tier = SIZE_MAX;
    x.admin_access = r->admin_access;
    return dc_struct_write(out, size, &x, sizeof x, RESULT_V1);
}

const char *dracel_snapshot_claim_device_class(const dracel_snapshot *s, size_t i,
                                               const char *request)
{
    const dc_claim_in *cl = claim_at(s, i);
    if (!cl || !request)
        return NULL;
    const char *slash = strchr(request, '/');
    size_t rn = slash ? (size_t)(slash - request) : strlen(request);
    for (uint32_t k = 0; k < cl->nreqs; k++) {
        const dc_request_in *rq = &cl->reqs[k];
        if (strlen(rq->name) != rn || memcmp(rq->name, request, rn) != 0)
            continue;
        if (!slash)
            return rq->first_available ? NULL : rq->subs[0].class_name;
        if (!rq->first_available)
            return NULL;
        for (uint32_t j = 0; j < rq->nsubs; j++)
            if (rq->subs[j].name && strcmp(rq->subs[j].name, slash + 1) == 0)
                return rq->subs[j].class_name;
        return NULL;
    }
    return NULL;
}

dracel_status dracel_snapshot_claim_consumer_size(const dracel_snapshot *s, size_t i, size_t k,
                                                  dracel_claim_consumer *out, size_t size)
{
    const dc_claim_in *cl = claim_at(s, i);
    if (!cl || !out || k >= cl->nreserved)
        return DRACEL_EINVAL;
    const dc_consumer_in *u = &cl->reserved[k];
    dracel_claim_consumer x;
    memset(&x, 0, sizeof x);
    x.api_group = u->api_group;
    x.resource = u->resource;
    x.name = u->name;
    x.uid = u->uid;
    return dc_struct_write(out, size, &x, sizeof x, CONSUMER_V1);
}

bool dracel_snapshot_claim_fits(const dracel_snapshot *s, size_t i, const dracel_node *node)
{
    const dc_claim_in *cl = claim_at(s, i);
    if (!cl || !cl->allocated || !node || !node->name || (node->nlabels && !node->labels) ||
        node->nlabels > UINT32_MAX)
        return false;
    if (!cl->node_selector)
        return true;
    dc_node_in n;
    memset(&n, 0, sizeof n);
    n.name = node->name;
    n.labels = (dc_label_in *)(uintptr_t)node->labels; /* the same layout (api_place.c) */
    n.nlabels = (uint32_t)node->nlabels;
    bool sorted = true;
    for (size_t k = 0; k < node->nlabels; k++) {
        if (!node->labels[k].key || !node->labels[k].value)
            return false;
        if (k && strcmp(node->labels[k - 1].key, node->labels[k].key) > 0)
            sorted = false;
    }
    return dc_node_selector_match(cl->node_selector, &n, sorted);
}

/* A policy of the snapshot's claims (all of them when claims is NULL) and, when extra is not
 * NULL, that claim after them. */
static dracel_status snap_policy(const dracel_config *cfg, dracel_snapshot *s,
                                 const size_t *claims, size_t n, const dc_claim_in *extra,
                                 dracel_policy **out, char *err, size_t errcap)
{
    size_t total = claims ? n : s->claims->n;
    for (size_t i = 0; claims && i < n; i++)
        if (claims[i] >= s->claims->n) {
            set_err(err, errcap, "a claim index is out of range");
            return DRACEL_EINVAL;
        }
    if (total >= UINT32_MAX)
        return DRACEL_EINVAL;
    dracel_config conf;
    DC_TRY(dc_config_read(cfg, &conf));
    const dracel_alloc *a = dc_alloc_of(&conf);
    const dc_claim_in **list = dc_malloc(a, (total + 1) * sizeof *list);
    if (!list)
        return oom(err, errcap);
    for (size_t i = 0; i < total; i++)
        list[i] = claim_at(s, claims ? claims[i] : i);
    if (extra)
        list[total] = extra;
    dracel_status st = dc_api_policy_make(&conf, s->table->t, &s->classes->objs.o, list,
                                          total + (extra != NULL), out, err, errcap);
    dc_free(a, list, (total + 1) * sizeof *list);
    if (st == DRACEL_OK)
        (*out)->snap = dracel_snapshot_ref(s);
    return st;
}

dracel_status dracel_snapshot_policy_new(const dracel_config *cfg, dracel_snapshot *s,
                                         const size_t *claims, size_t n, dracel_policy **out,
                                         char *err, size_t errcap)
{
    set_err(err, errcap, "");
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    if (!s || (!claims && n))
        return DRACEL_EINVAL;
    return snap_policy(cfg, s, claims, n, NULL, out, err, errcap);
}

dracel_status dracel_snapshot_pod_policy_new(const dracel_config *cfg, dracel_snapshot *s,
                                             const size_t *claims, size_t n,
                                             const dracel_pod *pod, const char *const *res,
                                             size_t nres, dracel_policy **out, char *err,
                                             size_t errcap)
{
    set_err(err, errcap, "");
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    if (!s || (!claims && n) || (nres && (!pod || !res)))
        return DRACEL_EINVAL;
    if (!nres)
        return snap_policy(cfg, s, claims, n, NULL, out, err, errcap);
    dracel_config conf;
    DC_TRY(dc_config_read(cfg, &conf));
    dc_objects tmp;
    dc_objects_init(&tmp, dc_alloc_of(&conf));
    dc_claim_in cl;
    dracel_status st = dc_api_pod_claim(pod, &s->classes->objs.o, res, nres, &tmp, &cl, err,
                                        errcap);
    if (st == DRACEL_OK)
        st = snap_policy(cfg, s, claims, n, &cl, out, err, errcap);
    dc_objects_free(&tmp);
    return st;
}

size_t dracel_snapshot_node_allocatable(const dracel_snapshot *s, size_t i,
                                        const dracel_resource **out)
{
    if (out)
        *out = NULL;
    if (!s || !out || i >= s->nodes->n)
        return 0;
    const dc_node_in *n = &pvec_item(s->nodes, (uint32_t)i)->u.node;
    *out = (const dracel_resource *)n->alloc; /* the same layout as dc_label_in */
    return n->nalloc;
}
