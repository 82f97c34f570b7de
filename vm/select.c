/*
 * select.c: selections (vm/select.h) and the choice of the engine that computes one.
 *
 * A program runs row by row on the scalar VM when it loops (comprehensions), reads `device` as
 * a whole, may cost more than the limit on some row (the worst case of a loop-free program is
 * bounded below, from the table's longest string), or when asked; else on its fused plan when
 * the binder built one (vm/vplan.h), else on the batch interpreter (vm/vvm.h). A run whose
 * memos came near the memory limit starts again row by row (dc_memo_heavy), so that the limit
 * stays exactly per row.
 */
#include "select.h"

#include <string.h>

#include "host.h"
#include "vplan.h"
#include "vvm.h"

/* The longest string in a value (UINT64_MAX past a nesting the bound will not walk). */
static uint64_t longest_string(dc_val v, int depth)
{
    uint64_t m = 0, x;
    switch (v.k) {
    case DC_K_STRING:
    case DC_K_BYTES: return v.u.s->len;
    case DC_K_LIST:
    case DC_K_MAP:
        if (depth > 8)
            return UINT64_MAX;
        for (uint32_t i = 0; i < (v.k == DC_K_LIST ? v.u.l->n : v.u.m->n); i++) {
            x = longest_string(v.k == DC_K_LIST ? v.u.l->v[i] : v.u.m->vals[i], depth + 1);
            m = x > m ? x : m;
            if (v.k == DC_K_MAP && (x = longest_string(v.u.m->keys[i], depth + 1)) > m)
                m = x;
        }
        return m;
    default: return 0;
    }
}

/* The worst-case cost of one row of a loop-free program: every instruction once, the folded
 * charges, and for calls what the libraries can charge for the longest strings involved (the
 * table's, the constants' and the variables'). */
static uint64_t cost_bound(const dc_bound *b, const dc_val *vars)
{
    const dc_program *p = b->p;
    uint64_t longest = b->t->max_strlen;
    for (uint32_t i = 0; i < p->nconsts; i++)
        if (p->consts[i].k == DC_K_STRING && p->consts[i].u.s->len > longest)
            longest = p->consts[i].u.s->len;
    for (uint32_t pc = 0; pc < p->ncode;
         pc += dc_fmt_words(dc_op_info[DC_INSN_OP(p->code[pc])].fmt)) {
        uint32_t a = DC_INSN_A(p->code[pc]);
        if (DC_INSN_OP(p->code[pc]) == DC_OP_LOADVAR && a != p->device_slot && vars) {
            uint64_t x = longest_string(vars[a], 0);
            longest = x > longest ? x : longest;
        }
    }
    if (longest > ((uint64_t)1 << 30))
        return UINT64_MAX;
    uint64_t biglist = 64;
    for (uint32_t i = 0; i < p->nconsts; i++)
        if (p->consts[i].k == DC_K_LIST && p->consts[i].u.l->n > biglist)
            biglist = p->consts[i].u.l->n;
    uint64_t total = 0;
    for (uint32_t pc = 0; pc < p->ncode;) {
        dc_op op = DC_INSN_OP(p->code[pc]);
        total += 3; /* an instruction, and the selections a column load stands for */
        if (op == DC_OP_CHARGE)
            total += DC_INSN_A(p->code[pc]);
        if (op == DC_OP_CALL) {
            uint64_t lib = 16 + (longest + 1) * (longest + 1); /* contains: subject x part */
            const dc_builtin *fn = p->fns[DC_INSN_A(p->code[pc])];
            if ((fn->flags & DC_BF_REGEX) && b->regex_units > ((uint64_t)1 << 30))
                return UINT64_MAX;
            if (fn->flags & DC_BF_REGEX) /* what lib_core.c charges: subject x program */
                lib += ((longest + 11) / 10) * b->regex_units;
            uint64_t c = (fn->flags & DC_BF_HOST) ? dc_host_cost_bound(fn, &longest, lib) : lib;
            if (c > ((uint64_t)1 << 62) || longest > ((uint64_t)1 << 30))
                return UINT64_MAX;
            total += c;
        }
        if (op == DC_OP_IN)
            total += biglist;
        if (op == DC_OP_ADD || op == DC_OP_MKLIST) {
            /* Concatenations can double the longest string (and list) each time. */
            longest = longest * 2 + 1;
            biglist = biglist * 2 + 1;
            total += longest;
        }
        if (total > ((uint64_t)1 << 62))
            return UINT64_MAX;
        pc += dc_fmt_words(dc_op_info[op].fmt);
    }
    return total;
}

static int cmp_error_row(const void *a, const void *b)
{
    uint32_t x = ((const dc_foreign *)a)->row, y = ((const dc_foreign *)b)->row;
    return x < y ? -1 : x > y;
}

bool dc_memo_heavy(size_t bytes, size_t mem_limit, uint32_t ninsns)
{
    /* A row evaluates each instruction at most once (no loops here), with the same library
     * code as a memo entry. Entries under limit / (2 * instructions) make less than half the
     * limit per row; the lanes of a batch share an arena held to the other half (else the
     * batch is redone): no row the vector VM completes could reach the limit on the scalar
     * VM, which counts the bytes one evaluation asks for (dc_ealloc). */
    return mem_limit && bytes >= mem_limit / (2 * (size_t)(ninsns ? ninsns : 1));
}

void dc_selection_init(dc_selection *s, const dracel_alloc *a)
{
    memset(s, 0, sizeof *s);
    dc_arena_init(&s->arena, a ? a : &dc_default_alloc);
    dc_ectx_init(&s->run, a);
    dc_ectx_init(&s->lane, a);
    dc_ectx_init(&s->row, a);
}

void dc_selection_free(dc_selection *s)
{
    dc_free(s->arena.alloc, s->bits, s->bits_cap * sizeof *s->bits);
    dc_free(s->arena.alloc, s->errors, s->caperrors * sizeof *s->errors);
    dc_arena_free(&s->arena);
    dc_ectx_free(&s->run);
    dc_ectx_free(&s->lane);
    dc_ectx_free(&s->row);
    memset(s, 0, sizeof *s);
}

const dc_val *dc_selection_error(const dc_selection *s, uint32_t row)
{
    uint32_t lo = 0, hi = s->nerrors;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->errors[mid].row == row)
            return &s->errors[mid].v;
        if (s->errors[mid].row < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (row < s->rows && s->common_err.k == DC_K_ERROR && dc_bit(s->errored, row))
        return &s->common_err;
    return NULL;
}

bool dc_selection_add_error(dc_selection *s, uint32_t row, dc_val e)
{
    /* Rows mostly fail with a few distinct errors (an attribute a device lacks): an error
     * equal to the last one copied shares its copy. */
    dc_val copy = e;
    const dc_err *last = s->last_err;
    if (last && last->flags == e.u.e->flags && strcmp(last->msg, e.u.e->msg) == 0)
        copy.u.e = last;
    else if (!dc_val_copy(&s->arena, e, &copy, 0))
        return false;
    s->last_err = copy.u.e;
    return dc_selection_add_copied(s, row, copy);
}

bool dc_selection_add_copied(dc_selection *s, uint32_t row, dc_val e)
{
    if (s->nerrors == s->caperrors) {
        /* Kept across runs, like the bitmaps. */
        uint32_t cap = s->caperrors ? s->caperrors * 2 : 64;
        if (cap < s->caperrors)
            return false;
        dc_foreign *f =
            dc_realloc(s->arena.alloc, s->errors, s->caperrors * sizeof *f, cap * sizeof *f);
        if (!f)
            return false;
        s->errors = f;
        s->caperrors = cap;
    }
    s->errors[s->nerrors].row = row;
    s->errors[s->nerrors].v = e;
    s->nerrors++;
    dc_bit_set(s->errored, row);
    return true;
}


bool dc_select_row(const dc_bound *b, const dc_val *vars, bool keep, dc_ectx *c,
                   dc_selection *out, uint32_t row)
{
    dc_rowsrc rs = {b, row};
    c->rowsrc = &rs;
    dc_val v = dc_vm_exec(b->p, c, vars);
    c->rowsrc = NULL;
    if (c->alloc_failed)
        return false; /* the caller's allocator failed: ENOMEM, not an error value */
    out->lanes_scalar++;
    if (keep && !dc_val_copy(&out->arena, v, &out->values[row], 0))
        return false;
    if (v.k == DC_K_BOOL) {
        if (v.u.b)
            dc_bit_set(out->matched, row);
    } else if (v.k == DC_K_ERROR && !dc_selection_add_error(out, row, v)) {
        return false;
    }
    return true;
}

dracel_status dc_select_run(const dc_bound *b, const dc_val *vars, const dc_vopts *o,
                            dc_selection *out)
{
    const dracel_alloc *a = out->arena.alloc;
    const dc_table *t = b->t;
    dc_arena_reset(&out->arena);
    out->rows = t->rows;
    out->nerrors = 0;
    out->last_err = NULL;
    out->common_err = dc_null();
    out->lanes_scalar = 0;
    size_t words = DC_BITS_WORDS(t->rows);
    out->values =
        o->keep_values ? dc_arena_zalloc(&out->arena, (t->rows + 1) * sizeof(dc_val)) : NULL;
    if (o->keep_values && !out->values)
        return DRACEL_ENOMEM;
    /* The bitmaps outlive the arena's reset: a selection run again over a table of the same
     * size reuses them (no fresh pages to fault in on every run). */
    if (!words)
        words = 1;
    if (out->bits_cap < 2 * words) {
        uint64_t *nb = dc_malloc(a, 2 * words * sizeof *nb);
        if (!nb)
            return DRACEL_ENOMEM;
        dc_free(a, out->bits, out->bits_cap * sizeof *out->bits);
        out->bits = nb;
        out->bits_cap = 2 * words;
    }
    memset(out->bits, 0, 2 * words * sizeof *out->bits);
    out->matched = out->bits;
    out->errored = out->bits + words;

    /* The selection's contexts, kept across runs (their chunks, compiled regexes). The lanes
     * of a batch get half the per-row memory limit (at least a byte); see dc_memo_heavy. */
    dc_ectx_reset(&out->run, 0, 0);
    dc_ectx_reset(&out->lane, 0, o->mem_limit ? (o->mem_limit / 2 ? o->mem_limit / 2 : 1) : 0);
    bool scalar = o->scalar || b->p->loops || b->p->reads_device ||
                  (o->cost_limit && cost_bound(b, vars) > o->cost_limit);
    bool heavy = false;
    dracel_status st = DRACEL_OK;
    if (!scalar && b->plan && !o->batched)
        st = dc_plan_run(b, vars, o->keep_values, o->mem_limit, out, &heavy);
    else if (!scalar)
        st = dc_vvm_batches(b, vars, o, out, &heavy);
    if (st == DRACEL_OK && (scalar || heavy)) {
        /* Row by row: what was asked, or what a run whose memos came near the evaluation
         * memory limit (applied per row by the scalar VM) starts again with. */
        memset(out->bits, 0, 2 * words * sizeof *out->bits);
        out->nerrors = 0;
        out->last_err = NULL;
        out->common_err = dc_null();
        dc_ectx *c = &out->row;
        dc_ectx_reset(c, o->cost_limit, o->mem_limit);
        for (uint32_t row = 0; row < t->rows && st == DRACEL_OK; row++)
            if (!dc_select_row(b, vars, o->keep_values, c, out, row))
                st = DRACEL_ENOMEM;
    }
    /* A batch records its faulty rows before its other errors: keep the list in row order
     * for dc_selection_error's binary search. */
    for (uint32_t i = 1; i < out->nerrors; i++)
        if (out->errors[i - 1].row > out->errors[i].row) {
            dc_sort(out->errors, out->nerrors, sizeof *out->errors, cmp_error_row);
            break;
        }
    return st;
}
