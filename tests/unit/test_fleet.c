/*
 * test_fleet.c: fleets kept up to date slice by slice (src/fleet.c, dracel_fleet_*): a snapshot
 * equals the table built from the same slices at once; a replaced slice (a new generation of a
 * pool, as a watch delivers it) and a deleted one show in the next snapshot and never in an
 * earlier one; snapshots share the dictionary and outlive the fleet; failed allocations leave
 * the fleet as it was.
 *
 * Patched snapshots (src/table_patch.c): long random sequences of slice additions,
 * replacements and deletions, each followed by a snapshot (patched from the previous one)
 * compared with a table built at once from the same objects: rows, values, pools, side
 * tables, the answers of both VMs and of the allocator, exactly (test_fleet_random). The pool
 * API (dracel_table_pool*, dracel_table_node_pools, dracel_usage_pool_hash): test_pools.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include "alloc.h"
#include "apiint.h"
#include "common.h"
#include "testutil.h"
#include "dracel.h"
#include "slices.h"
#include "table.h"
#include "vm.h"

#define DATA "tests/data/slices/"

static char err[1024];

/* Everything a reader can see of a table, as text: rows (ID, node, pool state) and each row's
 * device map as CEL sees it. */
static char *dump(const dracel_table *tt)
{
    const dc_table *t = dc_api_table(tt);
    dc_buf b;
    dc_buf_init(&b, &dc_default_alloc);
    dc_ectx c;
    dc_ectx_init(&c, NULL);
    for (uint32_t r = 0; r < t->rows; r++) {
        dracel_device_info d;
        assert_int_equal(dracel_table_device(tt, r, &d), DRACEL_OK);
        dc_buf_printf(&b, "%s/%s/%s node=%s %s ", d.driver, d.pool, d.device,
                      d.node ? d.node : "-", d.pool_state);
        dc_arena_reset(&c.arena);
        dc_val_json(&b, dc_table_device(t, r, &c));
        dc_buf_putc(&b, '\n');
    }
    dc_ectx_free(&c);
    char *s = strdup(b.len ? b.data : "");
    dc_buf_free(&b);
    return s;
}

static const char NEW_GEN[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceSlice\n"
    "metadata: {name: node-a-gpu}\n"
    "spec:\n"
    "  driver: gpu.example.com\n"
    "  pool: {name: node-a, generation: 4, resourceSliceCount: 1}\n"
    "  nodeName: node-a\n"
    "  devices:\n"
    "  - name: gpu-9\n"
    "    attributes: {model: {string: B200}}\n";

static void test_fleet(void **state)
{
    (void)state;
    dracel_table *once;
    assert_int_equal(dracel_table_load(NULL, DATA "basic.yaml", &once, err, sizeof err), DRACEL_OK);
    char *want = dump(once);

    dracel_fleet *f;
    assert_int_equal(dracel_fleet_new(NULL, &f), DRACEL_OK);
    assert_int_equal(dracel_fleet_load(f, DATA "basic.yaml", err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_fleet_slices(f), 5);
    dracel_table *s1;
    assert_int_equal(dracel_fleet_snapshot(f, &s1, err, sizeof err), DRACEL_OK);
    char *got1 = dump(s1);
    assert_string_equal(got1, want);

    /* The same objects again (a resync): replaced by name, nothing added. */
    assert_int_equal(dracel_fleet_load(f, DATA "basic.json", err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_fleet_slices(f), 5);
    dracel_table *s2;
    assert_int_equal(dracel_fleet_snapshot(f, &s2, err, sizeof err), DRACEL_OK);
    char *got2 = dump(s2);
    assert_string_equal(got2, want);
    assert_ptr_equal(dc_api_table(s1)->dict, dc_api_table(s2)->dict);

    /* A new generation of one pool: only that object is read. */
    assert_int_equal(dracel_fleet_load_buffer(f, "update.yaml", NEW_GEN, strlen(NEW_GEN), err,
                                              sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_fleet_slices(f), 5);
    dracel_table *s3;
    assert_int_equal(dracel_fleet_snapshot(f, &s3, err, sizeof err), DRACEL_OK);
    char *got3 = dump(s3);
    assert_non_null(strstr(got3, "gpu.example.com/node-a/gpu-9 node=node-a complete"));
    assert_null(strstr(got3, "gpu.example.com/node-a/gpu-0 "));
    assert_int_equal(dracel_table_rows(s3), dracel_table_rows(s1) - 2 + 1);

    /* A rejected load changes nothing. */
    static const char bad[] = "kind: ResourceSlice\nspec: {driver: x}\n";
    assert_int_equal(dracel_fleet_load_buffer(f, "bad.yaml", bad, strlen(bad), err, sizeof err),
                     DRACEL_EINPUT);
    assert_int_equal(dracel_fleet_slices(f), 5);

    /* Deletions. */
    assert_int_equal(dracel_fleet_delete(f, "rack-1-nics"), DRACEL_OK);
    assert_int_equal(dracel_fleet_delete(f, "rack-1-nics"), DRACEL_EINPUT);
    assert_int_equal(dracel_fleet_slices(f), 4);
    dracel_table *s4;
    assert_int_equal(dracel_fleet_snapshot(f, &s4, err, sizeof err), DRACEL_OK);
    char *got4 = dump(s4);
    assert_null(strstr(got4, "nic-0"));
    assert_non_null(strstr(got4, "gpu-9"));

    /* Earlier snapshots never change, and live on after the fleet. */
    dracel_fleet_free(f);
    char *again = dump(s1);
    assert_string_equal(again, want);
    char *again3 = dump(s3);
    assert_string_equal(again3, got3);

    free(want);
    free(got1);
    free(got2);
    free(got3);
    free(got4);
    free(again);
    free(again3);
    dracel_table_free(once);
    dracel_table_free(s1);
    dracel_table_free(s2);
    dracel_table_free(s3);
    dracel_table_free(s4);
}

/* Allocation failures: every one is ENOMEM, leaves the fleet as it was, and leaks nothing; the
 * step that failed, done again, gives the snapshots of a run without failures (a patched one
 * after a failed patch too: the fleet still knows what changed since its last snapshot). */
enum { FS_LOAD, FS_SNAP1, FS_UPDATE, FS_SNAP2, FS_DELETE, FS_SNAP3, FS__N };

static dracel_status fleet_step(dracel_fleet *f, int step, dracel_table **snap)
{
    switch (step) {
    case FS_LOAD: return dracel_fleet_load(f, DATA "basic.yaml", err, sizeof err);
    case FS_UPDATE:
        return dracel_fleet_load_buffer(f, "u.yaml", NEW_GEN, strlen(NEW_GEN), err, sizeof err);
    case FS_DELETE: return dracel_fleet_delete(f, "rack-1-nics");
    default: return dracel_fleet_snapshot(f, snap, err, sizeof err);
    }
}

static void test_fleet_failures(void **state)
{
    (void)state;
    char *want[FS__N] = {0};
    {
        dracel_fleet *f;
        assert_int_equal(dracel_fleet_new(NULL, &f), DRACEL_OK);
        for (int k = 0; k < FS__N; k++) {
            dracel_table *snap = NULL;
            assert_int_equal(fleet_step(f, k, &snap), DRACEL_OK);
            if (snap) {
                want[k] = dump(snap);
                assert_int_equal(dc_api_table(snap)->patched, k != FS_SNAP1);
                dracel_table_free(snap);
            }
        }
        dracel_fleet_free(f);
    }
    long failures = 0;
    for (long at = 1;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
        dracel_config cfg;
        dracel_config_init(&cfg);
        cfg.alloc = &a;
        dracel_fleet *f = NULL;
        bool failed = false;
        dracel_status st = dracel_fleet_new(&cfg, &f);
        if (st != DRACEL_OK) {
            assert_int_equal(st, DRACEL_ENOMEM);
            failed = true;
            assert_int_equal(dracel_fleet_new(&cfg, &f), DRACEL_OK);
        }
        for (int k = 0; k < FS__N; k++) {
            size_t before = dracel_fleet_slices(f);
            dracel_table *snap = NULL;
            st = fleet_step(f, k, &snap);
            if (st != DRACEL_OK) {
                if (st != DRACEL_ENOMEM)
                    fail_msg("allocation %ld, step %d: status %d: %s", at, k, st, err);
                assert_null(snap);
                assert_int_equal(dracel_fleet_slices(f), before);
                failed = true;
                assert_int_equal(fleet_step(f, k, &snap), DRACEL_OK); /* only one fails */
            }
            if (snap) {
                char *got = dump(snap);
                assert_string_equal(got, want[k]);
                free(got);
                dracel_table_free(snap);
            }
        }
        dracel_fleet_free(f);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.live_bytes, 0);
        if (!failed) {
            assert_true(fa.calls < at);
            break;
        }
        failures++;
    }
    for (int k = 0; k < FS__N; k++)
        free(want[k]);
    print_message("      %ld allocation failures injected, each ENOMEM without a leak, and the "
                  "step done again gave the same snapshots\n",
                  failures);
    assert_true(failures > 10);
}

/* A writer grows the shared dictionary (new strings, new snapshots) while a reader binds and
 * evaluates on an older snapshot: the reader must never see moved or freed memory (the page
 * directory and the hash index are republished, never freed under a reader; ASan and the
 * sanitizer build run this). */
typedef struct race {
    dracel_fleet *f;
    int done;   /* atomic: set by the writer when it is through (volatile would be a data race) */
    long rounds;
} race;

static void *writer(void *arg)
{
    race *r = arg;
    char *buf = malloc(1 << 16);
    for (int i = 0; i < 120; i++) {
        int n = snprintf(buf, 1 << 16,
                         "{\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"w-%d\"},\"spec\":{"
                         "\"driver\":\"gpu.example.com\",\"nodeName\":\"node-%d\",\"pool\":{\"name\":"
                         "\"w-%d\",\"generation\":1,\"resourceSliceCount\":1},\"devices\":[",
                         i, i, i);
        for (int d = 0; d < 100; d++)
            n += snprintf(buf + n, (size_t)(1 << 16) - (size_t)n,
                          "%s{\"name\":\"d-%d\",\"attributes\":{\"model\":{\"string\":\"m-%d-%d\"}}}",
                          d ? "," : "", d, i, d);
        n += snprintf(buf + n, (size_t)(1 << 16) - (size_t)n, "]}}");
        assert_int_equal(dracel_fleet_load_buffer(r->f, "w.json", buf, (size_t)n, err, sizeof err),
                         DRACEL_OK);
        dracel_table *t;
        assert_int_equal(dracel_fleet_snapshot(r->f, &t, err, sizeof err), DRACEL_OK);
        dracel_table_free(t);
    }
    free(buf);
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_fleet_concurrent(void **state)
{
    (void)state;
    race r = {NULL, 0, 0};
    assert_int_equal(dracel_fleet_new(NULL, &r.f), DRACEL_OK);
    assert_int_equal(dracel_fleet_load(r.f, DATA "basic.yaml", err, sizeof err), DRACEL_OK);
    dracel_table *old;
    assert_int_equal(dracel_fleet_snapshot(r.f, &old, err, sizeof err), DRACEL_OK);
    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    static const char src[] = "device.attributes[\"gpu.example.com\"].?model.orValue(\"\") in "
                              "[\"H100\", \"m-7-7\", \"m-90-3\"]";
    dracel_program *p;
    dracel_diags *d = NULL;
    assert_int_equal(dracel_compile(env, src, strlen(src), 0, &p, &d), DRACEL_OK);
    dracel_diags_free(d);
    dracel_selection *sel;
    assert_int_equal(dracel_selection_new(NULL, &sel), DRACEL_OK);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, writer, &r), 0);
    uint64_t want = 0;
    while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) {
        dracel_bound *b;
        assert_int_equal(dracel_bind(p, old, &b), DRACEL_OK);
        assert_int_equal(dracel_select(b, env, NULL, sel), DRACEL_OK);
        uint64_t m = dracel_selection_matched(sel)[0];
        if (r.rounds++ == 0)
            want = m;
        assert_int_equal(m, want);
        for (uint32_t row = 0; row < dracel_table_rows(old); row++) {
            dracel_device_info info;
            assert_int_equal(dracel_table_device(old, row, &info), DRACEL_OK);
            assert_non_null(info.device);
        }
        dracel_bound_free(b);
    }
    pthread_join(th, NULL);
    assert_true(want != 0);
    print_message("      %ld reads of an old snapshot while 120 snapshots grew the dictionary\n",
                  r.rounds);
    dracel_selection_free(sel);
    dracel_program_free(p);
    dracel_env_free(env);
    dracel_table_free(old);
    dracel_fleet_free(r.f);
}

/* Threads loading JSON at once: every parse goes through cJSON, whose parser writes one
 * process-wide error pointer; the library serialises that one call (docs/api.md, "Threads")
 * and runs the rest in parallel. ThreadSanitizer (make check-threads) watches dracel's part. */
static const char PAR_SLICE[] =
    "{\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"driver\":"
    "\"gpu.example.com\",\"nodeName\":\"n\",\"pool\":{\"name\":\"p\",\"generation\":1,"
    "\"resourceSliceCount\":1},\"devices\":[{\"name\":\"d\",\"attributes\":{\"big\":"
    "{\"int\":9007199254740993}}}]}}";
static const char PAR_DEVICE[] = "{\"driver\":\"gpu.example.com\",\"attributes\":{\"n\":{\"int\":1}}}";

static void *parallel_loader(void *arg)
{
    int *ok = arg;
    char e[256];
    for (int i = 0; i < 200; i++) {
        dracel_table *t = NULL;
        dracel_env *env = NULL;
        if (dracel_table_load_buffer(NULL, "p.json", PAR_SLICE, sizeof PAR_SLICE - 1, &t, e,
                                     sizeof e) != DRACEL_OK ||
            dracel_table_rows(t) != 1 || dracel_env_new(NULL, DRACEL_ENV_DRA, &env) != DRACEL_OK ||
            dracel_env_device_json(env, PAR_DEVICE, sizeof PAR_DEVICE - 1, e, sizeof e) !=
                DRACEL_OK ||
            dracel_env_bind_json(env, "x", "{\"int\":1e3}", 12, e, sizeof e) != DRACEL_EINPUT)
            *ok = 0;
        dracel_env_free(env);
        dracel_table_free(t);
    }
    return NULL;
}

static void test_parallel_loads(void **state)
{
    (void)state;
    enum { N = 4 };
    pthread_t th[N];
    int ok[N];
    for (int i = 0; i < N; i++) {
        ok[i] = 1;
        assert_int_equal(pthread_create(&th[i], NULL, parallel_loader, &ok[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_true(ok[i]);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Patched snapshots against full builds, on random changes
 */

static uint64_t rng_state;

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? (uint32_t)((rng_state >> 11) % n) : 0;
}

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (b->n + (size_t)n + 1 > b->cap) {
        b->cap = (b->n + (size_t)n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    b->n += (size_t)n;
    va_end(ap);
}

static const char *const DRIVERS[] = {"gpu.example.com", "nic.example.com"};
enum { NSLICES = 56, NPOOLS = 12, NNODES = 6 };

/* The model: what the fleet holds, as the objects' text. */
typedef struct rslice {
    bool live;
    int drv, pool;
    long gen;
    char *text;
} rslice;

static rslice model[NSLICES];
static int extra_names; /* attribute names never seen before */

static void pool_name(char *buf, size_t n, int pool)
{
    snprintf(buf, n, pool % 4 == 3 ? "rack-%d/p%d" : "p%d", pool % 3, pool);
}

static long pool_gen(int drv, int pool)
{
    long g = -1;
    for (int i = 0; i < NSLICES; i++)
        if (model[i].live && model[i].drv == drv && model[i].pool == pool && model[i].gen > g)
            g = model[i].gen;
    return g;
}

static int pool_slices(int drv, int pool)
{
    int n = 0;
    for (int i = 0; i < NSLICES; i++)
        n += model[i].live && model[i].drv == drv && model[i].pool == pool;
    return n;
}

static void node_selector(sbuf *b)
{
    switch (rnd(3)) {
    case 0:
        sb_printf(b, "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\","
                     "\"operator\":\"In\",\"values\":[\"z%u\"]}]}]}", rnd(2));
        break;
    case 1:
        sb_printf(b, "{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\","
                     "\"operator\":\"In\",\"values\":[\"n%u\"]}]}]}", rnd(NNODES));
        break;
    default:
        sb_printf(b, "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"rack\","
                     "\"operator\":\"Exists\"},{\"key\":\"zone\",\"operator\":\"NotIn\","
                     "\"values\":[\"z0\"]}]}]}");
        break;
    }
}

static void scope(sbuf *b, bool device)
{
    uint32_t k = rnd(10);
    if (k < 6)
        sb_printf(b, ",\"nodeName\":\"n%u\"", rnd(NNODES));
    else if (k < 8)
        sb_printf(b, ",\"allNodes\":true");
    else {
        sb_printf(b, ",\"nodeSelector\":");
        node_selector(b);
    }
    (void)device;
}

static const char *const MODELS[] = {"A", "B", "C", "H100"};
static const char *const VERSIONS[] = {"1.0.0", "2.1.0-rc.1", "3.0.0+b1", "1.2", "2.0.0"};
static const char *const QTYS[] = {"8Gi", "16Gi", "80Gi", "512Mi", "1"};

static void attribute(sbuf *b, bool *first, const char *name, int kind)
{
    sb_printf(b, "%s\"%s\":", *first ? "" : ",", name);
    *first = false;
    switch (kind) {
    case 0: sb_printf(b, "{\"int\":%d}", (int)rnd(6) - 1); break;
    case 1: sb_printf(b, "{\"bool\":%s}", rnd(2) ? "true" : "false"); break;
    case 2: sb_printf(b, "{\"string\":\"%s\"}", MODELS[rnd(4)]); break;
    case 3: sb_printf(b, "{\"version\":\"%s\"}", VERSIONS[rnd(5)]); break;
    default: {
        /* list-typed (DRAListTypeAttributes): boxed values in any column */
        static const char *const LK[] = {"ints", "bools", "strings", "versions"};
        uint32_t n = 1 + rnd(3);
        sb_printf(b, "{\"%s\":[", LK[kind - 4]);
        for (uint32_t i = 0; i < n; i++) {
            const char *sep = i ? "," : "";
            switch (kind) {
            case 4: sb_printf(b, "%s%d", sep, (int)rnd(4)); break;
            case 5: sb_printf(b, "%s%s", sep, rnd(2) ? "true" : "false"); break;
            case 6: sb_printf(b, "%s\"%s\"", sep, MODELS[rnd(4)]); break;
            default: sb_printf(b, "%s\"%s\"", sep, VERSIONS[rnd(5)]); break;
            }
        }
        sb_printf(b, "]}");
        break;
    }
    }
}

static void device(sbuf *b, const char *drv, int name, bool per_device)
{
    sb_printf(b, "{\"name\":\"d%d\",\"attributes\":{", name);
    bool first = true;
    if (rnd(10) < 8)
        attribute(b, &first, "model", 2);
    if (rnd(10) < 7)
        attribute(b, &first, "mem", 0);
    if (rnd(10) < 6)
        attribute(b, &first, "healthy", 1);
    if (rnd(10) < 5)
        attribute(b, &first, "fw", 3);
    if (rnd(10) < 3) {
        sb_printf(b, "%s\"x.example.com/serial\":{\"string\":\"s%u\"}", first ? "" : ",",
                  rnd(200));
        first = false;
    }
    if (rnd(10) < 9) { /* about as many distinct values as a column lists (DC_TCOL_SIDS_MAX) */
        sb_printf(b, "%s\"x.example.com/uuid\":{\"string\":\"u%u\"}", first ? "" : ",",
                  rnd(130));
        first = false;
    }
    if (rnd(30) == 0) { /* the longest string of the table comes and goes */
        sb_printf(b, "%s\"label\":{\"string\":\"%.*s\"}", first ? "" : ",", (int)(1 + rnd(60)),
                  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghij");
        first = false;
    }
    if (rnd(10) < 3)
        attribute(b, &first, "mixed", (int)rnd(8)); /* one name, values of several kinds */
    if (rnd(20) == 0) {
        char n[32];
        snprintf(n, sizeof n, "a%d", extra_names++ % 40); /* new columns, some coming back */
        attribute(b, &first, n, (int)rnd(8));
    }
    if (rnd(12) == 0) {
        /* a bare name hidden by the same name qualified with the driver's domain */
        char n[64];
        snprintf(n, sizeof n, "%s/tier", drv);
        attribute(b, &first, "tier", (int)rnd(4));
        attribute(b, &first, n, (int)rnd(4));
    }
    sb_printf(b, "}");
    if (rnd(10) < 7)
        sb_printf(b, ",\"capacity\":{\"memory\":{\"value\":\"%s\"}}", QTYS[rnd(5)]);
    if (rnd(8) == 0)
        sb_printf(b, ",\"taints\":[{\"key\":\"k%u\",%s\"effect\":\"%s\"}]", rnd(2),
                  rnd(2) ? "\"value\":\"v\"," : "", rnd(2) ? "NoSchedule" : "None");
    if (rnd(3) == 0)
        sb_printf(b, ",\"consumesCounters\":[{\"counterSet\":\"cs%u\",\"counters\":{\"mem\":"
                     "{\"value\":\"%uGi\"}}}]", rnd(2), 1 + rnd(4));
    if (rnd(10) == 0)
        sb_printf(b, ",\"allowMultipleAllocations\":true");
    if (rnd(12) == 0)
        sb_printf(b, ",\"bindingConditions\":[\"Ready\"%s],\"bindingFailureConditions\":"
                     "[\"Failed\"]", rnd(2) ? ",\"example.com/up\"" : "");
    if (rnd(12) == 0)
        sb_printf(b, ",\"bindsToNode\":true");
    if (per_device)
        scope(b, true);
    sb_printf(b, "}");
}

/* The text of slice i, with new random contents. */
static char *slice_text(int i, int drv, int pool, long gen, int count)
{
    sbuf b = {0};
    char pn[32];
    pool_name(pn, sizeof pn, pool);
    sb_printf(&b, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\","
                  "\"metadata\":{\"name\":\"s%d\"},\"spec\":{\"driver\":\"%s\",\"pool\":{\"name\":"
                  "\"%s\",\"generation\":%ld,\"resourceSliceCount\":%d}",
              i, DRIVERS[drv], pn, gen, count);
    bool per_device = false;
    if (rnd(10) < 2) {
        sb_printf(&b, ",\"perDeviceNodeSelection\":true");
        per_device = true;
    } else {
        scope(&b, false);
    }
    if (rnd(5) == 0) {
        sb_printf(&b, ",\"sharedCounters\":[");
        uint32_t n = 1 + rnd(2), first = rnd(3);
        for (uint32_t k = 0; k < n; k++)
            sb_printf(&b, "%s{\"name\":\"cs%u\",\"counters\":{\"mem\":{\"value\":\"%uGi\"}}}",
                      k ? "," : "", (first + k) % 3, 3 + rnd(6));
        sb_printf(&b, "]}}");
        return b.p;
    }
    sb_printf(&b, ",\"devices\":[");
    uint32_t n = rnd(12), base = rnd(6);
    for (uint32_t k = 0; k < n; k++) {
        if (k)
            sb_printf(&b, ",");
        device(&b, DRIVERS[drv], (int)(base + k), per_device);
    }
    sb_printf(&b, "]}}");
    return b.p;
}

/* Publish slice i (in the model and the fleet). */
static void publish(dracel_fleet *f, int i, int drv, int pool, long gen, int count)
{
    free(model[i].text);
    model[i] = (rslice){true, drv, pool, gen, slice_text(i, drv, pool, gen, count)};
    if (dracel_fleet_load_buffer(f, "event.json", model[i].text, strlen(model[i].text), err,
                                 sizeof err) != DRACEL_OK)
        fail_msg("%s\n in %.2000s", err, model[i].text);
}

static void retire(dracel_fleet *f, int i)
{
    char name[16];
    snprintf(name, sizeof name, "s%d", i);
    assert_int_equal(dracel_fleet_delete(f, name), DRACEL_OK);
    free(model[i].text);
    model[i].text = NULL;
    model[i].live = false;
}

/* DeviceTaintRules r0.. (their text, NULL when none): added, changed, given again unchanged (a
 * relist) or deleted now and then; a full build lists them in the order of their names. */
enum { NRULES = 4 };
static char *rules[NRULES];

static void rule_change(dracel_fleet *f)
{
    int i = (int)rnd(NRULES);
    char name[8];
    snprintf(name, sizeof name, "r%d", i);
    if (rules[i] && rnd(3) == 0) {
        assert_int_equal(dracel_fleet_delete_rule(f, name), DRACEL_OK);
        assert_int_equal(dracel_fleet_delete_rule(f, name), DRACEL_EINPUT);
        free(rules[i]);
        rules[i] = NULL;
        return;
    }
    if (!rules[i] || rnd(4)) {
        static const char *const EFFECTS[] = {"NoSchedule", "NoExecute", "None"};
        sbuf b = {0};
        char pn[32];
        pool_name(pn, sizeof pn, (int)rnd(NPOOLS));
        sb_printf(&b, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceTaintRule\","
                      "\"metadata\":{\"name\":\"%s\"},\"spec\":{\"deviceSelector\":{", name);
        const char *sep = "";
        if (rnd(2)) {
            sb_printf(&b, "\"driver\":\"%s\"", DRIVERS[rnd(2)]);
            sep = ",";
        }
        if (rnd(2)) {
            sb_printf(&b, "%s\"pool\":\"%s\"", sep, pn);
            sep = ",";
        }
        if (rnd(3) == 0)
            sb_printf(&b, "%s\"device\":\"d%u\"", sep, rnd(8));
        sb_printf(&b, "},\"taint\":{\"key\":\"rule-%u\",\"value\":\"v%u\",\"effect\":\"%s\"}}}",
                  rnd(3), rnd(2), EFFECTS[rnd(3)]);
        free(rules[i]);
        rules[i] = b.p;
    }
    if (dracel_fleet_load_buffer(f, "rule.json", rules[i], strlen(rules[i]), err, sizeof err) !=
        DRACEL_OK)
        fail_msg("%s\n in %s", err, rules[i]);
}

/* One random change: a slice republished (mostly a newer generation; sometimes the whole pool,
 * an older generation, another pool), added or deleted. */
static void change(dracel_fleet *f)
{
    int i = (int)rnd(NSLICES);
    uint32_t op = rnd(100);
    if (!model[i].live || op < 12) {
        if (model[i].live && op < 8) {
            retire(f, i);
            return;
        }
        int drv = (int)rnd(2), pool = (int)rnd(NPOOLS);
        long g = pool_gen(drv, pool);
        publish(f, i, drv, pool, g < 0 ? (long)rnd(3) : g,
                pool_slices(drv, pool) + 1 + (int)(rnd(5) == 0));
        if (rnd(6) == 0) { /* added and deleted again before a snapshot, in a pool often new */
            if (rnd(2)) {
                retire(f, i);
                publish(f, i, drv, NPOOLS + (int)rnd(3), 1, 1);
            }
            retire(f, i);
        }
        return;
    }
    int drv = model[i].drv, pool = model[i].pool;
    long g = pool_gen(drv, pool);
    int count = pool_slices(drv, pool) + (rnd(8) == 0);
    if (op < 20) { /* to another pool, sometimes and back */
        int p2 = (int)rnd(NPOOLS);
        long g2 = pool_gen(drv, p2);
        publish(f, i, drv, p2, g2 < 0 ? 1 : g2, pool_slices(drv, p2) + 1);
        if (rnd(3) == 0)
            publish(f, i, drv, pool, g, count);
    } else if (op < 26) { /* an older generation than the pool's: not counted */
        publish(f, i, drv, pool, g > 0 ? g - 1 : g, count);
    } else if (op < 40) { /* the whole pool, newer */
        for (int k = 0; k < NSLICES; k++)
            if (model[k].live && model[k].drv == drv && model[k].pool == pool)
                publish(f, k, drv, pool, g + 1, count);
    } else if (op < 55) { /* same generation, new contents */
        publish(f, i, drv, pool, g, count);
    } else {
        publish(f, i, drv, pool, g + 1, count);
    }
}

/* Every live object at once. */
static dracel_table *full_build(void)
{
    sbuf b = {0};
    sb_printf(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    bool first = true;
    for (int i = 0; i < NSLICES; i++)
        if (model[i].live) {
            sb_printf(&b, "%s%s", first ? "" : ",", model[i].text);
            first = false;
        }
    for (int i = 0; i < NRULES; i++)
        if (rules[i]) {
            sb_printf(&b, "%s%s", first ? "" : ",", rules[i]);
            first = false;
        }
    sb_printf(&b, "]}");
    dracel_table *t;
    if (dracel_table_load_buffer(NULL, "all.json", b.p, b.n, &t, err, sizeof err) != DRACEL_OK)
        fail_msg("%s", err);
    free(b.p);
    return t;
}

static const char *const SELECTORS[] = {
    "device.attributes[\"gpu.example.com\"].model == \"A\"",
    "device.attributes[\"gpu.example.com\"].?model.orValue(\"\") in [\"A\", \"H100\"]",
    "device.attributes[\"nic.example.com\"].mem > 2",
    "device.attributes[\"gpu.example.com\"].healthy",
    "device.attributes[\"gpu.example.com\"].fw.compareTo(semver(\"2.0.0\")) >= 0",
    "device.attributes[\"nic.example.com\"].?fw.orValue(semver(\"0.0.1\"))"
    ".isGreaterThan(semver(\"1.0.0\"))",
    "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"10Gi\")) > 0",
    "device.capacity[\"nic.example.com\"].?memory.orValue(quantity(\"0\"))"
    ".isLessThan(quantity(\"1Gi\"))",
    "device.attributes[\"x.example.com\"].serial.startsWith(\"s1\")",
    "device.attributes[\"gpu.example.com\"].mixed == 1",
    "device.attributes[\"nic.example.com\"].?mixed.orValue(\"\") == \"A\"",
    "device.attributes[\"gpu.example.com\"].?mixed.orValue(0).includes(1)",
    "device.attributes[\"nic.example.com\"].?mixed.orValue([]).includes(\"A\")",
    "has(device.attributes[\"gpu.example.com\"].tier) && "
    "device.attributes[\"gpu.example.com\"].tier == \"B\"",
    "size(device.attributes[\"gpu.example.com\"]) > 3",
    "device.attributes[\"gpu.example.com\"].exists(k, k.startsWith(\"a\"))",
    "device.allowMultipleAllocations",
    "device.driver == \"nic.example.com\" && device.attributes[\"nic.example.com\"].model != \"C\"",
};

/* Everything a reader can see of a table, through the public API, as text: rows, pools, the
 * nodes, each row's device as an activation reads it. */
static char *public_dump(const dracel_table *t, dracel_env *env, const dracel_program *whole)
{
    sbuf b = {0};
    sb_printf(&b, "rows %u pools %zu nodes %zu\n", dracel_table_rows(t), dracel_table_pools(t),
              dracel_table_nodes(t));
    for (size_t i = 0; i < dracel_table_nodes(t); i++)
        sb_printf(&b, "node %s\n", dracel_table_node(t, i));
    for (size_t i = 0; i < dracel_table_pools(t); i++) {
        dracel_pool_info p;
        assert_int_equal(dracel_table_pool(t, i, &p), DRACEL_OK);
        sb_printf(&b, "pool %s/%s gen %lld version %016llx node %s %s rows %u+%u\n", p.driver,
                  p.name, (long long)p.generation, (unsigned long long)p.version,
                  p.node ? p.node : "-", p.state, p.first_row, p.rows);
        size_t at;
        assert_int_equal(dracel_table_pool_find(t, p.driver, p.name, &at), DRACEL_OK);
        assert_int_equal(at, i);
    }
    dracel_activation *act;
    dracel_result *r;
    assert_int_equal(dracel_activation_new(env, &act), DRACEL_OK);
    assert_int_equal(dracel_result_new(NULL, &r), DRACEL_OK);
    for (uint32_t row = 0; row < dracel_table_rows(t); row++) {
        dracel_device_info d;
        assert_int_equal(dracel_table_device(t, row, &d), DRACEL_OK);
        assert_int_equal(dracel_activation_set_device_row(act, t, row), DRACEL_OK);
        assert_int_equal(dracel_eval_activation(whole, act, r), DRACEL_OK);
        char *v = dracel_result_json(r);
        sb_printf(&b, "%s/%s/%s node=%s %s %s\n", d.driver, d.pool, d.device,
                  d.node ? d.node : "-", d.pool_state, v);
        dracel_free_string(NULL, v);
    }
    dracel_result_free(r);
    dracel_activation_free(act);
    return b.p;
}

static const char *ds(const dc_table *t, uint32_t id)
{
    return id == DC_DICT_NONE ? "-" : dc_dict_str(t->dict, id)->data;
}

static void dump_selector(sbuf *b, const dc_node_selector_in *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t k = 0; k < s->terms[i].n; k++) {
            const dc_node_req_in *r = &s->terms[i].reqs[k];
            sb_printf(b, "[%u %s %s %d", i, r->key, r->op, r->field);
            for (uint32_t v = 0; v < r->nvalues; v++)
                sb_printf(b, " %s", r->values[v]);
            sb_printf(b, "]");
        }
}

/* The table's structure as text (ids resolved; what a patch may represent differently left
 * out: column kinds, distinct value order, counter group numbers). */
static char *inner_dump(const dc_table *t)
{
    sbuf b = {0};
    sb_printf(&b, "slices %u max_strlen %u\n", t->nslices, t->max_strlen);
    for (uint32_t s = 0; s <= t->nslices; s++)
        sb_printf(&b, "slice %u first %u per_device %d name %s\n", s, t->slice_first[s],
                  s < t->nslices && dc_bit(t->slice_per_device, s),
                  s < t->nslices ? ds(t, t->slice_name[s]) : "-");
    for (uint32_t r = 0; r < t->rows; r++) {
        sb_printf(&b, "row %u pool %u multi %d bindc %d binds %d kind %u ", r, t->pool[r],
                  dc_bit(t->multi, r), dc_bit(t->bindc, r), dc_bit(t->binds_node, r),
                  t->node_kind[r]);
        if (t->node_kind[r] == DC_NODE_NAME)
            sb_printf(&b, "%s", ds(t, t->node[r]));
        else if (t->node_kind[r] == DC_NODE_SELECTOR)
            dump_selector(&b, t->node_selectors[t->node[r]]);
        const dc_val *fault = dc_table_fault(t, r);
        if (fault)
            sb_printf(&b, " fault %s", fault->u.e->msg);
        sb_printf(&b, "\n");
    }
    for (uint32_t p = 0; p < t->npools; p++) {
        const dc_tpool *x = &t->pools[p];
        sb_printf(&b, "pool %u %s/%s gen %lld count %lld slices %u state %d rows %u+%u slice %u "
                      "node %s max %u version %016llx\n",
                  p, ds(t, x->driver), ds(t, x->name), (long long)x->generation,
                  (long long)x->slice_count, x->slices, x->state, x->first_row, x->rows,
                  x->first_slice, ds(t, x->node), x->max_strlen, (unsigned long long)x->version);
    }
    for (uint32_t k = 0; k < t->ntaints; k++)
        sb_printf(&b, "taint %u %s %s %s%s\n", t->taints[k].row, ds(t, t->taints[k].key),
                  ds(t, t->taints[k].value), ds(t, t->taints[k].effect),
                  t->taints[k].rule ? " rule" : "");
    for (uint32_t k = 0; k < t->ncaps; k++) {
        const dc_tcap *c = &t->caps[k];
        sb_printf(&b, "cap %u %s %s", c->row, ds(t, c->name), c->value->text->data);
        if (c->policy)
            sb_printf(&b, " policy %s %s %s %s %u", c->policy->def ? c->policy->def->text->data : "-",
                      c->policy->min ? c->policy->min->text->data : "-",
                      c->policy->max ? c->policy->max->text->data : "-",
                      c->policy->step ? c->policy->step->text->data : "-", c->policy->nvalid);
        sb_printf(&b, "\n");
    }
    for (uint32_t k = 0; k < t->nbinds; k++)
        sb_printf(&b, "bind %u %s %d\n", t->binds[k].row, ds(t, t->binds[k].name),
                  t->binds[k].failure);
    for (uint32_t k = 0; k < t->nconsumes; k++)
        sb_printf(&b, "consumes %u %s %s %s\n", t->consumes[k].owner, ds(t, t->consumes[k].set),
                  ds(t, t->consumes[k].name), t->consumes[k].value->text->data);
    for (uint32_t k = 0; k < t->nshared; k++) {
        sb_printf(&b, "shared %u %s %s %s", t->shared[k].owner, ds(t, t->shared[k].set),
                  ds(t, t->shared[k].name), t->shared[k].value->text->data);
        for (uint32_t j = 0; j < k; j++) /* which entries share a published counter set */
            if (t->shared[j].group == t->shared[k].group)
                sb_printf(&b, " with %u", j);
        sb_printf(&b, "\n");
    }
    /* columns with values: names and value counts */
    for (uint32_t c = 0; c < t->ncols; c++)
        if (t->cols[c].nvalues)
            sb_printf(&b, "col %d %s %s values %u\n", t->cols[c].capacity,
                      t->cols[c].domain->data, t->cols[c].id->data, t->cols[c].nvalues);
    return b.p;
}

/* The distinct values of a column as sorted texts (string ids when listed, versions and
 * quantities), or NULL when it lists none. */
static char *distinct_dump(const dc_table *t, const dc_tcol *col)
{
    const char *v[4096];
    uint32_t n = 0;
    if (col->kind == DC_COL_STRING && col->sids)
        for (uint32_t k = 0; k < col->nsids; k++)
            v[n++] = dc_dict_str(t->dict, col->sids[k])->data;
    else if (col->kind == DC_COL_VERSION || col->kind == DC_COL_QUANTITY)
        for (uint32_t k = 0; k < col->ndistinct && n < 4096; k++)
            v[n++] = dc_dict_str(t->dict, col->distinct_text[k])->data;
    else
        return NULL;
    qsort(v, n, sizeof *v, cmp_cstr);
    sbuf b = {0};
    sb_printf(&b, "%u:", n);
    for (uint32_t k = 0; k < n; k++)
        sb_printf(&b, " %s", v[k]);
    return b.p;
}

/* Columns of one name in both tables and of one kind list the same distinct values (a patch
 * keeps a column's kind where a full build may choose another: its values are the same, in
 * the column or beside it). The number of columns whose kind differed. */
static int unlisted; /* patched string columns with too many distinct ids to list */

static int same_columns(int step, const dc_table *s, const dc_table *t)
{
    int kinds = 0;
    for (uint32_t c = 0; c < s->ncols; c++) {
        const dc_tcol *x = &s->cols[c];
        const dc_tcol *y = dc_table_col(t, x->capacity, x->domain->data, x->domain->len,
                                        x->id->data, x->id->len);
        if (!x->nvalues)
            continue;
        assert_non_null(y);
        if (x->kind != y->kind) {
            kinds++;
            continue;
        }
        unlisted += s->patched && x->kind == DC_COL_STRING && !x->sids;
        char *a = distinct_dump(s, x), *b = distinct_dump(t, y);
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b)))
            fail_msg("step %d: column %s/%s: distinct values %s, in full %s", step, x->domain->data,
                     x->id->data, a ? a : "(not listed)", b ? b : "(not listed)");
        free(a);
        free(b);
    }
    return kinds;
}

/* What a table keeps about itself that a patch carries on: counts agree with the rows. */
static void check_counts(const dc_table *t)
{
    for (uint32_t c = 0; c < t->ncols; c++) {
        const dc_tcol *col = &t->cols[c];
        uint32_t present = 0;
        for (uint32_t r = 0; r < t->rows; r++)
            present += dc_bit(col->present, r);
        assert_int_equal(col->nvalues, present + col->nforeign);
        for (uint32_t k = 1; k < col->nforeign; k++)
            assert_true(col->foreign[k - 1].row < col->foreign[k].row);
        if (col->kind == DC_COL_VERSION || col->kind == DC_COL_QUANTITY) {
            for (uint32_t k = 0; k < col->ndistinct; k++) {
                uint32_t n = 0;
                for (uint32_t r = 0; r < t->rows; r++)
                    n += dc_bit(col->present, r) && col->v.vid[r] == k;
                assert_int_equal(n, col->distinct_rows[k]);
                assert_true(n > 0);
            }
        }
        if (col->kind == DC_COL_STRING && col->sids) {
            uint32_t total = 0;
            for (uint32_t k = 0; k < col->nsids; k++) {
                uint32_t n = 0;
                for (uint32_t r = 0; r < t->rows; r++)
                    n += dc_bit(col->present, r) && col->v.sid[r] == col->sids[k];
                assert_int_equal(n, col->sid_rows[k]);
                assert_true(n > 0);
                total += n;
            }
            assert_int_equal(total, present);
        }
        for (uint32_t w = t->rows; w % 64; w++) /* bits past rows are zero */
            assert_false(dc_bit(col->present, w));
    }
}

static char *run_text(dracel_run *r)
{
    char *a = dracel_run_json(r), *e = dracel_run_explain_json(r);
    sbuf b = {0};
    sb_printf(&b, "%s\n%s\n", a ? a : "(null)", e ? e : "(no explanation)");
    dracel_free_string(NULL, a);
    dracel_free_string(NULL, e);
    return b.p;
}

static const char PLACE_OBJECTS[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: DeviceClass\n"
    "metadata: {name: gpu}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: DeviceClass\n"
    "metadata: {name: any}\n"
    "spec: {}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaim\n"
    "metadata: {name: c1, namespace: ns}\n"
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: 1, selectors: "
    "[{cel: {expression: 'device.attributes[\"gpu.example.com\"].?mem.orValue(0) >= 1'}}]}}]}}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaim\n"
    "metadata: {name: c2, namespace: ns}\n"
    "spec: {devices: {requests: [{name: a, firstAvailable: [{name: two, deviceClassName: any, "
    "count: 2, selectors: [{cel: {expression: "
    "'device.attributes[\"gpu.example.com\"].healthy'}}]}, "
    "{name: one, deviceClassName: any}]}]}}\n";

static const dracel_label LABELS[NNODES][2] = {
    {{"zone", "z0"}, {"rack", "r0"}}, {{"zone", "z1"}, {"rack", "r0"}},
    {{"zone", "z0"}, {"x", "y"}},     {{"zone", "z1"}, {"x", "y"}},
    {{"rack", "r1"}, {"zone", "z1"}}, {{"a", "b"}, {"c", "d"}},
};

/* The allocator's answers on every node (with and without devices in use), the visible pools
 * and the usage hashes, as text. */
static char *place_dump(const dracel_table *t, const dracel_objects *o,
                        const dracel_device_id *used, size_t nused)
{
    sbuf b = {0};
    dracel_policy *p;
    if (dracel_policy_new(NULL, t, o, o, NULL, 0, &p, err, sizeof err) != DRACEL_OK)
        fail_msg("policy: %s", err);
    dracel_run *run;
    assert_int_equal(dracel_run_new(p, &run), DRACEL_OK);
    dracel_usage *u;
    assert_int_equal(dracel_usage_new(t, used, nused, &u), DRACEL_OK);
    sb_printf(&b, "in use %zu\n", dracel_usage_devices(u));
    for (size_t i = 0; i < dracel_table_pools(t); i++)
        sb_printf(&b, "pool %zu usage %016llx\n", i,
                  (unsigned long long)dracel_usage_pool_hash(u, i));
    for (int n = 0; n < NNODES; n++) {
        char name[8];
        snprintf(name, sizeof name, "n%d", n);
        dracel_node node = {name, LABELS[n], 2};
        size_t pools[64];
        size_t np = dracel_table_node_pools(t, &node, pools, 64);
        sb_printf(&b, "node %s pools", name);
        for (size_t k = 0; k < np && k < 64; k++)
            sb_printf(&b, " %zu", pools[k]);
        sb_printf(&b, "\n");
        for (int with = 0; with < 2; with++) {
            dracel_allocate_opts opts;
            dracel_allocate_opts_init(&opts);
            opts.explain = true;
            opts.in_use = with ? u : NULL;
            assert_int_equal(dracel_allocate(run, &node, &opts), DRACEL_OK);
            dracel_run_info info;
            assert_int_equal(dracel_run_get(run, &info), DRACEL_OK);
            /* the pools the allocator gathered: those, but for an older generation that the
             * node sees part of, which 1.35 on leave out (dracel_table_node_pools keeps it) */
            assert_true(info.pools <= np);
            char *x = run_text(run);
            sb_printf(&b, "%s", x);
            free(x);
        }
    }
    dracel_usage_free(u);
    dracel_run_free(run);
    dracel_policy_free(p);
    return b.p;
}

/* The answers of the three ways the vector VM can run each selector, as text. */
static char *select_dump(const dracel_table *t, dracel_env *env, dracel_program **progs)
{
    sbuf b = {0};
    dracel_selection *sel;
    assert_int_equal(dracel_selection_new(NULL, &sel), DRACEL_OK);
    uint32_t rows = dracel_table_rows(t);
    for (size_t k = 0; k < DC_COUNTOF(SELECTORS); k++) {
        dracel_bound *bd;
        assert_int_equal(dracel_bind(progs[k], t, &bd), DRACEL_OK);
        for (int vm = 0; vm < 3; vm++) {
            dracel_select_opts so;
            dracel_select_opts_init(&so);
            so.vm = vm == 0 ? DRACEL_VM_VECTOR : vm == 1 ? DRACEL_VM_SCALAR : DRACEL_VM_BATCHED;
            assert_int_equal(dracel_select(bd, env, &so, sel), DRACEL_OK);
            const uint64_t *m = dracel_selection_matched(sel), *e = dracel_selection_errored(sel);
            sb_printf(&b, "sel %zu vm %d:", k, vm);
            for (uint32_t r = 0; r < rows; r++) {
                if (dc_bit(m, r))
                    sb_printf(&b, " %u", r);
                if (dc_bit(e, r))
                    sb_printf(&b, " %u!%s", r, dracel_selection_error(sel, r));
            }
            sb_printf(&b, "\n");
        }
        dracel_bound_free(bd);
    }
    dracel_selection_free(sel);
    return b.p;
}

/* The placement index as text, its lines sorted (named slices are in node id order). */
static char *pindex_dump(const dracel_table *t)
{
    dc_buf b;
    dc_buf_init(&b, &dc_default_alloc);
    dc_pindex_describe(dc_api_table(t), dc_api_table_pindex(t), &b);
    char *text = strdup(b.len ? b.data : "");
    dc_buf_free(&b);
    size_t n = 0, cap = 64;
    char **lines = malloc(cap * sizeof *lines);
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap)
            lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = l;
    }
    qsort(lines, n, sizeof *lines, cmp_cstr);
    sbuf out = {0};
    sb_printf(&out, "%s", "");
    for (size_t i = 0; i < n; i++)
        sb_printf(&out, "%s\n", lines[i]);
    free(lines);
    free(text);
    return out.p;
}

static void same_text(const char *what, int step, char *patched, char *full)
{
    if (strcmp(patched, full) != 0) {
        /* the first differing line, for the message */
        const char *a = patched, *c = full;
        while (*a && *a == *c)
            a++, c++;
        while (a > patched && a[-1] != '\n')
            a--, c--;
        fail_msg("step %d: %s differ at\n patched: %.300s\n full:    %.300s", step, what, a, c);
    }
    free(patched);
    free(full);
}

static void test_fleet_random(void **state)
{
    (void)state;
    const char *seed = getenv("DRACEL_FLEET_SEED");
    const char *steps_env = getenv("DRACEL_FLEET_STEPS");
    uint64_t seed0 = seed ? strtoull(seed, NULL, 0) : 0x9E3779B97F4A7C15ULL;
    int steps = steps_env ? atoi(steps_env) : 400;
    rng_state = seed0 ? seed0 : 1;
    memset(model, 0, sizeof model);
    extra_names = 0;
    unlisted = 0;
    memset(rules, 0, sizeof rules);

    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    dracel_program *progs[DC_COUNTOF(SELECTORS)], *whole;
    for (size_t k = 0; k < DC_COUNTOF(SELECTORS); k++) {
        dracel_diags *d = NULL;
        if (dracel_compile(env, SELECTORS[k], strlen(SELECTORS[k]), 0, &progs[k], &d) != DRACEL_OK)
            fail_msg("%s: %s", SELECTORS[k], d ? dracel_diags_render(d, "<input>") : "?");
        dracel_diags_free(d);
    }
    static const char WHOLE[] = "device";
    dracel_diags *d = NULL;
    assert_int_equal(
        dracel_compile(env, WHOLE, strlen(WHOLE), DRACEL_COMPILE_ANY_RESULT, &whole, &d),
        DRACEL_OK);
    dracel_diags_free(d);
    dracel_objects *o;
    assert_int_equal(dracel_objects_new(NULL, &o), DRACEL_OK);
    assert_int_equal(dracel_objects_load_buffer(o, "place.yaml", PLACE_OBJECTS,
                                                strlen(PLACE_OBJECTS),
                                                DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM, err,
                                                sizeof err),
                     DRACEL_OK);

    dracel_fleet *f;
    assert_int_equal(dracel_fleet_new(NULL, &f), DRACEL_OK);
    for (int i = 0; i < NSLICES / 2; i++)
        change(f);
    int patched = 0, full = 0, kinds = 0;
    uint64_t rows = 0;
    dracel_table *prev = NULL;
    char *prev_dump = NULL;
    for (int step = 0; step < steps; step++) {
        uint32_t nchanges = rnd(10) == 0 ? 2 + rnd(4) : rnd(20) == 0 ? 0 : 1;
        if (rnd(40) == 0)
            nchanges = NSLICES; /* most pools: built in full */
        for (uint32_t k = 0; k < nchanges; k++)
            change(f);
        if (rnd(25) == 0)
            rule_change(f);
        dracel_table *s;
        assert_int_equal(dracel_fleet_snapshot(f, &s, err, sizeof err), DRACEL_OK);
        dracel_table *t = full_build();
        rows += dracel_table_rows(s);
        if (dc_api_table(s)->patched)
            patched++;
        else
            full++;
        check_counts(dc_api_table(s));
        same_text("tables", step, public_dump(s, env, whole), public_dump(t, env, whole));
        same_text("structures", step, inner_dump(dc_api_table(s)), inner_dump(dc_api_table(t)));
        kinds += same_columns(step, dc_api_table(s), dc_api_table(t));
        same_text("placement indexes", step, pindex_dump(s), pindex_dump(t));
        same_text("selections", step, select_dump(s, env, progs), select_dump(t, env, progs));
        /* a few devices in use, by ID, the same for both */
        dracel_device_id used[4];
        size_t nused = 0;
        for (uint32_t k = 0; k < 3 && dracel_table_rows(t); k++) {
            dracel_device_info di;
            assert_int_equal(dracel_table_device(t, rnd(dracel_table_rows(t)), &di), DRACEL_OK);
            used[nused++] = (dracel_device_id){di.driver, di.pool, di.device};
        }
        used[nused++] = (dracel_device_id){"gpu.example.com", "p1", "d99"};
        same_text("placements", step, place_dump(s, o, used, nused), place_dump(t, o, used, nused));
        /* the previous snapshot is as it was (a patch reads it, never writes it) */
        if (prev) {
            char *again = public_dump(prev, env, whole);
            assert_string_equal(again, prev_dump);
            free(again);
            free(prev_dump);
            dracel_table_free(prev);
        }
        prev = s;
        prev_dump = public_dump(s, env, whole);
        dracel_table_free(t);
    }
    print_message("      %d steps (seed %#llx, %llu devices on average): %d snapshots patched, "
                  "%d built in full, each equal "
                  "to a full build (columns of another kind than a full build's: %d; string "
                  "columns with too many values to list: %d)\n",
                  steps, (unsigned long long)seed0, (unsigned long long)(rows / (uint64_t)steps),
                  patched, full, kinds, unlisted);
    /* A change to a pool with an older generation left (the generator leaves one behind in
     * 6% of the changes, and it stays until its slice is republished) is built in full
     * (src/table_patch.c), so a tenth, not a half, of the snapshots are patched here. */
    assert_true(patched > steps / 10);
    assert_true(full > 0);
    size_t nlive = 0;
    for (int i = 0; i < NRULES; i++)
        nlive += rules[i] != NULL;
    assert_int_equal(dracel_fleet_rules(f), nlive);
    assert_int_equal(dracel_fleet_rules(NULL), 0);
    assert_int_equal(dracel_fleet_delete_rule(NULL, "r0"), DRACEL_EINVAL);
    free(prev_dump);
    dracel_table_free(prev);
    dracel_fleet_free(f);
    for (int i = 0; i < NSLICES; i++)
        free(model[i].text);
    for (int i = 0; i < NRULES; i++) {
        free(rules[i]);
        rules[i] = NULL;
    }
    dracel_objects_free(o);
    for (size_t k = 0; k < DC_COUNTOF(SELECTORS); k++)
        dracel_program_free(progs[k]);
    dracel_program_free(whole);
    dracel_env_free(env);
}

/* Edges: tables without rows, snapshots without changes, the first and the last pool changed,
 * every slice deleted; each snapshot compared with a full build of the same objects. */
static void put(dracel_fleet *f, int i, const char *text)
{
    free(model[i].text);
    model[i] = (rslice){true, 0, 0, 0, strdup(text)};
    if (dracel_fleet_load_buffer(f, "edge.json", text, strlen(text), err, sizeof err) != DRACEL_OK)
        fail_msg("%s", err);
}

static bool snapshot_as_full(dracel_fleet *f, dracel_env *env, const dracel_program *whole,
                             int step)
{
    dracel_table *s, *t = full_build();
    assert_int_equal(dracel_fleet_snapshot(f, &s, err, sizeof err), DRACEL_OK);
    bool patched = dc_api_table(s)->patched;
    check_counts(dc_api_table(s));
    same_text("tables", step, public_dump(s, env, whole), public_dump(t, env, whole));
    same_text("structures", step, inner_dump(dc_api_table(s)), inner_dump(dc_api_table(t)));
    same_text("placement indexes", step, pindex_dump(s), pindex_dump(t));
    dracel_table_free(s);
    dracel_table_free(t);
    return patched;
}

static const char *edge_slice(char *buf, size_t n, const char *name, const char *pool, int gen,
                              const char *body)
{
    snprintf(buf, n,
             "{\"kind\":\"ResourceSlice\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":"
             "{\"name\":\"%s\"},\"spec\":{\"driver\":\"gpu.example.com\",\"pool\":{\"name\":\"%s\","
             "\"generation\":%d,\"resourceSliceCount\":1},\"nodeName\":\"n1\",%s}}",
             name, pool, gen, body);
    return buf;
}

static void test_fleet_edges(void **state)
{
    (void)state;
    memset(model, 0, sizeof model);
    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    dracel_program *whole;
    dracel_diags *d = NULL;
    assert_int_equal(dracel_compile(env, "device", 6, DRACEL_COMPILE_ANY_RESULT, &whole, &d),
                     DRACEL_OK);
    dracel_diags_free(d);
    static const char COUNTERS[] =
        "\"sharedCounters\":[{\"name\":\"cs\",\"counters\":{\"mem\":{\"value\":\"8Gi\"}}}]";
    static const char COUNTERS2[] =
        "\"sharedCounters\":[{\"name\":\"cs\",\"counters\":{\"mem\":{\"value\":\"9Gi\"}}}]";
    static const char DEVICES[] =
        "\"devices\":[{\"name\":\"d0\",\"attributes\":{\"v\":{\"version\":\"1.0.0\"}}},"
        "{\"name\":\"d1\",\"attributes\":{\"v\":{\"version\":\"2.0.0\"}}}]";
    static const char DEVICES2[] =
        "\"devices\":[{\"name\":\"d0\",\"attributes\":{\"v\":{\"version\":\"3.0.0\"},"
        "\"s\":{\"string\":\"x\"}}}]";
    char buf[1024];
    dracel_fleet *f;
    assert_int_equal(dracel_fleet_new(NULL, &f), DRACEL_OK);
    int step = 0;
    /* a table without rows, patched: only counters */
    put(f, 0, edge_slice(buf, sizeof buf, "c", "pc", 1, COUNTERS));
    assert_false(snapshot_as_full(f, env, whole, step++));
    put(f, 0, edge_slice(buf, sizeof buf, "c", "pc", 2, COUNTERS2));
    assert_true(snapshot_as_full(f, env, whole, step++));
    /* no change at all */
    assert_true(snapshot_as_full(f, env, whole, step++));
    /* pools before and after the others, then the first and the last changed */
    for (int k = 1; k <= 8; k++) {
        char name[16], pool[16];
        snprintf(name, sizeof name, "s%d", k);
        snprintf(pool, sizeof pool, "p%d", k);
        put(f, k, edge_slice(buf, sizeof buf, name, pool, 1, DEVICES));
    }
    for (int k = 11; k < 23; k++) { /* rows enough that three pools changed are patched */
        char name[16], pool[16];
        snprintf(name, sizeof name, "s%d", k);
        snprintf(pool, sizeof pool, "p5-%d", k);
        put(f, k, edge_slice(buf, sizeof buf, name, pool, 1, DEVICES));
    }
    snapshot_as_full(f, env, whole, step++);
    put(f, 1, edge_slice(buf, sizeof buf, "s1", "p1", 2, DEVICES2)); /* the first pool with rows */
    assert_true(snapshot_as_full(f, env, whole, step++));
    put(f, 8, edge_slice(buf, sizeof buf, "s8", "p8", 2, DEVICES2)); /* the last pool */
    assert_true(snapshot_as_full(f, env, whole, step++));
    put(f, 9, edge_slice(buf, sizeof buf, "s9", "a0", 1, DEVICES)); /* a new first pool */
    put(f, 10, edge_slice(buf, sizeof buf, "s10", "z9", 1, DEVICES2)); /* and a new last one */
    assert_true(snapshot_as_full(f, env, whole, step++));
    /* a version no row has any more (1.0.0 and 2.0.0 stay in other pools; 3.0.0 goes) */
    put(f, 1, edge_slice(buf, sizeof buf, "s1", "p1", 3, DEVICES));
    put(f, 8, edge_slice(buf, sizeof buf, "s8", "p8", 3, DEVICES));
    put(f, 10, edge_slice(buf, sizeof buf, "s10", "z9", 3, DEVICES));
    assert_true(snapshot_as_full(f, env, whole, step++));
    /* a pool added and deleted again between two snapshots; one moved to a new pool and back */
    put(f, 23, edge_slice(buf, sizeof buf, "s23", "p4-new", 1, DEVICES));
    assert_int_equal(dracel_fleet_delete(f, "s23"), DRACEL_OK);
    free(model[23].text);
    model[23] = (rslice){0};
    put(f, 2, edge_slice(buf, sizeof buf, "s2", "p2-new", 1, DEVICES2));
    put(f, 2, edge_slice(buf, sizeof buf, "s2", "p2", 1, DEVICES2));
    assert_true(snapshot_as_full(f, env, whole, step++));
    /* pools removed at both ends; a column removed with its last value */
    assert_int_equal(dracel_fleet_delete(f, "s9"), DRACEL_OK);
    assert_int_equal(dracel_fleet_delete(f, "s10"), DRACEL_OK);
    free(model[9].text);
    free(model[10].text);
    model[9] = model[10] = (rslice){0};
    assert_true(snapshot_as_full(f, env, whole, step++));
    /* everything deleted: built in full, empty */
    for (int k = 0; k < 23; k++) {
        if (!model[k].live)
            continue;
        char name[16];
        snprintf(name, sizeof name, k ? "s%d" : "c", k);
        assert_int_equal(dracel_fleet_delete(f, name), DRACEL_OK);
        free(model[k].text);
        model[k] = (rslice){0};
    }
    assert_false(snapshot_as_full(f, env, whole, step++));
    assert_true(snapshot_as_full(f, env, whole, step++)); /* an empty one patched: still empty */
    dracel_fleet_free(f);

    /* Unnamed slices (keyed by file and line) of one pool that tie on everything the order looks
     * at: ordered by file, whatever the order they were loaded in, patched or built in full. */
    static const char UNNAMED_A[] =
        "{\"kind\":\"ResourceSlice\",\"apiVersion\":\"resource.k8s.io/v1\",\"spec\":{\"driver\":"
        "\"gpu.example.com\",\"pool\":{\"name\":\"u\",\"generation\":1,\"resourceSliceCount\":2},"
        "\"allNodes\":true,\"devices\":[{\"name\":\"d0\"},{\"name\":\"da\"}]}}";
    static const char UNNAMED_B[] =
        "{\"kind\":\"ResourceSlice\",\"apiVersion\":\"resource.k8s.io/v1\",\"spec\":{\"driver\":"
        "\"gpu.example.com\",\"pool\":{\"name\":\"u\",\"generation\":1,\"resourceSliceCount\":2},"
        "\"allNodes\":true,\"devices\":[{\"name\":\"d0\"},{\"name\":\"db\"}]}}";
    char *dumps[3];
    for (int k = 0; k < 3; k++) {
        assert_int_equal(dracel_fleet_new(NULL, &f), DRACEL_OK);
        const char *first = k == 1 ? UNNAMED_B : UNNAMED_A, *second = k == 1 ? UNNAMED_A : UNNAMED_B;
        assert_int_equal(dracel_fleet_load_buffer(f, first == UNNAMED_A ? "a.json" : "b.json", first,
                                                  strlen(first), err, sizeof err),
                         DRACEL_OK);
        if (k == 2) { /* the second one arrives after a snapshot: patched */
            dracel_table *s0;
            assert_int_equal(dracel_fleet_snapshot(f, &s0, err, sizeof err), DRACEL_OK);
            for (int n = 0; n < 8; n++) { /* other pools: rows enough to patch */
                char name[16], pool[16];
                snprintf(name, sizeof name, "o%d", n);
                snprintf(pool, sizeof pool, "o%d", n);
                const char *text = edge_slice(buf, sizeof buf, name, pool, 1, DEVICES);
                assert_int_equal(dracel_fleet_load_buffer(f, "o.json", text, strlen(text), err,
                                                          sizeof err),
                                 DRACEL_OK);
            }
            dracel_table_free(s0);
            assert_int_equal(dracel_fleet_snapshot(f, &s0, err, sizeof err), DRACEL_OK);
            dracel_table_free(s0);
        }
        assert_int_equal(dracel_fleet_load_buffer(f, second == UNNAMED_A ? "a.json" : "b.json",
                                                  second, strlen(second), err, sizeof err),
                         DRACEL_OK);
        dracel_table *u;
        assert_int_equal(dracel_fleet_snapshot(f, &u, err, sizeof err), DRACEL_OK);
        assert_int_equal(dc_api_table(u)->patched, k == 2);
        dumps[k] = dump(u);
        char *at = strstr(dumps[k], "gpu.example.com/u/da"), *bt = strstr(dumps[k], "gpu.example.com/u/db");
        assert_true(at && bt && at < bt);
        dracel_table_free(u);
        dracel_fleet_free(f);
    }
    assert_string_equal(dumps[0], dumps[1]);
    for (int k = 0; k < 3; k++)
        free(dumps[k]);
    dracel_program_free(whole);
    dracel_env_free(env);
}

/* ---------------------------------------------------------------------------------------------
 * Pools
 */

static const char *pool_node(const dracel_table *t, const char *driver, const char *pool)
{
    size_t i;
    assert_int_equal(dracel_table_pool_find(t, driver, pool, &i), DRACEL_OK);
    dracel_pool_info p;
    assert_int_equal(dracel_table_pool(t, i, &p), DRACEL_OK);
    return p.node;
}

static uint64_t pool_version(const dracel_table *t, const char *driver, const char *pool)
{
    size_t i;
    assert_int_equal(dracel_table_pool_find(t, driver, pool, &i), DRACEL_OK);
    dracel_pool_info p;
    assert_int_equal(dracel_table_pool(t, i, &p), DRACEL_OK);
    return p.version;
}

static const char RACK_2[] =
    "{\"kind\":\"ResourceSlice\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"name\":"
    "\"rack-2-nics\"},\"spec\":{\"driver\":\"nic.example.com\",\"pool\":{\"name\":\"rack-2\","
    "\"generation\":1,\"resourceSliceCount\":1},\"allNodes\":true,\"devices\":[{\"name\":"
    "\"nic-7\"}]}}";

static void test_pools(void **state)
{
    (void)state;
    dracel_table *t;
    assert_int_equal(dracel_table_load(NULL, DATA "basic.yaml", &t, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_table_pools(t), 4);
    assert_int_equal(dracel_table_pools(NULL), 0);
    /* In row order, each with its rows, as the rows say. */
    uint32_t next = 0;
    for (size_t i = 0; i < dracel_table_pools(t); i++) {
        dracel_pool_info p;
        assert_int_equal(dracel_table_pool(t, i, &p), DRACEL_OK);
        assert_int_equal(p.first_row, next);
        next += p.rows;
        for (uint32_t r = p.first_row; r < p.first_row + p.rows; r++) {
            dracel_device_info d;
            assert_int_equal(dracel_table_device(t, r, &d), DRACEL_OK);
            assert_string_equal(d.driver, p.driver);
            assert_string_equal(d.pool, p.name);
            assert_string_equal(d.pool_state, p.state);
        }
        assert_true(p.version != 0);
    }
    assert_int_equal(next, dracel_table_rows(t));
    dracel_pool_info p;
    assert_int_equal(dracel_table_pool(t, 1, &p), DRACEL_OK);
    assert_string_equal(p.driver, "gpu.example.com");
    assert_string_equal(p.name, "node-a");
    assert_int_equal(p.generation, 3);
    assert_string_equal(p.state, "complete");
    /* The node all slices name; none for a pool with per-device selection or a selector. */
    assert_string_equal(pool_node(t, "gpu.example.com", "node-a"), "node-a");
    assert_null(pool_node(t, "gpu.example.com", "node-a/partitions"));
    assert_null(pool_node(t, "nic.example.com", "rack-1"));
    size_t at = 99;
    assert_int_equal(dracel_table_pool_find(t, "gpu.example.com", "node-b", &at), DRACEL_EINPUT);
    assert_int_equal(dracel_table_pool_find(t, "zzz", "node-a", &at), DRACEL_EINPUT);
    assert_int_equal(at, 99);
    assert_int_equal(dracel_table_pool_find(t, NULL, "node-a", &at), DRACEL_EINVAL);
    assert_int_equal(dracel_table_pool(t, 4, &p), DRACEL_EINVAL);
    assert_int_equal(dracel_table_pool_size(t, 0, &p, sizeof p - 1), DRACEL_EINVAL);
    /* A newer caller's larger struct: what this library does not know reads as zero. */
    struct {
        dracel_pool_info p;
        uint64_t more;
    } big;
    memset(&big, 0xff, sizeof big);
    assert_int_equal(dracel_table_pool_size(t, 1, &big.p, sizeof big), DRACEL_OK);
    assert_int_equal(big.more, 0);
    assert_int_equal(big.p.rows, 2);

    /* Versions: a fleet of the same objects has the same ones (the hash reads strings, not
     * dictionary ids); a republished pool with the same contents keeps its version, whatever its
     * generation; a changed pool gets another; the others keep theirs, in a patched snapshot as
     * in a table built at once. */
    dracel_fleet *f;
    assert_int_equal(dracel_fleet_new(NULL, &f), DRACEL_OK);
    assert_int_equal(dracel_fleet_load_buffer(f, "rack-2.json", RACK_2, strlen(RACK_2), err,
                                              sizeof err),
                     DRACEL_OK); /* other strings first: other ids */
    assert_int_equal(dracel_fleet_load(f, DATA "basic.yaml", err, sizeof err), DRACEL_OK);
    dracel_table *s1;
    assert_int_equal(dracel_fleet_snapshot(f, &s1, err, sizeof err), DRACEL_OK);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(dracel_table_pool(t, i, &p), DRACEL_OK);
        assert_int_equal(pool_version(s1, p.driver, p.name), p.version);
    }
    uint64_t partitions = pool_version(s1, "gpu.example.com", "node-a/partitions");
    uint64_t rack1 = pool_version(s1, "nic.example.com", "rack-1");
    uint64_t node_a = pool_version(s1, "gpu.example.com", "node-a");
    uint64_t rack2 = pool_version(s1, "nic.example.com", "rack-2");
    char *again = strdup(RACK_2);
    memcpy(strstr(again, "\"generation\":1"), "\"generation\":7", 14);
    assert_int_equal(
        dracel_fleet_load_buffer(f, "again.json", again, strlen(again), err, sizeof err),
        DRACEL_OK);
    free(again);
    dracel_table *s2;
    assert_int_equal(dracel_fleet_snapshot(f, &s2, err, sizeof err), DRACEL_OK);
    assert_true(dc_api_table(s2)->patched);
    size_t i2;
    assert_int_equal(dracel_table_pool_find(s2, "nic.example.com", "rack-2", &i2), DRACEL_OK);
    assert_int_equal(dracel_table_pool(s2, i2, &p), DRACEL_OK);
    assert_int_equal(p.generation, 7);
    assert_int_equal(p.version, rack2);
    assert_int_equal(dracel_fleet_load_buffer(f, "update.yaml", NEW_GEN, strlen(NEW_GEN), err,
                                              sizeof err),
                     DRACEL_OK);
    dracel_table *s3;
    assert_int_equal(dracel_fleet_snapshot(f, &s3, err, sizeof err), DRACEL_OK);
    assert_true(dc_api_table(s3)->patched);
    assert_true(pool_version(s3, "gpu.example.com", "node-a") != node_a);
    assert_int_equal(pool_version(s3, "gpu.example.com", "node-a/partitions"), partitions);
    assert_int_equal(pool_version(s3, "nic.example.com", "rack-1"), rack1);
    assert_int_equal(pool_version(s3, "nic.example.com", "rack-2"), rack2);

    /* Usage hashes: by pool, 0 when none of its devices is in use, equal for equal sets (in
     * any order, in any table of the same pool), different for different sets. */
    const dracel_device_id a[] = {{"gpu.example.com", "node-a/partitions", "gpu-0-mig-1"},
                                  {"gpu.example.com", "node-a/partitions", "gpu-0-mig-2"},
                                  {"nic.example.com", "rack-2", "nic-7"}};
    const dracel_device_id b[] = {{"nic.example.com", "rack-2", "nic-7"},
                                  {"gpu.example.com", "node-a/partitions", "gpu-0-mig-2"},
                                  {"gpu.example.com", "node-a/partitions", "gpu-0-mig-1"},
                                  {"gpu.example.com", "nowhere", "x"}};
    const dracel_device_id c[] = {{"gpu.example.com", "node-a/partitions", "gpu-0-mig-1"}};
    dracel_usage *ua, *ub, *uc;
    assert_int_equal(dracel_usage_new(s3, a, 3, &ua), DRACEL_OK);
    assert_int_equal(dracel_usage_new(s1, b, 4, &ub), DRACEL_OK);
    assert_int_equal(dracel_usage_new(s3, c, 1, &uc), DRACEL_OK);
    size_t pa, pa1, pn;
    assert_int_equal(dracel_table_pool_find(s3, "gpu.example.com", "node-a/partitions", &pa),
                     DRACEL_OK);
    assert_int_equal(dracel_table_pool_find(s1, "gpu.example.com", "node-a/partitions", &pa1),
                     DRACEL_OK);
    assert_int_equal(dracel_table_pool_find(s3, "gpu.example.com", "node-a", &pn), DRACEL_OK);
    assert_true(dracel_usage_pool_hash(ua, pa) != 0);
    assert_int_equal(dracel_usage_pool_hash(ua, pa), dracel_usage_pool_hash(ub, pa1));
    assert_true(dracel_usage_pool_hash(uc, pa) != dracel_usage_pool_hash(ua, pa));
    assert_int_equal(dracel_usage_pool_hash(ua, pn), 0);
    assert_int_equal(dracel_usage_pool_hash(ua, 99), 0);
    assert_int_equal(dracel_usage_pool_hash(NULL, 0), 0);
    assert_int_equal(dracel_usage_pool_hash(ua, i2), dracel_usage_pool_hash(ub, i2));
    dracel_usage_free(ua);
    dracel_usage_free(ub);
    dracel_usage_free(uc);

    /* Node pools: what the node can see, in any label order. */
    const dracel_label zone_b[] = {{"topology.kubernetes.io/zone", "zone-b"},
                                   {"example.com/rack", "rack-1"},
                                   {"example.com/gpu", "yes"},
                                   {"example.com/cores", "16"}};
    dracel_node na = {"node-a", NULL, 0}, nb = {"node-b", zone_b, 4}, nc = {"node-c", NULL, 0};
    size_t out[8], pf, pr1, pr2;
    assert_int_equal(dracel_table_pool_find(s3, "fpga.example.com", "cluster", &pf), DRACEL_OK);
    assert_int_equal(dracel_table_pool_find(s3, "nic.example.com", "rack-1", &pr1), DRACEL_OK);
    assert_int_equal(dracel_table_pool_find(s3, "nic.example.com", "rack-2", &pr2), DRACEL_OK);
    /* node-a: the cluster and rack-2 (allNodes), its pool (nodeName), the partitions (per
     * device: one is on node-a); not rack-1 (a selector on labels it lacks) */
    assert_int_equal(dracel_table_node_pools(s3, &na, out, 8), 4);
    assert_int_equal(out[0], pf);
    assert_int_equal(out[1], pn);
    assert_int_equal(out[2], pa);
    assert_int_equal(out[3], pr2);
    /* node-b: the cluster, the partitions (one device on all nodes, one by zone), rack-1 (by
     * its labels, given unsorted) and rack-2 */
    assert_int_equal(dracel_table_node_pools(s3, &nb, out, 8), 4);
    assert_int_equal(out[0], pf);
    assert_int_equal(out[1], pa);
    assert_int_equal(out[2], pr1);
    assert_int_equal(out[3], pr2);
    assert_int_equal(dracel_table_node_pools(s3, &nb, out, 1), 4); /* the count, beyond cap */
    assert_int_equal(out[0], pf);
    assert_int_equal(dracel_table_node_pools(s3, &nb, NULL, 0), 4);
    nb.nlabels = 3; /* without the cores label, rack-1's selector does not match */
    assert_int_equal(dracel_table_node_pools(s3, &nb, out, 8), 3);
    assert_int_equal(dracel_table_node_pools(s3, &nc, out, 8), 3);
    assert_int_equal(dracel_table_node_pools(NULL, &nc, out, 8), 0);
    assert_int_equal(dracel_table_node_pools(s3, NULL, out, 8), 0);
    assert_int_equal(dracel_table_node_pools(s3, &nc, NULL, 8), 0);

    dracel_table_free(s1);
    dracel_table_free(s2);
    dracel_table_free(s3);
    dracel_fleet_free(f);
    dracel_table_free(t);
}

/* A slice of pool "shared" (generation GEN, NODE, device DEV), and one of pool "local". */
#define OLDER_SLICE(NAME, NODE, GEN, DEV)                                                     \
    "{\"kind\":\"ResourceSlice\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"name\":" \
    "\"" NAME "\"},\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":\"" NODE "\","       \
    "\"pool\":{\"name\":\"shared\",\"generation\":" GEN ",\"resourceSliceCount\":2},"         \
    "\"devices\":[{\"name\":\"" DEV "\"}]}}"

/* Older generations (vm/table.h): the allocator of a node that sees no newer slice reads them,
 * the library's view (rows, pools, selections, usages, versions) shows the newest only. */
static void test_older_generations(void **state)
{
    (void)state;
    static const char NEWEST[] =
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" OLDER_SLICE("c", "n2", "2", "gpu-0")
        "," OLDER_SLICE("d", "n2", "2", "gpu-1") ","
        "{\"kind\":\"ResourceSlice\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"name\":"
        "\"l\"},\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":\"n1\",\"pool\":{\"name\":"
        "\"local\",\"generation\":1,\"resourceSliceCount\":1},\"devices\":[{\"name\":\"gpu-9\"}]}}";
    static const char OLDER[] = "," OLDER_SLICE("a", "n1", "1", "gpu-0") ","
                                OLDER_SLICE("b", "n1", "1", "gpu-1") "]}";
    char both[4096], newest[4096];
    snprintf(both, sizeof both, "%s%s", NEWEST, OLDER);
    snprintf(newest, sizeof newest, "%s]}", NEWEST);
    dracel_table *t, *u;
    assert_int_equal(dracel_table_load_buffer(NULL, "all.json", both, strlen(both), &t, err,
                                              sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_table_load_buffer(NULL, "new.json", newest, strlen(newest), &u, err,
                                              sizeof err),
                     DRACEL_OK);
    /* the library's view: the newest generation of each pool */
    assert_int_equal(dracel_table_rows(t), 3);
    assert_int_equal(dracel_table_pools(t), 2);
    dracel_device_info d;
    assert_int_equal(dracel_table_device(t, 3, &d), DRACEL_EINVAL);
    dracel_pool_info p;
    assert_int_equal(dracel_table_pool(t, 2, &p), DRACEL_EINVAL);
    size_t shared, local;
    assert_int_equal(dracel_table_pool_find(t, "gpu.example.com", "shared", &shared), DRACEL_OK);
    assert_int_equal(dracel_table_pool_find(t, "gpu.example.com", "local", &local), DRACEL_OK);
    assert_int_equal(dracel_table_pool(t, shared, &p), DRACEL_OK);
    assert_int_equal(p.generation, 2);
    assert_string_equal(p.node, "n2");
    /* what a node may allocate of the pool changed: so did its version; the other's did not */
    assert_true(p.version != pool_version(u, "gpu.example.com", "shared"));
    assert_int_equal(pool_version(t, "gpu.example.com", "local"),
                     pool_version(u, "gpu.example.com", "local"));
    /* a selection shows the three rows only */
    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    dracel_program *prog;
    dracel_diags *dg = NULL;
    assert_int_equal(dracel_compile(env, "true", 4, 0, &prog, &dg), DRACEL_OK);
    dracel_diags_free(dg);
    dracel_bound *b;
    assert_int_equal(dracel_bind(prog, t, &b), DRACEL_OK);
    dracel_selection *sel;
    assert_int_equal(dracel_selection_new(NULL, &sel), DRACEL_OK);
    assert_int_equal(dracel_select(b, env, NULL, sel), DRACEL_OK);
    assert_int_equal(dracel_selection_matched(sel)[0], 7);
    /* n1 sees the older generation of shared (as its live pool) and local; n2 the newest */
    dracel_node n1 = {"n1", NULL, 0}, n2 = {"n2", NULL, 0};
    size_t pools[4];
    assert_int_equal(dracel_table_node_pools(t, &n1, pools, 4), 2);
    assert_true(pools[0] < pools[1]);
    assert_true((pools[0] == shared && pools[1] == local) ||
                (pools[0] == local && pools[1] == shared));
    assert_int_equal(dracel_table_node_pools(t, &n2, pools, 4), 1);
    assert_int_equal(pools[0], shared);
    /* a device in use is one device, in use in each generation */
    const dracel_device_id used[] = {{"gpu.example.com", "shared", "gpu-0"}};
    dracel_usage *us;
    assert_int_equal(dracel_usage_new(t, used, 1, &us), DRACEL_OK);
    assert_int_equal(dracel_usage_devices(us), 1);
    assert_int_equal(dracel_usage_count(us, dracel_selection_matched(sel), 1), 1);
    const uint64_t every = ~(uint64_t)0; /* bits past the rows count for nothing */
    assert_int_equal(dracel_usage_count(us, &every, 1), 1);
    assert_true(dracel_usage_pool_hash(us, shared) != 0);
    assert_int_equal(dracel_usage_pool_hash(us, local), 0);
    dracel_usage_free(us);
    dracel_selection_free(sel);
    dracel_bound_free(b);
    dracel_program_free(prog);
    dracel_env_free(env);
    dracel_table_free(u);
    dracel_table_free(t);
}

int main(void)
{
    if (to_sources() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fleet),
        cmocka_unit_test(test_fleet_failures),
        cmocka_unit_test(test_fleet_concurrent),
        cmocka_unit_test(test_fleet_random),
        cmocka_unit_test(test_fleet_edges),
        cmocka_unit_test(test_pools),
        cmocka_unit_test(test_older_generations),
        cmocka_unit_test(test_parallel_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
