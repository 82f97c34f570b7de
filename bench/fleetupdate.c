/*
 * fleetupdate: what keeping a fleet up to date costs (dracel_fleet_*, public API only). Loads a
 * fleet directory (one file per node, as bench/genfleet writes it), takes a snapshot, then
 * replays watch events: one node's slice published again with a higher generation, and a
 * snapshot after each. Prints the full load, the first snapshot, and the median update (load
 * of the one object + new snapshot), with the ratio to a full reload. A benchmark, not a test.
 *
 *   fleetupdate FLEET_DIR [EVENTS]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dracel.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fleetupdate FLEET_DIR [EVENTS]\n");
        return 2;
    }
    int events = argc > 2 ? atoi(argv[2]) : 21;
    if (events < 1 || events > 1000)
        events = 21;
    char err[1024], path[4096];
    dracel_fleet *f;
    if (dracel_fleet_new(NULL, &f) != DRACEL_OK)
        return 1;
    double t0 = now_ms();
    if (dracel_fleet_load(f, argv[1], err, sizeof err) != DRACEL_OK) {
        fprintf(stderr, "fleetupdate: %s\n", err);
        return 1;
    }
    double t1 = now_ms();
    dracel_table *t;
    if (dracel_fleet_snapshot(f, &t, err, sizeof err) != DRACEL_OK)
        return 1;
    double t2 = now_ms();
    uint32_t rows = dracel_table_rows(t);
    dracel_table_free(t);

    /* The object of node 42, to publish again with growing generations. */
    snprintf(path, sizeof path, "%s/node-00042.json", argv[1]);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "fleetupdate: cannot open %s\n", path);
        return 1;
    }
    static char text[1 << 20], ev[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    char *g = strstr(text, "\"generation\": 1,");
    if (!g) {
        fprintf(stderr, "fleetupdate: no generation in %s\n", path);
        return 1;
    }
    double *ms = malloc((size_t)events * sizeof *ms);
    for (int i = 0; i < events; i++) {
        int len = snprintf(ev, sizeof ev, "%.*s\"generation\": %d,%s", (int)(g - text), text,
                           i + 2, g + strlen("\"generation\": 1,"));
        double a = now_ms();
        if (dracel_fleet_load_buffer(f, "event.json", ev, (size_t)len, err, sizeof err) != DRACEL_OK ||
            dracel_fleet_snapshot(f, &t, err, sizeof err) != DRACEL_OK) {
            fprintf(stderr, "fleetupdate: %s\n", err);
            return 1;
        }
        ms[i] = now_ms() - a;
        if (dracel_table_rows(t) != rows) {
            fprintf(stderr, "fleetupdate: %u rows after an update, %u before\n",
                    dracel_table_rows(t), rows);
            return 1;
        }
        dracel_table_free(t);
    }
    qsort(ms, (size_t)events, sizeof *ms, cmp);
    double full = t2 - t0, upd = ms[events / 2];
    printf("{\"devices\":%u,\"slices\":%zu,\"load_ms\":%.1f,\"snapshot_ms\":%.1f,"
           "\"update_ms\":%.2f,\"full_over_update\":%.1f}\n",
           rows, dracel_fleet_slices(f), t1 - t0, t2 - t1, upd, upd > 0 ? full / upd : 0.0);
    free(ms);
    dracel_fleet_free(f);
    return 0;
}
