/*
 * bench_scalar: ns per evaluation of the scalar VM for the selectors S1 to S4 of the project's
 * semantics issue, on one device activation. A benchmark, not a test: `make bench` runs it.
 * Each selector runs REPEAT rounds of N evaluations with a reused result (no allocation per
 * evaluation after the first); the median round is printed. For scale: cel-go takes 520 to
 * 590 ns per device with its optimizer, 1,900 to 3,000 ns configured as Kubernetes runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dracel.h"

static const char *const device =
    "{\"driver\": \"gpu.example.com\", \"name\": \"gpu-0\", \"attributes\": {"
    "\"model\": {\"string\": \"H100\"}, \"numaNode\": {\"int\": 0}, \"healthy\": {\"bool\": true},"
    "\"driverVersion\": {\"string\": \"550.54.15\"}, \"pcieRoot\": {\"string\": \"pci0000:00\"},"
    "\"firmware\": {\"version\": \"2.1.0\"}},"
    "\"capacity\": {\"memory\": {\"value\": \"80Gi\"}}}";

static const struct {
    const char *name, *expr;
} selectors[] = {
    {"S1", "device.attributes[\"gpu.example.com\"].model == \"H100\""},
    {"S2", "device.attributes[\"gpu.example.com\"].model in [\"H100\", \"A100\"] && "
           "device.attributes[\"gpu.example.com\"].numaNode == 0"},
    {"S3", "device.attributes[\"gpu.example.com\"].model == \"H100\" && "
           "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"80Gi\")) >= 0"},
    {"S4", "device.attributes[\"gpu.example.com\"].model.startsWith(\"H\") && "
           "device.attributes[\"gpu.example.com\"].healthy && "
           "device.attributes[\"gpu.example.com\"].driverVersion.matches(\"^5[3-9][0-9]\\\\.\")"},
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    enum { REPEAT = 7 };
    dracel_env *env;
    char err[256];
    if (dracel_env_new(NULL, DRACEL_ENV_DRA, &env) != DRACEL_OK ||
        dracel_env_device_json(env, device, strlen(device), err, sizeof err) != DRACEL_OK) {
        fprintf(stderr, "bench_scalar: setup failed: %s\n", err);
        return 1;
    }
    dracel_result *r;
    if (dracel_result_new(NULL, &r) != DRACEL_OK)
        return 1;
    for (size_t i = 0; i < sizeof selectors / sizeof selectors[0]; i++) {
        dracel_program *p;
        dracel_diags *d;
        if (dracel_compile(env, selectors[i].expr, strlen(selectors[i].expr), 0, &p, &d) != DRACEL_OK) {
            char *text = dracel_diags_render(d, "<input>");
            fprintf(stderr, "%s", text ? text : "compile failed\n");
            return 1;
        }
        dracel_diags_free(d);
        double rounds[REPEAT];
        int ok = 1;
        for (int k = 0; k < REPEAT; k++) {
            double t0 = now_ns();
            for (long j = 0; j < n; j++) {
                dracel_eval_into(p, env, r);
                ok &= dracel_result_bool(r) == 1;
            }
            rounds[k] = (now_ns() - t0) / (double)n;
        }
        qsort(rounds, REPEAT, sizeof rounds[0], cmp_double);
        printf("%s scalar %.1f ns/eval%s\n", selectors[i].name, rounds[REPEAT / 2],
               ok ? "" : "  (WRONG RESULT)");
        dracel_program_free(p);
    }
    dracel_result_free(r);
    dracel_env_free(env);
    return 0;
}
