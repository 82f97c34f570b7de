/*
 * test_interpose.c: allocation failures inside the libraries dracel uses (cJSON, libyaml, RE2),
 * which dracel's allocator hook does not reach. This program defines malloc, calloc, realloc
 * and free itself, so that every allocation of the process, the shared libraries' included,
 * goes through them (ELF symbol interposition; glibc's own functions are reached as
 * __libc_malloc and friends). While a test is "armed", the Nth allocation fails; every N is
 * tried until a run completes. Each failure must give a clean error (ENOMEM, or a rejection
 * that says "out of memory") and leave nothing allocated.
 *
 * cJSON's process-wide hooks are not used (the library keeps no global state). Under
 * AddressSanitizer, which interposes malloc itself, the tests skip.
 */
#define _GNU_SOURCE

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <execinfo.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "apiint.h"
#include "claims.h"
#include "dracel.h"
#include "slices.h"
#include "tablebuild.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

/* ---------------------------------------------------------------------------------------------
 * The interposed allocator
 */

#if !UNDER_SANITIZER
/* The build hides every symbol by default (-fvisibility=hidden): without "default" the
 * definitions below would serve this executable only, never the shared libraries. */
#define INTERPOSE __attribute__((visibility("default")))

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

/* Who called malloc: the object file the return address lies in. dracel is linked statically,
 * so its code is in this executable (with this test's, which allocates nothing while counting);
 * RE2 allocates with operator new, which is libstdc++'s. */
enum { BY_DRACEL, BY_CJSON, BY_YAML, BY_CXX, BY_LIBC, BY_OTHER, BY_N };
static const char *const BY_NAME[BY_N] = {"dracel", "cJSON", "libyaml", "RE2 (C++)", "libc",
                                          "other"};
typedef struct segment {
    uintptr_t lo, hi;
    int by;
} segment;
static segment segs[128];
static int nsegs;

static int by_of(uintptr_t ra)
{
    for (int i = 0; i < nsegs; i++)
        if (ra >= segs[i].lo && ra < segs[i].hi)
            return segs[i].by;
    return BY_OTHER;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    int by = !*name                                                ? BY_DRACEL
             : strstr(name, "libcjson")                            ? BY_CJSON
             : strstr(name, "libyaml")                             ? BY_YAML
             : strstr(name, "libstdc++") || strstr(name, "libre2") ? BY_CXX
             : strstr(name, "/libc.so")                            ? BY_LIBC
                                                                   : BY_OTHER;
    for (int i = 0; i < info->dlpi_phnum && nsegs < (int)(sizeof segs / sizeof segs[0]); i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
            segs[nsegs++] = (segment){info->dlpi_addr + ph->p_vaddr,
                                      info->dlpi_addr + ph->p_vaddr + ph->p_memsz, by};
    }
    return 0;
}

#define LIVE_CAP (1u << 18)
static bool armed, counting;
static long calls, fail_at;
static void *live[LIVE_CAP];    /* blocks allocated while armed (open addressing) */
static long nlive;
static long direct[BY_N];       /* while counting: allocations by each caller */

static size_t slot_of(void *p)
{
    return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) & (LIVE_CAP - 1);
}

static void track(void *p)
{
    if (!p)
        return;
    size_t i = slot_of(p);
    while (live[i] && live[i] != (void *)1)
        i = (i + 1) & (LIVE_CAP - 1);
    live[i] = p;
    nlive++;
}

static void untrack(void *p)
{
    if (!p || !nlive)
        return;
    size_t i = slot_of(p);
    while (live[i]) {
        if (live[i] == p) {
            live[i] = (void *)1; /* tombstone */
            nlive--;
            return;
        }
        i = (i + 1) & (LIVE_CAP - 1);
    }
}

/* A block the C library allocates for its caller (libyaml's strdup, dracel's opendir) is
 * charged to that caller: the first frame past the C library's. libc stands for what it
 * allocates on dracel's behalf. (backtrace ran once in main, so it allocates no more.) */
static int libc_caller(void)
{
    void *f[8];
    int k = backtrace(f, 8);
    bool in_libc = false;
    for (int i = 0; i < k; i++) {
        int by = by_of((uintptr_t)f[i]);
        if (by == BY_LIBC)
            in_libc = true;
        else if (in_libc)
            return by == BY_DRACEL ? BY_LIBC : by;
    }
    return BY_LIBC;
}

/* Count the caller (while counting); fail the armed call. Allocations by operator new (RE2's,
 * and the shim's own objects) are never failed: RE2 assumes that allocation succeeds, and one
 * failed allocation inside RE2::Init crashed the process (a segmentation fault in RE2, not a
 * std::bad_alloc the shim could catch; docs/api.md, "Allocation"). */
static bool fail_now(uintptr_t ra, int *by)
{
    *by = armed || counting ? by_of(ra) : BY_OTHER;
    if (counting) {
        if (*by == BY_LIBC) {
            counting = false;
            *by = libc_caller();
            counting = true;
        }
        direct[*by]++;
    }
    return armed && *by != BY_CXX && ++calls == fail_at;
}

INTERPOSE void *malloc(size_t n)
{
    int by;
    if (fail_now((uintptr_t)__builtin_return_address(0), &by))
        return NULL;
    void *p = __libc_malloc(n);
    if (armed)
        track(p);
    return p;
}

INTERPOSE void *calloc(size_t n, size_t m)
{
    int by;
    if (fail_now((uintptr_t)__builtin_return_address(0), &by))
        return NULL;
    void *p = __libc_calloc(n, m);
    if (armed)
        track(p);
    return p;
}

INTERPOSE void *realloc(void *p, size_t n)
{
    int by;
    if (fail_now((uintptr_t)__builtin_return_address(0), &by))
        return NULL;
    bool was = armed && p;
    void *q = __libc_realloc(p, n);
    if (q && was)
        untrack(p);
    if (q && armed)
        track(q);
    return q;
}

INTERPOSE void free(void *p)
{
    untrack(p);
    __libc_free(p);
}

/* at 0: a run that neither fails nor tracks, so that what the libraries allocate once and keep
 * (RE2's and libstdc++'s lazily built statics) is there before the sweep starts. */
static void arm(long at)
{
    memset(live, 0, sizeof live);
    nlive = 0;
    calls = 0;
    fail_at = at;
    armed = at > 0;
}

/* Returns whether the armed run got past its failure point (all allocations succeeded). */
static bool disarm(void)
{
    bool was = armed;
    armed = false;
    return was && calls < fail_at;
}
#endif

/* ---------------------------------------------------------------------------------------------
 * Tests
 */

__attribute__((unused)) static char err[2048];

__attribute__((unused)) static const char SLICES_JSON[] =
    "{\"kind\":\"List\",\"items\":[{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\","
    "\"metadata\":{\"name\":\"s1\"},\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":\"n1\","
    "\"pool\":{\"name\":\"n1\",\"generation\":1,\"resourceSliceCount\":1},\"devices\":["
    "{\"name\":\"gpu-0\",\"attributes\":{\"model\":{\"string\":\"H100\"},\"big\":{\"int\":9007199254740993}},"
    "\"capacity\":{\"memory\":{\"value\":\"80Gi\"}}},"
    "{\"name\":\"gpu-1\",\"attributes\":{\"model\":{\"string\":\"A100\"},\"fw\":{\"version\":\"1.2.3\"}}}]}}]}";

__attribute__((unused)) static const char SLICES_YAML[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceSlice\n"
    "metadata: {name: s2}\n"
    "spec:\n"
    "  driver: gpu.example.com\n"
    "  nodeName: n2\n"
    "  pool: {name: n2, generation: 1, resourceSliceCount: 1}\n"
    "  devices:\n"
    "  - name: gpu-0\n"
    "    attributes: {model: {string: L4}, numa: {int: 1}}\n"
    "    taints: [{key: k, value: v, effect: NoSchedule}]\n";

static void test_loaders(void **state)
{
    (void)state;
#if UNDER_SANITIZER
    skip();
#else
    long failures = 0;
    for (long at = 0;; at++) {
        dc_slice_set s;
        dc_slice_set_init(&s, NULL);
        dc_table *t = NULL;
        arm(at);
        dracel_status st = dc_slices_load_buffer(&s, "a.json", SLICES_JSON, strlen(SLICES_JSON),
                                                 NULL, err, sizeof err);
        if (st == DRACEL_OK)
            st = dc_slices_load_buffer(&s, "b.yaml", SLICES_YAML, strlen(SLICES_YAML), NULL, err,
                                       sizeof err);
        if (st == DRACEL_OK)
            st = dc_table_build(&s, NULL, NULL, &t, err, sizeof err);
        if (st == DRACEL_OK)
            assert_int_equal(t->rows, 3);
        dc_table_free(t);
        dc_slice_set_free(&s);
        bool done = disarm();
        if (nlive)
            fail_msg("allocation %ld: %ld blocks left allocated", at, nlive);
        if (done) {
            assert_int_equal(st, DRACEL_OK);
            break;
        }
        if (st == DRACEL_OK)
            continue; /* a failure the code recovered from */
        if (st != DRACEL_ENOMEM && !strstr(err, "out of memory"))
            fail_msg("allocation %ld: status %d: %s", at, st, err);
        failures++;
    }
    print_message("      %ld failures in cJSON, libyaml and the loader, each clean\n", failures);
    assert_true(failures > 20);
#endif
}

static void test_regex(void **state)
{
    (void)state;
#if UNDER_SANITIZER
    skip();
#else
    static const char expr[] = "device.attributes[\"gpu.example.com\"].model.matches(\"^(H|A)1[0-9]+$\")"
                               " && \"x\".matches(\"[a-z]+\")";
    static const char dev[] = "{\"driver\":\"gpu.example.com\",\"name\":\"g\",\"attributes\":"
                              "{\"model\":{\"string\":\"H100\"}}}";
    long failures = 0;
    for (long at = 0;; at++) {
        dracel_env *env = NULL;
        dracel_program *p = NULL;
        dracel_diags *d = NULL;
        dracel_result *r = NULL;
        int value = -2;
        arm(at);
        err[0] = 0;
        dracel_status st = dracel_env_new(NULL, DRACEL_ENV_DRA, &env);
        if (st == DRACEL_OK)
            st = dracel_env_device_json(env, dev, strlen(dev), err, sizeof err);
        if (st == DRACEL_OK)
            st = dracel_compile(env, expr, strlen(expr), 0, &p, &d);
        if (st == DRACEL_OK)
            st = dracel_eval(p, env, &r);
        if (st == DRACEL_OK) {
            value = dracel_result_bool(r);
            if (value < 0 && dracel_result_error(r) && strstr(dracel_result_error(r), "memory"))
                st = DRACEL_ENOMEM; /* an evaluation that ran out of memory says so */
        }
        dracel_result_free(r);
        dracel_program_free(p);
        dracel_diags_free(d);
        dracel_env_free(env);
        bool done = disarm();
        if (nlive)
            fail_msg("allocation %ld: %ld blocks left allocated", at, nlive);
        if (done) {
            assert_int_equal(st, DRACEL_OK);
            assert_int_equal(value, 1);
            break;
        }
        if (st == DRACEL_OK) {
            assert_int_equal(value, 1);
            continue;
        }
        if (st != DRACEL_ENOMEM)
            fail_msg("allocation %ld: status %d: %s", at, st, err);
        failures++;
    }
    print_message("      %ld failures in compile and evaluation with RE2, each clean\n", failures);
    assert_true(failures > 10);
#endif
}

__attribute__((unused)) static const char SCENARIO[] =
    "features: [PrioritizedList, DeviceTaints]\n"
    "node: {name: n1, labels: {zone: a}}\n"
    "classes:\n"
    "- metadata: {name: gpu}\n"
    "  spec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n"
    "slices:\n"
    "- metadata: {name: s1}\n"
    "  spec:\n"
    "    driver: gpu.example.com\n"
    "    nodeName: n1\n"
    "    pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"
    "    devices:\n"
    "    - {name: gpu-0, attributes: {model: {string: A100}}}\n"
    "    - {name: gpu-1, attributes: {model: {string: H100}}, taints: [{key: k, effect: NoSchedule}]}\n"
    "    - {name: gpu-2, attributes: {model: {string: H100}}}\n"
    "claims:\n"
    "- metadata: {name: c}\n"
    "  spec:\n"
    "    devices:\n"
    "      requests:\n"
    "      - name: gpu\n"
    "        firstAvailable:\n"
    "        - {name: h100, deviceClassName: gpu, selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model.matches(\"^H\")'}}]}\n"
    "        - {name: any, deviceClassName: gpu}\n";

static void test_allocate(void **state)
{
    (void)state;
#if UNDER_SANITIZER
    skip();
#else
    long failures = 0;
    for (long at = 0;; at++) {
        dracel_scenario *sc = NULL;
        dracel_policy *p = NULL;
        dracel_run *r = NULL;
        bool ok = false;
        arm(at);
        dracel_status st = dracel_scenario_load_buffer(NULL, "s.yaml", SCENARIO, strlen(SCENARIO),
                                                       &sc, err, sizeof err);
        const dracel_objects *o = dracel_scenario_objects(sc);
        if (st == DRACEL_OK)
            st = dracel_policy_new(NULL, dracel_scenario_table(sc), o, o, NULL, 0, &p, err,
                                   sizeof err);
        if (st == DRACEL_OK)
            st = dracel_run_new(p, &r);
        dracel_allocate_opts ao;
        dracel_allocate_opts_init(&ao);
        ao.features = dracel_scenario_features(sc);
        ao.timeout_ms = 0;
        ao.explain = true;
        ao.in_use = dracel_scenario_usage(sc);
        dracel_node node;
        dracel_scenario_node(sc, &node);
        if (st == DRACEL_OK)
            st = dracel_allocate(r, &node, &ao);
        if (st == DRACEL_OK) {
            char *text = dracel_run_text(r);
            if (!text)
                st = DRACEL_ENOMEM;
            else
                ok = strncmp(text, "allocated\nc gpu/h100 gpu.example.com/n1/gpu-2\n", 46) == 0;
            dracel_free_string(NULL, text);
        }
        dracel_run_free(r);
        dracel_policy_free(p);
        dracel_scenario_free(sc);
        bool done = disarm();
        if (nlive)
            fail_msg("allocation %ld: %ld blocks left allocated", at, nlive);
        if (done) {
            assert_int_equal(st, DRACEL_OK);
            assert_true(ok);
            break;
        }
        if (st == DRACEL_OK) {
            assert_true(ok);
            continue;
        }
        if (st != DRACEL_ENOMEM && !strstr(err, "out of memory"))
            fail_msg("allocation %ld: status %d: %s", at, st, err);
        failures++;
    }
    print_message("      %ld failures on the allocate path (libyaml, RE2, dracel), each clean\n",
                  failures);
    assert_true(failures > 20);
#endif
}

/* ---------------------------------------------------------------------------------------------
 * Who allocates: through the hook, or directly (docs/api.md, "Allocation")
 */

#if !UNDER_SANITIZER
/* The hook: counts its calls, allocates with the C library's own functions (not counted as
 * direct). */
static long hooked;

static void *h_malloc(void *ctx, size_t n)
{
    (void)ctx;
    hooked++;
    return __libc_malloc(n ? n : 1);
}

static void *h_realloc(void *ctx, void *p, size_t old, size_t n)
{
    (void)ctx;
    (void)old;
    hooked++;
    return __libc_realloc(p, n ? n : 1);
}

static void h_free(void *ctx, void *p, size_t n)
{
    (void)ctx;
    (void)n;
    __libc_free(p);
}

static const dracel_alloc hook = {h_malloc, h_realloc, h_free, NULL};

typedef struct tally {
    long hooked, direct[BY_N];
} tally;

/* Run fn once to warm up (lazy initialisation in the C library and the dependencies), then
 * once more counting, and print the counts. */
static tally measure(const char *what, void (*fn)(const dracel_config *cfg))
{
    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.alloc = &hook;
    fn(&cfg);
    memset(direct, 0, sizeof direct);
    hooked = 0;
    counting = true;
    fn(&cfg);
    counting = false;
    tally t;
    t.hooked = hooked;
    memcpy(t.direct, direct, sizeof direct);
    char line[256];
    int k = snprintf(line, sizeof line, "      %s: %ld through the hook; direct:", what, t.hooked);
    for (int i = 0; i < BY_N && k > 0 && (size_t)k < sizeof line; i++)
        k += snprintf(line + k, sizeof line - (size_t)k, " %s %ld%s", BY_NAME[i], t.direct[i],
                      i + 1 < BY_N ? "," : "");
    print_message("%s\n", line);
    return t;
}

static void load_fleet(const dracel_config *cfg)
{
    dracel_table *t = NULL;
    assert_int_equal(dracel_table_load(cfg, TOP_SRCDIR "/examples/fleet", &t, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_table_rows(t), 12);
    dracel_table_free(t);
}

/* A selector with a regex literal (compiled by RE2 at compile time) and 240 nested
 * parentheses (Bison's stack grows past its first 200 entries). */
static char deep_src[1024];

static void compile_selector(const dracel_config *cfg)
{
    if (!deep_src[0]) {
        size_t k = 0;
        k += (size_t)snprintf(deep_src, sizeof deep_src,
                              "device.attributes[\"gpu.example.com\"].model.matches(\"^H1\") && ");
        for (int i = 0; i < 240; i++)
            deep_src[k++] = '(';
        deep_src[k++] = '1';
        for (int i = 0; i < 240; i++)
            deep_src[k++] = ')';
        memcpy(deep_src + k, " == 1", 6);
    }
    dracel_env *env;
    dracel_program *p;
    dracel_diags *d;
    assert_int_equal(dracel_env_new(cfg, DRACEL_ENV_DRA, &env), DRACEL_OK);
    assert_int_equal(dracel_compile(env, deep_src, strlen(deep_src), 0, &p, &d), DRACEL_OK);
    dracel_diags_free(d);
    dracel_program_free(p);
    dracel_env_free(env);
}

static const char DEVICE[] = "{\"driver\":\"gpu.example.com\",\"name\":\"gpu-0\",\"attributes\":{"
                             "\"model\":{\"string\":\"H100\"},\"numa\":{\"int\":1}},"
                             "\"capacity\":{\"memory\":{\"value\":\"80Gi\"}}}";

static void bind_values(const dracel_config *cfg)
{
    dracel_env *env;
    assert_int_equal(dracel_env_new(cfg, DRACEL_ENV_DRA, &env), DRACEL_OK);
    assert_int_equal(dracel_env_device_json(env, DEVICE, strlen(DEVICE), err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_env_bind_json(env, "p", "{\"string\":\"^H[0-9]+$\"}", 22, err,
                                          sizeof err),
                     DRACEL_OK);
    dracel_env_free(env);
}

/* An evaluation that compiles a regex at run time (the pattern is a variable). */
static void evaluate(const dracel_config *cfg)
{
    static const char src[] = "device.attributes[\"gpu.example.com\"].model.matches(p) && "
                              "device.capacity[\"gpu.example.com\"].memory.isGreaterThan("
                              "quantity(\"1Gi\"))";
    static dracel_env *env;
    static dracel_program *p;
    if (!env) { /* set up once, outside the counts */
        bool was = counting;
        counting = false;
        dracel_diags *d;
        assert_int_equal(dracel_env_new(cfg, DRACEL_ENV_DRA, &env), DRACEL_OK);
        assert_int_equal(dracel_env_device_json(env, DEVICE, strlen(DEVICE), err, sizeof err),
                         DRACEL_OK);
        assert_int_equal(dracel_env_bind_json(env, "p", "{\"string\":\"^H[0-9]+$\"}", 22, err,
                                              sizeof err),
                         DRACEL_OK);
        assert_int_equal(dracel_compile(env, src, sizeof src - 1, 0, &p, &d), DRACEL_OK);
        dracel_diags_free(d);
        counting = was;
    }
    if (!cfg) {
        dracel_program_free(p);
        dracel_env_free(env);
        env = NULL;
        return;
    }
    dracel_result *r;
    assert_int_equal(dracel_eval(p, env, &r), DRACEL_OK);
    assert_int_equal(dracel_result_bool(r), 1);
    dracel_result_free(r);
}
#endif

static void test_who_allocates(void **state)
{
    (void)state;
#if UNDER_SANITIZER
    skip();
#else
    tally load = measure("table load of examples/fleet", load_fleet);
    tally comp = measure("compile (regex literal, 240 parentheses)", compile_selector);
    tally bind = measure("bind a device and a typed value", bind_values);
    tally eval = measure("evaluation (a regex compiled at run time)", evaluate);
    evaluate(NULL);
    /* The library's own code allocates only through the hook; the C library allocates for it
     * only the DIR of opendir (one directory read). */
    assert_int_equal(load.direct[BY_DRACEL], 0);
    assert_int_equal(comp.direct[BY_DRACEL], 0);
    assert_int_equal(bind.direct[BY_DRACEL], 0);
    assert_int_equal(eval.direct[BY_DRACEL], 0);
    assert_int_equal(load.direct[BY_LIBC], 1);
    assert_int_equal(comp.direct[BY_LIBC] + bind.direct[BY_LIBC] + eval.direct[BY_LIBC], 0);
    /* Nothing unaccounted for. */
    assert_int_equal(load.direct[BY_OTHER] + comp.direct[BY_OTHER] + bind.direct[BY_OTHER] +
                         eval.direct[BY_OTHER],
                     0);
    assert_true(load.hooked > 0 && comp.hooked > 0 && bind.hooked > 0 && eval.hooked > 0);
#endif
}

int main(void)
{
#if UNDER_SANITIZER
    /* cmocka reports a skipped test as "not ok # SKIP", which automake counts as a failure: the
     * whole program skips in TAP's own words instead. */
    printf("1..0 # SKIP the sanitizer interposes malloc itself\n");
    return 0;
#endif
#if !UNDER_SANITIZER
    dl_iterate_phdr(add_object, NULL);
    void *frames[4];
    backtrace(frames, 4); /* its first call loads the unwinder (and allocates) */
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loaders),
        cmocka_unit_test(test_regex),
        cmocka_unit_test(test_allocate),
        cmocka_unit_test(test_who_allocates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
