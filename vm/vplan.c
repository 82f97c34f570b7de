/*
 * vplan.c: fused kernels of the vector VM (vm/vplan.h).
 *
 * Building: the bytecode is executed symbolically (a stack of expression nodes) into a tree of
 * value nodes, each knowing the one program column it depends on (or none, or several). `&&`
 * and `||` are recognised with or without their short-circuit jump (ANDJ/ORJ to just past the
 * matching AND/OR); any other jump, a local, an iterator or `device` as a whole ends the
 * attempt. The tree becomes a plan: logic nodes over leaves (see the header).
 *
 * Exactness: a leaf's bits are its value's for every row (the memo's answer for a value is
 * dc_vm_apply's, computed once); `&&`/`||` are cel-go's (a deciding side wins; two bools give
 * the other; otherwise an error) on (true, error-or-other) bit pairs; skipping the right side
 * of a word that the left decides changes nothing because CEL has no side effects and the
 * vector VM runs a plan only for programs whose worst-case cost fits the budget, and redoes a
 * run whose memos come near the memory limit row by row (vm/vvm.c, dc_memo_heavy). Error
 * rows are evaluated again on boxed values along the same tree, with dc_vm_apply at each node:
 * the left error wins as in logic() of vm/vm.c.
 */
#include "vplan.h"

#include <string.h>

#include "kernels.h"
#include "vvm.h"

/* ---- Value nodes: what the bytecode computes. */

enum { VN_CONST, VN_VAR, VN_COL, VN_COLDEF, VN_HAS, VN_OP };

#define COL_NONE UINT32_MAX
#define COL_MANY (UINT32_MAX - 1)
#define MAX_ARGS 16u   /* operands of one instruction in a plan */
#define MAX_DEPTH 64u  /* nesting of a plan (its evaluation recurses) */
#define MAX_SET DC_KN_MAX_SET /* strings of an `in` list compared as ids */

typedef struct vnode {
    uint8_t kind;
    uint8_t nargs;
    uint32_t pc;       /* the instruction */
    uint32_t a;        /* CONST: constant; VAR: slot; COL, COLDEF, HAS: program column */
    uint32_t def;      /* COLDEF: the default's constant */
    uint32_t col;      /* the one column it depends on, COL_NONE or COL_MANY */
    uint32_t depth;
    uint32_t args[MAX_ARGS];
} vnode;

/* ---- Plan nodes. */

enum { P_AND, P_OR, P_NOT, P_CONST, P_EQID, P_INSET, P_CMPINT, P_ININT, P_BOOL, P_HAS, P_MEMO,
       P_DRIVER };

typedef struct pnode {
    uint8_t kind;
    uint8_t op;        /* P_CMPINT: the comparison (column OP constant); P_EQID: 1 for != */
    uint32_t pc;       /* P_AND, P_OR, P_NOT: the instruction */
    uint32_t a, b;     /* children */
    uint32_t vn;       /* leaves: the value node */
    uint32_t col;      /* leaves on a column: the program column */
    int64_t c;         /* P_CMPINT */
    uint32_t ids[MAX_SET], nids; /* P_EQID (one), P_INSET */
    int64_t ints[MAX_SET];       /* P_ININT (nids of them) */
} pnode;

typedef struct dc_plan {
    vnode *vn;
    uint32_t nvn;
    pnode *pn;
    uint32_t npn, root;
    /* Per program column, then the two fields of `device` read as columns: DRIVER (NULL here:
     * its leaves read the row's pool) and MULTI (allowMultipleAllocations, a bool column of
     * the table's bitmap, present on every row). */
    const dc_tcol **cols;
    dc_tcol multi;
} dc_plan;

/* The pseudo-columns after a program's own (pnode.col, vnode.a). */
#define DRIVER_COL(p) ((p)->ncols)
#define MULTI_COL(p) ((p)->ncols + 1)

typedef struct builder {
    const dc_bound *b;
    const dc_program *p;
    dc_plan *pl;        /* cols and multi, filled before reading the tree */
    vnode *vn;
    uint32_t nvn, capvn;
    pnode *pn;
    uint32_t npn, cappn;
    dc_arena *a;
    bool oom;
} builder;

/* Room for one more element in an array of the builder's arena (the old copy stays there). */
static bool room(builder *bd, void **arr, uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    uint32_t ncap = *cap ? *cap * 2 : 16;
    void *p = dc_arena_alloc(bd->a, ncap * size);
    if (!p) {
        bd->oom = true;
        return false;
    }
    if (n)
        memcpy(p, *arr, n * size);
    *arr = p;
    *cap = ncap;
    return true;
}

static uint32_t new_vnode(builder *bd, uint8_t kind, uint32_t pc, uint32_t a)
{
    if (!room(bd, (void **)&bd->vn, bd->nvn, &bd->capvn, sizeof *bd->vn))
        return UINT32_MAX;
    vnode *v = &bd->vn[bd->nvn];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->pc = pc;
    v->a = a;
    v->col = kind == VN_COL || kind == VN_COLDEF || kind == VN_HAS ? a : COL_NONE;
    v->depth = 1;
    return bd->nvn++;
}

static uint32_t merge_col(uint32_t x, uint32_t y)
{
    if (x == COL_NONE)
        return y;
    if (y == COL_NONE || x == y)
        return x;
    return COL_MANY;
}

/* The bytecode as a tree of value nodes; UINT32_MAX when it has another shape. */
static uint32_t read_tree(builder *bd)
{
    const dc_program *p = bd->p;
    uint32_t stack[256], sp = 0;
    uint32_t jt[MAX_DEPTH], nj = 0; /* pending ANDJ/ORJ targets, innermost last */
    uint8_t jk[MAX_DEPTH];
    if (p->max_stack > 256)
        return UINT32_MAX;
    for (uint32_t pc = 0; pc < p->ncode;) {
        uint32_t w = p->code[pc];
        dc_op op = DC_INSN_OP(w);
        uint32_t a = DC_INSN_A(w);
        unsigned words = dc_fmt_words(dc_op_info[op].fmt);
        if (nj && jt[nj - 1] <= pc)
            return UINT32_MAX; /* a jump that does not end just past its AND/OR */
        uint32_t v = UINT32_MAX;
        switch (op) {
        case DC_OP_NOP:
        case DC_OP_CHARGE:
            pc += words;
            continue;
        case DC_OP_CONST: v = new_vnode(bd, VN_CONST, pc, a); break;
        case DC_OP_LOADVAR:
            if (a == p->device_slot)
                return UINT32_MAX; /* the device as a whole */
            v = new_vnode(bd, VN_VAR, pc, a);
            break;
        case DC_OP_LOADDEV:
            /* device.driver and device.allowMultipleAllocations read as columns. */
            v = new_vnode(bd, VN_COL, pc,
                          a == DC_DEVF_DRIVER ? DRIVER_COL(p) : MULTI_COL(p));
            break;
        case DC_OP_LOADATTR:
        case DC_OP_LOADCAP: v = new_vnode(bd, VN_COL, pc, a); break;
        case DC_OP_HASCOL: v = new_vnode(bd, VN_HAS, pc, a); break;
        case DC_OP_LOADCOLDEF:
            v = new_vnode(bd, VN_COLDEF, pc, a);
            if (v != UINT32_MAX)
                bd->vn[v].def = p->code[pc + 1];
            break;
        case DC_OP_ANDJ:
        case DC_OP_ORJ: {
            int32_t t = (int32_t)pc + 1 + DC_INSN_SA(w);
            if (nj == MAX_DEPTH || t <= (int32_t)pc + 1 || (uint32_t)t > p->ncode ||
                (nj && (uint32_t)t > jt[nj - 1]) || sp == 0)
                return UINT32_MAX;
            jt[nj] = (uint32_t)t;
            jk[nj++] = op == DC_OP_ANDJ ? DC_OP_AND : DC_OP_OR;
            pc += words;
            continue;
        }
        case DC_OP_RETURN:
            if (sp != 1 || nj)
                return UINT32_MAX;
            return stack[0];
        default: {
            /* A value instruction (the class dc_vm_apply computes) becomes a node; any other
             * (locals, iterators, other jumps) ends the attempt. */
            if (dc_op_info[op].cls != DC_CLS_VALUE || dc_op_info[op].vec == DC_VEC_SCALAR)
                return UINT32_MAX;
            uint32_t n = p->pops[pc];
            if (n > MAX_ARGS || n > sp)
                return UINT32_MAX;
            if ((op == DC_OP_AND || op == DC_OP_OR) && nj && jt[nj - 1] == pc + 1) {
                if (jk[nj - 1] != op)
                    return UINT32_MAX;
                nj--;
            }
            v = new_vnode(bd, VN_OP, pc, a);
            if (v == UINT32_MAX)
                return UINT32_MAX;
            vnode *x = &bd->vn[v];
            x->nargs = (uint8_t)n;
            for (uint32_t i = 0; i < n; i++) {
                const vnode *c = &bd->vn[stack[sp - n + i]];
                x->args[i] = stack[sp - n + i];
                x->col = merge_col(x->col, c->col);
                if (c->depth + 1 > x->depth)
                    x->depth = c->depth + 1;
            }
            if (x->depth > MAX_DEPTH)
                return UINT32_MAX;
            sp -= n;
            break;
        }
        }
        if (v == UINT32_MAX || sp == 256)
            return UINT32_MAX;
        stack[sp++] = v;
        pc += words;
    }
    return UINT32_MAX;
}

static uint32_t new_pnode(builder *bd, uint8_t kind)
{
    if (!room(bd, (void **)&bd->pn, bd->npn, &bd->cappn, sizeof *bd->pn))
        return UINT32_MAX;
    pnode *n = &bd->pn[bd->npn];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    return bd->npn++;
}

/* vi is a column (the plain load) of the given kind and of one kind in every row. */
static bool plain_col(const builder *bd, uint32_t vi, dc_colkind kind)
{
    const vnode *v = &bd->vn[vi];
    const dc_tcol *tc = v->kind == VN_COL ? bd->pl->cols[v->a] : NULL;
    return tc && tc->kind == kind && !tc->nforeign;
}

static const dc_val *const_of(const builder *bd, uint32_t vi, dc_kind k)
{
    const vnode *v = &bd->vn[vi];
    if (v->kind != VN_CONST || bd->p->consts[v->a].k != k)
        return NULL;
    return &bd->p->consts[v->a];
}

/* A leaf of one column (or of none): the fastest form its shape allows. */
static uint32_t leaf(builder *bd, uint32_t vi)
{
    const vnode v = bd->vn[vi];
    const dc_tcol *tc = v.col == COL_NONE ? NULL : bd->pl->cols[v.col];
    uint32_t ni;
    if (v.col == DRIVER_COL(bd->p)) {
        /* Anything of device.driver: an answer per driver, read through the row's pool. */
        ni = new_pnode(bd, P_DRIVER);
        if (ni != UINT32_MAX) {
            bd->pn[ni].vn = vi;
            bd->pn[ni].col = v.col;
        }
        return ni;
    }
    if (!tc) {
        /* No column, or one no device has: the same value on every row. */
        ni = new_pnode(bd, P_CONST);
        if (ni != UINT32_MAX)
            bd->pn[ni].vn = vi;
        return ni;
    }
    if (tc->nforeign)
        return UINT32_MAX;
    dc_op op = v.kind == VN_OP ? DC_INSN_OP(bd->p->code[v.pc]) : DC_OP_NOP;
    uint8_t kind = P_MEMO;
    uint32_t colv = 0, kv = 0;
    if (v.kind == VN_COL && tc->kind == DC_COL_BOOL) {
        kind = P_BOOL;
    } else if (v.kind == VN_HAS) {
        kind = P_HAS;
    } else if (op >= DC_OP_EQ && op <= DC_OP_GE) {
        for (int s = 0; s < 2 && kind == P_MEMO; s++) {
            colv = v.args[s], kv = v.args[1 - s];
            if ((op == DC_OP_EQ || op == DC_OP_NE) && plain_col(bd, colv, DC_COL_STRING) &&
                const_of(bd, kv, DC_K_STRING))
                kind = P_EQID;
            else if (plain_col(bd, colv, DC_COL_INT) && const_of(bd, kv, DC_K_INT)) {
                kind = P_CMPINT;
                /* c OP x is x OP' c */
                if (s == 1)
                    op = op == DC_OP_LT ? DC_OP_GT : op == DC_OP_LE ? DC_OP_GE
                       : op == DC_OP_GT ? DC_OP_LT : op == DC_OP_GE ? DC_OP_LE : op;
            }
        }
    } else if (op == DC_OP_IN && plain_col(bd, v.args[0], DC_COL_INT)) {
        /* numaNode in [0, 1]: int equality with each (a list of ints only: 1 == 1.0 in CEL,
         * and other kinds go through the batch interpreter). */
        const dc_val *l = const_of(bd, v.args[1], DC_K_LIST);
        bool ints = l && l->u.l->n <= MAX_SET;
        for (uint32_t i = 0; ints && i < l->u.l->n; i++)
            ints = l->u.l->v[i].k == DC_K_INT;
        if (ints) {
            kind = P_ININT;
            colv = v.args[0];
            kv = v.args[1];
        }
    } else if (op == DC_OP_IN && plain_col(bd, v.args[0], DC_COL_STRING)) {
        const dc_val *l = const_of(bd, v.args[1], DC_K_LIST);
        bool strings = l && l->u.l->n <= MAX_SET;
        for (uint32_t i = 0; strings && i < l->u.l->n; i++)
            strings = l->u.l->v[i].k == DC_K_STRING;
        if (strings) {
            kind = P_INSET;
            colv = v.args[0];
            kv = v.args[1];
        }
    }
    if (kind == P_MEMO && tc->kind == DC_COL_INT)
        return UINT32_MAX; /* ints are not dictionary-encoded: no memo */
    ni = new_pnode(bd, kind);
    if (ni == UINT32_MAX)
        return ni;
    pnode *n = &bd->pn[ni];
    n->vn = vi;
    n->col = v.col;
    const dc_table *t = bd->b->t;
    switch (kind) {
    case P_EQID:
        n->op = op == DC_OP_NE;
        n->ids[0] = bd->b->const_sid[bd->vn[kv].a];
        n->nids = 1;
        break;
    case P_CMPINT:
        n->op = (uint8_t)op;
        n->c = bd->p->consts[bd->vn[kv].a].u.i;
        break;
    case P_ININT: {
        const dc_list *l = bd->p->consts[bd->vn[kv].a].u.l;
        for (uint32_t i = 0; i < l->n; i++)
            n->ints[i] = l->v[i].u.i;
        n->nids = l->n;
        break;
    }
    case P_INSET: {
        const dc_list *l = bd->p->consts[bd->vn[kv].a].u.l;
        for (uint32_t i = 0; i < l->n; i++) {
            uint32_t id = dc_dict_find(t->dict, l->v[i].u.s->data, l->v[i].u.s->len,
                                       t->dict_limit);
            if (id != DC_DICT_NONE) /* a string no device has matches no row */
                n->ids[n->nids++] = id;
        }
        break;
    }
    default:
        break;
    }
    return ni;
}

static uint32_t to_plan(builder *bd, uint32_t vi)
{
    const vnode v = bd->vn[vi];
    if (v.col != COL_MANY)
        return leaf(bd, vi);
    dc_op op = v.kind == VN_OP ? DC_INSN_OP(bd->p->code[v.pc]) : DC_OP_NOP;
    if (op != DC_OP_AND && op != DC_OP_OR && op != DC_OP_NOT)
        return UINT32_MAX; /* two columns meet in something other than logic */
    uint32_t x = to_plan(bd, v.args[0]);
    uint32_t y = op == DC_OP_NOT ? 0 : to_plan(bd, v.args[1]);
    if (x == UINT32_MAX || y == UINT32_MAX)
        return UINT32_MAX;
    uint32_t ni = new_pnode(bd, op == DC_OP_AND ? P_AND : op == DC_OP_OR ? P_OR : P_NOT);
    if (ni != UINT32_MAX) {
        bd->pn[ni].pc = v.pc;
        bd->pn[ni].a = x;
        bd->pn[ni].b = y;
    }
    return ni;
}

dracel_status dc_plan_build(dc_bound *b, dc_arena *a)
{
    b->plan = NULL;
    if (b->p->loops || b->p->reads_device)
        return DRACEL_OK;
    /* Host functions are not fused: the batch interpreter calls them row by row, or once per
     * distinct value when they are pure, as the scalar VM would (vm/vvm.c). */
    for (uint32_t i = 0; i < b->p->nfns; i++)
        if (b->p->fns[i]->flags & DC_BF_HOST)
            return DRACEL_OK;
    builder bd;
    memset(&bd, 0, sizeof bd);
    bd.b = b;
    bd.p = b->p;
    bd.a = a;
    const dc_table *t = b->t;
    dc_plan *pl = dc_arena_zalloc(a, sizeof *pl);
    const dc_tcol **cols = dc_arena_alloc(a, (b->p->ncols + 2) * sizeof *cols);
    size_t words = DC_BITS_WORDS(t->rows);
    uint64_t *ones = dc_arena_alloc(a, (words + 1) * sizeof *ones);
    if (!pl || !cols || !ones)
        return DRACEL_ENOMEM;
    for (uint32_t i = 0; i < b->p->ncols; i++)
        cols[i] = b->colmap[i];
    for (size_t w = 0; w < words; w++)
        ones[w] = t->rows - w * 64 >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << (t->rows - w * 64)) - 1;
    pl->multi.kind = DC_COL_BOOL;
    pl->multi.present = ones;
    pl->multi.v.bits = t->multi;
    cols[DRIVER_COL(b->p)] = NULL;
    cols[MULTI_COL(b->p)] = &pl->multi;
    pl->cols = cols;
    bd.pl = pl;
    uint32_t root = read_tree(&bd);
    uint32_t proot = root == UINT32_MAX ? UINT32_MAX : to_plan(&bd, root);
    if (bd.oom)
        return DRACEL_ENOMEM;
    if (proot == UINT32_MAX)
        return DRACEL_OK;
    pl->vn = bd.vn;
    pl->nvn = bd.nvn;
    pl->pn = bd.pn;
    pl->npn = bd.npn;
    pl->root = proot;
    b->plan = pl;
    return DRACEL_OK;
}

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
                if (s->copied.k != DC_K_ERROR && !dc_val_copy(&out->arena, s->abs_val, &s->copied, 0))
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
