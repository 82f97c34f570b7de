/*
 * fleetupdate: what keeping a fleet up to date costs (dracel_fleet_*, public API only). Loads a
 * fleet directory (one file per node, as bench/genfleet writes it), takes a snapshot, then
 * replays watch events, one node's slice published again, each followed by a snapshot (patched
 * from the previous one), in three kinds:
 *   generation  the same devices with a higher generation (a driver's resync);
 *   content     a higher generation, one device's attributes changed (health flipped, model and
 *               firmware changed, memory grown);
 *   resize      a higher generation with one device less or one more (every later row moves).
 * Each event is timed from the load of the one object to the new snapshot; the previous snapshot
 * is freed after the new one exists, as a service that publishes snapshots to readers does. The
 * events visit nodes spread over the fleet. Prints one JSON line per kind: the median, 90th
 * percentile and largest event, the first event of the run (it pays the page faults of memory
 * the process never had), the median minor page faults per event, and the ratio of a full
 * reload (load + first snapshot) to the median event; also the median and largest CPU time of
 * an event (on a shared machine the wall time includes waiting for a core). A benchmark, not a
 * test.
 *
 *   fleetupdate FLEET_DIR [EVENTS]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "dracel.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static char text[1 << 20], ev[1 << 20];

/* The object of a node, read into text. */
static int read_node(const char *dir, int node)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/node-%05d.json", dir, node);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "fleetupdate: cannot open %s\n", path);
        return -1;
    }
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    return 0;
}

/* Replace the first `from` by `to`, in place (the buffer has room). */
static int edit(char *s, const char *from, const char *to)
{
    char *p = strstr(s, from);
    if (!p)
        return -1;
    size_t fl = strlen(from), tl = strlen(to);
    memmove(p + tl, p + fl, strlen(p + fl) + 1);
    memcpy(p, to, tl);
    return 0;
}

/* The event of kind k, number i, for the node's object in text: into ev. */
static int make_event(int kind, int i)
{
    strcpy(ev, text);
    char gen[64];
    snprintf(gen, sizeof gen, "\"generation\": %d,", i + 2);
    if (edit(ev, "\"generation\": 1,", gen))
        return -1;
    if (kind == 1) {
        /* the first device: health flipped, another model and firmware, more memory */
        if (edit(ev, "\"healthy\": {\"bool\": true}", "\"healthy\": {\"bool\": false}"))
            edit(ev, "\"healthy\": {\"bool\": false}", "\"healthy\": {\"bool\": true}");
        edit(ev, "\"model\": {\"string\": \"", "\"model\": {\"string\": \"X");
        edit(ev, "\"firmware\": {\"version\": \"", "\"firmware\": {\"version\": \"9");
        edit(ev, "Gi\"}}}", "0Gi\"}}}");
    } else if (kind == 2) {
        /* one device less on even events (the last), one more on odd ones (the first, again,
         * under a new name) */
        char *first = strstr(ev, "{\"name\": \"gpu-0\"");
        char *last = first;
        for (char *p = first; p; p = strstr(p + 1, "{\"name\": \"gpu-"))
            last = p;
        if (!first || last == first)
            return -1;
        if (i % 2 == 0) {
            char *end = strstr(last, "]}}");
            char *comma = last - 1;
            while (comma > ev && *comma != ',')
                comma--;
            memmove(comma, end, strlen(end) + 1);
        } else {
            char *end = strstr(first, "}}},");
            if (!end)
                return -1;
            size_t n = (size_t)(end + 4 - first);
            char dev[8192];
            if (n >= sizeof dev)
                return -1;
            memcpy(dev, first, n);
            dev[n] = '\0';
            edit(dev, "\"gpu-0\"", "\"gpu-extra\"");
            memmove(first + strlen(dev), first, strlen(first) + 1);
            memcpy(first, dev, strlen(dev));
        }
    }
    return (int)strlen(ev);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fleetupdate FLEET_DIR [EVENTS]\n");
        return 2;
    }
    int events = argc > 2 ? atoi(argv[2]) : 21;
    if (events < 1 || events > 100000)
        events = 21;
    char err[1024];
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
    int nodes = (int)dracel_fleet_slices(f);
    double full = t2 - t0;
    static const char *const kinds[] = {"generation", "content", "resize"};
    double *ms = malloc((size_t)events * sizeof *ms), *cpu = malloc((size_t)events * sizeof *cpu);
    long *faults = malloc((size_t)events * sizeof *faults);
    for (int k = 0; k < 3; k++) {
        double first = 0;
        long first_faults = 0;
        for (int i = 0; i < events; i++) {
            int node = (int)((42 + (long)i * 7919 + k * 101) % nodes);
            if (read_node(argv[1], node))
                return 1;
            int len = make_event(k, i);
            if (len < 0) {
                fprintf(stderr, "fleetupdate: cannot make a %s event of node %d\n", kinds[k], node);
                return 1;
            }
            dracel_table *nt;
            long f0 = minflt();
            double c0 = cpu_ms(), a = now_ms();
            if (dracel_fleet_load_buffer(f, "event.json", ev, (size_t)len, err, sizeof err) !=
                    DRACEL_OK ||
                dracel_fleet_snapshot(f, &nt, err, sizeof err) != DRACEL_OK) {
                fprintf(stderr, "fleetupdate: %s\n", err);
                return 1;
            }
            ms[i] = now_ms() - a;
            cpu[i] = cpu_ms() - c0;
            faults[i] = minflt() - f0;
            if (i == 0) {
                first = ms[0];
                first_faults = faults[0];
            }
            dracel_table_free(t); /* the readers of the previous snapshot are done */
            t = nt;
            if (k < 2 && dracel_table_rows(t) != rows) {
                fprintf(stderr, "fleetupdate: %u rows after an update, %u before\n",
                        dracel_table_rows(t), rows);
                return 1;
            }
        }
        qsort(ms, (size_t)events, sizeof *ms, cmp);
        qsort(cpu, (size_t)events, sizeof *cpu, cmp);
        double p50 = ms[events / 2];
        /* faults: the median of the events */
        for (int i = 1; i < events; i++)
            for (int j = i; j > 0 && faults[j - 1] > faults[j]; j--) {
                long x = faults[j];
                faults[j] = faults[j - 1];
                faults[j - 1] = x;
            }
        printf("{\"event\":\"%s\",\"devices\":%u,\"slices\":%d,\"load_ms\":%.1f,"
               "\"snapshot_ms\":%.1f,\"events\":%d,\"update_ms\":%.3f,\"update_p90_ms\":%.3f,"
               "\"update_max_ms\":%.3f,\"first_update_ms\":%.3f,\"update_cpu_ms\":%.3f,"
               "\"update_cpu_max_ms\":%.3f,\"faults\":%ld,\"first_faults\":%ld,"
               "\"full_over_update\":%.0f}\n",
               kinds[k], rows, nodes, t1 - t0, t2 - t1, events, p50, ms[events * 9 / 10],
               ms[events - 1], first, cpu[events / 2], cpu[events - 1], faults[events / 2],
               first_faults, p50 > 0 ? full / p50 : 0.0);
    }
    free(ms);
    free(cpu);
    free(faults);
    dracel_table_free(t);
    dracel_fleet_free(f);
    return 0;
}
