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
#include <unistd.h>

#include "apiint.h"
#include "common.h"
#include "failalloc.h"
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

int main(void)
{
    const char *top = getenv("top_srcdir");
    if (top && chdir(top) != 0) {
        fprintf(stderr, "cannot change to %s\n", top);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fleet),
        cmocka_unit_test(test_fleet_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
