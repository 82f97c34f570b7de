/*
 * macro.c: expansion of CEL macros into dedicated AST nodes, as each call is built.
 *
 *   has(e.f)                      -> SELECT e.f with TEST_ONLY
 *   r.all(x, p)  r.exists(x, p)  r.exists_one(x, p)  r.map(x, t)  r.map(x, p, t)  r.filter(x, p)
 *   r.all(k, v, p)  r.exists(k, v, p)  r.existsOne(k, v, p)
 *   r.transformList(i, v, [p,] t)  r.transformMap(k, v, [p,] t)  r.transformMapEntry(k, v, [p,] t)
 *   cel.bind(v, init, body)
 *
 * A call that matches no macro (another name, another number of arguments, a global call of a
 * receiver-style macro) stays an ordinary call, as in cel-go: the checker reports it later if no
 * function has that signature. Misuse of a matching macro is reported here.
 */
#include "ast.h"

#include <string.h>

/* The variable of a macro must be a plain identifier (no leading dot). */
static const char *simple_name(const dc_ast *e)
{
    if (e->kind == DC_AST_IDENT && !(e->flags & (DC_ASTF_LEADING_DOT | DC_ASTF_PAREN)))
        return e->u.ident.name;
    return NULL;
}

static dc_ast *expand_has(dc_ast_ctx *c, dc_ast *call)
{
    dc_ast *arg = call->u.call.args[0];
    if (arg->kind != DC_AST_SELECT || (arg->flags & DC_ASTF_TEST_ONLY)) {
        dc_error(c->diags, arg->span, "invalid argument to has() macro");
        return call;
    }
    return dc_ast_select(c, call->span, arg->u.sel.operand, arg->u.sel.field, true);
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
        dc_error(c->diags, a[1]->span, "argument must be a simple name");
        return call;
    }
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
        dc_error(c->diags, a[1]->span, "first variable name must be a simple identifier");
        return call;
    }
    if (!v) {
        dc_error(c->diags, a[2]->span, "second variable name must be a simple identifier");
        return call;
    }
    if (strcmp(k, v) == 0) {
        dc_error(c->diags, a[2]->span, "duplicate variable name: %s", v);
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
        dc_error(c->diags, a[1]->span, "cel.bind() variable name must be a simple identifier");
        return call;
    }
    return dc_ast_comprehension(c, call->span, DC_MACRO_BIND, v, NULL, a[2], a[3], NULL);
}

dc_ast *dc_macro_expand(dc_ast_ctx *c, dc_ast *call)
{
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
        if (is(fn, "exists_one"))
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
        if (is(fn, "existsOne"))
            return expand_two(c, call, DC_MACRO_EXISTS_ONE2);
        if (is(fn, "transformList"))
            return expand_two(c, call, DC_MACRO_TRANSFORM_LIST);
        if (is(fn, "transformMap"))
            return expand_two(c, call, DC_MACRO_TRANSFORM_MAP);
        if (is(fn, "transformMapEntry"))
            return expand_two(c, call, DC_MACRO_TRANSFORM_MAP_ENTRY);
        if (is(fn, "bind")) {
            const dc_ast *t = call->u.call.args[0];
            if (t->kind == DC_AST_IDENT && !(t->flags & (DC_ASTF_LEADING_DOT | DC_ASTF_PAREN)) &&
                is(t->u.ident.name, "cel"))
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
