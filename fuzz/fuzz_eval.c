/*
 * fuzz_eval: libFuzzer harness for the checker, the compiler and both VMs. The input is a byte
 * (bit 0: the environment, DRA or plain CEL; bit 1: unchecked, any result type) and an
 * expression, compiled in that environment and run over a small built-in fleet on the scalar
 * VM, on the vector VM's batch interpreter at several batch sizes, and on the vector VM as
 * users call it (fused kernels when the program has them) with and without values; any
 * difference in any row's value (bitmaps and error message) is a crash. Plain CEL programs run
 * the same way over the fleet's rows.
 * Both environments declare three host functions (called through libffi), so that the VMs'
 * calls of them are compared too: fz.triple(int) (pure, with an overflow error), s.shout()
 * (pure, a string result), fz.tick(string) (impure: never memoised; deterministic all the
 * same, so that every VM must agree), and an overload of the library's size for ints.
 * A checked input is also compiled with the static cost estimate (dra-celc check), which must
 * accept what the compile accepts, but for a DRA selector over the cost limit, said so.
 * Limits are the defaults; the seeds fuzz/corpus/eval/limit-* nest each macro (and a DRA
 * selector, and an unchecked map) exactly as deep as the depth limit (250) allows, and one
 * level past it, and inputs up to 2 KiB past the source length limit are tried (fuzz/smoke.sh's
 * -max_len), so that every walk of the checker, the cost estimator and the compiler runs at
 * the deepest the limits allow.
 * Built with --enable-fuzzing.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dracel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fleet[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
    "{\"spec\":{\"driver\":\"gpu.example.com\",\"nodeName\":\"n1\","
    "\"pool\":{\"name\":\"n1\",\"generation\":1,\"resourceSliceCount\":1},\"devices\":["
    "{\"name\":\"g0\",\"attributes\":{\"model\":{\"string\":\"H100\"},\"numa\":{\"int\":0},"
    "\"ok\":{\"bool\":true},\"fw\":{\"version\":\"2.1.0\"},\"x.example.com/v\":{\"int\":9007199254740993}},"
    "\"capacity\":{\"memory\":{\"value\":\"80Gi\"}}},"
    "{\"name\":\"g1\",\"attributes\":{\"model\":{\"string\":\"A100\"},\"numa\":{\"bool\":true},"
    "\"fw\":{\"version\":\"1.0.0-rc.1\"}},\"capacity\":{\"memory\":{\"value\":\"40Gi\"}}},"
    "{\"name\":\"g2\",\"attributes\":{\"model\":{\"int\":7}}},"
    "{\"name\":\"g3\",\"attributes\":{\"fw\":{\"version\":\"v1\"}}},"
    "{\"name\":\"g4\"}]}}]}";

static dracel_table *table;
static dracel_env *envs[2];

static int64_t fz_triple(dracel_host_ctx *x, int64_t v)
{
    if (v > INT64_MAX / 3 || v < INT64_MIN / 3) {
        dracel_host_error(x, "fz.triple: integer overflow");
        return 0;
    }
    return v * 3;
}

static void fz_shout(dracel_host_ctx *x, const char *s, size_t n)
{
    char buf[256];
    if (n > sizeof buf) {
        dracel_host_error(x, "shout: too long");
        return;
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 32) : s[i];
    dracel_host_return_string(x, buf, n);
}

static int64_t fz_tick(dracel_host_ctx *x, const char *s, size_t n)
{
    (void)x;
    uint64_t h = 0; /* unsigned: it wraps (a signed hash overflowed on a 13-byte string) */
    for (size_t i = 0; i < n; i++)
        h = h * 31 + (unsigned char)s[i];
    return (int64_t)(h & 0xFFFF);
}

static int64_t fz_digits(dracel_host_ctx *x, int64_t v)
{
    (void)x;
    int64_t n = 1;
    while (v / 10) {
        v /= 10;
        n++;
    }
    return n;
}

static void declare_hosts(dracel_env *env)
{
    static const struct {
        const char *name, *id;
        bool member;
        unsigned flags;
        dracel_type param, result;
        dracel_host_fn fn;
    } fns[] = {
        {"fz.triple", "fz_triple_int", false, DRACEL_FUNCTION_PURE, DRACEL_TYPE_INT, DRACEL_TYPE_INT,
         DRACEL_HOST_FN(fz_triple)},
        {"shout", "string_shout", true, DRACEL_FUNCTION_PURE, DRACEL_TYPE_STRING, DRACEL_TYPE_STRING,
         DRACEL_HOST_FN(fz_shout)},
        {"fz.tick", "fz_tick_string", false, 0, DRACEL_TYPE_STRING, DRACEL_TYPE_INT, DRACEL_HOST_FN(fz_tick)},
        {"size", "fz_size_int", false, DRACEL_FUNCTION_PURE, DRACEL_TYPE_INT, DRACEL_TYPE_INT,
         DRACEL_HOST_FN(fz_digits)},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        dracel_function f;
        dracel_function_init(&f);
        f.name = fns[i].name;
        f.overload_id = fns[i].id;
        f.member = fns[i].member;
        f.nparams = 1;
        f.params[0] = fns[i].param;
        f.result = fns[i].result;
        f.fn = fns[i].fn;
        f.flags = fns[i].flags;
        f.cost = 3;
        f.size_cost_factor = 0.25;
        if (dracel_env_add_function(env, &f, NULL, 0) != DRACEL_OK)
            abort();
    }
}

/* Compile and run on every engine; @return the compile's status. */
static dracel_status run(dracel_env *env, const char *src, size_t n, unsigned flags)
{
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    dracel_status cst = dracel_compile(env, src, n, flags, &p, &d);
    if (cst == DRACEL_OK) {
        dracel_bound *b = NULL;
        dracel_selection *ref = NULL, *sel = NULL;
        if (dracel_bind(p, table, &b) == DRACEL_OK && dracel_selection_new(NULL, &ref) == DRACEL_OK &&
            dracel_selection_new(NULL, &sel) == DRACEL_OK) {
            dracel_select_opts o = {sizeof(dracel_select_opts), DRACEL_VM_SCALAR, 0, true};
            if (dracel_select(b, env, &o, ref) == DRACEL_OK) {
                /* The batch interpreter at several batch sizes, then the vector VM as users
                 * call it (fused kernels when the program has them), with and without values. */
                static const dracel_select_opts runs[] = {
#define O sizeof(dracel_select_opts)
                    {O, DRACEL_VM_BATCHED, 1, true}, {O, DRACEL_VM_BATCHED, 2, true},
                    {O, DRACEL_VM_BATCHED, 3, true}, {O, DRACEL_VM_BATCHED, 64, true},
                    {O, DRACEL_VM_VECTOR, 0, true},  {O, DRACEL_VM_VECTOR, 0, false}};
#undef O
                for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
                    dracel_select_opts v = runs[k];
                    if (dracel_select(b, env, &v, sel) != DRACEL_OK)
                        continue;
                    for (uint32_t r = 0; r < dracel_table_rows(table); r++) {
                        if (!v.keep_values) {
                            const uint64_t *m1 = dracel_selection_matched(ref), *m2 = dracel_selection_matched(sel);
                            const uint64_t *e1 = dracel_selection_errored(ref), *e2 = dracel_selection_errored(sel);
                            const char *x = dracel_selection_error(ref, r), *y = dracel_selection_error(sel, r);
                            if (((m1[r / 64] ^ m2[r / 64]) >> (r % 64) & 1) || ((e1[r / 64] ^ e2[r / 64]) >> (r % 64) & 1) ||
                                (x && (!y || strcmp(x, y) != 0)) || (!x && y)) {
                                fprintf(stderr, "VMs disagree on row %u without values: scalar %s, vector %s\n",
                                        r, x ? x : "-", y ? y : "-");
                                abort();
                            }
                            continue;
                        }
                        char *x = dracel_selection_value_json(ref, r), *y = dracel_selection_value_json(sel, r);
                        if (x && y && strcmp(x, y) != 0) {
                            fprintf(stderr, "VMs disagree on row %u, %s batch %u: scalar %s, vector %s\n",
                                    r, v.vm == DRACEL_VM_BATCHED ? "batch interpreter" : "vector VM",
                                    v.batch, x, y);
                            abort();
                        }
                        dracel_free_string(NULL, x);
                        dracel_free_string(NULL, y);
                    }
                }
            }
        }
        dracel_selection_free(ref);
        dracel_selection_free(sel);
        dracel_bound_free(b);
    }
    dracel_program_free(p);
    dracel_diags_free(d);
    return cst;
}

/* The static cost estimate (what `dra-celc check` adds): a checked program compiles with it as
 * without it (@p without), but that in the DRA environment an estimate over the cost limit is
 * a rejection (DRACEL_ELIMIT) that says so; an accepted estimate is a range. */
static void estimate(dracel_env *env, bool dra, const char *src, size_t n, dracel_status without)
{
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    dracel_status st = dracel_compile(env, src, n, DRACEL_COMPILE_ESTIMATE_COST, &p, &d);
    if (st == DRACEL_OK) {
        uint64_t lo = 0, hi = 0;
        dracel_program_cost(p, &lo, &hi);
        if (without != DRACEL_OK || lo > hi) {
            fprintf(stderr, "estimate: accepted (%llu..%llu), without it %s\n",
                    (unsigned long long)lo, (unsigned long long)hi, dracel_status_string(without));
            abort();
        }
    } else if ((st == DRACEL_EINPUT || st == DRACEL_ELIMIT) && without == DRACEL_OK) {
        char *text = dracel_diags_render(d, "<input>");
        if (st != DRACEL_ELIMIT || !dra || !text || !strstr(text, "estimated cost")) {
            fprintf(stderr, "estimate: rejected, not for its cost:\n%s\n", text ? text : "");
            abort();
        }
        dracel_free_string(NULL, text);
    } else if (st != without && st != DRACEL_ENOMEM && without != DRACEL_ENOMEM) {
        fprintf(stderr, "estimate: %s, without it %s\n", dracel_status_string(st),
                dracel_status_string(without));
        abort();
    }
    dracel_program_free(p);
    dracel_diags_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!table) {
        char err[256];
        dracel_config cfg;
        dracel_config_init(&cfg);
        cfg.cost_limit = 100000; /* bounded runs: the limit is part of what is compared */
        if (dracel_table_load_buffer(&cfg, "fleet", fleet, sizeof fleet - 1, &table, err, sizeof err) != DRACEL_OK ||
            dracel_env_new(&cfg, DRACEL_ENV_DRA, &envs[0]) != DRACEL_OK ||
            dracel_env_new(&cfg, DRACEL_ENV_PLAIN, &envs[1]) != DRACEL_OK)
            abort();
        declare_hosts(envs[0]);
        declare_hosts(envs[1]);
    }
    if (size == 0 || size > DRACEL_DEFAULT_MAX_SOURCE_BYTES + 2048)
        return 0;
    unsigned sel = data[0] & 3;
    const char *src = (const char *)data + 1;
    size_t n = size - 1;
    dracel_env *env = envs[sel & 1];
    dracel_status st = run(env, src, n, (sel & 2) ? DRACEL_COMPILE_NO_CHECK | DRACEL_COMPILE_ANY_RESULT : 0);
    if (!(sel & 2))
        estimate(env, !(sel & 1), src, n, st);
    return 0;
}
