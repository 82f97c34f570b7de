/*
 * test_lazy.c: selectors with comprehensions are evaluated lazily, device by device, by the
 * runs (src/alloc/run.c); the others over the whole table by the policy. Both must give the same
 * answers: every allocation scenario of tests/alloc/ is run twice, once as written and once with
 * every selector X rewritten as `[0].all(_lz, X)` (the same value and the same errors, but a
 * comprehension, so lazy), and the outcomes, the allocations and the explanation's counts must
 * agree. Then the time limits: a slow selector on many devices is bounded by the node's limit
 * and by the call's budget, and what it could not evaluate is counted.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "apiint.h"
#include "claims.h"
#include "testutil.h"

static char err[2048];

/* Everything of one run that must not depend on how selectors are evaluated. */
static char *answer(const dc_policy *p, const dc_scenario *sc, const dc_usage *u)
{
    dc_alloc_run *r;
    assert_int_equal(dc_alloc_run_new(p, &r), DRACEL_OK);
    dc_alloc_opts ao = {sc->features, 0, 0, true, 3, u, NULL, 0, sc->release, NULL, NULL};
    assert_int_equal(dc_alloc_begin(r, &ao), DRACEL_OK);
    assert_int_equal(dc_alloc_node(r, &sc->node), DRACEL_OK);
    dc_buf b;
    dc_buf_init(&b, &dc_default_alloc);
    dc_alloc_outcome oc = dc_alloc_outcome_of(r);
    dc_buf_printf(&b, "outcome %d node-local %d\n", (int)oc, (int)dc_alloc_node_local(r));
    if (oc == DC_ALLOC_ALLOCATED) {
        /* the allocations object, without the explanation (it names the expressions) */
        dc_buf a;
        dc_buf_init(&a, &dc_default_alloc);
        dc_alloc_json(r, &a);
        const char *ex = strstr(a.data, ",\"explanation\":");
        dc_buf_printf(&b, "%.*s\n", ex ? (int)(ex - a.data) : (int)a.len, a.data);
        dc_buf_free(&a);
    }
    if (oc != DC_ALLOC_ERROR || dc_alloc_node_local(r)) {
        for (uint32_t t = 0; t < dc_policy_ntiers(p); t++) {
            dc_tier_expl te;
            dc_tier_desc d;
            dc_policy_tier(p, t, &d);
            dc_alloc_tier_expl(r, t, &te);
            dc_buf_printf(&b, "tier %u: %d %u %u %u %u [", t, te.status, te.needed,
                          te.candidates, te.available, te.unevaluated);
            for (int k = 0; k < DC_EXCL__COUNT; k++)
                dc_buf_printf(&b, " %u", te.excluded[k]);
            dc_buf_puts(&b, " ]");
            for (uint32_t k = 0; k < d.nsels; k++) {
                dc_sel_expl se;
                dc_alloc_sel_expl(r, t, k, &se);
                dc_buf_printf(&b, " (%u %u:", se.rejected, se.errored);
                for (uint32_t e = 0; e < se.nexamples; e++)
                    dc_buf_printf(&b, " %u%s", se.rows[e], se.example_errored[e] ? "!" : "");
                dc_buf_putc(&b, ')');
            }
            dc_buf_putc(&b, '\n');
        }
    }
    char *s = strdup(b.data);
    dc_buf_free(&b);
    dc_alloc_run_free(r);
    return s;
}

/* Rewrite every selector of the set as a comprehension of the same value. */
static void make_lazy(dc_objects *o)
{
    dc_arena *a = &o->slices.arena;
    for (uint32_t c = 0; c < o->nclasses; c++)
        for (uint32_t k = 0; k < o->classes[c].nsels; k++) {
            dc_sel_in *x = &o->classes[c].sels[k];
            if (!x->expr)
                continue;
            x->expr = dc_arena_printf(a, "[0].all(_lz, %.*s)", (int)x->len, x->expr);
            x->len = (uint32_t)strlen(x->expr);
        }
    for (uint32_t c = 0; c < o->nclaims; c++)
        for (uint32_t q = 0; q < o->claims[c].nreqs; q++)
            for (uint32_t s = 0; s < o->claims[c].reqs[q].nsubs; s++) {
                dc_subreq_in *sr = &o->claims[c].reqs[q].subs[s];
                for (uint32_t k = 0; k < sr->nsels; k++) {
                    dc_sel_in *x = &sr->sels[k];
                    if (!x->expr)
                        continue;
                    x->expr = dc_arena_printf(a, "[0].all(_lz, %.*s)", (int)x->len, x->expr);
                    x->len = (uint32_t)strlen(x->expr);
                }
            }
}

/* One scenario, as written or made lazy: the answer, or NULL when a selector of it does not
 * compile (the rewritten text moves the positions in compile errors: such scenarios are not
 * compared). */
static char *scenario(const char *path, bool lazy, bool *any_lazy)
{
    dc_objects o;
    dc_objects_init(&o, NULL);
    dc_scenario sc;
    assert_int_equal(dc_scenario_load(&o, &sc, path, NULL, err, sizeof err), DRACEL_OK);
    if (lazy)
        make_lazy(&o);
    dracel_table *t;
    assert_int_equal(dc_api_table_build(NULL, &o.slices, &t, err, sizeof err), DRACEL_OK);
    const dc_claim_in **claims = malloc((o.nclaims + 1) * sizeof *claims);
    for (uint32_t i = 0; i < o.nclaims; i++)
        claims[i] = &o.claims[i];
    dc_policy *p;
    assert_int_equal(dc_policy_new(NULL, t, &o, claims, o.nclaims, &p, err, sizeof err), DRACEL_OK);
    free(claims);
    dc_usage *u;
    assert_int_equal(dc_usage_new(t, &dc_default_alloc, sc.allocated, sc.nallocated, &u),
                     DRACEL_OK);
    char *s = NULL;
    bool compiles = true;
    *any_lazy = false;
    for (uint32_t i = 0; i < dc_policy_ntiers(p); i++) {
        dc_tier_desc d;
        dc_policy_tier(p, i, &d);
        for (uint32_t k = 0; k < d.nsels; k++) {
            uint32_t len;
            const char *ce;
            const char *e = dc_policy_selector(p, i, k, &len, &ce);
            compiles &= ce == NULL;
            *any_lazy |= strncmp(e, "[0].all", 7) == 0;
        }
    }
    if (compiles)
        s = answer(p, &sc, u);
    dc_usage_free(u);
    dc_policy_free(p);
    dracel_table_free(t);
    dc_objects_free(&o);
    return s;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_lazy_equals_eager(void **state)
{
    (void)state;
    DIR *d = opendir("tests/alloc");
    assert_non_null(d);
    char *names[512];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 512;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_name);
    assert_true(n > 80);
    size_t compared = 0;
    for (size_t i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "tests/alloc/%s", names[i]);
        bool any_e, any_l;
        char *eager = scenario(path, false, &any_e);
        char *lazy = scenario(path, true, &any_l);
        if (eager && lazy) {
            assert_false(any_e);
            assert_true(any_l || !strstr(lazy, "tier"));
            if (strcmp(eager, lazy) != 0)
                fail_msg("%s: lazy and eager differ:\n--- eager\n%s--- lazy\n%s", path, eager, lazy);
            compared++;
        }
        free(eager);
        free(lazy);
        free(names[i]);
    }
    print_message("      %zu scenarios give the same answers with lazy selectors\n", compared);
    assert_true(compared > 70);
}

/* A selector that costs milliseconds a device, false on all but the last of 128. */
static const char SLOW_HEAD[] =
    "features: []\n"
    "node: {name: n0}\n"
    "classes:\n"
    "- metadata: {name: gpu}\n"
    "  spec:\n"
    "    selectors:\n"
    "    - cel: {expression: 'lists.range(300).all(i, lists.range(300).exists(j, j >= i)) &&"
    " device.attributes[\"gpu.example.com\"].index == 127'}\n"
    "claims:\n"
    "- metadata: {name: c}\n"
    "  spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n"
    "slices:\n";

static char *slow_scenario(size_t *len)
{
    dc_buf b;
    dc_buf_init(&b, &dc_default_alloc);
    dc_buf_puts(&b, SLOW_HEAD);
    for (int n = 0; n < 4; n++) {
        dc_buf_printf(&b, "- metadata: {name: n%d}\n  spec:\n    driver: gpu.example.com\n"
                      "    nodeName: n%d\n    pool: {name: n%d, generation: 1, resourceSliceCount: 1}\n"
                      "    devices:\n", n, n, n);
        for (int d = 0; d < 128; d++)
            dc_buf_printf(&b, "    - {name: gpu-%d, attributes: {index: {int: %d}}}\n", d, d);
    }
    char *s = strdup(b.data);
    *len = b.len;
    dc_buf_free(&b);
    return s;
}

static void test_limits(void **state)
{
    (void)state;
    size_t len;
    char *text = slow_scenario(&len);
    dc_objects o;
    dc_objects_init(&o, NULL);
    dc_scenario sc;
    assert_int_equal(dc_scenario_load_buffer(&o, &sc, "slow.yaml", text, len, NULL, err, sizeof err),
                     DRACEL_OK);
    dracel_table *t;
    assert_int_equal(dc_api_table_build(NULL, &o.slices, &t, err, sizeof err), DRACEL_OK);
    const dc_claim_in *claims[1] = {&o.claims[0]};
    dc_policy *p;
    assert_int_equal(dc_policy_new(NULL, t, &o, claims, 1, &p, err, sizeof err), DRACEL_OK);
    dc_alloc_run *r;
    assert_int_equal(dc_alloc_run_new(p, &r), DRACEL_OK);

    /* no limit: every device of n0 is evaluated, none of the other nodes' (the policy evaluated
     * nothing: the selector is lazy) */
    dc_alloc_opts ao = {0, 0, 0, true, 1, NULL, NULL, 0, 0, NULL, NULL};
    assert_int_equal(dc_alloc_begin(r, &ao), DRACEL_OK);
    assert_int_equal(dc_alloc_node(r, &sc.node), DRACEL_OK);
    assert_int_equal(dc_alloc_outcome_of(r), DC_ALLOC_ALLOCATED);
    dc_tier_expl te;
    dc_alloc_tier_expl(r, 0, &te);
    assert_int_equal(te.candidates, 1);
    assert_int_equal(te.unevaluated, 0);

    /* the node's limit: 1 ms is far too little for 128 devices of ~1 ms each */
    dc_alloc_run_free(r);
    assert_int_equal(dc_alloc_run_new(p, &r), DRACEL_OK);
    ao.timeout_ms = 1;
    assert_int_equal(dc_alloc_begin(r, &ao), DRACEL_OK);
    assert_int_equal(dc_alloc_node(r, &sc.node), DRACEL_OK);
    assert_int_equal(dc_alloc_outcome_of(r), DC_ALLOC_UNSCHEDULABLE);
    assert_string_equal(dc_alloc_message(r), "timed out trying to allocate devices");
    dc_alloc_tier_expl(r, 0, &te);
    assert_true(te.unevaluated > 0);
    dc_buf b;
    dc_buf_init(&b, &dc_default_alloc);
    dc_alloc_explain_text(r, &b);
    assert_non_null(strstr(b.data, " not evaluated: the time limit was reached"));
    dc_buf_free(&b);

    /* the call's budget over four nodes: the first spends it, the others are skipped */
    dc_node_in nodes[4] = {{.name = "n0"}, {.name = "n1"},
                           {.name = "n2"}, {.name = "n3"}};
    dc_alloc_run_free(r);
    assert_int_equal(dc_alloc_run_new(p, &r), DRACEL_OK);
    ao.timeout_ms = 0;
    ao.budget_ms = 2;
    assert_int_equal(dc_alloc_begin(r, &ao), DRACEL_OK);
    int skipped = 0;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(dc_alloc_node(r, &nodes[i]), DRACEL_OK);
        skipped += dc_alloc_outcome_of(r) == DC_ALLOC_SKIPPED;
    }
    assert_true(skipped >= 3);
    dc_alloc_run_free(r);
    dc_policy_free(p);
    dracel_table_free(t);
    dc_objects_free(&o);
    free(text);
}

int main(void)
{
    if (to_sources() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_equals_eager),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
