/* args.c: reading ExtenderArgs and Pods (src/extender/args.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "clock.h"
#include "hash.h"
#include "jsonspan.h"

/* ---- A bump allocator for everything of one request's args. */

typedef struct block {
    struct block *next;
    size_t used, cap;
    max_align_t data[];
} block;

typedef struct mem {
    block *head;
    size_t total, cap;           /* bytes taken from malloc; the most allowed */
    double deadline;             /* 0: none */
    unsigned ticks;              /* allocations since the clock was last read */
    bool over, late;             /* the cap or the deadline stopped an allocation */
} mem;

/* NULL when malloc fails, when the request would pass its memory cap (m->over) or when its
 * deadline has passed (m->late, looked at every 256 allocations: reading allocates at least
 * once for every name it keeps, so no long stretch goes unchecked). */
static void *mem_alloc(mem *m, size_t n)
{
    if (m->deadline && ++m->ticks >= 256) {
        m->ticks = 0;
        if (ext_now() > m->deadline) {
            m->late = true;
            return NULL;
        }
    }
    if (n > SIZE_MAX / 2)
        return NULL;
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    block *b = m->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 16384 ? n : 16384;
        if (m->cap && m->total + sizeof *b + cap > m->cap) { /* total never passes cap */
            m->over = true;
            return NULL;
        }
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = m->head;
        b->used = 0;
        b->cap = cap;
        m->head = b;
        m->total += sizeof *b + cap;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

static void mem_free(mem *m)
{
    for (block *b = m->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    m->head = NULL;
    m->total = 0;
}

/* ---- Reading, on the span scanner of jsonspan.h: no tree, no cJSON (whose parser writes a
 * process-wide error position, which request threads and the library's loaders would race
 * on), and the Node objects' exact text at hand for the answer. */

typedef struct rd {
    mem *m;
    const char *s;               /* the body */
    char *err;
    size_t errcap;
    bool failed, oom;
} rd;

static void fail(rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(rd *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errcap, fmt, ap);
    va_end(ap);
}

static bool present(const rd *r, js_span v)
{
    return v.len && !(v.len == 4 && memcmp(r->s + v.off, "null", 4) == 0);
}

/* Where a value is, for messages: PRE, then "[I]" unless I is NO_INDEX, then POST and KEY.
 * Spelled only when a message is written (a request names thousands of nodes). */
#define NO_INDEX SIZE_MAX
typedef struct where {
    const char *pre;
    size_t i;
    const char *post, *key;
} where;

static where at(const char *path)
{
    return (where){path, NO_INDEX, "", ""};
}

static where at_i(const char *pre, size_t i, const char *post)
{
    return (where){pre, i, post, ""};
}

static const char *spell(const where *w, char *buf, size_t cap)
{
    if (w->i == NO_INDEX)
        snprintf(buf, cap, "%s%s%s", w->pre, w->post, w->key);
    else
        snprintf(buf, cap, "%s[%zu]%s%s", w->pre, w->i, w->post, w->key);
    return buf;
}

/* fail() with "PATH: " before the message. */
static void fail_at(rd *r, where w, const char *msg)
{
    char path[320];
    fail(r, "%s: %s", spell(&w, path, sizeof path), msg);
}

/* The members of an object (absent or null: all absent), matched as Go matches fields. The
 * body was validated as a whole (valid()): the walks below take the fast path. */
static bool object(rd *r, js_span v, where w, const char *const *keys, size_t n, js_span *vals)
{
    for (size_t i = 0; i < n; i++)
        vals[i] = (js_span){0, 0};
    if (!present(r, v))
        return true;
    if (!js_is_object(r->s, v) || js_members_fold_valid(r->s, v, keys, n, vals) != 0) {
        fail_at(r, w, "expected an object");
        return false;
    }
    return true;
}

/* A decoded string (absent or null: NULL). */
static const char *string(rd *r, js_span v, where w)
{
    if (!present(r, v))
        return NULL;
    char *out = js_is_string(r->s, v) ? mem_alloc(r->m, v.len + 1) : NULL;
    size_t n;
    if (js_is_string(r->s, v) && !out) {
        r->oom = true;
        return NULL;
    }
    if (!out || js_string(r->s, v, out, &n) != 0) {
        fail_at(r, w, "expected a string");
        return NULL;
    }
    return out;
}

static bool array(rd *r, js_span v, where w, js_iter *it)
{
    if (!js_is_array(r->s, v) || js_array_begin_valid(r->s, v, it) != 0) {
        fail_at(r, w, "expected an array");
        return false;
    }
    return true;
}

/* The elements of an array, counted (for sizing). */
static size_t count(rd *r, js_span v)
{
    return js_array_count_valid(r->s, v);
}

static void read_labels(rd *r, js_span labels, const char *pre, size_t item,
                        dracel_label **out, size_t *nout);

/* ---- Keys seen so far, found in O(1): an open-addressing index over entry numbers, in the
 * arena. A duplicate key was a scan of the entries before it: 40,000 labels took 2 s. */

typedef struct kindex {
    uint32_t *slot;              /* entry + 1; 0: empty */
    size_t mask;
} kindex;

static bool kindex_init(rd *r, kindex *x, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    x->mask = cap - 1;
    x->slot = mem_alloc(r->m, cap * sizeof *x->slot);
    if (!x->slot) {
        r->oom = true;
        return false;
    }
    memset(x->slot, 0, cap * sizeof *x->slot);
    return true;
}

/* The slot of key among the entries indexed (entry e at base + e * stride, its key the
 * string its first member points to): the one holding it, or the empty one it would take. */
static size_t kindex_slot(const kindex *x, const char *key, const void *base, size_t stride)
{
    size_t i = (size_t)ext_hash_str(key) & x->mask;
    for (; x->slot[i]; i = (i + 1) & x->mask) {
        size_t e = x->slot[i] - 1;
        if (strcmp(*(const char *const *)((const char *)base + e * stride), key) == 0)
            break;
    }
    return i;
}

/* The entry of key, or SIZE_MAX. */
static size_t kindex_get(const kindex *x, const char *key, const void *base, size_t stride)
{
    size_t i = kindex_slot(x, key, base, stride);
    return x->slot[i] ? x->slot[i] - 1 : SIZE_MAX;
}

/* The entry of key, or entry n, recorded as key's. */
static size_t kindex_put(kindex *x, const char *key, const void *base, size_t stride, size_t n)
{
    size_t i = kindex_slot(x, key, base, stride);
    if (!x->slot[i])
        x->slot[i] = (uint32_t)n + 1;
    return x->slot[i] - 1;
}

/* A resource list ({"example.com/gpu": "2"}: quantities as strings, or JSON numbers, which
 * Go's Quantity decoder takes too) at w into *out, *nout; the library checks the quantities.
 * Duplicate keys: the last wins (Go's map decoding). */
static void read_resources(rd *r, js_span v, where w, dracel_resource **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (!present(r, v))
        return;
    js_iter it;
    if (!js_is_object(r->s, v) || js_object_begin_valid(r->s, v, &it) != 0) {
        fail_at(r, w, "expected an object");
        return;
    }
    size_t cnt = 0;
    js_span k, x;
    for (js_iter c = it; js_object_next(r->s, &c, &k, &x) == 1;)
        cnt++;
    dracel_resource *l = *out = mem_alloc(r->m, (cnt ? cnt : 1) * sizeof *l);
    kindex ix;
    if (!l) {
        r->oom = true;
        return;
    }
    if (!kindex_init(r, &ix, cnt))
        return;
    while (js_object_next(r->s, &it, &k, &x) == 1) {
        char *name = mem_alloc(r->m, k.len + 1), *q;
        size_t kl;
        if (!name) {
            r->oom = true;
            return;
        }
        if (js_string(r->s, k, name, &kl) != 0 || strlen(name) != kl) {
            fail_at(r, w, "a resource name holds a NUL character");
            return;
        }
        char c0 = x.len ? r->s[x.off] : 0;
        if (c0 == '-' || (c0 >= '0' && c0 <= '9')) { /* a JSON number: its text */
            if (!(q = mem_alloc(r->m, x.len + 1))) {
                r->oom = true;
                return;
            }
            memcpy(q, r->s + x.off, x.len);
            q[x.len] = '\0';
        } else if (!js_is_string(r->s, x)) {
            char msg[320];
            snprintf(msg, sizeof msg, "%.200s: expected a quantity (a string or a number)",
                     name);
            fail_at(r, w, msg);
            return;
        } else if (!(q = (char *)string(r, x, w))) {
            return;
        }
        size_t i = kindex_put(&ix, name, l, sizeof *l, *nout);
        l[i].name = name;
        l[i].quantity = q;
        if (i == *nout)
            (*nout)++;
    }
}

/* spec.initContainers (init) or spec.containers: each container's name, restartPolicy and
 * resources, appended to out->containers. */
static void read_containers(rd *r, js_span v, bool init, ext_pod *out, size_t cap)
{
    static const char *const ck[] = {"name", "restartPolicy", "resources"};
    static const char *const rk[] = {"requests", "limits"};
    const char *at_s = init ? "Pod.spec.initContainers" : "Pod.spec.containers";
    if (!present(r, v))
        return;
    js_iter it;
    if (!array(r, v, at(at_s), &it))
        return;
    js_span c, cv[3], rv[2];
    for (size_t i = 0; out->ncontainers < cap && js_array_next(r->s, &it, &c) == 1; i++) {
        if (!js_is_object(r->s, c) || !object(r, c, at_i(at_s, i, ""), ck, 3, cv) ||
            !object(r, cv[2], at_i(at_s, i, ".resources"), rk, 2, rv))
            return;
        dracel_container *x = &out->containers[out->ncontainers++];
        memset(x, 0, sizeof *x);
        x->init = init;
        x->name = string(r, cv[0], at_i(at_s, i, ".name"));
        x->restart_policy = string(r, cv[1], at_i(at_s, i, ".restartPolicy"));
        if (r->failed || r->oom)
            return;
        if (!x->name || !x->name[0]) {
            fail_at(r, at_i(at_s, i, ".name"), "required");
            return;
        }
        dracel_resource *req, *lim;
        read_resources(r, rv[0], at_i(at_s, i, ".resources.requests"), &req, &x->nrequests);
        read_resources(r, rv[1], at_i(at_s, i, ".resources.limits"), &lim, &x->nlimits);
        x->requests = req;
        x->limits = lim;
        if (r->failed || r->oom)
            return;
    }
}

static void read_pod(rd *r, js_span pod, ext_pod *out)
{
    memset(out, 0, sizeof *out);
    static const char *const pk[] = {"metadata", "spec", "status"};
    static const char *const mk[] = {"name", "namespace", "uid", "labels"};
    static const char *const sk[] = {"resourceClaims", "initContainers", "containers"};
    static const char *const stk[] = {"resourceClaimStatuses"};
    static const char *const ck[] = {"name", "resourceClaimName", "resourceClaimTemplateName"};
    static const char *const ek[] = {"name", "resourceClaimName"};
    js_span pv[3], mv[4], sv[3], stv[1];
    if (!js_is_object(r->s, pod)) {
        fail(r, "Pod: expected an object");
        return;
    }
    if (!object(r, pod, at("Pod"), pk, 3, pv) ||
        !object(r, pv[0], at("Pod.metadata"), mk, 4, mv) ||
        !object(r, pv[1], at("Pod.spec"), sk, 3, sv) ||
        !object(r, pv[2], at("Pod.status"), stk, 1, stv))
        return;
    out->name = string(r, mv[0], at("Pod.metadata.name"));
    out->ns = string(r, mv[1], at("Pod.metadata.namespace"));
    out->uid = string(r, mv[2], at("Pod.metadata.uid"));
    read_labels(r, mv[3], "Pod", NO_INDEX, &out->labels, &out->nlabels);
    if (r->failed || r->oom)
        return;
    if (!out->ns || !out->ns[0])
        out->ns = "default"; /* what the API server defaults an unset namespace to */
    if (!out->name)
        out->name = "";
    size_t nctr = (present(r, sv[1]) && js_is_array(r->s, sv[1]) ? count(r, sv[1]) : 0) +
                  (present(r, sv[2]) && js_is_array(r->s, sv[2]) ? count(r, sv[2]) : 0);
    if (nctr && !(out->containers = mem_alloc(r->m, nctr * sizeof *out->containers))) {
        r->oom = true;
        return;
    }
    read_containers(r, sv[1], true, out, nctr);
    read_containers(r, sv[2], false, out, nctr);
    if (r->failed || r->oom)
        return;
    /* Extended resources have a domain ("example.com/gpu"): pods asking only for cpu, memory
     * and the like need no copy of their containers. */
    bool domain = false;
    for (size_t i = 0; i < out->ncontainers && !domain; i++) {
        const dracel_container *x = &out->containers[i];
        for (size_t k = 0; k < x->nrequests && !domain; k++)
            domain = strchr(x->requests[k].name, '/') != NULL;
        for (size_t k = 0; k < x->nlimits && !domain; k++)
            domain = strchr(x->limits[k].name, '/') != NULL;
    }
    if (domain) {
        char why[512];
        dracel_status st = dracel_pod_new(NULL, out->ns, out->containers, out->ncontainers,
                                          &out->xres, why, sizeof why);
        if (st == DRACEL_ENOMEM) {
            r->oom = true;
            return;
        }
        if (st != DRACEL_OK) {
            fail(r, "Pod.spec: %s", why);
            return;
        }
    }
    if (!present(r, sv[0]))
        return;
    js_iter it;
    if (!array(r, sv[0], at("Pod.spec.resourceClaims"), &it))
        return;
    bool statuses = present(r, stv[0]);
    js_iter sit;
    if (statuses && !array(r, stv[0], at("Pod.status.resourceClaimStatuses"), &sit))
        return;
    /* The status's entries, read once (they were read again for every template claim:
     * 4,000 claims took 10 s and 2 GB), the last entry of a name winning. */
    typedef struct status_entry {
        const char *entry, *claim; /* entry first: the index's key */
    } status_entry;
    static const char statuses_at[] = "Pod.status.resourceClaimStatuses";
    status_entry *se = NULL;
    size_t nse = 0;
    kindex sx;
    if (statuses) {
        size_t ns = count(r, stv[0]);
        se = mem_alloc(r->m, (ns ? ns : 1) * sizeof *se);
        if (!se) {
            r->oom = true;
            return;
        }
        if (!kindex_init(r, &sx, ns))
            return;
        js_span st, ev[2];
        for (size_t k = 0; js_array_next(r->s, &sit, &st) == 1; k++) {
            if (!js_is_object(r->s, st) || !object(r, st, at_i(statuses_at, k, ""), ek, 2, ev)) {
                fail_at(r, at_i(statuses_at, k, ""), "expected an object");
                return;
            }
            const char *entry = string(r, ev[0], at_i(statuses_at, k, ".name"));
            const char *name = string(r, ev[1], at_i(statuses_at, k, ".resourceClaimName"));
            if (r->failed || r->oom)
                return;
            if (!entry)
                continue;
            size_t e = kindex_put(&sx, entry, se, sizeof *se, nse);
            se[e] = (status_entry){entry, name};
            if (e == nse)
                nse++;
        }
    }
    size_t n = count(r, sv[0]);
    out->claims = mem_alloc(r->m, (n ? n : 1) * sizeof *out->claims);
    if (!out->claims) {
        r->oom = true;
        return;
    }
    static const char claims_at[] = "Pod.spec.resourceClaims";
    js_span c, cv[3];
    for (size_t i = 0; i < n && js_array_next(r->s, &it, &c) == 1; i++) {
        if (!js_is_object(r->s, c) || !object(r, c, at_i(claims_at, i, ""), ck, 3, cv)) {
            fail_at(r, at_i(claims_at, i, ""), "expected an object");
            return;
        }
        pod_claim *pc = &out->claims[out->nclaims++];
        memset(pc, 0, sizeof *pc);
        pc->entry = string(r, cv[0], at_i(claims_at, i, ".name"));
        const char *claim = string(r, cv[1], at_i(claims_at, i, ".resourceClaimName"));
        const char *tmpl = string(r, cv[2], at_i(claims_at, i, ".resourceClaimTemplateName"));
        if (r->failed || r->oom)
            return;
        if (!pc->entry || !pc->entry[0]) {
            fail_at(r, at_i(claims_at, i, ".name"), "required");
            return;
        }
        if ((claim != NULL) == (tmpl != NULL)) {
            fail_at(r, at_i(claims_at, i, ""),
                    "exactly one of resourceClaimName and resourceClaimTemplateName is "
                    "required");
            return;
        }
        if (claim) {
            pc->claim = claim;
            continue;
        }
        /* A template's claim is named in the pod's status, entry by entry (the last entry of
         * that name wins). */
        pc->from_template = true;
        if (!nse)
            continue;
        size_t e = kindex_get(&sx, pc->entry, se, sizeof *se);
        if (e == SIZE_MAX)
            continue;
        pc->claim = se[e].claim;
        pc->not_needed = se[e].claim == NULL; /* listed without a name: no claim is needed */
    }
}

/* metadata.labels of an object at (pre, item): into *out, *nout. */
static void read_labels(rd *r, js_span labels, const char *pre, size_t item,
                        dracel_label **out, size_t *nout)
{
    if (!present(r, labels))
        return;
    js_iter it;
    if (!js_is_object(r->s, labels) || js_object_begin_valid(r->s, labels, &it) != 0) {
        fail_at(r, at_i(pre, item, ".metadata.labels"), "expected an object");
        return;
    }
    size_t cnt = 0;
    js_span k, v;
    for (js_iter c = it; js_object_next(r->s, &c, &k, &v) == 1;)
        cnt++;
    dracel_label *l = *out = mem_alloc(r->m, (cnt ? cnt : 1) * sizeof *l);
    kindex ix;
    if (!l) {
        r->oom = true;
        return;
    }
    if (!kindex_init(r, &ix, cnt))
        return;
    while (js_object_next(r->s, &it, &k, &v) == 1) {
        char *key = mem_alloc(r->m, k.len + 1), *val;
        size_t kl;
        if (!key) {
            r->oom = true;
            return;
        }
        if (js_string(r->s, k, key, &kl) != 0) {
            fail_at(r, at_i(pre, item, ".metadata.labels"), "a label key holds a NUL character");
            return;
        }
        where w = {pre, item, ".metadata.labels.", key};
        if (!present(r, v) || !(val = (char *)string(r, v, w))) {
            if (!r->oom)
                fail_at(r, w, "expected a string");
            return;
        }
        /* Duplicate keys: the last wins (Go's map decoding). */
        size_t i = kindex_put(&ix, key, l, sizeof *l, *nout);
        l[i].key = key;
        l[i].value = val;
        if (i == *nout)
            (*nout)++;
    }
}

static void read_nodes(rd *r, js_span nodes, ext_args *a, const ext_limits *lim)
{
    static const char *const lk[] = {"items"};
    static const char *const ik[] = {"metadata", "status"};
    static const char *const mk[] = {"name", "labels"};
    static const char *const sk[] = {"allocatable"};
    static const char items_at[] = "Nodes.items";
    js_span lv[1];
    if (!object(r, nodes, at("Nodes"), lk, 1, lv) || !present(r, lv[0]))
        return;
    js_iter it;
    if (!array(r, lv[0], at(items_at), &it))
        return;
    /* Not counted first (a walk of tens of MB): the array grows as the items come. */
    size_t cap = 0;
    js_span item, iv[2], mv[2], sv[1];
    for (size_t i = 0;; i++) {
        js_iter before = it;
        int got = js_array_next_object_fold(r->s, &it, ik, 2, iv, &item);
        if (got == 0)
            break;
        if (got < 0) {
            /* not an object (the array is valid: the element is some other value) */
            if (js_array_next(r->s, &before, &item) == 1 && !js_is_object(r->s, item))
                fail_at(r, at_i(items_at, i, ""), "expected an object");
            else
                fail_at(r, at_i(items_at, i, ""), "cannot be read");
            return;
        }
        if (i == lim->max_nodes) {
            fail(r, "Nodes.items: more than the limit of %zu nodes", lim->max_nodes);
            return;
        }
        if (a->nnodes == cap) {
            size_t ncap = cap ? 2 * cap : 256;
            ext_node *grown = mem_alloc(r->m, ncap * sizeof *grown);
            if (!grown) {
                r->oom = true;
                return;
            }
            if (cap)
                memcpy(grown, a->nodes, cap * sizeof *grown);
            a->nodes = grown;
            cap = ncap;
        }
        if (!object(r, iv[0], at_i(items_at, i, ".metadata"), mk, 2, mv))
            return;
        ext_node *nd = &a->nodes[a->nnodes++];
        memset(nd, 0, sizeof *nd);
        nd->start = item.off;
        nd->end = item.off + item.len;
        nd->name = string(r, mv[0], at_i(items_at, i, ".metadata.name"));
        if (r->failed || r->oom)
            return;
        if (!nd->name || !nd->name[0]) {
            fail_at(r, at_i(items_at, i, ".metadata.name"), "required");
            return;
        }
        read_labels(r, mv[1], items_at, i, &nd->labels, &nd->nlabels);
        if (r->failed || r->oom || !object(r, iv[1], at_i(items_at, i, ".status"), sk, 1, sv))
            return;
        read_resources(r, sv[0], at_i(items_at, i, ".status.allocatable"), &nd->alloc,
                       &nd->nalloc);
        if (r->failed || r->oom)
            return;
    }
}

static void read_names(rd *r, js_span names, ext_args *a, const ext_limits *lim)
{
    js_iter it;
    if (!js_is_array(r->s, names) || js_array_begin_valid(r->s, names, &it) != 0) {
        fail(r, "NodeNames: expected an array of strings");
        return;
    }
    size_t n = count(r, names);
    if (n > lim->max_nodes) {
        fail(r, "NodeNames: %zu nodes, more than the limit of %zu", n, lim->max_nodes);
        return;
    }
    a->nodes = mem_alloc(r->m, (n ? n : 1) * sizeof *a->nodes);
    if (!a->nodes) {
        r->oom = true;
        return;
    }
    js_span v;
    for (size_t i = 0; i < n && js_array_next(r->s, &it, &v) == 1; i++) {
        if (!js_is_string(r->s, v)) {
            fail_at(r, at_i("NodeNames", i, ""), "expected a string");
            return;
        }
        ext_node *nd = &a->nodes[a->nnodes++];
        memset(nd, 0, sizeof *nd);
        nd->name = string(r, v, at_i("NodeNames", i, ""));
        if (r->failed || r->oom)
            return;
    }
}

/* Check the body: the pre-scan (depth, NUL escapes, UTF-8), then the grammar. */
static bool valid(rd *r, const char *body, size_t len, unsigned depth, js_span *root)
{
    size_t at;
    const char *why = json_prescan(body, len, depth, &at);
    if (why) {
        fail(r, "invalid JSON at byte %zu: %s", at, why);
        return false;
    }
    size_t pos = 0;
    if (js_value(body, len, &pos, root) != 0) {
        fail(r, "invalid JSON at byte %zu", pos);
        return false;
    }
    while (pos < len && strchr(" \t\r\n", body[pos]))
        pos++;
    if (pos != len) {
        fail(r, "invalid JSON at byte %zu: text after the value", pos);
        return false;
    }
    return true;
}

static int finish(rd *r, mem *m, ext_args *out)
{
    if (r->oom || r->failed) {
        int rc = EXT_EBAD;
        if (m->late) { /* first: a message written after the deadline may be its symptom */
            snprintf(r->err, r->errcap,
                     "the time budget for the request (--budget) ran out while reading it");
            rc = EXT_ELATE;
        } else if (m->over) {
            snprintf(r->err, r->errcap,
                     "request too large: reading it needs more than %zu bytes of memory "
                     "(--max-request-memory)",
                     m->cap);
            rc = EXT_ETOOBIG;
        } else if (r->oom) {
            snprintf(r->err, r->errcap, "out of memory");
            rc = EXT_ENOMEM;
        }
        dracel_pod_free(out->pod.xres);
        mem_free(m);
        memset(out, 0, sizeof *out);
        return rc;
    }
    mem *keep = malloc(sizeof *keep);
    if (!keep) {
        mem_free(m);
        memset(out, 0, sizeof *out);
        snprintf(r->err, r->errcap, "out of memory");
        return -2;
    }
    *keep = *m;
    out->mem = keep;
    out->mem_used = m->total;
    return 0;
}

static void defaults(const ext_limits *lim, ext_limits *l, mem *m)
{
    *l = lim ? *lim : (ext_limits){0, 0, 0, 0};
    if (!l->max_depth)
        l->max_depth = 64;
    if (!l->max_nodes)
        l->max_nodes = 100000;
    if (!l->max_memory)
        l->max_memory = EXT_MAX_MEMORY;
    memset(m, 0, sizeof *m);
    m->cap = l->max_memory;
    m->deadline = l->deadline;
}

int ext_args_parse(const char *body, size_t len, const ext_limits *lim, ext_args *out,
                   char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    out->body = body;
    ext_limits l;
    mem m;
    defaults(lim, &l, &m);
    out->deadline = l.deadline;
    rd r = {&m, body, err, errcap, false, false};
    js_span root;
    if (valid(&r, body, len, l.max_depth, &root)) {
        static const char *const keys[] = {"Pod", "Nodes", "NodeNames"};
        js_span v[3];
        if (!js_is_object(body, root) || js_members_fold_valid(body, root, keys, 3, v) != 0)
            fail(&r, "ExtenderArgs: expected an object");
        else if (!present(&r, v[0]))
            fail(&r, "Pod: required");
        else {
            read_pod(&r, v[0], &out->pod);
            if (!r.failed && !r.oom) {
                if (present(&r, v[1])) {
                    out->nodes_form = true;
                    if (!js_is_object(body, v[1]))
                        fail(&r, "Nodes: expected a NodeList object");
                    else
                        read_nodes(&r, v[1], out, &l);
                } else if (present(&r, v[2])) {
                    read_names(&r, v[2], out, &l);
                }
            }
        }
    }
    return finish(&r, &m, out);
}

int ext_pod_parse(const char *body, size_t len, const ext_limits *lim, ext_args *out, char *err,
                  size_t errcap)
{
    memset(out, 0, sizeof *out);
    out->body = body;
    ext_limits l;
    mem m;
    defaults(lim, &l, &m);
    out->deadline = l.deadline;
    rd r = {&m, body, err, errcap, false, false};
    js_span root;
    if (valid(&r, body, len, l.max_depth, &root))
        read_pod(&r, root, &out->pod);
    return finish(&r, &m, out);
}

void ext_args_free(ext_args *a)
{
    dracel_pod_free(a->pod.xres);
    if (a->mem) {
        mem_free(a->mem);
        free(a->mem);
    }
    memset(a, 0, sizeof *a);
}
