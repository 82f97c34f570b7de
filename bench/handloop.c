/*
 * handloop: the yardstick of the vector VM. Hand-written C loops over the same packed columns
 * for S1 and S3 of the semantics issue, with CEL's exact semantics (an absent attribute is an
 * error; && absorbs an error when the other side is false), timed against dracel's vector VM
 * on the same table: a scalar loop, and (on a CPU that has it) an AVX-512 kernel written for
 * the one expression. It checks that all produce the same matched and errored bitmaps and
 * prints ns per device for each and the VM's ratios to them, with the kernels the VM runs
 * (vm/kernels.h: DRACEL_KERNELS chooses them). A benchmark, not a test.
 *
 *   handloop FLEET [REPEAT]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiint.h"
#include "dracel.h"
#include "kernels.h"
#include "quantity.h"
#include "table.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX512_KERNEL 1
#define AVX512 __attribute__((target("avx512f,avx512bw")))

/* S1 with AVX-512: 64 ids compared into a mask in four instructions. */
AVX512 static void s1_avx512(const dc_table *t, const dc_tcol *model, uint32_t h100,
                             uint64_t *matched, uint64_t *errored)
{
    size_t words = DC_BITS_WORDS(t->rows), full = t->rows / 64;
    const __m512i w = _mm512_set1_epi32((int)h100);
    const uint32_t *sid = model->v.sid;
    for (size_t i = 0; i < full; i++) {
        const uint32_t *p = sid + i * 64;
        uint64_t eq = (uint64_t)_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(p), w) |
                      (uint64_t)_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(p + 16), w) << 16 |
                      (uint64_t)_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(p + 32), w) << 32 |
                      (uint64_t)_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(p + 48), w) << 48;
        uint64_t present = model->present[i];
        matched[i] = eq & present;
        errored[i] = ~present;
    }
    for (size_t i = full; i < words; i++) {
        uint64_t eq = 0;
        uint32_t base = (uint32_t)i * 64;
        for (uint32_t r = base; r < t->rows; r++)
            eq |= (uint64_t)(sid[r] == h100) << (r - base);
        uint64_t all = ((uint64_t)1 << (t->rows - base)) - 1;
        matched[i] = eq & model->present[i];
        errored[i] = ~model->present[i] & all;
    }
}

/* S3 with AVX-512: the id compare, and the quantity's answer per distinct value gathered 16
 * at a time (ge32: one 32-bit word per distinct value). */
AVX512 static void s3_avx512(const dc_table *t, const dc_tcol *model, uint32_t h100,
                             const dc_tcol *mem, const uint32_t *ge32, uint64_t *matched,
                             uint64_t *errored)
{
    size_t words = DC_BITS_WORDS(t->rows), full = t->rows / 64;
    const __m512i w = _mm512_set1_epi32((int)h100), zero = _mm512_setzero_si512();
    const uint32_t *sid = model->v.sid, *vid = mem->v.vid;
    for (size_t i = 0; i < words; i++) {
        uint64_t eq = 0, big = 0, all = ~(uint64_t)0;
        if (i < full) {
            for (int q = 0; q < 4; q++) {
                const uint32_t *p = sid + i * 64 + 16 * q, *v = vid + i * 64 + 16 * q;
                eq |= (uint64_t)_mm512_cmpeq_epi32_mask(_mm512_loadu_si512(p), w) << (16 * q);
                __m512i g = _mm512_i32gather_epi32(_mm512_loadu_si512(v), (const void *)ge32, 4);
                big |= (uint64_t)_mm512_cmpneq_epi32_mask(g, zero) << (16 * q);
            }
        } else {
            uint32_t base = (uint32_t)i * 64;
            for (uint32_t r = base; r < t->rows; r++) {
                eq |= (uint64_t)(sid[r] == h100) << (r - base);
                big |= (uint64_t)(ge32[vid[r]] != 0) << (r - base);
            }
            all = ((uint64_t)1 << (t->rows - base)) - 1;
        }
        uint64_t ap = model->present[i], bp = mem->present[i];
        uint64_t decided_false = (ap & ~eq) | (bp & ~big);
        matched[i] = ap & eq & bp & big;
        errored[i] = ~decided_false & ((~ap | ~bp) & all);
    }
}
#endif

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

/* S1: model == "H100". */
static void s1(const dc_table *t, const dc_tcol *model, uint32_t h100, uint64_t *matched,
               uint64_t *errored)
{
    size_t words = DC_BITS_WORDS(t->rows);
    for (size_t w = 0; w < words; w++) {
        uint64_t eq = 0;
        uint32_t base = (uint32_t)w * 64, end = base + 64 < t->rows ? base + 64 : t->rows;
        for (uint32_t r = base; r < end; r++)
            eq |= (uint64_t)(model->v.sid[r] == h100) << (r - base);
        uint64_t present = model->present[w];
        matched[w] = eq & present;
        errored[w] = ~present & (end - base == 64 ? ~(uint64_t)0 : (((uint64_t)1 << (end - base)) - 1));
    }
}

/* S3: model == "H100" && memory.compareTo(quantity("80Gi")) >= 0. */
static void s3(const dc_table *t, const dc_tcol *model, uint32_t h100, const dc_tcol *mem,
               const uint8_t *ge, uint64_t *matched, uint64_t *errored)
{
    size_t words = DC_BITS_WORDS(t->rows);
    for (size_t w = 0; w < words; w++) {
        uint64_t eq = 0, big = 0;
        uint32_t base = (uint32_t)w * 64, end = base + 64 < t->rows ? base + 64 : t->rows;
        uint64_t all = end - base == 64 ? ~(uint64_t)0 : (((uint64_t)1 << (end - base)) - 1);
        for (uint32_t r = base; r < end; r++) {
            eq |= (uint64_t)(model->v.sid[r] == h100) << (r - base);
            big |= (uint64_t)ge[mem->v.vid[r]] << (r - base);
        }
        uint64_t ap = model->present[w], bp = mem->present[w];
        uint64_t afalse = ap & ~eq, bfalse = bp & ~big;
        uint64_t decided_false = afalse | bfalse;
        matched[w] = ap & eq & bp & big;
        errored[w] = ~decided_false & ((~ap | ~bp) & all);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: handloop FLEET [REPEAT]\n");
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 7;
    char err[1024];
    dracel_table *pt;
    if (dracel_table_load(NULL, argv[1], &pt, err, sizeof err) != DRACEL_OK) {
        fprintf(stderr, "handloop: %s\n", err);
        return 1;
    }
    const dc_table *t = dc_api_table(pt);
    const char *dom = "gpu.example.com";
    const dc_tcol *model = dc_table_col(t, false, dom, strlen(dom), "model", 5);
    const dc_tcol *mem = dc_table_col(t, true, dom, strlen(dom), "memory", 6);
    if (!model || model->kind != DC_COL_STRING || model->nforeign || !mem || mem->nforeign) {
        fprintf(stderr, "handloop: the fleet has no plain model/memory columns\n");
        return 1;
    }
    uint32_t h100 = dc_dict_find(t->dict, "H100", 4, t->dict_limit);
    dc_qty q80;
    dc_qty_parse("80Gi", 4, &q80);
    uint8_t *ge = malloc(mem->ndistinct + 1);
    uint32_t *ge32 = calloc(mem->ndistinct + 1, sizeof *ge32);
    for (uint32_t i = 0; i < mem->ndistinct; i++)
        ge32[i] = ge[i] = dc_qty_cmp(&mem->distinct[i].u.q->q, &q80) >= 0;
    size_t words = DC_BITS_WORDS(t->rows);
    uint64_t *m = calloc(words + 1, 8), *e = calloc(words + 1, 8);
    uint64_t *m2 = calloc(words + 1, 8), *e2 = calloc(words + 1, 8);
    bool avx512 = false;
#ifdef HAVE_AVX512_KERNEL
    __builtin_cpu_init();
    avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif

    dracel_env *env;
    dracel_env_new(NULL, DRACEL_ENV_DRA, &env);
    const char *exprs[2] = {
        "device.attributes[\"gpu.example.com\"].model == \"H100\"",
        "device.attributes[\"gpu.example.com\"].model == \"H100\" && "
        "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"80Gi\")) >= 0"};
    int status = 0;
    for (int k = 0; k < 2; k++) {
        dracel_program *p;
        dracel_diags *d;
        dracel_bound *b;
        dracel_selection *sel;
        if (dracel_compile(env, exprs[k], strlen(exprs[k]), 0, &p, &d) != DRACEL_OK ||
            dracel_bind(p, pt, &b) != DRACEL_OK || dracel_selection_new(NULL, &sel) != DRACEL_OK)
            return 1;
        dracel_diags_free(d);
        double th[64], tv[64], tx[64];
        for (int r = 0; r < repeat && r < 64; r++) {
            double t0 = now_ns();
            if (k == 0)
                s1(t, model, h100, m, e);
            else
                s3(t, model, h100, mem, ge, m, e);
            th[r] = (now_ns() - t0) / t->rows;
            tx[r] = 0;
#ifdef HAVE_AVX512_KERNEL
            if (avx512) {
                t0 = now_ns();
                if (k == 0)
                    s1_avx512(t, model, h100, m2, e2);
                else
                    s3_avx512(t, model, h100, mem, ge32, m2, e2);
                tx[r] = (now_ns() - t0) / t->rows;
            }
#endif
            t0 = now_ns();
            dracel_select(b, env, NULL, sel);
            tv[r] = (now_ns() - t0) / t->rows;
        }
        int n = repeat < 64 ? repeat : 64;
        qsort(th, (size_t)n, sizeof *th, cmp_double);
        qsort(tv, (size_t)n, sizeof *tv, cmp_double);
        qsort(tx, (size_t)n, sizeof *tx, cmp_double);
        bool same = memcmp(m, dracel_selection_matched(sel), words * 8) == 0 &&
                    memcmp(e, dracel_selection_errored(sel), words * 8) == 0 &&
                    (!avx512 || (memcmp(m, m2, words * 8) == 0 && memcmp(e, e2, words * 8) == 0));
        printf("S%d devices %u  vector VM (%s kernels) %.3f ns/device  hand-written loop %.3f "
               "(VM/loop %.2f)",
               k == 0 ? 1 : 3, t->rows, dc_kn()->name, tv[n / 2], th[n / 2], tv[n / 2] / th[n / 2]);
        if (avx512)
            printf("  AVX-512 hand kernel %.3f (VM/kernel %.2f)", tx[n / 2], tv[n / 2] / tx[n / 2]);
        printf("  bitmaps %s\n", same ? "identical" : "DIFFER");
        if (!same)
            status = 1;
        dracel_selection_free(sel);
        dracel_bound_free(b);
        dracel_program_free(p);
    }
    dracel_env_free(env);
    dracel_table_free(pt);
    free(ge);
    free(ge32);
    free(m);
    free(e);
    free(m2);
    free(e2);
    return status;
}
