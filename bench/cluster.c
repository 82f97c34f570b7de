/*
 * cluster: what keeping a cluster's DRA state and taking snapshots costs (dracel_cluster_*,
 * public API only). Builds in memory a cluster of NODES nodes (with the status a kubelet
 * publishes: images, conditions), one ResourceSlice of 8 GPUs per node, a DeviceClass and
 * CLAIMS ResourceClaims (every other one allocated to a device, with a nodeSelector), loads each
 * kind as one list (a watch's initial list), takes the first snapshot, then times watch events
 * each followed by a snapshot: one claim's status changed (allocated <-> released), one node's
 * labels changed, a claim added and deleted, a slice republished (a new table), and a relist of
 * every claim unchanged. Prints medians over EVENTS events. A benchmark, not a test.
 *
 *   cluster [NODES [CLAIMS [EVENTS]]]     (defaults 5000 10000 101)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dracel.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

/* A growing text buffer. */
typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap ? b->cap * 2 : 1 << 16;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
}

static void node_obj(buf *b, int i, int gen)
{
    put(b,
        "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%05d\","
        "\"labels\":{\"kubernetes.io/hostname\":\"node-%05d\",\"zone\":\"z%d\","
        "\"gpu.example.com/family\":\"hopper\",\"rev\":\"r%d\"}},\"status\":{\"images\":[",
        i, i, i % 8, gen);
    for (int k = 0; k < 20; k++)
        put(b, "%s{\"names\":[\"registry.example.com/team/image-%d@sha256:%064d\"],"
               "\"sizeBytes\":%d}",
            k ? "," : "", k, k, 1000000 + k);
    put(b, "],\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
}

static void slice_obj(buf *b, int i, int gen)
{
    put(b,
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":"
        "{\"name\":\"node-%05d-gpu\"},\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":"
        "\"node-%05d\",\"pool\":{\"name\":\"node-%05d\",\"generation\":%d,"
        "\"resourceSliceCount\":1},\"devices\":[",
        i, i, i, gen);
    for (int d = 0; d < 8; d++)
        put(b, "%s{\"name\":\"gpu-%d\",\"attributes\":{\"model\":{\"string\":\"%s\"},"
               "\"numaNode\":{\"int\":%d}},\"capacity\":{\"memory\":{\"value\":\"80Gi\"}}}",
            d ? "," : "", d, d % 2 ? "A100" : "H100", d / 4);
    put(b, "]}}");
}

/* Claim i; allocated (to node i/2 % nodes, device i % 8) when alloc. */
static void claim_obj(buf *b, int i, int nodes, int alloc)
{
    put(b,
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":"
        "{\"name\":\"claim-%05d\",\"namespace\":\"team-%d\"},\"spec\":{\"devices\":{\"requests\":"
        "[{\"name\":\"gpu\",\"firstAvailable\":[{\"name\":\"h100\",\"deviceClassName\":"
        "\"gpu.example.com\",\"selectors\":[{\"cel\":{\"expression\":\"device.attributes["
        "\\\"gpu.example.com\\\"].model == \\\"H100\\\"\"}}]},{\"name\":\"any\","
        "\"deviceClassName\":\"gpu.example.com\"}]}]}}",
        i, i % 50);
    if (alloc) {
        int node = (i / 2) % nodes;
        put(b,
            ",\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu/h100\","
            "\"driver\":\"gpu.example.com\",\"pool\":\"node-%05d\",\"device\":\"gpu-%d\"}]},"
            "\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":"
            "\"metadata.name\",\"operator\":\"In\",\"values\":[\"node-%05d\"]}]}]}},"
            "\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"pod-%05d\",\"uid\":"
            "\"00000000-0000-4000-8000-%012d\"}]}",
            node, (i / 2 / nodes * 2) % 8, node, i, i);
    }
    put(b, "}");
}

static char err[2048];

static void check(dracel_status st, const char *what)
{
    if (st != DRACEL_OK) {
        fprintf(stderr, "cluster: %s: %s\n", what, err);
        exit(1);
    }
}

static void event(dracel_cluster *c, const char *src, buf *b, double *apply_us, double *snap_us,
                  dracel_snapshot **last)
{
    double t0 = now_us();
    check(dracel_cluster_apply(c, src, b->p, b->len, DRACEL_OBJ_SLICE | DRACEL_OBJ_CLASS |
                                                         DRACEL_OBJ_CLAIM | DRACEL_OBJ_NODE,
                               err, sizeof err),
          src);
    double t1 = now_us();
    dracel_snapshot *s;
    check(dracel_cluster_snapshot(c, &s, err, sizeof err), "snapshot");
    double t2 = now_us();
    dracel_snapshot_unref(*last); /* the previous one goes, as an extender's readers let go */
    *last = s;
    *apply_us = t1 - t0;
    *snap_us = t2 - t1;
}

static void report(const char *what, double *ap, double *sn, int n)
{
    double tot[1024];
    for (int i = 0; i < n; i++)
        tot[i] = ap[i] + sn[i];
    double ma = median(ap, n), ms = median(sn, n), mt = median(tot, n);
    printf("%-34s apply %8.1f us  snapshot %8.1f us  total %8.1f us\n", what, ma, ms, mt);
}

int main(int argc, char **argv)
{
    int nodes = argc > 1 ? atoi(argv[1]) : 5000;
    int claims = argc > 2 ? atoi(argv[2]) : 10000;
    int events = argc > 3 ? atoi(argv[3]) : 101;
    if (nodes < 1 || claims < 2 || events < 1 || events > 1024) {
        fprintf(stderr, "usage: cluster [NODES [CLAIMS [EVENTS]]]\n");
        return 2;
    }
    unsigned all = DRACEL_OBJ_SLICE | DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM | DRACEL_OBJ_NODE;
    buf sl = {0}, nd = {0}, cl = {0};
    put(&sl, "{\"kind\":\"List\",\"items\":[");
    put(&nd, "{\"kind\":\"List\",\"items\":[");
    put(&cl, "{\"kind\":\"List\",\"items\":[");
    for (int i = 0; i < nodes; i++) {
        put(&sl, i ? "," : "");
        slice_obj(&sl, i, 1);
        put(&nd, i ? "," : "");
        node_obj(&nd, i, 0);
    }
    for (int i = 0; i < claims; i++) {
        put(&cl, i ? "," : "");
        claim_obj(&cl, i, nodes, i % 2 == 0);
    }
    put(&sl, "]}");
    put(&nd, "]}");
    put(&cl, "]}");
    static const char CLASS[] =
        "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":"
        "\"gpu.example.com\"},\"spec\":{\"selectors\":[{\"cel\":{\"expression\":"
        "\"device.driver == \\\"gpu.example.com\\\"\"}}]}}";

    dracel_cluster *c;
    check(dracel_cluster_new(NULL, &c), "new");
    double t0 = now_us();
    check(dracel_cluster_set_source(c, "api/resourceslices", sl.p, sl.len, all, err, sizeof err),
          "slices");
    double t1 = now_us();
    check(dracel_cluster_set_source(c, "api/nodes", nd.p, nd.len, all, err, sizeof err), "nodes");
    double t2 = now_us();
    check(dracel_cluster_set_source(c, "api/resourceclaims", cl.p, cl.len, all, err, sizeof err),
          "claims");
    double t3 = now_us();
    check(dracel_cluster_apply(c, "api/deviceclasses", CLASS, strlen(CLASS), all, err, sizeof err),
          "class");
    dracel_snapshot *last;
    double t4 = now_us();
    check(dracel_cluster_snapshot(c, &last, err, sizeof err), "snapshot");
    double t5 = now_us();
    printf("cluster: %d nodes, %u devices, %zu claims (%zu allocated devices in use)\n", nodes,
           dracel_table_rows(dracel_snapshot_table(last)), dracel_snapshot_claims(last),
           dracel_usage_devices(dracel_snapshot_usage(last)));
    printf("initial lists: slices %.0f ms (%.1f MB), nodes %.0f ms (%.1f MB), claims %.0f ms "
           "(%.1f MB); first snapshot %.0f ms\n",
           (t1 - t0) / 1e3, sl.len / 1e6, (t2 - t1) / 1e3, nd.len / 1e6, (t3 - t2) / 1e3,
           cl.len / 1e6, (t5 - t4) / 1e3);

    static double ap[1024], sn[1024];
    buf b = {0};
    /* one claim's status changes: claim k released, or allocated again */
    for (int e = 0; e < events; e++) {
        b.len = 0;
        int k = (e * 7919) % claims & ~1; /* an allocated one */
        claim_obj(&b, k, nodes, e % 2);
        event(c, "api/resourceclaims", &b, &ap[e], &sn[e], &last);
    }
    report("one claim's status changed", ap, sn, events);
    /* the same claim event twice: the second changes nothing */
    for (int e = 0; e < events; e++) {
        b.len = 0;
        claim_obj(&b, 2, nodes, 1);
        event(c, "api/resourceclaims", &b, &ap[e], &sn[e], &last);
    }
    report("one claim, unchanged", ap, sn, events);
    /* one node's labels change (the status and images are read and dropped) */
    for (int e = 0; e < events; e++) {
        b.len = 0;
        node_obj(&b, (e * 31) % nodes, e + 1);
        event(c, "api/nodes", &b, &ap[e], &sn[e], &last);
    }
    report("one node's labels changed", ap, sn, events);
    /* a claim added, then deleted */
    for (int e = 0; e < events; e++) {
        b.len = 0;
        claim_obj(&b, claims + e, nodes, 1);
        event(c, "api/resourceclaims", &b, &ap[e], &sn[e], &last);
    }
    report("one claim added (allocated)", ap, sn, events);
    for (int e = 0; e < events; e++) {
        char name[32];
        snprintf(name, sizeof name, "claim-%05d", claims + e);
        char ns[16];
        snprintf(ns, sizeof ns, "team-%d", (claims + e) % 50);
        double d0 = now_us();
        check(dracel_cluster_delete(c, DRACEL_OBJ_CLAIM, ns, name), "delete");
        double d1 = now_us();
        dracel_snapshot *s;
        check(dracel_cluster_snapshot(c, &s, err, sizeof err), "snapshot");
        double d2 = now_us();
        dracel_snapshot_unref(last);
        last = s;
        ap[e] = d1 - d0;
        sn[e] = d2 - d1;
    }
    report("one claim deleted", ap, sn, events);
    /* one slice republished (a new generation): the table is built again */
    int n_slice = events < 21 ? events : 21;
    for (int e = 0; e < n_slice; e++) {
        b.len = 0;
        slice_obj(&b, (e * 13) % nodes, e + 2);
        event(c, "api/resourceslices", &b, &ap[e], &sn[e], &last);
    }
    report("one slice republished", ap, sn, n_slice);
    /* the same on a dracel_fleet alone: what the table costs, apart from the cluster */
    dracel_fleet *fl;
    check(dracel_fleet_new(NULL, &fl), "fleet");
    check(dracel_fleet_load_buffer(fl, "slices", sl.p, sl.len, err, sizeof err), "fleet load");
    for (int e = 0; e < n_slice; e++) {
        b.len = 0;
        slice_obj(&b, (e * 13) % nodes, e + 2);
        double f0 = now_us();
        check(dracel_fleet_load_buffer(fl, "slice", b.p, b.len, err, sizeof err), "fleet load");
        double f1 = now_us();
        dracel_table *t;
        check(dracel_fleet_snapshot(fl, &t, err, sizeof err), "fleet snapshot");
        double f2 = now_us();
        dracel_table_free(t);
        ap[e] = f1 - f0;
        sn[e] = f2 - f1;
    }
    dracel_fleet_free(fl);
    report("  (a dracel_fleet alone, the same)", ap, sn, n_slice);
    /* a relist of every claim, nothing changed (after one that undoes the events above) */
    check(dracel_cluster_set_source(c, "api/resourceclaims", cl.p, cl.len, all, err, sizeof err),
          "relist");
    dracel_snapshot *s;
    check(dracel_cluster_snapshot(c, &s, err, sizeof err), "snapshot");
    dracel_snapshot_unref(last);
    last = s;
    double r0 = now_us();
    check(dracel_cluster_set_source(c, "api/resourceclaims", cl.p, cl.len, all, err, sizeof err),
          "relist");
    double r1 = now_us();
    check(dracel_cluster_snapshot(c, &s, err, sizeof err), "snapshot");
    double r2 = now_us();
    printf("%-34s apply %8.1f ms  snapshot %8.3f ms (%s)\n", "relist of every claim, unchanged",
           (r1 - r0) / 1e3, (r2 - r1) / 1e3, s == last ? "the same snapshot" : "a new snapshot");
    dracel_snapshot_unref(s);
    dracel_snapshot_unref(last);
    dracel_cluster_free(c);
    free(sl.p);
    free(nd.p);
    free(cl.p);
    free(b.p);
    return 0;
}
