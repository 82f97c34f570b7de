/*
 * test_cluster.c: the cluster state and its snapshots (include/dracel.h, "Cluster state and
 * snapshots") as a program sees them, through dracel.h alone: every function and its argument
 * checks; apply, replace, delete and set_source, all or nothing on rejected input and on every
 * allocation failure; sources (the last to apply an object owns it); snapshots that stay as they
 * were while the cluster changes (a reader thread allocating on an old snapshot while the writer
 * applies and snapshots: `make check-threads` runs it under ThreadSanitizer); claim status read
 * back; the usage against dracel_usage_new over the same results; claim_fits on node selector
 * terms; snapshot policies against dracel_policy_new on the same objects, on the examples and on
 * every scenario of tests/alloc/ that a cluster can hold.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dracel.h"
#include "testutil.h"

static char err[2048];

#define ALL (DRACEL_OBJ_SLICE | DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM | DRACEL_OBJ_NODE)

/* ---------------------------------------------------------------------------------------------
 * Objects
 */

static const char SLICES[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceSlice\n"
    "metadata: {name: node-a-gpu}\n"
    "spec:\n"
    "  driver: gpu.example.com\n"
    "  nodeName: node-a\n"
    "  pool: {name: node-a, generation: 1, resourceSliceCount: 1}\n"
    "  devices:\n"
    "  - {name: gpu-0, attributes: {model: {string: H100}}}\n"
    "  - {name: gpu-1, attributes: {model: {string: A100}}}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceSlice\n"
    "metadata: {name: node-b-gpu}\n"
    "spec:\n"
    "  driver: gpu.example.com\n"
    "  nodeName: node-b\n"
    "  pool: {name: node-b, generation: 1, resourceSliceCount: 1}\n"
    "  devices:\n"
    "  - {name: gpu-0, attributes: {model: {string: H100}}}\n";

static const char CLASS[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: DeviceClass\n"
    "metadata: {name: gpu.example.com}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n";

static const char NODES[] =
    "kind: List\n"
    "items:\n"
    "- {apiVersion: v1, kind: Node, metadata: {name: node-a, labels: {zone: a}}}\n"
    "- {apiVersion: v1, kind: Node, metadata: {name: node-b, labels: {zone: b, rack: r1}},\n"
    "   status: {images: [{names: [x], sizeBytes: 1}]}}\n";

/* A claim of one GPU (an H100, else any), allocated when @p dev is "POOL/DEVICE" (NULL: not),
 * with @p extra appended to the allocation (a nodeSelector) or nothing. Release with free. */
static char *claim_text(const char *name, const char *dev, bool admin, const char *extra)
{
    char status[1024] = "";
    if (dev) {
        const char *slash = strchr(dev, '/');
        snprintf(status, sizeof status,
                 "status:\n"
                 "  allocation:\n"
                 "    devices:\n"
                 "      results:\n"
                 "      - {request: gpu/h100, driver: gpu.example.com, pool: %.*s, device: %s%s}\n"
                 "%s"
                 "  reservedFor:\n"
                 "  - {resource: pods, name: p-%s, uid: uid-%s}\n",
                 (int)(slash - dev), dev, slash + 1, admin ? ", adminAccess: true" : "",
                 extra ? extra : "", name, name);
    }
    size_t cap = 2048;
    char *t = malloc(cap);
    assert_non_null(t);
    snprintf(t, cap,
             "apiVersion: resource.k8s.io/v1\n"
             "kind: ResourceClaim\n"
             "metadata: {name: %s, namespace: default}\n"
             "spec:\n"
             "  devices:\n"
             "    requests:\n"
             "    - name: gpu\n"
             "      firstAvailable:\n"
             "      - name: h100\n"
             "        deviceClassName: gpu.example.com\n"
             "        selectors:\n"
             "        - cel: {expression: 'device.attributes[\"gpu.example.com\"].model == "
             "\"H100\"'}\n"
             "      - {name: any, deviceClassName: gpu.example.com}\n"
             "%s",
             name, status);
    return t;
}

static void apply(dracel_cluster *c, const char *source, const char *text, unsigned kinds)
{
    dracel_status st = dracel_cluster_apply(c, source, text, strlen(text), kinds, err, sizeof err);
    if (st != DRACEL_OK)
        fail_msg("apply %s: status %d: %s", source, st, err);
}

static void apply_claim(dracel_cluster *c, const char *source, const char *name, const char *dev,
                        bool admin, const char *extra)
{
    char *t = claim_text(name, dev, admin, extra);
    apply(c, source, t, DRACEL_OBJ_CLAIM);
    free(t);
}

static dracel_snapshot *snap(dracel_cluster *c)
{
    dracel_snapshot *s = NULL;
    dracel_status st = dracel_cluster_snapshot(c, &s, err, sizeof err);
    if (st != DRACEL_OK)
        fail_msg("snapshot: status %d: %s", st, err);
    return s;
}

/* The index of claim default/@p name in @p s, or SIZE_MAX. */
static size_t claim_ix(const dracel_snapshot *s, const char *name)
{
    size_t i;
    return dracel_snapshot_claim_find(s, "default", name, &i) == DRACEL_OK ? i : SIZE_MAX;
}

static dracel_claim_status claim_st(const dracel_snapshot *s, const char *name)
{
    size_t i = claim_ix(s, name);
    assert_true(i != SIZE_MAX);
    dracel_claim_status cs;
    assert_int_equal(dracel_snapshot_claim(s, i, &cs), DRACEL_OK);
    assert_string_equal(cs.name, name);
    return cs;
}

/* A cluster with the two slices, the class and the two nodes (each from its own source). */
static dracel_cluster *base(void)
{
    dracel_cluster *c;
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    apply(c, "slices.yaml", SLICES, ALL);
    apply(c, "class.yaml", CLASS, ALL);
    apply(c, "nodes.yaml", NODES, ALL);
    return c;
}

/* ---------------------------------------------------------------------------------------------
 * The empty cluster, and bad arguments
 */

static void test_empty(void **state)
{
    (void)state;
    dracel_cluster *c;
    assert_int_equal(dracel_cluster_new(NULL, NULL), DRACEL_EINVAL);
    dracel_config bad;
    dracel_config_init(&bad);
    bad.size = 4;
    assert_int_equal(dracel_cluster_new(&bad, &c), DRACEL_EINVAL);
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    for (unsigned k = 1; k <= DRACEL_OBJ_NODE; k <<= 1)
        assert_int_equal(dracel_cluster_count(c, k), 0);
    assert_int_equal(dracel_cluster_count(c, ALL), 0);
    assert_int_equal(dracel_cluster_count(NULL, DRACEL_OBJ_NODE), 0);
    assert_int_equal(dracel_cluster_notes(c), 0);
    assert_null(dracel_cluster_note(c, 0));

    dracel_snapshot *s = snap(c), *s2 = snap(c);
    assert_ptr_equal(s, s2); /* nothing changed: the same snapshot */
    dracel_snapshot_unref(s2);
    assert_int_equal(dracel_snapshot_id(s), 1);
    assert_int_equal(dracel_table_rows(dracel_snapshot_table(s)), 0);
    assert_int_equal(dracel_objects_count(dracel_snapshot_classes(s), DRACEL_OBJ_CLASS), 0);
    assert_int_equal(dracel_usage_devices(dracel_snapshot_usage(s)), 0);
    assert_int_equal(dracel_snapshot_claims(s), 0);
    assert_int_equal(dracel_snapshot_nodes(s), 0);
    size_t i;
    dracel_node n;
    dracel_claim_status cs;
    dracel_device_result r;
    dracel_claim_consumer u;
    assert_int_equal(dracel_snapshot_node_find(s, "x", &i), DRACEL_EINPUT);
    assert_int_equal(dracel_snapshot_claim_find(s, NULL, "x", &i), DRACEL_EINPUT);
    assert_int_equal(dracel_snapshot_node(s, 0, &n), DRACEL_EINVAL);
    assert_int_equal(dracel_snapshot_claim(s, 0, &cs), DRACEL_EINVAL);
    assert_int_equal(dracel_snapshot_claim_result(s, 0, 0, &r), DRACEL_EINVAL);
    assert_int_equal(dracel_snapshot_claim_consumer(s, 0, 0, &u), DRACEL_EINVAL);
    dracel_node any = {"n", NULL, 0};
    assert_false(dracel_snapshot_claim_fits(s, 0, &any));
    dracel_policy *p;
    size_t idx = 0;
    assert_int_equal(dracel_snapshot_policy_new(NULL, s, &idx, 1, &p, err, sizeof err),
                     DRACEL_EINVAL);
    assert_string_equal(err, "a claim index is out of range");
    assert_int_equal(dracel_snapshot_policy_new(NULL, s, NULL, 0, &p, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_policy_claims(p), 0);
    dracel_policy_free(p);

    /* bad arguments */
    assert_int_equal(dracel_cluster_apply(NULL, "s", "", 0, ALL, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_cluster_apply(c, NULL, "", 0, ALL, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_cluster_apply(c, "s", NULL, 3, ALL, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_cluster_apply(c, "s", "", 0, 0, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_cluster_apply(c, "s", "", 0, 1u << 5, err, sizeof err),
                     DRACEL_EINVAL);
    assert_int_equal(dracel_cluster_set_source(c, "s", NULL, 0, ALL, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_cluster_delete(c, ALL, NULL, "x"), DRACEL_EINVAL);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_NODE, NULL, NULL), DRACEL_EINVAL);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_NODE, NULL, "x"), DRACEL_EINPUT);
    assert_int_equal(dracel_cluster_snapshot(c, NULL, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_snapshot_node_find(s, NULL, &i), DRACEL_EINVAL);
    assert_int_equal(dracel_snapshot_claim_find(s, NULL, "x", NULL), DRACEL_EINVAL);
    assert_int_equal(dracel_snapshot_policy_new(NULL, NULL, NULL, 0, &p, err, sizeof err),
                     DRACEL_EINVAL);
    assert_int_equal(dracel_snapshot_id(NULL), 0);
    assert_null(dracel_snapshot_table(NULL));
    assert_null(dracel_snapshot_classes(NULL));
    assert_null(dracel_snapshot_usage(NULL));
    assert_int_equal(dracel_snapshot_claims(NULL), 0);
    assert_int_equal(dracel_snapshot_nodes(NULL), 0);
    assert_null(dracel_snapshot_ref(NULL));
    dracel_snapshot_unref(NULL);
    dracel_cluster_free(NULL);

    dracel_snapshot *s3 = snap(c); /* an empty set_source changed nothing */
    assert_ptr_equal(s3, s);
    dracel_snapshot_unref(s3);
    dracel_cluster_free(c);
    assert_int_equal(dracel_snapshot_claims(s), 0); /* a snapshot outlives its cluster */
    dracel_snapshot_unref(s);
}

/* ---------------------------------------------------------------------------------------------
 * Applying: kinds, notes, what a snapshot shows
 */

static void test_apply(void **state)
{
    (void)state;
    char *c1 = claim_text("c1", "node-a/gpu-0", false,
                          "    nodeSelector:\n"
                          "      nodeSelectorTerms:\n"
                          "      - matchFields: [{key: metadata.name, operator: In, values: "
                          "[node-a]}]\n");
    char *c2 = claim_text("c2", NULL, false, NULL);
    size_t cap = strlen(c1) + strlen(c2) + 4096;
    char *all = malloc(cap);
    snprintf(all, cap,
             "%s---\n%s---\n%s---\n%s---\n%s---\n"
             "apiVersion: resource.k8s.io/v1\n"
             "kind: ResourceClaimTemplate\n"
             "metadata: {name: tmpl, namespace: default}\n"
             "spec: {spec: {}}\n"
             "---\n"
             "apiVersion: v1\n"
             "kind: Pod\n"
             "metadata: {name: pod}\n",
             SLICES, CLASS, NODES, c1, c2);
    dracel_cluster *c;
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    apply(c, "all.yaml", all, ALL);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_SLICE), 2);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLASS), 1);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 2);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_NODE), 2);
    assert_int_equal(dracel_cluster_notes(c), 2);
    assert_string_equal(dracel_cluster_note(c, 0), "all.yaml:76: skipped object of kind Pod (pod)");
    assert_string_equal(dracel_cluster_note(c, 1),
                        "all.yaml:71: skipped object of kind ResourceClaimTemplate (tmpl): a "
                        "template is not the claim of a pod");

    dracel_snapshot *s = snap(c);
    assert_int_equal(dracel_snapshot_id(s), 1);
    const dracel_table *t = dracel_snapshot_table(s);
    assert_int_equal(dracel_table_rows(t), 3);
    const dracel_objects *cls = dracel_snapshot_classes(s);
    size_t i;
    assert_int_equal(dracel_objects_count(cls, DRACEL_OBJ_CLASS), 1);
    assert_int_equal(dracel_objects_find(cls, DRACEL_OBJ_CLASS, NULL, "gpu.example.com", &i),
                     DRACEL_OK);
    dracel_object_info oi;
    assert_int_equal(dracel_objects_get(cls, DRACEL_OBJ_CLASS, 0, &oi), DRACEL_OK);
    assert_string_equal(oi.file, "all.yaml");
    assert_int_equal(oi.line, 22);

    /* nodes: only the name and labels, sorted */
    assert_int_equal(dracel_snapshot_nodes(s), 2);
    assert_int_equal(dracel_snapshot_node_find(s, "node-b", &i), DRACEL_OK);
    dracel_node n;
    assert_int_equal(dracel_snapshot_node(s, i, &n), DRACEL_OK);
    assert_string_equal(n.name, "node-b");
    assert_int_equal(n.nlabels, 2);
    assert_string_equal(n.labels[0].key, "rack");
    assert_string_equal(n.labels[1].value, "b");

    /* claims and their status */
    assert_int_equal(dracel_snapshot_claims(s), 2);
    assert_int_equal(dracel_snapshot_claim_find(s, NULL, "c1", &i), DRACEL_EINPUT);
    assert_int_equal(dracel_snapshot_claim_find(s, "", "c1", &i), DRACEL_EINPUT);
    dracel_claim_status cs = claim_st(s, "c1");
    assert_string_equal(cs.ns, "default");
    assert_true(cs.allocated);
    assert_int_equal(cs.nresults, 1);
    assert_true(cs.node_selector);
    assert_int_equal(cs.nreserved, 1);
    i = claim_ix(s, "c1");
    dracel_device_result r;
    assert_int_equal(dracel_snapshot_claim_result(s, i, 0, &r), DRACEL_OK);
    assert_string_equal(r.request, "gpu/h100");
    assert_string_equal(r.driver, "gpu.example.com");
    assert_string_equal(r.pool, "node-a");
    assert_string_equal(r.device, "gpu-0");
    assert_int_equal(r.tier, SIZE_MAX);
    assert_false(r.admin_access);
    assert_int_equal(dracel_snapshot_claim_result(s, i, 1, &r), DRACEL_EINVAL);
    dracel_claim_consumer u;
    assert_int_equal(dracel_snapshot_claim_consumer(s, i, 0, &u), DRACEL_OK);
    assert_null(u.api_group);
    assert_string_equal(u.resource, "pods");
    assert_string_equal(u.name, "p-c1");
    assert_string_equal(u.uid, "uid-c1");
    assert_int_equal(dracel_snapshot_claim_consumer(s, i, 1, &u), DRACEL_EINVAL);
    dracel_claim_status cs2 = claim_st(s, "c2");
    assert_false(cs2.allocated);
    assert_int_equal(cs2.nresults, 0);
    assert_false(cs2.node_selector);
    assert_int_not_equal(cs.version, cs2.version);
    assert_int_equal(dracel_usage_devices(dracel_snapshot_usage(s)), 1);
    dracel_snapshot_unref(s);
    dracel_cluster_free(c);

    /* kinds: the others are skipped with a note, and an object without kind is the one asked */
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    apply(c, "all.yaml", all, DRACEL_OBJ_CLAIM);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 2);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_SLICE), 0);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_NODE), 0);
    /* 2 slices, a class, 2 nodes, a pod, a template */
    assert_int_equal(dracel_cluster_notes(c), 7);
    assert_string_equal(dracel_cluster_note(c, 0),
                        "all.yaml:1: skipped object of kind ResourceSlice (node-a-gpu)");
    apply(c, "kindless.yaml", "metadata: {name: n9, labels: {a: b}}\n", DRACEL_OBJ_NODE);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_NODE), 1);
    assert_int_equal(dracel_cluster_notes(c), 0); /* notes are the last call's */
    apply(c, "kindless.yaml", "metadata: {name: n9}\n", DRACEL_OBJ_NODE | DRACEL_OBJ_CLASS);
    assert_int_equal(dracel_cluster_notes(c), 1);
    assert_string_equal(dracel_cluster_note(c, 0),
                        "kindless.yaml:1: skipped object without kind (n9)");
    s = snap(c);
    assert_int_equal(dracel_snapshot_claims(s), 2);
    assert_int_equal(dracel_snapshot_nodes(s), 1);
    assert_int_equal(dracel_snapshot_node_find(s, "n9", &i), DRACEL_OK);
    assert_int_equal(dracel_snapshot_node(s, i, &n), DRACEL_OK);
    assert_int_equal(n.nlabels, 1);
    /* a slice-shaped object without kind is a ResourceSlice */
    apply(c, "kindless.yaml",
          "metadata: {name: s9}\n"
          "spec: {driver: gpu.example.com, allNodes: true, pool: {name: p9, generation: 1, "
          "resourceSliceCount: 1}, devices: [{name: d}]}\n",
          DRACEL_OBJ_SLICE);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_SLICE), 1);
    dracel_snapshot *s2 = snap(c);
    assert_int_equal(dracel_snapshot_id(s2), 2);
    assert_int_equal(dracel_table_rows(dracel_snapshot_table(s2)), 1);
    assert_int_equal(dracel_table_rows(dracel_snapshot_table(s)), 0);
    dracel_snapshot_unref(s2);
    dracel_snapshot_unref(s);
    dracel_cluster_free(c);
    free(all);
    free(c1);
    free(c2);
}

/* ---------------------------------------------------------------------------------------------
 * Replacing and deleting; snapshots stay as they were
 */

static void test_changes(void **state)
{
    (void)state;
    dracel_cluster *c = base();
    /* 100 claims in one buffer */
    size_t cap = 100 * 1024, len = 0;
    char *buf = malloc(cap);
    for (int k = 0; k < 100; k++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", k);
        char *t = claim_text(name, NULL, false, NULL);
        len += (size_t)snprintf(buf + len, cap - len, "%s---\n", t);
        free(t);
    }
    apply(c, "claims.yaml", buf, ALL);
    dracel_snapshot *s1 = snap(c);
    assert_int_equal(dracel_snapshot_claims(s1), 100);
    dracel_claim_status c5 = claim_st(s1, "c5");
    assert_false(c5.allocated);

    /* c5 allocated: a new snapshot shows it, the old one does not */
    apply_claim(c, "claims.yaml", "c5", "node-a/gpu-1", false, NULL);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 100);
    dracel_snapshot *s2 = snap(c);
    assert_true(dracel_snapshot_id(s2) > dracel_snapshot_id(s1));
    dracel_claim_status c5b = claim_st(s2, "c5");
    assert_true(c5b.allocated);
    assert_int_not_equal(c5b.version, c5.version);
    assert_false(claim_st(s1, "c5").allocated);
    assert_int_equal(claim_ix(s1, "c5"), claim_ix(s2, "c5")); /* a replaced claim keeps its place */
    assert_int_equal(dracel_usage_devices(dracel_snapshot_usage(s1)), 0);
    assert_int_equal(dracel_usage_devices(dracel_snapshot_usage(s2)), 1);
    /* unchanged parts are shared */
    assert_ptr_equal(dracel_snapshot_table(s1), dracel_snapshot_table(s2));
    assert_ptr_equal(dracel_snapshot_classes(s1), dracel_snapshot_classes(s2));

    /* the same object again changes nothing: the same snapshot */
    apply_claim(c, "claims.yaml", "c5", "node-a/gpu-1", false, NULL);
    dracel_snapshot *same = snap(c);
    assert_ptr_equal(same, s2);
    dracel_snapshot_unref(same);

    /* deletions: the last claim moves into the hole; every other is still found */
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, NULL, "c10"), DRACEL_EINPUT);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, "default", "c10"), DRACEL_OK);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, "default", "c10"), DRACEL_EINPUT);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, "default", "c0"), DRACEL_OK);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, "default", "c99"), DRACEL_OK);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 97);
    /* cluster-scoped kinds ignore the namespace */
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_NODE, "ns", "node-a"), DRACEL_OK);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_NODE), 1);
    dracel_snapshot *s3 = snap(c);
    assert_int_equal(dracel_snapshot_claims(s3), 97);
    assert_int_equal(dracel_snapshot_nodes(s3), 1);
    size_t i;
    assert_int_equal(dracel_snapshot_node_find(s3, "node-a", &i), DRACEL_EINPUT);
    assert_int_equal(dracel_snapshot_node_find(s3, "node-b", &i), DRACEL_OK);
    assert_int_equal(i, 0);
    for (int k = 0; k < 100; k++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", k);
        size_t at = claim_ix(s3, name);
        if (k == 0 || k == 10 || k == 99) {
            assert_int_equal(at, SIZE_MAX);
            continue;
        }
        assert_true(at < 97);
        dracel_claim_status cs;
        assert_int_equal(dracel_snapshot_claim(s3, at, &cs), DRACEL_OK);
        assert_string_equal(cs.name, name);
        assert_true(claim_ix(s2, name) < 100); /* and the old snapshot still has them all */
    }
    assert_int_equal(dracel_snapshot_claims(s2), 100);
    assert_true(claim_ix(s2, "c10") != SIZE_MAX);
    assert_int_equal(dracel_snapshot_nodes(s2), 2);

    /* many rounds of deletions and additions: the index of each snapshot finds every claim */
    for (int round = 0; round < 40; round++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", 1 + (round * 37) % 98);
        (void)dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, "default", name);
        snprintf(name, sizeof name, "n%d", round);
        apply_claim(c, "more.yaml", name, round % 3 ? NULL : "node-b/gpu-0", false, NULL);
        dracel_snapshot *s = snap(c);
        size_t nc = dracel_snapshot_claims(s);
        assert_int_equal(nc, dracel_cluster_count(c, DRACEL_OBJ_CLAIM));
        for (size_t k = 0; k < nc; k++) {
            dracel_claim_status cs;
            assert_int_equal(dracel_snapshot_claim(s, k, &cs), DRACEL_OK);
            assert_int_equal(claim_ix(s, cs.name), k);
        }
        dracel_snapshot_unref(s);
    }
    dracel_snapshot_unref(s3);
    dracel_snapshot_unref(s1);
    dracel_cluster_free(c);
    /* a snapshot outlives the cluster */
    assert_int_equal(dracel_snapshot_claims(s2), 100);
    assert_true(claim_st(s2, "c5").allocated);
    dracel_snapshot_unref(s2);
    free(buf);
}

/* ---------------------------------------------------------------------------------------------
 * All or nothing
 */

static void test_all_or_nothing(void **state)
{
    (void)state;
    dracel_cluster *c = base();
    apply_claim(c, "c.yaml", "c1", NULL, false, NULL);
    dracel_snapshot *s = snap(c);

    /* a valid claim, then a rejected one: neither is taken */
    char *good = claim_text("c2", "node-a/gpu-0", false, NULL);
    char *bad = claim_text("c3", "node-a/Gpu-0", false, NULL);
    size_t cap = strlen(good) + strlen(bad) + 64;
    char *both = malloc(cap);
    snprintf(both, cap, "%s---\n%s", good, bad);
    assert_int_equal(dracel_cluster_apply(c, "both.yaml", both, strlen(both), ALL, err, sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "both.yaml:39: ResourceClaim c3: status.allocation.devices.results[0]."
                             "device: invalid value \"Gpu-0\": must be a lowercase RFC 1123 label "
                             "(at most 63 characters: 'a'-'z', '0'-'9' and '-', starting and "
                             "ending with a letter or digit)");
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 1);
    /* the same through set_source: nothing of the source is deleted either */
    assert_int_equal(dracel_cluster_set_source(c, "c.yaml", both, strlen(both), ALL, err,
                                               sizeof err),
                     DRACEL_EINPUT);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 1);

    /* an object without a name; a key twice in one input */
    static const char UNNAMED[] = "kind: DeviceClass\nmetadata: {}\nspec: {}\n";
    assert_int_equal(dracel_cluster_apply(c, "u.yaml", UNNAMED, strlen(UNNAMED), ALL, err,
                                          sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "u.yaml:1: DeviceClass (unnamed): metadata.name: required value");
    snprintf(both, cap, "%s---\n%s", good, good);
    assert_int_equal(dracel_cluster_apply(c, "d.yaml", both, strlen(both), ALL, err, sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "d.yaml:22: ResourceClaim c2: defined twice (also d.yaml:1)");
    static const char TWO_NODES[] = "- {kind: Node, metadata: {name: x}}\n"
                                    "- {kind: Node, metadata: {name: x}}\n";
    assert_int_equal(dracel_cluster_apply(c, "n.yaml", TWO_NODES, strlen(TWO_NODES), ALL, err,
                                          sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "n.yaml:2: Node x: defined twice (also n.yaml:1)");
    /* a rejected slice leaves the fleet as it was */
    static const char BAD_SLICE[] =
        "kind: ResourceSlice\nmetadata: {name: node-a-gpu}\n"
        "spec: {driver: gpu.example.com, nodeName: node-a, pool: {name: node-a, generation: 2, "
        "resourceSliceCount: 0}, devices: [{name: gpu-9}]}\n";
    assert_int_equal(dracel_cluster_apply(c, "s.yaml", BAD_SLICE, strlen(BAD_SLICE), ALL, err,
                                          sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "s.yaml:3: ResourceSlice node-a-gpu: spec.pool.resourceSliceCount: "
                             "invalid value 0: must be greater than zero");
    static const char SYNTAX[] = "{\"kind\": \"Node\", ";
    assert_int_equal(dracel_cluster_apply(c, "x.json", SYNTAX, strlen(SYNTAX), ALL, err,
                                          sizeof err),
                     DRACEL_EINPUT);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 1);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLASS), 1);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_NODE), 2);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_SLICE), 2);
    dracel_snapshot *s2 = snap(c);
    assert_ptr_equal(s2, s); /* nothing changed */
    dracel_snapshot_unref(s2);
    dracel_snapshot_unref(s);
    dracel_cluster_free(c);
    free(both);
    free(good);
    free(bad);
}

/* ---------------------------------------------------------------------------------------------
 * Sources: the last to apply an object owns it
 */

static const char NODE_X[] = "kind: Node\nmetadata: {name: x, labels: {from: a}}\n";
static const char NODE_X2[] = "kind: Node\nmetadata: {name: x, labels: {from: b}}\n";
static const char NODE_Y[] = "kind: Node\nmetadata: {name: yy}\n";

static const char *node_label(dracel_cluster *c, const char *name)
{
    static char value[64];
    dracel_snapshot *s = snap(c);
    size_t i;
    const char *v = NULL;
    if (dracel_snapshot_node_find(s, name, &i) == DRACEL_OK) {
        dracel_node n;
        assert_int_equal(dracel_snapshot_node(s, i, &n), DRACEL_OK);
        v = n.nlabels ? n.labels[0].value : "";
        snprintf(value, sizeof value, "%s", v);
        v = value;
    }
    dracel_snapshot_unref(s);
    return v;
}

static void set_source(dracel_cluster *c, const char *source, const char *text)
{
    dracel_status st = dracel_cluster_set_source(c, source, text, strlen(text), ALL, err,
                                                 sizeof err);
    if (st != DRACEL_OK)
        fail_msg("set_source %s: %d: %s", source, st, err);
}

static void test_sources(void **state)
{
    (void)state;
    dracel_cluster *c;
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    char both[256];
    snprintf(both, sizeof both, "%s---\n%s", NODE_X, NODE_Y);
    set_source(c, "a.yaml", both);
    assert_string_equal(node_label(c, "x"), "a");
    /* b applies x too: the later apply wins, and x is b's from now on */
    set_source(c, "b.yaml", NODE_X2);
    assert_string_equal(node_label(c, "x"), "b");
    /* a rewritten without x: x is not a's any more, it stays */
    set_source(c, "a.yaml", NODE_Y);
    assert_string_equal(node_label(c, "x"), "b");
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_NODE), 2);
    /* b removed: x goes; a's earlier copy is not brought back */
    set_source(c, "b.yaml", "");
    assert_null(node_label(c, "x"));
    assert_string_equal(node_label(c, "yy"), "");
    /* a's file again with x: x is back, a's */
    set_source(c, "a.yaml", both);
    assert_string_equal(node_label(c, "x"), "a");
    /* apply adds and replaces but never deletes */
    assert_int_equal(dracel_cluster_apply(c, "a.yaml", NODE_X2, strlen(NODE_X2), ALL, err,
                                          sizeof err),
                     DRACEL_OK);
    assert_string_equal(node_label(c, "x"), "b");
    assert_string_equal(node_label(c, "yy"), "");
    /* a delete removes the object whoever owns it */
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_NODE, NULL, "yy"), DRACEL_OK);
    set_source(c, "a.yaml", NODE_X);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_NODE), 1);
    /* set_source replaces only the kinds it is given */
    char *cl = claim_text("c1", NULL, false, NULL);
    char mixed[4096];
    snprintf(mixed, sizeof mixed, "%s---\n%s", NODE_X, cl);
    set_source(c, "m.yaml", mixed);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 1);
    assert_int_equal(dracel_cluster_set_source(c, "m.yaml", "", 0, DRACEL_OBJ_NODE, err,
                                               sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_NODE), 0);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 1);
    assert_int_equal(dracel_cluster_set_source(c, "m.yaml", "", 0, ALL, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), 0);
    /* slices follow the same rules, in the fleet too */
    set_source(c, "s1.yaml", SLICES);
    dracel_snapshot *s = snap(c);
    assert_int_equal(dracel_table_rows(dracel_snapshot_table(s)), 3);
    dracel_snapshot_unref(s);
    set_source(c, "s1.yaml", "");
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_SLICE), 0);
    s = snap(c);
    assert_int_equal(dracel_table_rows(dracel_snapshot_table(s)), 0);
    dracel_snapshot_unref(s);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_SLICE, NULL, "node-a-gpu"),
                     DRACEL_EINPUT);
    free(cl);
    dracel_cluster_free(c);
}

/* ---------------------------------------------------------------------------------------------
 * The usage: what Kubernetes' allocator treats as allocated
 */

/* Every allocation answer (JSON, with the explanation) of @p p on @p nodes. */
static char *answers_on(const dracel_policy *p, const dracel_node *nodes, size_t nn,
                        const dracel_usage *u, unsigned features)
{
    dracel_run *r;
    assert_int_equal(dracel_run_new(p, &r), DRACEL_OK);
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.in_use = u;
    ao.explain = true;
    ao.timeout_ms = 0;
    ao.features = features;
    size_t cap = 1, len = 0;
    char *out = calloc(1, 1);
    for (size_t i = 0; i < nn; i++) {
        assert_int_equal(dracel_allocate(r, &nodes[i], &ao), DRACEL_OK);
        char *j = dracel_run_node_json(r);
        assert_non_null(j);
        size_t k = strlen(j);
        if (len + k + 2 > cap) {
            cap = (len + k + 2) * 2;
            out = realloc(out, cap);
        }
        memcpy(out + len, j, k);
        len += k;
        out[len++] = '\n';
        out[len] = '\0';
        dracel_free_string(NULL, j);
    }
    dracel_run_free(r);
    return out;
}

/* The same on the nodes of @p s. */
static char *answers(const dracel_policy *p, const dracel_snapshot *s, const dracel_usage *u,
                     unsigned features)
{
    size_t nn = dracel_snapshot_nodes(s);
    dracel_node *nodes = calloc(nn + 1, sizeof *nodes);
    for (size_t i = 0; i < nn; i++)
        assert_int_equal(dracel_snapshot_node(s, i, &nodes[i]), DRACEL_OK);
    char *out = answers_on(p, nodes, nn, u, features);
    free(nodes);
    return out;
}

/* The usage dracel_usage_new makes from the counted results of every claim of @p s. */
static dracel_usage *usage_of_results(const dracel_snapshot *s)
{
    dracel_device_id ids[256];
    size_t n = 0;
    for (size_t i = 0; i < dracel_snapshot_claims(s); i++) {
        dracel_claim_status cs;
        assert_int_equal(dracel_snapshot_claim(s, i, &cs), DRACEL_OK);
        for (size_t k = 0; cs.allocated && k < cs.nresults; k++) {
            dracel_device_result r;
            assert_int_equal(dracel_snapshot_claim_result(s, i, k, &r), DRACEL_OK);
            if (!r.admin_access && n < 256)
                ids[n++] = (dracel_device_id){r.driver, r.pool, r.device};
        }
    }
    dracel_usage *u;
    assert_int_equal(dracel_usage_new(dracel_snapshot_table(s), ids, n, &u), DRACEL_OK);
    return u;
}

/* The snapshot's usage gives the same answers as dracel_usage_new over the results, for a claim
 * that wants an H100 (and else any GPU). */
static void same_usage(const dracel_snapshot *s, size_t want_devices)
{
    dracel_usage *u = usage_of_results(s);
    assert_int_equal(dracel_usage_devices(dracel_snapshot_usage(s)), want_devices);
    assert_int_equal(dracel_usage_devices(u), want_devices);
    size_t probe = claim_ix(s, "probe");
    assert_true(probe != SIZE_MAX);
    dracel_policy *p;
    assert_int_equal(dracel_snapshot_policy_new(NULL, (dracel_snapshot *)s, &probe, 1, &p, err,
                                                sizeof err),
                     DRACEL_OK);
    char *a = answers(p, s, dracel_snapshot_usage(s), DRACEL_FEATURES_DEFAULT);
    char *b = answers(p, s, u, DRACEL_FEATURES_DEFAULT);
    assert_string_equal(a, b);
    free(a);
    free(b);
    dracel_policy_free(p);
    dracel_usage_free(u);
}

static void test_usage(void **state)
{
    (void)state;
    dracel_cluster *c = base();
    apply_claim(c, "c.yaml", "probe", NULL, false, NULL);
    apply_claim(c, "c.yaml", "c1", "node-a/gpu-0", false, NULL);
    apply_claim(c, "c.yaml", "c2", "node-b/gpu-0", true, NULL); /* admin access: not counted */
    apply_claim(c, "c.yaml", "c3", "node-z/gpu-9", false, NULL); /* not in the table */
    apply_claim(c, "c.yaml", "c4", NULL, false, NULL);
    dracel_snapshot *s1 = snap(c);
    same_usage(s1, 1);

    /* c1 deallocated: the usage is derived from the last one, on the same table */
    apply_claim(c, "c.yaml", "c1", NULL, false, NULL);
    dracel_snapshot *s2 = snap(c);
    assert_ptr_equal(dracel_snapshot_table(s1), dracel_snapshot_table(s2));
    assert_ptr_not_equal(dracel_snapshot_usage(s1), dracel_snapshot_usage(s2));
    same_usage(s2, 0);
    same_usage(s1, 1);

    /* node-z's slice arrives: a new table, a usage built anew, c3's device in use */
    static const char ZSLICE[] =
        "kind: ResourceSlice\nmetadata: {name: node-z-gpu}\n"
        "spec: {driver: gpu.example.com, nodeName: node-z, pool: {name: node-z, generation: 1, "
        "resourceSliceCount: 1}, devices: [{name: gpu-9, attributes: {model: {string: H100}}}]}\n"
        "---\nkind: Node\nmetadata: {name: node-z}\n";
    apply(c, "z.yaml", ZSLICE, ALL);
    dracel_snapshot *s3 = snap(c);
    assert_ptr_not_equal(dracel_snapshot_table(s2), dracel_snapshot_table(s3));
    same_usage(s3, 1);

    /* two claims on one device: it stays in use until both let it go */
    apply_claim(c, "c.yaml", "c4", "node-a/gpu-1", false, NULL);
    apply_claim(c, "c.yaml", "c5", "node-a/gpu-1", false, NULL);
    dracel_snapshot *s4 = snap(c);
    same_usage(s4, 2);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, "default", "c4"), DRACEL_OK);
    dracel_snapshot *s5 = snap(c);
    same_usage(s5, 2);
    /* allocated and released between two snapshots: no change seen */
    apply_claim(c, "c.yaml", "c6", "node-b/gpu-0", false, NULL);
    apply_claim(c, "c.yaml", "c6", NULL, false, NULL);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, "default", "c5"), DRACEL_OK);
    dracel_snapshot *s6 = snap(c);
    same_usage(s6, 1);
    /* a relist that brings every claim again, one of them changed */
    char *t1 = claim_text("probe", NULL, false, NULL), *t2 = claim_text("c3", NULL, false, NULL),
         *t3 = claim_text("c2", "node-b/gpu-0", false, NULL);
    char relist[8192];
    snprintf(relist, sizeof relist, "%s---\n%s---\n%s", t1, t2, t3);
    set_source(c, "c.yaml", relist);
    dracel_snapshot *s7 = snap(c);
    assert_int_equal(dracel_snapshot_claims(s7), 3);
    same_usage(s7, 1); /* c2 without admin access now; c3 released */
    size_t i = claim_ix(s7, "c2");
    dracel_node nz = {"node-z", NULL, 0};
    assert_true(dracel_snapshot_claim_fits(s7, i, &nz)); /* no nodeSelector: every node */
    free(t1);
    free(t2);
    free(t3);
    dracel_snapshot *all[] = {s1, s2, s3, s4, s5, s6, s7};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        dracel_snapshot_unref(all[k]);
    dracel_cluster_free(c);
}

/* ---------------------------------------------------------------------------------------------
 * claim_fits
 */

static void test_claim_fits(void **state)
{
    (void)state;
    dracel_cluster *c = base();
    apply_claim(c, "f.yaml", "by-name", "node-a/gpu-0", false,
                "    nodeSelector:\n      nodeSelectorTerms:\n"
                "      - matchFields: [{key: metadata.name, operator: In, values: [node-a]}]\n");
    apply_claim(c, "f.yaml", "either", "node-a/gpu-0", true,
                "    nodeSelector:\n      nodeSelectorTerms:\n"
                "      - matchExpressions: [{key: zone, operator: In, values: [b]}]\n"
                "      - matchFields: [{key: metadata.name, operator: In, values: [node-a]}]\n");
    apply_claim(c, "f.yaml", "anded", "node-a/gpu-0", true,
                "    nodeSelector:\n      nodeSelectorTerms:\n"
                "      - matchExpressions:\n"
                "        - {key: zone, operator: NotIn, values: [a]}\n"
                "        - {key: rack, operator: Exists}\n"
                "        - {key: size, operator: Gt, values: ['3']}\n");
    apply_claim(c, "f.yaml", "nowhere-else", "node-a/gpu-0", true,
                "    nodeSelector:\n      nodeSelectorTerms:\n"
                "      - matchFields: [{key: metadata.name, operator: NotIn, values: [node-a]}]\n");
    apply_claim(c, "f.yaml", "everywhere", "node-a/gpu-0", true, NULL);
    apply_claim(c, "f.yaml", "pending", NULL, false, NULL);
    dracel_snapshot *s = snap(c);
    dracel_label la[] = {{"zone", "a"}};
    dracel_label lb[] = {{"zone", "b"}, {"size", "12"}, {"rack", "r1"}}; /* not sorted */
    dracel_label lb2[] = {{"rack", "r1"}, {"size", "2"}, {"zone", "b"}};
    dracel_node a = {"node-a", la, 1}, b = {"node-b", lb, 3}, b2 = {"node-b2", lb2, 3},
                bare = {"node-c", NULL, 0};
    static const struct {
        const char *claim;
        bool a, b, b2, bare;
    } want[] = {
        {"by-name", true, false, false, false},      {"either", true, true, true, false},
        {"anded", false, true, false, false},        {"nowhere-else", false, true, true, true},
        {"everywhere", true, true, true, true},      {"pending", false, false, false, false},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        size_t i = claim_ix(s, want[k].claim);
        assert_true(i != SIZE_MAX);
        if (dracel_snapshot_claim_fits(s, i, &a) != want[k].a ||
            dracel_snapshot_claim_fits(s, i, &b) != want[k].b ||
            dracel_snapshot_claim_fits(s, i, &b2) != want[k].b2 ||
            dracel_snapshot_claim_fits(s, i, &bare) != want[k].bare)
            fail_msg("claim %s", want[k].claim);
    }
    /* the snapshot's own nodes, and bad nodes */
    size_t i = claim_ix(s, "either"), nb;
    assert_int_equal(dracel_snapshot_node_find(s, "node-b", &nb), DRACEL_OK);
    dracel_node sn;
    assert_int_equal(dracel_snapshot_node(s, nb, &sn), DRACEL_OK);
    assert_true(dracel_snapshot_claim_fits(s, i, &sn));
    dracel_node noname = {NULL, NULL, 0}, nolabels = {"node-a", NULL, 2};
    assert_false(dracel_snapshot_claim_fits(s, i, &noname));
    assert_false(dracel_snapshot_claim_fits(s, i, &nolabels));
    assert_false(dracel_snapshot_claim_fits(s, i, NULL));
    assert_false(dracel_snapshot_claim_fits(s, 99, &a));
    assert_false(dracel_snapshot_claim_fits(NULL, 0, &a));
    dracel_snapshot_unref(s);
    dracel_cluster_free(c);
}

/* ---------------------------------------------------------------------------------------------
 * Policies of a snapshot against policies of object sets
 */

#define EX "examples/"

/* The sample's claim as a ResourceClaim (the example is a template). */
static const char SAMPLE_CLAIMS[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaim\n"
    "metadata: {name: gpu-tiered, namespace: default}\n"
    "spec:\n"
    "  devices:\n"
    "    requests:\n"
    "    - name: gpu\n"
    "      firstAvailable:\n"
    "      - name: h100\n"
    "        deviceClassName: gpu.example.com\n"
    "        selectors:\n"
    "        - cel: {expression: 'device.attributes[\"gpu.example.com\"].?model.orValue(\"\") == "
    "\"H100\"'}\n"
    "      - name: a100\n"
    "        deviceClassName: gpu.example.com\n"
    "        selectors:\n"
    "        - cel: {expression: 'device.attributes[\"gpu.example.com\"].?model.orValue(\"\") == "
    "\"A100\"'}\n"
    "      - {name: any, deviceClassName: gpu.example.com}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaim\n"
    "metadata: {name: two, namespace: default}\n"
    "spec:\n"
    "  devices:\n"
    "    requests:\n"
    "    - name: gpus\n"
    "      exactly: {deviceClassName: gpu.example.com, count: 2}\n"
    "    - name: missing\n"
    "      exactly: {deviceClassName: no-such-class}\n"
    "      \n";

static void apply_file(dracel_cluster *c, const char *path)
{
    size_t len;
    char *text = slurp(path, &len);
    dracel_status st = dracel_cluster_set_source(c, path, text, len, ALL, err, sizeof err);
    if (st != DRACEL_OK)
        fail_msg("%s: %d: %s", path, st, err);
    free(text);
}

static void test_policy(void **state)
{
    (void)state;
    /* the objects as sets */
    dracel_objects *o;
    dracel_table *t;
    assert_int_equal(dracel_objects_new(NULL, &o), DRACEL_OK);
    assert_int_equal(dracel_objects_load_buffer(o, "claims.yaml", SAMPLE_CLAIMS,
                                                strlen(SAMPLE_CLAIMS), DRACEL_OBJ_CLAIM, err,
                                                sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_objects_load(o, EX "classes", DRACEL_OBJ_CLASS, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_objects_load(o, EX "nodes.yaml", DRACEL_OBJ_NODE, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_table_load(NULL, EX "fleet", &t, err, sizeof err), DRACEL_OK);
    /* the same in a cluster, a source per file */
    dracel_cluster *c;
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    DIR *d = opendir(EX "fleet");
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, EX "fleet/%s", de->d_name);
        apply_file(c, path);
    }
    closedir(d);
    apply_file(c, EX "classes/gpu.yaml");
    apply_file(c, EX "nodes.yaml");
    apply(c, "claims.yaml", SAMPLE_CLAIMS, ALL);
    dracel_snapshot *s = snap(c);
    assert_int_equal(dracel_table_rows(dracel_snapshot_table(s)), dracel_table_rows(t));

    /* each claim alone, then both in either order */
    static const char *const orders[][2] = {{"gpu-tiered", NULL}, {"two", NULL},
                                            {"gpu-tiered", "two"}, {"two", "gpu-tiered"}};
    dracel_policy *keep = NULL;
    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        size_t ix[2], ox[2], n = 0;
        for (; n < 2 && orders[k][n]; n++) {
            ix[n] = claim_ix(s, orders[k][n]);
            assert_int_equal(dracel_objects_find(o, DRACEL_OBJ_CLAIM, "default", orders[k][n],
                                                 &ox[n]),
                             DRACEL_OK);
        }
        dracel_policy *p1, *p2;
        assert_int_equal(dracel_policy_new(NULL, t, o, o, ox, n, &p1, err, sizeof err),
                         DRACEL_OK);
        assert_int_equal(dracel_snapshot_policy_new(NULL, s, ix, n, &p2, err, sizeof err),
                         DRACEL_OK);
        assert_string_equal(dracel_policy_version(p1), dracel_policy_version(p2));
        assert_ptr_equal(dracel_policy_table(p2), dracel_snapshot_table(s));
        char *a = answers(p1, s, NULL, DRACEL_FEATURES_DEFAULT);
        char *b = answers(p2, s, NULL, DRACEL_FEATURES_DEFAULT);
        assert_string_equal(a, b);
        if (k == 0)
            assert_non_null(strstr(a, "\"outcome\":\"allocated\""));
        free(a);
        free(b);
        dracel_policy_free(p1);
        if (k == 0)
            keep = p2;
        else
            dracel_policy_free(p2);
    }
    /* all the snapshot's claims */
    dracel_policy *pall;
    assert_int_equal(dracel_snapshot_policy_new(NULL, s, NULL, 0, &pall, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_policy_claims(pall), 2);
    dracel_policy_free(pall);
    assert_int_equal(dracel_snapshot_policy_new(NULL, s, NULL, 1, &pall, err, sizeof err),
                     DRACEL_EINVAL);

    /* the policy holds its snapshot: the snapshot and the cluster may go first (the nodes are
     * the set's, in the snapshot's order, since the snapshot's strings go with it) */
    size_t nn = dracel_snapshot_nodes(s);
    dracel_node nodes[16];
    assert_true(nn <= 16);
    for (size_t i = 0; i < nn; i++) {
        dracel_node sn;
        size_t at;
        assert_int_equal(dracel_snapshot_node(s, i, &sn), DRACEL_OK);
        assert_int_equal(dracel_objects_find(o, DRACEL_OBJ_NODE, NULL, sn.name, &at), DRACEL_OK);
        assert_int_equal(dracel_objects_node(o, at, &nodes[i]), DRACEL_OK);
    }
    char *before = answers(keep, s, NULL, DRACEL_FEATURES_DEFAULT);
    dracel_snapshot_unref(s);
    dracel_cluster_free(c);
    char *after = answers_on(keep, nodes, nn, NULL, DRACEL_FEATURES_DEFAULT);
    assert_string_equal(before, after);
    free(before);
    free(after);
    dracel_policy_free(keep);
    dracel_table_free(t);
    dracel_objects_free(o);
}

/* ---------------------------------------------------------------------------------------------
 * The scenarios of tests/alloc/ as cluster state
 */

/* The text of top-level field @p key of a scenario (what follows "key:" up to the next
 * top-level field), as the document "items: ...": a List of its objects. NULL when absent. */
static char *section(const char *text, const char *key)
{
    size_t kl = strlen(key);
    const char *p = text;
    while (p && !(strncmp(p, key, kl) == 0 && p[kl] == ':')) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p)
        return NULL;
    const char *start = p + kl + 1, *end = start;
    for (;;) {
        end = strchr(end, '\n');
        if (!end) {
            end = start + strlen(start);
            break;
        }
        end++;
        if ((*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z') || !*end)
            break;
    }
    size_t n = (size_t)(end - start);
    char *out = malloc(n + 16);
    snprintf(out, n + 16, "items:%.*s", (int)n, start);
    return out;
}

/* The allocatedDevices of a scenario as a claim "zz-allocated" whose results are those devices
 * (at most 32: the claim limit), or NULL when it has none. */
static char *allocated_claim(const char *text)
{
    char *sec = section(text, "allocatedDevices");
    if (!sec)
        return NULL;
    size_t cap = strlen(sec) * 4 + 1024;
    char *out = malloc(cap);
    size_t len = (size_t)snprintf(out, cap,
                                  "kind: ResourceClaim\n"
                                  "metadata: {name: zz-allocated, namespace: default}\n"
                                  "spec: {devices: {requests: [{name: r, exactly: "
                                  "{deviceClassName: any}}]}}\n"
                                  "status:\n  allocation:\n    devices:\n      results:\n");
    int n = 0;
    for (char *tok = strtok(sec + 6, " \t\n[],\"'"); tok; tok = strtok(NULL, " \t\n[],\"'")) {
        if (strcmp(tok, "-") == 0)
            continue;
        if (tok[0] == '#') { /* a comment: to the end of its line */
            strtok(NULL, "\n");
            continue;
        }
        char *first = strchr(tok, '/'), *last = strrchr(tok, '/');
        if (!first || first == last)
            continue;
        len += (size_t)snprintf(out + len, cap - len,
                                "      - {request: r, driver: '%.*s', pool: '%.*s', "
                                "device: '%s'}\n",
                                (int)(first - tok), tok, (int)(last - first - 1), first + 1,
                                last + 1);
        n++;
    }
    free(sec);
    if (!n || n > 32) {
        free(out);
        return NULL;
    }
    return out;
}

/* The scenario's node as a Node object. */
static char *node_object(const dracel_node *n)
{
    size_t cap = 4096;
    char *out = malloc(cap);
    size_t len = (size_t)snprintf(out, cap, "kind: Node\nmetadata:\n  name: '%s'\n  labels:\n",
                                  n->name);
    if (!n->nlabels)
        len += (size_t)snprintf(out + len, cap - len, "    {}\n");
    for (size_t i = 0; i < n->nlabels; i++)
        len += (size_t)snprintf(out + len, cap - len, "    '%s': '%s'\n", n->labels[i].key,
                                n->labels[i].value);
    return out;
}

/* 1: compared, 0: the cluster cannot hold the scenario (unnamed objects, templates...). */
static int compare_scenario(const char *path)
{
    size_t len;
    char *text = slurp(path, &len);
    dracel_scenario *sc;
    if (strstr(text, "shareID:")) {
        free(text);
        return 0; /* the allocated claim made below has no shares (test_shares has them) */
    }
    if (dracel_scenario_load(NULL, path, &sc, err, sizeof err) != DRACEL_OK) {
        free(text);
        return 0; /* scenarios that test rejected input */
    }
    const dracel_objects *o = dracel_scenario_objects(sc);
    dracel_cluster *c;
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    int ok = 1;
    static const struct {
        const char *key;
        unsigned kind;
    } parts[] = {{"classes", DRACEL_OBJ_CLASS}, {"slices", DRACEL_OBJ_SLICE},
                 {"claims", DRACEL_OBJ_CLAIM}, {"deviceTaintRules", DRACEL_OBJ_TAINT_RULE}};
    for (size_t k = 0; ok && k < sizeof parts / sizeof *parts; k++) {
        char *sec = section(text, parts[k].key);
        if (sec && dracel_cluster_apply(c, parts[k].key, sec, strlen(sec), parts[k].kind, err,
                                        sizeof err) != DRACEL_OK)
            ok = 0;
        free(sec);
    }
    dracel_node node;
    dracel_scenario_node(sc, &node);
    char *nt = node_object(&node);
    if (ok && dracel_cluster_apply(c, "node", nt, strlen(nt), DRACEL_OBJ_NODE, err, sizeof err) !=
                  DRACEL_OK)
        fail_msg("%s: the node: %s", path, err);
    free(nt);
    char *alloc = allocated_claim(text);
    if (ok && alloc &&
        dracel_cluster_apply(c, "allocated", alloc, strlen(alloc), ALL, err, sizeof err) !=
            DRACEL_OK)
        ok = 0;
    free(alloc);
    /* the scenario's claims, by name, in its order */
    size_t ncl = dracel_objects_count(o, DRACEL_OBJ_CLAIM), ix[64];
    dracel_snapshot *s = ok ? snap(c) : NULL;
    for (size_t i = 0; ok && i < ncl && i < 64; i++) {
        dracel_object_info oi;
        assert_int_equal(dracel_objects_get(o, DRACEL_OBJ_CLAIM, i, &oi), DRACEL_OK);
        if (strcmp(oi.kind, "ResourceClaim") != 0 ||
            dracel_snapshot_claim_find(s, oi.ns, oi.name, &ix[i]) != DRACEL_OK)
            ok = 0;
    }
    if (ok && ncl <= 64) {
        const dracel_usage *want_u = dracel_scenario_usage(sc);
        if (dracel_usage_devices(dracel_snapshot_usage(s)) !=
            (want_u ? dracel_usage_devices(want_u) : 0))
            fail_msg("%s: %zu devices in use, the scenario has %zu", path,
                     dracel_usage_devices(dracel_snapshot_usage(s)),
                     want_u ? dracel_usage_devices(want_u) : 0);
        dracel_policy *p1, *p2;
        assert_int_equal(dracel_policy_new(NULL, dracel_scenario_table(sc), o, o, NULL, 0, &p1,
                                           err, sizeof err),
                         DRACEL_OK);
        assert_int_equal(dracel_snapshot_policy_new(NULL, s, ix, ncl, &p2, err, sizeof err),
                         DRACEL_OK);
        unsigned f = dracel_scenario_features(sc);
        size_t at;
        assert_int_equal(dracel_snapshot_node_find(s, node.name, &at), DRACEL_OK);
        dracel_node sn;
        assert_int_equal(dracel_snapshot_node(s, at, &sn), DRACEL_OK);
        char *a = answers_on(p1, &node, 1, want_u, f);
        char *b = answers_on(p2, &sn, 1, dracel_snapshot_usage(s), f);
        if (strcmp(a, b) != 0)
            fail_msg("%s:\n scenario: %s\n cluster:  %s", path, a, b);
        free(a);
        free(b);
        dracel_policy_free(p1);
        dracel_policy_free(p2);
    } else {
        ok = 0;
    }
    dracel_snapshot_unref(s);
    dracel_cluster_free(c);
    dracel_scenario_free(sc);
    free(text);
    return ok;
}

/* Extended resources backed by DRA: a pod's containers (dracel_pod), the nodes' allocatable,
 * the special claim in a snapshot's policy, as a scenario builds it
 * (tests/alloc/128-extended-resource-init-containers.yaml). */
static const char EXT_OBJECTS[] =
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
    "metadata: {name: gpu, creationTimestamp: '2026-01-01T00:00:00Z'}\n"
    "spec:\n  extendedResourceName: example.com/gpu\n"
    "  selectors: [{cel: {expression: 'device.attributes[\"dra.example.com\"].kind == \"gpu\"'}}]\n"
    "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
    "metadata: {name: old, creationTimestamp: '2025-01-01T00:00:00Z'}\n"
    "spec: {extendedResourceName: example.com/gpu}\n"
    "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\n"
    "spec:\n  driver: dra.example.com\n  nodeName: n1\n"
    "  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"
    "  devices:\n  - {name: gpu-0, attributes: {kind: {string: gpu}}}\n"
    "  - {name: gpu-1, attributes: {kind: {string: gpu}}}\n"
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    "status: {allocatable: {cpu: '8', example.com/gpu: '0'}}\n"
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"
    "status: {allocatable: {example.com/gpu: '2', cpu: '8'}}\n";

static void test_extended(void **state)
{
    (void)state;
    dracel_cluster *c;
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    apply(c, "ext.yaml", EXT_OBJECTS, ALL);
    dracel_snapshot *s = snap(c);
    size_t n1, n2;
    assert_int_equal(dracel_snapshot_node_find(s, "n1", &n1), DRACEL_OK);
    assert_int_equal(dracel_snapshot_node_find(s, "n2", &n2), DRACEL_OK);
    const dracel_resource *a1, *a2;
    assert_int_equal(dracel_snapshot_node_allocatable(s, n1, &a1), 2);
    assert_int_equal(dracel_snapshot_node_allocatable(s, n2, &a2), 2);
    assert_string_equal(a2[0].name, "cpu"); /* sorted by name */
    assert_string_equal(a2[1].quantity, "2");
    /* an init container (2, a limit) and a container (1, after cpu) */
    const dracel_resource lim[] = {{"example.com/gpu", "2"}};
    const dracel_resource req[] = {{"example.com/gpu", "1"}, {"cpu", "500m"},
                                   {"example.com/none", "1"}};
    dracel_container ctr[] = {{"init", true, NULL, NULL, 0, lim, 1},
                              {"main", false, NULL, req, 3, NULL, 0}};
    dracel_pod *p, *q;
    assert_int_equal(dracel_pod_new(NULL, "team", ctr, 2, &p, err, sizeof err), DRACEL_OK);
    const char *res[4];
    const dracel_objects *cl = dracel_snapshot_classes(s);
    assert_int_equal(dracel_pod_extended(p, cl, NULL, 0, res, 4), 1); /* none backs "none" */
    assert_string_equal(res[0], "example.com/gpu");
    assert_int_equal(dracel_pod_extended(p, cl, a1, 2, res, 4), 1);   /* 0: not a plugin's */
    assert_int_equal(dracel_pod_extended(p, cl, a2, 2, res, 4), 0);   /* its device plugin's */
    assert_false(dracel_allocatable_has(a1, 2, "example.com/gpu"));  /* "0" */
    assert_true(dracel_allocatable_has(a2, 2, "example.com/gpu"));
    assert_false(dracel_allocatable_has(a2, 2, "example.com/nic"));  /* absent */
    assert_false(dracel_allocatable_has(NULL, 0, "cpu"));
    assert_int_equal(dracel_pod_extended(p, cl, NULL, 0, NULL, 0), 1);
    /* the policy: the init container asks for what main's request does not give it */
    dracel_policy *pl;
    assert_int_equal(dracel_snapshot_pod_policy_new(NULL, s, NULL, 0, p, res, 1, &pl, err,
                                                    sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_policy_claims(pl), 1);
    assert_int_equal(dracel_policy_tiers(pl), 2);
    dracel_tier_info ti;
    assert_int_equal(dracel_policy_tier(pl, 0, &ti), DRACEL_OK);
    assert_string_equal(ti.name, "container-0-request-0");
    assert_string_equal(ti.device_class, "gpu"); /* the newer of the two classes */
    assert_int_equal(dracel_policy_tier(pl, 1, &ti), DRACEL_OK);
    assert_string_equal(ti.name, "container-1-request-1");
    dracel_node nd;
    assert_int_equal(dracel_snapshot_node(s, n1, &nd), DRACEL_OK);
    char *out = answers_on(pl, &nd, 1, NULL, DRACEL_FEATURES_DEFAULT);
    assert_non_null(strstr(out, "\"outcome\":\"allocated\""));
    assert_non_null(strstr(out, "\"request\":\"container-0-request-0\""));
    assert_non_null(strstr(out, "\"request\":\"container-1-request-1\""));
    free(out);
    dracel_policy_free(pl);
    /* the hash: equal for an equal pod, not for another count */
    assert_int_equal(dracel_pod_new(NULL, "team", ctr, 2, &q, err, sizeof err), DRACEL_OK);
    assert_true(dracel_pod_hash(p, res, 1) == dracel_pod_hash(q, res, 1));
    dracel_pod_free(q);
    const dracel_resource lim3[] = {{"example.com/gpu", "3"}};
    ctr[0].limits = lim3;
    assert_int_equal(dracel_pod_new(NULL, "team", ctr, 2, &q, err, sizeof err), DRACEL_OK);
    assert_true(dracel_pod_hash(p, res, 1) != dracel_pod_hash(q, res, 1));
    dracel_pod_free(q);
    /* references */
    assert_ptr_equal(dracel_pod_ref(p), p);
    dracel_pod_free(p);
    /* a resource no class backs */
    const char *none[] = {"example.com/none"};
    assert_int_equal(dracel_snapshot_pod_policy_new(NULL, s, NULL, 0, p, none, 1, &pl, err,
                                                    sizeof err),
                     DRACEL_EINVAL);
    assert_null(pl);
    assert_string_equal(err, "no DeviceClass backs the extended resource example.com/none");
    dracel_pod_free(p);
    /* rejected containers */
    const dracel_resource bad[] = {{"example.com/gpu", "-1"}};
    dracel_container b1[] = {{"main", false, NULL, bad, 1, NULL, 0}};
    assert_int_equal(dracel_pod_new(NULL, NULL, b1, 1, &p, err, sizeof err), DRACEL_EINPUT);
    assert_null(p);
    assert_string_equal(err, "container main: resources.requests[example.com/gpu]: must be a "
                             "non-negative quantity");
    dracel_container b2[] = {{"", false, NULL, NULL, 0, NULL, 0}};
    assert_int_equal(dracel_pod_new(NULL, NULL, b2, 1, &p, err, sizeof err), DRACEL_EINPUT);
    assert_string_equal(err, "containers[0]: name: required value");
    /* the same pod read from a Pod object, the same policy from sets */
    static const char POD[] =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: team}\nspec:\n"
        "  initContainers: [{name: init, resources: {limits: {example.com/gpu: '2'}}}]\n"
        "  containers:\n  - name: main\n    resources:\n"
        "      requests: {example.com/gpu: '1', cpu: 500m, example.com/none: '1'}\n";
    assert_int_equal(dracel_pod_load_buffer(NULL, "pod.yaml", POD, strlen(POD), &p, err,
                                            sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_pod_extended(p, cl, NULL, 0, res, 4), 1); /* res: p's strings */
    ctr[0].limits = lim;
    assert_int_equal(dracel_pod_new(NULL, "team", ctr, 2, &q, err, sizeof err), DRACEL_OK);
    assert_true(dracel_pod_hash(p, res, 1) == dracel_pod_hash(q, res, 1));
    dracel_pod_free(q);
    dracel_policy *pl2;
    assert_int_equal(dracel_snapshot_pod_policy_new(NULL, s, NULL, 0, p, res, 1, &pl, err,
                                                    sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_policy_new_pod(NULL, dracel_snapshot_table(s), cl, NULL, NULL, 0, p,
                                           res, 1, &pl2, err, sizeof err),
                     DRACEL_OK);
    assert_string_equal(dracel_policy_version(pl), dracel_policy_version(pl2));
    dracel_policy_free(pl);
    dracel_policy_free(pl2);
    dracel_pod_free(p);
    static const char NOTPOD[] = "kind: Node\nmetadata: {name: x}\n";
    assert_int_equal(dracel_pod_load_buffer(NULL, "pod.yaml", NOTPOD, strlen(NOTPOD), &p, err,
                                            sizeof err),
                     DRACEL_EINPUT);
    assert_null(p);
    assert_string_equal(err, "pod.yaml:1: kind: invalid value \"Node\": expected a Pod");
    /* a Node whose allocatable is not quantities */
    static const char BADNODE[] = "apiVersion: v1\nkind: Node\nmetadata: {name: n9}\n"
                                  "status: {allocatable: {cpu: lots}}\n";
    assert_int_equal(dracel_cluster_apply(c, "bad.yaml", BADNODE, strlen(BADNODE), ALL, err,
                                          sizeof err),
                     DRACEL_EINPUT);
    assert_non_null(strstr(err, "status.allocatable"));
    assert_non_null(strstr(err, "must be a quantity"));
    dracel_snapshot_unref(s);
    dracel_cluster_free(c);
}

/* Shared allocations (consumable capacity) in a cluster: a result with a shareID leaves its
 * device usable and adds what it consumes (tests/alloc/112-consumable-in-use-shares.yaml). */
static const char SHARE_OBJECTS[] =
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: shared}\n"
    "spec: {selectors: [{cel: {expression: 'device.allowMultipleAllocations == true'}}]}\n"
    "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\nspec:\n"
    "  driver: gpu.example.com\n  nodeName: n1\n"
    "  pool: {name: pool-1, generation: 1, resourceSliceCount: 1}\n  devices:\n"
    "  - {name: device-0, allowMultipleAllocations: true, capacity: {memory: {value: '2'}}}\n"
    "  - {name: device-1, allowMultipleAllocations: true, capacity: {memory: {value: '2'}}}\n"
    "  - {name: device-2, allowMultipleAllocations: true, capacity: {memory: {value: '2'}}}\n"
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
    "metadata: {name: c, namespace: default}\n"
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: shared,"
    " capacity: {requests: {memory: '2'}}}}]}}\n";

static char *busy_claim(const char *results)
{
    char *t = malloc(2048);
    snprintf(t, 2048,
             "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
             "metadata: {name: busy, namespace: default}\n"
             "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: shared}}]}}\n"
             "status: {allocation: {devices: {results: [%s]}}}\n",
             results);
    return t;
}

/* The device claim default/c gets on node @p node, with @p features ("none": no device). */
static char *device_of_c(dracel_snapshot *s, const char *node, unsigned features)
{
    size_t ix, at;
    assert_int_equal(dracel_snapshot_claim_find(s, "default", "c", &ix), DRACEL_OK);
    dracel_policy *p;
    assert_int_equal(dracel_snapshot_policy_new(NULL, s, &ix, 1, &p, err, sizeof err),
                     DRACEL_OK);
    dracel_node nd;
    assert_int_equal(dracel_snapshot_node_find(s, node, &at), DRACEL_OK);
    assert_int_equal(dracel_snapshot_node(s, at, &nd), DRACEL_OK);
    char *out = answers_on(p, &nd, 1, dracel_snapshot_usage(s), features);
    dracel_policy_free(p);
    char *d = strstr(out, "\"device\":\"");
    char *r = strdup(d ? d + 10 : "none");
    char *q = strchr(r, '"');
    if (q)
        *q = '\0';
    free(out);
    return r;
}

static char *first_device(dracel_snapshot *s)
{
    return device_of_c(s, "n1", DRACEL_FEATURES_DEFAULT);
}

static void test_shares(void **state)
{
    (void)state;
    static const char SH[] = "4b8f2c1e-0d3a-4f6b-9c2e-7a1d5e3b9f00";
    dracel_cluster *c;
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    apply(c, "objs", SHARE_OBJECTS, ALL);
    /* device-0 allocated whole, device-1 shared and full: device-2 */
    char res[1024], *t;
    snprintf(res, sizeof res,
             "{request: r, driver: gpu.example.com, pool: pool-1, device: device-0}, "
             "{request: r, driver: gpu.example.com, pool: pool-1, device: device-1, "
             "shareID: %s, consumedCapacity: {memory: '2'}}", SH);
    apply(c, "busy", t = busy_claim(res), ALL);
    free(t);
    dracel_snapshot *s1 = snap(c);
    assert_int_equal(dracel_usage_devices(dracel_snapshot_usage(s1)), 1);
    char *d = first_device(s1);
    assert_string_equal(d, "device-2");
    free(d);
    /* only a share of 1 on device-0: it has 1 left, device-1 is free */
    snprintf(res, sizeof res,
             "{request: r, driver: gpu.example.com, pool: pool-1, device: device-0, "
             "shareID: %s, consumedCapacity: {memory: '1'}}", SH);
    apply(c, "busy", t = busy_claim(res), ALL);
    free(t);
    dracel_snapshot *s2 = snap(c);
    assert_int_equal(dracel_usage_devices(dracel_snapshot_usage(s2)), 0);
    d = first_device(s2);
    assert_string_equal(d, "device-1");
    free(d);
    /* what the shares consume is part of the pool's usage hash */
    assert_true(dracel_usage_pool_hash(dracel_snapshot_usage(s2), 0) != 0);
    snprintf(res, sizeof res,
             "{request: r, driver: gpu.example.com, pool: pool-1, device: device-0, "
             "shareID: %s, consumedCapacity: {memory: '0'}}", SH);
    apply(c, "busy", t = busy_claim(res), ALL);
    free(t);
    dracel_snapshot *s3 = snap(c);
    assert_true(dracel_usage_pool_hash(dracel_snapshot_usage(s3), 0) !=
                dracel_usage_pool_hash(dracel_snapshot_usage(s2), 0));
    d = first_device(s3);
    assert_string_equal(d, "device-0");
    free(d);
    /* the shared claim gone: no shares left, every device free */
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, "default", "busy"), DRACEL_OK);
    dracel_snapshot *s4 = snap(c);
    assert_int_equal(dracel_usage_pool_hash(dracel_snapshot_usage(s4), 0), 0);
    d = first_device(s4);
    assert_string_equal(d, "device-0");
    free(d);
    /* a bad consumedCapacity is rejected input */
    snprintf(res, sizeof res,
             "{request: r, driver: gpu.example.com, pool: pool-1, device: device-0, "
             "shareID: %s, consumedCapacity: {memory: lots}}", SH);
    t = busy_claim(res);
    assert_int_equal(dracel_cluster_apply(c, "busy", t, strlen(t), ALL, err, sizeof err),
                     DRACEL_EINPUT);
    assert_non_null(strstr(err, "consumedCapacity"));
    free(t);
    dracel_snapshot_unref(s1);
    dracel_snapshot_unref(s2);
    dracel_snapshot_unref(s3);
    dracel_snapshot_unref(s4);
    dracel_cluster_free(c);
}

/* ---------------------------------------------------------------------------------------------
 * DeviceTaintRules: objects of their own, merged into the snapshots' tables as the scheduler's
 * slice tracker merges them
 */

static const char RULE[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: DeviceTaintRule\n"
    "metadata: {name: maintenance}\n"
    "spec:\n"
    "  deviceSelector: {driver: gpu.example.com, pool: node-a, device: gpu-0}\n"
    "  taint: {key: example.com/maintenance, value: fw, effect: NoSchedule}\n";


static uint64_t pool_version(const dracel_table *t, const char *pool)
{
    size_t i;
    dracel_pool_info pi;
    assert_int_equal(dracel_table_pool_find(t, "gpu.example.com", pool, &i), DRACEL_OK);
    assert_int_equal(dracel_table_pool(t, i, &pi), DRACEL_OK);
    return pi.version;
}

static void expect_device(dracel_snapshot *s, unsigned features, const char *want)
{
    char *d = device_of_c(s, "node-a", features);
    assert_string_equal(d, want);
    free(d);
}

static void test_rules(void **state)
{
    (void)state;
    const unsigned RULES = ALL | DRACEL_OBJ_TAINT_RULE;
    const unsigned NO_RULES = DRACEL_FEATURES_DEFAULT & ~DRACEL_FEATURE_DEVICE_TAINT_RULES;
    dracel_cluster *c = base();
    apply_claim(c, "claims", "c", NULL, false, NULL);
    dracel_snapshot *s1 = snap(c);
    expect_device(s1, DRACEL_FEATURES_DEFAULT, "gpu-0");
    uint64_t a1 = pool_version(dracel_snapshot_table(s1), "node-a");
    uint64_t b1 = pool_version(dracel_snapshot_table(s1), "node-b");

    /* not asked for: skipped with a note, nothing changes */
    apply(c, "rules.yaml", RULE, ALL);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_TAINT_RULE), 0);
    assert_int_equal(dracel_cluster_notes(c), 1);
    assert_non_null(strstr(dracel_cluster_note(c, 0), "skipped object of kind DeviceTaintRule"));
    dracel_snapshot *same = snap(c);
    assert_int_equal(dracel_snapshot_id(same), dracel_snapshot_id(s1));
    dracel_snapshot_unref(same);

    /* applied: gpu-0 is tainted, the claim gets gpu-1 (its second choice); only node-a's
     * pool changed, and the table is the one built at once from the slices and the rule */
    apply(c, "rules.yaml", RULE, RULES);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_TAINT_RULE), 1);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_SLICE), 2);
    dracel_snapshot *s2 = snap(c);
    expect_device(s2, DRACEL_FEATURES_DEFAULT, "gpu-1");
    expect_device(s2, NO_RULES, "gpu-0"); /* the gate off: rules are not read */
    expect_device(s1, DRACEL_FEATURES_DEFAULT, "gpu-0"); /* an earlier snapshot: as it was */
    const dracel_table *t2 = dracel_snapshot_table(s2);
    assert_true(pool_version(t2, "node-a") != a1);
    assert_int_equal(pool_version(t2, "node-b"), b1);
    size_t n = strlen(SLICES) + strlen(RULE) + 8;
    char *both = malloc(n);
    snprintf(both, n, "%s---\n%s", SLICES, RULE);
    dracel_table *whole;
    assert_int_equal(dracel_table_load_buffer(NULL, "both.yaml", both, strlen(both), &whole, err,
                                              sizeof err),
                     DRACEL_OK);
    assert_int_equal(pool_version(whole, "node-a"), pool_version(t2, "node-a"));
    dracel_table_free(whole);
    free(both);

    /* given again (a relist): the same answers and pool versions */
    apply(c, "rules.yaml", RULE, RULES);
    dracel_snapshot *s3 = snap(c);
    expect_device(s3, DRACEL_FEATURES_DEFAULT, "gpu-1");
    assert_int_equal(pool_version(dracel_snapshot_table(s3), "node-a"),
                     pool_version(t2, "node-a"));

    /* a slice may have the rule's name: another object */
    static const char NAMESAKE[] =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: maintenance}\n"
        "spec: {driver: gpu.example.com, nodeName: node-c, pool: {name: node-c, generation: 1, "
        "resourceSliceCount: 1}, devices: [{name: gpu-0}]}\n";
    apply(c, "namesake.yaml", NAMESAKE, RULES);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_SLICE), 3);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_TAINT_RULE), 1);
    /* the same key twice in one input is rejected */
    n = 2 * strlen(RULE) + 8;
    char *twice = malloc(n);
    snprintf(twice, n, "%s---\n%s", RULE, RULE);
    assert_int_equal(dracel_cluster_apply(c, "twice.yaml", twice, strlen(twice), RULES, err,
                                          sizeof err),
                     DRACEL_EINPUT);
    assert_non_null(strstr(err, "DeviceTaintRule maintenance: defined twice"));
    free(twice);
    /* a rule that selects by CEL (before 1.35) is rejected input, with its line */
    static const char CEL_RULE[] =
        "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: old}\n"
        "spec:\n  deviceSelector: {selectors: [{cel: {expression: 'true'}}]}\n"
        "  taint: {key: k, effect: NoSchedule}\n";
    assert_int_equal(dracel_cluster_apply(c, "old.yaml", CEL_RULE, strlen(CEL_RULE), RULES, err,
                                          sizeof err),
                     DRACEL_EINPUT);
    assert_non_null(strstr(err, "old.yaml:5"));

    /* deleted (a watch's DELETED): gpu-0 again; the namesake slice stays */
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_TAINT_RULE, NULL, "maintenance"),
                     DRACEL_OK);
    assert_int_equal(dracel_cluster_delete(c, DRACEL_OBJ_TAINT_RULE, NULL, "maintenance"),
                     DRACEL_EINPUT);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_SLICE), 3);
    dracel_snapshot *s4 = snap(c);
    expect_device(s4, DRACEL_FEATURES_DEFAULT, "gpu-0");
    assert_int_equal(pool_version(dracel_snapshot_table(s4), "node-a"), a1);

    /* a source's rules go when it no longer lists them (a relist, a file rewritten) */
    apply(c, "rules.yaml", RULE, RULES);
    dracel_snapshot *s5 = snap(c);
    expect_device(s5, DRACEL_FEATURES_DEFAULT, "gpu-1");
    assert_int_equal(dracel_cluster_set_source(c, "rules.yaml", "", 0, RULES, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_TAINT_RULE), 0);
    dracel_snapshot *s6 = snap(c);
    expect_device(s6, DRACEL_FEATURES_DEFAULT, "gpu-0");
    /* effect None taints nothing */
    char *none = strdup(RULE);
    memcpy(strstr(none, "NoSchedule"), "None}\n\0", 7);
    apply(c, "rules.yaml", none, RULES);
    free(none);
    dracel_snapshot *s7 = snap(c);
    expect_device(s7, DRACEL_FEATURES_DEFAULT, "gpu-0");
    dracel_snapshot *ss[] = {s1, s2, s3, s4, s5, s6, s7};
    for (size_t i = 0; i < sizeof ss / sizeof *ss; i++)
        dracel_snapshot_unref(ss[i]);
    dracel_cluster_free(c);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_scenarios(void **state)
{
    (void)state;
    DIR *d = opendir("tests/alloc");
    assert_non_null(d);
    char *names[512];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 512) {
        size_t l = strlen(de->d_name);
        if (l > 5 && strcmp(de->d_name + l - 5, ".yaml") == 0)
            names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_name);
    int compared = 0;
    for (size_t i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "tests/alloc/%s", names[i]);
        compared += compare_scenario(path);
        free(names[i]);
    }
    print_message("      %d of %zu scenarios held by a cluster gave the same answers\n", compared,
                  n);
    assert_true(compared >= (int)(n * 3 / 4));
}

/* tests/data: every kind as one stream, and the slices of the fleet tests. */
static void test_data(void **state)
{
    (void)state;
    static const char *const files[] = {"tests/data/objects/objects.yaml",
                                        "tests/data/objects/objects.json"};
    for (size_t k = 0; k < 2; k++) {
        dracel_objects *o;
        assert_int_equal(dracel_objects_new(NULL, &o), DRACEL_OK);
        assert_int_equal(dracel_objects_load(o, files[k], DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM |
                                                              DRACEL_OBJ_NODE,
                                             err, sizeof err),
                         DRACEL_OK);
        dracel_cluster *c;
        assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
        apply_file(c, files[k]);
        size_t claims = 0;
        for (size_t i = 0; i < dracel_objects_count(o, DRACEL_OBJ_CLAIM); i++) {
            dracel_object_info oi;
            assert_int_equal(dracel_objects_get(o, DRACEL_OBJ_CLAIM, i, &oi), DRACEL_OK);
            claims += strcmp(oi.kind, "ResourceClaim") == 0;
        }
        assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLAIM), claims);
        assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_CLASS),
                         dracel_objects_count(o, DRACEL_OBJ_CLASS));
        assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_NODE),
                         dracel_objects_count(o, DRACEL_OBJ_NODE));
        assert_int_equal(dracel_cluster_count(c, DRACEL_OBJ_SLICE), 1);
        dracel_snapshot *s = snap(c);
        for (size_t i = 0; i < dracel_objects_count(o, DRACEL_OBJ_CLAIM); i++) {
            dracel_object_info oi;
            size_t at;
            assert_int_equal(dracel_objects_get(o, DRACEL_OBJ_CLAIM, i, &oi), DRACEL_OK);
            dracel_status want = strcmp(oi.kind, "ResourceClaim") == 0 ? DRACEL_OK : DRACEL_EINPUT;
            assert_int_equal(dracel_snapshot_claim_find(s, oi.ns, oi.name, &at), want);
        }
        dracel_snapshot_unref(s);
        dracel_cluster_free(c);
        dracel_objects_free(o);
    }
    /* the slices of the fleet tests: the same table as dracel_table_load */
    dracel_table *t;
    assert_int_equal(dracel_table_load(NULL, "tests/data/slices/basic.yaml", &t, err, sizeof err),
                     DRACEL_OK);
    dracel_cluster *c;
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    apply_file(c, "tests/data/slices/basic.yaml");
    dracel_snapshot *s = snap(c);
    const dracel_table *st = dracel_snapshot_table(s);
    assert_int_equal(dracel_table_rows(st), dracel_table_rows(t));
    for (uint32_t r = 0; r < dracel_table_rows(t); r++) {
        dracel_device_info x, y;
        assert_int_equal(dracel_table_device(t, r, &x), DRACEL_OK);
        assert_int_equal(dracel_table_device(st, r, &y), DRACEL_OK);
        assert_string_equal(x.driver, y.driver);
        assert_string_equal(x.pool, y.pool);
        assert_string_equal(x.device, y.device);
        assert_string_equal(x.pool_state, y.pool_state);
    }
    dracel_snapshot_unref(s);
    dracel_cluster_free(c);
    dracel_table_free(t);
}

/* ---------------------------------------------------------------------------------------------
 * Threads: readers of old snapshots while the writer changes the cluster
 */

typedef struct race {
    dracel_cluster *c;
    pthread_mutex_t lock;
    dracel_snapshot *current;   /* published by the writer, under the lock */
    int done;                   /* atomic */
    int rounds;
} race;

static void *writer(void *arg)
{
    race *r = arg;
    for (int k = 0; k < 150; k++) {
        char name[16];
        snprintf(name, sizeof name, "w%d", k % 20);
        char *t = claim_text(name, k % 2 ? "node-a/gpu-1" : NULL, false, NULL);
        if (dracel_cluster_apply(r->c, "w.yaml", t, strlen(t), ALL, NULL, 0) != DRACEL_OK)
            abort();
        free(t);
        if (k % 7 == 0) {
            char node[128];
            snprintf(node, sizeof node,
                     "kind: Node\nmetadata: {name: node-a, labels: {zone: a%d}}\n", k);
            if (dracel_cluster_apply(r->c, "n.yaml", node, strlen(node), ALL, NULL, 0) != DRACEL_OK)
                abort();
        }
        if (k % 25 == 0) { /* a new generation of node-b's pool: a new table */
            char slice[512];
            snprintf(slice, sizeof slice,
                     "kind: ResourceSlice\nmetadata: {name: node-b-gpu}\n"
                     "spec: {driver: gpu.example.com, nodeName: node-b, pool: {name: node-b, "
                     "generation: %d, resourceSliceCount: 1}, devices: [{name: gpu-0, "
                     "attributes: {model: {string: H100}}}]}\n",
                     k + 2);
            if (dracel_cluster_apply(r->c, "s.yaml", slice, strlen(slice), ALL, NULL, 0) !=
                DRACEL_OK)
                abort();
        }
        if (k % 10 == 5)
            (void)dracel_cluster_delete(r->c, DRACEL_OBJ_CLAIM, "default", "w3");
        dracel_snapshot *s;
        if (dracel_cluster_snapshot(r->c, &s, NULL, 0) != DRACEL_OK)
            abort();
        pthread_mutex_lock(&r->lock);
        dracel_snapshot *old = r->current;
        r->current = s;
        pthread_mutex_unlock(&r->lock);
        dracel_snapshot_unref(old);
    }
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Reads the newest snapshot, and releases it here (the frees happen on this thread). */
static void *reader(void *arg)
{
    race *r = arg;
    while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&r->lock);
        dracel_snapshot *s = dracel_snapshot_ref(r->current);
        pthread_mutex_unlock(&r->lock);
        if (!s)
            continue;
        for (size_t i = 0; i < dracel_snapshot_claims(s); i++) {
            dracel_claim_status cs;
            size_t at;
            if (dracel_snapshot_claim(s, i, &cs) != DRACEL_OK ||
                dracel_snapshot_claim_find(s, cs.ns, cs.name, &at) != DRACEL_OK || at != i)
                abort();
        }
        size_t at;
        if (dracel_snapshot_node_find(s, "node-a", &at) != DRACEL_OK)
            abort();
        (void)dracel_usage_devices(dracel_snapshot_usage(s));
        dracel_snapshot_unref(s);
        r->rounds++;
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    race r;
    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.lock, NULL);
    r.c = base();
    apply_claim(r.c, "c.yaml", "probe", NULL, false, NULL);
    apply_claim(r.c, "c.yaml", "busy", "node-a/gpu-0", false, NULL);
    dracel_snapshot *old = snap(r.c);
    size_t probe = claim_ix(old, "probe");
    dracel_policy *p;
    assert_int_equal(dracel_snapshot_policy_new(NULL, old, &probe, 1, &p, err, sizeof err),
                     DRACEL_OK);
    char *want = answers(p, old, dracel_snapshot_usage(old), DRACEL_FEATURES_DEFAULT);
    pthread_t w, rd;
    assert_int_equal(pthread_create(&w, NULL, writer, &r), 0);
    assert_int_equal(pthread_create(&rd, NULL, reader, &r), 0);
    int rounds = 0;
    while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) {
        char *got = answers(p, old, dracel_snapshot_usage(old), DRACEL_FEATURES_DEFAULT);
        assert_string_equal(got, want);
        free(got);
        assert_int_equal(dracel_snapshot_claims(old), 2);
        rounds++;
    }
    pthread_join(w, NULL);
    pthread_join(rd, NULL);
    print_message("      %d allocations on an old snapshot and %d reads of new ones while 150 "
                  "changes were applied and published\n",
                  rounds, r.rounds);
    dracel_snapshot *last = r.current;
    assert_non_null(last);
    assert_true(dracel_snapshot_id(last) > dracel_snapshot_id(old));
    /* the last snapshot: 20 writer claims but w3, and the two of the start */
    assert_int_equal(dracel_snapshot_claims(last), 2 + 20 - (claim_ix(last, "w3") == SIZE_MAX));
    dracel_snapshot_unref(last);
    free(want);
    dracel_policy_free(p);
    dracel_snapshot_unref(old);
    dracel_cluster_free(r.c);
    pthread_mutex_destroy(&r.lock);
}

/* ---------------------------------------------------------------------------------------------
 * Allocation failures: each one is ENOMEM, changes nothing, leaks nothing
 */

/* A summary of a snapshot: ids, counts, every claim (position, name, version, status), the
 * nodes, the usage, and the answers of a policy of its claims. */
static void summary(const dracel_snapshot *s, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "id %llu rows %u classes %zu usage %zu\n",
                                  (unsigned long long)dracel_snapshot_id(s),
                                  dracel_table_rows(dracel_snapshot_table(s)),
                                  dracel_objects_count(dracel_snapshot_classes(s),
                                                       DRACEL_OBJ_CLASS),
                                  dracel_usage_devices(dracel_snapshot_usage(s)));
    for (size_t i = 0; i < dracel_snapshot_claims(s); i++) {
        dracel_claim_status cs;
        assert_int_equal(dracel_snapshot_claim(s, i, &cs), DRACEL_OK);
        len += (size_t)snprintf(out + len, cap - len, "%zu %s %llx %d %zu\n", i, cs.name,
                                (unsigned long long)cs.version, cs.allocated, cs.nresults);
    }
    for (size_t i = 0; i < dracel_snapshot_nodes(s); i++) {
        dracel_node n;
        assert_int_equal(dracel_snapshot_node(s, i, &n), DRACEL_OK);
        len += (size_t)snprintf(out + len, cap - len, "node %s %zu\n", n.name, n.nlabels);
    }
}

/* One step of the sequence; on ENOMEM, the cluster is as it was: the step is taken again. */
typedef struct seq {
    dracel_cluster *c;
    const dracel_alloc *a;
    dracel_snapshot *snaps[8];
    int nsnaps;
    long failures;
} seq;

static void step_done(seq *q, dracel_status st, size_t claims_before)
{
    if (st == DRACEL_ENOMEM) {
        q->failures++;
        assert_int_equal(dracel_cluster_count(q->c, DRACEL_OBJ_CLAIM), claims_before);
    } else if (st != DRACEL_OK) {
        fail_msg("status %d: %s", st, err);
    }
}

#define STEP(q, call)                                                                          \
    do {                                                                                       \
        size_t before_ = dracel_cluster_count((q)->c, DRACEL_OBJ_CLAIM);                      \
        dracel_status st_ = (call);                                                            \
        step_done((q), st_, before_);                                                          \
        if (st_ == DRACEL_ENOMEM)                                                              \
            st_ = (call); /* the allocator fails once: the second try goes through */         \
        assert_int_equal(st_, DRACEL_OK);                                                      \
    } while (0)

static void take(seq *q)
{
    dracel_snapshot *s = NULL;
    STEP(q, dracel_cluster_snapshot(q->c, &s, err, sizeof err));
    q->snaps[q->nsnaps++] = s;
}

static char *run_sequence(const dracel_alloc *a, long *failures)
{
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.alloc = a;
    seq q;
    memset(&q, 0, sizeof q);
    dracel_status st = dracel_cluster_new(&cfg, &q.c);
    if (st == DRACEL_ENOMEM) {
        (*failures)++;
        st = dracel_cluster_new(&cfg, &q.c);
    }
    assert_int_equal(st, DRACEL_OK);
    char *c1 = claim_text("c1", "node-a/gpu-0", false, NULL);
    char *c2 = claim_text("c2", "node-b/gpu-0", false,
                          "    nodeSelector:\n      nodeSelectorTerms:\n"
                          "      - matchFields: [{key: metadata.name, operator: In, values: "
                          "[node-b]}]\n");
    char *c3 = claim_text("c3", NULL, false, NULL);
    char *c1b = claim_text("c1", NULL, false, NULL);
    char two[8192];
    snprintf(two, sizeof two, "%s---\n%s", c2, c3);
    STEP(&q, dracel_cluster_apply(q.c, "slices", SLICES, strlen(SLICES), ALL, err, sizeof err));
    STEP(&q, dracel_cluster_apply(q.c, "class", CLASS, strlen(CLASS), ALL, err, sizeof err));
    STEP(&q, dracel_cluster_apply(q.c, "nodes", NODES, strlen(NODES), ALL, err, sizeof err));
    STEP(&q, dracel_cluster_apply(q.c, "a", c1, strlen(c1), ALL, err, sizeof err));
    take(&q);
    STEP(&q, dracel_cluster_set_source(q.c, "b", two, strlen(two), ALL, err, sizeof err));
    STEP(&q, dracel_cluster_apply(q.c, "a", c1b, strlen(c1b), ALL, err, sizeof err));
    take(&q);
    STEP(&q, dracel_cluster_delete(q.c, DRACEL_OBJ_CLAIM, "default", "c3"));
    STEP(&q, dracel_cluster_apply(q.c, "slices", SLICES, strlen(SLICES), ALL, err, sizeof err));
    take(&q);
    STEP(&q, dracel_cluster_set_source(q.c, "b", c2, strlen(c2), ALL, err, sizeof err));
    STEP(&q, dracel_cluster_apply(q.c, "c", c3, strlen(c3), ALL, err, sizeof err));
    static const char SKIPPED[] = "kind: Pod\nmetadata: {name: p}\n---\n"
                                  "kind: ResourceClaimTemplate\nmetadata: {name: t}\nspec: {}\n";
    STEP(&q, dracel_cluster_apply(q.c, "p", SKIPPED, strlen(SKIPPED), ALL, err, sizeof err));
    assert_int_equal(dracel_cluster_notes(q.c), 2);
    take(&q);
    char *out = malloc(1 << 16);
    size_t len = 0;
    for (int k = 0; k < q.nsnaps; k++) {
        summary(q.snaps[k], out + len, (1 << 16) - len);
        len += strlen(out + len);
    }
    /* a policy of the last snapshot (allocation failures there are dracel_policy_new's own) */
    dracel_snapshot *s = q.snaps[q.nsnaps - 1];
    size_t ix = claim_ix(s, "c3");
    dracel_policy *p = NULL;
    st = dracel_snapshot_policy_new(&cfg, s, &ix, 1, &p, err, sizeof err);
    if (st == DRACEL_ENOMEM) {
        q.failures++;
        st = dracel_snapshot_policy_new(&cfg, s, &ix, 1, &p, err, sizeof err);
    }
    assert_int_equal(st, DRACEL_OK);
    /* a pod's special claim (the implicit name of the class) in a policy of it */
    const dracel_resource rq[] = {{"deviceclass.resource.kubernetes.io/gpu.example.com", "1"}};
    const dracel_container ctr[] = {{"main", false, NULL, rq, 1, NULL, 0}};
    dracel_pod *pod = NULL;
    dracel_policy *pp = NULL;
    const char *res[1];
    while ((st = dracel_pod_new(&cfg, "default", ctr, 1, &pod, err, sizeof err)) == DRACEL_ENOMEM)
        q.failures++;
    assert_int_equal(st, DRACEL_OK);
    size_t nres = dracel_pod_extended(pod, dracel_snapshot_classes(s), NULL, 0, res, 1);
    assert_int_equal(nres, 1);
    while ((st = dracel_snapshot_pod_policy_new(&cfg, s, NULL, 0, pod, res, 1, &pp, err,
                                                sizeof err)) == DRACEL_ENOMEM)
        q.failures++;
    assert_int_equal(st, DRACEL_OK);
    dracel_pod_free(pod);
    for (int k = 0; k < q.nsnaps; k++)
        dracel_snapshot_unref(q.snaps[k]);
    dracel_cluster_free(q.c); /* the policy holds the last snapshot */
    len += (size_t)snprintf(out + len, (1 << 16) - len, "policy %s\n", dracel_policy_version(p));
    len += (size_t)snprintf(out + len, (1 << 16) - len, "pod policy %s, %zu tiers\n",
                            dracel_policy_version(pp), dracel_policy_tiers(pp));
    dracel_policy_free(p);
    dracel_policy_free(pp);
    free(c1);
    free(c2);
    free(c3);
    free(c1b);
    *failures += q.failures;
    return out;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    long none = 0;
    char *want = run_sequence(NULL, &none);
    assert_int_equal(none, 0);
    long failures = 0;
    for (long at = 1;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
        long f = 0;
        char *got = run_sequence(&a, &f);
        assert_string_equal(got, want);
        free(got);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.live_bytes, 0);
        failures += f;
        if (fa.calls < at)
            break;
    }
    assert_true(failures > 100);
    print_message("      %ld allocation failures injected: each ENOMEM, nothing changed, no leak\n",
                  failures);
    free(want);
}

int main(void)
{
    if (to_sources())
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_changes),
        cmocka_unit_test(test_all_or_nothing),
        cmocka_unit_test(test_sources),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_claim_fits),
        cmocka_unit_test(test_policy),
        cmocka_unit_test(test_extended),
        cmocka_unit_test(test_shares),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_scenarios),
        cmocka_unit_test(test_data),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
