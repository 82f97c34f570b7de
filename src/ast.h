/*
 * ast.h: the CEL abstract syntax tree. Nodes live in the compile arena; every node has a unique
 * id (in creation order, from 1) and a byte span. Macros are already expanded: has() is a
 * SELECT with the TEST_ONLY flag (as in cel-go), comprehension macros and cel.bind are
 * COMPREHENSION nodes with their macro kind. Operators are CALLs with cel-go's internal names
 * (_+_, _&&_, _[_], !_, -_, @in, _?_:_, _?._, _[?_]).
 *
 * Change with: src/ast.c (constructors, height and node limits), src/ast_print.c (the printed
 * form, documented in docs/ast.md), src/macro.c, grammar/parser.y.
 */
#ifndef DC_AST_H
#define DC_AST_H

#include "diag.h"

typedef enum dc_ast_kind {
    DC_AST_CONST,
    DC_AST_IDENT,
    DC_AST_SELECT,
    DC_AST_CALL,
    DC_AST_LIST,
    DC_AST_MAP,
    DC_AST_STRUCT,
    DC_AST_COMPREHENSION
} dc_ast_kind;

typedef enum dc_const_kind {
    DC_CONST_NULL,
    DC_CONST_BOOL,
    DC_CONST_INT,
    DC_CONST_UINT,
    DC_CONST_DOUBLE,
    DC_CONST_STRING,
    DC_CONST_BYTES
} dc_const_kind;

/* Comprehension macros. The 2 suffix marks the two-variable forms (ext.TwoVarComprehensions). */
#define DC_MACROS(X)                                                   \
    X(ALL, "all", 1)                                                   \
    X(EXISTS, "exists", 1)                                             \
    X(EXISTS_ONE, "exists_one", 1)                                     \
    X(MAP, "map", 1)                                                   \
    X(MAP_FILTER, "map", 1)                                            \
    X(FILTER, "filter", 1)                                             \
    X(ALL2, "all", 2)                                                  \
    X(EXISTS2, "exists", 2)                                            \
    X(EXISTS_ONE2, "existsOne", 2)                                     \
    X(TRANSFORM_LIST, "transformList", 2)                              \
    X(TRANSFORM_LIST_FILTER, "transformList", 2)                       \
    X(TRANSFORM_MAP, "transformMap", 2)                                \
    X(TRANSFORM_MAP_FILTER, "transformMap", 2)                         \
    X(TRANSFORM_MAP_ENTRY, "transformMapEntry", 2)                     \
    X(TRANSFORM_MAP_ENTRY_FILTER, "transformMapEntry", 2)              \
    X(BIND, "cel.bind", 1)

typedef enum dc_macro {
#define DC_MACRO_ENUM(id, name, nvars) DC_MACRO_##id,
    DC_MACROS(DC_MACRO_ENUM)
#undef DC_MACRO_ENUM
    DC_MACRO__COUNT
} dc_macro;

extern const char *const dc_macro_names[DC_MACRO__COUNT];
extern const unsigned char dc_macro_nvars[DC_MACRO__COUNT];

/* dc_ast.flags */
enum {
    DC_ASTF_PAREN = 1u << 0,      /* written inside parentheses */
    DC_ASTF_TEST_ONLY = 1u << 1,  /* SELECT: has(operand.field) */
    DC_ASTF_MEMBER = 1u << 2,     /* CALL: receiver style, args[0] is the target */
    DC_ASTF_LEADING_DOT = 1u << 3 /* IDENT or global CALL written with a leading '.' */
};

typedef struct dc_ast dc_ast;

typedef struct dc_entry {
    uint32_t id;
    dracel_span span;
    bool optional;        /* ?key: value, or ?field: value */
    dc_ast *key;          /* MAP: key expression; STRUCT: NULL */
    const char *field;    /* STRUCT: field name; MAP: NULL */
    dc_ast *value;
} dc_entry;

typedef struct dc_const {
    dc_const_kind kind;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *ptr; /* NUL-terminated; BYTES may contain NULs */
            size_t len;
        } s;
    } v;
} dc_const;

struct dc_ast {
    dc_ast_kind kind;
    uint8_t flags;
    uint16_t height;  /* 1 for a leaf; bounded by the parser's max_depth */
    uint32_t id;
    dracel_span span;  /* the whole expression */
    uint32_t pos;      /* where diagnostics point, as cel-go locates the node: the operator of
                          a call ('+', '(' of a call, '[', '.'), the '(' of the macro call for
                          a macro expansion, else the start of the span */
    union {
        dc_const c;
        struct {
            const char *name;
        } ident;
        struct {
            dc_ast *operand;
            const char *field;
        } sel;
        struct {
            const char *fn;      /* function or operator name */
            dc_ast **args;       /* member calls: args[0] is the target */
            uint32_t nargs;
        } call;
        struct {
            dc_ast **elems;
            bool *optional;      /* NULL when no element is optional */
            uint32_t n;
        } list;
        struct {
            const char *type;    /* STRUCT: message type name */
            dc_entry *entries;
            uint32_t n;
        } map;                   /* MAP and STRUCT */
        struct {
            dc_macro macro;
            const char *var1, *var2; /* var2 only for the two-variable forms */
            dc_ast *range;       /* BIND: the initializer */
            dc_ast *arg1;        /* predicate, transform or body */
            dc_ast *arg2;        /* MAP_FILTER, *_FILTER: the transform (arg1 is the filter) */
        } comp;
    } u;
};

/* The state that node constructors need: arena, ids, limits, diagnostics. */
typedef struct dc_ast_ctx {
    dc_arena *arena;
    dc_diags *diags;
    uint32_t next_id;
    uint32_t nodes, max_nodes;
    uint32_t max_depth;
    bool limit_hit;    /* a fatal limit was reported: the parse stops */
    bool oom;
} dc_ast_ctx;

/* Constructors. Each returns NULL on ENOMEM (ctx->oom set) or when a limit is exceeded
 * (ctx->limit_hit set and a diagnostic reported). */
dc_ast *dc_ast_const(dc_ast_ctx *c, dracel_span sp, const dc_const *k);
dc_ast *dc_ast_ident(dc_ast_ctx *c, dracel_span sp, const char *name);
dc_ast *dc_ast_select(dc_ast_ctx *c, dracel_span sp, dc_ast *operand, const char *field,
                      bool test_only);
dc_ast *dc_ast_call(dc_ast_ctx *c, dracel_span sp, const char *fn, dc_ast **args, uint32_t n,
                    bool member);
dc_ast *dc_ast_call1(dc_ast_ctx *c, dracel_span sp, const char *fn, dc_ast *a);
dc_ast *dc_ast_call2(dc_ast_ctx *c, dracel_span sp, const char *fn, dc_ast *a, dc_ast *b);
dc_ast *dc_ast_call3(dc_ast_ctx *c, dracel_span sp, const char *fn, dc_ast *a, dc_ast *b,
                     dc_ast *d);
dc_ast *dc_ast_list(dc_ast_ctx *c, dracel_span sp, dc_ast **elems, bool *optional, uint32_t n);
dc_ast *dc_ast_map(dc_ast_ctx *c, dracel_span sp, const char *type, dc_entry *e, uint32_t n);
dc_ast *dc_ast_comprehension(dc_ast_ctx *c, dracel_span sp, dc_macro m, const char *v1,
                             const char *v2, dc_ast *range, dc_ast *arg1, dc_ast *arg2);
/** A string constant node (for the field names of _?._). */
dc_ast *dc_ast_string(dc_ast_ctx *c, dracel_span sp, const char *s, size_t len);

/** Expand a macro call if @p call (a CALL node just built) is one; else return it unchanged.
 *  Misuse (has() of a non-selection, a non-identifier variable) is reported and the call is
 *  returned unchanged so that checking can go on. */
dc_ast *dc_macro_expand(dc_ast_ctx *c, dc_ast *call);

/** The largest node id in the tree (passes that keep per-node data index arrays by id). */
uint32_t dc_ast_max_id(const dc_ast *e);

/** Print @p e in the s-expression form of docs/ast.md. */
void dc_ast_print(dc_buf *b, const dc_ast *e);

#endif
