/*
 * ast.c: AST node constructors. Every constructor assigns the next id, computes the node's
 * height from its children and enforces the node-count and height limits, so that every later
 * recursive pass over the tree (macros, printer, checker, compiler) has a bounded depth.
 */
#include "ast.h"

#include <string.h>

const char *const dc_macro_names[DC_MACRO__COUNT] = {
#define DC_MACRO_NAME(id, name, nvars) name,
    DC_MACROS(DC_MACRO_NAME)
#undef DC_MACRO_NAME
};

const unsigned char dc_macro_nvars[DC_MACRO__COUNT] = {
#define DC_MACRO_NV(id, name, nvars) nvars,
    DC_MACROS(DC_MACRO_NV)
#undef DC_MACRO_NV
};

static dc_ast *node_new(dc_ast_ctx *c, dc_ast_kind kind, dracel_span sp, uint32_t height)
{
    if (c->limit_hit)
        return NULL;
    if (c->nodes >= c->max_nodes) {
        dc_limit_error(c->diags, sp, "expression has too many nodes: limit %u", c->max_nodes);
        c->limit_hit = true;
        return NULL;
    }
    if (height > c->max_depth) {
        dc_limit_error(c->diags, sp, "expression recursion limit exceeded: %u", c->max_depth);
        c->limit_hit = true;
        return NULL;
    }
    dc_ast *e = dc_arena_zalloc(c->arena, sizeof *e);
    if (!e) {
        c->oom = true;
        return NULL;
    }
    c->nodes++;
    e->kind = kind;
    e->span = sp;
    e->pos = sp.start;
    e->id = ++c->next_id;
    e->height = (uint16_t)height;
    return e;
}

static uint32_t h(const dc_ast *e)
{
    return e ? e->height : 0;
}

static uint32_t max_h(dc_ast *const *v, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (h(v[i]) > m)
            m = h(v[i]);
    return m;
}

dc_ast *dc_ast_const(dc_ast_ctx *c, dracel_span sp, const dc_const *k)
{
    dc_ast *e = node_new(c, DC_AST_CONST, sp, 1);
    if (e)
        e->u.c = *k;
    return e;
}

dc_ast *dc_ast_string(dc_ast_ctx *c, dracel_span sp, const char *s, size_t len)
{
    dc_const k = {.kind = DC_CONST_STRING};
    k.v.s.ptr = s;
    k.v.s.len = len;
    return dc_ast_const(c, sp, &k);
}

dc_ast *dc_ast_ident(dc_ast_ctx *c, dracel_span sp, const char *name)
{
    dc_ast *e = node_new(c, DC_AST_IDENT, sp, 1);
    if (e)
        e->u.ident.name = name;
    return e;
}

dc_ast *dc_ast_select(dc_ast_ctx *c, dracel_span sp, dc_ast *operand, const char *field,
                      bool test_only)
{
    dc_ast *e = node_new(c, DC_AST_SELECT, sp, h(operand) + 1);
    if (e) {
        e->u.sel.operand = operand;
        e->u.sel.field = field;
        if (test_only)
            e->flags |= DC_ASTF_TEST_ONLY;
    }
    return e;
}

dc_ast *dc_ast_call(dc_ast_ctx *c, dracel_span sp, const char *fn, dc_ast **args, uint32_t n,
                    bool member)
{
    dc_ast *e = node_new(c, DC_AST_CALL, sp, max_h(args, n) + 1);
    if (e) {
        e->u.call.fn = fn;
        e->u.call.args = args;
        e->u.call.nargs = n;
        if (member)
            e->flags |= DC_ASTF_MEMBER;
    }
    return e;
}

static dc_ast *call_n(dc_ast_ctx *c, dracel_span sp, const char *fn, dc_ast *const *v, uint32_t n)
{
    dc_ast **args = dc_arena_alloc(c->arena, n * sizeof *args);
    if (!args) {
        c->oom = true;
        return NULL;
    }
    memcpy(args, v, n * sizeof *args);
    return dc_ast_call(c, sp, fn, args, n, false);
}

dc_ast *dc_ast_call1(dc_ast_ctx *c, dracel_span sp, const char *fn, dc_ast *a)
{
    return call_n(c, sp, fn, &a, 1);
}

dc_ast *dc_ast_call2(dc_ast_ctx *c, dracel_span sp, const char *fn, dc_ast *a, dc_ast *b)
{
    dc_ast *v[2] = {a, b};
    return call_n(c, sp, fn, v, 2);
}

dc_ast *dc_ast_call3(dc_ast_ctx *c, dracel_span sp, const char *fn, dc_ast *a, dc_ast *b,
                     dc_ast *d)
{
    dc_ast *v[3] = {a, b, d};
    return call_n(c, sp, fn, v, 3);
}

dc_ast *dc_ast_list(dc_ast_ctx *c, dracel_span sp, dc_ast **elems, bool *optional, uint32_t n)
{
    dc_ast *e = node_new(c, DC_AST_LIST, sp, max_h(elems, n) + 1);
    if (e) {
        e->u.list.elems = elems;
        e->u.list.optional = optional;
        e->u.list.n = n;
    }
    return e;
}

dc_ast *dc_ast_map(dc_ast_ctx *c, dracel_span sp, const char *type, dc_entry *ents, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (h(ents[i].key) > m)
            m = h(ents[i].key);
        if (h(ents[i].value) > m)
            m = h(ents[i].value);
    }
    dc_ast *e = node_new(c, type ? DC_AST_STRUCT : DC_AST_MAP, sp, m + 1);
    if (e) {
        e->u.map.type = type;
        e->u.map.entries = ents;
        e->u.map.n = n;
    }
    return e;
}

dc_ast *dc_ast_comprehension(dc_ast_ctx *c, dracel_span sp, dc_macro m, const char *v1,
                             const char *v2, dc_ast *range, dc_ast *arg1, dc_ast *arg2)
{
    uint32_t hh = h(range);
    if (h(arg1) > hh)
        hh = h(arg1);
    if (h(arg2) > hh)
        hh = h(arg2);
    dc_ast *e = node_new(c, DC_AST_COMPREHENSION, sp, hh + 1);
    if (e) {
        e->u.comp.macro = m;
        e->u.comp.var1 = v1;
        e->u.comp.var2 = v2;
        e->u.comp.range = range;
        e->u.comp.arg1 = arg1;
        e->u.comp.arg2 = arg2;
    }
    return e;
}

uint32_t dc_ast_max_id(const dc_ast *e)
{
    if (!e)
        return 0;
    uint32_t m = e->id, k;
#define MAXOF(x)                   \
    do {                           \
        k = dc_ast_max_id(x);      \
        if (k > m)                 \
            m = k;                 \
    } while (0)
    switch (e->kind) {
    case DC_AST_CONST:
    case DC_AST_IDENT:
        break;
    case DC_AST_SELECT:
        MAXOF(e->u.sel.operand);
        break;
    case DC_AST_CALL:
        for (uint32_t i = 0; i < e->u.call.nargs; i++)
            MAXOF(e->u.call.args[i]);
        break;
    case DC_AST_LIST:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            MAXOF(e->u.list.elems[i]);
        break;
    case DC_AST_MAP:
    case DC_AST_STRUCT:
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            MAXOF(e->u.map.entries[i].key);
            MAXOF(e->u.map.entries[i].value);
        }
        break;
    case DC_AST_COMPREHENSION:
        MAXOF(e->u.comp.range);
        MAXOF(e->u.comp.arg1);
        MAXOF(e->u.comp.arg2);
        break;
    }
#undef MAXOF
    return m;
}
