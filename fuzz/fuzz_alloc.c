/*
 * fuzz_alloc: libFuzzer harness for the allocate path: the scenario reader (src/objects.c, on
 * the loader of src/slices.c), the table builder, the policy (every selector compiled and run
 * on the vector VM) and the per-node search with its explanation and printers (src/alloc/).
 * Built with --enable-fuzzing. The input is one scenario file's bytes (JSON or YAML).
 *
 * Besides crashes and sanitizer reports, it traps on a broken contract: a status other than
 * OK/EINPUT/ENOMEM, a rejection without a message, an allocated outcome with more than 32
 * results in a claim or one device given twice to non-admin requests, an error without a
 * message, or different bytes from a second run on the same policy (determinism).
 * The search has a 20 ms time limit, so that inputs built to explode combinatorially end.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "apiint.h"
#include "claims.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static char *render(dc_alloc_run *r)
{
    dc_buf b;
    dc_buf_init(&b, &dc_default_alloc);
    dc_alloc_text(r, &b);
    dc_alloc_json(r, &b);
    dc_alloc_summary(r, &b);
    CHECK(!b.oom);
    char *s = strdup(b.len ? b.data : "");
    dc_buf_free(&b);
    return s;
}

/* The results: at most 32 per claim, and no device twice outside admin access. */
static void check_results(const dc_alloc_run *r, uint32_t nclaims)
{
    uint32_t seen[64], nseen = 0;
    for (uint32_t c = 0; c < nclaims; c++) {
        CHECK(dc_alloc_nresults(r, c) <= DC_ALLOC_MAX_RESULTS);
        for (uint32_t i = 0; i < dc_alloc_nresults(r, c); i++) {
            uint32_t tier, row;
            bool admin;
            dc_alloc_result(r, c, i, &tier, &row, &admin);
            if (admin)
                continue;
            for (uint32_t k = 0; k < nseen; k++)
                CHECK(seen[k] != row);
            if (nseen < 64)
                seen[nseen++] = row;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    dc_slices_limits lim;
    dc_slices_limits_default(&lim);
    lim.max_depth = 48;
    dc_objects o;
    dc_objects_init(&o, NULL);
    dc_scenario sc;
    dracel_status st = dc_scenario_load_buffer(&o, &sc, "fuzz.yaml", (const char *)data, size,
                                               &lim, err, sizeof err);
    CHECK(st == DRACEL_OK || st == DRACEL_EINPUT || st == DRACEL_ENOMEM);
    if (st != DRACEL_OK) {
        CHECK(err[0] != '\0');
        dc_objects_free(&o);
        return 0;
    }
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.cost_limit = 100000;
    dracel_table *t = NULL;
    dc_policy *p = NULL;
    dc_alloc_run *r = NULL;
    dc_usage *u = NULL;
    st = dc_api_table_build(&cfg, &o.slices, &t, err, sizeof err);
    CHECK(st == DRACEL_OK);
    const dc_claim_in **claims = malloc((o.nclaims + 1) * sizeof *claims);
    CHECK(claims);
    for (uint32_t i = 0; i < o.nclaims; i++)
        claims[i] = &o.claims[i];
    CHECK(dc_policy_new(&cfg, t, &o, claims, o.nclaims, &p, err, sizeof err) == DRACEL_OK);
    free(claims);
    /* the policy holds copies: the objects can go before it is used */
    uint32_t nclaims = o.nclaims;
    CHECK(dc_usage_new(t, &dc_default_alloc, sc.allocated, sc.nallocated, &u) == DRACEL_OK);
    CHECK(dc_alloc_run_new(p, &r) == DRACEL_OK);
    dc_alloc_opts ao = {sc.features, 20, 0, true, 2, u, NULL, 0, sc.release};
    CHECK(dc_alloc_begin(r, &ao) == DRACEL_OK);
    CHECK(dc_alloc_node(r, &sc.node) == DRACEL_OK);
    dc_alloc_outcome oc = dc_alloc_outcome_of(r);
    if (oc == DC_ALLOC_ERROR)
        CHECK(dc_alloc_message(r) && dc_alloc_message(r)[0]);
    const char *msg = dc_alloc_message(r);
    bool timed = msg && strstr(msg, "timed out");
    char *first = render(r);
    if (oc == DC_ALLOC_ALLOCATED) {
        CHECK(strncmp(first, "allocated\n", 10) == 0);
        check_results(r, nclaims);
    }
    /* The same node again on the reused run (a new call, the devices in use given as
     * reservations instead of a usage): the same bytes, unless the clock cut either. */
    dc_alloc_opts ao2 = {sc.features, 20, 0, true, 2, NULL, sc.allocated, sc.nallocated,
                         sc.release};
    CHECK(dc_alloc_begin(r, &ao2) == DRACEL_OK);
    CHECK(dc_alloc_node(r, &sc.node) == DRACEL_OK);
    char *second = render(r);
    msg = dc_alloc_message(r);
    timed |= msg && strstr(msg, "timed out");
    CHECK(timed || strcmp(first, second) == 0);
    free(first);
    free(second);
    dc_alloc_run_free(r);
    dc_usage_free(u);
    dc_policy_free(p);
    dracel_table_free(t);
    dc_objects_free(&o);
    return 0;
}
