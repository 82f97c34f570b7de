/*
 * vplan_run.c: running a fused plan over a table (vm/vplan.h; plans: vm/vplan_build.c).
 *
 * Exactness: a leaf's bits are its value's for every row (the memo's answer for a value is
 * dc_vm_apply's, computed once); `&&`/`||` are cel-go's (a deciding side wins; two bools give
 * the other; otherwise an error) on (true, error-or-other) bit pairs; skipping the right side
 * of a word that the left decides changes nothing because CEL has no side effects and the
 * vector VM runs a plan only for programs whose worst-case cost fits the budget, and redoes a
 * run whose memos come near the memory limit row by row (vm/select.c, dc_memo_heavy). Error
 * rows are evaluated again on boxed values along the same tree, with dc_vm_apply at each node:
 * the left error wins as in logic() of vm/vm.c.
 */
#include "vplan_int.h"

#include <string.h>

#include "kernels.h"
#include "select.h"

/* ---- Running. */

/* A leaf's answer for a value is a memo state of vm/kernels.h (DC_MS_TRUE, DC_MS_OTHER for an
 * error or not a bool, 0 for false, DC_MS_UNKNOWN until computed). A complete memo true (or
 * false) for at most this many keys compares ids instead. */
#define MEMO_SET_MAX 4u

enum { M_GATHER, M_IN, M_NOTIN };

/* Words run together: a kernel call covers a block, and a node's arrays live on the stack. */
#define BLK 16u

typedef struct leafst {
    dc_memo memo;      /* P_MEMO: per key, its state and value */
    uint8_t *pst;      /* P_DRIVER: per pool, its driver's answer */
    bool uniform;      /* P_DRIVER: every pool has the same answer, pst[0] (one driver) */
    uint32_t size;
    const dc_tcol *tc;
    bool complete;     /* P_MEMO: every key computed */
    uint8_t mode;      /* P_MEMO: M_GATHER, or (complete, no other) M_IN / M_NOTIN ids */
    uint32_t ids[MEMO_SET_MAX], nids;
    bool others;       /* P_MEMO, P_DRIVER: some computed answer is DC_MS_OTHER */
    uint8_t abs_st;    /* the answer for a row without the column (P_CONST: for every row) */
    dc_val abs_val;
    dc_val copied;     /* abs_val (an error) copied into the selection, once */
    uint64_t we[BLK];  /* every node: its error lanes in the block's words (attribute()) */
    uint64_t src;      /* leaves: the word's result lanes whose error is this leaf's */
} leafst;

typedef struct prun {
    const dc_plan *pl;
    const dc_bound *b;
    const dc_program *p;
    const dc_table *t;
    const dc_val *vars;
    dc_ectx *run;      /* memos and their values: the whole run */
    dc_ectx *lane;     /* error rows */
    dc_val *absent;    /* per program column: "no such key: id" */
    leafst *ls;        /* per plan node */
    uint32_t *leaves, nleaves;
    bool absent_errors; /* every leaf errs only where its column is absent, with abs_val */
    size_t mem_limit;
    bool heavy;        /* a memo entry came near the memory limit (dc_memo_heavy) */
    const dc_kernels *kn;
    bool oom;
} prun;

/* The value of node vi for a device whose column is x (present) or absent. */
static dc_val vt_eval(prun *r, dc_ectx *c, uint32_t vi, bool present, dc_val x)
{
    const vnode *v = &r->pl->vn[vi];
    switch (v->kind) {
    case VN_CONST: return r->p->consts[v->a];
    case VN_VAR: return r->vars[v->a];
    case VN_COL: return present ? x : r->absent[v->a];
    case VN_COLDEF: return present ? x : r->p->consts[v->def];
    case VN_HAS: return dc_bool(present);
    default: {
        dc_val args[MAX_ARGS];
        for (uint32_t i = 0; i < v->nargs; i++)
            args[i] = vt_eval(r, c, v->args[i], present, x);
        return dc_vm_apply(c, r->p, v->pc, args);
    }
    }
}

static dc_val key_value(const prun *r, const leafst *s, uint32_t key)
{
    switch (s->tc->kind) {
    case DC_COL_STRING: return dc_strval(dc_dict_str(r->t->dict, key));
    case DC_COL_BOOL: return dc_bool(key != 0);
    default: return s->tc->distinct[key];
    }
}

/* vt_eval for a memo (whole-run memory): marks the run heavy when it took much memory. */
static dc_val memo_eval(prun *r, uint32_t vi, bool present, dc_val x)
{
    size_t before = r->run->arena.served;
    dc_val v = vt_eval(r, r->run, vi, present, x);
    if (dc_memo_heavy(r->run->arena.served - before, r->mem_limit, r->p->ncode))
        r->heavy = true;
    return v;
}

static void memo_fill(prun *r, const pnode *n, leafst *s, uint32_t key)
{
    dc_val v = memo_eval(r, n->vn, true, key_value(r, s, key));
    if (r->run->oom || !dc_memo_put(&s->memo, r->run, key, v)) {
        r->oom = true;
        return;
    }
    if (v.k != DC_K_BOOL)
        s->others = true;
}

static bool init_leaves(prun *r)
{
    const dc_plan *pl = r->pl;
    for (uint32_t i = 0; i < r->p->ncols; i++) {
        r->absent[i] = dc_error(r->run, "no such key: %s", r->p->cols[i].id->data);
        if (r->run->oom)
            return false;
    }
    /* device.driver and allowMultipleAllocations: present on every row. */
    r->absent[DRIVER_COL(r->p)] = r->absent[MULTI_COL(r->p)] = dc_bool(false);
    r->leaves = dc_ealloc(r->run, (pl->npn + 1) * sizeof *r->leaves);
    if (!r->leaves)
        return false;
    r->absent_errors = true;
    for (uint32_t i = 0; i < pl->npn && !r->oom; i++) {
        const pnode *n = &pl->pn[i];
        leafst *s = &r->ls[i];
        if (n->kind == P_AND || n->kind == P_OR || n->kind == P_NOT)
            continue;
        r->leaves[r->nleaves++] = i;
        if (n->kind == P_DRIVER) {
            /* Each pool's answer, computed once per run of pools of one driver (pools are in
             * driver order, so that is once per driver). */
            const dc_table *t = r->t;
            s->pst = dc_ealloc(r->run, t->npools + 1);
            if (!s->pst)
                return false;
            uint32_t last = DC_DICT_NONE;
            uint8_t st = 0;
            for (uint32_t k = 0; k < t->npools && !r->oom; k++) {
                uint32_t key = t->pools[k].driver;
                if (key != last) {
                    st = dc_ms_of(memo_eval(r, n->vn, true, dc_strval(dc_dict_str(t->dict, key))));
                    s->others |= (st & DC_MS_OTHER) != 0;
                    last = key;
                }
                s->pst[k] = st;
            }
            s->uniform = true;
            for (uint32_t k = 1; k < t->npools; k++)
                s->uniform &= s->pst[k] == s->pst[0];
            if (r->run->oom)
                return false;
            continue;
        }
        s->abs_val = memo_eval(r, n->vn, false, dc_null());
        s->abs_st = dc_ms_of(s->abs_val);
        if (r->run->oom)
            return false;
        if (n->kind != P_MEMO)
            continue;
        s->tc = r->pl->cols[n->col];
        s->size = s->tc->kind == DC_COL_STRING ? r->t->dict_limit
                  : s->tc->kind == DC_COL_BOOL ? 2
                                               : s->tc->ndistinct;
        if (!dc_memo_init(&s->memo, r->run, s->size + 1))
            return false;
        /* Every distinct value of the column known: answer each now. */
        const uint32_t *keys = NULL;
        uint32_t nkeys = 0;
        if (s->tc->kind == DC_COL_STRING && s->tc->sids) {
            keys = s->tc->sids;
            nkeys = s->tc->nsids;
            s->complete = true;
        } else if (s->tc->kind != DC_COL_STRING && s->size <= DC_MEMO_ALL_MAX) {
            nkeys = s->size;
            s->complete = true;
        }
        for (uint32_t k = 0; k < nkeys && !r->oom; k++)
            memo_fill(r, n, s, keys ? keys[k] : k);
        if (!s->complete || s->others || s->tc->kind == DC_COL_BOOL)
            continue;
        /* Few true (or few false) values: compare ids, as for `in`. */
        uint32_t nt = 0, nf = 0, tids[MEMO_SET_MAX], fids[MEMO_SET_MAX];
        for (uint32_t k = 0; k < nkeys; k++) {
            uint32_t key = keys ? keys[k] : k;
            if (dc_memo_state(&s->memo, key) == DC_MS_TRUE) {
                if (nt < MEMO_SET_MAX)
                    tids[nt] = key;
                nt++;
            } else {
                if (nf < MEMO_SET_MAX)
                    fids[nf] = key;
                nf++;
            }
        }
        if (nt <= MEMO_SET_MAX && nt <= nf) {
            s->mode = M_IN;
            s->nids = nt;
            memcpy(s->ids, tids, nt * sizeof *tids);
        } else if (nf <= MEMO_SET_MAX) {
            s->mode = M_NOTIN;
            s->nids = nf;
            memcpy(s->ids, fids, nf * sizeof *fids);
        } else if (nt <= MEMO_SET_MAX) {
            s->mode = M_IN;
            s->nids = nt;
            memcpy(s->ids, tids, nt * sizeof *tids);
        }
    }
    for (uint32_t i = 0; i < r->nleaves; i++) {
        const leafst *s = &r->ls[r->leaves[i]];
        if (s->others || ((s->abs_st & DC_MS_OTHER) && s->abs_val.k != DC_K_ERROR))
            r->absent_errors = false;
    }
    return !r->oom;
}

/* A memo's answers for the lanes of one word: t (true) and e (error or other); rows without
 * the column take the absent answer. */
static void memo_word(prun *r, const pnode *n, leafst *s, uint32_t w, uint32_t cnt,
                      uint64_t valid, uint64_t *t, uint64_t *e)
{
    const dc_tcol *tc = s->tc;
    uint64_t present = tc->present[w];
    uint64_t tb = 0, eb = 0;
    uint32_t base = w * 64;
    if (s->mode != M_GATHER) {
        const uint32_t *ids = (tc->kind == DC_COL_STRING ? tc->v.sid : tc->v.vid) + base;
        if (s->nids)
            r->kn->eq_ids(ids, cnt, s->ids, s->nids, &tb);
        if (s->mode == M_NOTIN)
            tb = ~tb;
    } else if (tc->kind == DC_COL_BOOL) {
        uint64_t bits = tc->v.bits[w];
        uint8_t s0 = dc_memo_state(&s->memo, 0), s1 = dc_memo_state(&s->memo, 1);
        tb = (s1 & DC_MS_TRUE ? bits : 0) | (s0 & DC_MS_TRUE ? ~bits : 0);
        eb = (s1 & DC_MS_OTHER ? bits : 0) | (s0 & DC_MS_OTHER ? ~bits : 0);
    } else {
        const uint32_t *ids = (tc->kind == DC_COL_STRING ? tc->v.sid : tc->v.vid) + base;
        uint8_t tmp[64] = {0};
        for (;;) {
            for (uint32_t l = 0; l < cnt; l++)
                tmp[l] = dc_memo_state(&s->memo, ids[l]);
            uint64_t unk = s->complete ? 0 : r->kn->byte_bits(tmp, 2) & present;
            if (!unk) {
                tb = r->kn->byte_bits(tmp, 0);
                eb = s->others ? r->kn->byte_bits(tmp, 1) : 0;
                break;
            }
            while (unk) {
                uint32_t l = (uint32_t)__builtin_ctzll(unk);
                unk &= unk - 1;
                if (dc_memo_state(&s->memo, ids[l]) == DC_MS_UNKNOWN)
                    memo_fill(r, n, s, ids[l]);
            }
            if (r->oom)
                return;
        }
    }
    *t = (tb & present) | (s->abs_st & DC_MS_TRUE ? ~present & valid : 0);
    *e = (eb & present) | (s->abs_st & DC_MS_OTHER ? ~present & valid : 0);
}

/* Node ni over the words [w0, w0 + nw) of the table (rows: the lanes they hold; valid[i]: the
 * lanes of word w0 + i): t (true) and e (an error, or a value that is not a bool) per word. */
static void eval_block(prun *r, uint32_t ni, uint32_t w0, uint32_t nw, uint32_t rows,
                       const uint64_t *valid, uint64_t *t, uint64_t *e)
{
    const pnode *n = &r->pl->pn[ni];
    leafst *s = &r->ls[ni];
    const dc_tcol *tc = n->kind >= P_EQID ? r->pl->cols[n->col] : NULL;
    uint32_t base = w0 * 64;
    switch (n->kind) {
    case P_AND:
    case P_OR: {
        uint64_t tb[BLK], eb[BLK];
        eval_block(r, n->a, w0, nw, rows, valid, t, e);
        bool decided = true; /* the left side decides every lane */
        for (uint32_t i = 0; i < nw && decided; i++)
            decided = n->kind == P_AND ? (valid[i] & ~t[i] & ~e[i]) == valid[i] : t[i] == valid[i];
        if (decided) {
            memset(e, 0, nw * sizeof *e);
            break;
        }
        eval_block(r, n->b, w0, nw, rows, valid, tb, eb);
        for (uint32_t i = 0; i < nw; i++)
            dc_kn_logic(n->kind == P_AND, valid[i], t[i], e[i], tb[i], eb[i], &t[i], &e[i]);
        break;
    }
    case P_NOT:
        eval_block(r, n->a, w0, nw, rows, valid, t, e);
        for (uint32_t i = 0; i < nw; i++)
            t[i] = valid[i] & ~t[i] & ~e[i];
        break;
    case P_CONST:
        for (uint32_t i = 0; i < nw; i++) {
            t[i] = s->abs_st & DC_MS_TRUE ? valid[i] : 0;
            e[i] = s->abs_st & DC_MS_OTHER ? valid[i] : 0;
        }
        break;
    case P_MEMO:
        for (uint32_t i = 0; i < nw; i++) {
            uint32_t cnt = rows - i * 64 < 64 ? rows - i * 64 : 64;
            memo_word(r, n, s, w0 + i, cnt, valid[i], &t[i], &e[i]);
        }
        break;
    case P_DRIVER:
        for (uint32_t i = 0; i < nw; i++) {
            if (s->uniform) {
                t[i] = s->pst[0] & DC_MS_TRUE ? valid[i] : 0;
                e[i] = s->pst[0] & DC_MS_OTHER ? valid[i] : 0;
                continue;
            }
            uint32_t cnt = rows - i * 64 < 64 ? rows - i * 64 : 64;
            const uint32_t *pool = r->t->pool + base + i * 64;
            uint8_t tmp[64] = {0};
            for (uint32_t l = 0; l < cnt; l++)
                tmp[l] = s->pst[pool[l]];
            t[i] = r->kn->byte_bits(tmp, 0);
            e[i] = s->others ? r->kn->byte_bits(tmp, 1) : 0;
        }
        break;
    case P_HAS:
        for (uint32_t i = 0; i < nw; i++) {
            t[i] = tc->present[w0 + i];
            e[i] = 0;
        }
        break;
    default: {
        /* A comparison leaf: the kernel over the block, then the column's presence. */
        const uint64_t *present = tc->present + w0;
        switch (n->kind) {
        case P_EQID:
            r->kn->eq_ids(tc->v.sid + base, rows, n->ids, 1, t);
            if (n->op)
                for (uint32_t i = 0; i < nw; i++)
                    t[i] = ~t[i];
            break;
        case P_INSET:
            if (n->nids)
                r->kn->eq_ids(tc->v.sid + base, rows, n->ids, n->nids, t);
            else
                memset(t, 0, nw * sizeof *t);
            break;
        case P_CMPINT: r->kn->cmp_i64(tc->v.i + base, rows, (dc_op)n->op, n->c, t); break;
        case P_ININT: {
            uint64_t one[BLK];
            memset(t, 0, nw * sizeof *t);
            for (uint32_t k = 0; k < n->nids; k++) {
                r->kn->cmp_i64(tc->v.i + base, rows, DC_OP_EQ, n->ints[k], one);
                for (uint32_t i = 0; i < nw; i++)
                    t[i] |= one[i];
            }
            break;
        }
        default: /* P_BOOL */
            memcpy(t, tc->v.bits + w0, nw * sizeof *t);
            break;
        }
        for (uint32_t i = 0; i < nw; i++) {
            t[i] &= present[i];
            e[i] = ~present[i] & valid[i];
        }
        break;
    }
    }
    memcpy(s->we, e, nw * sizeof *e);
}

/* Which leaf's error each of `mask`'s lanes (errors of node ni) is: the left error wins, as in
 * logic() of vm/vm.c. Valid when every error is a leaf's absent error (prun.absent_errors). */
static void attribute(prun *r, uint32_t ni, uint32_t i, uint64_t mask)
{
    if (!mask)
        return;
    const pnode *n = &r->pl->pn[ni];
    switch (n->kind) {
    case P_AND:
    case P_OR: {
        uint64_t left = r->ls[n->a].we[i] & mask;
        attribute(r, n->a, i, left);
        attribute(r, n->b, i, mask & ~left);
        return;
    }
    case P_NOT: attribute(r, n->a, i, mask); return;
    default: r->ls[ni].src |= mask; return;
    }
}

/* The exact value of node ni at a row (for rows whose result is an error or not a bool). */
static dc_val lane_val(prun *r, uint32_t ni, uint32_t row)
{
    const pnode *n = &r->pl->pn[ni];
    leafst *s = &r->ls[ni];
    switch (n->kind) {
    case P_AND:
    case P_OR: {
        /* logic() of vm/vm.c: a deciding bool wins, two bools give the other, then the left
         * error, the right error, or no such overload (from the instruction itself). */
        bool decide = n->kind == P_OR;
        dc_val args[2];
        args[0] = lane_val(r, n->a, row);
        if (args[0].k == DC_K_BOOL && args[0].u.b == decide)
            return args[0];
        args[1] = lane_val(r, n->b, row);
        if (args[1].k == DC_K_BOOL && (args[1].u.b == decide || args[0].k == DC_K_BOOL))
            return args[1];
        if (args[0].k == DC_K_ERROR)
            return args[0];
        if (args[1].k == DC_K_ERROR)
            return args[1];
        return dc_vm_apply(r->lane, r->p, n->pc, args);
    }
    case P_NOT: {
        dc_val x = lane_val(r, n->a, row);
        return dc_vm_apply(r->lane, r->p, n->pc, &x);
    }
    case P_CONST: return s->abs_val;
    case P_DRIVER: /* the same value the run's answers came from, evaluated again */
        return vt_eval(r, r->lane, n->vn, true,
                       dc_strval(dc_dict_str(r->t->dict, r->t->pools[r->t->pool[row]].driver)));
    default: break;
    }
    const dc_tcol *tc = r->pl->cols[n->col];
    if (!dc_bit(tc->present, row))
        return s->abs_val;
    if (n->kind == P_MEMO) {
        uint32_t key = tc->kind == DC_COL_STRING ? tc->v.sid[row]
                       : tc->kind == DC_COL_BOOL ? (uint32_t)dc_bit(tc->v.bits, row)
                                                 : tc->v.vid[row];
        if (dc_memo_state(&s->memo, key) == DC_MS_UNKNOWN)
            memo_fill(r, n, s, key);
        if (r->oom)
            return dc_bool(false);
        return dc_memo_value(&s->memo, key);
    }
    switch (n->kind) {
    case P_EQID: return dc_bool((tc->v.sid[row] == n->ids[0]) != (n->op != 0));
    case P_INSET: {
        bool hit = false;
        for (uint32_t i = 0; i < n->nids; i++)
            hit |= tc->v.sid[row] == n->ids[i];
        return dc_bool(hit);
    }
    case P_CMPINT: {
        int64_t x = tc->v.i[row];
        switch (n->op) {
        case DC_OP_EQ: return dc_bool(x == n->c);
        case DC_OP_NE: return dc_bool(x != n->c);
        case DC_OP_LT: return dc_bool(x < n->c);
        case DC_OP_LE: return dc_bool(x <= n->c);
        case DC_OP_GT: return dc_bool(x > n->c);
        default: return dc_bool(x >= n->c);
        }
    }
    case P_ININT: {
        bool hit = false;
        for (uint32_t i = 0; i < n->nids; i++)
            hit |= tc->v.i[row] == n->ints[i];
        return dc_bool(hit);
    }
    case P_BOOL: return dc_bool(dc_bit(tc->v.bits, row));
    default: return dc_bool(true); /* P_HAS of a present column */
    }
}

dracel_status dc_plan_run(const dc_bound *b, const dc_val *vars, bool keep, size_t mem_limit,
                          dc_selection *out, bool *heavy)
{
    const dc_plan *pl = b->plan;
    const dc_table *t = b->t;
    prun r;
    memset(&r, 0, sizeof r);
    r.pl = pl;
    r.b = b;
    r.p = b->p;
    r.t = t;
    r.vars = vars;
    r.mem_limit = mem_limit;
    r.kn = dc_kn();
    r.run = &out->run;
    r.lane = &out->lane;
    dc_ectx_reset(r.run, 0, 0);
    dc_ectx_reset(r.lane, 0, 0);
    r.absent = dc_ealloc(r.run, (r.p->ncols + 2) * sizeof *r.absent);
    r.ls = dc_ealloc(r.run, pl->npn * sizeof *r.ls);
    if (!r.absent || !r.ls) {
        r.oom = true;
    } else {
        memset(r.ls, 0, pl->npn * sizeof *r.ls);
        if (!init_leaves(&r))
            r.oom = true;
    }
    const dc_foreign *fault = t->faults, *fault_end = t->nfaults ? t->faults + t->nfaults : NULL;
    size_t words = DC_BITS_WORDS(t->rows);
    uint64_t vb[BLK], tbb[BLK], ebb[BLK];
    for (uint32_t w = 0; w < words && !r.oom && !r.heavy; w++) {
        uint32_t base = w * 64, cnt = t->rows - base < 64 ? t->rows - base : 64;
        uint32_t i = w % BLK;
        if (i == 0) {
            /* The next block of words at once. */
            uint32_t nw = words - w < BLK ? (uint32_t)(words - w) : BLK;
            uint32_t rows = t->rows - base < BLK * 64 ? t->rows - base : BLK * 64;
            for (uint32_t k = 0; k < nw; k++)
                vb[k] = k + 1 < nw ? ~(uint64_t)0 : dc_kn_valid(rows - k * 64);
            eval_block(&r, pl->root, w, nw, rows, vb, tbb, ebb);
            if (r.oom || r.heavy)
                break;
            /* The common case at once: one leaf, whose errors are all its absent error (the
             * selection's common error), and no faulty row in the block. */
            leafst *s0 = &r.ls[r.leaves[0]];
            if (!keep && r.absent_errors && r.nleaves == 1 &&
                (fault == fault_end || fault->row >= base + rows)) {
                uint64_t any = 0;
                for (uint32_t k = 0; k < nw; k++) {
                    out->matched[w + k] = tbb[k] & ~ebb[k];
                    out->errored[w + k] |= ebb[k];
                    any |= ebb[k];
                }
                if (any) {
                    if (s0->copied.k != DC_K_ERROR &&
                        !dc_val_copy(&out->arena, s0->abs_val, &s0->copied, 0))
                        r.oom = true;
                    out->common_err = s0->copied;
                }
                w += nw - 1;
                continue;
            }
        }
        uint64_t valid = vb[i], tb = tbb[i], eb = ebb[i];
        /* Rows Kubernetes cannot present to CEL fail whatever the program. */
        uint64_t faulty = 0;
        const dc_foreign *f0 = fault;
        for (; fault < fault_end && fault->row < base + cnt; fault++)
            faulty |= (uint64_t)1 << (fault->row - base);
        eb |= faulty;
        tb &= ~eb;
        out->matched[w] = tb;
        if (!eb && !keep)
            continue;
        if (!keep && r.absent_errors) {
            /* Each error is some leaf's absent error: copied once, shared by its rows. The
             * first leaf's is the selection's common error, which needs no entry per row. */
            uint64_t mine = eb & ~faulty;
            if (r.nleaves > 1)
                attribute(&r, pl->root, i, mine);
            else
                r.ls[r.leaves[0]].src = mine;
            leafst *s0 = &r.ls[r.leaves[0]];
            uint64_t common = s0->src;
            if (common) {
                if (s0->copied.k != DC_K_ERROR &&
                    !dc_val_copy(&out->arena, s0->abs_val, &s0->copied, 0))
                    r.oom = true;
                out->common_err = s0->copied;
                out->errored[w] |= common;
            }
            for (uint64_t todo = eb & ~common; todo && !r.oom;) {
                uint32_t l = (uint32_t)__builtin_ctzll(todo), row = base + l;
                todo &= todo - 1;
                if ((faulty >> l) & 1) {
                    while (f0->row != row)
                        f0++;
                    if (!dc_selection_add_error(out, row, f0->v))
                        r.oom = true;
                    continue;
                }
                uint32_t k = 0;
                while (k + 1 < r.nleaves && !((r.ls[r.leaves[k]].src >> l) & 1))
                    k++;
                leafst *s = &r.ls[r.leaves[k]];
                if (s->copied.k != DC_K_ERROR &&
                    !dc_val_copy(&out->arena, s->abs_val, &s->copied, 0))
                    r.oom = true;
                else if (!dc_selection_add_copied(out, row, s->copied))
                    r.oom = true;
            }
            for (uint32_t k = 0; k < r.nleaves; k++)
                r.ls[r.leaves[k]].src = 0;
            continue;
        }
        if (eb)
            dc_arena_reset(&r.lane->arena);
        /* Error rows (and with keep, every row) one by one. */
        uint64_t todo = keep ? valid : eb;
        while (todo && !r.oom) {
            uint32_t l = (uint32_t)__builtin_ctzll(todo), row = base + l;
            todo &= todo - 1;
            dc_val v;
            if (!((eb >> l) & 1)) {
                v = dc_bool((tb >> l) & 1);
            } else if ((faulty >> l) & 1) {
                while (f0->row != row)
                    f0++;
                v = f0->v;
            } else {
                v = lane_val(&r, pl->root, row);
                if (r.p->result_must_be_bool && v.k != DC_K_BOOL && v.k != DC_K_ERROR)
                    v = dc_vm_not_bool(r.lane, v);
                if (r.lane->oom || r.run->oom)
                    r.oom = true;
                if (v.k == DC_K_BOOL && v.u.b)
                    dc_bit_set(out->matched, row);
            }
            if (keep && !dc_val_copy(&out->arena, v, &out->values[row], 0))
                r.oom = true;
            if (v.k == DC_K_ERROR && !dc_selection_add_error(out, row, v))
                r.oom = true;
        }
    }
    *heavy = r.heavy;
    return r.oom ? DRACEL_ENOMEM : DRACEL_OK;
}
