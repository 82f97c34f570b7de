/*
 * bind.c: binding a program to a device table (vm/vm.h, dc_bound): column loads resolved to the
 * table's columns, string constants to dictionary ids. Done once per (program, table snapshot);
 * evaluations then read columns directly.
 */
#include <string.h>

#include "vm.h"
#include "vplan.h"

/* The regex factor of the call at pc (whose pattern, args[1], is its last argument: the
 * instruction before it pushed it when that is a string CONST), combined with worst so far. A
 * pattern computed at run time has no bound. */
static uint64_t regex_bound(const dc_program *p, uint32_t pc, uint32_t prev, uint64_t worst)
{
    if (worst == UINT64_MAX || prev == UINT32_MAX || p->code[pc + 1] != 2 ||
        DC_INSN_OP(p->code[prev]) != DC_OP_CONST)
        return UINT64_MAX;
    const dc_val *k = &p->consts[DC_INSN_A(p->code[prev])];
    if (k->k != DC_K_STRING)
        return worst; /* not a pattern: no overload, no match */
    uint64_t u = dc_regex_units(k->u.s);
    return u > worst ? u : worst;
}

dracel_status dc_bind(const dc_program *p, const dc_table *t, const dracel_alloc *a,
                      dc_bound **out)
{
    *out = NULL;
    dc_arena arena;
    dc_arena_init(&arena, a ? a : &dc_default_alloc);
    dc_bound *b = dc_arena_zalloc(&arena, sizeof *b);
    const dc_tcol **colmap = dc_arena_zalloc(&arena, (p->ncols + 1) * sizeof *colmap);
    uint32_t *sid = dc_arena_zalloc(&arena, (p->nconsts + 1) * sizeof *sid);
    if (!b || !colmap || !sid) {
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    b->p = p;
    b->t = t;
    for (uint32_t i = 0; i < p->ncols; i++) {
        const dc_column *c = &p->cols[i];
        colmap[i] = dc_table_col(t, c->capacity, c->domain->data, c->domain->len, c->id->data,
                                 c->id->len);
    }
    const dc_str **extra = dc_arena_zalloc(&arena, (p->nconsts + 1) * sizeof *extra);
    if (!extra) {
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    uint32_t nextra = 0;
    for (uint32_t i = 0; i < p->nconsts; i++) {
        const dc_val *k = &p->consts[i];
        if (k->k != DC_K_STRING) {
            sid[i] = DC_DICT_NONE;
            continue;
        }
        sid[i] = dc_dict_find(t->dict, k->u.s->data, k->u.s->len, t->dict_limit);
        if (sid[i] != DC_DICT_NONE)
            continue;
        /* Not in the dictionary: an id of its own past it (shared by equal constants). */
        uint32_t e = 0;
        while (e < nextra && !(extra[e]->len == k->u.s->len &&
                               memcmp(extra[e]->data, k->u.s->data, k->u.s->len) == 0))
            e++;
        if (e == nextra)
            extra[nextra++] = k->u.s;
        sid[i] = t->dict_limit + e;
    }
    b->extra = extra;
    b->nextra = nextra;
    for (uint32_t pc = 0, prev = UINT32_MAX; pc < p->ncode;) {
        dc_op op = DC_INSN_OP(p->code[pc]);
        if (op == DC_OP_CALL && (p->fns[DC_INSN_A(p->code[pc])]->flags & DC_BF_REGEX))
            b->regex_units = regex_bound(p, pc, prev, b->regex_units);
        prev = pc;
        pc += dc_fmt_words(dc_op_info[op].fmt);
    }
    b->colmap = colmap;
    b->const_sid = sid;
    if (dc_plan_build(b, &arena) != DRACEL_OK) {
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    b->arena = arena;
    *out = b;
    return DRACEL_OK;
}

void dc_bound_free(dc_bound *b)
{
    if (!b)
        return;
    dc_arena a = b->arena;
    dc_arena_free(&a);
}
