/* args.c: reading ExtenderArgs and Pods (src/extender/args.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cJSON.h>

#include "args.h"

/* ---- A bump allocator for everything of one request's args. */

typedef struct block {
    struct block *next;
    size_t used, cap;
    max_align_t data[];
} block;

typedef struct mem {
    block *head;
} mem;

static void *mem_alloc(mem *m, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    block *b = m->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 16384 ? n : 16384;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = m->head;
        b->used = 0;
        b->cap = cap;
        m->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

static char *mem_strdup(mem *m, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = mem_alloc(m, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void mem_free(mem *m)
{
    for (block *b = m->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    m->head = NULL;
}

/* ---- Reading. */

typedef struct rd {
    mem *m;
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

/* The member named key, matched as Go's encoding/json matches a field: case-insensitively, the
 * last of duplicates winning. */
static cJSON *member(const cJSON *obj, const char *key)
{
    cJSON *found = NULL;
    if (cJSON_IsObject(obj))
        for (cJSON *c = obj->child; c; c = c->next)
            if (c->string && strcasecmp(c->string, key) == 0)
                found = c;
    return found;
}

/* A string member (absent or null: NULL). */
static const char *str_member(rd *r, const cJSON *obj, const char *key, const char *path)
{
    cJSON *v = member(obj, key);
    if (!v || cJSON_IsNull(v))
        return NULL;
    if (!cJSON_IsString(v)) {
        fail(r, "%s.%s: expected a string", path, key);
        return NULL;
    }
    const char *s = mem_strdup(r->m, v->valuestring);
    if (!s)
        r->oom = true;
    return s;
}

static bool is_object_or_null(rd *r, const cJSON *v, const char *path)
{
    if (v && !cJSON_IsObject(v) && !cJSON_IsNull(v)) {
        fail(r, "%s: expected an object", path);
        return false;
    }
    return true;
}

static void read_pod(rd *r, const cJSON *pod, ext_pod *out)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(pod)) {
        fail(r, "Pod: expected an object");
        return;
    }
    const cJSON *meta = member(pod, "metadata");
    if (!is_object_or_null(r, meta, "Pod.metadata"))
        return;
    out->ns = str_member(r, meta, "namespace", "Pod.metadata");
    out->name = str_member(r, meta, "name", "Pod.metadata");
    out->uid = str_member(r, meta, "uid", "Pod.metadata");
    if (!out->ns || !out->ns[0])
        out->ns = "default"; /* what the API server defaults an unset namespace to */
    if (!out->name)
        out->name = "";
    const cJSON *spec = member(pod, "spec"), *status = member(pod, "status");
    if (!is_object_or_null(r, spec, "Pod.spec") || !is_object_or_null(r, status, "Pod.status"))
        return;
    const cJSON *rcs = member(spec, "resourceClaims");
    if (!rcs || cJSON_IsNull(rcs))
        return;
    if (!cJSON_IsArray(rcs)) {
        fail(r, "Pod.spec.resourceClaims: expected an array");
        return;
    }
    const cJSON *sts = member(status, "resourceClaimStatuses");
    if (sts && !cJSON_IsNull(sts) && !cJSON_IsArray(sts)) {
        fail(r, "Pod.status.resourceClaimStatuses: expected an array");
        return;
    }
    int n = cJSON_GetArraySize(rcs);
    out->claims = mem_alloc(r->m, (size_t)(n ? n : 1) * sizeof *out->claims);
    if (!out->claims) {
        r->oom = true;
        return;
    }
    char path[96];
    int i = 0;
    for (const cJSON *c = rcs->child; c; c = c->next, i++) {
        snprintf(path, sizeof path, "Pod.spec.resourceClaims[%d]", i);
        if (!cJSON_IsObject(c)) {
            fail(r, "%s: expected an object", path);
            return;
        }
        pod_claim *pc = &out->claims[out->nclaims++];
        memset(pc, 0, sizeof *pc);
        pc->entry = str_member(r, c, "name", path);
        const char *claim = str_member(r, c, "resourceClaimName", path);
        const char *tmpl = str_member(r, c, "resourceClaimTemplateName", path);
        if (r->failed || r->oom)
            return;
        if (!pc->entry || !pc->entry[0]) {
            fail(r, "%s.name: required", path);
            return;
        }
        if ((claim != NULL) == (tmpl != NULL)) {
            fail(r, "%s: exactly one of resourceClaimName and resourceClaimTemplateName is "
                    "required", path);
            return;
        }
        if (claim) {
            pc->claim = claim;
            continue;
        }
        /* A template's claim is named in the pod's status, entry by entry. */
        pc->from_template = true;
        int k = 0;
        for (const cJSON *s = sts ? sts->child : NULL; s; s = s->next, k++) {
            char spath[96];
            snprintf(spath, sizeof spath, "Pod.status.resourceClaimStatuses[%d]", k);
            if (!cJSON_IsObject(s)) {
                fail(r, "%s: expected an object", spath);
                return;
            }
            const char *entry = str_member(r, s, "name", spath);
            if (r->failed || r->oom)
                return;
            if (!entry || strcmp(entry, pc->entry) != 0)
                continue;
            const cJSON *cn = member(s, "resourceClaimName");
            if (!cn || cJSON_IsNull(cn)) {
                pc->not_needed = true; /* listed without a name: no claim is needed */
                pc->claim = NULL;
            } else {
                pc->claim = str_member(r, s, "resourceClaimName", spath);
                pc->not_needed = false;
            }
        }
    }
}

static void read_labels(rd *r, const cJSON *labels, ext_node *n, const char *path)
{
    if (!labels || cJSON_IsNull(labels))
        return;
    if (!cJSON_IsObject(labels)) {
        fail(r, "%s: expected an object", path);
        return;
    }
    size_t cnt = 0;
    for (const cJSON *l = labels->child; l; l = l->next)
        cnt++;
    n->labels = mem_alloc(r->m, (cnt ? cnt : 1) * sizeof *n->labels);
    if (!n->labels) {
        r->oom = true;
        return;
    }
    for (const cJSON *l = labels->child; l; l = l->next) {
        if (!cJSON_IsString(l)) {
            fail(r, "%s.%s: expected a string", path, l->string ? l->string : "");
            return;
        }
        /* Duplicate keys: the last wins (Go's map decoding). */
        size_t k = 0;
        while (k < n->nlabels && strcmp(n->labels[k].key, l->string) != 0)
            k++;
        char *key = mem_strdup(r->m, l->string), *val = mem_strdup(r->m, l->valuestring);
        if (!key || !val) {
            r->oom = true;
            return;
        }
        n->labels[k].key = key;
        n->labels[k].value = val;
        if (k == n->nlabels)
            n->nlabels++;
    }
}

typedef struct spans {
    size_t *start, *end;
    size_t n, cap;
} spans;

static int add_span(void *ctx, size_t start, size_t end)
{
    spans *s = ctx;
    if (s->n == s->cap)
        return 1;
    s->start[s->n] = start;
    s->end[s->n] = end;
    s->n++;
    return 0;
}

static void read_nodes(rd *r, const char *body, size_t len, const cJSON *nodes, ext_args *a,
                       const ext_limits *lim)
{
    const cJSON *items = member(nodes, "items");
    if (!items || cJSON_IsNull(items))
        return;
    if (!cJSON_IsArray(items)) {
        fail(r, "Nodes.items: expected an array");
        return;
    }
    size_t n = (size_t)cJSON_GetArraySize(items);
    if (n > lim->max_nodes) {
        fail(r, "Nodes.items: %zu nodes, more than the limit of %zu", n, lim->max_nodes);
        return;
    }
    a->nodes = mem_alloc(r->m, (n ? n : 1) * sizeof *a->nodes);
    spans sp = {mem_alloc(r->m, (n ? n : 1) * sizeof(size_t)),
                mem_alloc(r->m, (n ? n : 1) * sizeof(size_t)), 0, n};
    if (!a->nodes || !sp.start || !sp.end) {
        r->oom = true;
        return;
    }
    /* The exact text of each item, found in the body: the answer hands back the objects that
     * pass as they came. The last "Nodes" and "items" keys win, as in the cJSON tree. */
    size_t ns, ne, is, ie;
    if (!json_member(body, len, 0, "Nodes", true, &ns, &ne) ||
        !json_member(body, ne, ns, "items", true, &is, &ie) ||
        json_elements(body, ie, is, add_span, &sp) != 0 || sp.n != n) {
        fail(r, "Nodes.items: could not locate the items in the body");
        return;
    }
    size_t i = 0;
    char path[64];
    for (const cJSON *it = items->child; it; it = it->next, i++) {
        snprintf(path, sizeof path, "Nodes.items[%zu]", i);
        if (!cJSON_IsObject(it)) {
            fail(r, "%s: expected an object", path);
            return;
        }
        ext_node *nd = &a->nodes[a->nnodes++];
        memset(nd, 0, sizeof *nd);
        nd->start = sp.start[i];
        nd->end = sp.end[i];
        const cJSON *meta = member(it, "metadata");
        char mpath[80];
        snprintf(mpath, sizeof mpath, "%s.metadata", path);
        if (!is_object_or_null(r, meta, mpath))
            return;
        nd->name = str_member(r, meta, "name", mpath);
        if (r->failed || r->oom)
            return;
        if (!nd->name || !nd->name[0]) {
            fail(r, "%s.name: required", mpath);
            return;
        }
        char lpath[96];
        snprintf(lpath, sizeof lpath, "%s.labels", mpath);
        read_labels(r, member(meta, "labels"), nd, lpath);
        if (r->failed || r->oom)
            return;
    }
}

static void read_names(rd *r, const cJSON *names, ext_args *a, const ext_limits *lim)
{
    if (!cJSON_IsArray(names)) {
        fail(r, "NodeNames: expected an array of strings");
        return;
    }
    size_t n = (size_t)cJSON_GetArraySize(names);
    if (n > lim->max_nodes) {
        fail(r, "NodeNames: %zu nodes, more than the limit of %zu", n, lim->max_nodes);
        return;
    }
    a->nodes = mem_alloc(r->m, (n ? n : 1) * sizeof *a->nodes);
    if (!a->nodes) {
        r->oom = true;
        return;
    }
    size_t i = 0;
    for (const cJSON *v = names->child; v; v = v->next, i++) {
        if (!cJSON_IsString(v)) {
            fail(r, "NodeNames[%zu]: expected a string", i);
            return;
        }
        ext_node *nd = &a->nodes[a->nnodes++];
        memset(nd, 0, sizeof *nd);
        nd->name = mem_strdup(r->m, v->valuestring);
        if (!nd->name) {
            r->oom = true;
            return;
        }
    }
}

/* Parse body as JSON after the pre-scan; NULL with r failed or oom. */
static cJSON *parse(rd *r, const char *body, size_t len, unsigned depth)
{
    size_t at;
    const char *why = json_prescan(body, len, depth, &at);
    if (why) {
        fail(r, "invalid JSON at byte %zu: %s", at, why);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, 1);
    if (!root) {
        size_t off = end && end >= body ? (size_t)(end - body) : 0;
        fail(r, "invalid JSON at byte %zu", off);
    }
    return root;
}

static int finish(rd *r, cJSON *root, mem *m, ext_args *out)
{
    cJSON_Delete(root);
    if (r->oom || r->failed) {
        mem_free(m);
        memset(out, 0, sizeof *out);
        if (r->oom)
            snprintf(r->err, r->errcap, "out of memory");
        return r->oom ? -2 : -1;
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
    return 0;
}

static void defaults(const ext_limits *lim, ext_limits *l)
{
    *l = lim ? *lim : (ext_limits){0, 0};
    if (!l->max_depth)
        l->max_depth = 64;
    if (!l->max_nodes)
        l->max_nodes = 100000;
}

int ext_args_parse(const char *body, size_t len, const ext_limits *lim, ext_args *out,
                   char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    out->body = body;
    ext_limits l;
    defaults(lim, &l);
    mem m = {NULL};
    rd r = {&m, err, errcap, false, false};
    cJSON *root = parse(&r, body, len, l.max_depth);
    if (root && !cJSON_IsObject(root))
        fail(&r, "ExtenderArgs: expected an object");
    if (root && !r.failed) {
        const cJSON *pod = member(root, "Pod");
        if (!pod || cJSON_IsNull(pod))
            fail(&r, "Pod: required");
        else
            read_pod(&r, pod, &out->pod);
    }
    if (root && !r.failed && !r.oom) {
        const cJSON *nodes = member(root, "Nodes"), *names = member(root, "NodeNames");
        bool has_nodes = nodes && !cJSON_IsNull(nodes), has_names = names && !cJSON_IsNull(names);
        if (has_nodes && !cJSON_IsObject(nodes))
            fail(&r, "Nodes: expected a NodeList object");
        else if (has_nodes) {
            out->nodes_form = true;
            read_nodes(&r, body, len, nodes, out, &l);
        } else if (has_names) {
            read_names(&r, names, out, &l);
        }
    }
    return finish(&r, root, &m, out);
}

int ext_pod_parse(const char *body, size_t len, const ext_limits *lim, ext_args *out, char *err,
                  size_t errcap)
{
    memset(out, 0, sizeof *out);
    out->body = body;
    ext_limits l;
    defaults(lim, &l);
    mem m = {NULL};
    rd r = {&m, err, errcap, false, false};
    cJSON *root = parse(&r, body, len, l.max_depth);
    if (root)
        read_pod(&r, root, &out->pod);
    return finish(&r, root, &m, out);
}

void ext_args_free(ext_args *a)
{
    if (a->mem) {
        mem_free(a->mem);
        free(a->mem);
    }
    memset(a, 0, sizeof *a);
}
