/*
 * macro.c: expansion of CEL macros into dedicated AST nodes, as each call is built.
 *
 *   has(e.f)                      -> SELECT e.f with TEST_ONLY
 *   r.all(x, p)  r.exists(x, p)  r.exists_one(x, p) (alias existsOne)  r.map(x, t)
 *   r.map(x, p, t)  r.filter(x, p)
 *   r.all(k, v, p)  r.exists(k, v, p)  r.existsOne(k, v, p) (alias exists_one)
 *   r.transformList(i, v, [p,] t)  r.transformMap(k, v, [p,] t)  r.transformMapEntry(k, v, [p,] t)
 *   cel.bind(v, init, body)
 *
 * A call that matches no macro (another name, another number of arguments, a global call of a
 * receiver-style macro) stays an ordinary call, as in cel-go: the checker reports it later if no
 * function has that signature. Misuse of a matching macro is reported here.
 */
#include "ast.h"

#include <string.h>

/* The variable of a macro must be an identifier (cel-go accepts parentheses and a leading dot
 * around it, and keeps the name as written). */
static const char *simple_name(const dc_ast *e)
{
    return e->kind == DC_AST_IDENT ? e->u.ident.name : NULL;
}

/* cel-go reserves the accumulator's name. */
static bool is_accumulator(dc_ast_ctx *c, const dc_ast *arg, const char *name)
{
    if (strcmp(name, "__result__") != 0)
        return false;
    dc_error(c->diags, dc_span(arg->pos, arg->pos), "iteration variable overwrites accumulator variable");
    return true;
}

static dc_ast *expand_has(dc_ast_ctx *c, dc_ast *call)
{
    dc_ast *arg = call->u.call.args[0];
    if (arg->kind != DC_AST_SELECT) {
        dc_error(c->diags, dc_span(arg->pos, arg->pos), "invalid argument to has() macro");
        return call;
    }
    dc_ast *e = dc_ast_select(c, call->span, arg->u.sel.operand, arg->u.sel.field, true);
    if (e)
        e->pos = call->pos;
    return e;
}

static bool is(const char *fn, const char *name)
{
    return strcmp(fn, name) == 0;
}

/* One-variable comprehensions of the standard library. */
static dc_ast *expand_one(dc_ast_ctx *c, dc_ast *call, dc_macro m)
{
    dc_ast **a = call->u.call.args; /* a[0] target, then the macro's arguments */
    const char *v = simple_name(a[1]);
    if (!v) {
        /* cel-go's wording differs between the quantifiers and map/filter. */
        bool quantifier = m == DC_MACRO_ALL || m == DC_MACRO_EXISTS || m == DC_MACRO_EXISTS_ONE;
        dc_error(c->diags, dc_span(a[1]->pos, a[1]->pos),
                 quantifier ? "argument must be a simple name" : "argument is not an identifier");
        return call;
    }
    if (is_accumulator(c, a[1], v))
        return call;
    if (m == DC_MACRO_MAP_FILTER)
        return dc_ast_comprehension(c, call->span, m, v, NULL, a[0], a[2], a[3]);
    return dc_ast_comprehension(c, call->span, m, v, NULL, a[0], a[2], NULL);
}

/* Two-variable comprehensions (cel-go ext.TwoVarComprehensions). */
static dc_ast *expand_two(dc_ast_ctx *c, dc_ast *call, dc_macro m)
{
    dc_ast **a = call->u.call.args;
    const char *k = simple_name(a[1]);
    const char *v = simple_name(a[2]);
    if (!k) {
        dc_error(c->diags, dc_span(a[1]->pos, a[1]->pos), "argument must be a simple name");
        return call;
    }
    if (!v) {
        dc_error(c->diags, dc_span(a[2]->pos, a[2]->pos), "argument must be a simple name");
        return call;
    }
    if (is_accumulator(c, a[1], k) || is_accumulator(c, a[2], v))
        return call;
    if (strcmp(k, v) == 0) {
        dc_error(c->diags, dc_span(a[2]->pos, a[2]->pos), "duplicate variable name: %s", v);
        return call;
    }
    bool filter = call->u.call.nargs == 5;
    return dc_ast_comprehension(c, call->span, m, k, v, a[0], a[3], filter ? a[4] : NULL);
}

static dc_ast *expand_bind(dc_ast_ctx *c, dc_ast *call)
{
    dc_ast **a = call->u.call.args;
    const char *v = simple_name(a[1]);
    if (!v) {
        dc_error(c->diags, dc_span(a[1]->pos, a[1]->pos),
                 "cel.bind() variable names must be simple identifiers");
        return call;
    }
    return dc_ast_comprehension(c, call->span, DC_MACRO_BIND, v, NULL, a[2], a[3], NULL);
}

static dc_ast *expand(dc_ast_ctx *c, dc_ast *call);

dc_ast *dc_macro_expand(dc_ast_ctx *c, dc_ast *call)
{
    dc_ast *e = expand(c, call);
    if (e && e != call)
        e->pos = call->pos; /* the '(' of the macro call, where cel-go locates expansions */
    return e;
}

static dc_ast *expand(dc_ast_ctx *c, dc_ast *call)
{
    for (uint32_t i = 0; i < call->u.call.nargs; i++)
        if (!call->u.call.args[i])
            return call; /* an argument lost to error recovery */
    const char *fn = call->u.call.fn;
    uint32_t n = call->u.call.nargs;
    if (!(call->flags & DC_ASTF_MEMBER)) {
        if (n == 1 && is(fn, "has") && !(call->flags & DC_ASTF_LEADING_DOT))
            return expand_has(c, call);
        return call;
    }
    n--; /* arguments after the target */
    if (n == 2) {
        if (is(fn, "all"))
            return expand_one(c, call, DC_MACRO_ALL);
        if (is(fn, "exists"))
            return expand_one(c, call, DC_MACRO_EXISTS);
        if (is(fn, "exists_one") || is(fn, "existsOne"))
            return expand_one(c, call, DC_MACRO_EXISTS_ONE);
        if (is(fn, "map"))
            return expand_one(c, call, DC_MACRO_MAP);
        if (is(fn, "filter"))
            return expand_one(c, call, DC_MACRO_FILTER);
    } else if (n == 3) {
        if (is(fn, "map"))
            return expand_one(c, call, DC_MACRO_MAP_FILTER);
        if (is(fn, "all"))
            return expand_two(c, call, DC_MACRO_ALL2);
        if (is(fn, "exists"))
            return expand_two(c, call, DC_MACRO_EXISTS2);
        if (is(fn, "existsOne") || is(fn, "exists_one"))
            return expand_two(c, call, DC_MACRO_EXISTS_ONE2);
        if (is(fn, "transformList"))
            return expand_two(c, call, DC_MACRO_TRANSFORM_LIST);
        if (is(fn, "transformMap"))
            return expand_two(c, call, DC_MACRO_TRANSFORM_MAP);
        if (is(fn, "transformMapEntry"))
            return expand_two(c, call, DC_MACRO_TRANSFORM_MAP_ENTRY);
        if (is(fn, "bind")) {
            const dc_ast *t = call->u.call.args[0];
            if (t->kind == DC_AST_IDENT && is(t->u.ident.name, "cel"))
                return expand_bind(c, call);
        }
    } else if (n == 4) {
        if (is(fn, "transformList"))
            return expand_two(c, call, DC_MACRO_TRANSFORM_LIST_FILTER);
        if (is(fn, "transformMap"))
            return expand_two(c, call, DC_MACRO_TRANSFORM_MAP_FILTER);
        if (is(fn, "transformMapEntry"))
            return expand_two(c, call, DC_MACRO_TRANSFORM_MAP_ENTRY_FILTER);
    }
    return call;
}
