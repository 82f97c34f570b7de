/*
 * test_place.c: the public placement API (include/dracel.h, "Placement") as a program sees it,
 * through dracel.h alone: object sets (load, find, duplicates, all-or-nothing), policies (copies
 * of their objects, versions, tiers), devices in use given per call (usage and reservations,
 * counters included), one node and many (a callback, a budget, stopping), the answer as C data
 * against its JSON, the explanation as C data against its JSON, growable structs, four threads
 * sharing one policy, and an allocation-failure sweep over the whole path. The scenario files
 * of tests/alloc/ (tests/alloc.sh, through dra-celc) pin the allocator's answers themselves.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dracel.h"
#include "testutil.h"

static char err[2048];

#define EX "examples/"

/* The sample: claims, classes, nodes in one set; the fleet as a table. */
typedef struct sample {
    dracel_objects *o;
    dracel_table *t;
    dracel_policy *p;
} sample;

static void sample_load(sample *s, const dracel_config *cfg)
{
    memset(s, 0, sizeof *s);
    assert_int_equal(dracel_objects_new(cfg, &s->o), DRACEL_OK);
    assert_int_equal(dracel_objects_load(s->o, EX "claims/gpu-tiered.yaml", DRACEL_OBJ_CLAIM, err,
                                         sizeof err), DRACEL_OK);
    assert_int_equal(dracel_objects_load(s->o, EX "classes", DRACEL_OBJ_CLASS, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_objects_load(s->o, EX "nodes.yaml", DRACEL_OBJ_NODE, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_table_load(cfg, EX "fleet", &s->t, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_policy_new(cfg, s->t, s->o, s->o, NULL, 0, &s->p, err, sizeof err),
                     DRACEL_OK);
}

static void sample_free(sample *s)
{
    dracel_policy_free(s->p);
    dracel_table_free(s->t);
    dracel_objects_free(s->o);
}

/* The node named @p name of the sample's set. */
static dracel_node sample_node(const sample *s, const char *name)
{
    size_t i;
    dracel_node n;
    assert_int_equal(dracel_objects_find(s->o, DRACEL_OBJ_NODE, NULL, name, &i), DRACEL_OK);
    assert_int_equal(dracel_objects_node(s->o, i, &n), DRACEL_OK);
    return n;
}

static char *run_json(const dracel_run *r)
{
    char *s = dracel_run_json(r);
    assert_non_null(s);
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * Objects
 */

static const char CLASSES[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: DeviceClass\n"
    "metadata: {name: gpu}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: Pod\n"
    "metadata: {name: p}\n";

static void test_objects(void **state)
{
    (void)state;
    dracel_objects *o;
    assert_int_equal(dracel_objects_new(NULL, &o), DRACEL_OK);
    assert_int_equal(dracel_objects_load_buffer(o, "c.yaml", CLASSES, strlen(CLASSES),
                                                DRACEL_OBJ_CLASS, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_objects_count(o, DRACEL_OBJ_CLASS), 1);
    assert_int_equal(dracel_objects_count(o, DRACEL_OBJ_CLAIM), 0);
    assert_int_equal(dracel_objects_notes(o), 1);
    assert_non_null(strstr(dracel_objects_note(o, 0), "Pod"));
    dracel_object_info info;
    assert_int_equal(dracel_objects_get(o, DRACEL_OBJ_CLASS, 0, &info), DRACEL_OK);
    assert_string_equal(info.kind, "DeviceClass");
    assert_string_equal(info.name, "gpu");
    assert_null(info.ns);
    assert_string_equal(info.file, "c.yaml");
    assert_int_equal(info.line, 1);
    assert_int_equal(dracel_objects_get(o, DRACEL_OBJ_CLASS, 1, &info), DRACEL_EINVAL);

    /* A class defined twice is rejected, and the load that brought it leaves nothing behind. */
    static const char TWICE[] =
        "- metadata: {name: other}\n"
        "  spec: {}\n"
        "- metadata: {name: gpu}\n"
        "  spec: {}\n";
    assert_int_equal(dracel_objects_load_buffer(o, "twice.yaml", TWICE, strlen(TWICE),
                                                DRACEL_OBJ_CLASS, err, sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "twice.yaml:3: DeviceClass gpu: defined twice (also c.yaml:1)");
    assert_int_equal(dracel_objects_count(o, DRACEL_OBJ_CLASS), 1);
    size_t at;
    assert_int_equal(dracel_objects_find(o, DRACEL_OBJ_CLASS, NULL, "other", &at), DRACEL_EINPUT);
    assert_int_equal(dracel_objects_find(o, DRACEL_OBJ_CLASS, NULL, "gpu", &at), DRACEL_OK);
    assert_int_equal(at, 0);

    /* Claims by namespace and name; a template's claim is found under the template's name. */
    static const char CLAIMS[] =
        "- apiVersion: resource.k8s.io/v1\n"
        "  kind: ResourceClaim\n"
        "  metadata: {name: a, namespace: ns1}\n"
        "  spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n"
        "- apiVersion: resource.k8s.io/v1\n"
        "  kind: ResourceClaimTemplate\n"
        "  metadata: {name: a, namespace: ns2}\n"
        "  spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}}\n";
    assert_int_equal(dracel_objects_load_buffer(o, "claims.yaml", CLAIMS, strlen(CLAIMS),
                                                DRACEL_OBJ_CLAIM, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_objects_find(o, DRACEL_OBJ_CLAIM, "ns2", "a", &at), DRACEL_OK);
    assert_int_equal(at, 1);
    assert_int_equal(dracel_objects_get(o, DRACEL_OBJ_CLAIM, at, &info), DRACEL_OK);
    assert_string_equal(info.kind, "ResourceClaimTemplate");
    assert_string_equal(info.ns, "ns2");
    assert_int_equal(dracel_objects_find(o, DRACEL_OBJ_CLAIM, "ns1", "a", &at), DRACEL_OK);
    assert_int_equal(at, 0);
    assert_int_equal(dracel_objects_find(o, DRACEL_OBJ_CLAIM, NULL, "a", &at), DRACEL_EINPUT);
    assert_int_equal(dracel_objects_find(o, DRACEL_OBJ_CLAIM | DRACEL_OBJ_NODE, NULL, "a", &at),
                     DRACEL_EINVAL);

    /* Nodes: labels sorted by key. */
    static const char NODES[] = "kind: Node\napiVersion: v1\n"
                                "metadata: {name: n1, labels: {zone: a, arch: x86}}\n";
    assert_int_equal(dracel_objects_load_buffer(o, "n.yaml", NODES, strlen(NODES),
                                                DRACEL_OBJ_NODE, err, sizeof err),
                     DRACEL_OK);
    dracel_node n;
    assert_int_equal(dracel_objects_node(o, 0, &n), DRACEL_OK);
    assert_string_equal(n.name, "n1");
    assert_int_equal(n.nlabels, 2);
    assert_string_equal(n.labels[0].key, "arch");
    assert_string_equal(n.labels[1].value, "a");
    /* a second Node n1 is rejected as a second class is */
    assert_int_equal(dracel_objects_load_buffer(o, "n2.yaml", NODES, strlen(NODES),
                                                DRACEL_OBJ_NODE, err, sizeof err),
                     DRACEL_EINPUT);
    assert_int_equal(dracel_objects_count(o, DRACEL_OBJ_NODE), 1);
    /* bad arguments */
    assert_int_equal(dracel_objects_load(o, "x", 0, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_objects_load(o, "x", 1u << 9, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_objects_load(o, "/nonexistent/dir", DRACEL_OBJ_NODE, err, sizeof err),
                     DRACEL_EINVAL);
    dracel_objects_free(o);
    dracel_objects_free(NULL);
}

/* ---------------------------------------------------------------------------------------------
 * Policies, runs, answers as C data
 */

static const char CONFIG[] =
    "features: [PrioritizedList]\n"
    "node: {name: n1, labels: {zone: a}}\n"
    "classes:\n"
    "- metadata: {name: gpu}\n"
    "  spec:\n"
    "    selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]\n"
    "    config: [{opaque: {driver: gpu.example.com, parameters: {mode: shared, count: 2}}}]\n"
    "- metadata: {name: other}\n"
    "  spec:\n"
    "    selectors: [{cel: {expression: 'device.driver == \"other.example.com\"'}}]\n"
    "    config: [{opaque: {driver: other.example.com, parameters: {x: 1}}}]\n"
    "slices:\n"
    "- metadata: {name: zoned}\n"
    "  spec:\n"
    "    driver: gpu.example.com\n"
    "    nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}\n"
    "    pool: {name: zoned, generation: 1, resourceSliceCount: 1}\n"
    "    devices: [{name: gpu-0}, {name: gpu-1}]\n"
    "claims:\n"
    "- metadata: {name: c, namespace: ns}\n"
    "  spec:\n"
    "    devices:\n"
    "      requests:\n"
    "      - {name: a, exactly: {deviceClassName: gpu}}\n"
    "      - name: b\n"
    "        firstAvailable:\n"
    "        - {name: x, deviceClassName: gpu}\n"
    "        - {name: z, deviceClassName: other}\n"
    "      config:\n"
    "      - {opaque: {driver: gpu.example.com, parameters: {p: 0}}}\n"
    "      - {requests: [a], opaque: {driver: gpu.example.com, parameters: {p: 1}}}\n"
    "      - {requests: [b/z], opaque: {driver: gpu.example.com, parameters: {p: 2}}}\n"
    "      - {requests: [a, b], opaque: {driver: gpu.example.com, parameters: {p: 3}}}\n";

static void test_config_and_node_selector(void **state)
{
    (void)state;
    dracel_scenario *sc;
    assert_int_equal(dracel_scenario_load_buffer(NULL, "config.yaml", CONFIG, strlen(CONFIG), &sc,
                                                 err, sizeof err),
                     DRACEL_OK);
    const dracel_objects *o = dracel_scenario_objects(sc);
    dracel_policy *p;
    assert_int_equal(dracel_policy_new(NULL, dracel_scenario_table(sc), o, o, NULL, 0, &p, err,
                                       sizeof err),
                     DRACEL_OK);
    /* the policy holds copies: the scenario's objects are not needed by what follows, but the
     * table is */
    dracel_run *r;
    assert_int_equal(dracel_run_new(p, &r), DRACEL_OK);
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.features = dracel_scenario_features(sc);
    assert_int_equal(ao.features, DRACEL_FEATURE_PRIORITIZED_LIST);
    dracel_node node;
    dracel_scenario_node(sc, &node);
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);
    char *json = run_json(r);
    /* Class config once per class, its requests merged (both requests: none named); claim
     * configs: without requests; naming a; naming b/z (not chosen: left out); naming a and b
     * (once, and naming every request it names none, as Kubernetes 1.37 copies it). The
     * devices come from a slice with a node selector: the result carries its requirements. */
    assert_string_equal(
        json,
        "{\"outcome\":\"allocated\",\"allocations\":[{\"devices\":{\"results\":["
        "{\"request\":\"a\",\"driver\":\"gpu.example.com\",\"pool\":\"zoned\",\"device\":\"gpu-0\"},"
        "{\"request\":\"b/x\",\"driver\":\"gpu.example.com\",\"pool\":\"zoned\",\"device\":\"gpu-1\"}],"
        "\"config\":["
        "{\"source\":\"FromClass\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"mode\":\"shared\",\"count\":2}}},"
        "{\"source\":\"FromClaim\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":0}}},"
        "{\"source\":\"FromClaim\",\"requests\":[\"a\"],\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":1}}},"
        "{\"source\":\"FromClaim\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":3}}}]},"
        "\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"a\"]}]}]}}]}");
    /* 1.36 and before: an entry once per request it names, requests never cleared */
    ao.kubernetes = 36;
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);
    char *old = run_json(r);
    assert_non_null(strstr(old, "\"config\":["
        "{\"source\":\"FromClass\",\"requests\":[\"a\",\"b/x\"],\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"mode\":\"shared\",\"count\":2}}},"
        "{\"source\":\"FromClaim\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":0}}},"
        "{\"source\":\"FromClaim\",\"requests\":[\"a\"],\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":1}}},"
        "{\"source\":\"FromClaim\",\"requests\":[\"a\",\"b\"],\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":3}}},"
        "{\"source\":\"FromClaim\",\"requests\":[\"a\",\"b\"],\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":3}}}]}"));
    assert_int_equal(dracel_run_configs(r, 0), 5);
    dracel_free_string(NULL, old);
    ao.kubernetes = 0;
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);

    /* The same answer as C data. */
    dracel_run_info info;
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_ALLOCATED);
    assert_string_equal(info.node, "n1");
    assert_null(info.message);
    assert_int_equal(info.score, 8);
    assert_string_equal(info.tiers, "a, b/x");
    assert_int_equal(info.devices, 2);
    assert_int_equal(info.pools, 1);
    assert_false(info.explained);
    assert_int_equal(dracel_run_chosen(r, 0, 0), 0);
    assert_int_equal(dracel_run_chosen(r, 0, 1), 0);
    assert_int_equal(dracel_run_chosen(r, 0, 2), -1);
    assert_int_equal(dracel_run_chosen(r, 1, 0), -1);
    assert_int_equal(dracel_run_results(r, 0), 2);
    dracel_device_result res;
    assert_int_equal(dracel_run_result(r, 0, 1, &res), DRACEL_OK);
    assert_string_equal(res.request, "b/x");
    assert_string_equal(res.driver, "gpu.example.com");
    assert_string_equal(res.pool, "zoned");
    assert_string_equal(res.device, "gpu-1");
    assert_false(res.admin_access);
    dracel_tier_info ti;
    assert_int_equal(dracel_policy_tier(p, res.tier, &ti), DRACEL_OK);
    assert_string_equal(ti.name, "b/x");
    assert_int_equal(ti.claim, 0);
    assert_int_equal(ti.request, 1);
    assert_int_equal(ti.rank, 0);
    assert_true(ti.first_available);
    assert_string_equal(ti.device_class, "gpu");
    assert_int_equal(ti.nselectors, 1);
    assert_int_equal(dracel_run_result(r, 0, 2, &res), DRACEL_EINVAL);
    assert_int_equal(dracel_run_configs(r, 0), 4);
    dracel_device_config dc;
    assert_int_equal(dracel_run_config(r, 0, 0, &dc), DRACEL_OK);
    assert_true(dc.from_class);
    assert_int_equal(dc.nrequests, 0);
    assert_string_equal(dc.parameters, "{\"mode\":\"shared\",\"count\":2}");
    assert_int_equal(dracel_run_config(r, 0, 2, &dc), DRACEL_OK);
    assert_false(dc.from_class);
    assert_int_equal(dc.nrequests, 1);
    assert_string_equal(dc.requests[0], "a");
    assert_string_equal(dc.driver, "gpu.example.com");
    char *sel = dracel_run_node_selector_json(r, 0);
    assert_non_null(sel);
    assert_non_null(strstr(json, sel));
    dracel_free_string(NULL, sel);
    /* no explanation was asked for */
    assert_null(dracel_run_explain_json(r));
    dracel_tier_explanation te;
    assert_int_equal(dracel_run_explain_tier(r, 0, &te), DRACEL_EINVAL);

    /* The same run on a node outside the selector: nothing visible, unschedulable. */
    dracel_node other = {"n2", NULL, 0};
    assert_int_equal(dracel_allocate(r, &other, &ao), DRACEL_OK);
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_UNSCHEDULABLE);
    assert_int_equal(info.score, -1);
    assert_int_equal(dracel_run_results(r, 0), 0);
    assert_int_equal(dracel_run_configs(r, 0), 0);
    assert_null(dracel_run_node_selector_json(r, 0));
    /* and back: a reused run gives the same answer as a fresh one */
    assert_int_equal(dracel_allocate(r, &node, NULL), DRACEL_OK);
    char *again = run_json(r);
    assert_string_equal(json, again);
    dracel_free_string(NULL, again);
    dracel_free_string(NULL, json);
    dracel_run_free(r);
    dracel_policy_free(p);
    dracel_scenario_free(sc);
}

/* The policy version covers what decides, not the order it was written in. */
static char *scenario_answer(const dracel_alloc *a, const char *name, const char *text,
                             size_t len, char *version, size_t vcap, dracel_status *st);

static void test_policy_version(void **state)
{
    (void)state;
    size_t la, lb;
    char *a = slurp("tests/data/alloc/order-a.yaml", &la);
    char *b = slurp("tests/data/alloc/order-b.yaml", &lb);
    char va[32], vb[32], vc[32];
    dracel_status st;
    char *oa = scenario_answer(NULL, "a.yaml", a, la, va, sizeof va, &st);
    char *ob = scenario_answer(NULL, "b.yaml", b, lb, vb, sizeof vb, &st);
    assert_string_equal(va, vb);
    assert_string_equal(oa, ob);
    assert_int_equal(strncmp(va, "pv1-", 4), 0);
    assert_int_equal(strlen(va), 20);
    /* a different count is a different policy */
    char *c = strdup(a);
    char *at = strstr(c, "count: 1");
    assert_non_null(at);
    at[7] = '2';
    char *oc = scenario_answer(NULL, "c.yaml", c, la, vc, sizeof vc, &st);
    assert_string_not_equal(va, vc);
    free(oa);
    free(ob);
    free(oc);
    free(a);
    free(b);
    free(c);
}

/* ---------------------------------------------------------------------------------------------
 * Devices in use, per call
 */

static void test_in_use(void **state)
{
    (void)state;
    sample s;
    sample_load(&s, NULL);
    dracel_run *r;
    assert_int_equal(dracel_run_new(s.p, &r), DRACEL_OK);
    dracel_node n = sample_node(&s, "node-h100-b");
    dracel_run_info info;
    /* node-h100-b's one H100 is free: the first tier */
    assert_int_equal(dracel_allocate(r, &n, NULL), DRACEL_OK);
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_ALLOCATED);
    assert_int_equal(dracel_run_chosen(r, 0, 0), 0);
    dracel_device_result res;
    assert_int_equal(dracel_run_result(r, 0, 0, &res), DRACEL_OK);
    dracel_device_id h100 = {res.driver, res.pool, res.device};

    /* given as in use by a usage: the H100 tier cannot be had there */
    dracel_usage *u;
    dracel_device_id ids[] = {h100, {"nosuch.example.com", "p", "d"}, h100};
    assert_int_equal(dracel_usage_new(s.t, ids, 3, &u), DRACEL_OK);
    assert_int_equal(dracel_usage_devices(u), 1);
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.in_use = u;
    ao.explain = true;
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_OK);
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_not_equal(info.outcome == DRACEL_ALLOCATED && dracel_run_chosen(r, 0, 0) == 0, 1);
    dracel_tier_explanation te;
    assert_int_equal(dracel_run_explain_tier(r, 0, &te), DRACEL_OK);
    assert_int_equal(te.excluded[DRACEL_EXCLUDED_ALLOCATED], 1);
    assert_int_equal(te.available, 0);

    /* the same as an in-flight reservation, for this call only */
    ao.in_use = NULL;
    ao.reserved = &h100;
    ao.nreserved = 1;
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_OK);
    char *j1 = run_json(r);
    ao.in_use = u;
    ao.reserved = NULL;
    ao.nreserved = 0;
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_OK);
    char *j2 = run_json(r);
    assert_string_equal(j1, j2);
    /* and the next call without it has the H100 again */
    assert_int_equal(dracel_allocate(r, &n, NULL), DRACEL_OK);
    assert_int_equal(dracel_run_chosen(r, 0, 0), 0);
    dracel_free_string(NULL, j1);
    dracel_free_string(NULL, j2);

    /* a usage of another table is refused */
    dracel_table *t2;
    assert_int_equal(dracel_table_load(NULL, EX "fleet", &t2, err, sizeof err), DRACEL_OK);
    dracel_usage *u2;
    assert_int_equal(dracel_usage_new(t2, ids, 1, &u2), DRACEL_OK);
    ao.in_use = u2;
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_EINVAL);
    /* reservations without IDs are refused */
    ao.in_use = NULL;
    ao.nreserved = 1;
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_EINVAL);
    dracel_device_id half = {"gpu.example.com", NULL, "x"};
    ao.reserved = &half;
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_EINVAL);
    dracel_usage_free(u2);
    dracel_table_free(t2);
    dracel_usage_free(u);
    dracel_run_free(r);
    sample_free(&s);
}

/* Counters of partitionable devices: what devices in use consume is taken whether they are given
 * by a usage or as reservations. */
static void test_in_use_counters(void **state)
{
    (void)state;
    dracel_scenario *sc;
    assert_int_equal(dracel_scenario_load(NULL, "tests/alloc/64-counters-two-requests.yaml", &sc,
                                          err, sizeof err),
                     DRACEL_OK);
    const dracel_objects *o = dracel_scenario_objects(sc);
    const dracel_table *t = dracel_scenario_table(sc);
    dracel_policy *p;
    assert_int_equal(dracel_policy_new(NULL, t, o, o, NULL, 0, &p, err, sizeof err), DRACEL_OK);
    dracel_run *r;
    assert_int_equal(dracel_run_new(p, &r), DRACEL_OK);
    dracel_node n;
    dracel_scenario_node(sc, &n);
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.features = dracel_scenario_features(sc);
    /* nothing in use: p0 and p2 (p1 does not fit after p0) */
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_OK);
    dracel_device_result res;
    assert_int_equal(dracel_run_result(r, 0, 0, &res), DRACEL_OK);
    assert_string_equal(res.device, "p0");
    assert_int_equal(dracel_run_result(r, 0, 1, &res), DRACEL_OK);
    assert_string_equal(res.device, "p2");
    /* p1 in use (6Gi of 8Gi): p0 and p2 no longer fit: unschedulable, by counters */
    dracel_device_id p1 = {"gpu.example.com", "n1", "p1"};
    ao.reserved = &p1;
    ao.nreserved = 1;
    ao.explain = true;
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_OK);
    dracel_run_info info;
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_UNSCHEDULABLE);
    dracel_tier_explanation te;
    assert_int_equal(dracel_run_explain_tier(r, 0, &te), DRACEL_OK);
    assert_int_equal(te.excluded[DRACEL_EXCLUDED_ALLOCATED], 1);
    assert_int_equal(te.excluded[DRACEL_EXCLUDED_COUNTERS], 2);
    char *j1 = run_json(r);
    dracel_usage *u;
    assert_int_equal(dracel_usage_new(t, &p1, 1, &u), DRACEL_OK);
    ao.reserved = NULL;
    ao.nreserved = 0;
    ao.in_use = u;
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_OK);
    char *j2 = run_json(r);
    assert_string_equal(j1, j2);
    /* both at once count each device once */
    ao.reserved = &p1;
    ao.nreserved = 1;
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_OK);
    char *j3 = run_json(r);
    assert_string_equal(j1, j3);
    dracel_free_string(NULL, j1);
    dracel_free_string(NULL, j2);
    dracel_free_string(NULL, j3);
    dracel_usage_free(u);
    dracel_run_free(r);
    dracel_policy_free(p);
    dracel_scenario_free(sc);
}

/* ---------------------------------------------------------------------------------------------
 * Many nodes
 */

typedef struct collected {
    char names[16][64];
    dracel_outcome outcomes[16];
    size_t n, stop_after;
} collected;

static int collect(void *ctx, size_t i, const dracel_run *r)
{
    collected *c = ctx;
    dracel_run_info info;
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(i, c->n);
    snprintf(c->names[c->n], sizeof c->names[0], "%s", info.node);
    c->outcomes[c->n++] = info.outcome;
    return c->stop_after && c->n == c->stop_after;
}

static void test_many_nodes(void **state)
{
    (void)state;
    sample s;
    sample_load(&s, NULL);
    size_t nn = dracel_objects_count(s.o, DRACEL_OBJ_NODE);
    assert_true(nn > 3 && nn <= 16);
    dracel_node nodes[16];
    for (size_t i = 0; i < nn; i++)
        assert_int_equal(dracel_objects_node(s.o, i, &nodes[i]), DRACEL_OK);
    dracel_run *r;
    assert_int_equal(dracel_run_new(s.p, &r), DRACEL_OK);
    collected c;
    memset(&c, 0, sizeof c);
    assert_int_equal(dracel_allocate_nodes(r, nodes, nn, NULL, collect, &c), DRACEL_OK);
    assert_int_equal(c.n, nn);
    /* each answer equals the node's own call */
    for (size_t i = 0; i < nn; i++) {
        assert_string_equal(c.names[i], nodes[i].name);
        dracel_run_info info;
        assert_int_equal(dracel_allocate(r, &nodes[i], NULL), DRACEL_OK);
        assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
        assert_int_equal(info.outcome, c.outcomes[i]);
    }
    /* the callback stops the call */
    memset(&c, 0, sizeof c);
    c.stop_after = 2;
    assert_int_equal(dracel_allocate_nodes(r, nodes, nn, NULL, collect, &c), DRACEL_OK);
    assert_int_equal(c.n, 2);
    /* no nodes: no call back */
    memset(&c, 0, sizeof c);
    assert_int_equal(dracel_allocate_nodes(r, nodes, 0, NULL, collect, &c), DRACEL_OK);
    assert_int_equal(c.n, 0);
    /* labels in any order give the answer of sorted ones */
    dracel_node n = sample_node(&s, "node-a100-80");
    dracel_label rev[8];
    assert_true(n.nlabels <= 8);
    for (size_t i = 0; i < n.nlabels; i++)
        rev[i] = n.labels[n.nlabels - 1 - i];
    assert_int_equal(dracel_allocate(r, &n, NULL), DRACEL_OK);
    char *j1 = run_json(r);
    dracel_node nrev = {n.name, rev, n.nlabels};
    assert_int_equal(dracel_allocate(r, &nrev, NULL), DRACEL_OK);
    char *j2 = run_json(r);
    assert_string_equal(j1, j2);
    dracel_free_string(NULL, j1);
    dracel_free_string(NULL, j2);
    /* a node without a name */
    dracel_node anon = {NULL, NULL, 0};
    assert_int_equal(dracel_allocate(r, &anon, NULL), DRACEL_EINVAL);
    assert_int_equal(dracel_allocate_nodes(r, &anon, 1, NULL, NULL, NULL), DRACEL_EINVAL);
    dracel_run_free(r);
    sample_free(&s);
}

/* The budget: a search that would run for days (tests/data/alloc/timeout.yaml) spends it on the
 * first node; the others are skipped at once. */
static void test_budget(void **state)
{
    (void)state;
    dracel_scenario *sc;
    assert_int_equal(dracel_scenario_load(NULL, "tests/data/alloc/timeout.yaml", &sc, err,
                                          sizeof err),
                     DRACEL_OK);
    const dracel_objects *o = dracel_scenario_objects(sc);
    dracel_policy *p;
    assert_int_equal(dracel_policy_new(NULL, dracel_scenario_table(sc), o, o, NULL, 0, &p, err,
                                       sizeof err),
                     DRACEL_OK);
    dracel_run *r;
    assert_int_equal(dracel_run_new(p, &r), DRACEL_OK);
    dracel_node n;
    dracel_scenario_node(sc, &n);
    dracel_node nodes[4] = {n, n, n, n};
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.features = dracel_scenario_features(sc);
    ao.timeout_ms = 0;  /* no limit per node: only the call's budget stops the search */
    ao.budget_ms = 50;
    collected c;
    memset(&c, 0, sizeof c);
    assert_int_equal(dracel_allocate_nodes(r, nodes, 4, &ao, collect, &c), DRACEL_OK);
    assert_int_equal(c.n, 4);
    assert_int_equal(c.outcomes[0], DRACEL_UNSCHEDULABLE);
    for (size_t i = 1; i < 4; i++)
        assert_int_equal(c.outcomes[i], DRACEL_SKIPPED);
    dracel_run_info info;
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_non_null(strstr(info.message, "time limit of the call"));
    char *j = run_json(r);
    assert_non_null(strstr(j, "\"outcome\":\"unschedulable\""));
    assert_non_null(strstr(j, "\"skipped\":true"));
    dracel_free_string(NULL, j);
    dracel_run_free(r);
    dracel_policy_free(p);
    dracel_scenario_free(sc);
}

/* The interrupt (a process shutting down): polled during the search, it ends the call where
 * the budget would, with its own message; the next call starts afresh. */
static int interrupt_after(void *ctx)
{
    int *polls = ctx;
    return ++*polls > 1000;
}

static void test_interrupt(void **state)
{
    (void)state;
    dracel_scenario *sc;
    assert_int_equal(dracel_scenario_load(NULL, "tests/data/alloc/timeout.yaml", &sc, err,
                                          sizeof err),
                     DRACEL_OK);
    const dracel_objects *o = dracel_scenario_objects(sc);
    dracel_policy *p;
    assert_int_equal(dracel_policy_new(NULL, dracel_scenario_table(sc), o, o, NULL, 0, &p, err,
                                       sizeof err),
                     DRACEL_OK);
    dracel_run *r;
    assert_int_equal(dracel_run_new(p, &r), DRACEL_OK);
    dracel_node n;
    dracel_scenario_node(sc, &n);
    dracel_node nodes[3] = {n, n, n};
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    assert_null(ao.interrupt);
    ao.features = dracel_scenario_features(sc);
    ao.timeout_ms = 0; /* a search of days: only the interrupt ends it */
    int polls = 0;
    ao.interrupt = interrupt_after;
    ao.interrupt_ctx = &polls;
    collected c;
    memset(&c, 0, sizeof c);
    assert_int_equal(dracel_allocate_nodes(r, nodes, 3, &ao, collect, &c), DRACEL_OK);
    assert_int_equal(c.n, 3);
    assert_int_equal(c.outcomes[0], DRACEL_UNSCHEDULABLE);
    assert_int_equal(c.outcomes[1], DRACEL_SKIPPED);
    assert_int_equal(c.outcomes[2], DRACEL_SKIPPED);
    assert_int_equal(polls, 1001); /* not asked again once it answered */
    dracel_run_info info;
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_string_equal(info.message, "not tried: the call was interrupted");
    /* an interrupt that answers at once: not even the first node is tried */
    polls = 5000;
    memset(&c, 0, sizeof c);
    assert_int_equal(dracel_allocate_nodes(r, nodes, 2, &ao, collect, &c), DRACEL_OK);
    assert_int_equal(c.outcomes[0], DRACEL_SKIPPED);
    assert_int_equal(c.outcomes[1], DRACEL_SKIPPED);
    /* a call without it runs again (to its time limit) */
    ao.interrupt = NULL;
    ao.timeout_ms = 20;
    memset(&c, 0, sizeof c);
    assert_int_equal(dracel_allocate_nodes(r, nodes, 1, &ao, collect, &c), DRACEL_OK);
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_UNSCHEDULABLE);
    assert_string_equal(info.message, "timed out trying to allocate devices");
    dracel_run_free(r);
    dracel_policy_free(p);
    dracel_scenario_free(sc);
}

/* ---------------------------------------------------------------------------------------------
 * The explanation as data, against its JSON
 */

static void test_explanation_data(void **state)
{
    (void)state;
    sample s;
    sample_load(&s, NULL);
    dracel_run *r;
    assert_int_equal(dracel_run_new(s.p, &r), DRACEL_OK);
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.explain = true;
    ao.examples = 3;
    dracel_node n = sample_node(&s, "node-l4");
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_OK);
    char *j = dracel_run_explain_json(r);
    char *text = dracel_run_explain_text(r);
    assert_non_null(j);
    assert_non_null(text);
    size_t ntiers = dracel_policy_tiers(s.p);
    assert_int_equal(ntiers, 3);
    char frag[512];
    for (size_t t = 0; t < ntiers; t++) {
        dracel_tier_info ti;
        dracel_tier_explanation te;
        assert_int_equal(dracel_policy_tier(s.p, t, &ti), DRACEL_OK);
        assert_int_equal(dracel_run_explain_tier(r, t, &te), DRACEL_OK);
        assert_int_equal(ti.rank, t);
        /* the JSON says the same */
        snprintf(frag, sizeof frag, "\"needed\":%u,\"candidates\":%u,\"available\":%u", te.needed,
                 te.candidates, te.available);
        assert_non_null(strstr(j, frag));
        snprintf(frag, sizeof frag,
                 "\"excluded\":{\"incompletePool\":%u,\"invalidPool\":%u,\"node\":%u,"
                 "\"allocated\":%u,\"tainted\":%u,\"counters\":%u,\"capacity\":%u,"
                 "\"bindingConditions\":%u,\"partitionableOff\":%u}",
                 te.excluded[0], te.excluded[1], te.excluded[2], te.excluded[3], te.excluded[4],
                 te.excluded[5], te.excluded_capacity, te.excluded_binding, te.excluded_ungated);
        assert_non_null(strstr(j, frag));
        if (te.status == DRACEL_TIER_FAILED) {
            assert_non_null(te.reason);
            assert_non_null(strstr(text, te.reason));
        } else {
            assert_null(te.reason);
        }
        assert_int_equal(te.nselectors, ti.nselectors);
        for (size_t k = 0; k < te.nselectors; k++) {
            dracel_selector_explanation se;
            assert_int_equal(dracel_run_explain_selector(r, t, k, &se), DRACEL_OK);
            assert_non_null(se.expression);
            assert_null(se.compile_error);
            snprintf(frag, sizeof frag, "\"rejected\":%u,\"errored\":%u", se.rejected, se.errored);
            assert_non_null(strstr(j, frag));
            assert_true(se.nexamples <= 3);
            assert_true(se.nexamples <= (size_t)se.rejected + se.errored);
            for (size_t e = 0; e < se.nexamples; e++) {
                dracel_example ex;
                assert_int_equal(dracel_run_explain_example(r, t, k, e, &ex), DRACEL_OK);
                assert_string_equal(ex.driver, "gpu.example.com");
                assert_int_equal(strncmp(ex.text, ex.device, strlen(ex.device)), 0);
                assert_non_null(strstr(text, ex.text));
            }
            dracel_example ex;
            assert_int_equal(dracel_run_explain_example(r, t, k, se.nexamples, &ex),
                             DRACEL_EINVAL);
        }
    }
    /* node-l4: the H100 and A100 tiers fail on the model, the third tier takes the 24Gi L4 */
    dracel_tier_explanation te;
    assert_int_equal(dracel_run_explain_tier(r, 0, &te), DRACEL_OK);
    assert_int_equal(te.status, DRACEL_TIER_FAILED);
    assert_int_equal(te.candidates, 0);
    dracel_selector_explanation se;
    assert_int_equal(dracel_run_explain_selector(r, 0, 1, &se), DRACEL_OK);
    assert_false(se.from_class);
    assert_int_equal(se.index, 0);
    assert_true(se.rejected > 0);
    assert_int_equal(dracel_run_explain_tier(r, 2, &te), DRACEL_OK);
    assert_int_equal(te.status, DRACEL_TIER_CHOSEN);
    assert_int_equal(dracel_run_explain_tier(r, 3, &te), DRACEL_EINVAL);
    assert_int_equal(dracel_run_explain_selector(r, 0, 9, &se), DRACEL_EINVAL);
    dracel_free_string(NULL, j);
    dracel_free_string(NULL, text);
    dracel_run_free(r);
    sample_free(&s);
}

/* Whether s is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
static bool valid_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        unsigned c = *u;
        size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                   : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (len == 0)
            return false;
        uint32_t v = len == 1 ? c : c & (0x7F >> len);
        for (size_t i = 1; i < len; i++) {
            if ((u[i] & 0xC0) != 0x80)
                return false;
            v = (v << 6) | (u[i] & 0x3F);
        }
        static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
        if (v < min[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
            return false;
        u += len;
    }
    return true;
}

/* A node name that is not UTF-8, from a C caller: every JSON the library writes is still valid
 * UTF-8, each byte that is not part of a valid sequence written as U+FFFD (as Go's
 * encoding/json writes it): a lone 0xFF, an overlong '/', a surrogate, a truncated sequence;
 * a valid two-byte character is kept. The text output keeps the bytes as given. */
static void test_json_utf8(void **state)
{
    (void)state;
    sample s;
    sample_load(&s, NULL);
    dracel_run *r;
    assert_int_equal(dracel_run_new(s.p, &r), DRACEL_OK);
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.explain = true;
    const char *name = "n\xff" "a\xc0\xaf" "b\xed\xa0\x80" "c\xc3\xbc" "d\xe2\x82";
    const char *want = "\"n\xEF\xBF\xBD" "a\xEF\xBF\xBD\xEF\xBF\xBD"
                       "b\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" "c\xc3\xbc"
                       "d\xEF\xBF\xBD\xEF\xBF\xBD\"";
    dracel_node n = {name, NULL, 0};
    assert_int_equal(dracel_allocate(r, &n, &ao), DRACEL_OK);
    char *json[] = {dracel_run_node_json(r), dracel_run_explain_json(r)};
    for (size_t i = 0; i < sizeof json / sizeof json[0]; i++) {
        assert_non_null(json[i]);
        assert_true(valid_utf8(json[i]));
        const char *at = strstr(json[i], "{\"node\":");
        assert_non_null(at);
        assert_memory_equal(at + strlen("{\"node\":"), want, strlen(want));
        dracel_free_string(NULL, json[i]);
    }
    char *text = dracel_run_explain_text(r);
    assert_non_null(text);
    assert_non_null(strstr(text, name));
    dracel_free_string(NULL, text);
    dracel_run_free(r);
    sample_free(&s);
}

/* ---------------------------------------------------------------------------------------------
 * Releases: the gates, the copy Kubernetes' scheduler runs, and what the run says of it
 */

static void test_releases(void **state)
{
    (void)state;
    sample s;
    sample_load(&s, NULL);
    dracel_run *r;
    assert_int_equal(dracel_run_new(s.p, &r), DRACEL_OK);
    dracel_node n = sample_node(&s, "node-h100-a");
    static const struct {
        unsigned minor;
        const char *copy;
    } want[] = {{34, "experimental"}, {35, "incubating"}, {36, "incubating"},
                {37, "incubating"}, {0, "incubating"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dracel_allocate_opts o;
        dracel_allocate_opts_init(&o);
        assert_int_equal(o.kubernetes, 0);
        o.kubernetes = want[i].minor;
        if (want[i].minor)
            o.features = dracel_kubernetes_defaults(want[i].minor);
        assert_int_equal(dracel_allocate(r, &n, &o), DRACEL_OK);
        dracel_run_info info;
        assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
        assert_int_equal(info.outcome, DRACEL_ALLOCATED);
        assert_int_equal(info.kubernetes, want[i].minor ? want[i].minor : 37);
        assert_string_equal(info.allocator, want[i].copy);
    }
    /* 1.35: the sample's node has one pool; the map order decides nothing there */
    dracel_allocate_opts o;
    dracel_allocate_opts_init(&o);
    o.kubernetes = 35;
    o.features = DRACEL_FEATURE_PRIORITIZED_LIST;
    assert_int_equal(dracel_allocate(r, &n, &o), DRACEL_OK);
    dracel_run_info info;
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.allocator_features, DRACEL_FEATURE_PRIORITIZED_LIST);
    assert_null(info.nondeterministic);
    /* not a release dracel reproduces */
    o.kubernetes = 33;
    assert_int_equal(dracel_allocate(r, &n, &o), DRACEL_EINVAL);
    o.kubernetes = 38;
    assert_int_equal(dracel_allocate(r, &n, &o), DRACEL_EINVAL);
    /* options of a caller compiled before the field: the newest release */
    dracel_allocate_opts old;
    dracel_allocate_opts_init_size(&old, offsetof(dracel_allocate_opts, kubernetes));
    assert_int_equal(dracel_allocate(r, &n, &old), DRACEL_OK);
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.kubernetes, 37);
    /* releases and gates */
    assert_int_equal(dracel_kubernetes_parse("v1.36.2", 7), 36);
    assert_int_equal(dracel_kubernetes_parse("1.33", 4), 0);
    assert_int_equal(dracel_kubernetes_parse(NULL, 0), 0);
    assert_int_equal(dracel_kubernetes_defaults(DRACEL_KUBERNETES_NEWEST), DRACEL_FEATURES_DEFAULT);
    unsigned f = dracel_kubernetes_defaults(36);
    assert_int_equal(dracel_feature_gates(36, "DRAConsumableCapacity=false", 27, &f, err,
                                          sizeof err), DRACEL_OK);
    assert_int_equal(f & DRACEL_FEATURE_CONSUMABLE_CAPACITY, 0);
    assert_int_equal(dracel_feature_gates(36, "DRAAdminAccess=false", 20, &f, err, sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "cannot set feature gate DRAAdminAccess to false, feature is "
                             "locked to true");
    assert_int_equal(dracel_feature_gates(33, "", 0, &f, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_feature_gates(36, NULL, 3, &f, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_feature_gates(0, NULL, 0, &f, NULL, 0), DRACEL_OK);
    assert_int_equal(dracel_feature_parse("DRADeviceTaintRules", 19),
                     DRACEL_FEATURE_DEVICE_TAINT_RULES);
    dracel_run_free(r);
    sample_free(&s);
}

static void test_scenario_release(void **state)
{
    (void)state;
    static const char text[] = "kubernetesVersion: \"1.35\"\n"
                               "featureGates: {DRADeviceTaints: true}\n"
                               "node: {name: n1}\n";
    dracel_scenario *sc;
    assert_int_equal(dracel_scenario_load_buffer(NULL, "s.yaml", text, sizeof text - 1, &sc, err,
                                                 sizeof err), DRACEL_OK);
    assert_int_equal(dracel_scenario_kubernetes(sc), 35);
    unsigned d35 = dracel_kubernetes_defaults(35), d37 = dracel_kubernetes_defaults(37);
    assert_int_equal(dracel_scenario_features(sc), d35 | DRACEL_FEATURE_DEVICE_TAINTS);
    assert_int_equal(dracel_scenario_gates(sc, 0), d35 | DRACEL_FEATURE_DEVICE_TAINTS);
    /* another release: its defaults, with the scenario's featureGates on top */
    assert_int_equal(dracel_scenario_gates(sc, 37), d37 | DRACEL_FEATURE_DEVICE_TAINTS);
    dracel_scenario_free(sc);
    static const char listed[] = "features: [AdminAccess]\nnode: {name: n1}\n";
    assert_int_equal(dracel_scenario_load_buffer(NULL, "s.yaml", listed, sizeof listed - 1, &sc,
                                                 err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_scenario_kubernetes(sc), 37);
    assert_int_equal(dracel_scenario_gates(sc, 34), DRACEL_FEATURE_ADMIN_ACCESS);
    dracel_scenario_free(sc);
    assert_int_equal(dracel_scenario_kubernetes(NULL), 37);
    assert_int_equal(dracel_scenario_gates(NULL, 36), 0);
}

/* Consumable capacity through the API: shares in use, results with a shareID and the capacity
 * consumed. */
static const char SHARED[] =
    "kubernetesVersion: \"1.36\"\n"
    "node: {name: n1}\n"
    "classes:\n"
    "- metadata: {name: shared}\n"
    "  spec: {selectors: [{cel: {expression: 'device.allowMultipleAllocations'}}]}\n"
    "slices:\n"
    "- metadata: {name: s}\n"
    "  spec:\n"
    "    driver: gpu.example.com\n"
    "    nodeName: n1\n"
    "    pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
    "    devices:\n"
    "    - name: d0\n"
    "      allowMultipleAllocations: true\n"
    "      capacity:\n"
    "        zmem: {value: 8Gi, requestPolicy: {default: 1Gi, validRange: {min: 1Gi}}}\n"
    "        cores: {value: \"4\"}\n"
    "claims:\n"
    "- metadata: {name: c}\n"
    "  spec:\n"
    "    devices:\n"
    "      requests:\n"
    "      - name: r\n"
    "        exactly: {deviceClassName: shared, capacity: {requests: {zmem: 2Gi, cores: \"1\"}}}\n";

/* A scenario's policy of all its claims, a run of it, and its node. */
static void scenario_run(const char *text, size_t len, dracel_scenario **sc, dracel_policy **p,
                         dracel_run **r, dracel_node *node)
{
    assert_int_equal(dracel_scenario_load_buffer(NULL, "s.yaml", text, len, sc, err, sizeof err),
                     DRACEL_OK);
    const dracel_objects *o = dracel_scenario_objects(*sc);
    assert_int_equal(dracel_policy_new(NULL, dracel_scenario_table(*sc), o, o, NULL, 0, p, err,
                                       sizeof err), DRACEL_OK);
    assert_int_equal(dracel_run_new(*p, r), DRACEL_OK);
    dracel_scenario_node(*sc, node);
}

static void test_consumable(void **state)
{
    (void)state;
    dracel_scenario *sc;
    dracel_policy *p;
    dracel_run *r;
    dracel_node node;
    scenario_run(SHARED, sizeof SHARED - 1, &sc, &p, &r, &node);
    /* shares in use: 7Gi of zmem taken, 3 of 4 cores: the request for 2Gi no longer fits */
    static const char *const n1[] = {"zmem", "cores"}, *const q1[] = {"6Gi", "1"};
    static const char *const n2[] = {"zmem", "cores"}, *const q2[] = {"1Gi", "2"};
    dracel_share sh[2] = {{{"gpu.example.com", "p", "d0"}, n1, q1, 2},
                          {{"gpu.example.com", "p", "d0"}, n2, q2, 2}};
    dracel_usage *u;
    assert_int_equal(dracel_usage_new_shared(dracel_scenario_table(sc), NULL, 0, sh, 2, &u),
                     DRACEL_OK);
    assert_int_equal(dracel_usage_devices(u), 0); /* a share is no device in use */
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.kubernetes = 36;
    ao.in_use = u;
    ao.explain = true;
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);
    dracel_run_info info;
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_UNSCHEDULABLE);
    dracel_tier_explanation te;
    assert_int_equal(dracel_run_explain_tier(r, 0, &te), DRACEL_OK);
    assert_int_equal(te.excluded_capacity, 1);
    assert_int_equal(te.available, 0);
    /* with one share less it fits: the result is a share */
    dracel_usage *u1;
    assert_int_equal(dracel_usage_new_shared(dracel_scenario_table(sc), NULL, 0, sh + 1, 1, &u1),
                     DRACEL_OK);
    ao.in_use = u1;
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_ALLOCATED);
    dracel_device_result res;
    assert_int_equal(dracel_run_result(r, 0, 0, &res), DRACEL_OK);
    assert_non_null(res.share_id);
    assert_int_equal(strlen(res.share_id), 36);
    assert_int_equal(res.share_id[14], '4');
    assert_int_equal(res.nconsumed, 2);
    const char *name, *qty;
    assert_int_equal(dracel_run_result_consumed(r, 0, 0, 0, &name, &qty), DRACEL_OK);
    assert_string_equal(name, "cores");
    assert_string_equal(qty, "1");
    assert_int_equal(dracel_run_result_consumed(r, 0, 0, 1, &name, &qty), DRACEL_OK);
    assert_string_equal(name, "zmem");
    assert_string_equal(qty, "2Gi");
    assert_int_equal(dracel_run_result_consumed(r, 0, 0, 2, &name, &qty), DRACEL_EINVAL);
    char *j = run_json(r);
    char want[256];
    snprintf(want, sizeof want, "\"shareID\":\"%s\",\"consumedCapacity\":{\"cores\":\"1\","
             "\"zmem\":\"2Gi\"}", res.share_id);
    assert_non_null(strstr(j, want));
    dracel_free_string(NULL, j);
    /* the same answer again: shareIDs replay */
    char first[37];
    memcpy(first, res.share_id, 37);
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);
    assert_int_equal(dracel_run_result(r, 0, 0, &res), DRACEL_OK);
    assert_string_equal(res.share_id, first);
    /* bad shares */
    static const char *const bad[] = {"lots"};
    dracel_share b = {{"gpu.example.com", "p", "d0"}, n1, bad, 1};
    dracel_usage *x = NULL;
    assert_int_equal(dracel_usage_new_shared(dracel_scenario_table(sc), NULL, 0, &b, 1, &x),
                     DRACEL_EINVAL);
    assert_null(x);
    assert_int_equal(dracel_usage_new_shared(dracel_scenario_table(sc), NULL, 0, NULL, 1, &x),
                     DRACEL_EINVAL);
    dracel_usage_free(u1);
    dracel_usage_free(u);
    dracel_run_free(r);
    dracel_policy_free(p);
    dracel_scenario_free(sc);
}

/* Binding conditions through the API: copied into the results with their gates on; with them
 * off the device cannot be selected, and the explanation counts it. */
static const char BINDING[] =
    "kubernetesVersion: \"1.36\"\n"
    "node: {name: n1}\n"
    "classes:\n"
    "- metadata: {name: gpu}\n"
    "  spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n"
    "slices:\n"
    "- metadata: {name: s}\n"
    "  spec:\n"
    "    driver: gpu.example.com\n"
    "    nodeName: n1\n"
    "    pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
    "    devices:\n"
    "    - name: d0\n"
    "      bindingConditions: [Ready, example.com/attached]\n"
    "      bindingFailureConditions: [Failed]\n"
    "claims:\n"
    "- metadata: {name: c}\n"
    "  spec:\n"
    "    devices:\n"
    "      requests: [{name: r, exactly: {deviceClassName: gpu}}]\n";

static void test_binding(void **state)
{
    (void)state;
    dracel_scenario *sc;
    dracel_policy *p;
    dracel_run *r;
    dracel_node node;
    scenario_run(BINDING, sizeof BINDING - 1, &sc, &p, &r, &node);
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.kubernetes = 36;
    ao.explain = true;
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);
    dracel_run_info info;
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_ALLOCATED);
    dracel_device_result res;
    assert_int_equal(dracel_run_result(r, 0, 0, &res), DRACEL_OK);
    assert_int_equal(res.nbinding, 2);
    assert_int_equal(res.nbinding_failure, 1);
    const char *name = NULL;
    assert_int_equal(dracel_run_result_condition(r, 0, 0, false, 1, &name), DRACEL_OK);
    assert_string_equal(name, "example.com/attached");
    assert_int_equal(dracel_run_result_condition(r, 0, 0, true, 0, &name), DRACEL_OK);
    assert_string_equal(name, "Failed");
    assert_int_equal(dracel_run_result_condition(r, 0, 0, true, 1, &name), DRACEL_EINVAL);
    assert_int_equal(dracel_run_result_condition(r, 0, 1, false, 0, &name), DRACEL_EINVAL);
    assert_int_equal(dracel_run_result_condition(r, 0, 0, false, 0, NULL), DRACEL_EINVAL);
    char *j = run_json(r);
    assert_non_null(strstr(j, "\"device\":\"d0\",\"bindingConditions\":[\"Ready\","
                              "\"example.com/attached\"],\"bindingFailureConditions\":"
                              "[\"Failed\"]}"));
    dracel_free_string(NULL, j);
    /* the gates off (1.35's defaults): unselectable, counted before any selector */
    ao.kubernetes = 35;
    ao.features = dracel_kubernetes_defaults(35);
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_UNSCHEDULABLE);
    dracel_tier_explanation te;
    assert_int_equal(dracel_run_explain_tier(r, 0, &te), DRACEL_OK);
    assert_int_equal(te.excluded_binding, 1);
    assert_int_equal(te.candidates, 0);
    /* 1.34 needs DRAResourceClaimDeviceStatus too */
    ao.kubernetes = 34;
    ao.features = DRACEL_FEATURE_BINDING_CONDITIONS;
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_UNSCHEDULABLE);
    ao.features |= DRACEL_FEATURE_DEVICE_STATUS;
    assert_int_equal(dracel_allocate(r, &node, &ao), DRACEL_OK);
    assert_int_equal(dracel_run_get(r, &info), DRACEL_OK);
    assert_int_equal(info.outcome, DRACEL_ALLOCATED);
    assert_int_equal(dracel_run_result(r, 0, 0, &res), DRACEL_OK);
    assert_int_equal(res.nbinding, 2);
    dracel_run_free(r);
    dracel_policy_free(p);
    dracel_scenario_free(sc);
}

/* A scenario's pod with an extended resource backed by DRA: the special claim comes last. */
static const char EXTENDED[] =
    "node: {name: n1}\n"
    "classes:\n"
    "- metadata: {name: gpu}\n"
    "  spec: {extendedResourceName: example.com/gpu}\n"
    "claims:\n"
    "- metadata: {name: own}\n"
    "  spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n"
    "pod:\n"
    "  spec:\n"
    "    containers:\n"
    "    - {name: a, resources: {requests: {example.com/gpu: 2}}}\n";

static void test_extended_claim(void **state)
{
    (void)state;
    dracel_scenario *sc;
    assert_int_equal(dracel_scenario_load_buffer(NULL, "s.yaml", EXTENDED, sizeof EXTENDED - 1,
                                                 &sc, err, sizeof err), DRACEL_OK);
    assert_true(dracel_scenario_extended_claim(sc));
    const dracel_objects *o = dracel_scenario_objects(sc);
    assert_int_equal(dracel_objects_count(o, DRACEL_OBJ_CLAIM), 2);
    /* its one request mapping, then none */
    const char *c, *res, *req;
    assert_int_equal(dracel_scenario_request_mapping(sc, 0, &c, &res, &req), DRACEL_OK);
    assert_string_equal(c, "a");
    assert_string_equal(res, "example.com/gpu");
    assert_string_equal(req, "container-0-request-0");
    assert_int_equal(dracel_scenario_request_mapping(sc, 1, &c, &res, &req), DRACEL_EINVAL);
    assert_int_equal(dracel_scenario_request_mapping(sc, 0, NULL, &res, &req), DRACEL_EINVAL);
    dracel_scenario_free(sc);
    /* a node with device-plugin capacity for it: no special claim */
    char text[sizeof EXTENDED + 64];
    snprintf(text, sizeof text, "node: {name: n1, allocatable: {example.com/gpu: 1}}%s",
             strchr(EXTENDED, '\n'));
    assert_int_equal(dracel_scenario_load_buffer(NULL, "s.yaml", text, strlen(text), &sc, err,
                                                 sizeof err), DRACEL_OK);
    assert_false(dracel_scenario_extended_claim(sc));
    assert_int_equal(dracel_objects_count(dracel_scenario_objects(sc), DRACEL_OBJ_CLAIM), 1);
    assert_int_equal(dracel_scenario_request_mapping(sc, 0, &c, &res, &req), DRACEL_EINVAL);
    dracel_scenario_free(sc);
    assert_false(dracel_scenario_extended_claim(NULL));
    assert_int_equal(dracel_scenario_request_mapping(NULL, 0, &c, &res, &req), DRACEL_EINVAL);
}

/* ---------------------------------------------------------------------------------------------
 * Growable structs
 */

static void test_growable(void **state)
{
    (void)state;
    sample s;
    sample_load(&s, NULL);
    dracel_run *r;
    assert_int_equal(dracel_run_new(s.p, &r), DRACEL_OK);
    dracel_node n = sample_node(&s, "node-h100-a");
    /* options from a newer caller: zero extra bytes are fine, set ones are refused */
    struct {
        dracel_allocate_opts o;
        uint64_t newer;
    } big;
    memset(&big, 0, sizeof big);
    dracel_allocate_opts_init_size(&big.o, sizeof big);
    assert_int_equal(big.o.size, sizeof big);
    assert_int_equal(big.o.features, DRACEL_FEATURES_DEFAULT);
    assert_int_equal(dracel_allocate(r, &n, &big.o), DRACEL_OK);
    big.newer = 1;
    assert_int_equal(dracel_allocate(r, &n, &big.o), DRACEL_EINVAL);
    /* a size below the first layout is refused */
    dracel_allocate_opts small;
    dracel_allocate_opts_init(&small);
    small.size = 8;
    assert_int_equal(dracel_allocate(r, &n, &small), DRACEL_EINVAL);
    /* an output struct of a newer caller: its extra fields read as zero */
    assert_int_equal(dracel_allocate(r, &n, NULL), DRACEL_OK);
    struct {
        dracel_run_info info;
        uint64_t newer;
    } out;
    memset(&out, 0xff, sizeof out);
    assert_int_equal(dracel_run_get_size(r, &out.info, sizeof out), DRACEL_OK);
    assert_int_equal(out.newer, 0);
    assert_int_equal(out.info.outcome, DRACEL_ALLOCATED);
    assert_int_equal(dracel_run_get_size(r, &out.info, 4), DRACEL_EINVAL);
    /* configs too */
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.size = 3;
    dracel_objects *o;
    assert_int_equal(dracel_objects_new(&cfg, &o), DRACEL_EINVAL);
    dracel_run_free(r);
    sample_free(&s);
}

/* ---------------------------------------------------------------------------------------------
 * Threads: one policy, a run each
 */

typedef struct worker {
    const dracel_policy *p;
    const dracel_node *nodes;
    size_t n;
    char *out;            /* every node's JSON, joined */
    int rc;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    dracel_run *r;
    w->rc = 1;
    if (dracel_run_new(w->p, &r) != DRACEL_OK)
        return NULL;
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.explain = true;
    size_t cap = 1, len = 0;
    w->out = calloc(1, 1);
    bool same = true;
    /* five rounds over the nodes: the later rounds must repeat the first byte for byte */
    for (int round = 0; round < 5 && same; round++) {
        size_t pos = 0;
        for (size_t i = 0; i < w->n && same; i++) {
            if (dracel_allocate(r, &w->nodes[i], &ao) != DRACEL_OK)
                return NULL;
            char *j = dracel_run_node_json(r);
            if (!j)
                return NULL;
            size_t k = strlen(j);
            if (round == 0) {
                if (len + k + 1 > cap) {
                    cap = (len + k + 1) * 2;
                    w->out = realloc(w->out, cap);
                }
                memcpy(w->out + len, j, k + 1);
                len += k;
            } else {
                same = pos + k <= len && memcmp(w->out + pos, j, k) == 0;
                pos += k;
            }
            dracel_free_string(NULL, j);
        }
    }
    dracel_run_free(r);
    w->rc = same ? 0 : 1;
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    sample s;
    sample_load(&s, NULL);
    size_t nn = dracel_objects_count(s.o, DRACEL_OBJ_NODE);
    dracel_node nodes[16];
    for (size_t i = 0; i < nn; i++)
        assert_int_equal(dracel_objects_node(s.o, i, &nodes[i]), DRACEL_OK);
    worker w[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){s.p, nodes, nn, NULL, 1};
        assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    worker one = {s.p, nodes, nn, NULL, 1};
    work(&one);
    assert_int_equal(one.rc, 0);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(w[i].rc, 0);
        assert_string_equal(w[i].out, one.out);
        free(w[i].out);
    }
    free(one.out);
    sample_free(&s);
}

/* ---------------------------------------------------------------------------------------------
 * Allocation failures
 */

/* The whole path on a scenario buffer with allocator @p a (NULL: malloc): the JSON and text of
 * the answer with explanations, and the C data of every result and tier, copied out with malloc.
 * The objects set is freed before the policy is used (the policy holds copies). */
static char *scenario_answer(const dracel_alloc *a, const char *name, const char *text,
                             size_t len, char *version, size_t vcap, dracel_status *st)
{
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.alloc = a;
    dracel_scenario *sc = NULL;
    dracel_policy *p = NULL;
    dracel_run *r = NULL;
    char *out = NULL;
    *st = dracel_scenario_load_buffer(&cfg, name, text, len, &sc, err, sizeof err);
    const dracel_objects *o = dracel_scenario_objects(sc);
    if (*st == DRACEL_OK)
        *st = dracel_policy_new(&cfg, dracel_scenario_table(sc), o, o, NULL, 0, &p, err,
                                sizeof err);
    if (*st == DRACEL_OK)
        *st = dracel_run_new(p, &r);
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.features = dracel_scenario_features(sc);
    ao.timeout_ms = 0;
    ao.explain = true;
    ao.examples = 2;
    ao.in_use = dracel_scenario_usage(sc);
    dracel_node node;
    dracel_scenario_node(sc, &node);
    if (*st == DRACEL_OK)
        *st = dracel_allocate(r, &node, &ao);
    if (*st == DRACEL_OK) {
        char *j = dracel_run_json(r), *t = dracel_run_text(r), *sum = dracel_run_summary(r);
        if (!j || !t || !sum) {
            *st = DRACEL_ENOMEM;
        } else {
            size_t n = strlen(j) + strlen(t) + strlen(sum) + 4096;
            out = malloc(n);
            int k = snprintf(out, n, "%s\n%s\n%s\n", j, t, sum);
            for (size_t c = 0; c < dracel_policy_claims(p); c++)
                for (size_t i = 0; i < dracel_run_results(r, c); i++) {
                    dracel_device_result res;
                    assert_int_equal(dracel_run_result(r, c, i, &res), DRACEL_OK);
                    k += snprintf(out + k, n - (size_t)k, "%s %s/%s/%s\n", res.request,
                                  res.driver, res.pool, res.device);
                }
            if (version)
                snprintf(version, vcap, "%s", dracel_policy_version(p));
        }
        dracel_free_string(&cfg, j);
        dracel_free_string(&cfg, t);
        dracel_free_string(&cfg, sum);
    }
    dracel_run_free(r);
    dracel_policy_free(p);
    dracel_scenario_free(sc);
    return out;
}

static void sweep(const char *path)
{
    size_t len;
    char *text = slurp(path, &len);
    dracel_status st;
    char *want = scenario_answer(NULL, path, text, len, NULL, 0, &st);
    assert_int_equal(st, DRACEL_OK);
    long failures = 0;
    for (long at = 1;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
        char *got = scenario_answer(&a, path, text, len, NULL, 0, &st);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.live_bytes, 0);
        if (st == DRACEL_OK) {
            assert_non_null(got);
            assert_string_equal(got, want);
            free(got);
            if (fa.calls < at)
                break;
            continue; /* the failed call was not on a path that matters */
        }
        if (st != DRACEL_ENOMEM)
            fail_msg("%s: allocation %ld: status %d: %s", path, at, st, err);
        failures++;
    }
    assert_true(failures > 10);
    print_message("      %s: %ld allocation failures injected, each ENOMEM without a leak\n",
                  path, failures);
    free(want);
    free(text);
}

static void test_alloc_failures(void **state)
{
    (void)state;
    static const char *const files[] = {
        "tests/data/alloc/order-a.yaml",
        "tests/alloc/05-node-selector-operators.yaml",
        "tests/alloc/26-all-mode.yaml",
        "tests/alloc/37-first-available-backtrack-lower-tier.yaml",
        "tests/alloc/51-distinct-attribute.yaml",
        "tests/alloc/52-admin-access.yaml",
        "tests/alloc/57-toleration-equal-default.yaml",
        "tests/alloc/64-counters-two-requests.yaml",
        "tests/alloc/68-cel-error-visited.yaml",
        "tests/alloc/14-duplicate-device-invalid-pool.yaml",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        sweep(files[i]);
}

/* Failures in the objects loader and explain-style many-node calls on the sample. */
static void test_alloc_failures_sample(void **state)
{
    (void)state;
    long failures = 0;
    char *want = NULL;
    for (long at = 0;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
        dracel_config cfg;
        dracel_config_init(&cfg);
        cfg.alloc = &a;
        dracel_objects *o = NULL;
        dracel_table *t = NULL;
        dracel_policy *p = NULL;
        dracel_run *r = NULL;
        dracel_status st = dracel_objects_new(&cfg, &o);
        if (st == DRACEL_OK)
            st = dracel_objects_load(o, EX "claims/gpu-tiered.yaml", DRACEL_OBJ_CLAIM, err, sizeof err);
        if (st == DRACEL_OK)
            st = dracel_objects_load(o, EX "classes", DRACEL_OBJ_CLASS, err, sizeof err);
        if (st == DRACEL_OK)
            st = dracel_objects_load(o, EX "nodes.yaml", DRACEL_OBJ_NODE, err, sizeof err);
        if (st == DRACEL_OK)
            st = dracel_table_load(&cfg, EX "fleet", &t, err, sizeof err);
        if (st == DRACEL_OK)
            st = dracel_policy_new(&cfg, t, o, o, NULL, 0, &p, err, sizeof err);
        dracel_objects_free(o);
        if (st == DRACEL_OK)
            st = dracel_run_new(p, &r);
        char got[16384];
        size_t len = 0;
        got[0] = '\0';
        if (st == DRACEL_OK) {
            dracel_allocate_opts ao;
            dracel_allocate_opts_init(&ao);
            ao.explain = true;
            for (size_t i = 0; st == DRACEL_OK && i < dracel_table_nodes(t); i++) {
                dracel_node n = {dracel_table_node(t, i), NULL, 0};
                st = dracel_allocate(r, &n, &ao);
                char *j = st == DRACEL_OK ? dracel_run_node_json(r) : NULL;
                if (st == DRACEL_OK && !j)
                    st = DRACEL_ENOMEM;
                if (j)
                    len += (size_t)snprintf(got + len, sizeof got - len, "%.200s\n", j);
                dracel_free_string(&cfg, j);
            }
        }
        dracel_run_free(r);
        dracel_policy_free(p);
        dracel_table_free(t);
        assert_int_equal(fa.live_blocks, 0);
        if (at == 0) {
            assert_int_equal(st, DRACEL_OK);
            want = strdup(got);
            continue;
        }
        if (st == DRACEL_OK) {
            assert_string_equal(got, want);
            if (fa.calls < at)
                break;
            continue;
        }
        if (st != DRACEL_ENOMEM)
            fail_msg("allocation %ld: status %d: %s", at, st, err);
        failures++;
    }
    assert_true(failures > 50);
    print_message("      the sample: %ld allocation failures injected, each ENOMEM without a leak\n",
                  failures);
    free(want);
}

int main(void)
{
    if (to_sources() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objects),
        cmocka_unit_test(test_config_and_node_selector),
        cmocka_unit_test(test_policy_version),
        cmocka_unit_test(test_in_use),
        cmocka_unit_test(test_in_use_counters),
        cmocka_unit_test(test_many_nodes),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_interrupt),
        cmocka_unit_test(test_explanation_data),
        cmocka_unit_test(test_releases),
        cmocka_unit_test(test_consumable),
        cmocka_unit_test(test_binding),
        cmocka_unit_test(test_extended_claim),
        cmocka_unit_test(test_scenario_release),
        cmocka_unit_test(test_json_utf8),
        cmocka_unit_test(test_growable),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_alloc_failures_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
