/* decide.c: the answers of dra-extender (src/extender/decide.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "clock.h"
#include "fair.h"
#include "hash.h"
#include "log.h"
#include "metrics.h"

static const metric_family m_nodes = {
    "dra_extender_node_answers_total",
    "Node answers, by verb, result (passed, failed, unresolvable) and reason (allocated, "
    "no_claims, unschedulable, error, claim_unavailable, claim_missing, claim_refused, "
    "unknown_node, "
    "budget).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_tiers = {
    "dra_extender_decisions_total",
    "Nodes where the pod's claims can be allocated, by the tiers the allocation would use "
    "(\"gpu/h100\": request gpu, subrequest h100), filter requests only.",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_cache = {
    "dra_extender_answer_cache_total",
    "Node answers found in the cache (hit) or computed (miss).", METRIC_COUNTER, NULL, 0};
static const double policy_buckets[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                        0.01,   0.025,   0.05,   0.1,   0.25,   1};
static const metric_family m_policy = {
    "dra_extender_policy_build_seconds",
    "Time to compile a pod's claims for a snapshot (once per claim set and snapshot).",
    METRIC_HISTOGRAM, policy_buckets, sizeof policy_buckets / sizeof *policy_buckets};

/* ---- Hashing: 128-bit keys from two 64-bit lanes. */

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

typedef struct hasher {
    uint64_t a, b;
} hasher;

static void hs_init(hasher *h)
{
    h->a = 0x243f6a8885a308d3ULL;
    h->b = 0x13198a2e03707344ULL;
}

static void hs_u64(hasher *h, uint64_t v)
{
    h->a = mix(h->a ^ v) + 0x9e3779b97f4a7c15ULL;
    h->b = mix(h->b + v * 0x9e3779b97f4a7c15ULL) ^ 0xa4093822299f31d0ULL;
}

/* Bytes: a multiply a word in each lane, one full step at the end (node names and labels are
 * hashed for every node of every new snapshot). */
static void hs_bytes(hasher *h, const char *s, size_t n)
{
    uint64_t a = h->a ^ n, b = h->b + n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        a = (a ^ v) * 0xff51afd7ed558ccdULL;
        a ^= a >> 32;
        b = (b + v) * 0xc4ceb9fe1a85ec53ULL;
        b ^= b >> 29;
    }
    uint64_t t = 0;
    memcpy(&t, s + i, n - i);
    h->a = a;
    h->b = b;
    hs_u64(h, t ^ ((uint64_t)n << 56));
}

static void hs_str(hasher *h, const char *s)
{
    hs_bytes(h, s ? s : "", s ? strlen(s) : 0);
}

/* The labels of a node, independent of their order. */
static uint64_t labels_hash(const dracel_label *l, size_t n)
{
    uint64_t sum = n;
    for (size_t i = 0; i < n; i++) {
        hasher h;
        hs_init(&h);
        hs_str(&h, l[i].key);
        hs_str(&h, l[i].value);
        sum += mix(h.a ^ h.b);
    }
    return sum;
}

/* ---- The answer cache: sets of 4 ways, sharded by lock. */

enum { WAYS = 4, SHARDS = 64 };

/* A node's answer: made once, then shared, read-only, by the cache and the requests that read
 * it (a hit takes a reference, no copy); freed with its last reference. */
typedef struct answer {
    unsigned refs;               /* atomic */
    int8_t outcome;              /* dracel_outcome; -1: an error of the pod (reason: its message) */
    int16_t score;
    const char *reason;          /* failed: why (bounded); NULL otherwise */
    const char *tiers;           /* allocated: the tiers */
    const char *sig;             /* allocated: the devices per tier ("TIER:N,...", tiers by the
                                    policy's index, admin access left out): what caps count */
    const char *devs;            /* allocated: the devices per claim, sorted
                                    ("req=driver/pool/device,...;..."): what reconciliation
                                    compares */
    char text[];                 /* the strings */
} answer;

typedef struct slot {
    uint64_t k1, k2;             /* 0, 0: empty */
    answer *a;                   /* a reference */
} slot;

typedef struct shard {
    pthread_mutex_t lock;
    slot *slots;                 /* nsets * WAYS */
    uint8_t *next;               /* per set: the way to replace next */
    size_t nsets;
} shard;

/* ---- Policies, per snapshot and claim set. */

enum { POLICIES = 64 };

/* A policy shared by the requests using it: the cache holds one reference, each request one. */
typedef struct polbox {
    dracel_policy *p;
    unsigned refs;               /* under the decider's plock */
    unsigned fa_requests;        /* firstAvailable requests (for scores) */
} polbox;

/* A policy depends on the snapshot's table and classes and on the claims (their content):
 * a snapshot that changed neither (an allocation, a node, another claim) reuses it. The
 * table and classes are compared by address: the policy holds its snapshot, which keeps both
 * alive, so no other table can have that address while the entry exists. */
typedef struct pol_entry {
    const dracel_table *table;
    const dracel_objects *classes;
    uint64_t k1, k2;             /* the claims (names and versions, in order) */
    polbox *box;
    uint64_t used;               /* LRU tick */
} pol_entry;

/* ---- Per-snapshot node keys. A node's key hashes its name and labels and the pools it sees
 * with their versions (the base: what the table and the node decide), then each of those
 * pools' devices in use. A snapshot whose table is its predecessor's keeps the base of every
 * node that is the same object (the snapshots share it), so that an allocation, which changes
 * the usage alone, costs each node a usage hash, not a search of the pools it sees. */

enum { VPOOLS = 4 };             /* pools kept per node for the next snapshot */

typedef struct vnode {
    uint64_t k1, k2;             /* the key */
    uint64_t b1, b2;             /* the base */
    uint64_t n1, n2;             /* the part of the base the node decides (name and labels):
                                    kept across tables */
    bool named;                  /* n1, n2 are set */
    const char *name;            /* the node object (its strings identify it: a changed node is
                                    a new object, and the snapshot keeps the old one alive) */
    const dracel_label *labels;
    size_t nlabels;
    uint32_t np;                 /* pools seen; over VPOOLS: the base is not kept */
    uint32_t pools[VPOOLS];
} vnode;

/* The answers of one policy (the policy's part of the keys) on the view's nodes, by position:
 * what a request reads first, in node order, without a lock (entries are set once, with a
 * reference, and live as long as the view, which the reading request holds). The shared
 * cache stays the source for a new view; a view made from its predecessor keeps the answers of
 * the nodes whose keys did not change. */
enum { MEMOS = 8 };

typedef struct memo {
    uint64_t p1, p2;
    answer **a;                  /* per node, atomic: an answer (a reference) or NULL */
} memo;

typedef struct view {
    dracel_snapshot *snap;
    uint64_t id;
    const dracel_table *table;
    size_t nnodes;
    vnode *nodes;                /* name, labels and nlabels set for every node */
    uint8_t *state;              /* per node, atomic: 0 to do, 1 being computed, 2 done */
    const char **names;          /* per node, its name (a copy, for lookups, close together) */
    char *name_text;
    uint64_t *index;             /* node names, open addressing: (hash tag << 32) | (position
                                    + 1), 0 empty */
    size_t mask;                 /* of index, a power of two at least twice nnodes, minus 1 */
    memo memos[MEMOS];           /* under the decider's vlock: nmemos and the keys */
    unsigned nmemos;
    unsigned refs;
} view;

/* ---- Recent pods (for GET /explain?pod=). */

typedef struct recent {
    char *ns, *name;
    pod_claim *claims;
    size_t nclaims;
    char *strings;               /* the claims' strings */
    dracel_pod *xres;            /* its containers' resources (a reference), or NULL */
    size_t bytes;                /* what it holds, counted against cfg.recent_bytes */
    uint64_t seq;                /* when it was remembered: the smallest goes first */
} recent;

/* A pod that passed a filter, whose allocation is awaited for the Event of the final choice
 * (post_filter makes it, on_publish reports and forgets it). All strings in one block. */
typedef struct awaited {
    char *ns, *name, *uid;
    char **claims;               /* its pending claims, "ns/name", in the policy's order */
    size_t nclaims;
    char *node;                  /* the best node predicted */
    char *devs;                  /* the devices predicted there (answer.devs) */
    char *ranks;                 /* "CLAIM\tREQ/SUB\tRANK\n" per tier of firstAvailable */
    char *policy;                /* the tier policy's version (h:hash), or NULL */
    bool over_cap;               /* the best node was over a cap not enforced (shadow) */
    double expires;
    char *mem;
} awaited;

#define DEFAULTS_LOGGED 1024 /* reasons of the default tenant logged (a namespace, a label) */

struct decider {
    decide_config cfg;
    store *st;
    shard shards[SHARDS];
    pthread_mutex_t plock;
    pol_entry pols[POLICIES];
    uint64_t tick;
    pthread_mutex_t vlock;
    view *view;
    pthread_mutex_t alock;       /* awaited */
    awaited *aw;                 /* naw of them, at most cfg.recent_pods */
    size_t naw;
    pthread_mutex_t rlock;
    recent *recent;              /* nrecent of them, in no order */
    size_t nrecent, recent_bytes;
    uint64_t recent_seq;
    /* Tier policies: the sizes and free devices of keys, by placement policy and snapshot
     * (a tier's candidates are a walk of the whole table); under the fair's lock. */
    struct ksize {
        const dracel_policy *pl;
        uint64_t pl_hash, snap;
        const dracel_tierpolicy *tp;
        size_t key;
        uint64_t size, free;
    } ksz[32];
    unsigned nksz, next_ksz;
    atomic_bool cancel;          /* decider_cancel: computations end at their next check */
    /* Why pods went to the default tenant, logged once each: hashes of (policy, namespace or
     * label), open addressing; once DEFAULTS_LOGGED are known, no more are logged. */
    pthread_mutex_t dlock;
    uint64_t dseen[DEFAULTS_LOGGED * 2];
    size_t ndseen;
};

/* The allocator's interrupt: set once the process is shutting down. */
static int interrupted(void *ctx)
{
    return atomic_load_explicit(&((decider *)ctx)->cancel, memory_order_relaxed);
}

void decider_cancel(decider *d)
{
    atomic_store(&d->cancel, true);
}

/* ---- Answers and their cache. */

/* A new answer (one reference), its strings copied; NULL when memory runs out. */
static answer *answer_new(int outcome, int score, const char *reason, const char *tiers,
                          const char *sig, const char *devs)
{
    size_t rl = reason ? strlen(reason) + 1 : 0, tl = tiers ? strlen(tiers) + 1 : 0;
    size_t sl = sig ? strlen(sig) + 1 : 0, dl = devs ? strlen(devs) + 1 : 0;
    answer *a = malloc(sizeof *a + rl + tl + sl + dl);
    if (!a)
        return NULL;
    a->refs = 1;
    a->outcome = (int8_t)outcome;
    a->score = (int16_t)score;
    a->reason = reason ? memcpy(a->text, reason, rl) : NULL;
    a->tiers = tiers ? memcpy(a->text + rl, tiers, tl) : NULL;
    a->sig = sig ? memcpy(a->text + rl + tl, sig, sl) : NULL;
    a->devs = devs ? memcpy(a->text + rl + tl + sl, devs, dl) : NULL;
    return a;
}

static answer *answer_ref(answer *a)
{
    __atomic_add_fetch(&a->refs, 1, __ATOMIC_RELAXED);
    return a;
}

static void answer_unref(answer *a)
{
    if (a && __atomic_sub_fetch(&a->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(a);
}

/* The cached answer of key (k1, k2), referenced, or NULL. */
static answer *cache_get(decider *d, uint64_t k1, uint64_t k2)
{
    shard *s = &d->shards[k2 % SHARDS];
    answer *hit = NULL;
    pthread_mutex_lock(&s->lock);
    const slot *set = &s->slots[(k1 % s->nsets) * WAYS];
    for (int w = 0; w < WAYS; w++)
        if (set[w].a && set[w].k1 == k1 && set[w].k2 == k2) {
            hit = answer_ref(set[w].a);
            break;
        }
    pthread_mutex_unlock(&s->lock);
    return hit;
}

/* Cache a (the cache takes a reference of its own). */
static void cache_put(decider *d, uint64_t k1, uint64_t k2, answer *a)
{
    shard *s = &d->shards[k2 % SHARDS];
    answer_ref(a);
    pthread_mutex_lock(&s->lock);
    size_t set_i = k1 % s->nsets;
    slot *set = &s->slots[set_i * WAYS];
    int way = -1;
    for (int w = 0; w < WAYS && way < 0; w++)
        if (set[w].a && set[w].k1 == k1 && set[w].k2 == k2)
            way = w;
    if (way < 0) {
        way = s->next[set_i];
        s->next[set_i] = (uint8_t)((way + 1) % WAYS);
    }
    answer *old = set[way].a;
    set[way] = (slot){k1, k2, a};
    pthread_mutex_unlock(&s->lock);
    answer_unref(old);
}

/* ---- Views. */

static void view_unref(decider *d, view *v)
{
    if (!v)
        return;
    pthread_mutex_lock(&d->vlock);
    bool last = --v->refs == 0;
    pthread_mutex_unlock(&d->vlock);
    if (!last)
        return;
    dracel_snapshot_unref(v->snap);
    for (unsigned m = 0; m < v->nmemos; m++) {
        for (size_t i = 0; i < v->nnodes; i++)
            answer_unref(v->memos[m].a[i]);
        free(v->memos[m].a);
    }
    free(v->nodes);
    free(v->state);
    free(v->names);
    free(v->name_text);
    free(v->index);
    free(v);
}

/* The memo of policy key (p1, p2) in v, made when new (NULL when MEMOS are in use, or memory
 * runs out: the request then reads the shared cache alone). */
static memo *memo_get(decider *d, view *v, uint64_t p1, uint64_t p2)
{
    memo *m = NULL;
    pthread_mutex_lock(&d->vlock);
    for (unsigned i = 0; i < v->nmemos && !m; i++)
        if (v->memos[i].p1 == p1 && v->memos[i].p2 == p2)
            m = &v->memos[i];
    if (!m && v->nmemos < MEMOS) {
        answer **a = calloc(v->nnodes ? v->nnodes : 1, sizeof *a);
        if (a) {
            m = &v->memos[v->nmemos++];
            *m = (memo){p1, p2, a};
        }
    }
    pthread_mutex_unlock(&d->vlock);
    return m;
}

static answer *memo_read(const memo *m, size_t idx)
{
    return __atomic_load_n(&m->a[idx], __ATOMIC_ACQUIRE);
}

/* Record a as node idx's answer in m (with a reference of m's), unless one is there. */
static void memo_put(memo *m, size_t idx, answer *a)
{
    answer *none = NULL;
    answer_ref(a);
    if (!__atomic_compare_exchange_n(&m->a[idx], &none, a, false, __ATOMIC_RELEASE,
                                     __ATOMIC_RELAXED))
        answer_unref(a);
}

/* A hash of a node name, 8 bytes a step (the request names thousands of nodes). */
static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    uint64_t t = 0;
    memcpy(&t, s + i, n - i);
    return mix(h ^ t);
}

/* Index the view's node names (copied close together); false when memory runs out (then
 * lookups go to the snapshot). */
static bool view_index(view *v)
{
    size_t cap = 16, bytes = 0;
    while (cap < 2 * v->nnodes)
        cap *= 2;
    for (size_t i = 0; i < v->nnodes; i++)
        bytes += strlen(v->nodes[i].name) + 1;
    v->index = calloc(cap, sizeof *v->index);
    v->names = malloc((v->nnodes ? v->nnodes : 1) * sizeof *v->names);
    v->name_text = malloc(bytes ? bytes : 1);
    if (!v->index || !v->names || !v->name_text) {
        free(v->index);
        free(v->names);
        free(v->name_text);
        v->index = NULL;
        v->names = NULL;
        v->name_text = NULL;
        return false;
    }
    v->mask = cap - 1;
    char *t = v->name_text;
    for (size_t i = 0; i < v->nnodes; i++) {
        size_t n = strlen(v->nodes[i].name);
        v->names[i] = memcpy(t, v->nodes[i].name, n + 1);
        t += n + 1;
        uint64_t h = name_hash(v->names[i], n);
        size_t k = h & v->mask;
        while (v->index[k])
            k = (k + 1) & v->mask;
        v->index[k] = (h >> 32 << 32) | ((uint64_t)i + 1);
    }
    return true;
}

/* The positions of the nodes called names[0..n) in the view's snapshot (SIZE_MAX: none), in
 * groups whose index slots and names are fetched from memory ahead of their comparisons: a
 * request names thousands of nodes, in any order, and one lookup after another would wait
 * for memory each time. */
static void view_find_all(const view *v, const ext_node *nodes, size_t n, size_t *idx)
{
    enum { GROUP = 16 };
    for (size_t g = 0; g < n; g += GROUP) {
        size_t m = n - g < GROUP ? n - g : GROUP;
        uint64_t h[GROUP];
        for (size_t j = 0; j < m; j++) {
            h[j] = name_hash(nodes[g + j].name, strlen(nodes[g + j].name));
            __builtin_prefetch(&v->index[h[j] & v->mask]);
        }
        for (size_t j = 0; j < m; j++) {
            uint64_t e = v->index[h[j] & v->mask];
            if (e)
                __builtin_prefetch(v->names[(uint32_t)e - 1]);
        }
        for (size_t j = 0; j < m; j++) {
            idx[g + j] = SIZE_MAX;
            for (size_t k = h[j] & v->mask; v->index[k]; k = (k + 1) & v->mask) {
                uint64_t e = v->index[k];
                size_t i = (size_t)(uint32_t)e - 1;
                if (e >> 32 == h[j] >> 32 && strcmp(v->names[i], nodes[g + j].name) == 0) {
                    idx[g + j] = i;
                    break;
                }
            }
        }
    }
}

/* The position of the node called name in the view's snapshot. */
static bool view_find(const view *v, const char *name, size_t *idx)
{
    if (!v->index)
        return dracel_snapshot_node_find(v->snap, name, idx) == DRACEL_OK;
    uint64_t h = name_hash(name, strlen(name));
    for (size_t k = h & v->mask; v->index[k]; k = (k + 1) & v->mask) {
        uint64_t e = v->index[k];
        size_t i = (size_t)(uint32_t)e - 1;
        if (e >> 32 == h >> 32 && strcmp(v->names[i], name) == 0) {
            *idx = i;
            return true;
        }
    }
    return false;
}

/* The rest of a key from its base: the devices in use of each pool. */
static void key_finish(const dracel_usage *u, const uint32_t *pools, size_t np, uint64_t b1,
                       uint64_t b2, uint64_t *k1, uint64_t *k2)
{
    hasher h = {b1, b2};
    for (size_t i = 0; i < np; i++)
        hs_u64(&h, u ? dracel_usage_pool_hash(u, pools[i]) : 0);
    *k1 = h.a;
    *k2 = h.b;
}

/* The key of a node's state in the snapshot (see vnode); its base and pools into *vn too when
 * vn is not NULL. */
static void node_state(const dracel_snapshot *snap, const dracel_node *n, uint64_t *k1,
                       uint64_t *k2, vnode *vn)
{
    const dracel_table *t = dracel_snapshot_table(snap);
    hasher h;
    if (vn && vn->named) {
        h = (hasher){vn->n1, vn->n2};
    } else {
        hs_init(&h);
        hs_str(&h, n->name);
        hs_u64(&h, labels_hash(n->labels, n->nlabels));
        if (vn) {
            vn->n1 = h.a;
            vn->n2 = h.b;
            vn->named = true;
        }
    }
    size_t small[64], *pools = small;
    size_t np = dracel_table_node_pools(t, n, small, 64);
    bool keep = true;
    if (np > 64) {
        pools = malloc(np * sizeof *pools);
        if (pools)
            np = dracel_table_node_pools(t, n, pools, np);
        else {
            pools = small;
            np = 0;
            hs_u64(&h, (uint64_t)(uintptr_t)snap); /* no reuse across snapshots, still correct */
            hs_u64(&h, dracel_snapshot_id(snap));
            keep = false;
        }
    }
    hs_u64(&h, np);
    for (size_t i = 0; i < np; i++) {
        dracel_pool_info pi;
        if (dracel_table_pool(t, pools[i], &pi) == DRACEL_OK)
            hs_u64(&h, pi.version);
    }
    uint32_t kept[VPOOLS];
    keep = keep && np <= VPOOLS;
    for (size_t i = 0; keep && i < np; i++)
        kept[i] = (uint32_t)pools[i];
    if (vn) {
        vn->b1 = h.a;
        vn->b2 = h.b;
        vn->np = keep ? (uint32_t)np : VPOOLS + 1;
        if (keep)
            memcpy(vn->pools, kept, np * sizeof *kept);
    }
    const dracel_usage *u = dracel_snapshot_usage(snap);
    for (size_t i = 0; i < np; i++)
        hs_u64(&h, u ? dracel_usage_pool_hash(u, pools[i]) : 0);
    if (pools != small)
        free(pools);
    *k1 = h.a;
    *k2 = h.b;
}

/* Node idx's key in the view: computed once (the first request to need it records it). */
static void view_key(const dracel_snapshot *snap, view *v, size_t idx, const dracel_node *n,
                     uint64_t *k1, uint64_t *k2)
{
    vnode *vn = &v->nodes[idx];
    uint8_t st = __atomic_load_n(&v->state[idx], __ATOMIC_ACQUIRE);
    if (st == 2) {
        *k1 = vn->k1;
        *k2 = vn->k2;
        return;
    }
    uint8_t todo = 0;
    if (st != 0 || !__atomic_compare_exchange_n(&v->state[idx], &todo, 1, false,
                                                __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
        node_state(snap, n, k1, k2, NULL); /* another request is at it */
        return;
    }
    node_state(snap, n, k1, k2, vn);
    vn->k1 = *k1;
    vn->k2 = *k2;
    __atomic_store_n(&v->state[idx], 2, __ATOMIC_RELEASE);
}

/* Fill nv's keys from prev's where the table is the same and the node the same object, and
 * its memos with the answers of the nodes whose keys did not change. */
static void view_inherit(decider *d, view *nv, const view *prev)
{
    if (prev->table != nv->table) {
        /* Another table: each node's pools are to be found again; what the node decides of
         * its key is the same for the same node. */
        for (size_t i = 0; i < nv->nnodes && i < prev->nnodes; i++) {
            const vnode *pv = &prev->nodes[i];
            vnode *vn = &nv->nodes[i];
            if (__atomic_load_n(&prev->state[i], __ATOMIC_ACQUIRE) == 2 && pv->named &&
                vn->name == pv->name && vn->labels == pv->labels && vn->nlabels == pv->nlabels) {
                vn->n1 = pv->n1;
                vn->n2 = pv->n2;
                vn->named = true;
            }
        }
        return;
    }
    memo pm[MEMOS];
    pthread_mutex_lock(&d->vlock);
    unsigned npm = prev->nmemos;
    memcpy(pm, prev->memos, npm * sizeof *pm);
    pthread_mutex_unlock(&d->vlock);
    for (unsigned m = 0; m < npm; m++) {
        answer **a = calloc(nv->nnodes ? nv->nnodes : 1, sizeof *a);
        if (!a)
            break;
        nv->memos[nv->nmemos++] = (memo){pm[m].p1, pm[m].p2, a};
    }
    const dracel_usage *u = dracel_snapshot_usage(nv->snap);
    for (size_t i = 0; i < nv->nnodes && i < prev->nnodes; i++) {
        if (__atomic_load_n(&prev->state[i], __ATOMIC_ACQUIRE) != 2)
            continue;
        const vnode *pv = &prev->nodes[i];
        vnode *vn = &nv->nodes[i];
        if (pv->np > VPOOLS || vn->name != pv->name || vn->labels != pv->labels ||
            vn->nlabels != pv->nlabels)
            continue;
        *vn = *pv;
        key_finish(u, pv->pools, pv->np, pv->b1, pv->b2, &vn->k1, &vn->k2);
        nv->state[i] = 2; /* nv is not published yet */
        if (vn->k1 != pv->k1 || vn->k2 != pv->k2)
            continue;
        for (unsigned m = 0; m < nv->nmemos; m++) {
            answer *a = memo_read(&pm[m], i);
            if (a)
                nv->memos[m].a[i] = answer_ref(a);
        }
    }
}

/* The view of snap (made when the snapshot is new), referenced; NULL on ENOMEM. */
static view *view_get(decider *d, dracel_snapshot *snap)
{
    uint64_t id = dracel_snapshot_id(snap);
    pthread_mutex_lock(&d->vlock);
    view *prev = d->view;
    if (prev && prev->id == id) {
        prev->refs++;
        pthread_mutex_unlock(&d->vlock);
        return prev;
    }
    if (prev)
        prev->refs++;
    pthread_mutex_unlock(&d->vlock);
    view *nv = calloc(1, sizeof *nv);
    size_t n = dracel_snapshot_nodes(snap);
    if (nv) {
        nv->nodes = malloc((n ? n : 1) * sizeof *nv->nodes);
        nv->state = calloc(n ? n : 1, 1);
    }
    if (!nv || !nv->nodes || !nv->state) {
        if (nv) {
            free(nv->nodes);
            free(nv->state);
        }
        free(nv);
        view_unref(d, prev);
        return NULL;
    }
    nv->snap = dracel_snapshot_ref(snap);
    nv->id = id;
    nv->table = dracel_snapshot_table(snap);
    nv->nnodes = n;
    nv->refs = 2; /* the decider's and the caller's */
    for (size_t i = 0; i < n; i++) {
        dracel_node nd = {"", NULL, 0};
        dracel_snapshot_node(snap, i, &nd);
        nv->nodes[i].name = nd.name;
        nv->nodes[i].labels = nd.labels;
        nv->nodes[i].nlabels = nd.nlabels;
        nv->nodes[i].named = false;
    }
    view_index(nv);
    if (prev && prev->id < id)
        view_inherit(d, nv, prev);
    view_unref(d, prev);
    pthread_mutex_lock(&d->vlock);
    view *old = d->view;
    if (old && old->id >= id) {
        /* Another request installed this snapshot's view, or a newer one, meanwhile: use the
         * same one for this snapshot (its keys are shared), keep ours alone for an older one. */
        if (old->id == id) {
            old->refs++;
            pthread_mutex_unlock(&d->vlock);
            nv->refs = 1;
            view_unref(d, nv);
            return old;
        }
        nv->refs = 1;
        pthread_mutex_unlock(&d->vlock);
        return nv;
    }
    d->view = nv;
    pthread_mutex_unlock(&d->vlock);
    view_unref(d, old);
    return nv;
}

/* A new snapshot's view, made on the publisher thread when it is published: the first request
 * on it (the first pod after an allocation, a slice update, a new claim) finds the nodes'
 * names indexed and the unchanged nodes' keys and answers carried over. */
static void await_check(decider *d, const dracel_snapshot *snap);

static void on_publish(void *ctx, dracel_snapshot *snap)
{
    decider *d = ctx;
    double t0 = ext_now();
    view *v = view_get(d, snap);
    if (v)
        view_unref(d, v);
    if (d->cfg.event)
        await_check(d, snap);
    if (v && log_enabled(LOG_DEBUG))
        log_line(LOG_DEBUG, "view made", "#snapshot", (int64_t)dracel_snapshot_id(snap), "#nodes",
                 (int64_t)dracel_snapshot_nodes(snap), "%ms", (ext_now() - t0) * 1e3, NULL);
}

/* ---- Policies. */

static void box_release(decider *d, polbox *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&d->plock);
    bool last = --b->refs == 0;
    pthread_mutex_unlock(&d->plock);
    if (last) {
        dracel_policy_free(b->p);
        free(b);
    }
}

static unsigned fa_requests(const dracel_policy *p)
{
    unsigned n = 0;
    size_t last_claim = SIZE_MAX, last_req = SIZE_MAX;
    for (size_t t = 0; t < dracel_policy_tiers(p); t++) {
        dracel_tier_info ti;
        if (dracel_policy_tier(p, t, &ti) != DRACEL_OK)
            continue;
        if (ti.first_available && (ti.claim != last_claim || ti.request != last_req))
            n++;
        last_claim = ti.claim;
        last_req = ti.request;
    }
    return n;
}

/* A request's hold on a policy (release with pol_release). */
typedef struct pol_ref {
    polbox *box;
    dracel_policy *p;
    unsigned fa;
    const char *version;
} pol_ref;

static void pol_release(decider *d, pol_ref *r)
{
    box_release(d, r->box);
    memset(r, 0, sizeof *r);
}

/* The policy of claims (snapshot indexes, in the pod's order) for snap: from the cache, or
 * compiled and cached (the least recently used entry goes). */
static dracel_status policy_get(decider *d, dracel_snapshot *snap, const size_t *claims,
                                size_t n, const dracel_pod *xp, const char *const *res,
                                size_t nres, pol_ref *out, char *err, size_t errcap)
{
    hasher h;
    hs_init(&h);
    for (size_t i = 0; i < n; i++) {
        dracel_claim_status cs;
        if (dracel_snapshot_claim(snap, claims[i], &cs) != DRACEL_OK)
            return DRACEL_EINVAL;
        hs_u64(&h, cs.version);
        hs_str(&h, cs.ns);
        hs_str(&h, cs.name);
    }
    if (nres) { /* the special claim of the pod's extended resources */
        hs_str(&h, "<extended-resources>");
        hs_u64(&h, nres);
        hs_u64(&h, dracel_pod_hash(xp, res, nres));
    }
    const dracel_table *table = dracel_snapshot_table(snap);
    const dracel_objects *classes = dracel_snapshot_classes(snap);
    pthread_mutex_lock(&d->plock);
    for (int i = 0; i < POLICIES; i++) {
        pol_entry *e = &d->pols[i];
        if (e->box && e->table == table && e->classes == classes && e->k1 == h.a &&
            e->k2 == h.b) {
            e->used = ++d->tick;
            e->box->refs++;
            *out = (pol_ref){e->box, e->box->p, e->box->fa_requests,
                             dracel_policy_version(e->box->p)};
            pthread_mutex_unlock(&d->plock);
            return DRACEL_OK;
        }
    }
    pthread_mutex_unlock(&d->plock);
    double t0 = ext_now();
    polbox *b = calloc(1, sizeof *b);
    if (!b)
        return DRACEL_ENOMEM;
    dracel_status st = dracel_snapshot_pod_policy_new(d->cfg.cfg, snap, claims, n, xp, res, nres,
                                                      &b->p, err, errcap);
    if (st != DRACEL_OK) {
        free(b);
        return st;
    }
    metrics_observe(&m_policy, NULL, ext_now() - t0);
    b->fa_requests = fa_requests(b->p);
    b->refs = 2; /* the cache's and the caller's */
    pthread_mutex_lock(&d->plock);
    int victim = 0;
    for (int i = 0; i < POLICIES; i++) {
        if (!d->pols[i].box) {
            victim = i;
            break;
        }
        if (d->pols[i].used < d->pols[victim].used)
            victim = i;
    }
    polbox *old = d->pols[victim].box;
    d->pols[victim] = (pol_entry){table, classes, h.a, h.b, b, ++d->tick};
    pthread_mutex_unlock(&d->plock);
    box_release(d, old);
    *out = (pol_ref){b, b->p, b->fa_requests, dracel_policy_version(b->p)};
    return DRACEL_OK;
}

/* ---- Resolving a pod. */

typedef struct plan {
    size_t *alloc, nalloc;       /* claims already allocated (snapshot indexes) */
    size_t *pending, npending;   /* claims to allocate */
    char fail[512];              /* the pod cannot be placed anywhere: why ("" when it can) */
    const char *fail_class;      /* claim_missing */
} plan;

static void plan_free(plan *p)
{
    free(p->alloc);
    free(p->pending);
}

static bool resolve(store *st, const dracel_snapshot *snap, const ext_pod *pod, plan *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->alloc = calloc(pod->nclaims ? pod->nclaims : 1, sizeof *pl->alloc);
    pl->pending = calloc(pod->nclaims ? pod->nclaims : 1, sizeof *pl->pending);
    if (!pl->alloc || !pl->pending)
        return false;
    for (size_t i = 0; i < pod->nclaims; i++) {
        const pod_claim *c = &pod->claims[i];
        if (c->not_needed)
            continue;
        if (!c->claim) {
            snprintf(pl->fail, sizeof pl->fail,
                     "waiting for the ResourceClaim of the pod's claim %s to be created",
                     c->entry);
            pl->fail_class = "claim_missing";
            return true;
        }
        size_t idx;
        if (dracel_snapshot_claim_find(snap, pod->ns, c->claim, &idx) != DRACEL_OK) {
            char why[400];
            if (store_refused(st, DRACEL_OBJ_CLAIM, pod->ns, c->claim, why, sizeof why)) {
                snprintf(pl->fail, sizeof pl->fail, "resourceclaim %s/%s is refused by the "
                         "extender: %s", pod->ns, c->claim, why);
                pl->fail_class = "claim_refused";
            } else {
                snprintf(pl->fail, sizeof pl->fail, "resourceclaim %s/%s not found", pod->ns,
                         c->claim);
                pl->fail_class = "claim_missing";
            }
            return true;
        }
        /* A claim named twice is resolved once. */
        bool dup = false;
        for (size_t k = 0; k < pl->nalloc && !dup; k++)
            dup = pl->alloc[k] == idx;
        for (size_t k = 0; k < pl->npending && !dup; k++)
            dup = pl->pending[k] == idx;
        if (dup)
            continue;
        dracel_claim_status cs;
        if (dracel_snapshot_claim(snap, idx, &cs) != DRACEL_OK)
            return false;
        if (cs.allocated)
            pl->alloc[pl->nalloc++] = idx;
        else
            pl->pending[pl->npending++] = idx;
    }
    return true;
}

/* ---- Evaluating a pod on nodes. */

typedef enum verdict { V_PASS, V_FAIL, V_UNRESOLVABLE } verdict;

typedef struct node_answer {
    verdict v;
    const char *klass;           /* the metrics reason */
    const char *reason;          /* failed: why (in rec, own, or the eval) */
    const char *tiers;           /* allocated: the tiers (in rec) */
    const char *sig, *devs;      /* allocated: see answer */
    answer *rec;                 /* the answer computed or cached (a reference), or NULL */
    char *own;                   /* a reason of this node alone */
    int score;                   /* the raw score (8 - rank summed), -1 unless allocated */
    bool pod_error;              /* an error that aborts the pod's scheduling */
} node_answer;

typedef struct eval {
    decider *d;
    dracel_snapshot *snap;
    const ext_args *a;
    plan pl;
    pol_ref pol;
    dracel_node *nodes;          /* per input node (name NULL: unknown) */
    node_answer *ans;
    char pod_error[1024];
    bool pod_error_set;          /* atomic: pod_error is claimed (the search's parts race) */
    unsigned fa;
    view *view;                  /* the snapshot's view (referenced): answers read from its
                                    memos are not referenced one by one */
    char **cap_reasons;          /* the reasons of nodes rejected for a cap (owned) */
    size_t ncap_reasons;
    /* Extended resources backed by DRA: the pod's resources that need DRA on some node
     * (xr[0..nxr), sorted); the nodes in groups by those they need DRA for on each (a mask
     * of xr), each group with its policy (the pending claims, then the special claim; none
     * when both are empty). pol is the first group's with a policy (the caps' and the log's
     * default; not released itself). */
    const char *xr[64];
    size_t nxr;
    uint32_t *group;             /* per input node (NULL: one group) */
    pol_ref *gpol;
    uint64_t *gmask;
    size_t ngroups;
} eval;

/* Bound a reason to max bytes at a UTF-8 boundary; returns a malloc'd copy. */
static char *bounded(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    char *r = malloc(n + 4);
    if (!r)
        return NULL;
    memcpy(r, s, n);
    if (n < strlen(s))
        memcpy(r + n, "...", 4);
    else
        r[n] = '\0';
    return r;
}

/* Sort k offsets into text by the strings there (insertion: a claim has at most 32 results). */
static void sort_offsets(uint32_t *off, size_t k, const char *text)
{
    for (size_t i = 1; i < k; i++) {
        uint32_t x = off[i];
        size_t j = i;
        for (; j > 0 && strcmp(text + off[j - 1], text + x) > 0; j--)
            off[j] = off[j - 1];
        off[j] = x;
    }
}

/* Buffers a thread reuses from node to node (their first growth was a third of an answer). */
typedef struct scratch {
    jbuf sig, devs, ent;
} scratch;

/* An allocated run's answer, with what tier policies need of it (sig, devs). A node's devices
 * are written into one buffer and sorted by offset: no allocation a device. */
static answer *allocated_answer(eval *e, const dracel_run *r, const dracel_run_info *info,
                                scratch *sc)
{
    jbuf *sig = &sc->sig, *devs = &sc->devs, *ent = &sc->ent;
    sig->len = devs->len = 0;
    sig->oom = devs->oom = false;
    size_t nclaims = dracel_policy_claims(e->pol.p);
    size_t ntiers = dracel_policy_tiers(e->pol.p);
    uint32_t small[16], *per = ntiers <= 16 ? small : calloc(ntiers, sizeof *per);
    uint32_t offs[64], *off = offs;
    bool ok = per != NULL;
    if (per)
        memset(per, 0, (ntiers <= 16 ? 16 : ntiers) * sizeof *per);
    for (size_t c = 0; ok && c < nclaims; c++) {
        size_t n = dracel_run_results(r, c), k = 0;
        if (n > 64 && !(off = malloc(n * sizeof *off))) {
            ok = false;
            break;
        }
        ent->len = 0;
        ent->oom = false;
        for (size_t i = 0; i < n; i++) {
            dracel_device_result dr;
            if (dracel_run_result(r, c, i, &dr) != DRACEL_OK)
                continue;
            if (!dr.admin_access && dr.tier < ntiers)
                per[dr.tier]++;
            off[k++] = (uint32_t)ent->len; /* "request=driver/pool/device" */
            jb_puts(ent, dr.request);
            jb_putc(ent, '=');
            jb_puts(ent, dr.driver);
            jb_putc(ent, '/');
            jb_puts(ent, dr.pool);
            jb_putc(ent, '/');
            jb_puts(ent, dr.device);
            jb_putc(ent, '\0');
        }
        ok = !ent->oom;
        if (ok)
            sort_offsets(off, k, ent->data);
        if (c)
            jb_putc(devs, ';');
        for (size_t i = 0; ok && i < k; i++) {
            if (i)
                jb_putc(devs, ',');
            jb_puts(devs, ent->data + off[i]);
        }
        if (off != offs) {
            free(off);
            off = offs;
        }
    }
    for (size_t t = 0; ok && t < ntiers; t++)
        if (per[t]) {
            if (sig->len)
                jb_putc(sig, ',');
            jb_uint(sig, t);
            jb_putc(sig, ':');
            jb_uint(sig, per[t]);
        }
    if (per != small)
        free(per);
    jb_putc(sig, '\0');
    jb_putc(devs, '\0');
    answer *a = NULL;
    if (ok && !sig->oom && !devs->oom)
        a = answer_new(info->outcome, info->score, NULL, info->tiers ? info->tiers : "",
                       sig->data, devs->data);
    return a;
}

/* The answer of a run on a node (one reference); NULL when memory runs out. */
static answer *take(eval *e, const dracel_run *r, bool explained, scratch *sc)
{
    dracel_run_info info;
    if (dracel_run_get(r, &info) != DRACEL_OK)
        return NULL;
    if (info.outcome == DRACEL_ALLOCATED)
        return allocated_answer(e, r, &info, sc);
    int outcome = info.outcome;
    if (info.outcome == DRACEL_ALLOCATION_ERROR && !info.node_local)
        outcome = -1; /* marks an error of the pod: reason is the message */
    char *line = explained || info.message ? dracel_run_line(r) : NULL;
    char *reason = NULL;
    if (line) {
        size_t skip = strlen(info.node ? info.node : "") + 2;
        const char *why = strlen(line) >= skip ? line + skip : line;
        reason = bounded(why, e->d->cfg.max_reason);
        dracel_free_string(NULL, line);
        if (!reason)
            return NULL;
    }
    answer *a = answer_new(outcome, info.score, reason, NULL, NULL, NULL);
    free(reason);
    return a;
}

/* Node i's answer is a: the node takes the caller's reference when owned, else a lives as long
 * as e (a memo of e's view holds it). */
static void set_answer(eval *e, size_t i, answer *a, bool owned)
{
    node_answer *na = &e->ans[i];
    na->rec = owned ? a : NULL;
    na->score = a->outcome == DRACEL_ALLOCATED ? a->score : -1;
    if (a->outcome == DRACEL_ALLOCATED) {
        na->v = V_PASS;
        na->klass = "allocated";
        na->tiers = a->tiers;
        na->sig = a->sig;
        na->devs = a->devs;
        return;
    }
    na->v = V_FAIL;
    na->reason = a->reason ? a->reason : "cannot allocate all claims";
    if (a->outcome == DRACEL_SKIPPED)
        na->klass = "budget";
    else if (a->outcome == DRACEL_ALLOCATION_ERROR || a->outcome < 0)
        na->klass = "error";
    else
        na->klass = "unschedulable";
    if (a->outcome < 0) {
        na->pod_error = true;
        if (!e->pod_error[0] && !__atomic_exchange_n(&e->pod_error_set, true, __ATOMIC_ACQ_REL))
            snprintf(e->pod_error, sizeof e->pod_error, "%s", na->reason ? na->reason : "error");
    }
}

static bool cacheable(const answer *a)
{
    if (a->outcome == DRACEL_SKIPPED)
        return false;
    /* A search cut by its time limit may succeed another time. */
    return !(a->reason && strstr(a->reason, "timed out trying to allocate devices"));
}

typedef struct miss {
    size_t *idx;                 /* input node indexes */
    size_t *vidx;                /* their positions in the view (SIZE_MAX: none) */
    memo *mm;                    /* where their answers go too, or NULL */
    dracel_node *nodes;
    uint64_t *k1, *k2;
    size_t n;
    eval *e;
    bool explained;
    bool oom;                    /* an answer could not be made */
    scratch sc;                  /* the thread's (each part has its own) */
} miss;

static int on_node(void *ctx, size_t i, const dracel_run *r)
{
    miss *m = ctx;
    answer *a = take(m->e, r, m->explained, &m->sc);
    if (!a) {
        m->oom = true;
        return 1;
    }
    /* Failures without a reason are answered again with the explanation (second pass). */
    bool complete = a->outcome == DRACEL_ALLOCATED || a->reason || m->explained;
    if (complete) {
        if (cacheable(a)) {
            cache_put(m->e->d, m->k1[i], m->k2[i], a);
            if (m->mm && m->vidx[i] != SIZE_MAX)
                memo_put(m->mm, m->vidx[i], a);
        }
        set_answer(m->e, m->idx[i], a, true);
        m->idx[i] = SIZE_MAX; /* done */
    } else {
        answer_unref(a);
    }
    return 0;
}

/* Answer the nodes in m with the policy, in at most two passes (the second, explained, only
 * for failures that need a reason). */
static dracel_status run_misses(eval *e, miss *m, double deadline)
{
    dracel_run *run = NULL;
    dracel_status st = dracel_run_new(e->pol.p, &run);
    for (int pass = 0; st == DRACEL_OK && pass < 2 && m->n; pass++) {
        dracel_allocate_opts o;
        dracel_allocate_opts_init(&o);
        o.features = e->d->cfg.features;
        o.kubernetes = e->d->cfg.kubernetes;
        o.timeout_ms = e->d->cfg.node_timeout_ms;
        o.in_use = dracel_snapshot_usage(e->snap);
        o.explain = pass == 1;
        o.interrupt = interrupted;
        o.interrupt_ctx = e->d;
        if (deadline > 0) {
            double left = (deadline - ext_now()) * 1e3;
            o.budget_ms = left > 1 ? (uint64_t)left : 1;
        }
        m->explained = pass == 1;
        st = dracel_allocate_nodes(run, m->nodes, m->n, &o, on_node, m);
        /* Keep the nodes still unanswered for the next pass. */
        size_t k = 0;
        for (size_t i = 0; i < m->n; i++)
            if (m->idx[i] != SIZE_MAX) {
                m->idx[k] = m->idx[i];
                m->vidx[k] = m->vidx[i];
                m->nodes[k] = m->nodes[i];
                m->k1[k] = m->k1[i];
                m->k2[k] = m->k2[i];
                k++;
            }
        m->n = k;
    }
    dracel_run_free(run);
    return st;
}

/* Input node i as the snapshot has it, and its key; *vi its position in the view (SIZE_MAX
 * when it has none; found already when it is not SIZE_MAX on entry). NULL for a node the
 * cache does not know. */
static const dracel_node *input_node(eval *e, size_t i, view *v, uint64_t *k1, uint64_t *k2,
                                     size_t *vi)
{
    const ext_node *en = &e->a->nodes[i];
    dracel_node *n = &e->nodes[i];
    if (e->a->nodes_form) {
        n->name = en->name;
        n->labels = en->labels;
        n->nlabels = en->nlabels;
        node_state(e->snap, n, k1, k2, NULL);
        return n;
    }
    size_t idx = *vi;
    if (v && (idx != SIZE_MAX || view_find(v, en->name, &idx))) {
        n->name = v->nodes[idx].name;
        n->labels = v->nodes[idx].labels;
        n->nlabels = v->nodes[idx].nlabels;
        view_key(e->snap, v, idx, n, k1, k2);
        *vi = idx;
        return n;
    }
    if (!v && dracel_snapshot_node_find(e->snap, en->name, &idx) == DRACEL_OK &&
        dracel_snapshot_node(e->snap, idx, n) == DRACEL_OK) {
        node_state(e->snap, n, k1, k2, NULL);
        return n;
    }
    if (dracel_snapshot_nodes(e->snap) == 0) {
        /* No Node objects at all (a directory of slices): nodes are their names. */
        n->name = en->name;
        n->labels = NULL;
        n->nlabels = 0;
        node_state(e->snap, n, k1, k2, NULL);
        return n;
    }
    n->name = NULL;
    return NULL;
}

/* Node i's answer, not from the allocator: reason is copied when it is the node's own (copy),
 * else it must live as long as e (the plan's, the pod's error). */
static void answer_fixed(eval *e, size_t i, verdict v, const char *klass, const char *reason,
                         bool copy)
{
    node_answer *na = &e->ans[i];
    na->v = v;
    na->klass = klass;
    na->score = -1;
    na->reason = reason;
    if (reason && copy) {
        na->own = strdup(reason);
        na->reason = na->own ? na->own : "out of memory";
    }
}

/* Decide every input node of e->a. Returns 0, or -1 when memory ran out. */
/* ---- The search of many nodes in parts, each on a thread (the request's own and threads of
 * the request's, joined before it answers), as kube-scheduler filters nodes in parallel: the
 * first pod of a claim of a new spec searches every node. Nodes are independent (a run each,
 * the policy shared read-only; answers go to distinct slots, the locked cache and the atomic
 * memo), so the answers are the same in any number of parts. */

enum { PART_MIN = 256 };         /* nodes of a part at least: fewer are not worth a thread */

typedef struct part {
    miss m;                      /* a range of the request's misses */
    double deadline;
    dracel_status st;
    pthread_t thread;
    bool started;
} part;

static void *part_main(void *arg)
{
    part *p = arg;
    p->st = run_misses(p->m.e, &p->m, p->deadline);
    return NULL;
}

/* Answer the misses in up to cfg.search_threads parts; nodes left unanswered (the budget, or
 * memory) keep no answer. Returns false when a part ran out of memory or failed. */
static bool search(eval *e, const miss *all, double deadline)
{
    unsigned want = e->d->cfg.search_threads ? e->d->cfg.search_threads : 1;
    size_t nparts = all->n / PART_MIN;
    if (nparts > want)
        nparts = want;
    if (nparts < 1)
        nparts = 1;
    part small[8], *parts = nparts <= 8 ? small : calloc(nparts, sizeof *parts);
    if (!parts) {
        parts = small;
        nparts = 1;
    }
    size_t at = 0;
    for (size_t p = 0; p < nparts; p++) {
        size_t len = all->n / nparts + (p < all->n % nparts);
        miss m = *all;
        memset(&m.sc, 0, sizeof m.sc);
        m.idx += at;
        m.vidx += at;
        m.nodes += at;
        m.k1 += at;
        m.k2 += at;
        m.n = len;
        parts[p] = (part){.m = m, .deadline = deadline, .st = DRACEL_OK};
        at += len;
    }
    /* Part 0 on this thread; a part whose thread cannot start runs here too. */
    unsigned threads = 1;
    for (size_t p = 1; p < nparts; p++) {
        parts[p].started = pthread_create(&parts[p].thread, NULL, part_main, &parts[p]) == 0;
        threads += parts[p].started;
    }
    part_main(&parts[0]);
    for (size_t p = 1; p < nparts; p++)
        if (parts[p].started)
            pthread_join(parts[p].thread, NULL);
        else
            part_main(&parts[p]);
    if (nparts > 1 && log_enabled(LOG_DEBUG))
        log_line(LOG_DEBUG, "search in parts", "#nodes", (int64_t)all->n, "#parts",
                 (int64_t)nparts, "#threads", (int64_t)threads, NULL);
    bool ok = true;
    for (size_t p = 0; p < nparts; p++) {
        ok = ok && parts[p].st == DRACEL_OK && !parts[p].m.oom;
        jb_free(&parts[p].m.sc.sig);
        jb_free(&parts[p].m.sc.devs);
        jb_free(&parts[p].m.sc.ent);
        for (size_t k = 0; k < parts[p].m.n; k++) /* not reached: the budget or memory ran out */
            if (!e->ans[parts[p].m.idx[k]].klass)
                answer_fixed(e, parts[p].m.idx[k], V_FAIL, "budget",
                             "not evaluated: the extender's time budget for the request ran out",
                             false);
    }
    if (parts != small)
        free(parts);
    return ok;
}

/* ---- Extended resources backed by DRA (DRAExtendedResource): which of the pod's resources
 * each node needs DRA for (those its allocatable has none of: device plugins serve the rest). */

enum { XRES = 64 };

/* The pod's resources a class of snap backs (the gate on) into xr[0..XRES): how many (past
 * XRES: more than XRES). */
static size_t xres_list(const decider *d, dracel_snapshot *snap, const ext_pod *pod,
                        const char **xr)
{
    if (!pod->xres || !(d->cfg.features & DRACEL_FEATURE_EXTENDED_RESOURCE))
        return 0;
    return dracel_pod_extended(pod->xres, dracel_snapshot_classes(snap), NULL, 0, xr, XRES);
}

/* The resources of xr[0..nxr) a node with allocatable alloc needs DRA for (those it has none
 * of), as a mask. */
static uint64_t xres_mask(const char *const *xr, size_t nxr, const dracel_resource *alloc,
                          size_t nalloc)
{
    uint64_t m = 0;
    for (size_t j = 0; j < nxr; j++)
        if (!dracel_allocatable_has(alloc, nalloc, xr[j]))
            m |= 1ull << j;
    return m;
}

/* The names of the resources of mask, in order. */
static size_t xres_of(const char *const *xr, size_t nxr, uint64_t mask, const char **out)
{
    size_t n = 0;
    for (size_t j = 0; j < nxr; j++)
        if (mask >> j & 1)
            out[n++] = xr[j];
    return n;
}

/* e->xr. -1 past XRES of them. */
static int pod_xres(eval *e)
{
    size_t n = xres_list(e->d, e->snap, &e->a->pod, e->xr);
    e->nxr = n > XRES ? 0 : n;
    return n > XRES ? -1 : 0;
}

/* The allocatable of input node i: its object's (Nodes form), else the snapshot's Node's. */
static size_t input_alloc(const eval *e, size_t i, const dracel_resource **out)
{
    const ext_node *en = &e->a->nodes[i];
    size_t idx;
    if (e->a->nodes_form) {
        *out = en->alloc;
        return en->nalloc;
    }
    *out = NULL;
    if (dracel_snapshot_node_find(e->snap, en->name, &idx) != DRACEL_OK)
        return 0;
    return dracel_snapshot_node_allocatable(e->snap, idx, out);
}

/* e->group, e->gmask: the nodes grouped by their masks, in order of first appearance (one
 * group, mask 0, without extended resources). Returns false when memory runs out. */
static bool group_nodes(eval *e)
{
    size_t n = e->a->nnodes, cap = e->nxr ? 4 : 1;
    e->gpol = calloc(cap, sizeof *e->gpol);
    e->gmask = calloc(cap, sizeof *e->gmask);
    e->group = e->nxr ? calloc(n ? n : 1, sizeof *e->group) : NULL;
    if (!e->gpol || !e->gmask || (e->nxr && !e->group))
        return false;
    if (!e->nxr) {
        e->ngroups = 1;
        return true;
    }
    for (size_t i = 0; i < n; i++) {
        const dracel_resource *al;
        size_t nal = input_alloc(e, i, &al), g = 0;
        uint64_t m = xres_mask(e->xr, e->nxr, al, nal);
        while (g < e->ngroups && e->gmask[g] != m)
            g++;
        if (g == e->ngroups) {
            if (g == cap) {
                pol_ref *np = realloc(e->gpol, 2 * cap * sizeof *np);
                if (np)
                    e->gpol = np;
                uint64_t *nm = np ? realloc(e->gmask, 2 * cap * sizeof *nm) : NULL;
                if (!nm)
                    return false;
                e->gmask = nm;
                cap *= 2;
            }
            memset(&e->gpol[g], 0, sizeof e->gpol[g]);
            e->gmask[e->ngroups++] = m;
        }
        e->group[i] = (uint32_t)g;
    }
    return true;
}

/* The policy of node i (NULL: nothing to allocate there). */
static const pol_ref *node_pol(const eval *e, size_t i)
{
    if (!e->gpol)
        return NULL;
    const pol_ref *r = &e->gpol[e->group ? e->group[i] : 0];
    return r->p ? r : NULL;
}

static int evaluate(eval *e)
{
    decider *d = e->d;
    const ext_args *a = e->a;
    size_t n = a->nnodes;
    e->nodes = malloc((n ? n : 1) * sizeof *e->nodes);
    e->ans = calloc(n ? n : 1, sizeof *e->ans);
    if (!e->nodes || !e->ans || !resolve(e->d->st, e->snap, &a->pod, &e->pl))
        return -1;
    if (!e->pl.fail[0] && pod_xres(e) < 0) {
        snprintf(e->pl.fail, sizeof e->pl.fail,
                 "the pod asks for more than %d extended resources backed by DRA", XRES);
        e->pl.fail_class = "error";
    }
    if (e->pl.fail[0]) {
        for (size_t i = 0; i < n; i++)
            answer_fixed(e, i, V_FAIL, e->pl.fail_class, e->pl.fail, false);
        return 0;
    }
    if (!e->pl.nalloc && !e->pl.npending && !e->nxr) {
        for (size_t i = 0; i < n; i++)
            answer_fixed(e, i, V_PASS, "no_claims", NULL, false);
        return 0;
    }
    if (!group_nodes(e))
        return -1;
    /* the request's budget, counted from before its body was read (args.h) */
    double deadline = a->deadline ? a->deadline
                                  : d->cfg.budget_ms ? ext_now() + d->cfg.budget_ms / 1e3 : 0;
    view *v = e->view = a->nodes_form ? NULL : view_get(d, e->snap);
    miss m;
    memset(&m, 0, sizeof m);
    m.idx = malloc((n ? n : 1) * sizeof(size_t));
    m.vidx = malloc((n ? n : 1) * sizeof(size_t));
    m.nodes = malloc((n ? n : 1) * sizeof(dracel_node));
    m.k1 = malloc((n ? n : 1) * sizeof(uint64_t));
    m.k2 = malloc((n ? n : 1) * sizeof(uint64_t));
    m.e = e;
    int rc = 0;
    size_t *pos = NULL;
    if (!m.idx || !m.vidx || !m.nodes || !m.k1 || !m.k2) {
        rc = -1;
        goto out;
    }
    for (size_t g = 0; g < e->ngroups; g++) {
        const char *res[XRES];
        size_t nres = xres_of(e->xr, e->nxr, e->gmask[g], res);
        memset(&e->pol, 0, sizeof e->pol);
        if (e->pl.npending || nres) {
            char err[768];
            dracel_status st = policy_get(d, e->snap, e->pl.pending, e->pl.npending,
                                          a->pod.xres, res, nres, &e->gpol[g], err, sizeof err);
            if (st != DRACEL_OK) {
                snprintf(e->pod_error, sizeof e->pod_error, "cannot compile the pod's claims: %s",
                         st == DRACEL_ENOMEM ? "out of memory" : err);
                for (size_t i = 0; i < n; i++)
                    if (!e->group || e->group[i] == g)
                        answer_fixed(e, i, V_FAIL, "error", e->pod_error, false);
                if (st == DRACEL_ENOMEM) {
                    rc = -1;
                    goto out;
                }
                continue;
            }
            e->pol = e->gpol[g];
            e->fa = e->pol.fa;
        }
        /* The policy's part of every key. */
        hasher ph;
        hs_init(&ph);
        hs_str(&ph, e->pol.p ? e->pol.version : "");
        hs_u64(&ph, d->cfg.features);
        hs_u64(&ph, d->cfg.kubernetes);
        hs_u64(&ph, d->cfg.node_timeout_ms);
        memo *mm = m.mm = v && e->pol.p ? memo_get(d, v, ph.a, ph.b) : NULL;
        /* with a memo, every position at once (view_find_all); else one by one */
        if (mm && v->index && !pos && (pos = malloc((n ? n : 1) * sizeof *pos)))
            view_find_all(v, a->nodes, n, pos);
        size_t hits = 0;
        m.n = 0;
        for (size_t i = 0; i < n; i++) {
            if (e->group && e->group[i] != g)
                continue;
            uint64_t k1 = 0, k2 = 0;
            size_t vi = SIZE_MAX;
            /* The usual request: its answer in the memo, found by name alone (no node, no
             * key: the least memory a node can cost). */
            if (mm && pos && pos[i] != SIZE_MAX) {
                vi = pos[i];
                answer *c = e->pl.nalloc ? NULL : memo_read(mm, vi);
                if (c) {
                    set_answer(e, i, c, false);
                    hits++;
                    continue;
                }
            }
            const dracel_node *node = input_node(e, i, v, &k1, &k2, &vi);
            if (!node) {
                char why[512];
                snprintf(why, sizeof why, "node %s is not in the extender's cache (yet)",
                         a->nodes[i].name);
                answer_fixed(e, i, V_UNRESOLVABLE, "unknown_node", why, true);
                continue;
            }
            /* Claims already allocated: their node selectors must admit the node. */
            bool fits = true;
            for (size_t c = 0; c < e->pl.nalloc && fits; c++)
                if (!dracel_snapshot_claim_fits(e->snap, e->pl.alloc[c], node)) {
                    dracel_claim_status cs;
                    char why[512];
                    if (dracel_snapshot_claim(e->snap, e->pl.alloc[c], &cs) == DRACEL_OK)
                        snprintf(why, sizeof why,
                                 "resourceclaim %s/%s not available on the node",
                                 cs.ns ? cs.ns : "", cs.name);
                    else
                        snprintf(why, sizeof why, "resourceclaim not available on the node");
                    answer_fixed(e, i, V_FAIL, "claim_unavailable", why, true);
                    fits = false;
                }
            if (!fits)
                continue;
            if (!e->pol.p) { /* claims all allocated, or device plugins serve the node */
                answer_fixed(e, i, V_PASS, e->pl.nalloc ? "allocated" : "no_claims", NULL,
                             false);
                continue;
            }
            answer *c = mm && vi != SIZE_MAX ? memo_read(mm, vi) : NULL;
            if (c) {
                set_answer(e, i, c, false);
                hits++;
                continue;
            }
            uint64_t key1 = mix(ph.a ^ k1) ^ k2, key2 = mix(ph.b + k2) ^ k1;
            if ((c = cache_get(d, key1, key2))) {
                if (mm && vi != SIZE_MAX)
                    memo_put(mm, vi, c);
                set_answer(e, i, c, true);
                hits++;
                continue;
            }
            m.idx[m.n] = i;
            m.vidx[m.n] = vi;
            m.nodes[m.n] = *node;
            m.k1[m.n] = key1;
            m.k2[m.n] = key2;
            m.n++;
        }
        if (hits)
            metrics_add(&m_cache, "result=\"hit\"", (double)hits);
        if (m.n) {
            metrics_add(&m_cache, "result=\"miss\"", (double)m.n);
            if (!search(e, &m, deadline)) {
                rc = -1;
                break;
            }
        }
    }
    /* the caps' and the log's policy: the first group's that has one */
    memset(&e->pol, 0, sizeof e->pol);
    for (size_t g = 0; g < e->ngroups && !e->pol.p; g++)
        if (e->gpol[g].p) {
            e->pol = e->gpol[g];
            e->fa = e->pol.fa;
        }
out:
    free(pos);
    free(m.idx);
    free(m.vidx);
    free(m.nodes);
    free(m.k1);
    free(m.k2);
    return rc;
}

static void eval_free(eval *e)
{
    if (e->ans)
        for (size_t i = 0; i < e->a->nnodes; i++) {
            free(e->ans[i].own);
            answer_unref(e->ans[i].rec);
        }
    free(e->ans);
    free(e->nodes);
    for (size_t i = 0; i < e->ncap_reasons; i++)
        free(e->cap_reasons[i]);
    free(e->cap_reasons);
    plan_free(&e->pl);
    for (size_t g = 0; g < e->ngroups; g++)
        pol_release(e->d, &e->gpol[g]);
    free(e->gpol);
    free(e->gmask);
    free(e->group);
    memset(&e->pol, 0, sizeof e->pol); /* one of gpol */
    view_unref(e->d, e->view);
    dracel_snapshot_unref(e->snap);
}

static void count_answers(const eval *e, const char *verb)
{
    static const char *const vname[] = {"passed", "failed", "unresolvable"};
    /* Few distinct (result, reason) pairs: count them, then add once each. */
    typedef struct tally {
        verdict v;
        const char *k;
        size_t n;
    } tally;
    tally seen[16];
    size_t ns = 0;
    for (size_t i = 0; i < e->a->nnodes; i++) {
        const node_answer *na = &e->ans[i];
        size_t j = 0;
        while (j < ns && !(seen[j].v == na->v && seen[j].k == na->klass))
            j++;
        if (j == ns && ns < 16)
            seen[ns++] = (tally){na->v, na->klass, 0};
        if (j < ns)
            seen[j].n++;
    }
    for (size_t j = 0; j < ns; j++) {
        char labels[160];
        snprintf(labels, sizeof labels, "verb=\"%s\",result=\"%s\",reason=\"%s\"", verb,
                 vname[seen[j].v], seen[j].k ? seen[j].k : "");
        metrics_add(&m_nodes, labels, (double)seen[j].n);
    }
}

/* The decisions of a filter request, by tiers: few distinct ones, counted, then added once
 * each (a metrics update per node would cost more than the answer). */
static void tier_add(const char *tiers, size_t n)
{
    jbuf lb;
    jb_init(&lb);
    jb_puts(&lb, "tiers=\"");
    metrics_label(&lb, tiers);
    jb_putc(&lb, '"');
    char *t = jb_take(&lb, NULL);
    if (t)
        metrics_add(&m_tiers, t, (double)n);
    free(t);
}

static void count_tiers(const eval *e)
{
    typedef struct tally {
        const char *tiers;
        size_t n;
    } tally;
    tally seen[16];
    size_t ns = 0;
    for (size_t i = 0; i < e->a->nnodes; i++) {
        const char *t = e->ans[i].v == V_PASS ? e->ans[i].tiers : NULL;
        if (!t)
            continue;
        size_t j = 0;
        while (j < ns && seen[j].tiers != t && strcmp(seen[j].tiers, t) != 0)
            j++;
        if (j < ns) {
            seen[j].n++;
            seen[j].tiers = t; /* the answers of nodes in a row are often the same object */
        } else if (ns < 16) {
            seen[ns++] = (tally){t, 1};
        } else {
            tier_add(t, 1);
        }
    }
    for (size_t j = 0; j < ns; j++)
        tier_add(seen[j].tiers, seen[j].n);
}

/* ---- Tier policies (fair.h; docs/fairness.md, "The extender"). */

static const metric_family m_tdec = {
    "dra_extender_tenant_decisions_total",
    "Filter decisions by policy version, tenant, tier (of the best node left) and outcome: "
    "allowed, borrowing, over_cap (shadow: would have been rejected), rejected (no node gives a "
    "tier the caps permit: the pod stays pending), unschedulable (no node passes DRA).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_default = {
    "dra_extender_default_tenant_decisions_total",
    "Filter decisions for pods of the default tenant by default, by policy version and reason: "
    "namespace (no tenant names the pod's namespace), label (the pod has a tenant's podLabel key "
    "with a value no tenant has). Each namespace and label is logged once, as a warning.",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_caprej = {
    "dra_extender_cap_rejections_total",
    "Nodes rejected for a cap (mode enforce), or that would have been (mode shadow), by policy "
    "version, tenant and tier.",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_choice = {
    "dra_extender_tier_choices_total",
    "Filter decisions with a node left, by policy version, tenant and whether the best node "
    "gives every request its first tier (first) or a lower one (fallback).",
    METRIC_COUNTER, NULL, 0};

typedef struct sgroup {
    const char *sig, *tiers;
    const pol_ref *pol;          /* the policy whose tiers sig numbers */
    size_t nodes;                /* passing nodes with it, before the caps */
    int verdict;                 /* 0 allowed, 1 borrowing, 2 over the cap (not enforced),
                                    3 rejected */
    const char *reason;          /* 2, 3: the refusal (in e->cap_reasons); 1: the borrow */
    size_t key;                  /* 2, 3: the key refused */
    fair_take takes[16];
    size_t ntakes;
} sgroup;

typedef struct fdec {
    fair_policy *pv;
    size_t tenant;
    const char *tenant_name;
    dracel_tier_mode mode;
    dracel_tier_default dflt;    /* why the tenant is the default one, if it is */
    const char *dkey, *dval;     /* the label, for DRACEL_TIER_DEFAULT_LABEL */
    sgroup *g;
    size_t ng;
    size_t best;                 /* input node of the best node left, or SIZE_MAX */
    const char *outcome;
} fdec;

static const char *const verdict_names[] = {"allowed", "borrowing", "over_cap", "rejected"};

/* The takes of a signature ("TIER:N,..."), by key of the policy. */
static void sig_takes(const dracel_tierpolicy *tp, const dracel_policy *pl, const char *sig,
                      sgroup *g)
{
    g->ntakes = 0;
    for (const char *p = sig; p && *p;) {
        char *end;
        unsigned long t = strtoul(p, &end, 10);
        if (*end != ':')
            break;
        unsigned long n = strtoul(end + 1, &end, 10);
        dracel_tier_info ti;
        if (dracel_policy_tier(pl, t, &ti) == DRACEL_OK) {
            size_t keys[2];
            size_t nk = dracel_tierpolicy_keys_of(tp, ti.name, ti.device_class, keys);
            for (size_t k = 0; k < nk; k++) {
                size_t j = 0;
                while (j < g->ntakes && g->takes[j].key != keys[k])
                    j++;
                if (j == g->ntakes && g->ntakes < 16)
                    g->takes[g->ntakes++] = (fair_take){keys[k], 0};
                if (j < g->ntakes)
                    g->takes[j].n += (uint32_t)n;
            }
        }
        p = *end == ',' ? end + 1 : NULL;
    }
}

/* dracel_tierpolicy_key_usable, remembered for the placement policy and snapshot (fair's lock
 * held). The policies are named by their addresses and versions (claims and classes; the tier
 * policy's hash): an address reused by another policy has another version. */
static void key_size(decider *d, const dracel_tierpolicy *tp, const eval *e,
                     const pol_ref *pol, size_t k, uint64_t *size, uint64_t *free_devices)
{
    uint64_t snap = dracel_snapshot_id(e->snap);
    hasher h;
    hs_init(&h);
    hs_str(&h, pol->version);
    hs_u64(&h, dracel_tierpolicy_hash(tp)); /* a freed policy's address may be reused */
    for (unsigned i = 0; i < d->nksz; i++) {
        const struct ksize *c = &d->ksz[i];
        if (c->pl == pol->p && c->pl_hash == h.a && c->snap == snap && c->tp == tp &&
            c->key == k) {
            *size = c->size;
            *free_devices = c->free;
            return;
        }
    }
    *size = *free_devices = 0;
    /* usable now under the release and gates allocations run with: a tainted device is in
     * neither the size nor the free devices (docs/fairness.md, "Unhealthy devices") */
    dracel_allocate_opts o;
    dracel_allocate_opts_init(&o);
    o.features = d->cfg.features;
    o.kubernetes = d->cfg.kubernetes;
    o.in_use = dracel_snapshot_usage(e->snap);
    if (dracel_tierpolicy_key_usable(tp, pol->p, k, &o, size, free_devices) == DRACEL_ENOMEM)
        return; /* not remembered */
    unsigned at = d->nksz < 32 ? d->nksz++ : d->next_ksz;
    d->next_ksz = (at + 1) % 32;
    d->ksz[at] = (struct ksize){pol->p, h.a, snap, tp, k, *size, *free_devices};
}

static char *cap_reason(eval *e, const char *r)
{
    char **n = realloc(e->cap_reasons, (e->ncap_reasons + 1) * sizeof *n);
    if (!n)
        return NULL;
    e->cap_reasons = n;
    char *c = strdup(r);
    if (c)
        e->cap_reasons[e->ncap_reasons++] = c;
    return c;
}

static void count_caps(const eval *e, const fdec *fd)
{
    const dracel_tierpolicy *tp = fd->pv->p;
    for (size_t i = 0; i < fd->ng; i++) {
        const sgroup *g = &fd->g[i];
        if (g->verdict < 2)
            continue;
        jbuf b;
        jb_init(&b);
        jb_puts(&b, "policy=\"");
        metrics_label(&b, fd->pv->label);
        jb_puts(&b, "\",tenant=\"");
        metrics_label(&b, fd->tenant_name);
        jb_puts(&b, "\",tier=\"");
        metrics_label(&b, dracel_tierpolicy_key(tp, g->key));
        jb_printf(&b, "\",mode=\"%s\"", g->verdict == 3 ? "enforce" : "shadow");
        char *l = jb_take(&b, NULL);
        if (l)
            metrics_add(&m_caprej, l, (double)g->nodes);
        free(l);
    }
    (void)e;
}

/* A pod of the default tenant by default: counted, and its namespace or label logged the first
 * time this policy version meets it (docs/fairness.md, "The extender"). */
static void note_default(const eval *e, const fdec *fd)
{
    decider *d = e->d;
    const ext_args *a = e->a;
    bool label = fd->dflt == DRACEL_TIER_DEFAULT_LABEL;
    jbuf b;
    jb_init(&b);
    jb_puts(&b, "policy=\"");
    metrics_label(&b, fd->pv->label);
    jb_printf(&b, "\",reason=\"%s\"", label ? "label" : "namespace");
    jb_putc(&b, '\0');
    if (!b.oom)
        metrics_add(&m_default, b.data, 1);
    jb_free(&b);
    uint64_t h = dracel_tierpolicy_hash(fd->pv->p) ^ (label ? 0x9e3779b97f4a7c15ull : 0);
    h = (h ^ ext_hash_str(label ? fd->dkey : a->pod.ns)) * 1099511628211ull;
    if (label)
        h = (h ^ ext_hash_str(fd->dval)) * 1099511628211ull;
    h |= 1; /* 0 is an empty slot */
    bool log = false, full = false;
    pthread_mutex_lock(&d->dlock);
    if (d->ndseen <= DEFAULTS_LOGGED) {
        size_t n = sizeof d->dseen / sizeof d->dseen[0], i = (size_t)(h % n);
        while (d->dseen[i] && d->dseen[i] != h)
            i = (i + 1) % n;
        if (!d->dseen[i]) {
            d->dseen[i] = h;
            full = ++d->ndseen > DEFAULTS_LOGGED;
            log = !full;
        }
    }
    pthread_mutex_unlock(&d->dlock);
    if (full)
        log_line(LOG_WARN, "more pods fall to the default tenant for reasons not logged", "#logged",
                 (int64_t)DEFAULTS_LOGGED, NULL);
    else if (log && label)
        log_line(LOG_WARN, "a pod's tenant label names no tenant: it is the default tenant's",
                 "policy", fd->pv->label, "pod", a->pod.name, "namespace", a->pod.ns, "label",
                 fd->dkey, "value", fd->dval, "tenant", fd->tenant_name, NULL);
    else if (log)
        log_line(LOG_WARN, "no tenant names a pod's namespace: it is the default tenant's",
                 "policy", fd->pv->label, "pod", a->pod.name, "namespace", a->pod.ns, "tenant",
                 fd->tenant_name, NULL);
}

/* Check the caps on every passing node of e (grouped by what their allocations take),
 * reject those over a cap in enforce mode, and record the pod's decision (filter). */
static void apply_caps(eval *e, fdec *fd, bool filter)
{
    decider *d = e->d;
    fair *f = d->cfg.fair;
    const ext_args *a = e->a;
    memset(fd, 0, sizeof *fd);
    fd->best = SIZE_MAX;
    fd->pv = fair_acquire(f);
    const dracel_tierpolicy *tp = fd->pv->p;
    fd->tenant = dracel_tierpolicy_tenant_of(tp, a->pod.ns, a->pod.labels, a->pod.nlabels);
    dracel_tenant_info ti;
    if (dracel_tierpolicy_tenant(tp, fd->tenant, &ti) != DRACEL_OK) {
        ti.name = "default";
        ti.mode = DRACEL_TIER_OFF;
    }
    fd->tenant_name = ti.name;
    fd->mode = ti.mode;
    size_t li = 0;
    fd->dflt = dracel_tierpolicy_default_why(tp, a->pod.ns, a->pod.labels, a->pod.nlabels, &li);
    if (fd->dflt == DRACEL_TIER_DEFAULT_LABEL) {
        fd->dkey = a->pod.labels[li].key;
        fd->dval = a->pod.labels[li].value;
    }
    if (!e->pol.p)
        return; /* nothing to allocate: nothing the caps count */
    fair_lock(f, fd->pv, e->snap, a->pod.ns, a->pod.name);
    size_t nkeys = dracel_tierpolicy_keys(tp);
    uint64_t *size = calloc(nkeys ? nkeys : 1, sizeof *size);
    uint64_t *freed = calloc(nkeys ? nkeys : 1, sizeof *freed);
    uint8_t *known = calloc(nkeys ? nkeys : 1, 1);
    size_t cap_g = 0;
    for (size_t i = 0; i < a->nnodes; i++) {
        node_answer *na = &e->ans[i];
        const pol_ref *np = node_pol(e, i);
        if (na->v != V_PASS || !na->sig || !np)
            continue;
        size_t j = 0;
        while (j < fd->ng && (fd->g[j].pol->p != np->p ||
                              (fd->g[j].sig != na->sig && strcmp(fd->g[j].sig, na->sig) != 0)))
            j++;
        if (j == fd->ng) {
            if (fd->ng == cap_g) {
                size_t nc = cap_g ? 2 * cap_g : 8;
                sgroup *ng = realloc(fd->g, nc * sizeof *ng);
                if (!ng)
                    continue;
                fd->g = ng;
                cap_g = nc;
            }
            sgroup *g = &fd->g[fd->ng++];
            memset(g, 0, sizeof *g);
            g->sig = na->sig;
            g->tiers = na->tiers;
            g->pol = np;
            sig_takes(tp, np->p, na->sig, g);
            for (size_t t = 0; fd->mode != DRACEL_TIER_OFF && size && freed && known &&
                               t < g->ntakes && g->verdict < 2;
                 t++) {
                size_t k = g->takes[t].key;
                if (!known[k]) {
                    uint64_t sz = 0, fr = 0;
                    key_size(d, tp, e, g->pol, k, &sz, &fr);
                    uint64_t fl = fair_in_flight(f, k);
                    size[k] = sz;
                    freed[k] = fr > fl ? fr - fl : 0;
                    known[k] = 1;
                    fair_note_size(f, k, sz);
                }
                dracel_tier_check c;
                if (dracel_tierpolicy_check(tp, fair_usage(f), fd->tenant, k, g->takes[t].n,
                                            size[k], freed[k], &c) != DRACEL_OK)
                    continue;
                if (!c.allowed) {
                    g->verdict = c.reject ? 3 : 2;
                    g->key = k;
                    g->reason = cap_reason(e, c.reason);
                } else if (c.borrowing && g->verdict == 0) {
                    g->verdict = 1;
                    g->reason = cap_reason(e, c.reason);
                }
            }
        }
        fd->g[j].nodes++;
        if (fd->g[j].verdict == 3) {
            na->v = V_FAIL;
            na->klass = "cap";
            na->reason = fd->g[j].reason ? fd->g[j].reason : "over the tenant's cap";
        }
    }
    free(size);
    free(freed);
    free(known);
    /* The best node left, as the scheduler would rank it (ties: the first). */
    int best_score = -2;
    size_t best_g = SIZE_MAX;
    bool any_rejected = false;
    for (size_t i = 0; i < a->nnodes; i++) {
        const node_answer *na = &e->ans[i];
        if (na->klass && strcmp(na->klass, "cap") == 0)
            any_rejected = true;
        if (na->v == V_PASS && na->score > best_score) {
            best_score = na->score;
            fd->best = i;
        }
    }
    if (fd->best != SIZE_MAX)
        for (size_t j = 0; j < fd->ng; j++)
            if (e->ans[fd->best].sig && node_pol(e, fd->best) &&
                fd->g[j].pol->p == node_pol(e, fd->best)->p &&
                (fd->g[j].sig == e->ans[fd->best].sig ||
                 strcmp(fd->g[j].sig, e->ans[fd->best].sig) == 0))
                best_g = j;
    fd->outcome = fd->best == SIZE_MAX ? (any_rejected ? "rejected" : "unschedulable")
                  : best_g == SIZE_MAX  ? "allowed"
                                        : verdict_names[fd->g[best_g].verdict];
    if (!filter) {
        fair_unlock(f, false, fd->tenant, NULL, 0, NULL, 0, NULL, 0);
        return;
    }
    /* The pod's decision: the best node's takes; the passing nodes with the best scores kept
     * for reconciliation. */
    const char **claims = calloc(e->pl.npending ? e->pl.npending : 1, sizeof *claims);
    char **cl = calloc(e->pl.npending ? e->pl.npending : 1, sizeof *cl);
    fair_predicted *pred = calloc(a->nnodes ? a->nnodes : 1, sizeof *pred);
    size_t npred = 0;
    for (size_t c = 0; claims && cl && c < e->pl.npending; c++) {
        dracel_claim_status cs;
        if (dracel_snapshot_claim(e->snap, e->pl.pending[c], &cs) != DRACEL_OK)
            continue;
        size_t len = (cs.ns ? strlen(cs.ns) : 0) + strlen(cs.name) + 2;
        if ((cl[c] = malloc(len)))
            snprintf(cl[c], len, "%s/%s", cs.ns ? cs.ns : "", cs.name);
        claims[c] = cl[c] ? cl[c] : "";
    }
    for (int sc = best_score; pred && sc >= 0 && fd->best != SIZE_MAX; sc--)
        for (size_t i = 0; i < a->nnodes; i++)
            if (e->ans[i].v == V_PASS && e->ans[i].score == sc)
                pred[npred++] = (fair_predicted){a->nodes[i].name, e->ans[i].devs};
    if (best_g != SIZE_MAX && claims && cl && pred)
        fair_unlock(f, true, fd->tenant, fd->g[best_g].takes, fd->g[best_g].ntakes, claims,
                    e->pl.npending, pred, npred);
    else
        fair_unlock(f, true, fd->tenant, NULL, 0, NULL, 0, NULL, 0);
    for (size_t c = 0; cl && c < e->pl.npending; c++)
        free(cl[c]);
    free(cl);
    free(claims);
    free(pred);
    /* Metrics. */
    count_caps(e, fd);
    jbuf b;
    jb_init(&b);
    jb_puts(&b, "policy=\"");
    metrics_label(&b, fd->pv->label);
    jb_puts(&b, "\",tenant=\"");
    metrics_label(&b, fd->tenant_name);
    size_t mark = b.len;
    jb_puts(&b, "\",tier=\"");
    metrics_label(&b, fd->best != SIZE_MAX && e->ans[fd->best].tiers ? e->ans[fd->best].tiers
                                                                      : "");
    jb_printf(&b, "\",outcome=\"%s\"", fd->outcome);
    jb_putc(&b, '\0');
    if (!b.oom)
        metrics_add(&m_tdec, b.data, 1);
    if (fd->dflt != DRACEL_TIER_DEFAULT_NOT)
        note_default(e, fd);
    if (fd->best != SIZE_MAX && !b.oom) {
        b.len = mark;
        bool first = !e->fa || e->ans[fd->best].score >= (int)(8 * e->fa);
        jb_printf(&b, "\",choice=\"%s\"", first ? "first" : "fallback");
        jb_putc(&b, '\0');
        if (!b.oom)
            metrics_add(&m_choice, b.data, 1);
    }
    jb_free(&b);
}

static void fdec_free(decider *d, fdec *fd)
{
    free(fd->g);
    fair_release(d->cfg.fair, fd->pv);
}

/* Up to max names of the nodes of e for which want(node) holds, as a JSON array. */
static void sample(jbuf *b, const eval *e, size_t max, bool (*want)(const eval *, size_t,
                                                                    const void *),
                   const void *arg, size_t *count)
{
    size_t n = 0;
    jb_putc(b, '[');
    for (size_t i = 0; i < e->a->nnodes; i++)
        if (want(e, i, arg)) {
            if (n < max) {
                if (n)
                    jb_putc(b, ',');
                jb_cstr(b, e->a->nodes[i].name);
            }
            n++;
        }
    jb_putc(b, ']');
    *count = n;
}

static bool with_sig(const eval *e, size_t i, const void *sig)
{
    const char *s = e->ans[i].sig;
    /* before the caps: a rejected node kept its sig */
    return s && (e->ans[i].v == V_PASS || (e->ans[i].klass && !strcmp(e->ans[i].klass, "cap")))
           && strcmp(s, sig) == 0;
}

static bool with_klass(const eval *e, size_t i, const void *k)
{
    return e->ans[i].v != V_PASS && e->ans[i].klass && strcmp(e->ans[i].klass, k) == 0;
}

/* One decision record (docs/fairness.md, "Decision records"): only this pod's name, the
 * nodes' names, never another pod's. */
static void log_decision(const eval *e, const fdec *fd, const char *verb, double t0)
{
    fair *f = e->d->cfg.fair;
    const ext_args *a = e->a;
    size_t max = fair_log_nodes(f);
    jbuf b;
    jb_init(&b);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    jb_printf(&b, "{\"time\":\"%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ\",\"verb\":\"%s\",\"pod\":",
              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
              ts.tv_nsec / 1000000, verb);
    char pn[600];
    snprintf(pn, sizeof pn, "%s/%s", a->pod.ns, a->pod.name);
    jb_cstr(&b, pn);
    jb_puts(&b, ",\"tenant\":");
    jb_cstr(&b, fd->tenant_name);
    if (fd->dflt == DRACEL_TIER_DEFAULT_LABEL) {
        jb_puts(&b, ",\"defaulted\":{\"reason\":\"label\",\"label\":");
        jb_cstr(&b, fd->dkey);
        jb_puts(&b, ",\"value\":");
        jb_cstr(&b, fd->dval);
        jb_putc(&b, '}');
    } else if (fd->dflt == DRACEL_TIER_DEFAULT_NAMESPACE) {
        jb_puts(&b, ",\"defaulted\":{\"reason\":\"namespace\",\"namespace\":");
        jb_cstr(&b, a->pod.ns);
        jb_putc(&b, '}');
    } else {
        jb_puts(&b, ",\"defaulted\":null");
    }
    jb_printf(&b, ",\"mode\":\"%s\",\"policy\":", dracel_tier_mode_name(fd->mode));
    jb_cstr(&b, fd->pv->label);
    jb_puts(&b, ",\"policyVersion\":");
    jb_cstr(&b, dracel_tierpolicy_version(fd->pv->p));
    jb_printf(&b, ",\"policyHash\":\"%016llx\",\"snapshot\":%llu,\"nodes\":%zu,\"outcome\":",
              (unsigned long long)dracel_tierpolicy_hash(fd->pv->p),
              (unsigned long long)dracel_snapshot_id(e->snap), a->nnodes);
    jb_cstr(&b, fd->outcome ? fd->outcome : (e->pol.p ? "unschedulable" : "no_claims"));
    jb_puts(&b, ",\"best\":");
    if (fd->best != SIZE_MAX) {
        jb_cstr(&b, a->nodes[fd->best].name);
        jb_puts(&b, ",\"tier\":");
        jb_cstr(&b, e->ans[fd->best].tiers ? e->ans[fd->best].tiers : "");
    } else {
        jb_puts(&b, "null,\"tier\":null");
    }
    jb_puts(&b, ",\"tiers\":[");
    for (size_t j = 0; j < fd->ng; j++) {
        const sgroup *g = &fd->g[j];
        jb_puts(&b, j ? ",{\"tiers\":" : "{\"tiers\":");
        jb_cstr(&b, g->tiers ? g->tiers : "");
        jb_puts(&b, ",\"takes\":{");
        for (size_t t = 0; t < g->ntakes; t++) {
            if (t)
                jb_putc(&b, ',');
            jb_cstr(&b, dracel_tierpolicy_key(fd->pv->p, g->takes[t].key));
            jb_printf(&b, ":%u", (unsigned)g->takes[t].n);
        }
        jb_printf(&b, "},\"check\":\"%s\"", verdict_names[g->verdict]);
        if (g->reason) {
            jb_puts(&b, ",\"reason\":");
            jb_cstr(&b, g->reason);
        }
        size_t cnt;
        jb_puts(&b, ",\"sample\":");
        sample(&b, e, max, with_sig, g->sig, &cnt);
        jb_printf(&b, ",\"count\":%zu}", cnt);
    }
    jb_puts(&b, "],\"rejected\":{");
    static const char *const causes[] = {"cap",          "unschedulable", "error",
                                         "claim_unavailable", "claim_missing", "claim_refused",
                                         "unknown_node", "budget"};
    bool first = true;
    for (size_t c = 0; c < sizeof causes / sizeof *causes; c++) {
        size_t cnt = 0;
        jbuf s;
        jb_init(&s);
        sample(&s, e, max, with_klass, causes[c], &cnt);
        if (cnt) {
            jb_printf(&b, "%s\"%s\":{\"count\":%zu,\"sample\":", first ? "" : ",", causes[c],
                      cnt);
            jb_put(&b, s.data, s.len);
            jb_putc(&b, '}');
            first = false;
        }
        jb_free(&s);
    }
    jb_puts(&b, "},\"predicted\":[");
    size_t n = 0, passing = 0;
    for (size_t i = 0; i < a->nnodes; i++)
        if (e->ans[i].v == V_PASS) {
            passing++;
            if (n++ >= max)
                continue;
            jb_puts(&b, n > 1 ? ",{\"node\":" : "{\"node\":");
            jb_cstr(&b, a->nodes[i].name);
            jb_puts(&b, ",\"tiers\":");
            jb_cstr(&b, e->ans[i].tiers ? e->ans[i].tiers : "");
            jb_printf(&b, ",\"score\":%d}", e->ans[i].score);
        }
    jb_printf(&b, "],\"passing\":%zu,\"latencyMs\":%.3f}\n", passing, (ext_now() - t0) * 1e3);
    if (!b.oom)
        fair_log(f, b.data, b.len);
    jb_free(&b);
}

/* ---- The final choice: awaited allocations (docs/extender.md, "Events"). */

static void awaited_free(awaited *w)
{
    free(w->mem);
    free(w->claims);
}

/* Under alock: forget awaited pod i. */
static void awaited_drop(decider *d, size_t i)
{
    awaited_free(&d->aw[i]);
    d->aw[i] = d->aw[--d->naw];
}

/* Remember that pod of e passed, its best node being @p best, to report its allocation. */
static void await_add(const eval *e, size_t best, const fdec *fd)
{
    decider *d = e->d;
    const ext_args *a = e->a;
    const dracel_policy *pl = e->pol.p;
    if (!pl || e->nxr || best == SIZE_MAX || !e->pl.npending)
        return; /* nothing allocated by this prediction (or extended resources: not followed) */
    jbuf b;
    jb_init(&b);
    size_t off[8];
    /* the strings, NUL-separated: ns, name, uid, node, devs, policy, ranks, claims... */
    off[0] = b.len, jb_puts(&b, a->pod.ns), jb_putc(&b, '\0');
    off[1] = b.len, jb_puts(&b, a->pod.name), jb_putc(&b, '\0');
    off[2] = b.len, jb_puts(&b, a->pod.uid ? a->pod.uid : ""), jb_putc(&b, '\0');
    off[3] = b.len, jb_puts(&b, a->nodes[best].name), jb_putc(&b, '\0');
    off[4] = b.len, jb_puts(&b, e->ans[best].devs ? e->ans[best].devs : ""), jb_putc(&b, '\0');
    off[5] = b.len;
    if (fd && fd->pv)
        jb_printf(&b, "%s (h:%016llx)", dracel_tierpolicy_version(fd->pv->p),
                  (unsigned long long)dracel_tierpolicy_hash(fd->pv->p));
    jb_putc(&b, '\0');
    off[6] = b.len;
    for (size_t t = 0; t < dracel_policy_tiers(pl); t++) {
        dracel_tier_info ti;
        if (dracel_policy_tier(pl, t, &ti) == DRACEL_OK && ti.first_available)
            jb_printf(&b, "%zu\t%s\t%u\n", ti.claim, ti.name, (unsigned)ti.rank);
    }
    jb_putc(&b, '\0');
    off[7] = b.len;
    for (size_t k = 0; k < e->pl.npending; k++) {
        dracel_claim_status cs;
        if (dracel_snapshot_claim(e->snap, e->pl.pending[k], &cs) != DRACEL_OK) {
            jb_free(&b);
            return;
        }
        jb_printf(&b, "%s/%s", cs.ns ? cs.ns : "", cs.name);
        jb_putc(&b, '\0');
    }
    awaited w;
    memset(&w, 0, sizeof w);
    w.nclaims = e->pl.npending;
    w.claims = calloc(w.nclaims, sizeof *w.claims);
    if (b.oom || !w.claims) {
        free(w.claims);
        jb_free(&b);
        return;
    }
    w.mem = jb_take(&b, NULL);
    if (!w.mem) {
        free(w.claims);
        return;
    }
    w.ns = w.mem + off[0];
    w.name = w.mem + off[1];
    w.uid = w.mem + off[2];
    w.node = w.mem + off[3];
    w.devs = w.mem + off[4];
    w.policy = w.mem[off[5]] ? w.mem + off[5] : NULL;
    w.ranks = w.mem + off[6];
    w.over_cap = fd && fd->outcome && strcmp(fd->outcome, "over_cap") == 0;
    char *p = w.mem + off[7];
    for (size_t k = 0; k < w.nclaims; k++, p += strlen(p) + 1)
        w.claims[k] = p;
    w.expires = ext_now() + (double)d->cfg.await_ttl_ms / 1e3;
    pthread_mutex_lock(&d->alock);
    for (size_t i = 0; i < d->naw; i++)
        if (strcmp(d->aw[i].ns, w.ns) == 0 && strcmp(d->aw[i].name, w.name) == 0) {
            awaited_drop(d, i); /* the newest prediction is the one scheduled */
            break;
        }
    if (d->naw == d->cfg.recent_pods) {
        size_t old = 0;
        for (size_t i = 1; i < d->naw; i++)
            if (d->aw[i].expires < d->aw[old].expires)
                old = i;
        awaited_drop(d, old);
    }
    d->aw[d->naw++] = w;
    pthread_mutex_unlock(&d->alock);
}

/* The rank of tier @p name of claim @p c as awaited (-1: not of firstAvailable); the rank 0
 * tier of the same request into first. */
static int tier_rank(const awaited *w, size_t c, const char *name, char *first, size_t cap)
{
    const char *slash = strchr(name, '/');
    size_t rq = slash ? (size_t)(slash - name) : strlen(name);
    int rank = -1;
    first[0] = '\0';
    for (const char *l = w->ranks; *l;) {
        const char *nl = strchr(l, '\n');
        if (!nl)
            break;
        char *end;
        unsigned long lc = strtoul(l, &end, 10);
        const char *nm = end + 1, *tab = memchr(nm, '\t', (size_t)(nl - nm));
        if (lc == c && tab) {
            size_t n = (size_t)(tab - nm);
            int r = atoi(tab + 1);
            if (n == strlen(name) && memcmp(nm, name, n) == 0)
                rank = r;
            if (r == 0 && n > rq && nm[rq] == '/' && memcmp(nm, name, rq) == 0)
                snprintf(first, cap, "%.*s", (int)n, nm);
        }
        l = nl + 1;
    }
    return rank;
}

/* Is claim i reserved for the pod of w (status.reservedFor names it: by uid, else name)? */
static bool reserved_for(const dracel_snapshot *snap, size_t i, const awaited *w)
{
    dracel_claim_status cs;
    if (dracel_snapshot_claim(snap, i, &cs) != DRACEL_OK)
        return false;
    for (size_t k = 0; k < cs.nreserved; k++) {
        dracel_claim_consumer cc;
        if (dracel_snapshot_claim_consumer(snap, i, k, &cc) != DRACEL_OK || cc.api_group ||
            !cc.resource || strcmp(cc.resource, "pods") != 0)
            continue;
        if (w->uid[0] && cc.uid && cc.uid[0] ? strcmp(cc.uid, w->uid) == 0
                                            : cc.name && strcmp(cc.name, w->name) == 0)
            return true;
    }
    return false;
}

/* The Event of the final choice of w, whose claims idx are allocated and reserved for it. */
static void report_allocated(decider *d, const dracel_snapshot *snap, const awaited *w,
                             const size_t *idx)
{
    const decide_config *c = &d->cfg;
    const dracel_table *t = dracel_snapshot_table(snap);
    jbuf b, got;
    jb_init(&b);
    jb_init(&got);
    bool fallback = false;
    for (size_t k = 0; k < w->nclaims; k++) {
        dracel_claim_status cs;
        if (dracel_snapshot_claim(snap, idx[k], &cs) != DRACEL_OK)
            continue;
        jb_printf(&b, "%sclaim %s:", k ? "; " : "", w->claims[k]);
        const char *last = NULL;
        for (size_t r = 0; r < cs.nresults; r++) {
            dracel_device_result dr;
            if (dracel_snapshot_claim_result(snap, idx[k], r, &dr) != DRACEL_OK)
                continue;
            if (!last || strcmp(last, dr.request) != 0) {
                char first[256];
                int rank = tier_rank(w, k, dr.request, first, sizeof first);
                jb_printf(&b, "%s %s", last ? ";" : "", dr.request);
                if (rank > 0) {
                    fallback = true;
                    jb_printf(&b, " (fallback from %s)", first[0] ? first : "a preferred tier");
                } else if (rank == 0) {
                    jb_puts(&b, " (first choice)");
                }
                last = dr.request;
            }
            jb_printf(&b, " %s/%s/%s", dr.driver, dr.pool, dr.device);
            uint32_t row;
            if (c->model_attribute &&
                dracel_table_device_find(t, dr.driver, dr.pool, dr.device, &row) == DRACEL_OK) {
                char *m = dracel_table_attribute_text(t, row, c->model_attribute);
                if (m)
                    jb_printf(&b, " (%s)", m);
                dracel_free_string(c->cfg, m);
            }
        }
        char *dv = fair_claim_devices(snap, idx[k]);
        if (k)
            jb_putc(&got, ';');
        jb_puts(&got, dv ? dv : "?");
        free(dv);
    }
    /* the prediction: the devices on the best node, when the allocation is on it */
    size_t ni;
    dracel_node nd = {w->node, NULL, 0};
    if (dracel_snapshot_node_find(snap, w->node, &ni) == DRACEL_OK)
        dracel_snapshot_node(snap, ni, &nd);
    bool on = true;
    for (size_t k = 0; k < w->nclaims && on; k++)
        on = dracel_snapshot_claim_fits(snap, idx[k], &nd);
    jb_putc(&got, '\0');
    if (!on)
        jb_printf(&b, "; not on %s, the node predicted best", w->node);
    else if (!got.oom && strcmp(got.data, w->devs) == 0)
        jb_printf(&b, "; as predicted on %s", w->node);
    else
        jb_printf(&b, "; on %s as predicted, other devices than predicted (%s)", w->node,
                  w->devs);
    if (w->policy)
        jb_printf(&b, " (policy %s)", w->policy);
    jb_putc(&b, '\0');
    if (!b.oom) {
        ext_pod pod;
        memset(&pod, 0, sizeof pod);
        pod.ns = w->ns;
        pod.name = w->name;
        pod.uid = w->uid;
        c->event(c->event_ctx, &pod, false, "Allocated", fallback ? "Fallback" : "FirstChoice",
                 b.data);
        if (c->condition)
            c->condition(c->event_ctx, &pod, true,
                         w->over_cap ? "OverCap" : fallback ? "Fallback" : "FirstChoice", b.data);
    }
    jb_free(&b);
    jb_free(&got);
}

/* A snapshot: report the awaited pods whose claims are now allocated and reserved for them;
 * forget those whose claims are gone, or that waited longer than await_ttl_ms. */
static void await_check(decider *d, const dracel_snapshot *snap)
{
    double now = ext_now();
    pthread_mutex_lock(&d->alock);
    for (size_t i = 0; i < d->naw;) {
        awaited *w = &d->aw[i];
        size_t small[8], *idx = w->nclaims <= 8 ? small : malloc(w->nclaims * sizeof *idx);
        bool ready = idx != NULL, gone = !idx;
        for (size_t k = 0; idx && k < w->nclaims && !gone; k++) {
            const char *sl = strchr(w->claims[k], '/');
            char ns[256];
            snprintf(ns, sizeof ns, "%.*s", sl ? (int)(sl - w->claims[k]) : 0, w->claims[k]);
            dracel_claim_status cs;
            if (!sl || dracel_snapshot_claim_find(snap, ns, sl + 1, &idx[k]) != DRACEL_OK) {
                gone = true;
                break;
            }
            if (dracel_snapshot_claim(snap, idx[k], &cs) != DRACEL_OK || !cs.allocated ||
                !reserved_for(snap, idx[k], w))
                ready = false;
        }
        if (ready && !gone)
            report_allocated(d, snap, w, idx);
        if (idx != small)
            free(idx);
        if ((ready && !gone) || gone || now >= w->expires)
            awaited_drop(d, i);
        else
            i++;
    }
    pthread_mutex_unlock(&d->alock);
}

/* ---- Events (events.h; docs/extender.md, "Events"). */

/* The tiers preferred to those the best node gives, which no node that passed gives (else its
 * score would be higher): "; gpu/h100 on none of the N nodes that passed" for each. */
static void skipped_tiers(jbuf *b, const dracel_policy *pl, const char *tiers, size_t passed)
{
    if (!pl)
        return;
    size_t nt = dracel_policy_tiers(pl);
    for (const char *p = tiers; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, ",");
        if (!n)
            break;
        for (size_t t = 0; t < nt; t++) {
            dracel_tier_info ti;
            if (dracel_policy_tier(pl, t, &ti) != DRACEL_OK || !ti.first_available || !ti.rank ||
                strlen(ti.name) != n || memcmp(ti.name, p, n) != 0)
                continue;
            for (size_t u = 0; u < nt; u++) {
                dracel_tier_info tu;
                if (dracel_policy_tier(pl, u, &tu) == DRACEL_OK && tu.claim == ti.claim &&
                    tu.request == ti.request && tu.rank < ti.rank)
                    jb_printf(b, "; %s on none of the %zu node%s that passed", tu.name, passed,
                              passed == 1 ? "" : "s");
            }
            break;
        }
        p += n;
    }
}

/* The outcome of a filter in one line, posted as an Event regarding the pod: the nodes passed,
 * the best node's tiers, the policy that decided (tier policies), each tier refused by a cap and
 * why, and the most frequent reasons of the nodes that failed. Only the pod's own tenant and
 * numbers appear: the reasons are the ones kube-scheduler is given for the pod. */
static void post_filter(const eval *e, const fdec *fd)
{
    const decide_config *c = &e->d->cfg;
    const ext_args *a = e->a;
    if (!c->event || (!a->pod.nclaims && !e->nxr && !e->pod_error[0]))
        return; /* a pod without DRA claims: nothing to say */
    size_t passed = 0, best = SIZE_MAX;
    for (size_t i = 0; i < a->nnodes; i++)
        if (e->ans[i].v == V_PASS) {
            passed++;
            if (best == SIZE_MAX || e->ans[i].score > e->ans[best].score)
                best = i;
        }
    if (fd && fd->best != SIZE_MAX)
        best = fd->best;
    jbuf b;
    jb_init(&b);
    if (e->pod_error[0]) {
        jb_puts(&b, e->pod_error);
    } else {
        jb_printf(&b, "%zu of %zu node%s passed", passed, a->nnodes, a->nnodes == 1 ? "" : "s");
        if (best != SIZE_MAX && e->ans[best].tiers && e->ans[best].tiers[0]) {
            jb_printf(&b, "; best %s on %s", e->ans[best].tiers, a->nodes[best].name);
            skipped_tiers(&b, e->pol.p, e->ans[best].tiers, passed);
        }
    }
    if (fd && fd->pv) {
        jb_printf(&b, " (policy %s h:%016llx", dracel_tierpolicy_version(fd->pv->p),
                  (unsigned long long)dracel_tierpolicy_hash(fd->pv->p));
        jb_puts(&b, ", tenant ");
        jb_puts(&b, fd->tenant_name ? fd->tenant_name : "");
        jb_putc(&b, ')');
        for (size_t j = 0; j < fd->ng; j++)
            if (fd->g[j].verdict >= 2 && fd->g[j].reason)
                jb_printf(&b, "; %s %s: %s", fd->g[j].verdict == 2 ? "over cap" : "capped",
                          fd->g[j].tiers ? fd->g[j].tiers : "", fd->g[j].reason);
    }
    /* the failed nodes' reasons, the most frequent first (at most 3) */
    typedef struct tally {
        const char *r;
        size_t n;
    } tally;
    tally t[8];
    size_t nt = 0, failed = 0, other = 0;
    for (size_t i = 0; i < a->nnodes; i++) {
        const char *r = e->ans[i].v == V_PASS ? NULL : e->ans[i].reason;
        if (e->ans[i].v == V_PASS)
            continue;
        failed++;
        if (!r)
            r = "cannot allocate all claims";
        size_t j = 0;
        while (j < nt && t[j].r != r && strcmp(t[j].r, r) != 0)
            j++;
        if (j < nt)
            t[j].n++;
        else if (nt < 8)
            t[nt++] = (tally){r, 1};
        else
            other++;
    }
    for (size_t x = 0; x < nt && x < 3; x++) {
        size_t m = x;
        for (size_t y = x + 1; y < nt; y++)
            if (t[y].n > t[m].n)
                m = y;
        tally tmp = t[x];
        t[x] = t[m];
        t[m] = tmp;
        jb_printf(&b, "; %zu: %.200s", t[x].n, t[x].r);
    }
    for (size_t x = 3; x < nt; x++)
        other += t[x].n;
    if (other)
        jb_printf(&b, "; %zu more failed for other reasons", other);
    (void)failed;
    jb_putc(&b, '\0');
    if (!b.oom) {
        bool ok = passed > 0;
        const char *reason = e->pod_error[0] ? "ClaimError"
                             : ok && fd && fd->outcome && strcmp(fd->outcome, "over_cap") == 0
                                 ? "OverCap"
                             : ok ? "DevicesFit"
                             : fd && fd->outcome && strcmp(fd->outcome, "rejected") == 0
                                 ? "TierCapped"
                                 : "NoDevicesFit";
        c->event(c->event_ctx, &a->pod, !ok, "Filter", reason, b.data);
        if (!ok && c->condition)
            c->condition(c->event_ctx, &a->pod, false, "Unschedulable", b.data);
        if (ok && (!fd || fd->best != SIZE_MAX))
            await_add(e, best, fd);
    }
    jb_free(&b);
}

/* ---- Recent pods. */

static void recent_free(recent *r)
{
    free(r->ns);
    free(r->name);
    free(r->claims);
    free(r->strings);
    dracel_pod_free(r->xres);
    memset(r, 0, sizeof *r);
}

/* What a pod's copy of its containers holds (for the byte cap; an estimate from above). */
static size_t containers_bytes(const ext_pod *pod)
{
    if (!pod->xres)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < pod->ncontainers; i++) {
        const dracel_container *c = &pod->containers[i];
        n += sizeof *c + strlen(c->name) + 1 + (c->restart_policy ? strlen(c->restart_policy) : 0);
        for (size_t k = 0; k < c->nrequests; k++)
            n += sizeof *c->requests + strlen(c->requests[k].name) +
                 strlen(c->requests[k].quantity) + 2 + 32;
        for (size_t k = 0; k < c->nlimits; k++)
            n += sizeof *c->limits + strlen(c->limits[k].name) + strlen(c->limits[k].quantity) +
                 2 + 32;
    }
    return n;
}

/* Under rlock: forget recent pod i. */
static void recent_drop(decider *d, size_t i)
{
    d->recent_bytes -= d->recent[i].bytes;
    recent_free(&d->recent[i]);
    d->recent[i] = d->recent[--d->nrecent];
    memset(&d->recent[d->nrecent], 0, sizeof *d->recent);
}

/* Remember a pod for GET /explain?pod=: at most cfg.recent_pods of them and cfg.recent_bytes
 * in all (60 pods with 4 MB names kept 254 MB before the byte cap); the pod remembered longest
 * ago goes first. A pod larger than the whole cap is not remembered. */
static void remember(decider *d, const ext_pod *pod)
{
    size_t bytes = 0;
    for (size_t i = 0; i < pod->nclaims; i++)
        bytes += strlen(pod->claims[i].entry) + 1 +
                 (pod->claims[i].claim ? strlen(pod->claims[i].claim) + 1 : 0);
    size_t total = sizeof(recent) + strlen(pod->ns) + strlen(pod->name) + 2 + bytes +
                   pod->nclaims * sizeof(pod_claim) + containers_bytes(pod);
    if (total > d->cfg.recent_bytes) {
        /* Forget what was known of it: an answer for an older copy would mislead. */
        pthread_mutex_lock(&d->rlock);
        for (size_t i = 0; i < d->nrecent; i++)
            if (strcmp(d->recent[i].ns, pod->ns) == 0 && strcmp(d->recent[i].name, pod->name) == 0) {
                recent_drop(d, i);
                break;
            }
        pthread_mutex_unlock(&d->rlock);
        return;
    }
    recent r = {strdup(pod->ns), strdup(pod->name),
                calloc(pod->nclaims ? pod->nclaims : 1, sizeof(pod_claim)), pod->nclaims,
                malloc(bytes ? bytes : 1), dracel_pod_ref(pod->xres), total, 0};
    if (!r.ns || !r.name || !r.claims || !r.strings) {
        recent_free(&r);
        return;
    }
    char *p = r.strings;
    for (size_t i = 0; i < pod->nclaims; i++) {
        r.claims[i] = pod->claims[i];
        r.claims[i].entry = strcpy(p, pod->claims[i].entry);
        p += strlen(p) + 1;
        if (pod->claims[i].claim) {
            r.claims[i].claim = strcpy(p, pod->claims[i].claim);
            p += strlen(p) + 1;
        }
    }
    pthread_mutex_lock(&d->rlock);
    r.seq = ++d->recent_seq;
    for (size_t i = 0; i < d->nrecent; i++)
        if (strcmp(d->recent[i].ns, r.ns) == 0 && strcmp(d->recent[i].name, r.name) == 0) {
            recent_drop(d, i);
            break;
        }
    while (d->nrecent && (d->nrecent == d->cfg.recent_pods ||
                          d->recent_bytes + total > d->cfg.recent_bytes)) {
        size_t old = 0;
        for (size_t i = 1; i < d->nrecent; i++)
            if (d->recent[i].seq < d->recent[old].seq)
                old = i;
        recent_drop(d, old);
    }
    d->recent[d->nrecent++] = r;
    d->recent_bytes += total;
    pthread_mutex_unlock(&d->rlock);
}

/* ---- Answers. */

static int not_ready(jbuf *out)
{
    jb_puts(out, "{\"error\":\"not ready: no snapshot of the cluster yet\"}\n");
    return 503;
}

/* A computation that decider_cancel cut short: its answer is not an answer. */
static int cancelled(jbuf *out)
{
    out->len = 0;
    out->oom = false;
    jb_puts(out, "{\"error\":\"shutting down: the computation was cancelled\"}\n");
    return 503;
}

static int oom(jbuf *out)
{
    out->len = 0;
    out->oom = false;
    jb_puts(out, "{\"error\":\"out of memory\"}\n");
    return 500;
}

int decide_filter(decider *d, const ext_args *a, jbuf *out)
{
    double t0 = ext_now();
    eval e;
    memset(&e, 0, sizeof e);
    e.d = d;
    e.a = a;
    if (!(e.snap = store_current(d->st)))
        return not_ready(out);
    remember(d, &a->pod);
    if (evaluate(&e) != 0 || interrupted(d)) {
        eval_free(&e);
        return interrupted(d) ? cancelled(out) : oom(out);
    }
    count_tiers(&e);
    fdec fd;
    memset(&fd, 0, sizeof fd);
    if (d->cfg.fair && !e.pl.fail[0]) {
        apply_caps(&e, &fd, true);
        if (fair_logging(d->cfg.fair))
            log_decision(&e, &fd, "filter", t0);
        post_filter(&e, &fd);
        fdec_free(d, &fd);
    } else {
        post_filter(&e, NULL);
    }
    count_answers(&e, "filter");
    /* ExtenderFilterResult, as Go's encoding/json writes it. */
    jb_reserve(out, a->nodes_form ? 4096 : 64 + a->nnodes * 24);
    bool first = true;
    if (a->nodes_form) {
        jb_puts(out, "{\"Nodes\":{\"metadata\":{},\"items\":[");
        for (size_t i = 0; i < a->nnodes; i++)
            if (e.ans[i].v == V_PASS) {
                if (!first)
                    jb_putc(out, ',');
                first = false;
                jb_put(out, a->body + a->nodes[i].start, a->nodes[i].end - a->nodes[i].start);
            }
        jb_puts(out, "]},\"NodeNames\":null");
    } else {
        jb_puts(out, "{\"Nodes\":null,\"NodeNames\":[");
        for (size_t i = 0; i < a->nnodes; i++)
            if (e.ans[i].v == V_PASS) {
                if (!first)
                    jb_putc(out, ',');
                first = false;
                jb_cstr(out, a->nodes[i].name);
            }
        jb_putc(out, ']');
    }
    for (int pass = 0; pass < 2; pass++) {
        verdict want = pass == 0 ? V_FAIL : V_UNRESOLVABLE;
        jb_puts(out, pass == 0 ? ",\"FailedNodes\":{" : ",\"FailedAndUnresolvableNodes\":{");
        first = true;
        for (size_t i = 0; i < a->nnodes; i++)
            if (e.ans[i].v == want) {
                if (!first)
                    jb_putc(out, ',');
                first = false;
                jb_cstr(out, a->nodes[i].name);
                jb_putc(out, ':');
                jb_cstr(out, e.ans[i].reason ? e.ans[i].reason : "cannot allocate all claims");
            }
        jb_putc(out, '}');
    }
    jb_puts(out, ",\"Error\":");
    jb_cstr(out, e.pod_error);
    jb_puts(out, "}\n");
    eval_free(&e);
    return out->oom ? oom(out) : 200;
}

int decide_prioritize(decider *d, const ext_args *a, jbuf *out)
{
    double t0 = ext_now();
    eval e;
    memset(&e, 0, sizeof e);
    e.d = d;
    e.a = a;
    if (!(e.snap = store_current(d->st)))
        return not_ready(out);
    remember(d, &a->pod);
    if (evaluate(&e) != 0 || interrupted(d)) {
        eval_free(&e);
        return interrupted(d) ? cancelled(out) : oom(out);
    }
    if (d->cfg.fair && !e.pl.fail[0]) {
        fdec fd;
        apply_caps(&e, &fd, false);
        if (fair_logging(d->cfg.fair))
            log_decision(&e, &fd, "prioritize", t0);
        fdec_free(d, &fd);
    }
    count_answers(&e, "prioritize");
    jb_reserve(out, 16 + a->nnodes * 36);
    /* HostPriorityList: 0 to 10. With firstAvailable requests, the scheduler's own DRA score
     * (8 - rank of each chosen subrequest, summed) scaled to 10 by its maximum (8 per
     * request); without, 10 where the claims can be allocated. Nodes that fail, pods without
     * claims to allocate: 0. */
    jb_putc(out, '[');
    for (size_t i = 0; i < a->nnodes; i++) {
        int score = 0;
        if (e.ans[i].v == V_PASS && e.pol.p && e.ans[i].score >= 0)
            score = e.fa ? (int)((e.ans[i].score * 10 + 4 * e.fa) / (8 * e.fa))
                         : 10;
        if (score > 10)
            score = 10;
        if (i)
            jb_putc(out, ',');
        jb_puts(out, "{\"Host\":");
        jb_cstr(out, a->nodes[i].name);
        jb_puts(out, ",\"Score\":");
        if (score >= 10)
            jb_puts(out, "10");
        else
            jb_putc(out, (char)('0' + (score > 0 ? score : 0)));
        jb_putc(out, '}');
    }
    jb_puts(out, "]\n");
    eval_free(&e);
    return out->oom ? oom(out) : 200;
}

/* Explain: every node fresh (no cache), with the explanation. */
static int explain(decider *d, dracel_snapshot *snap, const ext_pod *pod, const ext_args *a,
                   const char *only, bool text, jbuf *out)
{
    /* the request's time limit, as filter's: nodes past it are answered skipped */
    double deadline = a && a->deadline ? a->deadline
                                       : d->cfg.budget_ms ? ext_now() + d->cfg.budget_ms / 1e3
                                                          : 0;
    plan pl;
    if (!resolve(d->st, snap, pod, &pl)) {
        plan_free(&pl);
        dracel_snapshot_unref(snap);
        return oom(out);
    }
    /* The nodes: those of the request, else every node of the snapshot (or of its slices). */
    size_t n = a ? a->nnodes : dracel_snapshot_nodes(snap);
    bool table_nodes = !a && n == 0;
    const dracel_table *t = dracel_snapshot_table(snap);
    if (table_nodes)
        n = dracel_table_nodes(t);
    dracel_node *nodes = calloc(n ? n : 1, sizeof *nodes);
    uint64_t *masks = calloc(n ? n : 1, sizeof *masks); /* extended resources: see evaluate */
    const char *xr[XRES], *res[XRES];
    size_t nxr = xres_list(d, snap, pod, xr);
    if (nxr > XRES && !pl.fail[0])
        snprintf(pl.fail, sizeof pl.fail,
                 "the pod asks for more than %d extended resources backed by DRA", XRES);
    size_t k = 0;
    for (size_t i = 0; nodes && masks && i < n; i++) {
        dracel_node nd = {NULL, NULL, 0};
        const dracel_resource *al = NULL;
        size_t nal = 0, idx;
        if (a && a->nodes_form) {
            nd.name = a->nodes[i].name;
            nd.labels = a->nodes[i].labels;
            nd.nlabels = a->nodes[i].nlabels;
            al = a->nodes[i].alloc;
            nal = a->nodes[i].nalloc;
        } else if (a) {
            if (dracel_snapshot_node_find(snap, a->nodes[i].name, &idx) != DRACEL_OK ||
                dracel_snapshot_node(snap, idx, &nd) != DRACEL_OK)
                nd.name = a->nodes[i].name;
            else
                nal = dracel_snapshot_node_allocatable(snap, idx, &al);
        } else if (table_nodes) {
            nd.name = dracel_table_node(t, i);
        } else if (dracel_snapshot_node(snap, i, &nd) != DRACEL_OK) {
            continue;
        } else {
            nal = dracel_snapshot_node_allocatable(snap, i, &al);
        }
        if (only && strcmp(nd.name, only) != 0)
            continue;
        masks[k] = nxr <= XRES ? xres_mask(xr, nxr, al, nal) : 0;
        nodes[k++] = nd;
    }
    if (only && k == 0 && nodes && masks) {
        /* ?node= names no node of the request (or of the cluster): an empty list would read
         * as "nothing to say about it". The text form answers in JSON too: it is an error. */
        free(nodes);
        free(masks);
        plan_free(&pl);
        dracel_snapshot_unref(snap);
        char msg[400];
        snprintf(msg, sizeof msg, "node %.256s is unknown: not among the %s", only,
                 a ? "request's nodes" : "cluster's nodes");
        out->len = 0;
        jb_puts(out, "{\"error\":");
        jb_cstr(out, msg);
        jb_puts(out, "}\n");
        return out->oom ? oom(out) : 404;
    }
    if (nxr > XRES)
        nxr = 0;
    pol_ref pol = {NULL, NULL, 0, NULL};
    uint64_t pol_mask = k && masks ? masks[0] : 0; /* what pol was made for */
    bool pol_ok = true;                             /* pol is pol_mask's */
    char err[1024] = "";
    dracel_status st = DRACEL_OK;
    size_t nres = xres_of(xr, nxr, pol_mask, res);
    if (!nodes || !masks)
        st = DRACEL_ENOMEM;
    else if (!pl.fail[0] && (pl.npending || nres))
        st = policy_get(d, snap, pl.pending, pl.npending, pod->xres, res, nres, &pol, err,
                        sizeof err);
    if (!text) {
        jb_puts(out, "{\"pod\":");
        char pn[600];
        snprintf(pn, sizeof pn, "%s/%s", pod->ns, pod->name);
        jb_cstr(out, pn);
        jb_printf(out, ",\"snapshot\":%llu,\"policyVersion\":",
                  (unsigned long long)dracel_snapshot_id(snap));
        if (pol.p)
            jb_cstr(out, pol.version);
        else
            jb_puts(out, "null");
        if (pl.fail[0] || st != DRACEL_OK) {
            jb_puts(out, ",\"error\":");
            jb_cstr(out, pl.fail[0] ? pl.fail : st == DRACEL_ENOMEM ? "out of memory" : err);
        }
        jb_puts(out, ",\"nodes\":[");
    } else {
        jb_printf(out, "pod %s/%s, snapshot %llu", pod->ns, pod->name,
                  (unsigned long long)dracel_snapshot_id(snap));
        if (pol.p)
            jb_printf(out, ", policy %s", pol.version);
        jb_putc(out, '\n');
        if (pl.fail[0] || st != DRACEL_OK)
            jb_printf(out, "error: %s\n",
                      pl.fail[0] ? pl.fail : st == DRACEL_ENOMEM ? "out of memory" : err);
    }
    dracel_run *run = NULL;
    if (st == DRACEL_OK && pol.p)
        st = dracel_run_new(pol.p, &run);
    for (size_t i = 0; st == DRACEL_OK && !pl.fail[0] && i < k; i++) {
        const dracel_node *nd = &nodes[i];
        const char *blocked = NULL;
        if (!pol_ok || masks[i] != pol_mask) { /* other extended resources than the last's */
            dracel_run_free(run);
            run = NULL;
            pol_release(d, &pol);
            pol_mask = masks[i];
            pol_ok = true;
            nres = xres_of(xr, nxr, pol_mask, res);
            if (pl.npending || nres)
                st = policy_get(d, snap, pl.pending, pl.npending, pod->xres, res, nres, &pol,
                                err, sizeof err);
            if (st == DRACEL_OK && pol.p)
                st = dracel_run_new(pol.p, &run);
            if (st != DRACEL_OK && st != DRACEL_ENOMEM) { /* this node's claims do not compile */
                char msg[1100];
                snprintf(msg, sizeof msg, "cannot compile the pod's claims: %s", err);
                if (text) {
                    jb_printf(out, "%s: error: %s\n", nd->name, msg);
                } else {
                    jb_puts(out, i ? ",{\"node\":" : "{\"node\":");
                    jb_cstr(out, nd->name);
                    jb_puts(out, ",\"outcome\":\"error\",\"message\":");
                    jb_cstr(out, msg);
                    jb_putc(out, '}');
                }
                st = DRACEL_OK;
                pol_ok = false; /* tried again for the next node */
                continue;
            }
            if (st != DRACEL_OK)
                break;
        }
        char why[512];
        for (size_t c = 0; c < pl.nalloc && !blocked; c++)
            if (!dracel_snapshot_claim_fits(snap, pl.alloc[c], nd)) {
                dracel_claim_status cs;
                if (dracel_snapshot_claim(snap, pl.alloc[c], &cs) == DRACEL_OK)
                    snprintf(why, sizeof why, "resourceclaim %s/%s not available on the node",
                             cs.ns ? cs.ns : "", cs.name);
                else
                    snprintf(why, sizeof why, "resourceclaim not available on the node");
                blocked = why;
            }
        if (blocked || !run) {
            const char *what = blocked ? "unschedulable" : "allocated";
            if (text)
                jb_printf(out, "%s: %s%s%s\n", nd->name, what, blocked ? ": " : "",
                          blocked     ? blocked
                          : pl.nalloc ? " (every claim already allocated)"
                          : nxr       ? " (nothing to allocate: no claims, and device plugins "
                                        "serve the pod's extended resources)"
                                      : " (no claims)");
            else {
                jb_puts(out, i ? ",{\"node\":" : "{\"node\":");
                jb_cstr(out, nd->name);
                jb_printf(out, ",\"outcome\":\"%s\"", what);
                if (blocked) {
                    jb_puts(out, ",\"message\":");
                    jb_cstr(out, blocked);
                }
                jb_putc(out, '}');
            }
            continue;
        }
        dracel_allocate_opts o;
        dracel_allocate_opts_init(&o);
        o.features = d->cfg.features;
        o.kubernetes = d->cfg.kubernetes;
        o.timeout_ms = d->cfg.node_timeout_ms;
        o.in_use = dracel_snapshot_usage(snap);
        o.explain = true;
        o.examples = 3;
        o.interrupt = interrupted;
        o.interrupt_ctx = d;
        if (deadline > 0) {
            double left = (deadline - ext_now()) * 1e3;
            o.budget_ms = left > 1 ? (uint64_t)left : 1;
        }
        st = dracel_allocate(run, nd, &o);
        if (st != DRACEL_OK)
            break;
        char *s = text ? dracel_run_line(run) : dracel_run_node_json(run);
        if (!s) {
            st = DRACEL_ENOMEM;
            break;
        }
        if (text) {
            jb_puts(out, s);
            jb_putc(out, '\n');
            char *x = dracel_run_explain_text(run);
            if (x)
                jb_puts(out, x);
            dracel_free_string(NULL, x);
        } else {
            if (i)
                jb_putc(out, ',');
            jb_puts(out, s);
        }
        dracel_free_string(NULL, s);
    }
    if (!text)
        jb_puts(out, "]}\n");
    dracel_run_free(run);
    pol_release(d, &pol);
    free(nodes);
    free(masks);
    plan_free(&pl);
    dracel_snapshot_unref(snap);
    if (interrupted(d))
        return cancelled(out);
    return out->oom || st == DRACEL_ENOMEM ? oom(out) : 200;
}

int decide_explain(decider *d, const ext_args *a, const char *node, bool text, jbuf *out)
{
    dracel_snapshot *snap = store_current(d->st);
    if (!snap)
        return not_ready(out);
    remember(d, &a->pod);
    return explain(d, snap, &a->pod, a->nnodes ? a : NULL, node, text, out);
}

int decide_explain_recent(decider *d, const char *ns, const char *name, const char *node,
                          bool text, jbuf *out)
{
    dracel_snapshot *snap = store_current(d->st);
    if (!snap)
        return not_ready(out);
    pthread_mutex_lock(&d->rlock);
    recent copy;
    memset(&copy, 0, sizeof copy);
    bool found = false;
    for (size_t i = 0; i < d->nrecent && !found; i++)
        if (strcmp(d->recent[i].ns, ns) == 0 && strcmp(d->recent[i].name, name) == 0) {
            const recent *r = &d->recent[i];
            found = true;
            size_t bytes = 0;
            for (size_t k = 0; k < r->nclaims; k++)
                bytes += strlen(r->claims[k].entry) + 1 +
                         (r->claims[k].claim ? strlen(r->claims[k].claim) + 1 : 0);
            copy.xres = dracel_pod_ref(r->xres);
            copy.claims = calloc(r->nclaims ? r->nclaims : 1, sizeof *copy.claims);
            copy.strings = malloc(bytes ? bytes : 1);
            copy.nclaims = r->nclaims;
            char *p = copy.strings;
            for (size_t k = 0; copy.claims && p && k < r->nclaims; k++) {
                copy.claims[k] = r->claims[k];
                copy.claims[k].entry = strcpy(p, r->claims[k].entry);
                p += strlen(p) + 1;
                if (r->claims[k].claim) {
                    copy.claims[k].claim = strcpy(p, r->claims[k].claim);
                    p += strlen(p) + 1;
                }
            }
        }
    pthread_mutex_unlock(&d->rlock);
    if (!found) {
        dracel_snapshot_unref(snap);
        jb_puts(out, "{\"error\":");
        char msg[600];
        snprintf(msg, sizeof msg,
                 "pod %s/%s has not been seen: the extender knows pods from the scheduler's "
                 "requests (POST the pod to /explain instead)",
                 ns, name);
        jb_cstr(out, msg);
        jb_puts(out, "}\n");
        return 404;
    }
    if (!copy.claims || !copy.strings) {
        recent_free(&copy);
        dracel_snapshot_unref(snap);
        return oom(out);
    }
    ext_pod pod;
    memset(&pod, 0, sizeof pod);
    pod.ns = ns;
    pod.name = name;
    pod.claims = copy.claims;
    pod.nclaims = copy.nclaims;
    pod.xres = copy.xres;
    int rc = explain(d, snap, &pod, NULL, node, text, out);
    recent_free(&copy);
    return rc;
}

/* ---- Life. */

decider *decider_new(const decide_config *cfg, store *st, char *err, size_t errcap)
{
    decider *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    d->cfg = *cfg;
    d->st = st;
    if (!d->cfg.cache_entries)
        d->cfg.cache_entries = 262144;
    if (!d->cfg.max_reason)
        d->cfg.max_reason = 256;
    if (!d->cfg.recent_pods)
        d->cfg.recent_pods = 1024;
    if (!d->cfg.recent_bytes)
        d->cfg.recent_bytes = (size_t)16 << 20;
    size_t per = d->cfg.cache_entries / SHARDS / WAYS;
    if (per < 1)
        per = 1;
    for (int i = 0; i < SHARDS; i++) {
        pthread_mutex_init(&d->shards[i].lock, NULL);
        d->shards[i].nsets = per;
        d->shards[i].slots = calloc(per * WAYS, sizeof(slot));
        d->shards[i].next = calloc(per, 1);
        if (!d->shards[i].slots || !d->shards[i].next) {
            snprintf(err, errcap, "out of memory for an answer cache of %zu entries",
                     d->cfg.cache_entries);
            decider_free(d);
            return NULL;
        }
    }
    pthread_mutex_init(&d->plock, NULL);
    pthread_mutex_init(&d->vlock, NULL);
    pthread_mutex_init(&d->rlock, NULL);
    pthread_mutex_init(&d->alock, NULL);
    if (!d->cfg.await_ttl_ms)
        d->cfg.await_ttl_ms = 600000;
    pthread_mutex_init(&d->dlock, NULL);
    d->recent = calloc(d->cfg.recent_pods, sizeof *d->recent);
    d->aw = calloc(d->cfg.recent_pods, sizeof *d->aw);
    if (!d->recent || !d->aw) {
        snprintf(err, errcap, "out of memory");
        decider_free(d);
        return NULL;
    }
    metrics_declare(&m_nodes);
    metrics_declare(&m_tiers);
    metrics_declare(&m_cache);
    if (d->cfg.fair) {
        metrics_declare(&m_tdec);
        metrics_declare(&m_default);
        metrics_declare(&m_caprej);
        metrics_declare(&m_choice);
    }
    store_set_hook(st, on_publish, d);
    return d;
}

void decider_free(decider *d)
{
    if (!d)
        return;
    store_set_hook(d->st, NULL, NULL); /* no view made for us after this */
    for (int i = 0; i < SHARDS; i++) {
        shard *s = &d->shards[i];
        if (s->slots)
            for (size_t k = 0; k < s->nsets * WAYS; k++)
                answer_unref(s->slots[k].a);
        free(s->slots);
        free(s->next);
    }
    for (int i = 0; i < POLICIES; i++)
        box_release(d, d->pols[i].box);
    if (d->view)
        view_unref(d, d->view);
    if (d->recent)
        for (size_t i = 0; i < d->nrecent; i++)
            recent_free(&d->recent[i]);
    free(d->recent);
    for (size_t i = 0; d->aw && i < d->naw; i++)
        awaited_free(&d->aw[i]);
    free(d->aw);
    free(d);
}
