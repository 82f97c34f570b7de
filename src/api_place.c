/*
 * api_place.c: the public API of placement (include/dracel.h): object sets (src/objects.c),
 * devices in use, policies and runs (src/alloc/), scenarios. The handles wrap the internal
 * structures and own a copy of the caller's allocator hook, so that nothing here depends on the
 * caller's config after the call that took it.
 *
 * Structs the caller fills or reads are growable (a size field, or the size passed by a
 * macro): see dc_struct_read/dc_struct_write in src/api.c. The handles' insides are in
 * src/placeint.h, which src/cluster.c (snapshots: classes, usage, policies) shares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "apiint.h"
#include "claims.h"
#include "k8s.h"
#include "placeint.h"

/* The public enums are the internal ones. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(DRACEL_OBJ_SLICE, DC_OBJ_SLICE) && SAME(DRACEL_OBJ_CLASS, DC_OBJ_CLASS) &&
                   SAME(DRACEL_OBJ_CLAIM, DC_OBJ_CLAIM) && SAME(DRACEL_OBJ_NODE, DC_OBJ_NODE) &&
                   SAME(DRACEL_OBJ_TAINT_RULE, DC_OBJ_RULE),
               "object kinds");
_Static_assert(SAME(DRACEL_FEATURE_ADMIN_ACCESS, DC_FEAT_ADMIN_ACCESS) &&
                   SAME(DRACEL_FEATURE_PRIORITIZED_LIST, DC_FEAT_PRIORITIZED_LIST) &&
                   SAME(DRACEL_FEATURE_DEVICE_TAINTS, DC_FEAT_DEVICE_TAINTS) &&
                   SAME(DRACEL_FEATURE_PARTITIONABLE, DC_FEAT_PARTITIONABLE) &&
                   SAME(DRACEL_FEATURE_CONSUMABLE_CAPACITY, DC_FEAT_CONSUMABLE_CAPACITY) &&
                   SAME(DRACEL_FEATURE_BINDING_CONDITIONS, DC_FEAT_BINDING_CONDITIONS) &&
                   SAME(DRACEL_FEATURE_LIST_TYPE_ATTRIBUTES, DC_FEAT_LIST_TYPE_ATTRIBUTES) &&
                   SAME(DRACEL_FEATURE_EXTENDED_RESOURCE, DC_FEAT_EXTENDED_RESOURCE) &&
                   SAME(DRACEL_FEATURE_DEVICE_STATUS, DC_FEAT_DEVICE_STATUS) &&
                   SAME(DRACEL_FEATURE_DEVICE_TAINT_RULES, DC_FEAT_DEVICE_TAINT_RULES) &&
                   SAME(DRACEL_FEATURES_DEFAULT, DC_FEAT_DEFAULTS) &&
                   SAME(DRACEL_KUBERNETES_OLDEST, DC_K8S_OLDEST) &&
                   SAME(DRACEL_KUBERNETES_NEWEST, DC_K8S_NEWEST),
               "features");
_Static_assert(SAME(DRACEL_ALLOCATED, DC_ALLOC_ALLOCATED) &&
                   SAME(DRACEL_UNSCHEDULABLE, DC_ALLOC_UNSCHEDULABLE) &&
                   SAME(DRACEL_ALLOCATION_ERROR, DC_ALLOC_ERROR) &&
                   SAME(DRACEL_SKIPPED, DC_ALLOC_SKIPPED),
               "outcomes");
_Static_assert(SAME(DRACEL_TIER_CHOSEN, DC_TIER_CHOSEN) && SAME(DRACEL_TIER_FAILED, DC_TIER_FAILED) &&
                   SAME(DRACEL_TIER_NOT_TRIED, DC_TIER_NOT_TRIED) &&
                   SAME(DRACEL_TIER_ABORTED, DC_TIER_ABORTED),
               "tier states");
_Static_assert(SAME(DRACEL_EXCLUDED__COUNT, DC_EXCL__COUNT) &&
                   SAME(DRACEL_EXCLUDED_INCOMPLETE_POOL, DC_EXCL_INCOMPLETE_POOL) &&
                   SAME(DRACEL_EXCLUDED_INVALID_POOL, DC_EXCL_INVALID_POOL) &&
                   SAME(DRACEL_EXCLUDED_NODE, DC_EXCL_NODE) &&
                   SAME(DRACEL_EXCLUDED_ALLOCATED, DC_EXCL_ALLOCATED) &&
                   SAME(DRACEL_EXCLUDED_TAINTED, DC_EXCL_TAINTED) &&
                   SAME(DRACEL_EXCLUDED_COUNTERS, DC_EXCL_COUNTERS),
               "exclusion causes");
/* A node's labels are read in place when sorted. */
_Static_assert(sizeof(dracel_label) == sizeof(dc_label_in) &&
                   offsetof(dracel_label, key) == offsetof(dc_label_in, key) &&
                   offsetof(dracel_label, value) == offsetof(dc_label_in, value),
               "labels");

/* The first layouts of the growable structs (they never change once released). */
#define OBJECT_INFO_V1 (offsetof(dracel_object_info, line) + sizeof(uint32_t))
#define TIER_INFO_V1 (offsetof(dracel_tier_info, nselectors) + sizeof(size_t))
#define OPTS_V1 (offsetof(dracel_allocate_opts, nreserved) + sizeof(size_t))
#define RUN_INFO_V1 (offsetof(dracel_run_info, explained) + sizeof(bool))
#define RESULT_V1 (offsetof(dracel_device_result, admin_access) + sizeof(bool))
#define CONFIG_V1 (offsetof(dracel_device_config, nrequests) + sizeof(size_t))
#define TIER_EXPL_V1 (offsetof(dracel_tier_explanation, unevaluated) + sizeof(uint32_t))
#define SEL_EXPL_V1 (offsetof(dracel_selector_explanation, nexamples) + sizeof(size_t))
#define EXAMPLE_V1 (offsetof(dracel_example, errored) + sizeof(bool))

static void set_err(char *err, size_t cap, const char *msg)
{
    if (err && cap)
        snprintf(err, cap, "%s", msg);
}

/* ---------------------------------------------------------------------------------------------
 * Objects
 */

void dc_api_objects_init(dracel_objects *s, const dracel_config *c)
{
    s->cfg = *c;
    s->alloc = *dc_alloc_of(c);
    s->cfg.alloc = &s->alloc;
    dc_objects_init(&s->o, &s->alloc);
}

dracel_status dracel_objects_keys(const dracel_config *cfg, const char *name, const char *buf,
                                  size_t len, int (*fn)(void *ctx, const dracel_object_info *key),
                                  void *ctx, char *err, size_t errcap)
{
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    return dc_objects_keys(dc_alloc_of(&c), name, buf, len, fn, ctx, err, errcap);
}

dracel_status dracel_objects_new(const dracel_config *cfg, dracel_objects **out)
{
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    dracel_objects *s = dc_malloc(dc_alloc_of(&c), sizeof *s);
    if (!s)
        return DRACEL_ENOMEM;
    memset(s, 0, sizeof *s);
    dc_api_objects_init(s, &c);
    *out = s;
    return DRACEL_OK;
}

void dracel_objects_free(dracel_objects *s)
{
    if (!s)
        return;
    dracel_alloc a = s->alloc;
    dc_objects_free(&s->o);
    dc_free(&a, s, sizeof *s);
}

static bool kinds_ok(unsigned kinds)
{
    return kinds && !(kinds & ~(unsigned)(DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM | DRACEL_OBJ_NODE));
}

dracel_status dracel_objects_load(dracel_objects *s, const char *path, unsigned kinds, char *err,
                                  size_t errcap)
{
    set_err(err, errcap, "");
    if (!s || !path || !kinds_ok(kinds))
        return DRACEL_EINVAL;
    dracel_status st = dc_objects_load(&s->o, path, kinds, NULL, err, errcap);
    if (st == DRACEL_ENOMEM)
        set_err(err, errcap, "out of memory");
    return st;
}

dracel_status dracel_objects_load_buffer(dracel_objects *s, const char *name, const char *buf,
                                         size_t len, unsigned kinds, char *err, size_t errcap)
{
    set_err(err, errcap, "");
    if (!s || (!buf && len) || !kinds_ok(kinds))
        return DRACEL_EINVAL;
    dracel_status st = dc_objects_load_buffer(&s->o, name, buf, len, kinds, NULL, err, errcap);
    if (st == DRACEL_ENOMEM)
        set_err(err, errcap, "out of memory");
    return st;
}

size_t dracel_objects_count(const dracel_objects *s, unsigned kind)
{
    if (!s)
        return 0;
    switch (kind) {
    case DRACEL_OBJ_CLASS: return s->o.nclasses;
    case DRACEL_OBJ_CLAIM: return s->o.nclaims;
    case DRACEL_OBJ_NODE: return s->o.nnodes;
    default: return 0;
    }
}

size_t dracel_objects_notes(const dracel_objects *s)
{
    return s ? s->o.slices.nnotes : 0;
}

const char *dracel_objects_note(const dracel_objects *s, size_t i)
{
    return s && i < s->o.slices.nnotes ? s->o.slices.notes[i] : NULL;
}

static void claim_info(const dc_claim_in *c, dracel_object_info *x)
{
    x->kind = c->kind ? c->kind : "ResourceClaim";
    x->name = c->name ? c->name : "";
    x->ns = c->namespace && c->namespace[0] ? c->namespace : NULL;
    x->file = c->file;
    x->line = c->line;
}

dracel_status dracel_objects_get_size(const dracel_objects *s, unsigned kind, size_t i,
                                      dracel_object_info *out, size_t size)
{
    if (!s || !out || i >= dracel_objects_count(s, kind))
        return DRACEL_EINVAL;
    dracel_object_info x;
    memset(&x, 0, sizeof x);
    if (kind == DRACEL_OBJ_CLAIM) {
        claim_info(&s->o.claims[i], &x);
    } else if (kind == DRACEL_OBJ_CLASS) {
        x.kind = "DeviceClass";
        x.name = s->o.classes[i].name;
        x.file = s->o.classes[i].file;
        x.line = s->o.classes[i].line;
    } else {
        x.kind = "Node";
        x.name = s->o.nodes[i].name;
        x.file = s->o.nodes[i].file;
        x.line = s->o.nodes[i].line;
    }
    x.kind_bit = kind;
    return dc_struct_write(out, size, &x, sizeof x, OBJECT_INFO_V1);
}

dracel_status dracel_objects_find(const dracel_objects *s, unsigned kind, const char *ns,
                                  const char *name, size_t *index)
{
    if (!s || !name || !index || !kinds_ok(kind) || (kind & (kind - 1)))
        return DRACEL_EINVAL;
    uint32_t i = dc_objects_find(&s->o, kind, ns, name);
    if (i == UINT32_MAX)
        return DRACEL_EINPUT;
    *index = i;
    return DRACEL_OK;
}

dracel_status dracel_objects_node(const dracel_objects *s, size_t i, dracel_node *out)
{
    if (!s || !out || i >= s->o.nnodes)
        return DRACEL_EINVAL;
    const dc_node_in *n = &s->o.nodes[i];
    out->name = n->name;
    out->labels = (const dracel_label *)n->labels;
    out->nlabels = n->nlabels;
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Devices in use
 */

_Static_assert(sizeof(dracel_device_id) == sizeof(dc_device_id) &&
                   offsetof(dracel_device_id, pool) == offsetof(dc_device_id, pool) &&
                   offsetof(dracel_device_id, device) == offsetof(dc_device_id, device),
               "device IDs");

static bool ids_ok(const dracel_device_id *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!ids[i].driver || !ids[i].pool || !ids[i].device)
            return false;
    return n <= UINT32_MAX;
}

dracel_status dracel_usage_new(const dracel_table *t, const dracel_device_id *ids, size_t n,
                               dracel_usage **out)
{
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    if (!t || (!ids && n) || !ids_ok(ids, n))
        return DRACEL_EINVAL;
    const dracel_alloc *a = dc_api_table_alloc(t);
    dracel_usage *u = dc_malloc(a, sizeof *u);
    if (!u)
        return DRACEL_ENOMEM;
    u->alloc = *a;
    dracel_status st = dc_usage_new(t, &u->alloc, (const dc_device_id *)ids, (uint32_t)n, &u->u);
    if (st != DRACEL_OK) {
        dc_free(a, u, sizeof *u);
        return st;
    }
    *out = u;
    return DRACEL_OK;
}

dracel_status dracel_usage_new_shared(const dracel_table *t, const dracel_device_id *ids,
                                      size_t n, const dracel_share *shares, size_t nshares,
                                      dracel_usage **out)
{
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    if (!t || (!ids && n) || !ids_ok(ids, n) || (!shares && nshares) || nshares > UINT32_MAX)
        return DRACEL_EINVAL;
    const dracel_alloc *a = dc_api_table_alloc(t);
    size_t ncaps = 0;
    for (size_t i = 0; i < nshares; i++) {
        if (!ids_ok(&shares[i].device, 1) || (shares[i].n && (!shares[i].names ||
                                                               !shares[i].quantities)))
            return DRACEL_EINVAL;
        for (size_t k = 0; k < shares[i].n; k++)
            if (!shares[i].names[k] || !shares[i].quantities[k])
                return DRACEL_EINVAL;
        ncaps += shares[i].n;
    }
    dc_share_in *sh = dc_malloc(a, (nshares + 1) * sizeof *sh);
    dc_capacity_in *caps = dc_malloc(a, (ncaps + 1) * sizeof *caps);
    dracel_usage *u = dc_malloc(a, sizeof *u);
    dracel_status st = sh && caps && u ? DRACEL_OK : DRACEL_ENOMEM;
    size_t at = 0;
    for (size_t i = 0; st == DRACEL_OK && i < nshares; i++) {
        sh[i].id = (dc_device_id){shares[i].device.driver, shares[i].device.pool,
                                  shares[i].device.device};
        sh[i].caps = caps + at;
        sh[i].ncaps = (uint32_t)shares[i].n;
        for (size_t k = 0; k < shares[i].n; k++, at++)
            caps[at] = (dc_capacity_in){shares[i].names[k], shares[i].quantities[k], NULL};
    }
    if (st == DRACEL_OK) {
        u->alloc = *a;
        st = dc_usage_new_shared(t, &u->alloc, (const dc_device_id *)ids, (uint32_t)n, sh,
                                 (uint32_t)nshares, &u->u);
    }
    dc_free(a, sh, (nshares + 1) * sizeof *sh);
    dc_free(a, caps, (ncaps + 1) * sizeof *caps);
    if (st != DRACEL_OK) {
        dc_free(a, u, sizeof *u);
        return st == DRACEL_EINPUT ? DRACEL_EINVAL : st;
    }
    *out = u;
    return DRACEL_OK;
}

dracel_status dc_api_usage_derive(const dracel_usage *prev, const dracel_device_id *set,
                                  size_t nset, const dracel_device_id *clear, size_t nclear,
                                  dracel_usage **out)
{
    *out = NULL;
    if (nset > UINT32_MAX || nclear > UINT32_MAX)
        return DRACEL_EINVAL;
    dracel_usage *u = dc_malloc(&prev->alloc, sizeof *u);
    if (!u)
        return DRACEL_ENOMEM;
    u->alloc = prev->alloc;
    dracel_status st = dc_usage_derive(prev->u, &u->alloc, (const dc_device_id *)set,
                                       (uint32_t)nset, (const dc_device_id *)clear,
                                       (uint32_t)nclear, &u->u);
    if (st != DRACEL_OK) {
        dc_free(&prev->alloc, u, sizeof *u);
        return st;
    }
    *out = u;
    return DRACEL_OK;
}

void dracel_usage_free(dracel_usage *u)
{
    if (!u)
        return;
    dracel_alloc a = u->alloc;
    dc_usage_free(u->u);
    dc_free(&a, u, sizeof *u);
}

size_t dracel_usage_devices(const dracel_usage *u)
{
    return u ? dc_usage_found(u->u) : 0;
}

uint64_t dracel_usage_pool_hash(const dracel_usage *u, size_t pool)
{
    return u && pool < UINT32_MAX ? dc_usage_pool_hash(u->u, (uint32_t)pool) : 0;
}

size_t dracel_table_node_pools(const dracel_table *t, const dracel_node *node, size_t *out,
                               size_t cap)
{
    if (!t || !node || !node->name || (node->nlabels && !node->labels) ||
        node->nlabels > UINT32_MAX || (!out && cap))
        return 0;
    bool sorted = true;
    for (size_t i = 0; i < node->nlabels; i++) {
        if (!node->labels[i].key || !node->labels[i].value)
            return 0;
        if (i && strcmp(node->labels[i - 1].key, node->labels[i].key) > 0)
            sorted = false;
    }
    dc_node_in n;
    memset(&n, 0, sizeof n);
    n.name = node->name;
    n.labels = (dc_label_in *)(uintptr_t)node->labels;
    n.nlabels = (uint32_t)node->nlabels;
    return dc_node_pools(dc_api_table(t), dc_api_table_pindex(t), &n, sorted, out, cap);
}

/* ---------------------------------------------------------------------------------------------
 * Features
 */

unsigned dracel_feature_parse(const char *name, size_t len)
{
    return name ? dc_feature_parse(name, len) : 0;
}

const char *dracel_feature_name(unsigned bit)
{
    return dc_feature_name(bit);
}

unsigned dracel_kubernetes_parse(const char *s, size_t len)
{
    return s ? dc_k8s_parse_release(s, len) : 0;
}

unsigned dracel_kubernetes_defaults(unsigned minor)
{
    return dc_k8s_defaults(minor);
}

dracel_status dracel_feature_gates(unsigned minor, const char *spec, size_t len,
                                   unsigned *features, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if ((!spec && len) || !features)
        return DRACEL_EINVAL;
    if (minor && !dc_k8s_defaults(minor))
        return DRACEL_EINVAL;
    if (dc_k8s_gates(minor ? minor : DC_K8S_NEWEST, spec ? spec : "", len, features, err,
                     errcap) < 0)
        return DRACEL_EINPUT;
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Policies
 */

dracel_status dc_api_policy_make(const dracel_config *cfg, const dracel_table *t,
                                 const dc_objects *classes, const dc_claim_in *const *claims,
                                 size_t n, dracel_policy **out, char *err, size_t errcap)
{
    *out = NULL;
    if (n > UINT32_MAX)
        return DRACEL_EINVAL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *a = dc_alloc_of(&c);
    dracel_policy *p = dc_malloc(a, sizeof *p);
    if (!p) {
        set_err(err, errcap, "out of memory");
        return DRACEL_ENOMEM;
    }
    memset(p, 0, sizeof *p);
    p->alloc = *a;
    p->cfg = c;
    p->cfg.alloc = &p->alloc;
    dracel_status st = dc_policy_new(&p->cfg, t, classes, claims, (uint32_t)n, &p->p, err, errcap);
    if (st != DRACEL_OK) {
        dc_free(a, p, sizeof *p);
        return st;
    }
    *out = p;
    return DRACEL_OK;
}

dracel_status dc_api_policy_with(const dracel_config *cfg, const dracel_table *t,
                                 const dracel_objects *classes, const dracel_objects *claims,
                                 const size_t *claim_index, size_t nclaims,
                                 const dc_claim_in *extra, dracel_policy **out, char *err,
                                 size_t errcap)
{
    set_err(err, errcap, "");
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    if (!t || (claim_index && !claims) || (!claim_index && nclaims))
        return DRACEL_EINVAL;
    size_t avail = claims ? claims->o.nclaims : 0;
    size_t n = claim_index ? nclaims : avail;
    for (size_t i = 0; claim_index && i < nclaims; i++)
        if (claim_index[i] >= avail) {
            set_err(err, errcap, "a claim index is out of range");
            return DRACEL_EINVAL;
        }
    if (n >= UINT32_MAX)
        return DRACEL_EINVAL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *a = dc_alloc_of(&c);
    const dc_claim_in **list = dc_malloc(a, (n + 1) * sizeof *list);
    if (!list) {
        set_err(err, errcap, "out of memory");
        return DRACEL_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        list[i] = &claims->o.claims[claim_index ? claim_index[i] : i];
    if (extra)
        list[n] = extra;
    dracel_status st = dc_api_policy_make(&c, t, classes ? &classes->o : NULL, list,
                                          n + (extra != NULL), out, err, errcap);
    dc_free(a, list, (n + 1) * sizeof *list);
    return st;
}

dracel_status dracel_policy_new(const dracel_config *cfg, const dracel_table *t,
                                const dracel_objects *classes, const dracel_objects *claims,
                                const size_t *claim_index, size_t nclaims, dracel_policy **out,
                                char *err, size_t errcap)
{
    return dc_api_policy_with(cfg, t, classes, claims, claim_index, nclaims, NULL, out, err,
                              errcap);
}

void dracel_policy_free(dracel_policy *p)
{
    if (!p)
        return;
    dracel_alloc a = p->alloc;
    dracel_snapshot *snap = p->snap;
    dc_policy_free(p->p);
    dc_free(&a, p, sizeof *p);
    dracel_snapshot_unref(snap); /* last: it may hold the policy's table */
}

const char *dracel_policy_version(const dracel_policy *p)
{
    return p ? dc_policy_version(p->p) : NULL;
}

const dracel_table *dracel_policy_table(const dracel_policy *p)
{
    return p ? dc_policy_table(p->p) : NULL;
}

size_t dracel_policy_claims(const dracel_policy *p)
{
    return p ? dc_policy_nclaims(p->p) : 0;
}

dracel_status dracel_policy_claim_size(const dracel_policy *p, size_t i, dracel_object_info *out,
                                       size_t size)
{
    if (!p || !out || i >= dc_policy_nclaims(p->p))
        return DRACEL_EINVAL;
    dracel_object_info x;
    memset(&x, 0, sizeof x);
    claim_info(dc_policy_claim(p->p, (uint32_t)i), &x);
    return dc_struct_write(out, size, &x, sizeof x, OBJECT_INFO_V1);
}

size_t dracel_policy_tiers(const dracel_policy *p)
{
    return p ? dc_policy_ntiers(p->p) : 0;
}

dracel_status dracel_policy_tier_size(const dracel_policy *p, size_t tier, dracel_tier_info *out,
                                      size_t size)
{
    if (!p || !out || tier >= dc_policy_ntiers(p->p))
        return DRACEL_EINVAL;
    dc_tier_desc d;
    dc_policy_tier(p->p, (uint32_t)tier, &d);
    dracel_tier_info x;
    memset(&x, 0, sizeof x);
    x.claim = d.claim;
    x.request = d.request;
    x.rank = d.rank;
    x.first_available = d.req->first_available;
    x.name = d.name;
    x.device_class = d.sub->class_name;
    x.mode = d.sub->mode ? d.sub->mode : "ExactCount";
    x.count = d.sub->count;
    x.admin_access = d.sub->admin_access;
    x.nselectors = d.nsels;
    return dc_struct_write(out, size, &x, sizeof x, TIER_INFO_V1);
}

dracel_status dracel_policy_tier_candidates(const dracel_policy *p, size_t tier, bool class_only,
                                            uint64_t *bits, size_t words, uint32_t *count)
{
    if (!p || !count || tier >= dc_policy_ntiers(p->p))
        return DRACEL_EINVAL;
    const dracel_table *t = dc_policy_table(p->p);
    if (bits && words < ((size_t)dracel_table_rows(t) + 63) / 64)
        return DRACEL_EINVAL;
    dc_alloc_run *r;
    DC_TRY(dc_alloc_run_new(p->p, &r));
    dracel_status st = dc_alloc_tier_candidates(r, (uint32_t)tier, class_only, NULL, bits, count);
    dc_alloc_run_free(r);
    if (st != DRACEL_OK)
        *count = 0;
    return st;
}

dracel_status dracel_policy_tier_usable(const dracel_policy *p, size_t tier, bool class_only,
                                        const dracel_allocate_opts *in, uint64_t *bits,
                                        size_t words, uint32_t *count)
{
    if (!p || !count || tier >= dc_policy_ntiers(p->p))
        return DRACEL_EINVAL;
    dracel_allocate_opts o;
    dracel_allocate_opts_init(&o);
    if (in)
        DC_TRY(dc_struct_read(&o, sizeof o, in, in->size, OPTS_V1));
    if (o.kubernetes && !dc_k8s_defaults(o.kubernetes))
        return DRACEL_EINVAL;
    const dracel_table *t = dc_policy_table(p->p);
    if (bits && words < ((size_t)dracel_table_rows(t) + 63) / 64)
        return DRACEL_EINVAL;
    dc_k8s k;
    dc_k8s_resolve(o.kubernetes ? o.kubernetes : DC_K8S_NEWEST, o.features, &k);
    dc_alloc_run *r;
    DC_TRY(dc_alloc_run_new(p->p, &r));
    dracel_status st = dc_alloc_tier_candidates(r, (uint32_t)tier, class_only, &k, bits, count);
    dc_alloc_run_free(r);
    if (st != DRACEL_OK)
        *count = 0;
    return st;
}

uint32_t dracel_usage_count(const dracel_usage *u, const uint64_t *bits, size_t words)
{
    if (!u || !bits || words < ((size_t)dracel_table_rows(dc_usage_table(u->u)) + 63) / 64)
        return 0;
    return dc_usage_count_in(u->u, bits);
}

/* ---------------------------------------------------------------------------------------------
 * Runs
 */

struct dracel_run {
    const dracel_policy *pol;
    dc_alloc_run *r;
    dc_label_in *labels;        /* a node's labels, sorted, when the caller's were not */
    size_t caplabels;
};

void dracel_allocate_opts_init_size(dracel_allocate_opts *o, size_t size)
{
    if (!o || size < OPTS_V1)
        return;
    dracel_allocate_opts d;
    memset(&d, 0, sizeof d);
    d.features = DRACEL_FEATURES_DEFAULT;
    d.timeout_ms = DC_ALLOC_DEFAULT_TIMEOUT_MS;
    d.examples = 1;
    memset(o, 0, size);
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
    o->size = size;
}

dracel_status dracel_run_new(const dracel_policy *p, dracel_run **out)
{
    if (!p || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_run *r = dc_malloc(&p->alloc, sizeof *r);
    if (!r)
        return DRACEL_ENOMEM;
    memset(r, 0, sizeof *r);
    r->pol = p;
    dracel_status st = dc_alloc_run_new(p->p, &r->r);
    if (st != DRACEL_OK) {
        dc_free(&p->alloc, r, sizeof *r);
        return st;
    }
    *out = r;
    return DRACEL_OK;
}

void dracel_run_free(dracel_run *r)
{
    if (!r)
        return;
    const dracel_alloc *a = &r->pol->alloc;
    dc_alloc_run_free(r->r);
    dc_free(a, r->labels, r->caplabels * sizeof *r->labels);
    dc_free(a, r, sizeof *r);
}

static dracel_status begin(dracel_run *r, const dracel_allocate_opts *in)
{
    dracel_allocate_opts o;
    dracel_allocate_opts_init(&o);
    if (in)
        DC_TRY(dc_struct_read(&o, sizeof o, in, in->size, OPTS_V1));
    if ((o.reserved == NULL && o.nreserved) || !ids_ok(o.reserved, o.nreserved) ||
        o.examples > DC_ALLOC_MAX_EXAMPLES)
        return DRACEL_EINVAL;
    dc_alloc_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.features = o.features;
    ao.timeout_ms = o.timeout_ms;
    ao.budget_ms = o.budget_ms;
    ao.explain = o.explain;
    ao.examples = o.examples ? o.examples : 1;
    ao.in_use = o.in_use ? o.in_use->u : NULL;
    ao.reserved = (const dc_device_id *)o.reserved;
    ao.nreserved = (uint32_t)o.nreserved;
    if (o.kubernetes && !dc_k8s_defaults(o.kubernetes))
        return DRACEL_EINVAL;
    ao.release = o.kubernetes;
    ao.interrupt = o.interrupt;
    ao.interrupt_ctx = o.interrupt_ctx;
    return dc_alloc_begin(r->r, &ao);
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp(((const dc_label_in *)a)->key, ((const dc_label_in *)b)->key);
}

/* The node as the allocator reads it: labels sorted by key (in place when they are). */
static dracel_status node_in(dracel_run *r, const dracel_node *n, dc_node_in *out)
{
    if (!n || !n->name || (n->nlabels && !n->labels) || n->nlabels > UINT32_MAX)
        return DRACEL_EINVAL;
    memset(out, 0, sizeof *out);
    out->name = n->name;
    out->nlabels = (uint32_t)n->nlabels;
    bool sorted = true;
    for (size_t i = 0; i < n->nlabels; i++) {
        if (!n->labels[i].key || !n->labels[i].value)
            return DRACEL_EINVAL;
        if (i && strcmp(n->labels[i - 1].key, n->labels[i].key) > 0)
            sorted = false;
    }
    if (sorted) {
        out->labels = (dc_label_in *)(uintptr_t)n->labels;
        return DRACEL_OK;
    }
    if (n->nlabels > r->caplabels) {
        dc_label_in *v = dc_realloc(&r->pol->alloc, r->labels, r->caplabels * sizeof *v,
                                    n->nlabels * sizeof *v);
        if (!v)
            return DRACEL_ENOMEM;
        r->labels = v;
        r->caplabels = n->nlabels;
    }
    memcpy(r->labels, n->labels, n->nlabels * sizeof *r->labels);
    dc_sort(r->labels, n->nlabels, sizeof *r->labels, cmp_label);
    out->labels = r->labels;
    return DRACEL_OK;
}

dracel_status dracel_allocate(dracel_run *r, const dracel_node *node,
                              const dracel_allocate_opts *o)
{
    if (!r || !node)
        return DRACEL_EINVAL;
    dc_node_in n;
    DC_TRY(node_in(r, node, &n));
    DC_TRY(begin(r, o));
    return dc_alloc_node(r->r, &n);
}

dracel_status dracel_allocate_nodes(dracel_run *r, const dracel_node *nodes, size_t n,
                                    const dracel_allocate_opts *o, dracel_node_fn fn, void *ctx)
{
    if (!r || (!nodes && n))
        return DRACEL_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!nodes[i].name)
            return DRACEL_EINVAL;
    DC_TRY(begin(r, o));
    for (size_t i = 0; i < n; i++) {
        dc_node_in in;
        DC_TRY(node_in(r, &nodes[i], &in));
        DC_TRY(dc_alloc_node(r->r, &in));
        if (fn && fn(ctx, i, r))
            break;
    }
    return DRACEL_OK;
}

dracel_status dracel_run_get_size(const dracel_run *r, dracel_run_info *out, size_t size)
{
    if (!r || !out)
        return DRACEL_EINVAL;
    dracel_run_info x;
    memset(&x, 0, sizeof x);
    x.outcome = (dracel_outcome)dc_alloc_outcome_of(r->r);
    x.node = dc_alloc_node_name(r->r);
    x.message = dc_alloc_message(r->r);
    x.node_local = dc_alloc_node_local(r->r);
    x.score = dc_alloc_score(r->r);
    x.tiers = dc_alloc_tiers(r->r);
    dc_alloc_counts(r->r, &x.devices, &x.pools, &x.steps, &x.backtracks);
    x.explained = dc_alloc_explained(r->r);
    const dc_k8s *k = dc_alloc_k8s(r->r);
    x.kubernetes = k->release;
    x.allocator = dc_copy_name(k->copy);
    x.allocator_features = k->features;
    x.nondeterministic = dc_alloc_nondeterministic(r->r);
    return dc_struct_write(out, size, &x, sizeof x, RUN_INFO_V1);
}

int dracel_run_chosen(const dracel_run *r, size_t claim, size_t request)
{
    if (!r || claim > UINT32_MAX || request > UINT32_MAX)
        return -1;
    return dc_alloc_chosen(r->r, (uint32_t)claim, (uint32_t)request);
}

size_t dracel_run_results(const dracel_run *r, size_t claim)
{
    return r && claim < UINT32_MAX ? dc_alloc_nresults(r->r, (uint32_t)claim) : 0;
}

dracel_status dracel_run_result_size(const dracel_run *r, size_t claim, size_t i,
                                     dracel_device_result *out, size_t size)
{
    if (!r || !out || i >= dracel_run_results(r, claim))
        return DRACEL_EINVAL;
    uint32_t tier, row;
    bool admin;
    dc_alloc_result(r->r, (uint32_t)claim, (uint32_t)i, &tier, &row, &admin);
    dc_tier_desc d;
    dc_policy_tier(r->pol->p, tier, &d);
    dracel_device_info di;
    DC_TRY(dracel_table_device(dc_policy_table(r->pol->p), row, &di));
    dracel_device_result x;
    memset(&x, 0, sizeof x);
    x.request = d.name;
    x.driver = di.driver;
    x.pool = di.pool;
    x.device = di.device;
    x.tier = tier;
    x.admin_access = admin;
    uint32_t nc;
    x.share_id = dc_alloc_share(r->r, (uint32_t)claim, (uint32_t)i, &nc);
    x.nconsumed = nc;
    x.nbinding = dc_alloc_conditions(r->r, (uint32_t)claim, (uint32_t)i, false, 0, NULL);
    x.nbinding_failure = dc_alloc_conditions(r->r, (uint32_t)claim, (uint32_t)i, true, 0, NULL);
    return dc_struct_write(out, size, &x, sizeof x, RESULT_V1);
}

dracel_status dracel_run_result_condition(const dracel_run *r, size_t claim, size_t i,
                                          bool failure, size_t k, const char **name)
{
    if (!r || !name || claim > UINT32_MAX || i > UINT32_MAX || k > UINT32_MAX)
        return DRACEL_EINVAL;
    return k < dc_alloc_conditions(r->r, (uint32_t)claim, (uint32_t)i, failure, (uint32_t)k, name)
               ? DRACEL_OK
               : DRACEL_EINVAL;
}

dracel_status dracel_run_result_consumed(const dracel_run *r, size_t claim, size_t i, size_t k,
                                         const char **name, const char **quantity)
{
    if (!r || !name || !quantity || claim > UINT32_MAX || i > UINT32_MAX || k > UINT32_MAX)
        return DRACEL_EINVAL;
    return dc_alloc_consumed(r->r, (uint32_t)claim, (uint32_t)i, (uint32_t)k, name, quantity)
               ? DRACEL_OK
               : DRACEL_EINVAL;
}

size_t dracel_run_configs(const dracel_run *r, size_t claim)
{
    return r && claim < UINT32_MAX ? dc_alloc_nconfigs(r->r, (uint32_t)claim) : 0;
}

dracel_status dracel_run_config_size(const dracel_run *r, size_t claim, size_t i,
                                     dracel_device_config *out, size_t size)
{
    if (!r || !out || i >= dracel_run_configs(r, claim))
        return DRACEL_EINVAL;
    const dc_alloc_config *e = dc_alloc_config_of(r->r, (uint32_t)claim, (uint32_t)i);
    dracel_device_config x;
    memset(&x, 0, sizeof x);
    x.from_class = e->from_class;
    x.driver = e->driver ? e->driver : "";
    x.parameters = e->parameters;
    x.requests = e->requests;
    x.nrequests = e->nrequests;
    return dc_struct_write(out, size, &x, sizeof x, CONFIG_V1);
}

/* A rendering into a string of the policy's allocator; NULL on ENOMEM. */
static char *render(const dracel_run *r, void (*fn)(const dc_alloc_run *, dc_buf *))
{
    if (!r)
        return NULL;
    dc_buf b;
    dc_buf_init(&b, &r->pol->alloc);
    fn(r->r, &b);
    dc_buf_puts(&b, "");
    return dc_buf_take(&b);
}

char *dracel_run_json(const dracel_run *r)
{
    return render(r, dc_alloc_json);
}

char *dracel_run_node_json(const dracel_run *r)
{
    return render(r, dc_alloc_node_json);
}

char *dracel_run_text(const dracel_run *r)
{
    return render(r, dc_alloc_text);
}

char *dracel_run_summary(const dracel_run *r)
{
    return render(r, dc_alloc_summary);
}

char *dracel_run_line(const dracel_run *r)
{
    if (!r)
        return NULL;
    dc_buf b;
    dc_buf_init(&b, &r->pol->alloc);
    const char *node = dc_alloc_node_name(r->r), *msg = dc_alloc_message(r->r);
    dc_buf_puts(&b, node ? node : "");
    switch (dc_alloc_outcome_of(r->r)) {
    case DC_ALLOC_ALLOCATED: {
        const char *tiers = dc_alloc_tiers(r->r);
        dc_buf_printf(&b, ": allocated%s%s (score %d): ", tiers && *tiers ? " " : "",
                      tiers ? tiers : "", dc_alloc_score(r->r));
        size_t before = b.len;
        dc_alloc_summary(r->r, &b);
        if (b.len == before && !b.oom) /* a pod with no claim, its extended resources not DRA's */
            dc_buf_puts(&b, "no device to allocate: no claim, and the pod's extended "
                            "resources, if any, are not DRA's on this node (its allocatable "
                            "serves them, as NodeResourcesFit checks)");
        break;
    }
    case DC_ALLOC_ERROR:
        dc_buf_printf(&b, ": error%s: %s", dc_alloc_node_local(r->r) ? " (node-local)" : "",
                      msg ? msg : "");
        break;
    default: {
        dc_buf_puts(&b, ": unschedulable");
        size_t at = b.len;
        if (msg)
            dc_buf_printf(&b, ": %s", msg);
        else {
            dc_buf_puts(&b, ": ");
            size_t before = b.len;
            dc_alloc_summary(r->r, &b);
            if (b.len == before && !b.oom)
                b.len = at; /* nothing to say */
        }
        break;
    }
    }
    dc_buf_puts(&b, "");
    return dc_buf_take(&b);
}

char *dracel_run_explain_json(const dracel_run *r)
{
    return r && dc_alloc_explained(r->r) ? render(r, dc_alloc_explain_json) : NULL;
}

char *dracel_run_explain_text(const dracel_run *r)
{
    return r && dc_alloc_explained(r->r) ? render(r, dc_alloc_explain_text) : NULL;
}

char *dracel_run_node_selector_json(const dracel_run *r, size_t claim)
{
    if (!r || claim >= dc_policy_nclaims(r->pol->p) ||
        dc_alloc_outcome_of(r->r) != DC_ALLOC_ALLOCATED)
        return NULL;
    dc_buf b;
    dc_buf_init(&b, &r->pol->alloc);
    dc_alloc_node_selector_json(r->r, (uint32_t)claim, &b);
    if (!b.len || b.oom) {
        dc_buf_free(&b);
        return NULL;
    }
    return dc_buf_take(&b);
}

static bool tier_ok(const dracel_run *r, size_t tier)
{
    return r && dc_alloc_explained(r->r) && tier < dc_policy_ntiers(r->pol->p);
}

dracel_status dracel_run_explain_tier_size(const dracel_run *r, size_t tier,
                                           dracel_tier_explanation *out, size_t size)
{
    if (!out || !tier_ok(r, tier))
        return DRACEL_EINVAL;
    dc_tier_expl e;
    dc_alloc_tier_expl(r->r, (uint32_t)tier, &e);
    dc_tier_desc d;
    dc_policy_tier(r->pol->p, (uint32_t)tier, &d);
    dracel_tier_explanation x;
    memset(&x, 0, sizeof x);
    x.status = (dracel_tier_status)e.status;
    x.reason = e.reason;
    if (e.status == DC_TIER_FAILED && !e.reason)
        return DRACEL_ENOMEM; /* its text is made on first use */
    x.needed = e.needed;
    x.candidates = e.candidates;
    x.available = e.available;
    memcpy(x.excluded, e.excluded, sizeof x.excluded);
    x.nselectors = d.nsels;
    x.unevaluated = e.unevaluated;
    x.excluded_capacity = e.capacity;
    x.excluded_binding = e.binding;
    x.excluded_ungated = e.ungated;
    return dc_struct_write(out, size, &x, sizeof x, TIER_EXPL_V1);
}

dracel_status dracel_run_explain_selector_size(const dracel_run *r, size_t tier, size_t k,
                                               dracel_selector_explanation *out, size_t size)
{
    if (!out || !tier_ok(r, tier))
        return DRACEL_EINVAL;
    dc_tier_desc d;
    dc_policy_tier(r->pol->p, (uint32_t)tier, &d);
    if (k >= d.nsels)
        return DRACEL_EINVAL;
    dc_sel_expl e;
    dc_alloc_sel_expl(r->r, (uint32_t)tier, (uint32_t)k, &e);
    dracel_selector_explanation x;
    memset(&x, 0, sizeof x);
    uint32_t len;
    x.from_class = e.from_class;
    x.index = e.index;
    x.expression = dc_policy_selector(r->pol->p, (uint32_t)tier, (uint32_t)k, &len,
                                      &x.compile_error);
    x.rejected = e.rejected;
    x.errored = e.errored;
    x.nexamples = e.nexamples;
    return dc_struct_write(out, size, &x, sizeof x, SEL_EXPL_V1);
}

dracel_status dracel_run_explain_example_size(const dracel_run *r, size_t tier, size_t k,
                                              size_t e, dracel_example *out, size_t size)
{
    if (!out || !tier_ok(r, tier))
        return DRACEL_EINVAL;
    dc_tier_desc d;
    dc_policy_tier(r->pol->p, (uint32_t)tier, &d);
    if (k >= d.nsels)
        return DRACEL_EINVAL;
    dc_sel_expl s;
    dc_alloc_sel_expl(r->r, (uint32_t)tier, (uint32_t)k, &s);
    if (e >= s.nexamples)
        return DRACEL_EINVAL;
    if (!s.examples[e])
        return DRACEL_ENOMEM; /* its text is made on first use */
    dracel_device_info di;
    DC_TRY(dracel_table_device(dc_policy_table(r->pol->p), s.rows[e], &di));
    dracel_example x;
    memset(&x, 0, sizeof x);
    x.driver = di.driver;
    x.pool = di.pool;
    x.device = di.device;
    x.text = s.examples[e];
    x.errored = s.example_errored[e];
    return dc_struct_write(out, size, &x, sizeof x, EXAMPLE_V1);
}

/* ---------------------------------------------------------------------------------------------
 * Scenarios
 */

struct dracel_scenario {
    dracel_objects objs;
    dracel_table *t;
    dracel_usage *u;
    dc_scenario sc;
};

void dracel_scenario_free(dracel_scenario *s)
{
    if (!s)
        return;
    dracel_alloc a = s->objs.alloc;
    dracel_usage_free(s->u);
    dracel_table_free(s->t);
    dc_objects_free(&s->objs.o);
    dc_free(&a, s, sizeof *s);
}

static dracel_status scenario(const dracel_config *cfg, const char *path, const char *name,
                              const char *buf, size_t len, dracel_scenario **out, char *err,
                              size_t errcap)
{
    set_err(err, errcap, "");
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    dracel_scenario *s = dc_malloc(dc_alloc_of(&c), sizeof *s);
    if (!s) {
        set_err(err, errcap, "out of memory");
        return DRACEL_ENOMEM;
    }
    memset(s, 0, sizeof *s);
    dc_api_objects_init(&s->objs, &c);
    dracel_status st = path ? dc_scenario_load(&s->objs.o, &s->sc, path, NULL, err, errcap)
                            : dc_scenario_load_buffer(&s->objs.o, &s->sc, name ? name : "<buffer>",
                                                      buf, len, NULL, err, errcap);
    if (st == DRACEL_OK)
        st = dc_api_table_build(&s->objs.cfg, &s->objs.o.slices, &s->t, err, errcap);
    if (st == DRACEL_OK && (s->sc.nallocated || s->sc.nshares)) {
        const dracel_alloc *a = dc_api_table_alloc(s->t);
        s->u = dc_malloc(a, sizeof *s->u);
        if (!s->u) {
            st = DRACEL_ENOMEM;
        } else {
            s->u->alloc = *a;
            st = dc_usage_new_shared(s->t, &s->u->alloc, s->sc.allocated, s->sc.nallocated,
                                     s->sc.shares, s->sc.nshares, &s->u->u);
            if (st != DRACEL_OK) {
                dc_free(a, s->u, sizeof *s->u);
                s->u = NULL;
            }
        }
    }
    if (st != DRACEL_OK) {
        if (st == DRACEL_ENOMEM)
            set_err(err, errcap, "out of memory");
        dracel_scenario_free(s);
        return st;
    }
    *out = s;
    return DRACEL_OK;
}

dracel_status dracel_scenario_load(const dracel_config *cfg, const char *path,
                                   dracel_scenario **out, char *err, size_t errcap)
{
    if (!path)
        return DRACEL_EINVAL;
    return scenario(cfg, path, NULL, NULL, 0, out, err, errcap);
}

dracel_status dracel_scenario_load_buffer(const dracel_config *cfg, const char *name,
                                          const char *buf, size_t len, dracel_scenario **out,
                                          char *err, size_t errcap)
{
    if (!buf && len)
        return DRACEL_EINVAL;
    return scenario(cfg, NULL, name, buf ? buf : "", len, out, err, errcap);
}

const dracel_objects *dracel_scenario_objects(const dracel_scenario *s)
{
    return s ? &s->objs : NULL;
}

const dracel_table *dracel_scenario_table(const dracel_scenario *s)
{
    return s ? s->t : NULL;
}

const dracel_usage *dracel_scenario_usage(const dracel_scenario *s)
{
    return s ? s->u : NULL;
}

void dracel_scenario_node(const dracel_scenario *s, dracel_node *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!s)
        return;
    out->name = s->sc.node.name;
    out->labels = (const dracel_label *)s->sc.node.labels;
    out->nlabels = s->sc.node.nlabels;
}

unsigned dracel_scenario_features(const dracel_scenario *s)
{
    return s ? s->sc.features : 0;
}

unsigned dracel_scenario_kubernetes(const dracel_scenario *s)
{
    return s && s->sc.release ? s->sc.release : DC_K8S_NEWEST;
}

bool dracel_scenario_extended_claim(const dracel_scenario *s)
{
    return s && s->sc.extended_claim;
}

dracel_status dracel_scenario_request_mapping(const dracel_scenario *s, size_t i,
                                              const char **container, const char **resource,
                                              const char **request)
{
    if (!s || !container || !resource || !request || i >= s->sc.nmappings)
        return DRACEL_EINVAL;
    const dc_req_mapping *m = &s->sc.mappings[i];
    *container = m->container;
    *resource = m->resource;
    *request = m->request;
    return DRACEL_OK;
}

unsigned dracel_scenario_gates(const dracel_scenario *s, unsigned minor)
{
    if (!s)
        return 0;
    if (!minor || !dc_k8s_defaults(minor))
        minor = dracel_scenario_kubernetes(s);
    if (s->sc.listed || minor == dracel_scenario_kubernetes(s))
        return s->sc.features; /* (list | on) & ~off, whatever the release */
    return (dc_k8s_defaults(minor) | s->sc.gates_on) & ~s->sc.gates_off;
}
