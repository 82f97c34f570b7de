/*
 * ast_print.c: the printed form of the AST (docs/ast.md), used by `dra-celc parse` and the
 * parser's case files. One line, s-expressions:
 *
 *   literals   null true 42 -7 42u 1.5 1e+100 "text" b"\x00\xff"
 *   x .x       identifiers (a leading dot is kept)
 *   (. e f)    selection e.f           (has e f)   has(e.f)
 *   (f a b)    global call, operators use cel-go's names: (_+_ 1 2) (!_ x) (_[_] l 0)
 *   (.f t a)   receiver call t.f(a)    (call .f a) global call written .f(a)
 *   (list a ?b)  (map (k v) ?(k v))  (struct a.b.C (f v) ?(g w))
 *   (all x r p) (map x r p t) (all k v r p) (transformList i v r t) (cel.bind v init body)
 *
 * The printer recurses; the parser bounds the height of every tree it returns.
 */
#include "ast.h"
#include "vm.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_quoted(dc_buf *b, const char *s, size_t n, bool bytes)
{
    if (bytes)
        dc_buf_putc(b, 'b');
    dc_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '"': dc_buf_puts(b, "\\\""); break;
        case '\\': dc_buf_puts(b, "\\\\"); break;
        case '\n': dc_buf_puts(b, "\\n"); break;
        case '\r': dc_buf_puts(b, "\\r"); break;
        case '\t': dc_buf_puts(b, "\\t"); break;
        default:
            if (ch < 0x20 || ch == 0x7f || (bytes && ch >= 0x80))
                dc_buf_printf(b, "\\x%02x", ch);
            else
                dc_buf_putc(b, (char)ch);
        }
    }
    dc_buf_putc(b, '"');
}

static void print_const(dc_buf *b, const dc_const *k)
{
    switch (k->kind) {
    case DC_CONST_NULL: dc_buf_puts(b, "null"); break;
    case DC_CONST_BOOL: dc_buf_puts(b, k->v.b ? "true" : "false"); break;
    case DC_CONST_INT: dc_buf_printf(b, "%lld", (long long)k->v.i); break;
    case DC_CONST_UINT: dc_buf_printf(b, "%lluu", (unsigned long long)k->v.u); break;
    case DC_CONST_DOUBLE: dc_double_text(b, k->v.d, false); break;
    case DC_CONST_STRING: print_quoted(b, k->v.s.ptr, k->v.s.len, false); break;
    case DC_CONST_BYTES: print_quoted(b, k->v.s.ptr, k->v.s.len, true); break;
    }
}

/* A field name that is not a plain identifier is shown in backquotes, as it was written. */
static void print_field(dc_buf *b, const char *f)
{
    bool plain = f[0] && !isdigit((unsigned char)f[0]);
    for (const char *p = f; *p && plain; p++)
        plain = isalnum((unsigned char)*p) || *p == '_';
    if (plain)
        dc_buf_puts(b, f);
    else
        dc_buf_printf(b, "`%s`", f);
}

void dc_ast_print(dc_buf *b, const dc_ast *e)
{
    if (!e) {
        dc_buf_puts(b, "<nil>");
        return;
    }
    switch (e->kind) {
    case DC_AST_CONST:
        print_const(b, &e->u.c);
        break;
    case DC_AST_IDENT:
        dc_buf_puts(b, e->u.ident.name);
        break;
    case DC_AST_SELECT:
        dc_buf_puts(b, e->flags & DC_ASTF_TEST_ONLY ? "(has " : "(. ");
        dc_ast_print(b, e->u.sel.operand);
        dc_buf_putc(b, ' ');
        print_field(b, e->u.sel.field);
        dc_buf_putc(b, ')');
        break;
    case DC_AST_CALL:
        if (e->flags & DC_ASTF_MEMBER)
            dc_buf_printf(b, "(.%s", e->u.call.fn);
        else if (e->u.call.fn[0] == '.')
            dc_buf_printf(b, "(call %s", e->u.call.fn);
        else
            dc_buf_printf(b, "(%s", e->u.call.fn);
        for (uint32_t i = 0; i < e->u.call.nargs; i++) {
            dc_buf_putc(b, ' ');
            dc_ast_print(b, e->u.call.args[i]);
        }
        dc_buf_putc(b, ')');
        break;
    case DC_AST_LIST:
        dc_buf_puts(b, "(list");
        for (uint32_t i = 0; i < e->u.list.n; i++) {
            dc_buf_puts(b, e->u.list.optional && e->u.list.optional[i] ? " ?" : " ");
            dc_ast_print(b, e->u.list.elems[i]);
        }
        dc_buf_putc(b, ')');
        break;
    case DC_AST_MAP:
    case DC_AST_STRUCT:
        if (e->kind == DC_AST_MAP)
            dc_buf_puts(b, "(map");
        else
            dc_buf_printf(b, "(struct %s", e->u.map.type);
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            const dc_entry *en = &e->u.map.entries[i];
            dc_buf_puts(b, en->optional ? " ?(" : " (");
            if (en->key)
                dc_ast_print(b, en->key);
            else
                print_field(b, en->field);
            dc_buf_putc(b, ' ');
            dc_ast_print(b, en->value);
            dc_buf_putc(b, ')');
        }
        dc_buf_putc(b, ')');
        break;
    case DC_AST_COMPREHENSION:
        dc_buf_printf(b, "(%s %s", dc_macro_names[e->u.comp.macro], e->u.comp.var1);
        if (e->u.comp.var2)
            dc_buf_printf(b, " %s", e->u.comp.var2);
        dc_buf_putc(b, ' ');
        dc_ast_print(b, e->u.comp.range);
        dc_buf_putc(b, ' ');
        dc_ast_print(b, e->u.comp.arg1);
        if (e->u.comp.arg2) {
            dc_buf_putc(b, ' ');
            dc_ast_print(b, e->u.comp.arg2);
        }
        dc_buf_putc(b, ')');
        break;
    }
}
