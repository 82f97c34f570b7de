/*
 * vvm.c: the vector VM (vm/vvm.h).
 *
 * One batch of n lanes (rows row0 .. row0+n-1) runs through the program once. At every
 * instruction the stack depth is the static one the verifier found, so operands are found by
 * position. A register holds n lanes of one representation (`kind`) plus an error mask whose
 * lanes hold an error value in box[]. Instructions write only the active lanes of their result:
 * a result of the register's kind is merged lane by lane; a result of another kind turns the
 * register into boxed values first, so lanes parked by a jump keep their values. Jumps move
 * lanes from the active mask to a pending mask at their target; the pending lanes join again
 * when execution reaches the target.
 *
 * Exactness: every operator's semantics is the scalar VM's (dc_vm_apply) except the fast paths
 * below, each of which computes the same value: id equality against an interned constant
 * (equal strings have equal ids; a constant absent from the dictionary equals no row), int64
 * comparison against an int constant, bool logic with cel-go's error absorption, and
 * per-distinct-value memos (a pure function of a value gives one answer per distinct value).
 * Cost: a program whose worst-case cost per row is within the limit needs no per-lane
 * accounting; any other program runs lane by lane on the scalar VM, which counts exactly.
 */
#include "vvm.h"
#include "host.h"
#include "kernels.h"
#include "vplan.h"

#include <stdlib.h>
#include <string.h>

enum { VK_CONST, VK_BOOL, VK_INT, VK_SID, VK_VID, VK_BOX };
/* What kinds of answers a memo's keys hold, as bits (memo_kinds). */
enum { MK_FALSE = 1, MK_TRUE = 2, MK_INT = 4, MK_OTHER = 8, MK_ERROR = 16 };

static unsigned memo_kind_of(uint8_t st)
{
    return st == 0 ? MK_FALSE : st == DC_MS_TRUE ? MK_TRUE : (st & DC_MS_ERROR) ? MK_ERROR
           : (st & DC_MS_INT) ? MK_INT : MK_OTHER;
}

/* A lane's state as one bit of a set, without a branch: the states (vm/kernels.h) differ in
 * their top five bits. A per-lane chain of tests in memo_kind_of mispredicted on rows whose
 * answers alternate (true and false mixed): 2.5 times the time of the whole batch. */
#define MS_SET_BIT(st) (1u << ((unsigned)(st) >> 3))

static unsigned memo_kinds_of_set(uint32_t set)
{
    unsigned kinds = 0;
    while (set) {
        unsigned b = (unsigned)__builtin_ctz(set);
        set &= set - 1;
        kinds |= memo_kind_of((uint8_t)(b << 3));
    }
    return kinds;
}

typedef struct vreg {
    int kind;
    uint64_t *err;        /* W words */
    uint64_t *bits;       /* VK_BOOL: W words */
    int64_t *i;           /* VK_INT: B */
    uint32_t *id;         /* VK_SID, VK_VID: B */
    dc_val *box;          /* B: VK_BOX values, and the values of error lanes of any kind */
    const dc_tcol *col;   /* VK_VID: distinct values */
    dc_val k;             /* VK_CONST */
    uint32_t kidx;        /* VK_CONST: constant index, or UINT32_MAX when computed */
} vreg;

typedef struct vm {
    const dc_bound *b;
    const dc_program *p;
    const dc_table *t;
    const dc_val *vars;
    bool keep;
    uint32_t B, W;        /* lanes, words per mask */
    vreg *regs;           /* max_stack + 2 (two scratch), then the locals */
    uint32_t nregs;
    vreg *locals;         /* nlocals registers (cel.bind, optional helpers) */
    const int32_t *depth; /* the program's: stack depth before each pc (-1: unreachable) */
    dc_val *args;         /* room for the operands of any instruction (max_pops) */
    uint64_t **pend;      /* per pc: pending lanes (W words), lazily allocated */
    uint8_t *has_pend;
    dc_memo **memo;       /* per pc: per distinct value (dictionary id or distinct id), its
                             state (vm/kernels.h) and value; NULL until the pc runs one */
    uint64_t *memo_sig;   /* per pc: what the memo was computed for (operand column, constants) */
    uint32_t *memo_size;
    uint8_t *memo_all;    /* per pc: every key computed (a version or quantity column's values) */
    unsigned *memo_seen;  /* per pc, with memo_all: the union of the keys' MK_* kinds */
    uint8_t *memo_kind;   /* per pc: VK_SID or VK_VID the memo is keyed by (0: none) */
    const dc_kernels *kn;
    dc_val *absent;       /* per program column: the "no such key: id" error */
    dc_ectx *run;         /* the whole run: memos, column errors (the selection's, kept with
                             its chunks and compiled regular expressions across runs) */
    dc_ectx *lane;        /* reset per batch: per-lane fallback allocations (the selection's) */
    dc_selection *out;
    uint32_t row0, n;
    uint64_t *active, *tmpmask;
    uint8_t *lstate;      /* W * 64: each lane's memo state in memo_run (its tail zero) */
    bool *got;            /* W * 64: a boxed column read, which lanes have a value */
    bool oom;
    bool redo;            /* the batch hit the evaluation memory limit: run its rows again one
                             by one on the scalar VM, whose limit is per row */
    bool heavy;           /* a memo entry took memory near the limit: run everything again on
                             the scalar VM (dc_memo_heavy) */
    size_t mem_limit;
} vm;

static inline uint64_t lane_mask_word(uint32_t n, uint32_t w)
{
    if ((w + 1) * 64 <= n)
        return ~(uint64_t)0;
    if (w * 64 >= n)
        return 0;
    return ((uint64_t)1 << (n - w * 64)) - 1;
}

static bool mask_empty(const vm *m, const uint64_t *a)
{
    for (uint32_t w = 0; w < m->W; w++)
        if (a[w])
            return false;
    return true;
}

static bool mask_full(const vm *m, const uint64_t *a)
{
    for (uint32_t w = 0; w < m->W; w++)
        if (a[w] != lane_mask_word(m->n, w))
            return false;
    return true;
}

/* Box lane l of a register. */
static dc_val get(const vm *m, const vreg *r, uint32_t l)
{
    if (dc_bit(r->err, l))
        return r->box[l];
    switch (r->kind) {
    case VK_CONST: return r->k;
    case VK_BOOL: return dc_bool(dc_bit(r->bits, l));
    case VK_INT: return dc_int(r->i[l]);
    /* Lanes parked or never written may hold stale ids: never index past the tables. Ids past
     * the dictionary are the bound program's own constants (dc_bound.extra). */
    case VK_SID:
        if (r->id[l] < m->t->dict_limit)
            return dc_strval(dc_dict_str(m->t->dict, r->id[l]));
        return r->id[l] - m->t->dict_limit < m->b->nextra
                   ? dc_strval(m->b->extra[r->id[l] - m->t->dict_limit])
                   : dc_null();
    case VK_VID: return r->id[l] < r->col->ndistinct ? r->col->distinct[r->id[l]] : dc_null();
    default: return r->box[l];
    }
}

/* Turn a register into boxed values (all n lanes). */
static void to_box(vm *m, vreg *r)
{
    if (r->kind == VK_BOX)
        return;
    for (uint32_t l = 0; l < m->n; l++)
        if (!dc_bit(r->err, l))
            r->box[l] = get(m, r, l);
    r->kind = VK_BOX;
}

static void swap_regs(vreg *a, vreg *b)
{
    vreg t = *a;
    *a = *b;
    *b = t;
}

/* Do lanes parked at a jump target still need stack slot `slot` (the target's depth covers
 * it)? Lanes that finished, or are parked where the stack is shallower, never read it again. */
static bool slot_needed(const vm *m, uint32_t slot)
{
    for (uint32_t pc = 0; pc < m->p->ncode; pc++)
        if (m->has_pend[pc] && m->depth[pc] > (int32_t)slot)
            return true;
    return false;
}

/* Write the active lanes of `res` into `dst` (see the header comment); `res` is scratch and
 * may take dst's buffers. With `overwrite`, lanes that are not active do not matter. */
static void commit_to(vm *m, vreg *dst, vreg *res, bool overwrite)
{
    const uint64_t *A = m->active;
    if (overwrite || mask_full(m, A)) {
        swap_regs(dst, res);
        return;
    }
    bool same = dst->kind == res->kind && res->kind != VK_CONST &&
                (res->kind != VK_VID || dst->col == res->col);
    if (!same) {
        to_box(m, dst);
        for (uint32_t w = 0; w < m->W; w++) {
            uint64_t a = A[w];
            while (a) {
                uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(a);
                a &= a - 1;
                dst->box[l] = get(m, res, l);
            }
            dst->err[w] = (dst->err[w] & ~A[w]) | (res->err[w] & A[w]);
        }
        return;
    }
    for (uint32_t w = 0; w < m->W; w++) {
        uint64_t a = A[w];
        uint64_t e = res->err[w] & a;
        dst->err[w] = (dst->err[w] & ~a) | e;
        if (res->kind == VK_BOOL)
            dst->bits[w] = (dst->bits[w] & ~a) | (res->bits[w] & a);
        while (e) {
            uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(e);
            e &= e - 1;
            dst->box[l] = res->box[l];
        }
    }
    uint32_t n = m->n;
    switch (res->kind) {
    case VK_INT:
        for (uint32_t l = 0; l < n; l++)
            if (dc_bit(A, l))
                dst->i[l] = res->i[l];
        break;
    case VK_SID:
    case VK_VID:
        for (uint32_t l = 0; l < n; l++)
            if (dc_bit(A, l))
                dst->id[l] = res->id[l];
        break;
    case VK_BOX:
        for (uint32_t l = 0; l < n; l++)
            if (dc_bit(A, l) && !dc_bit(res->err, l))
                dst->box[l] = res->box[l];
        break;
    default:
        break;
    }
}

/* A stack slot: overwrite it when no parked lane will read it again. */
static void commit(vm *m, vreg *dst, vreg *res)
{
    commit_to(m, dst, res, !slot_needed(m, (uint32_t)(dst - m->regs)));
}

/* Copy all lanes of src into the scratch register res (src keeps its buffers). */
static void clone(vm *m, vreg *res, const vreg *src)
{
    res->kind = src->kind;
    res->k = src->k;
    res->kidx = src->kidx;
    res->col = src->col;
    memcpy(res->err, src->err, m->W * sizeof *res->err);
    memcpy(res->bits, src->bits, m->W * sizeof *res->bits);
    switch (src->kind) {
    case VK_INT: memcpy(res->i, src->i, m->n * sizeof *res->i); break;
    case VK_SID:
    case VK_VID: memcpy(res->id, src->id, m->n * sizeof *res->id); break;
    default: break;
    }
    /* Boxed values, and the error values of any kind. */
    memcpy(res->box, src->box, m->n * sizeof *res->box);
}

static void clear_err(vm *m, vreg *r)
{
    memset(r->err, 0, m->W * sizeof *r->err);
}

/* The error values of x's errored lanes (those in mask, or all when mask is NULL) into res. */
static void copy_err_values(const vm *m, vreg *res, const vreg *x, const uint64_t *mask)
{
    for (uint32_t w = 0; w < m->W; w++) {
        uint64_t e = x->err[w] & (mask ? mask[w] : ~(uint64_t)0);
        while (e) {
            uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(e);
            e &= e - 1;
            res->box[l] = x->box[l];
        }
    }
}

static void set_err(vreg *r, uint32_t l, dc_val e)
{
    dc_bit_set(r->err, l);
    r->box[l] = e;
}

/* ---- Loading a column for the batch. */

static void extract_bits(const uint64_t *src, uint32_t start, uint32_t n, uint64_t *dst, uint32_t W)
{
    for (uint32_t w = 0; w < W; w++) {
        if (w * 64 >= n) {
            dst[w] = 0; /* past the batch: never read the source beyond its rows */
            continue;
        }
        uint32_t bit = start + w * 64;
        uint64_t lo = src[bit >> 6] >> (bit & 63);
        if ((bit & 63) && w * 64 + (64 - (bit & 63)) < n)
            lo |= src[(bit >> 6) + 1] << (64 - (bit & 63));
        dst[w] = lo & lane_mask_word(n, w);
    }
}

static void load_column(vm *m, uint32_t pc, vreg *res)
{
    uint32_t col = DC_INSN_A(m->p->code[pc]);
    const dc_tcol *tc = m->b->colmap[col];
    clear_err(m, res);
    if (!tc) {
        res->kind = VK_BOX;
        for (uint32_t l = 0; l < m->n; l++)
            set_err(res, l, m->absent[col]);
        return;
    }
    if (tc->nforeign) {
        /* Values of several kinds in this column (or lists): box them. */
        res->kind = VK_BOX;
        dc_tcol_get_run(m->t, tc, m->row0, m->n, res->box, m->got);
        for (uint32_t l = 0; l < m->n; l++)
            if (!m->got[l])
                set_err(res, l, m->absent[col]);
        return;
    }
    uint32_t r0 = m->row0, n = m->n;
    switch (tc->kind) {
    case DC_COL_STRING:
        res->kind = VK_SID;
        memcpy(res->id, tc->v.sid + r0, n * sizeof *res->id);
        break;
    case DC_COL_INT:
        res->kind = VK_INT;
        memcpy(res->i, tc->v.i + r0, n * sizeof *res->i);
        break;
    case DC_COL_BOOL:
        res->kind = VK_BOOL;
        extract_bits(tc->v.bits, r0, n, res->bits, m->W);
        break;
    default:
        res->kind = VK_VID;
        res->col = tc;
        memcpy(res->id, tc->v.vid + r0, n * sizeof *res->id);
        break;
    }
    /* Absent lanes: "no such key: id". */
    extract_bits(tc->present, r0, n, m->tmpmask, m->W);
    for (uint32_t w = 0; w < m->W; w++) {
        uint64_t missing = ~m->tmpmask[w] & lane_mask_word(n, w);
        while (missing) {
            uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(missing);
            missing &= missing - 1;
            set_err(res, l, m->absent[col]);
        }
    }
}

/* device.driver (the dictionary id of each row's pool's driver) or allowMultipleAllocations
 * (the table's bitmap). */
static void load_devfield(vm *m, uint32_t pc, vreg *res)
{
    const dc_table *t = m->t;
    clear_err(m, res);
    if (DC_INSN_A(m->p->code[pc]) == DC_DEVF_DRIVER) {
        res->kind = VK_SID;
        for (uint32_t l = 0; l < m->n; l++)
            res->id[l] = t->pools[t->pool[m->row0 + l]].driver;
    } else {
        res->kind = VK_BOOL;
        extract_bits(t->multi, m->row0, m->n, res->bits, m->W);
    }
}

/* has(device.attributes["d"].id): the presence bitmap (and rows of another kind). */
static void has_column(vm *m, uint32_t pc, vreg *res)
{
    const dc_tcol *tc = m->b->colmap[DC_INSN_A(m->p->code[pc])];
    clear_err(m, res);
    res->kind = VK_BOOL;
    if (!tc) {
        memset(res->bits, 0, m->W * sizeof *res->bits);
        return;
    }
    extract_bits(tc->present, m->row0, m->n, res->bits, m->W);
    for (uint32_t i = 0; i < tc->nforeign; i++) {
        uint32_t r = tc->foreign[i].row;
        if (r >= m->row0 && r < m->row0 + m->n)
            dc_bit_set(res->bits, r - m->row0);
    }
}

/* device.attributes["d"].?id.orValue(c): the column, with c where a device has no value. */
static void load_column_default(vm *m, uint32_t pc, vreg *res)
{
    uint32_t word = m->p->code[pc];
    uint32_t col = DC_INSN_A(word), k = m->p->code[pc + 1];
    const dc_val *def = &m->p->consts[k];
    const dc_tcol *tc = m->b->colmap[col];
    clear_err(m, res);
    if (!tc) {
        res->kind = VK_CONST;
        res->k = *def;
        res->kidx = k;
        return;
    }
    uint32_t r0 = m->row0, n = m->n;
    extract_bits(tc->present, r0, n, m->tmpmask, m->W);
    bool typed = !tc->nforeign &&
                 ((tc->kind == DC_COL_STRING && def->k == DC_K_STRING) ||
                  (tc->kind == DC_COL_INT && def->k == DC_K_INT) ||
                  (tc->kind == DC_COL_BOOL && def->k == DC_K_BOOL));
    if (!typed) {
        res->kind = VK_BOX;
        dc_tcol_get_run(m->t, tc, r0, n, res->box, m->got);
        for (uint32_t l = 0; l < n; l++)
            if (!m->got[l])
                res->box[l] = *def;
        return;
    }
    switch (tc->kind) {
    case DC_COL_STRING: {
        res->kind = VK_SID;
        uint32_t d = m->b->const_sid[k];
        for (uint32_t l = 0; l < n; l++)
            res->id[l] = dc_bit(m->tmpmask, l) ? tc->v.sid[r0 + l] : d;
        break;
    }
    case DC_COL_INT:
        res->kind = VK_INT;
        for (uint32_t l = 0; l < n; l++)
            res->i[l] = dc_bit(m->tmpmask, l) ? tc->v.i[r0 + l] : def->u.i;
        break;
    default:
        res->kind = VK_BOOL;
        extract_bits(tc->v.bits, r0, n, res->bits, m->W);
        for (uint32_t w = 0; w < m->W; w++)
            res->bits[w] = (res->bits[w] & m->tmpmask[w]) |
                           (def->u.b ? ~m->tmpmask[w] & lane_mask_word(n, w) : 0);
        break;
    }
}

/* ---- Per-distinct-value memos: op(x, constants...) where x is a SID or VID register. */

/* Operand registers of the instruction at pc (stack order). */
static vreg *operand(vm *m, uint32_t pc, int pops, int i)
{
    return &m->regs[m->depth[pc] - pops + i];
}

/* A constant register none of whose lanes was turned into an error (a ?: condition can mark
 * error lanes on a constant in place). */
static bool const_clean(const vm *m, const vreg *r)
{
    if (r->kind != VK_CONST)
        return false;
    for (uint32_t w = 0; w < m->W; w++)
        if (r->err[w])
            return false;
    return true;
}

/* Is the instruction at pc a candidate for a memo: one SID/VID operand, the others constants,
 * and not a call of a function that may answer differently for equal arguments (an impure host
 * function runs once per row, as on the scalar VM)? */
static int memo_operand(vm *m, uint32_t pc, int pops)
{
    int which = -1;
    if (pops > 8)
        return -1;
    uint32_t w = m->p->code[pc];
    if (DC_INSN_OP(w) == DC_OP_CALL && (m->p->fns[DC_INSN_A(w)]->flags & DC_BF_IMPURE))
        return -1;
    for (int i = 0; i < pops; i++) {
        vreg *r = operand(m, pc, pops, i);
        if (r->kind == VK_CONST) {
            if (!const_clean(m, r) || r->kidx == UINT32_MAX)
                return -1;
            continue;
        }
        if ((r->kind != VK_SID && r->kind != VK_VID) || which >= 0)
            return -1;
        which = i;
    }
    return which;
}

/* Compute the memo entry of instruction pc for key from args, once for the whole run (the
 * value lives in the run's arena): its MK_* kind, or 0 when memory ran out. */
static unsigned memo_put(vm *m, uint32_t pc, uint32_t key, dc_val *args)
{
    size_t before = m->run->arena.served;
    dc_val v = dc_vm_apply(m->run, m->p, pc, args);
    if (dc_memo_heavy(m->run->arena.served - before, m->mem_limit, m->p->ncode))
        m->heavy = true;
    if (m->run->oom || !dc_memo_put(m->memo[pc], m->run, key, v)) {
        m->oom = true;
        return 0;
    }
    return memo_kind_of(dc_ms_of(v));
}

static bool memo_run(vm *m, uint32_t pc, int pops, int which, vreg *res)
{
    vreg *x = operand(m, pc, pops, which);
    uint32_t size = x->kind == VK_SID ? m->t->dict_limit + m->b->nextra : x->col->ndistinct;
    if (size == 0)
        return false;
    /* The memo answers for one operand column and one set of constants: a program can reach
     * an instruction with another column (c ? a.fw : a.m) or other constants (s.startsWith(
     * c ? "x" : "y")) in another batch. Then it starts again. */
    uint64_t sig = 1469598103934665603ULL ^ (uint64_t)(x->kind + 1);
    sig = (sig ^ (uint64_t)(uintptr_t)(x->kind == VK_VID ? x->col : NULL)) * 1099511628211ULL;
    for (int i = 0; i < pops; i++)
        if (i != which)
            sig = (sig ^ operand(m, pc, pops, i)->kidx) * 1099511628211ULL;
    if (m->memo[pc] && (m->memo_kind[pc] != (uint8_t)(x->kind + 1) || m->memo_sig[pc] != sig ||
                        m->memo_size[pc] != size)) {
        m->memo[pc] = NULL; /* the old one stays in the run's arena */
    }
    if (!m->memo[pc]) {
        m->memo[pc] = dc_ealloc(m->run, sizeof *m->memo[pc]);
        if (!m->memo[pc] || !dc_memo_init(m->memo[pc], m->run, size)) {
            m->memo[pc] = NULL;
            m->oom = true;
            return false;
        }
        m->memo_kind[pc] = (uint8_t)(x->kind + 1);
        m->memo_sig[pc] = sig;
        m->memo_size[pc] = size;
        m->memo_all[pc] = 0;
        /* A version or quantity column has few distinct values: answer them all now (pure
         * functions of one value and constants), so that no batch needs the first pass. */
        if (x->kind == VK_VID && size <= DC_MEMO_ALL_MAX) {
            dc_val cargs[8];
            unsigned all = 0;
            for (int i = 0; i < pops; i++)
                if (i != which)
                    cargs[i] = get(m, operand(m, pc, pops, i), 0);
            for (uint32_t key = 0; key < size; key++) {
                cargs[which] = x->col->distinct[key];
                unsigned k = memo_put(m, pc, key, cargs);
                if (!k)
                    return false;
                all |= k;
            }
            m->memo_all[pc] = 1;
            m->memo_seen[pc] = all;
        }
    }
    const dc_memo *memo = m->memo[pc];
    dc_val args[8];
    uint32_t n = m->n;
    const uint64_t *A = m->active;
    /* 1. Compute the entries the active lanes need (each distinct value once per run), and
     *    find which kinds of results they have. A lane holding a stale id (parked, or an error
     *    lane) reads key 0, whose answer is then discarded. */
    unsigned seen = 0;
    uint32_t states = 0;
    uint8_t *lst = m->lstate;
    /* Each lane's state, looked up once (the table is paged: two loads) and kept in lst. */
    if (m->memo_all[pc]) {
        seen = m->memo_seen[pc]; /* every key is known */
        for (uint32_t l = 0; l < n; l++)
            lst[l] = dc_memo_state(memo, x->id[l] < size ? x->id[l] : 0);
    } else {
        for (uint32_t l = 0; l < n; l++) {
            uint32_t key = x->id[l] < size ? x->id[l] : 0;
            uint8_t st = dc_memo_state(memo, key);
            if (__builtin_expect(st == DC_MS_UNKNOWN, 0) && dc_bit(A, l) && !dc_bit(x->err, l) &&
                x->id[l] < size) {
                for (int i = 0; i < pops; i++)
                    args[i] = get(m, operand(m, pc, pops, i), l);
                if (!memo_put(m, pc, key, args))
                    return false;
                st = dc_memo_state(memo, key);
            }
            lst[l] = st;
            states |= MS_SET_BIT(st);
        }
        /* Lanes left unknown (parked, errors) read as false and say nothing of the kinds. */
        seen |= memo_kinds_of_set(states & ~MS_SET_BIT(DC_MS_UNKNOWN));
    }
    /* 2. Fill the result in the representation the results allow, without a branch per lane
     *    in the common cases. */
    unsigned vals = seen & ~(unsigned)MK_ERROR;
    int kind = (vals & ~(unsigned)(MK_TRUE | MK_FALSE)) == 0 ? VK_BOOL
               : vals == MK_INT                               ? VK_INT
                                                              : VK_BOX;
    res->kind = kind;
    if (kind == VK_BOOL) {
        if (n % 64)
            memset(lst + n, 0, 64 - n % 64); /* the last word's lanes past n: false */
        uint32_t w = 0;
        for (; w < DC_BITS_WORDS(n); w++)
            res->bits[w] = m->kn->byte_bits(lst + w * 64, 0); /* bit 7: true (unknown: false) */
        for (; w < m->W; w++)
            res->bits[w] = 0;
    } else if (kind == VK_INT) {
        for (uint32_t l = 0; l < n; l++)
            if (lst[l] & DC_MS_INT)
                res->i[l] = dc_memo_int(memo, x->id[l] < size ? x->id[l] : 0);
    } else {
        for (uint32_t l = 0; l < n; l++)
            if (lst[l] != DC_MS_UNKNOWN)
                res->box[l] = dc_memo_value(memo, x->id[l] < size ? x->id[l] : 0);
    }
    /* Errors: the operand's, and the memo's error answers. */
    for (uint32_t w = 0; w < m->W; w++)
        res->err[w] = x->err[w];
    if (seen & MK_ERROR) {
        for (uint32_t l = 0; l < n; l++) {
            if (dc_bit(A, l) && !dc_bit(x->err, l) && (lst[l] & DC_MS_ERROR))
                set_err(res, l, dc_memo_value(memo, x->id[l] < size ? x->id[l] : 0));
        }
    }
    copy_err_values(m, res, x, A);
    return true;
}

/* ---- Generic: lane by lane through the scalar VM's code. */

static void per_lane(vm *m, uint32_t pc, int pops, vreg *res)
{
    dc_val *args = m->args;
    clear_err(m, res);
    res->kind = VK_BOX;
    for (uint32_t w = 0; w < m->W; w++) {
        uint64_t a = m->active[w];
        while (a) {
            uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(a);
            a &= a - 1;
            for (int i = 0; i < pops; i++)
                args[i] = get(m, operand(m, pc, pops, i), l);
            dc_val v = dc_vm_apply(m->lane, m->p, pc, args);
            if (v.k == DC_K_ERROR)
                set_err(res, l, v);
            else
                res->box[l] = v;
        }
    }
    if (m->lane->alloc_failed)
        m->oom = true;
    else if (m->lane->oom)
        m->redo = true;
}

/* ---- Fast paths. */

static bool is_const_kind(const vm *m, const vreg *r, dc_kind k)
{
    return const_clean(m, r) && r->k.k == k;
}

/* EQ/NE of a SID register against a string constant: id equality. */
static bool eq_sid(vm *m, vreg *x, vreg *k, bool ne, vreg *res)
{
    if (x->kind != VK_SID || !is_const_kind(m, k, DC_K_STRING) || k->kidx == UINT32_MAX)
        return false;
    uint32_t want = m->b->const_sid[k->kidx];
    clear_err(m, res);
    res->kind = VK_BOOL;
    m->kn->eq_ids(x->id, m->n, &want, 1, res->bits);
    for (uint32_t w = 0; w < m->W; w++) {
        uint64_t bits = w * 64 < m->n ? res->bits[w] : 0;
        res->err[w] = x->err[w];
        res->bits[w] = (ne ? ~bits : bits) & lane_mask_word(m->n, w);
    }
    copy_err_values(m, res, x, NULL);
    return true;
}

/* Ordering and equality of an INT register against an int constant (the shared kernel). */
static bool cmp_int(vm *m, dc_op op, vreg *x, vreg *k, bool swapped, vreg *res)
{
    if (x->kind != VK_INT || !is_const_kind(m, k, DC_K_INT))
        return false;
    int64_t c = k->k.u.i;
    /* c OP x is x OP' c */
    if (swapped)
        op = op == DC_OP_LT ? DC_OP_GT : op == DC_OP_LE ? DC_OP_GE
           : op == DC_OP_GT ? DC_OP_LT : op == DC_OP_GE ? DC_OP_LE : op;
    clear_err(m, res);
    res->kind = VK_BOOL;
    m->kn->cmp_i64(x->i, m->n, op, c, res->bits);
    for (uint32_t w = 0; w < m->W; w++) {
        if (w * 64 >= m->n)
            res->bits[w] = 0; /* the kernel wrote the batch's words only */
        res->err[w] = x->err[w];
    }
    copy_err_values(m, res, x, NULL);
    return true;
}

/* && and || of two BOOL registers, with cel-go's error absorption. */
static bool logic_bool(vm *m, bool is_and, vreg *a, vreg *b, vreg *res)
{
    if (a->kind != VK_BOOL || b->kind != VK_BOOL)
        return false;
    clear_err(m, res);
    res->kind = VK_BOOL;
    for (uint32_t w = 0; w < m->W; w++) {
        uint64_t valid = lane_mask_word(m->n, w), t, err;
        dc_kn_logic(is_and, valid, a->bits[w] & ~a->err[w], a->err[w] & valid,
                    b->bits[w] & ~b->err[w], b->err[w] & valid, &t, &err);
        res->err[w] = err;
        res->bits[w] = t;
        while (err) {
            uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(err);
            err &= err - 1;
            res->box[l] = dc_bit(a->err, l) ? a->box[l] : b->box[l];
        }
    }
    return true;
}

/* ---- Control flow. */

static uint64_t *pend_mask(vm *m, uint32_t target)
{
    if (!m->pend[target]) {
        m->pend[target] = dc_ealloc(m->run, m->W * sizeof(uint64_t));
        if (!m->pend[target]) {
            m->oom = true;
            return NULL;
        }
        memset(m->pend[target], 0, m->W * sizeof(uint64_t));
    }
    m->has_pend[target] = 1;
    return m->pend[target];
}

/* Move the active lanes selected by `take(lane value)` to the jump target. */
static void jump_lanes(vm *m, uint32_t target, const uint64_t *taken)
{
    uint64_t *pm = pend_mask(m, target);
    if (!pm)
        return;
    for (uint32_t w = 0; w < m->W; w++) {
        pm[w] |= taken[w];
        m->active[w] &= ~taken[w];
    }
}

/* Lanes (active) whose value in r is the bool `want`. */
static void bool_lanes(vm *m, const vreg *r, bool want, uint64_t *out)
{
    for (uint32_t w = 0; w < m->W; w++) {
        if (r->kind == VK_BOOL) {
            out[w] = m->active[w] & ~r->err[w] & (want ? r->bits[w] : ~r->bits[w]);
            continue;
        }
        out[w] = 0;
        uint64_t a = m->active[w];
        while (a) {
            uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(a);
            a &= a - 1;
            dc_val v = get(m, r, l);
            if (v.k == DC_K_BOOL && v.u.b == want)
                out[w] |= (uint64_t)1 << (l & 63);
        }
    }
}

/* ---- Results. */

static bool record_error(vm *m, uint32_t row, dc_val e)
{
    return dc_selection_add_error(m->out, row, e);
}

static void finish_lanes(vm *m, const vreg *r)
{
    if (r->kind == VK_BOOL && !m->keep && (m->row0 & 63) == 0) {
        /* The common case: bools and errors, rows aligned on words. */
        uint64_t *matched = m->out->matched + (m->row0 >> 6);
        /* The batch's own words: the last batch of a table may be shorter than B. */
        for (uint32_t w = 0; w < DC_BITS_WORDS(m->n); w++) {
            uint64_t a = m->active[w];
            matched[w] |= a & ~r->err[w] & r->bits[w];
            uint64_t e = a & r->err[w];
            while (e && !m->oom) {
                uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(e);
                e &= e - 1;
                if (!record_error(m, m->row0 + l, r->box[l]))
                    m->oom = true;
            }
        }
        return;
    }
    for (uint32_t w = 0; w < m->W && !m->oom; w++) {
        uint64_t a = m->active[w];
        while (a) {
            uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(a);
            a &= a - 1;
            uint32_t row = m->row0 + l;
            dc_val v = get(m, r, l);
            if (v.k != DC_K_BOOL && v.k != DC_K_ERROR && m->p->result_must_be_bool)
                v = dc_vm_not_bool(m->lane, v);
            if (m->keep && !dc_val_copy(&m->out->arena, v, &m->out->values[row], 0))
                m->oom = true;
            if (v.k == DC_K_BOOL) {
                if (v.u.b)
                    dc_bit_set(m->out->matched, row);
            } else if (v.k == DC_K_ERROR && !record_error(m, row, v)) {
                m->oom = true;
            }
        }
    }
}

/* A batch that reached the evaluation memory limit (which the scalar VM applies per row, the
 * batch interpreter per batch): forget what it recorded and run its rows on the scalar VM. */
static void redo_batch(vm *m, dc_ectx *c)
{
    dc_selection *s = m->out;
    while (s->nerrors && s->errors[s->nerrors - 1].row >= m->row0)
        s->nerrors--;
    for (uint32_t row = m->row0; row < m->row0 + m->n; row++) {
        s->matched[row >> 6] &= ~((uint64_t)1 << (row & 63));
        s->errored[row >> 6] &= ~((uint64_t)1 << (row & 63));
    }
    for (uint32_t row = m->row0; row < m->row0 + m->n && !m->oom; row++)
        if (!dc_select_row(m->b, m->vars, m->keep, c, s, row))
            m->oom = true;
}

/* ---- The instructions, by vector path (vm/opcodes.def): each path's functions are found in a
 * table generated from the opcode list, so an opcode given a path without its function does
 * not build. The result of a load or a value instruction goes to the slot it pushes; `res` is
 * the scratch register. */

/* LOAD: fill a register for the batch (and commit it). */
static void vl_CONST(vm *m, uint32_t pc, int d, vreg *res)
{
    uint32_t a = DC_INSN_A(m->p->code[pc]);
    res->kind = VK_CONST;
    res->k = m->p->consts[a];
    res->kidx = a;
    clear_err(m, res);
    if (m->p->consts[a].k == DC_K_ERROR) {
        res->kind = VK_BOX;
        for (uint32_t l = 0; l < m->n; l++)
            set_err(res, l, m->p->consts[a]);
    }
    commit(m, &m->regs[d], res);
}

static void vl_LOADVAR(vm *m, uint32_t pc, int d, vreg *res)
{
    uint32_t a = DC_INSN_A(m->p->code[pc]);
    res->kind = VK_CONST;
    res->k = m->vars[a];
    res->kidx = UINT32_MAX;
    clear_err(m, res);
    if (res->k.k == DC_K_ERROR) {
        res->kind = VK_BOX;
        for (uint32_t l = 0; l < m->n; l++)
            set_err(res, l, m->vars[a]);
    }
    commit(m, &m->regs[d], res);
}

static void vl_LOADLOCAL(vm *m, uint32_t pc, int d, vreg *res)
{
    clone(m, res, &m->locals[DC_INSN_A(m->p->code[pc])]);
    commit(m, &m->regs[d], res);
}

/* Blend the active lanes into the local: parked lanes keep theirs. The stack slot is dead after
 * the store, so it can give its buffers. */
static void vl_STORELOCAL(vm *m, uint32_t pc, int d, vreg *res)
{
    (void)res;
    commit_to(m, &m->locals[DC_INSN_A(m->p->code[pc])], &m->regs[d - 1], false);
}

static void vl_LOADATTR(vm *m, uint32_t pc, int d, vreg *res)
{
    load_column(m, pc, res);
    commit(m, &m->regs[d], res);
}
#define vl_LOADCAP vl_LOADATTR

static void vl_HASCOL(vm *m, uint32_t pc, int d, vreg *res)
{
    has_column(m, pc, res);
    commit(m, &m->regs[d], res);
}

static void vl_LOADDEV(vm *m, uint32_t pc, int d, vreg *res)
{
    load_devfield(m, pc, res);
    commit(m, &m->regs[d], res);
}

static void vl_LOADCOLDEF(vm *m, uint32_t pc, int d, vreg *res)
{
    load_column_default(m, pc, res);
    commit(m, &m->regs[d], res);
}

/* MASK: move lanes between the active mask and the pending mask of a jump target. */
static uint32_t target_of(const vm *m, uint32_t pc)
{
    return (uint32_t)((int32_t)pc + 1 + DC_INSN_SA(m->p->code[pc]));
}

static void vc_ANDJ(vm *m, uint32_t pc, vreg *top)
{
    bool_lanes(m, top, DC_INSN_OP(m->p->code[pc]) == DC_OP_ORJ, m->tmpmask);
    jump_lanes(m, target_of(m, pc), m->tmpmask);
}
#define vc_ORJ vc_ANDJ

/* Lanes whose condition is not a bool become errors and jump to the end. */
static void vc_TESTCOND(vm *m, uint32_t pc, vreg *top)
{
    for (uint32_t w = 0; w < m->W; w++) {
        uint64_t av = m->active[w];
        m->tmpmask[w] = 0;
        while (av) {
            uint32_t l = w * 64 + (uint32_t)__builtin_ctzll(av);
            av &= av - 1;
            dc_val v = get(m, top, l);
            if (v.k == DC_K_BOOL)
                continue;
            if (v.k != DC_K_ERROR)
                set_err(top, l, dc_err_no_overload(m->lane));
            m->tmpmask[w] |= (uint64_t)1 << (l & 63);
        }
    }
    jump_lanes(m, target_of(m, pc), m->tmpmask);
}

static void vc_JFALSE(vm *m, uint32_t pc, vreg *top)
{
    bool_lanes(m, top, DC_INSN_OP(m->p->code[pc]) == DC_OP_JTRUE, m->tmpmask);
    jump_lanes(m, target_of(m, pc), m->tmpmask);
}
#define vc_JTRUE vc_JFALSE

static void vc_JMP(vm *m, uint32_t pc, vreg *top)
{
    (void)top;
    jump_lanes(m, target_of(m, pc), m->active);
}

static void vc_RETURN(vm *m, uint32_t pc, vreg *top)
{
    (void)pc;
    finish_lanes(m, top);
    for (uint32_t w = 0; w < m->W; w++)
        m->active[w] = 0;
}

/* KERNEL: a typed kernel over the batch when the operands' representations allow it (else
 * false: the caller tries a memo, then lane by lane). */
static bool vk_AND(vm *m, uint32_t pc, vreg *res)
{
    vreg *x = operand(m, pc, 2, 0), *y = operand(m, pc, 2, 1);
    return logic_bool(m, DC_INSN_OP(m->p->code[pc]) == DC_OP_AND, x, y, res);
}
#define vk_OR vk_AND

static bool vk_EQ(vm *m, uint32_t pc, vreg *res)
{
    dc_op op = DC_INSN_OP(m->p->code[pc]);
    vreg *x = operand(m, pc, 2, 0), *y = operand(m, pc, 2, 1);
    if ((op == DC_OP_EQ || op == DC_OP_NE) &&
        (eq_sid(m, x, y, op == DC_OP_NE, res) || eq_sid(m, y, x, op == DC_OP_NE, res)))
        return true;
    return cmp_int(m, op, x, y, false, res) || cmp_int(m, op, y, x, true, res);
}
#define vk_NE vk_EQ
#define vk_LT vk_EQ
#define vk_LE vk_EQ
#define vk_GT vk_EQ
#define vk_GE vk_EQ

static bool vk_NOT(vm *m, uint32_t pc, vreg *res)
{
    vreg *top = operand(m, pc, 1, 0);
    if (top->kind != VK_BOOL)
        return false;
    clear_err(m, res);
    res->kind = VK_BOOL;
    for (uint32_t w = 0; w < m->W; w++) {
        res->err[w] = top->err[w];
        res->bits[w] = ~top->bits[w] & lane_mask_word(m->n, w);
    }
    for (uint32_t l = 0; l < m->n; l++)
        if (dc_bit(top->err, l))
            res->box[l] = top->box[l];
    return true;
}

/* The dispatch tables, from the vector path of each opcode. */
typedef void (*vload_fn)(vm *m, uint32_t pc, int d, vreg *res);
typedef void (*vmask_fn)(vm *m, uint32_t pc, vreg *top);
typedef bool (*vkernel_fn)(vm *m, uint32_t pc, vreg *res);
#define FMT(f)
#define NONE_(name) NULL
#define LOAD_FN_NONE NONE_
#define LOAD_FN_MASK NONE_
#define LOAD_FN_LOAD(name) vl_##name
#define LOAD_FN_KERNEL NONE_
#define LOAD_FN_MEMO NONE_
#define LOAD_FN_SCALAR NONE_
#define OP(name, fmt, pop, push, cls, vec, doc) [DC_OP_##name] = LOAD_FN_##vec(name),
static const vload_fn vec_load[DC_OP__COUNT] = {
#include "opcodes.def"
};
#undef OP
#define MASK_FN_NONE NONE_
#define MASK_FN_MASK(name) vc_##name
#define MASK_FN_LOAD NONE_
#define MASK_FN_KERNEL NONE_
#define MASK_FN_MEMO NONE_
#define MASK_FN_SCALAR NONE_
#define OP(name, fmt, pop, push, cls, vec, doc) [DC_OP_##name] = MASK_FN_##vec(name),
static const vmask_fn vec_mask[DC_OP__COUNT] = {
#include "opcodes.def"
};
#undef OP
#define KERNEL_FN_NONE NONE_
#define KERNEL_FN_MASK NONE_
#define KERNEL_FN_LOAD NONE_
#define KERNEL_FN_KERNEL(name) vk_##name
#define KERNEL_FN_MEMO NONE_
#define KERNEL_FN_SCALAR NONE_
#define OP(name, fmt, pop, push, cls, vec, doc) [DC_OP_##name] = KERNEL_FN_##vec(name),
static const vkernel_fn vec_kernel[DC_OP__COUNT] = {
#include "opcodes.def"
};
#undef OP
#undef FMT
/* A KERNEL or MEMO path is a value instruction (dc_vm_apply computes its lanes). */
#define FMT(f)
#define OP(name, fmt, pop, push, cls, vec, doc)                                                  \
    _Static_assert((DC_VEC_##vec != DC_VEC_KERNEL && DC_VEC_##vec != DC_VEC_MEMO) ||            \
                       DC_CLS_##cls == DC_CLS_VALUE,                                           \
                   #name ": a KERNEL or MEMO vector path needs the VALUE class");
#include "opcodes.def"
#undef OP
#undef FMT

/* ---- One batch. */

static void run_batch(vm *m)
{
    const dc_program *p = m->p;
    for (uint32_t w = 0; w < m->W; w++)
        m->active[w] = lane_mask_word(m->n, w);
    memset(m->has_pend, 0, p->ncode);
    /* Rows Kubernetes cannot present to CEL fail at once. */
    for (uint32_t l = 0; l < m->n && m->t->nfaults; l++) {
        const dc_val *f = dc_table_fault(m->t, m->row0 + l);
        if (f) {
            if (!record_error(m, m->row0 + l, *f))
                m->oom = true;
            if (m->keep && !dc_val_copy(&m->out->arena, *f, &m->out->values[m->row0 + l], 0))
                m->oom = true;
            m->active[l >> 6] &= ~((uint64_t)1 << (l & 63));
        }
    }
    vreg *res = &m->regs[m->p->max_stack + 1];
    uint32_t pc = 0;
    while (pc < p->ncode && !m->oom && !m->redo && !m->heavy) {
        if (m->has_pend[pc]) {
            for (uint32_t w = 0; w < m->W; w++) {
                m->active[w] |= m->pend[pc][w];
                m->pend[pc][w] = 0;
            }
            m->has_pend[pc] = 0;
        }
        dc_op op = DC_INSN_OP(p->code[pc]);
        unsigned words = dc_fmt_words(dc_op_info[op].fmt);
        if (mask_empty(m, m->active)) {
            /* Nothing runs here: go to the next place lanes wait at. */
            uint32_t next = pc + words;
            while (next < p->ncode && !m->has_pend[next])
                next++;
            pc = next;
            continue;
        }
        int d = m->depth[pc];
        int pops = (int)p->pops[pc];
        switch (dc_op_info[op].vec) {
        case DC_VEC_NONE:
            break;
        case DC_VEC_MASK:
            vec_mask[op](m, pc, d > 0 ? &m->regs[d - 1] : NULL);
            break;
        case DC_VEC_LOAD:
            vec_load[op](m, pc, d, res);
            break;
        case DC_VEC_KERNEL:
        case DC_VEC_MEMO: {
            /* A typed kernel, else a memo when one operand is dictionary-encoded and the others
             * constant (startsWith, matches, compareTo, in, ...), else lane by lane. */
            bool done = vec_kernel[op] && vec_kernel[op](m, pc, res);
            if (!done) {
                int which = pops > 0 ? memo_operand(m, pc, pops) : -1;
                done = which >= 0 && memo_run(m, pc, pops, which, res);
            }
            if (!done)
                per_lane(m, pc, pops, res);
            commit(m, &m->regs[d - pops], res);
            break;
        }
        case DC_VEC_SCALAR:
            /* never here: a program holding one runs row by row (dc_program.loops) */
            m->oom = true;
            break;
        }
        pc += words;
    }
}

static bool alloc_regs(vm *m)
{
    m->nregs = m->p->max_stack + 2 + m->p->nlocals;
    m->regs = dc_ealloc(m->run, m->nregs * sizeof *m->regs);
    if (!m->regs)
        return false;
    for (uint32_t r = 0; r < m->nregs; r++) {
        vreg *x = &m->regs[r];
        memset(x, 0, sizeof *x);
        x->err = dc_ealloc(m->run, m->W * sizeof(uint64_t));
        x->bits = dc_ealloc(m->run, m->W * sizeof(uint64_t));
        x->i = dc_ealloc(m->run, m->B * sizeof(int64_t));
        x->id = dc_ealloc(m->run, m->B * sizeof(uint32_t));
        x->box = dc_ealloc(m->run, m->B * sizeof(dc_val));
        if (!x->err || !x->bits || !x->i || !x->id || !x->box)
            return false;
        memset(x->err, 0, m->W * sizeof(uint64_t));
        memset(x->bits, 0, m->W * sizeof(uint64_t));
        x->kind = VK_CONST;
        x->k = dc_null();
        x->kidx = UINT32_MAX;
    }
    m->locals = m->regs + m->p->max_stack + 2;
    return true;
}

dracel_status dc_vvm_batches(const dc_bound *b, const dc_val *vars, const dc_vopts *o,
                             dc_selection *out, bool *heavy)
{
    const dc_program *p = b->p;
    const dc_table *t = b->t;
    vm m;
    memset(&m, 0, sizeof m);
    m.b = b;
    m.p = p;
    m.t = t;
    m.vars = vars;
    m.out = out;
    m.keep = o->keep_values;
    m.kn = dc_kn();
    m.run = &out->run;
    m.lane = &out->lane;
    m.mem_limit = o->mem_limit;
    m.B = o->batch ? o->batch : DC_VVM_DEFAULT_BATCH;
    m.W = (m.B + 63) / 64;
    m.depth = p->depth;
    m.args = dc_ealloc(m.run, (p->max_pops + 1) * sizeof *m.args);
    m.pend = dc_ealloc(m.run, p->ncode * sizeof *m.pend);
    m.has_pend = dc_ealloc(m.run, p->ncode);
    m.memo = dc_ealloc(m.run, p->ncode * sizeof *m.memo);
    m.memo_kind = dc_ealloc(m.run, p->ncode);
    m.memo_sig = dc_ealloc(m.run, p->ncode * sizeof *m.memo_sig);
    m.memo_size = dc_ealloc(m.run, p->ncode * sizeof *m.memo_size);
    m.memo_all = dc_ealloc(m.run, p->ncode);
    m.memo_seen = dc_ealloc(m.run, p->ncode * sizeof *m.memo_seen);
    m.absent = dc_ealloc(m.run, (p->ncols + 1) * sizeof *m.absent);
    m.active = dc_ealloc(m.run, m.W * sizeof(uint64_t));
    m.tmpmask = dc_ealloc(m.run, m.W * sizeof(uint64_t));
    m.lstate = dc_ealloc(m.run, m.W * 64);
    m.got = dc_ealloc(m.run, m.W * 64 * sizeof *m.got);
    if (!m.args || !m.pend || !m.has_pend || !m.memo || !m.memo_kind || !m.absent ||
        !m.memo_sig || !m.memo_size || !m.memo_all || !m.memo_seen || !m.active ||
        !m.tmpmask || !m.lstate || !m.got || !alloc_regs(&m))
        return DRACEL_ENOMEM;
    memset(m.pend, 0, p->ncode * sizeof *m.pend);
    memset(m.memo, 0, p->ncode * sizeof *m.memo);
    memset(m.memo_kind, 0, p->ncode);
    for (uint32_t i = 0; i < p->ncols; i++) {
        m.absent[i] = dc_error(m.run, "no such key: %s", p->cols[i].id->data);
        if (m.run->oom)
            return DRACEL_ENOMEM;
    }
    dc_ectx *c = &out->row;
    dc_ectx_reset(c, o->cost_limit, o->mem_limit);
    for (uint32_t row0 = 0; row0 < t->rows && !m.oom; row0 += m.B) {
        dc_arena_reset(&m.lane->arena);
        m.lane->mem_base = m.lane->arena.served;
        m.lane->oom = m.lane->limit_hit = m.lane->alloc_failed = m.redo = false;
        m.row0 = row0;
        m.n = t->rows - row0 < m.B ? t->rows - row0 : m.B;
        run_batch(&m);
        if (!m.oom && m.lane->alloc_failed)
            m.oom = true;
        if (m.heavy)
            break;
        if (!m.oom && (m.redo || m.lane->limit_hit))
            redo_batch(&m, c);
    }
    *heavy = m.heavy;
    return m.oom ? DRACEL_ENOMEM : DRACEL_OK;
}
