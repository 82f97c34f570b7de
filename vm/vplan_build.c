/*
 * vplan_build.c: the fused kernels' plans, built when a program is bound (vm/vplan.h).
 *
 * The bytecode is executed symbolically (a stack of expression nodes) into a tree of value
 * nodes, each knowing the one program column it depends on (or none, or several). `&&` and
 * `||` are recognised with or without their short-circuit jump (ANDJ/ORJ to just past the
 * matching AND/OR); any other jump, a local, an iterator or `device` as a whole ends the
 * attempt. The tree becomes a plan (vm/vplan_int.h): logic nodes over leaves. Running it:
 * vm/vplan_run.c.
 */
#include "vplan_int.h"

#include <string.h>

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
