/*
 * place.c: which tier one pod's claims get on every node of a fleet, and why, through the public
 * placement API alone. Run from the source tree's top (it reads examples/):
 *
 *   cc place.c $(pkg-config --cflags --libs dracel) -o place && ./place
 *
 * It prints one line per node (the outcome, the tiers chosen and the devices), then, for the
 * node whose H100 is tainted, each tier of the claim with what its selectors rejected.
 */
#include <dracel.h>
#include <stdio.h>
#include <string.h>

static void fail(const char *what, dracel_status st, const char *err)
{
    fprintf(stderr, "place: %s: %s%s%s\n", what, dracel_status_string(st), err ? ": " : "",
            err ? err : "");
}

/* Called after each node with its answer in the run. */
static int one_node(void *ctx, size_t i, const dracel_run *r)
{
    dracel_run_info info;
    (void)ctx;
    (void)i;
    if (dracel_run_get(r, &info) != DRACEL_OK)
        return 1;
    if (info.outcome == DRACEL_ALLOCATED) {
        dracel_device_result res;
        printf("%-13s %s (score %d):", info.node, info.tiers, info.score);
        for (size_t k = 0; k < dracel_run_results(r, 0); k++)
            if (dracel_run_result(r, 0, k, &res) == DRACEL_OK)
                printf(" %s/%s/%s", res.driver, res.pool, res.device);
        printf("\n");
    } else {
        printf("%-13s %s\n", info.node,
               info.outcome == DRACEL_UNSCHEDULABLE ? "unschedulable" : "error");
    }
    return 0;
}

int main(void)
{
    static const dracel_device_id busy[] = {{"gpu.example.com", "node-h100-a", "gpu-0"},
                                            {"gpu.example.com", "node-h100-b", "gpu-0"}};
    char err[1024];
    dracel_objects *objs = NULL;
    dracel_table *fleet = NULL;
    dracel_usage *in_use = NULL;
    dracel_policy *policy = NULL;
    dracel_run *run = NULL;
    dracel_node nodes[16];
    size_t n = 0;
    int rc = 1;
    dracel_status st = dracel_objects_new(NULL, &objs);
    if (st == DRACEL_OK)
        st = dracel_objects_load(objs, "examples/claims/gpu-tiered.yaml", DRACEL_OBJ_CLAIM, err,
                                 sizeof err);
    if (st == DRACEL_OK)
        st = dracel_objects_load(objs, "examples/classes", DRACEL_OBJ_CLASS, err, sizeof err);
    if (st == DRACEL_OK)
        st = dracel_objects_load(objs, "examples/nodes.yaml", DRACEL_OBJ_NODE, err, sizeof err);
    if (st == DRACEL_OK)
        st = dracel_table_load(NULL, "examples/fleet", &fleet, err, sizeof err);
    if (st != DRACEL_OK) {
        fail("loading the sample", st, err);
        goto out;
    }
    /* The devices other claims hold, and the pod's claims with the classes they name. */
    st = dracel_usage_new(fleet, busy, 2, &in_use);
    if (st == DRACEL_OK)
        st = dracel_policy_new(NULL, fleet, objs, objs, NULL, 0, &policy, err, sizeof err);
    if (st == DRACEL_OK)
        st = dracel_run_new(policy, &run);
    if (st != DRACEL_OK) {
        fail("building the policy", st, err);
        goto out;
    }
    n = dracel_objects_count(objs, DRACEL_OBJ_NODE);
    for (size_t i = 0; i < n && i < 16; i++)
        dracel_objects_node(objs, i, &nodes[i]);

    dracel_allocate_opts opts;
    dracel_allocate_opts_init(&opts);
    opts.in_use = in_use;
    opts.budget_ms = 1000; /* the whole call */
    printf("policy %s\n", dracel_policy_version(policy));
    st = dracel_allocate_nodes(run, nodes, n < 16 ? n : 16, &opts, one_node, NULL);
    if (st != DRACEL_OK) {
        fail("allocating", st, NULL);
        goto out;
    }

    /* One node, explained: per tier, its status and what each selector rejected. */
    for (size_t i = 0; i < n && i < 16; i++)
        if (strcmp(nodes[i].name, "node-tainted") == 0) {
            opts.explain = true;
            st = dracel_allocate(run, &nodes[i], &opts);
            break;
        }
    for (size_t t = 0; st == DRACEL_OK && t < dracel_policy_tiers(policy); t++) {
        static const char *const status[] = {"chosen", "failed", "not tried", "aborted"};
        dracel_tier_info tier;
        dracel_tier_explanation ex;
        if (dracel_policy_tier(policy, t, &tier) != DRACEL_OK ||
            dracel_run_explain_tier(run, t, &ex) != DRACEL_OK)
            break;
        printf("node-tainted %s: %s, %u candidates, %u available, %u tainted\n", tier.name,
               status[ex.status], ex.candidates, ex.available,
               ex.excluded[DRACEL_EXCLUDED_TAINTED]);
        for (size_t k = 0; k < ex.nselectors; k++) {
            dracel_selector_explanation sel;
            dracel_example e;
            if (dracel_run_explain_selector(run, t, k, &sel) != DRACEL_OK)
                continue;
            printf("  %s selector %u rejected %u", sel.from_class ? "class" : "request",
                   sel.index, sel.rejected);
            if (sel.nexamples && dracel_run_explain_example(run, t, k, 0, &e) == DRACEL_OK)
                printf(" (e.g. %s)", e.text);
            printf("\n");
        }
    }
    rc = st == DRACEL_OK ? 0 : 1;
out:
    dracel_run_free(run);
    dracel_policy_free(policy);
    dracel_usage_free(in_use);
    dracel_table_free(fleet);
    dracel_objects_free(objs);
    return rc;
}
