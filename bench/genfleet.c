/*
 * genfleet: writes a synthetic fleet of ResourceSlices for the benchmarks.
 *
 *   genfleet DEVICES OUT        OUT.json, one List (for small fleets), or
 *   genfleet DEVICES OUT/       a directory with one file per node (8 GPUs a node)
 *
 * Models H100, A100, L4, T4; attributes model, driverVersion (string), numaNode, healthy,
 * pcieRoot, firmware (a version); capacity memory 16Gi to 94Gi; about 3% of the devices lack
 * some attributes (model or healthy), so that unguarded selectors meet errors as in a real
 * fleet. Deterministic: the same arguments give the same bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static const char *const models[] = {"H100", "A100", "L4", "T4"};
static const int mem_gi[] = {80, 40, 24, 16};
static const char *const versions[] = {"550.54.15", "535.104.05", "560.28.03", "525.147.05",
                                       "570.86.10"};
static const char *const firmware[] = {"2.1.0", "2.0.3", "3.0.0-rc.1", "1.9.12", "2.1.0+build.7"};

static void device(FILE *f, int node, int i, int first)
{
    int m = (int)(next() % 4);
    int mem = mem_gi[m] + (m == 1 && next() % 2 ? 40 : 0) + (m == 0 && next() % 3 == 0 ? 14 : 0);
    uint32_t r = next() % 100;
    fprintf(f, "%s\n      {\"name\": \"gpu-%d\", \"attributes\": {", first ? "" : ",", i);
    int fields = 0;
    if (r >= 2)
        fprintf(f, "%s\"model\": {\"string\": \"%s\"}", fields++ ? ", " : "", models[m]);
    fprintf(f, "%s\"driverVersion\": {\"string\": \"%s\"}", fields++ ? ", " : "", versions[next() % 5]);
    fprintf(f, ", \"numaNode\": {\"int\": %d}", i % 2);
    if (r != 3)
        fprintf(f, ", \"healthy\": {\"bool\": %s}", next() % 20 ? "true" : "false");
    fprintf(f, ", \"pcieRoot\": {\"string\": \"pci0000:%02x\"}", (unsigned)(i / 4));
    fprintf(f, ", \"firmware\": {\"version\": \"%s\"}", firmware[next() % 5]);
    fprintf(f, "}, \"capacity\": {\"memory\": {\"value\": \"%dGi\"}}}", mem);
    (void)node;
}

static void slice(FILE *f, int node, int ndev, int first)
{
    fprintf(f, "%s  {\"apiVersion\": \"resource.k8s.io/v1\", \"kind\": \"ResourceSlice\",\n"
               "   \"metadata\": {\"name\": \"node-%05d-gpu\"},\n"
               "   \"spec\": {\"driver\": \"gpu.example.com\", \"nodeName\": \"node-%05d\",\n"
               "    \"pool\": {\"name\": \"node-%05d\", \"generation\": 1, \"resourceSliceCount\": 1},\n"
               "    \"devices\": [",
            first ? "" : ",\n", node, node, node);
    for (int i = 0; i < ndev; i++)
        device(f, node, i, i == 0);
    fprintf(f, "]}}");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: genfleet DEVICES OUT.json|OUT/\n");
        return 2;
    }
    long devices = atol(argv[1]);
    const char *out = argv[2];
    size_t len = strlen(out);
    int per_node = 8;
    long nodes = (devices + per_node - 1) / per_node;
    if (len && out[len - 1] == '/') {
        if (mkdir(out, 0777) != 0 && errno != EEXIST) {
            perror(out);
            return 1;
        }
        for (long n = 0; n < nodes; n++) {
            char path[4096];
            snprintf(path, sizeof path, "%snode-%05ld.json", out, n);
            FILE *f = fopen(path, "w");
            if (!f) {
                perror(path);
                return 1;
            }
            int nd = (int)(devices - n * per_node < per_node ? devices - n * per_node : per_node);
            slice(f, (int)n, nd, 1);
            fputc('\n', f);
            if (fclose(f) != 0) {
                perror(path);
                return 1;
            }
        }
        return 0;
    }
    FILE *f = fopen(out, "w");
    if (!f) {
        perror(out);
        return 1;
    }
    fprintf(f, "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n");
    for (long n = 0; n < nodes; n++) {
        int nd = (int)(devices - n * per_node < per_node ? devices - n * per_node : per_node);
        slice(f, (int)n, nd, n == 0);
    }
    fprintf(f, "\n]}\n");
    return fclose(f) == 0 ? 0 : 1;
}
