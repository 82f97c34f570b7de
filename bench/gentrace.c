/*
 * gentrace: writes a synthetic replay trace (docs/fairness.md, "Traces") for the benchmarks,
 * with its claims and two tier policies, into a directory:
 *
 *   gentrace PODS SECONDS OUT/
 *
 * OUT/trace.jsonl: PODS arrivals spread over SECONDS (exponential gaps), each running an
 * exponentially distributed time (mean 30% of SECONDS, at least 60 s), from five tenants
 * (namespaces team-0 .. team-3 and batch) with three claims: one GPU of three tiers (H100, else
 * an A100 of 40Gi, else any GPU of 24Gi: the claim of examples/claims/), two GPUs (two H100,
 * else two A100) and one GPU of any kind; the claims in OUT/claims/; OUT/policy-shadow.yaml and
 * OUT/policy-enforce.yaml (caps of fair shares of the H100 tiers, an idle reserve of 2%).
 * Deterministic: the same arguments give the same bytes.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static int write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

static const char tiered[] =
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
    "metadata: {name: gpu-tiered, namespace: default}\nspec:\n  spec:\n    devices:\n"
    "      requests:\n      - name: gpu\n        firstAvailable:\n"
    "        - name: h100\n          deviceClassName: gpu.example.com\n          selectors:\n"
    "          - cel: {expression: 'device.attributes[\"gpu.example.com\"].?model.orValue(\"\") "
    "== \"H100\"'}\n"
    "        - name: a100\n          deviceClassName: gpu.example.com\n          selectors:\n"
    "          - cel: {expression: 'device.attributes[\"gpu.example.com\"].?model.orValue(\"\") "
    "== \"A100\"'}\n"
    "          - cel: {expression: 'device.capacity[\"gpu.example.com\"].memory.compareTo("
    "quantity(\"40Gi\")) >= 0'}\n"
    "        - name: any\n          deviceClassName: gpu.example.com\n          selectors:\n"
    "          - cel: {expression: '\"memory\" in device.capacity[\"gpu.example.com\"] && "
    "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"24Gi\")) >= 0'}\n";

static const char pair[] =
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
    "metadata: {name: gpu-pair, namespace: default}\nspec:\n  spec:\n    devices:\n"
    "      requests:\n      - name: gpu\n        firstAvailable:\n"
    "        - name: h100\n          deviceClassName: gpu.example.com\n          count: 2\n"
    "          selectors:\n"
    "          - cel: {expression: 'device.attributes[\"gpu.example.com\"].?model.orValue(\"\") "
    "== \"H100\"'}\n"
    "        - name: a100\n          deviceClassName: gpu.example.com\n          count: 2\n"
    "          selectors:\n"
    "          - cel: {expression: 'device.attributes[\"gpu.example.com\"].?model.orValue(\"\") "
    "== \"A100\"'}\n";

static const char any[] =
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
    "metadata: {name: any-gpu, namespace: default}\nspec:\n  spec:\n    devices:\n"
    "      requests:\n      - name: gpu\n        exactly: {deviceClassName: gpu.example.com}\n";

static const char policy[] =
    "apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\nmetadata: {name: bench}\n"
    "version: bench-%s\nmode: %s\nidleReserve: 2%%\ntenants:\n"
    "- {name: team-0, namespaces: [team-0], weight: 2, caps: {gpu/h100: fair}}\n"
    "- {name: team-1, namespaces: [team-1], caps: {gpu/h100: fair}}\n"
    "- {name: team-2, namespaces: [team-2], caps: {gpu/h100: fair}}\n"
    "- {name: team-3, namespaces: [team-3], caps: {gpu/h100: fair}}\n"
    "defaultTenant: {name: others, caps: {gpu/h100: 5%%}}\n";

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gentrace PODS SECONDS OUT/\n");
        return 2;
    }
    long pods = atol(argv[1]);
    double seconds = atof(argv[2]);
    const char *out = argv[3];
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/claims", out);
    if ((mkdir(out, 0777) != 0 && errno != EEXIST) || (mkdir(dir, 0777) != 0 && errno != EEXIST)) {
        perror(out);
        return 1;
    }
    if (write_file(dir, "gpu-tiered.yaml", tiered) || write_file(dir, "gpu-pair.yaml", pair) ||
        write_file(dir, "any-gpu.yaml", any))
        return 1;
    for (int m = 0; m < 2; m++) {
        char text[2048];
        snprintf(text, sizeof text, policy, m ? "enforce" : "shadow", m ? "enforce" : "shadow");
        if (write_file(out, m ? "policy-enforce.yaml" : "policy-shadow.yaml", text))
            return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/trace.jsonl", out);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    static const char *const ns[] = {"team-0", "team-1", "team-2", "team-3", "batch"};
    static const char *const claims[] = {"claims/gpu-tiered.yaml", "claims/gpu-pair.yaml",
                                         "claims/any-gpu.yaml"};
    double t = 0, gap = seconds / (double)(pods > 0 ? pods : 1), mean_run = seconds * 0.3;
    for (long i = 0; i < pods; i++) {
        t += -log(uniform()) * gap;
        double u = uniform();
        int tenant = u < 0.35 ? 0 : u < 0.55 ? 1 : u < 0.7 ? 2 : u < 0.85 ? 3 : 4;
        double c = uniform();
        int claim = c < 0.7 ? 0 : c < 0.85 ? 1 : 2;
        double run = -log(uniform()) * mean_run;
        if (run < 60)
            run = 60;
        fprintf(f, "{\"time\":%.3f,\"pod\":\"%s/p-%06ld\",\"claim\":\"%s\",\"runSeconds\":%.0f}\n",
                t, ns[tenant], i, claims[claim], run);
    }
    return fclose(f) == 0 ? 0 : 1;
}
