/*
 * replay.c: `dra-celc replay` (docs/fairness.md, docs/dra-celc.md): a trace of pod arrivals
 * replayed against a fleet and one or two tier policies, scheduling as kube-scheduler would
 * with dra-extender in front of it: per pod, on every node the allocation Kubernetes' allocator
 * would make with the devices then in use, the nodes whose tier the policy refuses rejected (in
 * enforce mode), the best of the others by DRA's score plus the extender's, ties broken by node
 * name. Pods that fit nowhere queue and are retried on each departure.
 *
 * Speed comes from three things, none of which changes an answer:
 *   - a node's answer for a claim depends on the claim and on the node's pools (their versions
 *     and their devices in use): it is kept per claim and node under that key, and computed
 *     again only when the key changed (a placement or a departure touched the node), lazily,
 *     when the claim is next asked about; a table of earlier keys answers a node that comes
 *     back to an earlier state (a pod left);
 *   - every node giving the same answer class (the tiers and device counts chosen) has the same
 *     score and the same verdict of the policy, so a placement looks at classes, not nodes:
 *     each class keeps the set of its nodes, and the winner is the first node of the best
 *     class;
 *   - queued pods of the same claim and tenant are interchangeable: a group that failed is not
 *     tried again until something was placed.
 *
 * Built on dracel.h alone: tables, objects, placement policies and runs, tier policies.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dracel.h"
#include "files.h"
#include "gates.h"
#include "out.h"
#include "place.h"
#include "replay.h"
#include "report.h"
#include "trace.h"

static const char *const prog = celc_prog;

enum { CL_UNKNOWN = -3, CL_ERROR = -2, CL_NONE = -1 };

static void usage_replay(FILE *f)
{
    fprintf(f,
            "usage: %s replay --fleet PATH --classes PATH --policy FILE [--policy FILE]\n"
            "                [--nodes PATH] [--kubernetes-version V] [--features LIST]\n"
            "                [--feature-gates NAME=BOOL,...] [--format text|json|html|jsonl]\n"
            "                [--records]\n"
            "                [--max-pods N] [--max-claims N] [--stats] TRACE\n"
            "\n"
            "Replays TRACE (JSON lines of pod arrivals: {\"time\":SECONDS,\"pod\":\"NS/NAME\",\n"
            "\"labels\":{...},\"claim\":PATH-OR-OBJECT,\"runSeconds\":N}) against the fleet and\n"
            "each tier policy (two: side by side), scheduling as kube-scheduler would with\n"
            "dra-extender, and reports per tenant: pods, first-choice rate, fallback rate per\n"
            "tier, wait, unschedulable, tier shares and Jain's index (docs/fairness.md).\n"
            "Exit status: 0 replayed, 1 rejected input, 2 usage or I/O error.\n"
            "\n"
            "  --fleet PATH       ResourceSlices (file or directory)\n"
            "  --classes PATH     DeviceClasses (file or directory)\n"
            "  --policy FILE      a TierPolicy (once, or twice to compare two)\n"
            "  --nodes PATH       Node objects (names and labels); default: the nodes the slices\n"
            "                     name\n"
            "  --kubernetes-version V  the release reproduced: 1.34, 1.35, 1.36 or 1.37 (default)\n"
            "  --features LIST    the gates that are on, comma-separated ('none'), instead of\n"
            "                     the release's defaults\n"
            "  --feature-gates G  kube-scheduler's --feature-gates on top (DRAX=true,DRAY=false)\n"
            "  --format FMT       text (default), json, html (one self-contained page) or\n"
            "                     jsonl (the per-pod records, one JSON object a line)\n"
            "  --records          with --format json: the per-pod records in the report\n"
            "  --max-pods N       pods a trace may have (default %u)\n"
            "  --max-claims N     distinct claims a trace may name (default %u)\n"
            "  --stats            timings and work as one JSON line on stderr\n",
            prog, TRACE_DEFAULT_MAX_PODS, TRACE_DEFAULT_MAX_CLAIMS);
}

/* ---------------------------------------------------------------------------------------------
 * Hashing
 */

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* ---------------------------------------------------------------------------------------------
 * What every simulation shares: the fleet, the nodes, the claims (specs) and their answer
 * classes, the candidates of tiers, the table of earlier answers.
 */

typedef struct tc {
    uint32_t tier, count;
} tc;

/* An answer class of a spec: what an allocation took, tier by tier. */
typedef struct klass {
    tc *tcs;                /* sorted by tier */
    uint32_t ntcs;
    uint64_t h;
    int score;              /* the scheduler's raw firstAvailable score */
    bool first;             /* every request got its first subrequest */
} klass;

typedef struct stier {
    char *name, *cls;       /* "gpu/h100"; its DeviceClass or NULL */
    uint32_t rank;
    bool first_available;
    int64_t count;          /* ExactCount devices (1 for All) */
    size_t claim, request;
    uint32_t gname;         /* index in the report's tiers */
    int cand, cand_class;   /* candidate sets of the tier and of its class */
} stier;

/* A claim of the trace (one pod's claims), compiled against the fleet. */
typedef struct spec {
    dracel_policy *pl;
    dracel_run *run;
    stier *tiers;
    size_t ntiers;
    unsigned fa;            /* firstAvailable requests */
    klass *classes;
    size_t nclasses, capclasses;
    const char *name;
} spec;

/* The devices a tier (or its class) accepts over the fleet. */
typedef struct cand {
    uint64_t *bits;
    uint32_t size;
    size_t spec, tier;
    bool class_only;
} cand;

typedef struct memo_ent {
    uint64_t key;           /* the node's key; 0: empty */
    uint32_t spec, node;
    int32_t cls;
} memo_ent;

typedef struct ctx {
    dracel_config cfg;
    dracel_table *t;
    dracel_objects *classes, *nodeobjs;
    unsigned features;
    unsigned release;            /* the Kubernetes release reproduced (minor version) */
    size_t words;           /* of a bitmap over rows */
    uint32_t rows;
    dracel_node *nodes;     /* sorted by name */
    size_t nnodes;
    size_t nwords;          /* of a bitmap over nodes */
    size_t **npools;        /* per node: the pools it sees */
    size_t *nnp;
    size_t **pnodes;        /* per pool: the nodes that see it */
    size_t *npn;
    size_t npools_total;
    uint64_t *pool_version;
    uint32_t *row_pool;     /* per row */
    dracel_device_id *ids;  /* per row */
    spec *specs;
    size_t nspecs;
    cand *cands;
    size_t ncands, capcands;
    memo_ent *memo;
    size_t memo_cap, memo_used;
    trace tr;
    size_t *spec_of;        /* per trace claim: its spec */
    bool records;           /* keep per-pod records (--format jsonl, --records) */
    report rep;
} ctx;

static void *xcalloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

/* A candidate set (shared by equal requests). */
static int cand_get(ctx *g, size_t s, size_t tier, bool class_only, int *out)
{
    for (size_t i = 0; i < g->ncands; i++)
        if (g->cands[i].spec == s && g->cands[i].tier == tier &&
            g->cands[i].class_only == class_only) {
            *out = (int)i;
            return 0;
        }
    if (g->ncands == g->capcands) {
        size_t nc = g->capcands ? g->capcands * 2 : 16;
        cand *c = realloc(g->cands, nc * sizeof *c);
        if (!c)
            return -1;
        g->cands = c;
        g->capcands = nc;
    }
    cand *c = &g->cands[g->ncands];
    memset(c, 0, sizeof *c);
    c->bits = xcalloc(g->words, sizeof *c->bits);
    if (!c->bits)
        return -1;
    c->spec = s;
    c->tier = tier;
    c->class_only = class_only;
    /* usable under the release and gates: a device the tier cannot take (tainted against it)
     * is in neither the tier's size nor its free devices */
    dracel_allocate_opts o;
    dracel_allocate_opts_init(&o);
    o.features = g->features;
    o.kubernetes = g->release;
    dracel_status st = dracel_policy_tier_usable(g->specs[s].pl, tier, class_only, &o, c->bits,
                                                 g->words, &c->size);
    if (st != DRACEL_OK) {
        free(c->bits);
        return -1;
    }
    *out = (int)g->ncands++;
    return 0;
}

/* The class of the last allocation of spec s's run (outcome allocated); -1 on ENOMEM. */
static int class_of(ctx *g, size_t s, const dracel_run *r, const dracel_run_info *info)
{
    spec *sp = &g->specs[s];
    tc buf[64], *v = buf;
    size_t n = 0, cap = 64;
    for (size_t c = 0; c < dracel_policy_claims(sp->pl); c++)
        for (size_t i = 0; i < dracel_run_results(r, c); i++) {
            dracel_device_result res;
            if (dracel_run_result(r, c, i, &res) != DRACEL_OK)
                continue;
            size_t k = 0;
            while (k < n && v[k].tier < res.tier)
                k++;
            if (k < n && v[k].tier == res.tier) {
                v[k].count++;
                continue;
            }
            if (n == cap) {
                tc *nv = malloc(cap * 2 * sizeof *nv);
                if (!nv) {
                    if (v != buf)
                        free(v);
                    return -1;
                }
                memcpy(nv, v, n * sizeof *nv);
                if (v != buf)
                    free(v);
                v = nv;
                cap *= 2;
            }
            memmove(v + k + 1, v + k, (n - k) * sizeof *v);
            v[k] = (tc){(uint32_t)res.tier, 1};
            n++;
        }
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (size_t k = 0; k < n; k++)
        h = mix(h ^ ((uint64_t)v[k].tier << 32 | v[k].count));
    int found = -1;
    for (size_t k = 0; k < sp->nclasses && found < 0; k++)
        if (sp->classes[k].h == h && sp->classes[k].ntcs == n &&
            memcmp(sp->classes[k].tcs, v, n * sizeof *v) == 0)
            found = (int)k;
    if (found < 0) {
        if (sp->nclasses == sp->capclasses) {
            size_t nc = sp->capclasses ? sp->capclasses * 2 : 8;
            klass *k = realloc(sp->classes, nc * sizeof *k);
            if (!k)
                goto oom;
            sp->classes = k;
            sp->capclasses = nc;
        }
        klass *k = &sp->classes[sp->nclasses];
        k->tcs = xcalloc(n, sizeof *k->tcs);
        if (!k->tcs)
            goto oom;
        memcpy(k->tcs, v, n * sizeof *v);
        k->ntcs = (uint32_t)n;
        k->h = h;
        k->score = info->score;
        k->first = true;
        for (size_t j = 0; j < n; j++)
            k->first = k->first && sp->tiers[v[j].tier].rank == 0;
        found = (int)sp->nclasses++;
    }
    if (v != buf)
        free(v);
    return found;
oom:
    if (v != buf)
        free(v);
    return -1;
}

/* ---------------------------------------------------------------------------------------------
 * One simulation: a policy over the trace
 */

typedef struct take {
    size_t key;
    uint32_t n;
    int cand;               /* the key's candidate set for the spec, or -1 */
} take;

/* Per spec and simulation. */
typedef struct sspec {
    bool ready;             /* every node answered once */
    size_t cursor;          /* into the dirty log */
    int32_t *cls;           /* per node */
    uint64_t *key;          /* per node: the key its answer is for */
    uint64_t **members;     /* per class: its nodes (bitmap) */
    uint32_t *count;        /* per class */
    size_t ncls;            /* classes known to this simulation */
    uint32_t nerr;          /* nodes where the pod's allocation is an error */
    take **takes;           /* per class: what it counts toward (policy keys) */
    size_t *ntakes;
    take *first;            /* what the first choice counts toward */
    size_t nfirst;
    int *keycand;           /* per policy key: the candidate set it is for this spec, or -1 */
} sspec;

typedef struct podst {
    size_t tenant, spec;
    double placed_at;       /* < 0: not placed */
    int32_t cls;
    uint32_t *rows;
    uint32_t nrows;
    bool over_cap, borrowed, queued;
} podst;

typedef struct group {
    size_t *q;              /* pod indexes, in arrival order */
    size_t head, n, cap;
    size_t counted;         /* the pods before it are counted over a cap already */
    uint64_t failed_at;     /* the state version it last failed at (+1; 0: never) */
} group;

typedef struct dep {
    double time;
    size_t pod;
} dep;

typedef struct hev {
    double time;
    uint32_t tenant, tier;
    int32_t delta;
} hev;

typedef struct sim {
    ctx *g;
    size_t pi;
    const dracel_tierpolicy *tp;
    dracel_tierusage *led;
    dracel_tier_mode mode;  /* the policy's */
    dracel_tier_mode *tmode; /* per tenant: its own, else the policy's */
    bool any_enforce;       /* a tenant in enforce mode: the queue's fair order */
    bool refused;           /* the last attempt found the pod over a cap */
    size_t ntenants;        /* with the default */
    uint64_t *in_use;       /* rows */
    uint64_t *pool_hash;
    uint64_t *nodekey;
    uint32_t *dirty;
    size_t ndirty, capdirty;
    sspec *ss;
    uint32_t *cand_used;    /* per candidate set: devices in use */
    podst *pods;
    size_t *tenant_of_pod;
    group *groups;          /* spec * ntenants + tenant */
    uint64_t version;       /* bumped by every placement and departure */
    dep *heap;
    size_t nheap, capheap;
    uint32_t *held;         /* tenant * ntiers + tier */
    hev *hev;
    size_t nhev, caphev;
    double now;
    uint64_t attempts, allocations, memo_hits;
    dracel_device_id *resv;
    size_t capresv;
    char *rec;              /* per-pod records, JSON lines (g->records) */
    size_t nrec, caprec;
    bool oom;
} sim;

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * size);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

static uint64_t node_key(const sim *m, size_t n)
{
    const ctx *g = m->g;
    uint64_t h = mix(n + 1);
    for (size_t k = 0; k < g->nnp[n]; k++) {
        size_t p = g->npools[n][k];
        h = mix(h ^ g->pool_version[p]) + mix(m->pool_hash[p] + 0x51afd7ed558ccdULL * (p + 1));
    }
    return h ? h : 1;
}

/* ---- The table of earlier answers */

static size_t memo_slot(const ctx *g, uint64_t key, uint32_t s, uint32_t n)
{
    return (size_t)(mix(key ^ ((uint64_t)s << 40) ^ ((uint64_t)n * 0x9e3779b97f4a7c15ULL)) &
                    (g->memo_cap - 1));
}

static int32_t memo_get(const ctx *g, uint64_t key, uint32_t s, uint32_t n)
{
    for (size_t i = memo_slot(g, key, s, n);; i = (i + 1) & (g->memo_cap - 1)) {
        const memo_ent *e = &g->memo[i];
        if (!e->key)
            return CL_UNKNOWN;
        if (e->key == key && e->spec == s && e->node == n)
            return e->cls;
    }
}

static void memo_put(ctx *g, uint64_t key, uint32_t s, uint32_t n, int32_t cls)
{
    if (g->memo_used * 10 >= g->memo_cap * 7) {
        memset(g->memo, 0, g->memo_cap * sizeof *g->memo); /* forget: it only saves work */
        g->memo_used = 0;
    }
    size_t i = memo_slot(g, key, s, n);
    while (g->memo[i].key && !(g->memo[i].key == key && g->memo[i].spec == s &&
                               g->memo[i].node == n))
        i = (i + 1) & (g->memo_cap - 1);
    if (!g->memo[i].key)
        g->memo_used++;
    g->memo[i] = (memo_ent){key, s, n, cls};
}

/* ---- Answers of a spec on nodes */

/* The devices in use that node n's answer depends on: those of its pools. */
static size_t node_reserved(sim *m, size_t n)
{
    const ctx *g = m->g;
    size_t k = 0;
    for (size_t j = 0; j < g->nnp[n]; j++) {
        dracel_pool_info pi;
        if (dracel_table_pool(g->t, g->npools[n][j], &pi) != DRACEL_OK)
            continue;
        for (uint32_t r = pi.first_row; r < pi.first_row + pi.rows; r++) {
            if (!(m->in_use[r / 64] >> (r % 64) & 1))
                continue;
            if (!grow((void **)&m->resv, &m->capresv, k + 1, sizeof *m->resv)) {
                m->oom = true;
                return 0;
            }
            m->resv[k++] = g->ids[r];
        }
    }
    return k;
}

/* Allocate spec s on node n with the devices in use now (the answer in the spec's run). */
static dracel_status allocate_on(sim *m, size_t s, size_t n, dracel_run_info *info)
{
    ctx *g = m->g;
    dracel_allocate_opts o;
    dracel_allocate_opts_init(&o);
    o.features = g->features;
    o.kubernetes = g->release;
    o.timeout_ms = 0; /* no clock: the same inputs give the same answers */
    o.nreserved = node_reserved(m, n);
    o.reserved = o.nreserved ? m->resv : NULL;
    if (m->oom)
        return DRACEL_ENOMEM;
    m->allocations++;
    dracel_status st = dracel_allocate(g->specs[s].run, &g->nodes[n], &o);
    if (st == DRACEL_OK)
        st = dracel_run_get(g->specs[s].run, info);
    return st;
}

static int sspec_classes(sim *m, size_t s);

static void set_member(sim *m, size_t s, size_t n, int32_t cls)
{
    sspec *ss = &m->ss[s];
    int32_t old = ss->cls[n];
    if (old >= 0) {
        ss->members[old][n / 64] &= ~(1ull << (n % 64));
        ss->count[old]--;
    } else if (old == CL_ERROR) {
        ss->nerr--;
    }
    if (cls >= 0) {
        ss->members[cls][n / 64] |= 1ull << (n % 64);
        ss->count[cls]++;
    } else if (cls == CL_ERROR) {
        ss->nerr++;
    }
    ss->cls[n] = cls;
}

/* The answer of spec s on node n for its current key. */
static int answer(sim *m, size_t s, size_t n)
{
    ctx *g = m->g;
    uint64_t key = m->nodekey[n];
    int32_t cls = memo_get(g, key, (uint32_t)s, (uint32_t)n);
    if (cls != CL_UNKNOWN) {
        m->memo_hits++;
    } else {
        dracel_run_info info;
        if (allocate_on(m, s, n, &info) != DRACEL_OK)
            return -1;
        if (info.outcome == DRACEL_ALLOCATED) {
            cls = class_of(g, s, g->specs[s].run, &info);
            if (cls < 0)
                return -1;
        } else if (info.outcome == DRACEL_ALLOCATION_ERROR && !info.node_local) {
            cls = CL_ERROR;
        } else {
            cls = CL_NONE;
        }
        memo_put(g, key, (uint32_t)s, (uint32_t)n, cls);
    }
    if (cls >= 0 && (size_t)cls >= m->ss[s].ncls && sspec_classes(m, s) != 0)
        return -1;
    set_member(m, s, n, cls);
    m->ss[s].key[n] = key;
    return 0;
}

/* What class c of spec s counts toward in the policy. */
static int class_takes(sim *m, size_t s, size_t c, take **out, size_t *nout)
{
    const spec *sp = &m->g->specs[s];
    const klass *k = &sp->classes[c];
    take *t = xcalloc(2 * k->ntcs, sizeof *t);
    if (!t)
        return -1;
    size_t n = 0;
    for (uint32_t i = 0; i < k->ntcs; i++) {
        const stier *ti = &sp->tiers[k->tcs[i].tier];
        size_t keys[2];
        size_t nk = dracel_tierpolicy_keys_of(m->tp, ti->name, ti->cls, keys);
        for (size_t j = 0; j < nk; j++) {
            size_t x = 0;
            while (x < n && t[x].key != keys[j])
                x++;
            if (x == n)
                t[n++] = (take){keys[j], 0, m->ss[s].keycand[keys[j]]};
            t[x].n += k->tcs[i].count;
        }
    }
    *out = t;
    *nout = n;
    return 0;
}

/* Room for the classes the spec has found so far. */
static int sspec_classes(sim *m, size_t s)
{
    sspec *ss = &m->ss[s];
    size_t n = m->g->specs[s].nclasses;
    if (n <= ss->ncls)
        return 0;
    uint64_t **mem = realloc(ss->members, n * sizeof *mem);
    if (!mem)
        return -1;
    ss->members = mem;
    uint32_t *cnt = realloc(ss->count, n * sizeof *cnt);
    if (!cnt)
        return -1;
    ss->count = cnt;
    take **tk = realloc(ss->takes, n * sizeof *tk);
    if (!tk)
        return -1;
    ss->takes = tk;
    size_t *ntk = realloc(ss->ntakes, n * sizeof *ntk);
    if (!ntk)
        return -1;
    ss->ntakes = ntk;
    for (size_t c = ss->ncls; c < n; c++) {
        ss->members[c] = NULL;
        ss->takes[c] = NULL;
        ss->count[c] = 0;
        ss->ntakes[c] = 0;
        ss->ncls = c + 1;
        if (!(ss->members[c] = xcalloc(m->g->nwords, sizeof(uint64_t))) ||
            class_takes(m, s, c, &ss->takes[c], &ss->ntakes[c]) != 0)
            return -1;
    }
    return 0;
}

/* Bring spec s's answers up to date with the nodes that changed since it last looked. */
static int refresh(sim *m, size_t s)
{
    sspec *ss = &m->ss[s];
    const ctx *g = m->g;
    if (!ss->ready) {
        for (size_t n = 0; n < g->nnodes; n++)
            if (answer(m, s, n) != 0)
                return -1;
        ss->ready = true;
        ss->cursor = m->ndirty;
        return 0;
    }
    for (; ss->cursor < m->ndirty; ss->cursor++) {
        size_t n = m->dirty[ss->cursor];
        if (ss->key[n] != m->nodekey[n] && answer(m, s, n) != 0)
            return -1;
    }
    return 0;
}

static size_t first_node(const sim *m, const uint64_t *bits)
{
    for (size_t w = 0; w < m->g->nwords; w++)
        if (bits[w])
            return w * 64 + (size_t)__builtin_ctzll(bits[w]);
    return SIZE_MAX;
}

/* ---- The policy's verdict */

typedef struct verdict {
    bool allowed, borrowing;
    char reason[sizeof ((dracel_tier_check *)0)->reason]; /* the first refusal's, or "" */
} verdict;

static int judge(sim *m, size_t s, size_t tenant, const take *t, size_t nt, verdict *v)
{
    const ctx *g = m->g;
    v->allowed = true;
    v->borrowing = false;
    v->reason[0] = '\0';
    if (m->tmode[tenant] == DRACEL_TIER_OFF)
        return 0;
    for (size_t i = 0; i < nt; i++) {
        uint64_t size = t[i].cand >= 0 ? g->cands[t[i].cand].size : 0;
        uint64_t used = t[i].cand >= 0 ? m->cand_used[t[i].cand] : 0;
        dracel_tier_check c;
        if (dracel_tierpolicy_check(m->tp, m->led, tenant, t[i].key, t[i].n, size,
                                    size - used, &c) != DRACEL_OK)
            return -1;
        if (!c.allowed && v->allowed)
            memcpy(v->reason, c.reason, sizeof v->reason);
        v->allowed = v->allowed && c.allowed;
        v->borrowing = v->borrowing || c.borrowing;
    }
    (void)s;
    return 0;
}

/* kube-scheduler's score of a node whose answer scored raw, with mx the best raw of the nodes
 * scored: DRA's (normalised to 100 by the best, weight 2) plus the extender's (0..10, weight
 * 1, times 10). */
static long final_score(int raw, int mx, unsigned fa)
{
    long dra = mx > 0 ? (long)raw * 100 / mx : 0;
    long ext = fa ? ((long)raw * 10 + 4 * (long)fa) / (8 * (long)fa) : 10;
    if (ext > 10)
        ext = 10;
    return 2 * dra + 10 * ext;
}

/* ---- Devices in and out of use */

static void mark_pool(sim *m, size_t p)
{
    const ctx *g = m->g;
    for (size_t k = 0; k < g->npn[p]; k++) {
        size_t n = g->pnodes[p][k];
        m->nodekey[n] = node_key(m, n);
        if (!grow((void **)&m->dirty, &m->capdirty, m->ndirty + 1, sizeof *m->dirty)) {
            m->oom = true;
            return;
        }
        m->dirty[m->ndirty++] = (uint32_t)n;
    }
}

static void use_rows(sim *m, const uint32_t *rows, uint32_t n, bool on)
{
    const ctx *g = m->g;
    size_t last = SIZE_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = rows[i];
        if (on)
            m->in_use[r / 64] |= 1ull << (r % 64);
        else
            m->in_use[r / 64] &= ~(1ull << (r % 64));
        size_t p = g->row_pool[r];
        uint64_t h = mix(r + 0x9e3779b97f4a7c15ULL);
        m->pool_hash[p] += on ? h : (uint64_t)0 - h;
        for (size_t c = 0; c < g->ncands; c++)
            if (g->cands[c].bits[r / 64] >> (r % 64) & 1)
                m->cand_used[c] += on ? 1u : (uint32_t)-1;
        if (p != last) {
            if (last != SIZE_MAX)
                mark_pool(m, last);
            last = p;
        }
    }
    if (last != SIZE_MAX)
        mark_pool(m, last);
}

static void held_change(sim *m, size_t tenant, uint32_t tier, int32_t delta)
{
    size_t nt = m->g->rep.ntiers;
    m->held[tenant * nt + tier] += (uint32_t)delta;
    if (!grow((void **)&m->hev, &m->caphev, m->nhev + 1, sizeof *m->hev)) {
        m->oom = true;
        return;
    }
    m->hev[m->nhev++] = (hev){m->now, (uint32_t)tenant, tier, delta};
}

static void ledger(sim *m, const podst *p, int sign)
{
    const sspec *ss = &m->ss[p->spec];
    const spec *sp = &m->g->specs[p->spec];
    for (size_t i = 0; i < ss->ntakes[p->cls]; i++)
        if (dracel_tierusage_add(m->led, p->tenant, ss->takes[p->cls][i].key,
                                 sign * (int64_t)ss->takes[p->cls][i].n) != DRACEL_OK)
            m->oom = true; /* cannot happen: the ledger holds what was added */
    const klass *k = &sp->classes[p->cls];
    for (uint32_t i = 0; i < k->ntcs; i++)
        held_change(m, p->tenant, sp->tiers[k->tcs[i].tier].gname,
                    sign * (int32_t)k->tcs[i].count);
}

/* ---- Departures: a min-heap on (time, pod) */

static bool dep_less(const dep *a, const dep *b)
{
    return a->time < b->time || (a->time == b->time && a->pod < b->pod);
}

static bool heap_push(sim *m, dep d)
{
    if (!grow((void **)&m->heap, &m->capheap, m->nheap + 1, sizeof *m->heap))
        return false;
    size_t i = m->nheap++;
    m->heap[i] = d;
    while (i > 0 && dep_less(&m->heap[i], &m->heap[(i - 1) / 2])) {
        dep t = m->heap[i];
        m->heap[i] = m->heap[(i - 1) / 2];
        m->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return true;
}

static dep heap_pop(sim *m)
{
    dep top = m->heap[0];
    m->heap[0] = m->heap[--m->nheap];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, b = i;
        if (l < m->nheap && dep_less(&m->heap[l], &m->heap[b]))
            b = l;
        if (r < m->nheap && dep_less(&m->heap[r], &m->heap[b]))
            b = r;
        if (b == i)
            break;
        dep t = m->heap[i];
        m->heap[i] = m->heap[b];
        m->heap[b] = t;
        i = b;
    }
    return top;
}

/* ---- Placing a pod */

/* Try to place pod i now: 1 placed, 0 not, -1 out of memory. */
/* ---- Per-pod records (docs/fairness.md, "Records"): one JSON object a line per event, in
 * the order the simulation meets them, each with the time, the pod, its tenant and what
 * happened; placements and departures carry the tenant's usage of every key after them, so
 * that a cap can be checked at every moment from the records alone. */

static cJSON *rec_new(sim *m, size_t pod, const char *event)
{
    const ctx *g = m->g;
    const trace_pod *tp = &g->tr.pods[pod];
    dracel_tenant_info ti;
    const char *tn = dracel_tierpolicy_tenant(m->tp, m->pods[pod].tenant, &ti) == DRACEL_OK
                         ? ti.name
                         : "";
    char name[600];
    snprintf(name, sizeof name, "%s/%s", tp->ns, tp->name);
    cJSON *o = cJSON_CreateObject();
    if (o && (!celc_json_str(o, "policy", dracel_tierpolicy_label(m->tp)) ||
              !celc_json_num(o, "time", m->now) || !celc_json_str(o, "pod", name) ||
              !celc_json_str(o, "tenant", tn) || !celc_json_str(o, "event", event))) {
        cJSON_Delete(o);
        o = NULL;
    }
    if (!o)
        m->oom = true;
    return o;
}

/* The tiers answer class cls of spec s takes, "gpu/h100" or "gpu/h100, nic". */
static bool rec_tiers(sim *m, cJSON *o, size_t s, int cls)
{
    const spec *sp = &m->g->specs[s];
    if (cls < 0)
        return celc_json_null(o, "tier");
    char buf[1024];
    size_t n = 0;
    buf[0] = '\0';
    const klass *k = &sp->classes[cls];
    for (uint32_t i = 0; i < k->ntcs && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "",
                              sp->tiers[k->tcs[i].tier].name);
    return celc_json_str(o, "tier", buf);
}

/* The tenant's usage of every key of the policy, after the event. */
static bool rec_used(sim *m, cJSON *o, size_t tenant)
{
    cJSON *u = cJSON_AddObjectToObject(o, "used");
    if (!u)
        return false;
    for (size_t k = 0; k < dracel_tierpolicy_keys(m->tp); k++)
        if (!celc_json_num(u, dracel_tierpolicy_key(m->tp, k),
                           (double)dracel_tierusage_used(m->led, tenant, k)))
            return false;
    return true;
}

static void rec_put(sim *m, cJSON *o, bool ok)
{
    if (!o)
        return;
    char *s = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    size_t n = s ? strlen(s) : 0;
    if (!s || !grow((void **)&m->rec, &m->caprec, m->nrec + n + 2, 1)) {
        m->oom = true;
        cJSON_free(s);
        return;
    }
    memcpy(m->rec + m->nrec, s, n);
    m->nrec += n;
    m->rec[m->nrec++] = '\n';
    m->rec[m->nrec] = '\0';
    cJSON_free(s);
}

/* No node has an answer class now: no node can allocate the spec. */
static bool ss_none(const sspec *ss)
{
    for (size_t c = 0; c < ss->ncls; c++)
        if (ss->count[c])
            return false;
    return true;
}

static int attempt(sim *m, size_t i)
{
    ctx *g = m->g;
    podst *p = &m->pods[i];
    size_t s = p->spec;
    sspec *ss = &m->ss[s];
    const spec *sp = &g->specs[s];
    m->attempts++;
    m->refused = false;
    if (refresh(m, s) != 0)
        return -1;
    if (ss->nerr || ss_none(ss)) {
        /* Kubernetes' allocator fails the pod's scheduling attempt (an error), or no node
         * can allocate it now */
        if (g->records) {
            cJSON *o = rec_new(m, i, "try");
            rec_put(m, o, o && celc_json_null(o, "tier") &&
                              (!ss->nerr || celc_json_num(o, "errorNodes", ss->nerr)));
        }
        return 0;
    }
    /* The classes present, their verdicts; the best raw score among all and among allowed. */
    int mx_all = -1, mx_ok = -1;
    for (size_t c = 0; c < ss->ncls; c++) {
        if (!ss->count[c])
            continue;
        int raw = sp->classes[c].score;
        if (raw > mx_all)
            mx_all = raw;
    }
    if (mx_all < 0)
        return 0;
    long best_all = -1, best_ok = -1;
    size_t node_all = SIZE_MAX, node_ok = SIZE_MAX;
    int cls_all = -1, cls_ok = -1;
    bool borrow_ok = false, ok_all = false;
    bool enforce = m->tmode[p->tenant] == DRACEL_TIER_ENFORCE;
    /* allowed classes first need their maximum raw score */
    verdict *vs = xcalloc(ss->ncls, sizeof *vs);
    if (!vs)
        return -1;
    for (size_t c = 0; c < ss->ncls; c++) {
        if (!ss->count[c])
            continue;
        if (judge(m, s, p->tenant, ss->takes[c], ss->ntakes[c], &vs[c]) != 0) {
            free(vs);
            return -1;
        }
        if ((vs[c].allowed || !enforce) && sp->classes[c].score > mx_ok)
            mx_ok = sp->classes[c].score;
    }
    for (size_t c = 0; c < ss->ncls; c++) {
        if (!ss->count[c])
            continue;
        size_t node = first_node(m, ss->members[c]);
        long sc = final_score(sp->classes[c].score, mx_all, sp->fa);
        if (sc > best_all || (sc == best_all && node < node_all)) {
            best_all = sc;
            node_all = node;
            cls_all = (int)c;
        }
        if (!vs[c].allowed && enforce)
            continue;
        sc = final_score(sp->classes[c].score, mx_ok, sp->fa);
        if (sc > best_ok || (sc == best_ok && node < node_ok)) {
            best_ok = sc;
            node_ok = node;
            cls_ok = (int)c;
        }
    }
    ok_all = cls_all >= 0 && vs[cls_all].allowed;
    if (cls_ok >= 0)
        borrow_ok = vs[cls_ok].borrowing;
    if (g->records) {
        /* the try: the tier and node kube-scheduler would pick without the policy, the
         * caps' verdict on it, and the node the policy leaves when it differs */
        cJSON *o = rec_new(m, i, "try");
        bool ok = o && rec_tiers(m, o, s, cls_all) &&
                  celc_json_str(o, "node", node_all < g->nnodes ? g->nodes[node_all].name : "") &&
                  cJSON_AddBoolToObject(o, "allowed", ok_all) != NULL &&
                  (ok_all || cls_all < 0 ? true : celc_json_str(o, "reason", vs[cls_all].reason));
        rec_put(m, o, ok);
    }
    free(vs);
    /* over its cap: the node kube-scheduler would pick without the policy is one the caps
     * refuse (enforce: rejected; shadow: counted) */
    if (cls_all >= 0 && !ok_all && m->tmode[p->tenant] != DRACEL_TIER_OFF)
        p->over_cap = m->refused = true;
    if (cls_ok < 0)
        return 0;
    /* place it: the allocation on that node, again, for its devices */
    dracel_run_info info;
    if (allocate_on(m, s, node_ok, &info) != DRACEL_OK)
        return -1;
    int cls = info.outcome == DRACEL_ALLOCATED ? class_of(g, s, sp->run, &info) : -1;
    if (cls != cls_ok) {
        fprintf(stderr, "%s: internal error: node %s answered otherwise than its cached answer\n",
                prog, g->nodes[node_ok].name);
        return -1;
    }
    uint32_t nrows = 0;
    for (size_t c = 0; c < dracel_policy_claims(sp->pl); c++)
        nrows += (uint32_t)dracel_run_results(sp->run, c);
    p->rows = xcalloc(nrows, sizeof *p->rows);
    if (!p->rows)
        return -1;
    p->nrows = 0;
    for (size_t c = 0; c < dracel_policy_claims(sp->pl); c++)
        for (size_t k = 0; k < dracel_run_results(sp->run, c); k++) {
            dracel_device_result res;
            dracel_pool_info pi;
            size_t pool;
            if (dracel_run_result(sp->run, c, k, &res) != DRACEL_OK || res.admin_access ||
                dracel_table_pool_find(g->t, res.driver, res.pool, &pool) != DRACEL_OK ||
                dracel_table_pool(g->t, pool, &pi) != DRACEL_OK)
                continue;
            for (uint32_t r = pi.first_row; r < pi.first_row + pi.rows; r++)
                if (strcmp(g->ids[r].device, res.device) == 0) {
                    p->rows[p->nrows++] = r;
                    break;
                }
        }
    p->cls = cls;
    p->placed_at = m->now;
    p->borrowed = borrow_ok;
    use_rows(m, p->rows, p->nrows, true);
    ledger(m, p, 1);
    m->version++;
    if (g->records) {
        cJSON *o = rec_new(m, i, "place"), *ds = NULL;
        bool ok = o && rec_tiers(m, o, s, cls) &&
                  celc_json_str(o, "node", g->nodes[node_ok].name) &&
                  (ds = cJSON_AddArrayToObject(o, "devices")) != NULL;
        for (uint32_t k = 0; ok && k < p->nrows; k++) {
            const dracel_device_id *id = &g->ids[p->rows[k]];
            char d[800];
            snprintf(d, sizeof d, "%s/%s/%s", id->driver, id->pool, id->device);
            cJSON *x = cJSON_CreateString(d);
            ok = x && cJSON_AddItemToArray(ds, x);
        }
        ok = ok && cJSON_AddBoolToObject(o, "borrowed", borrow_ok) != NULL &&
             celc_json_num(o, "waitSeconds", m->now - g->tr.pods[i].time) &&
             rec_used(m, o, p->tenant);
        rec_put(m, o, ok);
    }
    const trace_pod *tp = &g->tr.pods[i];
    if (tp->run >= 0 && !heap_push(m, (dep){m->now + tp->run, i}))
        return -1;
    return m->oom ? -1 : 1;
}

/* ---- The queue */

static bool group_push(group *q, size_t pod)
{
    if (q->head && q->head == q->n)
        q->head = q->n = q->counted = 0;
    if (!grow((void **)&q->q, &q->cap, q->n + 1, sizeof *q->q))
        return false;
    q->q[q->n++] = pod;
    return true;
}

/* Whether a queued pod of this group would borrow (its tenant is at its cap for its first
 * choice), and how far the tenant is below its weight's share of the first tier. */
static void group_rank(sim *m, size_t s, size_t tenant, int *borrower, double *deficit)
{
    const ctx *g = m->g;
    const sspec *ss = &m->ss[s];
    *borrower = 0;
    for (size_t k = 0; k < ss->nfirst; k++) {
        const take *t = &ss->first[k];
        uint64_t size = t->cand >= 0 ? g->cands[t->cand].size : 0;
        uint64_t cap = dracel_tierpolicy_cap(m->tp, tenant, t->key, size);
        uint64_t used = dracel_tierusage_used(m->led, tenant, t->key);
        if (cap != DRACEL_TIER_NO_CAP && (used > cap || t->n > cap - used))
            *borrower = 1;
    }
    uint64_t wsum = 0;
    for (size_t t = 0; t < m->ntenants; t++) {
        dracel_tenant_info ti;
        if (dracel_tierpolicy_tenant(m->tp, t, &ti) == DRACEL_OK)
            wsum += ti.weight;
    }
    dracel_tenant_info ti;
    double w = dracel_tierpolicy_tenant(m->tp, tenant, &ti) == DRACEL_OK ? ti.weight : 1;
    const stier *first = &g->specs[s].tiers[0];
    double size = first->cand >= 0 ? g->cands[first->cand].size : 0;
    double held = m->held[tenant * g->rep.ntiers + first->gname];
    *deficit = w / (double)(wsum ? wsum : 1) - (size > 0 ? held / size : 0);
}

/* Whether pod a arrived before pod b: by arrival time, then trace order (a trace's lines need
 * not be in time order). */
static bool arrived_before(const ctx *g, size_t a, size_t b)
{
    double ta = g->tr.pods[a].time, tb = g->tr.pods[b].time;
    return ta < tb || (ta == tb && a < b);
}

/* Retry the queue after a departure: until no group can place its next pod. When a tenant is
 * in enforce mode the groups of tenants under their cap come first, then the largest weighted
 * deficit; else (and among equals) the pod that arrived first. */
static int retry(sim *m)
{
    const ctx *g = m->g;
    size_t ng = g->nspecs * m->ntenants;
    for (;;) {
        size_t best = SIZE_MAX;
        int best_b = 0;
        double best_d = 0;
        for (size_t k = 0; k < ng; k++) {
            group *q = &m->groups[k];
            if (q->head == q->n || q->failed_at == m->version + 1)
                continue;
            int b = 0;
            double d = 0;
            if (m->any_enforce)
                group_rank(m, k / m->ntenants, k % m->ntenants, &b, &d);
            bool better = best == SIZE_MAX;
            if (!better) {
                const group *o = &m->groups[best];
                if (m->any_enforce && b != best_b)
                    better = b < best_b;
                else if (m->any_enforce && d != best_d)
                    better = d > best_d;
                else
                    better = arrived_before(g, q->q[q->head], o->q[o->head]);
            }
            if (better) {
                best = k;
                best_b = b;
                best_d = d;
            }
        }
        if (best == SIZE_MAX)
            return 0;
        group *q = &m->groups[best];
        size_t pod = q->q[q->head];
        int r = attempt(m, pod);
        if (r < 0)
            return -1;
        if (r == 0) {
            q->failed_at = m->version + 1;
            /* The group's other pods (same claims, same tenant) are not tried until the state
             * changes: each would get the head's answer, and kube-scheduler would try each. So
             * when the head is over a cap, each is counted over it too, as the extender would. */
            if (m->refused) {
                for (size_t j = q->counted > q->head ? q->counted : q->head + 1; j < q->n; j++)
                    m->pods[q->q[j]].over_cap = true;
                q->counted = q->n;
            }
        } else {
            q->head++;
            m->pods[pod].queued = false;
        }
    }
}

static int depart(sim *m, size_t i)
{
    podst *p = &m->pods[i];
    use_rows(m, p->rows, p->nrows, false);
    ledger(m, p, -1);
    if (m->g->records) {
        cJSON *o = rec_new(m, i, "leave");
        rec_put(m, o, o && rec_used(m, o, p->tenant));
    }
    free(p->rows);
    p->rows = NULL;
    p->nrows = 0;
    m->version++; /* the groups that failed may fit now */
    return m->oom ? -1 : retry(m);
}

/* ---------------------------------------------------------------------------------------------
 * Setting a simulation up, running it, its report
 */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void sim_free(sim *m)
{
    free(m->rec);
    const ctx *g = m->g;
    if (m->ss)
        for (size_t s = 0; s < g->nspecs; s++) {
            sspec *ss = &m->ss[s];
            free(ss->cls);
            free(ss->key);
            for (size_t c = 0; c < ss->ncls; c++) {
                free(ss->members[c]);
                free(ss->takes[c]);
            }
            free(ss->members);
            free(ss->count);
            free(ss->takes);
            free(ss->ntakes);
            free(ss->first);
            free(ss->keycand);
        }
    free(m->ss);
    if (m->pods)
        for (size_t i = 0; i < g->tr.npods; i++)
            free(m->pods[i].rows);
    free(m->pods);
    if (m->groups)
        for (size_t k = 0; k < g->nspecs * m->ntenants; k++)
            free(m->groups[k].q);
    free(m->groups);
    free(m->in_use);
    free(m->pool_hash);
    free(m->nodekey);
    free(m->dirty);
    free(m->cand_used);
    free(m->heap);
    free(m->held);
    free(m->hev);
    free(m->resv);
    free(m->tmode);
    dracel_tierusage_free(m->led);
}

/* The candidate set of policy key k for spec s: a tier named k, else a tier whose class is k. */
static int key_cand(ctx *g, size_t s, const char *k, int *out)
{
    const spec *sp = &g->specs[s];
    *out = -1;
    for (size_t t = 0; t < sp->ntiers; t++)
        if (strcmp(sp->tiers[t].name, k) == 0)
            return cand_get(g, s, t, false, out);
    for (size_t t = 0; t < sp->ntiers; t++)
        if (sp->tiers[t].cls && strcmp(sp->tiers[t].cls, k) == 0)
            return cand_get(g, s, t, true, out);
    return 0;
}

/* A trace pod's labels as the policy reads them (lb: TRACE_MAX_LABELS entries). */
static void pod_labels(const trace_pod *p, dracel_label *lb)
{
    for (size_t k = 0; k < p->nlabels; k++)
        lb[k] = (dracel_label){p->labels[k].key, p->labels[k].value};
}

static int sim_init(sim *m, ctx *g, size_t pi, const dracel_tierpolicy *tp)
{
    memset(m, 0, sizeof *m);
    m->g = g;
    m->pi = pi;
    m->tp = tp;
    m->mode = dracel_tierpolicy_mode(tp);
    m->ntenants = dracel_tierpolicy_tenants(tp) + 1;
    if (dracel_tierusage_new(tp, &m->led) != DRACEL_OK)
        return -1;
    m->tmode = xcalloc(m->ntenants, sizeof *m->tmode);
    if (!m->tmode)
        return -1;
    for (size_t t = 0; t < m->ntenants; t++) {
        dracel_tenant_info ti;
        if (dracel_tierpolicy_tenant(tp, t, &ti) != DRACEL_OK)
            return -1;
        m->tmode[t] = ti.mode;
        m->any_enforce = m->any_enforce || ti.mode == DRACEL_TIER_ENFORCE;
    }
    size_t nk = dracel_tierpolicy_keys(tp);
    m->ss = xcalloc(g->nspecs, sizeof *m->ss);
    if (!m->ss)
        return -1;
    for (size_t s = 0; s < g->nspecs; s++) {
        sspec *ss = &m->ss[s];
        ss->cls = xcalloc(g->nnodes, sizeof *ss->cls);
        ss->key = xcalloc(g->nnodes, sizeof *ss->key);
        ss->keycand = xcalloc(nk, sizeof *ss->keycand);
        if (!ss->cls || !ss->key || !ss->keycand)
            return -1;
        for (size_t n = 0; n < g->nnodes; n++)
            ss->cls[n] = CL_NONE;
        for (size_t k = 0; k < nk; k++)
            if (key_cand(g, s, dracel_tierpolicy_key(tp, k), &ss->keycand[k]) != 0)
                return -1;
        /* the first choice: the first subrequest of every request */
        const spec *sp = &g->specs[s];
        ss->first = xcalloc(2 * sp->ntiers, sizeof *ss->first);
        if (!ss->first)
            return -1;
        for (size_t t = 0; t < sp->ntiers; t++) {
            if (sp->tiers[t].rank != 0)
                continue;
            size_t keys[2];
            size_t n = dracel_tierpolicy_keys_of(tp, sp->tiers[t].name, sp->tiers[t].cls, keys);
            for (size_t j = 0; j < n; j++) {
                size_t x = 0;
                while (x < ss->nfirst && ss->first[x].key != keys[j])
                    x++;
                if (x == ss->nfirst)
                    ss->first[ss->nfirst++] = (take){keys[j], 0, ss->keycand[keys[j]]};
                ss->first[x].n += (uint32_t)sp->tiers[t].count;
            }
        }
    }
    /* the candidate sets are all known now: their counters */
    m->cand_used = xcalloc(g->ncands, sizeof *m->cand_used);
    m->in_use = xcalloc(g->words, sizeof *m->in_use);
    m->pool_hash = xcalloc(g->npools_total, sizeof *m->pool_hash);
    m->nodekey = xcalloc(g->nnodes, sizeof *m->nodekey);
    m->pods = xcalloc(g->tr.npods, sizeof *m->pods);
    m->groups = xcalloc(g->nspecs * m->ntenants, sizeof *m->groups);
    m->held = xcalloc(m->ntenants * (g->rep.ntiers ? g->rep.ntiers : 1), sizeof *m->held);
    if (!m->cand_used || !m->in_use || !m->pool_hash || !m->nodekey || !m->pods || !m->groups ||
        !m->held)
        return -1;
    for (size_t n = 0; n < g->nnodes; n++)
        m->nodekey[n] = node_key(m, n);
    for (size_t i = 0; i < g->tr.npods; i++) {
        const trace_pod *tp2 = &g->tr.pods[i];
        dracel_label lb[TRACE_MAX_LABELS];
        pod_labels(tp2, lb);
        m->pods[i].tenant = dracel_tierpolicy_tenant_of(tp, tp2->ns, lb, tp2->nlabels);
        m->pods[i].spec = g->spec_of[tp2->claim];
        m->pods[i].placed_at = -1;
        m->pods[i].cls = CL_NONE;
    }
    return 0;
}

/* Arrivals in time order, then trace order. */
typedef struct arr {
    double time;
    size_t pod;
} arr;

static int cmp_arr(const void *a, const void *b)
{
    const arr *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->pod < y->pod ? -1 : x->pod > y->pod;
}

static int sim_run(sim *m)
{
    const ctx *g = m->g;
    size_t n = g->tr.npods;
    arr *a = xcalloc(n, sizeof *a);
    if (!a)
        return -1;
    for (size_t i = 0; i < n; i++)
        a[i] = (arr){g->tr.pods[i].time, i};
    qsort(a, n, sizeof *a, cmp_arr);
    size_t next = 0;
    int rc = 0;
    while (rc == 0 && (next < n || m->nheap)) {
        /* departures first at equal times */
        if (m->nheap && (next == n || m->heap[0].time <= a[next].time)) {
            dep d = heap_pop(m);
            m->now = d.time;
            rc = depart(m, d.pod);
            continue;
        }
        m->now = a[next].time;
        size_t i = a[next++].pod;
        if (g->records) {
            cJSON *o = rec_new(m, i, "arrive");
            rec_put(m, o, o != NULL);
        }
        int r = attempt(m, i);
        if (r < 0) {
            rc = -1;
        } else if (r == 0) {
            podst *p = &m->pods[i];
            p->queued = true;
            if (!group_push(&m->groups[p->spec * m->ntenants + p->tenant], i))
                rc = -1;
        }
    }
    free(a);
    /* the pods never placed, at the end */
    for (size_t i = 0; rc == 0 && g->records && i < n; i++)
        if (m->pods[i].placed_at < 0) {
            cJSON *o = rec_new(m, i, "pending");
            rec_put(m, o, o != NULL);
        }
    return rc == 0 && m->oom ? -1 : rc;
}

/* A default tenant's pod: why, in the trace's strings. */
typedef struct dwhy {
    const char *key, *value; /* a label's key and value; key NULL: the namespace */
} dwhy;

static int cmp_dwhy(const void *a, const void *b)
{
    const dwhy *x = a, *y = b;
    if (!x->key != !y->key)
        return x->key ? 1 : -1;
    int c = x->key ? strcmp(x->key, y->key) : 0;
    return c ? c : strcmp(x->value, y->value);
}

static int cmp_dflt_pods(const void *a, const void *b)
{
    const rep_default *x = a, *y = b;
    if (x->pods != y->pods)
        return x->pods > y->pods ? -1 : 1;
    return cmp_dwhy(&(dwhy){x->key, x->value}, &(dwhy){y->key, y->value});
}

/* Why the default tenant's pods are its (docs/fairness.md): one entry per namespace no tenant
 * names and per mistyped tenant label, with its pods, most first. */
static int sim_defaults(sim *m, rep_policy *rp)
{
    ctx *g = m->g;
    const dracel_tierpolicy *tp = m->tp;
    size_t dt = dracel_tierpolicy_tenants(tp), n = 0;
    dracel_tenant_info ti;
    rp->dflt_name = dracel_tierpolicy_tenant(tp, dt, &ti) == DRACEL_OK ? ti.name : "default";
    for (size_t i = 0; i < g->tr.npods; i++)
        n += m->pods[i].tenant == dt;
    if (!n)
        return 0;
    dwhy *v = xcalloc(n, sizeof *v);
    rep_default *d = xcalloc(n, sizeof *d);
    if (!v || !d) {
        free(v);
        free(d);
        return -1;
    }
    n = 0;
    for (size_t i = 0; i < g->tr.npods; i++) {
        if (m->pods[i].tenant != dt)
            continue;
        const trace_pod *tp2 = &g->tr.pods[i];
        dracel_label lb[TRACE_MAX_LABELS];
        pod_labels(tp2, lb);
        size_t at = 0;
        if (dracel_tierpolicy_default_why(tp, tp2->ns, lb, tp2->nlabels, &at) ==
            DRACEL_TIER_DEFAULT_LABEL)
            v[n++] = (dwhy){lb[at].key, lb[at].value};
        else
            v[n++] = (dwhy){NULL, tp2->ns};
    }
    /* one entry per distinct reason, its strings copied (the report outlives the trace) */
    qsort(v, n, sizeof *v, cmp_dwhy);
    size_t k = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && cmp_dwhy(&v[i - 1], &v[i]) == 0) {
            d[k - 1].pods++;
            continue;
        }
        d[k].key = v[i].key ? strdup(v[i].key) : NULL;
        d[k].value = strdup(v[i].value);
        d[k].pods = 1;
        if ((v[i].key && !d[k].key) || !d[k].value)
            rc = -1;
        k++;
    }
    free(v);
    if (rc == 0) /* most pods first, then namespaces before labels, by name */
        qsort(d, k, sizeof *d, cmp_dflt_pods);
    rp->dflt = d;
    rp->ndflt = k;
    return rc;
}

/* The report of a finished simulation. */
static int sim_report(sim *m, rep_policy *rp)
{
    ctx *g = m->g;
    const dracel_tierpolicy *tp = m->tp;
    size_t nt = g->rep.ntiers;
    memset(rp, 0, sizeof *rp);
    rp->file = dracel_tierpolicy_file(tp);
    rp->version = dracel_tierpolicy_version(tp);
    rp->label = dracel_tierpolicy_label(tp);
    rp->name = dracel_tierpolicy_name(tp);
    rp->mode = dracel_tier_mode_name(m->mode);
    snprintf(rp->hash, sizeof rp->hash, "%016llx",
             (unsigned long long)dracel_tierpolicy_hash(tp));
    rp->end = m->now;
    rp->records = m->rec; /* the report's now */
    rp->nrecords = m->nrec;
    m->rec = NULL;
    m->nrec = m->caprec = 0;
    rp->attempts = m->attempts;
    rp->allocations = m->allocations;
    rp->memo_hits = m->memo_hits;
    if (sim_defaults(m, rp) != 0)
        return -1;
    rp->reserve = xcalloc(nt ? nt : 1, sizeof *rp->reserve);
    if (!rp->reserve)
        return -1;
    for (size_t k = 0; k < nt; k++) {
        size_t key;
        if (dracel_tierpolicy_key_find(tp, g->rep.tiers[k].name, &key) == DRACEL_OK)
            rp->reserve[k] = dracel_tierpolicy_reserve(tp, key, g->rep.tiers[k].devices);
    }
    rp->tenants = xcalloc(m->ntenants, sizeof *rp->tenants);
    size_t *slot = xcalloc(m->ntenants, sizeof *slot);
    if (!rp->tenants || !slot) {
        free(slot);
        return -1;
    }
    /* which tenants have pods */
    size_t *pods = xcalloc(m->ntenants, sizeof *pods);
    if (!pods) {
        free(slot);
        return -1;
    }
    for (size_t i = 0; i < g->tr.npods; i++)
        pods[m->pods[i].tenant]++;
    for (size_t t = 0; t < m->ntenants; t++) {
        slot[t] = SIZE_MAX;
        if (!pods[t])
            continue;
        dracel_tenant_info ti;
        if (dracel_tierpolicy_tenant(tp, t, &ti) != DRACEL_OK)
            continue;
        rep_tenant *rt = &rp->tenants[rp->ntenants];
        slot[t] = rp->ntenants++;
        rt->name = ti.name;
        rt->weight = ti.weight;
        rt->mode = dracel_tier_mode_name(ti.mode);
        rt->waits = xcalloc(pods[t], sizeof *rt->waits);
        rt->fallback = xcalloc(nt, sizeof *rt->fallback);
        rt->held = xcalloc(nt, sizeof *rt->held);
        rt->series = xcalloc(nt * REPORT_BUCKETS, sizeof *rt->series);
        rt->cap = xcalloc(nt, sizeof *rt->cap);
        for (size_t k = 0; rt->cap && k < nt; k++) {
            size_t key;
            rt->cap[k] = dracel_tierpolicy_key_find(tp, g->rep.tiers[k].name, &key) == DRACEL_OK
                             ? dracel_tierpolicy_cap(tp, t, key, g->rep.tiers[k].devices)
                             : DRACEL_TIER_NO_CAP;
        }
        if (!rt->waits || !rt->fallback || !rt->held || !rt->series || !rt->cap) {
            free(pods);
            free(slot);
            return -1;
        }
    }
    free(pods);
    for (size_t i = 0; i < g->tr.npods; i++) {
        const podst *p = &m->pods[i];
        rep_tenant *rt = &rp->tenants[slot[p->tenant]];
        const spec *sp = &g->specs[p->spec];
        rt->pods++;
        rp->pods++;
        rt->premium_demand = rt->premium_demand || sp->fa;
        rt->over_cap += p->over_cap;
        rp->over_cap += p->over_cap;
        if (p->placed_at < 0) {
            rt->unschedulable++;
            rp->unschedulable++;
            continue;
        }
        rt->placed++;
        rp->placed++;
        rt->borrowed += p->borrowed;
        rp->borrowed += p->borrowed;
        rt->waits[rt->nwaits++] = p->placed_at - g->tr.pods[i].time;
        const klass *k = &sp->classes[p->cls];
        rt->first += k->first;
        for (uint32_t j = 0; j < k->ntcs; j++) {
            const stier *ti = &sp->tiers[k->tcs[j].tier];
            if (ti->rank > 0)
                rt->fallback[ti->gname]++;
        }
    }
    for (size_t r = 0; r < rp->ntenants; r++) {
        rep_tenant *rt = &rp->tenants[r];
        if (!rt->nwaits)
            continue;
        qsort(rt->waits, rt->nwaits, sizeof *rt->waits, cmp_double);
        double sum = 0;
        for (size_t i = 0; i < rt->nwaits; i++)
            sum += rt->waits[i];
        rt->wait_mean = sum / (double)rt->nwaits;
        /* the nearest rank: the smallest wait at or above 95% of the pods */
        size_t rank = (rt->nwaits * 95 + 99) / 100;
        rt->wait_p95 = rt->waits[rank ? rank - 1 : 0];
        rt->wait_max = rt->waits[rt->nwaits - 1];
    }
    /* devices held over time: device-seconds, and averages per bucket */
    double end = rp->end > 0 ? rp->end : 1;
    double bw = end / REPORT_BUCKETS;
    uint32_t *cur = xcalloc(m->ntenants * (nt ? nt : 1), sizeof *cur);
    double *last = xcalloc(m->ntenants * (nt ? nt : 1), sizeof *last);
    if (!cur || !last) {
        free(cur);
        free(last);
        free(slot);
        return -1;
    }
    for (size_t e = 0; e <= m->nhev; e++) {
        /* the last pass closes every series at the end */
        size_t from = e < m->nhev ? e : 0, to = e < m->nhev ? e + 1 : m->ntenants * nt;
        for (size_t x = from; x < to; x++) {
            size_t t, tier;
            double at;
            if (e < m->nhev) {
                t = m->hev[x].tenant;
                tier = m->hev[x].tier;
                at = m->hev[x].time;
            } else {
                t = x / (nt ? nt : 1);
                tier = x % (nt ? nt : 1);
                at = end;
            }
            size_t c = t * nt + tier;
            if (slot[t] == SIZE_MAX)
                continue;
            rep_tenant *rt = &rp->tenants[slot[t]];
            double a0 = last[c], v = cur[c];
            if (v > 0 && at > a0) {
                rt->held[tier] += v * (at - a0);
                /* spread over the buckets [a0, at) covers */
                size_t b0 = (size_t)(a0 / bw), b1 = (size_t)(at / bw);
                for (size_t b = b0; b <= b1 && b < REPORT_BUCKETS; b++) {
                    double lo = b * bw > a0 ? b * bw : a0, hi = (b + 1) * bw < at ? (b + 1) * bw : at;
                    if (hi > lo)
                        rt->series[tier * REPORT_BUCKETS + b] += v * (hi - lo) / bw;
                }
            }
            last[c] = at;
            if (e < m->nhev)
                cur[c] += (uint32_t)m->hev[x].delta;
        }
    }
    free(cur);
    free(last);
    free(slot);
    /* Jain's index over the premium shares of the tenants that asked for a premium tier,
     * each share divided by the tenant's weight */
    double total = 0, sx = 0, sxx = 0;
    size_t nd = 0;
    for (size_t r = 0; r < rp->ntenants; r++)
        for (size_t k = 0; k < nt; k++)
            if (g->rep.tiers[k].premium)
                total += rp->tenants[r].held[k];
    for (size_t r = 0; r < rp->ntenants; r++) {
        const rep_tenant *rt = &rp->tenants[r];
        if (!rt->premium_demand)
            continue;
        double h = 0;
        for (size_t k = 0; k < nt; k++)
            if (g->rep.tiers[k].premium)
                h += rt->held[k];
        double x = total > 0 ? h / total / rt->weight : 0;
        sx += x;
        sxx += x * x;
        nd++;
    }
    rp->jain = nd && sxx > 0 ? sx * sx / ((double)nd * sxx) : 1;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Loading
 */

static int cmp_node(const void *a, const void *b)
{
    return strcmp(((const dracel_node *)a)->name, ((const dracel_node *)b)->name);
}

/* The nodes, their pools and the pools' nodes; the rows' IDs and pools. */
static int load_nodes(ctx *g)
{
    size_t nobj = g->nodeobjs ? dracel_objects_count(g->nodeobjs, DRACEL_OBJ_NODE) : 0;
    g->nnodes = nobj ? nobj : dracel_table_nodes(g->t);
    g->nodes = xcalloc(g->nnodes, sizeof *g->nodes);
    if (!g->nodes)
        return -1;
    for (size_t i = 0; i < g->nnodes; i++) {
        if (nobj) {
            if (dracel_objects_node(g->nodeobjs, i, &g->nodes[i]) != DRACEL_OK)
                return -1;
        } else {
            g->nodes[i].name = dracel_table_node(g->t, i);
        }
    }
    qsort(g->nodes, g->nnodes, sizeof *g->nodes, cmp_node);
    g->nwords = (g->nnodes + 63) / 64;
    g->rows = dracel_table_rows(g->t);
    g->words = ((size_t)g->rows + 63) / 64;
    g->npools_total = dracel_table_pools(g->t);
    g->npools = xcalloc(g->nnodes, sizeof *g->npools);
    g->nnp = xcalloc(g->nnodes, sizeof *g->nnp);
    g->pnodes = xcalloc(g->npools_total, sizeof *g->pnodes);
    g->npn = xcalloc(g->npools_total, sizeof *g->npn);
    g->pool_version = xcalloc(g->npools_total, sizeof *g->pool_version);
    g->row_pool = xcalloc(g->rows, sizeof *g->row_pool);
    g->ids = xcalloc(g->rows, sizeof *g->ids);
    if (!g->npools || !g->nnp || !g->pnodes || !g->npn || !g->pool_version || !g->row_pool ||
        !g->ids)
        return -1;
    for (size_t p = 0; p < g->npools_total; p++) {
        dracel_pool_info pi;
        if (dracel_table_pool(g->t, p, &pi) != DRACEL_OK)
            return -1;
        g->pool_version[p] = pi.version;
        for (uint32_t r = pi.first_row; r < pi.first_row + pi.rows; r++) {
            dracel_device_info di;
            if (dracel_table_device(g->t, r, &di) != DRACEL_OK)
                return -1;
            g->row_pool[r] = (uint32_t)p;
            g->ids[r] = (dracel_device_id){di.driver, di.pool, di.device};
        }
    }
    size_t *cnt = xcalloc(g->npools_total, sizeof *cnt);
    if (!cnt)
        return -1;
    for (size_t n = 0; n < g->nnodes; n++) {
        size_t k = dracel_table_node_pools(g->t, &g->nodes[n], NULL, 0);
        g->npools[n] = xcalloc(k, sizeof **g->npools);
        if (!g->npools[n]) {
            free(cnt);
            return -1;
        }
        g->nnp[n] = dracel_table_node_pools(g->t, &g->nodes[n], g->npools[n], k);
        for (size_t j = 0; j < g->nnp[n]; j++)
            cnt[g->npools[n][j]]++;
    }
    for (size_t p = 0; p < g->npools_total; p++) {
        g->pnodes[p] = xcalloc(cnt[p], sizeof **g->pnodes);
        if (!g->pnodes[p]) {
            free(cnt);
            return -1;
        }
    }
    free(cnt);
    for (size_t n = 0; n < g->nnodes; n++)
        for (size_t j = 0; j < g->nnp[n]; j++) {
            size_t p = g->npools[n][j];
            g->pnodes[p][g->npn[p]++] = n;
        }
    return 0;
}

/* A name of the report's tiers (added when new); SIZE_MAX on ENOMEM. */
static size_t tier_name(ctx *g, const char *name, uint32_t rank, bool fa, uint32_t devices)
{
    report *r = &g->rep;
    size_t i = 0;
    while (i < r->ntiers && strcmp(r->tiers[i].name, name) != 0)
        i++;
    if (i == r->ntiers) {
        rep_tier *t = realloc(r->tiers, (r->ntiers + 1) * sizeof *t);
        if (!t)
            return SIZE_MAX;
        r->tiers = t;
        memset(&t[i], 0, sizeof t[i]);
        if (!(t[i].name = strdup(name)))
            return SIZE_MAX;
        t[i].devices = devices;
        t[i].rank = (int)rank;
        r->ntiers++;
    }
    rep_tier *t = &r->tiers[i];
    if ((int)rank < t->rank)
        t->rank = (int)rank;
    t->premium = t->premium || (fa && rank == 0);
    t->fallback = t->fallback || rank > 0;
    return i;
}

/* Each distinct claim of the trace, compiled against the fleet. */
static int load_specs(ctx *g, bool json, const char *trace_name)
{
    g->specs = xcalloc(g->tr.nclaims, sizeof *g->specs);
    g->spec_of = xcalloc(g->tr.nclaims, sizeof *g->spec_of);
    if (!g->specs || !g->spec_of)
        return celc_oom();
    char err[2048];
    for (size_t c = 0; c < g->tr.nclaims; c++) {
        const trace_claim *src = &g->tr.claims[c];
        dracel_objects *o = NULL;
        if (dracel_objects_new(&g->cfg, &o) != DRACEL_OK)
            return celc_oom();
        err[0] = '\0';
        dracel_status st = src->path
                               ? dracel_objects_load(o, src->path, DRACEL_OBJ_CLAIM, err, sizeof err)
                               : dracel_objects_load_buffer(o, src->name, src->text,
                                                            strlen(src->text), DRACEL_OBJ_CLAIM,
                                                            err, sizeof err);
        if (st == DRACEL_OK && dracel_objects_count(o, DRACEL_OBJ_CLAIM) == 0) {
            st = DRACEL_EINPUT;
            snprintf(err, sizeof err, "%s: no ResourceClaim or ResourceClaimTemplate",
                     src->name);
        }
        if (st != DRACEL_OK) {
            dracel_objects_free(o);
            char msg[2300];
            /* an inline object is one line: its messages' line 1 is the trace's line */
            size_t nl = strlen(src->name);
            if (!src->path && strncmp(err, src->name, nl) == 0 && strncmp(err + nl, ":1:", 3) == 0)
                snprintf(msg, sizeof msg, "%s%s", src->name, err + nl + 2);
            else if (src->path)
                snprintf(msg, sizeof msg, "%s:%u: claim: %s", trace_name, (unsigned)src->line,
                         err);
            else
                snprintf(msg, sizeof msg, "%s", err);
            if (st == DRACEL_ENOMEM)
                return celc_oom();
            if (st == DRACEL_EINPUT)
                return celc_rejected(json, trace_name, msg);
            fprintf(stderr, "%s: %s\n", prog, msg);
            return EXIT_USAGE;
        }
        for (size_t i = 0; i < dracel_objects_notes(o); i++)
            fprintf(stderr, "%s: note: %s\n", prog, dracel_objects_note(o, i));
        spec *sp = &g->specs[c];
        sp->name = src->name;
        st = dracel_policy_new(&g->cfg, g->t, g->classes, o, NULL, 0, &sp->pl, err, sizeof err);
        dracel_objects_free(o);
        if (st == DRACEL_OK)
            st = dracel_run_new(sp->pl, &sp->run);
        if (st == DRACEL_ENOMEM)
            return celc_oom();
        if (st != DRACEL_OK) {
            fprintf(stderr, "%s: %s\n", prog, err[0] ? err : dracel_status_string(st));
            return EXIT_USAGE;
        }
        g->spec_of[c] = c;
        g->nspecs = c + 1;
        sp->ntiers = dracel_policy_tiers(sp->pl);
        sp->tiers = xcalloc(sp->ntiers, sizeof *sp->tiers);
        if (!sp->tiers)
            return celc_oom();
        size_t last_c = SIZE_MAX, last_r = SIZE_MAX;
        for (size_t t = 0; t < sp->ntiers; t++) {
            dracel_tier_info ti;
            if (dracel_policy_tier(sp->pl, t, &ti) != DRACEL_OK)
                return celc_oom();
            stier *st2 = &sp->tiers[t];
            st2->name = strdup(ti.name);
            st2->cls = ti.device_class ? strdup(ti.device_class) : NULL;
            if (!st2->name || (ti.device_class && !st2->cls))
                return celc_oom();
            st2->rank = ti.rank;
            st2->first_available = ti.first_available;
            st2->count = ti.mode && strcmp(ti.mode, "ExactCount") == 0 ? ti.count : 1;
            st2->claim = ti.claim;
            st2->request = ti.request;
            if (ti.first_available && (ti.claim != last_c || ti.request != last_r))
                sp->fa++;
            last_c = ti.claim;
            last_r = ti.request;
            if (cand_get(g, c, t, false, &st2->cand) != 0)
                return celc_oom();
            size_t gn = tier_name(g, ti.name, ti.rank, ti.first_available,
                                  g->cands[st2->cand].size);
            if (gn == SIZE_MAX)
                return celc_oom();
            st2->gname = (uint32_t)gn;
        }
        /* kube-scheduler refuses such a claim with the gate off: say so, once a claim */
        if (sp->fa && !(g->features & DRACEL_FEATURE_PRIORITIZED_LIST))
            fprintf(stderr,
                    "%s: note: %s: firstAvailable needs the DRAPrioritizedList feature, which "
                    "--features or --feature-gates leaves out: its pods are unschedulable\n",
                    prog, sp->name);
    }
    return -1;
}

static void ctx_free(ctx *g)
{
    for (size_t s = 0; s < g->nspecs; s++) {
        spec *sp = &g->specs[s];
        dracel_run_free(sp->run);
        dracel_policy_free(sp->pl);
        for (size_t t = 0; sp->tiers && t < sp->ntiers; t++) {
            free(sp->tiers[t].name);
            free(sp->tiers[t].cls);
        }
        free(sp->tiers);
        for (size_t k = 0; k < sp->nclasses; k++)
            free(sp->classes[k].tcs);
        free(sp->classes);
    }
    free(g->specs);
    free(g->spec_of);
    for (size_t i = 0; i < g->ncands; i++)
        free(g->cands[i].bits);
    free(g->cands);
    free(g->memo);
    for (size_t n = 0; g->npools && n < g->nnodes; n++)
        free(g->npools[n]);
    free(g->npools);
    free(g->nnp);
    for (size_t p = 0; g->pnodes && p < g->npools_total; p++)
        free(g->pnodes[p]);
    free(g->pnodes);
    free(g->npn);
    free(g->pool_version);
    free(g->row_pool);
    free(g->ids);
    free(g->nodes);
    report_free(&g->rep);
    trace_free(&g->tr);
    dracel_table_free(g->t);
    dracel_objects_free(g->classes);
    dracel_objects_free(g->nodeobjs);
}

static int parse_count(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || v == 0 || v > 100000000ull || s[0] == '-')
        return -1;
    *out = (size_t)v;
    return 0;
}

int celc_replay(int argc, char **argv)
{
    const char *fleet = NULL, *classes = NULL, *nodes = NULL, *features = NULL, *path = NULL;
    const char *version = NULL, *gates = NULL;
    const char *pols[2] = {NULL, NULL};
    size_t npols = 0;
    int format = 0; /* 0 text, 1 json, 2 html, 3 jsonl */
    bool stats = false, records = false;
    trace_limits lim = {0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return celc_help(usage_replay);
        if (strcmp(a, "--stats") == 0) {
            stats = true;
            continue;
        }
        if (strcmp(a, "--records") == 0) {
            records = true;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            static const char *const opts[] = {"--fleet", "--classes", "--nodes", "--policy",
                                               "--features", "--format", "--max-pods",
                                               "--max-claims", "--kubernetes-version",
                                               "--feature-gates"};
            size_t k = 0;
            while (k < sizeof opts / sizeof *opts && strcmp(opts[k], a) != 0)
                k++;
            if (k == sizeof opts / sizeof *opts)
                return usage_error(usage_replay, "unknown option '%s'", a);
            if (i + 1 >= argc)
                return usage_error(usage_replay, "%s needs a value", a);
            const char *v = argv[++i];
            switch (k) {
            case 0: fleet = v; break;
            case 1: classes = v; break;
            case 2: nodes = v; break;
            case 3:
                if (npols == 2)
                    return usage_error(usage_replay, "%s", "at most two --policy");
                pols[npols++] = v;
                break;
            case 4: features = v; break;
            case 5:
                if (strcmp(v, "text") == 0)
                    format = 0;
                else if (strcmp(v, "json") == 0)
                    format = 1;
                else if (strcmp(v, "html") == 0)
                    format = 2;
                else if (strcmp(v, "jsonl") == 0)
                    format = 3;
                else
                    return usage_error(usage_replay, "unknown format '%s'", v);
                break;
            case 6:
            case 7:
                if (parse_count(v, k == 6 ? &lim.max_pods : &lim.max_claims) != 0)
                    return usage_error(usage_replay, "%s needs a count from 1 to 100000000, "
                                                     "not '%s'", a, v);
                break;
            case 8: version = v; break;
            case 9: gates = v; break;
            }
            continue;
        }
        if (path)
            return usage_error(usage_replay, "%s", "give one TRACE");
        path = a;
    }
    if (!fleet || !classes || !npols || !path)
        return usage_error(usage_replay, "%s",
                           "replay needs --fleet, --classes, --policy and a TRACE");
    ctx g;
    memset(&g, 0, sizeof g);
    dracel_config_init(&g.cfg);
    g.release = DRACEL_KUBERNETES_NEWEST;
    if (version && !(g.release = dracel_kubernetes_parse(version, strlen(version))))
        return usage_error(usage_replay, "unknown Kubernetes release '%s' (known: 1.34, 1.35, "
                           "1.36, 1.37)", version);
    g.features = dracel_kubernetes_defaults(g.release);
    if (celc_release_and_gates(NULL, features, gates, &g.release, &g.features) < 0)
        return usage_error(usage_replay, "%s", features && !gates ? "bad --features"
                                                                 : "bad feature gates");
    bool json = format == 1 || format == 3;
    g.records = format == 3 || (format == 1 && records);
    double t0 = celc_now_ms();
    char err[2048];
    err[0] = '\0';
    int rc = -1;
    /* the trace first: its syntax, then what it names */
    size_t len;
    int oom;
    char *buf = celc_read_file(path, CELC_MAX_FILE_BYTES, &len, &oom);
    if (!buf)
        return EXIT_USAGE;
    char *dir = strdup(path);
    if (!dir) {
        free(buf);
        return celc_oom();
    }
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    int tr = trace_parse(path, dir, buf, len, &lim, &g.tr, err, sizeof err);
    free(buf);
    free(dir);
    if (tr < 0)
        rc = celc_oom();
    else if (tr > 0)
        rc = celc_rejected(json, path, err);
    dracel_tierpolicy *tp[2] = {NULL, NULL};
    for (size_t k = 0; rc < 0 && k < npols; k++)
        rc = celc_load_status(dracel_tierpolicy_load(&g.cfg, pols[k], &tp[k], err, sizeof err), json,
                         pols[k], err);
    if (rc < 0 && dracel_objects_new(&g.cfg, &g.classes) != DRACEL_OK)
        rc = celc_oom();
    if (rc < 0)
        rc = celc_load_status(dracel_objects_load(g.classes, classes, DRACEL_OBJ_CLASS, err,
                                             sizeof err), json, classes, err);
    if (rc < 0)
        rc = celc_load_status(dracel_table_load(&g.cfg, fleet, &g.t, err, sizeof err), json, fleet,
                         err);
    if (rc < 0 && nodes) {
        if (dracel_objects_new(&g.cfg, &g.nodeobjs) != DRACEL_OK)
            rc = celc_oom();
        else
            rc = celc_load_status(dracel_objects_load(g.nodeobjs, nodes, DRACEL_OBJ_NODE, err,
                                                 sizeof err), json, nodes, err);
    }
    if (rc < 0) {
        for (size_t i = 0; i < dracel_objects_notes(g.classes); i++)
            fprintf(stderr, "%s: note: %s\n", prog, dracel_objects_note(g.classes, i));
        for (size_t i = 0; i < dracel_table_notes(g.t); i++)
            fprintf(stderr, "%s: note: %s\n", prog, dracel_table_note(g.t, i));
        for (size_t i = 0; g.nodeobjs && i < dracel_objects_notes(g.nodeobjs); i++)
            fprintf(stderr, "%s: note: %s\n", prog, dracel_objects_note(g.nodeobjs, i));
    }
    if (rc < 0 && load_nodes(&g) != 0)
        rc = celc_oom();
    if (rc < 0)
        rc = load_specs(&g, json, path);
    g.memo_cap = 1u << 18;
    if (rc < 0 && !(g.memo = xcalloc(g.memo_cap, sizeof *g.memo)))
        rc = celc_oom();
    double t1 = celc_now_ms();
    report *r = &g.rep;
    r->trace = path;
    r->fleet = fleet;
    r->classes = classes;
    r->pods = g.tr.npods;
    r->nodes = g.nnodes;
    r->devices = g.rows;
    r->claims = g.nspecs;
    double tsim[2] = {0, 0};
    for (size_t k = 0; rc < 0 && k < npols; k++) {
        sim m;
        double a = celc_now_ms();
        if (sim_init(&m, &g, k, tp[k]) != 0 || sim_run(&m) != 0 ||
            sim_report(&m, &r->pol[k]) != 0)
            rc = celc_oom();
        else
            r->npol = k + 1;
        tsim[k] = celc_now_ms() - a;
        sim_free(&m);
    }
    if (rc < 0) {
        celc_out o;
        celc_out_open(&o);
        bool ok = o.f && (format == 0   ? report_text(o.f, r)
                          : format == 1 ? report_json(o.f, r)
                          : format == 3 ? report_jsonl(o.f, r)
                                        : report_html(o.f, r));
        if (!ok)
            celc_out_discard(&o);
        rc = ok ? celc_out_close(&o, EXIT_OK) : celc_oom();
        if (stats) {
            fprintf(stderr, "{\"pods\":%zu,\"nodes\":%zu,\"devices\":%u,\"claims\":%zu,"
                            "\"load_ms\":%.1f", g.tr.npods, g.nnodes, g.rows, g.nspecs, t1 - t0);
            for (size_t k = 0; k < r->npol; k++)
                fprintf(stderr, ",\"policy%zu\":{\"replay_ms\":%.1f,\"attempts\":%llu,"
                                "\"allocations\":%llu,\"memo_hits\":%llu}", k + 1, tsim[k],
                        (unsigned long long)r->pol[k].attempts,
                        (unsigned long long)r->pol[k].allocations,
                        (unsigned long long)r->pol[k].memo_hits);
            struct timespec cpu;
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
            fprintf(stderr, ",\"total_ms\":%.1f,\"cpu_ms\":%.1f}\n", celc_now_ms() - t0,
                    cpu.tv_sec * 1e3 + cpu.tv_nsec / 1e6);
        }
    }
    ctx_free(&g);
    dracel_tierpolicy_free(tp[0]);
    dracel_tierpolicy_free(tp[1]);
    return rc;
}
