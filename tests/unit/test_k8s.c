/*
 * test_k8s.c: unit tests for src/k8s.c: every release's default gates and locks, the allocator
 * features its scheduler passes, the copy that runs and that copy's search (the facts of
 * docs/allocation.md, "Releases"), release names and --feature-gates parsing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "claims.h"
#include "k8s.h"

#define A DC_FEAT_ADMIN_ACCESS
#define P DC_FEAT_PRIORITIZED_LIST
#define T DC_FEAT_DEVICE_TAINTS
#define D DC_FEAT_PARTITIONABLE
#define C DC_FEAT_CONSUMABLE_CAPACITY
#define B DC_FEAT_BINDING_CONDITIONS
#define L DC_FEAT_LIST_TYPE_ATTRIBUTES
#define E DC_FEAT_EXTENDED_RESOURCE
#define S DC_FEAT_DEVICE_STATUS
#define R DC_FEAT_DEVICE_TAINT_RULES

static void test_defaults(void **state)
{
    (void)state;
    /* kube_features.go's versioned specs */
    assert_int_equal(dc_k8s_defaults(34), A | P | S);
    assert_int_equal(dc_k8s_defaults(35), A | P | S);
    assert_int_equal(dc_k8s_defaults(36), A | P | T | D | C | B | E | S);
    assert_int_equal(dc_k8s_defaults(37), A | P | T | D | C | B | E | S | R);
    assert_int_equal(dc_k8s_defaults(37), DC_FEAT_DEFAULTS);
    assert_int_equal(dc_k8s_defaults(33), 0);
    assert_int_equal(dc_k8s_defaults(38), 0);
    assert_false(dc_k8s_has_gate(34, R));
    assert_true(dc_k8s_has_gate(35, R));
    assert_false(dc_k8s_has_gate(35, L));
    assert_true(dc_k8s_has_gate(36, L));
    assert_true(dc_k8s_has_gate(34, S));
    assert_false(dc_k8s_has_gate(33, A));
}

typedef struct copy_case {
    unsigned release, gates, features;
    dc_copy copy;
    bool sorted, fleet, beta, none_blocks, msg;
} copy_case;

static void test_copies(void **state)
{
    (void)state;
    static const copy_case cases[] = {
        /* 1.34's defaults run experimental: DeviceStatus is passed apart (PR 133967) */
        {34, A | P | S, A | P | S, DC_COPY_EXPERIMENTAL, false, false, true, true, false},
        {34, A | P, A | P, DC_COPY_INCUBATING, false, false, false, true, false},
        {34, 0, 0, DC_COPY_STABLE, false, false, false, true, false},
        /* 1.35: DeviceBindingAndStatus needs both gates */
        {35, A | P | S, A | P, DC_COPY_INCUBATING, false, true, false, false, false},
        {35, A | P | S | B, A | P | B, DC_COPY_EXPERIMENTAL, false, true, true, false, false},
        {35, A | P | B, A | P, DC_COPY_INCUBATING, false, true, false, false, false},
        {35, 0, 0, DC_COPY_STABLE, false, true, false, true, false},
        {35, C, C, DC_COPY_EXPERIMENTAL, false, true, true, false, false},
        /* 1.36 defaults run incubating; without consumable capacity and binding, stable */
        {36, A | P | T | D | C | B | E | S, A | P | T | D | C | B, DC_COPY_INCUBATING, true, true,
         true, false, false},
        {36, A | P | T | D | E | S, A | P | T | D, DC_COPY_STABLE, false, true, false, false,
         false},
        /* 1.36's scheduler does not pass ListTypeAttributes; 1.37's does (PR 139332) */
        {36, A | P | S | L, A | P, DC_COPY_STABLE, false, true, false, false, false},
        {37, A | P | S | L, A | P | L, DC_COPY_EXPERIMENTAL, true, true, true, false, true},
        {37, DC_FEAT_DEFAULTS, A | P | T | D | C | B, DC_COPY_INCUBATING, true, true, true, false,
         true},
        {37, A | P | E | S | R, A | P, DC_COPY_STABLE, false, true, false, false, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const copy_case *c = &cases[i];
        dc_k8s k;
        dc_k8s_resolve(c->release, c->gates, &k);
        if (k.features != c->features || k.copy != c->copy || k.sorted != c->sorted ||
            k.combinations != c->sorted || k.fleet_complete != c->fleet ||
            k.beta_code != c->beta || k.none_blocks != c->none_blocks ||
            k.device_in_msg != c->msg)
            fail_msg("case %zu (1.%u, gates %#x): features %#x copy %s sorted %d fleet %d beta %d "
                     "none %d msg %d", i, c->release, c->gates, k.features, dc_copy_name(k.copy),
                     k.sorted, k.fleet_complete, k.beta_code, k.none_blocks, k.device_in_msg);
        assert_int_equal(k.release, c->release);
        assert_int_equal(k.gates, c->gates);
        assert_int_equal(k.list_attrs, c->copy == DC_COPY_EXPERIMENTAL && (k.features & L));
    }
    /* the stable copy of 1.34 and 1.35 has no early cut at 32 results */
    dc_k8s k;
    dc_k8s_resolve(35, 0, &k);
    assert_false(k.maxsize_cut);
    dc_k8s_resolve(35, A, &k);
    assert_true(k.maxsize_cut);
    dc_k8s_resolve(36, 0, &k);
    assert_true(k.maxsize_cut);
    /* an unknown release is the newest */
    dc_k8s_resolve(12, A, &k);
    assert_int_equal(k.release, 37);
    assert_string_equal(dc_copy_name(DC_COPY_STABLE), "stable");
    assert_string_equal(dc_copy_name(DC_COPY_INCUBATING), "incubating");
    assert_string_equal(dc_copy_name(DC_COPY_EXPERIMENTAL), "experimental");
}

static void test_release_names(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        unsigned want;
    } cases[] = {
        {"1.34", 34}, {"1.37", 37}, {"v1.36", 36}, {"1.35.6", 35}, {"v1.36.12", 36},
        {"1.33", 0},  {"1.38", 0},  {"1.3", 0},    {"1.036", 0},  {"1.36.", 0},
        {"1.36.x", 0}, {"2.36", 0}, {"", 0},       {"v", 0},      {"1.", 0},
        {"1.36 ", 0}, {"136", 0},  {"vv1.36", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (dc_k8s_parse_release(cases[i].s, strlen(cases[i].s)) != cases[i].want)
            fail_msg("release '%s'", cases[i].s);
}

static void gates_ok(unsigned release, const char *spec, unsigned from, unsigned want)
{
    char err[256];
    unsigned g = from;
    if (dc_k8s_gates(release, spec, strlen(spec), &g, err, sizeof err) != 0)
        fail_msg("'%s': %s", spec, err);
    if (g != want)
        fail_msg("'%s': %#x, want %#x", spec, g, want);
}

static void gates_err(unsigned release, const char *spec, const char *want)
{
    char err[256];
    unsigned g = 0x5a5;
    if (dc_k8s_gates(release, spec, strlen(spec), &g, err, sizeof err) != -1)
        fail_msg("'%s' accepted", spec);
    assert_int_equal(g, 0x5a5);
    if (strcmp(err, want) != 0)
        fail_msg("'%s':\n got: %s\nwant: %s", spec, err, want);
}

static void test_gates(void **state)
{
    (void)state;
    gates_ok(36, "DRAConsumableCapacity=false", dc_k8s_defaults(36), dc_k8s_defaults(36) & ~C);
    gates_ok(35, " DRADeviceTaints = true , DRAPartitionableDevices=1,,", A | P | S,
             A | P | S | T | D);
    gates_ok(35, "DRADeviceTaints=T,DRADeviceTaints=False", 0, 0);
    gates_ok(37, "", A, A);
    gates_ok(37, "DeviceStatus=true", 0, S); /* dracel's short names too */
    /* locked to its default: setting the default is fine */
    gates_ok(36, "DRAAdminAccess=true", 0, A);
    gates_ok(35, "DRAAdminAccess=false", A, 0);
    gates_err(36, "DRAAdminAccess=false",
              "cannot set feature gate DRAAdminAccess to false, feature is locked to true");
    gates_err(37, "DRAPrioritizedList=false",
              "cannot set feature gate DRAPrioritizedList to false, feature is locked to true");
    gates_err(37, "DRAExtendedResource=0",
              "cannot set feature gate DRAExtendedResource to false, feature is locked to true");
    gates_err(37, "DRADeviceTaints=true,Foo=true", "unrecognized feature gate: Foo");
    gates_err(34, "DRADeviceTaintRules=true",
              "unrecognized feature gate: DRADeviceTaintRules (not in this Kubernetes release)");
    gates_err(35, "DRAListTypeAttributes=true",
              "unrecognized feature gate: DRAListTypeAttributes (not in this Kubernetes release)");
    gates_err(37, "DRADeviceTaints", "missing bool value for DRADeviceTaints");
    gates_err(37, "DRADeviceTaints=yes",
              "invalid value of DRADeviceTaints=yes, err: strconv.ParseBool: parsing \"yes\": "
              "invalid syntax");
    /* one gate at a time, by either name */
    unsigned g = 0;
    char err[128];
    assert_int_equal(dc_k8s_gate_set(36, "DRAListTypeAttributes", 21, true, &g, err, sizeof err),
                     0);
    assert_int_equal(g, L);
    assert_int_equal(dc_k8s_gate_set(36, "ListTypeAttributes", 18, false, &g, err, sizeof err),
                     0);
    assert_int_equal(g, 0);
    assert_string_equal(dc_feature_gate_name(S), "DRAResourceClaimDeviceStatus");
    assert_string_equal(dc_feature_gate_name(R), "DRADeviceTaintRules");
    assert_null(dc_feature_gate_name(0));
    char known[320];
    dc_feature_known(known, sizeof known);
    assert_non_null(strstr(known, "AdminAccess, PrioritizedList"));
    assert_non_null(strstr(known, ", DeviceTaintRules"));
    dc_feature_known(known, 8);
    assert_int_equal(strlen(known), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_release_names),
        cmocka_unit_test(test_gates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
