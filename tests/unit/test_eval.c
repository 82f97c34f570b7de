/*
 * test_eval.c: properties of compile and evaluate through the public API that case files cannot
 * show: no heap allocation per evaluation once a result is warm; every allocation failure in
 * environment set-up, compilation and evaluation gives a clean status or error value with no
 * leak; one program evaluated by several threads at once gives the same answers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dracel.h"

static const char *const device =
    "{\"driver\": \"gpu.example.com\", \"name\": \"gpu-0\", \"attributes\": {"
    "\"model\": {\"string\": \"H100\"}, \"numaNode\": {\"int\": 0}, \"healthy\": {\"bool\": true},"
    "\"driverVersion\": {\"string\": \"550.54.15\"}, \"firmware\": {\"version\": \"2.1.0\"}},"
    "\"capacity\": {\"memory\": {\"value\": \"80Gi\"}}}";

static const char *const selectors[] = {
    "device.attributes[\"gpu.example.com\"].model == \"H100\"",
    "device.attributes[\"gpu.example.com\"].model in [\"H100\", \"A100\"] && "
    "device.attributes[\"gpu.example.com\"].numaNode == 0",
    "device.attributes[\"gpu.example.com\"].model == \"H100\" && "
    "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"80Gi\")) >= 0",
    "device.attributes[\"gpu.example.com\"].model.startsWith(\"H\") && "
    "device.attributes[\"gpu.example.com\"].healthy && "
    "device.attributes[\"gpu.example.com\"].driverVersion.matches(\"^5[3-9][0-9]\\\\.\")",
    "device.attributes[\"gpu.example.com\"].firmware.isGreaterThan(semver(\"2.0.0\")) && "
    "[1, 2, 3].exists(x, x == device.attributes[\"gpu.example.com\"].numaNode + 1)",
};

/* An allocator that counts, and fails its Nth call (Lua's failnext). */
typedef struct counting {
    long fail_at;
    long calls;
    long live;
    size_t bytes;
} counting;

static void *c_malloc(void *ctx, size_t n)
{
    counting *c = ctx;
    if (c->calls++ == c->fail_at)
        return NULL;
    void *p = malloc(n ? n : 1);
    if (p) {
        c->live++;
        c->bytes += n;
    }
    return p;
}

static void *c_realloc(void *ctx, void *p, size_t old, size_t n)
{
    counting *c = ctx;
    if (c->calls++ == c->fail_at)
        return NULL;
    void *q = realloc(p, n ? n : 1);
    if (q)
        c->bytes = c->bytes - old + n;
    return q;
}

static void c_free(void *ctx, void *p, size_t n)
{
    counting *c = ctx;
    if (p) {
        c->live--;
        c->bytes -= n;
    }
    free(p);
}

static void test_no_allocation_per_evaluation(void **state)
{
    (void)state;
    counting cnt = {-1, 0, 0, 0};
    dracel_alloc a = {c_malloc, c_realloc, c_free, &cnt};
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.alloc = &a;
    dracel_env *env;
    char err[256];
    assert_int_equal(dracel_env_new(&cfg, DRACEL_ENV_DRA, &env), DRACEL_OK);
    assert_int_equal(dracel_env_device_json(env, device, strlen(device), err, sizeof err), DRACEL_OK);
    dracel_result *r;
    assert_int_equal(dracel_result_new(&cfg, &r), DRACEL_OK);
    for (size_t i = 0; i < sizeof selectors / sizeof selectors[0]; i++) {
        dracel_program *p;
        dracel_diags *d;
        assert_int_equal(dracel_compile(env, selectors[i], strlen(selectors[i]), 0, &p, &d), DRACEL_OK);
        dracel_diags_free(d);
        assert_int_equal(dracel_eval_into(p, env, r), DRACEL_OK); /* warm */
        assert_int_equal(dracel_result_bool(r), 1);
        long before = cnt.calls;
        for (int k = 0; k < 1000; k++)
            assert_int_equal(dracel_eval_into(p, env, r), DRACEL_OK);
        if (cnt.calls != before)
            fail_msg("selector %zu: %ld allocations in 1000 evaluations", i, cnt.calls - before);
        assert_int_equal(dracel_result_bool(r), 1);
        dracel_program_free(p);
    }
    dracel_result_free(r);
    dracel_env_free(env);
    assert_int_equal(cnt.live, 0);
    assert_int_equal(cnt.bytes, 0);
}

/* Run the whole pipeline with allocation k failing; returns false once k is past the end. */
static bool run_with_failure(long k, const char *expr, bool dra)
{
    counting cnt = {k, 0, 0, 0};
    dracel_alloc a = {c_malloc, c_realloc, c_free, &cnt};
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.alloc = &a;
    dracel_env *env = NULL;
    char err[256];
    dracel_status st = dracel_env_new(&cfg, dra ? DRACEL_ENV_DRA : DRACEL_ENV_PLAIN, &env);
    if (st == DRACEL_OK && dra)
        st = dracel_env_device_json(env, device, strlen(device), err, sizeof err);
    if (st == DRACEL_OK && !dra)
        st = dracel_env_bind_json(env, "x", "{\"list\":[{\"int\":\"1\"},{\"int\":\"2\"}]}", 34, err, sizeof err);
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    if (st == DRACEL_OK)
        st = dracel_compile(env, expr, strlen(expr), 0, &p, &d);
    dracel_result *r = NULL;
    if (st == DRACEL_OK)
        st = dracel_eval(p, env, &r);
    if (st == DRACEL_OK) {
        /* Out of memory inside the evaluation is an error value, never a crash. */
        const char *e = dracel_result_error(r);
        if (e)
            assert_string_equal(e, "out of memory");
        char *json = dracel_result_json(r);
        dracel_free_string(&cfg, json);
    } else if (st != DRACEL_ENOMEM) {
        fail_msg("failing allocation %ld of '%s': status %d, not ENOMEM: %s", k, expr, (int)st, err);
    }
    dracel_result_free(r);
    dracel_program_free(p);
    dracel_diags_free(d);
    dracel_env_free(env);
    if (cnt.live != 0 || cnt.bytes != 0)
        fail_msg("failing allocation %ld of '%s': %ld blocks (%zu bytes) leaked", k, expr,
                 cnt.live, cnt.bytes);
    return cnt.calls > k;
}

static void test_allocation_failure_sweep(void **state)
{
    (void)state;
    const char *plain[] = {
        "x.map(v, v * 2).filter(v, v > 2) + [3] == [4, 3] && {'a': x}.a.size() == 2",
        "'abc'.upperAscii().split('B').join('-') + string(1.5)",
        "[1, 2, 3].transformMap(i, v, v * 10)[1] + optional.of(1).orValue(2)",
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        for (long k = 0; run_with_failure(k, plain[i], false); k++)
            ;
    /* A program over 256 instructions: the verifier's memory comes from the configured
     * allocator too (it used the default one, and a failure there was EINPUT). */
    char big[4096];
    size_t n = 0;
    n += (size_t)snprintf(big + n, sizeof big - n, "[x[0]");
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, ", x[%d] + %d", i % 2, i);
    snprintf(big + n, sizeof big - n, "].size() == 301");
    for (long k = 0; run_with_failure(k, big, false); k++)
        ;
    for (size_t i = 0; i < sizeof selectors / sizeof selectors[0]; i++)
        for (long k = 0; run_with_failure(k, selectors[i], true); k++)
            ;
}

typedef struct shared {
    const dracel_program *p;
    const dracel_env *env;
    int trues;
} shared;

static void *worker(void *arg)
{
    shared *s = arg;
    dracel_result *r;
    if (dracel_result_new(NULL, &r) != DRACEL_OK)
        return NULL;
    for (int i = 0; i < 20000; i++)
        if (dracel_eval_into(s->p, s->env, r) == DRACEL_OK && dracel_result_bool(r) == 1)
            s->trues++;
    dracel_result_free(r);
    return NULL;
}

static void test_threads_share_a_program(void **state)
{
    (void)state;
    dracel_env *env;
    char err[256];
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    assert_int_equal(dracel_env_device_json(env, device, strlen(device), err, sizeof err), DRACEL_OK);
    dracel_program *p;
    dracel_diags *d;
    const char *sel = selectors[3]; /* uses the regex cache of each thread's context */
    assert_int_equal(dracel_compile(env, sel, strlen(sel), 0, &p, &d), DRACEL_OK);
    dracel_diags_free(d);
    enum { N = 4 };
    pthread_t t[N];
    shared s[N];
    for (int i = 0; i < N; i++) {
        s[i] = (shared){p, env, 0};
        assert_int_equal(pthread_create(&t[i], NULL, worker, &s[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(s[i].trues, 20000);
    }
    dracel_program_free(p);
    dracel_env_free(env);
}

static void test_cost_limit(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.cost_limit = 1000;
    dracel_env *env;
    assert_int_equal(dracel_env_new(&cfg, DRACEL_ENV_PLAIN, &env), DRACEL_OK);
    char err[128];
    assert_int_equal(dracel_env_bind_json(env, "n", "{\"int\":\"100\"}", 13, err, sizeof err), DRACEL_OK);
    /* A comprehension over a list built at run time: 100 x 100 iterations. */
    const char *src = "lists.range(n).all(i, lists.range(n).all(j, i + j >= 0))";
    dracel_program *p;
    dracel_diags *d;
    assert_int_equal(dracel_compile(env, src, strlen(src), 0, &p, &d), DRACEL_OK);
    dracel_diags_free(d);
    dracel_result *r;
    assert_int_equal(dracel_eval(p, env, &r), DRACEL_OK);
    assert_string_equal(dracel_result_error(r), "operation cancelled: actual cost limit exceeded");
    dracel_result_free(r);
    dracel_program_free(p);
    dracel_env_free(env);
}

/* Every release function takes NULL and does nothing (docs/api.md, "Lifetimes"). */
static void test_free_null(void **state)
{
    (void)state;
    dracel_config cfg;
    dracel_config_init(&cfg);
    dracel_free_string(&cfg, NULL);
    dracel_free_string(NULL, NULL);
    dracel_diags_free(NULL);
    dracel_env_free(NULL);
    dracel_program_free(NULL);
    dracel_result_free(NULL);
    dracel_table_free(NULL);
    dracel_fleet_free(NULL);
    dracel_bound_free(NULL);
    dracel_selection_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_null),
        cmocka_unit_test(test_no_allocation_per_evaluation),
        cmocka_unit_test(test_allocation_failure_sweep),
        cmocka_unit_test(test_threads_share_a_program),
        cmocka_unit_test(test_cost_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
