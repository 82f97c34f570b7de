/*
 * test_alloc.c: unit tests for src/alloc.c beyond the scenario files of tests/alloc/ (which
 * tests/alloc.sh runs through dra-celc): the JSON of a result with config and node selectors,
 * policy versions, a run reused across nodes, and an allocation-failure sweep over the whole
 * allocate path (scenario load, table build, compile and vector selection, search,
 * explanation, printing): every failure is a clean ENOMEM without a leak, and every run that
 * gets its memory gives the same bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "apiint.h"
#include "claims.h"
#include "common.h"
#include "testutil.h"

static char err[2048];

/* The whole allocate path on a buffer; *out gets text + JSON (with explanations). */
static dracel_status pipeline(const dracel_alloc *a, const char *name, const char *text, size_t len,
                              char **out, char *version, size_t vcap)
{
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.alloc = a;
    dc_objects o;
    dc_objects_init(&o, a);
    dc_scenario sc;
    dracel_table *t = NULL;
    dc_policy *p = NULL;
    dc_alloc_run *r = NULL;
    *out = NULL;
    dracel_status st = dc_scenario_load_buffer(&o, &sc, name, text, len, NULL, err, sizeof err);
    if (st == DRACEL_OK)
        st = dc_api_table_build(&cfg, &o.slices, &t, err, sizeof err);
    if (st == DRACEL_OK)
        st = dc_policy_new(&cfg, t, &o, sc.allocated, sc.nallocated, &p, err, sizeof err);
    if (st == DRACEL_OK)
        st = dc_alloc_run_new(p, &r);
    dc_alloc_opts ao = {sc.features, 0, true, 2};
    if (st == DRACEL_OK)
        st = dc_alloc_node(r, &sc.node, &ao);
    if (st == DRACEL_OK) {
        dc_buf b;
        dc_buf_init(&b, a);
        dc_alloc_text(r, &b);
        dc_alloc_json(r, &b);
        if (version)
            snprintf(version, vcap, "%s", dc_policy_version(p));
        if (b.oom) {
            st = DRACEL_ENOMEM;
            dc_buf_free(&b);
        } else {
            /* copy out with malloc: the caller frees it after the allocator is gone */
            *out = strdup(b.data);
            dc_buf_free(&b);
        }
    }
    dc_alloc_run_free(r);
    dc_policy_free(p);
    dracel_table_free(t);
    dc_objects_free(&o);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * Config copying and node selectors, as Kubernetes' allocator builds them
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
    dracel_config cfg;
    dracel_config_init(&cfg);
    dc_objects o;
    dc_objects_init(&o, NULL);
    dc_scenario sc;
    assert_int_equal(dc_scenario_load_buffer(&o, &sc, "config.yaml", CONFIG, strlen(CONFIG), NULL,
                                             err, sizeof err),
                     DRACEL_OK);
    dracel_table *t;
    assert_int_equal(dc_api_table_build(&cfg, &o.slices, &t, err, sizeof err), DRACEL_OK);
    dc_policy *p;
    assert_int_equal(dc_policy_new(&cfg, t, &o, NULL, 0, &p, err, sizeof err), DRACEL_OK);
    dc_alloc_run *r;
    assert_int_equal(dc_alloc_run_new(p, &r), DRACEL_OK);
    dc_alloc_opts ao = {sc.features, 0, false, 1};
    assert_int_equal(dc_alloc_node(r, &sc.node, &ao), DRACEL_OK);
    dc_buf b;
    dc_buf_init(&b, &dc_default_alloc);
    dc_alloc_json(r, &b);
    /* Class config once per class, its requests merged (both requests: none named); claim
     * configs: without requests; naming a; naming b/z (not chosen: left out); naming a and b
     * (once per matching request, as Kubernetes copies it). The devices come from a slice with
     * a node selector: the result carries its requirements. */
    assert_string_equal(
        b.data,
        "{\"outcome\":\"allocated\",\"allocations\":[{\"devices\":{\"results\":["
        "{\"request\":\"a\",\"driver\":\"gpu.example.com\",\"pool\":\"zoned\",\"device\":\"gpu-0\"},"
        "{\"request\":\"b/x\",\"driver\":\"gpu.example.com\",\"pool\":\"zoned\",\"device\":\"gpu-1\"}],"
        "\"config\":["
        "{\"source\":\"FromClass\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"mode\":\"shared\",\"count\":2}}},"
        "{\"source\":\"FromClaim\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":0}}},"
        "{\"source\":\"FromClaim\",\"requests\":[\"a\"],\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":1}}},"
        "{\"source\":\"FromClaim\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":3}}},"
        "{\"source\":\"FromClaim\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"p\":3}}}]},"
        "\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"a\"]}]}]}}]}");
    assert_int_equal(dc_alloc_score(r), 8);
    assert_string_equal(dc_alloc_tiers(r), "a, b/x");

    /* The same run on a node outside the selector: nothing visible, unschedulable. */
    dc_node_in other = {"n2", NULL, 0, NULL, 0};
    assert_int_equal(dc_alloc_node(r, &other, &ao), DRACEL_OK);
    assert_int_equal(dc_alloc_outcome_of(r), DC_ALLOC_UNSCHEDULABLE);
    assert_int_equal(dc_alloc_score(r), -1);
    /* and back: a reused run gives the same answer as a fresh one */
    dc_buf b2;
    dc_buf_init(&b2, &dc_default_alloc);
    assert_int_equal(dc_alloc_node(r, &sc.node, &ao), DRACEL_OK);
    dc_alloc_json(r, &b2);
    assert_string_equal(b.data, b2.data);
    dc_buf_free(&b);
    dc_buf_free(&b2);
    dc_alloc_run_free(r);
    dc_policy_free(p);
    dracel_table_free(t);
    dc_objects_free(&o);
}

/* The policy version covers what decides, not the order it was written in. */
static void test_policy_version(void **state)
{
    (void)state;
    size_t la, lb;
    char *a = slurp("tests/data/alloc/order-a.yaml", &la);
    char *b = slurp("tests/data/alloc/order-b.yaml", &lb);
    char va[32], vb[32], vc[32];
    char *oa, *ob, *oc;
    assert_int_equal(pipeline(&dc_default_alloc, "a.yaml", a, la, &oa, va, sizeof va), DRACEL_OK);
    assert_int_equal(pipeline(&dc_default_alloc, "b.yaml", b, lb, &ob, vb, sizeof vb), DRACEL_OK);
    assert_string_equal(va, vb);
    assert_string_equal(oa, ob);
    assert_int_equal(strncmp(va, "pv1-", 4), 0);
    assert_int_equal(strlen(va), 20);
    /* a different count is a different policy */
    char *c = strdup(a);
    char *at = strstr(c, "count: 1");
    assert_non_null(at);
    at[7] = '2';
    assert_int_equal(pipeline(&dc_default_alloc, "c.yaml", c, la, &oc, vc, sizeof vc), DRACEL_OK);
    assert_string_not_equal(va, vc);
    free(oa);
    free(ob);
    free(oc);
    free(a);
    free(b);
    free(c);
}

/* ---------------------------------------------------------------------------------------------
 * Allocation failures
 */

static void sweep(const char *path)
{
    size_t len;
    char *text = slurp(path, &len);
    char *want;
    assert_int_equal(pipeline(&dc_default_alloc, path, text, len, &want, NULL, 0), DRACEL_OK);
    long failures = 0;
    for (long at = 1;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
        char *got;
        dracel_status st = pipeline(&a, path, text, len, &got, NULL, 0);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.live_bytes, 0);
        if (st == DRACEL_OK) {
            assert_non_null(got);
            assert_string_equal(got, want);
            free(got);
            if (fa.calls < at)
                break;
            continue; /* the failed call was not on a path that matters (none expected) */
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

int main(void)
{
    if (to_sources() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_and_node_selector),
        cmocka_unit_test(test_policy_version),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
