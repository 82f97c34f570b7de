/*
 * test_fleet.c: fleets kept up to date slice by slice (src/fleet.c, dracel_fleet_*): a snapshot
 * equals the table built from the same slices at once; a replaced slice (a new generation of a
 * pool, as a watch delivers it) and a deleted one show in the next snapshot and never in an
 * earlier one; snapshots share the dictionary and outlive the fleet; failed allocations leave
 * the fleet as it was.
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

#include "apiint.h"
#include "common.h"
#include "testutil.h"
#include "dracel.h"
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

/* Allocation failures: every one is ENOMEM, leaves the fleet as it was, and leaks nothing. */
static void test_fleet_failures(void **state)
{
    (void)state;
    long failures = 0;
    for (long at = 1;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
        dracel_config cfg;
        dracel_config_init(&cfg);
        cfg.alloc = &a;
        dracel_fleet *f = NULL;
        dracel_table *s = NULL, *s2 = NULL;
        dracel_status st = dracel_fleet_new(&cfg, &f);
        if (st == DRACEL_OK)
            st = dracel_fleet_load(f, DATA "basic.yaml", err, sizeof err);
        if (st == DRACEL_OK)
            st = dracel_fleet_snapshot(f, &s, err, sizeof err);
        size_t before = f ? dracel_fleet_slices(f) : 0;
        if (st == DRACEL_OK) {
            st = dracel_fleet_load_buffer(f, "u.yaml", NEW_GEN, strlen(NEW_GEN), err, sizeof err);
            if (st != DRACEL_OK)
                assert_int_equal(dracel_fleet_slices(f), before);
        }
        if (st == DRACEL_OK)
            st = dracel_fleet_snapshot(f, &s2, err, sizeof err);
        if (st == DRACEL_OK)
            assert_int_equal(dracel_table_rows(s2), dracel_table_rows(s) - 1);
        dracel_fleet_free(f);
        dracel_table_free(s);
        dracel_table_free(s2);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.live_bytes, 0);
        if (st == DRACEL_OK) {
            assert_true(fa.calls < at);
            break;
        }
        if (st != DRACEL_ENOMEM)
            fail_msg("allocation %ld: status %d: %s", at, st, err);
        failures++;
    }
    print_message("      %ld allocation failures injected, each ENOMEM without a leak\n", failures);
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

int main(void)
{
    if (to_sources() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fleet),
        cmocka_unit_test(test_fleet_failures),
        cmocka_unit_test(test_fleet_concurrent),
        cmocka_unit_test(test_parallel_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
