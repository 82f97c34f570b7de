/*
 * kernels.h: the typed leaf kernels of the vector VM, on 64-row words, and the memo tables
 * keyed by distinct values. One set, called by the fused kernels (vm/vplan_run.c) and by the batch
 * interpreter (vm/vvm.c).
 *
 * A kernel reads lanes from a column (or a register) and answers one bit per lane, 64 lanes a
 * word (LSB first), bits past the last lane zero. The comparison kernels have SSE2
 * (every x86-64), AVX2 and AVX-512 versions, chosen once from the CPU (dc_kn_init; the
 * portable C loops elsewhere); DRACEL_KERNELS=portable|sse2|avx2|avx512 in the environment
 * forces one (tests run every version on the same cases, bench compares them). Every version
 * gives the same bits.
 *
 * Memo states: what an instruction (batch interpreter) or a leaf (fused kernels) answers for
 * one distinct value of its operand, one byte per key, its bits where dc_kn_byte_bits reads
 * them: DC_MS_TRUE (bit 7), DC_MS_OTHER (bit 6: an error, or a value that is not a bool), then
 * what kind of other, and DC_MS_UNKNOWN until computed. False is 0.
 *
 * Change with: vm/kernels.c, vm/vplan_run.c, vm/vvm.c, bench/handloop.c, tests/unit/test_vplan.c.
 */
#ifndef DC_KERNELS_H
#define DC_KERNELS_H

#include "vm.h"

enum {
    DC_MS_TRUE = 0x80,
    DC_MS_OTHER = 0x40,
    DC_MS_UNKNOWN = 0x20,
    DC_MS_ERROR = 0x10,        /* with OTHER: an error value */
    DC_MS_INT = 0x08           /* with OTHER: an int (the memo keeps it beside) */
};

/** The memo state of a value. */
static inline uint8_t dc_ms_of(dc_val v)
{
    switch (v.k) {
    case DC_K_BOOL: return v.u.b ? DC_MS_TRUE : 0;
    case DC_K_ERROR: return DC_MS_OTHER | DC_MS_ERROR;
    case DC_K_INT: return DC_MS_OTHER | DC_MS_INT;
    default: return DC_MS_OTHER;
    }
}

/* A memo over a version or quantity column computes every distinct value at once up to this
 * many values; beyond, it fills in as rows meet them. */
#define DC_MEMO_ALL_MAX 4096u

/* ---- Word kernels. */

/** The lanes of cnt (1..64) that are set in a full word. */
static inline uint64_t dc_kn_valid(uint32_t cnt)
{
    return cnt >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << cnt) - 1;
}

/* The kernels take n lanes (any n; a block of words at a time amortises the call) from their
 * first lane and write DC_BITS_WORDS(n) words to out, bits past n zero. */
typedef struct dc_kernels {
    const char *name;          /* "avx512", "avx2", "sse2", "portable" */
    /** Lanes of a 32-bit id column equal to any of want[0..nw) (nw <= DC_KN_MAX_SET). */
    void (*eq_ids)(const uint32_t *ids, uint32_t n, const uint32_t *want, uint32_t nw,
                   uint64_t *out);
    /** Lanes of an int64 column where x OP c (op: DC_OP_EQ .. DC_OP_GE). */
    void (*cmp_i64)(const int64_t *x, uint32_t n, dc_op op, int64_t c, uint64_t *out);
    /** Bit (7 - shift) of each of b[0..64), as a bitmap (one word). */
    uint64_t (*byte_bits)(const uint8_t *b, int shift);
} dc_kernels;

#define DC_KN_MAX_SET 8u

/** The kernels this CPU runs (chosen on the first call; thread-safe). */
const dc_kernels *dc_kn(void);
/** Use k from now on (tests and benchmarks: not while another thread selects). */
void dc_kn_use(const dc_kernels *k);
/** Every version this build has that the CPU can run, best last; NULL-terminated. For tests
 *  and benchmarks. */
const dc_kernels *const *dc_kn_all(void);

/** && and || of two (true, other) pairs with cel-go's error absorption: a lane decided by
 *  either side (false for &&, true for ||) is decided; two bools give the bool; otherwise the
 *  lane is other (an error, or no such overload). valid: the lanes of the word. */
static inline void dc_kn_logic(bool is_and, uint64_t valid, uint64_t ta, uint64_t ea, uint64_t tb,
                               uint64_t eb, uint64_t *t, uint64_t *e)
{
    if (is_and) {
        uint64_t fa = valid & ~ta & ~ea, fb = valid & ~tb & ~eb;
        *t = ta & tb;
        *e = ~(fa | fb) & (ea | eb) & valid;
    } else {
        *t = (ta | tb) & valid;
        *e = ~(ta | tb) & (ea | eb) & valid;
    }
}

/* ---- Memo tables: per distinct value (a dictionary id, or a column's distinct-value id), its
 * state, its value and (DC_MS_INT) its int. The keys go up to the dictionary's size, which a
 * long-lived fleet only grows, so the table is paged: a directory of pages of 256 keys, every
 * page the shared unknown page until a key of it is computed. Setting up a table costs a
 * directory (size / 256 pointers), never the dictionary. */

#define DC_MEMO_PAGE 256u

typedef struct dc_memo {
    uint8_t **st;              /* per page: 256 states */
    dc_val **val;              /* per page: 256 values (NULL until the page is written) */
    int64_t **ival;            /* per page: 256 ints */
    uint32_t size, npages;
} dc_memo;

/** A table of @p size keys, every key unknown, in c's arena. False on ENOMEM (c->oom). */
bool dc_memo_init(dc_memo *m, dc_ectx *c, uint32_t size);

static inline uint8_t dc_memo_state(const dc_memo *m, uint32_t key)
{
    return m->st[key / DC_MEMO_PAGE][key % DC_MEMO_PAGE];
}
static inline dc_val dc_memo_value(const dc_memo *m, uint32_t key)
{
    return m->val[key / DC_MEMO_PAGE][key % DC_MEMO_PAGE];
}
static inline int64_t dc_memo_int(const dc_memo *m, uint32_t key)
{
    return m->ival[key / DC_MEMO_PAGE][key % DC_MEMO_PAGE];
}
/** Record key's value (its state from dc_ms_of); false on ENOMEM. */
bool dc_memo_put(dc_memo *m, dc_ectx *c, uint32_t key, dc_val v);

#endif
