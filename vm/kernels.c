/*
 * kernels.c: the word kernels of vm/kernels.h in four versions, and the memo tables.
 *
 * Exactness: every version computes the same predicate lane by lane: 32-bit id equality, and
 * int64 order (signed). SSE2 has no 64-bit compare: its order is built from 32-bit halves
 * (the high halves compared signed; when they are equal, the low halves compared unsigned, by
 * flipping their sign bits). AVX2 compares 64-bit lanes (4 a step), AVX-512 8 a step straight
 * into mask registers. Bits past cnt are always zero.
 */
#include "kernels.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DC_KN_X86 1
#include <immintrin.h>
#endif

/* ---- Portable: one lane at a time. */

static uint64_t eq_ids_c(const uint32_t *ids, uint32_t cnt, const uint32_t *want, uint32_t n)
{
    uint64_t bits = 0;
    for (uint32_t l = 0; l < cnt; l++) {
        bool hit = false;
        for (uint32_t k = 0; k < n; k++)
            hit |= ids[l] == want[k];
        bits |= (uint64_t)hit << l;
    }
    return bits;
}

/* NE, LE, GE are the complements of EQ, GT, LT: every version computes those three. */
static dc_op base_op(dc_op op, bool *negate)
{
    *negate = op == DC_OP_NE || op == DC_OP_LE || op == DC_OP_GE;
    return op == DC_OP_NE ? DC_OP_EQ : op == DC_OP_LE ? DC_OP_GT : op == DC_OP_GE ? DC_OP_LT : op;
}

static uint64_t cmp_i64_c(const int64_t *x, uint32_t cnt, dc_op op, int64_t c)
{
    bool negate;
    dc_op b = base_op(op, &negate);
    uint64_t bits = 0;
    /* One loop per operator, no branch per lane: the compiler can vectorise them. */
    switch (b) {
    case DC_OP_EQ:
        for (uint32_t l = 0; l < cnt; l++)
            bits |= (uint64_t)(x[l] == c) << l;
        break;
    case DC_OP_GT:
        for (uint32_t l = 0; l < cnt; l++)
            bits |= (uint64_t)(x[l] > c) << l;
        break;
    default:
        for (uint32_t l = 0; l < cnt; l++)
            bits |= (uint64_t)(x[l] < c) << l;
        break;
    }
    return (negate ? ~bits : bits) & dc_kn_valid(cnt);
}

/* A block kernel from a word kernel WORD(lanes, cnt, ...): full words, then the tail. */
#define BLOCK(NAME, WORD, T, ...)                                                              \
    {                                                                                          \
        uint32_t w = 0;                                                                        \
        for (; (w + 1) * 64 <= n; w++)                                                         \
            out[w] = WORD((const T *)lanes + w * 64, 64, __VA_ARGS__);                         \
        if (w * 64 < n)                                                                        \
            out[w] = NAME##_c((const T *)lanes + w * 64, n - w * 64, __VA_ARGS__);             \
    }

static void eq_ids_block_c(const uint32_t *lanes, uint32_t n, const uint32_t *want, uint32_t nw,
                           uint64_t *out)
BLOCK(eq_ids, eq_ids_c, uint32_t, want, nw)

static void cmp_i64_block_c(const int64_t *lanes, uint32_t n, dc_op op, int64_t c, uint64_t *out)
BLOCK(cmp_i64, cmp_i64_c, int64_t, op, c)

static uint64_t byte_bits_c(const uint8_t *b, int shift)
{
    uint64_t r = 0;
    for (uint32_t l = 0; l < 64; l++)
        r |= (uint64_t)((uint8_t)(b[l] << shift) >> 7) << l;
    return r;
}

static const dc_kernels kn_portable = {"portable", eq_ids_block_c, cmp_i64_block_c, byte_bits_c};

#ifdef DC_KN_X86

/* ---- SSE2: 4 ids or 2 ints a step. */

static inline uint64_t eq_ids_sse2(const uint32_t *ids, uint32_t cnt, const uint32_t *want,
                                   uint32_t n)
{
    (void)cnt; /* 64 */
    __m128i w[DC_KN_MAX_SET];
    for (uint32_t k = 0; k < n; k++)
        w[k] = _mm_set1_epi32((int)want[k]);
    uint64_t bits = 0;
    for (uint32_t l = 0; l < 64; l += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(ids + l));
        __m128i m = _mm_cmpeq_epi32(v, w[0]);
        for (uint32_t k = 1; k < n; k++)
            m = _mm_or_si128(m, _mm_cmpeq_epi32(v, w[k]));
        bits |= (uint64_t)_mm_movemask_ps(_mm_castsi128_ps(m)) << l;
    }
    return bits;
}

static inline uint64_t cmp_i64_sse2(const int64_t *x, uint32_t cnt, dc_op op, int64_t c)
{
    (void)cnt; /* 64 */
    bool negate;
    dc_op b = base_op(op, &negate);
    const __m128i flip = _mm_set_epi32(0, (int)0x80000000u, 0, (int)0x80000000u);
    const __m128i k = _mm_xor_si128(_mm_set1_epi64x(c), flip);
    uint64_t bits = 0;
    for (uint32_t l = 0; l < 64; l += 2) {
        __m128i v = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(x + l)), flip);
        __m128i m;
        if (b == DC_OP_EQ) {
            __m128i e = _mm_cmpeq_epi32(v, k);
            m = _mm_and_si128(e, _mm_shuffle_epi32(e, _MM_SHUFFLE(2, 3, 0, 1)));
        } else {
            __m128i p = b == DC_OP_GT ? v : k, q = b == DC_OP_GT ? k : v;
            __m128i gt = _mm_cmpgt_epi32(p, q), eq = _mm_cmpeq_epi32(p, q);
            __m128i lo = _mm_shuffle_epi32(gt, _MM_SHUFFLE(2, 2, 0, 0));
            m = _mm_or_si128(gt, _mm_and_si128(eq, lo));
            m = _mm_shuffle_epi32(m, _MM_SHUFFLE(3, 3, 1, 1));
        }
        bits |= (uint64_t)_mm_movemask_pd(_mm_castsi128_pd(m)) << l;
    }
    return negate ? ~bits : bits;
}

static uint64_t byte_bits_sse2(const uint8_t *b, int shift)
{
    uint64_t r = 0;
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + 16 * i));
        if (shift)
            v = _mm_slli_epi64(v, shift);
        r |= (uint64_t)(uint16_t)_mm_movemask_epi8(v) << (16 * i);
    }
    return r;
}

static void eq_ids_block_sse2(const uint32_t *lanes, uint32_t n, const uint32_t *want,
                              uint32_t nw, uint64_t *out)
BLOCK(eq_ids, eq_ids_sse2, uint32_t, want, nw)

static void cmp_i64_block_sse2(const int64_t *lanes, uint32_t n, dc_op op, int64_t c,
                               uint64_t *out)
BLOCK(cmp_i64, cmp_i64_sse2, int64_t, op, c)

static const dc_kernels kn_sse2 = {"sse2", eq_ids_block_sse2, cmp_i64_block_sse2, byte_bits_sse2};

/* ---- AVX2: 8 ids or 4 ints a step. */

#define AVX2 __attribute__((target("avx2")))

AVX2 static inline uint64_t eq_ids_avx2(const uint32_t *ids, uint32_t cnt, const uint32_t *want,
                                        uint32_t n)
{
    (void)cnt; /* 64 */
    __m256i w[DC_KN_MAX_SET];
    for (uint32_t k = 0; k < n; k++)
        w[k] = _mm256_set1_epi32((int)want[k]);
    uint64_t bits = 0;
    for (uint32_t l = 0; l < 64; l += 8) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(ids + l));
        __m256i m = _mm256_cmpeq_epi32(v, w[0]);
        for (uint32_t k = 1; k < n; k++)
            m = _mm256_or_si256(m, _mm256_cmpeq_epi32(v, w[k]));
        bits |= (uint64_t)(uint8_t)_mm256_movemask_ps(_mm256_castsi256_ps(m)) << l;
    }
    return bits;
}

AVX2 static inline uint64_t cmp_i64_avx2(const int64_t *x, uint32_t cnt, dc_op op, int64_t c)
{
    (void)cnt; /* 64 */
    bool negate;
    dc_op b = base_op(op, &negate);
    const __m256i k = _mm256_set1_epi64x(c);
    uint64_t bits = 0;
    for (uint32_t l = 0; l < 64; l += 4) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(x + l));
        __m256i m = b == DC_OP_EQ   ? _mm256_cmpeq_epi64(v, k)
                    : b == DC_OP_GT ? _mm256_cmpgt_epi64(v, k)
                                    : _mm256_cmpgt_epi64(k, v);
        bits |= (uint64_t)(uint8_t)_mm256_movemask_pd(_mm256_castsi256_pd(m)) << l;
    }
    return negate ? ~bits : bits;
}

AVX2 static uint64_t byte_bits_avx2(const uint8_t *b, int shift)
{
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)b);
    __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(b + 32));
    if (shift) {
        lo = _mm256_slli_epi64(lo, shift);
        hi = _mm256_slli_epi64(hi, shift);
    }
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(lo) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32;
}

AVX2 static void eq_ids_block_avx2(const uint32_t *lanes, uint32_t n, const uint32_t *want,
                                   uint32_t nw, uint64_t *out)
BLOCK(eq_ids, eq_ids_avx2, uint32_t, want, nw)

AVX2 static void cmp_i64_block_avx2(const int64_t *lanes, uint32_t n, dc_op op, int64_t c,
                                    uint64_t *out)
BLOCK(cmp_i64, cmp_i64_avx2, int64_t, op, c)

static const dc_kernels kn_avx2 = {"avx2", eq_ids_block_avx2, cmp_i64_block_avx2, byte_bits_avx2};

/* ---- AVX-512 (F and BW): 16 ids or 8 ints a step, compared into mask registers. */

#define AVX512 __attribute__((target("avx512f,avx512bw")))

AVX512 static inline uint64_t eq_ids_avx512(const uint32_t *ids, uint32_t cnt,
                                            const uint32_t *want, uint32_t n)
{
    (void)cnt; /* 64 */
    __m512i v0 = _mm512_loadu_si512((const void *)ids);
    __m512i v1 = _mm512_loadu_si512((const void *)(ids + 16));
    __m512i v2 = _mm512_loadu_si512((const void *)(ids + 32));
    __m512i v3 = _mm512_loadu_si512((const void *)(ids + 48));
    uint64_t bits = 0;
    for (uint32_t k = 0; k < n; k++) {
        __m512i w = _mm512_set1_epi32((int)want[k]);
        bits |= (uint64_t)_mm512_cmpeq_epi32_mask(v0, w) |
                (uint64_t)_mm512_cmpeq_epi32_mask(v1, w) << 16 |
                (uint64_t)_mm512_cmpeq_epi32_mask(v2, w) << 32 |
                (uint64_t)_mm512_cmpeq_epi32_mask(v3, w) << 48;
    }
    return bits;
}

AVX512 static inline uint64_t cmp_i64_avx512(const int64_t *x, uint32_t cnt, dc_op op, int64_t c)
{
    (void)cnt; /* 64 */
    const __m512i k = _mm512_set1_epi64(c);
    uint64_t bits = 0;
    for (uint32_t l = 0; l < 64; l += 8) {
        __m512i v = _mm512_loadu_si512((const void *)(x + l));
        __mmask8 m;
        switch (op) {
        case DC_OP_EQ: m = _mm512_cmpeq_epi64_mask(v, k); break;
        case DC_OP_NE: m = _mm512_cmpneq_epi64_mask(v, k); break;
        case DC_OP_LT: m = _mm512_cmplt_epi64_mask(v, k); break;
        case DC_OP_LE: m = _mm512_cmple_epi64_mask(v, k); break;
        case DC_OP_GT: m = _mm512_cmpgt_epi64_mask(v, k); break;
        default: m = _mm512_cmpge_epi64_mask(v, k); break;
        }
        bits |= (uint64_t)m << l;
    }
    return bits;
}

AVX512 static uint64_t byte_bits_avx512(const uint8_t *b, int shift)
{
    __m512i v = _mm512_loadu_si512((const void *)b);
    if (shift)
        v = _mm512_slli_epi64(v, (unsigned)shift);
    return (uint64_t)_mm512_movepi8_mask(v);
}

AVX512 static void eq_ids_block_avx512(const uint32_t *lanes, uint32_t n, const uint32_t *want,
                                       uint32_t nw, uint64_t *out)
BLOCK(eq_ids, eq_ids_avx512, uint32_t, want, nw)

AVX512 static void cmp_i64_block_avx512(const int64_t *lanes, uint32_t n, dc_op op, int64_t c,
                                        uint64_t *out)
BLOCK(cmp_i64, cmp_i64_avx512, int64_t, op, c)

static const dc_kernels kn_avx512 = {"avx512", eq_ids_block_avx512, cmp_i64_block_avx512,
                                     byte_bits_avx512};

#endif /* DC_KN_X86 */

/* ---- Choosing. */

/* The list is built once: threads that choose at the same time (dra-extender's workers, each
 * with its first selection) must not write it together. */
static const dc_kernels *kn_list[5];
static pthread_once_t kn_once = PTHREAD_ONCE_INIT;

static void kn_list_init(void)
{
    size_t n = 0;
    kn_list[n++] = &kn_portable;
#ifdef DC_KN_X86
    kn_list[n++] = &kn_sse2;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        kn_list[n++] = &kn_avx2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
        kn_list[n++] = &kn_avx512;
#endif
    kn_list[n] = NULL;
}

const dc_kernels *const *dc_kn_all(void)
{
    pthread_once(&kn_once, kn_list_init);
    return kn_list;
}

static const dc_kernels *choose(void)
{
    const dc_kernels *const *all = dc_kn_all();
    size_t n = 0;
    while (all[n + 1])
        n++;
    const char *want = getenv("DRACEL_KERNELS");
    if (want && *want)
        for (size_t i = 0; all[i]; i++)
            if (strcmp(all[i]->name, want) == 0)
                return all[i];
    return all[n];
}

static const dc_kernels *chosen;

void dc_kn_use(const dc_kernels *k)
{
    __atomic_store_n(&chosen, k, __ATOMIC_RELEASE);
}

const dc_kernels *dc_kn(void)
{
    const dc_kernels *k = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (!k) {
        k = choose(); /* two threads may both choose: the same answer */
        __atomic_store_n(&chosen, k, __ATOMIC_RELEASE);
    }
    return k;
}

/* ---- Memo tables. */

/* The shared page of a table's unwritten keys: every state unknown. Never written. */
#define U4 DC_MS_UNKNOWN, DC_MS_UNKNOWN, DC_MS_UNKNOWN, DC_MS_UNKNOWN
#define U16 U4, U4, U4, U4
#define U64 U16, U16, U16, U16
static const uint8_t unknown_page[DC_MEMO_PAGE] = {U64, U64, U64, U64};
#undef U64
#undef U16
#undef U4

bool dc_memo_init(dc_memo *m, dc_ectx *c, uint32_t size)
{
    m->size = size;
    m->npages = size / DC_MEMO_PAGE + 1;
    m->st = dc_ealloc(c, m->npages * sizeof *m->st);
    m->val = dc_ealloc(c, m->npages * sizeof *m->val);
    m->ival = dc_ealloc(c, m->npages * sizeof *m->ival);
    if (!m->st || !m->val || !m->ival)
        return false;
    for (uint32_t p = 0; p < m->npages; p++) {
        m->st[p] = (uint8_t *)(uintptr_t)unknown_page; /* read only until written */
        m->val[p] = NULL;
        m->ival[p] = NULL;
    }
    return true;
}

bool dc_memo_put(dc_memo *m, dc_ectx *c, uint32_t key, dc_val v)
{
    uint32_t p = key / DC_MEMO_PAGE, i = key % DC_MEMO_PAGE;
    if (m->st[p] == unknown_page) {
        uint8_t *st = dc_ealloc(c, DC_MEMO_PAGE);
        dc_val *val = dc_ealloc(c, DC_MEMO_PAGE * sizeof *val);
        int64_t *iv = dc_ealloc(c, DC_MEMO_PAGE * sizeof *iv);
        if (!st || !val || !iv)
            return false;
        memcpy(st, unknown_page, DC_MEMO_PAGE);
        m->st[p] = st;
        m->val[p] = val;
        m->ival[p] = iv;
    }
    m->val[p][i] = v;
    m->st[p][i] = dc_ms_of(v);
    if (v.k == DC_K_INT)
        m->ival[p][i] = v.u.i;
    return true;
}
