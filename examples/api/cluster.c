/*
 * cluster.c: a cluster kept up to date object by object, and its snapshots (docs/api.md,
 * "Cluster state and snapshots"). Three files of examples/ are three sources (a watched
 * directory); a claim arrives as a watch event, allocated by the scheduler; the snapshot taken
 * before it does not change.
 */
#include <dracel.h>
#include <stdio.h>
#include <string.h>

static const char CLAIM[] = /* a watch event: the claim, allocated by the scheduler */
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaim\n"
    "metadata: {name: train-gpu, namespace: ml}\n"
    "spec:\n"
    "  devices:\n"
    "    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]\n"
    "status:\n"
    "  allocation:\n"
    "    devices:\n"
    "      results: [{request: gpu, driver: gpu.example.com, pool: node-h100-a, device: gpu-1}]\n"
    "    nodeSelector:\n"
    "      nodeSelectorTerms:\n"
    "      - matchFields: [{key: metadata.name, operator: In, values: [node-h100-a]}]\n";

int main(void)
{
    char err[512];
    unsigned all = DRACEL_OBJ_SLICE | DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM | DRACEL_OBJ_NODE;
    dracel_cluster *c;
    dracel_snapshot *before, *after;
    if (dracel_cluster_new(NULL, &c) != DRACEL_OK)
        return 2;
    const char *files[] = {"examples/fleet/h100-nodes.yaml", "examples/classes/gpu.yaml",
                           "examples/nodes.yaml"};
    for (int i = 0; i < 3; i++) { /* a watched directory: one source per file */
        static char buf[1 << 16];
        FILE *f = fopen(files[i], "rb");
        size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
        if (f)
            fclose(f);
        if (dracel_cluster_set_source(c, files[i], buf, n, all, err, sizeof err) != DRACEL_OK) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
    }
    if (dracel_cluster_snapshot(c, &before, err, sizeof err) != DRACEL_OK ||
        dracel_cluster_apply(c, "api/resourceclaims", CLAIM, strlen(CLAIM), all, err,
                             sizeof err) != DRACEL_OK ||
        dracel_cluster_snapshot(c, &after, err, sizeof err) != DRACEL_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    dracel_cluster_free(c); /* the snapshots stay */
    size_t i, a, b;
    dracel_claim_status cs;
    dracel_snapshot_claim_find(after, "ml", "train-gpu", &i);
    dracel_snapshot_claim(after, i, &cs);
    dracel_snapshot_node_find(after, "node-h100-a", &a);
    dracel_snapshot_node_find(after, "node-h100-b", &b);
    dracel_node na, nb;
    dracel_snapshot_node(after, a, &na);
    dracel_snapshot_node(after, b, &nb);
    printf("snapshot %llu: %zu claims, %zu devices in use; snapshot %llu: %zu claims, %zu in use\n",
           (unsigned long long)dracel_snapshot_id(before), dracel_snapshot_claims(before),
           dracel_usage_devices(dracel_snapshot_usage(before)),
           (unsigned long long)dracel_snapshot_id(after), dracel_snapshot_claims(after),
           dracel_usage_devices(dracel_snapshot_usage(after)));
    printf("%s/%s: %zu device, fits node-h100-a: %d, node-h100-b: %d\n", cs.ns, cs.name,
           cs.nresults, dracel_snapshot_claim_fits(after, i, &na),
           dracel_snapshot_claim_fits(after, i, &nb));
    dracel_snapshot_unref(before);
    dracel_snapshot_unref(after);
    return 0;
}
