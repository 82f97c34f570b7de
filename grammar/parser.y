/*
 * parser.y: the CEL grammar (cel-spec doc/langdef.md), as a pure Bison LALR(1) parser with
 * byte-offset locations. Actions only build AST nodes (src/ast.c) and expand macros as calls are
 * built (src/macro.c); no checking, no code generation.
 *
 * Precedence is encoded in the layering of the nonterminals (expr > cor > cand > rel > calc >
 * mul > unary > member > primary), exactly as in the CEL grammar, so there are no precedence
 * declarations and no conflicts: %expect 0 holds.
 *
 * Two things are decided in the token stream (dc_yylex) rather than in the grammar, to give the
 * trees cel-go's ANTLR parser gives:
 *   - A unary '-' directly before an int or double literal is part of the literal (the CEL
 *     grammar's `literal: '-'? NUM_INT`), unless that '-' itself follows a unary '-': so `-5` is
 *     the constant -5, `-9223372036854775808` is valid, `-5.f()` calls f on -5, and `--5` is 5.
 *   - Bracket nesting ( [ { is counted and bounded by max_depth before the parser stacks it.
 * Repeated unary operators fold as in cel-go: an even number of '!' or '-' is dropped.
 *
 * Change with: src/parse.h, src/lex.h (token kinds), docs/language.md, tests/cases/parse*.test.
 */
%require "3.6"
%define api.pure full
%define api.prefix {dc_yy}
%define api.token.prefix {TK_}
%define api.location.type {dracel_span}
%define parse.error custom
%locations
%param {dc_parser *p}
%expect 0

%code requires {
#include "parse.h"
}

%code provides {
int dc_yylex(DC_YYSTYPE *lval, DC_YYLTYPE *lloc, dc_parser *p);
void dc_yyerror(DC_YYLTYPE *lloc, dc_parser *p, const char *msg);
}

%code {
#include <string.h>

/* Bison's stack (on the heap past its first 200 entries) must never be what stops a nesting
 * the configured depth allows: a level of brackets takes about three entries, and the lexer
 * stops brackets at the depth limit; right-recursive chains (?:) are stopped by the AST's
 * height check. Its default of 10,000 entries cut a 10,000-deep limit at 9,997 brackets. */
#define YYMAXDEPTH (8 * DRACEL_HARD_MAX_DEPTH + 1000)

/* A node's span runs from its first symbol's start to its last symbol's end; an empty rule
 * sits at the end of what precedes it (jq's YYLLOC_DEFAULT). */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                         \
    do {                                                    \
        if (N) {                                            \
            (Cur).start = YYRHSLOC(Rhs, 1).start;           \
            (Cur).end = YYRHSLOC(Rhs, N).end;               \
        } else {                                            \
            (Cur).start = (Cur).end = YYRHSLOC(Rhs, 0).end; \
        }                                                   \
    } while (0)

/* Check a constructor's result: NULL means out of memory or a limit (already reported). */
#define MK(lhs, expr)                           \
    do {                                        \
        if (!((lhs) = (expr))) {                \
            if (p->ast.oom)                     \
                YYNOMEM;                        \
            YYABORT;                            \
        }                                       \
    } while (0)

#define AT(node, loc) ((node)->pos = (loc).start)

/* An allocation failed in an action: record it (so that the "memory exhausted" Bison then
 * reports is not taken for its own stack limit) and stop. */
#define NOMEM()                  \
    do {                         \
        p->ast.oom = true;       \
        YYNOMEM;                 \
    } while (0)

/* Bison's three stacks start in yyparse's frame (YYINITDEPTH entries) and grow through the
 * skeleton's yyoverflow hook instead of malloc/free: the larger copies go to the compile arena
 * (released with it; the smaller copies a growth leaves behind add up to less than the final
 * size), so the parser allocates only through the configured allocator. The stack is bounded
 * by YYMAXDEPTH as before: past it, "memory exhausted" without p->ast.oom, as Bison says. */
#define yyoverflow(Msg, Ss, Ssize, Vs, Vsize, Ls, Lsize, N)                              \
    do {                                                                                 \
        (void)(Msg);                                                                     \
        if (*(N) >= YYMAXDEPTH)                                                          \
            YYNOMEM;                                                                     \
        YYPTRDIFF_T n_ = *(N) * 2 < YYMAXDEPTH ? *(N) * 2 : YYMAXDEPTH;                  \
        void *ss_ = dc_arena_alloc(p->ast.arena, (size_t)n_ * sizeof **(Ss));            \
        void *vs_ = dc_arena_alloc(p->ast.arena, (size_t)n_ * sizeof **(Vs));            \
        void *ls_ = dc_arena_alloc(p->ast.arena, (size_t)n_ * sizeof **(Ls));            \
        if (!ss_ || !vs_ || !ls_)                                                        \
            NOMEM();                                                                     \
        memcpy(ss_, *(Ss), (size_t)(Ssize));                                             \
        memcpy(vs_, *(Vs), (size_t)(Vsize));                                             \
        memcpy(ls_, *(Ls), (size_t)(Lsize));                                             \
        *(Ss) = ss_;                                                                     \
        *(Vs) = vs_;                                                                     \
        *(Ls) = ls_;                                                                     \
        *(N) = n_;                                                                       \
    } while (0)

static const char *const reserved_ids[] = {
    "as", "break", "const", "continue", "else", "for", "function", "if", "import",
    "let", "loop", "package", "namespace", "return", "var", "void", "while",
};

/* cel-go rejects reserved words where an identifier is used as a name or a global function. */
static void check_reserved(dc_parser *p, const char *name, dracel_span sp)
{
    for (size_t i = 0; i < DC_COUNTOF(reserved_ids); i++)
        if (strcmp(name, reserved_ids[i]) == 0) {
            dc_error(p->ast.diags, sp, "reserved identifier: %s", name);
            return;
        }
}

static bool vec_push(dc_parser *p, dc_nodevec *v, dc_ast *e, bool optional)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 4;
        dc_ast **nv = dc_arena_alloc(p->ast.arena, cap * sizeof *nv);
        if (!nv)
            return false;
        if (v->n)
            memcpy(nv, v->v, v->n * sizeof *nv);
        v->v = nv;
        if (v->opt) {
            bool *no = dc_arena_zalloc(p->ast.arena, cap * sizeof *no);
            if (!no)
                return false;
            memcpy(no, v->opt, v->n * sizeof *no);
            v->opt = no;
        }
        v->cap = cap;
    }
    if (optional && !v->opt) {
        v->opt = dc_arena_zalloc(p->ast.arena, v->cap * sizeof *v->opt);
        if (!v->opt)
            return false;
    }
    v->v[v->n] = e;
    if (v->opt)
        v->opt[v->n] = optional;
    v->n++;
    return true;
}

static bool chain_push(dc_parser *p, dc_chain *c, dc_ast *e, uint32_t op)
{
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 4;
        dc_ast **nt = dc_arena_alloc(p->ast.arena, cap * sizeof *nt);
        uint32_t *no = dc_arena_alloc(p->ast.arena, cap * sizeof *no);
        if (!nt || !no)
            return false;
        if (c->n) {
            memcpy(nt, c->t, c->n * sizeof *nt);
            memcpy(no, c->op, c->n * sizeof *no);
        }
        c->t = nt;
        c->op = no;
        c->cap = cap;
    }
    if (c->n)
        c->op[c->n - 1] = op;
    c->t[c->n++] = e;
    return true;
}

/* Build a balanced tree over the operands of a && or || chain, as cel-go does, so that long
 * chains stay shallow: terms t[lo..hi+1], operators op[lo..hi]. */
static dc_ast *balance(dc_parser *p, const char *fn, const dc_chain *c, uint32_t lo, uint32_t hi)
{
    uint32_t mid = (lo + hi + 1) / 2;
    dc_ast *l = mid == lo ? c->t[mid] : balance(p, fn, c, lo, mid - 1);
    dc_ast *r = mid == hi ? c->t[mid + 1] : balance(p, fn, c, mid + 1, hi);
    if ((mid != lo && !l) || (mid != hi && !r))
        return NULL;
    dracel_span sp = {l ? l->span.start : c->op[mid], r ? r->span.end : c->op[mid] + 2};
    dc_ast *e = dc_ast_call2(&p->ast, sp, fn, l, r);
    if (e)
        e->pos = c->op[mid];
    return e;
}

static dc_ast *chain_tree(dc_parser *p, const char *fn, const dc_chain *c)
{
    return c->n == 1 ? c->t[0] : balance(p, fn, c, 0, c->n - 2);
}

static bool entry_push(dc_parser *p, dc_entryvec *v, const dc_entry *e)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 4;
        dc_entry *nv = dc_arena_alloc(p->ast.arena, cap * sizeof *nv);
        if (!nv)
            return false;
        if (v->n)
            memcpy(nv, v->v, v->n * sizeof *nv);
        v->v = nv;
        v->cap = cap;
    }
    v->v[v->n++] = *e;
    return true;
}

static dc_entry make_entry(dc_parser *p, dracel_span sp, bool optional, dc_ast *key,
                           const char *field, dc_ast *value)
{
    dc_entry e = {0};
    e.id = ++p->ast.next_id;
    e.span = sp;
    e.optional = optional;
    e.key = key;
    e.field = field;
    e.value = value;
    return e;
}

/* A literal from a token; reports out-of-range ints (the lexer flags them). */
static dc_ast *literal(dc_parser *p, const dc_token *t, dracel_span sp)
{
    dc_const k = {0};
    switch (t->kind) {
    case DC_TOK_INT:
        k.kind = DC_CONST_INT;
        if (t->flags & DC_TOKF_BAD)
            break;
        if (t->flags & DC_TOKF_NEG) {
            if (t->v.u > (uint64_t)INT64_MAX + 1)
                dc_error(p->ast.diags, sp, "invalid int literal");
            else
                k.v.i = t->v.u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)t->v.u;
        } else if (t->flags & DC_TOKF_INT_OVERFLOW) {
            dc_error(p->ast.diags, sp, "invalid int literal");
        } else {
            k.v.i = (int64_t)t->v.u;
        }
        break;
    case DC_TOK_UINT:
        k.kind = DC_CONST_UINT;
        k.v.u = t->v.u;
        break;
    case DC_TOK_DOUBLE:
        k.kind = DC_CONST_DOUBLE;
        k.v.d = (t->flags & DC_TOKF_NEG) ? -t->v.d : t->v.d;
        break;
    case DC_TOK_STRING:
    case DC_TOK_BYTES:
        k.kind = t->kind == DC_TOK_STRING ? DC_CONST_STRING : DC_CONST_BYTES;
        k.v.s.ptr = t->v.s.ptr ? t->v.s.ptr : "";
        k.v.s.len = t->v.s.ptr ? t->v.s.len : 0;
        break;
    case DC_TOK_TRUE:
    case DC_TOK_FALSE:
        k.kind = DC_CONST_BOOL;
        k.v.b = t->kind == DC_TOK_TRUE;
        break;
    default:
        k.kind = DC_CONST_NULL;
        break;
    }
    return dc_ast_const(&p->ast, sp, &k);
}

/* cel-go checks reserved words when it visits an identifier or a global call, but not in the
 * type name of a message construction (`import{}` is accepted). Our grammar sees the name as
 * an identifier first, so the check made then is taken back here. */
static void unreport_reserved(dc_parser *p, const dc_ast *type)
{
    while (type && type->kind == DC_AST_SELECT)
        type = type->u.sel.operand;
    if (!type || type->kind != DC_AST_IDENT)
        return;
    dc_diags *d = p->ast.diags;
    for (size_t i = d->count; i-- > 0;) {
        if (d->items[i].span.start == type->span.start &&
            strncmp(d->items[i].msg, "reserved identifier: ", 21) == 0) {
            memmove(&d->items[i], &d->items[i + 1], (d->count - i - 1) * sizeof *d->items);
            d->count--;
            d->errors--;
            return;
        }
    }
}

/* The type name of a message construction: a (possibly leading-dot) qualified name. */
static const char *qualified_name(dc_parser *p, const dc_ast *e)
{
    if (!e || (e->flags & DC_ASTF_PAREN))
        return NULL;
    if (e->kind == DC_AST_IDENT)
        return e->u.ident.name;
    if (e->kind == DC_AST_SELECT && !(e->flags & DC_ASTF_TEST_ONLY)) {
        const char *f = e->u.sel.field;
        for (const char *c = f; *c; c++)
            if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9')))
                return NULL;
        const char *left = qualified_name(p, e->u.sel.operand);
        return left ? dc_arena_printf(p->ast.arena, "%s.%s", left, f) : NULL;
    }
    return NULL;
}

/* Unary chains: an even number of operators is dropped (cel-go), an odd number is one call. */
static dc_ast *unary(dc_parser *p, const char *op, uint32_t count, dracel_span oploc,
                     dc_ast *operand, dracel_span sp)
{
    if (count % 2 == 0)
        return operand;
    dc_ast *e = dc_ast_call1(&p->ast, sp, op, operand);
    if (e)
        e->pos = oploc.start;
    return e;
}

/* A call (global, or receiver style when target is set) at position `pos` (its '('), with
 * macro expansion: an expansion keeps the call's position, as cel-go gives every node a macro
 * generates the position of the macro call. */
static dc_ast *call_from_vec(dc_parser *p, dracel_span sp, uint32_t pos, const char *fn,
                             dc_ast *target, const dc_nodevec *args, bool leading_dot)
{
    uint32_t n = args->n + (target ? 1 : 0);
    dc_ast **v = dc_arena_alloc(p->ast.arena, (n ? n : 1) * sizeof *v);
    if (!v) {
        p->ast.oom = true;
        return NULL;
    }
    uint32_t i = 0;
    if (target)
        v[i++] = target;
    if (args->n)
        memcpy(v + i, args->v, args->n * sizeof *v);
    dc_ast *c = dc_ast_call(&p->ast, sp, fn, v, n, target != NULL);
    if (!c)
        return NULL;
    c->pos = pos;
    if (leading_dot)
        c->flags |= DC_ASTF_LEADING_DOT;
    for (uint32_t k = 0; k < n; k++)
        if (!v[k]) /* an argument lost to error recovery: keep the call, skip macros */
            return c;
    return dc_macro_expand(&p->ast, c);
}

}

%union {
    dc_ast *node;
    dc_token tok;
    dc_nodevec nodes;
    dc_entryvec entries;
    dc_chain chain;
    dc_entry entry;
    uint32_t count;
    const char *name;
}

%token <tok> IDENT "identifier"
%token <tok> QIDENT "quoted identifier"
%token <tok> INT "int literal"
%token <tok> UINT "uint literal"
%token <tok> DOUBLE "double literal"
%token <tok> STRING "string literal"
%token <tok> BYTES "bytes literal"
%token <tok> TRUE "'true'"
%token <tok> FALSE "'false'"
%token <tok> NUL "'null'"
%token IN "'in'"
%token LPAREN "'('" RPAREN "')'" LBRACKET "'['" RBRACKET "']'" LBRACE "'{'" RBRACE "'}'"
%token DOT "'.'" COMMA "','" COLON "':'" QUESTION "'?'"
%token OR "'||'" AND "'&&'" EQ "'=='" NE "'!='" LT "'<'" LE "'<='" GT "'>'" GE "'>='"
%token PLUS "'+'" MINUS "'-'" STAR "'*'" SLASH "'/'" PERCENT "'%'" BANG "'!'"

%type <node> expr cor cand rel calc mul unary member primary literal
%type <name> relop addop mulop field
%type <count> nots negs
%type <chain> ors ands
%type <nodes> opt_args args elems
%type <entries> entries fields
%type <entry> entry finit

%start start

%%

start
    : expr                          { p->result = $1; }
    ;

/* expr: cor ('?' cor ':' expr)? */
expr
    : cor
    | cor "'?'" cor "':'" expr      { MK($$, dc_ast_call3(&p->ast, @$, "_?_:_", $1, $3, $5)); AT($$, @2); }
    ;

/* Chains of || and of && become balanced trees (cel-go's balancer). */
cor
    : ors                           { if ($1.n == 1) $$ = $1.t[0]; else MK($$, chain_tree(p, "_||_", &$1)); }
    ;

ors
    : cand                          { memset(&$$, 0, sizeof $$); if (!chain_push(p, &$$, $1, 0)) NOMEM(); }
    | ors "'||'" cand               { $$ = $1; if (!chain_push(p, &$$, $3, @2.start)) NOMEM(); }
    ;

cand
    : ands                          { if ($1.n == 1) $$ = $1.t[0]; else MK($$, chain_tree(p, "_&&_", &$1)); }
    ;

ands
    : rel                           { memset(&$$, 0, sizeof $$); if (!chain_push(p, &$$, $1, 0)) NOMEM(); }
    | ands "'&&'" rel               { $$ = $1; if (!chain_push(p, &$$, $3, @2.start)) NOMEM(); }
    ;

/* All relations share one level and associate to the left, as in the CEL grammar. */
rel
    : calc
    | rel relop calc                { MK($$, dc_ast_call2(&p->ast, @$, $2, $1, $3)); AT($$, @2); }
    ;

relop
    : "'<'"     { $$ = "_<_"; }
    | "'<='"    { $$ = "_<=_"; }
    | "'>'"     { $$ = "_>_"; }
    | "'>='"    { $$ = "_>=_"; }
    | "'=='"    { $$ = "_==_"; }
    | "'!='"    { $$ = "_!=_"; }
    | "'in'"    { $$ = "@in"; }
    ;

calc
    : mul
    | calc addop mul                { MK($$, dc_ast_call2(&p->ast, @$, $2, $1, $3)); AT($$, @2); }
    ;

addop
    : "'+'"     { $$ = "_+_"; }
    | "'-'"     { $$ = "_-_"; }
    ;

mul
    : unary
    | mul mulop unary               { MK($$, dc_ast_call2(&p->ast, @$, $2, $1, $3)); AT($$, @2); }
    ;

mulop
    : "'*'"     { $$ = "_*_"; }
    | "'/'"     { $$ = "_/_"; }
    | "'%'"     { $$ = "_%_"; }
    ;

/* unary: member | '!'+ member | '-'+ member   (no mixing: `-!x` needs parentheses) */
unary
    : member
    | nots member                   { if ($2 && $1 % 2) { MK($$, unary(p, "!_", $1, @1, $2, @$)); } else $$ = $2; }
    | negs member                   { if ($2 && $1 % 2) { MK($$, unary(p, "-_", $1, @1, $2, @$)); } else $$ = $2; }
    ;

nots
    : "'!'"                         { $$ = 1; }
    | nots "'!'"                    { $$ = $1 + 1; }
    ;

negs
    : "'-'"                         { $$ = 1; }
    | negs "'-'"                    { $$ = $1 + 1; }
    ;

member
    : primary
    | member "'.'" field            { MK($$, dc_ast_select(&p->ast, @$, $1, $3, false)); AT($$, @2); }
    | member "'.'" "'?'" field
        {
            dc_ast *f;
            MK(f, dc_ast_string(&p->ast, @4, $4, strlen($4)));
            MK($$, dc_ast_call2(&p->ast, @$, "_?._", $1, f));
            AT($$, @2);
        }
    | member "'.'" IDENT "'('" opt_args "')'"
        {
            MK($$, call_from_vec(p, @$, @4.start, $3.v.s.ptr, $1, &$5, false));
        }
    | member "'['" expr "']'"       { MK($$, dc_ast_call2(&p->ast, @$, "_[_]", $1, $3)); AT($$, @2); }
    | member "'['" "'?'" expr "']'" { MK($$, dc_ast_call2(&p->ast, @$, "_[?_]", $1, $4)); AT($$, @2); }
    | member "'{'" opt_comma "'}'"
        {
            const char *type = qualified_name(p, $1);
            if (type)
                unreport_reserved(p, $1);
            if (!type) {
                dc_error(p->ast.diags, @2, "Syntax error: a message type name must be a qualified identifier");
                type = "<invalid>";
            }
            MK($$, dc_ast_map(&p->ast, @$, type, NULL, 0));
            AT($$, @2);
        }
    | member "'{'" fields opt_comma "'}'"
        {
            const char *type = qualified_name(p, $1);
            if (type)
                unreport_reserved(p, $1);
            if (!type) {
                dc_error(p->ast.diags, @2, "Syntax error: a message type name must be a qualified identifier");
                type = "<invalid>";
            }
            MK($$, dc_ast_map(&p->ast, @$, type, $3.v, $3.n));
            AT($$, @2);
        }
    ;

field
    : IDENT                         { $$ = $1.v.s.ptr; }
    | QIDENT                        { $$ = $1.v.s.ptr; }
    ;

primary
    : IDENT
        {
            check_reserved(p, $1.v.s.ptr, @1);
            MK($$, dc_ast_ident(&p->ast, @$, $1.v.s.ptr));
        }
    | "'.'" IDENT
        {
            check_reserved(p, $2.v.s.ptr, @1);
            const char *name;
            MK(name, dc_arena_printf(p->ast.arena, ".%s", $2.v.s.ptr));
            MK($$, dc_ast_ident(&p->ast, @$, name));
            $$->flags |= DC_ASTF_LEADING_DOT;
        }
    | IDENT "'('" opt_args "')'"
        {
            check_reserved(p, $1.v.s.ptr, @1);
            MK($$, call_from_vec(p, @$, @2.start, $1.v.s.ptr, NULL, &$3, false));
        }
    | "'.'" IDENT "'('" opt_args "')'"
        {
            check_reserved(p, $2.v.s.ptr, @1);
            const char *name;
            MK(name, dc_arena_printf(p->ast.arena, ".%s", $2.v.s.ptr));
            MK($$, call_from_vec(p, @$, @3.start, name, NULL, &$4, true));
        }
    | "'('" expr "')'"              { $$ = $2; if ($$) $$->flags |= DC_ASTF_PAREN; }
    | "'('" error "')'"             { $$ = NULL; }
    | "'['" opt_comma "']'"         { MK($$, dc_ast_list(&p->ast, @$, NULL, NULL, 0)); }
    | "'['" elems opt_comma "']'"   { MK($$, dc_ast_list(&p->ast, @$, $2.v, $2.opt, $2.n)); }
    | "'{'" opt_comma "'}'"         { MK($$, dc_ast_map(&p->ast, @$, NULL, NULL, 0)); }
    | "'{'" entries opt_comma "'}'" { MK($$, dc_ast_map(&p->ast, @$, NULL, $2.v, $2.n)); }
    | literal
    ;

literal
    : INT                           { MK($$, literal(p, &$1, @1)); }
    | UINT                          { MK($$, literal(p, &$1, @1)); }
    | DOUBLE                        { MK($$, literal(p, &$1, @1)); }
    | STRING                        { MK($$, literal(p, &$1, @1)); }
    | BYTES                         { MK($$, literal(p, &$1, @1)); }
    | TRUE                          { MK($$, literal(p, &$1, @1)); }
    | FALSE                         { MK($$, literal(p, &$1, @1)); }
    | NUL                           { MK($$, literal(p, &$1, @1)); }
    ;

opt_args
    : %empty                        { memset(&$$, 0, sizeof $$); }
    | args
    ;

args
    : expr                          { memset(&$$, 0, sizeof $$); if (!vec_push(p, &$$, $1, false)) NOMEM(); }
    | args "','" expr               { $$ = $1; if (!vec_push(p, &$$, $3, false)) NOMEM(); }
    ;

opt_comma
    : %empty
    | "','"
    ;

elems
    : expr                          { memset(&$$, 0, sizeof $$); if (!vec_push(p, &$$, $1, false)) NOMEM(); }
    | "'?'" expr                    { memset(&$$, 0, sizeof $$); if (!vec_push(p, &$$, $2, true)) NOMEM(); }
    | elems "','" expr              { $$ = $1; if (!vec_push(p, &$$, $3, false)) NOMEM(); }
    | elems "','" "'?'" expr        { $$ = $1; if (!vec_push(p, &$$, $4, true)) NOMEM(); }
    ;

entries
    : entry                         { memset(&$$, 0, sizeof $$); if (!entry_push(p, &$$, &$1)) NOMEM(); }
    | entries "','" entry           { $$ = $1; if (!entry_push(p, &$$, &$3)) NOMEM(); }
    ;

entry
    : expr "':'" expr               { $$ = make_entry(p, @2, false, $1, NULL, $3); }
    | "'?'" expr "':'" expr         { $$ = make_entry(p, @3, true, $2, NULL, $4); }
    ;

fields
    : finit                         { memset(&$$, 0, sizeof $$); if (!entry_push(p, &$$, &$1)) NOMEM(); }
    | fields "','" finit            { $$ = $1; if (!entry_push(p, &$$, &$3)) NOMEM(); }
    ;

finit
    : field "':'" expr              { $$ = make_entry(p, @2, false, NULL, $1, $3); }
    | "'?'" field "':'" expr        { $$ = make_entry(p, @3, true, NULL, $2, $4); }
    ;

%%

/* ---- The token stream -------------------------------------------------------------------- */

static const int tok_map[DC_TOK__COUNT] = {
    [DC_TOK_EOF] = TK_YYEOF,         [DC_TOK_IDENT] = TK_IDENT,     [DC_TOK_QIDENT] = TK_QIDENT,
    [DC_TOK_INT] = TK_INT,           [DC_TOK_UINT] = TK_UINT,       [DC_TOK_DOUBLE] = TK_DOUBLE,
    [DC_TOK_STRING] = TK_STRING,     [DC_TOK_BYTES] = TK_BYTES,     [DC_TOK_TRUE] = TK_TRUE,
    [DC_TOK_FALSE] = TK_FALSE,       [DC_TOK_NULL] = TK_NUL,        [DC_TOK_IN] = TK_IN,
    [DC_TOK_LPAREN] = TK_LPAREN,     [DC_TOK_RPAREN] = TK_RPAREN,   [DC_TOK_LBRACKET] = TK_LBRACKET,
    [DC_TOK_RBRACKET] = TK_RBRACKET, [DC_TOK_LBRACE] = TK_LBRACE,   [DC_TOK_RBRACE] = TK_RBRACE,
    [DC_TOK_DOT] = TK_DOT,           [DC_TOK_COMMA] = TK_COMMA,     [DC_TOK_COLON] = TK_COLON,
    [DC_TOK_QUESTION] = TK_QUESTION, [DC_TOK_OR] = TK_OR,           [DC_TOK_AND] = TK_AND,
    [DC_TOK_EQ] = TK_EQ,             [DC_TOK_NE] = TK_NE,           [DC_TOK_LT] = TK_LT,
    [DC_TOK_LE] = TK_LE,             [DC_TOK_GT] = TK_GT,           [DC_TOK_GE] = TK_GE,
    [DC_TOK_PLUS] = TK_PLUS,         [DC_TOK_MINUS] = TK_MINUS,     [DC_TOK_STAR] = TK_STAR,
    [DC_TOK_SLASH] = TK_SLASH,       [DC_TOK_PERCENT] = TK_PERCENT, [DC_TOK_BANG] = TK_BANG,
};

/* After these tokens (or at the start) an operand is expected, so '-' is unary there. */
static bool operand_expected(int prev)
{
    switch (prev) {
    case -1:
    case DC_TOK_LPAREN: case DC_TOK_LBRACKET: case DC_TOK_LBRACE: case DC_TOK_COMMA:
    case DC_TOK_COLON: case DC_TOK_QUESTION: case DC_TOK_OR: case DC_TOK_AND:
    case DC_TOK_EQ: case DC_TOK_NE: case DC_TOK_LT: case DC_TOK_LE: case DC_TOK_GT:
    case DC_TOK_GE: case DC_TOK_IN: case DC_TOK_PLUS: case DC_TOK_MINUS: case DC_TOK_STAR:
    case DC_TOK_SLASH: case DC_TOK_PERCENT: case DC_TOK_BANG:
        return true;
    default:
        return false;
    }
}

static void raw_next(dc_parser *p, dc_token *t)
{
    if (p->have_peek) {
        *t = p->peek;
        p->have_peek = false;
        return;
    }
    dc_lex_next(&p->lx, t);
}

int dc_yylex(DC_YYSTYPE *lval, DC_YYLTYPE *lloc, dc_parser *p)
{
    dc_token t;
    if (p->ast.limit_hit || p->lx.diags->oom)
        return TK_YYEOF;
    raw_next(p, &t);
    bool unary_minus = t.kind == DC_TOK_MINUS && operand_expected(p->prev);
    if (unary_minus && !(p->prev == DC_TOK_MINUS && p->prev_unary_minus)) {
        raw_next(p, &p->peek);
        p->have_peek = true;
        if (p->peek.kind == DC_TOK_INT || p->peek.kind == DC_TOK_DOUBLE) {
            uint32_t start = t.span.start;
            t = p->peek;
            p->have_peek = false;
            t.span.start = start;
            t.flags |= DC_TOKF_NEG;
            unary_minus = false;
        }
    }
    if (t.kind == DC_TOK_LPAREN || t.kind == DC_TOK_LBRACKET || t.kind == DC_TOK_LBRACE) {
        if (++p->depth > p->ast.max_depth) {
            dc_limit_error(p->ast.diags, t.span, "expression recursion limit exceeded: %u",
                     p->ast.max_depth);
            p->ast.limit_hit = true;
            return TK_YYEOF;
        }
    } else if ((t.kind == DC_TOK_RPAREN || t.kind == DC_TOK_RBRACKET ||
                t.kind == DC_TOK_RBRACE) && p->depth > 0) {
        p->depth--;
    }
    p->prev = (int)t.kind;
    p->prev_unary_minus = unary_minus;
    lval->tok = t;
    *lloc = t.span;
    return tok_map[t.kind];
}

void dc_yyerror(DC_YYLTYPE *lloc, dc_parser *p, const char *msg)
{
    if (p->ast.limit_hit)
        return;
    if (strcmp(msg, "memory exhausted") == 0) {
        if (p->ast.oom)
            return; /* reported by the caller as ENOMEM */
        /* Bison's own stack is full (YYMAXDEPTH): no input the limits allow gets here. */
        dc_limit_error(p->ast.diags, *lloc, "expression recursion limit exceeded: %u",
                 p->ast.max_depth);
        p->ast.limit_hit = true;
        return;
    }
    dc_error(p->ast.diags, *lloc, "Syntax error: %s", msg);
}

/* Syntax errors in the spirit of cel-go's (ANTLR's) wording; the position is what matters. */
static int yyreport_syntax_error(const yypcontext_t *ctx, dc_parser *p)
{
    if (p->ast.limit_hit)
        return 0;
    enum { MAX_EXPECTED = 24 };
    yysymbol_kind_t expected[MAX_EXPECTED];
    int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
    const dracel_span *loc = yypcontext_location(ctx);
    yysymbol_kind_t tok = yypcontext_token(ctx);
    dc_buf b;
    dc_buf_init(&b, p->ast.arena->alloc);
    if (tok == YYSYMBOL_YYEOF) {
        dc_buf_puts(&b, "Syntax error: mismatched input '<EOF>'");
    } else {
        uint32_t len = loc->end - loc->start;
        const char *text = (const char *)p->lx.src + loc->start;
        if (len > 40)
            dc_buf_printf(&b, "Syntax error: mismatched input '%.40s...'", text);
        else
            dc_buf_printf(&b, "Syntax error: mismatched input '%.*s'", (int)len, text);
    }
    if (n > 0) {
        dc_buf_puts(&b, " expecting ");
        if (n > 1)
            dc_buf_putc(&b, '{');
        for (int i = 0; i < n; i++)
            dc_buf_printf(&b, "%s%s", i ? ", " : "", yysymbol_name(expected[i]));
        if (n > 1)
            dc_buf_putc(&b, '}');
    }
    if (b.oom) {
        dc_buf_free(&b);
        p->ast.oom = true;
        return YYENOMEM;
    }
    dc_error(p->ast.diags, *loc, "%s", b.data);
    dc_buf_free(&b);
    return 0;
}
