/*
 * api_pod.c: the public handle of a pod's containers (dracel_pod) and the special claim of its
 * extended resources backed by DRA (DRAExtendedResource). What the claim is (which resources,
 * which class, which requests) is decided in src/objects.c, for scenarios and for this API
 * alike (dc_ext_resources, dc_ext_claim); this file copies the caller's containers and builds
 * the claim for src/cluster.c's policies.
 */
#include "apiint.h"
#include "ldint.h"
#include "placeint.h"

#include <stdio.h>
#include <string.h>

struct dracel_pod {
    dracel_objects objs;        /* the arena of everything below (no objects) */
    const char *ns;
    dc_ctr_in *ctr;
    uint32_t nc;
    uint32_t nreqs;             /* the sum of ctr[].nreqs */
    uint32_t refs;
};

static void set_err(char *err, size_t cap, const char *msg)
{
    if (err && cap)
        snprintf(err, cap, "%s", msg);
}

dracel_pod *dracel_pod_ref(dracel_pod *p)
{
    if (p)
        __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
    return p;
}

void dracel_pod_free(dracel_pod *p)
{
    if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    dracel_alloc a = p->objs.alloc;
    dc_objects_free(&p->objs.o);
    dc_free(&a, p, sizeof *p);
}

/* An empty pod (one reference). */
static dracel_status pod_alloc(const dracel_config *cfg, dracel_pod **out, char *err,
                               size_t errcap)
{
    dracel_config conf;
    DC_TRY(dc_config_read(cfg, &conf));
    dracel_pod *p = dc_malloc(dc_alloc_of(&conf), sizeof *p);
    if (!p) {
        set_err(err, errcap, "out of memory");
        return DRACEL_ENOMEM;
    }
    memset(p, 0, sizeof *p);
    dc_api_objects_init(&p->objs, &conf);
    p->refs = 1;
    *out = p;
    return DRACEL_OK;
}

static int creq_cmp(const void *a, const void *b)
{
    return strcmp(((const dc_creq_in *)a)->name, ((const dc_creq_in *)b)->name);
}

/* The names of a container's lists so far, found in O(1): open addressing over the indexes of
 * x->reqs (a scan of them for every name made 40,000 resources take seconds). */
typedef struct nameset {
    uint32_t *slot;             /* index + 1; 0: empty */
    size_t mask;
} nameset;

static uint32_t *nameset_slot(const nameset *ns, const dc_ctr_in *x, const char *name)
{
    dc_hash h = DC_HASH_INIT;
    dc_hash_str(&h, name);
    size_t i = (size_t)h.h & ns->mask;
    while (ns->slot[i] && strcmp(x->reqs[ns->slot[i] - 1].name, name) != 0)
        i = (i + 1) & ns->mask;
    return &ns->slot[i];
}

/* One resource list of container ctr into x (a limit only adds a name the requests lack, the
 * API server's defaulting); false with a message in err. */
static bool rlist(dc_arena *ar, const char *ctr, const char *what, const dracel_resource *r,
                  size_t n, bool limits, dc_ctr_in *x, nameset *ns, char *err, size_t errcap)
{
    for (size_t k = 0; k < n; k++) {
        if (!r[k].name || !*r[k].name || !r[k].quantity) {
            snprintf(err, errcap, "container %.100s: resources.%s[%zu]: a name and a quantity "
                     "are required", ctr, what, k);
            return false;
        }
        uint32_t *slot = nameset_slot(ns, x, r[k].name);
        bool have = *slot != 0;
        if (have && limits)
            continue;
        dc_qty q;
        if (dc_qty_parse(r[k].quantity, strlen(r[k].quantity), &q) || dc_qty_sign(&q) < 0) {
            snprintf(err, errcap, "container %.100s: resources.%s[%.200s]: must be a "
                     "non-negative quantity", ctr, what, r[k].name);
            return false;
        }
        if (have) /* a name given twice: the first one counts */
            continue;
        const char *nm = dc_arena_strndup(ar, r[k].name, strlen(r[k].name));
        if (!nm)
            return false;
        x->reqs[x->nreqs++] = (dc_creq_in){nm, q};
        *slot = x->nreqs;
    }
    return true;
}

dracel_status dracel_pod_new(const dracel_config *cfg, const char *ns, const dracel_container *c,
                             size_t n, dracel_pod **out, char *err, size_t errcap)
{
    set_err(err, errcap, "");
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    if ((!c && n) || n > UINT32_MAX / 2)
        return DRACEL_EINVAL;
    dracel_pod *p;
    DC_TRY(pod_alloc(cfg, &p, err, errcap));
    dc_arena *ar = &p->objs.o.slices.arena;
    char why[512] = "";
    dracel_status st = DRACEL_ENOMEM;
    p->ctr = n ? dc_arena_zalloc(ar, n * sizeof *p->ctr) : NULL;
    p->ns = ns && *ns ? dc_arena_strndup(ar, ns, strlen(ns)) : NULL;
    if ((n && !p->ctr) || (ns && *ns && !p->ns))
        goto fail;
    for (size_t i = 0; i < n; i++) {
        const dracel_container *k = &c[i];
        dc_ctr_in *x = &p->ctr[i];
        if (!k->name || !*k->name || (k->nrequests && !k->requests) ||
            (k->nlimits && !k->limits)) {
            snprintf(why, sizeof why, "containers[%zu]: %s", i,
                     !k->name || !*k->name ? "name: required value" : "a resource list is NULL");
            st = DRACEL_EINPUT;
            goto fail;
        }
        if (k->nrequests > UINT32_MAX / 4 || k->nlimits > UINT32_MAX / 4) {
            st = DRACEL_EINVAL;
            goto fail;
        }
        x->name = dc_arena_strndup(ar, k->name, strlen(k->name));
        x->short_lived = k->init && !(k->restart_policy && !strcmp(k->restart_policy, "Always"));
        size_t cap = k->nrequests + k->nlimits;
        x->reqs = cap ? dc_arena_zalloc(ar, cap * sizeof *x->reqs) : NULL;
        size_t slots = 16;
        while (slots < 2 * cap)
            slots *= 2;
        nameset seen = {dc_arena_zalloc(ar, slots * sizeof *seen.slot), slots - 1};
        if (!x->name || (cap && !x->reqs) || !seen.slot)
            goto fail;
        if (!rlist(ar, k->name, "requests", k->requests, k->nrequests, false, x, &seen, why,
                   sizeof why) ||
            !rlist(ar, k->name, "limits", k->limits, k->nlimits, true, x, &seen, why,
                   sizeof why)) {
            st = why[0] ? DRACEL_EINPUT : DRACEL_ENOMEM;
            goto fail;
        }
        if (x->nreqs)
            dc_sort(x->reqs, x->nreqs, sizeof *x->reqs, creq_cmp);
        p->nreqs += x->nreqs;
    }
    p->nc = (uint32_t)n;
    *out = p;
    return DRACEL_OK;
fail:
    set_err(err, errcap, st == DRACEL_ENOMEM ? "out of memory" : why);
    dracel_pod_free(p);
    return st;
}

static dracel_status pod_load(const dracel_config *cfg, const char *path, const char *name,
                              const char *buf, size_t len, dracel_pod **out, char *err,
                              size_t errcap)
{
    set_err(err, errcap, "");
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    if ((!path && !buf && len) || len > SIZE_MAX / 2)
        return DRACEL_EINVAL;
    dracel_pod *p;
    DC_TRY(pod_alloc(cfg, &p, err, errcap));
    dc_pod_in in;
    dracel_status st = dc_pod_load(&p->objs.o, path, name ? name : "<buffer>", buf, len, &in, err,
                                   errcap);
    if (st != DRACEL_OK) {
        dracel_pod_free(p);
        return st;
    }
    p->ns = in.ns;
    p->ctr = in.ctr;
    p->nc = in.nc;
    for (uint32_t i = 0; i < p->nc; i++)
        p->nreqs += p->ctr[i].nreqs;
    *out = p;
    return DRACEL_OK;
}

dracel_status dracel_pod_load(const dracel_config *cfg, const char *path, dracel_pod **out,
                              char *err, size_t errcap)
{
    if (!path) {
        set_err(err, errcap, "");
        return DRACEL_EINVAL;
    }
    return pod_load(cfg, path, NULL, NULL, 0, out, err, errcap);
}

dracel_status dracel_pod_load_buffer(const dracel_config *cfg, const char *name, const char *buf,
                                     size_t len, dracel_pod **out, char *err, size_t errcap)
{
    return pod_load(cfg, NULL, name, buf, len, out, err, errcap);
}

dracel_status dracel_policy_new_pod(const dracel_config *cfg, const dracel_table *t,
                                    const dracel_objects *classes, const dracel_objects *claims,
                                    const size_t *claim_index, size_t nclaims,
                                    const dracel_pod *pod, const char *const *res, size_t nres,
                                    dracel_policy **out, char *err, size_t errcap)
{
    set_err(err, errcap, "");
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    if (!nres)
        return dracel_policy_new(cfg, t, classes, claims, claim_index, nclaims, out, err,
                                 errcap);
    if (!classes || !pod || !res)
        return DRACEL_EINVAL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    dc_objects tmp;
    dc_objects_init(&tmp, dc_alloc_of(&c));
    dc_claim_in cl;
    dracel_status st = dc_api_pod_claim(pod, &classes->o, res, nres, &tmp, &cl, err, errcap);
    if (st == DRACEL_OK)
        st = dc_api_policy_with(cfg, t, classes, claims, claim_index, nclaims, &cl, out, err,
                                errcap);
    dc_objects_free(&tmp);
    return st;
}

size_t dracel_pod_extended(const dracel_pod *p, const dracel_objects *classes,
                           const dracel_resource *alloc, size_t nalloc, const char **out,
                           size_t cap)
{
    if (!p || !classes || (nalloc && !alloc) || nalloc > UINT32_MAX || !p->nreqs)
        return 0;
    const dracel_alloc *a = &p->objs.alloc;
    const char *small[16], **res = p->nreqs <= 16 ? small : dc_malloc(a, p->nreqs * sizeof *res);
    if (!res)
        return 0;
    /* dracel_resource and dc_label_in have the same layout (two strings) */
    uint32_t n = dc_ext_resources(&classes->o, p->ctr, p->nc, (const dc_label_in *)alloc,
                                  (uint32_t)nalloc, res);
    for (uint32_t i = 0; out && i < n && i < cap; i++)
        out[i] = res[i];
    if (res != small)
        dc_free(a, res, p->nreqs * sizeof *res);
    return n;
}

bool dracel_allocatable_has(const dracel_resource *alloc, size_t n, const char *resource)
{
    if (!resource || (n && !alloc) || n > UINT32_MAX)
        return false;
    return dc_ext_allocatable((const dc_label_in *)alloc, (uint32_t)n, resource);
}

size_t dracel_objects_node_allocatable(const dracel_objects *o, size_t i,
                                       const dracel_resource **out)
{
    if (out)
        *out = NULL;
    if (!o || !out || i >= o->o.nnodes)
        return 0;
    const dc_node_in *n = &o->o.nodes[i];
    *out = (const dracel_resource *)n->alloc;
    return n->nalloc;
}

dracel_status dc_api_pod_claim(const dracel_pod *p, const dc_objects *classes,
                               const char *const *res, size_t nres, dc_objects *tmp,
                               dc_claim_in *out, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    for (size_t j = 0; j < nres; j++)
        if (!res[j] || !dc_ext_class(classes, res[j])) {
            snprintf(err, errcap, "no DeviceClass backs the extended resource %s",
                     res[j] ? res[j] : "(null)");
            return DRACEL_EINVAL;
        }
    if (nres > UINT32_MAX)
        return DRACEL_EINVAL;
    dc_ld c;
    dc_ld_init(&c, &tmp->slices, NULL, err, errcap);
    c.o = tmp;
    dc_ext_claim_out x;
    dracel_status st = dc_ext_claim(&c, classes, p->ctr, p->nc, res, (uint32_t)nres, &x);
    dc_ld_free(&c);
    if (st != DRACEL_OK)
        return st;
    out->name = "<extended-resources>";
    out->namespace = p->ns;
    out->kind = "ResourceClaim";
    out->file = "<pod>";
    out->reqs = x.reqs;
    out->nreqs = x.nreqs;
    return DRACEL_OK;
}

uint64_t dracel_pod_hash(const dracel_pod *p, const char *const *res, size_t nres)
{
    dc_hash h = DC_HASH_INIT;
    if (!p || (!res && nres))
        return 0;
    dc_hash_str(&h, p->ns ? p->ns : "");
    for (size_t j = 0; j < nres; j++) {
        dc_hash_str(&h, res[j] ? res[j] : "");
        for (uint32_t i = 0; i < p->nc; i++) {
            const dc_ctr_in *x = &p->ctr[i];
            for (uint32_t k = 0; res[j] && k < x->nreqs; k++) {
                if (strcmp(x->reqs[k].name, res[j]) != 0)
                    continue;
                int64_t v = 0;
                /* what the claim holds: the index, the container and its (integer) count */
                dc_hash_int(&h, i);
                dc_hash_int(&h, k);
                dc_hash_int(&h, x->short_lived);
                dc_hash_str(&h, x->name);
                dc_hash_int(&h, dc_qty_as_int64(&x->reqs[k].q, &v) ? -1 : v);
            }
        }
    }
    return h.h;
}
