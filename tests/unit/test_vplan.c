/*
 * test_vplan.c: the vector VM's fused kernels (vm/vplan_build.c, vm/vplan_run.c) against
 * the scalar VM.
 *
 * A designed fleet (strings with few and with many distinct values, int64 values at every
 * edge the SSE2 comparison must get right, bools, versions with one that does not parse,
 * quantities, a column of two kinds, absent values everywhere) at 5, 64 and 130 devices (a
 * partial word, one full word, two and a tail). Each selector must (or must not) get fused
 * kernels, and the scalar VM, the batch interpreter, the vector VM with values and the vector
 * VM without values (its other path for error rows) must give the same value, bitmaps and
 * error message on every row, with every version of the word kernels the CPU runs (portable,
 * SSE2, AVX2, AVX-512: vm/kernels.h), which are also compared with the portable ones directly
 * on random lanes and every int64 edge. Then allocation failures at every step of binding and
 * running.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiint.h"
#include "dracel.h"
#include "kernels.h"
#include "testutil.h"

#define A "device.attributes[\"d.example.com\"]"
#define C "device.capacity[\"d.example.com\"]"

static const int64_t EDGES[] = {INT64_MIN, INT64_MIN + 1, -4294967297LL, -4294967296LL,
                                -2147483649LL, -2147483648LL, -1, 0, 1, 2147483647LL,
                                2147483648LL, 4294967295LL, 4294967296LL, INT64_MAX - 1,
                                INT64_MAX};
#define NEDGES (sizeof EDGES / sizeof EDGES[0])

/* The fleet: n devices in ResourceSlices of up to 50 (Kubernetes allows 128), of two drivers. */
static char *fleet(unsigned n)
{
    static const char *const strs[] = {"a", "b", "c", "d", "e", "f"};
    static const char *const vers[] = {"1.0.0", "1.2.3", "2.0.0-rc.1", "0.9.9+build"};
    static const char *const qtys[] = {"1Gi", "16Gi", "80Gi", "94Gi", "500m"};
    size_t cap = 1024 + (size_t)n * 1024, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
#define PUT(...) (len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__))
    unsigned per = 50, nslices = (n + per - 1) / per;
    PUT("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (unsigned i = 0; i < n; i++) {
        if (i % per == 0) {
            /* Even slices: driver d.example.com (pool p); odd ones: e.example.com (pool q),
             * whose devices' attributes are in its own domain. */
            unsigned k = i / per, odd = k % 2;
            PUT("%s{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\","
                "\"metadata\":{\"name\":\"s%u\"},\"spec\":{\"driver\":\"%s\","
                "\"allNodes\":true,\"pool\":{\"name\":\"%s\",\"generation\":1,"
                "\"resourceSliceCount\":%u},\"devices\":[",
                i ? "]}}," : "", k, odd ? "e.example.com" : "d.example.com", odd ? "q" : "p",
                odd ? nslices / 2 : (nslices + 1) / 2);
        }
        PUT("%s{\"name\":\"dev-%u\",%s\"attributes\":{", i % per ? "," : "", i,
            i % 4 == 1 ? "\"allowMultipleAllocations\":true," : "");
        PUT("\"many\":{\"string\":\"v%u\"}", i);
        if (i % 7 != 3)
            PUT(",\"s\":{\"string\":\"%s\"}", strs[i % 6]);
        if (i % 13 != 4)
            PUT(",\"i64\":{\"int\":%" PRId64 "}", EDGES[i % NEDGES]);
        if (i % 5 != 2)
            PUT(",\"flag\":{\"bool\":%s}", i % 3 == 0 ? "true" : "false");
        if (i % 37 == 20)
            PUT(",\"ver\":{\"version\":\"not-a-version\"}");
        else if (i % 9 != 1)
            PUT(",\"ver\":{\"version\":\"%s\"}", vers[i % 4]);
        if (i % 10 == 0)
            PUT(",\"mixed\":{\"int\":5}");
        else
            PUT(",\"mixed\":{\"string\":\"x\"}");
        PUT("},\"capacity\":{");
        if (i % 8 != 6)
            PUT("\"mem\":{\"value\":\"%s\"}", qtys[i % 5]);
        PUT("}}");
    }
    PUT("%s]}", n ? "]}}" : "");
#undef PUT
    assert_true(len < cap);
    return buf;
}

typedef struct selector {
    const char *src;
    bool fused;     /* expected to get fused kernels */
    unsigned flags; /* DRACEL_COMPILE_* */
} selector;

static const selector SELECTORS[] = {
    /* Id equality and sets. */
    {A ".s == \"a\"", true, 0},
    {A ".s != \"b\"", true, 0},
    {"\"c\" == " A ".s", true, 0},
    {A ".s == \"no device has this\"", true, 0},
    {A ".s != \"no device has this\"", true, 0},
    {A ".s in [\"a\", \"c\", \"no device has this\"]", true, 0},
    {A ".s in []", true, 0},
    {A ".many == \"v3\"", true, 0},
    {A ".i64 in [0, -1, 9223372036854775807, 4294967296]", true, 0},
    {A ".i64 in [] || " A ".flag", true, 0},
    {A ".i64 in [1, 2.0]", false, DRACEL_COMPILE_NO_CHECK},
    /* Bools, has(), constants, a column no device has. */
    {A ".flag", true, 0},
    {"!" A ".flag", true, 0},
    {A ".flag == true", true, 0},
    {"has(" A ".s) && " A ".s.startsWith(\"a\")", true, 0},
    {"!has(" A ".ver)", true, 0},
    {"true && " A ".s == \"a\"", true, 0},
    {A ".nosuch == \"x\"", true, 0},
    {"has(" A ".nosuch) || " A ".flag", true, 0},
    {A ".nosuch == \"x\" || " A ".flag", true, 0},
    /* Memos: as id sets (few true, few false), gathered (many distinct values, lazily). */
    {A ".s.startsWith(\"a\")", true, 0},
    {A ".s.matches(\"^[a-e]$\")", true, 0},
    {A ".s.matches(\"^[a-c]$\")", true, 0},
    {A ".many.startsWith(\"v1\")", true, 0},
    {A ".many.endsWith(\"7\") || " A ".many.size() > 3", true, 0},
    {A ".?s.orValue(\"none\") == \"none\"", true, 0},
    {A ".s + \"x\" == \"ax\"", true, 0},
    {A ".s.matches(" A ".s)", true, 0},
    {A ".ver.isGreaterThan(semver(\"1.0.0\"))", true, 0},
    {A ".ver.compareTo(semver(\"1.2.3\")) >= 0", true, 0},
    {C ".mem.compareTo(quantity(\"16Gi\")) >= 0", true, 0},
    {C ".mem.isLessThan(quantity(\"1Gi\"))", true, 0},
    /* Memos whose answers are errors or not bools. */
    {"int(" A ".s) == 0", true, DRACEL_COMPILE_NO_CHECK},
    {A ".s", true, DRACEL_COMPILE_NO_CHECK},
    {A ".s", true, DRACEL_COMPILE_NO_CHECK | DRACEL_COMPILE_ANY_RESULT},
    {A ".s && " A ".flag", true, DRACEL_COMPILE_NO_CHECK},
    {A ".flag && " A ".s", true, DRACEL_COMPILE_NO_CHECK},
    {A ".s || " A ".nosuch", true, DRACEL_COMPILE_NO_CHECK},
    {"!" A ".s", true, DRACEL_COMPILE_NO_CHECK},
    /* Logic over several columns: absorption, and which error wins. */
    {A ".s == \"a\" && " A ".i64 > 0", true, 0},
    {A ".i64 > 0 && " A ".s == \"a\"", true, 0},
    {A ".s == \"a\" || " A ".flag", true, 0},
    {"!(" A ".s == \"a\" || " A ".i64 == 0) && " C ".mem.compareTo(quantity(\"80Gi\")) < 0", true, 0},
    {"(" A ".s == \"a\" || " A ".many == \"v3\") && (" A ".flag || " A ".i64 < 0)", true, 0},
    {A ".ver.isLessThan(semver(\"2.0.0\")) && " A ".s.startsWith(\"b\") || !" A ".flag", true, 0},
    /* Not fused: the batch interpreter runs them. */
    {A ".mixed == \"x\"", false, 0},
    {A ".flag ? " A ".s == \"a\" : " A ".i64 > 0", false, 0},
    {A ".s == " A ".many", false, 0},
    {A ".i64 + 1 > 0", false, 0},
    {A ".s.size() > 0 && " A ".i64 / 0 == 1", false, 0},
    {"device.attributes[\"d.example.com\"].exists(k, k == \"s\")", false, 0},
    /* device.driver and allowMultipleAllocations read as columns when `device` has no other use. */
    {"device.driver == \"d.example.com\"", true, 0},
    {"device.driver != \"e.example.com\" && " A ".s == \"a\"", true, 0},
    {"device.driver.startsWith(\"e.\") || " A ".flag", true, 0},
    {"device.driver in [\"x.example.com\", \"e.example.com\"]", true, 0},
    {"int(device.driver) == 0 || " A ".flag", true, DRACEL_COMPILE_NO_CHECK},
    {"device.allowMultipleAllocations", true, 0},
    {"!device.allowMultipleAllocations || " A ".i64 > 0", true, 0},
    {"device.driver == \"d.example.com\" && device.allowMultipleAllocations == " A ".flag", false, 0},
    {"device.driver == \"d.example.com\" ? " A ".flag : true", false, 0},
    {"device.driver == \"d.example.com\" && size(device.attributes) > 0", false, 0},
};

/* Every run's view of row r, as one string: the value (JSON) with values, else the bitmaps
 * and the error message. */
static char *row_view(const dracel_selection *sel, uint32_t r, bool values)
{
    if (values)
        return dracel_selection_value_json(sel, r);
    bool m = (dracel_selection_matched(sel)[r / 64] >> (r % 64)) & 1;
    bool e = (dracel_selection_errored(sel)[r / 64] >> (r % 64)) & 1;
    const char *msg = dracel_selection_error(sel, r);
    char buf[600];
    snprintf(buf, sizeof buf, "matched %d errored %d %s", m, e, msg ? msg : "-");
    return strdup(buf);
}

/* Select with every evaluator; all must agree with the scalar VM. */
static void check_runs(const dracel_bound *bnd, const dracel_env *env, uint32_t rows,
                       const char *src)
{
    dracel_selection *sel;
    assert_int_equal(dracel_selection_new(NULL, &sel), DRACEL_OK);
    for (int values = 1; values >= 0; values--) {
        char **want = calloc(rows + 1, sizeof *want);
        assert_non_null(want);
        static const unsigned vms[] = {DRACEL_VM_SCALAR, DRACEL_VM_BATCHED, DRACEL_VM_VECTOR};
        for (size_t k = 0; k < 3; k++) {
            dracel_select_opts o = {sizeof(dracel_select_opts), vms[k], k == 1 ? 63 : 0, values != 0};
            assert_int_equal(dracel_select(bnd, env, &o, sel), DRACEL_OK);
            for (uint32_t r = 0; r < rows; r++) {
                char *v = row_view(sel, r, values);
                assert_non_null(v);
                if (k == 0) {
                    want[r] = v;
                    continue;
                }
                if (strcmp(v, want[r]) != 0)
                    fail_msg("%.100s (%zu bytes): row %u, %s %s values: %s, the scalar VM: %s", src, strlen(src), r,
                             k == 1 ? "batch interpreter" : "vector VM", values ? "with" : "without",
                             v, want[r]);
                free(v);
            }
        }
        for (uint32_t r = 0; r < rows; r++)
            free(want[r]);
        free(want);
    }
    dracel_selection_free(sel);
}

/* The designed fleet of n devices as a table. */
static dracel_table *load_fleet(unsigned n)
{
    char *text = fleet(n), err[512];
    dracel_table *t;
    if (dracel_table_load_buffer(NULL, "fleet", text, strlen(text), &t, err, sizeof err) != DRACEL_OK)
        fail_msg("fleet: %s", err);
    free(text);
    return t;
}

/* Compile src, bind it to t, check whether it got fused kernels (fused: 1 yes, 0 no, -1 either)
 * and that every evaluator agrees on every row. */
static void check_selector(const dracel_env *env, const dracel_table *t, const char *src,
                           unsigned flags, int fused)
{
    dracel_program *p;
    dracel_diags *d;
    if (dracel_compile(env, src, strlen(src), flags, &p, &d) != DRACEL_OK) {
        char *msg = dracel_diags_render(d, "selector");
        fail_msg("%.100s does not compile: %s", src, msg ? msg : "");
    }
    dracel_diags_free(d);
    dracel_bound *b;
    assert_int_equal(dracel_bind(p, t, &b), DRACEL_OK);
    if (fused >= 0 && (dc_api_bound(b)->plan != NULL) != (fused != 0))
        fail_msg("%.100s: fused kernels %s", src, fused ? "expected" : "not expected");
    check_runs(b, env, dracel_table_rows(t), src);
    dracel_bound_free(b);
    dracel_program_free(p);
}

/* The first choice of kernels made by threads at once (dra-extender's workers, each with its
 * first selection): the same list and the same kernels for all, and, under ThreadSanitizer, no
 * write shared between them. First in main: later tests have chosen already. */
enum { NCHOOSERS = 4 };
static pthread_barrier_t choosers;

static void *choose_kernels(void *out)
{
    pthread_barrier_wait(&choosers);
    const dc_kernels *const *all = dc_kn_all();
    ((const void **)out)[0] = all;
    ((const void **)out)[1] = dc_kn();
    return NULL;
}

static void test_kernels_chosen_at_once(void **state)
{
    (void)state;
    pthread_t th[NCHOOSERS];
    const void *got[NCHOOSERS][2];
    assert_int_equal(pthread_barrier_init(&choosers, NULL, NCHOOSERS), 0);
    for (int i = 0; i < NCHOOSERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, choose_kernels, got[i]), 0);
    for (int i = 0; i < NCHOOSERS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    pthread_barrier_destroy(&choosers);
    for (int i = 0; i < NCHOOSERS; i++) {
        assert_ptr_equal(got[i][0], dc_kn_all());
        assert_ptr_equal(got[i][1], dc_kn());
    }
    assert_string_equal(dc_kn_all()[0]->name, "portable");
}

static void test_selectors(void **state)
{
    (void)state;
    static const unsigned sizes[] = {5, 64, 130, 1100};
    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    const dc_kernels *was = dc_kn();
    for (const dc_kernels *const *k = dc_kn_all(); *k; k++) {
        dc_kn_use(*k);
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            dracel_table *t = load_fleet(sizes[z]);
            for (size_t i = 0; i < sizeof SELECTORS / sizeof SELECTORS[0]; i++)
                check_selector(env, t, SELECTORS[i].src, SELECTORS[i].flags, SELECTORS[i].fused);
            dracel_table_free(t);
        }
    }
    dc_kn_use(was);
    dracel_env_free(env);
}

/* Every kernel version against the portable one: random ids with a few values (so that
 * equality hits), every int64 edge against every edge and random values, at lane counts that
 * cut words everywhere; bits past the last lane must be zero. */
static void test_kernel_versions(void **state)
{
    (void)state;
    static const uint32_t counts[] = {1, 2, 63, 64, 65, 127, 128, 129, 1000, 1024, 1025};
    enum { N = 1025, W = (N + 63) / 64 };
    uint32_t ids[N];
    int64_t xs[N];
    uint64_t seed = 88172645463325252ULL;
    for (uint32_t l = 0; l < N; l++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        ids[l] = (uint32_t)(seed % 9);
        xs[l] = seed % 3 ? EDGES[seed % NEDGES] : (int64_t)seed;
    }
    const dc_kernels *const *all = dc_kn_all();
    const dc_kernels *ref = all[0];
    assert_string_equal(ref->name, "portable");
    for (const dc_kernels *const *k = all; *k; k++) {
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            uint32_t n = counts[c];
            uint64_t want[W + 1], got[W + 1];
            for (uint32_t nw = 1; nw <= DC_KN_MAX_SET; nw++) {
                const uint32_t set[DC_KN_MAX_SET] = {3, 0, 8, 5, 1, 7, 2, 6};
                memset(want, 0xAA, sizeof want);
                memset(got, 0x55, sizeof got);
                ref->eq_ids(ids, n, set, nw, want);
                (*k)->eq_ids(ids, n, set, nw, got);
                if (memcmp(want, got, DC_BITS_WORDS(n) * 8) != 0 ||
                    (n % 64 && got[n / 64] >> (n % 64)))
                    fail_msg("%s eq_ids: %u lanes, %u ids", (*k)->name, n, nw);
            }
            for (dc_op op = DC_OP_EQ; op <= DC_OP_GE; op++)
                for (size_t e = 0; e < NEDGES + 1; e++) {
                    int64_t cst = e < NEDGES ? EDGES[e] : xs[7];
                    memset(want, 0xAA, sizeof want);
                    memset(got, 0x55, sizeof got);
                    ref->cmp_i64(xs, n, op, cst, want);
                    (*k)->cmp_i64(xs, n, op, cst, got);
                    if (memcmp(want, got, DC_BITS_WORDS(n) * 8) != 0 ||
                        (n % 64 && got[n / 64] >> (n % 64)))
                        fail_msg("%s cmp_i64 %s %" PRId64 ": %u lanes", (*k)->name,
                                 dc_op_info[op].name, cst, n);
                }
            /* The portable reference itself, lane by lane. */
            ref->cmp_i64(xs, n, DC_OP_LE, -1, got);
            for (uint32_t l = 0; l < n; l++)
                assert_int_equal((got[l / 64] >> (l % 64)) & 1, xs[l] <= -1);
        }
        uint8_t bytes[64];
        for (int l = 0; l < 64; l++)
            bytes[l] = (uint8_t)(l * 37 + 11);
        for (int shift = 0; shift < 3; shift++)
            assert_int_equal((*k)->byte_bits(bytes, shift), ref->byte_bits(bytes, shift));
    }
}

/* Every int64 comparison against every edge constant, both operand orders. */
static void test_int_edges(void **state)
{
    (void)state;
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    dracel_table *t = load_fleet(130);
    const dc_kernels *was = dc_kn();
    for (const dc_kernels *const *kn = dc_kn_all(); *kn; kn++) {
        dc_kn_use(*kn);
        for (size_t k = 0; k < NEDGES; k++)
            for (size_t o = 0; o < 6; o++)
                for (int swap = 0; swap < 2; swap++) {
                    char src[256], num[32];
                    /* INT64_MIN has no literal in CEL: write it as an expression cel-go folds. */
                    if (EDGES[k] == INT64_MIN)
                        snprintf(num, sizeof num, "(-9223372036854775807 - 1)");
                    else
                        snprintf(num, sizeof num, "%" PRId64, EDGES[k]);
                    if (swap)
                        snprintf(src, sizeof src, "%s %s " A ".i64", num, ops[o]);
                    else
                        snprintf(src, sizeof src, A ".i64 %s %s", ops[o], num);
                    check_selector(env, t, src, 0, 1);
                }
    }
    dc_kn_use(was);
    dracel_table_free(t);
    dracel_env_free(env);
}

/* The evaluation memory limit is per row on the scalar VM. The vector VM computes memos once for
 * many rows and runs lanes of a batch in one arena: a run whose memos or batches come near the
 * limit is redone row by row, so that every row gets the scalar VM's answer, whether its own
 * evaluation stays under the limit or not. */
static void test_memory_limit(void **state)
{
    (void)state;
    char pad[9001];
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.eval_memory_limit = 8192;
    cfg.cost_limit = 0; /* else the cost bound of these long strings sends them row by row */
    dracel_env *env;
    assert_int_equal(dracel_env_new(&cfg, DRACEL_ENV_DRA, &env), DRACEL_OK);
    dracel_table *t = load_fleet(130);
    static const size_t pads[] = {10, 100, 1500, 6000, 9000};
    /* Two columns: the batch interpreter, string concatenation lane by lane; one column: a
     * fused memo. Each is written around the padding string. */
    static const char *const before[] = {A ".s + \"", "(" A ".s + \""};
    static const char *const after[] = {"\" + " A ".many == \"x\"", "\").size() > 20 && " A ".flag"};
    static const int fused[2] = {0, 1};
    for (size_t f = 0; f < 2; f++)
        for (size_t k = 0; k < sizeof pads / sizeof pads[0]; k++) {
            memset(pad, 'p', pads[k]);
            pad[pads[k]] = '\0';
            char src[10240];
            snprintf(src, sizeof src, "%s%s%s", before[f], pad, after[f]);
            check_selector(env, t, src, 0, fused[f]);
        }
    dracel_table_free(t);
    dracel_env_free(env);
}

/* A selection keeps its bitmaps, error list and scratch memory across runs: reused over tables
 * of other sizes and programs of other shapes, it must answer as a fresh one does. */
static void test_selection_reuse(void **state)
{
    (void)state;
    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    dracel_table *big = load_fleet(130), *small = load_fleet(5);
    static const char *const srcs[] = {A ".s == \"a\" && " A ".i64 > 0",
                                       A ".many.startsWith(\"v1\") || " A ".flag"};
    dracel_selection *kept;
    assert_int_equal(dracel_selection_new(NULL, &kept), DRACEL_OK);
    static const unsigned order[] = {0, 1, 0, 1, 1, 0};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        const dracel_table *t = order[k] ? small : big;
        const char *src = srcs[k % 2];
        dracel_program *p;
        dracel_diags *d;
        assert_int_equal(dracel_compile(env, src, strlen(src), 0, &p, &d), DRACEL_OK);
        dracel_diags_free(d);
        dracel_bound *b;
        dracel_selection *fresh;
        assert_int_equal(dracel_bind(p, t, &b), DRACEL_OK);
        assert_int_equal(dracel_selection_new(NULL, &fresh), DRACEL_OK);
        for (unsigned vm = 0; vm < 3; vm++) {
            dracel_select_opts o = {sizeof(dracel_select_opts), vm, 0, false};
            assert_int_equal(dracel_select(b, env, &o, kept), DRACEL_OK);
            assert_int_equal(dracel_select(b, env, &o, fresh), DRACEL_OK);
            uint32_t rows = dracel_table_rows(t);
            assert_memory_equal(dracel_selection_matched(kept), dracel_selection_matched(fresh),
                                (rows + 63) / 64 * 8);
            assert_memory_equal(dracel_selection_errored(kept), dracel_selection_errored(fresh),
                                (rows + 63) / 64 * 8);
            for (uint32_t r = 0; r < rows; r++)
                same_str(dracel_selection_error(kept, r), dracel_selection_error(fresh, r));
        }
        dracel_selection_free(fresh);
        dracel_bound_free(b);
        dracel_program_free(p);
    }
    dracel_selection_free(kept);
    dracel_table_free(big);
    dracel_table_free(small);
    dracel_env_free(env);
}

/* Allocation failures at every step from the environment to the selection (binding builds
 * the plan, running fills its memos): ENOMEM, nothing leaked, and once it runs the same
 * bitmaps and errors as with the C library's allocator. */
static void test_alloc_failures(void **state)
{
    (void)state;
    static const char *const srcs[] = {
        A ".s.matches(\"^[a-c]$\") && " A ".i64 > 0 || !" A ".flag",
        A ".many.startsWith(\"v1\") && " C ".mem.compareTo(quantity(\"16Gi\")) >= 0",
        A ".nosuch == \"x\" || " A ".s == \"a\""};
    dracel_env *env;
    assert_int_equal(dracel_env_new(NULL, DRACEL_ENV_DRA, &env), DRACEL_OK);
    dracel_table *t = load_fleet(130);
    uint32_t rows = dracel_table_rows(t), words = (rows + 63) / 64;
    for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
        dracel_program *p;
        dracel_diags *d;
        assert_int_equal(dracel_compile(env, srcs[i], strlen(srcs[i]), 0, &p, &d), DRACEL_OK);
        dracel_diags_free(d);
        dracel_bound *b;
        dracel_selection *ref;
        assert_int_equal(dracel_bind(p, t, &b), DRACEL_OK);
        assert_non_null(dc_api_bound(b)->plan);
        assert_int_equal(dracel_selection_new(NULL, &ref), DRACEL_OK);
        assert_int_equal(dracel_select(b, env, NULL, ref), DRACEL_OK);
        bool ok = false;
        for (long at = 1; !ok && at < 100000; at++) {
            /* Everything from the environment on with the failing allocator. */
            fail_alloc fa = {0, at, 0, 0};
            dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
            dracel_config cfg;
            dracel_config_init(&cfg);
            cfg.alloc = &a;
            dracel_env *fenv = NULL;
            dracel_program *fp = NULL;
            dracel_diags *fd = NULL;
            dracel_bound *fb = NULL;
            dracel_selection *sel = NULL;
            dracel_status st = dracel_env_new(&cfg, DRACEL_ENV_DRA, &fenv);
            if (st == DRACEL_OK)
                st = dracel_compile(fenv, srcs[i], strlen(srcs[i]), 0, &fp, &fd);
            if (st == DRACEL_OK)
                st = dracel_bind(fp, t, &fb);
            if (st == DRACEL_OK)
                st = dracel_selection_new(&cfg, &sel);
            if (st == DRACEL_OK)
                st = dracel_select(fb, fenv, NULL, sel);
            if (st == DRACEL_OK) {
                assert_non_null(dc_api_bound(fb)->plan);
                ok = memcmp(dracel_selection_matched(sel), dracel_selection_matched(ref), words * 8) == 0 &&
                     memcmp(dracel_selection_errored(sel), dracel_selection_errored(ref), words * 8) == 0;
                assert_true(ok);
                for (uint32_t r = 0; r < rows; r++)
                    same_str(dracel_selection_error(sel, r), dracel_selection_error(ref, r));
            } else {
                assert_int_equal(st, DRACEL_ENOMEM);
            }
            dracel_selection_free(sel);
            dracel_bound_free(fb);
            dracel_diags_free(fd);
            dracel_program_free(fp);
            dracel_env_free(fenv);
            assert_int_equal(fa.live_blocks, 0);
        }
        assert_true(ok);
        dracel_selection_free(ref);
        dracel_bound_free(b);
        dracel_program_free(p);
    }
    dracel_table_free(t);
    dracel_env_free(env);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_chosen_at_once),
        cmocka_unit_test(test_selectors),
        cmocka_unit_test(test_kernel_versions),
        cmocka_unit_test(test_int_edges),
        cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_selection_reuse),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
